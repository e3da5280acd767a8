//! `ferry`: Kafka Connect, rebuilt in Rust.

mod cluster_telemetry;
#[cfg(ferry_wrapped_link)]
mod curl_init;
mod distributed;
mod log4j2_config;
mod logging;
mod memory;
mod mirror_maker;
mod plugins;
mod rest_client;
#[cfg(ferry_wrapped_link)]
mod sasl_init;
mod standalone;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[global_allocator]
static ALLOCATOR: ferry_memory::Allocator = ferry_memory::ALLOCATOR;

#[derive(Parser)]
#[command(name = "ferry", version, about = "Kafka Connect, rebuilt in Rust")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a standalone worker, as `connect-standalone.sh` does.
    Standalone {
        /// The worker's `.properties` file.
        worker: PathBuf,
        /// Connector config files (`.properties` or JSON).
        connectors: Vec<PathBuf>,
    },
    /// Run a distributed worker, as `connect-distributed.sh` does.
    Distributed { worker: PathBuf },
    /// Run a dedicated MirrorMaker 2, as `connect-mirror-maker.sh` does.
    MirrorMaker {
        /// The MirrorMaker `.properties` file (`clusters`, `A.bootstrap.servers`, `A->B.enabled`, …).
        config: PathBuf,
        /// Run only the flows into these clusters.
        #[arg(long, num_args = 1..)]
        clusters: Vec<String>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let log_levels = std::sync::Arc::new(logging::init());
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        // The runtime's threads run every task's pipeline: they get the wide allocator cache.
        .on_thread_start(|| {
            ferry_memory::widen_thread_cache();
        })
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("ferry: could not start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async {
        memory::release_freed_memory_periodically();
        log4j2_config::apply_from_env(&log_levels)?;
        match cli.command {
            Command::Standalone { worker, connectors } => {
                standalone::run(&worker, &connectors, log_levels).await
            }
            Command::Distributed { worker } => distributed::run(&worker, log_levels).await,
            Command::MirrorMaker { config, clusters } => {
                mirror_maker::run(&config, &clusters, log_levels).await
            }
        }
    });
    // Every stop path has flushed and committed by now. A blocking call still running (a
    // client's close that hangs, an abandoned plugin call) must not keep the process alive.
    runtime.shutdown_timeout(std::time::Duration::from_secs(5));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("Stopping after a failure: {e:#}");
            eprintln!("ferry: {e:#}");
            ExitCode::FAILURE
        }
    }
}
