//! A consumer of chosen partitions outside any group, as Java's `KafkaConsumer.assign`:
//! MirrorMaker's source tasks read the source cluster this way, each partition from where the
//! task's own offsets say (or, without one, from the group's committed offset or
//! `auto.offset.reset`). Nothing is committed here.

use std::time::Duration;

use futures::FutureExt;
use rdkafka::consumer::{Consumer, StreamConsumer};
use rdkafka::{ClientConfig, Offset, TopicPartitionList};

use crate::consumer::{owned, transient_or_fatal, ConsumedRecord};
use crate::fetch_queue::FetchQueue;
use crate::KafkaClientError;

/// Its partitions' records are read from a queue of their own a batch at a time, as the sink
/// consumers' are (`fetch_queue.rs`: one rust-rdkafka poll per record costs several clock
/// reads); errors and records fetched before a partition was forwarded come through the
/// consumer's own queue.
pub struct AssignedConsumer {
    /// Declared first: dropped before the client it belongs to.
    fetch: FetchQueue,
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
        let inner: StreamConsumer = config.create().map_err(|cause| KafkaClientError::Create {
            role: "consumer",
            cause,
        })?;
        let fetch = FetchQueue::new(inner.client().native_ptr());
        Ok(AssignedConsumer { fetch, inner })
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
        // Forwarded before librdkafka fetches them, so their records come in batches.
        self.fetch.take(self.inner.client().native_ptr(), &tpl);
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
        loop {
            // The consumer's own queue each round: its errors, and records fetched before
            // their partition was forwarded.
            while batch.len() < max {
                match self.inner.recv().now_or_never() {
                    Some(Ok(message)) => batch.push(owned(&message)),
                    Some(Err(e)) => transient_or_fatal(e)?,
                    None => break,
                }
            }
            if let Err(e) = self
                .fetch
                .drain(max.saturating_sub(batch.len()), &mut batch)
            {
                transient_or_fatal(e)?;
            }
            if !batch.is_empty() {
                return Ok(batch);
            }
            tokio::select! {
                _ = self.fetch.arrived() => {}
                received = self.inner.recv() => match received {
                    Ok(message) => batch.push(owned(&message)),
                    Err(e) => transient_or_fatal(e)?,
                },
                _ = tokio::time::sleep_until(deadline) => return Ok(batch),
            }
        }
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
