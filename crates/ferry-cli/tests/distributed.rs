//! Distributed mode on a real broker: three `ferry distributed` workers on one machine sharing
//! one group and its internal topics.
#![cfg(feature = "kafka-integration-tests")]

mod support;

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use support::*;

const SLOW: Duration = Duration::from_secs(120);

struct Cluster {
    workers: Vec<Option<Ferry>>,
    ports: Vec<u16>,
}

impl Cluster {
    fn start(dir: &Path, name: &str, size: usize, extra: &str) -> Cluster {
        let ports: Vec<u16> = (0..size).map(|_| port()).collect();
        let mut workers = Vec::new();
        for &p in &ports {
            let props = distributed_properties(dir, p, name, extra);
            workers.push(Some(Ferry::distributed(dir, p, &props)));
        }
        let cluster = Cluster { workers, ports };
        cluster.wait_ready();
        cluster
    }

    /// Starts one more worker of the group `name` and waits until it has joined.
    fn add_worker(&mut self, dir: &Path, name: &str) {
        let late = port();
        let props = distributed_properties(dir, late, name, "");
        self.workers
            .push(Some(Ferry::distributed(dir, late, &props)));
        self.ports.push(late);
        self.wait_ready();
    }

    fn wait_ready(&self) {
        for w in self.live() {
            wait_until("the worker to join the group", SLOW, || {
                w.get("/health").is_some_and(|(code, _)| code == 200)
            });
        }
    }

    fn live(&self) -> impl Iterator<Item = &Ferry> {
        self.workers.iter().flatten()
    }

    fn worker(&self, i: usize) -> &Ferry {
        self.workers[i].as_ref().expect("worker is running")
    }

    /// The index of the worker whose REST address is `worker_id`.
    fn index_of(&self, worker_id: &str) -> usize {
        self.ports
            .iter()
            .position(|p| worker_id == format!("127.0.0.1:{p}"))
            .unwrap_or_else(|| panic!("no worker has id {worker_id}"))
    }

    fn logs(&self) -> String {
        self.live()
            .map(|w| format!("==== {} ====\n{}", w.port, w.log_text()))
            .collect()
    }

    /// Statuses as every live worker reports them, once they all agree and show `tasks` tasks
    /// RUNNING under a RUNNING connector.
    fn agreed_running(&self, connector: &str, tasks: usize) -> serde_json::Value {
        let mut agreed = serde_json::Value::Null;
        wait_until(
            &format!("{connector} RUNNING with {tasks} tasks on every worker"),
            SLOW,
            || {
                let all: Vec<serde_json::Value> =
                    self.live().map(|w| w.status(connector)).collect();
                let first = &all[0];
                let running = first["connector"]["state"] == "RUNNING"
                    && first["tasks"].as_array().is_some_and(|t| {
                        t.len() == tasks && t.iter().all(|t| t["state"] == "RUNNING")
                    });
                if running && all.iter().all(|s| s == first) {
                    agreed = first.clone();
                    true
                } else {
                    false
                }
            },
        );
        agreed
    }
}

fn file_source(dir: &Path, name: &str, file: &str, topic: &str) -> String {
    format!(
        r#"{{"name":"{name}","config":{{"connector.class":"FileStreamSource","file":"{}","topic":"{topic}","batch.size":"5000"}}}}"#,
        dir.join(file).display()
    )
}

fn file_sink(dir: &Path, name: &str, file: &str, topic: &str, tasks: usize) -> String {
    format!(
        r#"{{"name":"{name}","config":{{"connector.class":"FileStreamSink","file":"{}","topics":"{topic}","tasks.max":"{tasks}"}}}}"#,
        dir.join(file).display()
    )
}

fn task_workers(status: &serde_json::Value) -> Vec<String> {
    status["tasks"]
        .as_array()
        .map(|t| {
            t.iter()
                .map(|t| t["worker_id"].as_str().unwrap_or_default().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// Java answers 409 while a rebalance is pending; clients try again, and so do these tests.
fn retry_conflicts(mut call: impl FnMut() -> (u16, serde_json::Value)) -> (u16, serde_json::Value) {
    let mut answer = None;
    wait_until("an answer other than 409", SLOW, || {
        let got = call();
        let done = got.0 != 409;
        answer = Some(got);
        done
    });
    answer.unwrap_or_default()
}

#[test]
fn a_connector_created_through_a_follower_spreads_over_the_workers() {
    let dir = tempfile::tempdir().unwrap();
    let cluster = Cluster::start(dir.path(), &unique("spread"), 3, "");
    let topic = unique("spread-topic");
    create_topic(&topic, 6);
    let sink = unique("spread-sink");
    // The first worker to join leads; the last one is a follower and forwards the request.
    let (code, body) = cluster.worker(2).call(
        "POST",
        "/connectors",
        Some(&file_sink(dir.path(), &sink, "out.txt", &topic, 6)),
    );
    assert_eq!(code, 201, "{body}\n{}", cluster.logs());
    assert_eq!(body["name"], sink.as_str());

    let status = cluster.agreed_running(&sink, 6);
    let owners: BTreeSet<String> = task_workers(&status).into_iter().collect();
    assert_eq!(
        owners.len(),
        3,
        "tasks should run on all three workers: {status}"
    );
    for w in cluster.live() {
        let (code, tasks) = w.call("GET", &format!("/connectors/{sink}/tasks"), None);
        assert_eq!(code, 200);
        assert_eq!(tasks.as_array().unwrap().len(), 6, "{tasks}");
        let (_, list) = w.call("GET", "/connectors", None);
        assert_eq!(list, serde_json::json!([sink]));
    }
    // Task configs are an internal endpoint: unsigned or wrongly signed requests are refused.
    for w in cluster.live() {
        let (code, body) = w.call("POST", &format!("/connectors/{sink}/tasks"), Some("[]"));
        assert_eq!(code, 400, "{body}");
        assert_eq!(
            body["message"],
            "Internal request missing required signature"
        );
        let (code, _) = w.signed_call(
            "POST",
            &format!("/connectors/{sink}/tasks"),
            "[]",
            "bm90IGEgc2lnbmF0dXJl",
        );
        assert_eq!(code, 403);
    }
    // Restarts reach the owner from any worker; pause and resume from any worker apply to all.
    for i in 0..3 {
        let w = cluster.worker(i);
        let (code, body) =
            retry_conflicts(|| w.call("POST", &format!("/connectors/{sink}/restart"), None));
        assert_eq!(code, 204, "{body}");
        let (code, body) = retry_conflicts(|| {
            w.call(
                "POST",
                &format!("/connectors/{sink}/tasks/{i}/restart"),
                None,
            )
        });
        assert_eq!(code, 204, "{body}");
    }
    assert_eq!(
        cluster
            .worker(1)
            .call("PUT", &format!("/connectors/{sink}/pause"), None)
            .0,
        202
    );
    wait_until("every task PAUSED on every worker", SLOW, || {
        cluster.live().all(|w| {
            let s = w.status(&sink);
            s["connector"]["state"] == "PAUSED"
                && s["tasks"]
                    .as_array()
                    .is_some_and(|t| t.iter().all(|t| t["state"] == "PAUSED"))
        })
    });
    assert_eq!(
        cluster
            .worker(2)
            .call("PUT", &format!("/connectors/{sink}/resume"), None)
            .0,
        202
    );
    cluster.agreed_running(&sink, 6);
    // Creating it again through any worker is a conflict, answered by the leader.
    let (code, _) = cluster.worker(1).call(
        "POST",
        "/connectors",
        Some(&file_sink(dir.path(), &sink, "out.txt", &topic, 6)),
    );
    assert_eq!(code, 409);
    for w in cluster.workers.into_iter().flatten() {
        w.stop();
    }
}

#[test]
fn the_leader_rotates_expired_session_keys_and_signed_requests_keep_working() {
    let dir = tempfile::tempdir().unwrap();
    let cluster = Cluster::start(
        dir.path(),
        &unique("keys"),
        2,
        "inter.worker.key.ttl.ms=1500\n",
    );
    let rotations = || -> usize {
        cluster
            .live()
            .map(|w| w.log_text().matches("Writing a new session key").count())
            .sum()
    };
    wait_until("three session keys written", SLOW, || rotations() >= 3);
    // Two connectors land on both workers, so one of them sends its task configs to the leader,
    // signed with a key written after the rotations began.
    let topic = unique("keys-topic");
    create_topic(&topic, 2);
    let (a, b) = (unique("keys-a"), unique("keys-b"));
    for name in [&a, &b] {
        let (code, body) = cluster.worker(1).call(
            "POST",
            "/connectors",
            Some(&file_sink(
                dir.path(),
                name,
                &format!("{name}.txt"),
                &topic,
                2,
            )),
        );
        assert_eq!(code, 201, "{body}");
    }
    let sa = cluster.agreed_running(&a, 2);
    let sb = cluster.agreed_running(&b, 2);
    assert_ne!(
        sa["connector"]["worker_id"], sb["connector"]["worker_id"],
        "the connectors should run on different workers"
    );
    assert!(rotations() >= 3);
    for w in cluster.workers.into_iter().flatten() {
        w.stop();
    }
}

#[test]
fn the_eager_protocol_spreads_and_moves_work() {
    let dir = tempfile::tempdir().unwrap();
    let mut cluster = Cluster::start(dir.path(), &unique("eager"), 2, "connect.protocol=eager\n");
    let topic = unique("eager-topic");
    create_topic(&topic, 4);
    let sink = unique("eager-sink");
    let (code, body) = cluster.worker(1).call(
        "POST",
        "/connectors",
        Some(&file_sink(dir.path(), &sink, "out.txt", &topic, 4)),
    );
    assert_eq!(code, 201, "{body}");
    let status = cluster.agreed_running(&sink, 4);
    let owners: BTreeSet<String> = task_workers(&status).into_iter().collect();
    assert_eq!(owners.len(), 2, "{status}");
    cluster.workers[0].take().unwrap().kill9();
    wait_until("all tasks on the surviving worker", SLOW, || {
        let status = cluster.worker(1).status(&sink);
        let owners: BTreeSet<String> = task_workers(&status).into_iter().collect();
        owners.len() == 1
            && owners.contains(&format!("127.0.0.1:{}", cluster.ports[1]))
            && status["tasks"]
                .as_array()
                .is_some_and(|t| t.iter().all(|t| t["state"] == "RUNNING"))
    });
    for w in cluster.workers.into_iter().flatten() {
        w.stop();
    }
}

#[test]
fn a_killed_worker_s_tasks_move_and_no_line_is_lost() {
    let dir = tempfile::tempdir().unwrap();
    let cluster_name = unique("failover");
    let mut cluster = Cluster::start(dir.path(), &cluster_name, 3, "");
    const LINES: usize = 500_000;
    std::fs::write(dir.path().join("in.txt"), numbered_lines(0, LINES)).unwrap();
    let topic = unique("failover-topic");
    create_topic(&topic, 3);
    let (source, sink) = (unique("failover-src"), unique("failover-sink"));
    let leader = cluster.worker(0);
    assert_eq!(
        leader
            .call(
                "POST",
                "/connectors",
                Some(&file_source(dir.path(), &source, "in.txt", &topic))
            )
            .0,
        201
    );
    assert_eq!(
        leader
            .call(
                "POST",
                "/connectors",
                Some(&file_sink(dir.path(), &sink, "out.txt", &topic, 1))
            )
            .0,
        201
    );
    let source_status = cluster.agreed_running(&source, 1);
    cluster.agreed_running(&sink, 1);
    wait_until("lines to reach the sink file", SLOW, || {
        lines(&dir.path().join("out.txt")).len() > 20_000
    });

    // kill -9 the worker running the source task, mid-stream.
    let victim = cluster.index_of(&task_workers(&source_status)[0]);
    cluster.workers[victim].take().unwrap().kill9();
    wait_until("the source task to run on a surviving worker", SLOW, || {
        let status = cluster.live().next().unwrap().status(&source);
        let owner = task_workers(&status).first().cloned().unwrap_or_default();
        status["tasks"][0]["state"] == "RUNNING"
            && !owner.is_empty()
            && cluster.index_of(&owner) != victim
    });
    wait_until(
        "every line in the sink file",
        Duration::from_secs(300),
        || {
            let got: BTreeSet<String> = lines(&dir.path().join("out.txt")).into_iter().collect();
            got.len() >= LINES
        },
    );
    let got: BTreeSet<String> = lines(&dir.path().join("out.txt")).into_iter().collect();
    let want: BTreeSet<String> = numbered_lines(0, LINES)
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(
        got, want,
        "the sink file must hold every line exactly as written"
    );

    // A graceful stop hands the stopped worker's work over.
    let sink_status = cluster.live().next().unwrap().status(&sink);
    let sink_owner = cluster.index_of(&task_workers(&sink_status)[0]);
    cluster.workers[sink_owner].take().unwrap().stop();
    wait_until("the sink task to run on the last worker", SLOW, || {
        let status = cluster.live().next().unwrap().status(&sink);
        let owner = task_workers(&status).first().cloned().unwrap_or_default();
        status["tasks"][0]["state"] == "RUNNING"
            && !owner.is_empty()
            && cluster.index_of(&owner) != sink_owner
    });
    for w in cluster.workers.into_iter().flatten() {
        w.stop();
    }
}

#[test]
fn restarting_failed_tasks_through_a_follower_restarts_exactly_those() {
    let dir = tempfile::tempdir().unwrap();
    let cluster = Cluster::start(dir.path(), &unique("restart"), 3, "");
    let topic = unique("restart-topic");
    create_topic(&topic, 3);
    // A sink with three tasks, and a source whose single task fails (it reads a directory).
    let (sink, broken) = (unique("restart-sink"), unique("restart-broken"));
    let leader = cluster.worker(0);
    assert_eq!(
        leader
            .call(
                "POST",
                "/connectors",
                Some(&file_sink(dir.path(), &sink, "out.txt", &topic, 3))
            )
            .0,
        201
    );
    let broken_body = format!(
        r#"{{"name":"{broken}","config":{{"connector.class":"FileStreamSource","file":"{}","topic":"{topic}"}}}}"#,
        dir.path().display()
    );
    assert_eq!(
        leader.call("POST", "/connectors", Some(&broken_body)).0,
        201
    );
    cluster.agreed_running(&sink, 3);
    wait_until("the broken task to fail", SLOW, || {
        cluster
            .live()
            .all(|w| w.task_state(&broken, 0).as_deref() == Some("FAILED"))
    });
    let starts = |c: &str, t: usize| -> usize { cluster.live().map(|w| w.task_starts(c, t)).sum() };
    let broken_starts = starts(&broken, 0);
    let connector_starts =
        |c: &str| -> usize { cluster.live().map(|w| w.connector_starts(c)).sum() };
    let broken_connector_starts = connector_starts(&broken);
    let restarted = |what: &str| -> usize {
        cluster
            .live()
            .map(|w| {
                w.log_text()
                    .matches(&format!("Restarting by request {what}"))
                    .count()
            })
            .sum()
    };

    let (code, body) = retry_conflicts(|| {
        cluster.worker(2).call(
            "POST",
            &format!("/connectors/{broken}/restart?includeTasks=true&onlyFailed=true"),
            None,
        )
    });
    assert_eq!(code, 202, "{body}");
    assert_eq!(body["connector"]["state"], "RUNNING");
    assert_eq!(body["tasks"][0]["state"], "RESTARTING");
    wait_until("the failed task to start again", SLOW, || {
        starts(&broken, 0) == broken_starts + 1
    });
    wait_until("the restarted task to fail again", SLOW, || {
        cluster
            .live()
            .all(|w| w.task_state(&broken, 0).as_deref() == Some("FAILED"))
    });
    assert_eq!(restarted(&format!("task {broken}-0")), 1);
    assert_eq!(restarted(&format!("connector {broken}")), 0);
    assert_eq!(connector_starts(&broken), broken_connector_starts);
    // Healthy work is not touched.
    let (code, body) = retry_conflicts(|| {
        cluster.worker(1).call(
            "POST",
            &format!("/connectors/{sink}/restart?includeTasks=true&onlyFailed=true"),
            None,
        )
    });
    assert_eq!(code, 202, "{body}\n{}", cluster.logs());
    assert!(
        body["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["state"] == "RUNNING"),
        "{body}"
    );
    wait_until("the sink's restart request to be carried out", SLOW, || {
        cluster.live().any(|w| {
            w.log_text()
                .contains(&format!("Restart request for {sink} selects nothing here"))
        })
    });
    assert_eq!(restarted(&format!("task {sink}")), 0);
    assert_eq!(restarted(&format!("connector {sink}")), 0);
    for w in cluster.workers.into_iter().flatten() {
        w.stop();
    }
}

#[test]
fn topics_configs_states_and_offsets_survive_a_full_restart() {
    let dir = tempfile::tempdir().unwrap();
    let name = unique("restore");
    let cluster = Cluster::start(dir.path(), &name, 3, "");
    let (topic_a, topic_b) = (unique("restore-a"), unique("restore-b"));
    create_topic(&topic_a, 1);
    create_topic(&topic_b, 1);
    std::fs::write(dir.path().join("a.txt"), numbered_lines(0, 100)).unwrap();
    std::fs::write(dir.path().join("b.txt"), numbered_lines(0, 100)).unwrap();
    let (src_a, src_b, sink) = (
        unique("restore-src-a"),
        unique("restore-src-b"),
        unique("restore-sink"),
    );
    let w = cluster.worker(1);
    assert_eq!(
        w.call(
            "POST",
            "/connectors",
            Some(&file_source(dir.path(), &src_a, "a.txt", &topic_a))
        )
        .0,
        201
    );
    assert_eq!(
        w.call(
            "POST",
            "/connectors",
            Some(&file_source(dir.path(), &src_b, "b.txt", &topic_b))
        )
        .0,
        201
    );
    let sink_body = format!(
        r#"{{"name":"{sink}","config":{{"connector.class":"FileStreamSink","file":"{}","topics":"{topic_a},{topic_b}","tasks.max":"2"}}}}"#,
        dir.path().join("out.txt").display()
    );
    assert_eq!(w.call("POST", "/connectors", Some(&sink_body)).0, 201);
    cluster.agreed_running(&sink, 2);
    wait_until("200 lines in the sink file", SLOW, || {
        lines(&dir.path().join("out.txt")).len() >= 200
    });
    // Active topics recorded by tasks on any worker show on every worker.
    let mut both = vec![topic_a.clone(), topic_b.clone()];
    both.sort();
    wait_until("the sink's topics on every worker", SLOW, || {
        cluster.live().all(|w| w.topics(&sink) == both)
    });
    wait_until("the sources' topics on every worker", SLOW, || {
        cluster
            .live()
            .all(|w| w.topics(&src_a) == vec![topic_a.clone()])
    });

    // Pause one source, stop the other; wait until the source offsets are committed.
    assert_eq!(
        w.call("PUT", &format!("/connectors/{src_a}/pause"), None).0,
        202
    );
    assert_eq!(
        cluster
            .worker(2)
            .call("PUT", &format!("/connectors/{src_b}/stop"), None)
            .0,
        204
    );
    wait_until("the paused and stopped states", SLOW, || {
        cluster.live().all(|w| {
            w.status(&src_a)["connector"]["state"] == "PAUSED"
                && w.status(&src_b)["connector"]["state"] == "STOPPED"
        })
    });
    let offsets_before = cluster
        .worker(0)
        .call("GET", &format!("/connectors/{src_b}/offsets"), None)
        .1;
    assert!(
        offsets_before["offsets"][0]["offset"]["position"]
            .as_i64()
            .is_some(),
        "{offsets_before}"
    );

    // Reset and delete clear topics everywhere.
    assert_eq!(
        cluster
            .worker(2)
            .call("PUT", &format!("/connectors/{sink}/topics/reset"), None)
            .0,
        202
    );
    wait_until("the reset to reach every worker", SLOW, || {
        cluster.live().all(|w| w.topics(&sink).is_empty())
    });

    for w in cluster.workers.into_iter().flatten() {
        w.stop();
    }
    let again = Cluster::start(dir.path(), &name, 3, "");
    for w in again.live() {
        let (_, list) = w.call("GET", "/connectors", None);
        let mut list: Vec<String> = serde_json::from_value(list).unwrap();
        list.sort();
        let mut want = vec![src_a.clone(), src_b.clone(), sink.clone()];
        want.sort();
        assert_eq!(list, want);
    }
    wait_until("the target states after the restart", SLOW, || {
        again.live().all(|w| {
            w.status(&src_a)["connector"]["state"] == "PAUSED"
                && w.status(&src_b)["connector"]["state"] == "STOPPED"
        })
    });
    let offsets_after = again
        .worker(1)
        .call("GET", &format!("/connectors/{src_b}/offsets"), None)
        .1;
    assert_eq!(offsets_after, offsets_before);
    // Resuming the paused source does not send its lines again.
    assert_eq!(
        again
            .worker(0)
            .call("PUT", &format!("/connectors/{src_a}/resume"), None)
            .0,
        202
    );
    again.agreed_running(&src_a, 1);
    assert_eq!(topic_records(&topic_a), 100);

    // Deleting a connector removes it and its topics everywhere.
    assert_eq!(
        again
            .worker(2)
            .call("DELETE", &format!("/connectors/{src_a}"), None)
            .0,
        204
    );
    wait_until("the deletion on every worker", SLOW, || {
        again.live().all(|w| {
            w.get(&format!("/connectors/{src_a}")).map(|r| r.0) == Some(404)
                && w.topics(&src_a).is_empty()
        })
    });
    for w in again.workers.into_iter().flatten() {
        w.stop();
    }
}

#[test]
fn java_file_connectors_from_plugin_path_run_in_a_three_worker_cluster_and_move_between_hosts() {
    let dir = tempfile::tempdir().unwrap();
    let extra = format!(
        "plugin.path={}\nferry.plugin.preference=plugin.path\n",
        connect_file_plugin_path(dir.path()).display()
    );
    let mut cluster = Cluster::start(dir.path(), &unique("hosted"), 3, &extra);
    const LINES: usize = 30_000;
    std::fs::write(dir.path().join("in.txt"), numbered_lines(0, LINES)).unwrap();
    let topic = unique("hosted-topic");
    create_topic(&topic, 3);
    let (source, sink) = (unique("hosted-src"), unique("hosted-sink"));
    // Through a follower: the leader writes the configs, the owners start the Java classes.
    for body in [
        file_source(dir.path(), &source, "in.txt", &topic),
        file_sink(dir.path(), &sink, "out.txt", &topic, 1),
    ] {
        let (code, answer) =
            retry_conflicts(|| cluster.worker(2).call("POST", "/connectors", Some(&body)));
        assert_eq!(code, 201, "{answer}\n{}", cluster.logs());
    }
    let source_status = cluster.agreed_running(&source, 1);
    cluster.agreed_running(&sink, 1);
    let out = dir.path().join("out.txt");
    wait_until("every line in the sink file", SLOW, || {
        lines(&out).len() >= LINES
    });
    // Kafka's classes ran in a plugin host on the workers that own the tasks.
    assert_eq!(
        source_status["tasks"][0]["version"], "4.4.0",
        "{source_status}"
    );
    let owner = cluster.index_of(&task_workers(&source_status)[0]);
    let owner_log = cluster.worker(owner).log_text();
    assert!(
        owner_log.contains(
            "Started org.apache.kafka.connect.file.FileStreamSourceTask in the plugin host"
        ),
        "{owner_log}"
    );
    for w in cluster.live() {
        let (_, plugins) = w.call("GET", "/connector-plugins", None);
        assert!(
            plugins.as_array().unwrap().iter().any(|p| p["class"]
                == "org.apache.kafka.connect.file.FileStreamSinkConnector"
                && p["version"] == "4.4.0"),
            "{plugins}"
        );
    }

    // The source task's worker stops: the task starts in another worker's host, reads the
    // offset its predecessor committed to the offsets topic, and goes on from there.
    cluster.workers[owner].take().unwrap().stop();
    wait_until("the source task to run on another worker", SLOW, || {
        let status = cluster.live().next().unwrap().status(&source);
        let now = task_workers(&status).first().cloned().unwrap_or_default();
        status["tasks"][0]["state"] == "RUNNING"
            && !now.is_empty()
            && cluster.index_of(&now) != owner
    });
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(dir.path().join("in.txt"))
        .unwrap();
    std::io::Write::write_all(&mut f, numbered_lines(LINES, LINES + 5_000).as_bytes()).unwrap();
    wait_until("the appended lines in the sink file", SLOW, || {
        lines(&out).len() >= LINES + 5_000
    });
    let got = lines(&out);
    let want: Vec<String> = numbered_lines(0, LINES + 5_000)
        .lines()
        .map(str::to_owned)
        .collect();
    let distinct: BTreeSet<&String> = got.iter().collect();
    assert_eq!(
        distinct,
        want.iter().collect::<BTreeSet<_>>(),
        "every line, none lost, after the source moved to another worker's host"
    );
    // The handover was graceful: the offset committed at stop means no line was read twice.
    assert_eq!(
        got.len(),
        want.len(),
        "no line twice after a graceful handover"
    );
    for w in cluster.workers.into_iter().flatten() {
        w.stop();
    }
}

#[test]
fn file_provider_variables_reach_the_tasks_resolved_and_stay_placeholders_everywhere_else() {
    let dir = tempfile::tempdir().unwrap();
    let secrets = dir.path().join("secrets");
    std::fs::create_dir(&secrets).unwrap();
    let secret_file = secrets.join("connector.properties");
    let input = dir.path().join("hidden-input.txt");
    std::fs::write(&secret_file, format!("input={}\n", input.display())).unwrap();
    std::fs::write(&input, numbered_lines(0, 50)).unwrap();
    let extra = format!(
        "config.providers=file\nconfig.providers.file.class=org.apache.kafka.common.config.provider.FileConfigProvider\nconfig.providers.file.param.allowed.paths={}\n",
        secrets.display()
    );
    let cluster_name = unique("providers");
    let cluster = Cluster::start(dir.path(), &cluster_name, 1, &extra);
    let (name, topic) = (unique("provided"), unique("provided-topic"));
    let placeholder = format!("${{file:{}:input}}", secret_file.display());
    let body = format!(
        r#"{{"name":"{name}","config":{{"connector.class":"FileStreamSource","file":"{placeholder}","topic":"{topic}"}}}}"#
    );
    let (code, answer) =
        retry_conflicts(|| cluster.worker(0).call("POST", "/connectors", Some(&body)));
    assert_eq!(code, 201, "{answer}");
    assert_eq!(answer["config"]["file"], placeholder.as_str(), "{answer}");
    cluster.agreed_running(&name, 1);
    // The task read the file the variable names.
    wait_until("the hidden file's lines in Kafka", SLOW, || {
        topic_records(&topic) >= 50
    });
    // REST answers and the config topic hold the placeholder, never the resolved path.
    let w = cluster.worker(0);
    let (_, config) = w.call("GET", &format!("/connectors/{name}/config"), None);
    assert_eq!(config["file"], placeholder.as_str(), "{config}");
    let (_, tasks) = w.call("GET", &format!("/connectors/{name}/tasks"), None);
    assert_eq!(tasks[0]["config"]["file"], placeholder.as_str(), "{tasks}");
    let records = read_all(&format!("{cluster_name}-configs"), 3);
    let hidden = input.display().to_string();
    assert!(
        records
            .iter()
            .any(|(v, _)| v.as_deref().is_some_and(|v| v.contains("${file:"))),
        "{records:?}"
    );
    assert!(
        !records
            .iter()
            .any(|(v, _)| v.as_deref().is_some_and(|v| v.contains(&hidden))),
        "the resolved value reached the config topic: {records:?}"
    );
    // Validation sees the resolved value (the file exists) but answers the placeholder.
    let (code, validated) = w.call(
        "PUT",
        "/connector-plugins/FileStreamSource/config/validate",
        Some(&format!(r#"{{"connector.class":"FileStreamSource","name":"v","file":"{placeholder}","topic":"t"}}"#)),
    );
    assert_eq!(code, 200, "{validated}");
    let file_value = validated["configs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["value"]["name"] == "file")
        .map(|c| c["value"]["value"].clone());
    assert_eq!(
        file_value,
        Some(serde_json::json!(placeholder)),
        "{validated}"
    );
    for w in cluster.workers.into_iter().flatten() {
        w.stop();
    }
}

#[test]
fn with_basic_auth_on_followers_forward_with_the_caller_s_credentials_and_workers_exchange_task_configs(
) {
    basic_auth_cluster(false);
}

#[test]
fn workers_advertised_over_https_forward_and_submit_task_configs_over_tls_with_basic_auth() {
    basic_auth_cluster(true);
}

/// Three workers with basic auth on; with `https` each also has an HTTPS listener that it
/// advertises (rest.advertised.listener=https), so forwarding and task configs travel over
/// TLS, trusted through `listeners.https.ssl.truststore.*`.
fn basic_auth_cluster(https: bool) {
    let dir = tempfile::tempdir().unwrap();
    let opts = basic_auth_files(dir.path(), "alice=s3cret\n");
    let extra = "rest.extension.classes=org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension\n";
    let cluster = unique("auth");
    let ports: Vec<u16> = (0..3).map(|_| port()).collect();
    let workers: Vec<Ferry> = ports
        .iter()
        .map(|&p| {
            let mut extra = extra.to_owned();
            if https {
                let tls =
                    std::path::PathBuf::from(std::env::var("FERRY_KAFKA_TLS").expect(
                        "FERRY_KAFKA_TLS must name the certificates scripts/kafka generated",
                    ));
                let tls_port = port();
                extra.push_str(&format!(
                    "listeners=http://127.0.0.1:{p},https://localhost:{tls_port}\n\
                     rest.advertised.listener=https\nrest.advertised.host.name=localhost\n\
                     rest.advertised.port={tls_port}\n\
                     listeners.https.ssl.keystore.location={}\n\
                     listeners.https.ssl.keystore.password=ferry-pass\n\
                     listeners.https.ssl.truststore.type=PEM\n\
                     listeners.https.ssl.truststore.location={}\n",
                    tls.join("broker.p12").display(),
                    tls.join("ca.pem").display()
                ));
            }
            let props = distributed_properties(dir.path(), p, &cluster, &extra);
            Ferry::distributed_with_env(dir.path(), p, &props, &[("KAFKA_OPTS", &opts)])
        })
        .collect();
    let auth = basic("alice:s3cret");
    for w in &workers {
        wait_until("the worker to join the group", SLOW, || {
            w.raw("GET", "/health", &[("Authorization", &auth)], "").0 == 200
        });
    }
    let topic = unique("auth-topic");
    create_topic(&topic, 3);
    let sink = unique("auth-sink");
    let body = file_sink(dir.path(), &sink, "out.txt", &topic, 3);
    assert_eq!(workers[2].raw("POST", "/connectors", &[], &body).0, 401);
    let mut created = (0, String::new(), String::new());
    wait_until("the connector created through a follower", SLOW, || {
        created = workers[2].raw("POST", "/connectors", &[("Authorization", &auth)], &body);
        created.0 != 409
    });
    assert_eq!(created.0, 201, "{}", created.2);
    wait_until("three tasks RUNNING", SLOW, || {
        let (code, _, status) = workers[0].raw(
            "GET",
            &format!("/connectors/{sink}/status"),
            &[("Authorization", &auth)],
            "",
        );
        let status: serde_json::Value = serde_json::from_str(&status).unwrap_or_default();
        code == 200
            && status["tasks"]
                .as_array()
                .is_some_and(|t| t.len() == 3 && t.iter().all(|t| t["state"] == "RUNNING"))
    });
    for w in workers {
        w.stop();
    }
}

#[test]
fn a_cluster_scope_logger_level_reaches_every_worker_and_those_that_join_later() {
    let dir = tempfile::tempdir().unwrap();
    let name = unique("kip976");
    let mut cluster = Cluster::start(dir.path(), &name, 3, "");
    let logger = "ferry_runtime::worker";
    let (code, body) = cluster.worker(1).call(
        "PUT",
        &format!("/admin/loggers/{logger}?scope=cluster"),
        Some(r#"{"level":"DEBUG"}"#),
    );
    assert_eq!(code, 204, "{body}");
    let level_on =
        |w: &Ferry| w.call("GET", &format!("/admin/loggers/{logger}"), None).1["level"].clone();
    for w in cluster.live() {
        wait_until("the level on every worker", SLOW, || level_on(w) == "DEBUG");
    }
    // A worker that joins afterwards reads the record and applies it too.
    cluster.add_worker(dir.path(), &name);
    let newcomer = cluster.worker(3);
    wait_until("the level on the late worker", SLOW, || {
        level_on(newcomer) == "DEBUG"
    });
    // The worker scope still changes one worker only.
    let (code, _) = cluster.worker(0).call(
        "PUT",
        &format!("/admin/loggers/{logger}"),
        Some(r#"{"level":"WARN"}"#),
    );
    assert_eq!(code, 200);
    assert_eq!(level_on(cluster.worker(0)), "WARN");
    assert_eq!(level_on(cluster.worker(2)), "DEBUG");
    for w in cluster.workers.into_iter().flatten() {
        w.stop();
    }
}

#[test]
fn a_task_that_fails_once_recovers_by_an_automatic_restart_in_a_cluster() {
    let dir = tempfile::tempdir().unwrap();
    let extra = "ferry.task.restart.enable=true\nferry.task.restart.backoff.initial.ms=500\nferry.task.restart.max.attempts=20\n";
    let cluster = Cluster::start(dir.path(), &unique("dautorestart"), 2, extra);
    let topic = unique("dautorestart-topic");
    create_topic(&topic, 1);
    let sink = unique("dautorestart-sink");
    let body = format!(
        r#"{{"name":"{sink}","config":{{"connector.class":"FileStreamSink","file":"{}","topics":"{topic}"}}}}"#,
        dir.path().join("later/out.txt").display()
    );
    let (code, answer) =
        retry_conflicts(|| cluster.worker(1).call("POST", "/connectors", Some(&body)));
    assert_eq!(code, 201, "{answer}");
    wait_until("the task FAILED", SLOW, || {
        cluster.worker(0).status(&sink)["tasks"][0]["state"] == "FAILED"
    });
    std::fs::create_dir(dir.path().join("later")).unwrap();
    cluster.agreed_running(&sink, 1);
    assert!(
        cluster.logs().contains("Restarted the failed task"),
        "{}",
        cluster.logs()
    );
    for w in cluster.workers.into_iter().flatten() {
        w.stop();
    }
}

#[test]
fn restarts_sent_while_workers_join_leave_each_task_running_exactly_once() {
    let dir = tempfile::tempdir().unwrap();
    let name = unique("restartrace");
    let mut cluster = Cluster::start(dir.path(), &name, 2, "");
    let topic = unique("restartrace-topic");
    create_topic(&topic, 4);
    let sink = unique("race-sink");
    let body = file_sink(dir.path(), &sink, "out.txt", &topic, 4);
    let (code, answer) =
        retry_conflicts(|| cluster.worker(0).call("POST", "/connectors", Some(&body)));
    assert_eq!(code, 201, "{answer}");
    cluster.agreed_running(&sink, 4);

    // Every task is restarted through every worker, over and over, while two workers join
    // (each join is a rebalance that moves tasks).
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let hammer = {
        let (stop, ports, sink) = (stop.clone(), cluster.ports.clone(), sink.clone());
        std::thread::spawn(move || {
            let mut sent = 0;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                for &p in &ports {
                    for t in 0..4 {
                        http_call(p, "POST", &format!("/connectors/{sink}/tasks/{t}/restart"));
                        sent += 1;
                    }
                }
            }
            sent
        })
    };
    for _ in 0..2 {
        cluster.add_worker(dir.path(), &name);
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    assert!(hammer.join().unwrap() > 0);

    cluster.agreed_running(&sink, 4);
    // What runs where, as each worker's own metrics list its tasks: every task exactly once.
    wait_until("each task running on exactly one worker", SLOW, || {
        let mut seen = [0; 4];
        for w in cluster.live() {
            let text = scrape(w.port);
            for (t, count) in seen.iter_mut().enumerate() {
                let task = t.to_string();
                let labels = [("connector", sink.as_str()), ("task", task.as_str())];
                if metric(&text, "kafka_connect_connector_task_status", &labels).is_some() {
                    *count += 1;
                }
            }
        }
        seen == [1; 4]
    });
    for w in cluster.workers.into_iter().flatten() {
        w.stop();
    }
}
