//! Crashes under load: three workers run a file pipeline fed at a steady rate while, round after
//! round, one of them is killed with SIGKILL and started again. Nothing may be lost; duplicates
//! are allowed (at-least-once), and Java Connect's count in the same run is the baseline Ferry's
//! is held to, give or take what the timing of a kill decides.
#![cfg(feature = "kafka-integration-tests")]

mod support;

use std::collections::HashSet;
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use support::*;

const WORKERS: usize = 3;
/// One kill per round, each worker in turn.
const ROUNDS: usize = 4;
/// Lines appended to the source file per second.
const RATE: usize = 4_000;
/// Lines the pipeline must move between two kills (a recovered pipeline, then more load).
const PER_ROUND: usize = 30_000;
const SLOW: Duration = Duration::from_secs(240);
/// Seconds between offset commits: a crash repeats up to that much of the killed worker's work.
const FLUSH_INTERVAL_S: usize = 2;
/// Both runs use these worker settings.
const WORKER_SETTINGS: &str = "offset.flush.interval.ms=2000
consumer.session.timeout.ms=10000
consumer.heartbeat.interval.ms=1000
plugin.discovery=only_scan
";

#[derive(Clone, Copy, Debug)]
enum Runtime {
    Java,
    Ferry,
}

struct Outcome {
    written: usize,
    lost: usize,
    duplicated: usize,
}

/// Appends numbered lines at `RATE` until told to stop; answers how many it wrote.
fn feed(
    path: &Path,
    stop: Arc<AtomicBool>,
    written: Arc<AtomicUsize>,
) -> std::thread::JoinHandle<()> {
    let path = path.to_owned();
    std::thread::spawn(move || {
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        let start = Instant::now();
        let mut n = 0;
        while !stop.load(Ordering::Relaxed) {
            let due = (start.elapsed().as_millis() as usize) * RATE / 1000;
            if due > n {
                file.write_all(numbered_lines(n, due).as_bytes()).unwrap();
                n = due;
                written.store(n, Ordering::Relaxed);
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    })
}

fn start(runtime: Runtime, dir: &Path, port: u16, props: &Path) -> Ferry {
    match runtime {
        Runtime::Java => java_distributed_worker(dir, port, props),
        Runtime::Ferry => {
            let w = Ferry::distributed(dir, port, props);
            wait_until("Ferry to be healthy", SLOW, || {
                w.get("/health").is_some_and(|(code, _)| code == 200)
            });
            w
        }
    }
}

fn create(w: &Ferry, body: String) {
    // A worker still joining answers 409; the request goes through once the group settles.
    wait_until("the connector to be created", SLOW, || {
        let (code, answer) = w.call("POST", "/connectors", Some(&body));
        assert!(code == 201 || code == 409, "{code}: {answer}");
        code == 201
    });
}

fn run(runtime: Runtime) -> Outcome {
    let dir = tempfile::tempdir().unwrap();
    let cluster = unique("chaos");
    let topic = unique("chaos-data");
    let input = dir.path().join("in.txt");
    let output = dir.path().join("out.txt");
    std::fs::write(&input, "").unwrap();
    let ports: Vec<u16> = (0..WORKERS).map(|_| port()).collect();
    let props: Vec<_> = ports
        .iter()
        .map(|p| distributed_properties(dir.path(), *p, &cluster, WORKER_SETTINGS))
        .collect();
    let mut workers: Vec<Option<Ferry>> = ports
        .iter()
        .zip(&props)
        .map(|(p, props)| Some(start(runtime, dir.path(), *p, props)))
        .collect();
    let any =
        |workers: &[Option<Ferry>]| -> usize { workers.iter().position(Option::is_some).unwrap() };
    let first = workers[0].as_ref().unwrap();
    create(
        first,
        format!(
            r#"{{"name":"{cluster}-src","config":{{"connector.class":"FileStreamSource","file":"{}","topic":"{topic}","topic.creation.default.partitions":"3","topic.creation.default.replication.factor":"-1"}}}}"#,
            input.display()
        ),
    );
    create(
        first,
        format!(
            r#"{{"name":"{cluster}-sink","config":{{"connector.class":"FileStreamSink","file":"{}","topics":"{topic}","tasks.max":"3"}}}}"#,
            output.display()
        ),
    );

    let stop = Arc::new(AtomicBool::new(false));
    let written = Arc::new(AtomicUsize::new(0));
    let feeder = feed(&input, stop.clone(), written.clone());
    let moved = |at_least: usize| {
        wait_until(
            &format!("{runtime:?}'s pipeline to move {at_least} lines"),
            SLOW,
            || lines(&output).len() >= at_least,
        );
    };
    let mut target = PER_ROUND;
    moved(target);
    for round in 0..ROUNDS {
        let victim = round % WORKERS;
        workers[victim].take().unwrap().kill9();
        workers[victim] = Some(start(runtime, dir.path(), ports[victim], &props[victim]));
        target = lines(&output).len() + PER_ROUND;
        moved(target);
    }
    stop.store(true, Ordering::Relaxed);
    feeder.join().unwrap();
    let total = written.load(Ordering::Relaxed);
    let expected: HashSet<String> = numbered_lines(0, total)
        .lines()
        .map(str::to_owned)
        .collect();
    let mut got = Vec::new();
    let complete = |got: &mut Vec<String>| {
        *got = lines(&output);
        let seen: HashSet<&String> = got.iter().collect();
        expected.iter().all(|l| seen.contains(l))
    };
    let deadline = Instant::now() + SLOW;
    while !complete(&mut got) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(500));
    }
    let seen: HashSet<&String> = got.iter().collect();
    let lost = expected.iter().filter(|l| !seen.contains(l)).count();
    let invented = seen.iter().filter(|l| !expected.contains(**l)).count();
    assert_eq!(invented, 0, "{runtime:?} wrote lines that were never fed");
    let w = any(&workers);
    eprintln!(
        "{runtime:?}: {total} lines fed, {} written, status {}",
        got.len(),
        workers[w]
            .as_ref()
            .unwrap()
            .status(&format!("{cluster}-sink"))
    );
    for w in workers.into_iter().flatten() {
        match runtime {
            Runtime::Java => w.terminate(),
            Runtime::Ferry => w.stop(),
        }
    }
    Outcome {
        written: total,
        lost,
        duplicated: got.len() - seen.len(),
    }
}

#[test]
fn repeated_crashes_lose_nothing_and_duplicate_no_more_than_java_connect() {
    let java = run(Runtime::Java);
    let ferry = run(Runtime::Ferry);
    let share = |o: &Outcome| 100.0 * o.duplicated as f64 / o.written as f64;
    eprintln!(
        "chaos: Java Connect {} duplicates of {} lines ({:.2}%), Ferry {} of {} ({:.2}%)",
        java.duplicated,
        java.written,
        share(&java),
        ferry.duplicated,
        ferry.written,
        share(&ferry)
    );
    assert_eq!(java.lost, 0, "Java Connect lost lines");
    assert_eq!(ferry.lost, 0, "Ferry lost lines");
    // A kill repeats what the victim's tasks did since their last commit: anything up to one
    // flush interval of the feed, by chance of timing and of which tasks the victim ran. Single
    // runs of either runtime vary by that much (Java alone gave 12% to 26% here), so Ferry may
    // exceed Java's count by at most that window per round; the revocation behaviour itself is
    // checked exactly by the standalone tests.
    let window = ROUNDS * RATE * FLUSH_INTERVAL_S;
    assert!(
        ferry.duplicated <= java.duplicated + window,
        "Ferry duplicated {} lines ({:.2}%), Java Connect {} ({:.2}%), beyond the crash window of {window}",
        ferry.duplicated,
        share(&ferry),
        java.duplicated,
        share(&java)
    );
}
