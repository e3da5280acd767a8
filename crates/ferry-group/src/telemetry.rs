//! Whether a cluster takes client telemetry (KIP-714). A broker offers GetTelemetrySubscriptions
//! in its ApiVersions only when a telemetry receiver is configured, and without it a client's
//! `enable.metrics.push` has no effect; librdkafka still keeps the push's latency histograms
//! for every broker of every client, about 250 KB per producer.

use kafka_protocol::messages::ApiKey;

use crate::config::GroupConfig;
use crate::conn::open_bootstrap;
use crate::error::GroupError;

/// Asks the first bootstrap server that answers whether it offers GetTelemetrySubscriptions,
/// with `config`'s security settings.
pub async fn cluster_takes_client_telemetry(config: &GroupConfig) -> Result<bool, GroupError> {
    Ok(open_bootstrap(config)
        .await?
        .offers(ApiKey::GetTelemetrySubscriptions))
}
