//! The config topic: record formats and the reader state machine.

pub(crate) mod json;
pub mod records;
pub mod state;

#[cfg(test)]
mod java_topics;

pub use records::{ConfigRecord, ConfigRecordError, ConnectorRestart, RawConfig, SessionKey};
pub use state::{ClusterConfigSnapshot, ConfigEvent, ConfigState};
