//! What this worker knows about the group: its membership, the leader, what it owns, and (on
//! the leader) who owns everything else.

use std::collections::BTreeSet;

use ferry_runtime::status::TaskId;

use crate::assignor::LeaderState;
use crate::protocol::Assignment;

/// The connectors and tasks of one worker.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Owned {
    pub connectors: BTreeSet<String>,
    pub tasks: BTreeSet<TaskId>,
}

#[derive(Debug, Default)]
pub struct View {
    pub member_id: String,
    pub generation: i32,
    pub leader_id: String,
    pub leader_url: Option<String>,
    /// 0 (`default`), 1 (`compatible`) or 2 (`sessioned`): the protocol the group chose.
    pub protocol_version: i16,
    /// A config change is waiting for a rebalance; some reads answer 409 meanwhile.
    pub rebalance_pending: bool,
    pub owned: Owned,
    /// The last assignment, merged: what the next join reports as this worker's allocation.
    pub allocation: Option<Assignment>,
    /// What this worker has started and not stopped (a subset of `owned`, or equal to it once
    /// work has started after a rebalance). Failed instances count as running.
    pub running: Owned,
    /// Leader only: who owns what, to send restarts to their owners.
    pub leader_state: Option<LeaderState>,
}

impl View {
    pub fn is_leader(&self) -> bool {
        !self.member_id.is_empty() && self.member_id == self.leader_id
    }

    pub fn owner_of_connector(&self, name: &str) -> Option<String> {
        self.leader_state
            .as_ref()?
            .connector_owner_url(name)
            .map(str::to_owned)
    }

    pub fn owner_of_task(&self, id: &TaskId) -> Option<String> {
        self.leader_state
            .as_ref()?
            .task_owner_url(id)
            .map(str::to_owned)
    }
}
