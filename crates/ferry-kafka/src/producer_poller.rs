//! Serves a producer's delivery reports, errors and statistics on a thread of its own.
//!
//! rdkafka's `ThreadedProducer` polls in windows of 100 ms and spins through the end of each:
//! its deadline is finer than librdkafka's millisecond timeouts, so the last fraction of a
//! millisecond is polled with a zero timeout, over and over. That is about 1% of a core per
//! producer, idle or not: 50 idle source tasks kept 40% of a core busy, 500 more than one core.
//! This poller waits in librdkafka only while records await their acknowledgement; otherwise
//! it serves what is ready without waiting and sleeps until a send wakes it, or a second has
//! passed (errors and statistics wait at most that long).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use rdkafka::producer::{BaseProducer, Producer, ProducerContext};

/// How long one wait in librdkafka lasts while records are in flight.
const BUSY_WINDOW: Duration = Duration::from_millis(100);
/// How long the poller sleeps with nothing in flight before it looks anyway.
const IDLE_WAKE: Duration = Duration::from_secs(1);
/// The most ready events (statistics, errors, logs) served in one go without waiting.
const READY_EVENTS: usize = 64;

pub(crate) struct Poller {
    stop: Arc<AtomicBool>,
    idle: Arc<AtomicBool>,
    /// Records sent and not yet reported; the producer's delivery callback counts them down.
    unacked: Arc<AtomicUsize>,
    thread: Option<JoinHandle<()>>,
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
        let stop = Arc::new(AtomicBool::new(false));
        let idle = Arc::new(AtomicBool::new(false));
        let thread = {
            let (stop, idle, unacked) = (stop.clone(), idle.clone(), unacked.clone());
            std::thread::Builder::new()
                .name("producer poller".to_owned())
                .spawn(move || {
                    while !stop.load(Ordering::SeqCst) {
                        if unacked.load(Ordering::SeqCst) > 0 {
                            producer.poll(BUSY_WINDOW);
                            continue;
                        }
                        // Each zero-timeout poll serves at most one ready event.
                        for _ in 0..READY_EVENTS {
                            producer.poll(Duration::ZERO);
                            if producer.in_flight_count() == 0 {
                                break;
                            }
                        }
                        // A send after this store sees it and wakes us; one before it shows
                        // in the count below.
                        idle.store(true, Ordering::SeqCst);
                        if unacked.load(Ordering::SeqCst) == 0 && !stop.load(Ordering::SeqCst) {
                            std::thread::park_timeout(IDLE_WAKE);
                        }
                        idle.store(false, Ordering::SeqCst);
                    }
                })?
        };
        Ok(Poller {
            stop,
            idle,
            unacked,
            thread: Some(thread),
        })
    }

    /// Whether nothing awaits an acknowledgement and the poller sleeps until the next send.
    pub(crate) fn idle(&self) -> bool {
        self.unacked.load(Ordering::SeqCst) == 0 && self.idle.load(Ordering::SeqCst)
    }

    /// Queues one record with `send`, counted as unacknowledged before the call (its report
    /// may come before `send` returns); wakes the poller if it sleeps.
    pub(crate) fn send<E>(&self, send: impl FnOnce() -> Result<(), E>) -> Result<(), E> {
        self.unacked.fetch_add(1, Ordering::SeqCst);
        if let Err(e) = send() {
            self.unacked.fetch_sub(1, Ordering::SeqCst);
            return Err(e);
        }
        if self.idle.load(Ordering::SeqCst) {
            if let Some(thread) = &self.thread {
                thread.thread().unpark();
            }
        }
        Ok(())
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
        self.stop.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            thread.thread().unpark();
            let _ = thread.join();
        }
    }
}
