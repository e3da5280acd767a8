//! Java connector plugins from `plugin.path`, run by the plugin host, on a real Kafka broker:
//! Apache Kafka's own `connect-file` jar in a temporary plugin directory, routed to the host
//! with `ferry.plugin.preference=plugin.path`.
#![cfg(feature = "kafka-integration-tests")]

mod support;

use std::path::{Path, PathBuf};

use std::time::Duration;

use support::*;

fn hosted_worker(dir: &Path, port: u16) -> PathBuf {
    let worker = worker_properties(dir, port, 1000);
    let mut text = std::fs::read_to_string(&worker).unwrap();
    text.push_str(&format!(
        "plugin.path={}\nferry.plugin.preference=plugin.path\n",
        connect_file_plugin_path(dir).display()
    ));
    write_file(&worker, &text);
    worker
}

fn pipeline(dir: &Path, topic: &str) -> Vec<PathBuf> {
    vec![
        connector_file(dir, &format!("{topic}-src"), &format!("connector.class=FileStreamSource\nfile={}\ntopic={topic}\n", dir.join("in.txt").display())),
        connector_file(dir, &format!("{topic}-sink"), &format!("connector.class=org.apache.kafka.connect.file.FileStreamSinkConnector\nfile={}\ntopics={topic}\n", dir.join("out.txt").display())),
    ]
}

fn append(path: &Path, text: &str) {
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    std::io::Write::write_all(&mut f, text.as_bytes()).unwrap();
}

#[test]
fn java_file_connectors_from_plugin_path_run_and_resume_from_stored_offsets() {
    let dir = tempfile::tempdir().unwrap();
    let (topic, port) = (unique("hosted"), port());
    let total = 20_000;
    write_file(&dir.path().join("in.txt"), &numbered_lines(0, total));
    let worker = hosted_worker(dir.path(), port);
    let connectors = pipeline(dir.path(), &topic);
    let out = dir.path().join("out.txt");

    let ferry = Ferry::start(dir.path(), port, &worker, &connectors);
    wait_until(
        "every line in the sink file",
        Duration::from_secs(120),
        || lines(&out).len() >= total,
    );
    let expected: Vec<String> = numbered_lines(0, total)
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(lines(&out), expected, "every line once, in order");

    // The Java classes ran, in the host: Kafka's connectors report Kafka's version, not Ferry's.
    let status = ferry.status(&format!("{topic}-src"));
    assert_eq!(status["connector"]["version"], "4.4.0", "{status}");
    assert_eq!(status["tasks"][0]["version"], "4.4.0", "{status}");
    let log = ferry.log_text();
    assert!(log.contains("Started the plugin host"), "{log}");
    assert!(
        log.contains(
            "Started org.apache.kafka.connect.file.FileStreamSourceTask in the plugin host"
        ),
        "{log}"
    );
    assert!(
        log.contains("Started org.apache.kafka.connect.file.FileStreamSinkTask in the plugin host"),
        "{log}"
    );
    let (code, plugins) = ferry.call("GET", "/connector-plugins", None);
    assert_eq!(code, 200);
    assert!(
        plugins.as_array().unwrap().iter().any(|p| p["class"]
            == "org.apache.kafka.connect.file.FileStreamSourceConnector"
            && p["version"] == "4.4.0"),
        "{plugins}"
    );
    let (code, tasks) = ferry.call("GET", &format!("/connectors/{topic}-src/tasks"), None);
    assert_eq!(code, 200);
    assert_eq!(
        tasks[0]["config"]["task.class"], "org.apache.kafka.connect.file.FileStreamSourceTask",
        "{tasks}"
    );
    // Validation uses the Java connector's own ConfigDef and validate().
    let (code, validated) = ferry.call(
        "PUT",
        "/connector-plugins/FileStreamSinkConnector/config/validate",
        Some(r#"{"connector.class":"FileStreamSinkConnector","name":"v","topics":"t","file":"/tmp/x"}"#),
    );
    assert_eq!(code, 200, "{validated}");
    assert!(
        validated["configs"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["definition"]["name"] == "file"),
        "{validated}"
    );
    ferry.stop();

    // Lines added while the worker is down: the Java source task reads its stored offset back
    // through the host and goes on exactly there.
    append(
        &dir.path().join("in.txt"),
        &numbered_lines(total, total + 500),
    );
    let ferry = Ferry::start(dir.path(), port, &worker, &connectors);
    wait_until("the appended lines", Duration::from_secs(120), || {
        lines(&out).len() >= total + 500
    });
    let expected: Vec<String> = numbered_lines(0, total + 500)
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(
        lines(&out),
        expected,
        "no line twice and none lost after the restart"
    );
    ferry.stop();
}

/// The plugin host's pid: the `java` child of the worker.
fn host_pid(ferry: &Ferry) -> String {
    let out = std::process::Command::new("pgrep")
        .args(["-P", &ferry.child.id().to_string(), "java"])
        .output()
        .unwrap();
    let pid = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    assert!(!pid.is_empty(), "no plugin host process under the worker");
    pid
}

#[test]
fn a_killed_plugin_host_fails_its_tasks_with_the_cause_and_a_restart_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (topic, port) = (unique("hostkill"), port());
    let total = 500_000;
    write_file(&dir.path().join("in.txt"), &numbered_lines(0, total));
    let worker = hosted_worker(dir.path(), port);
    let connectors = pipeline(dir.path(), &topic);
    let out = dir.path().join("out.txt");
    let (src, sink) = (format!("{topic}-src"), format!("{topic}-sink"));

    let ferry = Ferry::start(dir.path(), port, &worker, &connectors);
    wait_until("the pipeline under way", Duration::from_secs(120), || {
        lines(&out).len() >= 50_000
    });
    let pid = host_pid(&ferry);
    assert!(std::process::Command::new("kill")
        .args(["-9", &pid])
        .status()
        .unwrap()
        .success());

    for name in [&src, &sink] {
        wait_until(
            &format!("{name}'s task FAILED"),
            Duration::from_secs(60),
            || ferry.task_state(name, 0).as_deref() == Some("FAILED"),
        );
        let status = ferry.status(name);
        let trace = status["tasks"][0]["trace"].as_str().unwrap_or("");
        assert!(
            trace.contains("plugin host") && trace.contains("killed by signal 9"),
            "{status}"
        );
        assert_eq!(status["connector"]["state"], "FAILED", "{status}");
    }
    // The worker and its REST API stayed up.
    assert_eq!(ferry.call("GET", "/", None).0, 200);

    for name in [&src, &sink] {
        let (code, body) = ferry.call(
            "POST",
            &format!("/connectors/{name}/restart?includeTasks=true"),
            None,
        );
        assert!(code == 202 || code == 200 || code == 204, "{code} {body}");
    }
    wait_until(
        "every line in the sink file after the restart",
        Duration::from_secs(240),
        || {
            let got = lines(&out);
            got.len() >= total
                && got.last().map(String::as_str) == numbered_lines(total - 1, total).lines().next()
        },
    );
    let got = lines(&out);
    let mut seen = std::collections::HashSet::new();
    for line in &got {
        seen.insert(line.as_str());
    }
    let missing: Vec<String> = numbered_lines(0, total)
        .lines()
        .filter(|l| !seen.contains(l))
        .map(str::to_owned)
        .collect();
    assert!(
        missing.is_empty(),
        "{} acknowledged lines lost, first {:?}",
        missing.len(),
        missing.first()
    );
    for name in [&src, &sink] {
        assert_eq!(ferry.task_state(name, 0).as_deref(), Some("RUNNING"));
    }
    assert_ne!(
        host_pid(&ferry),
        pid,
        "a new plugin host serves the restarted tasks"
    );
    ferry.stop();
}

/// The repository's Java test plugin (`scripts/plugin-host test-plugin` builds it and
/// scripts/test names its plugin.path in FERRY_TEST_PLUGIN_PATH).
fn test_plugin_path() -> String {
    std::env::var("FERRY_TEST_PLUGIN_PATH").expect(
        "FERRY_TEST_PLUGIN_PATH must name the test plugin's plugin.path (scripts/test sets it)",
    )
}

#[test]
fn a_plugin_that_exits_its_jvm_fails_only_java_work_and_a_fixed_config_runs_again() {
    let dir = tempfile::tempdir().unwrap();
    let (topic, port) = (unique("hostexit"), port());
    let worker = worker_properties(dir.path(), port, 1000);
    let mut text = std::fs::read_to_string(&worker).unwrap();
    text.push_str(&format!("plugin.path={}\n", test_plugin_path()));
    write_file(&worker, &text);
    let exiting = format!("{topic}-exit");
    let connectors = vec![
        connector_file(
            dir.path(),
            &exiting,
            &format!("connector.class=dev.ferry.testplugin.SequenceSourceConnector\ntopic={topic}\nexit.on.poll=3\n"),
        ),
        // Native work beside it: Ferry's own file source, which must not notice.
        connector_file(
            dir.path(),
            &format!("{topic}-native"),
            &format!("connector.class=FileStreamSource\nfile={}\ntopic={topic}-native\n", dir.path().join("in.txt").display()),
        ),
    ];
    write_file(&dir.path().join("in.txt"), &numbered_lines(0, 100));
    let ferry = Ferry::start(dir.path(), port, &worker, &connectors);
    wait_until("the exiting task FAILED", Duration::from_secs(120), || {
        ferry.task_state(&exiting, 0).as_deref() == Some("FAILED")
    });
    let status = ferry.status(&exiting);
    let trace = status["tasks"][0]["trace"].as_str().unwrap_or("");
    assert!(
        trace.contains("plugin host") && trace.contains("exit code 3"),
        "the trace names the cause: {status}"
    );
    // Native work and the REST API stayed up.
    assert_eq!(ferry.call("GET", "/", None).0, 200);
    let native = ferry.status(&format!("{topic}-native"));
    assert_eq!(native["tasks"][0]["state"], "RUNNING", "{native}");
    wait_until(
        "the native source's lines in Kafka",
        Duration::from_secs(60),
        || topic_records(&format!("{topic}-native")) >= 100,
    );

    // A config without the exit starts a new host and runs.
    let (code, body) = ferry.call(
        "PUT",
        &format!("/connectors/{exiting}/config"),
        Some(&format!(
            r#"{{"connector.class":"dev.ferry.testplugin.SequenceSourceConnector","topic":"{topic}","batch.size":"4"}}"#
        )),
    );
    assert_eq!(code, 200, "{body}");
    wait_until("the fixed task RUNNING", Duration::from_secs(120), || {
        ferry.task_state(&exiting, 0).as_deref() == Some("RUNNING")
    });
    wait_until("its records in Kafka", Duration::from_secs(60), || {
        topic_records(&topic) >= 4
    });
    ferry.stop();
}

/// The pids of the worker's plugin hosts whose command line matches `pattern`.
fn host_pids_matching(ferry: &Ferry, pattern: &str) -> Vec<String> {
    let out = std::process::Command::new("pgrep")
        .args(["-P", &ferry.child.id().to_string(), "-f", pattern])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .map(str::to_owned)
        .collect()
}

#[test]
fn with_one_host_per_connector_a_dead_host_fails_only_its_own_connector() {
    let dir = tempfile::tempdir().unwrap();
    let (topic, port) = (unique("perconn"), port());
    let total = 5_000;
    write_file(&dir.path().join("in.txt"), &numbered_lines(0, total));
    let worker = hosted_worker(dir.path(), port);
    let mut text = std::fs::read_to_string(&worker).unwrap();
    text.push_str("ferry.plugin.host.per.connector=true\n");
    write_file(&worker, &text);
    let connectors = pipeline(dir.path(), &topic);
    let out = dir.path().join("out.txt");
    let (src, sink) = (format!("{topic}-src"), format!("{topic}-sink"));

    let ferry = Ferry::start(dir.path(), port, &worker, &connectors);
    wait_until(
        "every line in the sink file",
        Duration::from_secs(120),
        || lines(&out).len() >= total,
    );
    // The shared host (plugin listing, validation) and one per connector.
    assert_eq!(host_pids_matching(&ferry, "dev.ferry.host.Host").len(), 3);
    let src_host = host_pids_matching(&ferry, &format!("ferry.host.connector={src}"));
    assert_eq!(src_host.len(), 1, "one host for {src}");
    assert!(std::process::Command::new("kill")
        .args(["-9", &src_host[0]])
        .status()
        .unwrap()
        .success());
    wait_until(
        &format!("{src}'s task FAILED"),
        Duration::from_secs(60),
        || ferry.task_state(&src, 0).as_deref() == Some("FAILED"),
    );
    // The sink's own host never noticed.
    let sink_status = ferry.status(&sink);
    assert_eq!(sink_status["tasks"][0]["state"], "RUNNING", "{sink_status}");
    assert_eq!(
        sink_status["connector"]["state"], "RUNNING",
        "{sink_status}"
    );

    // A restart brings the source back in a new host of its own, and it goes on.
    let (code, body) = ferry.call(
        "POST",
        &format!("/connectors/{src}/restart?includeTasks=true"),
        None,
    );
    assert!(code == 202 || code == 204, "{code} {body}");
    append(
        &dir.path().join("in.txt"),
        &numbered_lines(total, total + 100),
    );
    wait_until("the appended lines", Duration::from_secs(120), || {
        lines(&out).len() >= total + 100
    });
    let got: std::collections::BTreeSet<String> = lines(&out).into_iter().collect();
    assert_eq!(got.len(), total + 100, "every line, none lost");
    let new_host = host_pids_matching(&ferry, &format!("ferry.host.connector={src}"));
    assert_eq!(new_host.len(), 1);
    assert_ne!(new_host, src_host);

    // A deleted connector's host ends once nothing runs in it.
    let (code, _) = ferry.call("DELETE", &format!("/connectors/{sink}"), None);
    assert_eq!(code, 204);
    wait_until("the sink's host to end", Duration::from_secs(60), || {
        host_pids_matching(&ferry, &format!("ferry.host.connector={sink}")).is_empty()
    });
    assert_eq!(host_pids_matching(&ferry, "dev.ferry.host.Host").len(), 2);
    ferry.stop();
}

#[test]
fn admin_loggers_levels_reach_the_java_plugins_loggers() {
    let dir = tempfile::tempdir().unwrap();
    let (topic, port) = (unique("hostlog"), port());
    let worker = worker_properties(dir.path(), port, 1000);
    let mut text = std::fs::read_to_string(&worker).unwrap();
    text.push_str(&format!("plugin.path={}\n", test_plugin_path()));
    write_file(&worker, &text);
    let name = format!("{topic}-seq");
    let connectors = vec![connector_file(
        dir.path(),
        &name,
        &format!("connector.class=dev.ferry.testplugin.SequenceSourceConnector\ntopic={topic}\nbatch.size=2\n"),
    )];
    let ferry = Ferry::start(dir.path(), port, &worker, &connectors);
    wait_until("the task RUNNING", Duration::from_secs(120), || {
        ferry.task_state(&name, 0).as_deref() == Some("RUNNING")
    });
    let debug_line = "SequenceSourceTask starting at position";
    assert!(
        !ferry.log_text().contains(debug_line),
        "DEBUG is off for Java loggers by default"
    );

    let (code, body) = ferry.call(
        "PUT",
        "/admin/loggers/dev.ferry.testplugin",
        Some(r#"{"level":"DEBUG"}"#),
    );
    assert_eq!(code, 200, "{body}");
    assert!(
        body.as_array()
            .is_some_and(|a| a.contains(&serde_json::json!("dev.ferry.testplugin"))),
        "{body}"
    );
    let (_, level) = ferry.call("GET", "/admin/loggers/dev.ferry.testplugin", None);
    assert_eq!(level["level"], "DEBUG", "{level}");
    let (code, _) = ferry.call("POST", &format!("/connectors/{name}/tasks/0/restart"), None);
    assert_eq!(code, 204);
    wait_until(
        "the plugin's DEBUG line in Ferry's log",
        Duration::from_secs(60),
        || ferry.log_text().contains(debug_line),
    );
    let log = ferry.log_text();
    let line = log.lines().find(|l| l.contains(debug_line)).unwrap();
    assert!(
        line.contains("dev.ferry.testplugin.SequenceSourceTask") && line.contains("DEBUG"),
        "the Java logger's name and level come along: {line}"
    );
    ferry.stop();
}

#[test]
fn a_record_a_java_converter_rejects_reaches_the_dead_letter_queue_with_its_stage() {
    let dir = tempfile::tempdir().unwrap();
    let (topic, port) = (unique("hostdlq"), port());
    let worker = hosted_worker(dir.path(), port);
    let dlq = format!("{topic}-dlq");
    write_file(
        &dir.path().join("in.txt"),
        "\"good1\"\nnot json\n\"good2\"\n",
    );
    let connectors = vec![
        // Ferry's own source writes the lines as strings…
        connector_file(
            dir.path(),
            &format!("{topic}-src"),
            &format!("connector.class=FileStreamSource\nfile={}\ntopic={topic}\n", dir.path().join("in.txt").display()),
        ),
        // …which Kafka's sink, in the host, reads with Kafka's JsonConverter.
        connector_file(
            dir.path(),
            &format!("{topic}-sink"),
            &format!(
                "connector.class=org.apache.kafka.connect.file.FileStreamSinkConnector\nfile={}\ntopics={topic}\n\
                 value.converter=org.apache.kafka.connect.json.JsonConverter\nvalue.converter.schemas.enable=false\n\
                 errors.tolerance=all\nerrors.deadletterqueue.topic.name={dlq}\n\
                 errors.deadletterqueue.topic.replication.factor=1\nerrors.deadletterqueue.context.headers.enable=true\n",
                dir.path().join("out.txt").display()
            ),
        ),
    ];
    let ferry = Ferry::start(dir.path(), port, &worker, &connectors);
    let out = dir.path().join("out.txt");
    wait_until("the two good lines", Duration::from_secs(120), || {
        lines(&out).len() >= 2
    });
    assert_eq!(lines(&out), vec!["good1", "good2"]);
    let dead = read_all(&dlq, 1);
    assert_eq!(dead.len(), 1, "{dead:?}");
    let (value, headers) = &dead[0];
    assert_eq!(value.as_deref(), Some("not json"));
    assert_eq!(
        headers.get("__connect.errors.stage").map(String::as_str),
        Some("VALUE_CONVERTER"),
        "{headers:?}"
    );
    assert_eq!(
        headers
            .get("__connect.errors.class.name")
            .map(String::as_str),
        Some("org.apache.kafka.connect.json.JsonConverter"),
        "{headers:?}"
    );
    assert_eq!(
        headers.get("__connect.errors.offset").map(String::as_str),
        Some("1"),
        "{headers:?}"
    );
    ferry.stop();
}

#[test]
fn a_java_connector_s_transforms_are_checked_when_it_is_validated() {
    let dir = tempfile::tempdir().unwrap();
    let port = port();
    let worker = worker_properties(dir.path(), port, 1000);
    let mut text = std::fs::read_to_string(&worker).unwrap();
    text.push_str(&format!("plugin.path={}\n", test_plugin_path()));
    write_file(&worker, &text);
    let ferry = Ferry::start(dir.path(), port, &worker, &[]);
    let validate = |transform: &str| {
        ferry.call(
            "PUT",
            "/connector-plugins/SequenceSourceConnector/config/validate",
            Some(&format!(
                r#"{{"connector.class":"dev.ferry.testplugin.SequenceSourceConnector","name":"v","topic":"t","transforms":"a","transforms.a.type":"{transform}"}}"#
            )),
        )
    };
    // Only the host has this one: it exists, so no error.
    let (code, body) = validate("dev.ferry.testplugin.AffixValue");
    assert_eq!(
        (code, body["error_count"].clone()),
        (200, serde_json::json!(0)),
        "{body}"
    );
    // Ferry has this one too: configured as for a native connector (a missing field).
    let (_, body) = validate("org.apache.kafka.connect.transforms.HoistField$Value");
    assert_eq!(body["error_count"], 1, "{body}");
    // Nobody has this one.
    let (_, body) = validate("com.example.Nope");
    assert_eq!(body["error_count"], 1, "{body}");
    assert!(
        body.to_string()
            .contains("Class com.example.Nope could not be found."),
        "{body}"
    );
    let (code, body) = ferry.call(
        "POST",
        "/connectors",
        Some(r#"{"name":"bad","config":{"connector.class":"dev.ferry.testplugin.SequenceSourceConnector","topic":"t","transforms":"a","transforms.a.type":"com.example.Nope"}}"#),
    );
    assert_eq!(code, 400, "{body}");
    ferry.stop();
}

/// `GET /health` with its status code and body.
fn health(ferry: &Ferry) -> (u16, serde_json::Value) {
    ferry.call("GET", "/health", None)
}

#[test]
fn health_reports_a_stuck_herder_loop_and_its_recovery() {
    let dir = tempfile::tempdir().unwrap();
    let (topic, port) = (unique("stuck"), port());
    let cluster = unique("stuck-cluster");
    // A task's stop is the one plugin call the loop waits on (as Java's herder waits for
    // revoked tasks), for at most the graceful timeout: made long here.
    let worker = distributed_properties(
        dir.path(),
        port,
        &cluster,
        &format!(
            "plugin.path={}\nferry.plugin.host.call.timeout.ms=120000\ntask.shutdown.graceful.timeout.ms=120000\n",
            test_plugin_path()
        ),
    );
    let ferry = Ferry::distributed(dir.path(), port, &worker);
    let name = format!("{topic}-seq");
    let config = format!(
        r#"{{"connector.class":"dev.ferry.testplugin.SequenceSourceConnector","topic":"{topic}"}}"#
    );
    assert_eq!(
        ferry
            .call("PUT", &format!("/connectors/{name}/config"), Some(&config))
            .0,
        201
    );
    wait_until("the hosted task RUNNING", Duration::from_secs(120), || {
        ferry.task_state(&name, 0).as_deref() == Some("RUNNING")
    });
    assert_eq!(health(&ferry).0, 200);

    // With the plugin host frozen, restarting the task makes the loop wait on its stop, so
    // the loop cannot answer the health check.
    let pid = host_pid(&ferry);
    let signal = |sig: &str| {
        assert!(std::process::Command::new("kill")
            .args([sig, &pid])
            .status()
            .unwrap()
            .success());
    };
    signal("-STOP");
    let restart = {
        let path = format!("/connectors/{name}/tasks/0/restart");
        std::thread::spawn(move || http_call(port, "POST", &path))
    };
    let mut last = (0, serde_json::Value::Null);
    wait_until(
        "a health check to find the loop stuck",
        Duration::from_secs(90),
        || {
            last = health(&ferry);
            last.0 == 500
        },
    );
    signal("-CONT");
    let body = last.1;
    assert_eq!(body["status"], "unhealthy");
    assert_eq!(
        body["message"],
        "Worker was unable to handle this request and may be unable to handle other requests."
    );
    wait_until("the worker healthy again", Duration::from_secs(60), || {
        health(&ferry).0 == 200
    });
    wait_until("the task RUNNING again", Duration::from_secs(60), || {
        ferry.task_state(&name, 0).as_deref() == Some("RUNNING")
    });
    restart.join().unwrap();
    ferry.stop();
}

#[test]
fn failed_connectors_restart_automatically_until_they_start_or_reach_the_cap() {
    let dir = tempfile::tempdir().unwrap();
    let (topic, port) = (unique("connrestart"), port());
    let worker = worker_properties(dir.path(), port, 1000);
    append(
        &worker,
        &format!(
            "plugin.path={}\nferry.connector.restart.enable=true\nferry.connector.restart.backoff.initial.ms=300\n\
             ferry.connector.restart.backoff.max.ms=1000\nferry.connector.restart.max.attempts=3\n",
            test_plugin_path()
        ),
    );
    let ferry = Ferry::start(dir.path(), port, &worker, &[]);
    let (never, later) = (format!("{topic}-never"), format!("{topic}-later"));
    for name in [&never, &later] {
        let flag = dir.path().join(format!("{name}.flag"));
        let body = format!(
            r#"{{"name":"{name}","config":{{"connector.class":"dev.ferry.testplugin.SequenceSourceConnector","topic":"{topic}","connector.start.requires.file":"{}"}}}}"#,
            flag.display()
        );
        assert_eq!(ferry.call("POST", "/connectors", Some(&body)).0, 201);
    }
    wait_until(
        "the connectors' first failures",
        Duration::from_secs(60),
        || {
            ferry.status(&later)["connector"]["state"] == "FAILED"
                || ferry
                    .log_text()
                    .contains("Restarting the failed connector automatically")
        },
    );
    write_file(&dir.path().join(format!("{later}.flag")), "");
    wait_until(
        "the recovered connector and its task RUNNING without a human",
        Duration::from_secs(60),
        || {
            ferry.status(&later)["connector"]["state"] == "RUNNING"
                && ferry.task_state(&later, 0).as_deref() == Some("RUNNING")
        },
    );
    wait_until(
        "the hopeless connector given up on",
        Duration::from_secs(60),
        || {
            ferry
                .log_text()
                .contains("Connector failed on every automatic restart")
        },
    );
    let log = ferry.log_text();
    let attempts = log
        .lines()
        .filter(|l| {
            l.contains(&never) && l.contains("Restarting the failed connector automatically")
        })
        .count();
    assert_eq!(attempts, 3, "three attempts for {never}:\n{log}");
    assert_eq!(ferry.status(&never)["connector"]["state"], "FAILED");
    let restarts = metric(
        &scrape(port),
        "ferry_connect_worker_automatic_restarts_total",
        &[],
    );
    assert!(restarts.unwrap() >= 4.0, "{restarts:?}");
    ferry.stop();
}
