//! The plugin host as Ferry sees it: started once when `plugin.path` is set, started again
//! after it died when work needs it, and the worker-side state its calls rely on (offset
//! readers and connector contexts).

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ferry_api::config::ConfigDef;
use ferry_api::connector::{AnyConnector, ConnectorContext};
use ferry_api::task::OffsetStorageReader;
use ferry_api::{ConfigMap, ConnectError};
use serde_json::{json, Value};

use crate::connection::{java_error, Connection};
use crate::connector::HostedConnector;
use crate::error::HostError;
use crate::frame::Header;
use crate::lease::HostLease;

/// How to run the host.
#[derive(Debug, Clone)]
pub struct HostSettings {
    /// The directory holding `ferry-plugin-host.jar` and `lib/`.
    pub home: PathBuf,
    pub java: PathBuf,
    /// The worker's own properties; the host reads `plugin.path` and the converters from them.
    pub worker_props: ConfigMap,
    pub worker_id: String,
    /// Deadline of calls that have no other (start, poll, put, commit).
    pub call_timeout: Duration,
    /// Deadline of stops (`task.shutdown.graceful.timeout.ms`).
    pub stop_timeout: Duration,
    /// Deadline of the start-up scan of `plugin.path`.
    pub start_timeout: Duration,
    /// Each connector (with its tasks) in a host process of its own
    /// (`ferry.plugin.host.per.connector`); the shared host still answers plugin listings,
    /// validation and offset alterations.
    pub per_connector: bool,
    /// Log4j levels by logger (`root` included) every host starts with: the worker's root
    /// level and what `/admin/loggers` set.
    pub log_levels: BTreeMap<String, String>,
}

impl HostSettings {
    /// The host's directory: `FERRY_PLUGIN_HOST`, else `plugin-host/target` found from the
    /// running binary's directory upwards, else from the working directory, else the checkout
    /// the binary was built in.
    pub fn find_home() -> Option<PathBuf> {
        if let Some(dir) = std::env::var_os("FERRY_PLUGIN_HOST") {
            return Some(PathBuf::from(dir));
        }
        let exe = std::env::current_exe().ok();
        let starts = exe
            .iter()
            .filter_map(|e| e.parent().map(PathBuf::from))
            .chain(std::env::current_dir().ok());
        for start in starts {
            for dir in start.ancestors() {
                let candidate = dir.join("plugin-host/target");
                if candidate.join("ferry-plugin-host.jar").is_file() {
                    return Some(candidate);
                }
            }
        }
        // A binary copied out of the checkout (cargo install) still finds the host built in
        // the checkout it was built from.
        let built_in = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../plugin-host/target");
        built_in
            .join("ferry-plugin-host.jar")
            .is_file()
            .then_some(built_in)
    }

    /// `java` from `JAVA_HOME` when set, as Kafka's scripts choose it.
    pub fn java() -> PathBuf {
        match std::env::var_os("JAVA_HOME") {
            Some(home) => PathBuf::from(home).join("bin/java"),
            None => PathBuf::from("java"),
        }
    }
}

/// A plugin found on `plugin.path`, as the host listed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginInfo {
    pub class_name: String,
    /// Java's type name: `source`, `sink`, `converter`, `header_converter`, `transformation`, `predicate`.
    pub kind: String,
    pub version: String,
}

/// A running connector's context, with the host generation it was started on.
type ContextEntry = (u64, Arc<dyn ConnectorContext>);

/// What the host's calls and events reach on Ferry's side.
pub(crate) struct Hooks {
    pub runtime: tokio::runtime::Handle,
    readers: Mutex<HashMap<String, Arc<dyn OffsetStorageReader>>>,
    contexts: Mutex<HashMap<String, ContextEntry>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Hooks {
    pub fn register_reader(&self, connector: &str, reader: Arc<dyn OffsetStorageReader>) {
        lock(&self.readers).insert(connector.to_owned(), reader);
    }

    pub fn register_context(
        &self,
        connector: &str,
        generation: u64,
        context: Arc<dyn ConnectorContext>,
    ) {
        lock(&self.contexts).insert(connector.to_owned(), (generation, context));
    }

    pub fn forget_context(&self, connector: &str) {
        lock(&self.contexts).remove(connector);
    }

    /// Answers a call from the host: reads of stored source offsets.
    pub async fn answer(&self, header: &Header) -> Result<Value, ConnectError> {
        let op = header.get("op").and_then(Value::as_str).unwrap_or("");
        if op != "offsets.read" {
            return Err(ConnectError::other(format!("Ferry does not answer {op}")));
        }
        let connector = header
            .get("connector")
            .and_then(Value::as_str)
            .unwrap_or("");
        let reader = lock(&self.readers).get(connector).cloned().ok_or_else(|| {
            ConnectError::other(format!("No offsets are readable for connector {connector}"))
        })?;
        let mut offsets = Vec::new();
        for partition in header
            .get("partitions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let json = partition.as_str().unwrap_or("null");
            let partition = ferry_json::decode_offset(json.as_bytes())?;
            let offset = reader.offset(&partition).await?;
            offsets.push(match offset {
                Some(o) => Value::String(
                    String::from_utf8_lossy(&ferry_json::encode_offset(&o)?).into_owned(),
                ),
                None => Value::Null,
            });
        }
        Ok(json!({ "offsets": offsets }))
    }

    pub fn event(&self, generation: u64, header: &Header) {
        let connector = header
            .get("connector")
            .and_then(Value::as_str)
            .unwrap_or("");
        let context = match lock(&self.contexts).get(connector) {
            Some((g, c)) if *g == generation => c.clone(),
            _ => return,
        };
        match header.get("op").and_then(Value::as_str) {
            Some("connector.reconfigure") => context.request_task_reconfiguration(),
            Some("connector.error") => {
                context.raise_error(java_error(header.get("error").unwrap_or(&Value::Null)))
            }
            other => tracing::warn!(op = ?other, "Unknown event from the plugin host"),
        }
    }

    /// Connectors that ran in a host that died fail with the reason.
    pub fn host_exited(&self, generation: u64, cause: &str) {
        let failed: Vec<Arc<dyn ConnectorContext>> = {
            let mut contexts = lock(&self.contexts);
            let names: Vec<String> = contexts
                .iter()
                .filter(|(_, (g, _))| *g == generation)
                .map(|(n, _)| n.clone())
                .collect();
            names
                .iter()
                .filter_map(|n| contexts.remove(n))
                .map(|(_, c)| c)
                .collect()
        };
        for context in failed {
            context.raise_error(ConnectError::other(cause.to_owned()));
        }
    }
}

/// A connector's own host and how many of its connector and tasks hold it.
#[derive(Default)]
struct ConnectorHost {
    conn: Option<Arc<Connection>>,
    users: usize,
}

pub struct PluginHost {
    pub(crate) settings: HostSettings,
    pub(crate) hooks: Arc<Hooks>,
    /// Numbers every host process started, shared or per connector.
    generations: AtomicU64,
    shared: Mutex<Option<Arc<Connection>>>,
    per_connector: Mutex<HashMap<String, Arc<Mutex<ConnectorHost>>>>,
    plugins: Vec<PluginInfo>,
    /// The levels a host starts with, kept up to date by [`PluginHost::set_log_level`].
    log_levels: Mutex<BTreeMap<String, String>>,
}

impl PluginHost {
    /// Starts the host and scans `plugin.path`; call from within the Tokio runtime, off its
    /// async threads (the scan takes seconds).
    pub fn start(
        settings: HostSettings,
        runtime: tokio::runtime::Handle,
    ) -> Result<Arc<Self>, HostError> {
        let hooks = Arc::new(Hooks {
            runtime,
            readers: Mutex::default(),
            contexts: Mutex::default(),
        });
        let log_levels = Mutex::new(settings.log_levels.clone());
        let mut host = PluginHost {
            log_levels,
            settings,
            hooks,
            generations: AtomicU64::new(0),
            shared: Mutex::new(None),
            per_connector: Mutex::default(),
            plugins: Vec::new(),
        };
        let (conn, init) = host.start_process(None)?;
        *lock(&host.shared) = Some(conn);
        host.plugins = init
            .get("plugins")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|p| {
                let text = |k: &str| p.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
                PluginInfo {
                    class_name: text("class"),
                    kind: text("type"),
                    version: text("version"),
                }
            })
            .collect();
        Ok(Arc::new(host))
    }

    /// Starts a host process and waits for its scan of `plugin.path`.
    fn start_process(
        &self,
        connector: Option<&str>,
    ) -> Result<(Arc<Connection>, Value), HostError> {
        let generation = self.generations.fetch_add(1, Ordering::SeqCst) + 1;
        let conn = Connection::start(&self.settings, generation, connector, self.hooks.clone())?;
        let mut header = Header::new();
        header.insert("workerProps".into(), json!(self.settings.worker_props));
        header.insert("workerId".into(), json!(self.settings.worker_id));
        header.insert("logLevels".into(), json!(*lock(&self.log_levels)));
        let init = conn.call_blocking("init", header, &[], self.settings.start_timeout);
        match init {
            Ok((body, _)) => Ok((conn, body)),
            Err(e) => {
                conn.kill();
                Err(HostError::Start(e.to_string()))
            }
        }
    }

    /// The shared host, started again if it died.
    pub(crate) fn connection(&self) -> Result<Arc<Connection>, HostError> {
        let mut shared = lock(&self.shared);
        if let Some(conn) = shared.clone().filter(|c| c.is_alive()) {
            return Ok(conn);
        }
        tracing::info!("Starting the plugin host again");
        let (conn, _) = self.start_process(None)?;
        *shared = Some(conn.clone());
        Ok(conn)
    }

    /// The host a connector and its tasks run in: the shared one, or with `per_connector` the
    /// connector's own, started when its first holder comes.
    pub(crate) fn lease(self: &Arc<Self>, connector: &str) -> Result<HostLease, HostError> {
        if !self.settings.per_connector {
            return Ok(HostLease::new(self.connection()?, None, self.clone()));
        }
        let slot = lock(&self.per_connector)
            .entry(connector.to_owned())
            .or_default()
            .clone();
        let mut own = lock(&slot);
        let conn = match own.conn.clone().filter(|c| c.is_alive()) {
            Some(conn) => conn,
            None => {
                tracing::info!(connector, "Starting a plugin host for the connector");
                let (conn, _) = self.start_process(Some(connector))?;
                own.conn = Some(conn.clone());
                conn
            }
        };
        own.users += 1;
        Ok(HostLease::new(
            conn,
            Some(connector.to_owned()),
            self.clone(),
        ))
    }

    /// A holder of a connector's own host let go; the last one stops it after a grace period
    /// (the task shutdown timeout), unless the connector or a task took it again meanwhile.
    pub(crate) fn release(self: &Arc<Self>, connector: &str) {
        let Some(slot) = lock(&self.per_connector).get(connector).cloned() else {
            return;
        };
        {
            let mut own = lock(&slot);
            own.users = own.users.saturating_sub(1);
            if own.users > 0 {
                return;
            }
        }
        let connector = connector.to_owned();
        let grace = self.settings.stop_timeout.max(Duration::from_secs(1));
        // The slot stays in the map (a few bytes per connector name) so that a lease never
        // races its removal.
        let _ = std::thread::Builder::new()
            .name("ferry-host-release".into())
            .spawn(move || {
                std::thread::sleep(grace);
                let mut own = lock(&slot);
                if own.users > 0 {
                    return;
                }
                if let Some(conn) = own.conn.take() {
                    tracing::info!(
                        connector,
                        "Stopping the connector's plugin host: nothing runs in it any more"
                    );
                    conn.stop();
                }
            });
    }

    /// Sets a Java logger's level (a namespace and the loggers under it; `root` for the root)
    /// in every running host and in those started later: `/admin/loggers` for Java plugins.
    pub fn set_log_level(&self, logger: &str, level: &str) {
        lock(&self.log_levels).insert(logger.to_owned(), level.to_owned());
        let mut running: Vec<Arc<Connection>> = lock(&self.shared).iter().cloned().collect();
        let slots: Vec<_> = lock(&self.per_connector).values().cloned().collect();
        running.extend(slots.iter().filter_map(|s| lock(s).conn.clone()));
        for conn in running.into_iter().filter(|c| c.is_alive()) {
            let mut header = Header::new();
            header.insert("levels".into(), json!({ logger: level }));
            // The answer carries nothing; a host that died meanwhile starts with the new level.
            let _ = conn.send("loggers.set", header, &[], self.settings.call_timeout);
        }
    }

    /// The `ConfigDef` of a converter, header converter, transformation or predicate on
    /// `plugin.path`, read by the shared host.
    pub fn plugin_config(&self, class_name: &str) -> Result<ConfigDef, ConnectError> {
        let mut header = Header::new();
        header.insert("class".into(), json!(class_name));
        let (body, _) = self.connection()?.call_blocking(
            "plugin.config",
            header,
            &[],
            self.settings.call_timeout,
        )?;
        Ok(crate::connector::config_def_from_keys(&body))
    }

    pub fn plugins(&self) -> &[PluginInfo] {
        &self.plugins
    }

    /// A new instance of a Java connector class found on `plugin.path`.
    pub fn connector(self: &Arc<Self>, class_name: &str, sink: bool) -> AnyConnector {
        HostedConnector::any(self.clone(), class_name.to_owned(), sink)
    }

    /// Ends every host process (Ferry is stopping).
    pub fn shutdown(&self) {
        if let Some(conn) = lock(&self.shared).take() {
            conn.stop();
        }
        for slot in std::mem::take(&mut *lock(&self.per_connector)).into_values() {
            if let Some(conn) = lock(&slot).conn.take() {
                conn.stop();
            }
        }
    }

    /// Kills the shared host, as an out-of-memory error or `kill -9` would (tests use it).
    pub fn kill_for_test(&self) {
        if let Some(conn) = lock(&self.shared).clone() {
            conn.kill();
        }
    }
}
