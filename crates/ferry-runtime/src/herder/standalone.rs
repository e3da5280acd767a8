//! Standalone mode's herder: configs and statuses live in memory, offsets in the offsets file.
//! One loop owns the connectors and every start and stop of their work (`standalone_core.rs`);
//! REST requests, connectors asking for new task configs and automatic restarts reach it as
//! jobs and are carried out one at a time, in order, as Java's synchronized `StandaloneHerder`
//! runs them. A request whose client gives up does not cut its job short.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use async_trait::async_trait;
use ferry_api::ConfigMap;
use tokio::sync::{mpsc, oneshot};

use super::core;
use super::standalone_core::{Core, Job};
use crate::herder::offsets::{self, ConnectorOffset};
use crate::herder::status_view;
use crate::herder::validation::{off_runtime, validate_connector_config};
use crate::herder::{
    ConfigPatch, ConnectorInfo, ConnectorStateInfo, Herder, HerderError, RestartRequest, StateInfo,
    Written,
};
use crate::plugins::{PluginKind, Registry};
use crate::status::TaskId;
use crate::worker::{TargetState, Worker, SLOW_CALL_NOTICE};

pub struct StandaloneHerder {
    worker: Arc<Worker>,
    jobs: mpsc::UnboundedSender<Job>,
    cluster_id: String,
    ready: AtomicBool,
}

fn shutting_down() -> HerderError {
    HerderError::Internal("The worker is shutting down".to_owned())
}

/// The loop: jobs and connectors' requests for new task configs, one at a time. It ends when
/// the herder is dropped.
async fn run(
    mut core: Core,
    mut jobs: mpsc::UnboundedReceiver<Job>,
    mut reconfigure: mpsc::UnboundedReceiver<String>,
) {
    let mut reconfigure_open = true;
    loop {
        tokio::select! {
            // A start reports its outcome after asking for task configs: whoever waited on it
            // and then waits for the tasks finds that request already taken.
            biased;
            name = reconfigure.recv(), if reconfigure_open => match name {
                Some(name) => core.request_task_configs(&name),
                None => reconfigure_open = false,
            },
            job = jobs.recv() => match job {
                Some(job) => core = job(core).await,
                None => break,
            },
        }
    }
}

/// Runs `job` on the loop whose queue `jobs` is, and answers what it answered.
async fn call_on<R, F, Fut>(jobs: &mpsc::UnboundedSender<Job>, job: F) -> Result<R, HerderError>
where
    R: Send + 'static,
    F: FnOnce(Core) -> Fut + Send + 'static,
    Fut: Future<Output = (Core, R)> + Send + 'static,
{
    let (reply, answer) = oneshot::channel();
    let job: Job = Box::new(move |core| {
        Box::pin(async move {
            let (core, result) = job(core).await;
            let _ = reply.send(result);
            core
        })
    });
    jobs.send(job).map_err(|_| shutting_down())?;
    answer.await.map_err(|_| shutting_down())
}

impl StandaloneHerder {
    /// A herder over `worker`; `reconfigure` carries connectors' requests for new task configs.
    pub fn new(
        worker: Arc<Worker>,
        cluster_id: String,
        reconfigure: mpsc::UnboundedReceiver<String>,
    ) -> Arc<Self> {
        let (jobs, job_requests) = mpsc::unbounded_channel();
        let core = Core {
            worker: worker.clone(),
            connectors: Default::default(),
            fetches: Default::default(),
            jobs: jobs.downgrade(),
        };
        tokio::spawn(run(core, job_requests, reconfigure));
        Arc::new(StandaloneHerder {
            worker,
            jobs,
            cluster_id,
            ready: AtomicBool::new(false),
        })
    }

    /// Runs `job` on the loop, after every job sent before it, and answers what it answered.
    async fn call<R, F, Fut>(&self, job: F) -> Result<R, HerderError>
    where
        R: Send + 'static,
        F: FnOnce(Core) -> Fut + Send + 'static,
        Fut: Future<Output = (Core, R)> + Send + 'static,
    {
        call_on(&self.jobs, job).await
    }

    pub fn worker(&self) -> &Arc<Worker> {
        &self.worker
    }

    /// Start-up is over (the command line's connectors exist): `GET /health` answers healthy.
    pub fn set_ready(&self) {
        self.ready.store(true, Ordering::Release);
    }

    /// Stops every connector and task, committing their offsets (the shutdown path), after the
    /// requests already queued.
    pub async fn stop(&self) {
        let stopped = self
            .call(|core| async move {
                core.worker.stop_all().await;
                (core, ())
            })
            .await;
        if stopped.is_err() {
            self.worker.stop_all().await;
        }
    }
}

#[async_trait]
impl Herder for StandaloneHerder {
    async fn connectors(&self) -> Vec<String> {
        self.call(|core| async move {
            let names = core.connectors.keys().cloned().collect();
            (core, names)
        })
        .await
        .unwrap_or_default()
    }

    async fn connector_info(&self, name: &str) -> Result<ConnectorInfo, HerderError> {
        let name = name.to_owned();
        self.call(move |core| async move {
            let info = core.entry(&name).map(|e| Core::info(&name, e));
            (core, info)
        })
        .await?
    }

    async fn connector_status(&self, name: &str) -> Result<ConnectorStateInfo, HerderError> {
        let owned = name.to_owned();
        let kind = self
            .call(move |core| async move {
                let kind = core.connectors.get(&owned).map(|e| e.kind);
                (core, kind)
            })
            .await?;
        status_view::connector_state(self.worker.status_store().as_ref(), name, kind)
    }

    async fn task_status(&self, id: &TaskId) -> Result<StateInfo, HerderError> {
        status_view::task_state(self.worker.status_store().as_ref(), id)
    }

    async fn task_configs(&self, name: &str) -> Result<Vec<(TaskId, ConfigMap)>, HerderError> {
        let name = name.to_owned();
        self.call(move |core| async move {
            let configs = core.entry(&name).map(|entry| {
                entry
                    .task_configs
                    .iter()
                    .enumerate()
                    .map(|(task, c)| {
                        (
                            TaskId {
                                connector: name.clone(),
                                task,
                            },
                            c.clone(),
                        )
                    })
                    .collect()
            });
            (core, configs)
        })
        .await?
    }

    async fn put_connector_config(
        &self,
        name: &str,
        mut config: ConfigMap,
        allow_replace: bool,
        initial_state: TargetState,
    ) -> Result<(Written, ConnectorInfo), HerderError> {
        config.insert("name".to_owned(), name.to_owned());
        let name = name.to_owned();
        let (owned, registry, jobs) = (
            name.clone(),
            self.worker.registry().clone(),
            self.jobs.clone(),
        );
        // Validated and carried out on a task of its own: a client that gives up (a REST
        // request timing out) does not cut the change short.
        let put = tokio::spawn(async move {
            let submitted = config.clone();
            let kind =
                off_runtime(move || validate_connector_config(&registry, &submitted)).await?;
            call_on(&jobs, move |mut core| async move {
                let put = core
                    .put(&owned, config, kind, allow_replace, initial_state)
                    .await;
                (core, put)
            })
            .await?
        });
        let (written, started) = put
            .await
            .map_err(|e| HerderError::Internal(format!("The change was not carried out: {e}")))??;
        // As Java, the answer waits for the connector's start and its first task configs, but
        // outside the loop: a start or taskConfigs that hangs delays only this answer, and only
        // for so long.
        let deadline = tokio::time::Instant::now() + SLOW_CALL_NOTICE;
        if let Some(started) = started {
            if let Some(Ok(())) = started.outcome(SLOW_CALL_NOTICE).await {
                let owned = name.clone();
                let settled = self
                    .call(move |mut core| async move {
                        let settled = core.tasks_settled(&owned);
                        (core, settled)
                    })
                    .await?;
                let _ = tokio::time::timeout_at(deadline, settled).await;
            }
        }
        self.call(move |core| async move {
            let info = core.entry(&name).map(|e| Core::info(&name, e));
            (core, info)
        })
        .await?
        .map(|info| (written, info))
    }

    async fn patch_connector_config(
        &self,
        name: &str,
        patch: ConfigPatch,
    ) -> Result<ConnectorInfo, HerderError> {
        let owned = name.to_owned();
        let config = self
            .call(move |core| async move {
                let config = core.entry(&owned).map(|e| e.config.clone());
                (core, config)
            })
            .await??;
        let config = core::patched(config, patch);
        let (_, info) = self
            .put_connector_config(name, config, true, TargetState::Started)
            .await?;
        Ok(info)
    }

    async fn delete_connector(&self, name: &str) -> Result<(), HerderError> {
        let name = name.to_owned();
        self.call(move |mut core| async move {
            let deleted = core.delete(&name).await;
            (core, deleted)
        })
        .await?
    }

    async fn pause_connector(&self, name: &str) -> Result<(), HerderError> {
        self.transition(name, TargetState::Paused).await
    }

    async fn resume_connector(&self, name: &str) -> Result<(), HerderError> {
        self.transition(name, TargetState::Started).await
    }

    async fn stop_connector(&self, name: &str) -> Result<(), HerderError> {
        self.transition(name, TargetState::Stopped).await
    }

    async fn restart_connector(&self, name: &str) -> Result<(), HerderError> {
        let owned = name.to_owned();
        let started = self
            .call(move |mut core| async move {
                let restarted = core.restart_connector(&owned);
                (core, restarted)
            })
            .await??;
        // As Java's restart answers the start's outcome, waited for outside the loop; one
        // still starting after the notice deadline answers success, and its tasks follow once
        // it returns.
        match started.outcome(SLOW_CALL_NOTICE).await {
            Some(Err(e)) => Err(HerderError::Internal(format!(
                "Failed to start connector: {name}: {e}"
            ))),
            _ => Ok(()),
        }
    }

    async fn restart_task(&self, id: &TaskId) -> Result<(), HerderError> {
        let id = id.clone();
        self.call(move |core| async move {
            let restarted = core.restart_task(&id).await;
            (core, restarted)
        })
        .await?
    }

    async fn restart_connector_and_tasks(
        &self,
        name: &str,
        request: RestartRequest,
    ) -> Result<ConnectorStateInfo, HerderError> {
        let name = name.to_owned();
        self.call(move |core| async move {
            let answer = core.restart_connector_and_tasks(&name, request).await;
            (core, answer)
        })
        .await?
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
        let owned = name.to_owned();
        let (kind, config) = self
            .call(move |core| async move {
                let found = core.entry(&owned).map(|e| (e.kind, e.config.clone()));
                (core, found)
            })
            .await??;
        offsets::read(&self.worker, name, kind, &config).await
    }

    async fn alter_connector_offsets(
        &self,
        name: &str,
        changes: Vec<ConnectorOffset>,
    ) -> Result<String, HerderError> {
        // Checked on the loop, carried out off it: the connector's alterOffsets (asked of a
        // new instance, as Java does) may hang, and only this request waits for it.
        let (kind, config) = self.stopped(name).await?;
        offsets::alter(&self.worker, name, kind, &config, changes).await
    }

    async fn reset_connector_offsets(&self, name: &str) -> Result<String, HerderError> {
        let (kind, config) = self.stopped(name).await?;
        offsets::reset(&self.worker, name, kind, &config).await
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
        // Answering proves the loop is not stuck, as a Java standalone request that gets the
        // herder's lock does.
        let _ = self.call(|core| async move { (core, ()) }).await;
    }

    fn render_metrics(&self) -> String {
        self.worker.render_metrics()
    }
}

impl StandaloneHerder {
    async fn transition(&self, name: &str, target: TargetState) -> Result<(), HerderError> {
        let name = name.to_owned();
        self.call(move |mut core| async move {
            let moved = core.transition(&name, target).await;
            (core, moved)
        })
        .await?
    }

    async fn stopped(&self, name: &str) -> Result<(PluginKind, ConfigMap), HerderError> {
        let name = name.to_owned();
        self.call(move |core| async move {
            let stopped = core.stopped(&name);
            (core, stopped)
        })
        .await?
    }

    fn topic_tracking(&self, reset: bool) -> Result<(), HerderError> {
        core::require_topic_tracking(self.worker.config(), reset)
    }
}

#[cfg(test)]
#[path = "standalone_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "stuck_native_tests.rs"]
mod stuck_native_tests;
