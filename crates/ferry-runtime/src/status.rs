//! Connector and task states, and the store the REST status endpoints read.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// Connect's states (Java's `AbstractStatus.State`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    Unassigned,
    Running,
    Paused,
    Stopped,
    Failed,
    Restarting,
    Destroyed,
}

impl State {
    pub fn as_str(self) -> &'static str {
        match self {
            State::Unassigned => "UNASSIGNED",
            State::Running => "RUNNING",
            State::Paused => "PAUSED",
            State::Stopped => "STOPPED",
            State::Failed => "FAILED",
            State::Restarting => "RESTARTING",
            State::Destroyed => "DESTROYED",
        }
    }
}

impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A connector's or task's reported state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    pub state: State,
    pub trace: Option<String>,
    pub worker_id: String,
    pub generation: i32,
}

/// A task's identity: its connector and index.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TaskId {
    pub connector: String,
    pub task: usize,
}

impl fmt::Display for TaskId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.connector, self.task)
    }
}

/// A topic a connector has used (KIP-558).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicStatus {
    pub topic: String,
    pub connector: String,
    pub task: usize,
    pub discover_timestamp: i64,
}

/// Where states are recorded. Standalone keeps them in memory; distributed mode writes them to
/// the status topic.
pub trait StatusStore: Send + Sync {
    fn put_connector(&self, connector: &str, status: Status);
    fn put_task(&self, id: &TaskId, status: Status);
    fn connector(&self, connector: &str) -> Option<Status>;
    fn tasks(&self, connector: &str) -> Vec<(usize, Status)>;
    fn task(&self, id: &TaskId) -> Option<Status>;
    /// Forgets a connector and all its tasks.
    fn remove_connector(&self, connector: &str);
    /// Forgets one task.
    fn remove_task(&self, id: &TaskId);
    /// Records that a connector used a topic (kept if already present).
    fn put_topic(&self, status: TopicStatus);
    /// The topics a connector has used, by name.
    fn topics(&self, connector: &str) -> Vec<TopicStatus>;
    /// Forgets every topic of a connector.
    fn reset_topics(&self, connector: &str);
    /// Changes whenever any connector's topics are reset, so tasks know to record again.
    fn topic_resets(&self) -> u64;
}

/// Status kept in memory (standalone mode). Writes happen on state changes only.
#[derive(Default)]
pub struct MemoryStatusStore {
    connectors: Mutex<BTreeMap<String, Status>>,
    tasks: Mutex<BTreeMap<TaskId, Status>>,
    topics: Mutex<BTreeMap<(String, String), TopicStatus>>,
    topic_resets: AtomicU64,
}

impl StatusStore for MemoryStatusStore {
    fn put_connector(&self, connector: &str, status: Status) {
        if let Ok(mut m) = self.connectors.lock() {
            m.insert(connector.to_owned(), status);
        }
    }

    fn put_task(&self, id: &TaskId, status: Status) {
        if let Ok(mut m) = self.tasks.lock() {
            m.insert(id.clone(), status);
        }
    }

    fn connector(&self, connector: &str) -> Option<Status> {
        self.connectors.lock().ok()?.get(connector).cloned()
    }

    fn tasks(&self, connector: &str) -> Vec<(usize, Status)> {
        self.tasks
            .lock()
            .map(|m| {
                m.iter()
                    .filter(|(id, _)| id.connector == connector)
                    .map(|(id, s)| (id.task, s.clone()))
                    .collect()
            })
            .unwrap_or_default()
    }

    fn task(&self, id: &TaskId) -> Option<Status> {
        self.tasks.lock().ok()?.get(id).cloned()
    }

    fn remove_connector(&self, connector: &str) {
        if let Ok(mut m) = self.connectors.lock() {
            m.remove(connector);
        }
        if let Ok(mut m) = self.tasks.lock() {
            m.retain(|id, _| id.connector != connector);
        }
    }

    fn remove_task(&self, id: &TaskId) {
        if let Ok(mut m) = self.tasks.lock() {
            m.remove(id);
        }
    }

    fn put_topic(&self, status: TopicStatus) {
        if let Ok(mut m) = self.topics.lock() {
            m.entry((status.connector.clone(), status.topic.clone()))
                .or_insert(status);
        }
    }

    fn topics(&self, connector: &str) -> Vec<TopicStatus> {
        self.topics
            .lock()
            .map(|m| {
                m.values()
                    .filter(|t| t.connector == connector)
                    .cloned()
                    .collect()
            })
            .unwrap_or_default()
    }

    fn reset_topics(&self, connector: &str) {
        if let Ok(mut m) = self.topics.lock() {
            m.retain(|(c, _), _| c != connector);
        }
        self.topic_resets.fetch_add(1, Ordering::Release);
    }

    fn topic_resets(&self) -> u64 {
        self.topic_resets.load(Ordering::Acquire)
    }
}

/// Records a task's topics once each, without touching the store for every record: a local set
/// answers "already recorded", and is cleared when the store reports a reset.
pub struct TopicTracker {
    enabled: bool,
    connector: String,
    task: usize,
    store: std::sync::Arc<dyn StatusStore>,
    seen: std::collections::HashSet<String>,
    /// The topic of the last record, known to be in `seen`: records mostly go to one topic,
    /// and this spares a hash lookup per record.
    last: String,
    resets_seen: u64,
}

impl TopicTracker {
    pub fn new(enabled: bool, id: &TaskId, store: std::sync::Arc<dyn StatusStore>) -> Self {
        let resets_seen = store.topic_resets();
        TopicTracker {
            enabled,
            connector: id.connector.clone(),
            task: id.task,
            store,
            seen: Default::default(),
            last: String::new(),
            resets_seen,
        }
    }

    pub fn record(&mut self, topic: &str) {
        if !self.enabled {
            return;
        }
        let resets = self.store.topic_resets();
        if resets != self.resets_seen {
            self.resets_seen = resets;
            self.seen.clear();
            self.last.clear();
        } else if !self.last.is_empty() && self.last == topic {
            return;
        }
        if self.seen.contains(topic) {
            topic.clone_into(&mut self.last);
            return;
        }
        topic.clone_into(&mut self.last);
        self.seen.insert(topic.to_owned());
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
            .unwrap_or(0);
        self.store.put_topic(TopicStatus {
            topic: topic.to_owned(),
            connector: self.connector.clone(),
            task: self.task,
            discover_timestamp: now,
        });
    }
}
