//! Connector and task states, and the store the REST status endpoints read.

use std::collections::BTreeMap;
use std::fmt;
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
}

/// Status kept in memory (standalone mode). Writes happen on state changes only.
#[derive(Default)]
pub struct MemoryStatusStore {
    connectors: Mutex<BTreeMap<String, Status>>,
    tasks: Mutex<BTreeMap<TaskId, Status>>,
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
}
