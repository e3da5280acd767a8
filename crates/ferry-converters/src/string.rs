//! `StringConverter`: any value as its Java `toString()` text, read back as an optional string.

use ferry_api::config::{
    ConfigDef, ConfigError, ConfigKey, ConfigType, DefaultValue, Importance, Width,
};
use ferry_api::converter::{Converter, HeaderConverter};
use ferry_api::data::{Schema, SchemaAndValue, SchemaRef, Value};
use ferry_api::error::Result;
use ferry_api::ConfigMap;

use crate::config::{converter_config_def, is_key, parse_for_data, parse_for_header};
use crate::encoding::Charset;
use ferry_api::java::java_to_string;

/// The character set used for both directions.
pub const ENCODING_CONFIG: &str = "converter.encoding";
pub const ENCODING_DEFAULT: &str = "UTF-8";

/// Writes `value.toString()` in the configured charset, ignoring the schema except to recognise
/// dates (see [`ferry_api::java::to_string`]); reads any bytes as an optional string.
#[derive(Debug, Clone)]
pub struct StringConverter {
    write_charset: Charset,
    read_charset: Charset,
}

impl Default for StringConverter {
    fn default() -> Self {
        StringConverter {
            write_charset: Charset::Utf8,
            read_charset: Charset::Utf8,
        }
    }
}

impl StringConverter {
    pub const CLASS_NAME: &'static str = "org.apache.kafka.connect.storage.StringConverter";

    pub fn new() -> Self {
        Self::default()
    }

    pub fn config_def() -> ConfigDef {
        let mut encoding = ConfigKey::new(
            ENCODING_CONFIG,
            ConfigType::String,
            DefaultValue::Value(ENCODING_DEFAULT.to_owned()),
            Importance::High,
            "The name of the Java character set to use for encoding strings as byte arrays.",
        );
        encoding.width = Width::Medium;
        encoding.display_name = "Encoding".to_owned();
        converter_config_def().define(encoding)
    }

    /// Java lets the Kafka serializer's own `key.`/`value.` `serializer.encoding` and
    /// `deserializer.encoding` keys win over `converter.encoding`; Ferry honours them too.
    fn apply(
        &mut self,
        configs: &ConfigMap,
        parsed: &ferry_api::config::ParsedConfig,
    ) -> Result<()> {
        let encoding = parsed
            .string(ENCODING_CONFIG)?
            .unwrap_or_else(|| ENCODING_DEFAULT.to_owned());
        let role = if is_key(parsed) { "key" } else { "value" };
        let pick = |suffix: &str| -> Result<Charset> {
            let specific = format!("{role}.{suffix}");
            let (key, name) = match configs.get(&specific) {
                Some(name) => (specific.as_str(), name.as_str()),
                None => (ENCODING_CONFIG, encoding.as_str()),
            };
            Charset::for_name(name).ok_or_else(|| {
                ConfigError::invalid_value(key, name, &format!("Unsupported encoding {name}"))
                    .into()
            })
        };
        let write_charset = pick("serializer.encoding")?;
        let read_charset = pick("deserializer.encoding")?;
        self.write_charset = write_charset;
        self.read_charset = read_charset;
        Ok(())
    }

    fn write(&self, schema: Option<&SchemaRef>, value: &Value) -> Option<Vec<u8>> {
        // A string is its own text (Java's `String.toString()`): encoded without a copy first.
        if let Value::String(text) = value {
            return Some(self.write_charset.encode(text));
        }
        java_to_string(schema.map(|s| s.as_ref()), value)
            .map(|text| self.write_charset.encode(&text))
    }

    /// Null bytes still come back with the optional string schema, as in Java.
    fn read(&self, bytes: Option<&[u8]>) -> SchemaAndValue {
        let value = bytes.map_or(Value::Null, |b| Value::String(self.read_charset.decode(b)));
        SchemaAndValue::new(Some(Schema::optional_string()), value)
    }
}

impl Converter for StringConverter {
    fn configure(&mut self, configs: &ConfigMap, is_key: bool) -> Result<()> {
        let parsed = parse_for_data(&Self::config_def(), configs, is_key)?;
        self.apply(configs, &parsed)
    }

    fn config_def(&self) -> ConfigDef {
        Self::config_def()
    }

    fn from_connect_data(
        &self,
        _topic: &str,
        schema: Option<&SchemaRef>,
        value: &Value,
    ) -> Result<Option<Vec<u8>>> {
        Ok(self.write(schema, value))
    }

    fn to_connect_data(&self, _topic: &str, bytes: Option<&[u8]>) -> Result<SchemaAndValue> {
        Ok(self.read(bytes))
    }
}

impl HeaderConverter for StringConverter {
    fn configure(&mut self, configs: &ConfigMap) -> Result<()> {
        let parsed = parse_for_header(&Self::config_def(), configs)?;
        self.apply(configs, &parsed)
    }

    fn config_def(&self) -> ConfigDef {
        Self::config_def()
    }

    fn from_connect_header(
        &self,
        _topic: &str,
        _key: &str,
        schema: Option<&SchemaRef>,
        value: &Value,
    ) -> Result<Option<Vec<u8>>> {
        Ok(self.write(schema, value))
    }

    fn to_connect_header(
        &self,
        _topic: &str,
        _key: &str,
        bytes: Option<&[u8]>,
    ) -> Result<SchemaAndValue> {
        Ok(self.read(bytes))
    }
}

#[cfg(test)]
mod tests {
    use ferry_api::ConnectError;

    use super::*;

    const TOPIC: &str = "topic";

    fn configured(pairs: &[(&str, &str)], is_key: bool) -> Result<StringConverter> {
        let configs: ConfigMap = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        let mut c = StringConverter::new();
        Converter::configure(&mut c, &configs, is_key)?;
        Ok(c)
    }

    #[test]
    fn strings_are_written_as_utf8_by_default() {
        let c = StringConverter::new();
        let out = c
            .from_connect_data(TOPIC, Some(&Schema::string()), &"a string".into())
            .unwrap();
        assert_eq!(out.as_deref(), Some(&b"a string"[..]));
    }

    #[test]
    fn other_types_are_written_as_their_java_text_whatever_the_schema() {
        let c = StringConverter::new();
        let t = Value::Boolean(true);
        assert_eq!(
            c.from_connect_data(TOPIC, Some(&Schema::boolean()), &t)
                .unwrap(),
            Some(b"true".to_vec())
        );
        assert_eq!(
            c.from_connect_data(TOPIC, None, &t).unwrap(),
            Some(b"true".to_vec())
        );
        assert_eq!(
            c.from_connect_data(TOPIC, Some(&Schema::string()), &Value::Float64(2.0))
                .unwrap(),
            Some(b"2.0".to_vec())
        );
    }

    #[test]
    fn null_stays_null_and_reads_back_with_a_schema() {
        let c = StringConverter::new();
        let none = c
            .from_connect_data(TOPIC, Some(&Schema::optional_string()), &Value::Null)
            .unwrap();
        assert_eq!(none, None);
        let back = c.to_connect_data(TOPIC, None).unwrap();
        assert_eq!(back.schema, Some(Schema::optional_string()));
        assert_eq!(back.value, Value::Null);
    }

    #[test]
    fn reads_give_an_optional_string() {
        let back = StringConverter::new()
            .to_connect_data(TOPIC, Some(b"a string"))
            .unwrap();
        assert_eq!(back.schema, Some(Schema::optional_string()));
        assert_eq!(back.value, Value::String("a string".into()));
    }

    #[test]
    fn utf16_encoding_in_both_directions() {
        let c = configured(&[(ENCODING_CONFIG, "UTF-16")], true).unwrap();
        let bytes = c
            .from_connect_data(TOPIC, None, &"a string".into())
            .unwrap()
            .unwrap();
        assert_eq!(&bytes[..4], &[0xFE, 0xFF, 0, b'a']);
        assert_eq!(
            c.to_connect_data(TOPIC, Some(&bytes)).unwrap().value,
            Value::String("a string".into())
        );
    }

    #[test]
    fn encoding_names_are_case_insensitive_and_trimmed() {
        let c = configured(&[(ENCODING_CONFIG, " iso-8859-1 ")], false).unwrap();
        assert_eq!(
            c.from_connect_data(TOPIC, None, &"é".into()).unwrap(),
            Some(vec![0xE9])
        );
    }

    #[test]
    fn unknown_encoding_is_a_config_error_naming_the_key() {
        let err = configured(&[(ENCODING_CONFIG, "klingon")], false).unwrap_err();
        let ConnectError::Config(cfg) = err else {
            panic!("expected a config error, got {err:?}");
        };
        assert_eq!(cfg.problems[0].key, ENCODING_CONFIG);
        assert_eq!(
            cfg.problems[0].message,
            "Invalid value klingon for configuration converter.encoding: Unsupported encoding klingon"
        );
    }

    #[test]
    fn serializer_specific_encodings_win_for_their_role() {
        let pairs = [
            (ENCODING_CONFIG, "UTF-8"),
            ("value.serializer.encoding", "ISO-8859-1"),
            ("key.deserializer.encoding", "US-ASCII"),
        ];
        let value_side = configured(&pairs, false).unwrap();
        assert_eq!(
            value_side
                .from_connect_data(TOPIC, None, &"é".into())
                .unwrap(),
            Some(vec![0xE9])
        );
        let key_side = configured(&pairs, true).unwrap();
        assert_eq!(
            key_side
                .from_connect_data(TOPIC, None, &"é".into())
                .unwrap(),
            Some("é".as_bytes().to_vec())
        );
        assert_eq!(
            key_side
                .to_connect_data(TOPIC, Some("é".as_bytes()))
                .unwrap()
                .value,
            Value::String("\u{FFFD}\u{FFFD}".into())
        );
    }

    #[test]
    fn header_methods_delegate() {
        let mut c = StringConverter::new();
        HeaderConverter::configure(&mut c, &ConfigMap::new()).unwrap();
        assert_eq!(
            c.from_connect_header(
                TOPIC,
                "hdr",
                Some(&Schema::boolean()),
                &Value::Boolean(true)
            )
            .unwrap(),
            Some(b"true".to_vec())
        );
        assert_eq!(
            c.from_connect_header(TOPIC, "hdr", None, &Value::Null)
                .unwrap(),
            None
        );
        assert_eq!(
            c.to_connect_header(TOPIC, "hdr", Some(b"x")).unwrap().value,
            Value::String("x".into())
        );
    }

    #[test]
    fn config_def_has_javas_keys() {
        let def = StringConverter::config_def();
        let enc = def.key(ENCODING_CONFIG).unwrap();
        assert_eq!(enc.default, DefaultValue::Value("UTF-8".into()));
        assert_eq!(enc.importance, Importance::High);
        assert!(def.key("converter.type").is_some());
    }
}
