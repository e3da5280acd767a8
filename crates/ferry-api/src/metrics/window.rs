//! Java's sampled statistics (`metrics.sample.window.ms` = 30 s, `metrics.num.samples` = 2):
//! rates, averages and maxima over the last two windows, so a value reflects recent work
//! rather than the whole life of a task.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Java's default `metrics.sample.window.ms`.
pub const WINDOW: Duration = Duration::from_secs(30);
/// Java's default `metrics.num.samples`.
const SAMPLES: usize = 2;

#[derive(Clone, Copy)]
struct Sample {
    start: Instant,
    count: u64,
    sum: f64,
    min: f64,
    max: f64,
}

impl Sample {
    fn empty(start: Instant) -> Self {
        Sample {
            start,
            count: 0,
            sum: 0.0,
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
        }
    }
}

struct Windows {
    samples: [Sample; SAMPLES],
    current: usize,
}

/// Values recorded over time; read as a rate, an average or a maximum of the recent windows.
pub struct Windowed {
    inner: Mutex<Windows>,
}

impl Default for Windowed {
    fn default() -> Self {
        let now = Instant::now();
        // The older sample starts one window back, as Java's first window does not count as
        // the whole elapsed time (a task that just started reports a modest rate, not a spike).
        let older = now.checked_sub(WINDOW).unwrap_or(now);
        Windowed {
            inner: Mutex::new(Windows {
                samples: [Sample::empty(older), Sample::empty(now)],
                current: 1,
            }),
        }
    }
}

impl Windows {
    fn roll(&mut self, now: Instant) {
        if now.duration_since(self.samples[self.current].start) < WINDOW {
            return;
        }
        let next = (self.current + 1) % SAMPLES;
        self.samples[next] = Sample::empty(now);
        self.current = next;
        // A window with nothing in it for a whole round is too old to describe the present.
        for s in &mut self.samples {
            if now.duration_since(s.start) >= WINDOW * SAMPLES as u32 {
                *s = Sample::empty(now.checked_sub(WINDOW).unwrap_or(now));
            }
        }
    }

    fn live(&self) -> impl Iterator<Item = &Sample> {
        self.samples.iter()
    }
}

impl Windowed {
    fn with<T>(&self, f: impl FnOnce(&mut Windows, Instant) -> T) -> T {
        let now = Instant::now();
        let mut w = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        w.roll(now);
        f(&mut w, now)
    }

    pub fn record(&self, value: f64) {
        self.record_many(1, value, value, value);
    }

    /// `count` values at once, with their sum and extremes: one clock reading and one lock for
    /// values recorded together (a poll's records).
    pub fn record_many(&self, count: u64, sum: f64, min: f64, max: f64) {
        self.with(|w, _| {
            let s = &mut w.samples[w.current];
            s.count += count;
            s.sum += sum;
            s.min = s.min.min(min);
            s.max = s.max.max(max);
        });
    }

    /// The sum of the recorded values per second.
    pub fn rate(&self) -> f64 {
        self.with(|w, now| {
            let oldest = w.live().map(|s| s.start).min().unwrap_or(now);
            let elapsed = now.duration_since(oldest).max(Duration::from_millis(1));
            let sum: f64 = w.live().map(|s| s.sum).sum();
            sum / elapsed.as_secs_f64()
        })
    }

    /// The average recorded value; NaN when nothing was recorded, as Java reports it.
    pub fn avg(&self) -> f64 {
        self.with(|w, _| {
            let (count, sum) = w
                .live()
                .fold((0u64, 0.0), |(c, s), x| (c + x.count, s + x.sum));
            if count == 0 {
                f64::NAN
            } else {
                sum / count as f64
            }
        })
    }

    /// The smallest recorded value; NaN when nothing was recorded.
    pub fn min(&self) -> f64 {
        self.with(|w, _| {
            let min = w.live().map(|s| s.min).fold(f64::INFINITY, f64::min);
            if min == f64::INFINITY {
                f64::NAN
            } else {
                min
            }
        })
    }

    /// The largest recorded value; NaN when nothing was recorded.
    pub fn max(&self) -> f64 {
        self.with(|w, _| {
            let max = w.live().map(|s| s.max).fold(f64::NEG_INFINITY, f64::max);
            if max == f64::NEG_INFINITY {
                f64::NAN
            } else {
                max
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_recorded_is_nan_and_a_zero_rate() {
        let w = Windowed::default();
        assert!(w.avg().is_nan());
        assert!(w.max().is_nan());
        assert!(w.min().is_nan());
        assert_eq!(w.rate(), 0.0);
    }

    #[test]
    fn averages_maxima_and_rates_cover_the_recorded_values() {
        let w = Windowed::default();
        for v in [10.0, 20.0, 60.0] {
            w.record(v);
        }
        assert_eq!(w.avg(), 30.0);
        assert_eq!(w.max(), 60.0);
        assert_eq!(w.min(), 10.0);
        // 90 over a little more than one window.
        let rate = w.rate();
        assert!(rate > 2.9 && rate <= 3.0, "{rate}");
    }
}
