//! The worker's plugins: Ferry's own, and with `plugin.path` set, the Java plugins the plugin
//! host finds there, registered under their class names beside the native ones.

use std::sync::Arc;
use std::time::Duration;

use anyhow::{anyhow, bail, Context};
use ferry_plugin_host::{HostSettings, PluginHost};
use ferry_runtime::config::worker::{
    WorkerConfig, PLUGIN_HOST_CALL_TIMEOUT_MS, PLUGIN_HOST_PER_CONNECTOR, PLUGIN_PATH,
    PLUGIN_PREFERENCE,
};
use ferry_runtime::plugins::{ConnectorPlugin, HostedPluginInfo, PluginKind, Registry};

use crate::logging::RuntimeLogLevels;

/// The registry, and the plugin host when `plugin.path` names any entry (no JVM otherwise).
/// `/admin/loggers` applies to the Java plugins' loggers too.
pub async fn registry(
    config: &WorkerConfig,
    worker_id: &str,
    log_levels: &Arc<RuntimeLogLevels>,
) -> anyhow::Result<(Registry, Option<Arc<PluginHost>>)> {
    // Bad automatic-restart settings stop start-up rather than leave restarts silently off.
    ferry_runtime::worker::auto_restart::RestartPolicy::from_worker_props(&config.originals)
        .map_err(|e| anyhow!(e))?;
    ferry_runtime::worker::auto_restart::RestartPolicy::for_connectors(&config.originals)
        .map_err(|e| anyhow!(e))?;
    let mut registry = Registry::builtin();
    add_test_connectors(&mut registry);
    registry.client_overrides =
        ferry_runtime::config::override_policy::ClientOverrides::from_worker_props(
            &config.originals,
        )
        .map_err(|e| anyhow!(e))?;
    let set = |v: &str| Some(v.to_owned()).filter(|v| !v.is_empty());
    registry.worker_converters = ferry_runtime::plugins::WorkerConverters {
        key: set(&config.key_converter),
        value: set(&config.value_converter),
        header: set(&config.header_converter),
    };
    registry.config_transformer =
        ferry_runtime::config::providers::ConfigTransformer::from_worker_props(&config.originals)?
            .map(Arc::new);
    let path = config
        .originals
        .get(PLUGIN_PATH)
        .map(|p| p.trim())
        .unwrap_or("");
    if path.is_empty() {
        return Ok((registry, None));
    }
    if !holds_plugins(path) {
        // An image's plugin.path (Strimzi's /opt/kafka/plugins) is often empty: no JVM then.
        tracing::info!(
            plugin_path = path,
            "plugin.path holds no plugins: Ferry's native plugins only, no plugin host started"
        );
        return Ok((registry, None));
    }
    let prefer_hosted = match config.originals.get(PLUGIN_PREFERENCE).map(|v| v.trim()) {
        None | Some("native") => false,
        Some("plugin.path") => true,
        Some(other) => bail!(
            "Invalid value {other} for configuration {PLUGIN_PREFERENCE}: must be native or plugin.path"
        ),
    };
    let call_timeout = match config.originals.get(PLUGIN_HOST_CALL_TIMEOUT_MS) {
        None => Duration::from_secs(300),
        Some(v) => Duration::from_millis(v.trim().parse().map_err(|_| {
            anyhow!("Invalid value {v} for configuration {PLUGIN_HOST_CALL_TIMEOUT_MS}: Not a number of type LONG")
        })?),
    };
    let per_connector = match config
        .originals
        .get(PLUGIN_HOST_PER_CONNECTOR)
        .map(|v| v.trim().to_ascii_lowercase())
        .as_deref()
    {
        None | Some("false") => false,
        Some("true") => true,
        Some(_) => bail!(
            "Invalid value {} for configuration {PLUGIN_HOST_PER_CONNECTOR}: Expected value to be either true or false",
            config.originals[PLUGIN_HOST_PER_CONNECTOR]
        ),
    };
    let home = HostSettings::find_home().ok_or_else(|| {
        anyhow!("plugin.path is set, but Ferry's plugin host is not built: run scripts/plugin-host build, or set FERRY_PLUGIN_HOST to its directory")
    })?;
    let mut worker_props = config.originals.clone();
    // The host builds Kafka's own WorkerConfig, which requires the converters.
    worker_props
        .entry("key.converter".to_owned())
        .or_insert_with(|| config.key_converter.clone());
    worker_props
        .entry("value.converter".to_owned())
        .or_insert_with(|| config.value_converter.clone());
    let settings = HostSettings {
        home,
        java: HostSettings::java(),
        worker_props,
        worker_id: worker_id.to_owned(),
        call_timeout,
        stop_timeout: config.task_shutdown_timeout,
        start_timeout: Duration::from_secs(300),
        per_connector,
        log_levels: log_levels.log4j_levels(),
    };
    let runtime = tokio::runtime::Handle::current();
    let host = tokio::task::spawn_blocking(move || PluginHost::start(settings, runtime))
        .await?
        .context("starting the plugin host for plugin.path")?;
    let forward = host.clone();
    log_levels.forward_to(move |logger, level| forward.set_log_level(logger, level));
    let mut connectors = Vec::new();
    let mut others = Vec::new();
    for p in host.plugins() {
        let kind = match p.kind.as_str() {
            "source" => PluginKind::Source,
            "sink" => PluginKind::Sink,
            "converter" => PluginKind::Converter,
            "header_converter" => PluginKind::HeaderConverter,
            "transformation" => PluginKind::Transformation,
            "predicate" => PluginKind::Predicate,
            _ => continue,
        };
        if matches!(kind, PluginKind::Source | PluginKind::Sink) {
            let (host, class) = (host.clone(), p.class_name.clone());
            let sink = kind == PluginKind::Sink;
            connectors.push(ConnectorPlugin {
                class_name: p.class_name.clone(),
                kind,
                version: p.version.clone(),
                create: Arc::new(move || host.connector(&class, sink)),
                hosted: true,
            });
        } else {
            let (host, class) = (host.clone(), p.class_name.clone());
            others.push(HostedPluginInfo {
                class_name: p.class_name.clone(),
                kind,
                version: p.version.clone(),
                config: Arc::new(move || host.plugin_config(&class)),
            });
        }
    }
    tracing::info!(
        connectors = connectors.len(),
        others = others.len(),
        prefer = if prefer_hosted {
            "plugin.path"
        } else {
            "native"
        },
        "Plugins found on plugin.path"
    );
    registry.add_hosted(connectors, others, prefer_hosted);
    Ok((registry, Some(host)))
}

/// Whether any `plugin.path` entry is a file or a directory with something in it (Java's
/// scan of empty or missing entries finds no plugin).
fn holds_plugins(plugin_path: &str) -> bool {
    plugin_path
        .split(',')
        .map(str::trim)
        .filter(|entry| !entry.is_empty())
        .any(|entry| {
            let entry = std::path::Path::new(entry);
            entry.is_file()
                || std::fs::read_dir(entry).is_ok_and(|mut listing| listing.next().is_some())
        })
}

/// The broker tests' hanging connectors, in their build only and when asked for.
#[cfg(feature = "kafka-integration-tests")]
fn add_test_connectors(registry: &mut Registry) {
    use ferry_api::connector::AnyConnector;
    use ferry_test_connectors as hanging;
    if std::env::var_os("FERRY_TEST_CONNECTORS").is_none() {
        return;
    }
    registry.add_hosted(
        vec![
            ConnectorPlugin::native(
                hanging::SOURCE_CLASS_NAME,
                PluginKind::Source,
                hanging::VERSION,
                || AnyConnector::Source(Box::<hanging::HangingConnector>::default()),
            ),
            ConnectorPlugin::native(
                hanging::SINK_CLASS_NAME,
                PluginKind::Sink,
                hanging::VERSION,
                || AnyConnector::Sink(Box::<hanging::HangingConnector>::default()),
            ),
        ],
        Vec::new(),
        false,
    );
}

#[cfg(not(feature = "kafka-integration-tests"))]
fn add_test_connectors(_: &mut Registry) {}

#[cfg(test)]
mod tests {
    use super::holds_plugins;

    #[test]
    fn empty_or_missing_plugin_path_entries_hold_no_plugins() {
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("empty");
        std::fs::create_dir(&empty).unwrap();
        let missing = dir.path().join("missing");
        let list = format!("{}, {}", empty.display(), missing.display());
        assert!(!holds_plugins(&list));
        std::fs::create_dir(empty.join("my-connector")).unwrap();
        assert!(holds_plugins(&list));
        let jar = dir.path().join("connector.jar");
        std::fs::write(&jar, b"PK").unwrap();
        assert!(holds_plugins(&jar.display().to_string()));
    }
}
