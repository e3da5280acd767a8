//! The client metrics that matter to operators, worked out from librdkafka's statistics and
//! named as the JMX exporter names the Java clients' metrics: sends, errors and retries,
//! request latency, bytes, and per-partition consumer lag.

use ferry_kafka::rdkafka::statistics::{Broker, Statistics};
use ferry_kafka::stats::{ClientStats, Report};

use super::exposition::{jmx_value, metric_name, Exposition, Kind};

/// Java's `kafka.producer` or `kafka.consumer` domain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Producer,
    Consumer,
}

impl Role {
    fn domain(self) -> &'static str {
        match self {
            Role::Producer => "kafka_producer",
            Role::Consumer => "kafka_consumer",
        }
    }
}

/// librdkafka reports latencies in microseconds; Java in milliseconds.
fn micros_to_ms(us: i64) -> f64 {
    us as f64 / 1000.0
}

/// Brokers the client talks to by node id (librdkafka also lists bootstrap and internal
/// entries with negative ids, which Java does not name as nodes).
fn nodes(stats: &Statistics) -> impl Iterator<Item = &Broker> {
    stats.brokers.values().filter(|b| b.nodeid >= 0)
}

/// The mean of the brokers' round-trip times, weighted by how many requests each measured.
fn request_latency_ms(stats: &Statistics) -> f64 {
    let (sum, count) = nodes(stats)
        .filter_map(|b| b.rtt.as_ref())
        .fold((0i64, 0i64), |(s, c), w| (s + w.sum, c + w.cnt));
    if count == 0 {
        f64::NAN
    } else {
        micros_to_ms(sum / count)
    }
}

/// `part / whole`, NaN (Java's "no samples") when there is nothing to divide.
fn ratio(part: f64, whole: f64) -> f64 {
    if whole == 0.0 {
        f64::NAN
    } else {
        part / whole
    }
}

/// The mean of the brokers' throttle times in milliseconds.
fn throttle_ms(stats: &Statistics) -> f64 {
    let (sum, count) = nodes(stats)
        .filter_map(|b| b.throttle.as_ref())
        .fold((0i64, 0i64), |(s, c), w| (s + w.sum, c + w.cnt));
    ratio(sum as f64, count as f64)
}

/// The coordinator's request counts: attribute and librdkafka's API name.
const COORDINATOR_REQUESTS: [(&str, &str); 4] = [
    ("heartbeat-total", "Heartbeat"),
    ("join-total", "JoinGroup"),
    ("sync-total", "SyncGroup"),
    ("commit-total", "OffsetCommit"),
];

/// Requests of one API sent to any broker, the group coordinator's connection included.
fn requests_of(stats: &Statistics, api: &str) -> f64 {
    stats
        .brokers
        .values()
        .map(|b| b.req.get(api).copied().unwrap_or(0))
        .sum::<i64>() as f64
}

fn position_lag(p: &ferry_kafka::rdkafka::statistics::Partition) -> Option<f64> {
    (p.app_offset >= 0 && p.hi_offset >= 0).then(|| (p.hi_offset - p.app_offset).max(0) as f64)
}

/// What one scrape writes for a client, with its client id as label.
struct ClientWriter<'a> {
    out: &'a mut Exposition,
    role: Role,
    client_id: String,
}

impl ClientWriter<'_> {
    fn client(&mut self, group: &str, attribute: &str, value: f64) {
        let prefix = match group {
            "" => self.role.domain().to_owned(),
            g => format!("{}_{g}", self.role.domain()),
        };
        let help = format!("{} {attribute}", self.role.domain());
        self.out.sample(
            metric_name(&prefix, attribute),
            Kind::of_attribute(attribute),
            &help,
            vec![("clientid", self.client_id.clone())],
            value,
        );
    }

    fn labelled(
        &mut self,
        group: &str,
        attribute: &str,
        mut labels: Vec<(&'static str, String)>,
        value: f64,
    ) {
        labels.insert(0, ("clientid", self.client_id.clone()));
        let prefix = format!("{}_{group}", self.role.domain());
        let help = format!("{} {group} {attribute}", self.role.domain());
        self.out.sample(
            metric_name(&prefix, attribute),
            Kind::of_attribute(attribute),
            &help,
            labels,
            value,
        );
    }
}

/// Per-second change of a counter between the two latest reports; 0 until both have it.
fn per_second(
    now: &Report,
    before: Option<&Report>,
    value: impl Fn(&Statistics) -> Option<f64>,
) -> f64 {
    let Some(before) = before else {
        return 0.0;
    };
    let secs = now.at.duration_since(before.at).as_secs_f64();
    match (value(&now.stats), value(&before.stats)) {
        (Some(now), Some(then)) if secs > 0.0 => (now - then).max(0.0) / secs,
        _ => 0.0,
    }
}

/// Writes one client's metrics; nothing before its first statistics report.
pub fn render(out: &mut Exposition, role: Role, client_id: &str, client: &ClientStats) {
    let (Some(now), before) = client.reports() else {
        return;
    };
    let before = before.as_deref();
    let stats = &now.stats;
    let mut w = ClientWriter {
        out,
        role,
        client_id: jmx_value(client_id),
    };
    let sum = |f: fn(&Broker) -> u64| nodes(stats).map(f).sum::<u64>() as f64;

    // The client as a whole (`producer-metrics` / `consumer-metrics`).
    w.client("", "request-total", sum(|b| b.tx));
    w.client("", "response-total", sum(|b| b.rx));
    w.client("", "outgoing-byte-total", stats.tx_bytes as f64);
    w.client("", "incoming-byte-total", stats.rx_bytes as f64);
    w.client(
        "",
        "connection-count",
        nodes(stats).filter(|b| b.state == "UP").count() as f64,
    );
    w.client(
        "",
        "connection-creation-total",
        nodes(stats).filter_map(|b| b.connects).sum::<i64>() as f64,
    );
    w.client(
        "",
        "connection-close-total",
        nodes(stats).filter_map(|b| b.disconnects).sum::<i64>() as f64,
    );
    w.client("", "start-time-seconds", client.created_unix_seconds());
    let version = ferry_kafka::rdkafka::util::get_rdkafka_version().1;
    w.out.sample(
        format!("{}_version", role.domain()),
        Kind::Untyped,
        "The librdkafka version of the client",
        vec![("clientid", jmx_value(client_id)), ("version", version)],
        1.0,
    );

    // Each broker (`*-node-metrics`).
    for b in nodes(stats) {
        let node = || vec![("nodeid", format!("node-{}", b.nodeid))];
        let rate = |f: fn(&Broker) -> u64| {
            per_second(&now, before, |s| {
                s.brokers.get(&b.name).map(|b| f(b) as f64)
            })
        };
        w.labelled("node", "request-total", node(), b.tx as f64);
        w.labelled("node", "request-rate", node(), rate(|b| b.tx));
        w.labelled("node", "response-total", node(), b.rx as f64);
        w.labelled("node", "response-rate", node(), rate(|b| b.rx));
        w.labelled("node", "outgoing-byte-total", node(), b.txbytes as f64);
        w.labelled("node", "outgoing-byte-rate", node(), rate(|b| b.txbytes));
        w.labelled("node", "incoming-byte-total", node(), b.rxbytes as f64);
        w.labelled("node", "incoming-byte-rate", node(), rate(|b| b.rxbytes));
        let latency = b
            .rtt
            .as_ref()
            .filter(|r| r.cnt > 0)
            .map_or(f64::NAN, |r| micros_to_ms(r.avg));
        w.labelled("node", "request-latency-avg", node(), latency);
        w.labelled(
            "node",
            "request-size-avg",
            node(),
            ratio(b.txbytes as f64, b.tx as f64),
        );
    }
    w.client(
        "",
        "request-size-avg",
        ratio(sum(|b| b.txbytes), sum(|b| b.tx)),
    );

    match role {
        Role::Producer => producer(&mut w, &now, before, client),
        Role::Consumer => consumer(&mut w, &now, before),
    }
}

fn producer(w: &mut ClientWriter<'_>, now: &Report, before: Option<&Report>, client: &ClientStats) {
    let stats = &now.stats;
    w.client("", "record-send-total", stats.txmsgs as f64);
    w.client("", "record-error-total", client.record_errors() as f64);
    w.client(
        "",
        "record-retry-total",
        nodes(stats).map(|b| b.txretries).sum::<u64>() as f64,
    );
    w.client("", "request-latency-avg", request_latency_ms(stats));
    w.client(
        "",
        "requests-in-flight",
        nodes(stats).map(|b| b.waitresp_cnt).sum::<i64>() as f64,
    );
    let queue_time = nodes(stats)
        .filter_map(|b| b.int_latency.as_ref())
        .filter(|l| l.cnt > 0)
        .map(|l| micros_to_ms(l.avg))
        .fold(f64::NAN, |a: f64, v| if a.is_nan() { v } else { a.max(v) });
    w.client("", "record-queue-time-avg", queue_time);
    w.client(
        "",
        "record-size-avg",
        ratio(stats.txmsg_bytes as f64, stats.txmsgs as f64),
    );
    w.client("", "produce-throttle-time-avg", throttle_ms(stats));
    let topics = || stats.topics.values();
    let batches: (f64, f64, f64) = topics().fold((0.0, 0.0, 0.0), |(bytes, msgs, n), t| {
        (
            bytes + t.batchsize.sum as f64,
            msgs + t.batchcnt.sum as f64,
            n + t.batchcnt.cnt as f64,
        )
    });
    w.client("", "batch-size-avg", ratio(batches.0, batches.2));
    w.client("", "records-per-request-avg", ratio(batches.1, batches.2));
    let metadata_age = topics().map(|t| t.metadata_age).max().unwrap_or(0);
    w.client("", "metadata-age", metadata_age as f64 / 1000.0);

    // Each topic (`producer-topic-metrics`).
    for name in stats.topics.keys() {
        let sent = |s: &Statistics| -> Option<(f64, f64)> {
            s.topics.get(name).map(|t| {
                t.partitions
                    .values()
                    .filter(|p| p.partition >= 0)
                    .fold((0.0, 0.0), |(m, b), p| {
                        (m + p.txmsgs as f64, b + p.txbytes as f64)
                    })
            })
        };
        let (records, bytes) = sent(stats).unwrap_or_default();
        let label = || vec![("topic", jmx_value(name))];
        w.labelled("topic", "record-send-total", label(), records);
        w.labelled(
            "topic",
            "record-send-rate",
            label(),
            per_second(now, before, |s| sent(s).map(|(m, _)| m)),
        );
        w.labelled("topic", "byte-total", label(), bytes);
        w.labelled(
            "topic",
            "byte-rate",
            label(),
            per_second(now, before, |s| sent(s).map(|(_, b)| b)),
        );
    }
}

fn consumer(w: &mut ClientWriter<'_>, now: &Report, before: Option<&Report>) {
    let stats = &now.stats;
    w.labelled(
        "fetch_manager",
        "records-consumed-total",
        vec![],
        stats.rxmsgs as f64,
    );
    w.labelled(
        "fetch_manager",
        "bytes-consumed-total",
        vec![],
        stats.rxmsg_bytes as f64,
    );
    let fetches = nodes(stats)
        .map(|b| b.req.get("Fetch").copied().unwrap_or(0))
        .sum::<i64>() as f64;
    w.labelled("fetch_manager", "fetch-total", vec![], fetches);
    w.labelled(
        "fetch_manager",
        "fetch-latency-avg",
        vec![],
        request_latency_ms(stats),
    );
    let bytes = stats.rxmsg_bytes as f64;
    w.labelled(
        "fetch_manager",
        "fetch-size-avg",
        vec![],
        ratio(bytes, fetches),
    );
    let records = stats.rxmsgs as f64;
    w.labelled(
        "fetch_manager",
        "records-per-request-avg",
        vec![],
        ratio(records, fetches),
    );
    w.labelled(
        "fetch_manager",
        "fetch-throttle-time-avg",
        vec![],
        throttle_ms(stats),
    );
    for (attribute, api) in COORDINATOR_REQUESTS {
        w.labelled("coordinator", attribute, vec![], requests_of(stats, api));
    }
    if let Some(group) = &stats.cgrp {
        w.labelled(
            "coordinator",
            "rebalance-total",
            vec![],
            group.rebalance_cnt as f64,
        );
        w.labelled(
            "coordinator",
            "last-rebalance-seconds-ago",
            vec![],
            group.rebalance_age as f64 / 1000.0,
        );
    }

    // Each assigned partition; Java's records-lag and records-lag-max (and lead, lead-min)
    // share a name under the rules, so the exporter tells them apart with `_objectname`.
    let client_id = w.client_id.clone();
    for (name, topic) in &stats.topics {
        for p in topic.partitions.values().filter(|p| p.partition >= 0) {
            // Java's lag is the high watermark less the position handed to the application.
            let Some(lag) = position_lag(p) else {
                continue;
            };
            let earlier = before
                .and_then(|r| r.stats.topics.get(name))
                .and_then(|t| t.partitions.get(&p.partition))
                .and_then(position_lag)
                .unwrap_or(lag);
            let lead = (p.next_offset - p.lo_offset).max(0) as f64;
            let labels = |object: Option<&str>| {
                let mut l = Vec::new();
                if let Some(attribute) = object {
                    l.push((
                        "_objectname",
                        format!(
                            "kafka.consumer<type=consumer-fetch-manager-metrics, client-id={}, topic={}, partition={}><>{attribute}",
                            client_id, name, p.partition
                        ),
                    ));
                }
                l.push(("partition", p.partition.to_string()));
                l.push(("topic", jmx_value(name)));
                l
            };
            let (lag_now, lag_max) = (labels(Some("records-lag")), labels(Some("records-lag-max")));
            let (lead_now, lead_min) = (
                labels(Some("records-lead")),
                labels(Some("records-lead-min")),
            );
            w.labelled("fetch_manager", "records-lag", lag_now, lag);
            w.labelled("fetch_manager", "records-lag", lag_max, lag.max(earlier));
            w.labelled(
                "fetch_manager",
                "records-lag-avg",
                labels(None),
                (lag + earlier) / 2.0,
            );
            w.labelled("fetch_manager", "records-lead", lead_now, lead);
            w.labelled("fetch_manager", "records-lead", lead_min, lead);
            w.labelled("fetch_manager", "records-lead-avg", labels(None), lead);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::COORDINATOR_REQUESTS;
    use ferry_kafka::stats::KEPT_REQUEST_COUNTS;

    #[test]
    fn every_request_count_the_metrics_read_is_kept_in_a_report() {
        for api in COORDINATOR_REQUESTS
            .iter()
            .map(|(_, api)| *api)
            .chain(["Fetch"])
        {
            assert!(KEPT_REQUEST_COUNTS.contains(&api), "{api}");
        }
    }
}
