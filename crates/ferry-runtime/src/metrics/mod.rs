//! Prometheus metrics for `GET /metrics`, named and labelled as the JMX exporter renders Java
//! Connect's MBeans under the rules operators use, so dashboards and alerts carry over.

pub mod clients;
pub mod exposition;
pub mod group;
mod registry;
pub mod task;
pub mod window;

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
