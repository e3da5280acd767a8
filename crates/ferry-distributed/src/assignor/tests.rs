//! Assignor scenarios. Most incremental ones follow the scenarios of Kafka's
//! `IncrementalCooperativeAssignorTest`: a simulated group whose members report their allocation
//! (through the real metadata codec), receive assignments (through the real assignment codec) and
//! merge them as `WorkerCoordinator` does.

use std::collections::{BTreeMap, BTreeSet};

use ferry_runtime::status::TaskId;
use indexmap::IndexMap;

use super::*;
use crate::protocol::{
    decode_assignment, decode_metadata, encode_metadata, ConnectProtocolCompatibility,
    CONFIG_MISMATCH, CONNECT_PROTOCOL_V1, CONNECT_PROTOCOL_V2,
};

const OFFSET: i64 = 618;
const DEFAULT_DELAY: i32 = 300_000;

fn task(connector: &str, task: usize) -> TaskId {
    TaskId {
        connector: connector.to_owned(),
        task,
    }
}

fn url(member: &str) -> String {
    format!("http://{member}:8083/")
}

/// Equal apart from the order of the lists (the codec groups tasks per connector).
fn assert_same_contents(a: &Assignment, b: &Assignment) {
    fn sorted<T: Ord + Clone>(v: &[T]) -> Vec<T> {
        let mut v = v.to_vec();
        v.sort();
        v
    }
    let strip = |x: &Assignment| {
        let mut x = x.clone();
        x.connectors = sorted(&x.connectors);
        x.tasks = sorted(&x.tasks);
        x.revoked_connectors = sorted(&x.revoked_connectors);
        x.revoked_tasks = sorted(&x.revoked_tasks);
        x
    };
    assert_eq!(strip(a), strip(b), "codec round trip");
}

/// A simulated group led by an incremental cooperative assignor.
struct Group {
    assignor: IncrementalCooperativeAssignor,
    max_delay: i32,
    config: BTreeMap<String, usize>,
    /// Member id → its current assignment snapshot, in JoinGroup order.
    members: IndexMap<String, Option<Assignment>>,
    generation: i32,
    now: i64,
    last: Option<GroupAssignment>,
}

impl Group {
    /// Two connectors with four tasks each and one worker, like Java's test setup.
    fn new(max_delay: i32) -> Self {
        let mut group = Self {
            assignor: IncrementalCooperativeAssignor::new(max_delay),
            max_delay,
            config: BTreeMap::new(),
            members: IndexMap::new(),
            generation: 1000,
            now: 1_700_000_000_000,
            last: None,
        };
        group.add_connector("connector1", 4);
        group.add_connector("connector2", 4);
        group.add_workers(&["worker1"]);
        group
    }

    /// No connectors, no workers.
    fn empty(max_delay: i32, now: i64) -> Self {
        Self {
            assignor: IncrementalCooperativeAssignor::new(max_delay),
            max_delay,
            config: BTreeMap::new(),
            members: IndexMap::new(),
            generation: 1000,
            now,
            last: None,
        }
    }

    /// A new leader: its assignor starts from scratch.
    fn new_leader(&mut self) {
        self.assignor = IncrementalCooperativeAssignor::new(self.max_delay);
    }

    fn add_connector(&mut self, name: &str, tasks: usize) {
        assert!(self.config.insert(name.to_owned(), tasks).is_none());
    }

    fn remove_connector(&mut self, name: &str) {
        assert!(self.config.remove(name).is_some());
    }

    fn add_workers(&mut self, workers: &[&str]) {
        for w in workers {
            assert!(
                self.members.insert((*w).to_owned(), None).is_none(),
                "{w} already exists"
            );
        }
    }

    /// A worker that joins already running some work (as it believes).
    fn add_worker_with(&mut self, worker: &str, connectors: &[&str], tasks: &[TaskId]) {
        let mut a = Assignment::new(
            CONNECT_PROTOCOL_V2,
            0,
            "old-leader".into(),
            url("old-leader"),
            OFFSET,
        );
        a.connectors = connectors.iter().map(|c| (*c).to_owned()).collect();
        a.tasks = tasks.to_vec();
        assert!(self.members.insert(worker.to_owned(), Some(a)).is_none());
    }

    fn remove_workers(&mut self, workers: &[&str]) {
        for w in workers {
            assert!(
                self.members.shift_remove(*w).is_some(),
                "{w} does not exist"
            );
        }
    }

    fn sleep(&mut self, ms: i64) {
        self.now += ms;
    }

    fn delay(&self) -> i32 {
        self.assignor.delay()
    }

    fn snapshot(&self) -> ConfiguredWork {
        let mut work = ConfiguredWork::new(OFFSET);
        for (name, tasks) in &self.config {
            work = work.with_connector(name, *tasks);
        }
        work
    }

    fn leader(&self) -> String {
        self.members.keys().next().expect("no members").clone()
    }

    /// Member metadata as the leader receives it (through the codec).
    fn member_infos(&self) -> Vec<MemberInfo> {
        self.members
            .iter()
            .map(|(id, allocation)| {
                let metadata = WorkerMetadata {
                    version: CONNECT_PROTOCOL_V2,
                    url: url(id),
                    config_offset: OFFSET,
                    allocation: allocation.clone(),
                };
                let bytes = encode_metadata(&metadata).unwrap();
                MemberInfo {
                    member_id: id.clone(),
                    metadata: decode_metadata(&bytes).unwrap(),
                }
            })
            .collect()
    }

    fn rebalance(&mut self) {
        self.run(true, 1);
    }

    /// The assignment is computed but never reaches the members.
    fn failed_rebalance(&mut self) {
        self.run(false, 1);
    }

    /// The coordinator's last completed generation is older than the assignor's.
    fn rebalance_with_mismatched_generation(&mut self) {
        self.run(true, 2);
    }

    fn run(&mut self, deliver: bool, generations_back: i32) {
        self.generation += 1;
        let generation = Generation {
            last_completed: self.generation - generations_back,
            current: self.generation,
        };
        let members = self.member_infos();
        let result = self
            .assignor
            .assign(
                &self.leader(),
                CONNECT_PROTOCOL_V2,
                &members,
                &self.snapshot(),
                generation,
                self.now,
            )
            .unwrap();
        self.assert_no_redundant_assignments(&result);
        if deliver {
            let encoded = result.encode().unwrap();
            for (member, snapshot) in self.members.iter_mut() {
                let received = decode_assignment(&encoded[member]).unwrap();
                assert_same_contents(&received, &result.assignments[member]);
                let next = apply_assignment(
                    snapshot.as_ref(),
                    &received,
                    ConnectProtocolCompatibility::Sessioned,
                );
                *snapshot = Some(next);
            }
            // What the leader believes each member owns matches what the members hold.
            let state = result.leader_state.as_ref().unwrap();
            for (member, snapshot) in &self.members {
                let held: BTreeSet<&String> =
                    snapshot.as_ref().unwrap().connectors.iter().collect();
                let believed: BTreeSet<&String> = state
                    .connector_owners
                    .iter()
                    .filter(|(_, m)| *m == member)
                    .map(|(c, _)| c)
                    .collect();
                assert_eq!(held, believed, "leader state for {member}");
            }
        }
        self.last = Some(result);
    }

    fn last(&self) -> &GroupAssignment {
        self.last.as_ref().unwrap()
    }

    fn held(&self, member: &str) -> (Vec<String>, Vec<TaskId>) {
        match &self.members[member] {
            Some(a) => (a.connectors.clone(), a.tasks.clone()),
            None => (Vec::new(), Vec::new()),
        }
    }

    fn connector_counts(&self) -> Vec<usize> {
        let mut counts: Vec<usize> = self.members.keys().map(|m| self.held(m).0.len()).collect();
        counts.sort_unstable();
        counts
    }

    fn task_counts(&self) -> Vec<usize> {
        let mut counts: Vec<usize> = self.members.keys().map(|m| self.held(m).1.len()).collect();
        counts.sort_unstable();
        counts
    }

    fn assert_counts(&self, connectors: &[usize], tasks: &[usize]) {
        let mut c = connectors.to_vec();
        c.sort_unstable();
        let mut t = tasks.to_vec();
        t.sort_unstable();
        assert_eq!(self.connector_counts(), c, "connector allocation");
        assert_eq!(self.task_counts(), t, "task allocation");
    }

    fn assert_workers(&self, workers: &[&str]) {
        let got: BTreeSet<&str> = self.last().assignments.keys().map(String::as_str).collect();
        let want: BTreeSet<&str> = workers.iter().copied().collect();
        assert_eq!(got, want);
    }

    fn assert_no_revocations(&self) {
        for (member, a) in &self.last().assignments {
            assert!(
                !a.has_revocations(),
                "unexpected revocations for {member}: {a:?}"
            );
        }
    }

    fn assert_empty_assignment(&self) {
        for (member, a) in &self.last().assignments {
            assert!(a.is_empty(), "unexpected changes for {member}: {a:?}");
        }
    }

    fn assert_balanced_and_complete(&self) {
        let c = self.connector_counts();
        let t = self.task_counts();
        assert!(c[c.len() - 1] - c[0] <= 1, "connectors imbalanced: {c:?}");
        assert!(t[t.len() - 1] - t[0] <= 1, "tasks imbalanced: {t:?}");
        let mut connectors = Vec::new();
        let mut tasks = Vec::new();
        for m in self.members.keys() {
            let (c, t) = self.held(m);
            connectors.extend(c);
            tasks.extend(t);
        }
        let n_connectors = connectors.len();
        let n_tasks = tasks.len();
        let connectors: BTreeSet<String> = connectors.into_iter().collect();
        let tasks: BTreeSet<TaskId> = tasks.into_iter().collect();
        assert_eq!(connectors.len(), n_connectors, "a connector runs twice");
        assert_eq!(tasks.len(), n_tasks, "a task runs twice");
        let snapshot = self.snapshot();
        assert_eq!(
            connectors,
            snapshot.connectors.keys().cloned().collect::<BTreeSet<_>>()
        );
        assert_eq!(tasks, snapshot.tasks().cloned().collect::<BTreeSet<_>>());
    }

    /// Nothing newly assigned is already running somewhere, and nothing is handed out twice.
    fn assert_no_redundant_assignments(&self, result: &GroupAssignment) {
        let mut running_c = BTreeSet::new();
        let mut running_t = BTreeSet::new();
        for m in self.members.keys() {
            let (c, t) = self.held(m);
            running_c.extend(c);
            running_t.extend(t);
        }
        let mut new_c = BTreeSet::new();
        let mut new_t = BTreeSet::new();
        for a in result.assignments.values() {
            for c in &a.connectors {
                assert!(new_c.insert(c.clone()), "{c} assigned twice");
                assert!(!running_c.contains(c), "{c} assigned while already running");
            }
            for t in &a.tasks {
                assert!(new_t.insert(t.clone()), "{t} assigned twice");
                assert!(!running_t.contains(t), "{t} assigned while already running");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Eager

fn member(id: &str, offset: i64) -> MemberInfo {
    MemberInfo {
        member_id: id.to_owned(),
        metadata: WorkerMetadata {
            version: 0,
            url: url(id),
            config_offset: offset,
            allocation: None,
        },
    }
}

#[test]
fn assignor_eager_round_robin_order() {
    let members = vec![member("w3", 5), member("w1", 5), member("w2", 5)];
    let snapshot = ConfiguredWork::new(5)
        .with_connector("b", 2)
        .with_connector("a", 3)
        .with_connector("c", 0);
    let result = assign_eager("w3", &members, &snapshot).unwrap();
    assert_eq!(result.protocol_version, 0);
    let get = |m: &str| &result.assignments[m];
    // Connectors a, b, c to w1, w2, w3; then tasks a-0 a-1 a-2 b-0 b-1 continuing from w1.
    assert_eq!(get("w1").connectors, ["a"]);
    assert_eq!(get("w2").connectors, ["b"]);
    assert_eq!(get("w3").connectors, ["c"]);
    assert_eq!(get("w1").tasks, [task("a", 0), task("b", 0)]);
    assert_eq!(get("w2").tasks, [task("a", 1), task("b", 1)]);
    assert_eq!(get("w3").tasks, [task("a", 2)]);
    for a in result.assignments.values() {
        assert_eq!(a.version, 0);
        assert_eq!(a.leader, "w3");
        assert_eq!(a.leader_url, url("w3"));
        assert_eq!(a.config_offset, 5);
        assert!(!a.has_revocations());
        assert_eq!(a.delay, 0);
    }
    let state = result.leader_state.as_ref().unwrap();
    assert_eq!(state.connector_owner_url("b"), Some(url("w2").as_str()));
    assert_eq!(
        state.task_owner_url(&task("a", 2)),
        Some(url("w3").as_str())
    );
    assert_eq!(state.task_owner_url(&task("zz", 0)), None);
    // Bytes are V0 assignments.
    let encoded = result.encode().unwrap();
    assert_eq!(&encoded["w1"][..2], &[0, 0]);
    assert_eq!(
        decode_assignment(&encoded["w1"]).unwrap(),
        result.assignments["w1"]
    );
}

#[test]
fn assignor_eager_more_members_than_work() {
    let members = vec![member("a", 1), member("b", 1), member("c", 1)];
    let result = assign_eager(
        "b",
        &members,
        &ConfiguredWork::new(1).with_connector("x", 1),
    )
    .unwrap();
    assert_eq!(result.assignments["a"].connectors, ["x"]);
    assert_eq!(result.assignments["b"].tasks, [task("x", 0)]);
    assert!(result.assignments["c"].is_empty());
}

#[test]
fn assignor_eager_config_mismatch() {
    let members = vec![member("w1", 10), member("w2", 12)];
    let result = assign_eager(
        "w1",
        &members,
        &ConfiguredWork::new(10).with_connector("x", 1),
    )
    .unwrap();
    assert!(result.is_config_mismatch());
    assert_eq!(result.config_offset, 12);
    for a in result.assignments.values() {
        assert_eq!(a.error, CONFIG_MISMATCH);
        assert_eq!(a.config_offset, 12);
        assert_eq!(a.leader, "w1");
        assert_eq!(a.leader_url, url("w1"));
        assert!(a.is_empty());
        assert!(a.failed());
    }
    // A fresher snapshot (ahead of everyone) is fine and its offset is used.
    let result = assign_eager(
        "w1",
        &members,
        &ConfiguredWork::new(13).with_connector("x", 1),
    )
    .unwrap();
    assert!(!result.is_config_mismatch());
    assert_eq!(result.assignments["w2"].config_offset, 13);
}

#[test]
fn assignor_input_errors() {
    assert_eq!(
        assign_eager("w1", &[], &ConfiguredWork::new(0)),
        Err(AssignorError::NoMembers)
    );
    assert_eq!(
        assign_eager("nobody", &[member("w1", 0)], &ConfiguredWork::new(0)),
        Err(AssignorError::UnknownLeader("nobody".into()))
    );
}

// ---------------------------------------------------------------------------------------------
// Member-side merge

#[test]
fn assignor_apply_assignment_merges_cooperatively() {
    let mut previous = Assignment::new(2, 0, "l".into(), "u".into(), 5);
    previous.connectors = vec!["a".into(), "b".into()];
    previous.tasks = vec![task("a", 0), task("b", 0)];
    let mut received = Assignment::new(2, 0, "l2".into(), "u2".into(), 6);
    received.connectors = vec!["c".into()];
    received.tasks = vec![task("c", 0)];
    received.revoked_connectors = vec!["a".into()];
    received.revoked_tasks = vec![task("b", 0)];
    received.delay = 7;

    let merged = apply_assignment(
        Some(&previous),
        &received,
        ConnectProtocolCompatibility::Compatible,
    );
    assert_eq!(merged.connectors, ["c", "b"]);
    assert_eq!(merged.tasks, [task("c", 0), task("a", 0)]);
    assert_eq!(merged.leader, "l2");
    assert_eq!(merged.config_offset, 6);
    assert_eq!(merged.revoked_connectors, ["a"]);
    assert_eq!(merged.delay, 7);

    assert_eq!(
        apply_assignment(None, &received, ConnectProtocolCompatibility::Sessioned),
        received
    );
    assert_eq!(
        apply_assignment(
            Some(&previous),
            &received,
            ConnectProtocolCompatibility::Eager
        ),
        received
    );

    // A failed (CONFIG_MISMATCH) assignment keeps what the member runs.
    let mismatch = Assignment::config_mismatch(2, "l".into(), "u".into(), 9);
    let kept = apply_assignment(
        Some(&previous),
        &mismatch,
        ConnectProtocolCompatibility::Sessioned,
    );
    assert_eq!(kept.connectors, previous.connectors);
    assert!(kept.failed());
}

// ---------------------------------------------------------------------------------------------
// Incremental cooperative

#[test]
fn assignor_incremental_first_assignment_spreads_evenly() {
    let mut g = Group::new(DEFAULT_DELAY);
    g.add_workers(&["worker2", "worker3"]);
    g.add_connector("connector3", 5);
    g.rebalance();
    assert_eq!(g.delay(), 0);
    g.assert_workers(&["worker1", "worker2", "worker3"]);
    g.assert_no_revocations();
    g.assert_counts(&[1, 1, 1], &[4, 4, 5]);
    g.assert_balanced_and_complete();
    for a in g.last().assignments.values() {
        assert_eq!(a.version, CONNECT_PROTOCOL_V2);
        assert_eq!(a.config_offset, OFFSET);
        assert_eq!(a.leader, "worker1");
        assert_eq!(a.leader_url, url("worker1"));
    }
}

#[test]
fn assignor_incremental_worker_joins() {
    let mut g = Group::new(DEFAULT_DELAY);
    g.rebalance();
    assert_eq!(g.delay(), 0);
    g.assert_workers(&["worker1"]);
    g.assert_counts(&[2], &[8]);
    g.assert_balanced_and_complete();

    // A second worker: revoke half from the first.
    g.add_workers(&["worker2"]);
    g.rebalance();
    assert_eq!(g.delay(), 0);
    g.assert_workers(&["worker1", "worker2"]);
    g.assert_counts(&[0, 1], &[0, 4]);
    let revoked = &g.last().assignments["worker1"];
    assert_eq!(revoked.revoked_connectors.len(), 1);
    assert_eq!(revoked.revoked_tasks.len(), 4);

    // Follow-up round hands out the freed work.
    g.rebalance();
    g.assert_no_revocations();
    assert_eq!(g.delay(), 0);
    g.assert_counts(&[1, 1], &[4, 4]);
    g.assert_balanced_and_complete();

    // Nothing changes afterwards.
    g.rebalance();
    assert_eq!(g.delay(), 0);
    g.assert_empty_assignment();
}

#[test]
fn assignor_incremental_workers_join_after_revocations() {
    let mut g = Group::new(DEFAULT_DELAY);
    g.add_connector("connector3", 4);
    g.rebalance();
    g.assert_counts(&[3], &[12]);
    g.assert_balanced_and_complete();

    g.add_workers(&["worker2"]);
    g.rebalance();
    g.assert_counts(&[0, 2], &[0, 6]);

    // A successive revoking round: backoff, no revocations, freed work still handed out.
    g.add_workers(&["worker3"]);
    g.rebalance();
    assert_eq!(g.delay(), 40);
    g.assert_no_revocations();
    g.assert_counts(&[0, 1, 2], &[3, 3, 6]);

    g.sleep(i64::from(g.delay()));
    g.add_workers(&["worker4"]);
    g.rebalance();
    g.assert_counts(&[0, 0, 1, 1], &[0, 3, 3, 3]);

    // Revoking again right after: the next backoff step.
    g.add_workers(&["worker5"]);
    g.rebalance();
    assert_eq!(g.delay(), 1_600);
    g.assert_counts(&[0, 0, 1, 1, 1], &[1, 2, 3, 3, 3]);

    g.sleep(i64::from(g.delay()));
    g.add_workers(&["worker6"]);
    g.rebalance();
    assert_eq!(g.delay(), 0);
    g.assert_counts(&[0, 0, 0, 1, 1, 1], &[0, 1, 2, 2, 2, 2]);

    g.rebalance();
    g.assert_counts(&[0, 0, 0, 1, 1, 1], &[2, 2, 2, 2, 2, 2]);
    g.assert_balanced_and_complete();
}

#[test]
fn assignor_incremental_immediate_revocations_when_max_delay_is_zero() {
    let mut g = Group::new(0);
    g.add_connector("connector3", 4);
    g.rebalance();
    g.assert_counts(&[3], &[12]);

    g.add_workers(&["worker2"]);
    g.rebalance();
    g.assert_counts(&[0, 2], &[0, 6]);

    // Successive revoking round, but with no delay allowed it revokes right away.
    g.add_workers(&["worker3"]);
    g.rebalance();
    assert_eq!(g.delay(), 0);
    g.assert_counts(&[0, 1, 1], &[3, 3, 4]);

    g.rebalance();
    g.assert_no_revocations();
    g.assert_counts(&[1, 1, 1], &[4, 4, 4]);
    g.assert_balanced_and_complete();
}

#[test]
fn assignor_incremental_successive_revocations_with_max_delay_one() {
    let mut g = Group::new(1);
    g.add_connector("connector3", 4);
    g.rebalance();
    g.add_workers(&["worker2"]);
    g.rebalance();
    g.assert_counts(&[0, 2], &[0, 6]);
    g.add_workers(&["worker3"]);
    g.rebalance();
    assert_eq!(g.delay(), 1);
    g.assert_counts(&[0, 1, 2], &[3, 3, 6]);
}

#[test]
fn assignor_incremental_worker_joining_during_delayed_rebalance() {
    let mut g = Group::new(DEFAULT_DELAY);
    g.add_connector("connector3", 4);
    g.rebalance();
    g.add_workers(&["worker2"]);
    g.rebalance();
    g.assert_counts(&[0, 2], &[0, 6]);

    g.add_workers(&["worker3"]);
    g.rebalance();
    assert!(g.delay() > 0);
    g.assert_no_revocations();
    g.assert_counts(&[0, 1, 2], &[3, 3, 6]);

    // Half-way through the delay another worker joins: still no revocations.
    g.sleep(i64::from(g.delay() / 2));
    g.add_workers(&["worker4"]);
    g.rebalance();
    assert!(g.delay() > 0);
    g.assert_no_revocations();
    g.assert_counts(&[0, 0, 1, 2], &[0, 3, 3, 6]);

    // After the delay: load-balancing revocations.
    g.sleep(i64::from(g.delay()));
    g.add_workers(&["worker5"]);
    g.rebalance();
    assert_eq!(g.delay(), 0);
    g.assert_counts(&[0, 0, 0, 1, 1], &[0, 0, 2, 3, 3]);

    g.rebalance();
    assert_eq!(g.delay(), 0);
    g.assert_no_revocations();
    g.assert_counts(&[0, 0, 1, 1, 1], &[2, 2, 2, 3, 3]);
    g.assert_balanced_and_complete();
}

#[test]
fn assignor_incremental_worker_leaves_permanently() {
    let mut g = Group::new(DEFAULT_DELAY);
    g.add_workers(&["worker2"]);
    g.rebalance();
    g.assert_counts(&[1, 1], &[4, 4]);

    // The follower leaves: its work is held back for the whole delay.
    g.remove_workers(&["worker2"]);
    g.rebalance();
    assert_eq!(g.delay(), DEFAULT_DELAY);
    assert_eq!(
        g.assignor.scheduled_rebalance(),
        g.now + i64::from(DEFAULT_DELAY)
    );
    g.assert_workers(&["worker1"]);
    g.assert_empty_assignment();
    assert_eq!(g.last().assignments["worker1"].delay, DEFAULT_DELAY);

    g.sleep(i64::from(DEFAULT_DELAY / 2));
    g.rebalance();
    assert_eq!(g.delay(), DEFAULT_DELAY / 2);
    g.assert_empty_assignment();

    // Delay expired: the lost work goes to the remaining worker.
    g.sleep(i64::from(DEFAULT_DELAY / 2 + 1));
    g.rebalance();
    assert_eq!(g.delay(), 0);
    g.assert_counts(&[2], &[8]);
    g.assert_balanced_and_complete();
}

#[test]
fn assignor_incremental_worker_bounces() {
    let mut g = Group::new(DEFAULT_DELAY);
    g.add_workers(&["worker2"]);
    g.rebalance();
    let (owned_connectors, owned_tasks) = g.held("worker2");

    g.remove_workers(&["worker2"]);
    g.rebalance();
    assert_eq!(g.delay(), DEFAULT_DELAY);
    g.assert_empty_assignment();

    g.sleep(i64::from(DEFAULT_DELAY / 2));
    g.rebalance();
    assert_eq!(g.delay(), DEFAULT_DELAY / 2);
    g.assert_empty_assignment();

    // The worker returns (empty) while the delay still runs: it becomes a candidate.
    g.sleep(i64::from(DEFAULT_DELAY / 4));
    g.add_workers(&["worker2"]);
    g.rebalance();
    assert_eq!(g.delay(), DEFAULT_DELAY / 4);
    g.assert_workers(&["worker1", "worker2"]);
    g.assert_empty_assignment();
    assert_eq!(g.assignor.candidate_workers(), ["worker2"]);

    // Delay over: the returning worker gets its old work back, nothing is revoked.
    g.sleep(i64::from(DEFAULT_DELAY / 4));
    g.rebalance();
    assert_eq!(g.delay(), 0);
    g.assert_no_revocations();
    g.assert_counts(&[1, 1], &[4, 4]);
    g.assert_balanced_and_complete();
    let (connectors, tasks) = g.held("worker2");
    assert_eq!(
        connectors.iter().collect::<BTreeSet<_>>(),
        owned_connectors.iter().collect::<BTreeSet<_>>()
    );
    assert_eq!(
        tasks.iter().collect::<BTreeSet<_>>(),
        owned_tasks.iter().collect::<BTreeSet<_>>()
    );
    assert!(g.assignor.candidate_workers().is_empty());
}

#[test]
fn assignor_incremental_lost_work_goes_to_candidates_round_robin() {
    let mut g = Group::new(DEFAULT_DELAY);
    g.add_workers(&["worker2", "worker3"]);
    g.add_connector("connector3", 4);
    g.rebalance();
    g.assert_counts(&[1, 1, 1], &[4, 4, 4]);

    g.remove_workers(&["worker3"]);
    g.rebalance();
    assert_eq!(g.delay(), DEFAULT_DELAY);
    assert!(g.assignor.candidate_workers().is_empty());

    // Two new empty workers join during the delay; both become candidates.
    g.sleep(1000);
    g.add_workers(&["worker4", "worker5"]);
    g.rebalance();
    g.assert_empty_assignment();
    let candidates: BTreeSet<String> = g.assignor.candidate_workers().into_iter().collect();
    assert_eq!(
        candidates,
        ["worker4".to_owned(), "worker5".to_owned()]
            .into_iter()
            .collect()
    );

    g.sleep(i64::from(DEFAULT_DELAY));
    g.rebalance();
    assert_eq!(g.delay(), 0);
    // One connector and four tasks were lost: the connector and two tasks to the first candidate,
    // two tasks to the second; the old workers keep theirs.
    let first = g.assignor.candidate_workers();
    assert!(first.is_empty());
    let mut lost_holders = Vec::new();
    for w in ["worker4", "worker5"] {
        let (c, t) = g.held(w);
        lost_holders.push((c.len(), t.len()));
    }
    lost_holders.sort_unstable();
    assert_eq!(lost_holders, [(0, 2), (1, 2)]);
    // In the same round, 12 tasks over 4 workers means 3 each: the old workers give one back.
    g.assert_counts(&[0, 1, 1, 1], &[2, 2, 3, 3]);
    assert_eq!(
        g.last()
            .assignments
            .values()
            .filter(|a| a.revoked_tasks.len() == 1)
            .count(),
        2
    );

    // The follow-up round hands the two freed tasks to the candidates.
    g.rebalance();
    g.assert_no_revocations();
    g.assert_counts(&[0, 1, 1, 1], &[3, 3, 3, 3]);
    g.assert_balanced_and_complete();
}

#[test]
fn assignor_incremental_worker_returns_then_leaves_for_good() {
    let mut g = Group::new(DEFAULT_DELAY);
    g.add_workers(&["worker2", "worker3"]);
    g.rebalance();

    g.remove_workers(&["worker2"]);
    g.rebalance();
    assert_eq!(g.delay(), DEFAULT_DELAY);

    g.sleep(i64::from(DEFAULT_DELAY / 2));
    g.add_workers(&["worker2"]);
    g.rebalance();
    assert_eq!(g.assignor.candidate_workers(), ["worker2"]);

    // The candidate is gone when the delay expires: the lost work is treated as new work.
    g.sleep(i64::from(DEFAULT_DELAY / 2));
    g.remove_workers(&["worker2"]);
    g.rebalance();
    assert_eq!(g.delay(), 0);
    assert!(g.assignor.candidate_workers().is_empty());
    g.assert_counts(&[1, 1], &[4, 4]);
    g.assert_balanced_and_complete();
}

#[test]
fn assignor_incremental_leader_leaves_permanently() {
    let mut g = Group::new(DEFAULT_DELAY);
    g.add_workers(&["worker2", "worker3"]);
    g.rebalance();
    g.assert_counts(&[0, 1, 1], &[2, 3, 3]);
    g.assert_balanced_and_complete();

    // The leader leaves; the new leader starts with an empty view and reassigns immediately.
    g.remove_workers(&["worker1"]);
    g.new_leader();
    g.rebalance();
    assert_eq!(g.delay(), 0);
    g.assert_workers(&["worker2", "worker3"]);
    g.assert_counts(&[1, 1], &[4, 4]);
    g.assert_balanced_and_complete();

    g.rebalance();
    assert_eq!(g.delay(), 0);
    g.assert_empty_assignment();
}

#[test]
fn assignor_incremental_leader_bounces() {
    let mut g = Group::new(DEFAULT_DELAY);
    g.add_workers(&["worker2", "worker3"]);
    g.rebalance();

    g.remove_workers(&["worker1"]);
    g.new_leader();
    g.rebalance();
    g.assert_counts(&[1, 1], &[4, 4]);

    // The old leader returns as a follower, like any new worker: revocation, then follow-up.
    g.add_workers(&["worker1"]);
    g.rebalance();
    assert_eq!(g.delay(), 0);
    g.assert_counts(&[0, 1, 1], &[0, 3, 3]);

    g.rebalance();
    assert_eq!(g.delay(), 0);
    g.assert_no_revocations();
    g.assert_counts(&[0, 1, 1], &[2, 3, 3]);
    g.assert_balanced_and_complete();
}

#[test]
fn assignor_incremental_first_assignment_attempt_fails() {
    let mut g = Group::new(DEFAULT_DELAY);
    g.add_workers(&["worker2"]);
    g.failed_rebalance();
    assert_eq!(g.delay(), 0);
    g.assert_counts(&[0, 0], &[0, 0]);

    // Same members again: the undelivered work counts as lost but nobody left, so no delay.
    g.rebalance();
    assert_eq!(g.delay(), 0);
    g.assert_counts(&[1, 1], &[4, 4]);
    g.assert_balanced_and_complete();
}

#[test]
fn assignor_incremental_subsequent_assignment_attempt_fails() {
    let mut g = Group::new(DEFAULT_DELAY);
    g.add_workers(&["worker2"]);
    g.rebalance();
    g.assert_counts(&[1, 1], &[4, 4]);

    g.add_workers(&["worker3"]);
    g.failed_rebalance();
    assert_eq!(g.delay(), 0);
    g.assert_counts(&[0, 1, 1], &[0, 4, 4]);

    // The revocation never happened; this is a successive revoking round: backoff.
    g.rebalance();
    assert!(g.delay() > 0);
    g.assert_counts(&[0, 1, 1], &[0, 4, 4]);

    g.sleep(i64::from(g.delay()));
    g.rebalance();
    assert_eq!(g.delay(), 0);
    g.assert_counts(&[0, 1, 1], &[0, 3, 3]);

    g.rebalance();
    g.assert_counts(&[0, 1, 1], &[2, 3, 3]);
    g.assert_balanced_and_complete();
}

#[test]
fn assignor_incremental_assignment_fails_outside_the_assignor() {
    let mut g = Group::new(DEFAULT_DELAY);
    g.add_workers(&["worker2"]);
    g.rebalance();

    g.add_workers(&["worker3"]);
    g.failed_rebalance();
    g.assert_counts(&[0, 1, 1], &[0, 4, 4]);

    // The coordinator's last completed generation is older: the leader's view is discarded.
    g.rebalance_with_mismatched_generation();
    assert!(g.delay() > 0);
    g.assert_counts(&[0, 1, 1], &[0, 4, 4]);

    g.sleep(i64::from(g.delay()));
    g.rebalance();
    g.assert_counts(&[0, 1, 1], &[0, 3, 3]);

    g.rebalance();
    g.assert_counts(&[0, 1, 1], &[2, 3, 3]);
    g.assert_balanced_and_complete();
}

#[test]
fn assignor_incremental_deleted_connectors_are_revoked() {
    let mut g = Group::new(DEFAULT_DELAY);
    g.add_connector("connector3", 4);
    g.add_workers(&["worker2"]);
    g.rebalance();
    g.assert_counts(&[1, 2], &[6, 6]);
    g.assert_balanced_and_complete();

    let holder = g
        .members
        .keys()
        .find(|m| g.held(m).0.contains(&"connector3".to_owned()))
        .unwrap()
        .clone();
    g.remove_connector("connector3");
    g.rebalance();
    assert_eq!(g.delay(), 0);
    let a = &g.last().assignments[&holder];
    assert_eq!(a.revoked_connectors, ["connector3"]);
    assert_eq!(
        a.revoked_tasks
            .iter()
            .filter(|t| t.connector == "connector3")
            .count(),
        a.revoked_tasks.len()
    );
    g.assert_counts(&[1, 1], &[4, 4]);
    g.assert_balanced_and_complete();
}

#[test]
fn assignor_incremental_lost_work_reassigned_immediately_when_delay_disabled() {
    let mut g = Group::new(0);
    g.add_workers(&["worker2"]);
    g.rebalance();
    g.assert_counts(&[1, 1], &[4, 4]);

    g.remove_workers(&["worker2"]);
    g.rebalance();
    assert_eq!(g.delay(), 0);
    g.assert_workers(&["worker1"]);
    g.assert_counts(&[2], &[8]);
    g.assert_balanced_and_complete();
}

#[test]
fn assignor_incremental_duplicated_tasks_are_revoked_from_every_holder() {
    let mut g = Group::new(DEFAULT_DELAY);
    g.rebalance();
    g.assert_counts(&[2], &[8]);

    // A worker joins claiming to run connector1 and its tasks, which worker1 also runs.
    let dup_tasks: Vec<TaskId> = (0..4).map(|i| task("connector1", i)).collect();
    g.add_worker_with("worker2", &["connector1"], &dup_tasks);
    g.rebalance();
    assert_eq!(g.delay(), 0);
    for holder in ["worker1", "worker2"] {
        let a = &g.last().assignments[holder];
        assert!(
            a.revoked_connectors.contains(&"connector1".to_owned()),
            "{holder}: {a:?}"
        );
        for t in &dup_tasks {
            assert!(a.revoked_tasks.contains(t), "{holder}: {a:?}");
        }
    }
    g.assert_counts(&[0, 1], &[0, 4]);

    g.rebalance();
    assert_eq!(g.delay(), 0);
    g.assert_no_revocations();
    g.assert_counts(&[1, 1], &[4, 4]);
    g.assert_balanced_and_complete();

    g.rebalance();
    g.assert_empty_assignment();
}

#[test]
fn assignor_incremental_duplicated_assignment_of_deleted_connector() {
    let mut g = Group::new(DEFAULT_DELAY);
    g.rebalance();
    g.assert_counts(&[2], &[8]);

    g.remove_connector("connector1");
    let dup_tasks: Vec<TaskId> = (0..4).map(|i| task("connector1", i)).collect();
    g.add_worker_with("worker2", &["connector1"], &dup_tasks);
    g.rebalance();
    assert_eq!(g.delay(), 0);
    g.assert_counts(&[0, 1], &[0, 2]);

    g.rebalance();
    assert_eq!(g.delay(), 0);
    g.assert_no_revocations();
    g.assert_counts(&[0, 1], &[2, 2]);
    g.assert_balanced_and_complete();

    g.rebalance();
    g.assert_empty_assignment();
}

#[test]
fn assignor_incremental_config_mismatch_changes_nothing() {
    let mut g = Group::new(DEFAULT_DELAY);
    g.add_workers(&["worker2"]);
    g.rebalance();
    let before = g.assignor.previous_generation_id();

    let mut members = g.member_infos();
    members[1].metadata.config_offset = OFFSET + 5;
    let generation = Generation {
        last_completed: g.generation,
        current: g.generation + 1,
    };
    let result = g
        .assignor
        .assign(
            "worker1",
            CONNECT_PROTOCOL_V1,
            &members,
            &g.snapshot(),
            generation,
            g.now,
        )
        .unwrap();
    assert!(result.is_config_mismatch());
    assert_eq!(result.assignments.len(), 2);
    for a in result.assignments.values() {
        assert_eq!(a.version, CONNECT_PROTOCOL_V1);
        assert_eq!(a.error, CONFIG_MISMATCH);
        assert_eq!(a.config_offset, OFFSET + 5);
        assert_eq!(a.leader_url, url("worker1"));
        assert!(a.is_empty());
        assert_eq!(a.delay, 0);
    }
    assert_eq!(g.assignor.previous_generation_id(), before);

    // The leader caught up: a snapshot ahead of the members is used as is.
    let mut snapshot = g.snapshot();
    snapshot.offset = OFFSET + 7;
    let result = g
        .assignor
        .assign(
            "worker1",
            CONNECT_PROTOCOL_V1,
            &members,
            &snapshot,
            generation,
            g.now,
        )
        .unwrap();
    assert!(!result.is_config_mismatch());
    assert!(result
        .assignments
        .values()
        .all(|a| a.config_offset == OFFSET + 7 && a.is_empty()));
}

#[test]
fn assignor_incremental_uses_selected_protocol_version() {
    for version in [CONNECT_PROTOCOL_V1, CONNECT_PROTOCOL_V2] {
        let mut assignor = IncrementalCooperativeAssignor::default();
        let members = vec![member("leader", OFFSET)];
        let result = assignor
            .assign(
                "leader",
                version,
                &members,
                &ConfiguredWork::new(OFFSET),
                Generation {
                    last_completed: -1,
                    current: 1,
                },
                0,
            )
            .unwrap();
        let bytes = result.encode().unwrap();
        assert_eq!(
            decode_assignment(&bytes["leader"]).unwrap().version,
            version
        );
    }
}

#[test]
fn assignor_incremental_leader_state_tracks_owners() {
    let mut g = Group::new(DEFAULT_DELAY);
    g.add_workers(&["worker2"]);
    g.rebalance();
    let state = g.last().leader_state.clone().unwrap();
    for (member, _) in g.members.clone() {
        let (connectors, tasks) = g.held(&member);
        for c in connectors {
            assert_eq!(state.connector_owner_url(&c), Some(url(&member).as_str()));
        }
        for t in tasks {
            assert_eq!(state.task_owner_url(&t), Some(url(&member).as_str()));
        }
    }
}

/// Workers come and go and connectors change; with no delay, a few follow-up rounds always
/// converge to a balanced and complete allocation.
#[test]
fn assignor_incremental_converges_to_balance() {
    let mut g = Group::new(0);
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    let mut worker_seq = 2;
    let mut connector_seq = 3;
    for _ in 0..40 {
        match next(5) {
            0 | 1 => {
                let w = format!("worker{worker_seq}");
                worker_seq += 1;
                g.add_workers(&[w.as_str()]);
            }
            2 if g.members.len() > 1 => {
                let idx = next(g.members.len() as u64) as usize;
                let w = g.members.get_index(idx).unwrap().0.clone();
                g.remove_workers(&[w.as_str()]);
            }
            3 => {
                let c = format!("connector{connector_seq}");
                connector_seq += 1;
                g.add_connector(&c, next(7) as usize);
            }
            _ if g.config.len() > 1 => {
                let idx = next(g.config.len() as u64) as usize;
                let c = g.config.keys().nth(idx).unwrap().clone();
                g.remove_connector(&c);
            }
            _ => {}
        }
        g.sleep(next(100) as i64);
        g.rebalance();
        // Members that received revocations rejoin; a couple of rounds settle everything.
        let mut rounds = 0;
        while g.last().assignments.values().any(|a| a.has_revocations()) {
            g.rebalance();
            rounds += 1;
            assert!(rounds < 5, "no convergence");
        }
        g.rebalance();
        g.assert_balanced_and_complete();
    }
}

/// Java walks members in `HashMap` order, so which of several equally loaded workers gives work
/// back follows the hash of the member ids, not their names or join order.
#[test]
fn assignor_incremental_member_order_follows_java_hash_map() {
    let members: Vec<MemberInfo> = ["b", "a", "c"].iter().map(|m| member(m, 0)).collect();
    let ordered: Vec<&str> = incremental_member_order(&members);
    assert_eq!(ordered, ["a", "b", "c"]); // 'a' = 97, 'b' = 98, 'c' = 99: buckets 1, 2, 3
    let members: Vec<MemberInfo> = ["worker-q", "worker-a"]
        .iter()
        .map(|m| member(m, 0))
        .collect();
    let ordered = incremental_member_order(&members);
    let bucket = |s: &str| {
        let h = crate::protocol::java_string_hash(s) as u32;
        (h ^ (h >> 16)) & 15
    };
    let mut expected = vec!["worker-q", "worker-a"];
    expected.sort_by_key(|m| bucket(m));
    assert_eq!(ordered, expected);
}

fn incremental_member_order(members: &[MemberInfo]) -> Vec<&str> {
    super::incremental::member_order_for_tests(members)
}

// ---------------------------------------------------------------------------------------------
// Differential: the same scenarios through Kafka's own assignor (testdata/protocol-capture/
// AssignorCapture.java) must give every member exactly the same work.

fn json_strings(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_owned())
        .collect()
}

fn json_tasks(v: &serde_json::Value) -> Vec<TaskId> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|p| task(p[0].as_str().unwrap(), p[1].as_u64().unwrap() as usize))
        .collect()
}

fn sorted<T: Ord + Clone>(v: &[T]) -> Vec<T> {
    let mut v = v.to_vec();
    v.sort();
    v
}

#[test]
fn assignor_incremental_matches_java_rounds() {
    let scenarios: serde_json::Value =
        serde_json::from_str(include_str!("../../testdata/protocol/assignor_rounds.json")).unwrap();
    let mut rounds = 0;
    for scenario in scenarios.as_array().unwrap() {
        let name = scenario["name"].as_str().unwrap();
        let max_delay = scenario["max_delay"].as_i64().unwrap() as i32;
        let mut g = Group::empty(max_delay, scenario["start_ms"].as_i64().unwrap());
        for (i, step) in scenario["steps"].as_array().unwrap().iter().enumerate() {
            let at = format!("{name}, step {i}");
            match step["op"].as_str().unwrap() {
                "add_worker" => g.add_workers(&[step["worker"].as_str().unwrap()]),
                "add_worker_with" => {
                    let connectors = json_strings(&step["connectors"]);
                    let connectors: Vec<&str> = connectors.iter().map(String::as_str).collect();
                    g.add_worker_with(
                        step["worker"].as_str().unwrap(),
                        &connectors,
                        &json_tasks(&step["tasks"]),
                    );
                }
                "remove_worker" => g.remove_workers(&[step["worker"].as_str().unwrap()]),
                "add_connector" => g.add_connector(
                    step["connector"].as_str().unwrap(),
                    step["tasks"].as_u64().unwrap() as usize,
                ),
                "remove_connector" => g.remove_connector(step["connector"].as_str().unwrap()),
                "sleep" => g.sleep(step["ms"].as_i64().unwrap()),
                "new_leader" => g.new_leader(),
                "rebalance" => {
                    rounds += 1;
                    match step["mode"].as_str().unwrap() {
                        "standard" => g.rebalance(),
                        "failed" => g.failed_rebalance(),
                        "mismatch" => g.rebalance_with_mismatched_generation(),
                        other => panic!("{at}: unknown mode {other}"),
                    }
                    assert_eq!(
                        i64::from(g.delay()),
                        step["delay"].as_i64().unwrap(),
                        "{at}: delay"
                    );
                    assert_eq!(
                        g.assignor.scheduled_rebalance(),
                        step["scheduled_rebalance"].as_i64().unwrap(),
                        "{at}: scheduled rebalance"
                    );
                    let expected = step["members"].as_object().unwrap();
                    let count = step["member_count"].as_u64().unwrap() as usize;
                    assert_eq!(g.last().assignments.len(), count, "{at}: members");
                    for (member, got) in &g.last().assignments {
                        assert!(
                            expected.contains_key(member) || got.is_empty(),
                            "{at}: {member} got {got:?}"
                        );
                    }
                    for (member, want) in expected {
                        let got = &g.last().assignments[member];
                        assert_eq!(
                            got.connectors,
                            json_strings(&want["connectors"]),
                            "{at}: {member} connectors"
                        );
                        assert_eq!(
                            got.tasks,
                            json_tasks(&want["tasks"]),
                            "{at}: {member} tasks"
                        );
                        assert_eq!(
                            sorted(&got.revoked_connectors),
                            sorted(&json_strings(&want["revoked_connectors"])),
                            "{at}: {member} revoked connectors"
                        );
                        assert_eq!(
                            sorted(&got.revoked_tasks),
                            sorted(&json_tasks(&want["revoked_tasks"])),
                            "{at}: {member} revoked tasks"
                        );
                    }
                }
                other => panic!("{at}: unknown op {other}"),
            }
        }
    }
    assert!(rounds > 100, "only {rounds} rounds replayed");
}
