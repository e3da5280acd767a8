//! Source and sink records, topic partitions and source offsets.

use std::fmt;
use std::sync::Arc;

use crate::data::{SchemaRef, Value};
use crate::header::Headers;

pub use crate::offset_map::{OffsetKey, OffsetMap};

/// A Kafka topic and partition.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TopicPartition {
    pub topic: String,
    pub partition: i32,
}

impl TopicPartition {
    pub fn new(topic: impl Into<String>, partition: i32) -> Self {
        TopicPartition {
            topic: topic.into(),
            partition,
        }
    }
}

impl fmt::Display for TopicPartition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.topic, self.partition)
    }
}

/// How a record's timestamp was set (Kafka's `TimestampType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TimestampType {
    #[default]
    NoTimestampType,
    CreateTime,
    LogAppendTime,
}

/// A record produced by a source task.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SourceRecord {
    /// Where the data came from in the source system; shared between the records of a partition.
    pub source_partition: Option<Arc<OffsetMap>>,
    /// How far into that partition this record is.
    pub source_offset: Option<OffsetMap>,
    pub topic: String,
    pub kafka_partition: Option<i32>,
    pub key_schema: Option<SchemaRef>,
    pub key: Value,
    pub value_schema: Option<SchemaRef>,
    pub value: Value,
    pub timestamp: Option<i64>,
    pub headers: Headers,
    /// Set by the task that made the record and given back with it in `commit_record`, so the
    /// task can find its own copy (the plugin host's tasks do); the worker never reads it.
    pub task_tag: Option<u64>,
}

impl SourceRecord {
    /// A record with a value (and optionally its schema) for `topic`, at `partition`/`offset`.
    pub fn new(
        source_partition: Option<Arc<OffsetMap>>,
        source_offset: Option<OffsetMap>,
        topic: impl Into<String>,
        value_schema: Option<SchemaRef>,
        value: Value,
    ) -> Self {
        SourceRecord {
            source_partition,
            source_offset,
            topic: topic.into(),
            value_schema,
            value,
            ..Default::default()
        }
    }
}

/// A record delivered to a sink task.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SinkRecord {
    pub topic: String,
    pub kafka_partition: i32,
    pub key_schema: Option<SchemaRef>,
    pub key: Value,
    pub value_schema: Option<SchemaRef>,
    pub value: Value,
    pub kafka_offset: i64,
    pub timestamp: Option<i64>,
    pub timestamp_type: TimestampType,
    pub headers: Headers,
    /// Where the record was consumed from, before transforms changed topic or partition (KIP-793).
    pub original_topic: String,
    pub original_kafka_partition: i32,
    pub original_kafka_offset: i64,
}

/// What the broker answered for a produced record. Borrowed, as it is made for every
/// acknowledged record and most tasks never look at it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordMetadata<'a> {
    pub topic: &'a str,
    pub partition: i32,
    pub offset: i64,
}
