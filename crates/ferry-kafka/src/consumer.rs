//! A group consumer for sink tasks: batches of owned records, explicit commits, pause and seek,
//! and rebalance events delivered to the task's loop, which completes revocations itself.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::{FutureExt, StreamExt};
use rdkafka::consumer::{
    BaseConsumer, CommitMode, Consumer, ConsumerContext, RebalanceProtocol, StreamConsumer,
};
use rdkafka::error::KafkaError;
use rdkafka::message::{Headers, Message};
use rdkafka::statistics::Statistics;
use rdkafka::types::RDKafkaRespErr;
use rdkafka::{ClientConfig, ClientContext, Offset, TopicPartitionList};
use tokio::sync::{mpsc, Notify};

use crate::cluster::ConnectionFailure;
use crate::fetch_queue::FetchQueue;
use crate::stats::ClientStats;
use crate::KafkaClientError;

/// Partitions given to or taken from this consumer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RebalanceEvent {
    Assigned(Vec<(String, i32)>),
    /// Taken away in an orderly rebalance. The consumer still owns them, and the group waits,
    /// until [`SinkConsumer::finish_revocation`]: the task commits what it processed first, as
    /// Java's `onPartitionsRevoked` does inside `poll`.
    Revoked(Vec<(String, i32)>),
    /// Lost (the member was fenced or its session expired): another member may own them
    /// already, so nothing is committed for them.
    Lost(Vec<(String, i32)>),
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

struct SinkConsumerContext {
    events: mpsc::UnboundedSender<RebalanceEvent>,
    /// Partitions revoked and not yet given back (see [`RebalanceEvent::Revoked`]).
    revoking: Mutex<Option<Vec<(String, i32)>>>,
    /// Counts rebalance events, so a poll knows one happened while it waited.
    rebalances: AtomicU64,
    /// Wakes a poll waiting for records when a rebalance event arrives.
    rebalanced: Notify,
    /// Records received after a rebalance event, held back until the task loop has handled the
    /// event (a newly assigned partition is opened before its records are put).
    carried: Mutex<Vec<ConsumedRecord>>,
    /// Set once the consumer is leaving: revocations then complete at once.
    closing: AtomicBool,
    /// The first authentication or TLS failure; polls would otherwise come back empty forever.
    failure: ConnectionFailure,
    stats: Arc<ClientStats>,
    /// Where `auto.offset.reset` starts a partition with no committed offset; `None` when it
    /// says to fail instead (Java's `none`).
    reset_to: Option<Offset>,
    /// Where assigned partitions' records go; taken away before the client is destroyed.
    fetch: Mutex<Option<Arc<FetchQueue>>>,
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

/// Gives `tpl` (or, eagerly, the whole assignment) back to the group.
fn give_back<C: Consumer<X>, X: ConsumerContext>(consumer: &C, tpl: &TopicPartitionList) {
    let result = match consumer.rebalance_protocol() {
        RebalanceProtocol::Cooperative => consumer.incremental_unassign(tpl),
        _ => consumer.unassign(),
    };
    if let Err(error) = result {
        tracing::warn!(%error, "Could not give revoked partitions back to the group");
    }
}

impl ConsumerContext for SinkConsumerContext {
    // Librdkafka waits for the application's assign/unassign call before it rejoins, which
    // lets the task loop commit revoked partitions before the group hands them to another member.
    fn rebalance(
        &self,
        consumer: &BaseConsumer<Self>,
        err: RDKafkaRespErr,
        tpl: &mut TopicPartitionList,
    ) {
        match err {
            RDKafkaRespErr::RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS => {
                if let Some(reset) = self.reset_to {
                    start_uncommitted_at(consumer, tpl, reset);
                }
                if let Some(fetch) = self.fetch.lock().ok().and_then(|f| f.clone()) {
                    fetch.take(consumer.client().native_ptr(), tpl);
                }
                let result = match consumer.rebalance_protocol() {
                    RebalanceProtocol::Cooperative => consumer.incremental_assign(tpl),
                    _ => consumer.assign(tpl),
                };
                match result {
                    Ok(()) => self.event(RebalanceEvent::Assigned(partitions_of(tpl))),
                    Err(error) => tracing::error!(%error, "Could not take assigned partitions"),
                }
            }
            RDKafkaRespErr::RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS => {
                let parts = partitions_of(tpl);
                if self.closing.load(Ordering::Acquire) {
                    give_back(consumer, tpl);
                } else if consumer.assignment_lost() {
                    give_back(consumer, tpl);
                    self.drop_carried(&parts);
                    self.event(RebalanceEvent::Lost(parts));
                } else {
                    if let Ok(mut revoking) = self.revoking.lock() {
                        *revoking = Some(parts.clone());
                    }
                    self.event(RebalanceEvent::Revoked(parts));
                }
            }
            other => {
                tracing::error!(error = ?other, "Rebalance failed; giving up the assignment");
                give_back(consumer, tpl);
            }
        }
    }
}

impl SinkConsumerContext {
    fn event(&self, event: RebalanceEvent) {
        self.rebalances.fetch_add(1, Ordering::AcqRel);
        let _ = self.events.send(event);
        self.rebalanced.notify_one();
    }

    /// Forgets held-back records of partitions this consumer no longer reads from there.
    fn drop_carried(&self, parts: &[(String, i32)]) {
        if let Ok(mut carried) = self.carried.lock() {
            carried.retain(|r| {
                !parts
                    .iter()
                    .any(|(t, p)| *t == r.topic && *p == r.partition)
            });
        }
    }
}

/// How long an assignment waits for its committed offsets before librdkafka is left to look
/// them up itself.
const COMMITTED_TIMEOUT: Duration = Duration::from_secs(10);

/// Gives the partitions of `tpl` that have no committed offset the position `auto.offset.reset`
/// names, so their fetching starts at once. Left to itself, librdkafka finds no committed offset,
/// treats that as a failed lookup and waits its 100 ms retry backoff before it asks the broker
/// for the reset position (`rd_kafka_offset_reset`): every new sink connector and every
/// partition new to a group started 100 ms late. Partitions with a committed offset stay as
/// they are, so librdkafka looks that offset up itself with its leader epoch (log truncation is
/// still detected); if the lookup here fails, all of them do.
fn start_uncommitted_at<C: Consumer<X>, X: ConsumerContext>(
    consumer: &C,
    tpl: &mut TopicPartitionList,
    reset: Offset,
) {
    let committed = match consumer.committed_offsets(tpl.clone(), COMMITTED_TIMEOUT) {
        Ok(committed) => committed,
        Err(error) => {
            tracing::debug!(%error, "Committed offsets not read ahead of the assignment");
            return;
        }
    };
    for e in committed.elements() {
        let assigned = tpl
            .find_partition(e.topic(), e.partition())
            .is_some_and(|a| a.offset() == Offset::Invalid);
        if assigned && e.error().is_ok() && e.offset() == Offset::Invalid {
            // Only fails for a partition that is not in the list, which it is.
            let _ = tpl.set_partition_offset(e.topic(), e.partition(), reset);
        }
    }
}

/// The position librdkafka's `auto.offset.reset` names, when it names one.
fn reset_position(config: &ClientConfig) -> Option<Offset> {
    let value = config.get("auto.offset.reset").unwrap_or("largest");
    match value.to_ascii_lowercase().as_str() {
        "smallest" | "earliest" | "beginning" => Some(Offset::Beginning),
        "largest" | "latest" | "end" => Some(Offset::End),
        _ => None,
    }
}

/// What a sink consumer reads: a topic list or a (whole-name) regex.
#[derive(Debug, Clone)]
pub enum Subscription {
    Topics(Vec<String>),
    Regex(String),
}

pub struct SinkConsumer {
    /// Declared before `inner`: destroyed before the client.
    fetch: Arc<FetchQueue>,
    inner: StreamConsumer<SinkConsumerContext>,
}

impl Drop for SinkConsumer {
    fn drop(&mut self) {
        let context = self.inner.context();
        // Dropping the client leaves the group, and its revocation must complete by itself:
        // nobody is left to call finish_revocation (the client's drop would wait for it forever
        // when the consumer was not closed first, as after a panic).
        context.closing.store(true, Ordering::Release);
        // The context outlives the client (rust-rdkafka drops it after destroying the client).
        if let Ok(mut fetch) = context.fetch.lock() {
            fetch.take();
        }
    }
}

impl SinkConsumer {
    pub fn new(
        config: &ClientConfig,
        subscription: &Subscription,
    ) -> Result<(Self, mpsc::UnboundedReceiver<RebalanceEvent>), KafkaClientError> {
        let (tx, rx) = mpsc::unbounded_channel();
        let context = SinkConsumerContext {
            events: tx,
            revoking: Mutex::new(None),
            rebalances: AtomicU64::new(0),
            rebalanced: Notify::new(),
            carried: Mutex::new(Vec::new()),
            closing: AtomicBool::new(false),
            failure: ConnectionFailure::default(),
            stats: Arc::default(),
            reset_to: reset_position(config),
            fetch: Mutex::new(None),
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
        let fetch = Arc::new(FetchQueue::new(inner.client().native_ptr()));
        if let Ok(mut slot) = inner.context().fetch.lock() {
            *slot = Some(fetch.clone());
        }
        let refs: Vec<&str> = topics.iter().map(String::as_str).collect();
        inner
            .subscribe(&refs)
            .map_err(KafkaClientError::op("subscribe"))?;
        Ok((SinkConsumer { fetch, inner }, rx))
    }

    /// Up to `max` records: waits up to `timeout` for the first, then takes what is ready.
    /// Returns early, with what it has, after a rebalance event, so the task loop handles the
    /// event first; records received after the event come with the next poll.
    /// Cancel-safe: no record is lost if the future is dropped before it completes.
    pub async fn poll_batch(
        &self,
        max: usize,
        timeout: Duration,
    ) -> Result<Vec<ConsumedRecord>, KafkaClientError> {
        let context = self.inner.context();
        let mut batch = context
            .carried
            .lock()
            .map(|mut c| std::mem::take(&mut *c))
            .unwrap_or_default();
        if !batch.is_empty() {
            return Ok(batch);
        }
        let seen = context.rebalances.load(Ordering::Acquire);
        let rebalanced = || context.rebalances.load(Ordering::Acquire) != seen;
        let carry = |record: ConsumedRecord| {
            if let Ok(mut carried) = context.carried.lock() {
                carried.push(record);
            }
        };
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            if let Some(reason) = context.failure.get() {
                return Err(KafkaClientError::Connection(reason));
            }
            // An event of the consumer's queue (a rebalance, an error, statistics) each round,
            // so they are served while records keep coming. Records come from there only if
            // they were fetched before their partition was sent to the fetch queue.
            if let Some(Some(event)) = self.inner.stream().next().now_or_never() {
                match event {
                    Ok(msg) if rebalanced() => carry(owned(&msg)),
                    Ok(msg) => batch.push(owned(&msg)),
                    Err(e) => transient_or_fatal(e)?,
                }
            }
            if rebalanced() || self.revocation_pending() {
                return Ok(batch);
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
                // Serves the consumer's events while it waits.
                received = self.inner.recv() => match received {
                    Ok(msg) if rebalanced() => carry(owned(&msg)),
                    Ok(msg) => batch.push(owned(&msg)),
                    Err(e) => transient_or_fatal(e)?,
                },
                // A wake-up left from an earlier event is harmless: the loop checks again.
                _ = context.rebalanced.notified() => {}
                _ = tokio::time::sleep_until(deadline) => return Ok(batch),
            }
        }
    }

    fn revocation_pending(&self) -> bool {
        self.inner
            .context()
            .revoking
            .lock()
            .is_ok_and(|r| r.is_some())
    }

    /// Gives the partitions of the last [`RebalanceEvent::Revoked`] back to the group, once the
    /// task has committed them; the group's rebalance goes on from here.
    pub fn finish_revocation(&self) {
        let revoked = self
            .inner
            .context()
            .revoking
            .lock()
            .ok()
            .and_then(|mut r| r.take());
        if let Some(parts) = revoked {
            // Records held back for these partitions are their next owner's now.
            self.inner.context().drop_carried(&parts);
            give_back(&self.inner, &tpl_of(&parts));
        }
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
        // Held-back records of the partition would come before the ones from its new position.
        self.inner
            .context()
            .drop_carried(&[(topic.to_owned(), partition)]);
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
        self.inner.context().closing.store(true, Ordering::Release);
        self.finish_revocation();
        self.inner.unsubscribe();
        result
    }
}

/// Librdkafka reports passing conditions (a subscribed topic that does not exist yet, a broker
/// that went away) as consumption errors; Java's consumer logs and keeps polling, and so do we.
pub(crate) fn transient_or_fatal(e: KafkaError) -> Result<(), KafkaClientError> {
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

pub(crate) fn owned<M: Message>(msg: &M) -> ConsumedRecord {
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
