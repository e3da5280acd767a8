//! What a store needs of its topic: read to the end, write, flush, stop. Kafka's is
//! `ferry_kafka::topic_log::TopicLog`; the herder's unit tests put the stores on topics in memory
//! (`memory_log`), so the stores' own logic runs without a broker.

use std::time::Duration;

use async_trait::async_trait;
use ferry_kafka::rdkafka::ClientConfig;
use ferry_kafka::topic_log::{RecordSink, TopicLog};
use ferry_kafka::KafkaClientError;

#[async_trait]
pub trait InternalLog: Send + Sync {
    fn topic(&self) -> &str;
    fn partitions(&self) -> i32;
    /// Waits until every record that was in the topic when called has reached the sink.
    async fn read_to_end(&self, timeout: Duration) -> Result<(), KafkaClientError>;
    /// Writes one record and waits for its acknowledgement.
    async fn send(&self, key: &[u8], value: Option<&[u8]>) -> Result<(), KafkaClientError>;
    /// Queues one record without waiting for it.
    fn send_detached(&self, key: &[u8], value: Option<&[u8]>);
    fn flush(&self, timeout: Duration);
    fn stop(&mut self);
}

/// Opens a store's topic, handing every record read to the sink.
pub type LogOpener =
    Box<dyn FnOnce(RecordSink) -> Result<Box<dyn InternalLog>, KafkaClientError> + Send>;

/// The opener of a Kafka topic with the given client configs.
pub fn kafka_log(topic: &str, consumer: &ClientConfig, producer: &ClientConfig) -> LogOpener {
    let (topic, consumer, producer) = (topic.to_owned(), consumer.clone(), producer.clone());
    Box::new(move |sink| {
        let log: Box<dyn InternalLog> =
            Box::new(TopicLog::start(&topic, &consumer, &producer, sink)?);
        Ok(log)
    })
}

#[async_trait]
impl InternalLog for TopicLog {
    fn topic(&self) -> &str {
        TopicLog::topic(self)
    }

    fn partitions(&self) -> i32 {
        TopicLog::partitions(self)
    }

    async fn read_to_end(&self, timeout: Duration) -> Result<(), KafkaClientError> {
        TopicLog::read_to_end(self, timeout).await
    }

    async fn send(&self, key: &[u8], value: Option<&[u8]>) -> Result<(), KafkaClientError> {
        TopicLog::send(self, key, value).await
    }

    fn send_detached(&self, key: &[u8], value: Option<&[u8]>) {
        TopicLog::send_detached(self, key, value);
    }

    fn flush(&self, timeout: Duration) {
        TopicLog::flush(self, timeout);
    }

    fn stop(&mut self) {
        TopicLog::stop(self);
    }
}
