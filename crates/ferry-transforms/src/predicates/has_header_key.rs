//! `HasHeaderKey`: true for records with at least one header named `name`.

use ferry_api::config::{ConfigDef, ConfigKey, ConfigType, DefaultValue, Importance, Validator};
use ferry_api::transform::{Predicate, Record};
use ferry_api::ConfigMap;

pub const NAME_CONFIG: &str = "name";

/// The keys `HasHeaderKey` accepts.
pub fn config_def() -> ConfigDef {
    ConfigDef::new().define(
        ConfigKey::new(
            NAME_CONFIG,
            ConfigType::String,
            DefaultValue::Required,
            Importance::Medium,
            "The header key to look for.",
        )
        .validator(Validator::NonEmptyString),
    )
}

#[derive(Debug, Default)]
pub struct HasHeaderKey {
    name: String,
}

impl HasHeaderKey {
    pub fn new() -> Self {
        Self::default()
    }
}

impl Predicate for HasHeaderKey {
    fn configure(&mut self, configs: &ConfigMap) -> ferry_api::error::Result<()> {
        let parsed = config_def().parse(configs)?;
        self.name = parsed.string(NAME_CONFIG)?.unwrap_or_default();
        Ok(())
    }

    fn config_def(&self) -> ConfigDef {
        config_def()
    }

    fn test(&self, record: &dyn Record) -> bool {
        record.headers().iter().any(|h| h.key == self.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferry_api::data::Value;
    use ferry_api::record::SourceRecord;

    fn props(pairs: &[(&str, &str)]) -> ConfigMap {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    fn with_headers(keys: &[&str]) -> SourceRecord {
        let mut record = SourceRecord::default();
        for key in keys {
            record.headers.add(*key, None, Value::Null);
        }
        record
    }

    #[test]
    fn name_is_required_and_not_empty() {
        let err = HasHeaderKey::new().configure(&props(&[])).unwrap_err();
        assert!(err
            .to_string()
            .contains("Missing required configuration \"name\""));
        let err = HasHeaderKey::new()
            .configure(&props(&[("name", "")]))
            .unwrap_err();
        assert!(err.to_string().contains("String must be non-empty"));
    }

    #[test]
    fn validate_reports_java_message() {
        let reports = HasHeaderKey::new()
            .config_def()
            .validate(&props(&[("name", "foo")]));
        assert!(reports[0].errors.is_empty());
        let reports = HasHeaderKey::new()
            .config_def()
            .validate(&props(&[("name", "")]));
        assert_eq!(
            reports[0].errors,
            vec!["Invalid value  for configuration name: String must be non-empty"]
        );
    }

    #[test]
    fn finds_the_header() {
        let mut predicate = HasHeaderKey::new();
        predicate.configure(&props(&[("name", "foo")])).unwrap();
        assert!(predicate.test(&with_headers(&["foo"])));
        assert!(predicate.test(&with_headers(&["foo", "bar"])));
        assert!(predicate.test(&with_headers(&["bar", "foo", "bar", "foo"])));
        assert!(!predicate.test(&with_headers(&["bar"])));
        assert!(!predicate.test(&with_headers(&["bar", "bar"])));
        assert!(!predicate.test(&with_headers(&[])));
        assert!(!predicate.test(&SourceRecord::default()));
    }
}
