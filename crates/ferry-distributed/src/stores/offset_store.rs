//! Source offsets in the offsets topic (Java's `KafkaOffsetBackingStore`): raw key bytes to raw
//! value bytes, with a read to the end before every lookup.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use ferry_kafka::rdkafka::ClientConfig;
use ferry_kafka::topic_log::LogRecord;
use ferry_runtime::storage::offsets::{OffsetBackingStore, OffsetStoreError};

use crate::stores::log::{kafka_log, InternalLog, LogOpener};
use crate::stores::StoreError;

type OffsetMapBytes = HashMap<Vec<u8>, Vec<u8>>;

pub struct KafkaOffsetStore {
    log: Box<dyn InternalLog>,
    data: Arc<Mutex<OffsetMapBytes>>,
    timeout: Duration,
}

fn lock(data: &Mutex<OffsetMapBytes>) -> std::sync::MutexGuard<'_, OffsetMapBytes> {
    data.lock().unwrap_or_else(|p| p.into_inner())
}

impl KafkaOffsetStore {
    /// Starts reading the topic and waits until everything in it has been read.
    pub async fn start(
        topic: &str,
        consumer: &ClientConfig,
        producer: &ClientConfig,
        timeout: Duration,
    ) -> Result<Self, StoreError> {
        Self::start_on(kafka_log(topic, consumer, producer), timeout).await
    }

    /// The same on any topic log (one in memory in the herder's tests).
    pub(crate) async fn start_on(open: LogOpener, timeout: Duration) -> Result<Self, StoreError> {
        let data: Arc<Mutex<OffsetMapBytes>> = Arc::default();
        let sink_data = data.clone();
        let log = open(Box::new(move |record: LogRecord| {
            let Some(key) = record.key else { return };
            let mut data = lock(&sink_data);
            match record.value {
                Some(value) => data.insert(key, value),
                None => data.remove(&key),
            };
        }))?;
        log.read_to_end(timeout).await?;
        Ok(KafkaOffsetStore { log, data, timeout })
    }

    fn read_error(&self, e: ferry_kafka::KafkaClientError) -> OffsetStoreError {
        OffsetStoreError::Load {
            path: self.log.topic().to_owned(),
            message: e.to_string(),
        }
    }

    pub fn stop(&mut self) {
        self.log.flush(self.timeout);
        self.log.stop();
    }
}

#[async_trait]
impl OffsetBackingStore for KafkaOffsetStore {
    async fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, OffsetStoreError> {
        self.log
            .read_to_end(self.timeout)
            .await
            .map_err(|e| self.read_error(e))?;
        Ok(lock(&self.data).get(key).cloned())
    }

    async fn set(&self, entries: Vec<(Vec<u8>, Option<Vec<u8>>)>) -> Result<(), OffsetStoreError> {
        let sends = entries.iter().map(|(k, v)| self.log.send(k, v.as_deref()));
        for result in futures::future::join_all(sends).await {
            result.map_err(|e| OffsetStoreError::Data(format!("could not write offsets: {e}")))?;
        }
        Ok(())
    }

    async fn all(&self) -> Result<Vec<(Vec<u8>, Vec<u8>)>, OffsetStoreError> {
        self.log
            .read_to_end(self.timeout)
            .await
            .map_err(|e| self.read_error(e))?;
        Ok(lock(&self.data)
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect())
    }
}
