//! `ferry standalone worker.properties connector1.properties …`

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{anyhow, bail, Context};
use ferry_kafka::client_properties::ClientRole;
use ferry_runtime::config::files::{load_connector_file, load_properties, ConnectorFile};
use ferry_runtime::config::worker::WorkerConfig;
use ferry_runtime::herder::{Herder, StandaloneHerder};
use ferry_runtime::status::MemoryStatusStore;
use ferry_runtime::storage::file_offsets::FileOffsetStore;
use ferry_runtime::worker::{TargetState, Worker};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// How long start-up waits for the Kafka cluster to answer.
const CLUSTER_LOOKUP_TIMEOUT: Duration = Duration::from_secs(30);

fn initial_state(file: &ConnectorFile, path: &Path) -> anyhow::Result<TargetState> {
    match file
        .initial_state
        .as_deref()
        .map(str::to_ascii_uppercase)
        .as_deref()
    {
        None | Some("RUNNING") => Ok(TargetState::Started),
        Some("PAUSED") => Ok(TargetState::Paused),
        Some("STOPPED") => Ok(TargetState::Stopped),
        Some(other) => bail!("{}: invalid initial_state {other}", path.display()),
    }
}

/// The listener other workers and clients are told about (Java's `determineAdvertisedProtocol`):
/// `rest.advertised.listener` if set, else HTTPS only when every listener is HTTPS.
pub(crate) fn advertised_listener(config: &WorkerConfig) -> ferry_rest::ListenerAddr {
    advertised_listener_of(&config.originals, &config.listeners)
}

/// [`advertised_listener`] of `listeners` under the REST settings in `originals`.
pub(crate) fn advertised_listener_of(
    originals: &ferry_api::ConfigMap,
    listeners: &[String],
) -> ferry_rest::ListenerAddr {
    let listeners: Vec<ferry_rest::ListenerAddr> = listeners
        .iter()
        .filter_map(|l| ferry_rest::parse_listener_addr(l).ok())
        .collect();
    let https = match originals
        .get("rest.advertised.listener")
        .map(|v| v.trim().to_ascii_lowercase())
    {
        Some(p) if p == "https" => true,
        Some(p) if p == "http" => false,
        _ => !listeners.is_empty() && listeners.iter().all(|l| l.https),
    };
    listeners
        .iter()
        .find(|l| l.https == https)
        .or(listeners.first())
        .cloned()
        .unwrap_or_else(|| ferry_rest::ListenerAddr {
            https: false,
            addr: std::net::SocketAddr::from(([0, 0, 0, 0], 8083)),
        })
}

/// `host:port` as Java's advertised URL gives it: `rest.advertised.host.name`, else the
/// listener's own address when it names one, else this machine's name.
pub(crate) fn worker_id(config: &WorkerConfig) -> String {
    advertised_host_port(&config.originals, advertised_listener(config).addr)
}

/// [`worker_id`] for the listener `listener` under the REST settings in `originals`.
pub(crate) fn advertised_host_port(
    originals: &ferry_api::ConfigMap,
    listener: std::net::SocketAddr,
) -> String {
    let port = listener.port();
    let bound = match listener.ip() {
        ip if ip.is_unspecified() => None,
        std::net::IpAddr::V4(ip) => Some(ip.to_string()),
        std::net::IpAddr::V6(ip) => Some(format!("[{ip}]")),
    };
    let host = originals
        .get("rest.advertised.host.name")
        .filter(|h| !h.is_empty())
        .cloned()
        .or(bound)
        .or_else(|| {
            std::fs::read_to_string("/proc/sys/kernel/hostname")
                .ok()
                .map(|h| h.trim().to_owned())
        })
        .unwrap_or_else(|| "localhost".to_owned());
    let port = originals
        .get("rest.advertised.port")
        .and_then(|p| p.parse().ok())
        .unwrap_or(port);
    format!("{host}:{port}")
}

pub(crate) async fn cluster_id(config: &WorkerConfig) -> anyhow::Result<String> {
    // As Java's lookup: an admin client with the worker's own connection and security settings.
    let settings = ferry_kafka::ClientSettings::new().layer(config.connection_settings());
    let client = ferry_kafka::client_config(ClientRole::Admin, &settings, &[])?;
    let servers = config.bootstrap_servers.clone();
    tokio::task::spawn_blocking(move || {
        ferry_kafka::cluster::lookup_cluster_id(&client, CLUSTER_LOOKUP_TIMEOUT)
    })
    .await?
    .with_context(|| format!("could not reach the Kafka cluster at {servers}"))
}

pub async fn run(
    worker_path: &Path,
    connector_paths: &[PathBuf],
    log_levels: Arc<crate::logging::RuntimeLogLevels>,
) -> anyhow::Result<()> {
    let props =
        ferry_runtime::config::providers::resolve_worker_props(&load_properties(worker_path)?)
            .map_err(|e| anyhow::anyhow!("{}: {e}", worker_path.display()))?;
    let mut config =
        WorkerConfig::standalone(&props).map_err(|e| invalid_worker_config(worker_path, &e))?;
    let rest_options = rest_options(worker_path, &props)?;
    for warning in config.warnings() {
        tracing::warn!("{warning}");
    }
    // Read every connector file before touching Kafka, so a bad file fails fast.
    let mut connectors = Vec::new();
    for path in connector_paths {
        let file = load_connector_file(path)?;
        let state = initial_state(&file, path)?;
        connectors.push((path.clone(), file, state));
    }
    let offset_file = config.offset_file.clone().unwrap_or_default();
    let offsets = Arc::new(FileOffsetStore::open(&offset_file)?);
    let telemetry = crate::cluster_telemetry::start_probe(&config);
    let cluster_id = cluster_id(&config).await?;
    tracing::info!(%cluster_id, "Kafka cluster found");
    config.cluster_takes_client_telemetry = telemetry.await.unwrap_or(true);

    let shutdown = CancellationToken::new();
    let (reconfigure_tx, reconfigure_rx) = mpsc::unbounded_channel();
    let config = Arc::new(config);
    let (registry, plugin_host) =
        crate::plugins::registry(&config, &worker_id(&config), &log_levels).await?;
    let worker = Arc::new(Worker::new(
        worker_id(&config),
        config.clone(),
        Arc::new(registry),
        offsets,
        Arc::new(MemoryStatusStore::default()),
        shutdown.child_token(),
        reconfigure_tx,
    ));
    let herder = StandaloneHerder::new(worker.clone(), cluster_id, reconfigure_rx);
    ferry_runtime::herder::run_automatic_restarts(herder.clone(), worker);
    let plan = ferry_rest::ListenerPlan::from_worker(&config.originals, &config.listeners)?;
    let rest_shutdown = CancellationToken::new();
    let (addrs, rest) = ferry_rest::serve(
        ferry_rest::AppState {
            herder: herder.clone(),
            loggers: admin_enabled(&config).then_some(log_levels as Arc<dyn ferry_rest::LogLevels>),
            options: Arc::new(rest_options),
        },
        &plan,
        rest_shutdown.clone(),
    )
    .await?;
    tracing::info!(listeners = ?addrs, "Ferry standalone worker started");

    let mut failure = None;
    for (path, file, state) in connectors {
        if let Err(e) = herder
            .put_connector_config(&file.name, file.config, false, state)
            .await
        {
            failure = Some(anyhow!(
                "Failed to create connector for {}: {e}",
                path.display()
            ));
            break;
        }
        tracing::info!(connector = %file.name, "Created connector");
    }
    if failure.is_none() {
        herder.set_ready();
        wait_for_signal()
            .await
            .context("waiting for a stop signal")?;
        tracing::info!("Stopping");
    }
    herder.stop().await;
    rest_shutdown.cancel();
    shutdown.cancel();
    drain_rest(rest).await;
    if let Some(host) = plugin_host {
        host.shutdown();
    }
    tracing::info!("Ferry standalone worker stopped");
    failure.map_or(Ok(()), Err)
}

/// Every bad key of a worker config, one per line.
pub(crate) fn invalid_worker_config(
    path: &Path,
    error: &ferry_api::config::ConfigError,
) -> anyhow::Error {
    let lines: Vec<String> = error
        .problems
        .iter()
        .map(|p| format!("  {}: {}", p.key, p.message))
        .collect();
    anyhow!(
        "{} is not a valid worker config:\n{}",
        path.display(),
        lines.join("\n")
    )
}

pub(crate) fn rest_options(
    path: &Path,
    props: &ferry_api::ConfigMap,
) -> anyhow::Result<ferry_rest::RestOptions> {
    ferry_rest::RestOptions::from_worker(props)
        .map_err(|e| anyhow!("{} is not a valid worker config: {e}", path.display()))
}

/// `admin.listeners` set to an empty value turns the admin endpoints off, as in Java.
pub(crate) fn admin_enabled(config: &WorkerConfig) -> bool {
    config
        .originals
        .get("admin.listeners")
        .is_none_or(|v| !v.trim().is_empty())
}

/// Waits for the REST server's in-flight requests to be answered, for a while: a request whose
/// work is gone with the herder must not keep the worker from exiting.
pub(crate) async fn drain_rest<F: std::future::Future>(rest: F) {
    const REST_DRAIN_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);
    if tokio::time::timeout(REST_DRAIN_TIMEOUT, rest)
        .await
        .is_err()
    {
        tracing::warn!(
            timeout_ms = REST_DRAIN_TIMEOUT.as_millis() as u64,
            "REST requests still in flight at shutdown were cut off"
        );
    }
}

pub(crate) async fn wait_for_signal() -> std::io::Result<()> {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    tokio::select! {
        r = tokio::signal::ctrl_c() => r,
        _ = term.recv() => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(pairs: &[(&str, &str)]) -> String {
        let mut props: ferry_api::ConfigMap = [
            ("bootstrap.servers", "localhost:9092"),
            (
                "key.converter",
                "org.apache.kafka.connect.storage.StringConverter",
            ),
            (
                "value.converter",
                "org.apache.kafka.connect.storage.StringConverter",
            ),
            ("offset.storage.file.filename", "/tmp/offsets"),
        ]
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
        props.extend(
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned())),
        );
        worker_id(&WorkerConfig::standalone(&props).unwrap())
    }

    #[test]
    fn the_worker_id_is_java_s_advertised_host_and_port() {
        assert_eq!(
            id(&[("listeners", "http://127.0.0.1:8089")]),
            "127.0.0.1:8089"
        );
        assert_eq!(
            id(&[
                ("listeners", "http://127.0.0.1:8089"),
                ("rest.advertised.host.name", "connect-1"),
                ("rest.advertised.port", "443"),
            ]),
            "connect-1:443"
        );
        let any = id(&[("listeners", "http://0.0.0.0:8089")]);
        assert!(
            any.ends_with(":8089") && !any.starts_with("0.0.0.0"),
            "{any}"
        );
    }
}
