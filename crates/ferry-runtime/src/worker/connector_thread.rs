//! Each connector instance lives on a thread of its own, as Java's `WorkerConnector` runs on an
//! executor thread: a plugin that hangs in `start`, `taskConfigs` or `stop` holds only that
//! thread, never the herder's loop or the runtime's threads. Calls are queued to the thread in
//! order; whoever waits for one decides how long (stops are bounded by
//! `task.shutdown.graceful.timeout.ms`, after which the thread is abandoned as Java abandons a
//! connector that does not stop). Nobody blocks on a stop: a new instance of the same connector
//! waits for its predecessor's stop on its own thread, so the two never overlap in a plugin.

use std::panic::AssertUnwindSafe;
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
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
    /// Moves `instance` onto a new thread named after the connector. When `after` names the
    /// stop of a previous instance, the thread waits for it (at most the given time) before its
    /// first call.
    pub fn spawn(
        name: &str,
        instance: AnyConnector,
        after: Option<(Arc<StopLatch>, Duration)>,
    ) -> std::io::Result<Self> {
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
                if let Some((previous, timeout)) = after {
                    if !previous.wait(timeout) {
                        tracing::warn!("The previous instance has not stopped; starting anyway");
                    }
                }
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

    /// Asks the connector to stop after the calls queued before; nothing waits here. The
    /// latch opens once `stop` returned, the answer carries its outcome.
    pub fn stop(self) -> PendingStop {
        let latch = Arc::new(StopLatch::default());
        let (reply, answer) = tokio::sync::oneshot::channel();
        let opened = latch.clone();
        self.submit(
            |c| c.as_connector_mut().stop(),
            move |outcome| {
                opened.open();
                let _ = reply.send(outcome);
            },
        );
        PendingStop { latch, answer }
    }
}

/// A stop that was asked for.
pub(crate) struct PendingStop {
    pub latch: Arc<StopLatch>,
    pub answer: tokio::sync::oneshot::Receiver<Result<(), ConnectError>>,
}

/// Opens once a connector's `stop` returned; a successor waits for it at most its timeout.
#[derive(Default)]
pub(crate) struct StopLatch {
    open: Mutex<bool>,
    opened: Condvar,
}

impl StopLatch {
    fn open(&self) {
        *self.open.lock().unwrap_or_else(|p| p.into_inner()) = true;
        self.opened.notify_all();
    }

    /// Blocks up to `timeout`; answers whether the latch opened.
    pub fn wait(&self, timeout: Duration) -> bool {
        let open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        let (open, _) = self
            .opened
            .wait_timeout_while(open, timeout, |open| !*open)
            .unwrap_or_else(|p| p.into_inner());
        *open
    }
}

pub(crate) fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_owned())
}
