//! What a running task's pipeline needs from the worker.

use std::sync::Arc;

use ferry_api::converter::{Converter, HeaderConverter};
use ferry_api::ConfigMap;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::config::connector::ConnectorConfig;
use crate::config::worker::WorkerConfig;
use crate::errors::ErrorHandler;
use crate::metrics::TaskMetrics;
use crate::status::{State, Status, StatusStore, TaskId};
use crate::storage::offsets::OffsetBackingStore;
use crate::worker::clients::ClientFactory;
use crate::worker::transformation_chain::TransformationChain;

/// The state the herder wants a connector and its tasks in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetState {
    Started,
    Paused,
    Stopped,
}

/// The converters' class names, as errors and dead letter queue headers name them.
pub(crate) struct ConverterClasses {
    pub key: String,
    pub value: String,
    pub header: String,
}

pub(crate) struct TaskContext {
    pub id: TaskId,
    pub worker_id: String,
    pub worker: Arc<WorkerConfig>,
    /// The connector's config, resolved (config providers) and read once.
    pub connector: ConnectorConfig,
    pub task_props: ConfigMap,
    pub key_converter: Box<dyn Converter>,
    pub value_converter: Box<dyn Converter>,
    pub header_converter: Box<dyn HeaderConverter>,
    /// Class names of the converters, for error reports.
    pub converter_classes: ConverterClasses,
    pub chain: TransformationChain,
    pub errors: ErrorHandler,
    pub metrics: Arc<TaskMetrics>,
    pub status: Arc<dyn StatusStore>,
    pub offsets: Arc<dyn OffsetBackingStore>,
    pub target: watch::Receiver<TargetState>,
    pub cancel: CancellationToken,
    /// Makes the task's producer or consumer.
    pub clients: Arc<dyn ClientFactory>,
    /// Set for a source task that runs exactly once (distributed mode, KIP-618).
    pub exactly_once: Option<crate::worker::exactly_once::ExactlyOnce>,
}

impl TaskContext {
    pub fn report(&self, state: State, trace: Option<String>) {
        tracing::info!(state = %state, "Task state changed");
        self.metrics.state_changed(state);
        self.status.put_task(
            &self.id,
            Status {
                state,
                trace,
                worker_id: self.worker_id.clone(),
                generation: 0,
            },
        );
    }

    /// Java client settings for a connector client: bootstrap servers, then the worker's
    /// `<role>.` settings, then the connector's `<role>.override.` settings.
    pub fn client_layers(&self, role: &str) -> ferry_kafka::ClientSettings {
        self.worker
            .connector_client_settings(role, &self.connector.props)
    }

    /// Waits while the target state is PAUSED; `false` when the task was cancelled meanwhile.
    pub async fn wait_while_paused(&mut self) -> bool {
        if *self.target.borrow() == TargetState::Started {
            return true;
        }
        self.report(State::Paused, None);
        loop {
            tokio::select! {
                _ = self.cancel.cancelled() => return false,
                changed = self.target.changed() => {
                    if changed.is_err() {
                        return false;
                    }
                    if *self.target.borrow() == TargetState::Started {
                        self.report(State::Running, None);
                        return true;
                    }
                }
            }
        }
    }

    pub fn identity(&self) -> ferry_api::task::TaskIdentity {
        ferry_api::task::TaskIdentity {
            connector: self.id.connector.clone(),
            task: self.id.task as u32,
            connector_configs: self.connector.props.clone(),
        }
    }

    pub fn is_paused(&self) -> bool {
        *self.target.borrow() != TargetState::Started
    }
}
