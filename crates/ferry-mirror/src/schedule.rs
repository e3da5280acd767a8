//! The background thread of a MirrorMaker connector, as Java's `Scheduler`: one thread runs the
//! connector's start-up jobs (which `start` waits for, at most `admin.timeout.ms`) and then
//! its repeating jobs, one at a time; a failing job is logged and runs again at its next time.
//! Admin calls are futures, so the thread has a small runtime of its own.

use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A job that runs again and again, first after `first` and then every `every`.
pub struct Repeating<W> {
    pub name: &'static str,
    pub first: Duration,
    pub every: Duration,
    pub run: fn(&mut W, &tokio::runtime::Runtime),
}

/// Stops the thread when dropped; the thread finishes the job it is in and leaves.
pub struct Scheduler {
    _stop: mpsc::Sender<()>,
}

impl Scheduler {
    /// Starts the thread with `work`, runs `startup` on it and waits for that (at most `wait`;
    /// a start-up that takes longer goes on in the background, as Java's does).
    pub fn start<W: Send + 'static>(
        label: &str,
        mut work: W,
        startup: fn(&mut W, &tokio::runtime::Runtime),
        jobs: Vec<Repeating<W>>,
        wait: Duration,
    ) -> std::io::Result<Scheduler> {
        let (stop_tx, stop_rx) = mpsc::channel::<()>();
        let (ready_tx, ready_rx) = mpsc::channel::<()>();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let thread_label = label.to_owned();
        std::thread::Builder::new()
            .name(format!("mirror-scheduler-{label}"))
            .spawn(move || {
                let span = tracing::info_span!("mirror_scheduler", connector = %thread_label);
                let _entered = span.enter();
                let started = Instant::now();
                startup(&mut work, &runtime);
                took("start-up", started);
                let _ = ready_tx.send(());
                let now = Instant::now();
                let mut due: Vec<Instant> = jobs.iter().map(|j| now + j.first).collect();
                loop {
                    let next = due.iter().min().copied();
                    let wait = next.map_or(Duration::from_secs(3600), |n| {
                        n.saturating_duration_since(Instant::now())
                    });
                    match stop_rx.recv_timeout(wait) {
                        Err(mpsc::RecvTimeoutError::Timeout) => {}
                        _ => return,
                    }
                    let now = Instant::now();
                    for (job, at) in jobs.iter().zip(due.iter_mut()) {
                        if *at <= now {
                            let started = Instant::now();
                            (job.run)(&mut work, &runtime);
                            took(job.name, started);
                            *at = Instant::now() + job.every;
                        }
                    }
                }
            })?;
        let started = Instant::now();
        if ready_rx.recv_timeout(wait).is_err() {
            tracing::warn!(
                connector = label,
                elapsed_ms = started.elapsed().as_millis() as u64,
                "The connector's start-up jobs did not finish in admin.timeout.ms; they go on in the background"
            );
        }
        Ok(Scheduler { _stop: stop_tx })
    }
}

/// Java's scheduler logs how long each job took.
fn took(job: &str, started: Instant) {
    tracing::info!("{job} took {} ms", started.elapsed().as_millis());
}

/// An interval from a config value in seconds; a negative one disables the job (`None`).
pub fn seconds(value: i64) -> Option<Duration> {
    u64::try_from(value).ok().map(Duration::from_secs)
}
