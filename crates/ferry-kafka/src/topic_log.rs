//! A whole topic read from the beginning and tailed, plus a writer into it: what Java's
//! `KafkaBasedLog` does for the config, offset and status topics of distributed mode.
//!
//! The reader assigns itself every partition (no consumer group), hands each record to a
//! callback on its own thread, and tracks how far it has read so `read_to_end` can wait for the
//! records that were in the topic when it was called.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::message::Message;
use rdkafka::{ClientConfig, Offset, TopicPartitionList};
use tokio::sync::watch;

use crate::log_producer::LogProducer;
use crate::KafkaClientError;

/// One record read from the topic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogRecord {
    pub partition: i32,
    pub offset: i64,
    pub key: Option<Vec<u8>>,
    pub value: Option<Vec<u8>>,
}

/// Called on the reader's thread for every record, in each partition's order.
pub type RecordSink = Box<dyn FnMut(LogRecord) + Send>;

/// Java's `CREATE_TOPIC_TIMEOUT_NS`.
const TOPIC_APPEARS_TIMEOUT: Duration = Duration::from_secs(30);
const METADATA_TIMEOUT: Duration = Duration::from_secs(30);
const POLL_INTERVAL: Duration = Duration::from_millis(100);

pub struct TopicLog {
    topic: String,
    partitions: i32,
    producer: LogProducer,
    /// Next offset to read, per partition.
    positions: watch::Receiver<Vec<i64>>,
    /// Separate handle for watermark queries, so they never wait behind the reader's poll.
    meta: Arc<BaseConsumer>,
    stop: Arc<AtomicBool>,
    reader: Option<std::thread::JoinHandle<()>>,
}

impl TopicLog {
    /// Starts reading `topic` from the beginning of every partition. `consumer` and `producer`
    /// are complete client configs; the settings Connect forces for its internal topics are
    /// applied on top.
    pub fn start(
        topic: &str,
        consumer: &ClientConfig,
        producer: &ClientConfig,
        mut sink: RecordSink,
    ) -> Result<Self, KafkaClientError> {
        let mut consumer_config = consumer.clone();
        consumer_config
            .set("enable.auto.commit", "false")
            .set("enable.auto.offset.store", "false")
            .set("auto.offset.reset", "earliest")
            // Start-up reads whole topics: fetch again as soon as the prefetch queue has room.
            .set("fetch.queue.backoff.ms", "5")
            .remove("group.id");
        // librdkafka wants a group id even for assign-only consumers that never commit.
        consumer_config.set("group.id", format!("ferry-internal-reader-{topic}"));
        let reader: BaseConsumer =
            consumer_config
                .create()
                .map_err(|cause| KafkaClientError::Create {
                    role: "consumer",
                    cause,
                })?;
        let meta: BaseConsumer =
            consumer_config
                .create()
                .map_err(|cause| KafkaClientError::Create {
                    role: "consumer",
                    cause,
                })?;
        // As Java's KafkaBasedLog: a topic created a moment ago may not be in every broker's
        // metadata yet, so ask again for a while before giving up.
        let started = std::time::Instant::now();
        let partitions = loop {
            let md = meta
                .fetch_metadata(Some(topic), METADATA_TIMEOUT)
                .map_err(KafkaClientError::op("fetch metadata"))?;
            let found = md
                .topics()
                .iter()
                .find(|t| t.name() == topic && t.error().is_none())
                .map(|t| t.partitions().len())
                .filter(|n| *n > 0);
            match found {
                Some(n) => break n,
                None if started.elapsed() < TOPIC_APPEARS_TIMEOUT => {
                    std::thread::sleep(Duration::from_millis(100));
                }
                None => {
                    return Err(KafkaClientError::Topic {
                        topic: topic.to_owned(),
                        message: "does not exist or has no partitions".to_owned(),
                    })
                }
            }
        };
        let partitions = i32::try_from(partitions).unwrap_or(i32::MAX);
        let mut assignment = TopicPartitionList::new();
        for p in 0..partitions {
            assignment
                .add_partition_offset(topic, p, Offset::Beginning)
                .map_err(KafkaClientError::op("assign"))?;
        }
        reader
            .assign(&assignment)
            .map_err(KafkaClientError::op("assign"))?;

        let mut producer_config = producer.clone();
        producer_config
            .set("acks", "all")
            .set("max.in.flight.requests.per.connection", "1")
            .set("enable.idempotence", "false");
        let producer = LogProducer::new(&producer_config, topic)?;

        let (positions_tx, positions) =
            watch::channel(vec![0; usize::try_from(partitions).unwrap_or(0)]);
        let stop = Arc::new(AtomicBool::new(false));
        let reader_stop = stop.clone();
        let thread_topic = topic.to_owned();
        let reader = std::thread::Builder::new()
            .name(format!("log-{topic}"))
            .spawn(move || {
                while !reader_stop.load(Ordering::Acquire) {
                    match reader.poll(POLL_INTERVAL) {
                        // Transaction markers (and aborted records, for a read_committed reader)
                        // are never handed out, yet the end offsets count them: the consumer's
                        // own position moves past them, so take it whenever the topic is idle.
                        None => {
                            if let Ok(list) = reader.position() {
                                positions_tx.send_if_modified(|positions| {
                                    let mut moved = false;
                                    for e in list.elements() {
                                        let slot = usize::try_from(e.partition())
                                            .ok()
                                            .and_then(|p| positions.get_mut(p));
                                        if let (Some(slot), Some(at)) = (slot, e.offset().to_raw())
                                        {
                                            if at > *slot {
                                                *slot = at;
                                                moved = true;
                                            }
                                        }
                                    }
                                    moved
                                });
                            }
                        }
                        Some(Ok(message)) => {
                            let record = LogRecord {
                                partition: message.partition(),
                                offset: message.offset(),
                                key: message.key().map(<[u8]>::to_vec),
                                value: message.payload().map(<[u8]>::to_vec),
                            };
                            let (partition, next) = (record.partition, record.offset + 1);
                            sink(record);
                            positions_tx.send_modify(|positions| {
                                if let Some(p) = usize::try_from(partition)
                                    .ok()
                                    .and_then(|p| positions.get_mut(p))
                                {
                                    *p = next;
                                }
                            });
                        }
                        Some(Err(error)) => {
                            tracing::warn!(topic = %thread_topic, %error, "Error reading topic");
                        }
                    }
                }
            })
            .map_err(|e| KafkaClientError::Topic {
                topic: topic.to_owned(),
                message: format!("could not start the reader thread: {e}"),
            })?;

        Ok(TopicLog {
            topic: topic.to_owned(),
            partitions,
            producer,
            positions,
            meta: Arc::new(meta),
            stop,
            reader: Some(reader),
        })
    }

    pub fn topic(&self) -> &str {
        &self.topic
    }

    pub fn partitions(&self) -> i32 {
        self.partitions
    }

    /// Waits until every record that was in the topic when called has reached the callback.
    pub async fn read_to_end(&self, timeout: Duration) -> Result<(), KafkaClientError> {
        let meta = self.meta.clone();
        let topic = self.topic.clone();
        let partitions = self.partitions;
        let ends = tokio::task::spawn_blocking(move || {
            // A topic created a moment ago may not have partition leaders yet: retry until the
            // deadline rather than failing start-up.
            let deadline = std::time::Instant::now() + timeout;
            loop {
                let ends = (0..partitions)
                    .map(|p| {
                        meta.fetch_watermarks(&topic, p, timeout)
                            .map_err(KafkaClientError::op("fetch end offsets"))
                    })
                    .collect::<Result<Vec<(i64, i64)>, _>>();
                match ends {
                    Err(e) if std::time::Instant::now() < deadline => {
                        tracing::debug!(%topic, error = %e, "End offsets not available yet; retrying");
                        std::thread::sleep(Duration::from_millis(200));
                    }
                    other => return other,
                }
            }
        })
        .await
        .map_err(|e| KafkaClientError::Topic {
            topic: self.topic.clone(),
            message: format!("end offset query failed: {e}"),
        })??;
        let mut positions = self.positions.clone();
        let reached = |positions: &Vec<i64>| {
            ends.iter()
                .zip(positions.iter())
                .all(|((low, high), pos)| pos >= high || low >= high)
        };
        tokio::time::timeout(timeout, positions.wait_for(reached))
            .await
            .map_err(|_| KafkaClientError::Timeout {
                operation: "read to end of topic",
                timeout_ms: u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX),
            })?
            .map_err(|_| KafkaClientError::Topic {
                topic: self.topic.clone(),
                message: "the reader has stopped".to_owned(),
            })?;
        Ok(())
    }

    /// Writes one record (partitioned by key as Java's default partitioner does) and waits for
    /// the broker's acknowledgement.
    pub async fn send(&self, key: &[u8], value: Option<&[u8]>) -> Result<(), KafkaClientError> {
        self.producer
            .send(&self.topic, key, value)
            .await
            .map_err(|cause| KafkaClientError::Operation {
                operation: "write to internal topic",
                cause,
            })
    }

    /// Queues one record without waiting for it (status writes, which Java sends the same way).
    pub fn send_detached(&self, key: &[u8], value: Option<&[u8]>) {
        if let Err(error) = self.producer.send_detached(&self.topic, key, value) {
            tracing::warn!(topic = %self.topic, %error, "Could not queue a write");
        }
    }

    /// Whether the writer has nothing in flight and its poller sleeps until the next write.
    pub fn writer_idle(&self) -> bool {
        self.producer.idle()
    }

    /// Waits for every write in flight (stop paths call it before leaving the group).
    pub fn flush(&self, timeout: Duration) {
        if let Err(error) = self.producer.flush(timeout) {
            tracing::warn!(topic = %self.topic, %error, "Could not flush writes");
        }
    }

    pub fn stop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
    }
}

impl Drop for TopicLog {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
    }
}
