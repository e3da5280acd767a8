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
pub mod record;
pub mod task;
pub mod transform;

pub use error::ConnectError;

/// A plugin's string configuration, as submitted (Connect configs are string maps on the wire).
pub type ConfigMap = std::collections::BTreeMap<String, String>;
