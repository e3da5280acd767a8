//! `ferry distributed worker.properties`

use std::path::Path;
use std::sync::Arc;

use anyhow::Context;
use ferry_distributed::boot::{self, BootSettings, DistributedWorker};
use ferry_distributed::config::DistributedConfig;
use ferry_plugin_host::PluginHost;
use ferry_runtime::config::files::load_properties;
use tokio_util::sync::CancellationToken;

use crate::standalone::{
    admin_enabled, advertised_listener, cluster_id, drain_rest, invalid_worker_config,
    rest_options, wait_for_signal, worker_id,
};

pub async fn run(
    worker_path: &Path,
    log_levels: Arc<crate::logging::RuntimeLogLevels>,
) -> anyhow::Result<()> {
    let props =
        ferry_runtime::config::providers::resolve_worker_props(&load_properties(worker_path)?)
            .map_err(|e| anyhow::anyhow!("{}: {e}", worker_path.display()))?;
    let config =
        DistributedConfig::parse(&props).map_err(|e| invalid_worker_config(worker_path, &e))?;
    let rest_options = rest_options(worker_path, &props)?;
    let id = worker_id(&config.worker);
    let scheme = if advertised_listener(&config.worker).https {
        "https"
    } else {
        "http"
    };
    let url = format!("{scheme}://{id}/");
    let plan =
        ferry_rest::ListenerPlan::from_worker(&config.worker.originals, &config.worker.listeners)?;
    crate::rest_client::configure(&config.worker.originals)?;
    let admin = admin_enabled(&config.worker);
    let logger_levels: ferry_distributed::herder::LoggerApplier = {
        let levels = log_levels.clone();
        Arc::new(move |namespace: &str, level: &str| {
            ferry_rest::LogLevels::set(levels.as_ref(), namespace, level);
        })
    };
    let (running, plugin_host) =
        start_worker(config, id, url, &log_levels, Some(logger_levels)).await?;
    let rest_shutdown = CancellationToken::new();
    let (addrs, rest) = ferry_rest::serve(
        ferry_rest::AppState {
            herder: running.herder.clone(),
            loggers: admin.then_some(log_levels as Arc<dyn ferry_rest::LogLevels>),
            options: Arc::new(rest_options),
        },
        &plan,
        rest_shutdown.clone(),
    )
    .await?;
    tracing::info!(listeners = ?addrs, "Ferry distributed worker started");
    wait_for_signal()
        .await
        .context("waiting for a stop signal")?;
    tracing::info!("Stopping");
    running.stop().await;
    rest_shutdown.cancel();
    drain_rest(rest).await;
    if let Some(host) = plugin_host {
        host.shutdown();
    }
    tracing::info!("Ferry distributed worker stopped");
    Ok(())
}

/// A distributed worker in its group, from its parsed config: the cluster looked up, the
/// plugins registered (the plugin host started when `plugin.path` is set), the stores read and
/// the herder running, with automatic restarts. `ferry distributed` and each flow of
/// `ferry mirror-maker` start theirs here.
pub(crate) async fn start_worker(
    mut config: DistributedConfig,
    worker_id: String,
    url: String,
    log_levels: &Arc<crate::logging::RuntimeLogLevels>,
    logger_levels: Option<ferry_distributed::herder::LoggerApplier>,
) -> anyhow::Result<(DistributedWorker, Option<Arc<PluginHost>>)> {
    for warning in config.warnings() {
        tracing::warn!("{warning}");
    }
    let telemetry = crate::cluster_telemetry::start_probe(&config.worker);
    let cluster_id = cluster_id(&config.worker).await?;
    tracing::info!(%cluster_id, "Kafka cluster found");
    config.worker.cluster_takes_client_telemetry = telemetry.await.unwrap_or(true);
    let (mut registry, plugin_host) =
        crate::plugins::registry(&config.worker, &worker_id, log_levels).await?;
    registry.exactly_once_source =
        Some(config.exactly_once == ferry_distributed::config::ExactlyOnceSourceSupport::Enabled);
    let running = boot::start(BootSettings {
        config,
        worker_id,
        url,
        cluster_id,
        registry: Arc::new(registry),
        logger_levels,
    })
    .await
    .context("starting the distributed worker")?;
    ferry_runtime::herder::run_automatic_restarts(
        running.herder.clone(),
        running.herder.worker().clone(),
    );
    Ok((running, plugin_host))
}
