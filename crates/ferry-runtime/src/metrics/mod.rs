//! Prometheus metrics for `GET /metrics`, named and labelled as the JMX exporter renders Java
//! Connect's MBeans under the rules operators use, so dashboards and alerts carry over.

pub mod clients;
pub mod exposition;
pub mod group;
mod plugin;
mod registry;
pub mod strimzi_reporter;
pub mod task;

pub use ferry_api::metrics::window;

pub use group::{GroupMetrics, Rebalanced};
pub use registry::{ConnectMetrics, ConnectorInfo};
pub use task::{ErrorMetrics, TaskClient, TaskKind, TaskMetrics};

/// The worker key for how often clients report statistics for the client metrics (0: never).
pub const CLIENT_STATISTICS_INTERVAL: &str = "ferry.metrics.client.statistics.interval.ms";

/// The worker key for listeners that serve only `GET /metrics` (`http://host:port`, comma
/// separated), without the REST API or its authentication, as the JMX exporter's own port.
pub const METRICS_LISTENERS: &str = "ferry.metrics.listeners";

/// Milliseconds since `start`, as Java's task metrics measure times.
pub fn elapsed_ms(start: tokio::time::Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1000.0
}

/// Java's worker metrics settings that Ferry does not act on, each with a start-up warning:
/// its sample windows are Java's defaults, it records INFO-level metrics, and it has no metric
/// reporters (its metrics are served by `GET /metrics`).
pub fn unapplied_settings(props: &ferry_api::ConfigMap) -> Vec<String> {
    let mut out = Vec::new();
    for (key, default) in [
        ("metrics.sample.window.ms", "30000"),
        ("metrics.num.samples", "2"),
    ] {
        if let Some(v) = props.get(key).filter(|v| v.trim() != default) {
            out.push(format!(
                "{key}={v} is ignored: Ferry's metrics use Java's default sample windows (2 of 30000 ms)"
            ));
        }
    }
    if let Some(v) = props
        .get("metrics.recording.level")
        .filter(|v| !v.trim().eq_ignore_ascii_case("INFO"))
    {
        out.push(format!(
            "metrics.recording.level={v} is ignored: Ferry records INFO-level metrics only"
        ));
    }
    let others: Vec<&str> = props
        .get("metric.reporters")
        .map(|v| {
            v.split(',')
                .map(str::trim)
                .filter(|c| !c.is_empty() && !strimzi_reporter::REPORTER_CLASSES.contains(c))
                .collect()
        })
        .unwrap_or_default();
    if !others.is_empty() {
        out.push(format!(
            "metric.reporters={} is ignored: Ferry runs no metric reporters of its own; its metrics are served at GET /metrics (and, for Strimzi's reporter, on prometheus.metrics.reporter.listener)",
            others.join(",")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_metrics_settings_ferry_does_not_apply_are_named() {
        let props: ferry_api::ConfigMap = [
            ("metrics.sample.window.ms", "30000"),
            ("metrics.num.samples", "3"),
            ("metrics.recording.level", "DEBUG"),
            ("metric.reporters", "com.example.Reporter"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        let warnings = unapplied_settings(&props);
        assert_eq!(warnings.len(), 3, "{warnings:?}");
        assert!(warnings[0].starts_with("metrics.num.samples=3 is ignored"));
        assert!(warnings[2].contains("com.example.Reporter"));
    }
}
