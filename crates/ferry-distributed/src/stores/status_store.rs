//! Statuses in the status topic (Java's `KafkaStatusBackingStore`). Writes go to the topic and
//! come back through the reader, which keeps the cache the REST status endpoints read; FAILED
//! and UNASSIGNED are written only when no newer owner has written since (`putSafe`).

use std::sync::atomic::{AtomicI32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ferry_kafka::rdkafka::ClientConfig;
use ferry_kafka::topic_log::LogRecord;
use ferry_runtime::status::{State, Status, StatusStore, TaskId, TopicStatus};

use crate::status_topic::cache::StatusCache;
use crate::status_topic::records::{StatusKey, StatusRecord};
use crate::stores::log::{kafka_log, InternalLog, LogOpener};
use crate::stores::StoreError;

pub struct KafkaStatusStore {
    log: Box<dyn InternalLog>,
    cache: Arc<Mutex<StatusCache>>,
    worker_id: String,
    /// The group generation this worker last joined; stamped on every status it writes.
    generation: AtomicI32,
    topic_resets: Arc<AtomicU64>,
}

fn lock(cache: &Mutex<StatusCache>) -> std::sync::MutexGuard<'_, StatusCache> {
    cache.lock().unwrap_or_else(|p| p.into_inner())
}

impl KafkaStatusStore {
    pub async fn start(
        topic: &str,
        consumer: &ClientConfig,
        producer: &ClientConfig,
        worker_id: String,
        timeout: Duration,
    ) -> Result<Self, StoreError> {
        Self::start_on(kafka_log(topic, consumer, producer), worker_id, timeout).await
    }

    /// The same on any topic log (one in memory in the herder's tests).
    pub(crate) async fn start_on(
        open: LogOpener,
        worker_id: String,
        timeout: Duration,
    ) -> Result<Self, StoreError> {
        let cache: Arc<Mutex<StatusCache>> = Arc::default();
        let topic_resets: Arc<AtomicU64> = Arc::default();
        let (sink_cache, sink_resets) = (cache.clone(), topic_resets.clone());
        let log = open(Box::new(move |record: LogRecord| {
            let Some(key) = record
                .key
                .as_deref()
                .and_then(|k| std::str::from_utf8(k).ok())
            else {
                return;
            };
            match StatusRecord::parse(key, record.value.as_deref()) {
                Ok(Some(parsed)) => {
                    if matches!(parsed, StatusRecord::Topic { status: None, .. }) {
                        // Tasks recording topics forget what they recorded, so a reset
                        // made on any worker is followed by fresh records.
                        sink_resets.fetch_add(1, Ordering::Release);
                    }
                    lock(&sink_cache).apply(parsed);
                }
                Ok(None) => {}
                Err(error) => {
                    tracing::warn!(%key, %error, "Skipping a status record that cannot be read")
                }
            }
        }))?;
        log.read_to_end(timeout).await?;
        Ok(KafkaStatusStore {
            log,
            cache,
            worker_id,
            generation: AtomicI32::new(0),
            topic_resets,
        })
    }

    pub fn set_generation(&self, generation: i32) {
        self.generation.store(generation, Ordering::Release);
    }

    /// Waits for every status write in flight (before a rebalance hands work to others).
    pub fn flush(&self) {
        self.log.flush(Duration::from_secs(30));
    }

    pub fn stop(&mut self) {
        self.flush();
        self.log.stop();
    }

    /// Every connector with a cached status (the leader's clean-up of deleted connectors).
    pub fn connectors(&self) -> Vec<String> {
        lock(&self.cache).connectors()
    }

    fn write(&self, record: StatusRecord) {
        let (key, value) = record.encode();
        self.log.send_detached(key.as_bytes(), value.as_deref());
    }

    fn stamped(&self, mut status: Status) -> Status {
        status.generation = self.generation.load(Ordering::Acquire);
        status
    }

    /// Java writes UNASSIGNED and FAILED conditionally, so a worker that lost the instance
    /// cannot overwrite the state its new owner reported.
    fn allowed(&self, key: &StatusKey, status: &Status) -> bool {
        !matches!(status.state, State::Unassigned | State::Failed)
            || lock(&self.cache).may_put_safe(key, status, &self.worker_id)
    }
}

impl StatusStore for KafkaStatusStore {
    fn put_connector(&self, connector: &str, status: Status) {
        let status = self.stamped(status);
        if self.allowed(&StatusKey::Connector(connector.to_owned()), &status) {
            self.write(StatusRecord::connector(connector, status, None));
        }
    }

    fn put_task(&self, id: &TaskId, status: Status) {
        let status = self.stamped(status);
        if self.allowed(&StatusKey::Task(id.clone()), &status) {
            self.write(StatusRecord::task(id.clone(), status, None));
        }
    }

    fn connector(&self, connector: &str) -> Option<Status> {
        lock(&self.cache)
            .connector(connector)
            .map(|v| v.status.clone())
    }

    fn tasks(&self, connector: &str) -> Vec<(usize, Status)> {
        lock(&self.cache)
            .tasks(connector)
            .into_iter()
            .map(|(i, v)| (i, v.status.clone()))
            .collect()
    }

    fn task(&self, id: &TaskId) -> Option<Status> {
        lock(&self.cache).task(id).map(|v| v.status.clone())
    }

    fn remove_connector(&self, connector: &str) {
        for (task, _) in self.tasks(connector) {
            self.remove_task(&TaskId {
                connector: connector.to_owned(),
                task,
            });
        }
        self.write(StatusRecord::Connector {
            connector: connector.to_owned(),
            status: None,
        });
    }

    fn remove_task(&self, id: &TaskId) {
        self.write(StatusRecord::Task {
            id: id.clone(),
            status: None,
        });
    }

    fn put_topic(&self, status: TopicStatus) {
        let known = lock(&self.cache)
            .topic(&status.connector, &status.topic)
            .is_some();
        if !known {
            self.write(StatusRecord::topic(status));
        }
    }

    fn topics(&self, connector: &str) -> Vec<TopicStatus> {
        lock(&self.cache)
            .topics(connector)
            .into_iter()
            .cloned()
            .collect()
    }

    fn reset_topics(&self, connector: &str) {
        for topic in self.topics(connector) {
            let reset = StatusRecord::topic_reset(topic.topic, connector);
            self.write(reset.clone());
            // This worker's answers show its own reset at once, not only once the reader has
            // the tombstone back (a GET right after the 202 still listed the topics).
            lock(&self.cache).apply(reset);
        }
        self.topic_resets.fetch_add(1, Ordering::Release);
    }

    fn topic_resets(&self) -> u64 {
        self.topic_resets.load(Ordering::Acquire)
    }
}
