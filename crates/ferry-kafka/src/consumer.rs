//! A group consumer for sink tasks: batches of owned records, explicit commits, pause and seek,
//! and rebalance events delivered to the task's loop.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::FutureExt;
use rdkafka::consumer::{
    BaseConsumer, CommitMode, Consumer, ConsumerContext, Rebalance, StreamConsumer,
};
use rdkafka::error::KafkaError;
use rdkafka::message::{Headers, Message};
use rdkafka::statistics::Statistics;
use rdkafka::{ClientConfig, ClientContext, Offset, TopicPartitionList};
use tokio::sync::mpsc;

use crate::cluster::ConnectionFailure;
use crate::stats::ClientStats;
use crate::KafkaClientError;

/// Partitions given to or taken from this consumer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RebalanceEvent {
    Assigned(Vec<(String, i32)>),
    Revoked(Vec<(String, i32)>),
}

/// One consumed record, owned.
#[derive(Debug, Clone)]
pub struct ConsumedRecord {
    pub topic: String,
    pub partition: i32,
    pub offset: i64,
    pub timestamp: Option<i64>,
    /// True when the timestamp was set by the broker (log append time).
    pub log_append_time: bool,
    pub key: Option<Vec<u8>>,
    pub value: Option<Vec<u8>>,
    pub headers: Vec<(String, Option<Vec<u8>>)>,
}

/// Offsets that are safe to commit at any moment: the last ones the task flushed.
type SafeOffsets = Arc<Mutex<HashMap<(String, i32), i64>>>;

struct SinkConsumerContext {
    events: mpsc::UnboundedSender<RebalanceEvent>,
    safe_offsets: SafeOffsets,
    /// The first authentication or TLS failure; polls would otherwise come back empty forever.
    failure: ConnectionFailure,
    stats: Arc<ClientStats>,
}

impl ClientContext for SinkConsumerContext {
    fn error(&self, error: KafkaError, reason: &str) {
        self.failure.observe("Consumer", &error, reason);
    }

    fn stats(&self, statistics: Statistics) {
        self.stats.update(statistics);
    }
}

fn partitions_of(tpl: &TopicPartitionList) -> Vec<(String, i32)> {
    tpl.elements()
        .iter()
        .map(|e| (e.topic().to_owned(), e.partition()))
        .collect()
}

impl ConsumerContext for SinkConsumerContext {
    fn pre_rebalance(&self, consumer: &BaseConsumer<Self>, rebalance: &Rebalance<'_>) {
        if let Rebalance::Revoke(tpl) = rebalance {
            // Librdkafka calls this synchronously inside poll, so the task cannot flush here.
            // Committing the offsets of the last successful flush keeps at-least-once: anything
            // consumed after that flush is delivered again to the partition's next owner.
            let mut commit = TopicPartitionList::new();
            if let Ok(safe) = self.safe_offsets.lock() {
                for e in tpl.elements() {
                    if let Some(off) = safe.get(&(e.topic().to_owned(), e.partition())) {
                        let _ = commit.add_partition_offset(
                            e.topic(),
                            e.partition(),
                            Offset::Offset(*off),
                        );
                    }
                }
            }
            if commit.count() > 0 {
                if let Err(error) = consumer.commit(&commit, CommitMode::Sync) {
                    tracing::warn!(%error, "Could not commit offsets of revoked partitions");
                }
            }
            let _ = self
                .events
                .send(RebalanceEvent::Revoked(partitions_of(tpl)));
        }
    }

    fn post_rebalance(&self, _consumer: &BaseConsumer<Self>, rebalance: &Rebalance<'_>) {
        if let Rebalance::Assign(tpl) = rebalance {
            let _ = self
                .events
                .send(RebalanceEvent::Assigned(partitions_of(tpl)));
        }
    }
}

/// What a sink consumer reads: a topic list or a (whole-name) regex.
#[derive(Debug, Clone)]
pub enum Subscription {
    Topics(Vec<String>),
    Regex(String),
}

pub struct SinkConsumer {
    inner: StreamConsumer<SinkConsumerContext>,
    safe_offsets: SafeOffsets,
}

impl SinkConsumer {
    pub fn new(
        config: &ClientConfig,
        subscription: &Subscription,
    ) -> Result<(Self, mpsc::UnboundedReceiver<RebalanceEvent>), KafkaClientError> {
        let (tx, rx) = mpsc::unbounded_channel();
        let safe_offsets = SafeOffsets::default();
        let context = SinkConsumerContext {
            events: tx,
            safe_offsets: safe_offsets.clone(),
            failure: ConnectionFailure::default(),
            stats: Arc::default(),
        };
        let inner: StreamConsumer<SinkConsumerContext> = config
            .create_with_context(context)
            .map_err(|cause| KafkaClientError::Create {
                role: "consumer",
                cause,
            })?;
        let topics: Vec<String> = match subscription {
            Subscription::Topics(t) => t.clone(),
            // Java matches the whole topic name; librdkafka treats a leading '^' as a regex.
            Subscription::Regex(r) => vec![format!("^(?:{r})$")],
        };
        let refs: Vec<&str> = topics.iter().map(String::as_str).collect();
        inner
            .subscribe(&refs)
            .map_err(KafkaClientError::op("subscribe"))?;
        Ok((
            SinkConsumer {
                inner,
                safe_offsets,
            },
            rx,
        ))
    }

    /// Up to `max` records: waits up to `timeout` for the first, then takes what is ready.
    /// Cancel-safe: no record is lost if the future is dropped before it completes.
    pub async fn poll_batch(
        &self,
        max: usize,
        timeout: Duration,
    ) -> Result<Vec<ConsumedRecord>, KafkaClientError> {
        let mut batch = Vec::new();
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            if let Some(reason) = self.inner.context().failure.get() {
                return Err(KafkaClientError::Connection(reason));
            }
            let first = match tokio::time::timeout_at(deadline, self.inner.recv()).await {
                Err(_) => return Ok(batch),
                Ok(Ok(msg)) => msg,
                Ok(Err(e)) => {
                    transient_or_fatal(e)?;
                    continue;
                }
            };
            batch.push(owned(&first));
            break;
        }
        while batch.len() < max {
            match self.inner.recv().now_or_never() {
                Some(Ok(msg)) => batch.push(owned(&msg)),
                Some(Err(e)) => {
                    transient_or_fatal(e)?;
                    break;
                }
                None => break,
            }
        }
        Ok(batch)
    }

    /// Commits `next offsets` (the offset of the next record to read) per partition.
    pub fn commit(
        &self,
        offsets: &HashMap<(String, i32), i64>,
        sync: bool,
    ) -> Result<(), KafkaClientError> {
        let mut tpl = TopicPartitionList::new();
        for ((topic, partition), off) in offsets {
            tpl.add_partition_offset(topic, *partition, Offset::Offset(*off))
                .map_err(KafkaClientError::op("commit"))?;
        }
        let mode = if sync {
            CommitMode::Sync
        } else {
            CommitMode::Async
        };
        self.inner
            .commit(&tpl, mode)
            .map_err(KafkaClientError::op("commit"))?;
        if let Ok(mut safe) = self.safe_offsets.lock() {
            safe.extend(offsets.iter().map(|(k, v)| (k.clone(), *v)));
        }
        Ok(())
    }

    /// The statistics librdkafka reports for this consumer (when `statistics.interval.ms` is
    /// set).
    pub fn stats(&self) -> Arc<ClientStats> {
        self.inner.context().stats.clone()
    }

    pub fn pause(&self, partitions: &[(String, i32)]) -> Result<(), KafkaClientError> {
        self.inner
            .pause(&tpl_of(partitions))
            .map_err(KafkaClientError::op("pause"))
    }

    pub fn resume(&self, partitions: &[(String, i32)]) -> Result<(), KafkaClientError> {
        self.inner
            .resume(&tpl_of(partitions))
            .map_err(KafkaClientError::op("resume"))
    }

    pub fn seek(&self, topic: &str, partition: i32, offset: i64) -> Result<(), KafkaClientError> {
        self.inner
            .seek(
                topic,
                partition,
                Offset::Offset(offset),
                Duration::from_secs(10),
            )
            .map_err(KafkaClientError::op("seek"))
    }

    /// The committed offsets of `partitions` in the group (absent when none is committed).
    pub fn committed(
        &self,
        partitions: &[(String, i32)],
        timeout: Duration,
    ) -> Result<HashMap<(String, i32), i64>, KafkaClientError> {
        let tpl = self
            .inner
            .committed_offsets(tpl_of(partitions), timeout)
            .map_err(KafkaClientError::op("fetch committed offsets"))?;
        Ok(tpl
            .elements()
            .iter()
            .filter_map(|e| match e.offset() {
                Offset::Offset(o) => Some(((e.topic().to_owned(), e.partition()), o)),
                _ => None,
            })
            .collect())
    }

    /// Leaves the group after a final commit of `offsets`.
    pub fn close(self, offsets: &HashMap<(String, i32), i64>) -> Result<(), KafkaClientError> {
        let result = if offsets.is_empty() {
            Ok(())
        } else {
            self.commit(offsets, true)
        };
        self.inner.unsubscribe();
        result
    }
}

/// Librdkafka reports passing conditions (a subscribed topic that does not exist yet, a broker
/// that went away) as consumption errors; Java's consumer logs and keeps polling, and so do we.
fn transient_or_fatal(e: KafkaError) -> Result<(), KafkaClientError> {
    match e {
        KafkaError::MessageConsumption(code) => {
            tracing::warn!(error = %code, "Consumer reported an error; polling on");
            Ok(())
        }
        other => Err(KafkaClientError::Operation {
            operation: "consumer poll",
            cause: other,
        }),
    }
}

fn tpl_of(partitions: &[(String, i32)]) -> TopicPartitionList {
    let mut tpl = TopicPartitionList::new();
    for (t, p) in partitions {
        tpl.add_partition(t, *p);
    }
    tpl
}

fn owned<M: Message>(msg: &M) -> ConsumedRecord {
    let (timestamp, log_append_time) = match msg.timestamp() {
        rdkafka::Timestamp::NotAvailable => (None, false),
        rdkafka::Timestamp::CreateTime(t) => (Some(t), false),
        rdkafka::Timestamp::LogAppendTime(t) => (Some(t), true),
    };
    let headers = msg
        .headers()
        .map(|h| {
            h.iter()
                .map(|h| (h.key.to_owned(), h.value.map(<[u8]>::to_vec)))
                .collect()
        })
        .unwrap_or_default();
    ConsumedRecord {
        topic: msg.topic().to_owned(),
        partition: msg.partition(),
        offset: msg.offset(),
        timestamp,
        log_append_time,
        key: msg.key().map(<[u8]>::to_vec),
        value: msg.payload().map(<[u8]>::to_vec),
        headers,
    }
}
