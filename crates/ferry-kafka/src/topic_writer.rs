//! A writer of one partition of a topic that nobody waits on, counting its writes in flight:
//! what MirrorMaker's source tasks write their offset syncs with (Java's `OffsetSyncWriter`
//! sends to partition 0 and holds at most a few sends in flight).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use rdkafka::ClientConfig;

use crate::log_producer::LogProducer;
use crate::KafkaClientError;

pub struct TopicWriter {
    topic: String,
    producer: LogProducer,
    in_flight: Arc<AtomicUsize>,
}

impl TopicWriter {
    pub fn new(config: &ClientConfig, topic: &str) -> Result<Self, KafkaClientError> {
        Ok(TopicWriter {
            topic: topic.to_owned(),
            producer: LogProducer::new(config, topic)?,
            in_flight: Arc::new(AtomicUsize::new(0)),
        })
    }

    pub fn topic(&self) -> &str {
        &self.topic
    }

    /// Writes sent and not yet answered by Kafka.
    pub fn in_flight(&self) -> usize {
        self.in_flight.load(Ordering::SeqCst)
    }

    /// Queues a record for `partition`; a failed write is logged when Kafka answers.
    pub fn send(&self, partition: i32, key: &[u8], value: &[u8]) -> Result<(), KafkaClientError> {
        self.producer
            .send_counted(&self.topic, partition, key, value, &self.in_flight)
            .map_err(|cause| KafkaClientError::Operation {
                operation: "write",
                cause,
            })
    }

    /// Waits for every write in flight.
    pub fn flush(&self, timeout: Duration) -> Result<(), KafkaClientError> {
        self.producer
            .flush(timeout)
            .map_err(KafkaClientError::op("flush"))
    }
}
