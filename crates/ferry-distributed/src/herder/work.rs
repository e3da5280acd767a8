//! Starting, stopping and restarting this worker's connectors and tasks, applying target
//! states, carrying out restart requests, and publishing task configs.

use std::collections::BTreeSet;

use ferry_runtime::config::connector::ConnectorConfig;
use ferry_runtime::herder::status_view::encode_path_segment;
use ferry_runtime::herder::{HerderError, RestartRequest};
use ferry_runtime::status::{State, Status, StatusStore, TaskId};
use ferry_runtime::worker::{ConnectorStop, TargetState};

use crate::config_topic::state::ClusterConfigSnapshot;
use crate::herder::{leader_client, DistributedHerder};

impl DistributedHerder {
    fn target_of(snapshot: &ClusterConfigSnapshot, name: &str) -> TargetState {
        snapshot.target_state(name).unwrap_or(TargetState::Started)
    }

    /// Starts a connector this worker owns; a STARTED one is then asked for task configs.
    pub(crate) fn start_connector_here(&self, snapshot: &ClusterConfigSnapshot, name: &str) {
        let Some(config) = snapshot.connector_config(name) else {
            return;
        };
        let target = Self::target_of(snapshot, name);
        self.view().running.connectors.insert(name.to_owned());
        // The worker asks for task configs once the start returned (a start that hangs holds
        // only the connector's thread, never this loop).
        let _ = self.worker.start_connector(name, config, target);
    }

    pub(crate) fn start_task_here(&self, snapshot: &ClusterConfigSnapshot, id: &TaskId) {
        let (Some(config), Some(task_config)) = (
            snapshot.connector_config(&id.connector),
            snapshot.task_config(id),
        ) else {
            return;
        };
        self.worker
            .ensure_target_state(&id.connector, Self::target_of(snapshot, &id.connector));
        self.view().running.tasks.insert(id.clone());
        let exactly_once = self.exactly_once_for(
            id,
            &ConnectorConfig::from_stored(config),
            self.kind_of(config),
            snapshot.task_config_generation(&id.connector),
        );
        if let Err(error) =
            self.worker
                .start_task_with(id.clone(), config, task_config.clone(), exactly_once)
        {
            tracing::error!(task = %id, %error, "Failed to start task");
        }
    }

    /// Asks a connector here to stop; the answer tells when it did (or was abandoned).
    pub(crate) fn stop_connector_here(&self, name: &str) -> ConnectorStop {
        let stop = self.worker.stop_connector(name);
        self.view().running.connectors.remove(name);
        stop
    }

    pub(crate) async fn stop_tasks_here(&self, ids: &[TaskId]) {
        self.worker.stop_tasks(ids).await;
        let mut view = self.view();
        for id in ids {
            view.running.tasks.remove(id);
        }
    }

    /// Stops what was taken away from this worker.
    pub(crate) async fn revoke(&self, connectors: &[String], tasks: &[TaskId]) {
        if !tasks.is_empty() {
            tracing::info!(?tasks, "Stopping revoked tasks");
        }
        self.stop_tasks_here(tasks).await;
        let stops: Vec<ConnectorStop> = connectors
            .iter()
            .map(|name| {
                tracing::info!(connector = %name, "Stopping revoked connector");
                self.stop_connector_here(name)
            })
            .collect();
        // As Java's revocation, the worker rejoins once revoked connectors stopped, or were
        // abandoned after the graceful timeout; they stop side by side.
        futures::future::join_all(stops.into_iter().map(ConnectorStop::wait)).await;
        // Statuses written by the stopped work must land before others take it over.
        self.statuses.flush();
    }

    /// Starts everything owned and not yet running.
    pub(crate) fn start_owned_work(&self, snapshot: &ClusterConfigSnapshot) {
        let (connectors, tasks) = {
            let view = self.view();
            (
                view.owned
                    .connectors
                    .difference(&view.running.connectors)
                    .cloned()
                    .collect::<Vec<_>>(),
                view.owned
                    .tasks
                    .difference(&view.running.tasks)
                    .cloned()
                    .collect::<Vec<_>>(),
            )
        };
        for name in &connectors {
            self.start_connector_here(snapshot, name);
        }
        for id in &tasks {
            self.start_task_here(snapshot, id);
        }
    }

    pub(crate) async fn restart_connector_here(
        &self,
        snapshot: &ClusterConfigSnapshot,
        name: &str,
    ) -> Result<(), HerderError> {
        self.stop_connector_here(name);
        self.start_connector_here(snapshot, name);
        if self.worker.is_connector_running(name) {
            Ok(())
        } else {
            Err(HerderError::Internal(format!(
                "Failed to start connector: {name}"
            )))
        }
    }

    pub(crate) async fn restart_task_here(
        &self,
        snapshot: &ClusterConfigSnapshot,
        id: &TaskId,
    ) -> Result<(), HerderError> {
        self.stop_tasks_here(std::slice::from_ref(id)).await;
        self.start_task_here(snapshot, id);
        Ok(())
    }

    /// Moves an owned connector (and this worker's tasks of it) to its new target state.
    pub(crate) async fn apply_target_state(&self, snapshot: &ClusterConfigSnapshot, name: &str) {
        let target = Self::target_of(snapshot, name);
        let owns_connector = self.view().running.connectors.contains(name);
        if owns_connector {
            let was_stopped = self.worker.connector_target(name) == Some(TargetState::Stopped);
            if was_stopped || target == TargetState::Stopped {
                // A STOPPED connector has no running instance: start or drop it anew.
                self.stop_connector_here(name);
                self.start_connector_here(snapshot, name);
                return;
            }
        }
        self.worker.set_target_state(name, target);
        if owns_connector && target == TargetState::Started {
            let _ = self.reconfigure.send(name.to_owned());
        }
    }

    /// A KIP-745 restart request read from the config topic: this worker restarts the selected
    /// instances it owns, showing them RESTARTING first.
    pub(crate) async fn execute_restart(
        &self,
        snapshot: &ClusterConfigSnapshot,
        name: &str,
        request: RestartRequest,
    ) {
        let Ok(plan) = ferry_runtime::herder::status_view::restart_plan(
            self.statuses.as_ref(),
            name,
            request,
            None,
        ) else {
            tracing::info!(connector = %name, "Skipping a restart request for a connector without status");
            return;
        };
        let (owns_connector, own_tasks): (bool, Vec<TaskId>) = {
            let view = self.view();
            (
                view.owned.connectors.contains(name),
                plan.restart_tasks
                    .iter()
                    .map(|&task| TaskId {
                        connector: name.to_owned(),
                        task,
                    })
                    .filter(|id| view.owned.tasks.contains(id))
                    .collect(),
            )
        };
        let restarting = || Status {
            state: State::Restarting,
            trace: None,
            worker_id: self.worker.worker_id().to_owned(),
            generation: 0,
        };
        let restart_connector = plan.restart_connector && owns_connector;
        if !restart_connector && own_tasks.is_empty() {
            tracing::info!("Restart request for {name} selects nothing here");
            return;
        }
        if restart_connector {
            tracing::info!("Restarting by request connector {name}");
            self.stop_connector_here(name);
            self.statuses.put_connector(name, restarting());
        }
        self.stop_tasks_here(&own_tasks).await;
        for id in &own_tasks {
            tracing::info!("Restarting by request task {id}");
            self.statuses.put_task(id, restarting());
        }
        if restart_connector {
            self.start_connector_here(snapshot, name);
        }
        for id in &own_tasks {
            self.start_task_here(snapshot, id);
        }
    }

    /// How this worker reaches the leader on its own behalf: its URL and, in a `sessioned`
    /// group, the session key to sign with.
    pub(crate) fn leader_contact(&self) -> Result<(String, Option<Vec<u8>>), &'static str> {
        let (url, signed) = {
            let view = self.view();
            (view.leader_url.clone(), view.protocol_version >= 2)
        };
        let mut url = url.ok_or("no leader is known yet")?;
        for segment in &self.config.rest_namespace {
            url = format!(
                "{}/{}",
                url.trim_end_matches('/'),
                encode_path_segment(segment)
            );
        }
        if !signed {
            return Ok((url, None));
        }
        let key = self.configs.snapshot().session_key().map(|k| k.key.clone());
        Ok((url, Some(key.ok_or("no session key has been read yet")?)))
    }

    /// Asks a running connector for task configs and publishes them when they changed: the
    /// leader writes them, others send them to the leader.
    pub(crate) async fn reconfigure(&self, name: &str) -> Result<(), String> {
        let snapshot = self.configs.snapshot();
        let Some(config) = snapshot.connector_config(name).cloned() else {
            return Ok(());
        };
        if !self.worker.is_connector_started(name)
            || Self::target_of(&snapshot, name) != TargetState::Started
        {
            return Ok(());
        }
        let configs = self
            .worker
            .task_configs(name, &ConnectorConfig::from_stored(&config))
            .await
            .map_err(|e| e.to_string())?;
        // The answer came off the herder's loop: the connector may have been reconfigured,
        // stopped or deleted meanwhile, and then these configs are not its to publish.
        let snapshot = self.configs.snapshot();
        if snapshot.connector_config(name) != Some(&config)
            || Self::target_of(&snapshot, name) != TargetState::Started
            || !self.worker.is_connector_started(name)
        {
            return Ok(());
        }
        let current: Vec<_> = snapshot
            .tasks(name)
            .iter()
            .map(|id| snapshot.task_config(id).cloned())
            .collect();
        let unchanged = current.len() == configs.len()
            && current
                .iter()
                .zip(&configs)
                .all(|(old, new)| old.as_ref() == Some(new))
            && snapshot.applied_config(name) == Some(&config);
        if unchanged {
            return Ok(());
        }
        if self.view().is_leader() {
            return self
                .configs
                .put_task_configs(name, configs)
                .await
                .map_err(|e| e.to_string());
        }
        let (url, key) = self.leader_contact()?;
        leader_client::send_task_configs(&url, name, &configs, key.as_deref())
            .await
            .map_err(|e| e.to_string())
    }

    /// Task configs of these connectors changed: stop this worker's tasks of them, so the
    /// rebalance that follows starts them again with the new configs.
    pub(crate) async fn stop_tasks_of(&self, connectors: &BTreeSet<String>) {
        let ids: Vec<TaskId> = self
            .view()
            .running
            .tasks
            .iter()
            .filter(|id| connectors.contains(&id.connector))
            .cloned()
            .collect();
        self.stop_tasks_here(&ids).await;
    }
}
