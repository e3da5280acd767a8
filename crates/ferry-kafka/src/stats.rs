//! librdkafka's statistics (`statistics.interval.ms`), kept for the worker's metrics endpoint:
//! the latest report and the one before it, so rates can be worked out between the two.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use rdkafka::statistics::Statistics;

/// How often clients report statistics unless their settings say otherwise.
pub const DEFAULT_INTERVAL_MS: u64 = 5_000;

/// The request counts (`brokers[].req`, by API) the worker's metrics read. Each broker handle
/// reports about 80 of them, a string and a number each; kept in full they were most of a
/// report, and every client keeps two.
pub const KEPT_REQUEST_COUNTS: [&str; 5] = [
    "Fetch",
    "Heartbeat",
    "JoinGroup",
    "SyncGroup",
    "OffsetCommit",
];

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

    pub fn update(&self, mut stats: Statistics) {
        for broker in stats.brokers.values_mut() {
            broker
                .req
                .retain(|api, _| KEPT_REQUEST_COUNTS.contains(&api.as_str()));
            broker.req.shrink_to_fit();
            // The same partitions are in `topics`, which the metrics read.
            broker.toppars = Default::default();
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_keeps_only_the_request_counts_the_metrics_read() {
        let json = r#"{"name":"p#producer-1","client_id":"p","type":"producer","ts":1,"time":1,
            "age":1,"replyq":0,"msg_cnt":0,"msg_size":0,"msg_max":0,"msg_size_max":0,"tx":0,
            "tx_bytes":0,"rx":0,"rx_bytes":0,"txmsgs":0,"txmsg_bytes":0,"rxmsgs":0,
            "rxmsg_bytes":0,"simple_cnt":0,"metadata_cache_cnt":0,"topics":{},
            "brokers":{"b:9092/1":{"name":"b:9092/1","nodeid":1,"nodename":"b:9092",
            "source":"learned","state":"UP","stateage":1,"outbuf_cnt":0,"outbuf_msg_cnt":0,
            "waitresp_cnt":0,"waitresp_msg_cnt":0,"tx":0,"txbytes":0,"txerrs":0,"txretries":0,
            "txidle":0,"req_timeouts":0,"rx":0,"rxbytes":0,"rxerrs":0,"rxcorriderrs":0,
            "rxpartial":0,"rxidle":0,"zbuf_grow":0,"buf_grow":0,"wakeups":0,"connects":1,
            "disconnects":0,"req":{"Produce":7,"Fetch":3,"Heartbeat":2,"Metadata":1},
            "toppars":{"t-0":{"topic":"t","partition":0}}}}}"#;
        let stats: Statistics = serde_json::from_str(json).unwrap();
        let client = ClientStats::default();
        client.update(stats);
        let (latest, _) = client.reports();
        let broker = &latest.unwrap().stats.brokers["b:9092/1"];
        let mut kept: Vec<_> = broker.req.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        kept.sort();
        assert_eq!(kept, vec![("Fetch", 3), ("Heartbeat", 2)]);
        assert!(broker.toppars.is_empty());
    }
}
