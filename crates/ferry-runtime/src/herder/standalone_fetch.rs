//! Asking a standalone connector for task configs off the herder's loop: `taskConfigs` runs on
//! the connector's thread and its answer comes back to the loop as a job, so a connector that
//! hangs there holds neither the loop nor REST nor any other connector. Java's standalone
//! herder calls it under its lock, so one hang stops everything.

use std::collections::HashMap;

use ferry_api::ConfigMap;
use tokio::sync::oneshot;

use super::standalone_core::{ConnectorEntry, Core, Job};
use crate::config::connector::ConnectorConfig;
use crate::status::{State, Status};
use crate::worker::{ConnectorRuntimeError, TargetState};

/// A `taskConfigs` call in flight for a connector.
#[derive(Default)]
pub(super) struct Fetch {
    /// Another request came meanwhile: ask again once this one is applied.
    again: bool,
    /// Told once the connector's tasks follow the last answer.
    waiters: Vec<oneshot::Sender<()>>,
}

pub(super) type Fetches = HashMap<String, Fetch>;

impl Core {
    /// A connector wants new task configs (started, resumed, or asking itself).
    pub fn request_task_configs(&mut self, name: &str) {
        match self.fetches.get_mut(name) {
            Some(fetch) => fetch.again = true,
            None => self.begin_fetch(name, Vec::new()),
        }
    }

    /// Resolves once the task configs asked for so far are applied (at once when none are).
    pub fn tasks_settled(&mut self, name: &str) -> oneshot::Receiver<()> {
        let (settled, answer) = oneshot::channel();
        match self.fetches.get_mut(name) {
            Some(fetch) => fetch.waiters.push(settled),
            None => {
                let _ = settled.send(());
            }
        }
        answer
    }

    /// Only a started connector is asked, as in Java: one created paused, or paused straight
    /// from STOPPED, has no tasks until it is resumed.
    fn begin_fetch(&mut self, name: &str, waiters: Vec<oneshot::Sender<()>>) {
        let config = match self.connectors.get(name) {
            Some(entry)
                if entry.target == TargetState::Started
                    && self.worker.is_connector_started(name) =>
            {
                entry.config.clone()
            }
            _ => {
                settle(waiters);
                return;
            }
        };
        self.fetches.insert(
            name.to_owned(),
            Fetch {
                again: false,
                waiters,
            },
        );
        let (worker, jobs, name) = (self.worker.clone(), self.jobs.clone(), name.to_owned());
        tokio::spawn(async move {
            let answer = worker
                .task_configs(&name, &ConnectorConfig::from_stored(&config))
                .await;
            // The loop is gone when the herder is: nothing is left to apply the answer to.
            let Some(jobs) = jobs.upgrade() else {
                return;
            };
            let job: Job = Box::new(move |mut core| {
                Box::pin(async move {
                    core.finish_fetch(&name, &config, answer).await;
                    core
                })
            });
            let _ = jobs.send(job);
        });
    }

    async fn finish_fetch(
        &mut self,
        name: &str,
        asked_with: &ConfigMap,
        answer: Result<Vec<ConfigMap>, ConnectorRuntimeError>,
    ) {
        let fetch = self.fetches.remove(name).unwrap_or_default();
        if let Some(mut entry) = self.connectors.remove(name) {
            // A connector replaced or stopped meanwhile asks again on its own.
            if entry.config == *asked_with && entry.target == TargetState::Started {
                self.apply_task_configs(name, &mut entry, answer).await;
            }
            self.connectors.insert(name.to_owned(), entry);
        }
        if fetch.again {
            self.begin_fetch(name, fetch.waiters);
        } else {
            settle(fetch.waiters);
        }
    }

    /// When the task configs changed, restarts the connector's tasks with them; a failure to
    /// generate them leaves the connector FAILED with the error.
    async fn apply_task_configs(
        &self,
        name: &str,
        entry: &mut ConnectorEntry,
        answer: Result<Vec<ConfigMap>, ConnectorRuntimeError>,
    ) {
        let configs = match answer {
            Ok(c) => c,
            // Stopped meanwhile: its next start asks again.
            Err(ConnectorRuntimeError::NotRunning(_)) => return,
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
}

fn settle(waiters: Vec<oneshot::Sender<()>>) {
    for waiter in waiters {
        let _ = waiter.send(());
    }
}
