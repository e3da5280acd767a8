//! MirrorMaker's replication metrics, as Java's `MirrorSourceMetrics` and
//! `MirrorCheckpointMetrics` (and their legacy twins) define them: per replicated partition,
//! records and bytes and how old and how late they were; per group and partition, how late
//! the checkpoints were. `metric.names.formats` picks the MBeans they appear under: `legacy`,
//! `kafka.connect.mirror:type=MirrorSourceConnector,source=…,target=…,topic=…,partition=…`
//! (the names Strimzi's dashboards read), and `new` (KIP-1280), `kafka.connect:type=plugins,
//! connector=…,task=…` followed by the same tags.

use std::sync::Arc;

use ferry_api::metrics::{Metric, MetricGroupName, PluginMetrics, Sensor, Stat, Summary};
use ferry_api::task::{SourceTaskContext, TaskIdentity};
use ferry_api::ConfigMap;

pub const METRIC_NAMES_FORMATS: &str = "metric.names.formats";
const LEGACY_DOMAIN: &str = "kafka.connect.mirror";
const SOURCE_TYPE: &str = "MirrorSourceConnector";
const CHECKPOINT_TYPE: &str = "MirrorCheckpointConnector";

/// One value recorded under every format in use.
#[derive(Default)]
pub struct Sensors(Vec<Arc<Sensor>>);

impl Sensors {
    pub fn record(&self, value: f64) {
        for sensor in &self.0 {
            sensor.record(value);
        }
    }
}

/// Sensors with the values gathered for them since they last recorded.
struct Gathered {
    sensors: Sensors,
    pending: Summary,
}

impl Gathered {
    fn new(sensors: Sensors) -> Self {
        Gathered {
            sensors,
            pending: Summary::default(),
        }
    }

    fn add(&mut self, value: f64) {
        self.pending.add(value);
    }

    /// Records what was gathered, once for all of it.
    fn flush(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        for sensor in &self.sensors.0 {
            sensor.record_summary(&self.pending);
        }
        self.pending = Summary::default();
    }
}

/// Where one task's metrics go: the MBean prefix of each format `metric.names.formats` asks for.
pub struct MirrorMetrics {
    plugin: Arc<PluginMetrics>,
    /// Per format, the MBean name up to the metric's own tags.
    prefixes: Vec<MetricGroupName>,
}

impl MirrorMetrics {
    fn new(
        props: &ConfigMap,
        identity: &TaskIdentity,
        plugin: Arc<PluginMetrics>,
        kind: &'static str,
    ) -> Self {
        let formats: Vec<&str> = props
            .get(METRIC_NAMES_FORMATS)
            .map_or("legacy", String::as_str)
            .split(',')
            .map(str::trim)
            .collect();
        let mut prefixes = Vec::new();
        if formats.contains(&"legacy") {
            prefixes.push(MetricGroupName::new(LEGACY_DOMAIN, kind, &[]));
        }
        if formats.contains(&"new") {
            let task = identity.task.to_string();
            prefixes.push(MetricGroupName::new(
                "kafka.connect",
                "plugins",
                &[("connector", &identity.connector), ("task", &task)],
            ));
        }
        MirrorMetrics { plugin, prefixes }
    }

    pub fn source(props: &ConfigMap, context: &SourceTaskContext) -> Self {
        Self::new(
            props,
            &context.identity,
            context.metrics.clone(),
            SOURCE_TYPE,
        )
    }

    pub fn checkpoint(props: &ConfigMap, context: &SourceTaskContext) -> Self {
        Self::new(
            props,
            &context.identity,
            context.metrics.clone(),
            CHECKPOINT_TYPE,
        )
    }

    fn sensors(&self, tags: &[(&str, &str)], metrics: &[Metric]) -> Sensors {
        Sensors(
            self.prefixes
                .iter()
                .map(|prefix| {
                    let mut group = prefix.clone();
                    group
                        .tags
                        .extend(tags.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())));
                    self.plugin.sensor(group, metrics.to_vec())
                })
                .collect(),
        )
    }
}

/// A count and its rate, as Java's `Meter`.
fn meter(count: &str, count_text: &str, rate: &str, rate_text: &str) -> Vec<Metric> {
    vec![
        Metric::new(count, Stat::Total, count_text),
        Metric::new(rate, Stat::Rate, rate_text),
    ]
}

/// A value with its maximum, minimum and average, as Java adds `Value`, `Max`, `Min`, `Avg`
/// under `name`, `name-max`, `name-min` and `name-avg`.
fn spread(name: &str, [value, max, min, avg]: [&str; 4]) -> Vec<Metric> {
    vec![
        Metric::new(name, Stat::Value, value),
        Metric::new(format!("{name}-max"), Stat::Max, max),
        Metric::new(format!("{name}-min"), Stat::Min, min),
        Metric::new(format!("{name}-avg"), Stat::Avg, avg),
    ]
}

/// The metrics of one replicated partition (tagged with its downstream topic), and what its
/// records gave them since they were last recorded: the task records once per poll, not once
/// per record (one clock reading and lock per sensor instead of one per record).
pub struct PartitionMetrics {
    records: Gathered,
    bytes: Gathered,
    record_age: Gathered,
    replication_latency: Gathered,
}

impl PartitionMetrics {
    /// A record polled: its age and its value's bytes.
    pub fn polled(&mut self, age_ms: Option<i64>, value_bytes: usize) {
        if let Some(age) = age_ms {
            self.record_age.add(age as f64);
        }
        self.bytes.add(value_bytes as f64);
    }

    /// A record acknowledged downstream, `latency_ms` after its upstream timestamp.
    pub fn replicated(&mut self, latency_ms: Option<i64>) {
        self.records.add(1.0);
        if let Some(latency) = latency_ms {
            self.replication_latency.add(latency as f64);
        }
    }

    /// Records what the partition's records gave since the last time.
    pub fn flush(&mut self) {
        self.records.flush();
        self.bytes.flush();
        self.record_age.flush();
        self.replication_latency.flush();
    }
}

impl PartitionMetrics {
    pub fn new(
        metrics: &MirrorMetrics,
        source: &str,
        target: &str,
        topic: &str,
        partition: i32,
    ) -> Self {
        let partition = partition.to_string();
        let tags = [
            ("source", source),
            ("target", target),
            ("topic", topic),
            ("partition", partition.as_str()),
        ];
        let gathered = |metrics_of: Vec<Metric>| Gathered::new(metrics.sensors(&tags, &metrics_of));
        PartitionMetrics {
            records: gathered(meter(
                    "record-count",
                    "Number of source records replicated to the target cluster.",
                    "record-rate",
                    "Average number of source records replicated to the target cluster per second.",
                ),
            ),
            bytes: gathered(meter(
                    "byte-count",
                    "Number of bytes replicated to the target cluster.",
                    "byte-rate",
                    "Average number of bytes replicated per second.",
                ),
            ),
            record_age: gathered(spread(
                    "record-age-ms",
                    [
                        "The age of incoming source records when replicated to the target cluster.",
                        "The max age of incoming source records when replicated to the target cluster.",
                        "The min age of incoming source records when replicated to the target cluster.",
                        "The average age of incoming source records when replicated to the target cluster.",
                    ],
                ),
            ),
            replication_latency: gathered(spread(
                    "replication-latency-ms",
                    [
                        "Time it takes records to replicate from source to target cluster.",
                        "Max time it takes records to replicate from source to target cluster.",
                        "Min time it takes records to replicate from source to target cluster.",
                        "Average time it takes records to replicate from source to target cluster.",
                    ],
                ),
            ),
        }
    }
}

/// `checkpoint-latency-ms` and its extremes and average for one group's downstream partition.
pub fn checkpoint_latency(
    metrics: &MirrorMetrics,
    source: &str,
    target: &str,
    group: &str,
    topic: &str,
    partition: i32,
) -> Sensors {
    let partition = partition.to_string();
    metrics.sensors(
        &[
            ("source", source),
            ("target", target),
            ("group", group),
            ("topic", topic),
            ("partition", partition.as_str()),
        ],
        &spread(
            "checkpoint-latency-ms",
            [
                "Time it takes consumer group offsets to replicate from source to target cluster.",
                "Max time it takes consumer group offsets to replicate from source to target cluster.",
                "Min time it takes consumer group offsets to replicate from source to target cluster.",
                "Average time it takes consumer group offsets to replicate from source to target cluster.",
            ],
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::props;

    /// Every (MBean, attribute) = value the task's metrics show now.
    fn shown(plugin: &PluginMetrics) -> Vec<(String, String, String, f64)> {
        let mut out = Vec::new();
        plugin.measure(|m| {
            let tags: Vec<String> = m
                .group
                .tags
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            out.push((
                format!("{}:type={}", m.group.domain, m.group.kind),
                tags.join(","),
                m.metric.attribute.clone(),
                m.value,
            ));
        });
        out
    }

    fn identity() -> TaskIdentity {
        TaskIdentity {
            connector: "mm2-source".into(),
            task: 3,
            ..Default::default()
        }
    }

    #[test]
    fn a_partition_s_metrics_are_java_s_under_the_legacy_names_by_default() {
        let plugin = Arc::new(PluginMetrics::default());
        let metrics = MirrorMetrics::new(&props(&[]), &identity(), plugin.clone(), SOURCE_TYPE);
        let mut partition = PartitionMetrics::new(&metrics, "A", "B", "A.orders", 2);
        partition.polled(Some(30), 60);
        partition.polled(Some(10), 40);
        partition.replicated(Some(5));
        assert_eq!(
            shown(&plugin)[0].3,
            0.0,
            "nothing recorded before the flush"
        );
        partition.replicated(None);
        partition.flush();
        let shown = shown(&plugin);
        let attributes: Vec<&str> = shown.iter().map(|s| s.2.as_str()).collect();
        assert_eq!(
            attributes,
            [
                "record-count",
                "record-rate",
                "byte-count",
                "byte-rate",
                "record-age-ms",
                "record-age-ms-max",
                "record-age-ms-min",
                "record-age-ms-avg",
                "replication-latency-ms",
                "replication-latency-ms-max",
                "replication-latency-ms-min",
                "replication-latency-ms-avg",
            ]
        );
        for (mbean, tags, _, _) in &shown {
            assert_eq!(mbean, "kafka.connect.mirror:type=MirrorSourceConnector");
            assert_eq!(tags, "source=A,target=B,topic=A.orders,partition=2");
        }
        let value = |attribute: &str| shown.iter().find(|s| s.2 == attribute).unwrap().3;
        assert_eq!(value("record-count"), 2.0);
        assert_eq!(value("byte-count"), 100.0);
        assert_eq!(value("record-age-ms"), 10.0);
        assert_eq!(value("record-age-ms-max"), 30.0);
        assert_eq!(value("record-age-ms-avg"), 20.0);
        assert_eq!(value("replication-latency-ms-min"), 5.0);
    }

    #[test]
    fn both_formats_record_each_value_under_both_names() {
        let plugin = Arc::new(PluginMetrics::default());
        let metrics = MirrorMetrics::new(
            &props(&[(METRIC_NAMES_FORMATS, "legacy, new")]),
            &identity(),
            plugin.clone(),
            CHECKPOINT_TYPE,
        );
        checkpoint_latency(&metrics, "A", "B", "billing", "A.orders", 0).record(42.0);
        let both = shown(&plugin);
        let latest: Vec<_> = both
            .iter()
            .filter(|s| s.2 == "checkpoint-latency-ms")
            .map(|s| (s.0.as_str(), s.1.as_str(), s.3))
            .collect();
        assert_eq!(
            latest,
            [
                (
                    "kafka.connect.mirror:type=MirrorCheckpointConnector",
                    "source=A,target=B,group=billing,topic=A.orders,partition=0",
                    42.0
                ),
                (
                    "kafka.connect:type=plugins",
                    "connector=mm2-source,task=3,source=A,target=B,group=billing,topic=A.orders,partition=0",
                    42.0
                ),
            ]
        );
        let only_new = Arc::new(PluginMetrics::default());
        let metrics = MirrorMetrics::new(
            &props(&[(METRIC_NAMES_FORMATS, "new")]),
            &identity(),
            only_new.clone(),
            SOURCE_TYPE,
        );
        PartitionMetrics::new(&metrics, "A", "B", "A.t", 0);
        assert!(shown(&only_new)
            .iter()
            .all(|s| s.0 == "kafka.connect:type=plugins"));
    }
}
