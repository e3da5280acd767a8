//! `TopicNameMatches`: true for records whose whole topic name matches `pattern`.

use std::sync::Arc;

use ferry_api::config::{
    ConfigDef, ConfigError, ConfigKey, ConfigType, ConfigValue, DefaultValue, Importance, Validator,
};
use ferry_api::transform::{Predicate, Record};
use ferry_api::ConfigMap;
use regex::Regex;

use crate::regex_router::{regex_problem, whole_match_regex};

pub const PATTERN_CONFIG: &str = "pattern";

/// Java's composite of `NonEmptyString` and `RegexValidator`.
fn pattern_validator() -> Validator {
    Validator::Custom {
        description: "non-empty string, valid regex".to_owned(),
        check: Arc::new(|value| match value {
            ConfigValue::String(pattern) if pattern.is_empty() => {
                Err("String must be non-empty".to_owned())
            }
            ConfigValue::String(pattern) => regex_problem(pattern).map_or(Ok(()), Err),
            _ => Err("String must be non-empty".to_owned()),
        }),
    }
}

/// The keys `TopicNameMatches` accepts.
pub fn config_def() -> ConfigDef {
    ConfigDef::new().define(
        ConfigKey::new(
            PATTERN_CONFIG,
            ConfigType::String,
            DefaultValue::Required,
            Importance::Medium,
            "A Java regular expression for matching against the name of a record's topic.",
        )
        .validator(pattern_validator()),
    )
}

#[derive(Debug, Default)]
pub struct TopicNameMatches {
    pattern: Option<Regex>,
}

impl TopicNameMatches {
    pub fn new() -> Self {
        Self::default()
    }
}

impl Predicate for TopicNameMatches {
    fn configure(&mut self, configs: &ConfigMap) -> ferry_api::error::Result<()> {
        let parsed = config_def().parse(configs)?;
        let pattern = parsed.string(PATTERN_CONFIG)?.unwrap_or_default();
        let regex = whole_match_regex(&pattern).map_err(|e| {
            ConfigError::invalid_value(
                PATTERN_CONFIG,
                &pattern,
                &format!("entry must be a Java-compatible regular expression: {e}"),
            )
        })?;
        self.pattern = Some(regex);
        Ok(())
    }

    fn config_def(&self) -> ConfigDef {
        config_def()
    }

    fn test(&self, record: &dyn Record) -> bool {
        self.pattern
            .as_ref()
            .is_some_and(|p| p.is_match(record.topic()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferry_api::record::SourceRecord;

    fn props(pairs: &[(&str, &str)]) -> ConfigMap {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    fn config_error(pairs: &[(&str, &str)]) -> String {
        TopicNameMatches::new()
            .configure(&props(pairs))
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn pattern_is_required_non_empty_and_valid() {
        assert!(config_error(&[]).contains("Missing required configuration \"pattern\""));
        assert!(config_error(&[("pattern", "")]).contains("String must be non-empty"));
        assert!(config_error(&[("pattern", "[")]).contains("Invalid regex"));
    }

    #[test]
    fn validate_reports_one_error() {
        let def = TopicNameMatches::new().config_def();
        assert!(def.validate(&props(&[("pattern", "my-prefix-.*")]))[0]
            .errors
            .is_empty());
        let errors = &def.validate(&props(&[("pattern", "*")]))[0].errors;
        assert_eq!(errors.len(), 1);
        assert!(errors[0].starts_with("Invalid value * for configuration pattern: Invalid regex"));
    }

    #[test]
    fn matches_whole_topic_names() {
        let mut predicate = TopicNameMatches::new();
        predicate
            .configure(&props(&[("pattern", "my-prefix-.*")]))
            .unwrap();
        let topic = |t: &str| SourceRecord::new(None, None, t, None, "v".into());
        assert!(predicate.test(&topic("my-prefix-")));
        assert!(predicate.test(&topic("my-prefix-foo")));
        assert!(!predicate.test(&topic("x-my-prefix-")));
        assert!(!predicate.test(&topic("x-my-prefix-foo")));
        assert!(!predicate.test(&topic("your-prefix-")));
        assert!(!predicate.test(&topic("your-prefix-foo")));
        assert!(!predicate.test(&SourceRecord::default()));
    }

    #[test]
    fn alternatives_must_cover_the_whole_topic() {
        let mut predicate = TopicNameMatches::new();
        predicate.configure(&props(&[("pattern", "a|ab")])).unwrap();
        assert!(predicate.test(&SourceRecord::new(None, None, "ab", None, "v".into())));
        assert!(!predicate.test(&SourceRecord::new(None, None, "abc", None, "v".into())));
    }
}
