//! Exactly-once source support (KIP-618) in the herder: zombie fencing, which the leader's loop
//! carries out before a connector's new generation of tasks may write, and the checks every
//! exactly-once source task makes around its producer's start.

use std::sync::{Arc, Weak};
use std::time::Duration;

use async_trait::async_trait;
use ferry_api::ConnectError;
use ferry_kafka::client_properties::ClientRole;
use ferry_runtime::config::connector::ConnectorConfig;
use ferry_runtime::herder::core::not_found;
use ferry_runtime::herder::HerderError;
use ferry_runtime::plugins::PluginKind;
use ferry_runtime::status::TaskId;
use ferry_runtime::worker::exactly_once::{transactional_id, ExactlyOnce, ExactlyOnceChecks};

use super::commands::Command;
use super::leader_client;
use super::DistributedHerder;
use crate::config::ExactlyOnceSourceSupport;
use crate::stores::clients::internal_client;

/// Java's `fenceProducers` timeout.
const FENCE_TIMEOUT: Duration = Duration::from_secs(90);
/// How long a task's config read may take before its post-producer check.
const CONFIG_READ_TIMEOUT: Duration = Duration::from_secs(30);

impl DistributedHerder {
    /// What a source task of `connector` needs to run exactly once here; `None` when the worker
    /// does not run source tasks exactly once, or the connector is not a source.
    pub(crate) fn exactly_once_for(
        &self,
        id: &TaskId,
        connector: &ConnectorConfig,
        kind: Option<PluginKind>,
        generation: Option<u64>,
    ) -> Option<ExactlyOnce> {
        if self.config.exactly_once != ExactlyOnceSourceSupport::Enabled
            || kind != Some(PluginKind::Source)
        {
            return None;
        }
        // A connector's own offsets topic (offsets.storage.topic) gets its offsets in the
        // task's transactions, and the worker's a copy after each commit.
        let own_topic = self.worker.own_offsets_topic(&connector.props);
        Some(ExactlyOnce {
            transactional_id: transactional_id(&self.config.group_id, id),
            offsets_topic: own_topic
                .unwrap_or(&self.config.offset_topic.name)
                .to_owned(),
            worker_offsets: own_topic.map(|_| self.worker.offset_store().clone()),
            boundary: connector.transaction_boundary(self.config.worker.offset_flush_interval),
            checks: Arc::new(TaskChecks {
                herder: self.me.clone(),
                generation,
            }),
        })
    }

    /// `PUT /connectors/{c}/fence`, or a task of this worker asking: the leader's loop fences.
    pub(crate) async fn request_fencing(&self, name: &str) -> Result<(), HerderError> {
        if !self.view().is_leader() {
            return self.fence_through_leader(name).await;
        }
        let name = name.to_owned();
        self.ask(|reply| Command::FenceZombies { name, reply })
            .await
            .unwrap_or_else(|| Err(super::shutting_down()))
    }

    async fn fence_through_leader(&self, name: &str) -> Result<(), HerderError> {
        let failed = |e: &dyn std::fmt::Display| {
            HerderError::Conflict(format!("Zombie fencing for {name} failed: {e}"))
        };
        let (url, key) = self.leader_contact().map_err(|e| failed(&e))?;
        leader_client::send_fence(&url, name, key.as_deref())
            .await
            .map_err(|e| failed(&e))
    }

    /// Java's `doFenceZombieSourceTasks`, on the leader's loop: when the connector's task
    /// configs changed since its task count was last recorded, every transactional id of the
    /// recorded count is fenced, then the current count is recorded.
    pub(crate) async fn fence_zombies_here(&self, name: &str) -> Result<(), HerderError> {
        if !self.view().is_leader() {
            return Err(HerderError::NotLeader {
                leader_url: self.view().leader_url.clone(),
            });
        }
        let snapshot = self.configs.snapshot();
        let config = snapshot
            .connector_config(name)
            .ok_or_else(|| not_found(name))?;
        if self.kind_of(config) != Some(PluginKind::Source) {
            return Err(HerderError::BadRequest(format!(
                "Connector {name} is not a source connector"
            )));
        }
        if !snapshot.pending_fencing(name) {
            return Ok(());
        }
        let task_count = snapshot.tasks(name).len();
        if let Some(recorded) = snapshot.task_count_record(name) {
            // One task before and after: its own producer's registration fences its zombie.
            if recorded != 1 || task_count != 1 {
                let ids: Vec<String> = (0..recorded)
                    .map(|task| {
                        transactional_id(
                            &self.config.group_id,
                            &TaskId {
                                connector: name.to_owned(),
                                task,
                            },
                        )
                    })
                    .collect();
                tracing::info!(connector = %name, tasks = recorded, "Fencing out earlier task generations");
                let client = internal_client(
                    &self.config.worker,
                    ClientRole::Producer,
                    &format!("connector-worker-adminclient-{name}"),
                )
                .map_err(|e| HerderError::Internal(e.to_string()))?;
                ferry_kafka::producer::fence_producers(&client, &ids, FENCE_TIMEOUT)
                    .await
                    .map_err(|e| {
                        HerderError::Internal(format!(
                            "Failed to perform zombie fencing for source connector {name}: {e}"
                        ))
                    })?;
            }
        }
        let generation = snapshot.task_config_generation(name);
        let now = self.configs.snapshot();
        if now.task_config_generation(name) != generation {
            return Err(HerderError::Conflict(
                "Fencing failed because new task configurations were generated for the connector"
                    .to_owned(),
            ));
        }
        self.configs
            .put_task_count(name, task_count)
            .await
            .map_err(super::store_error)
    }
}

/// The checks of one exactly-once source task, bound to the task-config generation it started
/// with.
struct TaskChecks {
    herder: Weak<DistributedHerder>,
    generation: Option<u64>,
}

impl TaskChecks {
    fn herder(&self) -> Result<Arc<DistributedHerder>, ConnectError> {
        self.herder
            .upgrade()
            .ok_or_else(|| ConnectError::other("The worker is shutting down"))
    }
}

#[async_trait]
impl ExactlyOnceChecks for TaskChecks {
    async fn before_producer(&self, id: &TaskId) -> Result<(), ConnectError> {
        self.herder()?
            .request_fencing(&id.connector)
            .await
            .map_err(|e| {
                ConnectError::other(format!(
                    "Failed to perform zombie fencing for task {id}: {e}"
                ))
            })
    }

    async fn after_producer(&self, id: &TaskId) -> Result<(), ConnectError> {
        let herder = self.herder()?;
        herder
            .configs
            .read_to_end(CONFIG_READ_TIMEOUT)
            .await
            .map_err(|e| ConnectError::other(format!("Cannot start source task {id}: {e}")))?;
        if herder
            .configs
            .snapshot()
            .task_config_generation(&id.connector)
            != self.generation
        {
            return Err(ConnectError::other(format!(
                "Cannot start source task {id} as the connector has already generated a new set of task configs"
            )));
        }
        if !herder.view().owned.tasks.contains(id) {
            return Err(ConnectError::other(format!(
                "Cannot start source task {id} as it has already been revoked from this worker"
            )));
        }
        Ok(())
    }
}
