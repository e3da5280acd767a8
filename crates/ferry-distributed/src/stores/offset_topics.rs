//! Source connectors' own offsets topics (`offsets.storage.topic`): created with the worker's
//! offsets-topic settings when missing, as Java creates them, and read by one store per topic
//! that every connector naming it shares.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use ferry_kafka::admin::Admin;
use ferry_kafka::client_properties::ClientRole;
use ferry_runtime::config::connector::OFFSETS_STORAGE_TOPIC;
use ferry_runtime::config::worker::WorkerConfig;
use ferry_runtime::storage::connector_offsets::OffsetTopics;
use ferry_runtime::storage::offsets::{OffsetBackingStore, OffsetStoreError};
use tokio::sync::Mutex;

use crate::config::TopicSettings;
use crate::stores::clients::internal_client;
use crate::stores::topics::ensure_topic;
use crate::stores::KafkaOffsetStore;

pub struct ConnectorOffsetTopics {
    worker: WorkerConfig,
    /// The worker's offsets topic: its name, and the settings new topics are created with.
    template: TopicSettings,
    client_id_base: String,
    read_timeout: Duration,
    open: Mutex<HashMap<String, Arc<KafkaOffsetStore>>>,
}

impl ConnectorOffsetTopics {
    pub fn new(
        worker: WorkerConfig,
        template: TopicSettings,
        client_id_base: String,
        read_timeout: Duration,
    ) -> Self {
        ConnectorOffsetTopics {
            worker,
            template,
            client_id_base,
            read_timeout,
            open: Mutex::default(),
        }
    }
}

#[async_trait]
impl OffsetTopics for ConnectorOffsetTopics {
    async fn open(&self, topic: &str) -> Result<Arc<dyn OffsetBackingStore>, OffsetStoreError> {
        let failed = |e: &dyn std::fmt::Display| OffsetStoreError::Load {
            path: topic.to_owned(),
            message: e.to_string(),
        };
        let mut open = self.open.lock().await;
        if let Some(store) = open.get(topic) {
            return Ok(store.clone());
        }
        let client = |role| {
            internal_client(
                &self.worker,
                role,
                &format!("{}offsets-{topic}", self.client_id_base),
            )
            .map_err(|e| failed(&e))
        };
        let admin = Admin::new(&client(ClientRole::Admin)?).map_err(|e| failed(&e))?;
        let settings = TopicSettings {
            name: topic.to_owned(),
            ..self.template.clone()
        };
        ensure_topic(&admin, &settings, OFFSETS_STORAGE_TOPIC)
            .await
            .map_err(|e| failed(&e))?;
        let store = Arc::new(
            KafkaOffsetStore::start(
                topic,
                &client(ClientRole::Consumer)?,
                &client(ClientRole::Producer)?,
                self.read_timeout,
            )
            .await
            .map_err(|e| failed(&e))?,
        );
        tracing::info!(%topic, "Opened a connector's offsets topic");
        open.insert(topic.to_owned(), store.clone());
        Ok(store)
    }

    fn worker_topic(&self) -> &str {
        &self.template.name
    }
}
