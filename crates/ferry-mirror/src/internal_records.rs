//! The source records of the checkpoint and heartbeat tasks, as Java's make them: the record's
//! bytes are the checkpoint or heartbeat (`records.rs`), sent to partition 0 of the checkpoints
//! or heartbeats topic; the source partition names the group and topic-partition, or the two
//! clusters, in the key order Java's `HashMap` stores them (checked with Java 17), and the
//! source offset is always `{"offset": 0}`.

use std::sync::Arc;

use ferry_api::data::{Schema, Value};
use ferry_api::record::{OffsetMap, SourceRecord};

use crate::records::{Checkpoint, Heartbeat, RecordError};
use crate::replication_policy::ReplicationPolicy;

fn zero_offset() -> OffsetMap {
    OffsetMap::single("offset", Value::Int32(0))
}

fn internal_record(
    partition: OffsetMap,
    topic: String,
    key: Vec<u8>,
    value: Vec<u8>,
    timestamp: i64,
) -> SourceRecord {
    SourceRecord {
        source_partition: Some(Arc::new(partition)),
        source_offset: Some(zero_offset()),
        topic,
        kafka_partition: Some(0),
        key_schema: Some(Schema::bytes()),
        key: Value::Bytes(key),
        value_schema: Some(Schema::bytes()),
        value: Value::Bytes(value),
        timestamp: Some(timestamp),
        ..Default::default()
    }
}

/// `{"partition", "topic", "group"}` of a checkpoint (the downstream topic).
pub fn checkpoint_partition(checkpoint: &Checkpoint) -> OffsetMap {
    let mut map = OffsetMap::with_capacity(3);
    map.insert("partition", Value::Int32(checkpoint.partition));
    map.insert("topic", Value::String(checkpoint.topic.clone()));
    map.insert("group", Value::String(checkpoint.group.clone()));
    map
}

/// A checkpoint for `<source>.checkpoints.internal` on the target cluster.
pub fn checkpoint_record(
    policy: &dyn ReplicationPolicy,
    source_alias: &str,
    checkpoint: &Checkpoint,
    timestamp: i64,
) -> Result<SourceRecord, RecordError> {
    Ok(internal_record(
        checkpoint_partition(checkpoint),
        policy.checkpoints_topic(source_alias),
        checkpoint.key()?,
        checkpoint.value()?,
        timestamp,
    ))
}

/// A heartbeat for the target cluster's `heartbeats` topic.
pub fn heartbeat_record(
    policy: &dyn ReplicationPolicy,
    heartbeat: &Heartbeat,
) -> Result<SourceRecord, RecordError> {
    let mut partition = OffsetMap::with_capacity(2);
    partition.insert(
        "sourceClusterAlias",
        Value::String(heartbeat.source_cluster_alias.clone()),
    );
    partition.insert(
        "targetClusterAlias",
        Value::String(heartbeat.target_cluster_alias.clone()),
    );
    Ok(internal_record(
        partition,
        policy.heartbeats_topic(),
        heartbeat.key()?,
        heartbeat.value(),
        heartbeat.timestamp,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replication_policy::DefaultReplicationPolicy;

    fn keys(map: &OffsetMap) -> Vec<String> {
        map.iter().map(|(k, _)| k.to_owned()).collect()
    }

    #[test]
    fn a_checkpoint_goes_to_partition_0_of_the_source_s_checkpoints_topic() {
        let checkpoint = Checkpoint {
            group: "g".into(),
            topic: "A.t".into(),
            partition: 1,
            upstream_offset: 10,
            downstream_offset: 20,
            metadata: String::new(),
        };
        let record =
            checkpoint_record(&DefaultReplicationPolicy::default(), "A", &checkpoint, 99).unwrap();
        assert_eq!(record.topic, "A.checkpoints.internal");
        assert_eq!(record.kafka_partition, Some(0));
        assert_eq!(record.key, Value::Bytes(checkpoint.key().unwrap()));
        assert_eq!(record.value, Value::Bytes(checkpoint.value().unwrap()));
        assert_eq!(record.timestamp, Some(99));
        let partition = record.source_partition.unwrap();
        assert_eq!(keys(&partition), ["partition", "topic", "group"]);
        assert_eq!(
            record.source_offset.unwrap().get("offset"),
            Some(&Value::Int32(0))
        );
    }

    #[test]
    fn a_heartbeat_goes_to_the_heartbeats_topic() {
        let heartbeat = Heartbeat {
            source_cluster_alias: "A".into(),
            target_cluster_alias: "B".into(),
            timestamp: 5,
        };
        let record = heartbeat_record(&DefaultReplicationPolicy::default(), &heartbeat).unwrap();
        assert_eq!(record.topic, "heartbeats");
        assert_eq!(record.kafka_partition, Some(0));
        assert_eq!(record.value, Value::Bytes(heartbeat.value()));
        let partition = record.source_partition.unwrap();
        assert_eq!(
            keys(&partition),
            ["sourceClusterAlias", "targetClusterAlias"]
        );
    }
}
