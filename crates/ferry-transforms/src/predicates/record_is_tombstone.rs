//! `RecordIsTombstone`: true for records whose value is null.

use ferry_api::config::ConfigDef;
use ferry_api::transform::{Predicate, Record};
use ferry_api::ConfigMap;

#[derive(Debug, Default)]
pub struct RecordIsTombstone;

impl RecordIsTombstone {
    pub fn new() -> Self {
        RecordIsTombstone
    }
}

impl Predicate for RecordIsTombstone {
    fn configure(&mut self, _configs: &ConfigMap) -> ferry_api::error::Result<()> {
        Ok(())
    }

    fn config_def(&self) -> ConfigDef {
        ConfigDef::new()
    }

    fn test(&self, record: &dyn Record) -> bool {
        record.value().is_null()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferry_api::data::{Schema, Value};
    use ferry_api::record::{SinkRecord, SourceRecord};

    #[test]
    fn null_values_are_tombstones() {
        let mut predicate = RecordIsTombstone::new();
        predicate.configure(&ConfigMap::new()).unwrap();
        assert!(predicate.test(&SinkRecord::default()));
        // A schema does not stop a null value from being a tombstone; a null key does not make one.
        assert!(predicate.test(&SourceRecord::new(
            None,
            None,
            "t",
            Some(Schema::optional_string()),
            Value::Null
        )));
        assert!(!predicate.test(&SourceRecord::new(None, None, "t", None, "v".into())));
        assert!(!predicate.test(&SourceRecord::new(None, None, "t", None, Value::from(""))));
        assert_eq!(predicate.config_def().keys().count(), 0);
    }
}
