//! Serves producers' delivery reports, errors and statistics.
//!
//! rdkafka's `ThreadedProducer` polls in windows of 100 ms and spins through the end of each:
//! its deadline is finer than librdkafka's millisecond timeouts, so the last fraction of a
//! millisecond is polled with a zero timeout, over and over. That is about 1% of a core per
//! producer, idle or not: 50 idle source tasks kept 40% of a core busy, 500 more than one core.
//!
//! Here a producer with records awaiting their acknowledgement has a thread of its own that
//! waits in librdkafka for them. Once none is left that thread ends, and the producer is looked
//! at once a second, for errors and statistics, by one thread all idle producers share; the
//! next send gives it a thread again. A thread costs about 36 KB resident even when it sleeps
//! (its stack and every library's thread-local storage), so a thread per idle producer made
//! up 18 MB of a worker with 500 idle source tasks.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use rdkafka::producer::{BaseProducer, Producer, ProducerContext};

/// How long one wait in librdkafka lasts while records are in flight.
const BUSY_WINDOW: Duration = Duration::from_millis(100);
/// How often the shared thread looks at the idle producers.
const IDLE_WAKE: Duration = Duration::from_secs(1);
/// The most ready events (statistics, errors, logs) served in one go without waiting.
const READY_EVENTS: usize = 64;

/// Who polls a producer.
enum Mode {
    /// A thread of its own, while records await acknowledgement.
    Own(JoinHandle<()>),
    /// The thread shared by the idle producers.
    Shared,
    /// Nobody: the producer is being dropped.
    Stopped,
}

/// A producer as its pollers see it.
struct Served<C: ProducerContext + 'static> {
    producer: Arc<BaseProducer<C>>,
    /// Records sent and not yet reported; the producer's delivery callback counts them down.
    unacked: Arc<AtomicUsize>,
    stop: AtomicBool,
    mode: Mutex<Mode>,
    /// Whether `mode` is `Own`, read without the lock on every send.
    own_thread: AtomicBool,
}

/// A producer's polling, as the shared thread and the [`Poller`] see it.
trait Polled: Send + Sync {
    /// Serves what is ready if the producer has no thread of its own.
    fn serve_if_idle(&self);
    /// Whether the producer has a thread of its own (no lock: every send asks).
    fn has_thread(&self) -> bool;
    /// Gives the producer a thread of its own unless it has one.
    fn wake(self: Arc<Self>);
    /// Ends its thread, if it has one, for good.
    fn stop(&self);
    /// Whether the producer has no thread of its own.
    fn shared(&self) -> bool;
}

impl<C: ProducerContext + 'static> Served<C> {
    fn mode(&self) -> MutexGuard<'_, Mode> {
        self.mode.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Serves what is ready without waiting (each zero-timeout poll serves at most one event).
    fn serve_ready(&self) {
        for _ in 0..READY_EVENTS {
            self.producer.poll(Duration::ZERO);
            if self.producer.in_flight_count() == 0 {
                break;
            }
        }
    }

    /// The loop of a producer's own thread: it ends once nothing awaits acknowledgement.
    fn run_own(&self) {
        loop {
            if !self.stop.load(Ordering::SeqCst) && self.unacked.load(Ordering::SeqCst) > 0 {
                self.producer.poll(BUSY_WINDOW);
                continue;
            }
            self.serve_ready();
            // A send counts its record before it looks at `own_thread`, and this clears
            // `own_thread` before it looks at the count: either this sees the record, or the
            // send sees no thread and starts one (after this releases the lock).
            let mut mode = self.mode();
            self.own_thread.store(false, Ordering::SeqCst);
            if self.stop.load(Ordering::SeqCst) || self.unacked.load(Ordering::SeqCst) == 0 {
                if matches!(*mode, Mode::Own(_)) {
                    *mode = Mode::Shared;
                }
                return;
            }
            self.own_thread.store(true, Ordering::SeqCst);
        }
    }
}

impl<C: ProducerContext + 'static> Polled for Served<C> {
    fn serve_if_idle(&self) {
        if self.shared() {
            self.serve_ready();
        }
    }

    fn has_thread(&self) -> bool {
        self.own_thread.load(Ordering::SeqCst)
    }

    fn wake(self: Arc<Self>) {
        let mut mode = self.mode();
        if !matches!(*mode, Mode::Shared) {
            return;
        }
        let own = self.clone();
        match std::thread::Builder::new()
            .name("producer poller".to_owned())
            .spawn(move || own.run_own())
        {
            Ok(thread) => {
                *mode = Mode::Own(thread);
                self.own_thread.store(true, Ordering::SeqCst);
            }
            // The shared thread still serves it, a second late; the next send tries again.
            Err(error) => tracing::warn!(
                %error,
                "Could not start a thread for a producer's acknowledgements"
            ),
        }
    }

    fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
        let previous = std::mem::replace(&mut *self.mode(), Mode::Stopped);
        self.own_thread.store(false, Ordering::SeqCst);
        if let Mode::Own(thread) = previous {
            let _ = thread.join();
        }
    }

    fn shared(&self) -> bool {
        matches!(*self.mode(), Mode::Shared)
    }
}

/// The idle producers, and whether their shared thread runs.
static IDLE: Mutex<Vec<Arc<dyn Polled>>> = Mutex::new(Vec::new());
static IDLE_THREAD: Mutex<bool> = Mutex::new(false);

fn idle_producers() -> MutexGuard<'static, Vec<Arc<dyn Polled>>> {
    IDLE.lock().unwrap_or_else(|e| e.into_inner())
}

fn register(served: Arc<dyn Polled>) -> std::io::Result<()> {
    let mut started = IDLE_THREAD.lock().unwrap_or_else(|e| e.into_inner());
    if !*started {
        std::thread::Builder::new()
            .name("idle producers".to_owned())
            .spawn(|| loop {
                std::thread::sleep(IDLE_WAKE);
                // Served under the lock, so a producer that leaves is never polled afterwards.
                for served in idle_producers().iter() {
                    served.serve_if_idle();
                }
            })?;
        *started = true;
    }
    idle_producers().push(served);
    Ok(())
}

/// Polls one producer: with a thread of its own while records are in flight, with the shared
/// thread otherwise.
pub(crate) struct Poller {
    served: Arc<dyn Polled>,
    unacked: Arc<AtomicUsize>,
}

impl Poller {
    /// Starts polling `producer`; `unacked` counts the records sent and not yet reported.
    pub(crate) fn start<C>(
        producer: Arc<BaseProducer<C>>,
        unacked: Arc<AtomicUsize>,
    ) -> std::io::Result<Self>
    where
        C: ProducerContext + 'static,
    {
        let served: Arc<dyn Polled> = Arc::new(Served {
            producer,
            unacked: unacked.clone(),
            stop: AtomicBool::new(false),
            mode: Mutex::new(Mode::Shared),
            own_thread: AtomicBool::new(false),
        });
        register(served.clone())?;
        Ok(Poller { served, unacked })
    }

    /// Whether nothing awaits an acknowledgement and the producer has no thread of its own.
    pub(crate) fn idle(&self) -> bool {
        self.unacked.load(Ordering::SeqCst) == 0 && self.served.shared()
    }

    /// Queues one record with `send`; see [`Poller::send_many`].
    pub(crate) fn send<E>(&self, send: impl FnOnce() -> Result<(), E>) -> Result<(), E> {
        self.send_many(1, || {
            let outcome = send();
            (usize::from(outcome.is_ok()), outcome)
        })
    }

    /// Queues `count` records with `send`, which tells how many it queued. They are counted as
    /// unacknowledged before the call (a report may come before `send` returns); gives the
    /// producer a thread if it has none.
    pub(crate) fn send_many<T>(&self, count: usize, send: impl FnOnce() -> (usize, T)) -> T {
        self.unacked.fetch_add(count, Ordering::SeqCst);
        let (queued, outcome) = send();
        if queued < count {
            self.unacked.fetch_sub(count - queued, Ordering::SeqCst);
        }
        if queued > 0 && !self.served.has_thread() {
            self.served.clone().wake();
        }
        outcome
    }
}

/// `producer` shared with the poller that serves it.
pub(crate) fn polled<C>(
    producer: BaseProducer<C>,
    unacked: Arc<AtomicUsize>,
) -> Result<(Arc<BaseProducer<C>>, Poller), crate::KafkaClientError>
where
    C: ProducerContext + 'static,
{
    let producer = Arc::new(producer);
    let poller = Poller::start(producer.clone(), unacked).map_err(|e| {
        crate::KafkaClientError::Interrupted {
            operation: "starting the producer's poller",
            message: e.to_string(),
        }
    })?;
    Ok((producer, poller))
}

impl Drop for Poller {
    fn drop(&mut self) {
        self.served.stop();
        idle_producers().retain(|served| !Arc::ptr_eq(served, &self.served));
    }
}
