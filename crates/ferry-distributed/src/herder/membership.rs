//! What the herder loop needs of its group membership: join, sync, a signal that it must rejoin,
//! leave. `ferry_group::GroupMember` speaks the group protocol to the coordinator; the herder's
//! unit tests script rounds in memory instead.

use async_trait::async_trait;
use bytes::Bytes;
use ferry_group::{GroupError, GroupMember, JoinOutcome, RejoinReason};

#[async_trait]
pub(crate) trait Membership: Send + Sync {
    /// Joins (or rejoins) the group offering these protocols' metadata.
    async fn join(&mut self, protocols: &[(String, Bytes)]) -> Result<JoinOutcome, GroupError>;
    /// Completes the round; the leader passes every member's assignment, others none.
    async fn sync(&mut self, assignments: Vec<(String, Bytes)>) -> Result<Bytes, GroupError>;
    /// Resolves when the group wants this member to rejoin; cancel-safe, and stays raised until
    /// the next join or leave.
    async fn rejoin_needed(&self) -> RejoinReason;
    async fn leave(&mut self);
}

#[async_trait]
impl Membership for GroupMember {
    async fn join(&mut self, protocols: &[(String, Bytes)]) -> Result<JoinOutcome, GroupError> {
        GroupMember::join(self, protocols).await
    }

    async fn sync(&mut self, assignments: Vec<(String, Bytes)>) -> Result<Bytes, GroupError> {
        GroupMember::sync(self, assignments).await
    }

    async fn rejoin_needed(&self) -> RejoinReason {
        GroupMember::rejoin_needed(self).await
    }

    async fn leave(&mut self) {
        GroupMember::leave(self).await;
    }
}
