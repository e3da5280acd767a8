//! Metrics a plugin publishes, as Java plugins publish theirs through `PluginMetrics` or a
//! `Metrics` of their own: sensors the plugin records into, each under an MBean-style name
//! (`domain:type=…,tag=…`), which the worker serves at `GET /metrics` under the names the JMX
//! exporter gives such an MBean.

pub mod window;

use std::sync::{Arc, Mutex};

use window::Windowed;

/// What a metric reports of the values its sensor records (Java's `MeasurableStat`s).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stat {
    /// The sum of every value recorded (`CumulativeSum`).
    Total,
    /// The recorded values per second over the recent windows (`Rate`).
    Rate,
    /// The last value recorded, 0 before any (`Value`).
    Value,
    /// The smallest, largest and average value of the recent windows; NaN while there is none.
    Min,
    Max,
    Avg,
}

/// One attribute of an MBean: its name, what it reports and its description.
#[derive(Debug, Clone)]
pub struct Metric {
    pub attribute: String,
    pub stat: Stat,
    pub description: String,
}

impl Metric {
    pub fn new(attribute: impl Into<String>, stat: Stat, description: impl Into<String>) -> Self {
        Metric {
            attribute: attribute.into(),
            stat,
            description: description.into(),
        }
    }
}

/// The MBean a group of metrics appears under: `domain:type=kind,tag=value,…`, tags in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetricGroupName {
    pub domain: String,
    pub kind: String,
    pub tags: Vec<(String, String)>,
}

impl MetricGroupName {
    pub fn new(domain: &str, kind: &str, tags: &[(&str, &str)]) -> Self {
        MetricGroupName {
            domain: domain.to_owned(),
            kind: kind.to_owned(),
            tags: tags
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
        }
    }
}

/// Values gathered for a sensor to record at once: how many, their sum, extremes and the last.
#[derive(Debug, Clone, Copy)]
pub struct Summary {
    pub count: u64,
    pub sum: f64,
    pub min: f64,
    pub max: f64,
    pub last: f64,
}

impl Default for Summary {
    fn default() -> Self {
        Summary {
            count: 0,
            sum: 0.0,
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
            last: 0.0,
        }
    }
}

impl Summary {
    pub fn add(&mut self, value: f64) {
        self.count += 1;
        self.sum += value;
        self.min = self.min.min(value);
        self.max = self.max.max(value);
        self.last = value;
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
}

#[derive(Default)]
struct Totals {
    total: f64,
    last: f64,
}

/// Records values for the metrics it was made with.
pub struct Sensor {
    metrics: Vec<Metric>,
    window: Windowed,
    totals: Mutex<Totals>,
}

impl Sensor {
    pub fn record(&self, value: f64) {
        let mut one = Summary::default();
        one.add(value);
        self.record_summary(&one);
    }

    /// Every value of `summary`, as if each was recorded in turn.
    pub fn record_summary(&self, summary: &Summary) {
        if summary.is_empty() {
            return;
        }
        self.window
            .record_many(summary.count, summary.sum, summary.min, summary.max);
        let mut totals = self.totals.lock().unwrap_or_else(|e| e.into_inner());
        totals.total += summary.sum;
        totals.last = summary.last;
    }

    fn measure(&self, stat: Stat) -> f64 {
        let totals = || self.totals.lock().unwrap_or_else(|e| e.into_inner());
        match stat {
            Stat::Total => totals().total,
            Stat::Value => totals().last,
            Stat::Rate => self.window.rate(),
            Stat::Min => self.window.min(),
            Stat::Max => self.window.max(),
            Stat::Avg => self.window.avg(),
        }
    }
}

/// One value of a metric at a scrape.
pub struct Measurement<'a> {
    pub group: &'a MetricGroupName,
    pub metric: &'a Metric,
    pub value: f64,
}

/// The metrics one task publishes; the worker reads them at every scrape and drops them with
/// the task.
#[derive(Default)]
pub struct PluginMetrics {
    sensors: Mutex<Vec<(MetricGroupName, Arc<Sensor>)>>,
}

impl PluginMetrics {
    /// A sensor for `metrics` of the MBean `group`; a group may hold several sensors.
    pub fn sensor(&self, group: MetricGroupName, metrics: Vec<Metric>) -> Arc<Sensor> {
        let sensor = Arc::new(Sensor {
            metrics,
            window: Windowed::default(),
            totals: Mutex::new(Totals::default()),
        });
        self.sensors
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((group, sensor.clone()));
        sensor
    }

    /// Every metric's current value, in the order the sensors were made.
    pub fn measure(&self, mut each: impl FnMut(Measurement<'_>)) {
        let sensors = self.sensors.lock().unwrap_or_else(|e| e.into_inner());
        for (group, sensor) in sensors.iter() {
            for metric in &sensor.metrics {
                each(Measurement {
                    group,
                    metric,
                    value: sensor.measure(metric.stat),
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sensor_reports_each_of_its_stats() {
        let metrics = PluginMetrics::default();
        let group = MetricGroupName::new("kafka.connect.mirror", "Example", &[("topic", "t")]);
        let stats = [Stat::Total, Stat::Value, Stat::Min, Stat::Max, Stat::Avg];
        let sensor = metrics.sensor(
            group.clone(),
            stats
                .iter()
                .map(|s| Metric::new(format!("{s:?}"), *s, ""))
                .collect(),
        );
        let empty = metrics.sensor(group, vec![Metric::new("idle", Stat::Avg, "")]);
        for v in [4.0, 1.0, 7.0] {
            sensor.record(v);
        }
        let mut seen = Vec::new();
        metrics.measure(|m| seen.push((m.metric.attribute.clone(), m.value)));
        let (idle, values) = seen.split_last().unwrap();
        assert_eq!(
            values,
            [
                ("Total".to_owned(), 12.0),
                ("Value".to_owned(), 7.0),
                ("Min".to_owned(), 1.0),
                ("Max".to_owned(), 7.0),
                ("Avg".to_owned(), 4.0),
            ]
        );
        assert!(idle.1.is_nan(), "{idle:?}");
        drop(empty);
    }

    #[test]
    fn a_summary_records_as_its_values_one_by_one_would() {
        let metrics = PluginMetrics::default();
        let group = MetricGroupName::new("d", "t", &[]);
        let all = [Stat::Total, Stat::Value, Stat::Min, Stat::Max, Stat::Avg];
        let defs = || {
            all.iter()
                .map(|s| Metric::new(format!("{s:?}"), *s, ""))
                .collect()
        };
        let (one_by_one, at_once) = (
            metrics.sensor(group.clone(), defs()),
            metrics.sensor(group, defs()),
        );
        let mut summary = Summary::default();
        for v in [3.0, 9.0, 6.0] {
            one_by_one.record(v);
            summary.add(v);
        }
        at_once.record_summary(&summary);
        at_once.record_summary(&Summary::default());
        let mut seen = Vec::new();
        metrics.measure(|m| seen.push(m.value));
        assert_eq!(seen[..5], seen[5..]);
        assert_eq!(seen[..5], [18.0, 6.0, 3.0, 9.0, 6.0]);
    }
}
