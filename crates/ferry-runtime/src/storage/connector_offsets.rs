//! A source connector's own offsets topic (`offsets.storage.topic`, distributed mode), combined
//! with the worker's as Java's `ConnectorOffsetBackingStore` does: reads prefer the connector's
//! topic and fall back to the worker's (so a connector moved to its own topic keeps its
//! offsets); writes go to the connector's topic, then to the worker's.

use std::sync::Arc;

use async_trait::async_trait;
use tokio::sync::OnceCell;

use super::offsets::{OffsetBackingStore, OffsetStoreError};

/// Opens the stores of connectors' own offsets topics (distributed mode only).
#[async_trait]
pub trait OffsetTopics: Send + Sync {
    /// The store of `topic`, created with the worker's offsets-topic settings when it does not
    /// exist; one per topic, shared by every connector that names it.
    async fn open(&self, topic: &str) -> Result<Arc<dyn OffsetBackingStore>, OffsetStoreError>;
    /// The worker's own offsets topic: a connector naming it has no topic of its own.
    fn worker_topic(&self) -> &str;
}

pub struct ConnectorOffsetStore {
    topic: String,
    topics: Arc<dyn OffsetTopics>,
    /// Opened on first use, so starting a connector or task does not wait for the topic.
    connector: OnceCell<Arc<dyn OffsetBackingStore>>,
    worker: Arc<dyn OffsetBackingStore>,
}

impl ConnectorOffsetStore {
    pub fn new(
        topic: &str,
        topics: Arc<dyn OffsetTopics>,
        worker: Arc<dyn OffsetBackingStore>,
    ) -> Self {
        ConnectorOffsetStore {
            topic: topic.to_owned(),
            topics,
            connector: OnceCell::new(),
            worker,
        }
    }

    async fn connector(&self) -> Result<&Arc<dyn OffsetBackingStore>, OffsetStoreError> {
        self.connector
            .get_or_try_init(|| self.topics.open(&self.topic))
            .await
    }
}

#[async_trait]
impl OffsetBackingStore for ConnectorOffsetStore {
    async fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, OffsetStoreError> {
        match self.connector().await?.get(key).await? {
            Some(value) => Ok(Some(value)),
            None => self.worker.get(key).await,
        }
    }

    /// Tombstones reach the worker's topic first, so a removed offset cannot come back from
    /// there; the copy of the rest in the worker's topic is best-effort, as in Java.
    async fn set(&self, entries: Vec<(Vec<u8>, Option<Vec<u8>>)>) -> Result<(), OffsetStoreError> {
        let tombstones: Vec<_> = entries
            .iter()
            .filter(|(_, v)| v.is_none())
            .cloned()
            .collect();
        if !tombstones.is_empty() {
            self.worker.set(tombstones).await?;
        }
        self.connector().await?.set(entries.clone()).await?;
        if let Err(error) = self.worker.set(entries).await {
            tracing::warn!(%error, topic = %self.topic, "Failed to write offsets to the worker's offsets topic as well");
        }
        Ok(())
    }

    async fn open(&self) -> Result<(), OffsetStoreError> {
        self.connector().await.map(|_| ())
    }

    async fn all(&self) -> Result<Vec<(Vec<u8>, Vec<u8>)>, OffsetStoreError> {
        let mut all = self.worker.all().await?;
        for (key, value) in self.connector().await?.all().await? {
            match all.iter_mut().find(|(k, _)| *k == key) {
                Some(entry) => entry.1 = value,
                None => all.push((key, value)),
            }
        }
        Ok(all)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::worker::fakes::MemoryOffsetStore as Memory;

    struct OneTopic(Arc<Memory>);

    #[async_trait]
    impl OffsetTopics for OneTopic {
        async fn open(&self, _: &str) -> Result<Arc<dyn OffsetBackingStore>, OffsetStoreError> {
            Ok(self.0.clone())
        }

        fn worker_topic(&self) -> &str {
            "connect-offsets"
        }
    }

    fn entry(k: &str, v: Option<&str>) -> (Vec<u8>, Option<Vec<u8>>) {
        (k.as_bytes().to_vec(), v.map(|v| v.as_bytes().to_vec()))
    }

    #[tokio::test]
    async fn reads_prefer_the_connector_s_topic_and_writes_reach_both() {
        let (own, worker) = (Arc::new(Memory::default()), Arc::new(Memory::default()));
        worker
            .set(vec![entry("a", Some("old-a")), entry("b", Some("old-b"))])
            .await
            .unwrap();
        let store =
            ConnectorOffsetStore::new("own", Arc::new(OneTopic(own.clone())), worker.clone());
        assert_eq!(
            store.get(b"a").await.unwrap(),
            Some(b"old-a".to_vec()),
            "falls back"
        );

        store.set(vec![entry("a", Some("new-a"))]).await.unwrap();
        assert_eq!(store.get(b"a").await.unwrap(), Some(b"new-a".to_vec()));
        assert_eq!(own.get(b"a").await.unwrap(), Some(b"new-a".to_vec()));
        assert_eq!(
            worker.get(b"a").await.unwrap(),
            Some(b"new-a".to_vec()),
            "copied"
        );

        store.set(vec![entry("b", None)]).await.unwrap();
        assert_eq!(
            store.get(b"b").await.unwrap(),
            None,
            "removed from both topics"
        );
        let mut all = store.all().await.unwrap();
        all.sort();
        assert_eq!(all, [(b"a".to_vec(), b"new-a".to_vec())]);
    }
}
