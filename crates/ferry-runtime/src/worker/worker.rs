//! Runs connector instances and task pipelines, each task in its own Tokio task and span.

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ferry_api::connector::{AnyConnector, ConnectorContext};
use ferry_api::{ConfigMap, ConnectError};
use futures::FutureExt;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::config::connector::{ConnectorConfig, TOPICS, TOPICS_REGEX};
use crate::config::worker::WorkerConfig;
use crate::errors::ErrorHandler;
use crate::metrics::{ConnectMetrics, ConnectorInfo, TaskKind};
use crate::plugins::{PluginKind, Registry};
use crate::status::{State, Status, StatusStore, TaskId};
use crate::storage::connector_offsets::{ConnectorOffsetStore, OffsetTopics};
use crate::storage::offsets::{ConnectorOffsetReader, OffsetBackingStore};
use crate::worker::auto_restart::{RestartPolicy, RestartTarget, RestartTracker};
use crate::worker::clients::{ClientFactory, KafkaClients};
use crate::worker::connector_thread::{panic_message, ConnectorThread, PendingStop, StopLatch};
use crate::worker::converters::task_converters;
use crate::worker::exactly_once::ExactlyOnce;
use crate::worker::task_context::{TargetState, TaskContext};
use crate::worker::transformation_chain::TransformationChain;
use crate::worker::{sink_task, source_task};
use ferry_api::task::OffsetStorageReader;

/// Failures of the worker's own bookkeeping, as opposed to a plugin's.
#[derive(Debug, thiserror::Error)]
pub enum ConnectorRuntimeError {
    #[error("Connector {0} is not running on this worker")]
    NotRunning(String),
    #[error("Failed to find any class that implements Connector and which name matches {0}")]
    UnknownClass(String),
    #[error(transparent)]
    Plugin(#[from] ConnectError),
}

struct RunningConnector {
    thread: ConnectorThread,
    /// Tells this start from a later one of the same name.
    instance: u64,
    /// Set once `start` returned successfully (task configs are asked only then).
    started: Arc<AtomicBool>,
}

/// After this long a lifecycle call that has not returned is reported in the connector's
/// status, so a user sees what it waits on.
pub const SLOW_CALL_NOTICE: Duration = Duration::from_secs(5);

struct RunningTask {
    cancel: CancellationToken,
    handle: JoinHandle<()>,
}

pub struct Worker {
    worker_id: String,
    config: Arc<WorkerConfig>,
    registry: Arc<Registry>,
    offsets: Arc<dyn OffsetBackingStore>,
    status: Arc<dyn StatusStore>,
    connectors: Arc<Mutex<HashMap<String, RunningConnector>>>,
    /// Stops not known to have returned, by connector: the next instance of the name waits for
    /// its predecessor's.
    stopping: Mutex<HashMap<String, Arc<StopLatch>>>,
    next_instance: AtomicU64,
    /// Target states outlive connector instances, so tasks keep following them across a
    /// restart of their connector; removed when the connector is forgotten.
    targets: Mutex<HashMap<String, watch::Sender<TargetState>>>,
    tasks: Mutex<HashMap<TaskId, RunningTask>>,
    shutdown: CancellationToken,
    /// Connectors that asked for their task configs to be regenerated.
    reconfigure: mpsc::UnboundedSender<String>,
    /// Automatic restarts of failed tasks (`ferry.task.restart.*`; off unless enabled).
    auto_restart: Option<RestartPolicy>,
    restart_tracker: Arc<RestartTracker>,
    /// Automatic restarts of failed connectors (`ferry.connector.restart.*`; off unless enabled).
    connector_restart: Option<RestartPolicy>,
    restart_tx: mpsc::UnboundedSender<RestartTarget>,
    restart_rx: Mutex<Option<mpsc::UnboundedReceiver<RestartTarget>>>,
    metrics: Arc<ConnectMetrics>,
    /// Makes tasks' producers and consumers (librdkafka's, except in unit tests).
    clients: Arc<dyn ClientFactory>,
    /// Connectors' own offsets topics (`offsets.storage.topic`; distributed mode only).
    offset_topics: Option<Arc<dyn OffsetTopics>>,
}

struct WorkerConnectorContext {
    name: String,
    worker_id: String,
    status: Arc<dyn StatusStore>,
    reconfigure: mpsc::UnboundedSender<String>,
    offsets: Arc<dyn OffsetBackingStore>,
    sink: bool,
    restart: Option<RestartHandle>,
}

impl ConnectorContext for WorkerConnectorContext {
    fn request_task_reconfiguration(&self) {
        let _ = self.reconfigure.send(self.name.clone());
    }

    fn raise_error(&self, error: ConnectError) {
        tracing::error!(connector = %self.name, %error, "Connector raised an error");
        self.status.put_connector(
            &self.name,
            Status {
                state: State::Failed,
                trace: Some(error.trace()),
                worker_id: self.worker_id.clone(),
                generation: 0,
            },
        );
        schedule_restart(
            self.restart.clone(),
            RestartTarget::Connector(self.name.clone()),
        );
    }

    fn offset_reader(&self) -> Option<Arc<dyn OffsetStorageReader>> {
        (!self.sink).then(|| {
            Arc::new(ConnectorOffsetReader {
                connector: self.name.clone(),
                store: self.offsets.clone(),
            }) as Arc<dyn OffsetStorageReader>
        })
    }
}

/// What becomes of a connector once its `start` returns: its status and metrics, and a request
/// for task configs when it runs. Skipped for an instance stopped or replaced meanwhile.
#[derive(Clone)]
struct StartOutcome {
    name: String,
    instance: u64,
    target: TargetState,
    info: ConnectorInfo,
    started: Arc<AtomicBool>,
    connectors: Arc<Mutex<HashMap<String, RunningConnector>>>,
    status: Arc<dyn StatusStore>,
    worker_id: String,
    metrics: Arc<ConnectMetrics>,
    restart_tracker: Arc<RestartTracker>,
    restart: Option<RestartHandle>,
    reconfigure: mpsc::UnboundedSender<String>,
    done: Arc<AtomicBool>,
    reported: Arc<watch::Sender<Option<Result<(), String>>>>,
}

/// A connector's stop, for whoever waits on it: done once `stop` returned or the connector was
/// abandoned after the graceful timeout.
pub struct ConnectorStop(Option<tokio::sync::oneshot::Receiver<()>>);

impl ConnectorStop {
    pub async fn wait(self) {
        if let Some(stopped) = self.0 {
            let _ = stopped.await;
        }
    }
}

/// How a connector's start went, for whoever waits on it.
pub struct StartWait(watch::Receiver<Option<Result<(), String>>>);

impl StartWait {
    /// The start's outcome, or `None` if it has not returned within `timeout`.
    pub async fn outcome(mut self, timeout: Duration) -> Option<Result<(), String>> {
        let waited = tokio::time::timeout(timeout, self.0.wait_for(Option::is_some)).await;
        match waited {
            Ok(Ok(outcome)) => outcome.clone(),
            // The connector was dropped before reporting (stopped while starting).
            Ok(Err(_)) => Some(Err("The connector was stopped while starting".to_owned())),
            Err(_) => None,
        }
    }
}

impl StartOutcome {
    fn current(&self) -> bool {
        lock(&self.connectors)
            .get(&self.name)
            .is_some_and(|r| r.instance == self.instance)
    }

    fn put_status(&self, state: State, trace: Option<String>) {
        self.status.put_connector(
            &self.name,
            Status {
                state,
                trace,
                worker_id: self.worker_id.clone(),
                generation: 0,
            },
        );
    }

    fn finish(&self, result: Result<(), ConnectError>) {
        self.done.store(true, Ordering::Release);
        let outcome = Some(result.as_ref().map(|_| ()).map_err(|e| e.to_string()));
        self.apply(result);
        // Reported last: whoever waits on the start then finds its status and `started` set,
        // and can ask the connector for task configs straight away.
        self.reported.send_replace(outcome);
    }

    fn apply(&self, result: Result<(), ConnectError>) {
        if !self.current() {
            tracing::info!(connector = %self.name, "A connector stopped while starting has returned from start");
            return;
        }
        match result {
            Err(e) => {
                tracing::error!(connector = %self.name, error = %e, "Failed to start connector");
                lock(&self.connectors).remove(&self.name);
                self.put_status(State::Failed, Some(e.trace()));
                self.metrics.connector_started(&self.name, None);
                schedule_restart(
                    self.restart.clone(),
                    RestartTarget::Connector(self.name.clone()),
                );
            }
            Ok(()) => {
                self.metrics
                    .connector_started(&self.name, Some(self.info.clone()));
                let state = match self.target {
                    TargetState::Started => State::Running,
                    TargetState::Paused => State::Paused,
                    TargetState::Stopped => State::Stopped,
                };
                tracing::info!(connector = %self.name, state = %state, "Connector started");
                self.restart_tracker
                    .started(&RestartTarget::Connector(self.name.clone()));
                self.put_status(state, None);
                self.started.store(true, Ordering::Release);
                if self.target != TargetState::Stopped {
                    let _ = self.reconfigure.send(self.name.clone());
                }
            }
        }
    }

    /// A start that has not returned after `SLOW_CALL_NOTICE` shows in the connector's status:
    /// UNASSIGNED (it is not running yet), with a trace naming the call it waits on.
    fn watch_for_slow_start(&self, shutdown: CancellationToken) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let outcome = self.clone();
        runtime.spawn(async move {
            tokio::select! {
                _ = shutdown.cancelled() => {}
                _ = tokio::time::sleep(SLOW_CALL_NOTICE) => {
                    if !outcome.done.load(Ordering::Acquire) && outcome.current() {
                        let message = format!(
                            "The connector's start() has not returned after {} ms; the worker is still waiting for it",
                            SLOW_CALL_NOTICE.as_millis()
                        );
                        tracing::warn!(connector = %outcome.name, "{message}");
                        outcome.put_status(
                            State::Unassigned,
                            Some(ConnectError::other(message).trace()),
                        );
                    }
                }
            }
        });
    }
}

type RestartHandle = (
    RestartPolicy,
    Arc<RestartTracker>,
    mpsc::UnboundedSender<RestartTarget>,
    CancellationToken,
);

/// After a failure, asks for an automatic restart once the backoff has passed (if enabled and
/// attempts remain).
fn schedule_restart(restart: Option<RestartHandle>, id: RestartTarget) {
    let Some((policy, tracker, requests, shutdown)) = restart else {
        return;
    };
    let (what, title) = match &id {
        RestartTarget::Connector(_) => ("connector", "Connector"),
        RestartTarget::Task(_) => ("task", "Task"),
    };
    let Some((attempt, delay)) = tracker.failed(&id, &policy) else {
        tracing::error!(
            attempts = policy.max_attempts,
            "{title} failed on every automatic restart; it stays FAILED until restarted by hand"
        );
        return;
    };
    tracing::warn!(
        attempt,
        of = policy.max_attempts,
        delay_ms = delay.as_millis() as u64,
        "Restarting the failed {what} automatically"
    );
    tokio::spawn(async move {
        tokio::select! {
            _ = shutdown.cancelled() => {}
            _ = tokio::time::sleep(delay) => {
                let _ = requests.send(id);
            }
        }
    });
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panic while holding these locks cannot leave the maps half-updated (single inserts and
    // removes), so a poisoned lock is still safe to use.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Worker {
    pub fn new(
        worker_id: String,
        config: Arc<WorkerConfig>,
        registry: Arc<Registry>,
        offsets: Arc<dyn OffsetBackingStore>,
        status: Arc<dyn StatusStore>,
        shutdown: CancellationToken,
        reconfigure: mpsc::UnboundedSender<String>,
    ) -> Self {
        let auto_restart =
            RestartPolicy::from_worker_props(&config.originals).unwrap_or_else(|error| {
                tracing::error!(%error, "Automatic task restarts are off");
                None
            });
        let connector_restart =
            RestartPolicy::for_connectors(&config.originals).unwrap_or_else(|error| {
                tracing::error!(%error, "Automatic connector restarts are off");
                None
            });
        let (restart_tx, restart_rx) = mpsc::unbounded_channel();
        let metrics = Arc::new(ConnectMetrics::for_worker(&worker_id));
        Worker {
            auto_restart,
            connector_restart,
            restart_tracker: Arc::default(),
            restart_tx,
            restart_rx: Mutex::new(Some(restart_rx)),
            worker_id,
            config,
            registry,
            offsets,
            status,
            connectors: Arc::default(),
            stopping: Mutex::default(),
            next_instance: AtomicU64::new(0),
            targets: Mutex::default(),
            tasks: Mutex::default(),
            shutdown,
            reconfigure,
            metrics,
            clients: Arc::new(KafkaClients),
            offset_topics: None,
        }
    }

    /// Distributed mode: source connectors may name an offsets topic of their own.
    pub fn with_offset_topics(mut self, topics: Arc<dyn OffsetTopics>) -> Self {
        self.offset_topics = Some(topics);
        self
    }

    /// A connector's own offsets topic (`offsets.storage.topic`, distributed mode), when it
    /// names one other than the worker's.
    pub fn own_offsets_topic<'a>(&self, connector_props: &'a ConfigMap) -> Option<&'a str> {
        let topics = self.offset_topics.as_ref()?;
        connector_props
            .get(crate::config::connector::OFFSETS_STORAGE_TOPIC)
            .map(|t| t.trim())
            .filter(|t| !t.is_empty() && *t != topics.worker_topic())
    }

    /// Where a connector's offsets are read and written: its own offsets topic combined with
    /// the worker's when it names one (distributed mode), the worker's otherwise.
    pub fn offset_store_for(&self, connector_props: &ConfigMap) -> Arc<dyn OffsetBackingStore> {
        match (&self.offset_topics, self.own_offsets_topic(connector_props)) {
            (Some(topics), Some(topic)) => Arc::new(ConnectorOffsetStore::new(
                topic,
                topics.clone(),
                self.offsets.clone(),
            )),
            _ => self.offsets.clone(),
        }
    }

    /// The same worker with tasks whose clients `clients` makes (in-memory ones in unit tests).
    #[cfg(any(test, feature = "test-support"))]
    pub(crate) fn with_clients(mut self, clients: Arc<dyn ClientFactory>) -> Self {
        self.clients = clients;
        self
    }

    /// The same worker with tasks on in-memory Kafka clients, for the herders' tests without a
    /// broker (feature `test-support`).
    #[cfg(any(test, feature = "test-support"))]
    pub fn with_in_memory_clients(self) -> Self {
        self.with_clients(Arc::new(super::fakes::FakeClients::default()))
    }

    /// What this worker runs and how it went, for `GET /metrics`.
    pub fn metrics(&self) -> &Arc<ConnectMetrics> {
        &self.metrics
    }

    /// The Prometheus text exposition of this worker's metrics.
    pub fn render_metrics(&self) -> String {
        self.metrics.render(self.status.as_ref())
    }

    /// The tasks that failed and are due for an automatic restart (taken once, by whoever
    /// restarts them through the herder).
    pub fn take_restart_requests(&self) -> Option<mpsc::UnboundedReceiver<RestartTarget>> {
        lock(&self.restart_rx).take()
    }

    /// Whether a connector's last reported state is FAILED.
    pub fn connector_failed(&self, name: &str) -> bool {
        self.status
            .connector(name)
            .is_some_and(|s| s.state == State::Failed)
    }

    fn connector_restart_handle(&self) -> Option<RestartHandle> {
        self.connector_restart.clone().map(|policy| {
            (
                policy,
                self.restart_tracker.clone(),
                self.restart_tx.clone(),
                self.shutdown.clone(),
            )
        })
    }

    /// Whether a task's last reported state is FAILED.
    pub fn task_failed(&self, id: &TaskId) -> bool {
        self.status
            .task(id)
            .is_some_and(|s| s.state == State::Failed)
    }

    pub fn worker_id(&self) -> &str {
        &self.worker_id
    }

    pub fn config(&self) -> &Arc<WorkerConfig> {
        &self.config
    }

    pub fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    pub fn status_store(&self) -> &Arc<dyn StatusStore> {
        &self.status
    }

    pub fn offset_store(&self) -> &Arc<dyn OffsetBackingStore> {
        &self.offsets
    }

    fn connector_status(&self, name: &str, state: State, trace: Option<String>) {
        self.status.put_connector(
            name,
            Status {
                state,
                trace,
                worker_id: self.worker_id.clone(),
                generation: 0,
            },
        );
    }

    /// Creates and starts a connector instance; a failure leaves it FAILED with its trace.
    pub fn start_connector(
        &self,
        name: &str,
        props: &ConfigMap,
        target: TargetState,
    ) -> Result<StartWait, ConnectorRuntimeError> {
        let span = tracing::info_span!("connector", connector = %name);
        let _entered = span.enter();
        let class = props
            .get(crate::config::connector::CONNECTOR_CLASS)
            .cloned()
            .unwrap_or_default();
        let Some(plugin) = self.registry.connector(&class) else {
            let err = ConnectorRuntimeError::UnknownClass(class);
            self.connector_status(name, State::Failed, Some(err.to_string()));
            self.metrics.connector_started(name, None);
            schedule_restart(
                self.connector_restart_handle(),
                RestartTarget::Connector(name.to_owned()),
            );
            return Err(err);
        };
        let instance = (plugin.create)();
        let context = Arc::new(WorkerConnectorContext {
            name: name.to_owned(),
            worker_id: self.worker_id.clone(),
            status: self.status.clone(),
            reconfigure: self.reconfigure.clone(),
            offsets: self.offset_store_for(props),
            sink: plugin.kind == PluginKind::Sink,
            restart: self.connector_restart_handle(),
        });
        let previous = lock(&self.stopping)
            .remove(name)
            .map(|latch| (latch, self.config.task_shutdown_timeout));
        let thread = ConnectorThread::spawn(name, instance, previous).map_err(|e| {
            ConnectError::other(format!("Could not start a thread for the connector: {e}"))
        })?;
        lock(&self.targets)
            .entry(name.to_owned())
            .and_modify(|t| {
                t.send_replace(target);
            })
            .or_insert_with(|| watch::channel(target).0);
        let instance_id = self.next_instance.fetch_add(1, Ordering::Relaxed);
        let (reported, wait) = watch::channel(None);
        let started = Arc::new(AtomicBool::new(false));
        let info = ConnectorInfo {
            class: plugin.class_name.clone(),
            kind: if plugin.kind == PluginKind::Sink {
                "sink"
            } else {
                "source"
            },
            version: plugin.version.clone(),
        };
        let outcome = StartOutcome {
            name: name.to_owned(),
            instance: instance_id,
            target,
            info,
            started: started.clone(),
            connectors: self.connectors.clone(),
            status: self.status.clone(),
            worker_id: self.worker_id.clone(),
            metrics: self.metrics.clone(),
            restart_tracker: self.restart_tracker.clone(),
            restart: self.connector_restart_handle(),
            reconfigure: self.reconfigure.clone(),
            done: Arc::new(AtomicBool::new(false)),
            reported: Arc::new(reported),
        };
        let then = outcome.clone();
        if target != TargetState::Stopped {
            // The connector sees its provider variables resolved; stores keep them as written.
            let resolved = self.registry.resolve(props);
            // A connector being started answers its status at once: UNASSIGNED until its start
            // returns (a restart keeps showing RESTARTING).
            if self.status.connector(name).is_none() {
                self.connector_status(name, State::Unassigned, None);
            }
            outcome.watch_for_slow_start(self.shutdown.clone());
            // Inserted first, so the outcome finds its instance here.
            let jobs = thread.clone();
            lock(&self.connectors).insert(
                name.to_owned(),
                RunningConnector {
                    thread,
                    instance: instance_id,
                    started,
                },
            );
            jobs.start(resolved, context, move |result| then.finish(result));
        } else {
            lock(&self.connectors).insert(
                name.to_owned(),
                RunningConnector {
                    thread,
                    instance: instance_id,
                    started,
                },
            );
            then.finish(Ok(()));
        }
        Ok(StartWait(wait))
    }

    /// The task configs a running connector wants, at most its `tasks.max` (Java's
    /// enforcement).
    pub async fn task_configs(
        &self,
        name: &str,
        connector: &ConnectorConfig,
    ) -> Result<Vec<ConfigMap>, ConnectorRuntimeError> {
        let (connector_props, max_tasks) = (&connector.props, connector.tasks_max);
        // The answer is awaited without the lock: a connector slow in taskConfigs holds only
        // its own thread.
        let (thread, instance) = lock(&self.connectors)
            .get(name)
            .filter(|r| r.started.load(Ordering::Acquire))
            .map(|r| (r.thread.clone(), r.instance))
            .ok_or_else(|| ConnectorRuntimeError::NotRunning(name.to_owned()))?;
        let answer = thread.task_configs(max_tasks);
        tokio::pin!(answer);
        let generated = match tokio::time::timeout(SLOW_CALL_NOTICE, &mut answer).await {
            Ok(generated) => generated?,
            Err(_) => {
                // The connector runs, without tasks yet: its status says what they wait on,
                // until the call returns.
                let message = format!(
                    "The connector's taskConfigs() has not returned after {} ms; its tasks start once it does",
                    SLOW_CALL_NOTICE.as_millis()
                );
                tracing::warn!(connector = %name, "{message}");
                // Not for an instance stopped, replaced or paused meanwhile.
                let still_this = || {
                    lock(&self.connectors)
                        .get(name)
                        .is_some_and(|r| r.instance == instance)
                        && self.connector_target(name) == Some(TargetState::Started)
                };
                if still_this() {
                    let trace = ConnectError::other(message).trace();
                    self.connector_status(name, State::Running, Some(trace));
                }
                let generated = answer.await;
                if still_this() {
                    self.connector_status(name, State::Running, None);
                }
                generated?
            }
        };
        let mut configs = generated.configs;
        if configs.len() > max_tasks && connector.tasks_max_enforce {
            return Err(ConnectError::other(format!(
                "The connector {name} has generated {} tasks, which is greater than {max_tasks}, the maximum number of tasks it is configured to create.",
                configs.len()
            ))
            .into());
        }
        let task_class = generated.task_class.or_else(|| {
            self.registry
                .connector(&connector.class)
                .map(|p| task_class_of(&p.class_name))
        });
        if let Some(task_class) = task_class {
            for c in &mut configs {
                c.insert(TASK_CLASS.to_owned(), task_class.clone());
            }
        }
        if generated.sink {
            for c in &mut configs {
                for k in [TOPICS, TOPICS_REGEX] {
                    if let Some(v) = connector_props.get(k) {
                        c.insert(k.to_owned(), v.clone());
                    }
                }
            }
        }
        // Stored task configs keep the connector's variables, not the secrets they resolve to.
        if self.registry.config_transformer.is_some() {
            configs =
                crate::config::providers::ConfigTransformer::reverse(connector_props, configs);
        }
        Ok(configs)
    }

    /// Stops a connector without waiting for it: its status and metrics say so at once, its
    /// thread gets up to `task.shutdown.graceful.timeout.ms` and is then abandoned, as Java
    /// abandons a connector that does not stop. The answer tells when either happened.
    pub fn stop_connector(&self, name: &str) -> ConnectorStop {
        let running = lock(&self.connectors).remove(name);
        let Some(running) = running else {
            return ConnectorStop(None);
        };
        let PendingStop { latch, answer } = running.thread.stop();
        lock(&self.stopping).insert(name.to_owned(), latch);
        self.metrics.connector_stopped(name);
        // As Java's shutdown listener does; in distributed mode the write is conditional, so
        // it never hides the state a new owner reported.
        self.connector_status(name, State::Unassigned, None);
        let timeout = self.config.task_shutdown_timeout;
        let (done, stopped) = tokio::sync::oneshot::channel();
        let span = tracing::info_span!("connector", connector = %name);
        tokio::spawn(
            async move {
                match tokio::time::timeout(timeout, answer).await {
                    Ok(Ok(Ok(()))) => tracing::info!("Connector stopped"),
                    Ok(Ok(Err(error))) => tracing::warn!(%error, "Connector failed while stopping"),
                    Ok(Err(_)) => tracing::warn!("The connector's thread ended while stopping"),
                    Err(_) => tracing::error!(
                        timeout_ms = timeout.as_millis() as u64,
                        "Connector did not stop within the graceful shutdown timeout; abandoning it"
                    ),
                }
                let _ = done.send(());
            }
            .instrument(span),
        );
        ConnectorStop(Some(stopped))
    }

    /// Forgets a deleted connector's target state.
    pub fn forget_connector(&self, name: &str) {
        lock(&self.targets).remove(name);
    }

    /// Whether a connector instance is here, started or still starting.
    pub fn is_connector_running(&self, name: &str) -> bool {
        lock(&self.connectors).contains_key(name)
    }

    /// Whether a connector's `start` has returned successfully here (it can be asked for task
    /// configs).
    pub fn is_connector_started(&self, name: &str) -> bool {
        lock(&self.connectors)
            .get(name)
            .is_some_and(|r| r.started.load(Ordering::Acquire))
    }

    /// Changes the target state of a connector and its tasks. The state is kept even when only
    /// tasks of the connector run here (distributed mode); the connector's status is written
    /// only when its instance runs on this worker.
    pub fn set_target_state(&self, name: &str, state: TargetState) {
        lock(&self.targets)
            .entry(name.to_owned())
            .and_modify(|t| {
                t.send_replace(state);
            })
            .or_insert_with(|| watch::channel(state).0);
        if self.is_connector_running(name) {
            let s = match state {
                TargetState::Started => State::Running,
                TargetState::Paused => State::Paused,
                TargetState::Stopped => State::Stopped,
            };
            self.connector_status(name, s, None);
        }
    }

    /// The target state this worker holds for a connector.
    pub fn connector_target(&self, name: &str) -> Option<TargetState> {
        lock(&self.targets).get(name).map(|t| *t.borrow())
    }

    /// Gives a connector a target state for its tasks here, unless it has one already (a
    /// connector running elsewhere, distributed mode).
    pub fn ensure_target_state(&self, name: &str, state: TargetState) {
        lock(&self.targets)
            .entry(name.to_owned())
            .or_insert_with(|| watch::channel(state).0);
    }

    /// Starts one task; a failure to build it leaves it FAILED with its trace.
    pub fn start_task(
        &self,
        id: TaskId,
        connector_props: &ConfigMap,
        task_props: ConfigMap,
    ) -> Result<(), ConnectorRuntimeError> {
        self.start_task_with(id, connector_props, task_props, None)
    }

    /// Starts one task; a source task given `exactly_once` writes its records and offsets in
    /// transactions (distributed mode with `exactly.once.source.support=enabled`).
    pub fn start_task_with(
        &self,
        id: TaskId,
        connector_props: &ConfigMap,
        task_props: ConfigMap,
        exactly_once: Option<ExactlyOnce>,
    ) -> Result<(), ConnectorRuntimeError> {
        let (connector_props, task_props) = (
            &self.registry.resolve(connector_props),
            self.registry.resolve(&task_props),
        );
        let built = self.build_task(&id, connector_props, task_props, exactly_once);
        let (ctx, runner) = match built {
            Ok(b) => b,
            Err(e) => {
                self.metrics.task_start_failed();
                self.status.put_task(
                    &id,
                    Status {
                        state: State::Failed,
                        trace: Some(e.trace()),
                        worker_id: self.worker_id.clone(),
                        generation: 0,
                    },
                );
                return Err(e.into());
            }
        };
        let cancel = ctx.cancel.clone();
        let status = self.status.clone();
        let worker_id = self.worker_id.clone();
        let task_id = id.clone();
        self.restart_tracker
            .started(&RestartTarget::Task(id.clone()));
        let restart = self.auto_restart.clone().map(|policy| {
            (
                policy,
                self.restart_tracker.clone(),
                self.restart_tx.clone(),
                self.shutdown.clone(),
            )
        });
        let span = tracing::info_span!("task", connector = %id.connector, task = id.task);
        let handle = tokio::spawn(
            async move {
                let put = |state, trace| status.put_task(&task_id, Status { state, trace, worker_id: worker_id.clone(), generation: 0 });
                match AssertUnwindSafe(runner(ctx)).catch_unwind().await {
                    Ok(Ok(())) => {
                        tracing::info!("Task stopped");
                        put(State::Unassigned, None);
                    }
                    Ok(Err(e)) => {
                        tracing::error!(error = %e, "Task threw an uncaught and unrecoverable exception. Task is being killed and will not recover until manually restarted");
                        put(State::Failed, Some(e.trace()));
                        schedule_restart(restart, RestartTarget::Task(task_id));
                    }
                    Err(panic) => {
                        let message = panic_message(&panic);
                        tracing::error!(panic = %message, "Task panicked. Task is being killed and will not recover until manually restarted");
                        put(State::Failed, Some(format!("org.apache.kafka.connect.errors.ConnectException: task panicked: {message}")));
                        schedule_restart(restart, RestartTarget::Task(task_id));
                    }
                }
            }
            .instrument(span),
        );
        lock(&self.tasks).insert(id, RunningTask { cancel, handle });
        Ok(())
    }

    #[allow(clippy::type_complexity)]
    fn build_task(
        &self,
        id: &TaskId,
        connector_props: &ConfigMap,
        task_props: ConfigMap,
        exactly_once: Option<ExactlyOnce>,
    ) -> Result<
        (
            TaskContext,
            Box<
                dyn FnOnce(
                        TaskContext,
                    )
                        -> futures::future::BoxFuture<'static, Result<(), ConnectError>>
                    + Send,
            >,
        ),
        ConnectError,
    > {
        // As Java's Worker: a config stored before the policy changed cannot slip through.
        let refused = self.registry.override_problems(connector_props);
        if !refused.is_empty() {
            let messages: Vec<String> = refused.into_iter().map(|(_, m)| m).collect();
            return Err(ConnectError::other(format!(
                "Client Config Overrides not allowed: {}",
                messages.join(" ")
            )));
        }
        // Tasks come from a fresh plugin instance, as Java instantiates the task class: the
        // connector itself may run on another worker.
        let connector = ConnectorConfig::from_stored(connector_props);
        let plugin = self.registry.connector(&connector.class).ok_or_else(|| {
            ConnectError::other(
                ConnectorRuntimeError::UnknownClass(connector.class.clone()).to_string(),
            )
        })?;
        let instance = (plugin.create)();
        let converters =
            task_converters(&self.registry, connector_props, &self.config, plugin.hosted)?;
        // A hosted connector's chain runs in the plugin host, with Kafka's own classes.
        let chain = if plugin.hosted {
            TransformationChain::default()
        } else {
            TransformationChain::from_config(&self.registry, connector_props)?
        };
        let cancel = self.shutdown.child_token();
        let kind = match &instance {
            AnyConnector::Source(_) => TaskKind::Source,
            AnyConnector::Sink(_) => TaskKind::Sink,
        };
        let target = lock(&self.targets)
            .get(&id.connector)
            .map(watch::Sender::subscribe)
            .ok_or_else(|| {
                ConnectError::other(format!("Connector {} has no target state", id.connector))
            })?;
        let metrics = self.metrics.task_started(id, kind);
        let ctx = TaskContext {
            id: id.clone(),
            worker_id: self.worker_id.clone(),
            worker: self.config.clone(),
            task_props,
            key_converter: converters.key,
            value_converter: converters.value,
            header_converter: converters.header,
            converter_classes: converters.classes,
            chain,
            errors: ErrorHandler::new(
                connector.errors.clone(),
                cancel.clone(),
                metrics.errors.clone(),
            ),
            connector,
            metrics,
            status: self.status.clone(),
            offsets: self.offset_store_for(connector_props),
            target,
            cancel,
            clients: self.clients.clone(),
            exactly_once,
        };
        let runner: Box<
            dyn FnOnce(TaskContext) -> futures::future::BoxFuture<'static, Result<(), ConnectError>>
                + Send,
        > = match &instance {
            AnyConnector::Source(c) => {
                let task = c.create_task();
                Box::new(move |ctx| source_task::run(ctx, task).boxed())
            }
            AnyConnector::Sink(c) => {
                let task = c.create_task();
                Box::new(move |ctx| sink_task::run(ctx, task).boxed())
            }
        };
        Ok((ctx, runner))
    }

    /// The tasks of a connector that run on this worker.
    pub fn tasks_of(&self, connector: &str) -> Vec<TaskId> {
        lock(&self.tasks)
            .keys()
            .filter(|id| id.connector == connector)
            .cloned()
            .collect()
    }

    /// Stops tasks: each gets `task.shutdown.graceful.timeout.ms` in total to finish its stop
    /// path (commit included); those still running then are aborted, as Java cancels them.
    pub async fn stop_tasks(&self, ids: &[TaskId]) {
        let stopping: Vec<(TaskId, RunningTask)> = {
            let mut tasks = lock(&self.tasks);
            ids.iter()
                .filter_map(|id| tasks.remove(id).map(|t| (id.clone(), t)))
                .collect()
        };
        for (id, t) in &stopping {
            t.cancel.cancel();
            self.metrics.task_stopped(id);
        }
        let deadline = tokio::time::Instant::now() + self.config.task_shutdown_timeout;
        for (id, t) in stopping {
            let abort = t.handle.abort_handle();
            if tokio::time::timeout_at(deadline, t.handle).await.is_err() {
                tracing::error!(task = %id, "Graceful stop of task failed; cancelling it");
                abort.abort();
            }
        }
    }

    /// Stops every task and connector.
    pub async fn stop_all(&self) {
        let ids: Vec<TaskId> = lock(&self.tasks).keys().cloned().collect();
        self.stop_tasks(&ids).await;
        let names: Vec<String> = lock(&self.connectors).keys().cloned().collect();
        let stops: Vec<ConnectorStop> = names.iter().map(|n| self.stop_connector(n)).collect();
        futures::future::join_all(stops.into_iter().map(ConnectorStop::wait)).await;
    }
}

/// Java connectors name their task class after themselves (`…SourceConnector` runs
/// `…SourceTask`); configs written to the config topic carry it as `task.class`, which Java
/// workers need to start the task.
fn task_class_of(connector_class: &str) -> String {
    match connector_class.strip_suffix("Connector") {
        Some(stem) => format!("{stem}Task"),
        None => format!("{connector_class}Task"),
    }
}

/// The key Java adds to every task config.
pub const TASK_CLASS: &str = "task.class";
