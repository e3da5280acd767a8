//! Finds at start whether the worker's cluster takes client telemetry (KIP-714), so that its
//! clients need not keep librdkafka's push histograms where nothing is ever pushed.

use std::time::Duration;

use ferry_group::GroupConfig;
use ferry_runtime::config::worker::WorkerConfig;
use tokio::task::JoinHandle;

const PROBE_TIMEOUT: Duration = Duration::from_secs(10);

/// Starts asking the cluster, alongside the cluster id lookup, whether its brokers offer client
/// telemetry; the task answers false only when they do not. Any doubt (a probe that fails or
/// cannot be made with the worker's security settings) answers true, librdkafka's default and
/// Java's: push when offered.
pub(crate) fn start_probe(config: &WorkerConfig) -> JoinHandle<bool> {
    let security = ferry_distributed::group_security::group_security(config);
    let bootstrap_servers = config.bootstrap_server_list();
    tokio::spawn(async move {
        let security = match security {
            Ok(security) => security,
            Err(e) => {
                tracing::debug!(error = %e, "client telemetry probe not made");
                return true;
            }
        };
        let group = GroupConfig {
            bootstrap_servers,
            client_id: "ferry-telemetry-probe".to_owned(),
            request_timeout: PROBE_TIMEOUT,
            security,
            ..GroupConfig::default()
        };
        let probe = ferry_group::cluster_takes_client_telemetry(&group);
        match tokio::time::timeout(PROBE_TIMEOUT, probe).await {
            Ok(Ok(true)) => {
                tracing::info!(
                    "The Kafka cluster takes client telemetry (KIP-714); clients push it as Java's do"
                );
                true
            }
            Ok(Ok(false)) => {
                tracing::info!(
                    "The Kafka cluster takes no client telemetry (KIP-714: no GetTelemetrySubscriptions offered), so clients default to enable.metrics.push=false"
                );
                false
            }
            Ok(Err(e)) => {
                tracing::debug!(error = %e, "client telemetry probe failed");
                true
            }
            Err(_) => {
                tracing::debug!("client telemetry probe timed out");
                true
            }
        }
    })
}
