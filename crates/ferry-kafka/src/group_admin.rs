//! Consumer groups seen from outside: which groups a cluster has and in which state, their
//! committed offsets with metadata, and commits into an idle group. MirrorMaker's checkpoint
//! connector reads the source cluster's groups this way and writes their translated offsets
//! to the target's.

use std::time::Duration;

use rdkafka::consumer::{BaseConsumer, CommitMode, Consumer};
use rdkafka::types::RDKafkaErrorCode;
use rdkafka::{ClientConfig, Offset, TopicPartitionList};

use crate::group_offsets::GroupWriteError;
use crate::KafkaClientError;

/// A group and its state as the group coordinator names it (`Empty`, `Stable`, `Dead`, …).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupListing {
    pub group: String,
    pub state: String,
}

/// A partition's committed offset.
pub type PartitionOffset = ((String, i32), CommittedOffset);

/// A committed offset and the metadata committed with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommittedOffset {
    pub offset: i64,
    pub metadata: String,
}

fn handle(config: &ClientConfig, group: Option<&str>) -> Result<BaseConsumer, KafkaClientError> {
    let mut config = config.clone();
    config.set("enable.auto.commit", "false");
    match group {
        Some(g) => config.set("group.id", g),
        // librdkafka wants one even for a handle that never joins.
        None => config.set("group.id", "ferry-group-admin"),
    };
    config.create().map_err(|cause| KafkaClientError::Create {
        role: "consumer",
        cause,
    })
}

/// Every consumer group of the cluster (Java's `listConsumerGroups().valid()`), or only
/// `group` when given (its state; `Dead` when it does not exist).
pub fn list_groups(
    config: &ClientConfig,
    group: Option<&str>,
    timeout: Duration,
) -> Result<Vec<GroupListing>, KafkaClientError> {
    let consumer = handle(config, None)?;
    let list = consumer
        .fetch_group_list(group, timeout)
        .map_err(KafkaClientError::op("list consumer groups"))?;
    Ok(list
        .groups()
        .iter()
        .filter(|g| g.protocol_type().is_empty() || g.protocol_type() == "consumer")
        .map(|g| GroupListing {
            group: g.name().to_owned(),
            state: g.state().to_owned(),
        })
        .collect())
}

/// The group's committed offsets of `partitions`; a partition without one is left out.
pub fn committed(
    config: &ClientConfig,
    group: &str,
    partitions: &[(String, i32)],
    timeout: Duration,
) -> Result<Vec<PartitionOffset>, KafkaClientError> {
    if partitions.is_empty() {
        return Ok(Vec::new());
    }
    let consumer = handle(config, Some(group))?;
    let mut tpl = TopicPartitionList::new();
    for (topic, partition) in partitions {
        tpl.add_partition(topic, *partition);
    }
    let committed = consumer
        .committed_offsets(tpl, timeout)
        .map_err(KafkaClientError::op("fetch committed offsets"))?;
    Ok(committed
        .elements()
        .iter()
        .filter_map(|e| match e.offset() {
            Offset::Offset(offset) => Some((
                (e.topic().to_owned(), e.partition()),
                CommittedOffset {
                    offset,
                    metadata: e.metadata().to_owned(),
                },
            )),
            _ => None,
        })
        .collect())
}

/// Commits offsets (with their metadata) into a group that has no active members.
pub fn commit(
    config: &ClientConfig,
    group: &str,
    offsets: &[PartitionOffset],
) -> Result<(), GroupWriteError> {
    let consumer = handle(config, Some(group))?;
    let mut tpl = TopicPartitionList::new();
    for ((topic, partition), committed) in offsets {
        let mut element = tpl.add_partition(topic, *partition);
        element
            .set_offset(Offset::Offset(committed.offset))
            .map_err(KafkaClientError::op("commit"))?;
        element.set_metadata(&committed.metadata);
    }
    consumer
        .commit(&tpl, CommitMode::Sync)
        .map_err(|e| match e.rdkafka_error_code() {
            Some(
                RDKafkaErrorCode::UnknownMemberId
                | RDKafkaErrorCode::IllegalGeneration
                | RDKafkaErrorCode::RebalanceInProgress,
            ) => GroupWriteError::Active,
            _ => GroupWriteError::Client(KafkaClientError::Operation {
                operation: "commit",
                cause: e,
            }),
        })
}
