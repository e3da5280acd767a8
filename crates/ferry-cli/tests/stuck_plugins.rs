//! One stuck plugin never freezes the worker: a Java source connector (the repository's test
//! plugin, run by the plugin host) and its native twin (`ferry-test-connectors`) that hang in
//! start, taskConfigs, stop, validate (Java) or their task's poll or put (native), in
//! standalone and distributed mode, on a real broker. While it hangs, the REST API answers
//! within a second, another connector reaches RUNNING within 5 s, the stuck connector's status
//! answers, and deleting it returns within the graceful timeout plus 5 s.
#![cfg(feature = "kafka-integration-tests")]

mod support;

use std::path::Path;
use std::time::{Duration, Instant};

use support::*;

/// `task.shutdown.graceful.timeout.ms` of the workers here.
const GRACEFUL: Duration = Duration::from_secs(3);
/// How long the plugin hangs: far longer than any bound asserted.
const HANG_MS: u64 = 40_000;

fn test_plugin_path() -> String {
    std::env::var("FERRY_TEST_PLUGIN_PATH").expect(
        "FERRY_TEST_PLUGIN_PATH must name the test plugin's plugin.path (scripts/test sets it)",
    )
}

fn worker_extra() -> String {
    format!(
        "plugin.path={}\ntask.shutdown.graceful.timeout.ms={}\n",
        test_plugin_path(),
        GRACEFUL.as_millis()
    )
}

/// A request, with how long it took to be answered.
fn timed(
    ferry: &Ferry,
    method: &str,
    path: &str,
    body: Option<&str>,
) -> (u16, serde_json::Value, Duration) {
    let started = Instant::now();
    let (code, answer) = ferry
        .request(method, path, body)
        .unwrap_or_else(|| panic!("{method} {path} got no answer"));
    (code, answer, started.elapsed())
}

fn put(ferry: &Ferry, name: &str, config: &str) -> Duration {
    let (code, answer, took) = timed(
        ferry,
        "PUT",
        &format!("/connectors/{name}/config"),
        Some(config),
    );
    assert_eq!(code, 201, "PUT {name}: {answer}");
    took
}

/// The stuck plugin: Java's, run by the plugin host, or the native one.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Plugin {
    Java,
    Native,
}

impl Plugin {
    fn source_class(self) -> &'static str {
        match self {
            Plugin::Java => "dev.ferry.testplugin.HangingSourceConnector",
            Plugin::Native => "dev.ferry.test.HangingSourceConnector",
        }
    }
}

/// What the native plugins need: the test build's hanging connectors registered.
const NATIVE_ENV: &[(&str, &str)] = &[("FERRY_TEST_CONNECTORS", "1")];

fn hanging_config(plugin: Plugin, call: &str, topic: &str) -> String {
    format!(
        r#"{{"connector.class":"{}","hang.in":"{call}","hang.ms":"{HANG_MS}","topic":"{topic}","tasks.max":"1"}}"#,
        plugin.source_class()
    )
}

/// GET /connectors answers within a second and lists `name` as expected.
fn listing_answers(ferry: &Ferry, name: &str, listed: bool) {
    let (code, names, took) = timed(ferry, "GET", "/connectors", None);
    assert_eq!(code, 200, "{names}");
    assert!(
        took < Duration::from_secs(1),
        "GET /connectors took {took:?}"
    );
    let found = names
        .as_array()
        .is_some_and(|a| a.iter().any(|n| n == name));
    assert_eq!(found, listed, "{name} listed: {names}");
}

/// The stuck connector's status answers, within a second.
fn status_answers(ferry: &Ferry, name: &str) -> serde_json::Value {
    let (code, status, took) = timed(ferry, "GET", &format!("/connectors/{name}/status"), None);
    assert_eq!(code, 200, "status of {name}: {status}");
    assert!(
        took < Duration::from_secs(1),
        "status of {name} took {took:?}"
    );
    status
}

/// A FileStream source created now reaches RUNNING, with its task, within 5 s.
fn another_connector_runs(ferry: &Ferry, dir: &Path, name: &str) {
    let file = dir.join(format!("{name}.txt"));
    write_file(&file, "");
    let config = format!(
        r#"{{"connector.class":"FileStreamSource","file":"{}","topic":"{}"}}"#,
        file.display(),
        unique("stuck-other")
    );
    let started = Instant::now();
    put(ferry, name, &config);
    wait_until(
        &format!("{name} and its task RUNNING within 5 s"),
        Duration::from_secs(5).saturating_sub(started.elapsed()),
        || {
            let s = ferry.status(name);
            s["connector"]["state"] == "RUNNING" && s["tasks"][0]["state"] == "RUNNING"
        },
    );
}

/// DELETE answers within the graceful timeout plus 5 s, and the connector is gone.
fn delete_returns(ferry: &Ferry, name: &str) {
    let (code, answer, took) = timed(ferry, "DELETE", &format!("/connectors/{name}"), None);
    assert_eq!(code, 204, "DELETE {name}: {answer}");
    assert!(
        took < GRACEFUL + Duration::from_secs(5),
        "DELETE {name} took {took:?}"
    );
    wait_until(&format!("{name} gone"), Duration::from_secs(10), || {
        ferry
            .get(&format!("/connectors/{name}"))
            .is_some_and(|(c, _)| c == 404)
    });
}

fn running_with_task(ferry: &Ferry, name: &str) {
    wait_until(
        &format!("{name} and its task RUNNING"),
        Duration::from_secs(60),
        || {
            let s = ferry.status(name);
            s["connector"]["state"] == "RUNNING" && s["tasks"][0]["state"] == "RUNNING"
        },
    );
}

/// Each hang in turn, on one worker.
fn every_hang_leaves_the_worker_free(ferry: &Ferry, dir: &Path, mode: &str, plugin: Plugin) {
    let topic = unique(&format!("stuck-{mode}"));
    // Warms the plugin host up, so the bounds below measure the worker, not a JVM start.
    let warm = format!("{topic}-warm");
    put(ferry, &warm, &hanging_config(plugin, "none", &topic));
    running_with_task(ferry, &warm);

    // start() hangs: the connector is listed, its status answers and, after 5 s, says what
    // it waits on; the PUT itself waits at most that long.
    let name = format!("{topic}-start");
    let took = put(ferry, &name, &hanging_config(plugin, "start", &topic));
    assert!(
        took < Duration::from_secs(7),
        "PUT of a connector stuck in start took {took:?}"
    );
    listing_answers(ferry, &name, true);
    // Distributed mode starts it once the config topic's record and a rebalance are through.
    wait_until(
        "the stuck connector's status",
        Duration::from_secs(5),
        || {
            ferry
                .get(&format!("/connectors/{name}/status"))
                .is_some_and(|(code, _)| code == 200)
        },
    );
    status_answers(ferry, &name);
    another_connector_runs(ferry, dir, &format!("{name}-other"));
    wait_until("the stuck start reported", Duration::from_secs(10), || {
        let s = status_answers(ferry, &name);
        s["connector"]["state"] == "UNASSIGNED"
            && s["connector"]["trace"]
                .as_str()
                .is_some_and(|t| t.contains("start() has not returned"))
    });
    delete_returns(ferry, &name);
    listing_answers(ferry, &name, false);

    // taskConfigs() hangs: the connector runs without tasks meanwhile, as in Java.
    let name = format!("{topic}-taskconfigs");
    let took = put(ferry, &name, &hanging_config(plugin, "taskConfigs", &topic));
    assert!(
        took < Duration::from_secs(7),
        "PUT of a connector stuck in taskConfigs took {took:?}"
    );
    listing_answers(ferry, &name, true);
    wait_until("the connector RUNNING", Duration::from_secs(10), || {
        ferry.status(&name)["connector"]["state"] == "RUNNING"
    });
    another_connector_runs(ferry, dir, &format!("{name}-other"));
    let status = status_answers(ferry, &name);
    assert_eq!(status["tasks"], serde_json::json!([]), "{status}");
    wait_until(
        "the stuck taskConfigs reported",
        Duration::from_secs(10),
        || {
            let s = status_answers(ferry, &name);
            s["connector"]["state"] == "RUNNING"
                && s["connector"]["trace"]
                    .as_str()
                    .is_some_and(|t| t.contains("taskConfigs() has not returned"))
        },
    );
    delete_returns(ferry, &name);

    // stop() hangs: the worker goes on without waiting for it, so a request made while the
    // delete is under way is answered at once.
    let name = format!("{topic}-stop");
    put(ferry, &name, &hanging_config(plugin, "stop", &topic));
    running_with_task(ferry, &name);
    std::thread::scope(|s| {
        s.spawn(|| delete_returns(ferry, &name));
        // Listings sent back to back until the delete took effect: each answers at once.
        wait_until(
            "the deleted connector unlisted",
            Duration::from_secs(10),
            || {
                let (code, names, took) = timed(ferry, "GET", "/connectors", None);
                assert_eq!(code, 200);
                assert!(
                    took < Duration::from_secs(1),
                    "GET /connectors during a stuck stop took {took:?}"
                );
                !names
                    .as_array()
                    .is_some_and(|a| a.iter().any(|n| n == name.as_str()))
            },
        );
    });
    listing_answers(ferry, &name, false);
    another_connector_runs(ferry, dir, &format!("{name}-other"));

    // The task's poll() hangs: the connector and task show RUNNING, as Java shows them.
    let name = format!("{topic}-poll");
    put(ferry, &name, &hanging_config(plugin, "poll", &topic));
    running_with_task(ferry, &name);
    listing_answers(ferry, &name, true);
    another_connector_runs(ferry, dir, &format!("{name}-other"));
    status_answers(ferry, &name);
    delete_returns(ferry, &name);

    an_alter_offsets_that_hangs_holds_up_nothing(ferry, dir, &topic, plugin);
    if plugin == Plugin::Native {
        a_native_put_that_hangs_holds_up_nothing(ferry, dir, &topic);
    } else {
        a_validate_that_hangs_holds_up_nothing(ferry, dir, &topic, &warm);
    }

    // The worker stayed whole: what was started before and between the hangs still runs.
    running_with_task(ferry, &warm);
}

/// A native sink whose put() does not return, fed by a FileStream source.
fn a_native_put_that_hangs_holds_up_nothing(ferry: &Ferry, dir: &Path, topic: &str) {
    let feed = format!("{topic}-feed");
    let file = dir.join(format!("{feed}.txt"));
    write_file(&file, "one\ntwo\n");
    let config = format!(
        r#"{{"connector.class":"FileStreamSource","file":"{}","topic":"{feed}"}}"#,
        file.display()
    );
    put(ferry, &feed, &config);
    wait_until("the feed in its topic", Duration::from_secs(30), || {
        topic_records(&feed) >= 2
    });
    let name = format!("{topic}-put");
    let config = format!(
        r#"{{"connector.class":"dev.ferry.test.HangingSinkConnector","hang.in":"put","hang.ms":"{HANG_MS}","topics":"{feed}","tasks.max":"1"}}"#
    );
    put(ferry, &name, &config);
    running_with_task(ferry, &name);
    listing_answers(ferry, &name, true);
    another_connector_runs(ferry, dir, &format!("{name}-other"));
    status_answers(ferry, &name);
    delete_returns(ferry, &name);
}

/// alterOffsets() hangs while a stopped connector's offsets are changed: only that request
/// waits for it.
fn an_alter_offsets_that_hangs_holds_up_nothing(
    ferry: &Ferry,
    dir: &Path,
    topic: &str,
    plugin: Plugin,
) {
    let name = format!("{topic}-alter");
    let config = format!(
        r#"{{"connector.class":"{}","hang.in":"alterOffsets","hang.ms":"6000","topic":"{topic}","tasks.max":"1"}}"#,
        plugin.source_class()
    );
    put(ferry, &name, &config);
    running_with_task(ferry, &name);
    let (code, answer, _) = timed(ferry, "PUT", &format!("/connectors/{name}/stop"), None);
    assert_eq!(code, 204, "{answer}");
    wait_until("the connector STOPPED", Duration::from_secs(30), || {
        ferry.status(&name)["connector"]["state"] == "STOPPED"
    });
    let offsets = r#"{"offsets":[{"partition":{"file":"x"},"offset":{"position":1}}]}"#;
    std::thread::scope(|s| {
        let alter = s.spawn(|| {
            timed(
                ferry,
                "PATCH",
                &format!("/connectors/{name}/offsets"),
                Some(offsets),
            )
        });
        another_connector_runs(ferry, dir, &format!("{name}-other"));
        listing_answers(ferry, &name, true);
        status_answers(ferry, &name);
        assert!(
            !alter.is_finished(),
            "the checks ran while alterOffsets hung"
        );
        let (code, answer, took) = alter.join().unwrap();
        assert_eq!(code, 200, "{answer}");
        assert!(
            took >= Duration::from_secs(5),
            "alterOffsets hung: {took:?}"
        );
    });
    delete_returns(ferry, &name);
}

/// validate() hangs, in three creates at once (more than the runtime has threads): each waits
/// for its own validation, and nothing else does.
fn a_validate_that_hangs_holds_up_nothing(ferry: &Ferry, dir: &Path, topic: &str, warm: &str) {
    // validate() hangs, in three creates at once (more than the runtime has threads): each
    // waits for its own validation, and nothing else does.
    let validating = format!(
        r#"{{"connector.class":"dev.ferry.testplugin.HangingSourceConnector","hang.in":"validate","hang.ms":"6000","topic":"{topic}","tasks.max":"1"}}"#
    );
    std::thread::scope(|s| {
        let creates: Vec<_> = (0..3)
            .map(|i| {
                let (name, config) = (format!("{topic}-validate-{i}"), validating.as_str());
                s.spawn(move || {
                    timed(
                        ferry,
                        "PUT",
                        &format!("/connectors/{name}/config"),
                        Some(config),
                    )
                })
            })
            .collect();
        another_connector_runs(ferry, dir, &format!("{topic}-validate-other"));
        listing_answers(ferry, warm, true);
        assert!(
            creates.iter().all(|c| !c.is_finished()),
            "the checks ran while the validations hung"
        );
        for create in creates {
            let (code, answer, took) = create.join().unwrap();
            assert_eq!(code, 201, "{answer}");
            assert!(
                took >= Duration::from_secs(5),
                "the validation hung: {took:?}"
            );
        }
    });
}

#[test]
fn a_java_connector_stuck_in_any_call_holds_up_nothing_in_standalone() {
    let dir = tempfile::tempdir().unwrap();
    let port = port();
    let worker = worker_properties(dir.path(), port, 1000);
    let mut text = std::fs::read_to_string(&worker).unwrap();
    text.push_str(&worker_extra());
    write_file(&worker, &text);
    let ferry = Ferry::start(dir.path(), port, &worker, &[]);
    every_hang_leaves_the_worker_free(&ferry, dir.path(), "standalone", Plugin::Java);
    ferry.stop();
}

#[test]
fn a_native_connector_stuck_in_any_call_holds_up_nothing_in_standalone() {
    let dir = tempfile::tempdir().unwrap();
    let port = port();
    let worker = worker_properties(dir.path(), port, 1000);
    let mut text = std::fs::read_to_string(&worker).unwrap();
    text.push_str(&format!(
        "task.shutdown.graceful.timeout.ms={}\n",
        GRACEFUL.as_millis()
    ));
    write_file(&worker, &text);
    let ferry = Ferry::start_with_env(dir.path(), port, &worker, &[], NATIVE_ENV);
    every_hang_leaves_the_worker_free(&ferry, dir.path(), "standalone-native", Plugin::Native);
    ferry.stop();
}

#[test]
fn a_native_connector_stuck_in_any_call_holds_up_nothing_in_distributed() {
    let dir = tempfile::tempdir().unwrap();
    let port = port();
    let extra = format!(
        "task.shutdown.graceful.timeout.ms={}\n",
        GRACEFUL.as_millis()
    );
    let worker = distributed_properties(dir.path(), port, &unique("stuck-native-cluster"), &extra);
    let ferry = Ferry::distributed_with_env(dir.path(), port, &worker, NATIVE_ENV);
    every_hang_leaves_the_worker_free(&ferry, dir.path(), "distributed-native", Plugin::Native);
    ferry.stop();
}

#[test]
fn a_java_connector_stuck_in_any_call_holds_up_nothing_in_distributed() {
    let dir = tempfile::tempdir().unwrap();
    let port = port();
    let worker =
        distributed_properties(dir.path(), port, &unique("stuck-cluster"), &worker_extra());
    let ferry = Ferry::distributed(dir.path(), port, &worker);
    every_hang_leaves_the_worker_free(&ferry, dir.path(), "distributed", Plugin::Java);
    ferry.stop();
}

/// A rebalance that revokes connectors whose stop hangs: the worker rejoins once they are
/// abandoned after the graceful timeout (well within the rebalance timeout), and the revoked
/// work runs on the new worker.
#[test]
fn a_worker_whose_revoked_connectors_hang_in_stop_still_rejoins_and_the_work_moves() {
    let dir = tempfile::tempdir().unwrap();
    let cluster = unique("stuck-rebalance");
    let topic = unique("stuck-rebalance");
    let (first_port, second_port) = (port(), port());
    let first = Ferry::distributed(
        dir.path(),
        first_port,
        &distributed_properties(dir.path(), first_port, &cluster, &worker_extra()),
    );
    let names: Vec<String> = (0..4).map(|i| format!("{topic}-{i}")).collect();
    for name in &names {
        put(&first, name, &hanging_config(Plugin::Java, "stop", &topic));
    }
    for name in &names {
        running_with_task(&first, name);
    }
    let joined = Instant::now();
    let second = Ferry::distributed(
        dir.path(),
        second_port,
        &distributed_properties(dir.path(), second_port, &cluster, &worker_extra()),
    );
    let second_id = format!("127.0.0.1:{second_port}");
    wait_until(
        "revoked connectors running on the new worker, every connector and task RUNNING",
        GRACEFUL + Duration::from_secs(30),
        || {
            let statuses: Vec<serde_json::Value> = names.iter().map(|n| first.status(n)).collect();
            statuses.iter().all(|s| {
                s["connector"]["state"] == "RUNNING" && s["tasks"][0]["state"] == "RUNNING"
            }) && statuses
                .iter()
                .any(|s| s["connector"]["worker_id"] == second_id.as_str())
        },
    );
    let took = joined.elapsed();
    let log = first.log_text();
    // Abandoned by the worker, or given up on by the plugin host's own stop timeout (the same
    // graceful timeout): whichever came first.
    assert!(
        log.contains("Stopping revoked connector")
            && (log.contains("Connector did not stop within the graceful shutdown timeout")
                || log.contains("did not answer connector.stop within")),
        "a revoked connector hung in stop and was given up on:\n{log}"
    );
    listing_answers(&first, &names[0], true);
    eprintln!("the work moved {took:?} after the second worker started");
    second.stop();
    first.stop();
}
