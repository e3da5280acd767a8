//! Worker configuration (Java's `WorkerConfig` and `StandaloneConfig`).

use std::time::Duration;

use ferry_api::config::{
    ConfigDef, ConfigError, ConfigKey, ConfigType, DefaultValue, Importance, Validator,
};
use ferry_api::ConfigMap;

pub const BOOTSTRAP_SERVERS: &str = "bootstrap.servers";
pub const KEY_CONVERTER: &str = "key.converter";
pub const VALUE_CONVERTER: &str = "value.converter";
pub const HEADER_CONVERTER: &str = "header.converter";
pub const OFFSET_FLUSH_INTERVAL_MS: &str = "offset.flush.interval.ms";
pub const OFFSET_FLUSH_TIMEOUT_MS: &str = "offset.flush.timeout.ms";
pub const TASK_SHUTDOWN_GRACEFUL_TIMEOUT_MS: &str = "task.shutdown.graceful.timeout.ms";
pub const LISTENERS: &str = "listeners";
pub const PLUGIN_PATH: &str = "plugin.path";
pub const METRIC_REPORTERS: &str = "metric.reporters";
pub const CONFIG_PROVIDERS: &str = "config.providers";
pub const REST_EXTENSION_CLASSES: &str = "rest.extension.classes";
pub const ADMIN_LISTENERS: &str = "admin.listeners";
pub const OFFSET_STORAGE_FILE_FILENAME: &str = "offset.storage.file.filename";
pub const TOPIC_TRACKING_ENABLE: &str = "topic.tracking.enable";
pub const TOPIC_TRACKING_ALLOW_RESET: &str = "topic.tracking.allow.reset";
pub const REST_ADVERTISED_HOST_NAME: &str = "rest.advertised.host.name";
pub const REST_ADVERTISED_PORT: &str = "rest.advertised.port";

pub const DEFAULT_HEADER_CONVERTER: &str = "org.apache.kafka.connect.storage.SimpleHeaderConverter";

/// Prefixes whose keys belong to clients or plugins, so they are never "unknown".
/// Which implementation runs a connector class that Ferry has natively and that is also on
/// `plugin.path`: `native` (the default) or `plugin.path`.
pub const PLUGIN_PREFERENCE: &str = "ferry.plugin.preference";
/// Deadline of a call to the plugin host that has no other, in ms (default 300000).
pub const PLUGIN_HOST_CALL_TIMEOUT_MS: &str = "ferry.plugin.host.call.timeout.ms";
/// `true`: every Java connector, with its tasks, runs in a plugin host process of its own.
pub const PLUGIN_HOST_PER_CONNECTOR: &str = "ferry.plugin.host.per.connector";
/// Ferry's own worker keys; Java Connect would warn about them as unknown.
const FERRY_KEYS: &[&str] = &[
    crate::worker::auto_restart::ENABLE,
    crate::worker::auto_restart::INITIAL_BACKOFF_MS,
    crate::worker::auto_restart::MAX_BACKOFF_MS,
    crate::worker::auto_restart::MAX_ATTEMPTS,
    crate::worker::auto_restart::RESET_AFTER_MS,
    crate::worker::auto_restart::CONNECTOR_ENABLE,
    crate::worker::auto_restart::CONNECTOR_INITIAL_BACKOFF_MS,
    crate::worker::auto_restart::CONNECTOR_MAX_BACKOFF_MS,
    crate::worker::auto_restart::CONNECTOR_MAX_ATTEMPTS,
    crate::worker::auto_restart::CONNECTOR_RESET_AFTER_MS,
    crate::config::override_policy::LIBRDKAFKA_OVERRIDES,
    PLUGIN_PREFERENCE,
    PLUGIN_HOST_CALL_TIMEOUT_MS,
    PLUGIN_HOST_PER_CONNECTOR,
    crate::metrics::CLIENT_STATISTICS_INTERVAL,
    crate::metrics::METRICS_LISTENERS,
];

const PASS_THROUGH_PREFIXES: &[&str] = &[
    "producer.",
    "consumer.",
    "admin.",
    "key.converter.",
    "value.converter.",
    "header.converter.",
    "config.providers.",
    "listeners.https.",
    "admin.listeners.https.",
    "metrics.",
];

/// Java client settings a worker may carry at the top level; known, but used only by clients.
/// Settings under these prefixes become topic configs of the internal topics (distributed mode).
const DISTRIBUTED_TOPIC_PREFIXES: &[&str] =
    &["config.storage.", "offset.storage.", "status.storage."];

const CLIENT_KEYS: &[&str] = &[
    "client.dns.lookup",
    "client.id",
    "security.protocol",
    "sasl.mechanism",
    "sasl.jaas.config",
    "metadata.max.age.ms",
    "request.timeout.ms",
    "retry.backoff.ms",
    "reconnect.backoff.ms",
    "reconnect.backoff.max.ms",
    "connections.max.idle.ms",
    "metric.reporters",
    "metrics.num.samples",
    "metrics.sample.window.ms",
    "metrics.recording.level",
    "plugin.discovery",
    "config.providers",
    "connector.client.config.override.policy",
    "connector.client.config.override.allowlist",
    "topic.creation.enable",
    "access.control.allow.origin",
    "access.control.allow.methods",
    "admin.listeners",
    "rest.extension.classes",
    "response.http.headers.config",
    "rest.advertised.listener",
    "exactly.once.source.support",
];

fn key(
    name: &str,
    ty: ConfigType,
    default: DefaultValue,
    importance: Importance,
    doc: &str,
) -> ConfigKey {
    ConfigKey::new(name, ty, default, importance, doc)
}

fn value(v: &str) -> DefaultValue {
    DefaultValue::Value(v.to_owned())
}

/// The keys every worker declares.
pub fn worker_config_def() -> ConfigDef {
    use ConfigType::*;
    use Importance::*;
    ConfigDef::new()
        // Required since Kafka 4.2 (KIP-1161), which dropped the localhost:9092 default.
        .define(key(BOOTSTRAP_SERVERS, List, DefaultValue::Required, High, "A list of host/port pairs used to establish the initial connection to the Kafka cluster.").validator(Validator::distinct_list(false, false)))
        .define(key(KEY_CONVERTER, Class, DefaultValue::Required, High, "Converter class used to convert between Kafka Connect format and the serialized form that is written to Kafka (record keys)."))
        .define(key(VALUE_CONVERTER, Class, DefaultValue::Required, High, "Converter class used to convert between Kafka Connect format and the serialized form that is written to Kafka (record values)."))
        .define(key(HEADER_CONVERTER, Class, value(DEFAULT_HEADER_CONVERTER), Low, "HeaderConverter class used to convert between Kafka Connect format and the serialized form that is written to Kafka (record headers)."))
        .define(key(TASK_SHUTDOWN_GRACEFUL_TIMEOUT_MS, Long, value("5000"), Low, "Amount of time to wait for tasks to shutdown gracefully.").validator(Validator::at_least(0.0)))
        .define(key(OFFSET_FLUSH_INTERVAL_MS, Long, value("60000"), Low, "Interval at which to try committing offsets for tasks.").validator(Validator::at_least(0.0)))
        .define(key(OFFSET_FLUSH_TIMEOUT_MS, Long, value("5000"), Low, "Maximum time to wait for records to flush and partition offset data to be committed before cancelling the process.").validator(Validator::at_least(0.0)))
        .define(key(LISTENERS, List, value("http://:8083"), Low, "List of comma-separated URIs the REST API will listen on."))
        .define(key(PLUGIN_PATH, List, DefaultValue::Null, Low, "List of paths separated by commas (,) that contain Java plugins, run by the plugin host; Ferry's native plugins are built in.").validator(Validator::distinct_list(false, true)))
        .define(key(METRIC_REPORTERS, List, value(""), Low, "A list of classes to use as metrics reporters.").validator(Validator::distinct_list(true, false)))
        .define(key(CONFIG_PROVIDERS, List, value(""), Low, "Comma-separated alias names for classes implementing the ConfigProvider interface.").validator(Validator::distinct_list(true, false)))
        .define(key(REST_EXTENSION_CLASSES, List, value(""), Low, "Comma-separated names of ConnectRestExtension classes, loaded and called in the order specified.").validator(Validator::distinct_list(true, false)))
        .define(key(ADMIN_LISTENERS, List, DefaultValue::Null, Low, "List of comma-separated URIs the Admin REST API will listen on.").validator(Validator::distinct_list(true, true)))
        .define(key(TOPIC_TRACKING_ENABLE, Boolean, value("true"), Low, "Enable tracking the set of active topics per connector during runtime."))
        .define(key(TOPIC_TRACKING_ALLOW_RESET, Boolean, value("true"), Low, "If set to true, it allows user requests to reset the set of active topics per connector."))
        .define(key(REST_ADVERTISED_HOST_NAME, String, DefaultValue::Null, Low, "The hostname given out to other workers to connect to."))
        .define(key(REST_ADVERTISED_PORT, Int, DefaultValue::Null, Low, "The port given out to other workers to connect to."))
}

/// Standalone adds the offsets file.
pub fn standalone_config_def() -> ConfigDef {
    worker_config_def().define(key(
        OFFSET_STORAGE_FILE_FILENAME,
        ConfigType::String,
        DefaultValue::Required,
        Importance::High,
        "File to store offset data in",
    ))
}

/// A worker's parsed settings.
#[derive(Debug, Clone)]
pub struct WorkerConfig {
    pub originals: ConfigMap,
    pub bootstrap_servers: String,
    pub key_converter: String,
    pub value_converter: String,
    pub header_converter: String,
    pub offset_flush_interval: Duration,
    pub offset_flush_timeout: Duration,
    pub task_shutdown_timeout: Duration,
    pub listeners: Vec<String>,
    pub offset_file: Option<String>,
    pub topic_tracking: bool,
    pub topic_tracking_allow_reset: bool,
    /// How often connector clients report librdkafka statistics for the client metrics.
    pub client_statistics_interval_ms: u64,
    /// Whether the worker's cluster offers client telemetry (KIP-714), as found at start; when
    /// it does not, the worker's clients on that cluster default to `enable.metrics.push=false`
    /// (Java's clients push nothing there either), which spares librdkafka's push histograms.
    pub cluster_takes_client_telemetry: bool,
}

fn millis(v: i64) -> Duration {
    Duration::from_millis(u64::try_from(v).unwrap_or(0))
}

fn client_statistics_interval(props: &ConfigMap) -> Result<u64, ConfigError> {
    let key = crate::metrics::CLIENT_STATISTICS_INTERVAL;
    match props.get(key) {
        None => Ok(ferry_kafka::stats::DEFAULT_INTERVAL_MS),
        Some(v) => v.trim().parse().map_err(|_| {
            ConfigError::single(
                key,
                format!("Invalid value {v} for configuration {key}: a number of milliseconds (0 turns client metrics off)"),
            )
        }),
    }
}

impl WorkerConfig {
    /// Parses a standalone worker's properties, failing with every bad key.
    pub fn standalone(props: &ConfigMap) -> Result<Self, ConfigError> {
        Self::from_def(&standalone_config_def(), props)
    }

    /// Parses `props` against `def` (a worker def, possibly extended by a mode).
    pub fn from_def(def: &ConfigDef, props: &ConfigMap) -> Result<Self, ConfigError> {
        let parsed = def.parse(props)?;
        Ok(WorkerConfig {
            originals: props.clone(),
            bootstrap_servers: parsed.list(BOOTSTRAP_SERVERS)?.join(","),
            key_converter: parsed.string(KEY_CONVERTER)?.unwrap_or_default(),
            value_converter: parsed.string(VALUE_CONVERTER)?.unwrap_or_default(),
            header_converter: parsed
                .string(HEADER_CONVERTER)?
                .unwrap_or_else(|| DEFAULT_HEADER_CONVERTER.to_owned()),
            offset_flush_interval: millis(parsed.long(OFFSET_FLUSH_INTERVAL_MS)?),
            offset_flush_timeout: millis(parsed.long(OFFSET_FLUSH_TIMEOUT_MS)?),
            task_shutdown_timeout: millis(parsed.long(TASK_SHUTDOWN_GRACEFUL_TIMEOUT_MS)?),
            listeners: parsed.list(LISTENERS)?,
            offset_file: parsed
                .get(OFFSET_STORAGE_FILE_FILENAME)
                .and_then(|v| v.as_str())
                .map(str::to_owned),
            topic_tracking: parsed.boolean(TOPIC_TRACKING_ENABLE)?,
            topic_tracking_allow_reset: parsed.boolean(TOPIC_TRACKING_ALLOW_RESET)?,
            client_statistics_interval_ms: client_statistics_interval(props)?,
            cluster_takes_client_telemetry: true,
        })
    }

    /// Warnings for settings this worker does not know.
    pub fn warnings(&self) -> Vec<String> {
        self.warnings_for(&standalone_config_def())
    }

    /// Warnings for settings that `def` does not know.
    pub fn warnings_for(&self, def: &ConfigDef) -> Vec<String> {
        let mut out = Vec::new();
        for k in self.originals.keys() {
            if k == PLUGIN_PATH || FERRY_KEYS.contains(&k.as_str()) {
                continue;
            }
            if def.key(k).is_none()
                && !DISTRIBUTED_TOPIC_PREFIXES
                    .iter()
                    .any(|p| k.starts_with(p) && def.key(&format!("{p}topic")).is_some())
                && !CLIENT_KEYS.contains(&k.as_str())
                && !PASS_THROUGH_PREFIXES.iter().any(|p| k.starts_with(p))
                && !k.starts_with("ssl.")
                && !k.starts_with("sasl.")
                // Strimzi's reporter reads its own keys, which Ferry serves in its place.
                && !(k.starts_with("prometheus.metrics.reporter.")
                    && crate::metrics::strimzi_reporter::configured(&self.originals))
            {
                out.push(format!(
                    "The configuration '{k}' was supplied but isn't a known config."
                ));
            }
        }
        out.extend(crate::metrics::unapplied_settings(&self.originals));
        out
    }

    /// The top-level client settings Java's worker gives its own clients (the group member,
    /// internal topics, the cluster id lookup): bootstrap servers, `security.protocol`,
    /// `ssl.*`, `sasl.*` and `client.dns.lookup`. Connector clients do not get them: Java reads
    /// theirs from the `producer.`/`consumer.`/`admin.` prefixes and connector overrides only.
    pub fn connection_settings(&self) -> Vec<(String, String)> {
        let mut out = self.cluster_defaults(true);
        for (k, v) in &self.originals {
            let security = k.starts_with("ssl.")
                || k.starts_with("sasl.")
                || k == "security.protocol"
                || k == "client.dns.lookup";
            if security {
                out.push((k.clone(), v.clone()));
            }
        }
        out
    }

    /// The lowest layer of a client's settings: the worker's bootstrap servers and, for a
    /// client of the worker's own cluster (`same_cluster`: no later layer names other bootstrap
    /// servers), the defaults found for that cluster at start.
    pub fn cluster_defaults(&self, same_cluster: bool) -> Vec<(String, String)> {
        let mut out = vec![(
            "bootstrap.servers".to_owned(),
            self.bootstrap_servers.clone(),
        )];
        if same_cluster && !self.cluster_takes_client_telemetry {
            out.push(("enable.metrics.push".to_owned(), "false".to_owned()));
        }
        out
    }

    /// The settings of a connector's `role` client (`producer`, `consumer`, `admin`), as Java
    /// layers them: the worker's bootstrap servers, its `{role}.` settings, then the
    /// `{role}.override.` settings of the connector's config.
    pub fn connector_client_settings(
        &self,
        role: &str,
        connector: &ConfigMap,
    ) -> ferry_kafka::ClientSettings {
        let override_prefix = format!("{role}.override.");
        let overrides: Vec<(String, String)> = connector
            .iter()
            .filter_map(|(k, v)| {
                k.strip_prefix(&override_prefix)
                    .map(|r| (r.to_owned(), v.clone()))
            })
            .collect();
        let prefixed = self.with_prefix(&format!("{role}."));
        let same_cluster = !prefixed
            .iter()
            .chain(&overrides)
            .any(|(k, _)| k == "bootstrap.servers");
        ferry_kafka::ClientSettings::new()
            .layer(self.cluster_defaults(same_cluster))
            .layer(prefixed)
            .layer(overrides)
    }

    /// `bootstrap.servers` as a list, blanks left out.
    pub fn bootstrap_server_list(&self) -> Vec<String> {
        self.bootstrap_servers
            .split(',')
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
            .collect()
    }

    /// Worker settings under `prefix`, with the prefix removed.
    pub fn with_prefix(&self, prefix: &str) -> Vec<(String, String)> {
        self.originals
            .iter()
            .filter_map(|(k, v)| {
                k.strip_prefix(prefix)
                    .map(|rest| (rest.to_owned(), v.clone()))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn props(pairs: &[(&str, &str)]) -> ConfigMap {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn defaults_match_java() {
        let c = WorkerConfig::standalone(&props(&[
            (
                "key.converter",
                "org.apache.kafka.connect.json.JsonConverter",
            ),
            (
                "value.converter",
                "org.apache.kafka.connect.json.JsonConverter",
            ),
            ("offset.storage.file.filename", "/tmp/connect.offsets"),
        ]))
        .unwrap_err();
        // Kafka 4.2 dropped the localhost:9092 default.
        assert_eq!(
            c.problems[0].message,
            "Missing required configuration \"bootstrap.servers\" which has no default value."
        );
        let c = WorkerConfig::standalone(&props(&[
            ("bootstrap.servers", "localhost:9092"),
            (
                "key.converter",
                "org.apache.kafka.connect.json.JsonConverter",
            ),
            (
                "value.converter",
                "org.apache.kafka.connect.json.JsonConverter",
            ),
            ("offset.storage.file.filename", "/tmp/connect.offsets"),
        ]))
        .unwrap();
        assert_eq!(c.bootstrap_servers, "localhost:9092");
        assert_eq!(c.offset_flush_interval, Duration::from_secs(60));
        assert_eq!(c.listeners, vec!["http://:8083"]);
        assert_eq!(c.header_converter, DEFAULT_HEADER_CONVERTER);
        assert!(c.topic_tracking);
    }

    #[test]
    fn clients_of_a_cluster_without_telemetry_do_not_push_unless_told_to() {
        let mut c = WorkerConfig::standalone(&props(&[
            ("bootstrap.servers", "localhost:9092"),
            ("key.converter", "x"),
            ("value.converter", "x"),
            ("offset.storage.file.filename", "/tmp/connect.offsets"),
            ("consumer.enable.metrics.push", "true"),
        ]))
        .unwrap();
        let push = |settings: &ferry_kafka::ClientSettings| -> Option<String> {
            settings
                .layers
                .iter()
                .flatten()
                .filter(|(k, _)| k == "enable.metrics.push")
                .map(|(_, v)| v.clone())
                .next_back()
        };
        // Until the start-up probe found otherwise: librdkafka's default, as Java's.
        assert_eq!(
            push(&c.connector_client_settings("producer", &ConfigMap::new())),
            None
        );
        assert!(!c
            .connection_settings()
            .iter()
            .any(|(k, _)| k == "enable.metrics.push"));

        c.cluster_takes_client_telemetry = false;
        let producer = c.connector_client_settings("producer", &ConfigMap::new());
        assert_eq!(push(&producer).as_deref(), Some("false"));
        assert_eq!(producer.layers[0][0].1, "localhost:9092");
        assert!(c
            .connection_settings()
            .contains(&("enable.metrics.push".to_owned(), "false".to_owned())));
        // The user's own setting wins.
        assert_eq!(
            push(&c.connector_client_settings("consumer", &ConfigMap::new())).as_deref(),
            Some("true")
        );
        // A client of another cluster keeps librdkafka's default.
        let elsewhere = c.connector_client_settings(
            "producer",
            &ConfigMap::from([(
                "producer.override.bootstrap.servers".to_owned(),
                "other:9092".to_owned(),
            )]),
        );
        assert_eq!(push(&elsewhere), None);
    }

    #[test]
    fn missing_keys_are_all_named() {
        let err =
            WorkerConfig::standalone(&props(&[("offset.flush.interval.ms", "soon")])).unwrap_err();
        let keys: Vec<_> = err.problems.iter().map(|p| p.key.as_str()).collect();
        assert_eq!(
            keys,
            vec![
                "bootstrap.servers",
                "key.converter",
                "value.converter",
                "offset.flush.interval.ms",
                "offset.storage.file.filename"
            ]
        );
    }

    #[test]
    fn unknown_keys_warn_and_plugin_path_does_not() {
        let c = WorkerConfig::standalone(&props(&[
            ("bootstrap.servers", "localhost:9092"),
            ("key.converter", "x"),
            ("value.converter", "y"),
            ("offset.storage.file.filename", "f"),
            ("plugin.path", "/usr/share/java"),
            ("producer.linger.ms", "5"),
            ("colour", "blue"),
        ]))
        .unwrap();
        let w = c.warnings();
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w.iter().any(|m| m.contains("'colour'")));
    }
}
