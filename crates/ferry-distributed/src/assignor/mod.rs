//! Leader-side assignors: eager (protocol `default`) and incremental cooperative (KIP-415).
//!
//! The leader of the worker group receives every member's [`WorkerMetadata`] and computes one
//! [`Assignment`] per member (`internals.md` §4.4–4.6):
//!
//! * [`eager::assign`]: complete round-robin assignments, recomputed from scratch every round.
//! * [`IncrementalCooperativeAssignor`]: incremental assignments with revocations, a scheduled
//!   rebalance delay for lost work, and load balancing with exponential backoff. It keeps state in
//!   memory between rounds, so one instance lives as long as the worker.
//!
//! Both share the common steps: the config offset to use is the highest one any member reported;
//! if the leader's snapshot is behind it, every member gets `CONFIG_MISMATCH`. The caller passes
//! the freshest [`ConfiguredWork`] it has (Java re-reads the config topic snapshot once when the
//! leader is behind; with [`max_member_offset`] the caller can do the same before calling).
//!
//! Members apply what they receive with [`apply_assignment`] (§4.3).

use std::collections::{BTreeMap, HashSet};

use ferry_runtime::status::TaskId;

use crate::protocol::{
    decode_metadata, encode_assignment, Assignment, ConnectProtocolCompatibility, ProtocolError,
    WorkerMetadata,
};

pub mod eager;
pub mod incremental;

#[cfg(test)]
mod tests;

pub use eager::assign as assign_eager;
pub use incremental::IncrementalCooperativeAssignor;

/// One group member as the leader sees it: its member id and decoded JoinGroup metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberInfo {
    pub member_id: String,
    pub metadata: WorkerMetadata,
}

impl MemberInfo {
    /// Decodes a member's metadata bytes (any version).
    pub fn decode(member_id: impl Into<String>, metadata: &[u8]) -> Result<Self, ProtocolError> {
        Ok(Self {
            member_id: member_id.into(),
            metadata: decode_metadata(metadata)?,
        })
    }
}

/// The configured work in the leader's config snapshot.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConfiguredWork {
    /// The snapshot's config offset.
    pub offset: i64,
    /// Every configured connector with exactly the task ids of the snapshot (empty for a
    /// connector whose task configs are inconsistent or not yet written).
    pub connectors: BTreeMap<String, Vec<TaskId>>,
}

impl ConfiguredWork {
    pub fn new(offset: i64) -> Self {
        Self {
            offset,
            connectors: BTreeMap::new(),
        }
    }

    /// Adds a connector with tasks `0..task_count`.
    pub fn with_connector(mut self, connector: &str, task_count: usize) -> Self {
        let tasks = (0..task_count)
            .map(|task| TaskId {
                connector: connector.to_owned(),
                task,
            })
            .collect();
        self.connectors.insert(connector.to_owned(), tasks);
        self
    }

    /// Every configured task, in connector then index order.
    pub fn tasks(&self) -> impl Iterator<Item = &TaskId> {
        self.connectors.values().flatten()
    }
}

/// Group generations as known by the leader's coordinator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Generation {
    /// The generation of the last rebalance this worker completed (SyncGroup succeeded), or -1.
    pub last_completed: i32,
    /// The generation being assigned now.
    pub current: i32,
}

/// Who runs what, for the leader (used to forward requests such as restarts to the owner).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LeaderState {
    /// Member id → advertised REST URL, for every member of this generation.
    pub member_urls: BTreeMap<String, String>,
    /// Connector → member id that runs (or keeps running) its instance.
    pub connector_owners: BTreeMap<String, String>,
    /// Task → member id that runs it.
    pub task_owners: BTreeMap<TaskId, String>,
}

impl LeaderState {
    fn new(
        members: &[MemberInfo],
        connectors: &BTreeMap<String, Vec<String>>,
        tasks: &BTreeMap<String, Vec<TaskId>>,
    ) -> Self {
        let mut state = Self {
            member_urls: members
                .iter()
                .map(|m| (m.member_id.clone(), m.metadata.url.clone()))
                .collect(),
            ..Self::default()
        };
        for (member, owned) in connectors {
            for connector in owned {
                state
                    .connector_owners
                    .insert(connector.clone(), member.clone());
            }
        }
        for (member, owned) in tasks {
            for task in owned {
                state.task_owners.insert(task.clone(), member.clone());
            }
        }
        state
    }

    /// URL of the worker running `connector`, if any.
    pub fn connector_owner_url(&self, connector: &str) -> Option<&str> {
        let owner = self.connector_owners.get(connector)?;
        self.member_urls.get(owner).map(String::as_str)
    }

    /// URL of the worker running `task`, if any.
    pub fn task_owner_url(&self, task: &TaskId) -> Option<&str> {
        let owner = self.task_owners.get(task)?;
        self.member_urls.get(owner).map(String::as_str)
    }
}

/// The leader's result for one round.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupAssignment {
    /// The protocol version the assignments are written in.
    pub protocol_version: i16,
    /// The config offset put into every assignment.
    pub config_offset: i64,
    /// Member id → its assignment (every member gets one).
    pub assignments: BTreeMap<String, Assignment>,
    /// Ownership after this round; `None` when the round failed with `CONFIG_MISMATCH`.
    pub leader_state: Option<LeaderState>,
}

impl GroupAssignment {
    /// True when every member was told `CONFIG_MISMATCH`.
    pub fn is_config_mismatch(&self) -> bool {
        self.leader_state.is_none()
    }

    /// Serializes every member's assignment for SyncGroup.
    pub fn encode(&self) -> Result<BTreeMap<String, Vec<u8>>, ProtocolError> {
        self.assignments
            .iter()
            .map(|(member, assignment)| Ok((member.clone(), encode_assignment(assignment)?)))
            .collect()
    }
}

/// Why the leader could not assign at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AssignorError {
    #[error("no members to assign to")]
    NoMembers,
    #[error("the leader {0} is not among the group members")]
    UnknownLeader(String),
}

/// The highest config offset any member reported, or `None` without members.
pub fn max_member_offset(members: &[MemberInfo]) -> Option<i64> {
    members.iter().map(|m| m.metadata.config_offset).max()
}

/// The common first steps (§4.4): validates the inputs, finds the leader's URL and the offset to
/// assign at, or builds the all-members `CONFIG_MISMATCH` result.
pub(crate) enum Prepared {
    Assign { leader_url: String, offset: i64 },
    Mismatch(GroupAssignment),
}

pub(crate) fn prepare(
    leader_id: &str,
    protocol_version: i16,
    members: &[MemberInfo],
    snapshot: &ConfiguredWork,
) -> Result<Prepared, AssignorError> {
    let max_offset = max_member_offset(members).ok_or(AssignorError::NoMembers)?;
    let leader_url = members
        .iter()
        .find(|m| m.member_id == leader_id)
        .map(|m| m.metadata.url.clone())
        .ok_or_else(|| AssignorError::UnknownLeader(leader_id.to_owned()))?;
    if snapshot.offset < max_offset {
        tracing::info!(
            leader_offset = snapshot.offset,
            max_offset,
            "Was selected to perform assignments, but do not have latest config found in sync request. \
             Returning an empty configuration to trigger re-sync."
        );
        let assignments = members
            .iter()
            .map(|m| {
                let a = Assignment::config_mismatch(
                    protocol_version,
                    leader_id.to_owned(),
                    leader_url.clone(),
                    max_offset,
                );
                (m.member_id.clone(), a)
            })
            .collect();
        return Ok(Prepared::Mismatch(GroupAssignment {
            protocol_version,
            config_offset: max_offset,
            assignments,
            leader_state: None,
        }));
    }
    Ok(Prepared::Assign {
        leader_url,
        offset: snapshot.offset,
    })
}

/// A member's new assignment snapshot after receiving `received` (§4.3).
///
/// Cooperative protocols: received (newly assigned) ∪ (previous − revoked); the header fields,
/// revocation lists and delay of `received` are kept, as Java keeps the received object as its
/// snapshot (it is reported as the `allocation` in the next JoinGroup). Eager: `received` as is
/// (the previous assignment was stopped entirely before joining). The caller stops
/// `received.revoked_*` before starting anything new.
pub fn apply_assignment(
    previous: Option<&Assignment>,
    received: &Assignment,
    protocol: ConnectProtocolCompatibility,
) -> Assignment {
    let mut next = received.clone();
    if !protocol.is_cooperative() {
        return next;
    }
    if let Some(previous) = previous {
        let revoked_connectors: HashSet<&String> = received.revoked_connectors.iter().collect();
        let revoked_tasks: HashSet<&TaskId> = received.revoked_tasks.iter().collect();
        next.connectors.extend(
            previous
                .connectors
                .iter()
                .filter(|c| !revoked_connectors.contains(c))
                .cloned(),
        );
        next.tasks.extend(
            previous
                .tasks
                .iter()
                .filter(|t| !revoked_tasks.contains(t))
                .cloned(),
        );
    }
    next
}
