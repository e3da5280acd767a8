//! A replicated record as Java's `MirrorSourceTask.convertRecord` makes it: the same key, value,
//! headers, timestamp and partition, for the remote topic; its source partition names the
//! source cluster, topic and partition, its source offset the upstream offset. A restarted task
//! resumes one past the last offset stored.

use std::sync::Arc;

use ferry_api::data::{Schema, Value};
use ferry_api::header::Headers;
use ferry_api::record::{OffsetMap, SourceRecord};

use crate::replication_policy::ReplicationPolicy;

pub const CLUSTER_KEY: &str = "cluster";
pub const TOPIC_KEY: &str = "topic";
pub const PARTITION_KEY: &str = "partition";
pub const OFFSET_KEY: &str = "offset";

/// A record read from the source cluster.
#[derive(Debug, Clone, Default)]
pub struct Consumed {
    pub topic: String,
    pub partition: i32,
    pub offset: i64,
    pub key: Option<Vec<u8>>,
    pub value: Option<Vec<u8>>,
    pub timestamp: Option<i64>,
    pub headers: Vec<(String, Option<Vec<u8>>)>,
}

/// `{"cluster", "partition", "topic"}`, in the order Java's `HashMap` writes them to the
/// offsets topic, so the stored keys are byte for byte Java's.
pub fn source_partition(source_alias: &str, topic: &str, partition: i32) -> OffsetMap {
    let mut map = OffsetMap::with_capacity(3);
    map.insert(CLUSTER_KEY, Value::String(source_alias.to_owned()));
    map.insert(PARTITION_KEY, Value::Int32(partition));
    map.insert(TOPIC_KEY, Value::String(topic.to_owned()));
    map
}

pub fn source_offset(offset: i64) -> OffsetMap {
    OffsetMap::single(OFFSET_KEY, Value::Int64(offset))
}

/// Where a task resumes a partition: one past the stored upstream offset; `None` (the
/// consumer's committed offset or `auto.offset.reset`) when nothing usable is stored.
pub fn resume_at(stored: Option<&OffsetMap>) -> Option<i64> {
    let offset = match stored?.get(OFFSET_KEY)? {
        Value::Int64(v) => *v,
        Value::Int32(v) => i64::from(*v),
        Value::Int16(v) => i64::from(*v),
        Value::Int8(v) => i64::from(*v),
        _ => return None,
    };
    (offset >= 0).then_some(offset + 1)
}

/// The record for the target cluster.
pub fn mirror_record(
    policy: &dyn ReplicationPolicy,
    source_alias: &str,
    consumed: Consumed,
) -> SourceRecord {
    let partition = Arc::new(source_partition(
        source_alias,
        &consumed.topic,
        consumed.partition,
    ));
    let remote = policy.format_remote_topic(source_alias, &consumed.topic);
    replicated(partition, remote, consumed)
}

/// The record for the target cluster, given its source partition (one map shared by all the
/// records of a partition, as the worker expects) and remote topic name.
pub fn replicated(
    source_partition: Arc<OffsetMap>,
    remote_topic: String,
    consumed: Consumed,
) -> SourceRecord {
    let mut headers = Headers::default();
    for (key, value) in consumed.headers {
        headers.add(
            key,
            Some(Schema::bytes()),
            value.map_or(Value::Null, Value::Bytes),
        );
    }
    SourceRecord {
        source_partition: Some(source_partition),
        source_offset: Some(source_offset(consumed.offset)),
        topic: remote_topic,
        kafka_partition: Some(consumed.partition),
        key_schema: Some(Schema::optional_bytes()),
        key: consumed.key.map_or(Value::Null, Value::Bytes),
        value_schema: Some(Schema::bytes()),
        value: consumed.value.map_or(Value::Null, Value::Bytes),
        // Java's NO_TIMESTAMP (-1) goes out as no timestamp.
        timestamp: consumed.timestamp.filter(|t| *t >= 0),
        headers,
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replication_policy::DefaultReplicationPolicy;

    #[test]
    fn a_record_keeps_its_bytes_partition_timestamp_and_headers_under_the_remote_name() {
        let consumed = Consumed {
            topic: "topic1".into(),
            partition: 2,
            offset: 3,
            key: Some(b"key".to_vec()),
            value: Some(b"value".to_vec()),
            timestamp: Some(4),
            headers: vec![
                ("header1".into(), Some(b"abc".to_vec())),
                ("header2".into(), None),
            ],
        };
        let record = mirror_record(
            &DefaultReplicationPolicy::default(),
            "sourceCluster",
            consumed,
        );
        assert_eq!(record.topic, "sourceCluster.topic1");
        assert_eq!(record.kafka_partition, Some(2));
        assert_eq!(record.key, Value::Bytes(b"key".to_vec()));
        assert_eq!(record.value, Value::Bytes(b"value".to_vec()));
        assert_eq!(record.timestamp, Some(4));
        let headers: Vec<_> = record
            .headers
            .iter()
            .map(|h| (h.key.clone(), h.value.clone()))
            .collect();
        assert_eq!(
            headers,
            vec![
                ("header1".to_owned(), Value::Bytes(b"abc".to_vec())),
                ("header2".to_owned(), Value::Null)
            ]
        );
        let partition = record.source_partition.unwrap();
        assert_eq!(
            partition.get("cluster"),
            Some(&Value::String("sourceCluster".into()))
        );
        assert_eq!(
            partition.get("topic"),
            Some(&Value::String("topic1".into()))
        );
        assert_eq!(partition.get("partition"), Some(&Value::Int32(2)));
        assert_eq!(
            record.source_offset.unwrap().get("offset"),
            Some(&Value::Int64(3))
        );
    }

    #[test]
    fn a_task_resumes_one_past_the_stored_offset() {
        assert_eq!(resume_at(None), None);
        assert_eq!(resume_at(Some(&source_offset(41))), Some(42));
        assert_eq!(resume_at(Some(&source_offset(-1))), None);
        assert_eq!(
            resume_at(Some(&OffsetMap::single("offset", Value::Int32(7)))),
            Some(8)
        );
        assert_eq!(
            resume_at(Some(&OffsetMap::single("other", Value::Int64(7)))),
            None
        );
    }

    #[test]
    fn no_timestamp_upstream_is_none_downstream() {
        let consumed = Consumed {
            topic: "t".into(),
            timestamp: Some(-1),
            ..Default::default()
        };
        let record = mirror_record(&DefaultReplicationPolicy::default(), "A", consumed);
        assert_eq!(record.timestamp, None);
        assert_eq!(record.key, Value::Null);
    }
}
