//! A topic in memory that several stores (several workers' stores) can share: every record
//! written reaches every reader's sink before the write returns, in the order written.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use ferry_kafka::topic_log::{LogRecord, RecordSink};
use ferry_kafka::KafkaClientError;

use crate::stores::log::{InternalLog, LogOpener};

#[derive(Default)]
struct Inner {
    records: Vec<LogRecord>,
    readers: Vec<RecordSink>,
}

/// One topic of a single partition.
pub struct MemoryTopic {
    name: String,
    inner: Mutex<Inner>,
}

impl MemoryTopic {
    pub fn new(name: &str) -> Arc<Self> {
        Arc::new(MemoryTopic {
            name: name.to_owned(),
            inner: Mutex::default(),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// An opener for a store: the reader gets what the topic holds, then every later write.
    pub fn opener(self: &Arc<Self>) -> LogOpener {
        let topic = self.clone();
        Box::new(move |mut sink: RecordSink| {
            let mut inner = topic.lock();
            for record in &inner.records {
                sink(record.clone());
            }
            inner.readers.push(sink);
            drop(inner);
            let log: Box<dyn InternalLog> = Box::new(MemoryLog { topic });
            Ok(log)
        })
    }

    /// Writes a record as any client of the topic would (another worker, a test).
    pub fn append(&self, key: &[u8], value: Option<&[u8]>) {
        let mut inner = self.lock();
        let record = LogRecord {
            partition: 0,
            offset: i64::try_from(inner.records.len()).unwrap_or(i64::MAX),
            key: Some(key.to_vec()),
            value: value.map(<[u8]>::to_vec),
        };
        inner.records.push(record.clone());
        for reader in &mut inner.readers {
            reader(record.clone());
        }
    }

    /// Everything written so far, in order.
    pub fn records(&self) -> Vec<LogRecord> {
        self.lock().records.clone()
    }
}

struct MemoryLog {
    topic: Arc<MemoryTopic>,
}

#[async_trait]
impl InternalLog for MemoryLog {
    fn topic(&self) -> &str {
        &self.topic.name
    }

    fn partitions(&self) -> i32 {
        1
    }

    async fn read_to_end(&self, _timeout: Duration) -> Result<(), KafkaClientError> {
        Ok(())
    }

    async fn send(&self, key: &[u8], value: Option<&[u8]>) -> Result<(), KafkaClientError> {
        self.topic.append(key, value);
        Ok(())
    }

    fn send_detached(&self, key: &[u8], value: Option<&[u8]>) {
        self.topic.append(key, value);
    }

    fn flush(&self, _timeout: Duration) {}

    fn stop(&mut self) {}
}
