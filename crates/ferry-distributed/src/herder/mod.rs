//! The distributed herder: REST requests are answered from the config snapshot and the status
//! cache, privileged writes run on the leader (others answer "not leader" and REST forwards),
//! and one loop (`tick`) owns group membership and starting and stopping this worker's share;
//! what REST needs started or stopped it asks the loop for (`commands`).

mod assign;
pub(crate) mod commands;
#[cfg(test)]
mod fake_group;
mod fencing;
pub mod leader_client;
mod membership;
pub mod signing;
pub(crate) mod tick;
#[cfg(test)]
mod tick_tests;
mod unsync;
mod view;
mod work;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use ferry_api::ConfigMap;
use ferry_runtime::herder::core::{self, not_found};
use ferry_runtime::herder::status_view;
use ferry_runtime::herder::{
    off_runtime, validate_connector_config, ConfigPatch, ConnectorInfo, ConnectorOffset,
    ConnectorStateInfo, Herder, HerderError, InternalRequest, RestartRequest, StateInfo, Written,
};
use ferry_runtime::plugins::{PluginKind, Registry};
use ferry_runtime::status::{StatusStore, TaskId};
use ferry_runtime::worker::{TargetState, Worker};
use tokio::sync::{mpsc, oneshot, Notify};
use tokio_util::sync::CancellationToken;

use crate::config::DistributedConfig;
use crate::config_topic::state::ClusterConfigSnapshot;
use crate::stores::{KafkaConfigStore, KafkaStatusStore};
use commands::Command;

pub use view::View;

pub struct DistributedHerder {
    pub(crate) config: Arc<DistributedConfig>,
    pub(crate) worker: Arc<Worker>,
    pub(crate) configs: Arc<KafkaConfigStore>,
    pub(crate) statuses: Arc<KafkaStatusStore>,
    /// This worker's advertised REST URL, as other workers reach it.
    pub(crate) url: String,
    pub(crate) view: Mutex<View>,
    /// Connectors that want new task configs; the worker's connectors send here too.
    pub(crate) reconfigure: mpsc::UnboundedSender<String>,
    ready: AtomicBool,
    cluster_id: String,
    pub(crate) shutdown: CancellationToken,
    /// Applies a cluster-wide logger level to this worker (KIP-976).
    logger_levels: Option<LoggerApplier>,
    /// Requests for the tick loop, which holds the receiver.
    commands: mpsc::UnboundedSender<Command>,
    /// Woken each time a rebalance completes.
    pub(crate) settled: Notify,
    /// This herder, for the exactly-once checks its source tasks call back.
    me: std::sync::Weak<DistributedHerder>,
}

/// Sets a logger namespace's level on this worker.
pub type LoggerApplier = Arc<dyn Fn(&str, &str) + Send + Sync>;

fn store_error(e: crate::stores::StoreError) -> HerderError {
    match e {
        crate::stores::StoreError::Fenced(cause) => {
            tracing::warn!(%cause, "Failed to write to config topic as leader");
            HerderError::Internal("Failed to write to config topic; this may be due to a transient error and the request can be safely retried".to_owned())
        }
        other => HerderError::Internal(other.to_string()),
    }
}

fn shutting_down() -> HerderError {
    HerderError::Internal("The worker is shutting down".to_owned())
}

/// How long a request waits for a pending rebalance before it answers 409.
const SETTLE_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

const STALE_CONFIG: &str = "Cannot complete request momentarily due to stale configuration (typically caused by a concurrent config change)";

impl DistributedHerder {
    /// Sends a command to the tick loop and waits for its answer; `None` once the loop is gone.
    async fn ask<T>(&self, command: impl FnOnce(oneshot::Sender<T>) -> Command) -> Option<T> {
        let (reply, answer) = oneshot::channel();
        self.commands.send(command(reply)).ok()?;
        answer.await.ok()
    }

    /// Whether this worker leads the group: `None` until it has joined and the group has
    /// settled, as a request queued in Java's herder waits for its tick loop to join.
    pub fn leads_group(&self) -> Option<bool> {
        let view = self.view();
        (!view.member_id.is_empty() && !view.rebalance_pending).then(|| view.is_leader())
    }

    pub(crate) fn view(&self) -> std::sync::MutexGuard<'_, View> {
        self.view.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn snapshot(&self) -> ClusterConfigSnapshot {
        self.configs.snapshot()
    }

    fn kind_of(&self, config: &ConfigMap) -> Option<PluginKind> {
        config
            .get(ferry_runtime::config::connector::CONNECTOR_CLASS)
            .and_then(|c| self.worker.registry().connector(c))
            .map(|p| p.kind)
    }

    fn info(&self, snapshot: &ClusterConfigSnapshot, name: &str) -> Option<ConnectorInfo> {
        let config = snapshot.connector_config(name)?.clone();
        Some(ConnectorInfo {
            name: name.to_owned(),
            kind: self.kind_of(&config),
            tasks: snapshot.tasks(name),
            config,
        })
    }

    /// A worker-to-worker request is signed with the session key once the group uses the
    /// `sessioned` protocol.
    fn verify_internal(&self, request: &InternalRequest) -> Result<(), HerderError> {
        if self.view().protocol_version < 2 {
            return Ok(());
        }
        let key = self.snapshot().session_key().map(|k| k.key.clone());
        signing::verify(
            key.as_deref(),
            &self.config.verification_algorithms,
            request,
        )
    }

    /// Leader-only writes answer "not leader" elsewhere, so REST forwards them.
    fn require_leader(&self) -> Result<(), HerderError> {
        let view = self.view();
        if view.is_leader() {
            Ok(())
        } else {
            Err(HerderError::NotLeader {
                leader_url: view.leader_url.clone(),
            })
        }
    }

    /// Waits out a pending rebalance, as Java's requests wait in the herder's queue while its
    /// thread rebalances; 409 only if the group has not settled in [`SETTLE_WAIT`].
    async fn require_stable(&self) -> Result<(), HerderError> {
        let deadline = tokio::time::Instant::now() + SETTLE_WAIT;
        loop {
            let settled = self.settled.notified();
            tokio::pin!(settled);
            // Registered before the check, so a rebalance completing in between still wakes us.
            settled.as_mut().enable();
            if !self.view().rebalance_pending {
                return Ok(());
            }
            if tokio::time::timeout_at(deadline, settled).await.is_err() {
                return Err(HerderError::Conflict(STALE_CONFIG.to_owned()));
            }
        }
    }

    fn topic_tracking(&self, reset: bool) -> Result<(), HerderError> {
        core::require_topic_tracking(&self.config.worker, reset)
    }

    /// A connector whose offsets may change: known, STOPPED and without tasks.
    fn stopped(&self, name: &str) -> Result<(PluginKind, ConfigMap), HerderError> {
        let snapshot = self.snapshot();
        let config = snapshot
            .connector_config(name)
            .cloned()
            .ok_or_else(|| not_found(name))?;
        core::require_stopped(
            name,
            snapshot.target_state(name) == Some(TargetState::Stopped),
            !snapshot.tasks(name).is_empty(),
        )?;
        let kind = self
            .kind_of(&config)
            .ok_or_else(|| HerderError::Internal(format!("Unknown connector class for {name}")))?;
        Ok((kind, config))
    }

    /// Before offsets change: the connector is stopped and, for an exactly-once source, its
    /// zombie tasks are fenced out (Java does the same round of fencing), then checked again.
    async fn stopped_and_fenced(&self, name: &str) -> Result<(PluginKind, ConfigMap), HerderError> {
        let (kind, config) = self.stopped(name)?;
        if kind != PluginKind::Source
            || self.config.exactly_once != crate::config::ExactlyOnceSourceSupport::Enabled
        {
            return Ok((kind, config));
        }
        tracing::debug!(connector = %name, "Fencing zombie tasks before modifying the offsets of an exactly-once source connector");
        self.request_fencing(name).await.map_err(|error| {
            tracing::error!(connector = %name, %error, "Failed to perform zombie fencing for source connector prior to modifying offsets");
            HerderError::Internal(
                "Failed to perform zombie fencing for source connector prior to modifying offsets"
                    .to_owned(),
            )
        })?;
        self.require_leader()?;
        self.stopped(name)
    }

    /// Where a restart of something this worker does not run must go.
    pub(crate) fn elsewhere(&self, owner: impl FnOnce(&View) -> Option<String>) -> HerderError {
        let view = self.view();
        if view.is_leader() {
            HerderError::NotAssigned {
                owner_url: owner(&view),
            }
        } else {
            HerderError::NotLeader {
                leader_url: view.leader_url.clone(),
            }
        }
    }

    /// The herder, and the receiving end of its commands, which only the tick loop holds.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        config: Arc<DistributedConfig>,
        worker: Arc<Worker>,
        configs: Arc<KafkaConfigStore>,
        statuses: Arc<KafkaStatusStore>,
        url: String,
        reconfigure: mpsc::UnboundedSender<String>,
        cluster_id: String,
        shutdown: CancellationToken,
        logger_levels: Option<LoggerApplier>,
    ) -> (Arc<Self>, mpsc::UnboundedReceiver<Command>) {
        let (commands, command_requests) = mpsc::unbounded_channel();
        let herder = Arc::new_cyclic(|me| DistributedHerder {
            me: me.clone(),
            commands,
            logger_levels,
            config,
            worker,
            configs,
            statuses,
            url,
            view: Mutex::default(),
            reconfigure,
            ready: AtomicBool::new(false),
            cluster_id,
            shutdown,
            settled: Notify::new(),
        });
        (herder, command_requests)
    }

    /// Applies a cluster-wide logger level read from the config topic.
    pub(crate) fn apply_logger_level(&self, namespace: &str, level: &str) {
        if let Some(apply) = &self.logger_levels {
            tracing::info!(namespace, level, "Applying a cluster-wide logger level");
            apply(namespace, level);
        }
    }

    pub fn worker(&self) -> &Arc<Worker> {
        &self.worker
    }

    pub fn set_ready(&self) {
        self.ready.store(true, Ordering::Release);
    }
}

#[async_trait]
impl Herder for DistributedHerder {
    async fn connectors(&self) -> Vec<String> {
        self.snapshot().connectors()
    }

    async fn connector_info(&self, name: &str) -> Result<ConnectorInfo, HerderError> {
        self.require_stable().await?;
        self.info(&self.snapshot(), name)
            .ok_or_else(|| not_found(name))
    }

    async fn connector_status(&self, name: &str) -> Result<ConnectorStateInfo, HerderError> {
        let kind = self
            .snapshot()
            .connector_config(name)
            .and_then(|c| self.kind_of(c));
        status_view::connector_state(self.statuses.as_ref(), name, kind)
    }

    async fn task_status(&self, id: &TaskId) -> Result<StateInfo, HerderError> {
        status_view::task_state(self.statuses.as_ref(), id)
    }

    async fn task_configs(&self, name: &str) -> Result<Vec<(TaskId, ConfigMap)>, HerderError> {
        self.require_stable().await?;
        let snapshot = self.snapshot();
        if !snapshot.contains(name) {
            return Err(not_found(name));
        }
        Ok(snapshot
            .tasks(name)
            .into_iter()
            .map(|id| {
                let config = snapshot.task_config(&id).cloned().unwrap_or_default();
                (id, config)
            })
            .collect())
    }

    async fn put_connector_config(
        &self,
        name: &str,
        mut config: ConfigMap,
        allow_replace: bool,
        initial_state: TargetState,
    ) -> Result<(Written, ConnectorInfo), HerderError> {
        config.insert("name".to_owned(), name.to_owned());
        let (registry, submitted) = (self.worker.registry().clone(), config.clone());
        let kind = off_runtime(move || validate_connector_config(&registry, &submitted)).await?;
        self.require_leader()?;
        let exists = self.snapshot().contains(name);
        if exists && !allow_replace {
            return Err(HerderError::AlreadyExists(format!(
                "Connector {name} already exists"
            )));
        }
        let initial = (!exists && initial_state != TargetState::Started).then_some(initial_state);
        self.configs
            .put_connector_config(name, config.clone(), initial)
            .await
            .map_err(store_error)?;
        let tasks = self.snapshot().tasks(name);
        Ok((
            if exists {
                Written::Updated
            } else {
                Written::Created
            },
            ConnectorInfo {
                name: name.to_owned(),
                config,
                tasks,
                kind: Some(kind),
            },
        ))
    }

    async fn patch_connector_config(
        &self,
        name: &str,
        patch: ConfigPatch,
    ) -> Result<ConnectorInfo, HerderError> {
        self.require_leader()?;
        let config = self
            .snapshot()
            .connector_config(name)
            .cloned()
            .ok_or_else(|| not_found(name))?;
        let config = core::patched(config, patch);
        let (_, info) = self
            .put_connector_config(name, config, true, TargetState::Started)
            .await?;
        Ok(info)
    }

    async fn delete_connector(&self, name: &str) -> Result<(), HerderError> {
        self.require_leader()?;
        if !self.snapshot().contains(name) {
            return Err(not_found(name));
        }
        self.configs
            .remove_connector(name)
            .await
            .map_err(store_error)
    }

    async fn pause_connector(&self, name: &str) -> Result<(), HerderError> {
        self.set_target(name, TargetState::Paused).await
    }

    async fn resume_connector(&self, name: &str) -> Result<(), HerderError> {
        self.set_target(name, TargetState::Started).await
    }

    async fn stop_connector(&self, name: &str) -> Result<(), HerderError> {
        self.require_leader()?;
        if !self.snapshot().contains(name) {
            return Err(core::unknown_connector(name));
        }
        // Tasks first: a STOPPED connector has none, and its target state follows.
        self.configs
            .put_task_configs(name, Vec::new())
            .await
            .map_err(store_error)?;
        self.configs
            .put_target_state(name, TargetState::Stopped)
            .await
            .map_err(store_error)?;
        self.configs
            .read_to_end(std::time::Duration::from_secs(30))
            .await
            .map_err(store_error)
    }

    async fn restart_connector(&self, name: &str) -> Result<(), HerderError> {
        self.require_stable().await?;
        let snapshot = self.snapshot();
        if !snapshot.contains(name) {
            return Err(HerderError::NotFound(format!("Unknown connector: {name}")));
        }
        if !self.view().owned.connectors.contains(name) {
            return Err(self.elsewhere(|v| v.owner_of_connector(name)));
        }
        let name = name.to_owned();
        self.ask(|reply| Command::RestartConnector { name, reply })
            .await
            .unwrap_or_else(|| Err(shutting_down()))
    }

    async fn restart_task(&self, id: &TaskId) -> Result<(), HerderError> {
        self.require_stable().await?;
        let snapshot = self.snapshot();
        if !snapshot.contains(&id.connector) {
            return Err(HerderError::NotFound(format!(
                "Unknown connector: {}",
                id.connector
            )));
        }
        if snapshot.task_config(id).is_none() {
            return Err(HerderError::NotFound(format!("Unknown task: {id}")));
        }
        if !self.view().owned.tasks.contains(id) {
            return Err(self.elsewhere(|v| v.owner_of_task(id)));
        }
        let id = id.clone();
        self.ask(|reply| Command::RestartTask { id, reply })
            .await
            .unwrap_or_else(|| Err(shutting_down()))
    }

    async fn restart_connector_and_tasks(
        &self,
        name: &str,
        request: RestartRequest,
    ) -> Result<ConnectorStateInfo, HerderError> {
        self.require_stable().await?;
        self.require_leader()?;
        let snapshot = self.snapshot();
        let config = snapshot
            .connector_config(name)
            .ok_or_else(|| HerderError::NotFound(format!("Unknown connector: {name}")))?;
        let plan =
            status_view::restart_plan(self.statuses.as_ref(), name, request, self.kind_of(config))?;
        self.configs
            .put_restart_request(name, request.include_tasks, request.only_failed)
            .await
            .map_err(store_error)?;
        Ok(plan.answer)
    }

    async fn set_cluster_logger_level(
        &self,
        namespace: &str,
        level: &str,
    ) -> Result<bool, HerderError> {
        // Any worker writes the record, as Java's; every worker applies it when it reads it.
        self.configs
            .put_logger_level(namespace, level)
            .await
            .map_err(store_error)?;
        Ok(true)
    }

    async fn connector_topics(&self, name: &str) -> Result<Vec<String>, HerderError> {
        self.topic_tracking(false)?;
        let mut topics: Vec<String> = self
            .statuses
            .topics(name)
            .into_iter()
            .map(|t| t.topic)
            .collect();
        topics.sort();
        Ok(topics)
    }

    async fn reset_connector_topics(&self, name: &str) -> Result<(), HerderError> {
        self.topic_tracking(true)?;
        self.statuses.reset_topics(name);
        Ok(())
    }

    async fn connector_offsets(&self, name: &str) -> Result<Vec<ConnectorOffset>, HerderError> {
        let config = self
            .snapshot()
            .connector_config(name)
            .cloned()
            .ok_or_else(|| not_found(name))?;
        let kind = self
            .kind_of(&config)
            .ok_or_else(|| HerderError::Internal(format!("Unknown connector class for {name}")))?;
        ferry_runtime::herder::read_offsets(&self.worker, name, kind, &config).await
    }

    async fn alter_connector_offsets(
        &self,
        name: &str,
        offsets: Vec<ConnectorOffset>,
    ) -> Result<String, HerderError> {
        self.require_leader()?;
        let (kind, config) = self.stopped_and_fenced(name).await?;
        ferry_runtime::herder::alter_offsets(&self.worker, name, kind, &config, offsets).await
    }

    async fn reset_connector_offsets(&self, name: &str) -> Result<String, HerderError> {
        self.require_leader()?;
        let (kind, config) = self.stopped_and_fenced(name).await?;
        ferry_runtime::herder::reset_offsets(&self.worker, name, kind, &config).await
    }

    async fn put_task_configs(
        &self,
        name: &str,
        configs: Vec<ConfigMap>,
        request: InternalRequest,
    ) -> Result<(), HerderError> {
        self.verify_internal(&request)?;
        self.require_leader()?;
        let snapshot = self.snapshot();
        if !snapshot.contains(name) {
            return Err(not_found(name));
        }
        if snapshot.target_state(name) == Some(TargetState::Stopped) && !configs.is_empty() {
            return Err(HerderError::BadRequest(format!(
                "Cannot submit non-empty set of task configs for stopped connector {name}"
            )));
        }
        self.configs
            .put_task_configs(name, configs)
            .await
            .map_err(store_error)
    }

    async fn fence_zombies(&self, name: &str, request: InternalRequest) -> Result<(), HerderError> {
        self.verify_internal(&request)?;
        self.require_leader()?;
        self.request_fencing(name).await
    }

    /// From the snapshot, without the stale-config check of `connector_info`: a status read
    /// during a rebalance still shows the version.
    async fn connector_plugin_version(&self, name: &str) -> Option<String> {
        let snapshot = self.snapshot();
        ferry_runtime::herder::plugin_version_of(
            self.worker.registry(),
            snapshot.connector_config(name)?,
        )
    }

    fn registry(&self) -> Arc<Registry> {
        self.worker.registry().clone()
    }

    fn is_ready(&self) -> bool {
        self.ready.load(Ordering::Acquire)
    }

    fn kafka_cluster_id(&self) -> String {
        self.cluster_id.clone()
    }

    async fn health_check(&self) {
        if self.ask(Command::HealthCheck).await.is_none() {
            // The loop has ended: it will never answer, which is what a stuck loop looks like.
            std::future::pending::<()>().await;
        }
    }

    fn render_metrics(&self) -> String {
        self.worker.render_metrics()
    }
}

impl DistributedHerder {
    async fn set_target(&self, name: &str, state: TargetState) -> Result<(), HerderError> {
        if !self.snapshot().contains(name) {
            return Err(core::unknown_connector(name));
        }
        self.configs
            .put_target_state(name, state)
            .await
            .map_err(store_error)
    }
}
