//! A producer that reports each record's acknowledgement back to the task that sent it.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rdkafka::error::KafkaError;
use rdkafka::message::Message;
use rdkafka::producer::{BaseProducer, DeliveryResult, Producer, ProducerContext};
use rdkafka::statistics::Statistics;
use rdkafka::types::RDKafkaErrorCode;
use rdkafka::{ClientConfig, ClientContext};
use tokio::sync::mpsc;

use crate::cluster::ConnectionFailure;
use crate::producer_poller::{polled, Poller};
use crate::stats::ClientStats;
use crate::topic_handles::{delivered_topic, TopicHandles};
use crate::KafkaClientError;

/// The broker's answer for one sent record, tagged with the sequence number given to `send`.
#[derive(Debug)]
pub struct Ack {
    pub seq: usize,
    pub result: Result<Delivered, KafkaError>,
    /// The topic of a record that failed, for its error report (the sender may not have kept
    /// the record); `None` for a delivered one.
    pub topic: Option<String>,
}

/// Where an acknowledged record landed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Delivered {
    pub partition: i32,
    pub offset: i64,
}

/// Forwards delivery reports from librdkafka's polling thread to the sending task. The channel
/// is unbounded because librdkafka already bounds the records in flight
/// (`queue.buffering.max.messages`), and a delivery callback must never block.
struct AckContext {
    acks: mpsc::UnboundedSender<Ack>,
    /// The first authentication or TLS failure; records would otherwise wait forever.
    failure: ConnectionFailure,
    stats: Arc<ClientStats>,
    /// Records sent and not yet reported: the poller waits in librdkafka only while some are.
    unacked: Arc<AtomicUsize>,
    /// Told the topic of each record the broker acknowledged, on the poller's thread, as
    /// Java's send callback records a task's active topics.
    delivered: std::sync::OnceLock<DeliveryObserver>,
}

/// Called with the topic of every acknowledged record.
pub type DeliveryObserver = Box<dyn Fn(&str) + Send + Sync>;

impl ClientContext for AckContext {
    fn error(&self, error: KafkaError, reason: &str) {
        self.failure.observe("Producer", &error, reason);
    }

    fn stats(&self, statistics: Statistics) {
        self.stats.update(statistics);
    }
}

impl ProducerContext for AckContext {
    type DeliveryOpaque = usize;

    fn delivery(&self, result: &DeliveryResult<'_>, seq: usize) {
        let mut topic = None;
        let result = match result {
            Ok(msg) => {
                if let Some(observer) = self.delivered.get() {
                    observer(delivered_topic(msg));
                }
                Ok(Delivered {
                    partition: msg.partition(),
                    offset: msg.offset(),
                })
            }
            Err((err, msg)) => {
                self.stats.record_error();
                topic = Some(delivered_topic(msg).to_owned());
                Err(err.clone())
            }
        };
        self.unacked.fetch_sub(1, Ordering::SeqCst);
        // The receiver is gone only when the task has stopped caring about acknowledgements.
        let _ = self.acks.send(Ack { seq, result, topic });
    }
}

/// A record to send; borrowed so the caller's converted bytes are not copied twice.
#[derive(Debug, Default)]
pub struct OutgoingRecord<'a> {
    pub topic: &'a str,
    pub partition: Option<i32>,
    pub key: Option<&'a [u8]>,
    pub value: Option<&'a [u8]>,
    pub timestamp: Option<i64>,
    pub headers: Vec<(&'a str, Option<&'a [u8]>)>,
}

/// One record of a batch sent to a single topic with `send_batch`: owned, as the batch outlives
/// the conversions that made it. It has no headers, and the time it is queued as its timestamp
/// (librdkafka's batch call takes neither); other records go through `send`.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct BatchRecord {
    pub partition: Option<i32>,
    pub key: Option<Vec<u8>>,
    pub value: Option<Vec<u8>>,
    /// Given back with the record's acknowledgement.
    pub seq: usize,
}

/// Why a record was not queued.
#[derive(Debug, thiserror::Error)]
pub enum SendError {
    /// librdkafka's local queue is full; wait for acknowledgements and try again.
    #[error("the producer's queue is full")]
    QueueFull,
    #[error("the record could not be queued: {0}")]
    Fatal(KafkaError),
}

impl From<KafkaError> for SendError {
    fn from(err: KafkaError) -> Self {
        match err.rdkafka_error_code() {
            Some(RDKafkaErrorCode::QueueFull) => SendError::QueueFull,
            _ => SendError::Fatal(err),
        }
    }
}

/// The first record of a batch that was not queued. Every record before `index` is queued. After
/// a full queue none from `index` on is, so the rest can be sent again once there is room;
/// after any other error, records after `index` may or may not be queued.
#[derive(Debug, thiserror::Error)]
#[error("record {index} of the batch was not queued: {error}")]
pub struct BatchError {
    pub index: usize,
    pub error: SendError,
}

/// A producer whose delivery reports arrive on a channel.
pub struct AckingProducer {
    /// Dropped first: its thread stops before the producer goes.
    poller: Poller,
    /// Dropped before the client they belong to.
    topics: Mutex<TopicHandles>,
    /// Shared so the transaction calls, which block, can run on a blocking thread.
    inner: Arc<BaseProducer<AckContext>>,
}

impl AckingProducer {
    pub fn new(
        config: &ClientConfig,
    ) -> Result<(Self, mpsc::UnboundedReceiver<Ack>), KafkaClientError> {
        let (tx, rx) = mpsc::unbounded_channel();
        let unacked = Arc::new(AtomicUsize::new(0));
        let inner: BaseProducer<AckContext> = config
            .create_with_context(AckContext {
                acks: tx,
                failure: ConnectionFailure::default(),
                stats: Arc::default(),
                unacked: unacked.clone(),
                delivered: std::sync::OnceLock::new(),
            })
            .map_err(|cause| KafkaClientError::Create {
                role: "producer",
                cause,
            })?;
        let (inner, poller) = polled(inner, unacked)?;
        Ok((
            AckingProducer {
                poller,
                topics: Mutex::default(),
                inner,
            },
            rx,
        ))
    }

    /// Queues one record; its acknowledgement arrives later with `seq`.
    pub fn send(&self, record: &OutgoingRecord<'_>, seq: usize) -> Result<(), SendError> {
        let client = self.inner.client().native_ptr();
        let mut topics = self.topics.lock().unwrap_or_else(PoisonError::into_inner);
        self.poller
            .send(|| topics.send(client, record, seq).map_err(SendError::from))
    }

    /// Queues records of one topic with a single call into librdkafka (which then takes the
    /// topic's lock and reads the clock once, not once per record); each acknowledgement
    /// arrives later with its record's `seq`.
    pub fn send_batch(&self, topic: &str, records: &[BatchRecord]) -> Result<(), BatchError> {
        let client = self.inner.client().native_ptr();
        let mut topics = self.topics.lock().unwrap_or_else(PoisonError::into_inner);
        self.poller.send_many(records.len(), || {
            let (queued, outcome) = topics.send_batch(client, topic, records);
            let outcome = outcome.map_err(|(index, err)| BatchError {
                index,
                error: SendError::from(err),
            });
            (queued, outcome)
        })
    }

    /// Waits until every queued record has been acknowledged or failed.
    pub fn flush(&self, timeout: Duration) -> Result<(), KafkaClientError> {
        self.inner
            .flush(timeout)
            .map_err(|cause| match cause.rdkafka_error_code() {
                Some(RDKafkaErrorCode::OperationTimedOut) => KafkaClientError::Timeout {
                    operation: "producer flush",
                    timeout_ms: u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX),
                },
                _ => KafkaClientError::Operation {
                    operation: "producer flush",
                    cause,
                },
            })
    }

    /// The broker refused this producer's credentials or TLS handshake (librdkafka's reason,
    /// which names the broker): no record will ever be delivered with these settings.
    pub fn connection_failure(&self) -> Option<String> {
        self.inner.context().failure.get()
    }

    /// The statistics librdkafka reports for this producer (when `statistics.interval.ms` is
    /// set).
    pub fn stats(&self) -> Arc<ClientStats> {
        self.inner.context().stats.clone()
    }

    /// Sets what is told the topic of each acknowledged record (once; later calls are ignored).
    pub fn on_delivered(&self, observer: DeliveryObserver) {
        let _ = self.inner.context().delivered.set(observer);
    }

    /// Whether nothing awaits an acknowledgement and the poller sleeps until the next send.
    pub fn idle(&self) -> bool {
        self.poller.idle()
    }

    /// Records queued or in flight.
    pub fn in_flight(&self) -> i32 {
        self.inner.in_flight_count()
    }

    /// Registers the producer's `transactional.id` with its coordinator, fencing out every
    /// earlier producer of that id and aborting its open transaction.
    pub async fn init_transactions(&self, timeout: Duration) -> Result<(), KafkaClientError> {
        self.blocking("init transactions", move |p| p.init_transactions(timeout))
            .await
    }

    pub fn begin_transaction(&self) -> Result<(), KafkaClientError> {
        self.inner
            .begin_transaction()
            .map_err(KafkaClientError::op("begin transaction"))
    }

    /// Flushes every record of the transaction and commits it.
    pub async fn commit_transaction(&self, timeout: Duration) -> Result<(), KafkaClientError> {
        // The client's own flush, which the commit starts with, waits in steps of 100 ms for
        // the deliveries our polling thread hands out; waiting for them here first keeps a
        // commit to the broker's round trips (about 100 ms less per transaction).
        self.settle(timeout).await;
        self.blocking("commit transaction", move |p| p.commit_transaction(timeout))
            .await
    }

    /// Aborts the open transaction once its records are delivered: librdkafka's abort can
    /// fail with INVALID_TXN_STATE when it races the registration of the transaction's
    /// partitions (librdkafka issue 4849), seen here when a task aborts right after sending.
    pub async fn abort_transaction(&self, timeout: Duration) -> Result<(), KafkaClientError> {
        self.settle(timeout).await;
        self.blocking("abort transaction", move |p| p.abort_transaction(timeout))
            .await
    }

    /// Waits (up to `timeout`) until no record is queued or in flight.
    async fn settle(&self, timeout: Duration) {
        let deadline = tokio::time::Instant::now() + timeout;
        while self.in_flight() > 0 && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    }

    async fn blocking(
        &self,
        operation: &'static str,
        call: impl FnOnce(&BaseProducer<AckContext>) -> rdkafka::error::KafkaResult<()> + Send + 'static,
    ) -> Result<(), KafkaClientError> {
        let inner = self.inner.clone();
        tokio::task::spawn_blocking(move || call(&inner))
            .await
            .map_err(|e| KafkaClientError::Interrupted {
                operation,
                message: e.to_string(),
            })?
            .map_err(KafkaClientError::op(operation))
    }
}

/// Fences every earlier producer of each transactional id, as Java's `Admin.fenceProducers`
/// does: a producer of the id registers with the coordinator (a new epoch), which aborts the
/// id's open transaction and refuses the older producers from then on.
pub async fn fence_producers(
    config: &ClientConfig,
    transactional_ids: &[String],
    timeout: Duration,
) -> Result<(), KafkaClientError> {
    for id in transactional_ids {
        let mut config = config.clone();
        config.set("transactional.id", id);
        let (producer, _acks) = AckingProducer::new(&config)?;
        producer.init_transactions(timeout).await?;
    }
    Ok(())
}
