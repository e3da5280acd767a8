//! The incremental cooperative assignor (protocols `compatible` and `sessioned`, KIP-415, §4.6).
//!
//! Each round the leader compares what is configured, what the members report running, and what
//! it handed out last round (kept in memory). New and freed work goes to the least-loaded workers;
//! work of a worker that vanished is held back for up to `scheduled.rebalance.max.delay.ms` in case
//! it returns; overloaded workers have work revoked so a follow-up round can spread it, with
//! exponential backoff when revoking rounds follow each other.
//!
//! Iteration orders follow Java's, so a Ferry leader hands out the same assignments a Java leader
//! would: members are walked in `java.util.HashMap` order of their ids, lost and new work in
//! sorted order, and each worker's items in the order the worker reported them.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use ferry_runtime::status::TaskId;
use indexmap::{IndexMap, IndexSet};
use tracing::debug;

use super::{
    prepare, AssignorError, ConfiguredWork, Generation, GroupAssignment, LeaderState, MemberInfo,
    Prepared,
};
use crate::protocol::{
    hash_map_put_capacity, java_hash_order, java_string_hash, Assignment, NO_ERROR,
};

/// Default `scheduled.rebalance.max.delay.ms`.
pub const DEFAULT_MAX_DELAY_MS: i32 = 300_000;

/// Growth factor of the delay between successive revoking rounds.
const REVOKING_BACKOFF_MULTIPLIER: f64 = 40.0;

/// Connectors and tasks, each an insertion-ordered set.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Work {
    connectors: IndexSet<String>,
    tasks: IndexSet<TaskId>,
}

impl Work {
    fn from_lists(connectors: &[String], tasks: &[TaskId]) -> Self {
        Self {
            connectors: connectors.iter().cloned().collect(),
            tasks: tasks.iter().cloned().collect(),
        }
    }

    fn is_empty(&self) -> bool {
        self.connectors.is_empty() && self.tasks.is_empty()
    }

    fn extend(&mut self, other: &Work) {
        self.connectors.extend(other.connectors.iter().cloned());
        self.tasks.extend(other.tasks.iter().cloned());
    }

    fn remove_all(&mut self, other: &Work) {
        self.connectors.retain(|c| !other.connectors.contains(c));
        self.tasks.retain(|t| !other.tasks.contains(t));
    }

    fn minus(&self, other: &Work) -> Work {
        let mut out = self.clone();
        out.remove_all(other);
        out
    }

    /// Items of `self` that are also in `other`, in `self`'s order.
    fn intersection(&self, other: &Work) -> Work {
        Work {
            connectors: self
                .connectors
                .iter()
                .filter(|c| other.connectors.contains(*c))
                .cloned()
                .collect(),
            tasks: self
                .tasks
                .iter()
                .filter(|t| other.tasks.contains(*t))
                .cloned()
                .collect(),
        }
    }

    fn intersects(&self, other: &Work) -> bool {
        self.connectors.iter().any(|c| other.connectors.contains(c))
            || self.tasks.iter().any(|t| other.tasks.contains(t))
    }

    /// `self` minus every set in `others`, sorted (connectors by name, tasks by connector and index).
    fn sorted_minus(&self, others: &[&Work]) -> Work {
        let connectors: BTreeSet<&String> = self
            .connectors
            .iter()
            .filter(|c| others.iter().all(|o| !o.connectors.contains(*c)))
            .collect();
        let tasks: BTreeSet<&TaskId> = self
            .tasks
            .iter()
            .filter(|t| others.iter().all(|o| !o.tasks.contains(*t)))
            .collect();
        Work {
            connectors: connectors.into_iter().cloned().collect(),
            tasks: tasks.into_iter().cloned().collect(),
        }
    }
}

/// One worker's work while the next assignment is being built.
#[derive(Debug, Clone)]
struct WorkerLoad {
    worker: String,
    work: Work,
}

/// Per-worker outcome of one round.
#[derive(Debug, Clone, Default)]
struct ClusterAssignment {
    newly_assigned: BTreeMap<String, Work>,
    revoked: BTreeMap<String, Work>,
    all_assigned: BTreeMap<String, Work>,
}

/// The incremental cooperative assignor with its in-memory leader state. Not shared between
/// threads; one instance per worker, used whenever this worker leads a cooperative rebalance.
#[derive(Debug, Clone)]
pub struct IncrementalCooperativeAssignor {
    max_delay: i32,
    previous_assignment: Work,
    previous_revocation: Work,
    revoked_in_previous: bool,
    candidate_workers: IndexSet<String>,
    scheduled_rebalance: i64,
    delay: i32,
    previous_generation_id: i32,
    previous_members: HashSet<String>,
    num_successive_revoking_rebalances: i64,
}

impl IncrementalCooperativeAssignor {
    /// `max_delay_ms` is `scheduled.rebalance.max.delay.ms` (0 disables delays).
    pub fn new(max_delay_ms: i32) -> Self {
        Self {
            max_delay: max_delay_ms.max(0),
            previous_assignment: Work::default(),
            previous_revocation: Work::default(),
            revoked_in_previous: false,
            candidate_workers: IndexSet::new(),
            scheduled_rebalance: 0,
            delay: 0,
            previous_generation_id: -1,
            previous_members: HashSet::new(),
            num_successive_revoking_rebalances: 0,
        }
    }

    /// The delay (ms) sent with the last assignments; 0 = no rebalance scheduled.
    pub fn delay(&self) -> i32 {
        self.delay
    }

    /// Absolute time (ms) of the scheduled rebalance, 0 = none.
    pub fn scheduled_rebalance(&self) -> i64 {
        self.scheduled_rebalance
    }

    /// Workers that were empty while a delay ran, in the order they were noticed.
    pub fn candidate_workers(&self) -> Vec<String> {
        self.candidate_workers.iter().cloned().collect()
    }

    /// The generation of the last round this assignor computed, -1 before the first.
    pub fn previous_generation_id(&self) -> i32 {
        self.previous_generation_id
    }

    /// Computes one cooperative round.
    ///
    /// * `protocol_version`: the version of the selected protocol (1 or 2), written into every
    ///   assignment.
    /// * `members`: every member with its metadata, in JoinGroup response order.
    /// * `snapshot`: the freshest config snapshot the leader has; if its offset is behind any
    ///   member's, everybody gets `CONFIG_MISMATCH` and no state changes.
    /// * `generation`: the coordinator's last completed and current generations.
    /// * `now_ms`: the current time, for the scheduled rebalance delay.
    pub fn assign(
        &mut self,
        leader_id: &str,
        protocol_version: i16,
        members: &[MemberInfo],
        snapshot: &ConfiguredWork,
        generation: Generation,
        now_ms: i64,
    ) -> Result<GroupAssignment, AssignorError> {
        let (leader_url, offset) = match prepare(leader_id, protocol_version, members, snapshot)? {
            Prepared::Mismatch(result) => return Ok(result),
            Prepared::Assign { leader_url, offset } => (leader_url, offset),
        };
        debug!(
            generation = generation.current,
            last_completed = generation.last_completed,
            "Performing incremental cooperative task assignment"
        );

        let member_work: Vec<(String, Work)> = java_member_order(members)
            .into_iter()
            .map(|m| {
                let work = m
                    .metadata
                    .allocation
                    .as_ref()
                    .map(|a| Work::from_lists(&a.connectors, &a.tasks))
                    .unwrap_or_default();
                (m.member_id.clone(), work)
            })
            .collect();
        let cluster = self.perform_task_assignment(snapshot, generation, member_work, now_ms);

        let mut assignments = BTreeMap::new();
        for member in members {
            let id = &member.member_id;
            let mut a = Assignment::new(
                protocol_version,
                NO_ERROR,
                leader_id.to_owned(),
                leader_url.clone(),
                offset,
            );
            if let Some(new) = cluster.newly_assigned.get(id) {
                a.connectors = new.connectors.iter().cloned().collect();
                a.tasks = new.tasks.iter().cloned().collect();
            }
            if let Some(revoked) = cluster.revoked.get(id) {
                a.revoked_connectors = revoked.connectors.iter().cloned().collect();
                a.revoked_tasks = revoked.tasks.iter().cloned().collect();
            }
            a.delay = self.delay;
            assignments.insert(id.clone(), a);
        }

        let owned_connectors = cluster
            .all_assigned
            .iter()
            .map(|(w, work)| (w.clone(), work.connectors.iter().cloned().collect()))
            .collect();
        let owned_tasks = cluster
            .all_assigned
            .iter()
            .map(|(w, work)| (w.clone(), work.tasks.iter().cloned().collect()))
            .collect();
        let leader_state = LeaderState::new(members, &owned_connectors, &owned_tasks);
        debug!(?assignments, "Incremental cooperative assignments");
        Ok(GroupAssignment {
            protocol_version,
            config_offset: offset,
            assignments,
            leader_state: Some(leader_state),
        })
    }

    fn perform_task_assignment(
        &mut self,
        snapshot: &ConfiguredWork,
        generation: Generation,
        members: Vec<(String, Work)>,
        now: i64,
    ) -> ClusterAssignment {
        // 1. A failed or skipped sync makes last round's view unreliable.
        if self.previous_generation_id != generation.last_completed {
            debug!(
                previous = self.previous_generation_id,
                last_completed = generation.last_completed,
                "Clearing the view of previous assignments due to a generation mismatch"
            );
            self.previous_assignment = Work::default();
        }

        // 2–3. Configured and active work.
        let configured = Work {
            connectors: snapshot.connectors.keys().cloned().collect(),
            tasks: snapshot.tasks().cloned().collect(),
        };
        let mut active = Work::default();
        for (_, work) in &members {
            active.extend(work);
        }

        // 4. A revocation that did not take effect: trust what members report instead.
        if !self.previous_revocation.is_empty() {
            if self.previous_revocation.intersects(&active) {
                self.previous_assignment = active.clone();
            }
            self.previous_revocation = Work::default();
        }

        // 5. Derived sets.
        let deleted = self.previous_assignment.sorted_minus(&[&configured]);
        let duplicated = duplicated_work(&members);
        let lost = self.previous_assignment.sorted_minus(&[&active, &deleted]);
        let created = configured.sorted_minus(&[&self.previous_assignment, &active]);
        debug!(
            ?deleted,
            ?duplicated,
            ?lost,
            ?created,
            "Derived assignment sets"
        );

        // 6. Revoke deleted and duplicated work.
        let current: HashMap<String, Work> = members
            .iter()
            .map(|(w, work)| (w.clone(), work.minus(&deleted)))
            .collect();
        let deleted_to_revoke: Vec<(String, Work)> = members
            .iter()
            .map(|(w, work)| (w.clone(), work.intersection(&deleted)))
            .collect();
        let duplicated_to_revoke: Vec<(String, Work)> = members
            .iter()
            .map(|(w, work)| (w.clone(), work.intersection(&duplicated)))
            .collect();
        let mut to_revoke: IndexMap<String, Work> = IndexMap::new();
        add_all(&mut to_revoke, &deleted_to_revoke);
        add_all(&mut to_revoke, &duplicated_to_revoke);

        let member_ids: HashSet<String> = members.iter().map(|(w, _)| w.clone()).collect();
        let mut next: Vec<WorkerLoad> = members
            .into_iter()
            .map(|(worker, work)| WorkerLoad { worker, work })
            .collect();
        remove_all(&mut next, &deleted_to_revoke);
        remove_all(&mut next, &duplicated_to_revoke);

        // 7. Lost work.
        let lost_to_reassign = self.handle_lost_assignments(&lost, &mut next, now);

        // 8. Load-balancing revocations.
        if self.delay == 0 {
            let balancing = load_balancing_revocations(&configured, &next);
            if self.revoked_in_previous && !balancing.is_empty() {
                self.num_successive_revoking_rebalances += 1;
                self.delay = self.revoking_backoff(self.num_successive_revoking_rebalances);
                if self.delay != 0 {
                    self.scheduled_rebalance = now + i64::from(self.delay);
                    debug!(
                        delay = self.delay,
                        "Consecutive revoking rebalances: skipping revocations this round"
                    );
                } else {
                    add_all(&mut to_revoke, &balancing);
                    remove_all(&mut next, &balancing);
                }
            } else if !balancing.is_empty() {
                debug!("Performing load-balancing revocations");
                add_all(&mut to_revoke, &balancing);
                remove_all(&mut next, &balancing);
                self.revoked_in_previous = true;
            } else if self.revoked_in_previous {
                debug!("No revocations needed after a revoking round; resetting the backoff");
                self.revoked_in_previous = false;
                self.num_successive_revoking_rebalances = 0;
            }
        } else {
            debug!(
                delay = self.delay,
                "Delayed rebalance active: no load-balancing revocations"
            );
            self.revoked_in_previous = false;
        }

        // 9. Hand out new and reassigned work.
        let mut to_assign = created;
        to_assign.extend(&lost_to_reassign);
        assign_connectors(&mut next, to_assign.connectors);
        assign_tasks(&mut next, to_assign.tasks);

        // 10. Per-worker results.
        let mut cluster = ClusterAssignment::default();
        let nothing = Work::default();
        for load in &next {
            let before = current.get(&load.worker).unwrap_or(&nothing);
            let revoked = to_revoke.get(&load.worker).unwrap_or(&nothing);
            cluster
                .newly_assigned
                .insert(load.worker.clone(), load.work.minus(before));
            cluster
                .all_assigned
                .insert(load.worker.clone(), load.work.minus(revoked));
        }
        for (worker, revoked) in &to_revoke {
            cluster.revoked.insert(worker.clone(), revoked.clone());
        }

        // 11. Remember this round.
        let mut previous = Work::default();
        for load in &next {
            previous.extend(&load.work);
        }
        for revoked in to_revoke.values() {
            previous.remove_all(revoked);
            self.previous_revocation.extend(revoked);
        }
        previous.extend(&lost);
        self.previous_assignment = previous;
        self.previous_generation_id = generation.current;
        self.previous_members = member_ids;
        cluster
    }

    /// Step 7: decides what to do with work whose owner disappeared. Returns the lost work to hand
    /// out as new work; may instead assign it to candidate workers in `next` directly, or hold it
    /// back while the scheduled delay runs.
    fn handle_lost_assignments(&mut self, lost: &Work, next: &mut [WorkerLoad], now: i64) -> Work {
        if lost.is_empty() && !self.revoked_in_previous {
            self.reset_delay();
            return Work::default();
        }
        debug!(
            ?lost,
            "Connectors and tasks missing from the previous assignments"
        );

        let present: HashSet<&str> = next.iter().map(|w| w.worker.as_str()).collect();
        if self.scheduled_rebalance <= 0
            && self
                .previous_members
                .iter()
                .all(|m| present.contains(m.as_str()))
        {
            debug!("No worker departed; reassigning missing work as new work");
            return lost.clone();
        }
        if self.max_delay == 0 {
            debug!("Scheduled rebalance delays are disabled; reassigning lost work immediately");
            return lost.clone();
        }

        if self.scheduled_rebalance > 0 && now >= self.scheduled_rebalance {
            debug!("Scheduled rebalance delay expired; reassigning lost work");
            let candidates: Vec<usize> = self
                .candidate_workers
                .iter()
                .filter_map(|c| next.iter().position(|w| &w.worker == c))
                .collect();
            let mut to_reassign = Work::default();
            if candidates.is_empty() {
                to_reassign = lost.clone();
            } else {
                for (i, connector) in lost.connectors.iter().enumerate() {
                    next[candidates[i % candidates.len()]]
                        .work
                        .connectors
                        .insert(connector.clone());
                }
                for (i, task) in lost.tasks.iter().enumerate() {
                    next[candidates[i % candidates.len()]]
                        .work
                        .tasks
                        .insert(task.clone());
                }
            }
            self.reset_delay();
            self.revoked_in_previous = false;
            return to_reassign;
        }

        // The delay starts now or is still running.
        let empty: Vec<&str> = next
            .iter()
            .filter(|w| w.work.is_empty())
            .map(|w| w.worker.as_str())
            .collect();
        let capacity = hash_map_put_capacity(empty.len());
        for worker in java_hash_order(empty, |w| java_string_hash(w), capacity) {
            self.candidate_workers.insert(worker.to_owned());
        }
        if now < self.scheduled_rebalance {
            let remaining = self.scheduled_rebalance - now;
            self.delay = if remaining > 0 {
                remaining.min(i64::from(self.max_delay)) as i32
            } else {
                0
            };
        } else {
            self.delay = self.max_delay;
        }
        self.scheduled_rebalance = now + i64::from(self.delay);
        debug!(
            delay = self.delay,
            scheduled = self.scheduled_rebalance,
            "Lost work held back"
        );
        Work::default()
    }

    fn reset_delay(&mut self) {
        self.candidate_workers.clear();
        self.scheduled_rebalance = 0;
        self.delay = 0;
    }

    /// Kafka's `ExponentialBackoff(initial = 1 (0 when the max delay is 0), multiplier = 40,
    /// max = max delay, jitter = 0).backoff(attempts)`: 40, 1600, 64000, … capped at the max.
    fn revoking_backoff(&self, attempts: i64) -> i32 {
        let max = i64::from(self.max_delay);
        let initial = if self.max_delay == 0 {
            0
        } else {
            1i64.min(max)
        };
        let exp_max = if max > initial {
            (max as f64 / initial.max(1) as f64).ln() / REVOKING_BACKOFF_MULTIPLIER.ln()
        } else {
            0.0
        };
        if exp_max == 0.0 {
            return initial as i32;
        }
        let exp = (attempts as f64).min(exp_max);
        let term = initial as f64 * REVOKING_BACKOFF_MULTIPLIER.powf(exp);
        (term as i64).min(max) as i32
    }
}

impl Default for IncrementalCooperativeAssignor {
    fn default() -> Self {
        Self::new(DEFAULT_MAX_DELAY_MS)
    }
}

/// Members in the order Java's leader walks them (a `HashMap` keyed by member id, filled in
/// JoinGroup order). A repeated member id keeps its first position and its last metadata.
fn java_member_order(members: &[MemberInfo]) -> Vec<&MemberInfo> {
    let mut by_id: IndexMap<&str, &MemberInfo> = IndexMap::new();
    for m in members {
        by_id.insert(m.member_id.as_str(), m);
    }
    let capacity = hash_map_put_capacity(by_id.len());
    java_hash_order(
        by_id.into_values().collect(),
        |m| java_string_hash(&m.member_id),
        capacity,
    )
}

/// Connectors and tasks reported by more than one member.
fn duplicated_work(members: &[(String, Work)]) -> Work {
    let mut connector_counts: HashMap<&String, usize> = HashMap::new();
    let mut task_counts: HashMap<&TaskId, usize> = HashMap::new();
    for (_, work) in members {
        for c in &work.connectors {
            *connector_counts.entry(c).or_default() += 1;
        }
        for t in &work.tasks {
            *task_counts.entry(t).or_default() += 1;
        }
    }
    let connectors: BTreeSet<&String> = connector_counts
        .into_iter()
        .filter(|(_, n)| *n > 1)
        .map(|(c, _)| c)
        .collect();
    let tasks: BTreeSet<&TaskId> = task_counts
        .into_iter()
        .filter(|(_, n)| *n > 1)
        .map(|(t, _)| t)
        .collect();
    Work {
        connectors: connectors.into_iter().cloned().collect(),
        tasks: tasks.into_iter().cloned().collect(),
    }
}

fn add_all(target: &mut IndexMap<String, Work>, items: &[(String, Work)]) {
    for (worker, work) in items {
        target.entry(worker.clone()).or_default().extend(work);
    }
}

fn remove_all(loads: &mut [WorkerLoad], items: &[(String, Work)]) {
    let by_worker: HashMap<&str, &Work> =
        items.iter().map(|(w, work)| (w.as_str(), work)).collect();
    for load in loads {
        if let Some(work) = by_worker.get(load.worker.as_str()) {
            load.work.remove_all(work);
        }
    }
}

/// Step 8: what to revoke so that no worker holds more than its balanced share. Empty when no
/// revocation is needed or possible.
fn load_balancing_revocations(configured: &Work, workers: &[WorkerLoad]) -> Vec<(String, Work)> {
    if workers.iter().all(|w| w.work.is_empty()) || configured.is_empty() {
        return Vec::new();
    }
    let connectors =
        balancing_revocations(configured.connectors.len(), workers, |w| &w.work.connectors);
    let tasks = balancing_revocations(configured.tasks.len(), workers, |w| &w.work.tasks);
    let mut result: IndexMap<String, Work> = IndexMap::new();
    for (worker, revoked) in connectors {
        result.entry(worker).or_default().connectors.extend(revoked);
    }
    for (worker, revoked) in tasks {
        result.entry(worker).or_default().tasks.extend(revoked);
    }
    result.into_iter().collect()
}

/// Revocations for one kind of item: with `total` items over `W` workers, each worker may keep
/// `total / W`, and `total % W` of them one more. Workers are visited in order; each overloaded
/// worker gives up the first items of its list.
fn balancing_revocations<T: Clone>(
    total: usize,
    workers: &[WorkerLoad],
    items: impl Fn(&WorkerLoad) -> &IndexSet<T>,
) -> Vec<(String, Vec<T>)> {
    let count = workers.len();
    let min = total / count;
    let extra = total % count;
    let at_min = workers.iter().filter(|w| items(w).len() == min).count();
    let at_extra = workers.iter().filter(|w| items(w).len() == min + 1).count();
    if at_extra == extra && at_min + at_extra == count {
        return Vec::new();
    }
    let mut result = Vec::new();
    let mut extras_granted = 0;
    for worker in workers {
        let held = items(worker).len();
        if held <= min {
            continue;
        }
        let allowed = if extras_granted < extra {
            extras_granted += 1;
            if held == min + 1 {
                continue;
            }
            min + 1
        } else {
            min
        };
        let revoked: Vec<T> = items(worker).iter().take(held - allowed).cloned().collect();
        result.push((worker.worker.clone(), revoked));
    }
    result
}

/// Step 9 for connectors: fill the least-loaded workers level by level.
fn assign_connectors(workers: &mut [WorkerLoad], connectors: IndexSet<String>) {
    workers.sort_by(|a, b| {
        a.work
            .connectors
            .len()
            .cmp(&b.work.connectors.len())
            .then_with(|| a.worker.cmp(&b.worker))
    });
    level_fill(workers, connectors, |w| &mut w.work.connectors);
}

/// Step 9 for tasks: fill the least-loaded workers level by level.
fn assign_tasks(workers: &mut [WorkerLoad], tasks: IndexSet<TaskId>) {
    workers.sort_by(|a, b| {
        a.work
            .tasks
            .len()
            .cmp(&b.work.tasks.len())
            .then_with(|| a.worker.cmp(&b.worker))
    });
    level_fill(workers, tasks, |w| &mut w.work.tasks);
}

/// Workers are sorted by load once. Each pass gives one item to every worker (from the front)
/// whose load does not exceed the first worker's, until the items run out.
fn level_fill<T: std::hash::Hash + Eq>(
    workers: &mut [WorkerLoad],
    items: IndexSet<T>,
    mut slot: impl FnMut(&mut WorkerLoad) -> &mut IndexSet<T>,
) {
    if workers.is_empty() {
        return;
    }
    let mut items = items.into_iter().peekable();
    while items.peek().is_some() {
        let first_load = slot(&mut workers[0]).len();
        let up_to = (0..workers.len())
            .find(|&i| slot(&mut workers[i]).len() > first_load)
            .unwrap_or(workers.len());
        for worker in &mut workers[..up_to] {
            let Some(item) = items.next() else { break };
            slot(worker).insert(item);
        }
    }
}

#[cfg(test)]
pub(super) fn member_order_for_tests(members: &[MemberInfo]) -> Vec<&str> {
    java_member_order(members)
        .into_iter()
        .map(|m| m.member_id.as_str())
        .collect()
}

#[cfg(test)]
mod unit_tests {
    use super::*;

    fn load(
        worker: &str,
        connectors: std::ops::Range<usize>,
        tasks: std::ops::Range<usize>,
    ) -> WorkerLoad {
        WorkerLoad {
            worker: worker.to_owned(),
            work: Work {
                connectors: connectors.map(|i| format!("connector{i}")).collect(),
                tasks: tasks
                    .map(|i| TaskId {
                        connector: "task".to_owned(),
                        task: i,
                    })
                    .collect(),
            },
        }
    }

    fn names(loads: &[WorkerLoad], worker: &str) -> Vec<String> {
        loads
            .iter()
            .find(|w| w.worker == worker)
            .unwrap()
            .work
            .connectors
            .iter()
            .cloned()
            .collect()
    }

    #[test]
    fn assignor_backoff_matches_kafka_exponential_backoff() {
        let a = IncrementalCooperativeAssignor::new(300_000);
        assert_eq!(a.revoking_backoff(1), 40);
        assert_eq!(a.revoking_backoff(2), 1_600);
        assert_eq!(a.revoking_backoff(3), 64_000);
        let fourth = a.revoking_backoff(4);
        assert!((299_999..=300_000).contains(&fourth), "{fourth}");
        assert!((299_999..=300_000).contains(&a.revoking_backoff(50)));
        assert_eq!(
            IncrementalCooperativeAssignor::new(0).revoking_backoff(3),
            0
        );
        assert_eq!(
            IncrementalCooperativeAssignor::new(1).revoking_backoff(3),
            1
        );
        assert_eq!(
            IncrementalCooperativeAssignor::new(1000).revoking_backoff(1),
            40
        );
        // 40^(ln 1000 / ln 40) is a hair under 1000 in floating point, as in Java.
        assert!(
            (999..=1000).contains(&IncrementalCooperativeAssignor::new(1000).revoking_backoff(2))
        );
    }

    // Java's testAssignConnectorsWhenBalanced.
    #[test]
    fn assignor_assign_connectors_when_balanced() {
        let mut loads: Vec<WorkerLoad> = (0..3)
            .map(|i| load(&format!("worker{i}"), i * 2..i * 2 + 2, 0..0))
            .collect();
        assign_connectors(
            &mut loads,
            (6..11).map(|i| format!("connector{i}")).collect(),
        );
        assert_eq!(
            names(&loads, "worker0"),
            ["connector0", "connector1", "connector6", "connector9"]
        );
        assert_eq!(
            names(&loads, "worker1"),
            ["connector2", "connector3", "connector7", "connector10"]
        );
        assert_eq!(
            names(&loads, "worker2"),
            ["connector4", "connector5", "connector8"]
        );
    }

    // Java's testAssignConnectorsWhenImbalanced.
    #[test]
    fn assignor_assign_when_imbalanced_levels_out() {
        let mut loads = vec![
            load("worker0", 0..2, 0..2),
            load("worker1", 2..5, 2..5),
            load("worker2", 5..9, 5..9),
        ];
        loads.push(WorkerLoad {
            worker: "worker3".to_owned(),
            work: Work::default(),
        });
        assign_connectors(
            &mut loads,
            (9..24).map(|i| format!("connector{i}")).collect(),
        );
        assign_tasks(
            &mut loads,
            (9..24)
                .map(|i| TaskId {
                    connector: "task".to_owned(),
                    task: i,
                })
                .collect(),
        );
        for w in &loads {
            assert_eq!(w.work.connectors.len(), 6, "{}", w.worker);
            assert_eq!(w.work.tasks.len(), 6, "{}", w.worker);
        }
    }

    #[test]
    fn assignor_balancing_revokes_first_items_of_overloaded_workers() {
        let workers = vec![
            load("a", 0..5, 0..0),
            load("b", 5..6, 0..0),
            load("c", 6..6, 0..0),
        ];
        let revoked = balancing_revocations(6, &workers, |w| &w.work.connectors);
        assert_eq!(
            revoked,
            vec![(
                "a".to_owned(),
                vec![
                    "connector0".to_owned(),
                    "connector1".to_owned(),
                    "connector2".to_owned()
                ]
            )]
        );
        // Already balanced: 7 over 3 = 3, 2, 2 in any order.
        let workers = vec![
            load("a", 0..2, 0..0),
            load("b", 2..5, 0..0),
            load("c", 5..7, 0..0),
        ];
        assert!(balancing_revocations(7, &workers, |w| &w.work.connectors).is_empty());
    }
}
