//! The writer of an internal topic: each record acknowledged on its own, polled by a
//! [`Poller`] so an idle worker's internal producers sleep instead of spinning (rdkafka's
//! `FutureProducer`, which this replaces, polls as its `ThreadedProducer` does: see
//! `producer_poller`).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rdkafka::error::KafkaError;
use rdkafka::producer::{BaseProducer, BaseRecord, DeliveryResult, Producer, ProducerContext};
use rdkafka::types::RDKafkaErrorCode;
use rdkafka::{ClientConfig, ClientContext};
use tokio::sync::oneshot;

use crate::producer_poller::{polled, Poller};
use crate::KafkaClientError;

/// How long a write waits for room in librdkafka's queue, as `FutureProducer::send` did.
const QUEUE_TIMEOUT: Duration = Duration::from_secs(30);
const QUEUE_FULL_BACKOFF: Duration = Duration::from_millis(10);

/// Who learns how a write ended.
enum Delivery {
    Awaited(oneshot::Sender<Result<(), KafkaError>>),
    /// Nobody waits (status writes); a failure is logged.
    Detached,
    /// Nobody waits, but the writer counts its writes in flight (MirrorMaker's offset syncs);
    /// a failure is logged.
    Counted(Arc<AtomicUsize>),
}

struct LogProducerContext {
    topic: String,
    /// Writes sent and not yet reported: the poller waits in librdkafka only while some are.
    unacked: Arc<AtomicUsize>,
}

impl ClientContext for LogProducerContext {}

impl ProducerContext for LogProducerContext {
    type DeliveryOpaque = Box<Delivery>;

    fn delivery(&self, result: &DeliveryResult<'_>, delivery: Box<Delivery>) {
        self.unacked.fetch_sub(1, Ordering::SeqCst);
        let result = result.as_ref().map(|_| ()).map_err(|(e, _)| e.clone());
        let failed = match *delivery {
            // The writer stopped waiting only if its request was dropped.
            Delivery::Awaited(tx) => {
                let _ = tx.send(result);
                return;
            }
            Delivery::Detached => result.err(),
            Delivery::Counted(in_flight) => {
                in_flight.fetch_sub(1, Ordering::SeqCst);
                result.err()
            }
        };
        if let Some(error) = failed {
            tracing::warn!(topic = %self.topic, %error, "A write to an internal topic failed");
        }
    }
}

pub(crate) struct LogProducer {
    /// Dropped first: its thread stops before the producer goes.
    poller: Poller,
    inner: Arc<BaseProducer<LogProducerContext>>,
}

impl LogProducer {
    pub(crate) fn new(config: &ClientConfig, topic: &str) -> Result<Self, KafkaClientError> {
        let unacked = Arc::new(AtomicUsize::new(0));
        let inner: BaseProducer<LogProducerContext> = config
            .create_with_context(LogProducerContext {
                topic: topic.to_owned(),
                unacked: unacked.clone(),
            })
            .map_err(|cause| KafkaClientError::Create {
                role: "producer",
                cause,
            })?;
        let (inner, poller) = polled(inner, unacked)?;
        Ok(LogProducer { poller, inner })
    }

    /// Writes one record and waits for the broker's acknowledgement.
    pub(crate) async fn send(
        &self,
        topic: &str,
        key: &[u8],
        value: Option<&[u8]>,
    ) -> Result<(), KafkaError> {
        let (tx, rx) = oneshot::channel();
        let deadline = Instant::now() + QUEUE_TIMEOUT;
        let mut delivery = Box::new(Delivery::Awaited(tx));
        loop {
            match self.queue(topic, key, value, delivery) {
                Ok(()) => break,
                Err((e, back))
                    if e.rdkafka_error_code() == Some(RDKafkaErrorCode::QueueFull)
                        && Instant::now() < deadline =>
                {
                    delivery = back;
                    tokio::time::sleep(QUEUE_FULL_BACKOFF).await;
                }
                Err((e, _)) => return Err(e),
            }
        }
        // The sender goes only with the producer, which lives as long as `self`.
        rx.await.unwrap_or(Err(KafkaError::Canceled))
    }

    /// Queues one record without waiting for it.
    pub(crate) fn send_detached(
        &self,
        topic: &str,
        key: &[u8],
        value: Option<&[u8]>,
    ) -> Result<(), KafkaError> {
        self.queue(topic, key, value, Box::new(Delivery::Detached))
            .map_err(|(e, _)| e)
    }

    /// Queues one record for a given partition, counted in `in_flight` until Kafka answers.
    pub(crate) fn send_counted(
        &self,
        topic: &str,
        partition: i32,
        key: &[u8],
        value: &[u8],
        in_flight: &Arc<AtomicUsize>,
    ) -> Result<(), KafkaError> {
        in_flight.fetch_add(1, Ordering::SeqCst);
        let delivery = Box::new(Delivery::Counted(in_flight.clone()));
        self.queue_to(topic, Some(partition), key, Some(value), delivery)
            .map_err(|(e, _)| {
                in_flight.fetch_sub(1, Ordering::SeqCst);
                e
            })
    }

    fn queue(
        &self,
        topic: &str,
        key: &[u8],
        value: Option<&[u8]>,
        delivery: Box<Delivery>,
    ) -> Result<(), (KafkaError, Box<Delivery>)> {
        self.queue_to(topic, None, key, value, delivery)
    }

    fn queue_to(
        &self,
        topic: &str,
        partition: Option<i32>,
        key: &[u8],
        value: Option<&[u8]>,
        delivery: Box<Delivery>,
    ) -> Result<(), (KafkaError, Box<Delivery>)> {
        let mut record = BaseRecord::with_opaque_to(topic, delivery).key(key);
        if let Some(partition) = partition {
            record = record.partition(partition);
        }
        if let Some(value) = value {
            record = record.payload(value);
        }
        self.poller.send(|| {
            self.inner
                .send(record)
                .map_err(|(e, record)| (e, record.delivery_opaque))
        })
    }

    /// Nothing in flight and the poller asleep.
    pub(crate) fn idle(&self) -> bool {
        self.poller.idle()
    }

    pub(crate) fn flush(&self, timeout: Duration) -> Result<(), KafkaError> {
        self.inner.flush(timeout)
    }
}
