//! The differential suite in its CI form: one Java Connect 4.1.1 worker and one Ferry worker per
//! profile, started once, every scenario against them; fails on any difference that
//! accepted-differences.toml does not explain. Needs the broker (KAFKA_BOOTSTRAP_SERVERS), Java
//! and Maven for scripts/java-connect, and the ferry binary built beside this test
//! (`cargo build -p ferry-cli`, which `cargo test --workspace` does).
#![cfg(feature = "kafka-integration-tests")]

use std::path::PathBuf;

use ferry_compat::workers::WorkerSetup;
use ferry_compat::{Accepted, Options};

/// `target/<profile>`: this test runs from `target/<profile>/deps`.
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent()
        .and_then(|deps| deps.parent())
        .unwrap()
        .to_path_buf()
}

#[test]
fn java_connect_and_ferry_answer_alike() {
    let bootstrap = std::env::var("KAFKA_BOOTSTRAP_SERVERS").unwrap_or_else(|_| {
        panic!("KAFKA_BOOTSTRAP_SERVERS is not set: start a broker with `scripts/kafka start` and export KAFKA_BOOTSTRAP_SERVERS=127.0.0.1:9092")
    });
    let ferry_bin = profile_dir().join("ferry");
    assert!(
        ferry_bin.is_file(),
        "no ferry binary at {}: build it with `cargo build -p ferry-cli`",
        ferry_bin.display()
    );
    let options = Options {
        setup: WorkerSetup {
            root: ferry_compat::workspace_root(),
            ferry_bin,
            bootstrap,
            test_plugin_path: WorkerSetup::test_plugin_path_from_env(),
        },
        scenarios: ferry_compat::scenario::load_all(&ferry_compat::default_scenarios_dir())
            .unwrap(),
        accepted: Accepted::load(&ferry_compat::default_accepted_file()).unwrap(),
        work: profile_dir().parent().unwrap().join("ferry-compat"),
        jobs: 1,
    };
    let report = ferry_compat::run_suite(&options).unwrap();
    println!("{}", report.table());
    print!("{}", report.details(false));
    println!(
        "workers up in {:.1} s, suite {:.1} s; answers in {}",
        report.startup_seconds,
        report.total_seconds,
        report.work.join("answers").display()
    );
    assert!(
        report.passed(),
        "the differential suite found differences that accepted-differences.toml does not explain:\n{}\n{}",
        report.table(),
        report.details(false)
    );
}
