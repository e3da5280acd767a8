//! Standalone mode's herder: configs and statuses live in memory, offsets in the offsets file.
//! One lock serialises every change, as Java's synchronized `StandaloneHerder` does.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use async_trait::async_trait;
use ferry_api::ConfigMap;
use tokio::sync::{mpsc, Mutex};

use super::core::{self, not_found, unknown_connector};
use crate::config::connector::ConnectorConfig;
use crate::herder::offsets::{self, ConnectorOffset};
use crate::herder::status_view::{self, restart_plan};
use crate::herder::validation::validate_connector_config;
use crate::herder::{
    ConfigPatch, ConnectorInfo, ConnectorStateInfo, Herder, HerderError, RestartRequest, StateInfo,
    Written,
};
use crate::plugins::{PluginKind, Registry};
use crate::status::{State, Status, TaskId};
use crate::worker::{TargetState, Worker};

struct ConnectorEntry {
    config: ConfigMap,
    kind: PluginKind,
    target: TargetState,
    task_configs: Vec<ConfigMap>,
}

pub struct StandaloneHerder {
    worker: Arc<Worker>,
    connectors: Mutex<BTreeMap<String, ConnectorEntry>>,
    cluster_id: String,
    ready: AtomicBool,
}

impl StandaloneHerder {
    /// A herder over `worker`; `reconfigure` carries connectors' requests for new task configs.
    pub fn new(
        worker: Arc<Worker>,
        cluster_id: String,
        reconfigure: mpsc::UnboundedReceiver<String>,
    ) -> Arc<Self> {
        let herder = Arc::new(StandaloneHerder {
            worker,
            connectors: Mutex::default(),
            cluster_id,
            ready: AtomicBool::new(false),
        });
        let weak = Arc::downgrade(&herder);
        tokio::spawn(async move {
            let mut reconfigure = reconfigure;
            while let Some(name) = reconfigure.recv().await {
                let Some(herder) = weak.upgrade() else { break };
                let mut connectors = herder.connectors.lock().await;
                if let Some(entry) = connectors.get_mut(&name) {
                    herder.update_tasks(&name, entry).await;
                }
            }
        });
        herder
    }

    pub fn worker(&self) -> &Arc<Worker> {
        &self.worker
    }

    /// Start-up is over (the command line's connectors exist): `GET /health` answers healthy.
    pub fn set_ready(&self) {
        self.ready.store(true, Ordering::Release);
    }

    /// Asks the connector for task configs; when they changed, restarts its tasks with them.
    /// Only a started connector is asked, as in Java: one created paused, or paused straight
    /// from STOPPED, has no tasks until it is resumed.
    async fn update_tasks(&self, name: &str, entry: &mut ConnectorEntry) {
        if entry.target != TargetState::Started || !self.worker.is_connector_running(name) {
            return;
        }
        let connector = ConnectorConfig::from_stored(&entry.config);
        let configs = match self.worker.task_configs(name, &connector) {
            Ok(c) => c,
            Err(error) => {
                tracing::error!(connector = %name, %error, "Failed to generate task configs");
                self.worker.status_store().put_connector(
                    name,
                    Status {
                        state: State::Failed,
                        trace: Some(error.to_string()),
                        worker_id: self.worker.worker_id().to_owned(),
                        generation: 0,
                    },
                );
                return;
            }
        };
        if configs == entry.task_configs && !self.worker.tasks_of(name).is_empty() {
            return;
        }
        self.stop_tasks(name).await;
        self.forget_tasks(name, configs.len(), entry.task_configs.len());
        entry.task_configs = configs;
        self.start_tasks(name, entry, 0..entry.task_configs.len());
    }

    fn start_tasks(
        &self,
        name: &str,
        entry: &ConnectorEntry,
        indices: impl IntoIterator<Item = usize>,
    ) {
        for task in indices {
            let Some(props) = entry.task_configs.get(task) else {
                continue;
            };
            let id = TaskId {
                connector: name.to_owned(),
                task,
            };
            if let Err(error) = self.worker.start_task(id, &entry.config, props.clone()) {
                tracing::error!(connector = %name, task, %error, "Failed to start task");
            }
        }
    }

    /// Statuses of task indices `from..to` no longer exist.
    fn forget_tasks(&self, name: &str, from: usize, to: usize) {
        for task in from..to {
            self.worker.status_store().remove_task(&TaskId {
                connector: name.to_owned(),
                task,
            });
        }
    }

    async fn stop_tasks(&self, name: &str) {
        let ids = self.worker.tasks_of(name);
        self.worker.stop_tasks(&ids).await;
    }

    /// (Re)starts the connector object in its target state and, if it started, its tasks.
    async fn start(&self, name: &str, entry: &mut ConnectorEntry) {
        if self
            .worker
            .start_connector(name, &entry.config, entry.target)
            .is_ok()
        {
            self.update_tasks(name, entry).await;
        }
    }

    /// Stops every connector and task, committing their offsets (the shutdown path).
    pub async fn stop(&self) {
        let _connectors = self.connectors.lock().await;
        self.worker.stop_all().await;
    }

    fn info(name: &str, entry: &ConnectorEntry) -> ConnectorInfo {
        ConnectorInfo {
            name: name.to_owned(),
            config: entry.config.clone(),
            tasks: (0..entry.task_configs.len())
                .map(|task| TaskId {
                    connector: name.to_owned(),
                    task,
                })
                .collect(),
            kind: Some(entry.kind),
        }
    }

    /// Moves a connector to a new target state.
    async fn transition(&self, name: &str, entry: &mut ConnectorEntry, target: TargetState) {
        let from = entry.target;
        entry.target = target;
        match (from, target) {
            (a, b) if a == b => {}
            (TargetState::Stopped, _) => {
                self.worker.stop_connector(name);
                self.start(name, entry).await;
            }
            (_, TargetState::Stopped) => {
                self.stop_tasks(name).await;
                self.forget_tasks(name, 0, entry.task_configs.len());
                entry.task_configs.clear();
                self.worker.stop_connector(name);
                let _ = self
                    .worker
                    .start_connector(name, &entry.config, TargetState::Stopped);
            }
            _ => {
                self.worker.set_target_state(name, target);
                // As Java, the old tasks resume first; a connector paused straight from STOPPED
                // gets its tasks now, and one whose config changed while paused gets new ones.
                if target == TargetState::Started {
                    self.update_tasks(name, entry).await;
                }
            }
        }
    }

    /// A connector whose offsets may be changed: it exists and is STOPPED with no tasks.
    fn stopped<'a>(
        connectors: &'a BTreeMap<String, ConnectorEntry>,
        name: &str,
    ) -> Result<&'a ConnectorEntry, HerderError> {
        let entry = connectors.get(name).ok_or_else(|| not_found(name))?;
        core::require_stopped(
            name,
            entry.target == TargetState::Stopped,
            !entry.task_configs.is_empty(),
        )?;
        Ok(entry)
    }

    fn topic_tracking(&self, reset: bool) -> Result<(), HerderError> {
        core::require_topic_tracking(self.worker.config(), reset)
    }

    fn write_status(&self, id: Option<&TaskId>, name: &str, state: State) {
        let status = Status {
            state,
            trace: None,
            worker_id: self.worker.worker_id().to_owned(),
            generation: 0,
        };
        match id {
            Some(id) => self.worker.status_store().put_task(id, status),
            None => self.worker.status_store().put_connector(name, status),
        }
    }
}

#[async_trait]
impl Herder for StandaloneHerder {
    async fn connectors(&self) -> Vec<String> {
        self.connectors.lock().await.keys().cloned().collect()
    }

    async fn connector_info(&self, name: &str) -> Result<ConnectorInfo, HerderError> {
        let connectors = self.connectors.lock().await;
        let entry = connectors.get(name).ok_or_else(|| not_found(name))?;
        Ok(Self::info(name, entry))
    }

    async fn connector_status(&self, name: &str) -> Result<ConnectorStateInfo, HerderError> {
        let kind = self.connectors.lock().await.get(name).map(|e| e.kind);
        status_view::connector_state(self.worker.status_store().as_ref(), name, kind)
    }

    async fn task_status(&self, id: &TaskId) -> Result<StateInfo, HerderError> {
        status_view::task_state(self.worker.status_store().as_ref(), id)
    }

    async fn task_configs(&self, name: &str) -> Result<Vec<(TaskId, ConfigMap)>, HerderError> {
        let connectors = self.connectors.lock().await;
        let entry = connectors.get(name).ok_or_else(|| not_found(name))?;
        Ok(entry
            .task_configs
            .iter()
            .enumerate()
            .map(|(task, c)| {
                (
                    TaskId {
                        connector: name.to_owned(),
                        task,
                    },
                    c.clone(),
                )
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
        let kind = validate_connector_config(self.worker.registry(), &config)?;
        let mut connectors = self.connectors.lock().await;
        let (written, target, task_configs) = match connectors.remove(name) {
            Some(existing) if !allow_replace => {
                connectors.insert(name.to_owned(), existing);
                return Err(HerderError::AlreadyExists(format!(
                    "Connector {name} already exists"
                )));
            }
            Some(existing) => {
                // As Java: only the connector restarts here. Its tasks are replaced only if the
                // new task configs differ, and only once it runs: a paused connector keeps its
                // paused tasks, with their configs, until it is resumed.
                self.worker.stop_connector(name);
                (Written::Updated, existing.target, existing.task_configs)
            }
            None => (Written::Created, initial_state, Vec::new()),
        };
        let mut entry = ConnectorEntry {
            config,
            kind,
            target,
            task_configs,
        };
        self.start(name, &mut entry).await;
        let info = Self::info(name, &entry);
        connectors.insert(name.to_owned(), entry);
        Ok((written, info))
    }

    async fn patch_connector_config(
        &self,
        name: &str,
        patch: ConfigPatch,
    ) -> Result<ConnectorInfo, HerderError> {
        let config = self
            .connectors
            .lock()
            .await
            .get(name)
            .ok_or_else(|| not_found(name))?
            .config
            .clone();
        let config = core::patched(config, patch);
        let (_, info) = self
            .put_connector_config(name, config, true, TargetState::Started)
            .await?;
        Ok(info)
    }

    async fn delete_connector(&self, name: &str) -> Result<(), HerderError> {
        let mut connectors = self.connectors.lock().await;
        connectors.remove(name).ok_or_else(|| not_found(name))?;
        self.stop_tasks(name).await;
        self.worker.stop_connector(name);
        self.worker.forget_connector(name);
        self.worker.status_store().remove_connector(name);
        self.worker.status_store().reset_topics(name);
        Ok(())
    }

    async fn pause_connector(&self, name: &str) -> Result<(), HerderError> {
        let mut connectors = self.connectors.lock().await;
        let entry = connectors
            .get_mut(name)
            .ok_or_else(|| unknown_connector(name))?;
        self.transition(name, entry, TargetState::Paused).await;
        Ok(())
    }

    async fn resume_connector(&self, name: &str) -> Result<(), HerderError> {
        let mut connectors = self.connectors.lock().await;
        let entry = connectors
            .get_mut(name)
            .ok_or_else(|| unknown_connector(name))?;
        self.transition(name, entry, TargetState::Started).await;
        Ok(())
    }

    async fn stop_connector(&self, name: &str) -> Result<(), HerderError> {
        let mut connectors = self.connectors.lock().await;
        // Java's standalone store answers an unknown name with a 500; it is the client's
        // mistake, so 404 with the message Java gives for pause and resume.
        let entry = connectors
            .get_mut(name)
            .ok_or_else(|| unknown_connector(name))?;
        self.transition(name, entry, TargetState::Stopped).await;
        Ok(())
    }

    async fn restart_connector(&self, name: &str) -> Result<(), HerderError> {
        let mut connectors = self.connectors.lock().await;
        let entry = connectors.get_mut(name).ok_or_else(|| not_found(name))?;
        self.worker.stop_connector(name);
        self.worker
            .start_connector(name, &entry.config, entry.target)
            .map_err(|e| {
                HerderError::Internal(format!("Failed to start connector: {name}: {e}"))
            })?;
        self.update_tasks(name, entry).await;
        Ok(())
    }

    async fn restart_task(&self, id: &TaskId) -> Result<(), HerderError> {
        let connectors = self.connectors.lock().await;
        let entry = connectors
            .get(&id.connector)
            .ok_or_else(|| not_found(&id.connector))?;
        let props = entry
            .task_configs
            .get(id.task)
            .cloned()
            .ok_or_else(|| HerderError::NotFound(format!("Task {id} not found")))?;
        self.worker.stop_tasks(std::slice::from_ref(id)).await;
        self.worker
            .start_task(id.clone(), &entry.config, props)
            .map_err(|_| HerderError::Internal(format!("Failed to start task: {id}")))
    }

    async fn restart_connector_and_tasks(
        &self,
        name: &str,
        request: RestartRequest,
    ) -> Result<ConnectorStateInfo, HerderError> {
        let mut connectors = self.connectors.lock().await;
        let entry = connectors
            .get_mut(name)
            .ok_or_else(|| HerderError::NotFound(format!("Unknown connector: {name}")))?;
        let plan = restart_plan(
            self.worker.status_store().as_ref(),
            name,
            request,
            Some(entry.kind),
        )?;
        let restart_connector = plan.restart_connector;
        let restart_tasks = plan.restart_tasks;
        if restart_connector {
            self.worker.stop_connector(name);
            self.write_status(None, name, State::Restarting);
        }
        let ids: Vec<TaskId> = restart_tasks
            .iter()
            .map(|&task| TaskId {
                connector: name.to_owned(),
                task,
            })
            .collect();
        self.worker.stop_tasks(&ids).await;
        for id in &ids {
            self.write_status(Some(id), name, State::Restarting);
        }
        if restart_connector {
            if let Err(error) = self
                .worker
                .start_connector(name, &entry.config, entry.target)
            {
                tracing::error!(connector = %name, %error, "Failed to restart connector");
            }
        }
        self.start_tasks(name, entry, restart_tasks);
        Ok(plan.answer)
    }

    async fn connector_topics(&self, name: &str) -> Result<Vec<String>, HerderError> {
        self.topic_tracking(false)?;
        Ok(self
            .worker
            .status_store()
            .topics(name)
            .into_iter()
            .map(|t| t.topic)
            .collect())
    }

    async fn reset_connector_topics(&self, name: &str) -> Result<(), HerderError> {
        self.topic_tracking(true)?;
        self.worker.status_store().reset_topics(name);
        Ok(())
    }

    async fn connector_offsets(&self, name: &str) -> Result<Vec<ConnectorOffset>, HerderError> {
        let (kind, config) = {
            let connectors = self.connectors.lock().await;
            let entry = connectors.get(name).ok_or_else(|| not_found(name))?;
            (entry.kind, entry.config.clone())
        };
        offsets::read(&self.worker, name, kind, &config).await
    }

    async fn alter_connector_offsets(
        &self,
        name: &str,
        offsets: Vec<ConnectorOffset>,
    ) -> Result<String, HerderError> {
        let connectors = self.connectors.lock().await;
        let entry = Self::stopped(&connectors, name)?;
        offsets::alter(&self.worker, name, entry.kind, &entry.config, offsets).await
    }

    async fn reset_connector_offsets(&self, name: &str) -> Result<String, HerderError> {
        let connectors = self.connectors.lock().await;
        let entry = Self::stopped(&connectors, name)?;
        offsets::reset(&self.worker, name, entry.kind, &entry.config).await
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
        // Every request takes this lock, as every Java standalone request synchronizes on the
        // herder.
        drop(self.connectors.lock().await);
    }

    fn render_metrics(&self) -> String {
        self.worker.render_metrics()
    }
}

#[cfg(test)]
#[path = "standalone_tests.rs"]
mod tests;
