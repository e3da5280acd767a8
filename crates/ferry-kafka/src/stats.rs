//! librdkafka's statistics (`statistics.interval.ms`), kept for the worker's metrics endpoint:
//! the latest report and the one before it, so rates can be worked out between the two.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use rdkafka::statistics::Statistics;

/// How often clients report statistics unless their settings say otherwise.
pub const DEFAULT_INTERVAL_MS: u64 = 5_000;

/// One statistics report and when it arrived.
pub struct Report {
    pub at: Instant,
    pub stats: Statistics,
}

/// The latest report and the one before it.
pub type Latest = (Option<Arc<Report>>, Option<Arc<Report>>);

/// The statistics of one client.
pub struct ClientStats {
    created: SystemTime,
    reports: Mutex<Latest>,
    /// Records whose delivery failed for good (librdkafka's statistics do not count them).
    record_errors: AtomicU64,
}

impl Default for ClientStats {
    fn default() -> Self {
        ClientStats {
            created: SystemTime::now(),
            reports: Mutex::default(),
            record_errors: AtomicU64::new(0),
        }
    }
}

impl ClientStats {
    /// When the client was made, in seconds since the epoch (Java's `start-time-ms`, as the
    /// exporter rules scale it).
    pub fn created_unix_seconds(&self) -> f64 {
        self.created
            .duration_since(UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64())
    }

    pub fn update(&self, stats: Statistics) {
        let report = Arc::new(Report {
            at: Instant::now(),
            stats,
        });
        let mut reports = self.reports.lock().unwrap_or_else(|e| e.into_inner());
        reports.0 = reports.1.take();
        reports.1 = Some(report);
    }

    /// The latest report and the one before it.
    pub fn reports(&self) -> Latest {
        let reports = self.reports.lock().unwrap_or_else(|e| e.into_inner());
        (reports.1.clone(), reports.0.clone())
    }

    pub fn record_error(&self) {
        self.record_errors.fetch_add(1, Ordering::Relaxed);
    }

    pub fn record_errors(&self) -> u64 {
        self.record_errors.load(Ordering::Relaxed)
    }
}

/// Turns statistics on for a client configuration that does not set them itself.
pub fn enable(config: &mut rdkafka::ClientConfig, interval_ms: u64) {
    if config.get("statistics.interval.ms").is_none() {
        config.set("statistics.interval.ms", interval_ms.to_string());
    }
}
