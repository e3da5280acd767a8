//! Connector traits: a connector configures itself and splits its work into task configs.

use std::sync::Arc;

use crate::config::{ConfigDef, KeyReport};
use crate::error::Result;
use crate::record::OffsetMap;
use crate::task::{OffsetStorageReader, SinkTask, SourceTask};
use crate::{ConfigMap, ConnectError};

/// What a running connector can ask of the worker.
pub trait ConnectorContext: Send + Sync {
    /// The connector's task configs may have changed; the worker asks it for new ones.
    fn request_task_reconfiguration(&self);
    /// The connector failed in the background; the worker marks it FAILED.
    fn raise_error(&self, error: ConnectError);
    /// The stored offsets of the connector's source partitions (Java's
    /// `SourceConnectorContext.offsetStorageReader()`); `None` for sink connectors.
    fn offset_reader(&self) -> Option<Arc<dyn OffsetStorageReader>> {
        None
    }
}

/// Behaviour shared by source and sink connectors (Java's `Connector`).
pub trait Connector: Send {
    fn version(&self) -> String;

    /// The keys this connector declares, beyond the worker's common connector keys.
    fn config_def(&self) -> ConfigDef;

    /// Validates `props` against the declared keys; connectors add cross-key checks here.
    fn validate(&self, props: &ConfigMap) -> Vec<KeyReport> {
        self.config_def().validate(props)
    }

    fn start(&mut self, props: &ConfigMap, context: Arc<dyn ConnectorContext>) -> Result<()>;

    /// At most `max_tasks` configs, one per task to run.
    fn task_configs(&self, max_tasks: usize) -> Result<Vec<ConfigMap>>;

    fn stop(&mut self) -> Result<()>;

    /// The class Java workers instantiate for this connector's tasks, written to every task
    /// config as `task.class`; `None` derives it from the connector's class name.
    fn task_class(&self) -> Option<String> {
        None
    }

    /// KIP-875: checks offsets a user is altering (or resetting, where the offset is `None`)
    /// while the connector is stopped, and applies them to any offsets the connector keeps in
    /// its own system. `Ok(true)` means no further action is needed in that system; the default
    /// `Ok(false)` says only the framework's offsets were changed. Sink partitions are
    /// `{"kafka_topic","kafka_partition"}` and their offsets `{"kafka_offset"}`.
    fn alter_offsets(
        &self,
        _config: &ConfigMap,
        _offsets: &[(OffsetMap, Option<OffsetMap>)],
    ) -> Result<bool> {
        Ok(false)
    }
}

/// A source connector's answer to whether it delivers exactly once with a config (KIP-618).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExactlyOnceSupport {
    Supported,
    Unsupported,
}

/// Whether a source connector's tasks can say where transactions end (KIP-618's
/// `transaction.boundary=connector`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransactionBoundaries {
    Supported,
    Unsupported,
}

/// A connector that reads from a system into Kafka.
pub trait SourceConnector: Connector {
    fn create_task(&self) -> Box<dyn SourceTask>;

    /// Java's `exactlyOnceSupport`: `None` when the connector does not say, as Java's default.
    fn exactly_once_support(&self, _props: &ConfigMap) -> Result<Option<ExactlyOnceSupport>> {
        Ok(None)
    }

    /// Java's `canDefineTransactionBoundaries`; `None` only from a Java connector answering null.
    fn can_define_transaction_boundaries(
        &self,
        _props: &ConfigMap,
    ) -> Result<Option<TransactionBoundaries>> {
        Ok(Some(TransactionBoundaries::Unsupported))
    }
}

/// A connector that writes from Kafka into a system.
pub trait SinkConnector: Connector {
    fn create_task(&self) -> Box<dyn SinkTask>;
}

/// A connector instance of either kind.
pub enum AnyConnector {
    Source(Box<dyn SourceConnector>),
    Sink(Box<dyn SinkConnector>),
}

impl AnyConnector {
    pub fn as_connector(&self) -> &dyn Connector {
        match self {
            AnyConnector::Source(c) => c.as_ref(),
            AnyConnector::Sink(c) => c.as_ref(),
        }
    }

    pub fn as_connector_mut(&mut self) -> &mut dyn Connector {
        match self {
            AnyConnector::Source(c) => c.as_mut(),
            AnyConnector::Sink(c) => c.as_mut(),
        }
    }

    pub fn is_sink(&self) -> bool {
        matches!(self, AnyConnector::Sink(_))
    }
}
