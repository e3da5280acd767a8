//! Committed offsets of a consumer group, read and written from outside the group (KIP-875's
//! offsets API for sink connectors, whose tasks are stopped while it runs).

use std::time::Duration;

use rdkafka::admin::{AdminClient, AdminOptions};
use rdkafka::client::DefaultClientContext;
use rdkafka::consumer::{BaseConsumer, CommitMode, Consumer};
use rdkafka::types::RDKafkaErrorCode;
use rdkafka::{ClientConfig, Offset, TopicPartitionList};

use crate::consumer::Subscription;
use crate::KafkaClientError;

const TIMEOUT: Duration = Duration::from_secs(30);

/// One partition's committed offset (the next record to consume).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupOffset {
    pub topic: String,
    pub partition: i32,
    pub offset: i64,
}

/// Why a write to a group's offsets failed.
#[derive(Debug, thiserror::Error)]
pub enum GroupWriteError {
    /// The group still has members (for example sink tasks that have not stopped yet).
    #[error("the consumer group still has active members")]
    Active,
    #[error(transparent)]
    Client(#[from] KafkaClientError),
}

/// `config` must carry `bootstrap.servers` and the client's other settings, and `group.id`.
fn consumer(config: &ClientConfig) -> Result<BaseConsumer, KafkaClientError> {
    let mut config = config.clone();
    config.set("enable.auto.commit", "false");
    config.create().map_err(|cause| KafkaClientError::Create {
        role: "consumer",
        cause,
    })
}

/// Every partition of the subscribed topics (for a regex, of every matching topic).
fn partitions(
    consumer: &BaseConsumer,
    subscription: &Subscription,
) -> Result<TopicPartitionList, KafkaClientError> {
    let metadata = consumer
        .fetch_metadata(None, TIMEOUT)
        .map_err(KafkaClientError::op("fetch metadata"))?;
    // Whole-name matching, as Java's `Pattern.matches`; the regex was validated with the
    // connector's config, so one that does not compile simply matches nothing.
    let regex = match subscription {
        Subscription::Regex(r) => regex::Regex::new(&format!("^(?:{r})$")).ok(),
        Subscription::Topics(_) => None,
    };
    let mut tpl = TopicPartitionList::new();
    for topic in metadata.topics() {
        let wanted = match (subscription, &regex) {
            (Subscription::Topics(t), _) => t.iter().any(|n| n == topic.name()),
            (_, Some(re)) => re.is_match(topic.name()),
            _ => false,
        };
        if wanted {
            for p in topic.partitions() {
                tpl.add_partition(topic.name(), p.id());
            }
        }
    }
    Ok(tpl)
}

/// The group's committed offsets for the subscribed topics' partitions.
pub fn committed(
    config: &ClientConfig,
    subscription: &Subscription,
) -> Result<Vec<GroupOffset>, KafkaClientError> {
    let consumer = consumer(config)?;
    let tpl = partitions(&consumer, subscription)?;
    let committed = consumer
        .committed_offsets(tpl, TIMEOUT)
        .map_err(KafkaClientError::op("fetch committed offsets"))?;
    Ok(committed
        .elements()
        .iter()
        .filter_map(|e| match e.offset() {
            Offset::Offset(offset) => Some(GroupOffset {
                topic: e.topic().to_owned(),
                partition: e.partition(),
                offset,
            }),
            _ => None,
        })
        .collect())
}

/// Commits offsets for the group from outside it; `None` moves a partition back to its earliest
/// offset (librdkafka cannot delete one partition's committed offset, which Java does).
pub fn alter(
    config: &ClientConfig,
    offsets: &[(String, i32, Option<i64>)],
) -> Result<(), GroupWriteError> {
    let consumer = consumer(config)?;
    let mut tpl = TopicPartitionList::new();
    for (topic, partition, offset) in offsets {
        let offset = match offset {
            Some(o) => *o,
            None => {
                consumer
                    .fetch_watermarks(topic, *partition, TIMEOUT)
                    .map_err(KafkaClientError::op("fetch watermarks"))?
                    .0
            }
        };
        tpl.add_partition_offset(topic, *partition, Offset::Offset(offset))
            .map_err(KafkaClientError::op("commit"))?;
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

/// Deletes the group; a group that does not exist is already reset.
pub async fn delete(config: &ClientConfig, group: &str) -> Result<(), GroupWriteError> {
    let admin: AdminClient<DefaultClientContext> =
        config.create().map_err(|cause| KafkaClientError::Create {
            role: "admin",
            cause,
        })?;
    let results = admin
        .delete_groups(
            &[group],
            &AdminOptions::new().operation_timeout(Some(TIMEOUT)),
        )
        .await
        .map_err(KafkaClientError::op("delete group"))?;
    match results.into_iter().next() {
        Some(Err((_, RDKafkaErrorCode::NonEmptyGroup))) => Err(GroupWriteError::Active),
        Some(Err((_, RDKafkaErrorCode::GroupIdNotFound))) | Some(Ok(_)) | None => Ok(()),
        Some(Err((name, code))) => Err(KafkaClientError::Topic {
            topic: name,
            message: format!("could not delete the group: {code}"),
        }
        .into()),
    }
}
