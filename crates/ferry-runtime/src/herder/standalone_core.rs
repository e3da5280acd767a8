//! What the standalone herder's loop owns: the connectors, their target states and task configs,
//! and every start and stop of their work on the worker. Only the loop (`standalone.rs`) calls
//! these, one request at a time, as Java's synchronized `StandaloneHerder` runs them.

use std::collections::BTreeMap;
use std::sync::Arc;

use ferry_api::ConfigMap;
use futures::future::BoxFuture;
use tokio::sync::mpsc;

use super::core::{self, not_found, unknown_connector};
use super::standalone_fetch::Fetches;
use crate::herder::status_view::restart_plan;
use crate::herder::{ConnectorInfo, ConnectorStateInfo, HerderError, RestartRequest, Written};
use crate::plugins::PluginKind;
use crate::status::{State, Status, TaskId};
use crate::worker::{StartWait, TargetState, Worker};

pub(super) struct ConnectorEntry {
    pub config: ConfigMap,
    pub kind: PluginKind,
    pub target: TargetState,
    pub task_configs: Vec<ConfigMap>,
}

/// One request for the loop: it takes the loop's state and gives it back when done.
pub(super) type Job = Box<dyn FnOnce(Core) -> BoxFuture<'static, Core> + Send>;

pub(super) struct Core {
    pub worker: Arc<Worker>,
    pub connectors: BTreeMap<String, ConnectorEntry>,
    /// `taskConfigs` calls in flight (`standalone_fetch.rs`).
    pub fetches: Fetches,
    /// The loop's own queue, for answers that arrive off the loop; it does not keep it alive.
    pub jobs: mpsc::WeakUnboundedSender<Job>,
}

impl Core {
    pub fn entry(&self, name: &str) -> Result<&ConnectorEntry, HerderError> {
        self.connectors.get(name).ok_or_else(|| not_found(name))
    }

    pub fn info(name: &str, entry: &ConnectorEntry) -> ConnectorInfo {
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

    pub(super) fn start_tasks(
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
    pub(super) fn forget_tasks(&self, name: &str, from: usize, to: usize) {
        for task in from..to {
            self.worker.status_store().remove_task(&TaskId {
                connector: name.to_owned(),
                task,
            });
        }
    }

    pub(super) async fn stop_tasks(&self, name: &str) {
        let ids = self.worker.tasks_of(name);
        self.worker.stop_tasks(&ids).await;
    }

    /// (Re)starts the connector object in its target state; once its start returns, the
    /// worker asks the loop for its task configs (a start that hangs holds only its thread).
    fn start(&self, name: &str, entry: &ConnectorEntry) -> Option<StartWait> {
        self.worker
            .start_connector(name, &entry.config, entry.target)
            .ok()
    }

    /// Creates or replaces a connector whose config was validated.
    pub async fn put(
        &mut self,
        name: &str,
        config: ConfigMap,
        kind: PluginKind,
        allow_replace: bool,
        initial_state: TargetState,
    ) -> Result<(Written, Option<StartWait>), HerderError> {
        let (written, target, task_configs) = match self.connectors.get(name) {
            Some(_) if !allow_replace => {
                return Err(HerderError::AlreadyExists(format!(
                    "Connector {name} already exists"
                )));
            }
            Some(existing) => {
                // As Java: only the connector restarts here. Its tasks are replaced only if the
                // new task configs differ, and only once it runs: a paused connector keeps its
                // paused tasks, with their configs, until it is resumed.
                self.worker.stop_connector(name);
                (
                    Written::Updated,
                    existing.target,
                    existing.task_configs.clone(),
                )
            }
            None => (Written::Created, initial_state, Vec::new()),
        };
        let entry = ConnectorEntry {
            config,
            kind,
            target,
            task_configs,
        };
        let started = self.start(name, &entry);
        self.connectors.insert(name.to_owned(), entry);
        Ok((written, started))
    }

    pub async fn delete(&mut self, name: &str) -> Result<(), HerderError> {
        self.connectors
            .remove(name)
            .ok_or_else(|| not_found(name))?;
        self.stop_tasks(name).await;
        self.worker.stop_connector(name);
        self.worker.forget_connector(name);
        self.worker.status_store().remove_connector(name);
        self.worker.status_store().reset_topics(name);
        Ok(())
    }

    /// Moves a connector to a new target state (pause, resume, stop).
    pub async fn transition(&mut self, name: &str, target: TargetState) -> Result<(), HerderError> {
        // Java answers an unknown name with this message for pause and resume (its standalone
        // store answers stop with a 500; it is the client's mistake, so 404 here too).
        let mut entry = self
            .connectors
            .remove(name)
            .ok_or_else(|| unknown_connector(name))?;
        let from = entry.target;
        entry.target = target;
        match (from, target) {
            (a, b) if a == b => {}
            (TargetState::Stopped, _) => {
                self.worker.stop_connector(name);
                self.start(name, &entry);
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
            }
        }
        self.connectors.insert(name.to_owned(), entry);
        // As Java, the old tasks resume first; a connector paused straight from STOPPED gets
        // its tasks now, and one whose config changed while paused gets new ones.
        if target == TargetState::Started && from == TargetState::Paused {
            self.request_task_configs(name);
        }
        Ok(())
    }

    /// Restarts the connector object; the answer tells how its start goes (its tasks follow
    /// once it runs, as for any start).
    pub fn restart_connector(&mut self, name: &str) -> Result<StartWait, HerderError> {
        let entry = self.entry(name)?;
        let (config, target) = (entry.config.clone(), entry.target);
        self.worker.stop_connector(name);
        self.worker
            .start_connector(name, &config, target)
            .map_err(|e| HerderError::Internal(format!("Failed to start connector: {name}: {e}")))
    }

    pub async fn restart_task(&self, id: &TaskId) -> Result<(), HerderError> {
        let entry = self.entry(&id.connector)?;
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

    pub async fn restart_connector_and_tasks(
        &self,
        name: &str,
        request: RestartRequest,
    ) -> Result<ConnectorStateInfo, HerderError> {
        let entry = self
            .connectors
            .get(name)
            .ok_or_else(|| HerderError::NotFound(format!("Unknown connector: {name}")))?;
        let plan = restart_plan(
            self.worker.status_store().as_ref(),
            name,
            request,
            Some(entry.kind),
        )?;
        if plan.restart_connector {
            self.worker.stop_connector(name);
            self.write_status(None, name, State::Restarting);
        }
        let ids: Vec<TaskId> = plan
            .restart_tasks
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
        if plan.restart_connector {
            if let Err(error) = self
                .worker
                .start_connector(name, &entry.config, entry.target)
            {
                tracing::error!(connector = %name, %error, "Failed to restart connector");
            }
        }
        self.start_tasks(name, entry, plan.restart_tasks);
        Ok(plan.answer)
    }

    /// A connector whose offsets may be changed (it exists and is STOPPED with no tasks):
    /// its kind and config.
    pub fn stopped(&self, name: &str) -> Result<(PluginKind, ConfigMap), HerderError> {
        let entry = self.entry(name)?;
        core::require_stopped(
            name,
            entry.target == TargetState::Stopped,
            !entry.task_configs.is_empty(),
        )?;
        Ok((entry.kind, entry.config.clone()))
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
