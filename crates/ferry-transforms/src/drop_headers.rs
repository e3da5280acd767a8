//! `DropHeaders`: removes every header whose key is listed in `headers`, keeping the order of
//! the rest.

use std::collections::HashSet;

use ferry_api::config::{ConfigDef, ConfigKey, ConfigType, DefaultValue, Importance, Validator};
use ferry_api::transform::{Record, Transformation};
use ferry_api::ConfigMap;

pub const HEADERS_CONFIG: &str = "headers";

/// The keys `DropHeaders` accepts.
pub fn config_def() -> ConfigDef {
    ConfigDef::new().define(
        ConfigKey::new(
            HEADERS_CONFIG,
            ConfigType::List,
            DefaultValue::Required,
            Importance::High,
            "The keys of the headers to remove.",
        )
        .validator(Validator::distinct_list(false, false)),
    )
}

#[derive(Default)]
pub struct DropHeaders {
    headers: HashSet<String>,
}

impl DropHeaders {
    pub fn new() -> Self {
        Self::default()
    }
}

impl Transformation for DropHeaders {
    fn configure(&mut self, configs: &ConfigMap) -> ferry_api::error::Result<()> {
        let parsed = config_def().parse(configs)?;
        self.headers = parsed.list(HEADERS_CONFIG)?.into_iter().collect();
        Ok(())
    }

    fn config_def(&self) -> ConfigDef {
        config_def()
    }

    fn apply(&self, record: &mut dyn Record) -> ferry_api::error::Result<bool> {
        let headers = record.headers_mut();
        for key in &self.headers {
            headers.remove(key);
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferry_api::data::{Schema, Value};
    use ferry_api::header::Headers;
    use ferry_api::record::SourceRecord;

    fn configured(headers: &str) -> DropHeaders {
        let mut xform = DropHeaders::new();
        xform
            .configure(
                &[("headers".to_owned(), headers.to_owned())]
                    .into_iter()
                    .collect(),
            )
            .unwrap();
        xform
    }

    fn headers(pairs: &[(&str, &str)]) -> Headers {
        let mut headers = Headers::new();
        for (k, v) in pairs {
            headers.add(*k, Some(Schema::string()), Value::from(*v));
        }
        headers
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

    fn assert_drops(config: &str, before: &[(&str, &str)], after: &[(&str, &str)]) {
        let original = record(headers(before));
        let mut transformed = original.clone();
        assert!(configured(config).apply(&mut transformed).unwrap());
        assert_eq!(transformed.headers, headers(after));
        transformed.headers = original.headers.clone();
        assert_eq!(transformed, original);
    }

    #[test]
    fn drops_existing_header() {
        assert_drops(
            "to-drop",
            &[
                ("existing", "existing-value"),
                ("to-drop", "existing-value"),
            ],
            &[("existing", "existing-value")],
        );
    }

    #[test]
    fn drops_every_value_of_a_header() {
        assert_drops(
            "to-drop",
            &[
                ("existing", "existing-value"),
                ("to-drop", "existing-value"),
                ("to-drop", "existing-other-value"),
            ],
            &[("existing", "existing-value")],
        );
    }

    #[test]
    fn missing_header_changes_nothing() {
        assert_drops(
            "to-drop",
            &[("existing", "existing-value")],
            &[("existing", "existing-value")],
        );
    }

    #[test]
    fn several_keys_keep_order() {
        assert_drops(
            "b, d",
            &[("a", "1"), ("b", "2"), ("c", "3"), ("d", "4"), ("a", "5")],
            &[("a", "1"), ("c", "3"), ("a", "5")],
        );
    }

    #[test]
    fn empty_list_is_refused() {
        let err = DropHeaders::new()
            .configure(
                &[("headers".to_owned(), String::new())]
                    .into_iter()
                    .collect(),
            )
            .unwrap_err();
        assert!(matches!(err, ferry_api::ConnectError::Config(_)));
        assert_eq!(
            err.to_string(),
            "Configuration 'headers' must not be empty. Valid values include: any non-empty value"
        );
        assert_eq!(
            DropHeaders::new()
                .configure(&ConfigMap::new())
                .unwrap_err()
                .to_string(),
            "Missing required configuration \"headers\" which has no default value."
        );
    }
}
