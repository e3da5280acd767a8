//! `InsertHeader`: adds a header `header` to every record, after any existing ones. Its value is
//! `value.literal` read as Connect's `Values` text, so `1` becomes an int8 and `true` a boolean,
//! with the schema inferred from it.

use ferry_api::config::{ConfigDef, ConfigKey, ConfigType, DefaultValue, Importance, Validator};
use ferry_api::data::SchemaAndValue;
use ferry_api::transform::{Record, Transformation};
use ferry_api::ConfigMap;

pub const HEADER_CONFIG: &str = "header";
pub const VALUE_LITERAL_CONFIG: &str = "value.literal";

/// The keys `InsertHeader` accepts.
pub fn config_def() -> ConfigDef {
    ConfigDef::new()
        .define(
            ConfigKey::new(
                HEADER_CONFIG,
                ConfigType::String,
                DefaultValue::Required,
                Importance::High,
                "The key of the header to add.",
            )
            .validator(Validator::NonNull),
        )
        .define(
            ConfigKey::new(
                VALUE_LITERAL_CONFIG,
                ConfigType::String,
                DefaultValue::Required,
                Importance::High,
                "The header's value, the same on every record.",
            )
            .validator(Validator::NonNull),
        )
}

#[derive(Default)]
pub struct InsertHeader {
    header: String,
    literal: SchemaAndValue,
}

impl InsertHeader {
    pub fn new() -> Self {
        Self::default()
    }
}

impl Transformation for InsertHeader {
    fn configure(&mut self, configs: &ConfigMap) -> ferry_api::error::Result<()> {
        let parsed = config_def().parse(configs)?;
        self.header = parsed.string(HEADER_CONFIG)?.unwrap_or_default();
        let literal = parsed.string(VALUE_LITERAL_CONFIG)?.unwrap_or_default();
        self.literal = ferry_converters::parse_string(&literal)?;
        Ok(())
    }

    fn config_def(&self) -> ConfigDef {
        config_def()
    }

    fn apply(&self, record: &mut dyn Record) -> ferry_api::error::Result<bool> {
        record.headers_mut().add(
            self.header.clone(),
            self.literal.schema.clone(),
            self.literal.value.clone(),
        );
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferry_api::data::{Schema, Value};
    use ferry_api::header::Headers;
    use ferry_api::record::SourceRecord;

    fn configured(header: &str, literal: &str) -> InsertHeader {
        let mut xform = InsertHeader::new();
        let props = [
            (HEADER_CONFIG.to_owned(), header.to_owned()),
            (VALUE_LITERAL_CONFIG.to_owned(), literal.to_owned()),
        ]
        .into_iter()
        .collect();
        xform.configure(&props).unwrap();
        xform
    }

    fn record(headers: Headers) -> SourceRecord {
        SourceRecord {
            topic: "topic".to_owned(),
            kafka_partition: Some(0),
            key: "key".into(),
            value: "value".into(),
            timestamp: Some(0),
            headers,
            ..Default::default()
        }
    }

    fn with_string(key: &str, value: &str) -> Headers {
        let mut headers = Headers::new();
        headers.add(key, Some(Schema::string()), value.into());
        headers
    }

    fn assert_inserts(xform: &InsertHeader, existing: Headers, expected: Headers) {
        let original = record(existing);
        let mut transformed = original.clone();
        assert!(xform.apply(&mut transformed).unwrap());
        assert_eq!(transformed.headers, expected);
        transformed.headers = original.headers.clone();
        assert_eq!(transformed, original);
    }

    #[test]
    fn next_to_another_header() {
        let mut expected = with_string("existing", "existing-value");
        expected.add("inserted", Some(Schema::string()), "inserted-value".into());
        assert_inserts(
            &configured("inserted", "inserted-value"),
            with_string("existing", "existing-value"),
            expected,
        );
    }

    #[test]
    fn beside_a_header_of_the_same_key() {
        let mut expected = with_string("existing", "preexisting-value");
        expected.add("existing", Some(Schema::string()), "inserted-value".into());
        assert_inserts(
            &configured("existing", "inserted-value"),
            with_string("existing", "preexisting-value"),
            expected,
        );
    }

    #[test]
    fn literal_is_typed() {
        let mut expected = with_string("existing", "existing-value");
        expected.add("inserted", Some(Schema::int8()), Value::Int8(1));
        assert_inserts(
            &configured("inserted", "1"),
            with_string("existing", "existing-value"),
            expected,
        );
        let mut expected = Headers::new();
        expected.add("flag", Some(Schema::boolean()), Value::Boolean(true));
        assert_inserts(&configured("flag", "true"), Headers::new(), expected);
    }

    #[test]
    fn both_keys_are_required() {
        let only_value = [(VALUE_LITERAL_CONFIG.to_owned(), "1".to_owned())]
            .into_iter()
            .collect();
        assert_eq!(
            InsertHeader::new()
                .configure(&only_value)
                .unwrap_err()
                .to_string(),
            "Missing required configuration \"header\" which has no default value."
        );
        let only_header = [(HEADER_CONFIG.to_owned(), "h".to_owned())]
            .into_iter()
            .collect();
        assert_eq!(
            InsertHeader::new()
                .configure(&only_header)
                .unwrap_err()
                .to_string(),
            "Missing required configuration \"value.literal\" which has no default value."
        );
    }
}
