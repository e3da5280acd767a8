//! Exactly-once source tasks (KIP-618): what the distributed herder gives a source task when the
//! worker has `exactly.once.source.support=enabled`. The task writes its records and their
//! offsets with one transactional producer, one transaction per boundary.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use ferry_api::ConnectError;

use crate::status::TaskId;

/// When a task's transaction commits (`transaction.boundary`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransactionBoundary {
    /// After every batch the task's poll returned.
    Poll,
    /// After the first batch once this long has passed since the last commit.
    Interval(Duration),
    /// Where the connector says (its transaction context); Ferry does not support it yet.
    Connector,
}

/// What the herder checks around the producer's registration of its transactional id.
#[async_trait]
pub trait ExactlyOnceChecks: Send + Sync {
    /// Waits until the leader has fenced out the connector's earlier task generations.
    async fn before_producer(&self, id: &TaskId) -> Result<(), ConnectError>;
    /// Fails when the task is no longer current: newer task configs, or revoked from here.
    async fn after_producer(&self, id: &TaskId) -> Result<(), ConnectError>;
}

#[derive(Clone)]
pub struct ExactlyOnce {
    /// Java's `<group.id>-<connector>-<task>`.
    pub transactional_id: String,
    /// Where the task's offsets go, in its transactions: the connector's own offsets topic
    /// when it names one, the worker's otherwise.
    pub offsets_topic: String,
    /// With an offsets topic of the connector's own: the worker's store, which gets a copy of
    /// the committed offsets (best-effort, as Java's secondary store).
    pub worker_offsets: Option<Arc<dyn crate::storage::offsets::OffsetBackingStore>>,
    pub boundary: TransactionBoundary,
    pub checks: Arc<dyn ExactlyOnceChecks>,
}

/// Java's `Worker.taskTransactionalId`.
pub fn transactional_id(group_id: &str, id: &TaskId) -> String {
    format!("{group_id}-{}-{}", id.connector, id.task)
}
