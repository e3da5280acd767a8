//! Runs `scripts/bench --smoke` (2,000 lines, one run of everything, W6's three-worker clusters,
//! W8's Debezium on PostgreSQL and W9's MirrorMaker 2 from a second broker included) so the
//! harness cannot rot.
//! It asserts only that every workload got a figure from every system it applies to, never a
//! timing. It runs the debug binaries of this build (target/debug/ferry and ferry-bench), so CI
//! makes no release build for it: the workspace's tests build `ferry` for ferry-cli's tests, and
//! `cargo build -p ferry-cli` does when this test runs alone. Needs a broker: `scripts/kafka
//! start` and KAFKA_BOOTSTRAP_SERVERS=127.0.0.1:9092; scripts/bench starts the second broker
//! and PostgreSQL when FERRY_KAFKA_B and FERRY_POSTGRES name none (scripts/test starts both).
#![cfg(feature = "kafka-integration-tests")]

use std::path::Path;
use std::process::Command;

fn bootstrap() -> String {
    std::env::var("KAFKA_BOOTSTRAP_SERVERS").unwrap_or_else(|_| {
        panic!("KAFKA_BOOTSTRAP_SERVERS is not set: start a broker with `scripts/kafka start` and export KAFKA_BOOTSTRAP_SERVERS=127.0.0.1:9092")
    })
}

#[test]
fn bench_smoke_run_reports_every_workload_and_system() {
    let bootstrap = bootstrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_ferry-bench"))
        .parent()
        .unwrap();
    assert!(
        bin_dir.join("ferry").is_file(),
        "{} is missing: the smoke run uses this build's ferry binary; run the workspace's tests (scripts/test) or `cargo build -p ferry-cli` first",
        bin_dir.join("ferry").display()
    );
    let out = tempfile::tempdir().unwrap();
    let status = Command::new(root.join("scripts/bench"))
        .args(["--smoke", "--bin-dir"])
        .arg(bin_dir)
        .arg("--out")
        .arg(out.path())
        .env("KAFKA_BOOTSTRAP_SERVERS", &bootstrap)
        .env("BENCH_WORK", out.path().join("work"))
        // Away from the ports of a full run that may be going on at the same time.
        .env("BENCH_PORT", "18190")
        .current_dir(&root)
        .status()
        .expect("running scripts/bench");
    assert!(status.success(), "scripts/bench --smoke failed: {status}");

    let text = std::fs::read_to_string(out.path().join("results.json")).unwrap();
    let rows: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
    let has = |workload: &str, system: &str| {
        rows.iter().any(|r| {
            r["workload"] == workload
                && r["system"] == system
                && r["median"].as_f64().is_some_and(|m| m > 0.0)
                && r["min"].is_number()
                && r["max"].is_number()
                && r["unit"].is_string()
        })
    };
    let markdown = std::fs::read_to_string(out.path().join("RESULTS.md")).unwrap();
    let mut expected = vec![
        ("W1 file source", &["ferry", "java", "raw"][..]),
        ("W2 file sink", &["ferry", "java", "raw"][..]),
        ("W1 file source over SASL_SSL", &["ferry", "java"][..]),
        ("W2 file sink over SASL_SSL", &["ferry", "java"][..]),
        ("W4 idle RSS", &["ferry", "java"][..]),
        ("W4 RSS, 10 source connectors", &["ferry", "java"][..]),
        ("W5 startup", &["ferry", "java"][..]),
        ("W6 create to running", &["ferry", "java"][..]),
        ("W6 failover", &["ferry", "java"][..]),
        ("W7 connect-file jar pipeline", &["ferry", "java"][..]),
        ("W7 same pipeline, Ferry native classes", &["ferry"][..]),
        ("W7 RSS after the jar pipeline", &["ferry", "java"][..]),
        ("W7 RSS after the native pipeline", &["ferry"][..]),
        ("W8 Debezium snapshot", &["ferry", "java"][..]),
        ("W8 Debezium streaming", &["ferry", "java"][..]),
        ("W8 RSS after Debezium", &["ferry", "java"][..]),
        ("W9 MirrorMaker 2 replication", &["ferry", "java"][..]),
        ("W9 RSS after MirrorMaker 2", &["ferry", "java"][..]),
        (
            "W1 exactly-once, interval boundary (1 s)",
            &["ferry", "java"][..],
        ),
        ("W1 exactly-once, poll boundary", &["ferry", "java"][..]),
    ];
    if !markdown.contains("W3 skipped") {
        expected.push(("W3 JSON + 3 transforms pipeline", &["ferry", "java"][..]));
    }
    let missing: Vec<String> = expected
        .iter()
        .flat_map(|(w, systems)| systems.iter().map(move |s| (*w, *s)))
        .filter(|(w, s)| !has(w, s))
        .map(|(w, s)| format!("{w} / {s}"))
        .collect();
    assert!(
        missing.is_empty(),
        "results.json lacks {missing:?}:\n{text}\n{markdown}"
    );
    assert!(markdown
        .contains("| Workload | Ferry | Java Connect | Raw client | Ferry/Java | Ferry/limit |"));
    assert!(markdown.contains("SMOKE RUN"));
    assert!(
        !markdown.contains("not measured"),
        "every workload is measured now:\n{markdown}"
    );
    for w6 in ["W6 create to running", "W6 failover"] {
        let unit = rows
            .iter()
            .find(|r| r["workload"] == w6)
            .map(|r| r["unit"].clone());
        assert_eq!(unit, Some(serde_json::json!("ms")), "{w6}:\n{text}");
    }
}
