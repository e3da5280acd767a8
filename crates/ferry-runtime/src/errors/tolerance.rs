//! Retry and tolerance of failures in one record's processing stages.

use std::sync::Arc;
use std::time::Duration;

use ferry_api::ConfigMap;
use ferry_api::ConnectError;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::metrics::ErrorMetrics;

use crate::config::connector::{
    ERRORS_LOG_ENABLE, ERRORS_LOG_INCLUDE_MESSAGES, ERRORS_RETRY_MAX_DELAY, ERRORS_RETRY_TIMEOUT,
    ERRORS_TOLERANCE,
};

/// Where in the pipeline a failure happened (Java's `Stage`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    KeyConverter,
    ValueConverter,
    HeaderConverter,
    Transformation,
    KafkaProduce,
    KafkaConsume,
    TaskPut,
    TaskPoll,
}

impl Stage {
    pub fn java_name(self) -> &'static str {
        match self {
            Stage::KeyConverter => "KEY_CONVERTER",
            Stage::ValueConverter => "VALUE_CONVERTER",
            Stage::HeaderConverter => "HEADER_CONVERTER",
            Stage::Transformation => "TRANSFORMATION",
            Stage::KafkaProduce => "KAFKA_PRODUCE",
            Stage::KafkaConsume => "KAFKA_CONSUME",
            Stage::TaskPut => "TASK_PUT",
            Stage::TaskPoll => "TASK_POLL",
        }
    }

    pub fn from_java_name(name: &str) -> Option<Stage> {
        [
            Stage::KeyConverter,
            Stage::ValueConverter,
            Stage::HeaderConverter,
            Stage::Transformation,
            Stage::KafkaProduce,
            Stage::KafkaConsume,
            Stage::TaskPut,
            Stage::TaskPoll,
        ]
        .into_iter()
        .find(|s| s.java_name() == name)
    }
}

/// A connector's `errors.*` settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorSettings {
    pub tolerate_all: bool,
    /// `None` retries forever (`-1`); zero never retries.
    pub retry_timeout: Option<Duration>,
    pub retry_max_delay: Duration,
    pub log: bool,
    pub log_messages: bool,
}

impl ErrorSettings {
    /// Reads the settings (already validated with the connector's config).
    pub fn from_config(config: &ConfigMap) -> Self {
        let long = |k: &str, default: i64| {
            config
                .get(k)
                .and_then(|v| v.trim().parse::<i64>().ok())
                .unwrap_or(default)
        };
        let flag = |k: &str| {
            config
                .get(k)
                .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
        };
        let timeout = long(ERRORS_RETRY_TIMEOUT, 0);
        ErrorSettings {
            tolerate_all: config
                .get(ERRORS_TOLERANCE)
                .is_some_and(|v| v.trim().eq_ignore_ascii_case("all")),
            retry_timeout: (timeout >= 0)
                .then(|| Duration::from_millis(u64::try_from(timeout).unwrap_or(0))),
            retry_max_delay: Duration::from_millis(
                u64::try_from(long(ERRORS_RETRY_MAX_DELAY, 60_000)).unwrap_or(0),
            ),
            log: flag(ERRORS_LOG_ENABLE),
            log_messages: flag(ERRORS_LOG_INCLUDE_MESSAGES),
        }
    }
}

/// What failed: the stage, the plugin class at work, and the error.
pub struct ErrorContext<'a> {
    pub stage: Stage,
    pub class: &'a str,
    pub error: &'a ConnectError,
    /// A description of the record, logged when `errors.log.include.messages` is on.
    pub record: &'a dyn Fn() -> String,
}

/// Applies the settings to one task's failures.
pub struct ErrorHandler {
    settings: ErrorSettings,
    cancel: CancellationToken,
    failures: u64,
    metrics: Arc<ErrorMetrics>,
}

/// Java's first retry delay; it doubles per attempt.
const FIRST_BACKOFF: Duration = Duration::from_millis(300);

impl ErrorHandler {
    pub fn new(
        settings: ErrorSettings,
        cancel: CancellationToken,
        metrics: Arc<ErrorMetrics>,
    ) -> Self {
        ErrorHandler {
            settings,
            cancel,
            failures: 0,
            metrics,
        }
    }

    /// The task's `task-error-metrics`, which the dead letter queue also records into.
    pub fn metrics(&self) -> &Arc<ErrorMetrics> {
        &self.metrics
    }

    pub fn tolerates_all(&self) -> bool {
        self.settings.tolerate_all
    }

    /// Failures seen so far (tolerated or not).
    pub fn failures(&self) -> u64 {
        self.failures
    }

    /// Runs `op`, retrying retriable failures until `errors.retry.timeout` with Java's backoff
    /// (300 ms doubling; past `errors.retry.delay.max.ms` a random delay below it).
    pub async fn with_retries<T>(
        &self,
        mut op: impl FnMut() -> Result<T, ConnectError>,
    ) -> Result<T, ConnectError> {
        // The clock is read only once something fails: this runs for every record and stage.
        let mut start = None;
        let mut attempt: u32 = 0;
        loop {
            match op() {
                Err(e) if e.is_retriable() => {
                    ErrorMetrics::add(&self.metrics.record_failures);
                    let start = *start.get_or_insert_with(Instant::now);
                    let deadline = self.settings.retry_timeout.map(|t| start + t);
                    if deadline.is_some_and(|d| Instant::now() >= d) {
                        return Err(e);
                    }
                    attempt += 1;
                    let mut delay =
                        FIRST_BACKOFF.saturating_mul(1 << attempt.saturating_sub(1).min(20));
                    if delay > self.settings.retry_max_delay {
                        delay = jitter(self.settings.retry_max_delay);
                    }
                    let mut wake = Instant::now() + delay;
                    if let Some(d) = deadline {
                        wake = wake.min(d);
                    }
                    tokio::select! {
                        _ = self.cancel.cancelled() => return Err(e),
                        _ = tokio::time::sleep_until(wake) => {}
                    }
                    ErrorMetrics::add(&self.metrics.retries);
                }
                other => return other,
            }
        }
    }

    /// Records a failure. `Ok(())` means it is tolerated (skip the record); `Err` means the
    /// task must fail, with an error naming the stage.
    pub fn handle(&mut self, ctx: &ErrorContext<'_>) -> Result<(), ConnectError> {
        self.failures += 1;
        ErrorMetrics::add(&self.metrics.record_failures);
        ErrorMetrics::add(&self.metrics.record_errors);
        self.metrics.error_now();
        if self.settings.log {
            ErrorMetrics::add(&self.metrics.errors_logged);
            if self.settings.log_messages {
                tracing::error!(stage = ctx.stage.java_name(), class = ctx.class, error = %ctx.error, record = %(ctx.record)(), "Error encountered in task");
            } else {
                tracing::error!(stage = ctx.stage.java_name(), class = ctx.class, error = %ctx.error, "Error encountered in task");
            }
        }
        if self.settings.tolerate_all {
            ErrorMetrics::add(&self.metrics.records_skipped);
            return Ok(());
        }
        Err(ConnectError::Other {
            message: format!(
                "Tolerance exceeded in error handler (stage {}, class {}): {}",
                ctx.stage.java_name(),
                ctx.class,
                (ctx.record)()
            ),
            source: Some(Box::new(ToleranceCause(ctx.error.trace()))),
        })
    }
}

/// The failure that exceeded the tolerance, kept as the task's cause.
#[derive(Debug)]
struct ToleranceCause(String);

impl std::fmt::Display for ToleranceCause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ToleranceCause {}

/// A delay in `[0, max)`, as Java picks once the doubled backoff passes the maximum.
fn jitter(max: Duration) -> Duration {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let max_ms = u64::try_from(max.as_millis()).unwrap_or(u64::MAX).max(1);
    Duration::from_millis(u64::from(nanos) % max_ms)
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;

    fn settings(pairs: &[(&str, &str)]) -> ErrorSettings {
        ErrorSettings::from_config(
            &pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
        )
    }

    #[test]
    fn defaults_are_javas() {
        let s = settings(&[]);
        assert_eq!(
            s,
            ErrorSettings {
                tolerate_all: false,
                retry_timeout: Some(Duration::ZERO),
                retry_max_delay: Duration::from_secs(60),
                log: false,
                log_messages: false
            }
        );
        assert_eq!(
            settings(&[("errors.retry.timeout", "-1")]).retry_timeout,
            None
        );
        assert!(settings(&[("errors.tolerance", "ALL")]).tolerate_all);
    }

    #[tokio::test(start_paused = true)]
    async fn retriable_failures_are_retried_until_the_timeout() {
        let h = ErrorHandler::new(
            settings(&[("errors.retry.timeout", "1000")]),
            CancellationToken::new(),
            Arc::default(),
        );
        let calls = Cell::new(0);
        let started = Instant::now();
        let r: Result<(), _> = h
            .with_retries(|| {
                calls.set(calls.get() + 1);
                Err(ConnectError::retriable("busy"))
            })
            .await;
        assert!(r.is_err());
        // Attempts at 0, 300 and 900 ms, then a last one at the 1 s deadline, as Java does.
        assert_eq!(calls.get(), 4);
        assert_eq!(started.elapsed(), Duration::from_millis(1000));
        let calls = Cell::new(0);
        let ok = h
            .with_retries(|| {
                calls.set(calls.get() + 1);
                if calls.get() < 2 {
                    Err(ConnectError::retriable("busy"))
                } else {
                    Ok(7)
                }
            })
            .await;
        assert_eq!(ok.unwrap(), 7);
        let no_retry = ErrorHandler::new(settings(&[]), CancellationToken::new(), Arc::default());
        let calls = Cell::new(0);
        let _ = no_retry
            .with_retries(|| -> Result<(), _> {
                calls.set(calls.get() + 1);
                Err(ConnectError::retriable("x"))
            })
            .await;
        assert_eq!(calls.get(), 1);
    }

    #[test]
    fn tolerance_decides() {
        let error = ConnectError::data("bad json");
        let ctx = ErrorContext {
            stage: Stage::ValueConverter,
            class: "org.apache.kafka.connect.json.JsonConverter",
            error: &error,
            record: &|| "t-0-5".to_owned(),
        };
        let mut none = ErrorHandler::new(settings(&[]), CancellationToken::new(), Arc::default());
        let failed = none.handle(&ctx).unwrap_err();
        assert!(failed.to_string().starts_with("Tolerance exceeded in error handler (stage VALUE_CONVERTER, class org.apache.kafka.connect.json.JsonConverter)"));
        assert!(failed.trace().contains("bad json"));
        let metrics = Arc::new(ErrorMetrics::default());
        let mut all = ErrorHandler::new(
            settings(&[("errors.tolerance", "all")]),
            CancellationToken::new(),
            metrics.clone(),
        );
        assert!(all.handle(&ctx).is_ok());
        assert_eq!(all.failures(), 1);
        let count = |c: &std::sync::atomic::AtomicU64| c.load(std::sync::atomic::Ordering::Relaxed);
        assert_eq!(count(&metrics.record_errors), 1);
        assert_eq!(count(&metrics.records_skipped), 1);
        assert_eq!(count(&metrics.errors_logged), 0, "errors.log.enable is off");
    }
}
