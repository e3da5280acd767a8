//! The dead letter queue of a sink task: failed records' original bytes go to a topic, with
//! Java's `__connect.errors.*` context headers when enabled.

use std::sync::Arc;
use std::time::Duration;

use ferry_api::ConnectError;
use ferry_kafka::admin::{Admin, TopicSpec};
use ferry_kafka::consumer::ConsumedRecord;
use ferry_kafka::producer::{Ack, AckingProducer, OutgoingRecord, SendError};
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::errors::Stage;
use crate::metrics::ErrorMetrics;

pub struct DeadLetterQueue {
    producer: AckingProducer,
    acks: mpsc::UnboundedReceiver<Ack>,
    topic: String,
    context_headers: bool,
    connector: String,
    task: String,
    sent: usize,
    metrics: Arc<ErrorMetrics>,
}

/// Where the DLQ writes and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DlqSettings {
    pub topic: String,
    pub replication_factor: i16,
    pub context_headers: bool,
}

impl DeadLetterQueue {
    /// Creates the topic if it is missing (one partition, as Java does) and the producer.
    pub async fn open(
        settings: DlqSettings,
        producer_config: &ferry_kafka::rdkafka::ClientConfig,
        admin: &Admin,
        connector: &str,
        task: usize,
        metrics: Arc<ErrorMetrics>,
    ) -> Result<Self, ConnectError> {
        let spec = TopicSpec {
            name: settings.topic.clone(),
            partitions: 1,
            replication_factor: i32::from(settings.replication_factor),
            configs: Vec::new(),
        };
        admin.create_topic(&spec).await.map_err(|e| {
            ConnectError::with_source(
                format!(
                    "Could not initialize dead letter queue with topic={}",
                    settings.topic
                ),
                e,
            )
        })?;
        let (producer, acks) = AckingProducer::new(producer_config).map_err(|e| {
            ConnectError::with_source("Failed to create the dead letter queue producer", e)
        })?;
        Ok(DeadLetterQueue {
            producer,
            acks,
            topic: settings.topic,
            context_headers: settings.context_headers,
            connector: connector.to_owned(),
            task: task.to_string(),
            sent: 0,
            metrics,
        })
    }

    /// Sends a failed record's original bytes to the DLQ topic.
    pub async fn report(
        &mut self,
        record: &ConsumedRecord,
        stage: Stage,
        class: &str,
        error: &ConnectError,
    ) -> Result<(), ConnectError> {
        let context: Vec<(&str, String)> = if self.context_headers {
            vec![
                ("__connect.errors.topic", record.topic.clone()),
                ("__connect.errors.partition", record.partition.to_string()),
                ("__connect.errors.offset", record.offset.to_string()),
                ("__connect.errors.connector.name", self.connector.clone()),
                ("__connect.errors.task.id", self.task.clone()),
                ("__connect.errors.stage", stage.java_name().to_owned()),
                ("__connect.errors.class.name", class.to_owned()),
                (
                    "__connect.errors.exception.class.name",
                    error.java_class().to_owned(),
                ),
                ("__connect.errors.exception.message", error.to_string()),
                ("__connect.errors.exception.stacktrace", error.trace()),
            ]
        } else {
            Vec::new()
        };
        let mut headers: Vec<(&str, Option<&[u8]>)> = record
            .headers
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_deref()))
            .collect();
        headers.extend(context.iter().map(|(k, v)| (*k, Some(v.as_bytes()))));
        let outgoing = OutgoingRecord {
            topic: &self.topic,
            partition: None,
            key: record.key.as_deref(),
            value: record.value.as_deref(),
            timestamp: record.timestamp,
            headers,
        };
        ErrorMetrics::add(&self.metrics.dlq_produce_requests);
        loop {
            match self.producer.send(&outgoing, self.sent) {
                Ok(()) => break,
                Err(SendError::QueueFull) => {
                    drain(&mut self.acks, Duration::from_millis(100), &self.metrics).await?
                }
                Err(SendError::Fatal(e)) => {
                    ErrorMetrics::add(&self.metrics.dlq_produce_failures);
                    return Err(ConnectError::with_source(
                        "Could not produce message to dead letter queue",
                        e,
                    ));
                }
            }
        }
        self.sent += 1;
        Ok(())
    }

    /// Waits until every reported record is acknowledged, so offsets past it can be committed.
    pub async fn flush(&mut self, timeout: Duration) -> Result<(), ConnectError> {
        let deadline = Instant::now() + timeout;
        while self.producer.in_flight() > 0 {
            if Instant::now() >= deadline {
                return Err(ConnectError::retriable(
                    "Timed out waiting for the dead letter queue",
                ));
            }
            drain(&mut self.acks, Duration::from_millis(50), &self.metrics).await?;
        }
        drain(&mut self.acks, Duration::ZERO, &self.metrics).await
    }
}

/// Handles the acknowledgements that arrive within `wait`; a failed one is an error.
async fn drain(
    acks: &mut mpsc::UnboundedReceiver<Ack>,
    wait: Duration,
    metrics: &ErrorMetrics,
) -> Result<(), ConnectError> {
    let failed = |e| {
        ErrorMetrics::add(&metrics.dlq_produce_failures);
        ConnectError::with_source("Could not produce message to dead letter queue", e)
    };
    if let Ok(Some(ack)) = tokio::time::timeout(wait, acks.recv()).await {
        ack.result.map_err(failed)?;
    }
    while let Ok(ack) = acks.try_recv() {
        ack.result.map_err(failed)?;
    }
    Ok(())
}
