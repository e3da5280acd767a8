//! Settings every connector has (Java's `ConnectorConfig`, `SinkConnectorConfig`).

use std::time::Duration;

use ferry_api::config::{
    ConfigDef, ConfigError, ConfigKey, ConfigType, DefaultValue, Importance, KeyProblem, Validator,
    Width,
};
use ferry_api::ConfigMap;

use crate::errors::{DlqSettings, ErrorSettings};
use crate::worker::exactly_once::TransactionBoundary;

pub const NAME: &str = "name";
pub const CONNECTOR_CLASS: &str = "connector.class";
pub const TASKS_MAX: &str = "tasks.max";
pub const TASKS_MAX_ENFORCE: &str = "tasks.max.enforce";
pub const CONNECTOR_PLUGIN_VERSION: &str = "connector.plugin.version";
pub const KEY_CONVERTER: &str = "key.converter";
pub const KEY_CONVERTER_PLUGIN_VERSION: &str = "key.converter.plugin.version";
pub const VALUE_CONVERTER_PLUGIN_VERSION: &str = "value.converter.plugin.version";
pub const HEADER_CONVERTER_PLUGIN_VERSION: &str = "header.converter.plugin.version";
pub const VALUE_CONVERTER: &str = "value.converter";
pub const HEADER_CONVERTER: &str = "header.converter";
pub const TRANSFORMS: &str = "transforms";
pub const PREDICATES: &str = "predicates";
pub const CONFIG_ACTION_RELOAD: &str = "config.action.reload";
pub const ERRORS_RETRY_TIMEOUT: &str = "errors.retry.timeout";
pub const ERRORS_RETRY_MAX_DELAY: &str = "errors.retry.delay.max.ms";
pub const ERRORS_TOLERANCE: &str = "errors.tolerance";
pub const ERRORS_LOG_ENABLE: &str = "errors.log.enable";
pub const ERRORS_LOG_INCLUDE_MESSAGES: &str = "errors.log.include.messages";
pub const TOPICS: &str = "topics";
pub const TOPICS_REGEX: &str = "topics.regex";
pub const DLQ_TOPIC_NAME: &str = "errors.deadletterqueue.topic.name";
pub const DLQ_REPLICATION_FACTOR: &str = "errors.deadletterqueue.topic.replication.factor";
pub const DLQ_CONTEXT_HEADERS: &str = "errors.deadletterqueue.context.headers.enable";
pub const EXACTLY_ONCE_SUPPORT: &str = "exactly.once.support";
pub const TRANSACTION_BOUNDARY: &str = "transaction.boundary";
pub const TRANSACTION_BOUNDARY_INTERVAL: &str = "transaction.boundary.interval.ms";
pub const OFFSETS_STORAGE_TOPIC: &str = "offsets.storage.topic";

const COMMON_GROUP: &str = "Common";
const ERROR_GROUP: &str = "Error Handling";
const TRANSFORMS_GROUP: &str = "Transforms";
const PREDICATES_GROUP: &str = "Predicates";
const EXACTLY_ONCE_GROUP: &str = "Exactly Once Support";

/// Java's connector-name rule: not empty, and no ISO control characters.
fn name_validator() -> Validator {
    Validator::Custom {
        description: "non-empty string without ISO control characters".to_owned(),
        check: std::sync::Arc::new(|v| {
            let name = v.as_str().unwrap_or_default();
            if name.is_empty() {
                return Err("String may not be empty".to_owned());
            }
            let controls: Vec<String> = name
                .chars()
                .filter(|c| c.is_control())
                .map(|c| u32::from(c).to_string())
                .collect();
            if controls.is_empty() {
                Ok(())
            } else {
                Err(format!(
                    "String may not contain control sequences but had the following ASCII chars: {}",
                    controls.join(", ")
                ))
            }
        }),
    }
}

fn value(v: &str) -> DefaultValue {
    DefaultValue::Value(v.to_owned())
}

/// The keys of every connector, in Java's groups and order.
pub fn connector_config_def() -> ConfigDef {
    use ConfigType::*;
    use Importance::*;
    let k = ConfigKey::new;
    ConfigDef::new()
        .define(k(NAME, String, DefaultValue::Required, High, "Globally unique name to use for this connector.")
            .validator(name_validator())
            .group(COMMON_GROUP, 1, Width::Medium, "Connector name"))
        .define(k(CONNECTOR_CLASS, String, DefaultValue::Required, High, "Name or alias of the class for this connector. Must be a subclass of org.apache.kafka.connect.connector.Connector. If the connector is org.apache.kafka.connect.file.FileStreamSinkConnector, you can either specify this full name,  or use \"FileStreamSink\" or \"FileStreamSinkConnector\" to make the configuration a bit shorter")
            .group(COMMON_GROUP, 2, Width::Long, "Connector class"))
        // KIP-891: the defaults are the plugins' versions, filled in by validation.
        .define(k(CONNECTOR_PLUGIN_VERSION, String, DefaultValue::Null, Medium, "Version of the connector.")
            .group(COMMON_GROUP, 3, Width::Medium, "Connector version"))
        .define(k(TASKS_MAX, Int, value("1"), High, "Maximum number of tasks to use for this connector.")
            .validator(Validator::at_least(1.0))
            .group(COMMON_GROUP, 4, Width::Short, "Tasks max"))
        .define(k(TASKS_MAX_ENFORCE, Boolean, value("true"), Low, "(Deprecated) Whether to enforce that the tasks.max property is respected by the connector. By default, connectors that generate too many tasks will fail, and existing sets of tasks that exceed the tasks.max property will also be failed. If this property is set to false, then connectors will be allowed to generate more than the maximum number of tasks, and existing sets of tasks that exceed the tasks.max property will be allowed to run. This property is deprecated and will be removed in an upcoming major release.")
            .group(COMMON_GROUP, 5, Width::Short, "Enforce tasks max"))
        .define(k(KEY_CONVERTER, Class, DefaultValue::Null, Low, "Converter class used to convert between Kafka Connect format and the serialized form that is written to Kafka. This controls the format of the keys in messages written to or read from Kafka, and since this is independent of connectors it allows any connector to work with any serialization format. Examples of common formats include JSON and Avro.")
            .group(COMMON_GROUP, 6, Width::Short, "Key converter class"))
        .define(k(KEY_CONVERTER_PLUGIN_VERSION, String, DefaultValue::Null, Low, "Version of the key converter.")
            .group(COMMON_GROUP, 7, Width::Short, "Key converter version"))
        .define(k(VALUE_CONVERTER, Class, DefaultValue::Null, Low, "Converter class used to convert between Kafka Connect format and the serialized form that is written to Kafka. This controls the format of the values in messages written to or read from Kafka, and since this is independent of connectors it allows any connector to work with any serialization format. Examples of common formats include JSON and Avro.")
            .group(COMMON_GROUP, 8, Width::Short, "Value converter class"))
        .define(k(VALUE_CONVERTER_PLUGIN_VERSION, String, DefaultValue::Null, Low, "Version of the value converter.")
            .group(COMMON_GROUP, 9, Width::Short, "Value converter version"))
        .define(k(HEADER_CONVERTER, Class, DefaultValue::Null, Low, "HeaderConverter class used to convert between Kafka Connect format and the serialized form that is written to Kafka. This controls the format of the header values in messages written to or read from Kafka, and since this is independent of connectors it allows any connector to work with any serialization format. Examples of common formats include JSON and Avro. By default, the SimpleHeaderConverter is used to serialize header values to strings and deserialize them by inferring the schemas.")
            .group(COMMON_GROUP, 10, Width::Short, "Header converter class"))
        .define(k(HEADER_CONVERTER_PLUGIN_VERSION, String, DefaultValue::Null, Low, "Version of the header converter.")
            .group(COMMON_GROUP, 11, Width::Short, "Header converter version"))
        .define(k(TRANSFORMS, List, value(""), Low, "Aliases for the transformations to be applied to records.")
            .group(TRANSFORMS_GROUP, 12, Width::Long, "Transforms"))
        .define(k(PREDICATES, List, value(""), Low, "Aliases for the predicates used by transformations.")
            .group(PREDICATES_GROUP, 13, Width::Long, "Predicates"))
        .define(k(CONFIG_ACTION_RELOAD, String, value("restart"), Low, "The action that Connect should take on the connector when changes in external configuration providers result in a change in the connector's configuration properties. A value of 'none' indicates that Connect will do nothing. A value of 'restart' indicates that Connect should restart/reload the connector with the updated configuration properties.The restart may actually be scheduled in the future if the external configuration provider indicates that a configuration value will expire in the future.")
            .validator(Validator::one_of_ignore_case(&["none", "restart"]))
            .group(COMMON_GROUP, 14, Width::Medium, "Reload Action"))
        .define(k(ERRORS_RETRY_TIMEOUT, Long, value("0"), Medium, "The maximum duration in milliseconds that a failed operation will be reattempted. The default is 0, which means no retries will be attempted. Use -1 for infinite retries.")
            .group(ERROR_GROUP, 1, Width::Medium, "Retry Timeout for Errors"))
        .define(k(ERRORS_RETRY_MAX_DELAY, Long, value("60000"), Medium, "The maximum duration in milliseconds between consecutive retry attempts. Jitter will be added to the delay once this limit is reached to prevent thundering herd issues.")
            .group(ERROR_GROUP, 2, Width::Medium, "Maximum Delay Between Retries for Errors"))
        .define(k(ERRORS_TOLERANCE, String, value("none"), Medium, "Behavior for tolerating errors during connector operation. 'none' is the default value and signals that any error will result in an immediate connector task failure; 'all' changes the behavior to skip over problematic records.")
            .validator(Validator::one_of(&["none", "all"]))
            .group(ERROR_GROUP, 3, Width::Short, "Error Tolerance"))
        .define(k(ERRORS_LOG_ENABLE, Boolean, value("false"), Medium, "If true, write each error and the details of the failed operation and problematic record to the Connect application log. This is 'false' by default, so that only errors that are not tolerated are reported.")
            .group(ERROR_GROUP, 4, Width::Short, "Log Errors"))
        .define(k(ERRORS_LOG_INCLUDE_MESSAGES, Boolean, value("false"), Medium, "Whether to include in the log the Connect record that resulted in a failure. For sink records, the topic, partition, offset, and timestamp will be logged. For source records, the key and value (and their schemas), all headers, and the timestamp, Kafka topic, Kafka partition, source partition, and source offset will be logged. This is 'false' by default, which will prevent record keys, values, and headers from being written to log files.")
            .group(ERROR_GROUP, 5, Width::Short, "Log Error Details"))
}

/// Source connectors add KIP-158's topic creation groups.
pub fn source_connector_config_def() -> ConfigDef {
    use ConfigType::*;
    use Importance::*;
    let k = ConfigKey::new;
    connector_config_def()
        .define(k(crate::worker::topic_creation::TOPIC_CREATION_GROUPS, List, value(""), Low, "Groups of configurations for topics created by source connectors")
            .group("Topic Creation", 1, Width::Long, "Topic Creation Groups"))
        .define(k(EXACTLY_ONCE_SUPPORT, String, value("requested"), Medium, "Permitted values are requested, required. If set to \"required\", forces a preflight check for the connector to ensure that it can provide exactly-once semantics with the given configuration. Some connectors may be capable of providing exactly-once semantics but not signal to Connect that they support this; in that case, documentation for the connector should be consulted carefully before creating it, and the value for this property should be set to \"requested\". Additionally, if the value is set to \"required\" but the worker that performs preflight validation does not have exactly-once support enabled for source connectors, requests to create or validate the connector will fail.")
            .validator(Validator::one_of_ignore_case(&["requested", "required"]))
            .group(EXACTLY_ONCE_GROUP, 2, Width::Short, "Exactly once support"))
        .define(k(TRANSACTION_BOUNDARY, String, value("poll"), Medium, "Permitted values are: poll, interval, connector. If set to 'poll', a new producer transaction will be started and committed for every batch of records that each task from this connector provides to Connect. If set to 'connector', relies on connector-defined transaction boundaries; note that not all connectors are capable of defining their own transaction boundaries, and in that case, attempts to instantiate a connector with this value will fail. Finally, if set to 'interval', commits transactions only after a user-defined time interval has passed.")
            .validator(Validator::one_of_ignore_case(&["poll", "interval", "connector"]))
            .group(EXACTLY_ONCE_GROUP, 3, Width::Short, "Transaction Boundary"))
        .define(k(TRANSACTION_BOUNDARY_INTERVAL, Long, DefaultValue::Null, Low, "If 'transaction.boundary' is set to 'interval', determines the interval for producer transaction commits by connector tasks. If unset, defaults to the value of the worker-level 'offset.flush.interval.ms' property. It has no effect if a different transaction.boundary is specified.")
            .validator(Validator::at_least(0.0))
            .group(EXACTLY_ONCE_GROUP, 4, Width::Short, "Transaction boundary interval"))
        .define(k(OFFSETS_STORAGE_TOPIC, String, DefaultValue::Null, Low, "The name of a separate offsets topic to use for this connector. If empty or not specified, the worker\u{2019}s global offsets topic name will be used. If specified, the offsets topic will be created if it does not already exist on the Kafka cluster targeted by this connector (which may be different from the one used for the worker's global offsets topic if the bootstrap.servers property of the connector's producer has been overridden from the worker's). Only applicable in distributed mode; in standalone mode, setting this property will have no effect.")
            .validator(Validator::NonEmptyString)
            .group("offsets.topic", 1, Width::Long, "Offsets topic"))
}

/// Sink connectors add the topics to read and the dead letter queue.
pub fn sink_connector_config_def() -> ConfigDef {
    use ConfigType::*;
    use Importance::*;
    let k = ConfigKey::new;
    connector_config_def()
        .define(k(TOPICS, List, value(""), High, "List of topics to consume, separated by commas")
            .validator(Validator::distinct_list(true, false))
            .group(COMMON_GROUP, 4, Width::Long, "Topics"))
        .define(k(TOPICS_REGEX, String, value(""), High, "Regular expression giving topics to consume. Under the hood, the regex is compiled to a <code>java.util.regex.Pattern</code>. Only one of topics or topics.regex should be specified.")
            .group(COMMON_GROUP, 4, Width::Long, "Topics regex"))
        .define(k(DLQ_TOPIC_NAME, String, value(""), Medium, "The name of the topic to be used as the dead letter queue (DLQ) for messages that result in an error when processed by this sink connector, or its transformations or converters. The topic name is blank by default, which means that no messages are to be recorded in the DLQ.")
            .group(ERROR_GROUP, 6, Width::Medium, "Dead Letter Queue Topic Name"))
        .define(k(DLQ_REPLICATION_FACTOR, Short, value("3"), Medium, "Replication factor used to create the dead letter queue topic when it doesn't already exist.")
            .group(ERROR_GROUP, 7, Width::Medium, "Dead Letter Queue Topic Replication Factor"))
        .define(k(DLQ_CONTEXT_HEADERS, Boolean, value("false"), Medium, "If true, add headers containing error context to the messages written to the dead letter queue. To avoid clashing with headers from the original record, all error context header keys, all error context header keys will start with <code>__connect.errors.</code>")
            .group(ERROR_GROUP, 8, Width::Medium, "Enable Error Context Headers"))
}

/// Cross-key checks of a sink connector's topics, with Java's messages.
pub fn sink_topic_problems(props: &ConfigMap) -> Vec<KeyProblem> {
    let has = |k: &str| props.get(k).is_some_and(|v| !v.trim().is_empty());
    let mut problems = Vec::new();
    if has(TOPICS) && has(TOPICS_REGEX) {
        let message = format!(
            "{TOPICS} and {TOPICS_REGEX} are mutually exclusive options, but both are set."
        );
        problems.push(KeyProblem {
            key: TOPICS.to_owned(),
            message: message.clone(),
        });
        problems.push(KeyProblem {
            key: TOPICS_REGEX.to_owned(),
            message,
        });
    } else if !has(TOPICS) && !has(TOPICS_REGEX) {
        let message = format!("Must configure one of {TOPICS} or {TOPICS_REGEX}");
        problems.push(KeyProblem {
            key: TOPICS.to_owned(),
            message: message.clone(),
        });
        problems.push(KeyProblem {
            key: TOPICS_REGEX.to_owned(),
            message,
        });
    }
    if let Some(dlq) = props
        .get(DLQ_TOPIC_NAME)
        .map(|t| t.trim())
        .filter(|t| !t.is_empty())
    {
        let topics = props
            .get(TOPICS)
            .map(|t| ferry_api::config::split_list(t))
            .unwrap_or_default();
        if topics.iter().any(|t| t == dlq) {
            problems.push(KeyProblem {
                key: DLQ_TOPIC_NAME.to_owned(),
                message: format!(
                    "The DLQ topic '{dlq}' may not be included in the list of topics ('{TOPICS}=[{}]') consumed by the connector",
                    topics.join(", ")
                ),
            });
        }
        if let Some(regex) = props
            .get(TOPICS_REGEX)
            .map(|r| r.trim())
            .filter(|r| !r.is_empty())
        {
            if regex::Regex::new(&format!("^(?:{regex})$")).is_ok_and(|re| re.is_match(dlq)) {
                problems.push(KeyProblem {
                    key: DLQ_TOPIC_NAME.to_owned(),
                    message: format!(
                        "The DLQ topic '{dlq}' may not be included in the regex matching the topics ('{TOPICS_REGEX}={regex}') consumed by the connector"
                    ),
                });
            }
        }
    }
    if let Some(regex) = props.get(TOPICS_REGEX).filter(|r| !r.trim().is_empty()) {
        if let Err(e) = regex::Regex::new(regex) {
            problems.push(KeyProblem {
                key: TOPICS_REGEX.to_owned(),
                message: format!("Invalid value {regex} for configuration {TOPICS_REGEX}: {e}"),
            });
        }
    }
    problems
}

/// A connector's config as the worker runs it: the properties its plugins get, and the
/// framework's keys read once (Java's worker builds its `ConnectorConfig` the same way, from the
/// stored and resolved properties).
#[derive(Debug, Clone)]
pub struct ConnectorConfig {
    pub props: ConfigMap,
    pub name: String,
    pub class: String,
    pub tasks_max: usize,
    /// `tasks.max.enforce`: fail a connector that generates more task configs than `tasks_max`.
    pub tasks_max_enforce: bool,
    /// A sink's `topics` (empty when it subscribes by `topics.regex`).
    pub topics: Vec<String>,
    /// A sink's `topics.regex`, when set and not blank.
    pub topics_regex: Option<String>,
    pub errors: ErrorSettings,
    /// A sink's dead letter queue, when `errors.deadletterqueue.topic.name` names one.
    pub dlq: Option<DlqSettings>,
    /// `consumer.override.group.id`, else Java's `connect-<name>`: a sink's consumer group.
    pub sink_group: String,
}

impl ConnectorConfig {
    /// Reads a stored config. It was validated when it was written, so a value that does not
    /// parse only comes from an older or foreign writer; the key's default applies then, as
    /// Java's defaults would.
    pub fn from_stored(props: &ConfigMap) -> Self {
        let trimmed = |k: &str| props.get(k).map(|v| v.trim()).filter(|v| !v.is_empty());
        let flag = |k: &str, default: bool| {
            trimmed(k).map_or(default, |v| match v.to_ascii_lowercase().as_str() {
                "true" => true,
                "false" => false,
                _ => default,
            })
        };
        let name = props.get(NAME).cloned().unwrap_or_default();
        ConnectorConfig {
            class: props.get(CONNECTOR_CLASS).cloned().unwrap_or_default(),
            tasks_max: trimmed(TASKS_MAX).and_then(|v| v.parse().ok()).unwrap_or(1),
            tasks_max_enforce: flag(TASKS_MAX_ENFORCE, true),
            topics: props
                .get(TOPICS)
                .map(|t| ferry_api::config::split_list(t))
                .unwrap_or_default(),
            topics_regex: trimmed(TOPICS_REGEX).map(str::to_owned),
            errors: ErrorSettings::from_config(props),
            dlq: trimmed(DLQ_TOPIC_NAME).map(|topic| DlqSettings {
                topic: topic.to_owned(),
                replication_factor: trimmed(DLQ_REPLICATION_FACTOR)
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(3),
                context_headers: flag(DLQ_CONTEXT_HEADERS, false),
            }),
            sink_group: props
                .get("consumer.override.group.id")
                .cloned()
                .unwrap_or_else(|| format!("connect-{name}")),
            name,
            props: props.clone(),
        }
    }

    /// `transaction.boundary` of an exactly-once source (KIP-618); an interval without
    /// `transaction.boundary.interval.ms` is `worker_interval` (`offset.flush.interval.ms`).
    pub fn transaction_boundary(&self, worker_interval: Duration) -> TransactionBoundary {
        let setting = |k: &str| self.props.get(k).map(|v| v.trim().to_ascii_lowercase());
        match setting(TRANSACTION_BOUNDARY).as_deref() {
            Some("interval") => TransactionBoundary::Interval(
                setting(TRANSACTION_BOUNDARY_INTERVAL)
                    .and_then(|v| v.parse::<u64>().ok())
                    .map_or(worker_interval, Duration::from_millis),
            ),
            Some("connector") => TransactionBoundary::Connector,
            _ => TransactionBoundary::Poll,
        }
    }

    /// Checks the common keys (and, for sinks, the topic keys), naming every bad key, then reads
    /// the config.
    pub fn parse(props: &ConfigMap, sink: bool) -> Result<Self, ConfigError> {
        let def = if sink {
            sink_connector_config_def()
        } else {
            source_connector_config_def()
        };
        let mut problems = Vec::new();
        if let Err(e) = def.parse(props) {
            problems.extend(e.problems);
        }
        if sink {
            problems.extend(sink_topic_problems(props));
        }
        if problems.is_empty() {
            Ok(Self::from_stored(props))
        } else {
            Err(ConfigError { problems })
        }
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
    fn sink_needs_exactly_one_of_topics_and_regex() {
        let base = [("name", "s"), ("connector.class", "FileStreamSink")];
        let err = ConnectorConfig::parse(&props(&base), true).unwrap_err();
        assert!(err
            .problems
            .iter()
            .all(|p| p.message == "Must configure one of topics or topics.regex"));
        let mut both = base.to_vec();
        both.extend([("topics", "a"), ("topics.regex", "a.*")]);
        let err = ConnectorConfig::parse(&props(&both), true).unwrap_err();
        assert_eq!(
            err.problems[0].message,
            "topics and topics.regex are mutually exclusive options, but both are set."
        );
    }

    #[test]
    fn a_stored_config_is_read_once_with_java_s_defaults_for_what_does_not_parse() {
        let c = ConnectorConfig::from_stored(&props(&[
            ("name", "s"),
            ("connector.class", "FileStreamSink"),
            ("tasks.max", " 3 "),
            ("tasks.max.enforce", "FALSE"),
            ("topics", "a, b"),
            ("topics.regex", "  "),
            ("errors.tolerance", "all"),
            ("errors.deadletterqueue.topic.name", " dlq "),
            ("errors.deadletterqueue.context.headers.enable", "true"),
        ]));
        assert_eq!((c.name.as_str(), c.class.as_str()), ("s", "FileStreamSink"));
        assert_eq!(c.tasks_max, 3);
        assert!(!c.tasks_max_enforce);
        assert_eq!(c.topics, vec!["a", "b"]);
        assert_eq!(c.topics_regex, None);
        assert!(c.errors.tolerate_all);
        let dlq = c.dlq.expect("a dead letter queue");
        assert_eq!((dlq.topic.as_str(), dlq.replication_factor), ("dlq", 3));
        assert!(dlq.context_headers);
        assert_eq!(c.sink_group, "connect-s");

        let foreign = ConnectorConfig::from_stored(&props(&[
            ("name", "s"),
            ("tasks.max", "many"),
            ("tasks.max.enforce", "maybe"),
            ("consumer.override.group.id", "mine"),
        ]));
        assert_eq!(foreign.tasks_max, 1);
        assert!(foreign.tasks_max_enforce);
        assert!(foreign.dlq.is_none());
        assert_eq!(foreign.sink_group, "mine");
    }

    #[test]
    fn every_bad_common_key_is_named() {
        let err = ConnectorConfig::parse(
            &props(&[("tasks.max", "0"), ("errors.tolerance", "some")]),
            false,
        )
        .unwrap_err();
        let keys: Vec<_> = err.problems.iter().map(|p| p.key.as_str()).collect();
        assert_eq!(
            keys,
            vec!["name", "connector.class", "tasks.max", "errors.tolerance"]
        );
    }
}
