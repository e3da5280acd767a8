//! `GET /metrics` on a real broker: counters equal the records moved, states follow the tasks,
//! a separate metrics listener, and a distributed worker's rebalance and assignment metrics.
#![cfg(feature = "kafka-integration-tests")]

mod support;

use std::time::Duration;

use support::*;

fn append(path: &std::path::Path, text: &str) {
    let existing = std::fs::read_to_string(path).unwrap();
    write_file(path, &format!("{existing}{text}"));
}

#[test]
fn pipeline_counters_equal_the_records_moved_and_states_follow_pause_and_resume() {
    let dir = tempfile::tempdir().unwrap();
    let (port, metrics_port) = (port(), port());
    let worker = worker_properties(dir.path(), port, 500);
    append(
        &worker,
        &format!(
            "ferry.metrics.client.statistics.interval.ms=500\nferry.metrics.listeners=http://127.0.0.1:{metrics_port}\n"
        ),
    );
    let ferry = Ferry::start(dir.path(), port, &worker, &[]);
    let (topic, src, sink) = (unique("metrics"), unique("msrc"), unique("msink"));
    std::fs::write(dir.path().join("in.txt"), numbered_lines(0, 5000)).unwrap();
    let out = dir.path().join("out.txt");
    for body in [
        format!(
            r#"{{"name":"{src}","config":{{"connector.class":"FileStreamSource","file":"{}","topic":"{topic}"}}}}"#,
            dir.path().join("in.txt").display()
        ),
        format!(
            r#"{{"name":"{sink}","config":{{"connector.class":"FileStreamSink","file":"{}","topics":"{topic}"}}}}"#,
            out.display()
        ),
    ] {
        assert_eq!(ferry.call("POST", "/connectors", Some(&body)).0, 201);
    }
    wait_until(
        "5,000 lines in the sink's file",
        Duration::from_secs(60),
        || lines(&out).len() == 5000,
    );

    let source_task = [("connector", src.as_str()), ("task", "0")];
    let sink_task = [("connector", sink.as_str()), ("task", "0")];
    let producer = format!("connector-producer-{src}-0");
    let consumer = format!("connector-consumer-{sink}-0");
    type Expected<'a> = Vec<(&'a str, Vec<(&'a str, &'a str)>, f64)>;
    let expected: Expected<'_> = vec![
        (
            "kafka_connect_source_task_source_record_poll_total",
            source_task.to_vec(),
            5000.0,
        ),
        (
            "kafka_connect_source_task_source_record_write_total",
            source_task.to_vec(),
            5000.0,
        ),
        (
            "kafka_connect_sink_task_sink_record_read_total",
            sink_task.to_vec(),
            5000.0,
        ),
        (
            "kafka_connect_sink_task_sink_record_send_total",
            sink_task.to_vec(),
            5000.0,
        ),
        (
            "kafka_connect_sink_task_partition_count",
            sink_task.to_vec(),
            1.0,
        ),
        ("kafka_connect_worker_connector_count", vec![], 2.0),
        ("kafka_connect_worker_task_count", vec![], 2.0),
        (
            "kafka_connect_worker_connector_startup_success_total",
            vec![],
            2.0,
        ),
        (
            "kafka_connect_worker_task_startup_success_total",
            vec![],
            2.0,
        ),
        (
            "kafka_connect_task_error_total_record_errors",
            sink_task.to_vec(),
            0.0,
        ),
        // The clients' own counts, from librdkafka's statistics.
        (
            "kafka_producer_record_send_total",
            vec![("clientid", producer.as_str())],
            5000.0,
        ),
        (
            "kafka_producer_record_error_total",
            vec![("clientid", producer.as_str())],
            0.0,
        ),
        (
            "kafka_producer_topic_record_send_total",
            vec![("clientid", producer.as_str()), ("topic", topic.as_str())],
            5000.0,
        ),
        (
            "kafka_consumer_fetch_manager_records_consumed_total",
            vec![("clientid", consumer.as_str())],
            5000.0,
        ),
    ];
    let mut text = String::new();
    wait_until(
        "the metrics to count every record",
        Duration::from_secs(30),
        || {
            text = scrape(port);
            expected
                .iter()
                .all(|(name, labels, value)| metric(&text, name, labels) == Some(*value))
        },
    );
    wait_until(
        "the consumer's lag to reach 0",
        Duration::from_secs(20),
        || {
            let lag = [("clientid", consumer.as_str()), ("partition", "0")];
            metric(
                &scrape(port),
                "kafka_consumer_fetch_manager_records_lag",
                &lag,
            ) == Some(0.0)
        },
    );
    assert!(
        metric(
            &text,
            "kafka_producer_request_latency_avg",
            &[("clientid", producer.as_str())]
        )
        .is_some(),
        "request latency (NaN while idle, as Java's average of no samples)"
    );
    let running = [
        ("connector", src.as_str()),
        ("task", "0"),
        ("status", "running"),
    ];
    assert_eq!(
        metric(&text, "kafka_connect_connector_task_status", &running),
        Some(1.0)
    );

    // Paused and resumed: the status series follow.
    assert_eq!(
        ferry
            .call("PUT", &format!("/connectors/{src}/pause"), None)
            .0,
        202
    );
    let paused = [
        ("connector", src.as_str()),
        ("task", "0"),
        ("status", "paused"),
    ];
    wait_until(
        "the paused task's status series",
        Duration::from_secs(20),
        || {
            let text = scrape(port);
            metric(&text, "kafka_connect_connector_task_status", &paused) == Some(1.0)
                && metric(
                    &text,
                    "kafka_connect_connector_status",
                    &[("connector", &src), ("status", "paused")],
                ) == Some(1.0)
                && metric(
                    &text,
                    "kafka_connect_worker_connector_paused_task_count",
                    &[("connector", &src)],
                ) == Some(1.0)
        },
    );
    assert!(
        metric(
            &scrape(port),
            "kafka_connect_connector_task_pause_ratio",
            &source_task
        )
        .unwrap()
            > 0.0
    );
    assert_eq!(
        ferry
            .call("PUT", &format!("/connectors/{src}/resume"), None)
            .0,
        202
    );
    wait_until(
        "the resumed task's status series",
        Duration::from_secs(20),
        || {
            metric(
                &scrape(port),
                "kafka_connect_connector_task_status",
                &running,
            ) == Some(1.0)
        },
    );

    // The metrics listener serves the same metrics and nothing of the REST API.
    let separate = scrape(metrics_port);
    assert_eq!(
        metric(&separate, "kafka_connect_worker_connector_count", &[]),
        Some(2.0)
    );
    assert_eq!(http_status(metrics_port, "/connectors"), 404);

    // A deleted connector's series go away with it.
    assert_eq!(
        ferry.call("DELETE", &format!("/connectors/{src}"), None).0,
        204
    );
    wait_until(
        "the deleted connector's series to go",
        Duration::from_secs(20),
        || {
            let text = scrape(port);
            metric(
                &text,
                "kafka_connect_source_task_source_record_poll_total",
                &source_task,
            )
            .is_none()
                && metric(&text, "kafka_connect_worker_connector_count", &[]) == Some(1.0)
        },
    );
    ferry.stop();
}

#[test]
fn a_distributed_worker_reports_its_rebalances_and_assignment() {
    let dir = tempfile::tempdir().unwrap();
    let port = port();
    let cluster = unique("metrics-cluster");
    let worker = distributed_properties(dir.path(), port, &cluster, "");
    let ferry = Ferry::distributed(dir.path(), port, &worker);
    let src = unique("dsrc");
    std::fs::write(dir.path().join("in.txt"), numbered_lines(0, 10)).unwrap();
    let body = format!(
        r#"{{"connector.class":"FileStreamSource","file":"{}","topic":"{}"}}"#,
        dir.path().join("in.txt").display(),
        unique("dmetrics")
    );
    assert_eq!(
        ferry
            .call("PUT", &format!("/connectors/{src}/config"), Some(&body))
            .0,
        201
    );
    let client = format!("\\\"connect-127.0.0.1:{port}\\\"");
    wait_until(
        "the assignment in the coordinator metrics",
        Duration::from_secs(60),
        || {
            let text = scrape(port);
            metric(
                &text,
                "kafka_connect_coordinator_assigned_connectors",
                &[("clientid", &client)],
            ) == Some(1.0)
                && metric(
                    &text,
                    "kafka_connect_coordinator_assigned_tasks",
                    &[("clientid", &client)],
                ) == Some(1.0)
        },
    );
    let text = scrape(port);
    assert!(
        metric(
            &text,
            "kafka_connect_worker_rebalance_completed_rebalances_total",
            &[]
        )
        .unwrap()
            >= 1.0,
        "{text}"
    );
    assert!(metric(&text, "kafka_connect_worker_rebalance_epoch", &[]).unwrap() >= 1.0);
    assert_eq!(
        metric(&text, "kafka_connect_worker_rebalance_rebalancing", &[]),
        Some(0.0)
    );
    assert_eq!(
        metric(
            &text,
            "kafka_connect_worker_rebalance_connect_protocol",
            &[("connect_protocol", "SESSIONED")]
        ),
        Some(1.0)
    );
    let leader = format!("http://127.0.0.1:{port}/");
    assert_eq!(
        metric(
            &text,
            "kafka_connect_worker_rebalance_leader_name",
            &[("leader_name", &leader)]
        ),
        Some(1.0),
        "{text}"
    );
    ferry.stop();
}
