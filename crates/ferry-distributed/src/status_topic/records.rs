//! Keys and values of the status topic (Java's `KafkaStatusBackingStore` record formats).
//!
//! * `status-connector-<name>` and `status-task-<name>-<N>`:
//!   `{"state":"RUNNING","trace":null,"worker_id":"host:8083","generation":7,"version":"4.1.1"}`.
//!   The `version` field (the connector's or task's plugin version, often null) was added in
//!   Connect 4.1 (KIP-891); older readers ignore it and older writers leave it out, so it is read as
//!   optional and always written, as Connect 4.1 does. A DESTROYED status is written as a
//!   tombstone.
//! * `status-topic-<topic>:connector-<name>`:
//!   `{"topic":{"name":"orders","connector":"c","task":2,"discoverTimestamp":1729820000000}}`;
//!   a tombstone means the topic was reset or the connector deleted.

use std::fmt;

use ferry_runtime::status::{State, Status, TaskId, TopicStatus};
use serde_json::{Map, Value};

use crate::config_topic::json::{self, JsonOut};
use crate::config_topic::records::parse_dashed_task_id;

pub const CONNECTOR_STATUS_PREFIX: &str = "status-connector-";
pub const TASK_STATUS_PREFIX: &str = "status-task-";
pub const TOPIC_STATUS_PREFIX: &str = "status-topic-";
pub const TOPIC_STATUS_SEPARATOR: &str = ":connector-";

/// What a status topic key is about.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StatusKey {
    /// `status-connector-<name>`
    Connector(String),
    /// `status-task-<name>-<N>`
    Task(TaskId),
    /// `status-topic-<topic>:connector-<name>`
    Topic { topic: String, connector: String },
}

impl fmt::Display for StatusKey {
    /// The key as written to the topic.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StatusKey::Connector(c) => write!(f, "{CONNECTOR_STATUS_PREFIX}{c}"),
            StatusKey::Task(id) => write!(f, "{TASK_STATUS_PREFIX}{}-{}", id.connector, id.task),
            StatusKey::Topic { topic, connector } => {
                write!(
                    f,
                    "{TOPIC_STATUS_PREFIX}{topic}{TOPIC_STATUS_SEPARATOR}{connector}"
                )
            }
        }
    }
}

impl StatusKey {
    /// Parses a key as Java does. `Ok(None)` for a key with none of the three prefixes.
    ///
    /// * connector: the rest after the prefix, which must not be empty;
    /// * task: split the whole key on `-`, at least 4 pieces, the last is the task number and the
    ///   pieces from the third up to the last, re-joined with `-`, are the connector name;
    /// * topic: the topic runs from the prefix to the *first* `:` and must not be empty; the
    ///   connector is what follows that `:` and the 10 characters after it (the rest of
    ///   `:connector-`, which is not checked, as in Java), and must not be empty.
    pub fn parse(key: &str) -> Result<Option<StatusKey>, StatusRecordError> {
        let bad = || StatusRecordError::InvalidKey {
            key: key.to_owned(),
        };
        if let Some(connector) = key.strip_prefix(CONNECTOR_STATUS_PREFIX) {
            if connector.is_empty() {
                return Err(bad());
            }
            Ok(Some(StatusKey::Connector(connector.to_owned())))
        } else if key.starts_with(TASK_STATUS_PREFIX) {
            parse_dashed_task_id(key, 4, 2)
                .map(|id| Some(StatusKey::Task(id)))
                .ok_or_else(bad)
        } else if key.starts_with(TOPIC_STATUS_PREFIX) {
            let colon = key.find(':').ok_or_else(bad)?;
            let topic = key
                .get(TOPIC_STATUS_PREFIX.len()..colon)
                .filter(|t| !t.is_empty())
                .ok_or_else(bad)?;
            let connector = key
                .get(colon + TOPIC_STATUS_SEPARATOR.len()..)
                .filter(|c| !c.is_empty())
                .ok_or_else(bad)?;
            Ok(Some(StatusKey::Topic {
                topic: topic.to_owned(),
                connector: connector.to_owned(),
            }))
        } else {
            Ok(None)
        }
    }
}

/// A connector or task status as stored: Ferry's [`Status`] plus the plugin version Connect 4.1
/// records with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusValue {
    pub status: Status,
    pub version: Option<String>,
}

impl StatusValue {
    pub fn new(status: Status, version: Option<String>) -> Self {
        StatusValue { status, version }
    }
}

impl From<Status> for StatusValue {
    fn from(status: Status) -> Self {
        StatusValue {
            status,
            version: None,
        }
    }
}

/// One record of the status topic. `None` values are tombstones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StatusRecord {
    Connector {
        connector: String,
        status: Option<StatusValue>,
    },
    Task {
        id: TaskId,
        status: Option<StatusValue>,
    },
    Topic {
        topic: String,
        connector: String,
        status: Option<TopicStatus>,
    },
}

/// Why a status topic record could not be used. Java logs these and skips the record.
#[derive(Debug, thiserror::Error)]
pub enum StatusRecordError {
    #[error("status topic record with an invalid key {key}")]
    InvalidKey { key: String },
    #[error("status topic record {key}: the value is not valid JSON: {source}")]
    Json {
        key: String,
        #[source]
        source: serde_json::Error,
    },
    #[error("status topic record {key}: {reason}")]
    Invalid { key: String, reason: String },
}

/// Java's `AbstractStatus.State.valueOf`. DESTROYED is a valid name (never written, but read if
/// present).
pub fn parse_state(name: &str) -> Option<State> {
    Some(match name {
        "UNASSIGNED" => State::Unassigned,
        "RUNNING" => State::Running,
        "PAUSED" => State::Paused,
        "STOPPED" => State::Stopped,
        "FAILED" => State::Failed,
        "RESTARTING" => State::Restarting,
        "DESTROYED" => State::Destroyed,
        _ => return None,
    })
}

fn parse_status_value(value: &Value) -> Result<StatusValue, String> {
    let map = json::as_object(value, "the status")?;
    let state_name = json::string_field(map, "state")?;
    let state = parse_state(state_name).ok_or_else(|| format!("unknown state {state_name:?}"))?;
    let trace = json::opt_string_field(map, "trace")?;
    let worker_id = json::string_field(map, "worker_id")?;
    let generation = json::int_field(map, "generation")?;
    let version = json::opt_string_field(map, "version")?;
    Ok(StatusValue {
        status: Status {
            state,
            trace: trace.map(str::to_owned),
            worker_id: worker_id.to_owned(),
            generation,
        },
        version: version.map(str::to_owned),
    })
}

fn parse_topic_value(value: &Value) -> Result<TopicStatus, String> {
    let map = json::as_object(value, "the topic status")?;
    let inner: &Map<String, Value> =
        json::as_object(map.get("topic").unwrap_or(&Value::Null), "'topic'")?;
    let task = json::int_field(inner, "task")?;
    Ok(TopicStatus {
        topic: json::string_field(inner, "name")?.to_owned(),
        connector: json::string_field(inner, "connector")?.to_owned(),
        task: usize::try_from(task).map_err(|_| format!("'task' is negative ({task})"))?,
        discover_timestamp: json::long_field(inner, "discoverTimestamp")?,
    })
}

/// The value Java writes for a connector or task status; `None` (a tombstone) for DESTROYED.
pub fn encode_status(status: &Status, version: Option<&str>) -> Option<Vec<u8>> {
    if status.state == State::Destroyed {
        return None;
    }
    Some(
        JsonOut::new()
            .begin_object()
            .field("state")
            .string(status.state.as_str())
            .field("trace")
            .opt_string(status.trace.as_deref())
            .field("worker_id")
            .string(&status.worker_id)
            .field("generation")
            .int(i64::from(status.generation))
            .field("version")
            .opt_string(version)
            .end_object()
            .finish(),
    )
}

/// The value Java writes for an active topic.
pub fn encode_topic_status(status: &TopicStatus) -> Vec<u8> {
    JsonOut::new()
        .begin_object()
        .field("topic")
        .begin_object()
        .field("name")
        .string(&status.topic)
        .field("connector")
        .string(&status.connector)
        .field("task")
        .int(i64::try_from(status.task).unwrap_or(i64::MAX))
        .field("discoverTimestamp")
        .int(status.discover_timestamp)
        .end_object()
        .end_object()
        .finish()
}

impl StatusRecord {
    /// Parses one record of the status topic. `Ok(None)` for a key with an unknown prefix (which
    /// Java logs and skips). Only a missing value is a tombstone here; the JSON literal `null` is
    /// an unusable value, as in Java.
    pub fn parse(
        key: &str,
        value: Option<&[u8]>,
    ) -> Result<Option<StatusRecord>, StatusRecordError> {
        let Some(parsed_key) = StatusKey::parse(key)? else {
            tracing::warn!(key, "discarding status topic record with an unknown key");
            return Ok(None);
        };
        let value = match value {
            None => None,
            Some(bytes) => Some(serde_json::from_slice::<Value>(bytes).map_err(|source| {
                StatusRecordError::Json {
                    key: key.to_owned(),
                    source,
                }
            })?),
        };
        let invalid = |reason: String| StatusRecordError::Invalid {
            key: key.to_owned(),
            reason,
        };
        Ok(Some(match parsed_key {
            StatusKey::Connector(connector) => StatusRecord::Connector {
                connector,
                status: value
                    .as_ref()
                    .map(parse_status_value)
                    .transpose()
                    .map_err(invalid)?,
            },
            StatusKey::Task(id) => StatusRecord::Task {
                id,
                status: value
                    .as_ref()
                    .map(parse_status_value)
                    .transpose()
                    .map_err(invalid)?,
            },
            StatusKey::Topic { topic, connector } => StatusRecord::Topic {
                topic,
                connector,
                status: value
                    .as_ref()
                    .map(parse_topic_value)
                    .transpose()
                    .map_err(invalid)?,
            },
        }))
    }

    pub fn key(&self) -> StatusKey {
        match self {
            StatusRecord::Connector { connector, .. } => StatusKey::Connector(connector.clone()),
            StatusRecord::Task { id, .. } => StatusKey::Task(id.clone()),
            StatusRecord::Topic {
                topic, connector, ..
            } => StatusKey::Topic {
                topic: topic.clone(),
                connector: connector.clone(),
            },
        }
    }

    /// The key and value as Java writes them (`None` = tombstone, also for a DESTROYED status).
    pub fn encode(&self) -> (String, Option<Vec<u8>>) {
        let value = match self {
            StatusRecord::Connector { status, .. } | StatusRecord::Task { status, .. } => status
                .as_ref()
                .and_then(|s| encode_status(&s.status, s.version.as_deref())),
            StatusRecord::Topic { status, .. } => status.as_ref().map(encode_topic_status),
        };
        (self.key().to_string(), value)
    }

    /// A connector status record (DESTROYED encodes as a tombstone).
    pub fn connector(
        connector: impl Into<String>,
        status: Status,
        version: Option<String>,
    ) -> Self {
        StatusRecord::Connector {
            connector: connector.into(),
            status: Some(StatusValue { status, version }),
        }
    }

    /// A task status record (DESTROYED encodes as a tombstone).
    pub fn task(id: TaskId, status: Status, version: Option<String>) -> Self {
        StatusRecord::Task {
            id,
            status: Some(StatusValue { status, version }),
        }
    }

    /// An active-topic record.
    pub fn topic(status: TopicStatus) -> Self {
        StatusRecord::Topic {
            topic: status.topic.clone(),
            connector: status.connector.clone(),
            status: Some(status),
        }
    }

    /// The tombstone that resets one active topic of a connector.
    pub fn topic_reset(topic: impl Into<String>, connector: impl Into<String>) -> Self {
        StatusRecord::Topic {
            topic: topic.into(),
            connector: connector.into(),
            status: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(state: State, trace: Option<&str>, worker: &str, generation: i32) -> Status {
        Status {
            state,
            trace: trace.map(str::to_owned),
            worker_id: worker.into(),
            generation,
        }
    }

    fn tid(c: &str, t: usize) -> TaskId {
        TaskId {
            connector: c.into(),
            task: t,
        }
    }

    fn golden(record: StatusRecord, key: &str, value: Option<&str>) {
        let (k, v) = record.encode();
        assert_eq!(k, key);
        assert_eq!(
            v.as_deref().map(|b| std::str::from_utf8(b).unwrap()),
            value,
            "value of {key}"
        );
        let back = StatusRecord::parse(key, value.map(str::as_bytes))
            .unwrap()
            .unwrap();
        assert_eq!(back, record);
    }

    #[test]
    fn golden_connector_and_task_status() {
        golden(
            StatusRecord::connector("c", st(State::Running, None, "host:8083", 7), None),
            "status-connector-c",
            Some(
                r#"{"state":"RUNNING","trace":null,"worker_id":"host:8083","generation":7,"version":null}"#,
            ),
        );
        golden(
            StatusRecord::task(
                tid("my-conn", 12),
                st(
                    State::Failed,
                    Some("java.lang.Boom\n\tat x"),
                    "10.0.0.5:8083",
                    -2,
                ),
                Some("4.1.1".into()),
            ),
            "status-task-my-conn-12",
            Some(
                r#"{"state":"FAILED","trace":"java.lang.Boom\n\tat x","worker_id":"10.0.0.5:8083","generation":-2,"version":"4.1.1"}"#,
            ),
        );
        for (state, name) in [
            (State::Unassigned, "UNASSIGNED"),
            (State::Paused, "PAUSED"),
            (State::Stopped, "STOPPED"),
            (State::Restarting, "RESTARTING"),
        ] {
            let json = format!(
                r#"{{"state":"{name}","trace":null,"worker_id":"w","generation":0,"version":null}}"#
            );
            golden(
                StatusRecord::connector("c", st(state, None, "w", 0), None),
                "status-connector-c",
                Some(&json),
            );
        }
        golden(
            StatusRecord::Task {
                id: tid("c", 0),
                status: None,
            },
            "status-task-c-0",
            None,
        );
    }

    #[test]
    fn destroyed_is_a_tombstone() {
        let r = StatusRecord::connector("c", st(State::Destroyed, None, "w", 3), None);
        assert_eq!(r.encode(), ("status-connector-c".to_owned(), None));
        let r = StatusRecord::task(tid("c", 1), st(State::Destroyed, None, "w", 3), None);
        assert_eq!(r.encode(), ("status-task-c-1".to_owned(), None));
        assert_eq!(
            encode_status(&st(State::Destroyed, None, "w", 0), None),
            None
        );
    }

    #[test]
    fn golden_topic_status() {
        golden(
            StatusRecord::topic(TopicStatus {
                topic: "orders".into(),
                connector: "jdbc-src".into(),
                task: 2,
                discover_timestamp: 1_729_820_000_000,
            }),
            "status-topic-orders:connector-jdbc-src",
            Some(
                r#"{"topic":{"name":"orders","connector":"jdbc-src","task":2,"discoverTimestamp":1729820000000}}"#,
            ),
        );
        golden(
            StatusRecord::topic_reset("orders", "jdbc-src"),
            "status-topic-orders:connector-jdbc-src",
            None,
        );
    }

    #[test]
    fn reads_pre_4_1_values_without_version() {
        let r = StatusRecord::parse(
            "status-connector-c",
            Some(br#"{"state":"PAUSED","trace":null,"worker_id":"w:1","generation":4}"#),
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            r,
            StatusRecord::connector("c", st(State::Paused, None, "w:1", 4), None)
        );
        // A trace may be left out, and generations narrow to 32 bits like Java's intValue().
        let r = StatusRecord::parse(
            "status-task-c-0",
            Some(br#"{"state":"RUNNING","worker_id":"w","generation":4294967298}"#),
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            r,
            StatusRecord::task(tid("c", 0), st(State::Running, None, "w", 2), None)
        );
    }

    #[test]
    fn keys_parse_like_java() {
        let p = |k: &str| StatusKey::parse(k).unwrap();
        assert_eq!(
            p("status-connector-a-b"),
            Some(StatusKey::Connector("a-b".into()))
        );
        assert_eq!(
            p("status-task-my-conn-12"),
            Some(StatusKey::Task(tid("my-conn", 12)))
        );
        assert_eq!(p("status-task--0"), Some(StatusKey::Task(tid("", 0))));
        assert_eq!(
            p("status-topic-orders:connector-my-conn"),
            Some(StatusKey::Topic {
                topic: "orders".into(),
                connector: "my-conn".into()
            })
        );
        // The topic ends at the first ':'; the separator text itself is not checked.
        assert_eq!(
            p("status-topic-a:connector-b:c"),
            Some(StatusKey::Topic {
                topic: "a".into(),
                connector: "b:c".into()
            })
        );
        assert_eq!(
            p("status-topic-a:XXXXXXXXXXc"),
            Some(StatusKey::Topic {
                topic: "a".into(),
                connector: "c".into()
            })
        );
        assert_eq!(p("other"), None);
        for bad in [
            "status-connector-",
            "status-task-c",
            "status-task-c-x",
            "status-task-c-",
            "status-topic-orders",
            "status-topic-:connector-c",
            "status-topic-orders:connector-",
            "status-topic-orders:conn",
        ] {
            assert!(
                matches!(
                    StatusKey::parse(bad),
                    Err(StatusRecordError::InvalidKey { .. })
                ),
                "{bad}"
            );
        }
        for key in [
            StatusKey::Connector("a-b".into()),
            StatusKey::Task(tid("a-b", 3)),
            StatusKey::Topic {
                topic: "t".into(),
                connector: "a-b".into(),
            },
        ] {
            assert_eq!(StatusKey::parse(&key.to_string()).unwrap(), Some(key));
        }
    }

    #[test]
    fn invalid_values() {
        let bad: &[(&str, &[u8])] = &[
            ("status-connector-c", b"null"),
            ("status-connector-c", b"[]"),
            (
                "status-connector-c",
                br#"{"state":"BOGUS","worker_id":"w","generation":1}"#,
            ),
            ("status-connector-c", br#"{"worker_id":"w","generation":1}"#),
            (
                "status-connector-c",
                br#"{"state":"RUNNING","generation":1}"#,
            ),
            (
                "status-connector-c",
                br#"{"state":"RUNNING","worker_id":"w"}"#,
            ),
            (
                "status-connector-c",
                br#"{"state":"RUNNING","worker_id":"w","generation":1.5}"#,
            ),
            (
                "status-connector-c",
                br#"{"state":"RUNNING","trace":1,"worker_id":"w","generation":1}"#,
            ),
            (
                "status-task-c-0",
                br#"{"state":"RUNNING","worker_id":"w","generation":1,"version":2}"#,
            ),
            ("status-topic-t:connector-c", br#"{"topic":null}"#),
            (
                "status-topic-t:connector-c",
                br#"{"topic":{"name":"t","connector":"c","task":-1,"discoverTimestamp":1}}"#,
            ),
            (
                "status-topic-t:connector-c",
                br#"{"topic":{"name":"t","connector":"c","task":0}}"#,
            ),
        ];
        for (key, value) in bad {
            let r = StatusRecord::parse(key, Some(value));
            assert!(
                matches!(r, Err(StatusRecordError::Invalid { .. })),
                "{key} {}: {r:?}",
                String::from_utf8_lossy(value)
            );
        }
        assert!(matches!(
            StatusRecord::parse("status-connector-c", Some(b"{")),
            Err(StatusRecordError::Json { .. })
        ));
        assert!(StatusRecord::parse("nope", Some(b"{")).unwrap().is_none());
        // DESTROYED is a valid state name when read.
        let r = StatusRecord::parse(
            "status-connector-c",
            Some(br#"{"state":"DESTROYED","trace":null,"worker_id":"w","generation":1}"#),
        )
        .unwrap()
        .unwrap();
        assert!(matches!(
            r,
            StatusRecord::Connector {
                status: Some(StatusValue {
                    status: Status {
                        state: State::Destroyed,
                        ..
                    },
                    ..
                }),
                ..
            }
        ));
    }
}
