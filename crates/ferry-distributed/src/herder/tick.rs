//! The herder loop: one task owns group membership and every start and stop of this worker's
//! work, reacting to rebalances, config-topic changes and connectors' requests in turn.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use ferry_group::GroupError;
use ferry_runtime::herder::RestartRequest;
use ferry_runtime::status::StatusStore;
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::commands::{self, Command};
use super::membership::Membership;
use super::unsync;
use crate::assignor::apply_assignment;
use crate::config_topic::state::ConfigEvent;
use crate::herder::assign::LeaderAssignor;
use crate::herder::view::Owned;
use crate::herder::{signing, DistributedHerder};
use crate::protocol::{self, ConnectProtocolCompatibility};
use ferry_runtime::metrics::{GroupMetrics, Rebalanced};

/// First retry of a failed task-config publication; doubles up to a minute, as Java's does.
const RECONFIGURE_BACKOFF: Duration = Duration::from_millis(250);
const RECONFIGURE_BACKOFF_MAX: Duration = Duration::from_secs(60);
/// Pause after a failed join before trying again.
const JOIN_RETRY: Duration = Duration::from_secs(1);
/// Java's `CONFIG_TOPIC_WRITE_PRIVILEGES_BACKOFF_MS`.
const CLAIM_RETRY_BACKOFF: Duration = Duration::from_millis(250);

/// A connector's `taskConfigs` call in flight: whether another request came meanwhile, and the
/// backoff of the retry it is (none for a first attempt).
struct Fetch {
    again: bool,
    backoff: Option<Duration>,
}

/// What a completed round asks of the loop.
#[derive(Default)]
struct RoundOutcome {
    rejoin_now: bool,
    rejoin_at: Option<Instant>,
}

impl RoundOutcome {
    fn rejoin() -> Self {
        RoundOutcome {
            rejoin_now: true,
            rejoin_at: None,
        }
    }
}

pub(crate) struct Tick {
    herder: Arc<DistributedHerder>,
    member: Box<dyn Membership>,
    assignor: LeaderAssignor,
    events: mpsc::UnboundedReceiver<ConfigEvent>,
    /// Connectors that want new task configs (started, resumed, or asking themselves).
    reconfigure_requests: mpsc::UnboundedReceiver<String>,
    /// Connectors whose task configs could not be published yet, with the next attempt.
    retries: std::collections::BTreeMap<String, (Instant, Duration)>,
    /// Connectors being asked for task configs, off the loop; their answers come back here.
    fetching: std::collections::BTreeMap<String, Fetch>,
    fetched: mpsc::UnboundedReceiver<(String, Result<(), String>)>,
    fetched_tx: mpsc::UnboundedSender<(String, Result<(), String>)>,
    /// Connectors the loop knows (the snapshot of the last processed change).
    known: BTreeSet<String>,
    /// Java's rebalance and coordinator metrics of this worker.
    group_metrics: Arc<GroupMetrics>,
    /// What REST handlers ask of the loop (restarts, health checks).
    commands: mpsc::UnboundedReceiver<Command>,
    /// When a leader that could not claim write privileges for the config topic tries again.
    claim_retry_at: Option<Instant>,
    /// Cooperative rounds left before a worker that cannot read the config topic gives up
    /// its work.
    unsync_retries: u32,
}

fn compatibility(mode: crate::config::ProtocolMode) -> ConnectProtocolCompatibility {
    match mode {
        crate::config::ProtocolMode::Eager => ConnectProtocolCompatibility::Eager,
        crate::config::ProtocolMode::Compatible => ConnectProtocolCompatibility::Compatible,
        crate::config::ProtocolMode::Sessioned => ConnectProtocolCompatibility::Sessioned,
    }
}

/// The protocol in use as Java's rebalance metrics name it (its compatibility enum).
fn protocol_metric_name(version: i16) -> &'static str {
    match version {
        0 => "EAGER",
        1 => "COMPATIBLE",
        _ => "SESSIONED",
    }
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

impl Tick {
    pub(crate) fn new(
        herder: Arc<DistributedHerder>,
        member: Box<dyn Membership>,
        events: mpsc::UnboundedReceiver<ConfigEvent>,
        reconfigure_requests: mpsc::UnboundedReceiver<String>,
        commands: mpsc::UnboundedReceiver<Command>,
    ) -> Self {
        let max_delay = herder.config.scheduled_rebalance_max_delay;
        let known = herder.configs.snapshot().connectors().into_iter().collect();
        let group_metrics = Arc::new(GroupMetrics::new(herder.worker.worker_id()));
        let (fetched_tx, fetched) = mpsc::unbounded_channel();
        herder.worker.metrics().set_group(group_metrics.clone());
        Tick {
            group_metrics,
            commands,
            unsync_retries: unsync::RETRIES,
            herder,
            member,
            assignor: LeaderAssignor::new(max_delay),
            events,
            reconfigure_requests,
            retries: Default::default(),
            fetching: Default::default(),
            fetched,
            fetched_tx,
            known,
            claim_retry_at: None,
        }
    }

    pub(crate) async fn run(mut self) {
        let shutdown = self.herder.shutdown.clone();
        let mut rejoin_now = true;
        let mut rejoin_at: Option<Instant> = None;
        loop {
            if shutdown.is_cancelled() {
                break;
            }
            if rejoin_now {
                // A join can wait up to the rebalance timeout for the group; a stop does not.
                let round = tokio::select! {
                    _ = shutdown.cancelled() => break,
                    round = self.rebalance() => round,
                };
                match round {
                    Ok(outcome) => {
                        rejoin_now = outcome.rejoin_now;
                        if outcome.rejoin_at.is_some() {
                            rejoin_at = outcome.rejoin_at;
                        }
                        self.herder.set_ready();
                    }
                    Err(error) => {
                        tracing::warn!(%error, "Rebalance failed; trying again");
                        rejoin_now = true;
                        tokio::select! {
                            _ = shutdown.cancelled() => break,
                            _ = tokio::time::sleep(JOIN_RETRY) => {}
                        }
                    }
                }
                continue;
            }
            let next_retry = self.retries.values().map(|(at, _)| *at).min();
            let far = Instant::now() + Duration::from_secs(3600);
            let key_expiry = self.session_key_expiry().map(|at| {
                let wait = u64::try_from(at.saturating_sub(now_ms())).unwrap_or(0);
                Instant::now() + Duration::from_millis(wait)
            });
            tokio::select! {
                _ = shutdown.cancelled() => break,
                reason = self.member.rejoin_needed() => {
                    tracing::info!(%reason, "Rejoining the group");
                    if reason == ferry_group::RejoinReason::CoordinatorLost {
                        // The group has most likely moved on without this worker: stop its
                        // work so nothing runs twice.
                        tracing::warn!("Lost contact with the group coordinator; stopping all work");
                        self.revoke_everything().await;
                        let mut view = self.herder.view();
                        view.owned = Owned::default();
                        view.allocation = None;
                    }
                    rejoin_now = true;
                }
                Some(event) = self.events.recv() => {
                    let mut batch = vec![event];
                    while let Ok(more) = self.events.try_recv() {
                        batch.push(more);
                    }
                    rejoin_now = self.apply_config_events(batch).await;
                }
                Some(name) = self.reconfigure_requests.recv() => {
                    self.reconfigure(name, None);
                }
                Some((name, published)) = self.fetched.recv() => {
                    self.reconfigured(name, published);
                }
                Some(command) = self.commands.recv() => {
                    commands::execute(&self.herder, command).await;
                }
                _ = tokio::time::sleep_until(rejoin_at.unwrap_or(far)), if rejoin_at.is_some() => {
                    rejoin_at = None;
                    rejoin_now = true;
                }
                () = self.herder.configs.fenced() => {
                    // Most likely a newer leader fenced this one out; a zombie finds out by
                    // rejoining, and a worker that still leads claims again.
                    tracing::warn!("Failed to write to config topic as leader; rejoining the group");
                    rejoin_now = true;
                }
                _ = tokio::time::sleep_until(self.claim_retry_at.unwrap_or(far)), if self.claim_retry_at.is_some() => {
                    self.claim_retry_at = None;
                    if self.herder.view().is_leader() {
                        self.claim_write_privileges().await;
                    }
                }
                _ = tokio::time::sleep_until(key_expiry.unwrap_or(far)), if key_expiry.is_some() => {
                    self.rotate_session_key().await;
                }
                _ = tokio::time::sleep_until(next_retry.unwrap_or(far)), if next_retry.is_some() => {
                    let due: Vec<String> = self
                        .retries
                        .iter()
                        .filter(|(_, (at, _))| *at <= Instant::now())
                        .map(|(n, _)| n.clone())
                        .collect();
                    for name in due {
                        let backoff = self.retries.remove(&name).map(|(_, b)| b);
                        self.reconfigure(name, backoff);
                    }
                }
            }
        }
        self.shut_down().await;
    }

    /// Asks a connector for task configs and publishes them, on a task of its own: a connector
    /// slow in `taskConfigs`, or a leader slow to answer, never holds this loop. One call per
    /// connector at a time; a request meanwhile asks again once it returned.
    fn reconfigure(&mut self, name: String, backoff: Option<Duration>) {
        if let Some(fetch) = self.fetching.get_mut(&name) {
            fetch.again = true;
            return;
        }
        self.fetching.insert(
            name.clone(),
            Fetch {
                again: false,
                backoff,
            },
        );
        let (herder, done) = (self.herder.clone(), self.fetched_tx.clone());
        tokio::spawn(async move {
            let published = herder.reconfigure(&name).await;
            let _ = done.send((name, published));
        });
    }

    fn reconfigured(&mut self, name: String, published: Result<(), String>) {
        let Some(fetch) = self.fetching.remove(&name) else {
            return;
        };
        match published {
            Ok(()) => {
                if fetch.again {
                    self.reconfigure(name, None);
                }
            }
            Err(error) => {
                let backoff = fetch.backoff.map_or(RECONFIGURE_BACKOFF, |b| {
                    (b * 2).min(RECONFIGURE_BACKOFF_MAX)
                });
                tracing::warn!(connector = %name, %error, ?backoff, "Could not publish task configs; will retry");
                self.retries
                    .insert(name, (Instant::now() + backoff, backoff));
            }
        }
    }

    /// Applies what the config topic reported; answers whether a rebalance is needed.
    async fn apply_config_events(&mut self, events: Vec<ConfigEvent>) -> bool {
        let herder = self.herder.clone();
        let snapshot = herder.configs.snapshot();
        let mut rebalance = false;
        let mut changed_connectors = BTreeSet::new();
        let mut target_changes = BTreeSet::new();
        let mut task_updates = BTreeSet::new();
        let mut restarts = Vec::new();
        for event in events {
            match event {
                ConfigEvent::ConnectorConfigUpdated(name) => {
                    if self.known.contains(&name) {
                        changed_connectors.insert(name);
                    } else {
                        self.known.insert(name);
                        rebalance = true;
                    }
                }
                ConfigEvent::ConnectorRemoved(name) if self.known.remove(&name) => {
                    rebalance = true;
                    changed_connectors.remove(&name);
                    // Deleted work stops at once; the rebalance takes it away formally.
                    let ran_here = {
                        let view = herder.view();
                        view.running.connectors.contains(&name)
                            || view.running.tasks.iter().any(|id| id.connector == name)
                    };
                    herder.stop_tasks_of(&BTreeSet::from([name.clone()])).await;
                    herder.stop_connector_here(&name);
                    herder.worker.forget_connector(&name);
                    // As Java's revocation does: the worker that ran the deleted work resets its
                    // active topics once it has stopped (before, a task could record them again),
                    // so a GET soon after the delete no longer lists them. The leader's
                    // housekeeping covers work nobody was running.
                    if ran_here && herder.config.worker.topic_tracking {
                        herder.statuses.reset_topics(&name);
                        herder.statuses.flush();
                    }
                }
                ConfigEvent::TaskConfigsUpdated(ids) => {
                    rebalance = true;
                    task_updates.extend(ids.into_iter().map(|id| id.connector));
                }
                ConfigEvent::TargetStateChanged(name) => {
                    target_changes.insert(name);
                }
                ConfigEvent::RestartRequested(request) => restarts.push(request),
                ConfigEvent::LoggerLevel { namespace, level } => {
                    herder.apply_logger_level(&namespace, &level);
                }
                _ => {}
            }
        }
        for name in &changed_connectors {
            if herder.view().running.connectors.contains(name) {
                tracing::info!(connector = %name, "Connector config changed; restarting it");
                herder.stop_connector_here(name);
                herder.start_connector_here(&snapshot, name);
            }
        }
        for name in &target_changes {
            herder.apply_target_state(&snapshot, name).await;
        }
        if !task_updates.is_empty() {
            herder.stop_tasks_of(&task_updates).await;
        }
        for request in restarts {
            herder
                .execute_restart(
                    &snapshot,
                    &request.connector,
                    RestartRequest {
                        include_tasks: request.include_tasks,
                        only_failed: request.only_failed,
                    },
                )
                .await;
        }
        if rebalance {
            herder.view().rebalance_pending = true;
        }
        rebalance
    }

    /// One round: join, assign (leader), sync, then stop what was revoked and start what is new.
    async fn rebalance(&mut self) -> Result<RoundOutcome, GroupError> {
        let herder = self.herder.clone();
        self.group_metrics.rebalance_started();
        let mode = compatibility(herder.config.protocol);
        let eager_generation = {
            let view = herder.view();
            view.generation > 0 && view.protocol_version == 0
        };
        if mode == ConnectProtocolCompatibility::Eager || eager_generation {
            // Eager rebalancing stops everything before every join.
            self.revoke_everything().await;
            let mut view = herder.view();
            view.owned = Owned::default();
            view.allocation = None;
        }
        let snapshot = herder.configs.snapshot();
        let allocation = herder.view().allocation.clone();
        let protocols =
            protocol::metadata_protocols(mode, &herder.url, snapshot.offset(), allocation.as_ref())
                .map_err(|e| GroupError::Config(e.to_string()))?
                .into_iter()
                .map(|(name, bytes)| (name.to_owned(), Bytes::from(bytes)))
                .collect::<Vec<_>>();
        let joined = self.member.join(&protocols).await?;
        let version = protocol::protocol_version(&joined.protocol_name).unwrap_or(0);
        tracing::info!(
            generation = joined.generation_id,
            member = %joined.member_id,
            leader = %joined.leader_id,
            protocol = %joined.protocol_name,
            "Joined the group"
        );
        let assignments = if joined.is_leader() {
            // The leader catches up first when a member has read further than it.
            let members = self.assignor.decode_members(&joined.members);
            let max_offset = members
                .iter()
                .map(|m| m.metadata.config_offset)
                .max()
                .unwrap_or(-1);
            if herder.configs.snapshot().offset() < max_offset {
                let _ = herder
                    .configs
                    .read_to_end(herder.config.worker_sync_timeout)
                    .await;
            }
            let snapshot = herder.configs.snapshot();
            let (computed, leader_state) = self.assignor.assign(
                &joined.member_id,
                version,
                &members,
                &snapshot,
                joined.generation_id,
                now_ms(),
            );
            herder.view().leader_state = leader_state;
            computed
                .into_iter()
                .map(|(member, assignment)| {
                    let bytes = protocol::encode_assignment(&assignment).unwrap_or_default();
                    (member, Bytes::from(bytes))
                })
                .collect()
        } else {
            Vec::new()
        };
        let bytes = match self.member.sync(assignments).await {
            Ok(b) => b,
            Err(GroupError::RejoinNeeded) => return Ok(RoundOutcome::rejoin()),
            Err(e) => return Err(e),
        };
        let assignment = protocol::decode_assignment(&bytes)
            .map_err(|e| GroupError::Config(format!("unreadable assignment: {e}")))?;
        self.assignor.completed_generation(joined.generation_id);
        {
            let mut view = herder.view();
            view.member_id = joined.member_id.clone();
            view.generation = joined.generation_id;
            view.leader_id = assignment.leader.clone();
            view.leader_url = Some(assignment.leader_url.clone()).filter(|u| !u.is_empty());
            view.protocol_version = version;
            if !view.is_leader() {
                view.leader_state = None;
            }
        }
        herder.statuses.set_generation(joined.generation_id);
        if assignment.failed() {
            tracing::info!(
                offset = assignment.config_offset,
                "Config mismatch with the leader; reading the config topic"
            );
            self.read_configs_to_end(version).await;
            return Ok(RoundOutcome::rejoin());
        }
        herder
            .revoke(&assignment.revoked_connectors, &assignment.revoked_tasks)
            .await;
        {
            // What this worker owns from now on: the new assignment merged into the previous
            // one (cooperative), or the new one alone (eager). It is reported back as the
            // allocation of the next join.
            let mut view = herder.view();
            let mut merged =
                apply_assignment(view.allocation.as_ref(), &assignment, mode_in_use(version));
            merged.revoked_connectors.clear();
            merged.revoked_tasks.clear();
            merged.delay = 0;
            view.owned = Owned {
                connectors: merged.connectors.iter().cloned().collect(),
                tasks: merged.tasks.iter().cloned().collect(),
            };
            view.allocation = Some(merged);
        }
        if herder.configs.snapshot().offset() < assignment.config_offset
            && !self.read_configs_to_end(version).await
        {
            return Ok(RoundOutcome::rejoin());
        }
        let snapshot = herder.configs.snapshot();
        if snapshot.offset() != assignment.config_offset {
            tracing::info!(
                ours = snapshot.offset(),
                leaders = assignment.config_offset,
                "Config offset differs from the assignment's; rejoining"
            );
            return Ok(RoundOutcome::rejoin());
        }
        self.known = snapshot.connectors().into_iter().collect();
        // As Java's leader does on assignment, before any request or work goes on: its
        // transactional producer (KIP-618) fences out the config-topic writes of earlier leaders.
        if joined.is_leader() {
            self.claim_write_privileges().await;
        } else {
            self.claim_retry_at = None;
            herder.configs.relinquish_write_privileges().await;
        }
        herder.view().rebalance_pending = false;
        herder.settled.notify_waiters();
        herder.start_owned_work(&snapshot);
        if joined.is_leader() {
            self.leader_housekeeping(version).await;
        }
        let owned = herder.view().owned.clone();
        tracing::info!(
            connectors = ?owned.connectors,
            tasks = owned.tasks.len(),
            delay = assignment.delay,
            "Rebalance complete"
        );
        self.group_metrics.rebalance_completed(&Rebalanced {
            protocol: protocol_metric_name(version),
            leader_url: &assignment.leader_url,
            epoch: i64::from(joined.generation_id),
            connectors: owned.connectors.len(),
            tasks: owned.tasks.len(),
        });
        Ok(RoundOutcome {
            rejoin_now: assignment.has_revocations(),
            rejoin_at: (assignment.delay > 0).then(|| {
                Instant::now() + Duration::from_millis(u64::try_from(assignment.delay).unwrap_or(0))
            }),
        })
    }

    /// Reads the config topic to its end; when that takes longer than `worker.sync.timeout.ms`,
    /// leaves the group and backs off as Java does (`unsync`), answering false.
    async fn read_configs_to_end(&mut self, version: i16) -> bool {
        let config = self.herder.config.clone();
        let error = match self
            .herder
            .configs
            .read_to_end(config.worker_sync_timeout)
            .await
        {
            Ok(()) => {
                self.unsync_retries = unsync::RETRIES;
                return true;
            }
            Err(error) => error,
        };
        tracing::warn!(%error, "Didn't reach end of config log quickly enough");
        self.member.leave().await;
        let eager = mode_in_use(version) == ConnectProtocolCompatibility::Eager;
        match unsync::next_step(
            eager,
            self.unsync_retries,
            config.scheduled_rebalance_max_delay,
            config.worker_unsync_backoff,
        ) {
            unsync::Unsynced::Wait(delay) => {
                if !eager {
                    self.unsync_retries -= 1;
                }
                tracing::info!(
                    delay_ms = delay.as_millis() as u64,
                    "Backing off before rejoining the group"
                );
                tokio::select! {
                    _ = self.herder.shutdown.cancelled() => {}
                    _ = tokio::time::sleep(delay) => {}
                }
            }
            unsync::Unsynced::RevokeAll => {
                tracing::info!(
                    retries = unsync::RETRIES,
                    "Revoking the current running assignment because the worker has not caught up with the latest Connect cluster updates"
                );
                self.revoke_everything().await;
                let mut view = self.herder.view();
                view.owned = Owned::default();
                view.allocation = None;
                self.unsync_retries = unsync::RETRIES;
            }
        }
        false
    }

    async fn claim_write_privileges(&mut self) {
        if let Err(error) = self.herder.configs.claim_write_privileges().await {
            tracing::error!(%error, "Unable to claim write privileges for config topic as the leader; trying again");
            self.claim_retry_at = Some(Instant::now() + CLAIM_RETRY_BACKOFF);
        }
    }

    async fn revoke_everything(&self) {
        let (connectors, tasks) = {
            let view = self.herder.view();
            (
                view.running.connectors.iter().cloned().collect::<Vec<_>>(),
                view.running.tasks.iter().cloned().collect::<Vec<_>>(),
            )
        };
        self.herder.revoke(&connectors, &tasks).await;
    }

    /// After each rebalance the leader removes statuses of deleted connectors and tasks, and
    /// keeps a fresh session key in the config topic.
    async fn leader_housekeeping(&self, version: i16) {
        let herder = &self.herder;
        let snapshot = herder.configs.snapshot();
        for name in herder.statuses.connectors() {
            if !snapshot.contains(&name) {
                tracing::info!(connector = %name, "Removing statuses of a deleted connector");
                herder.statuses.remove_connector(&name);
                if herder.config.worker.topic_tracking {
                    herder.statuses.reset_topics(&name);
                }
            } else {
                let count = snapshot.tasks(&name).len();
                for (task, _) in herder.statuses.tasks(&name) {
                    if task >= count {
                        herder.statuses.remove_task(&ferry_runtime::status::TaskId {
                            connector: name.clone(),
                            task,
                        });
                    }
                }
            }
        }
        if version >= 2 {
            self.rotate_session_key().await;
        }
    }

    /// When the session key expires (ms since the epoch), if this worker leads a `sessioned`
    /// group; `None` otherwise.
    fn session_key_expiry(&self) -> Option<i64> {
        let view = self.herder.view();
        if !view.is_leader() || view.protocol_version < 2 {
            return None;
        }
        drop(view);
        let ttl = i64::try_from(self.herder.config.key_ttl.as_millis()).unwrap_or(i64::MAX);
        Some(
            self.herder
                .configs
                .snapshot()
                .session_key()
                .map_or(0, |k| k.creation_timestamp.saturating_add(ttl)),
        )
    }

    /// The leader writes a new session key when there is none or the current one expired.
    async fn rotate_session_key(&self) {
        if self
            .session_key_expiry()
            .is_none_or(|expiry| expiry > now_ms())
        {
            return;
        }
        let herder = &self.herder;
        let key = crate::config_topic::records::SessionKey {
            key: signing::generate_key(herder.config.key_size_bits),
            algorithm: signing::HMAC_SHA256.to_owned(),
            creation_timestamp: now_ms(),
        };
        tracing::info!("Writing a new session key");
        if let Err(error) = herder.configs.put_session_key(key).await {
            tracing::error!(%error, "Could not write a new session key");
        }
    }

    async fn shut_down(mut self) {
        tracing::info!("Stopping the herder");
        self.revoke_everything().await;
        self.herder.statuses.flush();
        self.member.leave().await;
    }
}

fn mode_in_use(version: i16) -> ConnectProtocolCompatibility {
    ConnectProtocolCompatibility::from_version(version)
        .unwrap_or(ConnectProtocolCompatibility::Eager)
}
