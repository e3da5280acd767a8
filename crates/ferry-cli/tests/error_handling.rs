//! Error tolerance and the dead letter queue of a sink connector, on a real broker.
#![cfg(feature = "kafka-integration-tests")]

mod support;

use std::time::Duration;

use support::*;

/// 1,000 lines, every 100th of them (offsets 49, 149, …) not valid JSON.
fn json_lines() -> String {
    (0..1000)
        .map(|i| {
            if i % 100 == 49 {
                format!("not json {i}\n")
            } else {
                format!("{{\"n\":{i}}}\n")
            }
        })
        .collect()
}

fn pipeline(dir: &std::path::Path, ferry: &Ferry, topic: &str, sink: &str, sink_extra: &str) {
    std::fs::write(dir.join("in.txt"), json_lines()).unwrap();
    let src = format!(
        r#"{{"name":"{}","config":{{"connector.class":"FileStreamSource","file":"{}","topic":"{topic}"}}}}"#,
        unique("src"),
        dir.join("in.txt").display()
    );
    assert_eq!(ferry.call("POST", "/connectors", Some(&src)).0, 201);
    wait_until("the 1,000 records", Duration::from_secs(60), || {
        topic_records(topic) == 1000
    });
    let sink_body = format!(
        r#"{{"name":"{sink}","config":{{"connector.class":"FileStreamSink","file":"{}","topics":"{topic}",
            "value.converter":"org.apache.kafka.connect.json.JsonConverter","value.converter.schemas.enable":"false"{sink_extra}}}}}"#,
        dir.join("out.txt").display()
    );
    assert_eq!(
        ferry.call("POST", "/connectors", Some(&sink_body)).0,
        201,
        "{}",
        ferry.log_text()
    );
}

#[test]
fn tolerated_bad_records_go_to_the_dead_letter_queue_with_context_headers() {
    let dir = tempfile::tempdir().unwrap();
    let port = port();
    let ferry = Ferry::start(
        dir.path(),
        port,
        &worker_properties(dir.path(), port, 500),
        &[],
    );
    let (topic, dlq, sink) = (unique("json-in"), unique("dlq"), unique("tolerant"));
    let extra = format!(
        r#","errors.tolerance":"all","errors.deadletterqueue.topic.name":"{dlq}",
            "errors.deadletterqueue.topic.replication.factor":"1","errors.deadletterqueue.context.headers.enable":"true""#
    );
    pipeline(dir.path(), &ferry, &topic, &sink, &extra);
    let out = dir.path().join("out.txt");
    wait_until(
        "990 good records in the file",
        Duration::from_secs(60),
        || lines(&out).len() == 990,
    );
    let expected: Vec<String> = (0..1000)
        .filter(|i| i % 100 != 49)
        .map(|i| format!("{{n={i}}}"))
        .collect();
    assert_eq!(lines(&out), expected);
    assert_eq!(ferry.task_state(&sink, 0).as_deref(), Some("RUNNING"));

    let dead = read_all(&dlq, 10);
    assert_eq!(dead.len(), 10);
    for (i, (payload, headers)) in dead.iter().enumerate() {
        let n = i * 100 + 49;
        assert_eq!(
            payload.as_deref(),
            Some(format!("not json {n}").as_str()),
            "original bytes"
        );
        assert_eq!(headers["__connect.errors.topic"], topic);
        assert_eq!(headers["__connect.errors.partition"], "0");
        assert_eq!(headers["__connect.errors.offset"], n.to_string());
        assert_eq!(headers["__connect.errors.connector.name"], sink);
        assert_eq!(headers["__connect.errors.task.id"], "0");
        assert_eq!(headers["__connect.errors.stage"], "VALUE_CONVERTER");
        assert_eq!(
            headers["__connect.errors.class.name"],
            "org.apache.kafka.connect.json.JsonConverter"
        );
        assert_eq!(
            headers["__connect.errors.exception.class.name"],
            "org.apache.kafka.connect.errors.DataException"
        );
        assert!(!headers["__connect.errors.exception.message"].is_empty());
        assert!(headers["__connect.errors.exception.stacktrace"].contains("DataException"));
    }
    // The task's error metrics count exactly the ten bad records.
    let text = scrape(port);
    let task = [("connector", sink.as_str()), ("task", "0")];
    for (name, expected) in [
        ("kafka_connect_task_error_total_record_errors", 10.0),
        ("kafka_connect_task_error_total_record_failures", 10.0),
        ("kafka_connect_task_error_total_records_skipped", 10.0),
        (
            "kafka_connect_task_error_deadletterqueue_produce_requests",
            10.0,
        ),
        (
            "kafka_connect_task_error_deadletterqueue_produce_failures",
            0.0,
        ),
        ("kafka_connect_task_error_total_retries", 0.0),
        ("kafka_connect_sink_task_sink_record_read_total", 1000.0),
        ("kafka_connect_sink_task_sink_record_send_total", 990.0),
    ] {
        assert_eq!(
            metric(&text, name, &task),
            Some(expected),
            "{name}:\n{text}"
        );
    }
    assert!(
        metric(
            &text,
            "kafka_connect_task_error_last_error_timestamp",
            &task
        )
        .unwrap()
            > 0.0
    );
    ferry.stop();
}

#[test]
fn with_no_tolerance_the_task_fails_and_nothing_after_the_bad_record_is_committed() {
    let dir = tempfile::tempdir().unwrap();
    let port = port();
    let ferry = Ferry::start(
        dir.path(),
        port,
        &worker_properties(dir.path(), port, 200),
        &[],
    );
    let (topic, sink) = (unique("json-strict"), unique("strict"));
    pipeline(dir.path(), &ferry, &topic, &sink, "");
    wait_until("the sink task to fail", Duration::from_secs(60), || {
        ferry.task_state(&sink, 0).as_deref() == Some("FAILED")
    });
    // The failed task's status series and its connector's task counts say so.
    let text = scrape(port);
    let task = [
        ("connector", sink.as_str()),
        ("task", "0"),
        ("status", "failed"),
    ];
    assert_eq!(
        metric(&text, "kafka_connect_connector_task_status", &task),
        Some(1.0),
        "{text}"
    );
    let connector = [("connector", sink.as_str())];
    assert_eq!(
        metric(
            &text,
            "kafka_connect_worker_connector_failed_task_count",
            &connector
        ),
        Some(1.0)
    );
    assert_eq!(
        metric(
            &text,
            "kafka_connect_worker_connector_running_task_count",
            &connector
        ),
        Some(0.0)
    );
    assert_eq!(
        metric(
            &text,
            "kafka_connect_task_error_total_record_errors",
            &task[..2]
        ),
        Some(1.0),
        "the first bad record fails the task"
    );
    let status = ferry.status(&sink);
    let trace = status["tasks"][0]["trace"].as_str().unwrap();
    assert!(
        trace.contains("Tolerance exceeded in error handler (stage VALUE_CONVERTER"),
        "{trace}"
    );
    // Only records before the bad one (offset 49) may have reached the file or been committed.
    assert!(lines(&dir.path().join("out.txt")).len() <= 49);
    assert_eq!(
        ferry
            .call("PUT", &format!("/connectors/{sink}/stop"), None)
            .0,
        204
    );
    let (_, offsets) = ferry.call("GET", &format!("/connectors/{sink}/offsets"), None);
    let committed = offsets["offsets"]
        .as_array()
        .unwrap()
        .first()
        .map(|o| o["offset"]["kafka_offset"].as_i64().unwrap());
    assert!(
        committed.unwrap_or(0) <= 49,
        "committed {committed:?}: {offsets}"
    );
    ferry.stop();
}
