//! The config topic reader's state machine (Java's `KafkaConfigBackingStore` consume callback and
//! its `ClusterConfigState` snapshots).
//!
//! Records are applied in topic order with [`ConfigState::apply`] (or [`ConfigState::apply_raw`]
//! for undecoded records). Connector configs and target states take effect at once; task configs
//! are buffered per connector until a `commit-<name>` record says how many tasks there are, and are
//! only applied when the buffer holds every index below that count — otherwise the connector is
//! *inconsistent* and reports no tasks until a later complete commit.
//!
//! Events: Java tells its listener nothing while the store is catching up at start-up. Here too,
//! every [`ConfigEvent`] is produced only after [`ConfigState::mark_started`] (call it once the
//! first read to the end of the topic has finished); the state itself is updated either way.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use ferry_api::ConfigMap;
use ferry_runtime::status::TaskId;
use ferry_runtime::worker::TargetState;

use super::records::{
    to_config_map, ConfigRecord, ConfigRecordError, ConnectorRestart, SessionKey, COMMIT_PREFIX,
};

/// What a record changed, for the herder. Produced only once the state has been marked started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigEvent {
    /// A connector config was written (created or updated).
    ConnectorConfigUpdated(String),
    /// A connector config tombstone: the connector was deleted.
    ConnectorRemoved(String),
    /// A commit record was read; these tasks got new configs (possibly none, e.g. a commit of zero
    /// tasks or an incomplete set). Sorted.
    TaskConfigsUpdated(Vec<TaskId>),
    /// A connector's target state changed (only reported when the connector has a config).
    TargetStateChanged(String),
    /// A restart request written after this worker started.
    RestartRequested(ConnectorRestart),
    /// A new session key.
    SessionKeyUpdated(SessionKey),
    /// A cluster-wide log level change (KIP-976).
    LoggerLevel { namespace: String, level: String },
}

/// The reader's mutable state. Build it with [`ConfigState::new`], feed it every record of the
/// config topic in order, and hand out [`ClusterConfigSnapshot`]s.
#[derive(Debug, Clone)]
pub struct ConfigState {
    started: bool,
    /// Offset of the last record read + 1; -1 before any.
    offset: i64,
    session_key: Option<SessionKey>,
    connector_configs: BTreeMap<String, Arc<ConfigMap>>,
    target_states: BTreeMap<String, TargetState>,
    task_configs: BTreeMap<TaskId, Arc<ConfigMap>>,
    task_counts: BTreeMap<String, usize>,
    /// Task configs read since the connector's last commit. An entry, once created, stays (empty)
    /// after a commit until the connector is removed: Java bumps the task-config generation only
    /// for connectors that have such an entry.
    deferred: BTreeMap<String, BTreeMap<usize, Arc<ConfigMap>>>,
    inconsistent: BTreeSet<String>,
    task_count_records: BTreeMap<String, usize>,
    task_config_generations: BTreeMap<String, u64>,
    applied_configs: BTreeMap<String, Arc<ConfigMap>>,
    pending_fencing: BTreeSet<String>,
    /// KIP-976: the latest cluster-wide level per logger namespace.
    logger_levels: BTreeMap<String, String>,
}

impl Default for ConfigState {
    fn default() -> Self {
        ConfigState::new()
    }
}

impl ConfigState {
    pub fn new() -> Self {
        ConfigState {
            started: false,
            offset: -1,
            session_key: None,
            connector_configs: BTreeMap::new(),
            target_states: BTreeMap::new(),
            task_configs: BTreeMap::new(),
            task_counts: BTreeMap::new(),
            deferred: BTreeMap::new(),
            inconsistent: BTreeSet::new(),
            task_count_records: BTreeMap::new(),
            task_config_generations: BTreeMap::new(),
            applied_configs: BTreeMap::new(),
            pending_fencing: BTreeSet::new(),
            logger_levels: BTreeMap::new(),
        }
    }

    /// The cluster-wide logger levels read so far, namespace to level (KIP-976).
    pub fn logger_levels(&self) -> &BTreeMap<String, String> {
        &self.logger_levels
    }

    /// From now on records produce [`ConfigEvent`]s. Call once the first catch-up is done.
    pub fn mark_started(&mut self) {
        self.started = true;
    }

    pub fn is_started(&self) -> bool {
        self.started
    }

    /// Offset of the last record applied + 1 (-1 before any record).
    pub fn offset(&self) -> i64 {
        self.offset
    }

    /// Whether the connector has a config.
    pub fn contains(&self, connector: &str) -> bool {
        self.connector_configs.contains_key(connector)
    }

    /// Parses and applies one raw record, as Java's consume callback does: a value that is not
    /// JSON is logged and skipped *without* moving the offset; any other unusable record (or an
    /// unknown key) is logged and skipped but moves the offset. One more quirk is kept: a
    /// malformed `commit-<name>` record for a connector with no config still clears whatever is
    /// left of that connector.
    pub fn apply_raw(&mut self, offset: i64, key: &str, value: Option<&[u8]>) -> Vec<ConfigEvent> {
        match ConfigRecord::parse(key, value) {
            Ok(Some(record)) => self.apply(offset, record),
            Ok(None) => {
                self.offset = offset + 1;
                Vec::new()
            }
            Err(e @ ConfigRecordError::Json { .. }) => {
                tracing::error!(offset, "skipping config topic record: {e}");
                Vec::new()
            }
            Err(e) => {
                tracing::error!(offset, "skipping config topic record: {e}");
                self.offset = offset + 1;
                if let Some(connector) = key.strip_prefix(COMMIT_PREFIX) {
                    if !self.connector_configs.contains_key(connector) {
                        self.remove_connector(connector);
                    }
                }
                Vec::new()
            }
        }
    }

    /// Applies one record read at `offset`; returns what the herder should hear about (nothing
    /// before [`ConfigState::mark_started`]).
    pub fn apply(&mut self, offset: i64, record: ConfigRecord) -> Vec<ConfigEvent> {
        self.offset = offset + 1;
        let mut events = Vec::new();
        match record {
            ConfigRecord::ConnectorConfig {
                connector,
                config: Some(config),
            } => {
                tracing::debug!(connector, "connector config updated");
                self.connector_configs
                    .insert(connector.clone(), Arc::new(to_config_map(&config)));
                // Connectors created before target states existed start STARTED.
                self.target_states
                    .entry(connector.clone())
                    .or_insert(TargetState::Started);
                events.push(ConfigEvent::ConnectorConfigUpdated(connector));
            }
            ConfigRecord::ConnectorConfig {
                connector,
                config: None,
            } => {
                tracing::debug!(connector, "connector removed");
                self.remove_connector(&connector);
                events.push(ConfigEvent::ConnectorRemoved(connector));
            }
            ConfigRecord::TargetState {
                connector,
                state: None,
            } => {
                // Written when a connector is deleted; the config tombstone does the notifying.
                self.target_states.remove(&connector);
                if self.connector_configs.contains_key(&connector) {
                    self.target_states.insert(connector, TargetState::Started);
                }
            }
            ConfigRecord::TargetState {
                connector,
                state: Some(state),
            } => {
                let previous = self.target_states.insert(connector.clone(), state);
                // A target state may come before its connector's config (an initial state given
                // at creation); it is kept, but nobody is told until the config exists.
                if previous != Some(state) && self.connector_configs.contains_key(&connector) {
                    events.push(ConfigEvent::TargetStateChanged(connector));
                }
            }
            ConfigRecord::TaskConfig { id, config } => {
                self.deferred
                    .entry(id.connector)
                    .or_default()
                    .insert(id.task, Arc::new(to_config_map(&config)));
            }
            ConfigRecord::Commit { connector, tasks } => {
                if let Some(updated) = self.commit(&connector, tasks) {
                    events.push(ConfigEvent::TaskConfigsUpdated(updated));
                }
            }
            ConfigRecord::TaskCount {
                connector,
                task_count,
            } => {
                self.task_count_records
                    .insert(connector.clone(), task_count);
                self.pending_fencing.remove(&connector);
            }
            ConfigRecord::SessionKey(key) => {
                self.session_key = Some(key.clone());
                events.push(ConfigEvent::SessionKeyUpdated(key));
            }
            ConfigRecord::RestartRequest(request) => {
                // Stateless: a request replayed during the start-up catch-up is simply dropped.
                events.push(ConfigEvent::RestartRequested(request));
            }
            ConfigRecord::LoggerLevel { namespace, level } => {
                self.logger_levels.insert(namespace.clone(), level.clone());
                events.push(ConfigEvent::LoggerLevel { namespace, level });
            }
        }
        if self.started {
            events
        } else {
            Vec::new()
        }
    }

    /// A commit record. `None` when it was ignored (no config for the connector); otherwise the
    /// task ids that got new configs.
    fn commit(&mut self, connector: &str, tasks: usize) -> Option<Vec<TaskId>> {
        let Some(config) = self.connector_configs.get(connector).cloned() else {
            // The connector was deleted and compaction removed both its config and the
            // tombstone: these task configs belong to nothing.
            tracing::debug!(
                connector,
                "ignoring task configs of a connector that no longer exists"
            );
            self.remove_connector(connector);
            return None;
        };
        let mut updated = Vec::new();
        let deferred = self.deferred.get_mut(connector);
        // Complete when every index below the count is there; extra (higher) indices are fine:
        // compaction can leave stale ones behind.
        let complete = (0..tasks).all(|i| deferred.as_ref().is_some_and(|d| d.contains_key(&i)));
        if complete {
            if let Some(deferred) = deferred {
                for (task, task_config) in std::mem::take(deferred) {
                    let id = TaskId {
                        connector: connector.to_owned(),
                        task,
                    };
                    self.task_configs.insert(id.clone(), task_config);
                    updated.push(id);
                }
                self.task_config_generations
                    .entry(connector.to_owned())
                    .and_modify(|g| *g += 1)
                    .or_insert(0);
            }
            self.inconsistent.remove(connector);
            self.applied_configs.insert(connector.to_owned(), config);
        } else {
            tracing::debug!(
                connector,
                tasks,
                "incomplete set of task configs (probably compaction); the connector is inconsistent"
            );
            self.inconsistent.insert(connector.to_owned());
            // Whatever was buffered is stale now: a later commit must come with a fresh set.
            if let Some(deferred) = deferred {
                deferred.clear();
            }
        }
        self.task_counts.insert(connector.to_owned(), tasks);
        // Task configs newer than the last task count record need a round of zombie fencing.
        self.pending_fencing.insert(connector.to_owned());
        Some(updated)
    }

    /// Forgets a connector's config, task count, task configs, buffered task configs and applied
    /// config. Its target state, task count record, generation and fencing flag stay, as in Java.
    fn remove_connector(&mut self, connector: &str) {
        self.connector_configs.remove(connector);
        self.task_counts.remove(connector);
        self.task_configs.retain(|id, _| id.connector != connector);
        self.deferred.remove(connector);
        self.applied_configs.remove(connector);
    }

    /// An immutable copy of the current state (connector and task config maps are shared).
    pub fn snapshot(&self) -> ClusterConfigSnapshot {
        ClusterConfigSnapshot {
            inner: Arc::new(SnapshotInner {
                offset: self.offset,
                session_key: self.session_key.clone(),
                connector_configs: self.connector_configs.clone(),
                target_states: self.target_states.clone(),
                task_configs: self.task_configs.clone(),
                task_counts: self.task_counts.clone(),
                inconsistent: self.inconsistent.clone(),
                task_count_records: self.task_count_records.clone(),
                task_config_generations: self.task_config_generations.clone(),
                applied_configs: self.applied_configs.clone(),
                pending_fencing: self.pending_fencing.clone(),
            }),
        }
    }
}

#[derive(Debug)]
struct SnapshotInner {
    offset: i64,
    session_key: Option<SessionKey>,
    connector_configs: BTreeMap<String, Arc<ConfigMap>>,
    target_states: BTreeMap<String, TargetState>,
    task_configs: BTreeMap<TaskId, Arc<ConfigMap>>,
    task_counts: BTreeMap<String, usize>,
    inconsistent: BTreeSet<String>,
    task_count_records: BTreeMap<String, usize>,
    task_config_generations: BTreeMap<String, u64>,
    applied_configs: BTreeMap<String, Arc<ConfigMap>>,
    pending_fencing: BTreeSet<String>,
}

/// The cluster's configuration at one config topic offset (Java's `ClusterConfigState`). Cheap to
/// clone.
#[derive(Debug, Clone)]
pub struct ClusterConfigSnapshot {
    inner: Arc<SnapshotInner>,
}

impl Default for ClusterConfigSnapshot {
    /// The empty state at offset -1.
    fn default() -> Self {
        ConfigState::new().snapshot()
    }
}

impl ClusterConfigSnapshot {
    /// Offset of the last record read + 1 (-1 when nothing was read).
    pub fn offset(&self) -> i64 {
        self.inner.offset
    }

    pub fn session_key(&self) -> Option<&SessionKey> {
        self.inner.session_key.as_ref()
    }

    /// Whether the connector exists (has a config).
    pub fn contains(&self, connector: &str) -> bool {
        self.inner.connector_configs.contains_key(connector)
    }

    /// Every connector with a config, sorted.
    pub fn connectors(&self) -> Vec<String> {
        self.inner.connector_configs.keys().cloned().collect()
    }

    /// The connector's config (null-valued keys left out).
    pub fn connector_config(&self, connector: &str) -> Option<&ConfigMap> {
        self.inner.connector_configs.get(connector).map(|c| &**c)
    }

    /// The connector config in force when its current task configs were committed.
    pub fn applied_config(&self, connector: &str) -> Option<&ConfigMap> {
        self.inner.applied_configs.get(connector).map(|c| &**c)
    }

    pub fn target_state(&self, connector: &str) -> Option<TargetState> {
        self.inner.target_states.get(connector).copied()
    }

    /// A committed task config. Configs of tasks at or above the current task count can linger
    /// here, as in Java; [`ClusterConfigSnapshot::tasks`] is the list that counts.
    pub fn task_config(&self, id: &TaskId) -> Option<&ConfigMap> {
        self.inner.task_configs.get(id).map(|c| &**c)
    }

    /// The task count of the connector's last commit, `None` if it has none.
    pub fn task_count(&self, connector: &str) -> Option<usize> {
        self.inner.task_counts.get(connector).copied()
    }

    /// `<name>-0 … <name>-(n-1)` for the last commit's count; empty when the connector is
    /// inconsistent or has no commit.
    pub fn tasks(&self, connector: &str) -> Vec<TaskId> {
        if self.inner.inconsistent.contains(connector) {
            return Vec::new();
        }
        let n = self.task_count(connector).unwrap_or(0);
        (0..n)
            .map(|task| TaskId {
                connector: connector.to_owned(),
                task,
            })
            .collect()
    }

    /// Whether the connector's last commit came with an incomplete set of task configs.
    pub fn is_inconsistent(&self, connector: &str) -> bool {
        self.inner.inconsistent.contains(connector)
    }

    /// Every inconsistent connector, sorted.
    pub fn inconsistent_connectors(&self) -> Vec<String> {
        self.inner.inconsistent.iter().cloned().collect()
    }

    /// The task count from the connector's last `tasks-fencing-` record (exactly-once source).
    pub fn task_count_record(&self, connector: &str) -> Option<usize> {
        self.inner.task_count_records.get(connector).copied()
    }

    /// 0 after the connector's first applied commit, +1 for each later one.
    pub fn task_config_generation(&self, connector: &str) -> Option<u64> {
        self.inner.task_config_generations.get(connector).copied()
    }

    /// Whether task configs were committed after the connector's last task count record, so its
    /// tasks need a round of zombie fencing first (exactly-once source).
    pub fn pending_fencing(&self, connector: &str) -> bool {
        self.inner.pending_fencing.contains(connector)
    }
}

#[cfg(test)]
mod tests {
    use super::super::records::RawConfig;
    use super::*;

    fn tid(c: &str, t: usize) -> TaskId {
        TaskId {
            connector: c.into(),
            task: t,
        }
    }

    fn raw(pairs: &[(&str, &str)]) -> RawConfig {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), Some(v.to_string())))
            .collect()
    }

    fn conn(name: &str, pairs: &[(&str, &str)]) -> ConfigRecord {
        ConfigRecord::ConnectorConfig {
            connector: name.into(),
            config: Some(raw(pairs)),
        }
    }

    fn task(name: &str, t: usize, v: &str) -> ConfigRecord {
        ConfigRecord::TaskConfig {
            id: tid(name, t),
            config: raw(&[("v", v)]),
        }
    }

    fn commit(name: &str, n: usize) -> ConfigRecord {
        ConfigRecord::Commit {
            connector: name.into(),
            tasks: n,
        }
    }

    fn target(name: &str, s: Option<TargetState>) -> ConfigRecord {
        ConfigRecord::TargetState {
            connector: name.into(),
            state: s,
        }
    }

    /// Applies records at consecutive offsets from the state's current offset.
    fn feed(state: &mut ConfigState, records: Vec<ConfigRecord>) -> Vec<ConfigEvent> {
        let mut events = Vec::new();
        for r in records {
            let offset = state.offset().max(0);
            events.extend(state.apply(offset, r));
        }
        events
    }

    #[test]
    fn offsets_and_start() {
        let mut s = ConfigState::new();
        assert_eq!(s.offset(), -1);
        assert_eq!(s.snapshot().offset(), -1);
        assert_eq!(ClusterConfigSnapshot::default().offset(), -1);
        assert!(s.apply(0, conn("a", &[("k", "v")])).is_empty());
        assert_eq!(s.offset(), 1);
        assert!(s.apply(7, commit("a", 0)).is_empty());
        assert_eq!(s.snapshot().offset(), 8);
        s.mark_started();
        assert!(s.is_started());
        assert_eq!(
            s.apply(8, conn("a", &[("k", "w")])),
            vec![ConfigEvent::ConnectorConfigUpdated("a".into())]
        );
    }

    #[test]
    fn connector_config_sets_started_and_tombstone_removes_everything() {
        let mut s = ConfigState::new();
        s.mark_started();
        let ev = feed(
            &mut s,
            vec![
                conn("a", &[("k", "v")]),
                task("a", 0, "x"),
                commit("a", 1),
                task("a", 1, "stale"),
            ],
        );
        assert_eq!(
            ev,
            vec![
                ConfigEvent::ConnectorConfigUpdated("a".into()),
                ConfigEvent::TaskConfigsUpdated(vec![tid("a", 0)]),
            ]
        );
        let snap = s.snapshot();
        assert_eq!(snap.target_state("a"), Some(TargetState::Started));
        assert_eq!(snap.tasks("a"), vec![tid("a", 0)]);
        assert_eq!(snap.task_config(&tid("a", 0)).unwrap()["v"], "x");
        assert_eq!(snap.applied_config("a").unwrap()["k"], "v");
        assert_eq!(snap.task_config_generation("a"), Some(0));

        let ev = feed(
            &mut s,
            vec![
                ConfigRecord::ConnectorConfig {
                    connector: "a".into(),
                    config: None,
                },
                target("a", None),
            ],
        );
        assert_eq!(ev, vec![ConfigEvent::ConnectorRemoved("a".into())]);
        let snap = s.snapshot();
        assert!(!snap.contains("a"));
        assert!(snap.connectors().is_empty());
        assert_eq!(snap.task_count("a"), None);
        assert!(snap.tasks("a").is_empty());
        assert!(snap.task_config(&tid("a", 0)).is_none());
        assert!(snap.applied_config("a").is_none());
        assert_eq!(snap.target_state("a"), None);
        // The old snapshot is unaffected.
        assert!(s.snapshot().connector_config("a").is_none());
    }

    #[test]
    fn null_config_values_are_left_out() {
        let mut s = ConfigState::new();
        let mut config = raw(&[("a", "1")]);
        config.insert("b".into(), None);
        s.apply(
            0,
            ConfigRecord::ConnectorConfig {
                connector: "c".into(),
                config: Some(config),
            },
        );
        let snap = s.snapshot();
        let c = snap.connector_config("c").unwrap();
        assert_eq!(c.len(), 1);
        assert!(!c.contains_key("b"));
    }

    #[test]
    fn target_states() {
        let mut s = ConfigState::new();
        s.mark_started();
        // Before the config: kept, no event; the config then keeps it.
        let ev = feed(
            &mut s,
            vec![target("a", Some(TargetState::Stopped)), conn("a", &[])],
        );
        assert_eq!(ev, vec![ConfigEvent::ConnectorConfigUpdated("a".into())]);
        assert_eq!(s.snapshot().target_state("a"), Some(TargetState::Stopped));
        // Changes notify; repeating the same state does not.
        let ev = feed(
            &mut s,
            vec![
                target("a", Some(TargetState::Paused)),
                target("a", Some(TargetState::Paused)),
                target("a", Some(TargetState::Started)),
            ],
        );
        assert_eq!(
            ev,
            vec![
                ConfigEvent::TargetStateChanged("a".into()),
                ConfigEvent::TargetStateChanged("a".into())
            ]
        );
        // A tombstone while the config exists puts STARTED back, silently.
        feed(&mut s, vec![target("a", Some(TargetState::Paused))]);
        let ev = feed(&mut s, vec![target("a", None)]);
        assert!(ev.is_empty());
        assert_eq!(s.snapshot().target_state("a"), Some(TargetState::Started));
        // A tombstone without a config removes it.
        let ev = feed(
            &mut s,
            vec![target("b", Some(TargetState::Paused)), target("b", None)],
        );
        assert!(ev.is_empty());
        assert_eq!(s.snapshot().target_state("b"), None);
    }

    #[test]
    fn deferred_task_configs_and_completeness() {
        let mut s = ConfigState::new();
        s.mark_started();
        feed(&mut s, vec![conn("a", &[("gen", "1")])]);
        // Task configs alone change nothing.
        assert!(feed(&mut s, vec![task("a", 0, "x0"), task("a", 1, "x1")]).is_empty());
        assert!(s.snapshot().tasks("a").is_empty());
        assert!(s.snapshot().task_config(&tid("a", 0)).is_none());
        // Incomplete commit: inconsistent, no tasks, buffer dropped.
        let ev = feed(&mut s, vec![commit("a", 3)]);
        assert_eq!(ev, vec![ConfigEvent::TaskConfigsUpdated(vec![])]);
        let snap = s.snapshot();
        assert!(snap.is_inconsistent("a"));
        assert_eq!(snap.inconsistent_connectors(), vec!["a"]);
        assert!(snap.tasks("a").is_empty());
        assert_eq!(snap.task_count("a"), Some(3));
        assert!(snap.task_config(&tid("a", 0)).is_none());
        assert_eq!(snap.task_config_generation("a"), None);
        assert!(snap.applied_config("a").is_none());
        // The buffer was emptied: re-committing without new task configs stays inconsistent.
        feed(&mut s, vec![commit("a", 2)]);
        assert!(s.snapshot().is_inconsistent("a"));
        // A complete set with an extra, higher index (compaction leftovers) is fine.
        let ev = feed(
            &mut s,
            vec![
                task("a", 2, "old"),
                task("a", 0, "y0"),
                task("a", 1, "y1"),
                commit("a", 2),
            ],
        );
        assert_eq!(
            ev,
            vec![ConfigEvent::TaskConfigsUpdated(vec![
                tid("a", 0),
                tid("a", 1),
                tid("a", 2)
            ])]
        );
        let snap = s.snapshot();
        assert!(!snap.is_inconsistent("a"));
        assert_eq!(snap.tasks("a"), vec![tid("a", 0), tid("a", 1)]);
        assert_eq!(snap.task_config(&tid("a", 1)).unwrap()["v"], "y1");
        assert_eq!(snap.task_config(&tid("a", 2)).unwrap()["v"], "old"); // lingers, unused
        assert_eq!(snap.task_config_generation("a"), Some(0));
        assert_eq!(snap.applied_config("a").unwrap()["gen"], "1");
        // Config change: the applied config only moves with the next complete commit.
        feed(&mut s, vec![conn("a", &[("gen", "2")])]);
        assert_eq!(s.snapshot().applied_config("a").unwrap()["gen"], "1");
        // A commit of zero tasks (stop): complete, generation +1 (the connector has a buffer).
        let ev = feed(&mut s, vec![commit("a", 0)]);
        assert_eq!(ev, vec![ConfigEvent::TaskConfigsUpdated(vec![])]);
        let snap = s.snapshot();
        assert!(snap.tasks("a").is_empty());
        assert_eq!(snap.task_count("a"), Some(0));
        assert_eq!(snap.task_config_generation("a"), Some(1));
        assert_eq!(snap.applied_config("a").unwrap()["gen"], "2");
    }

    #[test]
    fn zero_task_commit_without_any_task_config_keeps_no_generation() {
        let mut s = ConfigState::new();
        feed(&mut s, vec![conn("a", &[]), commit("a", 0)]);
        let snap = s.snapshot();
        assert_eq!(snap.task_count("a"), Some(0));
        assert!(!snap.is_inconsistent("a"));
        assert_eq!(snap.task_config_generation("a"), None);
        assert!(snap.applied_config("a").is_some());
    }

    #[test]
    fn commit_for_unknown_connector_clears_traces() {
        let mut s = ConfigState::new();
        s.mark_started();
        let ev = feed(&mut s, vec![task("gone", 0, "x"), commit("gone", 1)]);
        assert!(ev.is_empty());
        let snap = s.snapshot();
        assert_eq!(snap.task_count("gone"), None);
        assert!(snap.task_config(&tid("gone", 0)).is_none());
        assert!(!snap.pending_fencing("gone"));
        // The buffer was dropped too: a later config plus a bare commit is inconsistent.
        feed(&mut s, vec![conn("gone", &[]), commit("gone", 1)]);
        assert!(s.snapshot().is_inconsistent("gone"));
    }

    #[test]
    fn fencing_and_task_count_records() {
        let mut s = ConfigState::new();
        feed(
            &mut s,
            vec![conn("a", &[]), task("a", 0, "x"), commit("a", 1)],
        );
        assert!(s.snapshot().pending_fencing("a"));
        feed(
            &mut s,
            vec![ConfigRecord::TaskCount {
                connector: "a".into(),
                task_count: 1,
            }],
        );
        let snap = s.snapshot();
        assert!(!snap.pending_fencing("a"));
        assert_eq!(snap.task_count_record("a"), Some(1));
    }

    #[test]
    fn events_only_after_start() {
        let key = SessionKey {
            key: vec![1, 2, 3],
            algorithm: "HmacSHA256".into(),
            creation_timestamp: 42,
        };
        let restart = ConnectorRestart {
            connector: "a".into(),
            include_tasks: true,
            only_failed: true,
        };
        let records = vec![
            conn("a", &[]),
            ConfigRecord::SessionKey(key.clone()),
            ConfigRecord::RestartRequest(restart.clone()),
            ConfigRecord::LoggerLevel {
                namespace: "org.x".into(),
                level: "DEBUG".into(),
            },
            target("a", Some(TargetState::Paused)),
            task("a", 0, "x"),
            commit("a", 1),
            ConfigRecord::ConnectorConfig {
                connector: "a".into(),
                config: None,
            },
        ];
        let mut before = ConfigState::new();
        assert!(feed(&mut before, records.clone()).is_empty());
        assert_eq!(before.snapshot().session_key(), Some(&key));

        let mut after = ConfigState::new();
        after.mark_started();
        assert_eq!(
            feed(&mut after, records),
            vec![
                ConfigEvent::ConnectorConfigUpdated("a".into()),
                ConfigEvent::SessionKeyUpdated(key.clone()),
                ConfigEvent::RestartRequested(restart),
                ConfigEvent::LoggerLevel {
                    namespace: "org.x".into(),
                    level: "DEBUG".into()
                },
                ConfigEvent::TargetStateChanged("a".into()),
                ConfigEvent::TaskConfigsUpdated(vec![tid("a", 0)]),
                ConfigEvent::ConnectorRemoved("a".into()),
            ]
        );
        assert_eq!(after.snapshot().session_key(), Some(&key));
    }

    #[test]
    fn apply_raw_offsets_and_quirks() {
        let mut s = ConfigState::new();
        s.mark_started();
        // Not JSON: skipped without moving the offset.
        assert!(s.apply_raw(0, "connector-a", Some(b"{oops")).is_empty());
        assert_eq!(s.offset(), -1);
        // Unknown key: skipped, offset moves.
        assert!(s.apply_raw(1, "whatever", Some(b"{}")).is_empty());
        assert_eq!(s.offset(), 2);
        // Invalid value: skipped, offset moves.
        assert!(s
            .apply_raw(2, "commit-a", Some(br#"{"tasks":"x"}"#))
            .is_empty());
        assert_eq!(s.offset(), 3);
        // Good records.
        let ev = s.apply_raw(3, "connector-a", Some(br#"{"properties":{"k":"v"}}"#));
        assert_eq!(ev, vec![ConfigEvent::ConnectorConfigUpdated("a".into())]);
        assert_eq!(s.offset(), 4);
        // A malformed commit for a connector without config still clears its buffered tasks.
        s.apply_raw(4, "task-b-0", Some(br#"{"properties":{}}"#));
        s.apply_raw(5, "commit-b", None);
        s.apply_raw(6, "connector-b", Some(br#"{"properties":{}}"#));
        s.apply_raw(7, "commit-b", Some(br#"{"tasks":1}"#));
        assert!(s.snapshot().is_inconsistent("b"));
    }
}
