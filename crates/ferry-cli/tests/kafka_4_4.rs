//! What Kafka Connect 4.2 to 4.4 changed that a user sees, on a real 4.4 broker: the rows of
//! docs/kafka-versions.md that need a worker and a broker to show.
#![cfg(feature = "kafka-integration-tests")]

mod support;

use std::time::Duration;

use ferry_kafka::rdkafka::ClientConfig;
use support::*;

fn topic_exists(topic: &str) -> bool {
    let mut config = ClientConfig::new();
    config.set("bootstrap.servers", bootstrap());
    ferry_kafka::admin::Admin::new(&config)
        .unwrap()
        .topic_exists(topic)
        .unwrap()
}

#[test]
fn internal_topics_are_not_created_when_automatic_creation_is_off() {
    let dir = tempfile::tempdir().unwrap();
    let (cluster, port) = (unique("no-create"), port());
    let worker = distributed_properties(
        dir.path(),
        port,
        &cluster,
        "internal.topics.automatic.creation.enable=false\n",
    );
    let out = start_fails_in("distributed", dir.path(), &worker, &[]);
    assert!(
        out.contains(&format!("Topic '{cluster}-offsets' specified via the 'offset.storage.topic' property is missing. The config 'internal.topics.automatic.creation.enable' is set to 'false', so automatic creation of internal topics is disabled. Either enable automatic creation or create the topics manually.")),
        "{out}"
    );
    for suffix in ["configs", "offsets", "status"] {
        assert!(
            !topic_exists(&format!("{cluster}-{suffix}")),
            "{cluster}-{suffix} must not have been created"
        );
    }

    // Created by hand (compacted, as Connect needs them), the same worker starts and runs.
    for (suffix, partitions) in [("configs", 1), ("offsets", 5), ("status", 3)] {
        create_topic_with(
            &format!("{cluster}-{suffix}"),
            partitions,
            &[("cleanup.policy", "compact")],
        );
    }
    let ferry = Ferry::distributed(dir.path(), port, &worker);
    let input = dir.path().join("in.txt");
    write_file(&input, &numbered_lines(0, 10));
    let topic = unique("no-create-data");
    let (code, body) = ferry.call(
        "POST",
        "/connectors",
        Some(
            &serde_json::json!({"name": "src", "config": {
                "connector.class": "FileStreamSource", "file": input.display().to_string(), "topic": topic}})
            .to_string(),
        ),
    );
    assert_eq!(code, 201, "{body}");
    wait_until("ten records", Duration::from_secs(60), || {
        topic_records(&topic) >= 10
    });
    ferry.stop();
}

/// Kafka 4.2 dropped `bootstrap.servers`'s default of localhost:9092.
#[test]
fn a_worker_without_bootstrap_servers_does_not_start() {
    let dir = tempfile::tempdir().unwrap();
    let worker = dir.path().join("worker.properties");
    write_file(
        &worker,
        &format!(
            "key.converter=org.apache.kafka.connect.storage.StringConverter\nvalue.converter=org.apache.kafka.connect.storage.StringConverter\noffset.storage.file.filename={}\nlisteners=http://127.0.0.1:{}\n",
            dir.path().join("offsets").display(),
            port()
        ),
    );
    let stderr = start_fails(dir.path(), &worker, &[]);
    assert!(
        stderr.contains(
            "Missing required configuration \"bootstrap.servers\" which has no default value."
        ),
        "{stderr}"
    );
}

/// Sink tasks' consumers on the consumer group protocol of KIP-848 (`group.protocol=consumer`),
/// which Java's sink tasks take as any consumer setting: the records arrive, the offsets are
/// committed in the group, and the broker does not hold that group as a classic one (a classic
/// DescribeGroups finds no such group), while a sink on the classic protocol beside it is a
/// classic group with the `consumer` protocol type.
#[test]
fn sink_consumers_join_with_the_kip_848_protocol() {
    let dir = tempfile::tempdir().unwrap();
    let (topic, port) = (unique("kip848"), port());
    create_topic(&topic, 3);
    let worker = worker_properties(dir.path(), port, 500);
    let input = dir.path().join("in.txt");
    write_file(&input, &numbered_lines(0, 500));
    let sink = |name: &str, protocol: &str| {
        connector_file(
            dir.path(),
            name,
            &format!(
                "connector.class=FileStreamSink\nfile={}\ntopics={topic}\nconsumer.override.group.protocol={protocol}\n",
                dir.path().join(format!("{name}.txt")).display()
            ),
        )
    };
    let (new, classic) = (format!("{topic}-new"), format!("{topic}-classic"));
    let connectors = vec![
        connector_file(
            dir.path(),
            &format!("{topic}-src"),
            &format!(
                "connector.class=FileStreamSource\nfile={}\ntopic={topic}\n",
                input.display()
            ),
        ),
        sink(&new, "consumer"),
        sink(&classic, "classic"),
    ];
    let ferry = Ferry::start(dir.path(), port, &worker, &connectors);
    for name in [&new, &classic] {
        let out = dir.path().join(format!("{name}.txt"));
        wait_until(
            "500 lines in the sink file",
            Duration::from_secs(90),
            || lines(&out).len() >= 500,
        );
        assert_eq!(lines(&out).len(), 500, "{name}");
        wait_until("the group's commits", Duration::from_secs(30), || {
            committed_total(&ferry, name) == 500
        });
    }
    let new_group = group_listing(&format!("connect-{new}"));
    assert_eq!(
        new_group,
        ("Dead".to_owned(), String::new()),
        "KIP-848 group"
    );
    let classic_group = group_listing(&format!("connect-{classic}"));
    assert_eq!(
        classic_group,
        ("Stable".to_owned(), "consumer".to_owned()),
        "classic group"
    );
    ferry.stop();
}

/// The sum of a sink connector's committed offsets, from `GET /connectors/{name}/offsets`.
fn committed_total(ferry: &Ferry, name: &str) -> i64 {
    let (code, body) = ferry.call("GET", &format!("/connectors/{name}/offsets"), None);
    if code != 200 {
        return -1;
    }
    body["offsets"]
        .as_array()
        .map(|o| {
            o.iter()
                .filter_map(|e| e["offset"]["kafka_offset"].as_i64())
                .sum()
        })
        .unwrap_or(-1)
}

/// A group's state and protocol type as the classic DescribeGroups answers them.
fn group_listing(group: &str) -> (String, String) {
    use ferry_kafka::rdkafka::consumer::{BaseConsumer, Consumer};
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", bootstrap())
        .create()
        .unwrap();
    let list = consumer
        .fetch_group_list(Some(group), Duration::from_secs(10))
        .unwrap();
    let info = list
        .groups()
        .iter()
        .find(|g| g.name() == group)
        .unwrap_or_else(|| panic!("{group} not listed"));
    (info.state().to_owned(), info.protocol_type().to_owned())
}

/// The worker's properties with `extra` lines added.
fn with_lines(worker: &std::path::Path, extra: &str) {
    let text = std::fs::read_to_string(worker).unwrap();
    write_file(worker, &format!("{text}{extra}"));
}

fn validate(ferry: &Ferry, plugin: &str, config: serde_json::Value) -> serde_json::Value {
    let (code, body) = ferry.call(
        "PUT",
        &format!("/connector-plugins/{plugin}/config/validate"),
        Some(&config.to_string()),
    );
    assert_eq!(code, 200, "{body}");
    body
}

fn errors_of(infos: &serde_json::Value, name: &str) -> Vec<String> {
    infos["configs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["value"]["name"] == name)
        .unwrap_or_else(|| panic!("{name} not in {infos}"))["value"]["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap().to_owned())
        .collect()
}

/// The Allowlist override policy (KIP-1188), and the REST validation rules of Kafka 4.2-4.4:
/// repeated sink topics and an empty list item are errors, the "no connector type" message
/// no longer prints the config.
#[test]
fn allowlist_policy_and_list_validation_through_the_rest_api() {
    let dir = tempfile::tempdir().unwrap();
    let port = port();
    let worker = worker_properties(dir.path(), port, 1000);
    with_lines(
        &worker,
        "connector.client.config.override.policy=Allowlist\nconnector.client.config.override.allowlist=max.poll.records\n",
    );
    let ferry = Ferry::start(dir.path(), port, &worker, &[]);
    let infos = validate(
        &ferry,
        "FileStreamSink",
        serde_json::json!({
            "connector.class": "FileStreamSink", "topics": "a,b,a", "file": "/tmp/x",
            "consumer.override.max.poll.records": "10",
            "consumer.override.auto.offset.reset": "latest",
        }),
    );
    assert!(
        errors_of(&infos, "consumer.override.max.poll.records").is_empty(),
        "{infos}"
    );
    assert_eq!(
        errors_of(&infos, "consumer.override.auto.offset.reset"),
        vec!["The 'Allowlist' policy does not allow 'auto.offset.reset' to be overridden in the connector configuration."]
    );
    assert_eq!(
        errors_of(&infos, "topics"),
        vec!["Configuration 'topics' values must not be duplicated."]
    );
    let infos = validate(
        &ferry,
        "FileStreamSink",
        serde_json::json!({"connector.class": "FileStreamSink", "topics": "a,,b", "file": "/tmp/x"}),
    );
    assert_eq!(
        errors_of(&infos, "topics"),
        vec!["Configuration 'topics' values must not be empty."]
    );
    let (code, body) = ferry.call(
        "POST",
        "/connectors",
        Some(r#"{"name":"n","config":{"tasks.max":"1"}}"#),
    );
    assert_eq!(
        (code, body["message"].as_str()),
        (400, Some("Connector config contains no connector type"))
    );
    ferry.stop();
}

/// Kafka 4.4 registers REST extensions on the admin listener too, so basic authentication
/// guards `/admin/loggers` there as well (4.1.1 left a separate admin listener open).
#[test]
fn basic_auth_guards_a_separate_admin_listener() {
    let dir = tempfile::tempdir().unwrap();
    let (port, admin) = (port(), port());
    let opts = basic_auth_files(dir.path(), "alice=s3cret\n");
    let worker = worker_properties(dir.path(), port, 1000);
    with_lines(
        &worker,
        &format!("rest.extension.classes=org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension\nadmin.listeners=http://127.0.0.1:{admin}\n"),
    );
    let ferry = Ferry::start_with_env(dir.path(), port, &worker, &[], &[("KAFKA_OPTS", &opts)]);
    wait_until(
        "the admin listener answers",
        Duration::from_secs(30),
        || http_status(admin, "/admin/loggers") != 0,
    );
    assert_eq!(http_status(admin, "/admin/loggers"), 401);
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", admin)).unwrap();
    use std::io::{Read, Write};
    write!(
        stream,
        "GET /admin/loggers HTTP/1.0\r\nHost: localhost\r\nAuthorization: {}\r\n\r\n",
        basic("alice:s3cret")
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    assert!(
        response.starts_with("HTTP/1.1 200") || response.starts_with("HTTP/1.0 200"),
        "{response}"
    );
    ferry.stop();
}
