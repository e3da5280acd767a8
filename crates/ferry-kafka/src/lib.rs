//! Ferry's Kafka clients: the only crate that links librdkafka. It offers a producer with
//! per-record acknowledgements, a group consumer with rebalance events, a small admin client,
//! and the translation of Java client settings into librdkafka settings.

pub mod admin;
pub mod assigned_consumer;
pub mod client_properties;
pub mod cluster;
mod config;
pub mod consumer;
mod error;
mod fetch_queue;
pub mod group_admin;
pub mod group_offsets;
mod log_producer;
pub mod producer;
mod producer_poller;
pub mod stats;
/// Java key and trust stores read into PEM (kept here for the translation's callers).
pub use ferry_tls::stores;
mod topic_handles;
pub mod topic_log;
pub mod topic_writer;

pub use config::{client_config, ClientSettings};
pub use error::KafkaClientError;

/// Re-exported for integration tests and tools that need raw client access.
pub use rdkafka;
