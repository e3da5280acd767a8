//! The boundary between REST and coordination: REST only sees `dyn Herder`.

mod standalone;
mod validation;

use async_trait::async_trait;
use ferry_api::ConfigMap;

pub use standalone::StandaloneHerder;
pub use validation::validate_connector_config;

use crate::plugins::PluginKind;
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
    Internal(String),
}

/// Whether a config write created the connector or replaced it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Written {
    Created,
    Updated,
}

#[async_trait]
pub trait Herder: Send + Sync {
    async fn connectors(&self) -> Vec<String>;
    async fn connector_info(&self, name: &str) -> Result<ConnectorInfo, HerderError>;
    async fn connector_status(&self, name: &str) -> Result<ConnectorStateInfo, HerderError>;
    async fn put_connector_config(
        &self,
        name: &str,
        config: ConfigMap,
        allow_replace: bool,
        initial_state: TargetState,
    ) -> Result<(Written, ConnectorInfo), HerderError>;
    async fn delete_connector(&self, name: &str) -> Result<(), HerderError>;
    /// The Kafka cluster this worker belongs to, for `GET /`.
    fn kafka_cluster_id(&self) -> String;
}
