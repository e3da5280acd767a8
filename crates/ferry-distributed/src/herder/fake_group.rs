//! A group in memory for the herder's unit tests. The herder under test is always the leader, so
//! the real assignor computes every round; the test adds other members (their metadata only),
//! asks for rejoins, and can hold a round open at the join to act while it is in progress.

use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use bytes::Bytes;
use ferry_group::{GroupError, JoinOutcome, RejoinReason};
use tokio::sync::watch;

use super::membership::Membership;
use crate::protocol::{self, Assignment, ConnectProtocolCompatibility};

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// A member's metadata for each protocol it offers, by protocol name.
type Offered = Vec<(String, Bytes)>;

/// The test's handle on the group.
pub(crate) struct FakeGroup {
    leader_id: String,
    rejoin: watch::Sender<Option<RejoinReason>>,
    /// While true, a join waits (the round is in progress).
    held: watch::Sender<bool>,
    /// Other members: id, and metadata per protocol name.
    others: Mutex<Vec<(String, Offered)>>,
    generation: AtomicI32,
    joins: watch::Sender<usize>,
    leaves: AtomicUsize,
    /// The assignments of the last completed round, by member id.
    assignments: Mutex<Vec<(String, Bytes)>>,
}

impl FakeGroup {
    pub(crate) fn new(leader_id: &str) -> Arc<Self> {
        Arc::new(FakeGroup {
            leader_id: leader_id.to_owned(),
            rejoin: watch::channel(None).0,
            held: watch::channel(false).0,
            others: Mutex::default(),
            generation: AtomicI32::new(0),
            joins: watch::channel(0).0,
            leaves: AtomicUsize::new(0),
            assignments: Mutex::default(),
        })
    }

    /// The membership the herder's loop uses.
    pub(crate) fn member(self: &Arc<Self>) -> Box<dyn Membership> {
        Box::new(FakeMember(self.clone()))
    }

    /// The coordinator asks the members to rejoin (as a heartbeat's answer would).
    pub(crate) fn trigger(&self, reason: RejoinReason) {
        self.rejoin.send_replace(Some(reason));
    }

    /// Joins wait from now on until `release`.
    pub(crate) fn hold(&self) {
        self.held.send_replace(true);
    }

    pub(crate) fn release(&self) {
        self.held.send_replace(false);
    }

    /// Joins started so far (a held one included).
    pub(crate) fn joins(&self) -> usize {
        *self.joins.borrow()
    }

    /// Waits until at least `count` joins have started.
    pub(crate) async fn joined(&self, count: usize) {
        let mut joins = self.joins.subscribe();
        let _ = joins.wait_for(|n| *n >= count).await;
    }

    /// Another worker that owns nothing yet and has read the config topic to `config_offset`.
    pub(crate) fn add_member(&self, id: &str, url: &str, config_offset: i64) {
        let protocols = protocol::metadata_protocols(
            ConnectProtocolCompatibility::Sessioned,
            url,
            config_offset,
            None,
        )
        .expect("metadata encodes")
        .into_iter()
        .map(|(name, bytes)| (name.to_owned(), Bytes::from(bytes)))
        .collect();
        lock(&self.others).push((id.to_owned(), protocols));
    }

    /// What the last completed round assigned to `member`.
    pub(crate) fn assignment_of(&self, member: &str) -> Option<Assignment> {
        lock(&self.assignments)
            .iter()
            .find(|(id, _)| id == member)
            .map(|(_, bytes)| protocol::decode_assignment(bytes).expect("assignment decodes"))
    }
}

struct FakeMember(Arc<FakeGroup>);

#[async_trait]
impl Membership for FakeMember {
    async fn join(&mut self, protocols: &[(String, Bytes)]) -> Result<JoinOutcome, GroupError> {
        let group = &self.0;
        group.rejoin.send_replace(None);
        group.joins.send_modify(|n| *n += 1);
        let mut held = group.held.subscribe();
        let _ = held.wait_for(|held| !*held).await;
        let others = lock(&group.others).clone();
        // The leader's most preferred protocol that every other member offers too.
        let (name, ours) = protocols
            .iter()
            .find(|(name, _)| {
                others
                    .iter()
                    .all(|(_, theirs)| theirs.iter().any(|(n, _)| n == name))
            })
            .cloned()
            .ok_or_else(|| GroupError::Config("no protocol in common".to_owned()))?;
        let mut members = vec![(group.leader_id.clone(), ours)];
        for (id, theirs) in others {
            let bytes = theirs
                .into_iter()
                .find(|(n, _)| *n == name)
                .map(|(_, b)| b)
                .unwrap_or_default();
            members.push((id, bytes));
        }
        Ok(JoinOutcome {
            generation_id: group.generation.fetch_add(1, Ordering::AcqRel) + 1,
            member_id: group.leader_id.clone(),
            leader_id: group.leader_id.clone(),
            protocol_name: name,
            members,
        })
    }

    async fn sync(&mut self, assignments: Vec<(String, Bytes)>) -> Result<Bytes, GroupError> {
        let group = &self.0;
        let ours = assignments
            .iter()
            .find(|(id, _)| *id == group.leader_id)
            .map(|(_, bytes)| bytes.clone())
            .ok_or_else(|| GroupError::Config("the leader assigned itself nothing".to_owned()))?;
        *lock(&group.assignments) = assignments;
        Ok(ours)
    }

    async fn rejoin_needed(&self) -> RejoinReason {
        let mut rejoin = self.0.rejoin.subscribe();
        let reason = rejoin.wait_for(Option::is_some).await.ok().and_then(|r| *r);
        reason.unwrap_or(RejoinReason::RebalanceInProgress)
    }

    async fn leave(&mut self) {
        self.0.rejoin.send_replace(None);
        self.0.leaves.fetch_add(1, Ordering::AcqRel);
    }
}
