//! Java connector plugins from `plugin.path`, run by the plugin host, on a real Kafka broker:
//! Apache Kafka's own `connect-file` jar in a temporary plugin directory, routed to the host
//! with `ferry.plugin.preference=plugin.path`.
#![cfg(feature = "kafka-integration-tests")]

mod support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use support::*;

/// `plugin.path` holding Apache Kafka's connect-file jar (scripts/test fetches it from Maven
/// Central and names it in FERRY_CONNECT_FILE_JAR).
fn plugin_path(dir: &Path) -> PathBuf {
    let jar = std::env::var("FERRY_CONNECT_FILE_JAR").expect(
        "FERRY_CONNECT_FILE_JAR must name Apache Kafka's connect-file jar (scripts/test sets it)",
    );
    let plugins = dir.join("plugins/connect-file");
    std::fs::create_dir_all(&plugins).unwrap();
    std::fs::copy(&jar, plugins.join("connect-file.jar")).unwrap();
    dir.join("plugins")
}

fn hosted_worker(dir: &Path, port: u16) -> PathBuf {
    let worker = worker_properties(dir, port, 1000);
    let mut text = std::fs::read_to_string(&worker).unwrap();
    text.push_str(&format!(
        "plugin.path={}\nferry.plugin.preference=plugin.path\n",
        plugin_path(dir).display()
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
    assert_eq!(status["connector"]["version"], "4.1.1", "{status}");
    assert_eq!(status["tasks"][0]["version"], "4.1.1", "{status}");
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
            && p["version"] == "4.1.1"),
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
    let total = 200_000;
    write_file(&dir.path().join("in.txt"), &numbered_lines(0, total));
    let worker = hosted_worker(dir.path(), port);
    let connectors = pipeline(dir.path(), &topic);
    let out = dir.path().join("out.txt");
    let (src, sink) = (format!("{topic}-src"), format!("{topic}-sink"));

    let ferry = Ferry::start(dir.path(), port, &worker, &connectors);
    wait_until("the pipeline under way", Duration::from_secs(120), || {
        lines(&out).len() >= 20_000
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
