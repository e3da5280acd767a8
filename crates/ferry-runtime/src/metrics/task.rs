//! One task's metrics: Java's `connector-task-metrics`, `source-task-metrics` or
//! `sink-task-metrics`, and `task-error-metrics`. The pipeline records into it; the registry
//! renders it while the task runs on this worker.

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use ferry_kafka::stats::ClientStats;

use super::window::Windowed;
use crate::status::State;

/// A count since the task started and its recent rate.
#[derive(Default)]
pub struct Meter {
    total: AtomicU64,
    rate: Windowed,
}

impl Meter {
    pub fn mark(&self, n: u64) {
        self.total.fetch_add(n, Ordering::Relaxed);
        self.rate.record(n as f64);
    }

    pub fn total(&self) -> u64 {
        self.total.load(Ordering::Relaxed)
    }

    pub fn rate(&self) -> f64 {
        self.rate.rate()
    }
}

/// How long the task has spent running and paused, for Java's running and pause ratios.
struct StateClock {
    since: Instant,
    current: Option<State>,
    running: Duration,
    paused: Duration,
}

impl StateClock {
    fn settle(&mut self, now: Instant) {
        let spent = now.duration_since(self.since);
        match self.current {
            Some(State::Running) => self.running += spent,
            Some(State::Paused) => self.paused += spent,
            _ => {}
        }
        self.since = now;
    }
}

/// Java's `task-error-metrics`.
#[derive(Default)]
pub struct ErrorMetrics {
    /// Failed attempts of an operation, retries included.
    pub record_failures: AtomicU64,
    /// Records whose processing failed for good.
    pub record_errors: AtomicU64,
    pub records_skipped: AtomicU64,
    pub retries: AtomicU64,
    pub errors_logged: AtomicU64,
    pub dlq_produce_requests: AtomicU64,
    pub dlq_produce_failures: AtomicU64,
    /// Milliseconds since the epoch; 0 before the first error.
    pub last_error_timestamp: AtomicI64,
}

impl ErrorMetrics {
    pub fn add(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }

    pub fn error_now(&self) {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0);
        self.last_error_timestamp.store(now, Ordering::Relaxed);
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskKind {
    Source,
    Sink,
}

/// The librdkafka client a task reads or writes with, for the client metrics.
pub struct TaskClient {
    pub client_id: String,
    pub stats: Arc<ClientStats>,
}

pub struct TaskMetrics {
    pub kind: TaskKind,
    clock: Mutex<StateClock>,
    pub batch_size: Windowed,
    pub offset_commit_time_ms: Windowed,
    // Source tasks.
    pub source_record_poll: Meter,
    pub source_record_write: Meter,
    pub poll_batch_time_ms: Windowed,
    // Sink tasks.
    pub sink_record_read: Meter,
    pub sink_record_send: Meter,
    pub put_batch_time_ms: Windowed,
    pub offset_commit_completion: Meter,
    pub offset_commit_skip: Meter,
    pub offset_commit_seq_no: AtomicU64,
    pub partition_count: AtomicU64,
    // Both: records handed on and not yet acknowledged (source) or committed (sink).
    active_count: AtomicI64,
    active_samples: Windowed,
    pub errors: Arc<ErrorMetrics>,
    client: Mutex<Option<TaskClient>>,
    /// What the task publishes itself (MirrorMaker's replication metrics).
    pub plugin: Arc<ferry_api::metrics::PluginMetrics>,
}

impl TaskMetrics {
    pub fn new(kind: TaskKind) -> Self {
        TaskMetrics {
            kind,
            clock: Mutex::new(StateClock {
                since: Instant::now(),
                current: None,
                running: Duration::ZERO,
                paused: Duration::ZERO,
            }),
            batch_size: Windowed::default(),
            offset_commit_time_ms: Windowed::default(),
            source_record_poll: Meter::default(),
            source_record_write: Meter::default(),
            poll_batch_time_ms: Windowed::default(),
            sink_record_read: Meter::default(),
            sink_record_send: Meter::default(),
            put_batch_time_ms: Windowed::default(),
            offset_commit_completion: Meter::default(),
            offset_commit_skip: Meter::default(),
            offset_commit_seq_no: AtomicU64::new(0),
            partition_count: AtomicU64::new(0),
            active_count: AtomicI64::new(0),
            active_samples: Windowed::default(),
            errors: Arc::default(),
            client: Mutex::new(None),
            plugin: Arc::default(),
        }
    }

    pub fn state_changed(&self, state: State) {
        let mut clock = self.clock.lock().unwrap_or_else(|e| e.into_inner());
        clock.settle(Instant::now());
        clock.current = Some(state);
    }

    /// The shares of the task's life spent running and paused.
    pub fn ratios(&self) -> (f64, f64) {
        let mut clock = self.clock.lock().unwrap_or_else(|e| e.into_inner());
        clock.settle(Instant::now());
        let total = (clock.running + clock.paused).as_secs_f64();
        if total == 0.0 {
            return (0.0, 0.0);
        }
        (
            clock.running.as_secs_f64() / total,
            clock.paused.as_secs_f64() / total,
        )
    }

    /// Records the number of records in flight, sampled for its average and maximum.
    pub fn set_active(&self, count: usize) {
        let count = i64::try_from(count).unwrap_or(i64::MAX);
        self.active_count.store(count, Ordering::Relaxed);
        self.active_samples.record(count as f64);
    }

    /// (current, average, maximum) records in flight.
    pub fn active(&self) -> (f64, f64, f64) {
        (
            self.active_count.load(Ordering::Relaxed) as f64,
            self.active_samples.avg(),
            self.active_samples.max(),
        )
    }

    pub fn set_client(&self, client: TaskClient) {
        *self.client.lock().unwrap_or_else(|e| e.into_inner()) = Some(client);
    }

    pub fn with_client<T>(&self, f: impl FnOnce(&TaskClient) -> T) -> Option<T> {
        self.client
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .map(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meters_count_every_record() {
        let m = TaskMetrics::new(TaskKind::Source);
        m.source_record_poll.mark(7);
        m.source_record_poll.mark(3);
        assert_eq!(m.source_record_poll.total(), 10);
    }

    #[test]
    fn ratios_follow_the_reported_states() {
        let m = TaskMetrics::new(TaskKind::Sink);
        assert_eq!(m.ratios(), (0.0, 0.0));
        m.state_changed(State::Running);
        std::thread::sleep(Duration::from_millis(20));
        m.state_changed(State::Paused);
        std::thread::sleep(Duration::from_millis(20));
        let (running, paused) = m.ratios();
        assert!(running > 0.2 && paused > 0.2, "{running} {paused}");
        assert!((running + paused - 1.0).abs() < 1e-9);
    }
}
