//! Keys and values of the config topic (Java's `KafkaConfigBackingStore` record formats).
//!
//! Keys are plain strings; values are schemaless JSON written by Java's `JsonConverter`. The
//! reader recognises key prefixes in Java's order — `target-state-`, `connector-`, `task-`,
//! `commit-`, `restart-connector-`, `tasks-fencing-`, the exact key `session-key`, then
//! `logger-cluster-` — and ignores any other key (with a log line).
//!
//! [`ConfigRecord::encode`] writes the exact bytes Java writes for the same record (field order,
//! compact output, Jackson's string escaping; see [`super::json`]).

use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig, STANDARD};
use base64::engine::DecodePaddingMode;
use base64::Engine as _;
use ferry_api::ConfigMap;
use ferry_runtime::herder::RestartRequest;
use ferry_runtime::status::TaskId;
use ferry_runtime::worker::TargetState;
use indexmap::IndexMap;
use serde_json::{Map, Value};

use super::json::{self, JsonOut};

pub const TARGET_STATE_PREFIX: &str = "target-state-";
pub const CONNECTOR_PREFIX: &str = "connector-";
pub const TASK_PREFIX: &str = "task-";
pub const COMMIT_PREFIX: &str = "commit-";
pub const RESTART_PREFIX: &str = "restart-connector-";
pub const TASK_COUNT_PREFIX: &str = "tasks-fencing-";
pub const SESSION_KEY_KEY: &str = "session-key";
pub const LOGGER_CLUSTER_PREFIX: &str = "logger-cluster-";

/// A connector or task config exactly as stored: Java's map is string → optional string (a value
/// may be JSON `null`), and its order is the writer's iteration order, kept here so a record can be
/// written back byte for byte. [`to_config_map`] turns it into Ferry's `ConfigMap`.
pub type RawConfig = IndexMap<String, Option<String>>;

/// `connector-<name>`
pub fn connector_key(connector: &str) -> String {
    format!("{CONNECTOR_PREFIX}{connector}")
}

/// `task-<name>-<N>`
pub fn task_key(id: &TaskId) -> String {
    format!("{TASK_PREFIX}{}-{}", id.connector, id.task)
}

/// `commit-<name>`
pub fn commit_key(connector: &str) -> String {
    format!("{COMMIT_PREFIX}{connector}")
}

/// `target-state-<name>`
pub fn target_state_key(connector: &str) -> String {
    format!("{TARGET_STATE_PREFIX}{connector}")
}

/// `restart-connector-<name>`
pub fn restart_key(connector: &str) -> String {
    format!("{RESTART_PREFIX}{connector}")
}

/// `tasks-fencing-<name>`
pub fn task_count_key(connector: &str) -> String {
    format!("{TASK_COUNT_PREFIX}{connector}")
}

/// `logger-cluster-<namespace>`
pub fn logger_key(namespace: &str) -> String {
    format!("{LOGGER_CLUSTER_PREFIX}{namespace}")
}

/// Ferry's view of a stored config: keys whose value is JSON `null` are left out. (Java keeps them
/// as null entries of its map, which its config parsing then treats like absent keys; Ferry's REST
/// layer drops null values the same way before a config is ever written.)
pub fn to_config_map(raw: &RawConfig) -> ConfigMap {
    raw.iter()
        .filter_map(|(k, v)| v.as_ref().map(|v| (k.clone(), v.clone())))
        .collect()
}

/// A `ConfigMap` as a stored config (no null values; keys in the map's order).
pub fn from_config_map(config: &ConfigMap) -> RawConfig {
    config
        .iter()
        .map(|(k, v)| (k.clone(), Some(v.clone())))
        .collect()
}

/// The name Java uses for a target state (`TargetState.name()`).
pub fn target_state_name(state: TargetState) -> &'static str {
    match state {
        TargetState::Started => "STARTED",
        TargetState::Paused => "PAUSED",
        TargetState::Stopped => "STOPPED",
    }
}

/// Java's `TargetState.valueOf`: exact, upper-case names only.
pub fn parse_target_state(name: &str) -> Option<TargetState> {
    match name {
        "STARTED" => Some(TargetState::Started),
        "PAUSED" => Some(TargetState::Paused),
        "STOPPED" => Some(TargetState::Stopped),
        _ => None,
    }
}

/// The cluster's session key (KIP-507), used to sign internal REST requests between workers.
#[derive(Clone, PartialEq, Eq)]
pub struct SessionKey {
    /// The raw secret-key bytes.
    pub key: Vec<u8>,
    /// The JCA algorithm name, e.g. `HmacSHA256`.
    pub algorithm: String,
    /// When the leader created the key, in milliseconds since the epoch.
    pub creation_timestamp: i64,
}

impl std::fmt::Debug for SessionKey {
    /// The secret itself is never printed.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionKey")
            .field("key", &format_args!("[{} bytes hidden]", self.key.len()))
            .field("algorithm", &self.algorithm)
            .field("creation_timestamp", &self.creation_timestamp)
            .finish()
    }
}

/// A restart request for one connector, as the config topic carries it (KIP-745).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectorRestart {
    pub connector: String,
    pub include_tasks: bool,
    pub only_failed: bool,
}

impl ConnectorRestart {
    /// The request without the connector name, as the herder API takes it.
    pub fn request(&self) -> RestartRequest {
        RestartRequest {
            include_tasks: self.include_tasks,
            only_failed: self.only_failed,
        }
    }

    pub fn new(connector: impl Into<String>, request: RestartRequest) -> Self {
        ConnectorRestart {
            connector: connector.into(),
            include_tasks: request.include_tasks,
            only_failed: request.only_failed,
        }
    }
}

/// One record of the config topic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigRecord {
    /// `connector-<name>`: `{"properties":{…}}`; `config: None` is the tombstone that deletes the
    /// connector.
    ConnectorConfig {
        connector: String,
        config: Option<RawConfig>,
    },
    /// `task-<name>-<N>`: `{"properties":{…}}`, buffered until the next commit.
    TaskConfig { id: TaskId, config: RawConfig },
    /// `commit-<name>`: `{"tasks":n}`.
    Commit { connector: String, tasks: usize },
    /// `target-state-<name>`: `{"state":…,"state.v2":…}`; `state: None` is the tombstone written
    /// when a connector is deleted.
    TargetState {
        connector: String,
        state: Option<TargetState>,
    },
    /// `restart-connector-<name>`: `{"include-tasks":b,"only-failed":b}`.
    RestartRequest(ConnectorRestart),
    /// `tasks-fencing-<name>`: `{"task-count":n}` (exactly-once source support, KIP-618).
    TaskCount {
        connector: String,
        task_count: usize,
    },
    /// `session-key`: `{"key":"<base64>","algorithm":…,"creation-timestamp":ms}`.
    SessionKey(SessionKey),
    /// `logger-cluster-<namespace>`: `{"level":"DEBUG"}` (KIP-976).
    LoggerLevel { namespace: String, level: String },
}

/// Why a config topic record could not be used. Java logs these and skips the record.
#[derive(Debug, thiserror::Error)]
pub enum ConfigRecordError {
    /// The value is not JSON at all. (Java's reader then skips the record *without* advancing its
    /// offset; see [`super::state::ConfigState::apply_raw`].)
    #[error("config topic record {key}: the value is not valid JSON: {source}")]
    Json {
        key: String,
        #[source]
        source: serde_json::Error,
    },
    /// A `task-` key that does not end in `-<task number>` after a connector name.
    #[error("config topic record {key}: the key does not name a task")]
    InvalidTaskKey { key: String },
    /// A value that is JSON but not what the key calls for.
    #[error("config topic record {key}: {reason}")]
    Invalid { key: String, reason: String },
}

impl ConfigRecordError {
    pub fn key(&self) -> &str {
        match self {
            ConfigRecordError::Json { key, .. }
            | ConfigRecordError::InvalidTaskKey { key }
            | ConfigRecordError::Invalid { key, .. } => key,
        }
    }
}

/// Java's `Integer.parseInt` on a piece of a key: an optional sign, then ASCII digits, in range.
fn java_parse_int(s: &str) -> Option<i32> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse::<i32>().ok()
}

/// Java's `String.split("-")`: the pieces between dashes, trailing empty pieces removed.
pub(crate) fn java_split_dash(s: &str) -> Vec<&str> {
    let mut parts: Vec<&str> = s.split('-').collect();
    while parts.len() > 1 && parts.last() == Some(&"") {
        parts.pop();
    }
    if parts.len() == 1 && parts[0].is_empty() {
        parts.clear();
    }
    parts
}

/// Parses `<prefix><connector>-<N>` the way Java does: split the whole key on `-`, need at least
/// `min_parts` pieces, the last one is the task number, and the pieces from `skip` up to the last
/// one, re-joined with `-`, are the connector name.
pub(crate) fn parse_dashed_task_id(key: &str, min_parts: usize, skip: usize) -> Option<TaskId> {
    let parts = java_split_dash(key);
    if parts.len() < min_parts {
        return None;
    }
    let task = java_parse_int(parts[parts.len() - 1])?;
    let task = usize::try_from(task).ok()?;
    Some(TaskId {
        connector: parts[skip..parts.len() - 1].join("-"),
        task,
    })
}

/// `task-<name>-<N>` → the task id (`task-my-conn-12` is task 12 of `my-conn`).
pub fn parse_task_key(key: &str) -> Option<TaskId> {
    parse_dashed_task_id(key, 3, 1)
}

fn invalid(key: &str, reason: impl Into<String>) -> ConfigRecordError {
    ConfigRecordError::Invalid {
        key: key.to_owned(),
        reason: reason.into(),
    }
}

fn required<'a>(key: &str, value: Option<&'a Value>) -> Result<&'a Value, ConfigRecordError> {
    value.ok_or_else(|| invalid(key, "the value is unexpectedly null"))
}

fn object<'a>(key: &str, value: &'a Value) -> Result<&'a Map<String, Value>, ConfigRecordError> {
    json::as_object(value, "the value").map_err(|r| invalid(key, r))
}

fn properties(key: &str, value: &Value) -> Result<RawConfig, ConfigRecordError> {
    let map = object(key, value)?;
    let props = map.get("properties");
    let props = props.and_then(Value::as_object).ok_or_else(|| {
        invalid(
            key,
            format!(
                "'properties' should be an object but is {}",
                json::type_name(props)
            ),
        )
    })?;
    props
        .iter()
        .map(|(k, v)| match v {
            Value::String(s) => Ok((k.clone(), Some(s.clone()))),
            Value::Null => Ok((k.clone(), None)),
            other => Err(invalid(
                key,
                format!(
                    "property '{k}' should be a string but is {}",
                    json::type_name(Some(other))
                ),
            )),
        })
        .collect()
}

/// A non-negative int field (a task count).
fn count_field(
    key: &str,
    map: &Map<String, Value>,
    name: &str,
) -> Result<usize, ConfigRecordError> {
    let n = json::int_field(map, name).map_err(|r| invalid(key, r))?;
    usize::try_from(n).map_err(|_| invalid(key, format!("'{name}' is negative ({n})")))
}

fn parse_target_state_value(key: &str, value: &Value) -> Result<TargetState, ConfigRecordError> {
    let map = object(key, value)?;
    // Prefer `state.v2` when it is a string; otherwise (missing, null or another type) fall back on
    // the older `state` field, which older workers write alone.
    let name = match map.get("state.v2") {
        Some(Value::String(s)) => s.as_str(),
        other => {
            if !matches!(other, None | Some(Value::Null)) {
                tracing::error!(
                    key,
                    "invalid target state record: 'state.v2' should be a string but is {}",
                    json::type_name(other)
                );
            }
            json::string_field(map, "state").map_err(|r| invalid(key, r))?
        }
    };
    parse_target_state(name).ok_or_else(|| invalid(key, format!("unknown target state {name:?}")))
}

fn parse_session_key(key: &str, value: &Value) -> Result<SessionKey, ConfigRecordError> {
    let map = object(key, value)?;
    let encoded = json::string_field(map, "key").map_err(|r| invalid(key, r))?;
    // Java's basic Base64 decoder: standard alphabet, padding optional.
    const DECODER: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
    );
    let secret = DECODER
        .decode(encoded)
        .map_err(|e| invalid(key, format!("'key' is not Base64: {e}")))?;
    let algorithm = json::string_field(map, "algorithm").map_err(|r| invalid(key, r))?;
    let creation_timestamp =
        json::long_field(map, "creation-timestamp").map_err(|r| invalid(key, r))?;
    Ok(SessionKey {
        key: secret,
        algorithm: algorithm.to_owned(),
        creation_timestamp,
    })
}

fn parse_restart(
    key: &str,
    connector: &str,
    value: &Value,
) -> Result<ConnectorRestart, ConfigRecordError> {
    let map = object(key, value)?;
    // A missing or non-boolean field means false, as in Java.
    let flag = |name: &str| match map.get(name) {
        Some(Value::Bool(b)) => *b,
        other => {
            tracing::warn!(
                key,
                "restart request field '{name}' should be a boolean but is {}; using false",
                json::type_name(other)
            );
            false
        }
    };
    Ok(ConnectorRestart {
        connector: connector.to_owned(),
        include_tasks: flag("include-tasks"),
        only_failed: flag("only-failed"),
    })
}

impl ConfigRecord {
    /// Parses one record of the config topic. `Ok(None)` for a key this format does not know
    /// (logged, as Java does).
    pub fn parse(
        key: &str,
        value: Option<&[u8]>,
    ) -> Result<Option<ConfigRecord>, ConfigRecordError> {
        // Java converts the value before looking at the key, so even an unknown key with a value
        // that is not JSON counts as a conversion failure.
        let value = json::decode(value).map_err(|source| ConfigRecordError::Json {
            key: key.to_owned(),
            source,
        })?;
        let value = value.as_ref();
        let record = if let Some(name) = key.strip_prefix(TARGET_STATE_PREFIX) {
            ConfigRecord::TargetState {
                connector: name.to_owned(),
                state: value
                    .map(|v| parse_target_state_value(key, v))
                    .transpose()?,
            }
        } else if let Some(name) = key.strip_prefix(CONNECTOR_PREFIX) {
            ConfigRecord::ConnectorConfig {
                connector: name.to_owned(),
                config: value.map(|v| properties(key, v)).transpose()?,
            }
        } else if key.starts_with(TASK_PREFIX) {
            let id = parse_task_key(key).ok_or_else(|| ConfigRecordError::InvalidTaskKey {
                key: key.to_owned(),
            })?;
            let config = properties(key, required(key, value)?)?;
            ConfigRecord::TaskConfig { id, config }
        } else if let Some(name) = key.strip_prefix(COMMIT_PREFIX) {
            let map = object(key, required(key, value)?)?;
            ConfigRecord::Commit {
                connector: name.to_owned(),
                tasks: count_field(key, map, "tasks")?,
            }
        } else if let Some(name) = key.strip_prefix(RESTART_PREFIX) {
            ConfigRecord::RestartRequest(parse_restart(key, name, required(key, value)?)?)
        } else if let Some(name) = key.strip_prefix(TASK_COUNT_PREFIX) {
            let map = object(key, required(key, value)?)?;
            ConfigRecord::TaskCount {
                connector: name.to_owned(),
                task_count: count_field(key, map, "task-count")?,
            }
        } else if key == SESSION_KEY_KEY {
            ConfigRecord::SessionKey(parse_session_key(key, required(key, value)?)?)
        } else if let Some(namespace) = key.strip_prefix(LOGGER_CLUSTER_PREFIX) {
            let map = object(key, required(key, value)?)?;
            let level = json::string_field(map, "level").map_err(|r| invalid(key, r))?;
            ConfigRecord::LoggerLevel {
                namespace: namespace.to_owned(),
                level: level.to_owned(),
            }
        } else {
            tracing::error!(key, "discarding config topic record with an unknown key");
            return Ok(None);
        };
        Ok(Some(record))
    }

    /// The record's key.
    pub fn key(&self) -> String {
        match self {
            ConfigRecord::ConnectorConfig { connector, .. } => connector_key(connector),
            ConfigRecord::TaskConfig { id, .. } => task_key(id),
            ConfigRecord::Commit { connector, .. } => commit_key(connector),
            ConfigRecord::TargetState { connector, .. } => target_state_key(connector),
            ConfigRecord::RestartRequest(r) => restart_key(&r.connector),
            ConfigRecord::TaskCount { connector, .. } => task_count_key(connector),
            ConfigRecord::SessionKey(_) => SESSION_KEY_KEY.to_owned(),
            ConfigRecord::LoggerLevel { namespace, .. } => logger_key(namespace),
        }
    }

    /// The record's key and value as Java writes them (`None` = tombstone).
    pub fn encode(&self) -> (String, Option<Vec<u8>>) {
        (self.key(), self.encode_value())
    }

    /// The value bytes alone (`None` = tombstone).
    pub fn encode_value(&self) -> Option<Vec<u8>> {
        let mut out = JsonOut::new();
        out.begin_object();
        match self {
            ConfigRecord::ConnectorConfig { config, .. } => {
                write_properties(&mut out, config.as_ref()?);
            }
            ConfigRecord::TaskConfig { config, .. } => write_properties(&mut out, config),
            ConfigRecord::Commit { tasks, .. } => {
                out.field("tasks").int(count_to_i64(*tasks));
            }
            ConfigRecord::TargetState { state, .. } => {
                let state = (*state)?;
                // Older workers know no STOPPED; they read `state` and fall back on PAUSED.
                let old = match state {
                    TargetState::Stopped => TargetState::Paused,
                    s => s,
                };
                out.field("state").string(target_state_name(old));
                out.field("state.v2").string(target_state_name(state));
            }
            ConfigRecord::RestartRequest(r) => {
                out.field("include-tasks").bool(r.include_tasks);
                out.field("only-failed").bool(r.only_failed);
            }
            ConfigRecord::TaskCount { task_count, .. } => {
                out.field("task-count").int(count_to_i64(*task_count));
            }
            ConfigRecord::SessionKey(k) => {
                out.field("key").string(&STANDARD.encode(&k.key));
                out.field("algorithm").string(&k.algorithm);
                out.field("creation-timestamp").int(k.creation_timestamp);
            }
            ConfigRecord::LoggerLevel { level, .. } => {
                out.field("level").string(level);
            }
        }
        out.end_object();
        Some(out.finish())
    }

    /// A connector config record from Ferry's config map.
    pub fn connector_config(connector: impl Into<String>, config: &ConfigMap) -> Self {
        ConfigRecord::ConnectorConfig {
            connector: connector.into(),
            config: Some(from_config_map(config)),
        }
    }

    /// A task config record from Ferry's config map.
    pub fn task_config(id: TaskId, config: &ConfigMap) -> Self {
        ConfigRecord::TaskConfig {
            id,
            config: from_config_map(config),
        }
    }
}

/// Task counts are Java ints.
fn count_to_i64(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn write_properties(out: &mut JsonOut, config: &RawConfig) {
    out.field("properties").begin_object();
    for (k, v) in config {
        out.field(k).opt_string(v.as_deref());
    }
    out.end_object();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tid(c: &str, t: usize) -> TaskId {
        TaskId {
            connector: c.into(),
            task: t,
        }
    }

    fn raw(pairs: &[(&str, Option<&str>)]) -> RawConfig {
        pairs
            .iter()
            .map(|(k, v)| (String::from(*k), v.map(str::to_owned)))
            .collect()
    }

    /// Encodes to exactly `key`/`value`, and parses those bytes back to the same record.
    fn golden(record: ConfigRecord, key: &str, value: Option<&str>) {
        let (k, v) = record.encode();
        assert_eq!(k, key);
        assert_eq!(
            v.as_deref().map(|b| std::str::from_utf8(b).unwrap()),
            value,
            "value of {key}"
        );
        let back = ConfigRecord::parse(key, value.map(str::as_bytes))
            .unwrap()
            .unwrap();
        assert_eq!(back, record);
    }

    #[test]
    fn golden_connector_config() {
        golden(
            ConfigRecord::ConnectorConfig {
                connector: "file-src".into(),
                config: Some(raw(&[
                    ("connector.class", Some("FileStreamSource")),
                    ("tasks.max", Some("1")),
                    ("gone", None),
                    ("name", Some("file-src")),
                ])),
            },
            "connector-file-src",
            Some(
                r#"{"properties":{"connector.class":"FileStreamSource","tasks.max":"1","gone":null,"name":"file-src"}}"#,
            ),
        );
        golden(
            ConfigRecord::ConnectorConfig {
                connector: "file-src".into(),
                config: None,
            },
            "connector-file-src",
            None,
        );
        golden(
            ConfigRecord::ConnectorConfig {
                connector: "empty".into(),
                config: Some(RawConfig::new()),
            },
            "connector-empty",
            Some(r#"{"properties":{}}"#),
        );
    }

    #[test]
    fn golden_task_config() {
        golden(
            ConfigRecord::TaskConfig {
                id: tid("my-conn", 12),
                config: raw(&[("task.class", Some("T")), ("q", Some("a\"b\\c\u{1}😀"))]),
            },
            "task-my-conn-12",
            Some(r#"{"properties":{"task.class":"T","q":"a\"b\\c\u0001\uD83D\uDE00"}}"#),
        );
    }

    #[test]
    fn golden_commit_and_task_count() {
        golden(
            ConfigRecord::Commit {
                connector: "c".into(),
                tasks: 3,
            },
            "commit-c",
            Some(r#"{"tasks":3}"#),
        );
        golden(
            ConfigRecord::TaskCount {
                connector: "c-1".into(),
                task_count: 0,
            },
            "tasks-fencing-c-1",
            Some(r#"{"task-count":0}"#),
        );
    }

    #[test]
    fn golden_target_states() {
        let ts = |s| ConfigRecord::TargetState {
            connector: "c".into(),
            state: s,
        };
        golden(
            ts(Some(TargetState::Started)),
            "target-state-c",
            Some(r#"{"state":"STARTED","state.v2":"STARTED"}"#),
        );
        golden(
            ts(Some(TargetState::Paused)),
            "target-state-c",
            Some(r#"{"state":"PAUSED","state.v2":"PAUSED"}"#),
        );
        golden(
            ts(Some(TargetState::Stopped)),
            "target-state-c",
            Some(r#"{"state":"PAUSED","state.v2":"STOPPED"}"#),
        );
        golden(ts(None), "target-state-c", None);
    }

    #[test]
    fn golden_restart_session_key_logger() {
        golden(
            ConfigRecord::RestartRequest(ConnectorRestart {
                connector: "my-conn".into(),
                include_tasks: true,
                only_failed: false,
            }),
            "restart-connector-my-conn",
            Some(r#"{"include-tasks":true,"only-failed":false}"#),
        );
        golden(
            ConfigRecord::SessionKey(SessionKey {
                key: vec![0xab, 0x99, 0x92, 0xff, 0x00],
                algorithm: "HmacSHA256".into(),
                creation_timestamp: 1_729_820_000_000,
            }),
            "session-key",
            Some(
                r#"{"key":"q5mS/wA=","algorithm":"HmacSHA256","creation-timestamp":1729820000000}"#,
            ),
        );
        golden(
            ConfigRecord::LoggerLevel {
                namespace: "org.apache.kafka.connect".into(),
                level: "DEBUG".into(),
            },
            "logger-cluster-org.apache.kafka.connect",
            Some(r#"{"level":"DEBUG"}"#),
        );
    }

    #[test]
    fn task_keys_split_like_java() {
        assert_eq!(parse_task_key("task-my-conn-12"), Some(tid("my-conn", 12)));
        assert_eq!(parse_task_key("task-c-0"), Some(tid("c", 0)));
        assert_eq!(parse_task_key("task-a--b-+3"), Some(tid("a--b", 3)));
        assert_eq!(parse_task_key("task--1"), Some(tid("", 1)));
        assert_eq!(parse_task_key("task-c"), None);
        assert_eq!(parse_task_key("task-c-"), None); // trailing empty piece dropped
        assert_eq!(parse_task_key("task-c-x"), None);
        assert_eq!(parse_task_key("task-c-99999999999"), None);
        assert!(matches!(
            ConfigRecord::parse("task-c", Some(br#"{"properties":{}}"#)),
            Err(ConfigRecordError::InvalidTaskKey { .. })
        ));
    }

    #[test]
    fn prefix_order_follows_java() {
        // `restart-connector-x` does not start with `connector-`; `tasks-fencing-` is not `task-`.
        let r = ConfigRecord::parse("restart-connector-x", Some(b"{}"))
            .unwrap()
            .unwrap();
        assert_eq!(
            r,
            ConfigRecord::RestartRequest(ConnectorRestart {
                connector: "x".into(),
                include_tasks: false,
                only_failed: false
            })
        );
        let r = ConfigRecord::parse("tasks-fencing-x", Some(br#"{"task-count":2}"#))
            .unwrap()
            .unwrap();
        assert!(matches!(r, ConfigRecord::TaskCount { task_count: 2, .. }));
        // A connector whose name starts with a prefix-like word.
        let r = ConfigRecord::parse("connector-commit-x", None)
            .unwrap()
            .unwrap();
        assert_eq!(
            r,
            ConfigRecord::ConnectorConfig {
                connector: "commit-x".into(),
                config: None
            }
        );
        assert!(ConfigRecord::parse("something-else", Some(b"{}"))
            .unwrap()
            .is_none());
        assert!(ConfigRecord::parse("session-key-2", Some(b"{}"))
            .unwrap()
            .is_none());
    }

    #[test]
    fn lenient_reads() {
        // Integers of any JSON size; the JSON literal null is a tombstone.
        let r = ConfigRecord::parse("commit-c", Some(br#"{"tasks":2,"extra":[1]}"#))
            .unwrap()
            .unwrap();
        assert_eq!(
            r,
            ConfigRecord::Commit {
                connector: "c".into(),
                tasks: 2
            }
        );
        let r = ConfigRecord::parse("connector-c", Some(b"null"))
            .unwrap()
            .unwrap();
        assert_eq!(
            r,
            ConfigRecord::ConnectorConfig {
                connector: "c".into(),
                config: None
            }
        );
        // Old workers write `state` alone; a non-string `state.v2` also falls back on it.
        for v in [
            r#"{"state":"PAUSED"}"#,
            r#"{"state":"PAUSED","state.v2":null}"#,
            r#"{"state":"PAUSED","state.v2":7}"#,
        ] {
            let r = ConfigRecord::parse("target-state-c", Some(v.as_bytes()))
                .unwrap()
                .unwrap();
            assert_eq!(
                r,
                ConfigRecord::TargetState {
                    connector: "c".into(),
                    state: Some(TargetState::Paused)
                },
                "{v}"
            );
        }
        // A string `state.v2` wins even when it is not a state: no fallback then.
        assert!(ConfigRecord::parse(
            "target-state-c",
            Some(br#"{"state":"PAUSED","state.v2":"BOGUS"}"#)
        )
        .is_err());
        // Restart flags default to false when missing or not booleans.
        let r = ConfigRecord::parse(
            "restart-connector-c",
            Some(br#"{"include-tasks":"true","only-failed":true}"#),
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            r,
            ConfigRecord::RestartRequest(ConnectorRestart {
                connector: "c".into(),
                include_tasks: false,
                only_failed: true
            })
        );
        // Base64 without padding is accepted, as by Java's decoder.
        let r = ConfigRecord::parse(
            "session-key",
            Some(br#"{"key":"q5mS/wA","algorithm":"HmacSHA256","creation-timestamp":5}"#),
        )
        .unwrap()
        .unwrap();
        let ConfigRecord::SessionKey(k) = r else {
            panic!()
        };
        assert_eq!(k.key, vec![0xab, 0x99, 0x92, 0xff, 0x00]);
        assert!(
            !format!("{k:?}").contains("171"),
            "the key bytes are not printed"
        );
    }

    #[test]
    fn invalid_values() {
        let bad: &[(&str, Option<&[u8]>)] = &[
            ("task-c-0", None),
            ("task-c-0", Some(br#"{"properties":{"a":1}}"#)),
            ("task-c-0", Some(br#"{"nope":{}}"#)),
            ("connector-c", Some(br#"[1]"#)),
            ("commit-c", None),
            ("commit-c", Some(br#"{"tasks":1.0}"#)),
            ("commit-c", Some(br#"{"tasks":-1}"#)),
            ("commit-c", Some(br#"{}"#)),
            ("target-state-c", Some(br#"{"state":"RUNNING"}"#)),
            ("target-state-c", Some(br#"{}"#)),
            ("restart-connector-c", None),
            ("restart-connector-c", Some(b"true")),
            ("tasks-fencing-c", None),
            ("session-key", None),
            (
                "session-key",
                Some(br#"{"key":"!!","algorithm":"a","creation-timestamp":1}"#),
            ),
            (
                "session-key",
                Some(br#"{"key":"AA==","algorithm":"a","creation-timestamp":"1"}"#),
            ),
            (
                "session-key",
                Some(br#"{"key":"AA==","creation-timestamp":1}"#),
            ),
            ("logger-cluster-x", None),
            ("logger-cluster-x", Some(br#"{"level":3}"#)),
        ];
        for (key, value) in bad {
            let r = ConfigRecord::parse(key, *value);
            assert!(
                matches!(r, Err(ConfigRecordError::Invalid { .. })),
                "{key} {:?}: {r:?}",
                value.map(String::from_utf8_lossy)
            );
        }
        assert!(matches!(
            ConfigRecord::parse("connector-c", Some(b"{not json")),
            Err(ConfigRecordError::Json { .. })
        ));
        assert!(matches!(
            ConfigRecord::parse("unknown", Some(b"{not json")),
            Err(ConfigRecordError::Json { .. })
        ));
    }

    #[test]
    fn config_map_conversion_drops_nulls() {
        let r = raw(&[("a", Some("1")), ("b", None)]);
        let m = to_config_map(&r);
        assert_eq!(m.len(), 1);
        assert_eq!(m.get("a").map(String::as_str), Some("1"));
        let back = from_config_map(&m);
        assert_eq!(back, raw(&[("a", Some("1"))]));
        let rec = ConfigRecord::connector_config("x", &m);
        assert_eq!(
            rec.encode().1.unwrap(),
            br#"{"properties":{"a":"1"}}"#.to_vec()
        );
    }
}
