//! `ferry-bench`: the pieces of `scripts/bench` that are better done in a compiled program than in
//! bash: the raw librdkafka baseline (the practical limit a connector runtime can approach),
//! precise waits on topics, files and REST endpoints, start-up timing, the distributed-mode
//! timings (a connector created to all tasks RUNNING, failover after kill -9) and the results
//! report.

mod cluster;
mod http;
mod many;
mod raw;
mod raw_batch;
mod raw_copy;
mod report;
mod wait;

use std::path::PathBuf;
use std::time::Duration;

use clap::{Parser, Subcommand};

// The raw client runs on the allocator Ferry runs on, so the two are compared like for like.
#[global_allocator]
static ALLOCATOR: ferry_memory::Allocator = ferry_memory::ALLOCATOR;

#[derive(Parser)]
#[command(name = "ferry-bench", about = "Benchmark helpers for scripts/bench")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Produce each line of a file as one record value (acks=all); print the elapsed ms from
    /// creating the producer to the last acknowledgement.
    Produce {
        #[arg(long, default_value = "127.0.0.1:9092")]
        bootstrap: String,
        #[arg(long)]
        topic: String,
        #[arg(long)]
        file: PathBuf,
        /// Extra librdkafka settings, `key=value`.
        #[arg(short = 'X', value_name = "KEY=VALUE")]
        extra: Vec<String>,
    },
    /// Read `count` records from the beginning of every partition of a topic; print the elapsed
    /// ms from creating the consumer to the last record.
    Consume {
        #[arg(long, default_value = "127.0.0.1:9092")]
        bootstrap: String,
        #[arg(long)]
        topic: String,
        #[arg(long)]
        count: u64,
        #[arg(long, default_value_t = 600)]
        timeout_s: u64,
        #[arg(short = 'X', value_name = "KEY=VALUE")]
        extra: Vec<String>,
    },
    /// Copy `count` records of a topic on one cluster to a topic on another (same partition,
    /// key, value, headers, timestamp), as MirrorMaker's source task does; print the elapsed
    /// ms from creating the clients to the last acknowledgement.
    Copy {
        #[arg(long)]
        source: String,
        #[arg(long)]
        target: String,
        #[arg(long)]
        from: String,
        #[arg(long)]
        to: String,
        #[arg(long)]
        count: u64,
        #[arg(long, default_value_t = 600)]
        timeout_s: u64,
        /// The consumer's extra librdkafka settings, `key=value`.
        #[arg(short = 'C', value_name = "KEY=VALUE")]
        consumer: Vec<String>,
        /// The producer's extra librdkafka settings, `key=value`.
        #[arg(short = 'P', value_name = "KEY=VALUE")]
        producer: Vec<String>,
    },
    /// Create a topic with the broker's default replication and, unless given, partitions.
    CreateTopic {
        #[arg(long, default_value = "127.0.0.1:9092")]
        bootstrap: String,
        #[arg(long)]
        topic: String,
        /// The broker's default when -1.
        #[arg(long, default_value_t = -1, allow_negative_numbers = true)]
        partitions: i32,
    },
    /// Print the librdkafka version this binary links.
    Versions,
    /// Print the sum of a topic's end offsets (0 when it does not exist yet).
    EndOffsets {
        #[arg(long, default_value = "127.0.0.1:9092")]
        bootstrap: String,
        #[arg(long)]
        topic: String,
    },
    /// Wait until the sum of a topic's end offsets reaches `count`.
    WaitOffsets {
        #[arg(long, default_value = "127.0.0.1:9092")]
        bootstrap: String,
        #[arg(long)]
        topic: String,
        #[arg(long)]
        count: u64,
        #[arg(long, default_value_t = 600)]
        timeout_s: u64,
    },
    /// Wait until a file holds `count` complete lines.
    WaitLines {
        #[arg(long)]
        file: PathBuf,
        #[arg(long)]
        count: u64,
        #[arg(long, default_value_t = 600)]
        timeout_s: u64,
    },
    /// Wait until `GET url` answers 200.
    WaitHttp {
        #[arg(long)]
        url: String,
        #[arg(long, default_value_t = 120)]
        timeout_s: u64,
    },
    /// Wait until `count` connectors, and all of their tasks, are RUNNING
    /// (`GET <url>/connectors?expand=status`).
    WaitRunning {
        #[arg(long)]
        url: String,
        #[arg(long)]
        count: usize,
        #[arg(long, default_value_t = 300)]
        timeout_s: u64,
    },
    /// POST a connector to `<url>/connectors` (again while it answers 409), wait until
    /// `GET <url>/connectors/{name}/status` shows the connector and `tasks` tasks RUNNING, and
    /// print the ms from the first POST.
    CreateRunning {
        /// The worker's base URL, e.g. http://127.0.0.1:8083.
        #[arg(long)]
        url: String,
        /// The JSON body of the POST: {"name": ..., "config": {...}}.
        #[arg(long)]
        body: String,
        #[arg(long)]
        tasks: usize,
        #[arg(long, default_value_t = 300)]
        timeout_s: u64,
    },
    /// kill -9 the first candidate worker running a task of `connector`, wait until
    /// `GET <url>/connectors/{connector}/status` shows `tasks` tasks RUNNING on other workers,
    /// and print the ms from the kill.
    /// POST `count` connectors, the body TEMPLATE with `{i}` replaced by 1..=count, to one
    /// worker, then wait until all are RUNNING; print the ms from the first POST (W11).
    CreateMany {
        #[arg(long)]
        url: String,
        #[arg(long)]
        template: String,
        #[arg(long)]
        count: usize,
        #[arg(long, default_value_t = 900)]
        timeout_s: u64,
    },
    Failover {
        /// The base URL of a worker that is not a candidate; its status answers are timed.
        #[arg(long)]
        url: String,
        #[arg(long)]
        connector: String,
        #[arg(long)]
        tasks: usize,
        /// `WORKER_ID=PID` (the worker id as the status reports it, e.g. 127.0.0.1:8084),
        /// in order of preference; repeatable.
        #[arg(long = "candidate", value_name = "WORKER_ID=PID", required = true)]
        candidates: Vec<String>,
        #[arg(long, default_value_t = 300)]
        timeout_s: u64,
    },
    /// Start a command, print the ms from spawning it to the first 200 from `GET url`, then stop
    /// it with SIGTERM.
    Startup {
        #[arg(long)]
        url: String,
        /// Where the command's standard output and error go.
        #[arg(long)]
        log: PathBuf,
        #[arg(long, default_value_t = 120)]
        timeout_s: u64,
        #[arg(last = true, required = true)]
        command: Vec<String>,
    },
    /// Turn the samples of a run into results.json, RESULTS.md and the printed table.
    Report {
        /// Tab-separated samples: workload, system, value, unit.
        #[arg(long)]
        samples: PathBuf,
        /// Tab-separated `key<TAB>value` lines: title, date, machine, versions, notes.
        #[arg(long)]
        meta: PathBuf,
        /// Directory for results.json and RESULTS.md.
        #[arg(long)]
        out: PathBuf,
    },
}

fn main() -> anyhow::Result<()> {
    match Cli::parse().command {
        Command::Produce {
            bootstrap,
            topic,
            file,
            extra,
        } => {
            let ms = raw::produce(&bootstrap, &topic, &file, &extra)?;
            println!("{ms}");
        }
        Command::Consume {
            bootstrap,
            topic,
            count,
            timeout_s,
            extra,
        } => {
            let ms = raw::consume(&bootstrap, &topic, count, secs(timeout_s), &extra)?;
            println!("{ms}");
        }
        Command::Copy {
            source,
            target,
            from,
            to,
            count,
            timeout_s,
            consumer,
            producer,
        } => {
            let ms = raw_copy::copy(&raw_copy::Copy {
                source: &source,
                target: &target,
                from: &from,
                to: &to,
                count,
                timeout: secs(timeout_s),
                consumer: &consumer,
                producer: &producer,
            })?;
            println!("{ms}");
        }
        Command::CreateTopic {
            bootstrap,
            topic,
            partitions,
        } => raw::create_topic(&bootstrap, &topic, partitions)?,
        Command::Versions => {
            let (_, version) = ferry_kafka::rdkafka::util::get_rdkafka_version();
            println!("librdkafka {version}");
        }
        Command::EndOffsets { bootstrap, topic } => {
            println!("{}", raw::end_offsets(&bootstrap, &topic)?);
        }
        Command::WaitOffsets {
            bootstrap,
            topic,
            count,
            timeout_s,
        } => raw::wait_offsets(&bootstrap, &topic, count, secs(timeout_s))?,
        Command::WaitLines {
            file,
            count,
            timeout_s,
        } => wait::lines(&file, count, secs(timeout_s))?,
        Command::WaitHttp { url, timeout_s } => wait::http_ok(&url, secs(timeout_s))?,
        Command::WaitRunning {
            url,
            count,
            timeout_s,
        } => wait::running(&url, count, secs(timeout_s))?,
        Command::CreateRunning {
            url,
            body,
            tasks,
            timeout_s,
        } => {
            let ms = cluster::create_running(&url, &body, tasks, secs(timeout_s))?;
            println!("{ms}");
        }
        Command::CreateMany {
            url,
            template,
            count,
            timeout_s,
        } => {
            let ms = many::create_many(&url, &template, count, secs(timeout_s))?;
            println!("{ms}");
        }
        Command::Failover {
            url,
            connector,
            tasks,
            candidates,
            timeout_s,
        } => {
            let candidates = candidates
                .iter()
                .map(|c| cluster::candidate(c))
                .collect::<anyhow::Result<Vec<_>>>()?;
            let ms = cluster::failover(&url, &connector, tasks, &candidates, secs(timeout_s))?;
            println!("{ms}");
        }
        Command::Startup {
            url,
            log,
            timeout_s,
            command,
        } => {
            let ms = wait::startup(&url, &log, secs(timeout_s), &command)?;
            println!("{ms}");
        }
        Command::Report { samples, meta, out } => report::write(&samples, &meta, &out)?,
    }
    Ok(())
}

fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}
