//! The worker's metrics: what runs here and how it went, rendered on every scrape.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::clients::{self, Role};
use super::exposition::{jmx_value, metric_name, Exposition, Kind};
use super::group::GroupMetrics;
use super::task::{Meter, TaskKind, TaskMetrics};
use super::window::Windowed;
use crate::status::{State, StatusStore, TaskId};

/// A connector that runs on this worker (Java's `connector-metrics`).
#[derive(Debug, Clone)]
pub struct ConnectorInfo {
    pub class: String,
    /// `source` or `sink`.
    pub kind: &'static str,
    pub version: String,
}

#[derive(Default)]
struct Startups {
    attempts: AtomicU64,
    successes: AtomicU64,
    failures: AtomicU64,
}

impl Startups {
    fn record(&self, ok: bool) {
        self.attempts.fetch_add(1, Ordering::Relaxed);
        let outcome = if ok { &self.successes } else { &self.failures };
        outcome.fetch_add(1, Ordering::Relaxed);
    }
}

/// The worker's `app-info` MBean, which Kafka 4.2 (KIP-1120) tags with the worker id.
struct AppInfo {
    client_id: String,
    start_unix_seconds: f64,
}

#[derive(Default)]
pub struct ConnectMetrics {
    /// Absent for metrics of no worker (tests).
    app_info: Option<AppInfo>,
    connector_startups: Startups,
    task_startups: Startups,
    /// Automatic restarts Ferry made (beyond Java's metrics).
    restarts: AtomicU64,
    connectors: Mutex<BTreeMap<String, ConnectorInfo>>,
    tasks: Mutex<BTreeMap<TaskId, Arc<TaskMetrics>>>,
    group: Mutex<Option<Arc<GroupMetrics>>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Java's lower-case state names, as its metrics report them.
fn state_name(state: State) -> String {
    state.to_string().to_ascii_lowercase()
}

impl ConnectMetrics {
    /// The metrics of the worker `worker_id`, started now.
    pub fn for_worker(worker_id: &str) -> Self {
        let start_unix_seconds = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64());
        ConnectMetrics {
            app_info: Some(AppInfo {
                client_id: worker_id.to_owned(),
                start_unix_seconds,
            }),
            ..Self::default()
        }
    }

    pub fn connector_started(&self, name: &str, info: Option<ConnectorInfo>) {
        self.connector_startups.record(info.is_some());
        if let Some(info) = info {
            lock(&self.connectors).insert(name.to_owned(), info);
        }
    }

    pub fn connector_stopped(&self, name: &str) {
        lock(&self.connectors).remove(name);
    }

    /// A task is about to run here; its pipeline records into what this returns.
    pub fn task_started(&self, id: &TaskId, kind: TaskKind) -> Arc<TaskMetrics> {
        self.task_startups.record(true);
        let metrics = Arc::new(TaskMetrics::new(kind));
        lock(&self.tasks).insert(id.clone(), metrics.clone());
        metrics
    }

    /// A task could not be built.
    pub fn task_start_failed(&self) {
        self.task_startups.record(false);
    }

    pub fn task_stopped(&self, id: &TaskId) {
        lock(&self.tasks).remove(id);
    }

    pub fn restarted(&self) {
        self.restarts.fetch_add(1, Ordering::Relaxed);
    }

    pub fn set_group(&self, group: Arc<GroupMetrics>) {
        *lock(&self.group) = Some(group);
    }

    /// The text exposition of every metric, with states read from `status`.
    pub fn render(&self, status: &dyn StatusStore) -> String {
        let mut out = Exposition::default();
        let connectors = lock(&self.connectors).clone();
        let tasks: Vec<(TaskId, Arc<TaskMetrics>)> = lock(&self.tasks)
            .iter()
            .map(|(id, m)| (id.clone(), m.clone()))
            .collect();
        self.render_app_info(&mut out);
        self.render_worker(&mut out, connectors.len(), tasks.len());
        render_connectors(&mut out, &connectors, status);
        render_connector_task_counts(&mut out, &tasks, status);
        for (id, m) in &tasks {
            render_task(&mut out, id, m, status);
            super::plugin::render(&mut out, &m.plugin);
        }
        if let Some(group) = lock(&self.group).clone() {
            group.render(&mut out);
        }
        out.render()
    }

    fn render_app_info(&self, out: &mut Exposition) {
        if let Some(info) = &self.app_info {
            let client = || vec![("clientid", jmx_value(&info.client_id))];
            out.sample(
                "kafka_connect_start_time_seconds".to_owned(),
                Kind::Gauge,
                "app-info start-time-ms",
                client(),
                info.start_unix_seconds,
            );
            let mut labels = client();
            labels.push(("version", crate::KAFKA_CONNECT_VERSION.to_owned()));
            out.sample(
                "kafka_connect_version".to_owned(),
                Kind::Untyped,
                "app-info version",
                labels,
                1.0,
            );
        }
    }

    fn render_worker(&self, out: &mut Exposition, connectors: usize, tasks: usize) {
        let mut worker = |attribute: &str, value: f64| {
            out.sample(
                metric_name("kafka_connect_worker", attribute),
                Kind::of_attribute(attribute),
                &format!("connect-worker-metrics {attribute}"),
                vec![],
                value,
            );
        };
        worker("connector-count", connectors as f64);
        worker("task-count", tasks as f64);
        for (what, s) in [
            ("connector", &self.connector_startups),
            ("task", &self.task_startups),
        ] {
            let attempts = s.attempts.load(Ordering::Relaxed) as f64;
            let successes = s.successes.load(Ordering::Relaxed) as f64;
            let failures = s.failures.load(Ordering::Relaxed) as f64;
            let share = |n: f64| if attempts == 0.0 { 0.0 } else { n / attempts };
            worker(&format!("{what}-startup-attempts-total"), attempts);
            worker(&format!("{what}-startup-success-total"), successes);
            worker(&format!("{what}-startup-failure-total"), failures);
            worker(
                &format!("{what}-startup-success-percentage"),
                share(successes),
            );
            worker(
                &format!("{what}-startup-failure-percentage"),
                share(failures),
            );
        }
        out.sample(
            "ferry_connect_worker_automatic_restarts_total".to_owned(),
            Kind::Counter,
            "Connectors and tasks Ferry restarted by itself (ferry.task.restart.*, ferry.connector.restart.*)",
            vec![],
            self.restarts.load(Ordering::Relaxed) as f64,
        );
    }
}

fn render_connectors(
    out: &mut Exposition,
    connectors: &BTreeMap<String, ConnectorInfo>,
    status: &dyn StatusStore,
) {
    for (name, info) in connectors {
        let state = status
            .connector(name)
            .map_or_else(|| "unassigned".to_owned(), |s| state_name(s.state));
        for (attribute, label, value) in [
            ("connector-class", "connector_class", info.class.clone()),
            ("connector-type", "connector_type", info.kind.to_owned()),
            (
                "connector-version",
                "connector_version",
                info.version.clone(),
            ),
            ("status", "status", state),
        ] {
            out.sample(
                metric_name("kafka_connect_connector", attribute),
                Kind::Gauge,
                &format!("connector-metrics {attribute}"),
                vec![("connector", jmx_value(name)), (label, value)],
                1.0,
            );
        }
    }
}

fn task_state(id: &TaskId, status: &dyn StatusStore) -> String {
    status
        .task(id)
        .map_or_else(|| "unassigned".to_owned(), |s| state_name(s.state))
}

/// Java's per-connector `connect-worker-metrics`: this worker's tasks of each connector by state.
fn render_connector_task_counts(
    out: &mut Exposition,
    tasks: &[(TaskId, Arc<TaskMetrics>)],
    status: &dyn StatusStore,
) {
    let mut by_connector: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for (id, _) in tasks {
        by_connector
            .entry(id.connector.as_str())
            .or_default()
            .push(task_state(id, status));
    }
    for (connector, states) in by_connector {
        let count = |s: &str| states.iter().filter(|x| *x == s).count() as f64;
        for (attribute, value) in [
            ("connector-total-task-count", states.len() as f64),
            ("connector-running-task-count", count("running")),
            ("connector-paused-task-count", count("paused")),
            ("connector-failed-task-count", count("failed")),
            ("connector-unassigned-task-count", count("unassigned")),
            ("connector-destroyed-task-count", count("destroyed")),
            ("connector-restarting-task-count", count("restarting")),
        ] {
            out.sample(
                metric_name("kafka_connect_worker", attribute),
                Kind::Gauge,
                &format!("connect-worker-metrics {attribute}"),
                vec![("connector", jmx_value(connector))],
                value,
            );
        }
    }
}

fn render_task(out: &mut Exposition, id: &TaskId, m: &TaskMetrics, status: &dyn StatusStore) {
    let labels = || {
        vec![
            ("connector", jmx_value(&id.connector)),
            ("task", id.task.to_string()),
        ]
    };
    let mut put = |group: &str, attribute: &str, value: f64| {
        out.sample(
            metric_name(
                &format!("kafka_connect_{}", group.replace('-', "_")),
                attribute,
            ),
            Kind::of_attribute(attribute),
            &format!("{group}-metrics {attribute}"),
            labels(),
            value,
        );
    };
    let (running, paused) = m.ratios();
    put("connector-task", "running-ratio", running);
    put("connector-task", "pause-ratio", paused);
    // Counts render as `<name>-total` and `<name>-rate`; timings and sizes as their average and
    // maximum, named by the pattern with `{}` for `avg` or `max`.
    type Named<'a, T> = Vec<(&'a str, &'a str, &'a T)>;
    let (meters, stats): (Named<'_, Meter>, Named<'_, Windowed>) = match m.kind {
        TaskKind::Source => (
            vec![
                ("source-task", "source-record-poll", &m.source_record_poll),
                ("source-task", "source-record-write", &m.source_record_write),
            ],
            vec![(
                "source-task",
                "poll-batch-{}-time-ms",
                &m.poll_batch_time_ms,
            )],
        ),
        TaskKind::Sink => (
            vec![
                ("sink-task", "sink-record-read", &m.sink_record_read),
                ("sink-task", "sink-record-send", &m.sink_record_send),
                (
                    "sink-task",
                    "offset-commit-completion",
                    &m.offset_commit_completion,
                ),
                ("sink-task", "offset-commit-skip", &m.offset_commit_skip),
            ],
            vec![("sink-task", "put-batch-{}-time-ms", &m.put_batch_time_ms)],
        ),
    };
    let stats = stats.into_iter().chain([
        ("connector-task", "batch-size-{}", &m.batch_size),
        (
            "connector-task",
            "offset-commit-{}-time-ms",
            &m.offset_commit_time_ms,
        ),
    ]);
    for (group, name, meter) in meters {
        put(group, &format!("{name}-total"), meter.total() as f64);
        put(group, &format!("{name}-rate"), meter.rate());
    }
    for (group, pattern, stat) in stats {
        put(group, &pattern.replace("{}", "avg"), stat.avg());
        put(group, &pattern.replace("{}", "max"), stat.max());
    }
    if m.kind == TaskKind::Sink {
        let seq_no = m.offset_commit_seq_no.load(Ordering::Relaxed);
        put("sink-task", "offset-commit-seq-no", seq_no as f64);
        let partitions = m.partition_count.load(Ordering::Relaxed);
        put("sink-task", "partition-count", partitions as f64);
    }
    let e = &m.errors;
    let load = |c: &AtomicU64| c.load(Ordering::Relaxed) as f64;
    put(
        "task-error",
        "total-record-failures",
        load(&e.record_failures),
    );
    put("task-error", "total-record-errors", load(&e.record_errors));
    put(
        "task-error",
        "total-records-skipped",
        load(&e.records_skipped),
    );
    put("task-error", "total-retries", load(&e.retries));
    put("task-error", "total-errors-logged", load(&e.errors_logged));
    put(
        "task-error",
        "deadletterqueue-produce-requests",
        load(&e.dlq_produce_requests),
    );
    put(
        "task-error",
        "deadletterqueue-produce-failures",
        load(&e.dlq_produce_failures),
    );
    put(
        "task-error",
        "last-error-timestamp",
        e.last_error_timestamp.load(Ordering::Relaxed) as f64,
    );
    render_active_count(out, id, m);
    let mut status_labels = labels();
    status_labels.push(("status", task_state(id, status)));
    out.sample(
        "kafka_connect_connector_task_status".to_owned(),
        Kind::Gauge,
        "connector-task-metrics status",
        status_labels,
        1.0,
    );
    let role = match m.kind {
        TaskKind::Source => Role::Producer,
        TaskKind::Sink => Role::Consumer,
    };
    m.with_client(|c| clients::render(out, role, &c.client_id, &c.stats));
}

/// `*-record-active-count`, `-avg` and `-max` share one name under the rules; the exporter
/// tells them apart with an `_objectname` label naming the MBean attribute.
fn render_active_count(out: &mut Exposition, id: &TaskId, m: &TaskMetrics) {
    let group = match m.kind {
        TaskKind::Source => "source",
        TaskKind::Sink => "sink",
    };
    let (now, avg, max) = m.active();
    for (suffix, value) in [("", now), ("-avg", avg), ("-max", max)] {
        let object = format!(
            "kafka.connect<type={group}-task-metrics, connector={}, task={}><>{group}-record-active-count{suffix}",
            jmx_value(&id.connector),
            id.task
        );
        out.sample(
            format!("kafka_connect_{group}_task_{group}_record_active_count"),
            Kind::Gauge,
            &format!("{group}-task-metrics {group}-record-active-count"),
            vec![
                ("_objectname", object),
                ("connector", jmx_value(&id.connector)),
                ("task", id.task.to_string()),
            ],
            value,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::status::MemoryStatusStore;

    /// Kafka 4.2 (KIP-1120) tags the worker's app-info with its id, which the JMX exporter then
    /// shows as `kafka_connect_version` and `kafka_connect_start_time_seconds`.
    #[test]
    fn the_worker_s_app_info_carries_its_id() {
        let text =
            ConnectMetrics::for_worker("127.0.0.1:8083").render(&MemoryStatusStore::default());
        let version = format!(
            "kafka_connect_version{{clientid=\"\\\"127.0.0.1:8083\\\"\",version=\"{}\"}} 1",
            crate::KAFKA_CONNECT_VERSION
        );
        assert!(text.contains(&version), "{version} in {text}");
        assert!(
            text.contains(
                "kafka_connect_start_time_seconds{clientid=\"\\\"127.0.0.1:8083\\\"\"} 1"
            ),
            "{text}"
        );
        let none = ConnectMetrics::default().render(&MemoryStatusStore::default());
        assert!(!none.contains("kafka_connect_version"), "{none}");
    }
}
