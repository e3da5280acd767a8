//! [`GroupMember`]: join, sync, heartbeat, leave.

use bytes::Bytes;
use kafka_protocol::messages::join_group_request::JoinGroupRequestProtocol;
use kafka_protocol::messages::leave_group_request::MemberIdentity;
use kafka_protocol::messages::sync_group_request::SyncGroupRequestAssignment;
use kafka_protocol::messages::{
    ApiKey, JoinGroupRequest, JoinGroupResponse, LeaveGroupRequest, LeaveGroupResponse,
    SyncGroupRequest, SyncGroupResponse,
};
use kafka_protocol::protocol::StrBytes;
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tracing::{debug, info, warn};

use crate::config::{millis_i32, Backoff, GroupConfig};
use crate::conn::{find_coordinator, group_id, Connection, Coordinator};
use crate::error::{
    codes, error_name, is_coordinator_error, protocol_error, GroupError, RejoinReason,
};
use crate::heartbeat::{Heartbeat, RejoinSignal, SignalState};

/// The result of a successful [`GroupMember::join`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JoinOutcome {
    /// The generation this member joined.
    pub generation_id: i32,
    /// This member's id in the generation.
    pub member_id: String,
    /// The leader's member id; this member leads when it equals `member_id`.
    pub leader_id: String,
    /// The protocol the coordinator selected (the first one, in every member's order of
    /// preference, that all members support).
    pub protocol_name: String,
    /// Every member's (member id, metadata) in the broker's order; empty unless this member leads.
    /// The metadata is what each member offered for the selected protocol.
    pub members: Vec<(String, Bytes)>,
}

impl JoinOutcome {
    /// Whether this member leads the generation (and must compute the assignments).
    pub fn is_leader(&self) -> bool {
        self.leader_id == self.member_id
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// No generation: before the first join, after a failed sync, after leave.
    Idle,
    /// Joined a generation, waiting for `sync`.
    Joined,
    /// Synced: the generation is active and heartbeats run.
    Active,
}

/// A member of a Kafka group using the classic group protocol (JoinGroup / SyncGroup /
/// Heartbeat / LeaveGroup), as Kafka Connect workers use with protocol type `connect`.
///
/// Typical use:
/// 1. [`join`](Self::join) with the protocols this member supports;
/// 2. if [`JoinOutcome::is_leader`], compute every member's assignment from
///    [`JoinOutcome::members`]; [`sync`](Self::sync) (the leader passes all assignments, followers
///    an empty list) and receive this member's assignment;
/// 3. work, while watching [`rejoin_needed`](Self::rejoin_needed); when it fires, go to 1;
/// 4. [`leave`](Self::leave) on shutdown.
///
/// Requests for join/sync/leave use one connection to the coordinator; the heartbeat task opens
/// its own, so a JoinGroup held by the broker during a rebalance never delays heartbeats.
/// Dropping the member stops its heartbeat without leaving the group (the coordinator expels it
/// after the session timeout).
#[derive(Debug)]
pub struct GroupMember {
    config: GroupConfig,
    pub(crate) member_id: String,
    generation_id: i32,
    protocol_name: Option<String>,
    phase: Phase,
    coordinator: Option<Coordinator>,
    conn: Option<Connection>,
    heartbeat: Option<JoinHandle<()>>,
    signal: watch::Sender<SignalState>,
}

impl GroupMember {
    /// A member that has not joined yet. Nothing is sent before [`join`](Self::join).
    pub fn new(config: GroupConfig) -> Self {
        let (signal, _) = watch::channel(SignalState::default());
        Self {
            config,
            member_id: String::new(),
            generation_id: -1,
            protocol_name: None,
            phase: Phase::Idle,
            coordinator: None,
            conn: None,
            heartbeat: None,
            signal,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &GroupConfig {
        &self.config
    }

    /// This member's id: empty before the first join (and after `UNKNOWN_MEMBER_ID` or leave).
    pub fn member_id(&self) -> &str {
        &self.member_id
    }

    /// The generation joined last, or -1 while not in a generation (before a join completes,
    /// after leave).
    pub fn generation_id(&self) -> i32 {
        self.generation_id
    }

    /// Whether a generation is active (synced, heartbeating).
    pub fn is_active(&self) -> bool {
        self.phase == Phase::Active
    }

    /// A handle on the rejoin signal that can be moved into other tasks; see [`RejoinSignal`].
    pub fn rejoin_signal(&self) -> RejoinSignal {
        RejoinSignal::new(self.signal.subscribe())
    }

    /// Resolves when the background heartbeat learned that this member must rejoin
    /// (`REBALANCE_IN_PROGRESS`, `ILLEGAL_GENERATION`, `UNKNOWN_MEMBER_ID`, `FENCED_INSTANCE_ID`,
    /// another heartbeat error, or no successful heartbeat within the session timeout).
    ///
    /// Cancel-safe (usable in `tokio::select!`). Pending while no generation is active. The signal
    /// is level-triggered: it stays raised, and this resolves immediately, until the next
    /// [`join`](Self::join) or [`leave`](Self::leave).
    pub async fn rejoin_needed(&self) -> RejoinReason {
        self.rejoin_signal().wait().await
    }

    /// Ends the current generation locally: stops the heartbeat, clears the rejoin signal and
    /// returns the reason it carried.
    fn end_generation(&mut self) -> Option<RejoinReason> {
        if let Some(task) = self.heartbeat.take() {
            task.abort();
        }
        let mut previous = None;
        self.signal.send_modify(|state| {
            previous = state.reason.take();
            state.epoch = state.epoch.wrapping_add(1);
        });
        self.phase = Phase::Idle;
        self.generation_id = -1;
        self.protocol_name = None;
        previous
    }

    fn forget_coordinator(&mut self) {
        if let Some(c) = self.coordinator.take() {
            debug!(group = %self.config.group_id, coordinator = %c.addr, "forgetting coordinator");
        }
        self.conn = None;
    }

    /// The connection to the coordinator, finding and connecting to it if needed. The caller
    /// puts it back into `self.conn` after a complete exchange.
    async fn take_connection(&mut self) -> Result<Connection, GroupError> {
        if let Some(conn) = self.conn.take() {
            return Ok(conn);
        }
        let coordinator = match &self.coordinator {
            Some(c) => c.clone(),
            None => {
                let found = find_coordinator(&self.config).await?;
                self.coordinator = Some(found.clone());
                found
            }
        };
        match Connection::open(&coordinator.addr, &self.config).await {
            Ok(conn) => Ok(conn),
            Err(e) => {
                self.coordinator = None;
                Err(e)
            }
        }
    }

    /// Finds the coordinator (and reconnects) as needed, then joins the group offering
    /// `protocols` — (name, metadata) in order of preference.
    ///
    /// Stops the heartbeat of the previous generation first. Handles `MEMBER_ID_REQUIRED`
    /// (rejoins with the assigned id), `UNKNOWN_MEMBER_ID` (forgets the id and retries),
    /// coordinator errors and transport failures (finds the coordinator again and retries with
    /// backoff) and `REBALANCE_IN_PROGRESS` (retries), for up to `rebalance_timeout` + 5 s +
    /// `request_timeout` in total. Other Kafka errors (e.g. `INCONSISTENT_GROUP_PROTOCOL`) fail.
    pub async fn join(&mut self, protocols: &[(String, Bytes)]) -> Result<JoinOutcome, GroupError> {
        self.config.validate()?;
        if protocols.is_empty() {
            return Err(GroupError::Config(
                "join needs at least one protocol".to_owned(),
            ));
        }
        let previous = self.end_generation();
        if previous.is_some_and(RejoinReason::resets_member_id) {
            self.member_id.clear();
        }
        let reason = match previous {
            Some(r) => format!("rejoining: {r}"),
            None if self.member_id.is_empty() => "joining the group".to_owned(),
            None => "rejoining the group".to_owned(),
        };
        let session_ms = millis_i32("session_timeout", self.config.session_timeout)?;
        let rebalance_ms = millis_i32("rebalance_timeout", self.config.rebalance_timeout)?;
        let protocols: Vec<JoinGroupRequestProtocol> = protocols
            .iter()
            .map(|(name, metadata)| {
                JoinGroupRequestProtocol::default()
                    .with_name(StrBytes::from_string(name.clone()))
                    .with_metadata(metadata.clone())
            })
            .collect();
        let template = JoinGroupRequest::default()
            .with_group_id(group_id(&self.config))
            .with_session_timeout_ms(session_ms)
            .with_rebalance_timeout_ms(rebalance_ms)
            .with_protocol_type(StrBytes::from_string(self.config.protocol_type.clone()))
            .with_protocols(protocols);
        info!(
            group = %self.config.group_id,
            member_id = %self.member_id,
            reason = %reason,
            "joining group"
        );

        let deadline = Instant::now() + self.config.join_timeout() + self.config.request_timeout;
        let mut backoff = Backoff::new();
        loop {
            let error = match self.join_once(&template, &reason).await {
                Ok(response) => match response.error_code {
                    codes::NONE => return self.joined(response),
                    codes::MEMBER_ID_REQUIRED if !response.member_id.is_empty() => {
                        debug!(
                            group = %self.config.group_id,
                            member_id = %response.member_id,
                            "coordinator assigned a member id; joining again with it"
                        );
                        self.member_id = response.member_id.to_string();
                        continue;
                    }
                    codes::UNKNOWN_MEMBER_ID if !self.member_id.is_empty() => {
                        info!(
                            group = %self.config.group_id,
                            member_id = %self.member_id,
                            "coordinator does not know this member id; joining with an empty one"
                        );
                        self.member_id.clear();
                        continue;
                    }
                    code @ (codes::NOT_COORDINATOR | codes::COORDINATOR_NOT_AVAILABLE) => {
                        self.forget_coordinator();
                        protocol_error("JoinGroup", code, None)
                    }
                    code @ (codes::COORDINATOR_LOAD_IN_PROGRESS
                    | codes::REBALANCE_IN_PROGRESS
                    | codes::UNKNOWN_MEMBER_ID
                    | codes::MEMBER_ID_REQUIRED) => protocol_error("JoinGroup", code, None),
                    code => {
                        warn!(group = %self.config.group_id, error = %error_name(code), "JoinGroup failed");
                        return Err(protocol_error("JoinGroup", code, None));
                    }
                },
                Err(e) if e.is_retriable() => {
                    self.forget_coordinator();
                    e
                }
                Err(e) => return Err(e),
            };
            let delay = backoff.next_delay();
            if Instant::now() + delay >= deadline {
                warn!(group = %self.config.group_id, error = %error, "giving up joining the group");
                return Err(error);
            }
            debug!(group = %self.config.group_id, error = %error, ?delay, "retrying JoinGroup");
            tokio::time::sleep(delay).await;
        }
    }

    /// One JoinGroup exchange.
    async fn join_once(
        &mut self,
        template: &JoinGroupRequest,
        reason: &str,
    ) -> Result<JoinGroupResponse, GroupError> {
        let mut conn = self.take_connection().await?;
        let version = conn.version(ApiKey::JoinGroup)?;
        let mut request = template
            .clone()
            .with_member_id(StrBytes::from_string(self.member_id.clone()));
        if version >= 8 {
            request.reason = Some(StrBytes::from_string(reason.to_owned()));
        }
        debug!(
            group = %self.config.group_id,
            coordinator = %conn.addr(),
            version,
            member_id = %self.member_id,
            "sending JoinGroup"
        );
        let response = conn
            .send(&request, version, self.config.join_timeout())
            .await?;
        self.conn = Some(conn);
        Ok(response)
    }

    /// Records a successful JoinGroup response.
    fn joined(&mut self, response: JoinGroupResponse) -> Result<JoinOutcome, GroupError> {
        if let Some(protocol_type) = &response.protocol_type {
            if protocol_type.as_str() != self.config.protocol_type {
                return Err(GroupError::Protocol(
                    codes::INCONSISTENT_GROUP_PROTOCOL,
                    format!(
                        "JoinGroup answered protocol type {protocol_type:?}, expected {:?}",
                        self.config.protocol_type
                    ),
                ));
            }
        }
        let protocol_name = response
            .protocol_name
            .map(|p| p.to_string())
            .unwrap_or_default();
        self.member_id = response.member_id.to_string();
        self.generation_id = response.generation_id;
        self.protocol_name = Some(protocol_name.clone());
        self.phase = Phase::Joined;
        let outcome = JoinOutcome {
            generation_id: response.generation_id,
            member_id: self.member_id.clone(),
            leader_id: response.leader.to_string(),
            protocol_name,
            members: response
                .members
                .into_iter()
                .map(|m| (m.member_id.to_string(), m.metadata))
                .collect(),
        };
        info!(
            group = %self.config.group_id,
            generation = outcome.generation_id,
            member_id = %outcome.member_id,
            leader = %outcome.leader_id,
            is_leader = outcome.is_leader(),
            protocol = %outcome.protocol_name,
            members = outcome.members.len(),
            "joined group"
        );
        Ok(outcome)
    }

    /// SyncGroup for the generation just joined. The leader passes every member's assignment
    /// (member id, assignment), the others an empty list. Returns this member's assignment and
    /// starts the background heartbeat.
    ///
    /// `REBALANCE_IN_PROGRESS`, `ILLEGAL_GENERATION`, `UNKNOWN_MEMBER_ID` and coordinator errors
    /// yield [`GroupError::RejoinNeeded`]. After any error the generation is over: call
    /// [`join`](Self::join) again.
    pub async fn sync(&mut self, assignments: Vec<(String, Bytes)>) -> Result<Bytes, GroupError> {
        if self.phase != Phase::Joined {
            return Err(GroupError::InvalidState(
                "sync needs a preceding successful join (and only one sync per join)".to_owned(),
            ));
        }
        self.phase = Phase::Idle;
        let response = self.sync_once(assignments).await?;
        match response.error_code {
            codes::NONE => {}
            code @ (codes::REBALANCE_IN_PROGRESS | codes::ILLEGAL_GENERATION) => {
                info!(group = %self.config.group_id, error = %error_name(code), "SyncGroup: rejoin needed");
                self.generation_id = -1;
                return Err(GroupError::RejoinNeeded);
            }
            code @ (codes::UNKNOWN_MEMBER_ID | codes::FENCED_INSTANCE_ID) => {
                info!(group = %self.config.group_id, error = %error_name(code), "SyncGroup: rejoin needed with a new member id");
                self.member_id.clear();
                self.generation_id = -1;
                return Err(GroupError::RejoinNeeded);
            }
            code if is_coordinator_error(code) => {
                info!(group = %self.config.group_id, error = %error_name(code), "SyncGroup: coordinator lost; rejoin needed");
                self.forget_coordinator();
                self.generation_id = -1;
                return Err(GroupError::RejoinNeeded);
            }
            code => {
                warn!(group = %self.config.group_id, error = %error_name(code), "SyncGroup failed");
                self.generation_id = -1;
                return Err(protocol_error("SyncGroup", code, None));
            }
        }
        let expected_name = self.protocol_name.as_deref().unwrap_or_default();
        let inconsistent = response
            .protocol_type
            .as_ref()
            .is_some_and(|t| t.as_str() != self.config.protocol_type)
            || response
                .protocol_name
                .as_ref()
                .is_some_and(|n| n.as_str() != expected_name);
        if inconsistent {
            self.generation_id = -1;
            return Err(GroupError::Protocol(
                codes::INCONSISTENT_GROUP_PROTOCOL,
                format!(
                    "SyncGroup answered protocol {:?}/{:?}, expected {:?}/{:?}",
                    response.protocol_type,
                    response.protocol_name,
                    self.config.protocol_type,
                    expected_name
                ),
            ));
        }
        self.phase = Phase::Active;
        self.start_heartbeat();
        info!(
            group = %self.config.group_id,
            generation = self.generation_id,
            member_id = %self.member_id,
            assignment_bytes = response.assignment.len(),
            "synced group; generation active"
        );
        Ok(response.assignment)
    }

    /// One SyncGroup exchange.
    async fn sync_once(
        &mut self,
        assignments: Vec<(String, Bytes)>,
    ) -> Result<SyncGroupResponse, GroupError> {
        let mut conn = match self.take_connection().await {
            Ok(conn) => conn,
            Err(e) => {
                self.generation_id = -1;
                return Err(e);
            }
        };
        let version = conn.version(ApiKey::SyncGroup)?;
        let protocol_name = self.protocol_name.clone().unwrap_or_default();
        let request = SyncGroupRequest::default()
            .with_group_id(group_id(&self.config))
            .with_generation_id(self.generation_id)
            .with_member_id(StrBytes::from_string(self.member_id.clone()))
            .with_protocol_type(Some(StrBytes::from_string(
                self.config.protocol_type.clone(),
            )))
            .with_protocol_name(Some(StrBytes::from_string(protocol_name)))
            .with_assignments(
                assignments
                    .into_iter()
                    .map(|(member_id, assignment)| {
                        SyncGroupRequestAssignment::default()
                            .with_member_id(StrBytes::from_string(member_id))
                            .with_assignment(assignment)
                    })
                    .collect(),
            );
        debug!(
            group = %self.config.group_id,
            generation = self.generation_id,
            version,
            assignments = request.assignments.len(),
            "sending SyncGroup"
        );
        match conn
            .send(&request, version, self.config.request_timeout)
            .await
        {
            Ok(response) => {
                self.conn = Some(conn);
                Ok(response)
            }
            Err(e) => {
                self.generation_id = -1;
                if e.is_retriable() {
                    self.forget_coordinator();
                }
                Err(e)
            }
        }
    }

    fn start_heartbeat(&mut self) {
        if let Some(task) = self.heartbeat.take() {
            task.abort();
        }
        let heartbeat = Heartbeat {
            config: self.config.clone(),
            generation_id: self.generation_id,
            member_id: self.member_id.clone(),
            coordinator: self.coordinator.clone(),
            epoch: self.signal.borrow().epoch,
            signal: self.signal.clone(),
        };
        self.heartbeat = Some(tokio::spawn(heartbeat.run()));
    }

    /// Sends LeaveGroup (best effort, bounded by the request timeout) and stops heartbeating.
    /// Afterwards the member has no id and no generation; [`join`](Self::join) starts afresh.
    pub async fn leave(&mut self) {
        self.end_generation();
        if self.member_id.is_empty() {
            return;
        }
        let member_id = std::mem::take(&mut self.member_id);
        let timeout = self.config.request_timeout;
        match tokio::time::timeout(timeout, self.leave_once(&member_id)).await {
            Ok(Ok(response)) => {
                let code = response
                    .members
                    .iter()
                    .map(|m| m.error_code)
                    .find(|&c| c != codes::NONE)
                    .unwrap_or(response.error_code);
                if code == codes::NONE {
                    info!(group = %self.config.group_id, member_id = %member_id, "left group");
                } else {
                    warn!(group = %self.config.group_id, member_id = %member_id, error = %error_name(code), "LeaveGroup failed");
                }
            }
            Ok(Err(e)) => {
                warn!(group = %self.config.group_id, member_id = %member_id, error = %e, "LeaveGroup failed");
            }
            Err(_) => {
                warn!(group = %self.config.group_id, member_id = %member_id, ?timeout, "LeaveGroup timed out");
                self.conn = None;
            }
        }
    }

    /// One LeaveGroup exchange.
    async fn leave_once(&mut self, member_id: &str) -> Result<LeaveGroupResponse, GroupError> {
        let mut conn = self.take_connection().await?;
        let version = conn.version(ApiKey::LeaveGroup)?;
        let mut request = LeaveGroupRequest::default().with_group_id(group_id(&self.config));
        if version >= 3 {
            let mut member = MemberIdentity::default()
                .with_member_id(StrBytes::from_string(member_id.to_owned()));
            if version >= 5 {
                member.reason = Some(StrBytes::from_static_str("the member is leaving the group"));
            }
            request.members = vec![member];
        } else {
            request.member_id = StrBytes::from_string(member_id.to_owned());
        }
        let response = conn
            .send(&request, version, self.config.request_timeout)
            .await?;
        self.conn = Some(conn);
        Ok(response)
    }
}

impl Drop for GroupMember {
    fn drop(&mut self) {
        if let Some(task) = self.heartbeat.take() {
            task.abort();
        }
    }
}
