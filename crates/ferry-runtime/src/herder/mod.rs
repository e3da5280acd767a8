//! The boundary between REST and coordination: REST only sees `dyn Herder`.

mod alias_validation;
pub mod core;
mod exactly_once_validation;
mod offsets;
mod standalone;
mod standalone_core;
mod standalone_fetch;
pub mod status_view;
mod validation;

use async_trait::async_trait;
use ferry_api::ConfigMap;

pub use offsets::{
    alter as alter_offsets, read as read_offsets, reset as reset_offsets, ConnectorOffset,
};
pub use standalone::StandaloneHerder;
pub use validation::{config_infos, off_runtime, validate_connector_config, ConfigInfos};

use std::sync::Arc;

use crate::plugins::{PluginKind, Registry};
use crate::status::{State, TaskId};
use crate::worker::TargetState;

/// A connector's config and tasks (`GET /connectors/{c}`).
#[derive(Debug, Clone, PartialEq)]
pub struct ConnectorInfo {
    pub name: String,
    pub config: ConfigMap,
    pub tasks: Vec<TaskId>,
    pub kind: Option<PluginKind>,
}

/// One instance's reported state.
#[derive(Debug, Clone, PartialEq)]
pub struct StateInfo {
    pub state: State,
    pub trace: Option<String>,
    pub worker_id: String,
}

/// `GET /connectors/{c}/status`.
#[derive(Debug, Clone, PartialEq)]
pub struct ConnectorStateInfo {
    pub name: String,
    pub connector: StateInfo,
    pub tasks: Vec<(usize, StateInfo)>,
    pub kind: Option<PluginKind>,
}

/// Why a herder refused a request; REST maps each to Connect's status code.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum HerderError {
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    AlreadyExists(String),
    #[error("{0}")]
    BadRequest(String),
    #[error("{0}")]
    Conflict(String),
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    Internal(String),
    /// The request must run on the group leader; REST forwards it there (`None`: no leader is
    /// known, as during a rebalance).
    #[error("Request cannot be completed because this worker is not the leader")]
    NotLeader { leader_url: Option<String> },
    /// The request must run on the worker that owns the connector or task.
    #[error("Request cannot be completed because this worker does not own the connector or task")]
    NotAssigned { owner_url: Option<String> },
    /// The request must wait for a rebalance (Java's 503 for a worker still joining the group).
    #[error("{0}")]
    Unavailable(String),
}

/// An internal request's signature headers and the exact body they sign (KIP-507).
#[derive(Debug, Clone, Default)]
pub struct InternalRequest {
    /// `X-Connect-Authorization`.
    pub signature: Option<String>,
    /// `X-Connect-Request-Signature-Algorithm`.
    pub algorithm: Option<String>,
    pub body: Vec<u8>,
}

/// Whether a config write created the connector or replaced it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Written {
    Created,
    Updated,
}

/// A connector config change: `None` removes the key (PATCH semantics).
pub type ConfigPatch = std::collections::BTreeMap<String, Option<String>>;

/// What KIP-745 restart requests ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RestartRequest {
    pub include_tasks: bool,
    pub only_failed: bool,
}

impl RestartRequest {
    /// The legacy request (connector object only, answered synchronously with 204).
    pub fn is_legacy(&self) -> bool {
        !self.include_tasks && !self.only_failed
    }

    pub fn restarts_connector(&self, state: State) -> bool {
        !self.only_failed || state == State::Failed
    }

    pub fn restarts_task(&self, state: State) -> bool {
        self.include_tasks && (!self.only_failed || state == State::Failed)
    }
}

/// The version of the connector plugin a config names.
pub fn plugin_version_of(registry: &Registry, config: &ConfigMap) -> Option<String> {
    let class = config.get(crate::config::connector::CONNECTOR_CLASS)?;
    Some(registry.connector(class)?.version.to_owned())
}

#[async_trait]
pub trait Herder: Send + Sync {
    async fn connectors(&self) -> Vec<String>;
    async fn connector_info(&self, name: &str) -> Result<ConnectorInfo, HerderError>;
    async fn connector_status(&self, name: &str) -> Result<ConnectorStateInfo, HerderError>;
    async fn task_status(&self, id: &TaskId) -> Result<StateInfo, HerderError>;
    /// Each task's id and config, by index; empty for a STOPPED connector.
    async fn task_configs(&self, name: &str) -> Result<Vec<(TaskId, ConfigMap)>, HerderError>;
    async fn put_connector_config(
        &self,
        name: &str,
        config: ConfigMap,
        allow_replace: bool,
        initial_state: TargetState,
    ) -> Result<(Written, ConnectorInfo), HerderError>;
    async fn patch_connector_config(
        &self,
        name: &str,
        patch: ConfigPatch,
    ) -> Result<ConnectorInfo, HerderError>;
    async fn delete_connector(&self, name: &str) -> Result<(), HerderError>;
    async fn pause_connector(&self, name: &str) -> Result<(), HerderError>;
    async fn resume_connector(&self, name: &str) -> Result<(), HerderError>;
    async fn stop_connector(&self, name: &str) -> Result<(), HerderError>;
    /// The legacy restart: the connector object only.
    async fn restart_connector(&self, name: &str) -> Result<(), HerderError>;
    async fn restart_task(&self, id: &TaskId) -> Result<(), HerderError>;
    /// KIP-745: restarts what the request selects; answers the status with those instances
    /// shown as RESTARTING.
    async fn restart_connector_and_tasks(
        &self,
        name: &str,
        request: RestartRequest,
    ) -> Result<ConnectorStateInfo, HerderError>;
    /// KIP-558: the topics a connector has used.
    async fn connector_topics(&self, name: &str) -> Result<Vec<String>, HerderError>;
    async fn reset_connector_topics(&self, name: &str) -> Result<(), HerderError>;
    /// KIP-875: the connector's offsets (source partitions, or its consumer group's).
    async fn connector_offsets(&self, name: &str) -> Result<Vec<ConnectorOffset>, HerderError>;
    /// Alters offsets of a STOPPED connector; answers the success message.
    async fn alter_connector_offsets(
        &self,
        name: &str,
        offsets: Vec<ConnectorOffset>,
    ) -> Result<String, HerderError>;
    /// Resets every offset of a STOPPED connector; answers the success message.
    async fn reset_connector_offsets(&self, name: &str) -> Result<String, HerderError>;
    /// Task configs sent by the worker running the connector to the leader
    /// (`POST /connectors/{c}/tasks`, an internal endpoint).
    async fn put_task_configs(
        &self,
        _name: &str,
        _configs: Vec<ConfigMap>,
        _request: InternalRequest,
    ) -> Result<(), HerderError> {
        // Java answers 500; asking a standalone worker for what it cannot do is the client's
        // mistake.
        Err(HerderError::BadRequest(
            "Kafka Connect in standalone mode does not support externally setting task configurations."
                .to_owned(),
        ))
    }
    /// `PUT /connectors/{c}/fence` (KIP-618, an internal endpoint): fences out a source
    /// connector's earlier task generations, on the leader.
    async fn fence_zombies(
        &self,
        _name: &str,
        _request: InternalRequest,
    ) -> Result<(), HerderError> {
        // Java answers 500; it is the client's mistake.
        Err(HerderError::BadRequest(
            "Kafka Connect in standalone mode does not support exactly-once source connectors."
                .to_owned(),
        ))
    }
    /// `PUT /admin/loggers/{namespace}?scope=cluster` (KIP-976): `true` when the cluster takes
    /// the level (distributed mode: a config topic record every worker applies); `false` when
    /// this worker alone is the cluster and applies it itself.
    async fn set_cluster_logger_level(
        &self,
        _namespace: &str,
        _level: &str,
    ) -> Result<bool, HerderError> {
        Ok(false)
    }
    /// The version of a connector's plugin, which status answers carry (Java 4.1).
    async fn connector_plugin_version(&self, name: &str) -> Option<String> {
        let info = self.connector_info(name).await.ok()?;
        plugin_version_of(&self.registry(), &info.config)
    }
    /// The plugins this worker offers.
    fn registry(&self) -> Arc<Registry>;
    /// Whether start-up has finished (`GET /health`).
    fn is_ready(&self) -> bool;
    /// Completes once the herder could take a request (KIP-1017): `GET /health` reports the
    /// worker unhealthy when this does not complete in time, as Java queues a no-op request
    /// for its herder thread.
    async fn health_check(&self);
    /// The Kafka cluster this worker belongs to, for `GET /`.
    fn kafka_cluster_id(&self) -> String;
    /// This worker's metrics in the Prometheus text format (`GET /metrics`).
    fn render_metrics(&self) -> String;
}

/// Carries out the worker's automatic restart requests through `herder`, which decides whether
/// the task or connector is still this worker's (one that recovered or moved meanwhile is left
/// alone).
pub fn run_automatic_restarts(herder: Arc<dyn Herder>, worker: Arc<crate::worker::Worker>) {
    use crate::worker::auto_restart::RestartTarget;
    let Some(mut requests) = worker.take_restart_requests() else {
        return;
    };
    tokio::spawn(async move {
        while let Some(target) = requests.recv().await {
            let restarted = match &target {
                RestartTarget::Task(id) if worker.task_failed(id) => {
                    worker.metrics().restarted();
                    herder.restart_task(id).await
                }
                RestartTarget::Connector(name) if worker.connector_failed(name) => {
                    worker.metrics().restarted();
                    herder.restart_connector(name).await
                }
                _ => continue,
            };
            let what = match &target {
                RestartTarget::Task(_) => "task",
                RestartTarget::Connector(_) => "connector",
            };
            match restarted {
                Ok(()) => tracing::info!(?target, "Restarted the failed {what}"),
                // A restart that fails again is scheduled again by the worker, within the cap.
                Err(error) => {
                    tracing::warn!(?target, %error, "Could not restart the failed {what}")
                }
            }
        }
    });
}
