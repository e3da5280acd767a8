//! MirrorMaker 2 as Kafka's `connect/mirror` and `connect/mirror-client` modules define it:
//! replication policies, the records of its internal topics (byte for byte as Java writes
//! them), the offset translation of its checkpoints, and the decisions its tasks make; and the
//! native MirrorSourceConnector, MirrorCheckpointConnector and MirrorHeartbeatConnector built on
//! them.

pub mod checkpoint_connector;
pub mod checkpoint_task;
pub mod checkpoints;
pub mod client_configs;
mod client_security;
pub mod clients;
pub mod config;
pub mod heartbeat;
pub mod internal_records;
pub mod metrics;
pub mod mirror_maker_config;
pub mod offset_sync_store;
pub mod partition_state;
pub mod records;
pub mod replication_policy;
mod schedule;
pub mod source_connector;
pub mod source_records;
pub mod source_task;
pub mod task_assignment;
pub mod topic_configs;
pub mod topic_filter;
pub mod topic_selection;
mod validation;

/// Milliseconds since the epoch, as Java's `System.currentTimeMillis`.
pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

#[cfg(test)]
pub(crate) mod test_support {
    use ferry_api::ConfigMap;

    /// A connector config from key-value pairs.
    pub(crate) fn props(pairs: &[(&str, &str)]) -> ConfigMap {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }
}
