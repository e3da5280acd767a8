//! Java's `connect-worker-rebalance-metrics` and the assignment half of
//! `connect-coordinator-metrics`, fed by the distributed herder.

use std::sync::Mutex;
use std::time::Instant;

use super::exposition::{jmx_value, Exposition, Kind};
use super::window::Windowed;

struct GroupState {
    protocol: String,
    leader_url: String,
    epoch: i64,
    rebalance_started: Option<Instant>,
    completed: u64,
    last_completed: Option<Instant>,
    assigned_connectors: usize,
    assigned_tasks: usize,
}

/// A distributed worker's view of its group.
pub struct GroupMetrics {
    /// Java's coordinator client id: `connect-` and the worker id.
    client_id: String,
    state: Mutex<GroupState>,
    rebalance_time_ms: Windowed,
}

/// What a completed rebalance gave this worker.
pub struct Rebalanced<'a> {
    pub protocol: &'a str,
    pub leader_url: &'a str,
    pub epoch: i64,
    pub connectors: usize,
    pub tasks: usize,
}

impl GroupMetrics {
    pub fn new(worker_id: &str) -> Self {
        GroupMetrics {
            client_id: format!("connect-{worker_id}"),
            state: Mutex::new(GroupState {
                protocol: String::new(),
                leader_url: String::new(),
                epoch: -1,
                rebalance_started: None,
                completed: 0,
                last_completed: None,
                assigned_connectors: 0,
                assigned_tasks: 0,
            }),
            rebalance_time_ms: Windowed::default(),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, GroupState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn rebalance_started(&self) {
        let mut s = self.state();
        if s.rebalance_started.is_none() {
            s.rebalance_started = Some(Instant::now());
        }
    }

    pub fn rebalance_completed(&self, done: &Rebalanced<'_>) {
        let now = Instant::now();
        let mut s = self.state();
        if let Some(started) = s.rebalance_started.take() {
            self.rebalance_time_ms
                .record(now.duration_since(started).as_secs_f64() * 1000.0);
        }
        s.protocol = done.protocol.to_owned();
        s.leader_url = done.leader_url.to_owned();
        s.epoch = done.epoch;
        s.completed += 1;
        s.last_completed = Some(now);
        s.assigned_connectors = done.connectors;
        s.assigned_tasks = done.tasks;
    }

    pub fn render(&self, out: &mut Exposition) {
        let s = self.state();
        let rebalance = |out: &mut Exposition, attribute: &str, labels, value| {
            out.sample(
                super::exposition::metric_name("kafka_connect_worker_rebalance", attribute),
                Kind::of_attribute(attribute),
                &format!("connect-worker-rebalance-metrics {attribute}"),
                labels,
                value,
            );
        };
        rebalance(
            out,
            "completed-rebalances-total",
            vec![],
            s.completed as f64,
        );
        rebalance(out, "epoch", vec![], s.epoch as f64);
        rebalance(
            out,
            "rebalancing",
            vec![],
            f64::from(u8::from(s.rebalance_started.is_some())),
        );
        rebalance(
            out,
            "rebalance-avg-time-ms",
            vec![],
            self.rebalance_time_ms.avg(),
        );
        rebalance(
            out,
            "rebalance-max-time-ms",
            vec![],
            self.rebalance_time_ms.max(),
        );
        let since = s
            .last_completed
            .map_or(f64::INFINITY, |t| t.elapsed().as_secs_f64() * 1000.0);
        rebalance(out, "time-since-last-rebalance-ms", vec![], since);
        // The rules turn these two string attributes into a label with the value 1.
        for (name, label, value) in [
            (
                "kafka_connect_worker_rebalance_leader_name",
                "leader_name",
                &s.leader_url,
            ),
            (
                "kafka_connect_worker_rebalance_connect_protocol",
                "connect_protocol",
                &s.protocol,
            ),
        ] {
            if !value.is_empty() {
                out.sample(
                    name.to_owned(),
                    Kind::Untyped,
                    &format!("connect-worker-rebalance-metrics {label}"),
                    vec![(label, value.clone())],
                    1.0,
                );
            }
        }
        let client = jmx_value(&self.client_id);
        for (attribute, value) in [
            ("assigned-connectors", s.assigned_connectors),
            ("assigned-tasks", s.assigned_tasks),
        ] {
            out.sample(
                super::exposition::metric_name("kafka_connect_coordinator", attribute),
                Kind::Gauge,
                &format!("connect-coordinator-metrics {attribute}"),
                vec![("clientid", client.clone())],
                value as f64,
            );
        }
    }
}
