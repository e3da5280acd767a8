//! Finds at start whether the worker's cluster takes client telemetry (KIP-714), so that its
//! clients need not keep librdkafka's push histograms where nothing is ever pushed.

use std::time::Duration;

use ferry_group::GroupConfig;
use ferry_runtime::config::worker::WorkerConfig;

const PROBE_TIMEOUT: Duration = Duration::from_secs(10);

/// Sets `config.cluster_takes_client_telemetry` to false when the cluster's brokers do not
/// offer client telemetry. Any doubt (a probe that fails or cannot be made with the worker's
/// security settings) keeps librdkafka's default, which is Java's: push when offered.
pub(crate) async fn probe(config: &mut WorkerConfig) {
    let security = match ferry_distributed::group_security::group_security(config) {
        Ok(security) => security,
        Err(e) => {
            tracing::debug!(error = %e, "client telemetry probe not made");
            return;
        }
    };
    let group = GroupConfig {
        bootstrap_servers: config
            .bootstrap_servers
            .split(',')
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
            .collect(),
        client_id: "ferry-telemetry-probe".to_owned(),
        request_timeout: PROBE_TIMEOUT,
        security,
        ..GroupConfig::default()
    };
    match tokio::time::timeout(
        PROBE_TIMEOUT,
        ferry_group::cluster_takes_client_telemetry(&group),
    )
    .await
    {
        Ok(Ok(true)) => {
            tracing::info!(
                "The Kafka cluster takes client telemetry (KIP-714); clients push it as Java's do"
            );
        }
        Ok(Ok(false)) => {
            config.cluster_takes_client_telemetry = false;
            tracing::info!(
                "The Kafka cluster takes no client telemetry (KIP-714: no GetTelemetrySubscriptions offered), so clients default to enable.metrics.push=false"
            );
        }
        Ok(Err(e)) => tracing::debug!(error = %e, "client telemetry probe failed"),
        Err(_) => tracing::debug!("client telemetry probe timed out"),
    }
}
