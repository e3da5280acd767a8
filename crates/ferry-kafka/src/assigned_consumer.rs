//! A consumer of chosen partitions outside any group, as Java's `KafkaConsumer.assign`:
//! MirrorMaker's source tasks read the source cluster this way, each partition from where the
//! task's own offsets say (or, without one, from the group's committed offset or
//! `auto.offset.reset`). Nothing is committed here.

use std::time::Duration;

use futures::FutureExt;
use rdkafka::consumer::{Consumer, StreamConsumer};
use rdkafka::{ClientConfig, Offset, TopicPartitionList};

use crate::consumer::{owned, transient_or_fatal, ConsumedRecord};
use crate::KafkaClientError;

pub struct AssignedConsumer {
    inner: StreamConsumer,
}

impl AssignedConsumer {
    /// Without a `group.id` (Java's source consumers have none), librdkafka still wants one to
    /// assign partitions: a name of its own is given, which never joins, commits or finds a
    /// committed offset, so a partition without an offset given starts at `auto.offset.reset`.
    pub fn new(config: &ClientConfig) -> Result<Self, KafkaClientError> {
        let mut config = config.clone();
        if config.get("group.id").is_none() {
            config.set("group.id", unjoined_group_id());
        }
        // As Ferry's sink consumers: fetch again as soon as the prefetch queue has room, where
        // librdkafka would pause a second each time it fills (Java's consumer never pauses).
        if config.get("fetch.queue.backoff.ms").is_none() {
            config.set("fetch.queue.backoff.ms", "5");
        }
        let inner = config.create().map_err(|cause| KafkaClientError::Create {
            role: "consumer",
            cause,
        })?;
        Ok(AssignedConsumer { inner })
    }

    /// Reads these partitions from now on, each from its offset (`None`: the stored position).
    pub fn assign(
        &self,
        partitions: &[((String, i32), Option<i64>)],
    ) -> Result<(), KafkaClientError> {
        let mut tpl = TopicPartitionList::new();
        for ((topic, partition), start) in partitions {
            let offset = start.map_or(Offset::Stored, Offset::Offset);
            tpl.add_partition_offset(topic, *partition, offset)
                .map_err(KafkaClientError::op("assign"))?;
        }
        self.inner
            .assign(&tpl)
            .map_err(KafkaClientError::op("assign"))
    }

    /// Up to `max` records: waits up to `timeout` for the first, then takes what is ready.
    /// Cancel-safe: a record is owned only once returned.
    pub async fn poll_batch(
        &self,
        max: usize,
        timeout: Duration,
    ) -> Result<Vec<ConsumedRecord>, KafkaClientError> {
        let mut batch = Vec::new();
        let deadline = tokio::time::Instant::now() + timeout;
        while batch.is_empty() {
            match tokio::time::timeout_at(deadline, self.inner.recv()).await {
                Err(_) => return Ok(batch),
                Ok(Ok(message)) => batch.push(owned(&message)),
                Ok(Err(e)) => transient_or_fatal(e)?,
            }
        }
        while batch.len() < max {
            match self.inner.recv().now_or_never() {
                Some(Ok(message)) => batch.push(owned(&message)),
                Some(Err(e)) => transient_or_fatal(e)?,
                None => break,
            }
        }
        Ok(batch)
    }
}

fn unjoined_group_id() -> String {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    format!(
        "ferry-assigned-consumer-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    )
}
