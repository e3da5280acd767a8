//! The seams between the pipelines and Kafka: what the source pipeline needs of its producer and
//! the sink pipeline of its consumer. Librdkafka's clients in production; in-memory fakes let
//! the pipelines' unit tests run without a broker.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use ferry_kafka::consumer::{ConsumedRecord, RebalanceEvent, SinkConsumer, Subscription};
use ferry_kafka::producer::{
    Ack, AckingProducer, BatchError, BatchRecord, DeliveryObserver, OutgoingRecord, SendError,
};
use ferry_kafka::rdkafka::ClientConfig;
use ferry_kafka::stats::ClientStats;
use ferry_kafka::KafkaClientError;
use tokio::sync::mpsc;

/// Next offsets to read, per `(topic, partition)`.
pub(crate) type PartitionOffsets = HashMap<(String, i32), i64>;

/// Where the source pipeline sends records. Acknowledgements come back, tagged with the `seq`
/// given to `send`, on the channel the producer was made with. The transaction calls are used
/// by exactly-once source tasks only, whose producer has a `transactional.id`.
#[async_trait]
pub(crate) trait RecordProducer: Send + Sync {
    fn send(&self, record: &OutgoingRecord<'_>, seq: usize) -> Result<(), SendError>;
    /// Sends records of one topic together, each acknowledged with its own `seq`.
    fn send_batch(&self, topic: &str, records: &[BatchRecord]) -> Result<(), BatchError> {
        send_one_by_one(self, topic, records)
    }
    /// Sets what is told the topic of each acknowledged record, as the acknowledgement arrives.
    fn on_delivered(&self, observer: DeliveryObserver);
    /// A connection failure (authentication, TLS) that makes waiting for acknowledgements futile.
    fn connection_failure(&self) -> Option<String>;
    /// Records sent and not acknowledged yet.
    fn in_flight(&self) -> i32;
    async fn init_transactions(&self, timeout: Duration) -> Result<(), KafkaClientError>;
    fn begin_transaction(&self) -> Result<(), KafkaClientError>;
    async fn commit_transaction(&self, timeout: Duration) -> Result<(), KafkaClientError>;
    async fn abort_transaction(&self, timeout: Duration) -> Result<(), KafkaClientError>;
}

/// `send_batch` as a series of `send`s, for producers without a batch call of their own.
pub(crate) fn send_one_by_one<P: RecordProducer + ?Sized>(
    producer: &P,
    topic: &str,
    records: &[BatchRecord],
) -> Result<(), BatchError> {
    for (index, record) in records.iter().enumerate() {
        let outgoing = OutgoingRecord {
            topic,
            partition: record.partition,
            key: record.key.as_deref(),
            value: record.value.as_deref(),
            timestamp: None,
            headers: Vec::new(),
        };
        producer
            .send(&outgoing, record.seq)
            .map_err(|error| BatchError { index, error })?;
    }
    Ok(())
}

#[async_trait]
impl RecordProducer for AckingProducer {
    fn send(&self, record: &OutgoingRecord<'_>, seq: usize) -> Result<(), SendError> {
        AckingProducer::send(self, record, seq)
    }

    fn send_batch(&self, topic: &str, records: &[BatchRecord]) -> Result<(), BatchError> {
        AckingProducer::send_batch(self, topic, records)
    }

    fn on_delivered(&self, observer: DeliveryObserver) {
        AckingProducer::on_delivered(self, observer);
    }

    fn connection_failure(&self) -> Option<String> {
        AckingProducer::connection_failure(self)
    }

    fn in_flight(&self) -> i32 {
        AckingProducer::in_flight(self)
    }

    async fn init_transactions(&self, timeout: Duration) -> Result<(), KafkaClientError> {
        AckingProducer::init_transactions(self, timeout).await
    }

    fn begin_transaction(&self) -> Result<(), KafkaClientError> {
        AckingProducer::begin_transaction(self)
    }

    async fn commit_transaction(&self, timeout: Duration) -> Result<(), KafkaClientError> {
        AckingProducer::commit_transaction(self, timeout).await
    }

    async fn abort_transaction(&self, timeout: Duration) -> Result<(), KafkaClientError> {
        AckingProducer::abort_transaction(self, timeout).await
    }
}

/// Where the sink pipeline reads records. Rebalances arrive on the channel the consumer was
/// made with; a revocation waits for [`RecordConsumer::finish_revocation`].
#[async_trait]
pub(crate) trait RecordConsumer: Send + Sync {
    /// Up to `max` records, waiting up to `timeout` for the first; early when a revocation waits.
    async fn poll_batch(
        &self,
        max: usize,
        timeout: Duration,
    ) -> Result<Vec<ConsumedRecord>, KafkaClientError>;
    fn commit(&self, offsets: &PartitionOffsets, sync: bool) -> Result<(), KafkaClientError>;
    fn pause(&self, partitions: &[(String, i32)]) -> Result<(), KafkaClientError>;
    fn resume(&self, partitions: &[(String, i32)]) -> Result<(), KafkaClientError>;
    fn seek(&self, topic: &str, partition: i32, offset: i64) -> Result<(), KafkaClientError>;
    /// The revoked partitions go back to the group, once their offsets are committed.
    fn finish_revocation(&self);
    /// Leaves the group after a final commit of `offsets`.
    fn close(self: Box<Self>, offsets: &PartitionOffsets) -> Result<(), KafkaClientError>;
}

#[async_trait]
impl RecordConsumer for SinkConsumer {
    async fn poll_batch(
        &self,
        max: usize,
        timeout: Duration,
    ) -> Result<Vec<ConsumedRecord>, KafkaClientError> {
        SinkConsumer::poll_batch(self, max, timeout).await
    }

    fn commit(&self, offsets: &PartitionOffsets, sync: bool) -> Result<(), KafkaClientError> {
        SinkConsumer::commit(self, offsets, sync)
    }

    fn pause(&self, partitions: &[(String, i32)]) -> Result<(), KafkaClientError> {
        SinkConsumer::pause(self, partitions)
    }

    fn resume(&self, partitions: &[(String, i32)]) -> Result<(), KafkaClientError> {
        SinkConsumer::resume(self, partitions)
    }

    fn seek(&self, topic: &str, partition: i32, offset: i64) -> Result<(), KafkaClientError> {
        SinkConsumer::seek(self, topic, partition, offset)
    }

    fn finish_revocation(&self) {
        SinkConsumer::finish_revocation(self);
    }

    fn close(self: Box<Self>, offsets: &PartitionOffsets) -> Result<(), KafkaClientError> {
        SinkConsumer::close(*self, offsets)
    }
}

/// A source task's producer, its acknowledgements, and its statistics when it reports them.
pub(crate) struct ProducerParts {
    pub producer: Box<dyn RecordProducer>,
    pub acks: mpsc::UnboundedReceiver<Ack>,
    pub stats: Option<Arc<ClientStats>>,
}

/// A sink task's consumer, its rebalances, and its statistics when it reports them.
pub(crate) struct ConsumerParts {
    pub consumer: Box<dyn RecordConsumer>,
    pub events: mpsc::UnboundedReceiver<RebalanceEvent>,
    pub stats: Option<Arc<ClientStats>>,
}

/// Makes the clients of connector tasks: librdkafka's, or in-memory ones in unit tests.
pub(crate) trait ClientFactory: Send + Sync {
    fn producer(&self, config: &ClientConfig) -> Result<ProducerParts, KafkaClientError>;
    fn consumer(
        &self,
        config: &ClientConfig,
        subscription: &Subscription,
    ) -> Result<ConsumerParts, KafkaClientError>;
}

/// Librdkafka's clients.
pub(crate) struct KafkaClients;

impl ClientFactory for KafkaClients {
    fn producer(&self, config: &ClientConfig) -> Result<ProducerParts, KafkaClientError> {
        let (producer, acks) = AckingProducer::new(config)?;
        let stats = Some(producer.stats());
        Ok(ProducerParts {
            producer: Box::new(producer),
            acks,
            stats,
        })
    }

    fn consumer(
        &self,
        config: &ClientConfig,
        subscription: &Subscription,
    ) -> Result<ConsumerParts, KafkaClientError> {
        let (consumer, events) = SinkConsumer::new(config, subscription)?;
        let stats = Some(consumer.stats());
        Ok(ConsumerParts {
            consumer: Box::new(consumer),
            events,
            stats,
        })
    }
}
