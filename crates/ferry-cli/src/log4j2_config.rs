//! A log4j2 properties file as Java's worker takes it (`KAFKA_LOG4J_OPTS=-Dlog4j2.configurationFile=…`,
//! which Strimzi's entry point sets): its root and logger levels apply to Ferry's filter and the
//! Java plugins' loggers, as `/admin/loggers` changes do, and with `monitorInterval` the file is
//! read again when it changes, as log4j2 reconfigures (how Strimzi changes a running worker's
//! logging). Appenders and layouts are log4j's business; Ferry's log format stays its own.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use ferry_rest::LogLevels;

use crate::logging::RuntimeLogLevels;

/// The levels a log4j2 properties file sets.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Log4j2Levels {
    pub root: Option<String>,
    /// Logger name to level.
    pub loggers: BTreeMap<String, String>,
    /// Seconds between checks for changes (`monitorInterval`; none or 0: never).
    pub monitor_interval: Option<u64>,
}

/// The file `-Dlog4j2.configurationFile=` names in `KAFKA_LOG4J_OPTS` (the first, when it lists
/// several), a `file:` URL or a path.
pub fn file_from_opts(opts: &str) -> Option<PathBuf> {
    opts.split_whitespace()
        .find_map(|arg| arg.strip_prefix("-Dlog4j2.configurationFile="))
        .and_then(|files| files.split(',').next())
        .map(|file| file.trim_matches('"'))
        .map(|file| {
            file.strip_prefix("file://")
                .or(file.strip_prefix("file:"))
                .unwrap_or(file)
        })
        .filter(|file| !file.is_empty())
        .map(PathBuf::from)
}

fn level(value: &str) -> Option<String> {
    let level = value.trim().to_ascii_uppercase();
    matches!(
        level.as_str(),
        "ALL" | "TRACE" | "DEBUG" | "INFO" | "WARN" | "ERROR" | "FATAL" | "OFF"
    )
    .then_some(level)
}

impl Log4j2Levels {
    pub fn parse(text: &str) -> Result<Self, String> {
        let props =
            ferry_runtime::config::properties::parse_properties(text).map_err(|e| e.to_string())?;
        let props: BTreeMap<String, String> = props.into_iter().collect();
        // `${name}` is `property.name`, as log4j2 substitutes it.
        let substitute = |value: &str| -> String {
            let mut out = value.to_owned();
            for (key, v) in &props {
                if let Some(name) = key.strip_prefix("property.") {
                    out = out.replace(&format!("${{{name}}}"), v);
                }
            }
            out
        };
        let level_of = |key: &str, value: &str| {
            level(&substitute(value)).ok_or_else(|| format!("{key}: {value} is not a log4j level"))
        };
        let mut out = Log4j2Levels::default();
        if let Some(v) = props.get("rootLogger.level") {
            out.root = Some(level_of("rootLogger.level", v)?);
        } else if let Some(v) = props.get("rootLogger") {
            // The short form: `rootLogger = INFO, STDOUT`.
            let first = v.split(',').next().unwrap_or_default();
            out.root = Some(level_of("rootLogger", first)?);
        }
        for (key, name) in &props {
            let Some(id) = key
                .strip_prefix("logger.")
                .and_then(|k| k.strip_suffix(".name"))
            else {
                continue;
            };
            let level_key = format!("logger.{id}.level");
            if let Some(v) = props.get(&level_key) {
                out.loggers
                    .insert(substitute(name).trim().to_owned(), level_of(&level_key, v)?);
            }
        }
        out.monitor_interval = props
            .get("monitorInterval")
            .and_then(|v| v.trim().parse().ok())
            .filter(|s| *s > 0);
        Ok(out)
    }

    /// Sets every level of `self`; loggers `before` had and `self` lacks go back to the root
    /// level, as log4j2's reconfiguration drops them.
    fn apply(&self, before: Option<&Log4j2Levels>, levels: &RuntimeLogLevels) {
        if let Some(root) = &self.root {
            if before.and_then(|b| b.root.as_ref()) != Some(root) {
                levels.set("root", root);
            }
        }
        for (name, level) in &self.loggers {
            if before.and_then(|b| b.loggers.get(name)) != Some(level) {
                levels.set(name, level);
            }
        }
        if let Some(before) = before {
            let root = self.root.clone().unwrap_or_else(|| "INFO".to_owned());
            for name in before
                .loggers
                .keys()
                .filter(|n| !self.loggers.contains_key(*n))
            {
                levels.set(name, &root);
            }
        }
    }
}

fn read(path: &Path) -> Result<(String, Log4j2Levels), String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let levels = Log4j2Levels::parse(&text)?;
    Ok((text, levels))
}

/// Applies the file `KAFKA_LOG4J_OPTS` names, and with `monitorInterval` watches it.
pub fn apply_from_env(levels: &Arc<RuntimeLogLevels>) -> anyhow::Result<()> {
    let Some(path) = std::env::var("KAFKA_LOG4J_OPTS")
        .ok()
        .and_then(|opts| file_from_opts(&opts))
    else {
        return Ok(());
    };
    let (text, current) = read(&path)
        .map_err(|e| anyhow::anyhow!("the log4j2 configuration {}: {e}", path.display()))?;
    current.apply(None, levels);
    tracing::info!(file = %path.display(), monitor_interval_s = current.monitor_interval, "Log levels set from the log4j2 configuration");
    if let Some(interval) = current.monitor_interval {
        tokio::spawn(watch(
            path,
            text,
            current,
            Duration::from_secs(interval),
            levels.clone(),
        ));
    }
    Ok(())
}

async fn watch(
    path: PathBuf,
    mut text: String,
    mut current: Log4j2Levels,
    interval: Duration,
    levels: Arc<RuntimeLogLevels>,
) {
    let mut ticks = tokio::time::interval(interval);
    ticks.tick().await;
    loop {
        ticks.tick().await;
        match read(&path) {
            Ok((new_text, _)) if new_text == text => {}
            Ok((new_text, new)) => {
                new.apply(Some(&current), &levels);
                tracing::info!(file = %path.display(), "The log4j2 configuration changed: log levels set again");
                (text, current) = (new_text, new);
            }
            Err(error) => {
                tracing::warn!(file = %path.display(), %error, "Could not read the log4j2 configuration; the levels stay")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_comes_from_kafka_log4j_opts() {
        assert_eq!(
            file_from_opts("-Dlog4j2.configurationFile=/opt/kafka/custom-config/log4j2.properties"),
            Some(PathBuf::from("/opt/kafka/custom-config/log4j2.properties"))
        );
        assert_eq!(
            file_from_opts(
                "-Xmx1g -Dlog4j2.configurationFile=file:/etc/a.properties,/etc/b.properties"
            ),
            Some(PathBuf::from("/etc/a.properties"))
        );
        assert_eq!(file_from_opts("-Dlog4j.configuration=file:/x"), None);
    }

    #[test]
    fn root_and_logger_levels_with_properties_and_the_short_form() {
        let levels = Log4j2Levels::parse(
            "name=KafkaConnectConfig\n\
             property.connect.root.logger.level=warn\n\
             appender.console.type=Console\n\
             rootLogger.level=${connect.root.logger.level}\n\
             rootLogger.appenderRefs=console\n\
             logger.reflections.name=org.reflections\n\
             logger.reflections.level=ERROR\n\
             logger.ferry.name=ferry_runtime::worker\n\
             logger.ferry.level=debug\n\
             monitorInterval=30\n",
        )
        .unwrap();
        assert_eq!(levels.root.as_deref(), Some("WARN"));
        assert_eq!(levels.loggers["org.reflections"], "ERROR");
        assert_eq!(levels.loggers["ferry_runtime::worker"], "DEBUG");
        assert_eq!(levels.monitor_interval, Some(30));
        let short = Log4j2Levels::parse("rootLogger = DEBUG, STDOUT\n").unwrap();
        assert_eq!(short.root.as_deref(), Some("DEBUG"));
        assert_eq!(short.monitor_interval, None);
        let err = Log4j2Levels::parse("rootLogger.level=LOUD\n").unwrap_err();
        assert!(err.contains("rootLogger.level: LOUD"), "{err}");
    }

    #[tokio::test]
    async fn a_changed_file_sets_the_levels_again() {
        let (levels, _subscriber) = crate::logging::for_tests();
        let levels = Arc::new(levels);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log4j2.properties");
        let first = "rootLogger.level=INFO\nlogger.a.name=org.example\nlogger.a.level=DEBUG\nmonitorInterval=1\n";
        std::fs::write(&path, first).unwrap();
        let (text, current) = read(&path).unwrap();
        current.apply(None, &levels);
        assert_eq!(levels.get("org.example").level, "DEBUG");
        let watcher = tokio::spawn(watch(
            path.clone(),
            text,
            current,
            Duration::from_millis(50),
            levels.clone(),
        ));
        std::fs::write(&path, "rootLogger.level=WARN\nmonitorInterval=1\n").unwrap();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while levels.get("root").level != "WARN" {
            assert!(
                tokio::time::Instant::now() < deadline,
                "the change was not applied"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        // The logger the new file no longer names follows the root again.
        assert_eq!(levels.get("org.example").level, "WARN");
        watcher.abort();
    }
}
