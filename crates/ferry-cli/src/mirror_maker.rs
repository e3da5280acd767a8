//! `ferry mirror-maker mm2.properties [--clusters A B]`, as `connect-mirror-maker.sh`: a
//! distributed worker per replication flow `A->B`, in the group `A-mm2` on cluster B with the
//! `mm2-configs/offsets/status.A.internal` topics there, running the flow's three connectors,
//! whose configs the group's leader writes from the file.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{anyhow, bail, Context};
use ferry_api::ConfigMap;
use ferry_distributed::boot::DistributedWorker;
use ferry_distributed::config::DistributedConfig;
use ferry_distributed::herder::DistributedHerder;
use ferry_mirror::mirror_maker_config::{MirrorMakerConfig, SourceAndTarget};
use ferry_runtime::config::files::load_properties;
use ferry_runtime::herder::{Herder, HerderError};
use ferry_runtime::worker::TargetState;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::standalone::{
    advertised_host_port, advertised_listener_of, invalid_worker_config, wait_for_signal, worker_id,
};

/// How often a flow's worker checks that, while it leads its group, the connectors' configs
/// are the file's (the leader can change while the process runs); more often until it has
/// joined the group.
const CONFIGURE_EVERY: Duration = Duration::from_secs(5);
const JOIN_CHECK_EVERY: Duration = Duration::from_millis(250);

struct Flow {
    name: String,
    worker: DistributedWorker,
    configure: JoinHandle<()>,
    plugin_host: Option<Arc<ferry_plugin_host::PluginHost>>,
}

pub async fn run(
    path: &Path,
    only_targets: &[String],
    log_levels: Arc<crate::logging::RuntimeLogLevels>,
) -> anyhow::Result<()> {
    let config = MirrorMakerConfig::new(load_properties(path)?)
        .map_err(|e| anyhow!("{}: {e}", path.display()))?;
    let flows = config
        .pairs_for(only_targets)
        .map_err(|e| anyhow!("{}: {e}", path.display()))?;
    if flows.is_empty() {
        bail!(
            "{}: no replication flow to run (clusters={}; enable one with A->B.enabled=true)",
            path.display(),
            config.clusters().join(", ")
        );
    }
    tracing::info!(
        herders = flows.len(),
        "Kafka MirrorMaker starting with {} herders.",
        flows.len()
    );
    if let Some(listeners) = config
        .originals()
        .get(ferry_runtime::metrics::METRICS_LISTENERS)
    {
        tracing::warn!(
            "{}={listeners} is ignored: ferry mirror-maker serves no metrics yet; run the connectors on a Ferry Connect cluster for GET /metrics",
            ferry_runtime::metrics::METRICS_LISTENERS
        );
    }
    let cancel = CancellationToken::new();
    let internal = if config.enable_internal_rest() {
        Some(
            start_internal_rest(&config, cancel.clone())
                .await
                .with_context(|| format!("{}: the internal REST server", path.display()))?,
        )
    } else {
        None
    };
    let mut running = Vec::new();
    for flow in &flows {
        match start_flow(
            &config,
            flow,
            internal.as_ref(),
            &log_levels,
            cancel.clone(),
        )
        .await
        {
            Ok(f) => running.push(f),
            Err(error) => {
                cancel.cancel();
                stop(running).await;
                return Err(error.context(format!("starting the {flow} flow")));
            }
        }
    }
    tracing::info!(
        flows = ?flows.iter().map(ToString::to_string).collect::<Vec<_>>(),
        "Kafka MirrorMaker started"
    );
    wait_for_signal()
        .await
        .context("waiting for a stop signal")?;
    tracing::info!("Kafka MirrorMaker stopping");
    cancel.cancel();
    stop(running).await;
    if let Some(internal) = internal {
        crate::standalone::drain_rest(internal.served).await;
    }
    tracing::info!("Kafka MirrorMaker stopped");
    Ok(())
}

async fn stop(flows: Vec<Flow>) {
    for flow in flows {
        let _ = flow.configure.await;
        flow.worker.stop().await;
        if let Some(host) = flow.plugin_host {
            host.shutdown();
        }
        tracing::info!(flow = %flow.name, "Stopped the flow's herder");
    }
}

/// KIP-710's internal REST server, bound before the flows' workers start (they advertise it).
struct InternalRest {
    flows: ferry_rest::mirror_internal::MirrorFlows,
    /// `scheme://host:port/`, as every flow's worker advertises it.
    url: String,
    host_port: String,
    served: JoinHandle<()>,
}

/// Java's `MirrorRestServer`: the top-level `listeners`, `rest.advertised.*` and
/// `listeners.https.ssl.*` of the file; the requests the flows' workers send each other go out
/// with the same TLS settings.
async fn start_internal_rest(
    config: &MirrorMakerConfig,
    cancel: CancellationToken,
) -> anyhow::Result<InternalRest> {
    let originals = ferry_runtime::config::providers::resolve_worker_props(config.originals())
        .map_err(|e| anyhow!("{e}"))?;
    let listeners: Vec<String> = originals
        .get("listeners")
        .map(|v| {
            v.split(',')
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    let plan = ferry_rest::ListenerPlan::from_worker(&originals, &listeners)?;
    crate::rest_client::configure(&originals)?;
    let flows = ferry_rest::mirror_internal::MirrorFlows::default();
    let (bound, served) =
        ferry_rest::serve_mirror_internal(flows.clone(), &plan, cancel.child_token()).await?;
    let advertised = advertised_listener_of(&originals, &plan.listeners);
    let host_port = advertised_host_port(&originals, advertised.addr);
    let scheme = if advertised.https { "https" } else { "http" };
    tracing::info!(listeners = ?bound, "MirrorMaker's internal REST server listening; the flows' workers advertise {scheme}://{host_port}/");
    Ok(InternalRest {
        flows,
        url: format!("{scheme}://{host_port}/"),
        host_port,
        served,
    })
}

async fn start_flow(
    config: &MirrorMakerConfig,
    flow: &SourceAndTarget,
    internal: Option<&InternalRest>,
    log_levels: &Arc<crate::logging::RuntimeLogLevels>,
    cancel: CancellationToken,
) -> anyhow::Result<Flow> {
    tracing::info!(%flow, "creating herder for {flow}");
    let props = ferry_runtime::config::providers::resolve_worker_props(&config.worker_config(flow))
        .map_err(|e| anyhow!("the {flow} worker config: {e}"))?;
    let mut worker_config = DistributedConfig::parse(&props)
        .map_err(|e| invalid_worker_config(Path::new(&format!("{flow} worker config")), &e))?;
    // As Java's: with the internal REST, the worker is `host:port/A->B` and advertises the
    // server's root, and its requests to the leader go under `/{source}/{target}/`; without,
    // it advertises a URL nobody serves (followers cannot hand the leader task configs).
    let (worker_id, url) = match internal {
        Some(rest) => {
            worker_config.rest_namespace = vec![flow.source.clone(), flow.target.clone()];
            (format!("{}/{flow}", rest.host_port), rest.url.clone())
        }
        None => (
            flow.to_string(),
            format!(
                "http://{}/{}/",
                worker_id(&worker_config.worker),
                flow.source
            ),
        ),
    };
    let (worker, plugin_host) =
        crate::distributed::start_worker(worker_config, worker_id, url, log_levels, None)
            .await
            .with_context(|| format!("starting the {flow} herder"))?;
    if let Some(rest) = internal {
        rest.flows.add(
            &flow.source,
            &flow.target,
            ferry_rest::AppState {
                herder: worker.herder.clone(),
                loggers: None,
                options: Arc::new(ferry_rest::RestOptions::default()),
            },
        );
    }
    let configure = tokio::spawn(keep_connectors_configured(
        worker.herder.clone(),
        flow.to_string(),
        config.connector_configs(flow),
        cancel,
    ));
    Ok(Flow {
        name: flow.to_string(),
        worker,
        configure,
        plugin_host,
    })
}

/// Java's `MirrorMaker.startConnectors`: the leader writes each connector's config (a
/// follower keeps what is there). Checked again while running, since leadership can move.
async fn keep_connectors_configured(
    herder: Arc<DistributedHerder>,
    flow: String,
    wanted: BTreeMap<String, ConfigMap>,
    cancel: CancellationToken,
) {
    let (mut said_follower, mut said_current) = (false, false);
    loop {
        let leads = herder.leads_group();
        match leads {
            Some(true) => {
                let mut all_current = true;
                for (name, config) in &wanted {
                    let current = herder.connector_info(name).await.ok().map(|i| i.config);
                    let mut expected = config.clone();
                    expected.insert("name".to_owned(), name.clone());
                    if current.as_ref() == Some(&expected) {
                        continue;
                    }
                    all_current = false;
                    match herder
                        .put_connector_config(name, config.clone(), true, TargetState::Started)
                        .await
                    {
                        Ok(_) => {
                            tracing::info!(%flow, connector = %name, "Connector {name} configured for {flow}.")
                        }
                        Err(HerderError::NotLeader { .. }) => {}
                        Err(error) => {
                            tracing::warn!(%flow, connector = %name, %error, "Could not configure the connector; trying again")
                        }
                    }
                }
                if all_current && !said_current {
                    said_current = true;
                    tracing::info!(%flow, "This worker leads {flow}; the stored connector configurations are the file's.");
                }
            }
            Some(false) if !said_follower => {
                said_follower = true;
                tracing::info!(%flow, "This worker is a follower for {flow}. Using the existing connector configurations.");
            }
            _ => {}
        }
        tokio::select! {
            _ = cancel.cancelled() => return,
            _ = tokio::time::sleep(if leads.is_some() { CONFIGURE_EVERY } else { JOIN_CHECK_EVERY }) => {}
        }
    }
}
