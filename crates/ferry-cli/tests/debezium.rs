//! Debezium's PostgreSQL connector, unmodified from Maven Central (`scripts/plugins fetch
//! debezium-postgres`), on Ferry's plugin host against Debian's PostgreSQL (`scripts/postgres`)
//! and a real broker.
#![cfg(feature = "kafka-integration-tests")]

mod support;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::Value;
use support::*;

/// Where scripts/test puts Debezium's plugin directory.
fn debezium_plugin_path() -> String {
    std::env::var("FERRY_DEBEZIUM_PLUGIN_PATH").expect(
        "FERRY_DEBEZIUM_PLUGIN_PATH must name the plugin.path `scripts/plugins fetch debezium-postgres` prints (scripts/test sets it)",
    )
}

/// PostgreSQL's `host:port`; a Debezium test without a database fails loudly.
fn postgres() -> (String, String) {
    let address = std::env::var("FERRY_POSTGRES").expect(
        "FERRY_POSTGRES is not set: run `scripts/postgres start` and export FERRY_POSTGRES=127.0.0.1:5432",
    );
    let (host, port) = address
        .rsplit_once(':')
        .expect("FERRY_POSTGRES is host:port");
    (host.to_owned(), port.to_owned())
}

/// Runs SQL as the superuser and answers psql's unaligned output.
fn sql(statement: &str) -> String {
    let (host, port) = postgres();
    let out = Command::new("psql")
        .args([
            "-h",
            &host,
            "-p",
            &port,
            "-U",
            "postgres",
            "-d",
            "postgres",
            "-tA",
            "-v",
            "ON_ERROR_STOP=1",
            "-c",
            statement,
        ])
        .env("PGPASSWORD", "postgres")
        .output()
        .expect("psql runs");
    assert!(
        out.status.success(),
        "{statement}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

fn worker(dir: &Path, port: u16) -> std::path::PathBuf {
    let worker = worker_properties(dir, port, 500);
    for_debezium(&worker);
    worker
}

/// A worker file made for the Debezium tests: JsonConverter, Debezium on plugin.path.
fn for_debezium(worker: &Path) {
    let text = std::fs::read_to_string(worker).unwrap().replace(
        "org.apache.kafka.connect.storage.StringConverter",
        "org.apache.kafka.connect.json.JsonConverter",
    );
    write_file(
        worker,
        &format!("{text}plugin.path={}\n", debezium_plugin_path()),
    );
}

/// The connector config from Debezium's documentation, with names of this test's own.
fn connector(dir: &Path, name: &str, table: &str) -> std::path::PathBuf {
    let (host, port) = postgres();
    connector_file(
        dir,
        name,
        &format!(
            "connector.class=io.debezium.connector.postgresql.PostgresConnector\n\
             database.hostname={host}\ndatabase.port={port}\ndatabase.user=postgres\n\
             database.password=postgres\ndatabase.dbname=postgres\ntopic.prefix={name}\n\
             plugin.name=pgoutput\nslot.name={name}\npublication.name={name}\n\
             publication.autocreate.mode=filtered\ntable.include.list=public.{table}\n"
        ),
    )
}

/// Debezium's change events on `topic`: the operation (`r`, `c`, `u`, `d`, or `tombstone`) and
/// the payload's before and after images.
fn events(topic: &str, count: usize) -> Vec<(String, Value, Value)> {
    read_all(topic, count)
        .into_iter()
        .map(|(value, _)| match value {
            None => ("tombstone".to_owned(), Value::Null, Value::Null),
            Some(text) => {
                let v: Value = serde_json::from_str(&text).unwrap();
                let p = &v["payload"];
                (
                    p["op"].as_str().unwrap_or_default().to_owned(),
                    p["before"].clone(),
                    p["after"].clone(),
                )
            }
        })
        .collect()
}

#[test]
fn a_snapshot_then_every_change_reaches_kafka_and_a_restart_takes_no_new_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let port = port();
    let name = unique("dbz").replace('-', "_");
    let table = format!("{name}_customers");
    sql(&format!(
        "create table {table} (id int primary key, name text); \
         alter table {table} replica identity full; \
         insert into {table} values (1, 'ada'), (2, 'brian'), (3, 'carl');"
    ));
    let topic = format!("{name}.public.{table}");
    let connectors = [connector(dir.path(), &name, &table)];
    let worker = worker(dir.path(), port);
    let ferry = Ferry::start(dir.path(), port, &worker, &connectors);
    wait_until(
        "the snapshot of three rows",
        Duration::from_secs(120),
        || topic_records(&topic) >= 3,
    );
    sql(&format!(
        "insert into {table} values (4, 'dora'); \
         update {table} set name = 'bea' where id = 2; \
         delete from {table} where id = 1;"
    ));
    let seen = events(&topic, 7);
    let ops: Vec<&str> = seen.iter().map(|(op, _, _)| op.as_str()).collect();
    assert_eq!(ops, ["r", "r", "r", "c", "u", "d", "tombstone"], "{seen:?}");
    // REPLICA IDENTITY FULL: the update and the delete carry the whole row before.
    assert_eq!(seen[4].1["name"], "brian");
    assert_eq!(seen[4].2["name"], "bea");
    assert_eq!(seen[5].1["name"], "ada");
    assert_eq!(seen[5].2, Value::Null);
    assert_eq!(
        ferry.task_state(&name, 0).as_deref(),
        Some("RUNNING"),
        "{}",
        ferry.log_text()
    );
    ferry.stop();

    // While the worker is down the table changes; the restart streams from the stored offset
    // and takes no new snapshot.
    sql(&format!("insert into {table} values (5, 'emil');"));
    let ferry = Ferry::start(dir.path(), port, &worker, &connectors);
    let seen = events(&topic, 8);
    let ops: Vec<&str> = seen.iter().map(|(op, _, _)| op.as_str()).collect();
    assert_eq!(
        ops,
        ["r", "r", "r", "c", "u", "d", "tombstone", "c"],
        "{seen:?}"
    );
    assert_eq!(seen[7].2["name"], "emil");
    // The restarted task wrote exactly that one record (its own metrics say so): nothing twice.
    let task = [("connector", name.as_str()), ("task", "0")];
    wait_until(
        "the restarted task's write count",
        Duration::from_secs(30),
        || {
            metric(
                &scrape(port),
                "kafka_connect_source_task_source_record_write_total",
                &task,
            ) == Some(1.0)
        },
    );
    assert_eq!(topic_records(&topic), 8, "nothing sent twice");
    ferry.stop();
    sql(&format!(
        "select pg_drop_replication_slot('{name}'); drop publication {name}; drop table {table};"
    ));
}

/// The ids of the rows Debezium reported created (`c`) on `topic`, and how many reads (`r`).
fn created_ids(topic: &str) -> (std::collections::BTreeSet<i64>, usize) {
    let total = usize::try_from(topic_records(topic)).unwrap_or(0);
    let seen = events(topic, total);
    let reads = seen.iter().filter(|(op, _, _)| op == "r").count();
    let ids = seen
        .into_iter()
        .filter(|(op, _, _)| op == "c")
        .filter_map(|(_, _, after)| after["id"].as_i64())
        .collect();
    (ids, reads)
}

#[test]
fn a_worker_killed_during_a_10000_row_transaction_loses_nothing_and_a_new_column_streams() {
    let dir = tempfile::tempdir().unwrap();
    let port = port();
    let name = unique("dbzkill").replace('-', "_");
    let table = format!("{name}_orders");
    sql(&format!(
        "create table {table} (id int primary key, item text); insert into {table} values (0, 'first');"
    ));
    let topic = format!("{name}.public.{table}");
    let connectors = [connector(dir.path(), &name, &table)];
    let worker = worker(dir.path(), port);
    let ferry = Ferry::start(dir.path(), port, &worker, &connectors);
    // The snapshot's one row and its committed offset: the kill below interrupts streaming.
    wait_until("the snapshot's row", Duration::from_secs(120), || {
        topic_records(&topic) == 1
    });
    let offsets = dir.path().join("connect.offsets");
    wait_until(
        "the snapshot's offset committed",
        Duration::from_secs(30),
        || std::fs::metadata(&offsets).is_ok_and(|m| m.len() > 0),
    );
    sql(&format!(
        "begin; insert into {table} select i, 'item ' || i from generate_series(1, 10000) i; commit;"
    ));
    wait_until(
        "the transaction's first records",
        Duration::from_secs(60),
        || topic_records(&topic) > 1,
    );
    let before_kill = topic_records(&topic);
    ferry.kill9();

    // A new worker streams on from the last committed offset: every row arrives (some twice,
    // as at-least-once allows), none is lost, and there is no new snapshot.
    let ferry = Ferry::start(dir.path(), port, &worker, &connectors);
    let mut seen = (std::collections::BTreeSet::new(), 0);
    wait_until(
        "every row of the transaction",
        Duration::from_secs(180),
        || {
            seen = created_ids(&topic);
            seen.0.len() == 10_000
        },
    );
    let (ids, reads) = seen;
    assert_eq!(ids.first(), Some(&1), "killed after {before_kill} records");
    assert_eq!(ids.last(), Some(&10_000));
    assert_eq!(reads, 1, "only the first snapshot's row is a read");

    // A column added while streaming shows in the next change event.
    sql(&format!(
        "alter table {table} add column quantity int; insert into {table} values (10001, 'late', 7);"
    ));
    let mut late = None;
    wait_until(
        "the row with the new column",
        Duration::from_secs(60),
        || {
            let total = usize::try_from(topic_records(&topic)).unwrap_or(0);
            late = events(&topic, total)
                .into_iter()
                .find(|(op, _, after)| op == "c" && after["id"] == 10_001);
            late.is_some()
        },
    );
    let (_, _, after) = late.unwrap();
    assert_eq!(after["quantity"], 7, "{after}");
    ferry.stop();
    sql(&format!(
        "select pg_drop_replication_slot('{name}'); drop publication {name}; drop table {table};"
    ));
}

#[test]
fn in_a_three_worker_cluster_the_task_moves_when_its_worker_is_killed_and_streaming_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let name = unique("dbzha").replace('-', "_");
    let table = format!("{name}_items");
    sql(&format!(
        "create table {table} (id int primary key, item text); insert into {table} values (0, 'first');"
    ));
    let topic = format!("{name}.public.{table}");
    let cluster = unique("dbzha");
    let ports: Vec<u16> = (0..3).map(|_| port()).collect();
    let mut workers: Vec<Option<Ferry>> = ports
        .iter()
        .map(|p| {
            let props = distributed_properties(dir.path(), *p, &cluster, "");
            for_debezium(&props);
            Some(Ferry::distributed(dir.path(), *p, &props))
        })
        .collect();
    let slow = Duration::from_secs(180);
    for w in workers.iter().flatten() {
        wait_until("every worker healthy", slow, || {
            w.get("/health").is_some_and(|(code, _)| code == 200)
        });
    }
    // The same settings as the standalone tests, as a REST body.
    let file = connector(dir.path(), &name, &table);
    let config: serde_json::Map<String, Value> = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_owned(), Value::from(v)))
        .collect();
    let body = serde_json::json!({ "name": name, "config": config }).to_string();
    let first = workers[0].as_ref().unwrap();
    wait_until("the connector created", slow, || {
        let (code, answer) = first.call("POST", "/connectors", Some(&body));
        assert!(code == 201 || code == 409, "{code}: {answer}");
        code == 201
    });
    wait_until("the snapshot's row", slow, || topic_records(&topic) == 1);
    // Its offset must be committed, or the next owner rightly takes the snapshot again.
    wait_until("the snapshot's offset committed", slow, || {
        let (_, offsets) = first.call("GET", &format!("/connectors/{name}/offsets"), None);
        offsets["offsets"].as_array().is_some_and(|o| !o.is_empty())
    });

    // Kill the worker that runs the task; the cluster moves the task and streaming goes on.
    let owner = |w: &Ferry| {
        let status = w.status(&name);
        (status["tasks"][0]["state"] == "RUNNING")
            .then(|| status["tasks"][0]["worker_id"].as_str().map(str::to_owned))
            .flatten()
    };
    let mut running_on = None;
    wait_until("the task running", slow, || {
        running_on = owner(first);
        running_on.is_some()
    });
    let running_on = running_on.unwrap();
    let victim = ports
        .iter()
        .position(|p| running_on == format!("127.0.0.1:{p}"))
        .unwrap_or_else(|| panic!("no worker at {running_on}"));
    workers[victim].take().unwrap().kill9();
    sql(&format!(
        "insert into {table} select i, 'item ' || i from generate_series(1, 100) i;"
    ));
    let survivor = workers.iter().flatten().next().unwrap();
    let deadline = std::time::Instant::now() + slow;
    let seen = loop {
        let seen = created_ids(&topic);
        if seen.0.len() == 100 {
            break seen;
        }
        if std::time::Instant::now() > deadline {
            let logs: Vec<String> = workers
                .iter()
                .flatten()
                .map(|w| {
                    let text = w.log_text();
                    let lines: Vec<&str> = text.lines().collect();
                    lines[lines.len().saturating_sub(60)..].join("\n")
                })
                .collect();
            panic!(
                "only {} of the 100 rows after the kill; status {}\nlogs:\n{}",
                seen.0.len(),
                survivor.status(&name),
                logs.join("\n-----\n")
            );
        }
        std::thread::sleep(Duration::from_millis(500));
    };
    assert_eq!(
        seen.1, 1,
        "no new snapshot: the snapshot's row is the only read"
    );
    let moved_to = owner(survivor).unwrap_or_default();
    assert_ne!(moved_to, running_on, "the task runs on a surviving worker");
    for w in workers.into_iter().flatten() {
        w.stop();
    }
    sql(&format!(
        "select pg_drop_replication_slot('{name}'); drop publication {name}; drop table {table};"
    ));
}

/// A record as text: key, value and headers.
type TextRecord = (Option<String>, Option<String>, Vec<(String, String)>);

/// Every record of `topic` (one partition).
fn records(topic: &str, count: usize) -> Vec<TextRecord> {
    use ferry_kafka::rdkafka::consumer::{BaseConsumer, Consumer};
    use ferry_kafka::rdkafka::message::{Headers, Message};
    use ferry_kafka::rdkafka::ClientConfig;
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", bootstrap())
        .set("group.id", unique("dbz-reader"))
        .set("auto.offset.reset", "earliest")
        .create()
        .unwrap();
    consumer.subscribe(&[topic]).unwrap();
    let text = |b: Option<&[u8]>| b.map(|b| String::from_utf8_lossy(b).into_owned());
    let mut out = Vec::new();
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while out.len() < count && std::time::Instant::now() < deadline {
        if let Some(Ok(m)) = consumer.poll(Duration::from_millis(200)) {
            let headers = m
                .headers()
                .map(|h| {
                    h.iter()
                        .map(|h| (h.key.to_owned(), text(h.value).unwrap_or_default()))
                        .collect()
                })
                .unwrap_or_default();
            out.push((text(m.key()), text(m.payload()), headers));
        }
    }
    out
}

/// A change event as JSON with the connector's own name replaced, and without what differs
/// between any two captures of the same change: the capture times, and for snapshot reads the
/// position each connector's own snapshot started from.
fn comparable(text: &Option<String>, prefix: &str) -> Value {
    let Some(text) = text else { return Value::Null };
    let mut v: Value = serde_json::from_str(&text.replace(prefix, "{prefix}")).unwrap();
    if let Some(payload) = v.get_mut("payload").and_then(Value::as_object_mut) {
        let read = payload.get("op").and_then(Value::as_str) == Some("r");
        for k in ["ts_ms", "ts_us", "ts_ns"] {
            payload.remove(k);
        }
        if let Some(source) = payload.get_mut("source").and_then(Value::as_object_mut) {
            for k in ["ts_ms", "ts_us", "ts_ns"] {
                source.remove(k);
            }
            if read {
                for k in ["lsn", "txId", "sequence", "xmin"] {
                    source.remove(k);
                }
            }
        }
    }
    v
}

/// Headers with the connector's name replaced and the run's id (new on every start) left out.
fn comparable_headers(headers: &[(String, String)], prefix: &str) -> Vec<(String, String)> {
    headers
        .iter()
        .filter(|(k, _)| k != "__debezium.context.runId")
        .map(|(k, v)| (k.clone(), v.replace(prefix, "{prefix}")))
        .collect()
}

#[test]
fn java_connect_and_ferry_write_the_same_events_and_continue_from_each_other_s_offsets() {
    let dir = tempfile::tempdir().unwrap();
    let base = unique("dbzdiff").replace('-', "_");
    let table = format!("{base}_people");
    sql(&format!(
        "create table {table} (id int primary key, name text, born date); \
         alter table {table} replica identity full; \
         insert into {table} values (1, 'ada', '1815-12-10'), (2, 'alan', '1912-06-23');"
    ));
    // The same connector config on both runtimes, each with its own name, slot and topics.
    let side = |suffix: &str| {
        let sub = dir.path().join(suffix);
        std::fs::create_dir_all(&sub).unwrap();
        let name = format!("{base}_{suffix}");
        let port = port();
        (
            worker(&sub, port),
            connector(&sub, &name, &table),
            sub,
            port,
            format!("{name}.public.{table}"),
            name,
        )
    };
    let (f_worker, f_connector, f_dir, f_port, f_topic, f_name) = side("f");
    let (j_worker, j_connector, j_dir, j_port, j_topic, j_name) = side("j");
    let ferry = Ferry::start(
        &f_dir,
        f_port,
        &f_worker,
        std::slice::from_ref(&f_connector),
    );
    let java = java_standalone_worker(&j_dir, j_port, &j_worker, &[j_connector]);
    let slow = Duration::from_secs(120);
    wait_until("both snapshots", slow, || {
        topic_records(&f_topic) == 2 && topic_records(&j_topic) == 2
    });
    sql(&format!(
        "insert into {table} values (3, 'grace', '1906-12-09'); \
         update {table} set name = 'alan m. turing' where id = 2; \
         delete from {table} where id = 1;"
    ));
    let total: usize = 6; // two reads, a create, an update, a delete and its tombstone
    wait_until("every change on both sides", slow, || {
        topic_records(&f_topic) == total as i64 && topic_records(&j_topic) == total as i64
    });
    let (from_ferry, from_java) = (records(&f_topic, total), records(&j_topic, total));
    assert_eq!(from_ferry.len(), total);
    assert_eq!(from_java.len(), total);
    for (i, (f, j)) in from_ferry.iter().zip(&from_java).enumerate() {
        assert_eq!(
            comparable(&f.0, &f_name),
            comparable(&j.0, &j_name),
            "key of record {i}"
        );
        assert_eq!(
            comparable(&f.1, &f_name),
            comparable(&j.1, &j_name),
            "value of record {i}"
        );
        assert_eq!(
            comparable_headers(&f.2, &f_name),
            comparable_headers(&j.2, &j_name),
            "headers of record {i}"
        );
    }
    ferry.stop();
    java.terminate();

    // Java Connect takes over Ferry's connector, worker file and offsets: it streams on from
    // Ferry's position, without a new snapshot.
    sql(&format!(
        "insert into {table} values (4, 'edsger', '1930-05-11');"
    ));
    let java = java_standalone_worker(
        &f_dir,
        f_port,
        &f_worker,
        std::slice::from_ref(&f_connector),
    );
    wait_until("Java's record of row 4", slow, || {
        topic_records(&f_topic) == total as i64 + 1
    });
    java.terminate();
    // And Ferry takes over again from the offsets Java wrote.
    sql(&format!(
        "insert into {table} values (5, 'barbara', '1939-11-07');"
    ));
    let ferry = Ferry::start(&f_dir, f_port, &f_worker, &[f_connector]);
    wait_until("Ferry's record of row 5", slow, || {
        topic_records(&f_topic) >= total as i64 + 2
    });
    let seen = events(&f_topic, total + 2);
    let ops: Vec<&str> = seen.iter().map(|(op, _, _)| op.as_str()).collect();
    assert_eq!(
        ops,
        ["r", "r", "c", "u", "d", "tombstone", "c", "c"],
        "{seen:?}"
    );
    assert_eq!(seen[6].2["id"], 4);
    assert_eq!(seen[7].2["id"], 5);
    ferry.stop();
    assert_eq!(topic_records(&f_topic), total as i64 + 2, "nothing twice");
    sql(&format!(
        "select pg_drop_replication_slot('{f_name}'); select pg_drop_replication_slot('{j_name}'); \
         drop publication {f_name}; drop publication {j_name}; drop table {table};"
    ));
}
