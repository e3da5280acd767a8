//! Standalone mode's herder: configs and statuses live in memory, offsets in the offsets file.
//! One lock serialises every change, as Java's synchronized `StandaloneHerder` does.

use std::collections::BTreeMap;
use std::sync::Arc;

use async_trait::async_trait;
use ferry_api::ConfigMap;
use tokio::sync::{mpsc, Mutex};

use crate::config::connector::TASKS_MAX;
use crate::herder::validation::validate_connector_config;
use crate::herder::{ConnectorInfo, ConnectorStateInfo, Herder, HerderError, StateInfo, Written};
use crate::plugins::PluginKind;
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
}

fn not_found(name: &str) -> HerderError {
    HerderError::NotFound(format!("Connector {name} not found"))
}

fn state_info(status: Option<Status>, worker_id: &str) -> StateInfo {
    match status {
        Some(s) => StateInfo {
            state: s.state,
            trace: s.trace,
            worker_id: s.worker_id,
        },
        None => StateInfo {
            state: State::Unassigned,
            trace: None,
            worker_id: worker_id.to_owned(),
        },
    }
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

    /// Asks the connector for task configs; when they changed, restarts its tasks with them.
    async fn update_tasks(&self, name: &str, entry: &mut ConnectorEntry) {
        if entry.target == TargetState::Stopped || !self.worker.is_connector_running(name) {
            return;
        }
        let max_tasks = entry
            .config
            .get(TASKS_MAX)
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(1);
        let configs = match self.worker.task_configs(name, &entry.config, max_tasks) {
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
        for task in configs.len()..entry.task_configs.len() {
            self.worker.status_store().remove_task(&TaskId {
                connector: name.to_owned(),
                task,
            });
        }
        for (i, props) in configs.iter().enumerate() {
            let id = TaskId {
                connector: name.to_owned(),
                task: i,
            };
            if let Err(error) = self.worker.start_task(id, &entry.config, props.clone()) {
                tracing::error!(connector = %name, task = i, %error, "Failed to start task");
            }
        }
        entry.task_configs = configs;
    }

    async fn stop_tasks(&self, name: &str) {
        let ids = self.worker.tasks_of(name);
        self.worker.stop_tasks(&ids).await;
    }

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
}

#[async_trait]
impl Herder for StandaloneHerder {
    async fn connectors(&self) -> Vec<String> {
        self.connectors.lock().await.keys().cloned().collect()
    }

    async fn connector_info(&self, name: &str) -> Result<ConnectorInfo, HerderError> {
        let connectors = self.connectors.lock().await;
        let entry = connectors.get(name).ok_or_else(|| not_found(name))?;
        Ok(ConnectorInfo {
            name: name.to_owned(),
            config: entry.config.clone(),
            tasks: (0..entry.task_configs.len())
                .map(|task| TaskId {
                    connector: name.to_owned(),
                    task,
                })
                .collect(),
            kind: Some(entry.kind),
        })
    }

    async fn connector_status(&self, name: &str) -> Result<ConnectorStateInfo, HerderError> {
        let kind = self.connectors.lock().await.get(name).map(|e| e.kind);
        let store = self.worker.status_store();
        let connector = store.connector(name);
        if kind.is_none() && connector.is_none() {
            return Err(not_found(name));
        }
        let worker_id = self.worker.worker_id();
        let tasks = store
            .tasks(name)
            .into_iter()
            .map(|(i, s)| (i, state_info(Some(s), worker_id)))
            .collect();
        Ok(ConnectorStateInfo {
            name: name.to_owned(),
            connector: state_info(connector, worker_id),
            tasks,
            kind,
        })
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
        let written = match connectors.remove(name) {
            Some(existing) if !allow_replace => {
                connectors.insert(name.to_owned(), existing);
                return Err(HerderError::AlreadyExists(format!(
                    "Connector {name} already exists"
                )));
            }
            Some(_) => {
                self.stop_tasks(name).await;
                self.worker.stop_connector(name);
                Written::Updated
            }
            None => Written::Created,
        };
        let target = if written == Written::Created {
            initial_state
        } else {
            TargetState::Started
        };
        let mut entry = ConnectorEntry {
            config,
            kind,
            target,
            task_configs: Vec::new(),
        };
        self.start(name, &mut entry).await;
        let info = ConnectorInfo {
            name: name.to_owned(),
            config: entry.config.clone(),
            tasks: (0..entry.task_configs.len())
                .map(|task| TaskId {
                    connector: name.to_owned(),
                    task,
                })
                .collect(),
            kind: Some(kind),
        };
        connectors.insert(name.to_owned(), entry);
        Ok((written, info))
    }

    async fn delete_connector(&self, name: &str) -> Result<(), HerderError> {
        let mut connectors = self.connectors.lock().await;
        connectors.remove(name).ok_or_else(|| not_found(name))?;
        self.stop_tasks(name).await;
        self.worker.stop_connector(name);
        self.worker.status_store().remove_connector(name);
        Ok(())
    }

    fn kafka_cluster_id(&self) -> String {
        self.cluster_id.clone()
    }
}
