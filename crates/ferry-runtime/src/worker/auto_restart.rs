//! Automatic restarts of failed tasks and connectors (beyond Java, off by default): exponential
//! backoff with jitter, a cap on attempts, and a fresh count once one has run healthily for a
//! while. The worker only asks; the herder, which owns every start, restarts the task or
//! connector if it is still this worker's and still FAILED.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use ferry_api::ConfigMap;

use crate::status::TaskId;

pub const ENABLE: &str = "ferry.task.restart.enable";
pub const INITIAL_BACKOFF_MS: &str = "ferry.task.restart.backoff.initial.ms";
pub const MAX_BACKOFF_MS: &str = "ferry.task.restart.backoff.max.ms";
pub const MAX_ATTEMPTS: &str = "ferry.task.restart.max.attempts";
pub const RESET_AFTER_MS: &str = "ferry.task.restart.reset.after.ms";

/// The same settings for connectors, under `ferry.connector.restart.`.
pub const CONNECTOR_ENABLE: &str = "ferry.connector.restart.enable";
pub const CONNECTOR_INITIAL_BACKOFF_MS: &str = "ferry.connector.restart.backoff.initial.ms";
pub const CONNECTOR_MAX_BACKOFF_MS: &str = "ferry.connector.restart.backoff.max.ms";
pub const CONNECTOR_MAX_ATTEMPTS: &str = "ferry.connector.restart.max.attempts";
pub const CONNECTOR_RESET_AFTER_MS: &str = "ferry.connector.restart.reset.after.ms";

/// What failed and may be restarted.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum RestartTarget {
    Connector(String),
    Task(TaskId),
}

/// The worker's restart policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestartPolicy {
    pub initial_backoff: Duration,
    pub max_backoff: Duration,
    pub max_attempts: u32,
    pub reset_after: Duration,
}

fn millis(props: &ConfigMap, key: &str, default: u64) -> Result<u64, String> {
    match props.get(key).map(|v| v.trim()) {
        None | Some("") => Ok(default),
        Some(v) => v.parse().map_err(|_| {
            format!("Invalid value {v} for configuration {key}: Not a number of type LONG")
        }),
    }
}

impl RestartPolicy {
    /// The task policy the worker's keys describe; `None` unless
    /// `ferry.task.restart.enable=true`.
    pub fn from_worker_props(props: &ConfigMap) -> Result<Option<Self>, String> {
        Self::from_keys(
            props,
            [
                ENABLE,
                INITIAL_BACKOFF_MS,
                MAX_BACKOFF_MS,
                MAX_ATTEMPTS,
                RESET_AFTER_MS,
            ],
        )
    }

    /// The connector policy; `None` unless `ferry.connector.restart.enable=true`.
    pub fn for_connectors(props: &ConfigMap) -> Result<Option<Self>, String> {
        Self::from_keys(
            props,
            [
                CONNECTOR_ENABLE,
                CONNECTOR_INITIAL_BACKOFF_MS,
                CONNECTOR_MAX_BACKOFF_MS,
                CONNECTOR_MAX_ATTEMPTS,
                CONNECTOR_RESET_AFTER_MS,
            ],
        )
    }

    fn from_keys(props: &ConfigMap, keys: [&str; 5]) -> Result<Option<Self>, String> {
        let [enable, initial, max, attempts, reset] = keys;
        let enabled = props
            .get(enable)
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
        if !enabled {
            return Ok(None);
        }
        Ok(Some(RestartPolicy {
            initial_backoff: Duration::from_millis(millis(props, initial, 1_000)?),
            max_backoff: Duration::from_millis(millis(props, max, 60_000)?),
            max_attempts: u32::try_from(millis(props, attempts, 10)?).unwrap_or(u32::MAX),
            reset_after: Duration::from_millis(millis(props, reset, 300_000)?),
        }))
    }

    /// The delay before attempt `attempt` (1-based): doubling from the initial backoff up to
    /// the maximum, within ±20% so tasks that failed together do not restart together.
    pub fn delay(&self, attempt: u32, jitter_seed: u64) -> Duration {
        let doubled = self
            .initial_backoff
            .saturating_mul(1u32 << attempt.saturating_sub(1).min(20));
        let base = doubled.min(self.max_backoff);
        let spread = (jitter_seed % 401) as i64 - 200; // -200..=200 per mille / 5
        let factor = 1000 + spread; // 0.8..1.2
        Duration::from_millis((base.as_millis() as i64 * factor / 1000).max(0) as u64)
    }
}

/// Per task or connector: restarts asked for since it last ran healthily, and when it last
/// started.
#[derive(Default)]
pub struct RestartTracker {
    tasks: Mutex<HashMap<RestartTarget, (u32, Instant)>>,
}

impl RestartTracker {
    pub fn started(&self, id: &RestartTarget) {
        let mut tasks = self.tasks.lock().unwrap_or_else(|p| p.into_inner());
        let entry = tasks.entry(id.clone()).or_insert((0, Instant::now()));
        entry.1 = Instant::now();
    }

    /// The attempt number and delay of the next restart of a task that just failed, or `None`
    /// once the cap is reached.
    pub fn failed(&self, id: &RestartTarget, policy: &RestartPolicy) -> Option<(u32, Duration)> {
        let mut tasks = self.tasks.lock().unwrap_or_else(|p| p.into_inner());
        let entry = tasks.entry(id.clone()).or_insert((0, Instant::now()));
        if entry.1.elapsed() >= policy.reset_after {
            entry.0 = 0;
        }
        if entry.0 >= policy.max_attempts {
            return None;
        }
        entry.0 += 1;
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos() as u64);
        Some((entry.0, policy.delay(entry.0, seed)))
    }

    /// A restart by hand (REST) starts the count again.
    pub fn forget(&self, id: &RestartTarget) {
        self.tasks
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_to_the_cap_and_attempts_stop() {
        let policy = RestartPolicy {
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_millis(1_000),
            max_attempts: 3,
            reset_after: Duration::from_secs(3600),
        };
        assert_eq!(policy.delay(1, 200), Duration::from_millis(100));
        assert_eq!(policy.delay(2, 200), Duration::from_millis(200));
        assert_eq!(policy.delay(5, 200), Duration::from_millis(1_000));
        assert_eq!(policy.delay(1, 0), Duration::from_millis(80));
        assert_eq!(policy.delay(1, 400), Duration::from_millis(120));
        let tracker = RestartTracker::default();
        let id = RestartTarget::Task(TaskId {
            connector: "c".to_owned(),
            task: 0,
        });
        tracker.started(&id);
        assert_eq!(tracker.failed(&id, &policy).map(|(n, _)| n), Some(1));
        assert_eq!(tracker.failed(&id, &policy).map(|(n, _)| n), Some(2));
        assert_eq!(tracker.failed(&id, &policy).map(|(n, _)| n), Some(3));
        assert_eq!(tracker.failed(&id, &policy), None, "capped");
        tracker.forget(&id);
        assert_eq!(tracker.failed(&id, &policy).map(|(n, _)| n), Some(1));
    }

    #[test]
    fn off_by_default() {
        assert_eq!(
            RestartPolicy::from_worker_props(&ConfigMap::new()).unwrap(),
            None
        );
        let props: ConfigMap = [
            (ENABLE.to_owned(), "true".to_owned()),
            (MAX_ATTEMPTS.to_owned(), "x".to_owned()),
        ]
        .into_iter()
        .collect();
        assert!(RestartPolicy::from_worker_props(&props).is_err());
        assert_eq!(RestartPolicy::for_connectors(&props).unwrap(), None);
        let connectors: ConfigMap = [(CONNECTOR_ENABLE.to_owned(), "true".to_owned())]
            .into_iter()
            .collect();
        assert_eq!(
            RestartPolicy::for_connectors(&connectors)
                .unwrap()
                .map(|p| p.max_attempts),
            Some(10)
        );
    }
}
