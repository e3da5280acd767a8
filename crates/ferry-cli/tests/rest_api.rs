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

    // Failed tasks only: the broken task is stopped and started again, its connector is not.
    let (connector_before, task_before) = (
        ferry.connector_starts(&broken),
        ferry.task_starts(&broken, 0),
    );
    assert_eq!(
        (connector_before, task_before),
        (1, 1),
        "{}",
        ferry.log_text()
    );
    let (status, body) = ferry.call(
        "POST",
        &format!("/connectors/{broken}/restart?includeTasks=true&onlyFailed=true"),
        None,
    );
    assert_eq!(status, 202);
    assert_eq!(body["connector"]["state"], "RUNNING");
    assert_eq!(body["tasks"][0]["state"], "RESTARTING");
    wait_until(
        "the broken task to start again",
        Duration::from_secs(60),
        || ferry.task_starts(&broken, 0) == 2,
    );
    wait_until(
        "the restarted task to fail again",
        Duration::from_secs(60),
        || ferry.task_state(&broken, 0).as_deref() == Some("FAILED"),
    );
    assert_eq!(ferry.connector_starts(&broken), 1);

    // Nothing of a healthy connector has failed, so nothing restarts.
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
    // Everything of the healthy connector restarts with onlyFailed=false.
    let (status, body) = ferry.call(
        "POST",
        &format!("/connectors/{healthy}/restart?includeTasks=true"),
        None,
    );
    assert_eq!(
        (status, body["connector"]["state"].clone()),
        (202, "RESTARTING".into())
    );
    wait_until(
        "the healthy task to start again",
        Duration::from_secs(60),
        || ferry.task_starts(&healthy, 0) == 2,
    );
    assert_eq!(ferry.connector_starts(&healthy), 2);
    // The connector alone restarts with the plain request (204), its task keeps running.
    assert_eq!(
        ferry
            .call("POST", &format!("/connectors/{healthy}/restart"), None)
            .0,
        204
    );
    assert_eq!(
        (
            ferry.connector_starts(&healthy),
            ferry.task_starts(&healthy, 0)
        ),
        (3, 2)
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

#[test]
fn offsets_of_real_source_and_sink_connectors() {
    let dir = tempfile::tempdir().unwrap();
    let port = port();
    let worker = worker_properties(dir.path(), port, 500);
    let ferry = Ferry::start(dir.path(), port, &worker, &[]);
    let (src, sink, topic) = (unique("off-src"), unique("off-sink"), unique("off-topic"));
    let out = dir.path().join("out.txt");
    assert_eq!(
        ferry
            .call(
                "POST",
                "/connectors",
                Some(&source(dir.path(), &src, "in.txt", &topic))
            )
            .0,
        201
    );
    let sink_body = format!(
        r#"{{"name":"{sink}","config":{{"connector.class":"FileStreamSink","file":"{}","topics":"{topic}"}}}}"#,
        out.display()
    );
    assert_eq!(ferry.call("POST", "/connectors", Some(&sink_body)).0, 201);
    wait_until(
        "10 lines through the pipeline",
        Duration::from_secs(60),
        || lines(&out).len() == 10,
    );

    // Source: the stored position is the end of the file; rewinding it re-reads every line.
    let file = dir.path().join("in.txt").display().to_string();
    let size = std::fs::metadata(dir.path().join("in.txt")).unwrap().len();
    assert_eq!(
        ferry
            .call("PUT", &format!("/connectors/{src}/stop"), None)
            .0,
        204
    );
    wait_until("the source offsets", Duration::from_secs(30), || {
        ferry
            .call("GET", &format!("/connectors/{src}/offsets"), None)
            .1
            == serde_json::json!({"offsets": [{"partition": {"filename": file}, "offset": {"position": size}}]})
    });
    let rewind = format!(
        r#"{{"offsets":[{{"partition":{{"filename":"{file}"}},"offset":{{"position":0}}}}]}}"#
    );
    assert_eq!(
        ferry.call(
            "PATCH",
            &format!("/connectors/{src}/offsets"),
            Some(&rewind)
        ),
        (
            200,
            serde_json::json!({"message": "The offsets for this connector have been altered successfully"})
        )
    );
    assert_eq!(
        ferry
            .call("PUT", &format!("/connectors/{src}/resume"), None)
            .0,
        202
    );
    wait_until("the file read again", Duration::from_secs(60), || {
        topic_records(&topic) == 20
    });
    wait_until("the sink to catch up", Duration::from_secs(60), || {
        lines(&out).len() == 20
    });

    // Sink: the group's committed offset is the topic's end; moving it back redelivers.
    assert_eq!(
        ferry
            .call("PUT", &format!("/connectors/{sink}/stop"), None)
            .0,
        204
    );
    wait_until("the sink offsets", Duration::from_secs(30), || {
        ferry
            .call("GET", &format!("/connectors/{sink}/offsets"), None)
            .1
            == serde_json::json!({"offsets": [{"partition": {"kafka_topic": topic, "kafka_partition": 0}, "offset": {"kafka_offset": 20}}]})
    });
    let back = format!(
        r#"{{"offsets":[{{"partition":{{"kafka_topic":"{topic}","kafka_partition":0}},"offset":{{"kafka_offset":"15"}}}}]}}"#
    );
    assert_eq!(
        ferry
            .call("PATCH", &format!("/connectors/{sink}/offsets"), Some(&back))
            .0,
        200
    );
    assert_eq!(
        ferry
            .call("PUT", &format!("/connectors/{sink}/resume"), None)
            .0,
        202
    );
    wait_until(
        "five records delivered again",
        Duration::from_secs(60),
        || lines(&out).len() == 25,
    );

    // Resetting deletes the group: everything is delivered once more from the start.
    assert_eq!(
        ferry
            .call("PUT", &format!("/connectors/{sink}/stop"), None)
            .0,
        204
    );
    let (status, body) = ferry.call("DELETE", &format!("/connectors/{sink}/offsets"), None);
    assert_eq!(
        (status, body["message"].clone()),
        (
            200,
            "The offsets for this connector have been reset successfully".into()
        )
    );
    assert_eq!(
        ferry
            .call("GET", &format!("/connectors/{sink}/offsets"), None)
            .1,
        serde_json::json!({"offsets": []})
    );
    assert_eq!(
        ferry
            .call("PUT", &format!("/connectors/{sink}/resume"), None)
            .0,
        202
    );
    wait_until(
        "all 20 records delivered again",
        Duration::from_secs(60),
        || lines(&out).len() == 45,
    );
    ferry.stop();
}

/// A real third-party client of the Connect API, installed from PyPI by `scripts/test` into the
/// interpreter named by `FERRY_PYTHON`.
#[test]
fn a_third_party_client_drives_the_api() {
    let python = std::env::var("FERRY_PYTHON").unwrap_or_else(|_| {
        panic!("FERRY_PYTHON is not set: scripts/test installs kafka-connect-py and sets it")
    });
    let dir = tempfile::tempdir().unwrap();
    let port = port();
    let worker = worker_properties(dir.path(), port, 500);
    let ferry = Ferry::start(dir.path(), port, &worker, &[]);
    let input = dir.path().join("in.txt");
    std::fs::write(&input, numbered_lines(0, 10)).unwrap();
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/clients/kafka_connect_py_flow.py"
    );
    let out = std::process::Command::new(python)
        .arg(script)
        .arg(format!("http://127.0.0.1:{port}"))
        .arg(&input)
        .arg(unique("client-topic"))
        .arg(unique("client"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the client flow failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    ferry.stop();
}

/// A worker with `extra` settings and no connectors.
fn worker_with(dir: &std::path::Path, port: u16, extra: &str) -> Ferry {
    let worker = worker_properties(dir, port, 1000);
    let text = std::fs::read_to_string(&worker).unwrap();
    write_file(&worker, &format!("{text}{extra}"));
    Ferry::start(dir, port, &worker, &[])
}

fn sink_config(name: &str, dir: &std::path::Path, overrides: &[(&str, &str)]) -> serde_json::Value {
    let mut config = serde_json::json!({
        "connector.class": "FileStreamSink",
        "name": name,
        "file": dir.join("out.txt").display().to_string(),
        "topics": "t",
    });
    for (k, v) in overrides {
        config[*k] = serde_json::json!(v);
    }
    config
}

fn sink_with(name: &str, dir: &std::path::Path, overrides: &[(&str, &str)]) -> String {
    serde_json::json!({"name": name, "config": sink_config(name, dir, overrides)}).to_string()
}

#[test]
fn the_client_override_policy_refuses_what_it_does_not_allow_with_java_s_message() {
    // (worker settings, override, expected status, text the refusal names)
    let cases: &[(&str, (&str, &str), u16, &str)] = &[
        (
            "connector.client.config.override.policy=None\n",
            ("producer.override.acks", "1"),
            400,
            "The 'None' policy does not allow 'acks' to be overridden in the connector configuration.",
        ),
        (
            "connector.client.config.override.policy=Principal\n",
            ("consumer.override.security.protocol", "PLAINTEXT"),
            201,
            "",
        ),
        (
            "connector.client.config.override.policy=Principal\n",
            ("consumer.override.max.poll.records", "10"),
            400,
            "The 'Principal' policy does not allow 'max.poll.records'",
        ),
        // Java's default (All) still refuses raw librdkafka settings unless the worker
        // consents, and those that run commands always.
        ("", ("consumer.override.librdkafka.fetch.wait.max.ms", "10"), 400, "'librdkafka.fetch.wait.max.ms'"),
        (
            "ferry.client.config.override.librdkafka=true\n",
            ("consumer.override.librdkafka.fetch.wait.max.ms", "10"),
            201,
            "",
        ),
        (
            "ferry.client.config.override.librdkafka=true\n",
            ("consumer.override.librdkafka.sasl.kerberos.kinit.cmd", "touch /tmp/pwned"),
            400,
            "runs a command",
        ),
    ];
    for (i, (worker, (key, value), status, named)) in cases.iter().enumerate() {
        let dir = tempfile::tempdir().unwrap();
        let ferry = worker_with(dir.path(), port(), worker);
        let (code, body) = ferry.call(
            "POST",
            "/connectors",
            Some(&sink_with(
                &format!("case-{i}"),
                dir.path(),
                &[(key, value)],
            )),
        );
        assert_eq!(code, *status, "{worker} {key}: {body}");
        assert!(
            body["message"].as_str().unwrap_or("").contains(named),
            "{worker} {key}: {body}"
        );
        if i == 0 {
            // Validation lists the key with the policy's verdict.
            let (code, validated) = ferry.call(
                "PUT",
                "/connector-plugins/FileStreamSink/config/validate",
                Some(
                    &sink_config(
                        "v",
                        dir.path(),
                        &[("consumer.override.max.poll.records", "10")],
                    )
                    .to_string(),
                ),
            );
            assert_eq!(code, 200, "{validated}");
            let entry = validated["configs"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["value"]["name"] == "consumer.override.max.poll.records")
                .cloned()
                .unwrap_or_default();
            assert_eq!(
                entry["value"]["errors"],
                serde_json::json!(["The 'None' policy does not allow 'max.poll.records' to be overridden in the connector configuration."]),
                "{validated}"
            );
        }
        ferry.stop();
    }
}

#[test]
fn basic_auth_configured_as_for_java_locks_the_api_and_exempts_internal_requests() {
    let dir = tempfile::tempdir().unwrap();
    let port = port();
    let opts = basic_auth_files(dir.path(), "alice=s3cret\nbob: hunter2\n");
    let worker = worker_properties(dir.path(), port, 1000);
    let text = std::fs::read_to_string(&worker).unwrap();
    write_file(
        &worker,
        &format!("{text}rest.extension.classes=org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension\n"),
    );
    let ferry = Ferry::start_with_env(dir.path(), port, &worker, &[], &[("KAFKA_OPTS", &opts)]);
    let (code, head, body) = ferry.raw("GET", "/connectors", &[], "");
    assert_eq!(code, 401, "{head}\n{body}");
    assert!(
        head.to_ascii_lowercase()
            .contains("www-authenticate: basic"),
        "{head}"
    );
    assert_eq!(body, "User cannot access the resource.");
    let wrong = basic("alice:nope");
    assert_eq!(
        ferry
            .raw("GET", "/connectors", &[("Authorization", &wrong)], "")
            .0,
        401
    );
    for user in ["alice:s3cret", "bob:hunter2"] {
        let right = basic(user);
        let (code, _, body) = ferry.raw("GET", "/connectors", &[("Authorization", &right)], "");
        assert_eq!(code, 200, "{user}: {body}");
    }
    // Task configs between workers are signed, not authenticated (Java exempts them too).
    let (code, _, _) = ferry.raw("POST", "/connectors/x/tasks", &[], "[]");
    assert_ne!(code, 401);
    assert!(!ferry.log_text().contains("s3cret"));
    ferry.stop();

    // Another extension class would leave the API open: start-up stops instead.
    let dir = tempfile::tempdir().unwrap();
    let worker = worker_properties(dir.path(), support::port(), 1000);
    let text = std::fs::read_to_string(&worker).unwrap();
    write_file(
        &worker,
        &format!("{text}rest.extension.classes=com.example.AuditExtension\n"),
    );
    let stderr = start_fails(dir.path(), &worker, &[]);
    assert!(stderr.contains("com.example.AuditExtension"), "{stderr}");
}

fn tls_dir() -> std::path::PathBuf {
    std::path::PathBuf::from(std::env::var("FERRY_KAFKA_TLS").expect(
        "FERRY_KAFKA_TLS must name the certificates scripts/kafka generated (scripts/test sets it)",
    ))
}

/// curl against the worker; the status code and body.
fn curl(args: &[&str], url: &str) -> (u16, String) {
    let out = std::process::Command::new("curl")
        .args(["-s", "-o", "-", "-w", "\n%{http_code}"])
        .args(args)
        .arg(url)
        .output()
        .expect("curl is needed for the HTTPS tests");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let (body, code) = text.rsplit_once('\n').unwrap_or(("", "0"));
    (code.trim().parse().unwrap_or(0), body.to_owned())
}

#[test]
fn https_listeners_with_client_authentication_and_admin_listeners_split_off() {
    let dir = tempfile::tempdir().unwrap();
    let tls = tls_dir();
    let (http, https, admin) = (port(), port(), port());
    let worker = worker_properties(dir.path(), http, 1000);
    let text = std::fs::read_to_string(&worker)
        .unwrap()
        .replace(&format!("listeners=http://127.0.0.1:{http}"), "");
    write_file(
        &worker,
        &format!(
            "{text}listeners=http://127.0.0.1:{http},https://localhost:{https}\n\
             admin.listeners=http://127.0.0.1:{admin}\n\
             listeners.https.ssl.keystore.type=PKCS12\n\
             listeners.https.ssl.keystore.location={}\n\
             listeners.https.ssl.keystore.password=ferry-pass\n\
             listeners.https.ssl.key.password=ferry-pass\n\
             listeners.https.ssl.truststore.type=PEM\n\
             listeners.https.ssl.truststore.location={}\n\
             listeners.https.ssl.client.auth=required\n",
            tls.join("broker.p12").display(),
            tls.join("ca.pem").display()
        ),
    );
    let ferry = Ferry::start(dir.path(), http, &worker, &[]);
    let ca = tls.join("ca.pem").display().to_string();
    let (cert, key) = (
        tls.join("client.pem").display().to_string(),
        tls.join("client.key").display().to_string(),
    );
    let url = format!("https://localhost:{https}/");
    let (code, body) = curl(&["--cacert", &ca, "--cert", &cert, "--key", &key], &url);
    assert_eq!(code, 200, "{body}");
    assert!(body.contains("kafka_cluster_id"), "{body}");
    // No client certificate: the handshake fails; an untrusted server: curl refuses.
    assert_eq!(curl(&["--cacert", &ca], &url).0, 0);
    assert_eq!(curl(&["--cert", &cert, "--key", &key], &url).0, 0);
    // The admin endpoints live on the admin listener only.
    assert_eq!(ferry.call("GET", "/admin/loggers", None).0, 404);
    assert_eq!(ferry.call("GET", "/connectors", None).0, 200);
    let (code, body) = curl(&[], &format!("http://127.0.0.1:{admin}/admin/loggers"));
    assert_eq!(code, 200, "{body}");
    assert!(body.contains("root"), "{body}");
    assert_eq!(
        curl(&[], &format!("http://127.0.0.1:{admin}/connectors")).0,
        404
    );
    ferry.stop();
}

#[test]
fn a_third_party_client_drives_the_api_over_https() {
    let python = std::env::var("FERRY_PYTHON").unwrap_or_else(|_| {
        panic!("FERRY_PYTHON is not set: scripts/test installs kafka-connect-py and sets it")
    });
    let dir = tempfile::tempdir().unwrap();
    let tls = tls_dir();
    let (http, https) = (port(), port());
    let worker = worker_properties(dir.path(), http, 500);
    let text = std::fs::read_to_string(&worker)
        .unwrap()
        .replace(&format!("listeners=http://127.0.0.1:{http}"), "");
    // The worker's top-level ssl.* serve the HTTPS listener when no listeners.https.* is set.
    write_file(
        &worker,
        &format!(
            "{text}listeners=http://127.0.0.1:{http},https://localhost:{https}\n\
             ssl.keystore.location={}\nssl.keystore.password=ferry-pass\nssl.key.password=ferry-pass\n",
            tls.join("broker.p12").display()
        ),
    );
    let ferry = Ferry::start(dir.path(), http, &worker, &[]);
    let input = dir.path().join("in.txt");
    std::fs::write(&input, numbered_lines(0, 10)).unwrap();
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/clients/kafka_connect_py_flow.py"
    );
    let out = std::process::Command::new(python)
        .arg(script)
        .arg(format!("https://localhost:{https}"))
        .arg(&input)
        .arg(unique("tls-client-topic"))
        .arg(unique("tls-client"))
        .env("REQUESTS_CA_BUNDLE", tls.join("ca.pem"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the client flow over HTTPS failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    ferry.stop();
}

/// schemathesis (from PyPI, installed by scripts/test) generates requests from the served
/// OpenAPI document, valid and invalid, for a bounded run: a client's mistake must never get
/// a 5xx.
#[test]
fn a_fuzzing_run_of_the_openapi_document_finds_no_server_error() {
    let st = std::env::var("FERRY_SCHEMATHESIS").unwrap_or_else(|_| {
        panic!("FERRY_SCHEMATHESIS is not set: scripts/test installs schemathesis and sets it")
    });
    let dir = tempfile::tempdir().unwrap();
    let port = port();
    let worker = worker_properties(dir.path(), port, 1000);
    let ferry = Ferry::start(dir.path(), port, &worker, &[]);
    // A real connector, so requests naming it reach more than the not-found paths.
    let (code, body) = ferry.call(
        "POST",
        "/connectors",
        Some(&source(dir.path(), "fuzz-src", "in.txt", &unique("fuzz"))),
    );
    assert_eq!(code, 201, "{body}");
    let out = std::process::Command::new(st)
        .args([
            "run",
            &format!("http://127.0.0.1:{port}/openapi.json"),
            "--checks",
            "not_a_server_error",
            "--max-examples",
            "40",
            "--workers",
            "2",
            "--phases",
            "examples,fuzzing,stateful",
        ])
        // schemathesis keeps a cache in its working directory: not in the repository.
        .current_dir(dir.path())
        .output()
        .unwrap();
    let report = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success(),
        "schemathesis found server errors:\n{report}"
    );
    assert!(report.contains("passed"), "{report}");
    // The worker survived the run.
    assert_eq!(ferry.call("GET", "/", None).0, 200);
    ferry.stop();
}
