//! `Filter`: drops every record. It is meant to be used with a predicate, so that only the
//! records the predicate picks (or, negated, does not pick) are dropped.

use ferry_api::config::ConfigDef;
use ferry_api::transform::{Record, Transformation};
use ferry_api::ConfigMap;

#[derive(Debug, Default)]
pub struct Filter;

impl Filter {
    pub fn new() -> Self {
        Filter
    }
}

impl Transformation for Filter {
    fn configure(&mut self, _configs: &ConfigMap) -> ferry_api::error::Result<()> {
        Ok(())
    }

    fn config_def(&self) -> ConfigDef {
        ConfigDef::new()
    }

    fn apply(&self, _record: &mut dyn Record) -> ferry_api::error::Result<bool> {
        Ok(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferry_api::record::{SinkRecord, SourceRecord};

    #[test]
    fn drops_everything() {
        let mut filter = Filter::new();
        filter
            .configure(
                &[("anything".to_owned(), "x".to_owned())]
                    .into_iter()
                    .collect(),
            )
            .unwrap();
        assert!(!filter.apply(&mut SinkRecord::default()).unwrap());
        assert!(!filter
            .apply(&mut SourceRecord::new(None, None, "t", None, "v".into()))
            .unwrap());
        assert_eq!(filter.config_def().keys().count(), 0);
    }

    #[test]
    fn batch_b_classes_are_registered() {
        let registered: Vec<&str> = crate::transformations()
            .iter()
            .map(|p| p.class_name)
            .collect();
        let prefix = "org.apache.kafka.connect.transforms.";
        let mut expected = Vec::new();
        for class in [
            "ReplaceField",
            "SetSchemaMetadata",
            "TimestampConverter",
            "HeaderFrom",
        ] {
            expected.push(format!("{prefix}{class}$Key"));
            expected.push(format!("{prefix}{class}$Value"));
        }
        for class in [
            "TimestampRouter",
            "RegexRouter",
            "ValueToKey",
            "DropHeaders",
            "InsertHeader",
            "Filter",
        ] {
            expected.push(format!("{prefix}{class}"));
        }
        for class in &expected {
            let count = registered.iter().filter(|r| **r == class.as_str()).count();
            assert_eq!(count, 1, "{class}");
        }
        // Each one can be made and lists its keys.
        for plugin in crate::transformations() {
            let _ = (plugin.create)().config_def();
        }
    }
}
