//! Ferry's connector plugin API: the Connect data model, records, connector and task traits,
//! converters and `ConfigDef`. Connector authors depend on this crate alone; it has no async
//! runtime dependency so plugins stay runtime-agnostic.

pub mod config;
pub mod connector;
pub mod converter;
pub mod data;
pub mod error;
pub mod header;
pub mod java;
pub mod metrics;
pub mod offset_map;
pub mod record;
pub mod task;
pub mod transaction;
pub mod transform;

pub use error::ConnectError;

/// The Apache Kafka Connect release Ferry reproduces. Ferry's built-in plugins reimplement that
/// release's classes and report its version, as Java's built-in plugins do, so configs pinning
/// `*.plugin.version` (KIP-891) to it work unchanged.
pub const KAFKA_CONNECT_VERSION: &str = "4.4.0";

/// A plugin's string configuration, as submitted (Connect configs are string maps on the wire).
pub type ConfigMap = std::collections::BTreeMap<String, String>;
