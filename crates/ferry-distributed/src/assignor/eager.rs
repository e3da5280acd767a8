//! The eager assignor (protocol `default`, §4.5): complete assignments computed from scratch.
//!
//! Members are sorted by member id and walked with one circular iterator: first every connector
//! (by name), then, continuing with the same iterator, every task (connector by connector, by
//! index). There are no revocations and no delay; eager members stop everything before each
//! rebalance.

use std::collections::BTreeMap;

use ferry_runtime::status::TaskId;

use super::{
    prepare, AssignorError, ConfiguredWork, GroupAssignment, LeaderState, MemberInfo, Prepared,
};
use crate::protocol::{Assignment, CONNECT_PROTOCOL_V0, NO_ERROR};

/// Computes the eager assignment of `snapshot` over `members` (version 0 assignments).
pub fn assign(
    leader_id: &str,
    members: &[MemberInfo],
    snapshot: &ConfiguredWork,
) -> Result<GroupAssignment, AssignorError> {
    let (leader_url, offset) = match prepare(leader_id, CONNECT_PROTOCOL_V0, members, snapshot)? {
        Prepared::Mismatch(result) => return Ok(result),
        Prepared::Assign { leader_url, offset } => (leader_url, offset),
    };

    let mut member_ids: Vec<&str> = members.iter().map(|m| m.member_id.as_str()).collect();
    member_ids.sort_unstable();
    member_ids.dedup();
    let mut next_member = member_ids.iter().cycle();

    let mut connectors: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut tasks: BTreeMap<String, Vec<TaskId>> = BTreeMap::new();
    for connector in snapshot.connectors.keys() {
        if let Some(member) = next_member.next() {
            connectors
                .entry((*member).to_owned())
                .or_default()
                .push(connector.clone());
        }
    }
    for connector_tasks in snapshot.connectors.values() {
        let mut sorted: Vec<&TaskId> = connector_tasks.iter().collect();
        sorted.sort();
        for task in sorted {
            if let Some(member) = next_member.next() {
                tasks
                    .entry((*member).to_owned())
                    .or_default()
                    .push(task.clone());
            }
        }
    }

    let assignments = members
        .iter()
        .map(|m| {
            let mut a = Assignment::new(
                CONNECT_PROTOCOL_V0,
                NO_ERROR,
                leader_id.to_owned(),
                leader_url.clone(),
                offset,
            );
            a.connectors = connectors.get(&m.member_id).cloned().unwrap_or_default();
            a.tasks = tasks.get(&m.member_id).cloned().unwrap_or_default();
            (m.member_id.clone(), a)
        })
        .collect();
    let leader_state = LeaderState::new(members, &connectors, &tasks);
    Ok(GroupAssignment {
        protocol_version: CONNECT_PROTOCOL_V0,
        config_offset: offset,
        assignments,
        leader_state: Some(leader_state),
    })
}
