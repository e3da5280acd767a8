//! Internal topics both ways: a cluster of Java Connect 4.1.1 and a cluster of Ferry take turns on
//! the same config, offset and status topics, and each picks up what the other left.
#![cfg(feature = "kafka-integration-tests")]

mod support;

use std::path::Path;
use std::time::Duration;

use serde_json::Value;
use support::*;

const SLOW: Duration = Duration::from_secs(180);

fn connectors(w: &Ferry) -> Vec<String> {
    let (_, list) = w.call("GET", "/connectors", None);
    let mut list: Vec<String> = serde_json::from_value(list).unwrap_or_default();
    list.sort();
    list
}

fn state(w: &Ferry, connector: &str) -> String {
    w.status(connector)["connector"]["state"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

fn tasks_running(w: &Ferry, connector: &str, n: usize) -> bool {
    w.status(connector)["tasks"]
        .as_array()
        .is_some_and(|t| t.len() == n && t.iter().all(|t| t["state"] == "RUNNING"))
}

fn offsets(w: &Ferry, connector: &str) -> Value {
    w.call("GET", &format!("/connectors/{connector}/offsets"), None)
        .1
}

fn append(path: &Path, from: usize, to: usize) {
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    std::io::Write::write_all(&mut f, numbered_lines(from, to).as_bytes()).unwrap();
}

#[test]
fn java_and_ferry_take_turns_on_the_same_internal_topics() {
    let dir = tempfile::tempdir().unwrap();
    let cluster = unique("turns");
    let topic = unique("turns-data");
    let input = dir.path().join("in.txt");
    let output = dir.path().join("out.txt");
    std::fs::write(&input, numbered_lines(0, 100)).unwrap();
    let (src, sink, idle) = (
        unique("turns-src"),
        unique("turns-sink"),
        unique("turns-idle"),
    );
    let extra = "plugin.discovery=only_scan\n";

    // Java writes connectors, target states, a restart request, offsets and statuses.
    let java_port = port();
    let java_props = distributed_properties(dir.path(), java_port, &cluster, extra);
    let java = java_distributed_worker(dir.path(), java_port, &java_props);
    let create = |w: &Ferry, body: String| {
        let (code, answer) = w.call("POST", "/connectors", Some(&body));
        assert_eq!(code, 201, "{answer}");
    };
    create(
        &java,
        format!(
            r#"{{"name":"{src}","config":{{"connector.class":"FileStreamSource","file":"{}","topic":"{topic}"}}}}"#,
            input.display()
        ),
    );
    create(
        &java,
        format!(
            r#"{{"name":"{sink}","config":{{"connector.class":"FileStreamSink","file":"{}","topics":"{topic}"}}}}"#,
            output.display()
        ),
    );
    create(
        &java,
        format!(
            r#"{{"name":"{idle}","config":{{"connector.class":"FileStreamSource","file":"{}","topic":"{}"}}}}"#,
            dir.path().join("idle.txt").display(),
            unique("turns-idle-topic")
        ),
    );
    wait_until("Java to copy 100 lines", SLOW, || {
        lines(&output).len() == 100
    });
    let position = |w: &Ferry| offsets(w, &src)["offsets"][0]["offset"]["position"].as_i64();
    let file_len = |lines: usize| i64::try_from(numbered_lines(0, lines).len()).unwrap();
    // Offsets are compared across the hand-over, so wait for the final one to be committed.
    wait_until("Java's source offset at the end of the file", SLOW, || {
        position(&java) == Some(file_len(100))
    });
    let (code, _) = java.call(
        "POST",
        &format!("/connectors/{sink}/restart?includeTasks=true"),
        None,
    );
    assert_eq!(code, 202);
    assert_eq!(
        java.call("PUT", &format!("/connectors/{src}/pause"), None)
            .0,
        202
    );
    assert_eq!(
        java.call("PUT", &format!("/connectors/{idle}/stop"), None)
            .0,
        204
    );
    wait_until("Java's paused and stopped connectors", SLOW, || {
        state(&java, &src) == "PAUSED" && state(&java, &idle) == "STOPPED"
    });
    let java_offsets = offsets(&java, &src);
    java.terminate();

    // Ferry takes over the same topics.
    let ferry_port = port();
    let ferry_props = distributed_properties(dir.path(), ferry_port, &cluster, "");
    let ferry = Ferry::distributed(dir.path(), ferry_port, &ferry_props);
    wait_until("Ferry to join the group", SLOW, || {
        ferry.get("/health").is_some_and(|(code, _)| code == 200)
    });
    let mut all = vec![src.clone(), sink.clone(), idle.clone()];
    all.sort();
    assert_eq!(connectors(&ferry), all);
    wait_until("Java's target states in Ferry", SLOW, || {
        state(&ferry, &src) == "PAUSED"
            && state(&ferry, &idle) == "STOPPED"
            && state(&ferry, &sink) == "RUNNING"
            && tasks_running(&ferry, &sink, 1)
    });
    assert_eq!(
        offsets(&ferry, &src),
        java_offsets,
        "Ferry reads Java's source offsets"
    );
    // Resumed, the source continues where Java stopped: only new lines are sent.
    assert_eq!(
        ferry
            .call("PUT", &format!("/connectors/{src}/resume"), None)
            .0,
        202
    );
    append(&input, 100, 150);
    wait_until("150 records in the topic", SLOW, || {
        topic_records(&topic) >= 150
    });
    wait_until("150 lines in the sink file", SLOW, || {
        lines(&output).len() >= 150
    });
    assert_eq!(topic_records(&topic), 150, "no line was sent twice");
    assert_eq!(
        lines(&output),
        numbered_lines(0, 150)
            .lines()
            .map(str::to_owned)
            .collect::<Vec<_>>()
    );
    // Ferry's own writes for Java to read: a paused sink and fresh offsets.
    assert_eq!(
        ferry
            .call("PUT", &format!("/connectors/{sink}/pause"), None)
            .0,
        202
    );
    wait_until("the paused sink", SLOW, || state(&ferry, &sink) == "PAUSED");
    wait_until("Ferry's source offset at the end of the file", SLOW, || {
        position(&ferry) == Some(file_len(150))
    });
    let ferry_offsets = offsets(&ferry, &src);
    ferry.stop();

    // And Java again, on what Ferry wrote.
    let java = java_distributed_worker(dir.path(), java_port, &java_props);
    assert_eq!(connectors(&java), all);
    wait_until("Ferry's target states in Java", SLOW, || {
        state(&java, &src) == "RUNNING"
            && state(&java, &sink) == "PAUSED"
            && state(&java, &idle) == "STOPPED"
    });
    assert_eq!(
        offsets(&java, &src),
        ferry_offsets,
        "Java reads Ferry's source offsets"
    );
    append(&input, 150, 175);
    wait_until("175 records in the topic", SLOW, || {
        topic_records(&topic) >= 175
    });
    assert_eq!(
        topic_records(&topic),
        175,
        "Java continues from Ferry's offsets"
    );
    java.terminate();
}
