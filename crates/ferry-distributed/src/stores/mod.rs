//! The Kafka-backed stores of distributed mode: configs, source offsets and statuses, each a
//! compacted topic read from the beginning by every worker.

pub mod clients;
pub mod config_store;
pub mod leader_writer;
pub mod log;
#[cfg(test)]
pub(crate) mod memory_log;
pub mod offset_store;
pub mod offset_topics;
pub mod status_store;
pub mod topics;

pub use config_store::KafkaConfigStore;
pub use offset_store::KafkaOffsetStore;
pub use status_store::KafkaStatusStore;

/// A store could not be started or could not write.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error(transparent)]
    Kafka(#[from] ferry_kafka::KafkaClientError),
    #[error("{0}")]
    Config(String),
    /// The leader's transactional write to the config topic failed or was not allowed (most
    /// likely a newer leader fenced this one out).
    #[error("{0}")]
    Fenced(String),
}
