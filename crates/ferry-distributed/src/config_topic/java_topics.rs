//! Replays internal topics written by a real Java Connect 4.1.1 distributed worker
//! (`testdata/java-topics/`, made by `capture.sh` there) through the config state machine and the
//! status cache, and checks that every record re-encodes to the bytes Java wrote.
//!
//! The scenario (see capture.sh): `file-src` (FileStreamSource, a config value full of characters
//! JSON escapes) is created, paused and resumed; `file-sink` (FileStreamSink, 1 task) is stopped and
//! its topics reset; `sink-two` (FileStreamSink, 2 tasks) is restarted with its tasks, patched and
//! deleted; a cluster log level is set; then the worker is shut down. Exactly-once source support
//! is on, so there are task count records too.

use std::collections::BTreeMap;
use std::path::PathBuf;

use ferry_runtime::status::{State, TaskId};
use ferry_runtime::worker::TargetState;
use serde_json::Value;

use super::records::ConfigRecord;
use super::state::{ConfigEvent, ConfigState};
use super::ConnectorRestart;
use crate::status_topic::{StatusCache, StatusRecord};

struct Line {
    partition: i64,
    offset: i64,
    key: String,
    value: Option<String>,
}

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/java-topics")
}

fn read(name: &str) -> Vec<Line> {
    let path = dir().join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let lines: Vec<Line> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            Line {
                partition: v["partition"].as_i64().unwrap(),
                offset: v["offset"].as_i64().unwrap(),
                key: v["key"].as_str().unwrap().to_owned(),
                value: v["value"].as_str().map(str::to_owned),
            }
        })
        .collect();
    assert!(!lines.is_empty(), "{name} is empty");
    lines
}

fn worker_properties() -> BTreeMap<String, String> {
    std::fs::read_to_string(dir().join("worker.properties"))
        .unwrap()
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .collect()
}

fn tid(c: &str, t: usize) -> TaskId {
    TaskId {
        connector: c.into(),
        task: t,
    }
}

fn replay_config(start_at: Option<i64>) -> (ConfigState, Vec<ConfigEvent>) {
    let mut state = ConfigState::new();
    let mut events = Vec::new();
    for line in read("config.jsonl") {
        assert_eq!(line.partition, 0, "the config topic has one partition");
        if start_at.is_some_and(|s| line.offset >= s) && !state.is_started() {
            state.mark_started();
        }
        let record = ConfigRecord::parse(&line.key, line.value.as_deref().map(str::as_bytes))
            .unwrap_or_else(|e| panic!("offset {}: {e}", line.offset))
            .unwrap_or_else(|| panic!("offset {}: unknown key {}", line.offset, line.key));
        events.extend(state.apply(line.offset, record));
    }
    (state, events)
}

#[test]
fn java_config_topic_replays_to_expected_state() {
    let (state, events) = replay_config(None);
    assert!(events.is_empty(), "no events before the store has started");
    let last = read("config.jsonl").last().unwrap().offset;
    let snap = state.snapshot();
    assert_eq!(snap.offset(), last + 1);
    assert_eq!(snap.connectors(), vec!["file-sink", "file-src"]);

    // file-src: running, one task, exactly-once task count record after its commit.
    let src = snap.connector_config("file-src").unwrap();
    assert_eq!(
        src["connector.class"],
        "org.apache.kafka.connect.file.FileStreamSourceConnector"
    );
    assert_eq!(src["name"], "file-src");
    assert_eq!(
        src["ferry.capture.note"],
        "quote \" backslash \\ tab \t newline \n bell \u{7} e-acute é euro € emoji 😀"
    );
    let data_topic = src["topic"].clone();
    assert!(data_topic.starts_with("ferry-capture-data-"));
    assert_eq!(snap.target_state("file-src"), Some(TargetState::Started));
    assert_eq!(snap.task_count("file-src"), Some(1));
    assert_eq!(snap.tasks("file-src"), vec![tid("file-src", 0)]);
    let task = snap.task_config(&tid("file-src", 0)).unwrap();
    assert_eq!(
        task["task.class"],
        "org.apache.kafka.connect.file.FileStreamSourceTask"
    );
    assert_eq!(task["topic"], data_topic);
    assert_eq!(snap.task_config_generation("file-src"), Some(0));
    assert_eq!(snap.applied_config("file-src"), Some(src));
    assert_eq!(snap.task_count_record("file-src"), Some(1));
    assert!(!snap.pending_fencing("file-src"));
    assert!(!snap.is_inconsistent("file-src"));

    // file-sink: stopped (state.v2), zero tasks committed after one; the old task config lingers.
    assert_eq!(snap.target_state("file-sink"), Some(TargetState::Stopped));
    assert_eq!(snap.task_count("file-sink"), Some(0));
    assert!(snap.tasks("file-sink").is_empty());
    let old = snap.task_config(&tid("file-sink", 0)).unwrap();
    assert_eq!(
        old["task.class"],
        "org.apache.kafka.connect.file.FileStreamSinkTask"
    );
    assert_eq!(old["topics"], data_topic);
    assert_eq!(snap.task_config_generation("file-sink"), Some(1));
    assert!(snap.pending_fencing("file-sink"));
    assert_eq!(snap.task_count_record("file-sink"), None);
    assert!(!snap.is_inconsistent("file-sink"));

    // sink-two: deleted, every trace but its generation gone.
    assert!(!snap.contains("sink-two"));
    assert!(snap.connector_config("sink-two").is_none());
    assert_eq!(snap.target_state("sink-two"), None);
    assert_eq!(snap.task_count("sink-two"), None);
    assert!(snap.tasks("sink-two").is_empty());
    assert!(snap.task_config(&tid("sink-two", 0)).is_none());
    assert!(snap.applied_config("sink-two").is_none());
    assert!(snap.inconsistent_connectors().is_empty());

    let key = snap.session_key().expect("a session key");
    assert_eq!(key.algorithm, "HmacSHA256");
    assert_eq!(key.key.len(), 32);
    assert!(key.creation_timestamp > 1_600_000_000_000);
}

#[test]
fn java_config_topic_events_after_start() {
    let (_, events) = replay_config(Some(0));
    let count = |e: &ConfigEvent| events.iter().filter(|x| *x == e).count();
    assert!(matches!(events[0], ConfigEvent::SessionKeyUpdated(_)));
    assert_eq!(
        count(&ConfigEvent::ConnectorConfigUpdated("file-src".into())),
        1
    );
    assert_eq!(
        count(&ConfigEvent::ConnectorConfigUpdated("sink-two".into())),
        2
    );
    assert_eq!(
        count(&ConfigEvent::TargetStateChanged("file-src".into())),
        2
    );
    assert_eq!(
        count(&ConfigEvent::TargetStateChanged("file-sink".into())),
        1
    );
    assert_eq!(
        count(&ConfigEvent::TaskConfigsUpdated(vec![
            tid("sink-two", 0),
            tid("sink-two", 1)
        ])),
        2
    );
    assert_eq!(count(&ConfigEvent::TaskConfigsUpdated(vec![])), 1); // file-sink's stop
    let restart = ConfigEvent::RestartRequested(ConnectorRestart {
        connector: "sink-two".into(),
        include_tasks: true,
        only_failed: false,
    });
    assert_eq!(count(&restart), 1);
    assert_eq!(
        count(&ConfigEvent::LoggerLevel {
            namespace: "org.apache.kafka.connect.file".into(),
            level: "DEBUG".into()
        }),
        1
    );
    assert_eq!(
        events.last(),
        Some(&ConfigEvent::ConnectorRemoved("sink-two".into()))
    );

    // Started only after the restart request: it is not reported, but later records are.
    let restart_offset = read("config.jsonl")
        .iter()
        .find(|l| l.key == "restart-connector-sink-two")
        .unwrap()
        .offset;
    let (_, later) = replay_config(Some(restart_offset + 1));
    assert!(!later.contains(&restart));
    assert!(later.contains(&ConfigEvent::ConnectorRemoved("sink-two".into())));
    assert!(!later
        .iter()
        .any(|e| matches!(e, ConfigEvent::SessionKeyUpdated(_))));
}

#[test]
fn java_config_records_reencode_byte_for_byte() {
    let mut kinds = BTreeMap::new();
    for line in read("config.jsonl") {
        let value = line.value.as_deref().map(str::as_bytes);
        let record = ConfigRecord::parse(&line.key, value).unwrap().unwrap();
        let kind = format!("{record:?}");
        *kinds
            .entry(kind.split([' ', '(']).next().unwrap().to_owned())
            .or_insert(0) += 1;
        let (key, encoded) = record.encode();
        assert_eq!(key, line.key);
        assert_eq!(
            encoded.as_deref().map(|b| std::str::from_utf8(b).unwrap()),
            line.value.as_deref(),
            "offset {} ({})",
            line.offset,
            line.key
        );
    }
    // Every record type Java wrote in the scenario.
    for kind in [
        "ConnectorConfig",
        "TaskConfig",
        "Commit",
        "TargetState",
        "RestartRequest",
        "TaskCount",
        "SessionKey",
        "LoggerLevel",
    ] {
        assert!(
            kinds.contains_key(kind),
            "no {kind} record in the fixture: {kinds:?}"
        );
    }
}

#[test]
fn java_status_topic_replays_to_expected_state() {
    let props = worker_properties();
    let worker_id = format!(
        "{}:{}",
        props["rest.advertised.host.name"], props["rest.advertised.port"]
    );
    let mut cache = StatusCache::new();
    let mut ignored = 0;
    // One valid reading order: partition by partition (each key lives in one partition).
    for line in read("status.jsonl") {
        if !cache.apply_raw(&line.key, line.value.as_deref().map(str::as_bytes)) {
            ignored += 1;
        }
    }
    // The restarts and reconfigurations of sink-two make its tasks report UNASSIGNED after a
    // RUNNING of the same generation; those are the records the read rule skips.
    assert!(ignored >= 1, "no stale UNASSIGNED was skipped");

    assert_eq!(cache.connectors(), vec!["file-sink", "file-src"]);
    // The shutdown at the end left everything UNASSIGNED.
    let src = cache.connector("file-src").unwrap();
    assert_eq!(src.status.state, State::Unassigned);
    assert_eq!(src.status.worker_id, worker_id);
    assert!(src.status.trace.is_none());
    let src_tasks = cache.tasks("file-src");
    assert_eq!(src_tasks.len(), 1);
    assert_eq!(src_tasks[0].0, 0);
    assert_eq!(src_tasks[0].1.status.state, State::Unassigned);
    assert_eq!(src_tasks[0].1.status.generation, src.status.generation);

    let sink = cache.connector("file-sink").unwrap();
    assert_eq!(sink.status.state, State::Unassigned);
    assert_eq!(sink.version.as_deref(), Some("4.1.1"));
    assert!(
        cache.tasks("file-sink").is_empty(),
        "the stopped sink's task was tombstoned"
    );

    assert!(cache.connector("sink-two").is_none());
    assert!(cache.tasks("sink-two").is_empty());
    assert!(cache
        .connectors_with_tasks()
        .iter()
        .all(|c| c == "file-src"));

    // Topics: file-src's survives; file-sink's was reset and sink-two's removed on delete.
    let topics = cache.topics("file-src");
    assert_eq!(topics.len(), 1);
    assert!(topics[0].topic.starts_with("ferry-capture-data-"));
    assert_eq!(topics[0].connector, "file-src");
    assert_eq!(topics[0].task, 0);
    assert!(topics[0].discover_timestamp > 1_600_000_000_000);
    assert!(cache.topics("file-sink").is_empty());
    assert!(cache.topics("sink-two").is_empty());
    let all = read("status.jsonl");
    for c in ["file-sink", "sink-two"] {
        let suffix = format!(":connector-{c}");
        assert!(all
            .iter()
            .any(|l| l.key.ends_with(&suffix) && l.value.is_some()));
        assert!(all
            .iter()
            .any(|l| l.key.ends_with(&suffix) && l.value.is_none()));
    }
}

#[test]
fn java_status_records_reencode_byte_for_byte() {
    let mut versions = (0, 0);
    for line in read("status.jsonl") {
        let record = StatusRecord::parse(&line.key, line.value.as_deref().map(str::as_bytes))
            .unwrap_or_else(|e| panic!("{}: {e}", line.key))
            .unwrap();
        if let StatusRecord::Connector {
            status: Some(s), ..
        }
        | StatusRecord::Task {
            status: Some(s), ..
        } = &record
        {
            if s.version.is_some() {
                versions.0 += 1;
            } else {
                versions.1 += 1;
            }
        }
        let (key, encoded) = record.encode();
        assert_eq!(key, line.key);
        assert_eq!(
            encoded.as_deref().map(|b| std::str::from_utf8(b).unwrap()),
            line.value.as_deref(),
            "partition {} offset {}",
            line.partition,
            line.offset
        );
    }
    assert!(
        versions.0 > 0 && versions.1 > 0,
        "both versioned and null versions: {versions:?}"
    );
}
