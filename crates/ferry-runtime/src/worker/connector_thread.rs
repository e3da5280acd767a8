//! Each connector instance lives on a thread of its own, as Java's `WorkerConnector` runs on an
//! executor thread: a plugin that hangs in `start`, `taskConfigs` or `stop` holds only that
//! thread, never the herder's loop or the runtime's threads. Calls are queued to the thread in
//! order; whoever waits for one decides how long (stops are bounded by
//! `task.shutdown.graceful.timeout.ms`, after which the thread is abandoned as Java abandons a
//! connector that does not stop).

use std::panic::AssertUnwindSafe;
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

use ferry_api::connector::{AnyConnector, ConnectorContext};
use ferry_api::{ConfigMap, ConnectError};

/// What a connector's `taskConfigs` answered, with what the worker adds to each config.
pub(crate) struct GeneratedTasks {
    pub configs: Vec<ConfigMap>,
    pub task_class: Option<String>,
    pub sink: bool,
}

type Job = Box<dyn FnOnce(&mut AnyConnector) + Send>;

#[derive(Clone)]
pub(crate) struct ConnectorThread {
    jobs: mpsc::Sender<Job>,
}

impl ConnectorThread {
    /// Moves `instance` onto a new thread named after the connector.
    pub fn spawn(name: &str, instance: AnyConnector) -> std::io::Result<Self> {
        let (jobs, queue) = mpsc::channel::<Job>();
        let span = tracing::info_span!("connector", connector = %name);
        // What runs after a call (its status, a scheduled restart) spawns onto the worker's
        // runtime, so the thread works inside it.
        let runtime = tokio::runtime::Handle::try_current().ok();
        std::thread::Builder::new()
            .name(format!("connector-{name}"))
            .spawn(move || {
                let _runtime = runtime.as_ref().map(|r| r.enter());
                let _entered = span.enter();
                let mut instance = instance;
                // Ends when the worker drops its handle (after the stop job, or when abandoned).
                while let Ok(job) = queue.recv() {
                    job(&mut instance);
                }
            })?;
        Ok(ConnectorThread { jobs })
    }

    /// Runs `call` on the connector's thread after the calls queued before it; `then` gets its
    /// outcome there (a panic becomes an error).
    fn submit<R: Send + 'static>(
        &self,
        call: impl FnOnce(&mut AnyConnector) -> Result<R, ConnectError> + Send + 'static,
        then: impl FnOnce(Result<R, ConnectError>) + Send + 'static,
    ) {
        let job: Job = Box::new(move |instance| {
            let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| call(instance)))
                .unwrap_or_else(|p| Err(ConnectError::other(panic_message(&p))));
            then(outcome);
        });
        // A send fails only once the thread ended (a panic outside a call); the job is lost
        // with it, and whoever waits on its answer sees its sender dropped.
        let _ = self.jobs.send(job);
    }

    /// Starts the connector; `then` runs on its thread with the outcome.
    pub fn start(
        &self,
        props: ConfigMap,
        context: Arc<dyn ConnectorContext>,
        then: impl FnOnce(Result<(), ConnectError>) + Send + 'static,
    ) {
        self.submit(move |c| c.as_connector_mut().start(&props, context), then);
    }

    /// The connector's task configs (at most `max_tasks` asked for).
    pub async fn task_configs(&self, max_tasks: usize) -> Result<GeneratedTasks, ConnectError> {
        let (reply, answer) = tokio::sync::oneshot::channel();
        self.submit(
            move |c| {
                let configs = c.as_connector().task_configs(max_tasks)?;
                Ok(GeneratedTasks {
                    configs,
                    task_class: c.as_connector().task_class(),
                    sink: c.is_sink(),
                })
            },
            move |outcome| {
                let _ = reply.send(outcome);
            },
        );
        answer
            .await
            .unwrap_or_else(|_| Err(ConnectError::other("The connector's thread has ended")))
    }

    /// Stops the connector and waits up to `timeout` for it; `Err(None)` when the stop did not
    /// return in time (the thread is then left to finish, or hang, on its own).
    pub fn stop(self, timeout: Duration) -> Result<(), Option<ConnectError>> {
        let (reply, answer) = mpsc::channel();
        self.submit(
            |c| c.as_connector_mut().stop(),
            move |outcome| {
                let _ = reply.send(outcome);
            },
        );
        let wait = || answer.recv_timeout(timeout);
        // Other work on this runtime thread moves elsewhere while the stop is awaited.
        let outcome = match tokio::runtime::Handle::try_current() {
            Ok(h) if h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
                tokio::task::block_in_place(wait)
            }
            _ => wait(),
        };
        match outcome {
            Ok(Ok(())) => Ok(()),
            Ok(Err(error)) => Err(Some(error)),
            Err(mpsc::RecvTimeoutError::Timeout) => Err(None),
            Err(mpsc::RecvTimeoutError::Disconnected) => Err(Some(ConnectError::other(
                "The connector's thread has ended",
            ))),
        }
    }
}

pub(crate) fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_owned())
}
