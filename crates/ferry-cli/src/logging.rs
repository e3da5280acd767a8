//! Logging: `RUST_LOG` sets Ferry's filter (default `info`), a log4j2 file named by
//! `KAFKA_LOG4J_OPTS` sets levels as Java's does (log4j2_config), and `/admin/loggers` changes
//! levels at run time through a reloadable filter.

use std::collections::BTreeMap;
use std::sync::Mutex;

use ferry_rest::{LogLevels, LoggerLevel};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{fmt, reload, EnvFilter, Registry};

struct Levels {
    /// The `RUST_LOG` directives the worker started with, kept until the root level is set.
    base: String,
    root: Option<(String, i64)>,
    explicit: BTreeMap<String, (String, i64)>,
}

/// Where level changes go besides Ferry's own filter: the plugin hosts' log4j.
type Forward = Box<dyn Fn(&str, &str) + Send + Sync>;

pub struct RuntimeLogLevels {
    handle: reload::Handle<EnvFilter, Registry>,
    levels: Mutex<Levels>,
    java: Mutex<Option<Forward>>,
}

/// Installs the subscriber; the returned handle serves `/admin/loggers`.
pub fn init() -> RuntimeLogLevels {
    let base = std::env::var("RUST_LOG")
        .ok()
        .filter(|v| !v.trim().is_empty())
        .unwrap_or_else(|| "info".to_owned());
    let filter = EnvFilter::try_new(format!("{base},{JAVA_EVENTS}"))
        .unwrap_or_else(|_| EnvFilter::new(format!("info,{JAVA_EVENTS}")));
    let (layer, handle) = reload::Layer::new(filter);
    // Colours for a terminal only: a container's log collector keeps escape codes verbatim.
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr())
        && std::env::var_os("NO_COLOR").is_none();
    tracing_subscriber::registry()
        .with(layer)
        .with(
            fmt::layer()
                .with_target(false)
                .with_ansi(ansi)
                .with_writer(std::io::stderr),
        )
        .init();
    RuntimeLogLevels::new(base, handle)
}

/// Java plugins' events, which the host's log4j already filtered by the levels this API set
/// there; Ferry's filter lets them all through.
const JAVA_EVENTS: &str = "ferry_plugin_host::java=trace";

/// A log4j level as a `tracing` filter level.
fn tracing_level(level: &str) -> &'static str {
    match level {
        "ALL" | "TRACE" => "trace",
        "DEBUG" => "debug",
        "INFO" => "info",
        "WARN" => "warn",
        "ERROR" | "FATAL" => "error",
        _ => "off",
    }
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

impl Levels {
    fn root_level(&self) -> String {
        match &self.root {
            Some((level, _)) => level.clone(),
            // A plain level in RUST_LOG is the root level; anything richer reads as INFO.
            None => match self.base.trim().to_ascii_uppercase().as_str() {
                l @ ("TRACE" | "DEBUG" | "INFO" | "WARN" | "ERROR" | "OFF") => l.to_owned(),
                _ => "INFO".to_owned(),
            },
        }
    }

    fn directives(&self) -> String {
        let mut parts = vec![match &self.root {
            Some((level, _)) => tracing_level(level).to_owned(),
            None => self.base.clone(),
        }];
        parts.extend(
            self.explicit
                .iter()
                // tracing-subscriber's directive parser panics on some non-ASCII names; such a
                // logger cannot name a Rust target anyway, so it is kept for the API only.
                .filter(|(name, _)| name.is_ascii() && !name.chars().any(|c| c.is_ascii_control()))
                .map(|(name, (level, _))| format!("{name}={}", tracing_level(level))),
        );
        parts.push(JAVA_EVENTS.to_owned());
        parts.join(",")
    }
}

impl RuntimeLogLevels {
    fn new(base: String, handle: reload::Handle<EnvFilter, Registry>) -> Self {
        RuntimeLogLevels {
            handle,
            levels: Mutex::new(Levels {
                base,
                root: None,
                explicit: BTreeMap::new(),
            }),
            java: Mutex::new(None),
        }
    }

    /// Levels as log4j names them (`root` included), for a plugin host to start with.
    pub fn log4j_levels(&self) -> BTreeMap<String, String> {
        self.all().into_iter().map(|(k, v)| (k, v.level)).collect()
    }

    /// Sends every later level change to `forward` too (the plugin hosts).
    pub fn forward_to(&self, forward: impl Fn(&str, &str) + Send + Sync + 'static) {
        if let Ok(mut java) = self.java.lock() {
            *java = Some(Box::new(forward));
        }
    }

    fn apply(&self, levels: &Levels) {
        // Logger names that are not valid `tracing` targets are kept for the API but not applied.
        let filter =
            EnvFilter::try_new(levels.directives()).or_else(|_| EnvFilter::try_new(&levels.base));
        if let Ok(filter) = filter {
            if let Err(error) = self.handle.reload(filter) {
                tracing::warn!(%error, "Could not change log levels");
            }
        }
    }
}

impl LogLevels for RuntimeLogLevels {
    fn all(&self) -> BTreeMap<String, LoggerLevel> {
        let Ok(levels) = self.levels.lock() else {
            return BTreeMap::new();
        };
        let mut out: BTreeMap<String, LoggerLevel> = levels
            .explicit
            .iter()
            .map(|(name, (level, at))| {
                (
                    name.clone(),
                    LoggerLevel {
                        level: level.clone(),
                        last_modified: Some(*at),
                    },
                )
            })
            .collect();
        out.insert(
            "root".to_owned(),
            LoggerLevel {
                level: levels.root_level(),
                last_modified: levels.root.as_ref().map(|r| r.1),
            },
        );
        out
    }

    fn get(&self, name: &str) -> LoggerLevel {
        let Ok(levels) = self.levels.lock() else {
            return LoggerLevel {
                level: "INFO".to_owned(),
                last_modified: None,
            };
        };
        if name == "root" {
            return LoggerLevel {
                level: levels.root_level(),
                last_modified: levels.root.as_ref().map(|r| r.1),
            };
        }
        if let Some((level, at)) = levels.explicit.get(name) {
            return LoggerLevel {
                level: level.clone(),
                last_modified: Some(*at),
            };
        }
        // The effective level comes from the nearest configured ancestor, else root.
        let inherited = levels
            .explicit
            .iter()
            .filter(|(n, _)| {
                name.starts_with(&format!("{n}.")) || name.starts_with(&format!("{n}::"))
            })
            .max_by_key(|(n, _)| n.len())
            .map(|(_, (level, _))| level.clone());
        LoggerLevel {
            level: inherited.unwrap_or_else(|| levels.root_level()),
            last_modified: None,
        }
    }

    fn set(&self, namespace: &str, level: &str) -> Vec<String> {
        let Ok(mut levels) = self.levels.lock() else {
            return Vec::new();
        };
        let now = now_ms();
        let mut affected: Vec<String>;
        if namespace == "root" {
            affected = levels.explicit.keys().cloned().collect();
            affected.push("root".to_owned());
            if levels.root_level() != level {
                levels.root = Some((level.to_owned(), now));
            }
            for (_, entry) in levels.explicit.iter_mut() {
                if entry.0 != level {
                    *entry = (level.to_owned(), now);
                }
            }
        } else {
            affected = levels
                .explicit
                .keys()
                .filter(|n| n.starts_with(namespace))
                .cloned()
                .collect();
            if !affected.iter().any(|n| n == namespace) {
                affected.push(namespace.to_owned());
            }
            for name in &affected {
                let entry = levels
                    .explicit
                    .entry(name.clone())
                    .or_insert_with(|| (String::new(), now));
                if entry.0 != level {
                    *entry = (level.to_owned(), now);
                }
            }
        }
        affected.sort();
        self.apply(&levels);
        drop(levels);
        if let Ok(java) = self.java.lock() {
            if let Some(forward) = java.as_ref() {
                for name in &affected {
                    forward(name, level);
                }
            }
        }
        affected
    }
}

/// Levels over a subscriber of their own (kept alive, not installed globally: the handle
/// reloads its filter), for tests.
#[cfg(test)]
pub(crate) fn for_tests() -> (RuntimeLogLevels, impl Sized) {
    let (layer, handle) = reload::Layer::new(EnvFilter::new("info"));
    let subscriber = tracing_subscriber::registry().with(layer);
    (RuntimeLogLevels::new("info".to_owned(), handle), subscriber)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn levels() -> (RuntimeLogLevels, impl Sized) {
        for_tests()
    }

    #[test]
    fn namespaces_children_and_root() {
        let (l, _subscriber) = levels();
        assert_eq!(l.get("root").level, "INFO");
        assert_eq!(l.set("ferry_runtime", "DEBUG"), vec!["ferry_runtime"]);
        assert_eq!(
            l.set("ferry_runtime::worker", "TRACE"),
            vec!["ferry_runtime::worker"]
        );
        assert_eq!(
            l.get("ferry_runtime::herder").level,
            "DEBUG",
            "inherited from the namespace"
        );
        // Setting a namespace again also sets the loggers under it.
        assert_eq!(
            l.set("ferry_runtime", "WARN"),
            vec!["ferry_runtime", "ferry_runtime::worker"]
        );
        assert_eq!(l.get("ferry_runtime::worker").level, "WARN");
        assert_eq!(
            l.set("root", "ERROR"),
            vec!["ferry_runtime", "ferry_runtime::worker", "root"]
        );
        let all = l.all();
        assert!(
            all.values()
                .all(|v| v.level == "ERROR" && v.last_modified.is_some()),
            "{all:?}"
        );
        assert_eq!(
            l.levels.lock().unwrap().directives(),
            "error,ferry_runtime=error,ferry_runtime::worker=error,ferry_plugin_host::java=trace"
        );
    }

    #[test]
    fn a_logger_name_tracing_cannot_parse_is_listed_but_not_applied() {
        let (l, _subscriber) = levels();
        assert_eq!(l.set(" \u{cb}\u{90}", "INFO"), vec![" \u{cb}\u{90}"]);
        assert_eq!(l.get(" \u{cb}\u{90}").level, "INFO");
        assert_eq!(
            l.levels.lock().unwrap().directives(),
            "info,ferry_plugin_host::java=trace"
        );
    }
}
