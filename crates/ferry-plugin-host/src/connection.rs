//! One running host process: frames out through its stdin, frames in from its stdout on a
//! reader thread, its log lines from stderr on another. Calls wait for their replies with a
//! deadline; when the process ends every waiting call fails with how it ended.

use std::collections::{HashMap, VecDeque};
use std::io::{BufRead, BufReader, BufWriter};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use ferry_api::ConnectError;
use serde_json::{json, Value};
use tokio::sync::oneshot;

use crate::error::HostError;
use crate::frame::{read_frame, write_frame, Frame, Header};
use crate::host::{Hooks, HostSettings};

type Answer = Result<(Value, Vec<u8>), HostError>;

enum Waiter {
    Async(oneshot::Sender<Answer>),
    Sync(mpsc::Sender<Answer>),
}

impl Waiter {
    fn send(self, answer: Answer) {
        match self {
            Waiter::Async(tx) => {
                let _ = tx.send(answer);
            }
            Waiter::Sync(tx) => {
                let _ = tx.send(answer);
            }
        }
    }
}

/// How many of the host's own stderr lines (not log events) to keep for an exit message.
const KEPT_LINES: usize = 5;

pub(crate) struct Connection {
    pub generation: u64,
    stdin: Mutex<BufWriter<ChildStdin>>,
    pending: Mutex<HashMap<u64, Waiter>>,
    next_id: AtomicU64,
    /// Why the host is gone, once it is.
    exited: Mutex<Option<String>>,
    exited_signal: std::sync::Condvar,
    child: Mutex<Child>,
    last_lines: Mutex<VecDeque<String>>,
    /// Set when Ferry ends the process itself, so its exit is no failure.
    stopping: AtomicBool,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// A call sent and not yet answered; kept by its caller so that a dropped wait loses nothing.
pub(crate) struct PendingCall {
    op: String,
    rx: oneshot::Receiver<Answer>,
    deadline: tokio::time::Instant,
}

impl PendingCall {
    pub async fn wait(&mut self) -> Answer {
        match tokio::time::timeout_at(self.deadline, &mut self.rx).await {
            Ok(Ok(answer)) => answer,
            Ok(Err(_)) => Err(HostError::Exited(
                "The plugin host connection closed".into(),
            )),
            Err(_) => Err(HostError::Timeout {
                op: self.op.clone(),
                ms: 0,
            }),
        }
    }
}

impl Connection {
    /// Starts a host process; `connector` names the connector a per-connector host is for
    /// (it shows on the process's command line as `-Dferry.host.connector=NAME`).
    pub fn start(
        settings: &HostSettings,
        generation: u64,
        connector: Option<&str>,
        hooks: Arc<Hooks>,
    ) -> Result<Arc<Self>, HostError> {
        let jar = settings.home.join("ferry-plugin-host.jar");
        if !jar.is_file() {
            return Err(HostError::Start(format!(
                "{} is missing; build it with scripts/plugin-host build, or point FERRY_PLUGIN_HOST at its directory",
                jar.display()
            )));
        }
        let classpath = format!("{}:{}/lib/*", jar.display(), settings.home.display());
        let mut command = Command::new(&settings.java);
        // As Kafka's scripts read them; the host exits on OutOfMemoryError rather than limp on.
        let heap =
            std::env::var("KAFKA_HEAP_OPTS").unwrap_or_else(|_| "-Xms256M -Xmx2G".to_owned());
        command.args(heap.split_whitespace());
        // Kafka's scripts' garbage collector settings: G1 with a short pause goal keeps the
        // young generation, and so the process's memory, small after the plugin.path scan.
        let performance = std::env::var("KAFKA_JVM_PERFORMANCE_OPTS").unwrap_or_else(|_| {
            "-server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent".to_owned()
        });
        command.args(performance.split_whitespace());
        if let Ok(opts) = std::env::var("KAFKA_OPTS") {
            command.args(opts.split_whitespace());
        }
        if let Some(name) = connector {
            command.arg(format!("-Dferry.host.connector={name}"));
        }
        command
            .arg("-XX:+ExitOnOutOfMemoryError")
            .arg("-Djava.awt.headless=true")
            .arg("-cp")
            .arg(classpath)
            .arg("dev.ferry.host.Host")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command
            .spawn()
            .map_err(|e| HostError::Start(format!("{}: {e}", settings.java.display())))?;
        let pid = child.id();
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(HostError::Start("no pipes to the host process".into()));
        };
        let conn = Arc::new(Connection {
            generation,
            stdin: Mutex::new(BufWriter::with_capacity(1 << 16, stdin)),
            pending: Mutex::default(),
            next_id: AtomicU64::new(1),
            exited: Mutex::default(),
            exited_signal: std::sync::Condvar::new(),
            child: Mutex::new(child),
            last_lines: Mutex::default(),
            stopping: AtomicBool::new(false),
        });
        tracing::info!(pid, generation, connector, "Started the plugin host");
        let logs = conn.clone();
        std::thread::Builder::new()
            .name("ferry-host-log".into())
            .spawn(move || {
                for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                    logs.log_line(&line);
                }
            })
            .map_err(|e| HostError::Start(e.to_string()))?;
        let reader = conn.clone();
        std::thread::Builder::new()
            .name("ferry-host-read".into())
            .spawn(move || {
                let mut input = BufReader::with_capacity(1 << 16, stdout);
                loop {
                    match read_frame(&mut input) {
                        Ok(Some(frame)) => reader.dispatch(frame, &hooks),
                        Ok(None) => break,
                        Err(e) => {
                            tracing::error!(error = %e, "Unreadable frame from the plugin host");
                            break;
                        }
                    }
                }
                reader.closed(&hooks);
            })
            .map_err(|e| HostError::Start(e.to_string()))?;
        Ok(conn)
    }

    pub fn is_alive(&self) -> bool {
        lock(&self.exited).is_none()
    }

    /// Kills the process as a crash would (its work fails with the cause).
    pub fn kill(&self) {
        let _ = lock(&self.child).kill();
    }

    /// Ends the process on purpose (Ferry stops, or nothing uses it any more).
    pub fn stop(&self) {
        self.stopping.store(true, Ordering::SeqCst);
        self.kill();
    }

    fn log_line(&self, line: &str) {
        let mut parts = line.splitn(5, '\t');
        if parts.next() != Some("FERRYLOG") {
            tracing::warn!(target: "ferry_plugin_host::java", "{line}");
            let mut kept = lock(&self.last_lines);
            if kept.len() == KEPT_LINES {
                kept.pop_front();
            }
            kept.push_back(line.to_owned());
            return;
        }
        let level = parts.next().unwrap_or("INFO");
        let logger = parts.next().unwrap_or("");
        let context = parts.next().unwrap_or("").trim();
        let message = parts
            .next()
            .unwrap_or("")
            .replace("\\n", "\n")
            .replace("\\r", "");
        macro_rules! emit {
            ($lvl:ident) => {
                tracing::$lvl!(target: "ferry_plugin_host::java", logger, context, "{message}")
            };
        }
        match level {
            "ERROR" | "FATAL" => emit!(error),
            "WARN" => emit!(warn),
            "INFO" => emit!(info),
            "DEBUG" => emit!(debug),
            _ => emit!(trace),
        }
    }

    fn dispatch(self: &Arc<Self>, frame: Frame, hooks: &Arc<Hooks>) {
        let kind = frame
            .header
            .get("kind")
            .and_then(Value::as_str)
            .unwrap_or("");
        let id = frame.header.get("id").and_then(Value::as_u64).unwrap_or(0);
        match kind {
            "reply" => {
                if let Some(waiter) = lock(&self.pending).remove(&id) {
                    waiter.send(reply(frame));
                }
            }
            "call" => {
                let conn = self.clone();
                let hooks = hooks.clone();
                hooks.runtime.clone().spawn(async move {
                    let answer = hooks.answer(&frame.header).await;
                    let mut header = Header::new();
                    header.insert("kind".into(), "reply".into());
                    header.insert("id".into(), id.into());
                    match answer {
                        Ok(v) => header.insert("ok".into(), v),
                        Err(e) => header.insert("error".into(), json!({"message": e.to_string()})),
                    };
                    if let Err(e) = conn.write(&header, &[]) {
                        tracing::warn!(error = %e, "Could not answer the plugin host");
                    }
                });
            }
            "event" => hooks.event(self.generation, &frame.header),
            other => tracing::warn!(kind = other, "Unknown frame from the plugin host"),
        }
    }

    /// The host's stdout ended: find out how it exited and fail everything waiting on it.
    fn closed(&self, hooks: &Hooks) {
        let status = {
            let mut child = lock(&self.child);
            let deadline = Instant::now() + Duration::from_secs(5);
            loop {
                match child.try_wait() {
                    Ok(Some(status)) => break Some(status),
                    Ok(None) if Instant::now() < deadline => {
                        std::thread::sleep(Duration::from_millis(20))
                    }
                    _ => {
                        let _ = child.kill();
                        break child.wait().ok();
                    }
                }
            }
        };
        let how = match status {
            Some(s) => {
                use std::os::unix::process::ExitStatusExt;
                match (s.code(), s.signal()) {
                    (Some(code), _) => format!("with exit code {code}"),
                    (None, Some(signal)) => format!("killed by signal {signal}"),
                    _ => "for an unknown reason".to_owned(),
                }
            }
            None => "and its status is unknown".to_owned(),
        };
        let mut cause = format!(
            "The plugin host (generation {}) exited {how}",
            self.generation
        );
        let kept = lock(&self.last_lines);
        if !kept.is_empty() {
            cause.push_str("; its last output: ");
            cause.push_str(&kept.iter().cloned().collect::<Vec<_>>().join(" | "));
        }
        drop(kept);
        if self.stopping.load(Ordering::SeqCst) {
            tracing::info!(generation = self.generation, "The plugin host stopped");
        } else {
            tracing::error!("{cause}");
        }
        *lock(&self.exited) = Some(cause.clone());
        self.exited_signal.notify_all();
        for (_, waiter) in lock(&self.pending).drain() {
            waiter.send(Err(HostError::Exited(cause.clone())));
        }
        hooks.host_exited(self.generation, &cause);
    }

    fn write(&self, header: &Header, payload: &[u8]) -> std::io::Result<()> {
        write_frame(&mut *lock(&self.stdin), header, payload)
    }

    fn send_frame(
        &self,
        op: &str,
        mut header: Header,
        payload: &[u8],
        waiter: Waiter,
    ) -> Result<(), HostError> {
        if let Some(cause) = lock(&self.exited).clone() {
            return Err(HostError::Exited(cause));
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        header.insert("kind".into(), "call".into());
        header.insert("id".into(), id.into());
        header.insert("op".into(), op.into());
        lock(&self.pending).insert(id, waiter);
        if let Err(e) = self.write(&header, payload) {
            lock(&self.pending).remove(&id);
            // A broken pipe means the host is gone; its reader thread is finding out how.
            let exited = self
                .exited_signal
                .wait_timeout_while(lock(&self.exited), Duration::from_secs(10), |cause| {
                    cause.is_none()
                })
                .map(|(cause, _)| cause.clone())
                .unwrap_or_else(|p| p.into_inner().0.clone());
            return Err(HostError::Exited(exited.unwrap_or_else(|| {
                format!("Cannot write to the plugin host: {e}")
            })));
        }
        Ok(())
    }

    /// Sends a call whose answer is awaited later (and possibly by a later future).
    pub fn send(
        &self,
        op: &str,
        header: Header,
        payload: &[u8],
        timeout: Duration,
    ) -> Result<PendingCall, HostError> {
        let (tx, rx) = oneshot::channel();
        self.send_frame(op, header, payload, Waiter::Async(tx))?;
        Ok(PendingCall {
            op: op.to_owned(),
            rx,
            deadline: tokio::time::Instant::now() + timeout,
        })
    }

    pub async fn call(
        &self,
        op: &str,
        header: Header,
        payload: &[u8],
        timeout: Duration,
    ) -> Answer {
        let mut pending = self.send(op, header, payload, timeout)?;
        pending.wait().await.map_err(|e| with_timeout(e, timeout))
    }

    /// A call from synchronous code (the connector trait's methods); on Tokio's multi-thread
    /// runtime the wait moves other work off this thread first.
    pub fn call_blocking(
        &self,
        op: &str,
        header: Header,
        payload: &[u8],
        timeout: Duration,
    ) -> Answer {
        let (tx, rx) = mpsc::channel();
        self.send_frame(op, header, payload, Waiter::Sync(tx))?;
        let wait = || rx.recv_timeout(timeout);
        let answer = match tokio::runtime::Handle::try_current() {
            Ok(h) if h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
                tokio::task::block_in_place(wait)
            }
            _ => wait(),
        };
        match answer {
            Ok(a) => a,
            Err(mpsc::RecvTimeoutError::Timeout) => Err(HostError::Timeout {
                op: op.to_owned(),
                ms: timeout.as_millis(),
            }),
            Err(mpsc::RecvTimeoutError::Disconnected) => Err(HostError::Exited(
                "The plugin host connection closed".into(),
            )),
        }
    }
}

fn with_timeout(e: HostError, timeout: Duration) -> HostError {
    match e {
        HostError::Timeout { op, .. } => HostError::Timeout {
            op,
            ms: timeout.as_millis(),
        },
        other => other,
    }
}

fn reply(frame: Frame) -> Answer {
    let mut header = frame.header;
    if let Some(error) = header.remove("error") {
        return Err(HostError::Plugin(java_error(&error)));
    }
    Ok((header.remove("ok").unwrap_or(Value::Null), frame.payload))
}

/// A Java exception as the host reported it.
pub(crate) fn java_error(error: &Value) -> ConnectError {
    let text = |k: &str| {
        error
            .get(k)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    ConnectError::Java {
        class: text("class"),
        message: text("message"),
        trace: text("trace"),
        retriable: error
            .get("retriable")
            .and_then(Value::as_bool)
            .unwrap_or(false),
    }
}
