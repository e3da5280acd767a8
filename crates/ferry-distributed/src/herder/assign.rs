//! The leader's side of a rebalance: members' metadata in, one assignment per member out, with
//! the assignor chosen by the protocol the group agreed on.

use std::collections::BTreeMap;
use std::time::Duration;

use bytes::Bytes;

use crate::assignor::{
    assign_eager, ConfiguredWork, Generation, IncrementalCooperativeAssignor, LeaderState,
    MemberInfo,
};
use crate::config_topic::state::ClusterConfigSnapshot;
use crate::protocol::Assignment;

pub(crate) struct LeaderAssignor {
    incremental: IncrementalCooperativeAssignor,
    last_completed: i32,
}

fn configured(snapshot: &ClusterConfigSnapshot) -> ConfiguredWork {
    let mut work = ConfiguredWork::new(snapshot.offset());
    for name in snapshot.connectors() {
        let tasks = snapshot.tasks(&name);
        work.connectors.insert(name, tasks);
    }
    work
}

impl LeaderAssignor {
    pub(crate) fn new(max_delay: Duration) -> Self {
        LeaderAssignor {
            incremental: IncrementalCooperativeAssignor::new(
                i32::try_from(max_delay.as_millis()).unwrap_or(i32::MAX),
            ),
            last_completed: -1,
        }
    }

    /// Members whose metadata cannot be read are left out (and get nothing).
    pub(crate) fn decode_members(&self, members: &[(String, Bytes)]) -> Vec<MemberInfo> {
        members
            .iter()
            .filter_map(|(id, bytes)| match MemberInfo::decode(id.clone(), bytes) {
                Ok(m) => Some(m),
                Err(error) => {
                    tracing::error!(member = %id, %error, "Unreadable member metadata");
                    None
                }
            })
            .collect()
    }

    pub(crate) fn completed_generation(&mut self, generation: i32) {
        self.last_completed = generation;
    }

    /// Every member's assignment and, unless the config offsets disagreed, who owns what.
    pub(crate) fn assign(
        &mut self,
        leader_id: &str,
        protocol_version: i16,
        members: &[MemberInfo],
        snapshot: &ClusterConfigSnapshot,
        generation: i32,
        now_ms: i64,
    ) -> (BTreeMap<String, Assignment>, Option<LeaderState>) {
        let work = configured(snapshot);
        let result = if protocol_version == 0 {
            assign_eager(leader_id, members, &work)
        } else {
            self.incremental.assign(
                leader_id,
                protocol_version,
                members,
                &work,
                Generation {
                    last_completed: self.last_completed,
                    current: generation,
                },
                now_ms,
            )
        };
        match result {
            Ok(group) => (group.assignments, group.leader_state),
            Err(error) => {
                tracing::error!(%error, "Could not compute assignments");
                (BTreeMap::new(), None)
            }
        }
    }
}
