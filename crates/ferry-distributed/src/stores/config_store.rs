//! Connector configs, task configs, target states, restart requests and session keys in the
//! config topic (Java's `KafkaConfigBackingStore`). The reader feeds the state machine and
//! passes its events to the herder; only the leader writes privileged records.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use ferry_api::ConfigMap;
use ferry_kafka::rdkafka::ClientConfig;
use ferry_kafka::topic_log::LogRecord;
use ferry_runtime::worker::TargetState;
use tokio::sync::mpsc;

use crate::config_topic::records::{ConfigRecord, ConnectorRestart, SessionKey};
use crate::config_topic::state::{ClusterConfigSnapshot, ConfigEvent, ConfigState};
use crate::stores::leader_writer::LeaderWriter;
use crate::stores::log::{kafka_log, InternalLog, LogOpener};
use crate::stores::StoreError;
use ferry_runtime::herder::RestartRequest;
use ferry_runtime::status::TaskId;

/// Java's budget for a privileged write and the read that follows it.
const READ_WRITE_TIMEOUT: Duration = Duration::from_secs(30);

pub struct KafkaConfigStore {
    log: Box<dyn InternalLog>,
    state: Arc<Mutex<ConfigState>>,
    /// With `exactly.once.source.support` preparing or enabled, the leader's privileged
    /// records go through its transactional producer.
    leader_writer: Option<LeaderWriter>,
}

fn lock(state: &Mutex<ConfigState>) -> std::sync::MutexGuard<'_, ConfigState> {
    state.lock().unwrap_or_else(|p| p.into_inner())
}

impl KafkaConfigStore {
    /// Reads the whole topic, then starts reporting changes through the returned channel.
    pub async fn start(
        topic: &str,
        consumer: &ClientConfig,
        producer: &ClientConfig,
        timeout: Duration,
    ) -> Result<(Self, mpsc::UnboundedReceiver<ConfigEvent>), StoreError> {
        Self::start_on(kafka_log(topic, consumer, producer), timeout).await
    }

    /// The same on any topic log (one in memory in the herder's tests).
    pub(crate) async fn start_on(
        open: LogOpener,
        timeout: Duration,
    ) -> Result<(Self, mpsc::UnboundedReceiver<ConfigEvent>), StoreError> {
        let state: Arc<Mutex<ConfigState>> = Arc::default();
        let (events_tx, events) = mpsc::unbounded_channel();
        let sink_state = state.clone();
        let log = open(Box::new(move |record: LogRecord| {
            let Some(key) = record
                .key
                .as_deref()
                .and_then(|k| std::str::from_utf8(k).ok())
            else {
                tracing::warn!(
                    offset = record.offset,
                    "Skipping a config record without a string key"
                );
                return;
            };
            match ConfigRecord::parse(key, record.value.as_deref()) {
                Ok(Some(parsed)) => {
                    let events = lock(&sink_state).apply(record.offset, parsed);
                    for event in events {
                        let _ = events_tx.send(event);
                    }
                }
                Ok(None) => {}
                Err(error) => {
                    tracing::error!(%key, %error, "Skipping a config record that cannot be read");
                }
            }
        }))?;
        if log.partitions() != 1 {
            return Err(StoreError::Config(format!(
                "Topic '{}' supplied via the 'config.storage.topic' property is required to have a single partition in order to guarantee consistency of connector configurations, but it has {} partitions.",
                log.topic(),
                log.partitions()
            )));
        }
        log.read_to_end(timeout).await?;
        lock(&state).mark_started();
        Ok((
            KafkaConfigStore {
                log,
                state,
                leader_writer: None,
            },
            events,
        ))
    }

    /// Privileged records (everything but target states and logger levels) go through the
    /// leader's transactional producer, which `claim_write_privileges` must have registered.
    pub fn with_leader_writer(mut self, writer: LeaderWriter) -> Self {
        self.leader_writer = Some(writer);
        self
    }

    /// On becoming the leader: fences out earlier leaders' writes (no-op without the writer).
    pub async fn claim_write_privileges(&self) -> Result<(), StoreError> {
        match &self.leader_writer {
            Some(writer) => writer.claim().await,
            None => Ok(()),
        }
    }

    pub async fn relinquish_write_privileges(&self) {
        if let Some(writer) = &self.leader_writer {
            writer.relinquish().await;
        }
    }

    /// Resolves when a privileged write failed (never without the writer).
    pub async fn fenced(&self) {
        match &self.leader_writer {
            Some(writer) => writer.fenced().await,
            None => std::future::pending().await,
        }
    }

    pub fn snapshot(&self) -> ClusterConfigSnapshot {
        lock(&self.state).snapshot()
    }

    pub async fn read_to_end(&self, timeout: Duration) -> Result<(), StoreError> {
        Ok(self.log.read_to_end(timeout).await?)
    }

    async fn write_all(&self, records: Vec<ConfigRecord>) -> Result<(), StoreError> {
        for record in records {
            let (key, value) = record.encode();
            self.log.send(key.as_bytes(), value.as_deref()).await?;
        }
        Ok(())
    }

    /// A leader's write: in one transaction with the leader writer, plain otherwise; then
    /// read back.
    async fn write_privileged(&self, records: Vec<ConfigRecord>) -> Result<(), StoreError> {
        match &self.leader_writer {
            Some(writer) => {
                let encoded: Vec<(String, Option<Vec<u8>>)> =
                    records.iter().map(ConfigRecord::encode).collect();
                writer.send(&encoded).await?;
            }
            None => self.write_all(records).await?,
        }
        self.read_to_end(READ_WRITE_TIMEOUT).await
    }

    /// Creates or replaces a connector; a new one may get its initial target state first.
    pub async fn put_connector_config(
        &self,
        name: &str,
        config: ConfigMap,
        initial: Option<TargetState>,
    ) -> Result<(), StoreError> {
        let mut records = Vec::new();
        if let Some(state) = initial {
            records.push(ConfigRecord::TargetState {
                connector: name.to_owned(),
                state: Some(state),
            });
        }
        records.push(ConfigRecord::connector_config(name, &config));
        self.write_privileged(records).await
    }

    pub async fn remove_connector(&self, name: &str) -> Result<(), StoreError> {
        self.write_privileged(vec![
            ConfigRecord::ConnectorConfig {
                connector: name.to_owned(),
                config: None,
            },
            ConfigRecord::TargetState {
                connector: name.to_owned(),
                state: None,
            },
        ])
        .await
    }

    /// The task configs of a connector, then the commit record that makes them take effect.
    pub async fn put_task_configs(
        &self,
        name: &str,
        configs: Vec<ConfigMap>,
    ) -> Result<(), StoreError> {
        self.read_to_end(READ_WRITE_TIMEOUT).await?;
        let count = configs.len();
        let tasks: Vec<ConfigRecord> = configs
            .into_iter()
            .enumerate()
            .map(|(task, config)| {
                ConfigRecord::task_config(
                    TaskId {
                        connector: name.to_owned(),
                        task,
                    },
                    &config,
                )
            })
            .collect();
        if !tasks.is_empty() {
            self.write_privileged(tasks).await?;
        }
        self.write_privileged(vec![ConfigRecord::Commit {
            connector: name.to_owned(),
            tasks: count,
        }])
        .await
    }

    /// Any worker may write target states; no read-back, as in Java.
    pub async fn put_target_state(&self, name: &str, state: TargetState) -> Result<(), StoreError> {
        self.write_all(vec![ConfigRecord::TargetState {
            connector: name.to_owned(),
            state: Some(state),
        }])
        .await
    }

    pub async fn put_restart_request(
        &self,
        name: &str,
        include_tasks: bool,
        only_failed: bool,
    ) -> Result<(), StoreError> {
        self.write_privileged(vec![ConfigRecord::RestartRequest(ConnectorRestart::new(
            name,
            RestartRequest {
                include_tasks,
                only_failed,
            },
        ))])
        .await
    }

    /// KIP-976: a cluster-wide logger level, which every worker applies as it reads it.
    pub async fn put_logger_level(&self, namespace: &str, level: &str) -> Result<(), StoreError> {
        self.write_all(vec![ConfigRecord::LoggerLevel {
            namespace: namespace.to_owned(),
            level: level.to_owned(),
        }])
        .await
    }

    /// The cluster-wide logger levels read so far.
    pub fn logger_levels(&self) -> std::collections::BTreeMap<String, String> {
        lock(&self.state).logger_levels().clone()
    }

    /// KIP-618: the connector's current task count, once its earlier generations are fenced
    /// out (leader only).
    pub async fn put_task_count(&self, name: &str, task_count: usize) -> Result<(), StoreError> {
        self.write_privileged(vec![ConfigRecord::TaskCount {
            connector: name.to_owned(),
            task_count,
        }])
        .await
    }

    pub async fn put_session_key(&self, key: SessionKey) -> Result<(), StoreError> {
        self.write_privileged(vec![ConfigRecord::SessionKey(key)])
            .await
    }

    pub fn stop(&mut self) {
        self.log.flush(READ_WRITE_TIMEOUT);
        self.log.stop();
    }
}
