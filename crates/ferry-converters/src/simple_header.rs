//! `SimpleHeaderConverter`, the default header converter: header values as `Values` text in
//! UTF-8, with the schema guessed again on the way back.

use ferry_api::config::ConfigDef;
use ferry_api::converter::HeaderConverter;
use ferry_api::data::{Schema, SchemaAndValue, SchemaRef, Value};
use ferry_api::error::Result;
use ferry_api::ConfigMap;

use crate::values_parse::parse_string;
use crate::values_text::convert_to_string;

/// Writes with [`convert_to_string`] and reads with [`parse_string`]; has no configuration.
#[derive(Debug, Clone, Copy, Default)]
pub struct SimpleHeaderConverter;

impl SimpleHeaderConverter {
    pub const CLASS_NAME: &'static str = "org.apache.kafka.connect.storage.SimpleHeaderConverter";

    pub fn new() -> Self {
        SimpleHeaderConverter
    }
}

impl HeaderConverter for SimpleHeaderConverter {
    fn configure(&mut self, _configs: &ConfigMap) -> Result<()> {
        Ok(())
    }

    fn config_def(&self) -> ConfigDef {
        ConfigDef::new()
    }

    fn from_connect_header(
        &self,
        _topic: &str,
        _key: &str,
        schema: Option<&SchemaRef>,
        value: &Value,
    ) -> Result<Option<Vec<u8>>> {
        Ok(convert_to_string(schema.map(|s| s.as_ref()), value).map(String::into_bytes))
    }

    /// Text that cannot be parsed at all comes back as raw bytes rather than failing the record,
    /// as in Java.
    fn to_connect_header(
        &self,
        topic: &str,
        key: &str,
        bytes: Option<&[u8]>,
    ) -> Result<SchemaAndValue> {
        let Some(bytes) = bytes else {
            return Ok(SchemaAndValue::NULL);
        };
        let text = String::from_utf8_lossy(bytes);
        match parse_string(&text) {
            Ok(parsed) => Ok(parsed),
            Err(error) => {
                tracing::warn!(
                    header = key,
                    topic,
                    %error,
                    "Failed to deserialize header value, so using byte array"
                );
                Ok(SchemaAndValue::new(
                    Some(Schema::bytes()),
                    Value::Bytes(bytes.to_vec()),
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use ferry_api::data::{SchemaBuilder, Type};

    use super::*;

    const TOPIC: &str = "topic";
    const HEADER: &str = "header";

    fn round_trip(schema: Option<&SchemaRef>, value: &Value) -> (Option<Vec<u8>>, SchemaAndValue) {
        let c = SimpleHeaderConverter;
        let bytes = c.from_connect_header(TOPIC, HEADER, schema, value).unwrap();
        let back = c
            .to_connect_header(TOPIC, HEADER, bytes.as_deref())
            .unwrap();
        (bytes, back)
    }

    /// The value must come back with the same schema, and again after a second trip.
    fn assert_round_trip(schema: SchemaRef, value: Value) {
        let (bytes, back) = round_trip(Some(&schema), &value);
        assert!(bytes.is_some());
        assert_eq!(
            back,
            SchemaAndValue::new(Some(schema.clone()), value.clone())
        );
        let (_, again) = round_trip(back.schema.as_ref(), &back.value);
        assert_eq!(again, back);
    }

    #[test]
    fn nulls() {
        for schema in [Schema::string(), Schema::optional_string()] {
            let (bytes, back) = round_trip(Some(&schema), &Value::Null);
            assert_eq!(bytes, None);
            assert_eq!(back, SchemaAndValue::NULL);
        }
    }

    #[test]
    fn strings() {
        assert_round_trip(Schema::string(), "simple".into());
        assert_round_trip(Schema::string(), "".into());
        assert_round_trip(Schema::string(), "three\"blind\\\"mice".into());
        assert_round_trip(
            Schema::string(),
            "string with delimiters: <>?,./\\=+-!@#$%^&*(){}[]|;':".into(),
        );
    }

    #[test]
    fn typed_maps_and_lists() {
        let string_map = SchemaBuilder::map(Schema::string(), Schema::string()).build();
        assert_round_trip(
            string_map,
            Value::Map(vec![
                ("foo".into(), "123".into()),
                ("bar".into(), "baz".into()),
            ]),
        );
        let short_map = SchemaBuilder::map(Schema::string(), Schema::int16()).build();
        assert_round_trip(
            short_map,
            Value::Map(vec![
                ("foo".into(), Value::Int16(12345)),
                ("bar".into(), Value::Int16(0)),
                ("baz".into(), Value::Int16(-4321)),
            ]),
        );
        let int_map = SchemaBuilder::map(Schema::string(), Schema::int32()).build();
        assert_round_trip(
            int_map,
            Value::Map(vec![
                ("foo".into(), Value::Int32(1_234_567_890)),
                ("bar".into(), Value::Int32(0)),
                ("baz".into(), Value::Int32(-987_654_321)),
            ]),
        );
        let strings = SchemaBuilder::array(Schema::string()).build();
        assert_round_trip(strings, Value::Array(vec!["foo".into(), "bar".into()]));
        let ints = SchemaBuilder::array(Schema::int32()).build();
        assert_round_trip(
            ints,
            Value::Array(vec![
                Value::Int32(1_234_567_890),
                Value::Int32(-987_654_321),
            ]),
        );
    }

    #[test]
    fn map_text_is_read_as_a_map() {
        let c = SimpleHeaderConverter;
        let expected = SchemaBuilder::map(Schema::string(), Schema::string()).build();
        for text in [
            "{\"foo\":\"123\",\"bar\":\"baz\"}",
            "{ \"foo\" : \"123\", \n\"bar\" : \"baz\" } ",
        ] {
            let back = c
                .to_connect_header(TOPIC, HEADER, Some(text.as_bytes()))
                .unwrap();
            assert_eq!(back.schema, Some(expected.clone()));
        }
    }

    #[test]
    fn mixed_collections_lose_their_element_schema() {
        let map = Value::Map(vec![
            ("foo".into(), "bar".into()),
            ("baz".into(), Value::Int16(3456)),
        ]);
        let (_, back) = round_trip(None, &map);
        let schema = back.schema.unwrap();
        assert_eq!(schema.kind, Type::Map);
        assert_eq!(
            schema.key_schema.as_ref().map(|s| s.kind),
            Some(Type::String)
        );
        assert_eq!(schema.value_schema, None);
        assert_eq!(back.value, map);

        let list = Value::Array(vec!["foo".into(), Value::Int16(13344)]);
        let (_, back) = round_trip(None, &list);
        assert_eq!(back.schema.unwrap().value_schema, None);
        assert_eq!(back.value, list);
    }

    #[test]
    fn empty_collections() {
        let (_, back) = round_trip(None, &Value::Map(vec![]));
        let schema = back.schema.unwrap();
        assert_eq!(
            (schema.kind, schema.key_schema.is_none()),
            (Type::Map, true)
        );
        assert_eq!(back.value, Value::Map(vec![]));
        let (_, back) = round_trip(None, &Value::Array(vec![]));
        assert_eq!(back.schema.unwrap().value_schema, None);
    }

    #[test]
    fn unparseable_text_falls_back_to_bytes() {
        let deep = "[".repeat(1000);
        let back = SimpleHeaderConverter
            .to_connect_header(TOPIC, HEADER, Some(deep.as_bytes()))
            .unwrap();
        assert_eq!(back.schema, Some(Schema::bytes()));
        assert_eq!(back.value, Value::Bytes(deep.into_bytes()));
    }

    #[test]
    fn invalid_utf8_is_read_with_replacement_characters() {
        let back = SimpleHeaderConverter
            .to_connect_header(TOPIC, HEADER, Some(&[b'a', 0xFF]))
            .unwrap();
        assert_eq!(back.value, Value::String("a\u{FFFD}".into()));
    }

    #[test]
    fn bytes_are_written_as_base64() {
        let (bytes, back) = round_trip(Some(&Schema::bytes()), &Value::Bytes(vec![1, 2, 3]));
        assert_eq!(bytes.as_deref(), Some(&b"AQID"[..]));
        // Java does not recognise Base64 when reading, so the text stays a string.
        assert_eq!(back.value, Value::String("AQID".into()));
    }
}
