//! REST features that need data flowing through a real broker: active topics (KIP-558) and
//! restarts (KIP-745) of real FileStream connectors.
#![cfg(feature = "kafka-integration-tests")]

mod support;

use std::time::Duration;

use support::*;

fn source(dir: &std::path::Path, name: &str, file: &str, topic: &str) -> String {
    std::fs::write(dir.join(file), numbered_lines(0, 10)).unwrap();
    format!(
        r#"{{"name":"{name}","config":{{"connector.class":"FileStreamSource","file":"{}","topic":"{topic}"}}}}"#,
        dir.join(file).display()
    )
}

fn append(dir: &std::path::Path, file: &str, from: usize, to: usize) {
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(dir.join(file))
        .unwrap();
    std::io::Write::write_all(&mut f, numbered_lines(from, to).as_bytes()).unwrap();
}

#[test]
fn active_topics_of_sources_and_sinks_with_reset_and_delete() {
    let dir = tempfile::tempdir().unwrap();
    let port = port();
    let (a, b) = (unique("topic-a"), unique("topic-b"));
    let worker = worker_properties(dir.path(), port, 500);
    let ferry = Ferry::start(dir.path(), port, &worker, &[]);
    let (src_a, src_b, sink) = (unique("src-a"), unique("src-b"), unique("sink"));

    assert_eq!(
        ferry
            .call(
                "POST",
                "/connectors",
                Some(&source(dir.path(), &src_a, "a.txt", &a))
            )
            .0,
        201
    );
    assert_eq!(
        ferry
            .call(
                "POST",
                "/connectors",
                Some(&source(dir.path(), &src_b, "b.txt", &b))
            )
            .0,
        201
    );
    let sink_body = format!(
        r#"{{"name":"{sink}","config":{{"connector.class":"FileStreamSink","file":"{}","topics":"{a},{b}"}}}}"#,
        dir.path().join("out.txt").display()
    );
    assert_eq!(ferry.call("POST", "/connectors", Some(&sink_body)).0, 201);

    wait_until("the source topics", Duration::from_secs(60), || {
        ferry.topics(&src_a) == vec![a.clone()]
    });
    wait_until("the other source's topic", Duration::from_secs(60), || {
        ferry.topics(&src_b) == vec![b.clone()]
    });
    let mut both = vec![a.clone(), b.clone()];
    both.sort();
    wait_until("both sink topics", Duration::from_secs(60), || {
        ferry.topics(&sink) == both
    });
    let (_, body) = ferry.call("GET", &format!("/connectors/{sink}/topics"), None);
    assert_eq!(body.as_object().unwrap().len(), 1, "{body}");

    // Reset while topic b is idle: only a comes back, once new data flows through it.
    assert_eq!(
        ferry
            .call("PUT", &format!("/connectors/{sink}/topics/reset"), None)
            .0,
        202
    );
    assert!(ferry.topics(&sink).is_empty());
    append(dir.path(), "a.txt", 10, 20);
    wait_until(
        "topic a to be active again",
        Duration::from_secs(60),
        || ferry.topics(&sink) == vec![a.clone()],
    );
    assert_eq!(
        ferry.topics(&sink),
        vec![a.clone()],
        "the idle topic b must stay out"
    );

    // Pausing and restarting keep the topics; deleting clears them.
    assert_eq!(
        ferry
            .call("PUT", &format!("/connectors/{src_a}/pause"), None)
            .0,
        202
    );
    assert_eq!(
        ferry
            .call(
                "POST",
                &format!("/connectors/{src_a}/restart?includeTasks=true"),
                None
            )
            .0,
        202
    );
    assert_eq!(ferry.topics(&src_a), vec![a.clone()]);
    assert_eq!(
        ferry
            .call("DELETE", &format!("/connectors/{src_a}"), None)
            .0,
        204
    );
    assert!(ferry.topics(&src_a).is_empty());
    ferry.stop();
}

#[test]
fn topic_tracking_switched_off_records_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let port = port();
    let worker = worker_properties(dir.path(), port, 500);
    let mut settings = std::fs::read_to_string(&worker).unwrap();
    settings.push_str("topic.tracking.enable=false\n");
    std::fs::write(&worker, settings).unwrap();
    let ferry = Ferry::start(dir.path(), port, &worker, &[]);
    let (name, topic) = (unique("quiet"), unique("quiet-topic"));
    assert_eq!(
        ferry
            .call(
                "POST",
                "/connectors",
                Some(&source(dir.path(), &name, "q.txt", &topic))
            )
            .0,
        201
    );
    wait_until("the records", Duration::from_secs(60), || {
        topic_records(&topic) == 10
    });
    assert_eq!(
        ferry.call("GET", &format!("/connectors/{name}/topics"), None),
        (
            403,
            serde_json::json!({"error_code": 403, "message": "Topic tracking is disabled."})
        )
    );
    ferry.stop();
}

#[test]
fn restarting_failed_tasks_of_a_real_connector() {
    let dir = tempfile::tempdir().unwrap();
    let port = port();
    let worker = worker_properties(dir.path(), port, 500);
    let ferry = Ferry::start(dir.path(), port, &worker, &[]);
    let (healthy, broken) = (unique("healthy"), unique("broken"));
    let topic = unique("restart-topic");
    assert_eq!(
        ferry
            .call(
                "POST",
                "/connectors",
                Some(&source(dir.path(), &healthy, "h.txt", &topic))
            )
            .0,
        201
    );
    // Reading a directory fails in the task's poll.
    let broken_body = format!(
        r#"{{"name":"{broken}","config":{{"connector.class":"FileStreamSource","file":"{}","topic":"{}"}}}}"#,
        dir.path().display(),
        unique("never")
    );
    assert_eq!(ferry.call("POST", "/connectors", Some(&broken_body)).0, 201);
    wait_until("the broken task to fail", Duration::from_secs(60), || {
        ferry.task_state(&broken, 0).as_deref() == Some("FAILED")
    });
    wait_until("the healthy task", Duration::from_secs(60), || {
        ferry.task_state(&healthy, 0).as_deref() == Some("RUNNING")
    });

    let (status, body) = ferry.call(
        "POST",
        &format!("/connectors/{broken}/restart?includeTasks=true&onlyFailed=true"),
        None,
    );
    assert_eq!(status, 202);
    assert_eq!(body["connector"]["state"], "RUNNING");
    assert_eq!(body["tasks"][0]["state"], "RESTARTING");
    wait_until(
        "the restarted task to fail again",
        Duration::from_secs(60),
        || ferry.task_state(&broken, 0).as_deref() == Some("FAILED"),
    );
    let (status, body) = ferry.call(
        "POST",
        &format!("/connectors/{healthy}/restart?includeTasks=true&onlyFailed=true"),
        None,
    );
    assert_eq!(status, 202);
    assert_eq!(
        (
            body["connector"]["state"].clone(),
            body["tasks"][0]["state"].clone()
        ),
        ("RUNNING".into(), "RUNNING".into())
    );
    // The healthy connector's data kept flowing.
    append(dir.path(), "h.txt", 10, 15);
    wait_until(
        "the healthy connector's records",
        Duration::from_secs(60),
        || topic_records(&topic) == 15,
    );
    ferry.stop();
}
