//! Single message transforms and predicates (Java's `Transformation` and `Predicate`).
//!
//! Transforms change a record in place, so a chain costs no copies of the parts it leaves
//! alone; they see source and sink records through [`Record`].

use crate::config::ConfigDef;
use crate::data::{SchemaRef, Value};
use crate::error::Result;
use crate::header::Headers;
use crate::record::{SinkRecord, SourceRecord};
use crate::ConfigMap;

/// The parts of a record that transforms read and change (Java's `ConnectRecord`).
pub trait Record {
    fn topic(&self) -> &str;
    fn set_topic(&mut self, topic: String);
    fn kafka_partition(&self) -> Option<i32>;
    fn set_kafka_partition(&mut self, partition: Option<i32>);
    fn key_schema(&self) -> Option<&SchemaRef>;
    fn key(&self) -> &Value;
    /// Takes the key out (leaving null), to rebuild it without a copy.
    fn take_key(&mut self) -> (Option<SchemaRef>, Value);
    fn set_key(&mut self, schema: Option<SchemaRef>, key: Value);
    fn value_schema(&self) -> Option<&SchemaRef>;
    fn value(&self) -> &Value;
    /// Takes the value out (leaving null), to rebuild it without a copy.
    fn take_value(&mut self) -> (Option<SchemaRef>, Value);
    fn set_value(&mut self, schema: Option<SchemaRef>, value: Value);
    fn timestamp(&self) -> Option<i64>;
    fn set_timestamp(&mut self, timestamp: Option<i64>);
    fn headers(&self) -> &Headers;
    fn headers_mut(&mut self) -> &mut Headers;
    /// The Kafka offset of a consumed (sink) record; `None` for source records.
    fn kafka_offset(&self) -> Option<i64> {
        None
    }
}

/// A transform of one record (Java's `Transformation`), configured once and then shared by a
/// task's pipeline.
pub trait Transformation: Send + Sync {
    fn configure(&mut self, configs: &ConfigMap) -> Result<()>;

    fn config_def(&self) -> ConfigDef;

    /// Changes `record` in place; `Ok(false)` drops the record (as Java's returning null).
    fn apply(&self, record: &mut dyn Record) -> Result<bool>;
}

/// A condition on a record that decides whether a transform applies (Java's `Predicate`).
pub trait Predicate: Send + Sync {
    fn configure(&mut self, configs: &ConfigMap) -> Result<()>;

    fn config_def(&self) -> ConfigDef;

    fn test(&self, record: &dyn Record) -> bool;
}

macro_rules! record_common {
    () => {
        fn topic(&self) -> &str {
            &self.topic
        }
        fn set_topic(&mut self, topic: String) {
            self.topic = topic;
        }
        fn key_schema(&self) -> Option<&SchemaRef> {
            self.key_schema.as_ref()
        }
        fn key(&self) -> &Value {
            &self.key
        }
        fn take_key(&mut self) -> (Option<SchemaRef>, Value) {
            (self.key_schema.take(), std::mem::take(&mut self.key))
        }
        fn set_key(&mut self, schema: Option<SchemaRef>, key: Value) {
            self.key_schema = schema;
            self.key = key;
        }
        fn value_schema(&self) -> Option<&SchemaRef> {
            self.value_schema.as_ref()
        }
        fn value(&self) -> &Value {
            &self.value
        }
        fn take_value(&mut self) -> (Option<SchemaRef>, Value) {
            (self.value_schema.take(), std::mem::take(&mut self.value))
        }
        fn set_value(&mut self, schema: Option<SchemaRef>, value: Value) {
            self.value_schema = schema;
            self.value = value;
        }
        fn timestamp(&self) -> Option<i64> {
            self.timestamp
        }
        fn set_timestamp(&mut self, timestamp: Option<i64>) {
            self.timestamp = timestamp;
        }
        fn headers(&self) -> &Headers {
            &self.headers
        }
        fn headers_mut(&mut self) -> &mut Headers {
            &mut self.headers
        }
    };
}

impl Record for SourceRecord {
    record_common!();

    fn kafka_partition(&self) -> Option<i32> {
        self.kafka_partition
    }

    fn set_kafka_partition(&mut self, partition: Option<i32>) {
        self.kafka_partition = partition;
    }
}

impl Record for SinkRecord {
    record_common!();

    fn kafka_partition(&self) -> Option<i32> {
        Some(self.kafka_partition)
    }

    /// A sink record always has a partition; `None` leaves it unchanged.
    fn set_kafka_partition(&mut self, partition: Option<i32>) {
        if let Some(p) = partition {
            self.kafka_partition = p;
        }
    }

    fn kafka_offset(&self) -> Option<i64> {
        Some(self.kafka_offset)
    }
}
