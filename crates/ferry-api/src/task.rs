//! Task traits and the contexts the worker gives them.
//!
//! Tasks are asynchronous. The worker may drop a pending `poll` or `put` future when the task is
//! asked to stop, so implementations keep their progress in `self`, never only in a future's locals.

use std::collections::HashMap;
use std::sync::Arc;

use async_trait::async_trait;

use crate::error::Result;
use crate::record::{OffsetMap, RecordMetadata, SinkRecord, SourceRecord, TopicPartition};
use crate::ConfigMap;

/// Reads the offsets stored for a connector's source partitions.
#[async_trait]
pub trait OffsetStorageReader: Send + Sync {
    async fn offset(&self, partition: &OffsetMap) -> Result<Option<OffsetMap>>;
}

/// Which task this is, with its connector's config: what a task running in the plugin host
/// needs to build the converters and transforms Java's worker would build around it.
#[derive(Debug, Clone, Default)]
pub struct TaskIdentity {
    pub connector: String,
    pub task: u32,
    pub connector_configs: ConfigMap,
}

/// What a source task is given at start.
#[derive(Clone)]
pub struct SourceTaskContext {
    pub configs: ConfigMap,
    pub offset_reader: Arc<dyn OffsetStorageReader>,
    pub identity: TaskIdentity,
    /// Java's `transactionContext()`: present only when the task runs exactly once with
    /// `transaction.boundary=connector`.
    pub transactions: Option<Arc<crate::transaction::TransactionContext>>,
    /// Where the task publishes metrics of its own (Java's `context.pluginMetrics()`).
    pub metrics: Arc<crate::metrics::PluginMetrics>,
}

#[async_trait]
pub trait SourceTask: Send {
    fn version(&self) -> String;

    async fn start(&mut self, props: &ConfigMap, context: SourceTaskContext) -> Result<()>;

    /// The next records; an empty batch when there is nothing now. A task should wait a little
    /// inside `poll` rather than return empty batches in a tight loop.
    async fn poll(&mut self) -> Result<Vec<SourceRecord>>;

    /// Called after each successful offset commit.
    async fn commit(&mut self) -> Result<()> {
        Ok(())
    }

    /// Called for every record once Kafka has acknowledged it (metadata present) or once it was
    /// filtered or skipped (metadata absent).
    fn commit_record(
        &mut self,
        _record: &SourceRecord,
        _metadata: Option<&RecordMetadata<'_>>,
    ) -> Result<()> {
        Ok(())
    }

    /// Whether this task's `commit_record` does anything with the records it is shown. A task
    /// whose `commit_record` is Java's no-op may answer `false`: it is then not shown its sent
    /// records again, and the worker lets each one go as soon as it is sent rather than holding
    /// it until Kafka acknowledges it (offsets still commit only once acknowledged).
    fn needs_commit_record(&self) -> bool {
        true
    }

    async fn stop(&mut self) -> Result<()>;
}

/// What a sink task can ask of the worker (Java's `SinkTaskContext`).
pub trait SinkTaskContext: Send + Sync {
    fn configs(&self) -> ConfigMap;
    fn identity(&self) -> TaskIdentity {
        TaskIdentity::default()
    }
    /// Rewind or skip a partition to `offset` before the next batch.
    fn offset(&self, partition: TopicPartition, offset: i64);
    /// Shorten the next poll to at most `timeout_ms`.
    fn timeout(&self, timeout_ms: u64);
    fn assignment(&self) -> Vec<TopicPartition>;
    fn pause(&self, partitions: &[TopicPartition]);
    fn resume(&self, partitions: &[TopicPartition]);
    /// Commit offsets as soon as possible rather than at the next interval.
    fn request_commit(&self);

    /// Where the task can send records it cannot handle (KIP-610): present when the connector
    /// has a dead letter queue or error logging. Reported records are handled (and their dead
    /// letter queue writes finished) before the offsets after them are committed.
    fn errant_record_reporter(&self) -> Option<Arc<dyn ErrantRecordReporter>> {
        None
    }
}

/// Takes a sink record the task could not process, with the reason (Java's
/// `ErrantRecordReporter`).
pub trait ErrantRecordReporter: Send + Sync {
    fn report(&self, record: &SinkRecord, error: crate::ConnectError);

    /// A record that failed a stage of the connector's own pipeline outside the worker (the
    /// plugin host runs a Java connector's converters and transforms), with the stage's Java
    /// name (`VALUE_CONVERTER`, `TRANSFORMATION`, …) and the class that failed, for the dead
    /// letter queue's context headers.
    fn report_failed_stage(
        &self,
        record: &SinkRecord,
        error: crate::ConnectError,
        _stage: &str,
        _class: &str,
    ) {
        self.report(record, error)
    }
}

/// Offsets of the next record to consume, per partition.
pub type SinkOffsets = HashMap<TopicPartition, i64>;

#[async_trait]
pub trait SinkTask: Send {
    fn version(&self) -> String;

    async fn start(&mut self, props: &ConfigMap, context: Arc<dyn SinkTaskContext>) -> Result<()>;

    /// Partitions newly assigned to this task.
    async fn open(&mut self, _partitions: &[TopicPartition]) -> Result<()> {
        Ok(())
    }

    /// Partitions taken from this task; their data must be flushed first.
    async fn close(&mut self, _partitions: &[TopicPartition]) -> Result<()> {
        Ok(())
    }

    /// Takes a slice so the worker can deliver the same batch again after a retriable failure.
    async fn put(&mut self, records: &[SinkRecord]) -> Result<()>;

    /// Make everything put so far durable.
    async fn flush(&mut self, _offsets: &SinkOffsets) -> Result<()> {
        Ok(())
    }

    /// The offsets safe to commit; by default flushes and returns what it was given.
    async fn pre_commit(&mut self, offsets: SinkOffsets) -> Result<SinkOffsets> {
        self.flush(&offsets).await?;
        Ok(offsets)
    }

    async fn stop(&mut self) -> Result<()>;
}
