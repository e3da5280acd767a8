//! `ferry-compat`: runs the differential suite and prints its table; exits 1 on any difference
//! that `accepted-differences.toml` does not explain.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Parser;
use ferry_compat::workers::WorkerSetup;
use ferry_compat::{Accepted, Options};

#[derive(Parser)]
#[command(
    about = "Runs the same scenarios against Java Kafka Connect 4.1.1 and Ferry and compares their answers"
)]
struct Args {
    /// Only scenarios whose name contains one of these (repeatable).
    #[arg(long = "only")]
    only: Vec<String>,
    /// The ferry binary (default: target/debug/ferry, else target/release/ferry).
    #[arg(long)]
    ferry: Option<PathBuf>,
    /// The scenario directory.
    #[arg(long)]
    scenarios: Option<PathBuf>,
    /// The accepted differences.
    #[arg(long)]
    accepted: Option<PathBuf>,
    /// Scratch directory (default: target/ferry-compat).
    #[arg(long)]
    work: Option<PathBuf>,
    /// Scenarios run at the same time. More than 1 can deadlock Java's standalone herder: a
    /// pause or resume racing another connector's task update locks its config store and the
    /// herder in opposite orders (seen with 4.1.1), so the default runs them one at a time.
    #[arg(long, default_value_t = 1)]
    jobs: usize,
    /// Also list the accepted differences with their reasons.
    #[arg(long)]
    verbose: bool,
    /// Compare again the answers an earlier run recorded (its directory under --work), with
    /// the scenarios and accepted differences as they are now; starts no worker.
    #[arg(long, value_name = "RUN_DIR")]
    recheck: Option<PathBuf>,
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("ferry-compat: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn run() -> anyhow::Result<bool> {
    let args = Args::parse();
    let root = ferry_compat::workspace_root();
    if let Some(run_dir) = &args.recheck {
        let dir = args
            .scenarios
            .clone()
            .unwrap_or_else(ferry_compat::default_scenarios_dir);
        let mut scenarios = ferry_compat::scenario::load_all(&dir)?;
        if !args.only.is_empty() {
            scenarios.retain(|s| args.only.iter().any(|o| s.name.contains(o.as_str())));
        }
        let accepted = Accepted::load(
            &args
                .accepted
                .clone()
                .unwrap_or_else(ferry_compat::default_accepted_file),
        )?;
        let report = ferry_compat::runner::recheck(run_dir, &scenarios, &accepted)?;
        println!("{}", report.table());
        print!("{}", report.details(args.verbose));
        return Ok(report.passed());
    }
    let bootstrap = std::env::var("KAFKA_BOOTSTRAP_SERVERS")
        .context("KAFKA_BOOTSTRAP_SERVERS is not set: start a broker with `scripts/kafka start` and export KAFKA_BOOTSTRAP_SERVERS=127.0.0.1:9092")?;
    let ferry_bin = args.ferry.unwrap_or_else(|| {
        let debug = root.join("target/debug/ferry");
        if debug.is_file() {
            debug
        } else {
            root.join("target/release/ferry")
        }
    });
    // The workers run in their own directories: a relative path would not be found there.
    let ferry_bin = std::fs::canonicalize(&ferry_bin).with_context(|| {
        format!(
            "no ferry binary at {}: build it with `cargo build -p ferry-cli`",
            ferry_bin.display()
        )
    })?;
    let dir = args
        .scenarios
        .unwrap_or_else(ferry_compat::default_scenarios_dir);
    let mut scenarios = ferry_compat::scenario::load_all(&dir)?;
    if !args.only.is_empty() {
        scenarios.retain(|s| args.only.iter().any(|o| s.name.contains(o.as_str())));
    }
    anyhow::ensure!(
        !scenarios.is_empty(),
        "no scenarios to run in {}",
        dir.display()
    );
    let accepted = Accepted::load(
        &args
            .accepted
            .unwrap_or_else(ferry_compat::default_accepted_file),
    )?;
    let options = Options {
        setup: WorkerSetup {
            root: root.clone(),
            ferry_bin,
            bootstrap,
            test_plugin_path: WorkerSetup::test_plugin_path_from_env(),
        },
        scenarios,
        accepted,
        work: args
            .work
            .unwrap_or_else(|| root.join("target/ferry-compat")),
        jobs: args.jobs,
    };
    let report = ferry_compat::run_suite(&options)?;
    println!("{}", report.table());
    print!("{}", report.details(args.verbose));
    println!(
        "workers up in {:.1} s, suite {:.1} s; scratch in {}",
        report.startup_seconds,
        report.total_seconds,
        report.work.display()
    );
    Ok(report.passed())
}
