//! The background heartbeat of an active generation, and the rejoin signal it raises.

use std::future;

use kafka_protocol::messages::{ApiKey, HeartbeatRequest};
use kafka_protocol::protocol::StrBytes;
use tokio::sync::watch;
use tokio::time::{sleep_until, timeout_at, Instant};
use tracing::{debug, info, warn};

use crate::config::{Backoff, GroupConfig};
use crate::conn::{find_coordinator, group_id, Connection, Coordinator};
use crate::error::{codes, GroupError, RejoinReason};

/// Shared state behind the rejoin signal. `epoch` changes whenever a generation ends (join,
/// leave), so a heartbeat task of an older generation cannot raise a stale signal.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct SignalState {
    pub(crate) epoch: u64,
    pub(crate) reason: Option<RejoinReason>,
}

/// A handle on a member's rejoin signal that can be moved to other tasks.
///
/// The signal is level-triggered: once the heartbeat raised it, [`RejoinSignal::wait`] returns
/// immediately until the member calls [`GroupMember::join`](crate::GroupMember::join) (or
/// [`leave`](crate::GroupMember::leave)), which clears it. While no generation is active the
/// signal stays clear and `wait` stays pending.
#[derive(Debug, Clone)]
pub struct RejoinSignal {
    rx: watch::Receiver<SignalState>,
}

impl RejoinSignal {
    pub(crate) fn new(rx: watch::Receiver<SignalState>) -> Self {
        Self { rx }
    }

    /// Resolves with the reason once the member must rejoin. Cancel-safe. Pending forever once
    /// the [`GroupMember`](crate::GroupMember) is dropped.
    pub async fn wait(&mut self) -> RejoinReason {
        let reason = match self.rx.wait_for(|s| s.reason.is_some()).await {
            Ok(state) => state.reason,
            Err(_closed) => None,
        };
        match reason {
            Some(reason) => reason,
            None => future::pending().await,
        }
    }

    /// The reason if the signal is raised now.
    pub fn current(&self) -> Option<RejoinReason> {
        self.rx.borrow().reason
    }
}

/// Raises the signal for `reason` if the generation `epoch` is still the member's.
pub(crate) fn raise(signal: &watch::Sender<SignalState>, epoch: u64, reason: RejoinReason) -> bool {
    signal.send_if_modified(|state| {
        if state.epoch == epoch && state.reason != Some(reason) {
            state.reason = Some(reason);
            true
        } else {
            false
        }
    })
}

/// Everything the heartbeat of one generation needs.
pub(crate) struct Heartbeat {
    pub(crate) config: GroupConfig,
    pub(crate) generation_id: i32,
    pub(crate) member_id: String,
    pub(crate) coordinator: Option<Coordinator>,
    pub(crate) epoch: u64,
    pub(crate) signal: watch::Sender<SignalState>,
}

impl Heartbeat {
    fn raise(&self, reason: RejoinReason) {
        if raise(&self.signal, self.epoch, reason) {
            info!(
                group = %self.config.group_id,
                generation = self.generation_id,
                member_id = %self.member_id,
                %reason,
                "rejoin needed"
            );
        }
    }

    /// Heartbeats every `heartbeat_interval` until the generation ends (the member aborts the
    /// task) or a fatal answer arrives. Keeps heartbeating after `REBALANCE_IN_PROGRESS` so the
    /// member stays in the group until it rejoins.
    pub(crate) async fn run(self) {
        let interval = self.config.heartbeat_interval;
        let session_timeout = self.config.session_timeout;
        let mut conn: Option<Connection> = None;
        let mut coordinator = self.coordinator.clone();
        let mut backoff = Backoff::new();
        let mut last_success = Instant::now();
        let mut next = last_success + interval;
        debug!(
            group = %self.config.group_id,
            generation = self.generation_id,
            member_id = %self.member_id,
            ?interval,
            "heartbeat started"
        );
        loop {
            sleep_until(next).await;
            let started = Instant::now();
            let session_deadline = last_success + session_timeout;
            let outcome =
                timeout_at(session_deadline, self.beat(&mut conn, &mut coordinator)).await;
            let Ok(outcome) = outcome else {
                warn!(
                    group = %self.config.group_id,
                    generation = self.generation_id,
                    ?session_timeout,
                    "no heartbeat succeeded within the session timeout"
                );
                self.raise(RejoinReason::CoordinatorLost);
                return;
            };
            match outcome {
                Ok(codes::NONE) => {
                    last_success = Instant::now();
                    backoff.reset();
                    next = started + interval;
                }
                Ok(codes::REBALANCE_IN_PROGRESS) => {
                    // The coordinator still counts this as a live member.
                    last_success = Instant::now();
                    backoff.reset();
                    self.raise(RejoinReason::RebalanceInProgress);
                    next = started + interval;
                }
                Ok(codes::ILLEGAL_GENERATION) => {
                    self.raise(RejoinReason::IllegalGeneration);
                    return;
                }
                Ok(codes::UNKNOWN_MEMBER_ID) => {
                    self.raise(RejoinReason::UnknownMemberId);
                    return;
                }
                Ok(codes::FENCED_INSTANCE_ID) => {
                    self.raise(RejoinReason::FencedInstanceId);
                    return;
                }
                Ok(code @ (codes::NOT_COORDINATOR | codes::COORDINATOR_NOT_AVAILABLE)) => {
                    debug!(group = %self.config.group_id, code, "heartbeat: coordinator moved, finding it again");
                    conn = None;
                    coordinator = None;
                    next = Instant::now() + backoff.next_delay();
                }
                Ok(codes::COORDINATOR_LOAD_IN_PROGRESS) => {
                    next = Instant::now() + backoff.next_delay();
                }
                Ok(code) => {
                    warn!(group = %self.config.group_id, code, "heartbeat failed; stopping");
                    self.raise(RejoinReason::HeartbeatFailed(code));
                    return;
                }
                Err(e) => {
                    debug!(group = %self.config.group_id, error = %e, "heartbeat request failed; reconnecting");
                    conn = None;
                    if e.is_retriable() {
                        coordinator = None;
                    }
                    next = Instant::now() + backoff.next_delay();
                }
            }
        }
    }

    /// One heartbeat request; returns the response's error code.
    async fn beat(
        &self,
        conn: &mut Option<Connection>,
        coordinator: &mut Option<Coordinator>,
    ) -> Result<i16, GroupError> {
        let mut c = match conn.take() {
            Some(c) => c,
            None => {
                let target = match coordinator.clone() {
                    Some(c) => c,
                    None => {
                        let found = find_coordinator(&self.config).await?;
                        *coordinator = Some(found.clone());
                        found
                    }
                };
                match Connection::open(&target.addr, &self.config).await {
                    Ok(c) => c,
                    Err(e) => {
                        *coordinator = None;
                        return Err(e);
                    }
                }
            }
        };
        let version = c.version(ApiKey::Heartbeat)?;
        let request = HeartbeatRequest::default()
            .with_group_id(group_id(&self.config))
            .with_generation_id(self.generation_id)
            .with_member_id(StrBytes::from_string(self.member_id.clone()));
        let response = c
            .send(&request, version, self.config.request_timeout)
            .await?;
        *conn = Some(c);
        debug!(
            group = %self.config.group_id,
            generation = self.generation_id,
            error_code = response.error_code,
            "heartbeat"
        );
        Ok(response.error_code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn signal_ignores_stale_epochs_and_is_level_triggered() {
        let (tx, rx) = watch::channel(SignalState::default());
        let mut signal = RejoinSignal::new(rx);
        assert_eq!(signal.current(), None);
        // A stale generation cannot raise it.
        assert!(!raise(&tx, 7, RejoinReason::RebalanceInProgress));
        let pending =
            tokio::time::timeout(std::time::Duration::from_millis(20), signal.wait()).await;
        assert!(pending.is_err());
        assert!(raise(&tx, 0, RejoinReason::RebalanceInProgress));
        assert_eq!(signal.wait().await, RejoinReason::RebalanceInProgress);
        // Still raised for further waits.
        assert_eq!(signal.wait().await, RejoinReason::RebalanceInProgress);
        // A new generation clears it.
        tx.send_modify(|s| {
            s.epoch += 1;
            s.reason = None;
        });
        assert_eq!(signal.current(), None);
        // Dropping the sender leaves waits pending rather than resolving.
        drop(tx);
        let pending =
            tokio::time::timeout(std::time::Duration::from_millis(20), signal.wait()).await;
        assert!(pending.is_err());
    }
}
