//! What a worker knows of the status topic: the last usable record read for each key (Java's
//! `KafkaStatusBackingStore` cache), which answers the REST status endpoints and decides whether a
//! conditional ("safe") status write may go ahead.
//!
//! Read rules:
//! * connector value: the latest record wins; connector tombstone: the connector *and all of its
//!   cached tasks* are forgotten (its active topics are not);
//! * task value: the latest record wins, except that an incoming UNASSIGNED is ignored while the
//!   cached status is RUNNING with a generation at least as high (a slow worker's late shutdown
//!   report must not hide a newer RUNNING); task tombstone: the task is forgotten;
//! * topic value: kept per connector and topic (as named by the key); topic tombstone: forgotten;
//! * a record that cannot be parsed is logged and skipped.

use std::collections::BTreeMap;

use ferry_runtime::status::{State, Status, TaskId, TopicStatus};

use super::records::{StatusKey, StatusRecord, StatusValue};

#[derive(Debug, Clone, Default)]
pub struct StatusCache {
    connectors: BTreeMap<String, StatusValue>,
    /// connector → task index → status
    tasks: BTreeMap<String, BTreeMap<usize, StatusValue>>,
    /// connector → topic → status
    topics: BTreeMap<String, BTreeMap<String, TopicStatus>>,
}

impl StatusCache {
    pub fn new() -> Self {
        StatusCache::default()
    }

    /// Parses and applies one raw record; unusable records are logged and skipped. Returns whether
    /// the cache changed (see [`StatusCache::apply`]).
    pub fn apply_raw(&mut self, key: &str, value: Option<&[u8]>) -> bool {
        match StatusRecord::parse(key, value) {
            Ok(Some(record)) => self.apply(record),
            Ok(None) => false,
            Err(e) => {
                tracing::warn!("skipping status topic record: {e}");
                false
            }
        }
    }

    /// Applies one record read from the topic. Returns false when the record was ignored (a stale
    /// UNASSIGNED task status); true otherwise, tombstones for unknown keys included.
    pub fn apply(&mut self, record: StatusRecord) -> bool {
        match record {
            StatusRecord::Connector {
                connector,
                status: Some(status),
            } => {
                self.connectors.insert(connector, status);
            }
            StatusRecord::Connector {
                connector,
                status: None,
            } => {
                self.connectors.remove(&connector);
                self.tasks.remove(&connector);
            }
            StatusRecord::Task {
                id,
                status: Some(status),
            } => {
                let row = self.tasks.entry(id.connector).or_default();
                if let Some(cached) = row.get(&id.task) {
                    if status.status.state == State::Unassigned
                        && cached.status.state == State::Running
                        && cached.status.generation >= status.status.generation
                    {
                        tracing::trace!(
                            task = id.task,
                            "ignoring a stale UNASSIGNED status in favour of a newer RUNNING one"
                        );
                        return false;
                    }
                }
                row.insert(id.task, status);
            }
            StatusRecord::Task { id, status: None } => {
                if let Some(row) = self.tasks.get_mut(&id.connector) {
                    row.remove(&id.task);
                    if row.is_empty() {
                        self.tasks.remove(&id.connector);
                    }
                }
            }
            StatusRecord::Topic {
                topic,
                connector,
                status: Some(status),
            } => {
                self.topics
                    .entry(connector)
                    .or_default()
                    .insert(topic, status);
            }
            StatusRecord::Topic {
                topic,
                connector,
                status: None,
            } => {
                if let Some(row) = self.topics.get_mut(&connector) {
                    row.remove(&topic);
                    if row.is_empty() {
                        self.topics.remove(&connector);
                    }
                }
            }
        }
        true
    }

    pub fn connector(&self, connector: &str) -> Option<&StatusValue> {
        self.connectors.get(connector)
    }

    /// The connector's cached task statuses, by task index.
    pub fn tasks(&self, connector: &str) -> Vec<(usize, &StatusValue)> {
        self.tasks
            .get(connector)
            .map(|row| row.iter().map(|(t, s)| (*t, s)).collect())
            .unwrap_or_default()
    }

    pub fn task(&self, id: &TaskId) -> Option<&StatusValue> {
        self.tasks.get(&id.connector)?.get(&id.task)
    }

    /// The connector's active topics, by topic name.
    pub fn topics(&self, connector: &str) -> Vec<&TopicStatus> {
        self.topics
            .get(connector)
            .map(|row| row.values().collect())
            .unwrap_or_default()
    }

    pub fn topic(&self, connector: &str, topic: &str) -> Option<&TopicStatus> {
        self.topics.get(connector)?.get(topic)
    }

    /// Every connector with a cached connector status, sorted. (As in Java, a connector that only
    /// has task statuses cached is not listed.)
    pub fn connectors(&self) -> Vec<String> {
        self.connectors.keys().cloned().collect()
    }

    /// Every connector with at least one cached task status, sorted.
    pub fn connectors_with_tasks(&self) -> Vec<String> {
        self.tasks.keys().cloned().collect()
    }

    /// Java's `putSafe` condition for writing `new_status` under `key` (used for UNASSIGNED and
    /// FAILED): allowed when nothing is cached for the key, or the cached status was written by
    /// this worker, or the cached generation is not newer than the new status's. Topic keys have
    /// no such condition (always true).
    pub fn may_put_safe(&self, key: &StatusKey, new_status: &Status, my_worker_id: &str) -> bool {
        let cached = match key {
            StatusKey::Connector(c) => self.connector(c),
            StatusKey::Task(id) => self.task(id),
            StatusKey::Topic { .. } => return true,
        };
        match cached {
            None => true,
            Some(cached) => {
                cached.status.worker_id == my_worker_id
                    || cached.status.generation <= new_status.generation
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(state: State, worker: &str, generation: i32) -> Status {
        Status {
            state,
            trace: None,
            worker_id: worker.into(),
            generation,
        }
    }

    fn tid(c: &str, t: usize) -> TaskId {
        TaskId {
            connector: c.into(),
            task: t,
        }
    }

    fn topic(t: &str, c: &str, ts: i64) -> TopicStatus {
        TopicStatus {
            topic: t.into(),
            connector: c.into(),
            task: 0,
            discover_timestamp: ts,
        }
    }

    #[test]
    fn connector_tombstone_removes_tasks_but_not_topics() {
        let mut c = StatusCache::new();
        c.apply(StatusRecord::connector(
            "a",
            st(State::Running, "w1", 1),
            None,
        ));
        c.apply(StatusRecord::task(
            tid("a", 0),
            st(State::Running, "w1", 1),
            None,
        ));
        c.apply(StatusRecord::task(
            tid("a", 1),
            st(State::Running, "w2", 1),
            None,
        ));
        c.apply(StatusRecord::task(
            tid("b", 0),
            st(State::Running, "w2", 1),
            None,
        ));
        c.apply(StatusRecord::topic(topic("t", "a", 5)));
        assert_eq!(c.connectors(), vec!["a"]);
        assert_eq!(c.connectors_with_tasks(), vec!["a", "b"]);
        assert_eq!(c.tasks("a").len(), 2);

        c.apply(StatusRecord::Connector {
            connector: "a".into(),
            status: None,
        });
        assert!(c.connector("a").is_none());
        assert!(c.tasks("a").is_empty());
        assert!(c.task(&tid("a", 1)).is_none());
        assert!(c.task(&tid("b", 0)).is_some());
        assert_eq!(c.topics("a").len(), 1);
        assert!(c.connectors().is_empty());
    }

    #[test]
    fn task_tombstone_and_latest_wins() {
        let mut c = StatusCache::new();
        c.apply(StatusRecord::task(
            tid("a", 0),
            st(State::Running, "w1", 5),
            None,
        ));
        c.apply(StatusRecord::task(
            tid("a", 0),
            st(State::Failed, "w1", 3),
            None,
        ));
        assert_eq!(c.task(&tid("a", 0)).unwrap().status.state, State::Failed);
        c.apply(StatusRecord::Task {
            id: tid("a", 0),
            status: None,
        });
        assert!(c.task(&tid("a", 0)).is_none());
        assert!(c.connectors_with_tasks().is_empty());
        // Tombstones for unknown keys are harmless.
        assert!(c.apply(StatusRecord::Task {
            id: tid("x", 9),
            status: None
        }));
        // Connector values: latest wins whatever the generation.
        c.apply(StatusRecord::connector(
            "a",
            st(State::Running, "w1", 9),
            None,
        ));
        c.apply(StatusRecord::connector(
            "a",
            st(State::Unassigned, "w2", 2),
            None,
        ));
        assert_eq!(c.connector("a").unwrap().status.state, State::Unassigned);
    }

    #[test]
    fn stale_unassigned_is_ignored() {
        let mut c = StatusCache::new();
        let id = tid("a", 0);
        c.apply(StatusRecord::task(
            id.clone(),
            st(State::Running, "w1", 7),
            None,
        ));
        // Same or older generation: ignored.
        assert!(!c.apply(StatusRecord::task(
            id.clone(),
            st(State::Unassigned, "w2", 7),
            None
        )));
        assert!(!c.apply(StatusRecord::task(
            id.clone(),
            st(State::Unassigned, "w2", 6),
            None
        )));
        assert_eq!(c.task(&id).unwrap().status.state, State::Running);
        // Newer generation: applied.
        assert!(c.apply(StatusRecord::task(
            id.clone(),
            st(State::Unassigned, "w2", 8),
            None
        )));
        assert_eq!(c.task(&id).unwrap().status.state, State::Unassigned);
        // Only RUNNING is protected.
        c.apply(StatusRecord::task(
            id.clone(),
            st(State::Paused, "w1", 9),
            None,
        ));
        assert!(c.apply(StatusRecord::task(
            id.clone(),
            st(State::Unassigned, "w2", 1),
            None
        )));
        assert_eq!(c.task(&id).unwrap().status.state, State::Unassigned);
    }

    #[test]
    fn topics_per_connector() {
        let mut c = StatusCache::new();
        c.apply(StatusRecord::topic(topic("t1", "a", 1)));
        c.apply(StatusRecord::topic(topic("t2", "a", 2)));
        c.apply(StatusRecord::topic(topic("t1", "b", 3)));
        c.apply(StatusRecord::topic(topic("t1", "a", 4)));
        let a: Vec<_> = c
            .topics("a")
            .into_iter()
            .map(|t| (t.topic.as_str(), t.discover_timestamp))
            .collect();
        assert_eq!(a, vec![("t1", 4), ("t2", 2)]);
        assert_eq!(c.topic("b", "t1").unwrap().discover_timestamp, 3);
        c.apply(StatusRecord::topic_reset("t1", "a"));
        c.apply(StatusRecord::topic_reset("t2", "a"));
        assert!(c.topics("a").is_empty());
        assert_eq!(c.topics("b").len(), 1);
    }

    #[test]
    fn put_safe_condition() {
        let mut c = StatusCache::new();
        let key = StatusKey::Task(tid("a", 0));
        let me = "w1:8083";
        // Nothing cached.
        assert!(c.may_put_safe(&key, &st(State::Unassigned, me, 1), me));
        c.apply(StatusRecord::task(
            tid("a", 0),
            st(State::Running, "w2:8083", 5),
            None,
        ));
        // Someone else's newer status.
        assert!(!c.may_put_safe(&key, &st(State::Failed, me, 4), me));
        // Same or newer generation.
        assert!(c.may_put_safe(&key, &st(State::Failed, me, 5), me));
        assert!(c.may_put_safe(&key, &st(State::Failed, me, 6), me));
        // Our own status.
        c.apply(StatusRecord::task(
            tid("a", 0),
            st(State::Running, me, 9),
            None,
        ));
        assert!(c.may_put_safe(&key, &st(State::Unassigned, me, 1), me));
        // Connectors likewise; topic keys are unconditional.
        let ck = StatusKey::Connector("a".into());
        c.apply(StatusRecord::connector(
            "a",
            st(State::Running, "w2:8083", 5),
            None,
        ));
        assert!(!c.may_put_safe(&ck, &st(State::Unassigned, me, 4), me));
        assert!(c.may_put_safe(&ck, &st(State::Unassigned, me, 5), me));
        let tk = StatusKey::Topic {
            topic: "t".into(),
            connector: "a".into(),
        };
        assert!(c.may_put_safe(&tk, &st(State::Unassigned, me, 0), me));
    }

    #[test]
    fn apply_raw_skips_bad_records() {
        let mut c = StatusCache::new();
        assert!(c.apply_raw(
            "status-connector-a",
            Some(br#"{"state":"RUNNING","trace":null,"worker_id":"w","generation":1,"version":null}"#)
        ));
        assert!(!c.apply_raw("status-connector-a", Some(b"{broken")));
        assert!(!c.apply_raw("status-connector-a", Some(b"null")));
        assert!(!c.apply_raw("status-task-a", Some(b"{}")));
        assert!(!c.apply_raw("unknown", None));
        assert_eq!(c.connector("a").unwrap().status.state, State::Running);
        assert!(c.apply_raw("status-connector-a", None));
        assert!(c.connector("a").is_none());
    }
}
