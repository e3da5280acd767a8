//! The config keys and defaults of Java's MirrorConnectorConfig, MirrorSourceConfig,
//! MirrorCheckpointConfig and MirrorHeartbeatConfig, as `ConfigDef`s, so configs written for
//! Java's connectors validate and default the same way.

use ferry_api::config::{ConfigDef, ConfigKey, ConfigType, DefaultValue, Importance, Validator};

use crate::replication_policy::{
    DEFAULT_POLICY_CLASS, INTERNAL_TOPIC_SEPARATOR_ENABLED, REPLICATION_POLICY_CLASS, SEPARATOR,
};
use crate::topic_filter::{
    CONFIG_PROPERTIES_EXCLUDE, CONFIG_PROPERTIES_EXCLUDE_DEFAULT, GROUPS, GROUPS_DEFAULT,
    GROUPS_EXCLUDE, GROUPS_EXCLUDE_DEFAULT, TOPICS, TOPICS_DEFAULT, TOPICS_EXCLUDE,
    TOPICS_EXCLUDE_DEFAULT,
};

pub const OFFSET_SYNCS_TOPIC_LOCATION: &str = "offset-syncs.topic.location";
pub const EMIT_OFFSET_SYNCS_ENABLED: &str = "emit.offset-syncs.enabled";
pub const OFFSET_LAG_MAX: &str = "offset.lag.max";
pub const CONSUMER_POLL_TIMEOUT_MS: &str = "consumer.poll.timeout.ms";

fn key(
    name: &str,
    ty: ConfigType,
    default: Option<&str>,
    importance: Importance,
    doc: &str,
) -> ConfigKey {
    let default = match default {
        Some(v) => DefaultValue::Value(v.to_owned()),
        None => DefaultValue::Required,
    };
    ConfigKey::new(name, ty, default, importance, doc)
}

/// `metric.names.formats` (Kafka 4.3, KIP-1280) of the source and checkpoint connectors.
fn metric_names_formats() -> ConfigKey {
    key(
        "metric.names.formats",
        ConfigType::List,
        Some("legacy"),
        Importance::Low,
        "Deprecated. The formats in which metrics are emitted. Valid values are legacy and new. When set to legacy, the metrics have the following name \"kafka.connect.mirror:type=MirrorSourceConnector,source={SOURCE},target={TARGET},topic={TOPIC},partition={PARTITION}\". When set to new, the metrics have the following name \"kafka.connect:type=plugins,connector={CONNECTOR},task={TASK},source={SOURCE},target={TARGET},topic={TOPIC},partition={PARTITION}\". When set to \"legacy,new\" the connector will emit metrics with both names, this can be useful when migrating to the new format but it doubles the amount of metrics that are emitted.",
    )
    .validator(Validator::list_of(false, &["legacy", "new"]))
}

fn location() -> ConfigKey {
    key(
        OFFSET_SYNCS_TOPIC_LOCATION,
        ConfigType::String,
        Some("source"),
        Importance::Low,
        "The location (source/target) of the offset-syncs topic.",
    )
    .validator(Validator::OneOf(vec!["source".into(), "target".into()]))
}

/// The keys every MirrorMaker connector has (Java's `BASE_CONNECTOR_CONFIG_DEF`, beside
/// Connect's own connector keys).
pub fn base_config_def() -> ConfigDef {
    use ConfigType::*;
    use Importance::*;
    let def = ConfigDef::new()
        .define(key("enabled", Boolean, Some("true"), Low, "Whether to replicate source->target."))
        .define(key("source.cluster.alias", String, None, High, "Alias of source cluster"))
        .define(key("target.cluster.alias", String, Some("target"), Medium, "Alias of target cluster. Used in metrics reporting."))
        .define(key("admin.timeout.ms", Long, Some("60000"), Low, "Timeout for administrative tasks, e.g. detecting new topics."))
        .define(key(REPLICATION_POLICY_CLASS, Class, Some(DEFAULT_POLICY_CLASS), Low, "Class which defines the remote topic naming convention."))
        .define(key(SEPARATOR, String, Some("."), Low, "Separator used in remote topic naming convention."))
        .define(key(INTERNAL_TOPIC_SEPARATOR_ENABLED, Boolean, Some("true"), Low, "Whether to use replication.policy.separator to control the names of topics used for checkpoints and offset syncs."))
        .define(key("forwarding.admin.class", Class, Some("org.apache.kafka.clients.admin.ForwardingAdmin"), Low, "Class which extends ForwardingAdmin to define custom cluster resource management."))
        .define(key("metric.reporters", List, Some("org.apache.kafka.common.metrics.JmxReporter"), Low, "A list of classes to use as metrics reporters."));
    crate::client_security::keys()
        .into_iter()
        .fold(def, ConfigDef::define)
}

/// `org.apache.kafka.connect.mirror.MirrorSourceConnector`'s keys.
pub fn source_config_def() -> ConfigDef {
    use ConfigType::*;
    use Importance::*;
    base_config_def()
        .define(key(TOPICS, List, Some(TOPICS_DEFAULT), High, "Topics to replicate. Supports comma-separated topic names and regexes."))
        .define(key(TOPICS_EXCLUDE, List, Some(TOPICS_EXCLUDE_DEFAULT), High, "Excluded topics. Supports comma-separated topic names and regexes. Excludes take precedence over includes."))
        .define(key(CONFIG_PROPERTIES_EXCLUDE, List, Some(CONFIG_PROPERTIES_EXCLUDE_DEFAULT), High, "Topic config properties that should not be replicated. Supports comma-separated property names and regexes."))
        .define(key("topic.filter.class", Class, Some("org.apache.kafka.connect.mirror.DefaultTopicFilter"), Low, "TopicFilter to use. Selects topics to replicate."))
        .define(key("config.property.filter.class", Class, Some("org.apache.kafka.connect.mirror.DefaultConfigPropertyFilter"), Low, "ConfigPropertyFilter to use. Selects topic config properties to replicate."))
        .define(key(CONSUMER_POLL_TIMEOUT_MS, Long, Some("1000"), Low, "Timeout when polling source cluster."))
        .define(key("refresh.topics.enabled", Boolean, Some("true"), Low, "Whether to periodically check for new topics and partitions."))
        .define(key("refresh.topics.interval.seconds", Long, Some("600"), Low, "Frequency of topic refresh."))
        .define(key("sync.topic.configs.enabled", Boolean, Some("true"), Low, "Whether to periodically configure remote topics to match their corresponding upstream topics."))
        .define(key("sync.topic.configs.interval.seconds", Long, Some("600"), Low, "Frequency of topic config sync."))
        .define(key("sync.topic.acls.enabled", Boolean, Some("true"), Low, "Whether to periodically configure remote topic ACLs to match their corresponding upstream topics."))
        .define(key("sync.topic.acls.interval.seconds", Long, Some("600"), Low, "Frequency of topic ACL sync."))
        .define(key("replication.factor", Int, Some("2"), Low, "Replication factor for newly created remote topics."))
        .define(key("offset-syncs.topic.replication.factor", Short, Some("3"), Low, "Replication factor for offset-syncs topic."))
        .define(key(OFFSET_LAG_MAX, Long, Some("100"), Low, "How out-of-sync a remote partition can be before it is resynced."))
        .define(location())
        .define(key(EMIT_OFFSET_SYNCS_ENABLED, Boolean, Some("true"), Low, "Whether to store the new offset of the replicated records in offset-syncs topic or not. MirrorCheckpointConnector will not be able to sync group offsets or emit checkpoints if emit.checkpoints.enabled and/or sync.group.offsets.enabled are enabled while emit.offset-syncs.enabled is disabled."))
        .define(key("heartbeats.replication.enabled", Boolean, Some("true"), Low, "Whether to replicate the heartbeat topics even when the topic filter does not include them."))
        .define(metric_names_formats())
}

/// `org.apache.kafka.connect.mirror.MirrorCheckpointConnector`'s keys.
pub fn checkpoint_config_def() -> ConfigDef {
    use ConfigType::*;
    use Importance::*;
    base_config_def()
        .define(key(CONSUMER_POLL_TIMEOUT_MS, Long, Some("1000"), Low, "Timeout when polling source cluster."))
        .define(key(GROUPS, List, Some(GROUPS_DEFAULT), High, "Consumer groups to replicate. Supports comma-separated group IDs and regexes."))
        .define(key(GROUPS_EXCLUDE, List, Some(GROUPS_EXCLUDE_DEFAULT), High, "Exclude groups. Supports comma-separated group IDs and regexes. Excludes take precedence over includes."))
        .define(key("group.filter.class", Class, Some("org.apache.kafka.connect.mirror.DefaultGroupFilter"), Low, "GroupFilter to use. Selects consumer groups to replicate."))
        .define(key("refresh.groups.enabled", Boolean, Some("true"), Low, "Whether to periodically check for new consumer groups."))
        .define(key("refresh.groups.interval.seconds", Long, Some("600"), Low, "Frequency of group refresh."))
        .define(key("emit.checkpoints.enabled", Boolean, Some("true"), Low, "Whether to replicate consumer offsets to target cluster."))
        .define(key("emit.checkpoints.interval.seconds", Long, Some("60"), Low, "Frequency of checkpoints."))
        .define(key("sync.group.offsets.enabled", Boolean, Some("false"), Low, "Whether to periodically write the translated offsets to __consumer_offsets topic in target cluster, as long as no active consumers in that group are connected to the target cluster"))
        .define(key("sync.group.offsets.interval.seconds", Long, Some("60"), Low, "Frequency of consumer group offset sync."))
        .define(key("checkpoints.topic.replication.factor", Short, Some("3"), Low, "Replication factor for checkpoints topic."))
        .define(location())
        .define(key("topic.filter.class", Class, Some("org.apache.kafka.connect.mirror.DefaultTopicFilter"), Low, "TopicFilter to use. Selects topics to replicate."))
        .define(metric_names_formats())
}

/// `org.apache.kafka.connect.mirror.MirrorHeartbeatConnector`'s keys.
pub fn heartbeat_config_def() -> ConfigDef {
    use ConfigType::*;
    use Importance::*;
    base_config_def()
        .define(key(
            "emit.heartbeats.enabled",
            Boolean,
            Some("true"),
            Low,
            "Whether to emit heartbeats to target cluster.",
        ))
        .define(key(
            "emit.heartbeats.interval.seconds",
            Long,
            Some("1"),
            Low,
            "Frequency of heartbeats.",
        ))
        .define(key(
            "heartbeats.topic.replication.factor",
            Short,
            Some("3"),
            Low,
            "Replication factor for heartbeats topic.",
        ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn report(
        def: &ConfigDef,
        pairs: &[(&str, &str)],
    ) -> BTreeMap<String, (Option<String>, Vec<String>)> {
        let props = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        def.validate(&props)
            .into_iter()
            .map(|r| (r.name, (r.value, r.errors)))
            .collect()
    }

    #[test]
    fn a_source_config_without_its_source_alias_names_that_key() {
        let r = report(&source_config_def(), &[]);
        assert!(
            !r["source.cluster.alias"].1.is_empty(),
            "{:?}",
            r["source.cluster.alias"]
        );
        assert_eq!(r["offset.lag.max"].0.as_deref(), Some("100"));
        assert_eq!(r["replication.factor"].0.as_deref(), Some("2"));
        assert!(r["topics"].1.is_empty());
    }

    #[test]
    fn the_offset_syncs_location_is_source_or_target() {
        let bad = report(
            &source_config_def(),
            &[
                ("source.cluster.alias", "A"),
                (OFFSET_SYNCS_TOPIC_LOCATION, "middle"),
            ],
        );
        assert!(!bad[OFFSET_SYNCS_TOPIC_LOCATION].1.is_empty());
        let good = report(
            &checkpoint_config_def(),
            &[
                ("source.cluster.alias", "A"),
                (OFFSET_SYNCS_TOPIC_LOCATION, "target"),
            ],
        );
        assert!(good[OFFSET_SYNCS_TOPIC_LOCATION].1.is_empty());
        assert_eq!(
            good["sync.group.offsets.enabled"].0.as_deref(),
            Some("false")
        );
        let heartbeat = report(&heartbeat_config_def(), &[("source.cluster.alias", "A")]);
        assert_eq!(
            heartbeat["emit.heartbeats.interval.seconds"].0.as_deref(),
            Some("1")
        );
    }

    #[test]
    fn metric_names_formats_take_legacy_and_new_as_java_s_valid_list_does() {
        let errors = |value: &str| {
            let r = report(
                &checkpoint_config_def(),
                &[
                    ("source.cluster.alias", "A"),
                    ("metric.names.formats", value),
                ],
            );
            r["metric.names.formats"].1.clone()
        };
        assert!(errors("legacy,new").is_empty());
        assert!(errors("new").is_empty());
        // Java's messages, from Kafka 4.4's ConfigDef.ValidList.in(false, "legacy", "new").
        assert_eq!(
            errors("new,bogus"),
            ["Invalid value bogus for configuration metric.names.formats: String must be one of: legacy, new"]
        );
        assert_eq!(
            errors(""),
            ["Configuration 'metric.names.formats' must not be empty. Valid values include: [legacy, new]"]
        );
        let source = report(&source_config_def(), &[("source.cluster.alias", "A")]);
        assert_eq!(source["metric.names.formats"].0.as_deref(), Some("legacy"));
    }

    /// Every key Java's connectors define beyond Connect's own, with its type and default:
    /// the table was listed from Kafka 4.4's `MirrorSourceConnector.config()` and its two
    /// siblings (connector, name, type, default as `ConfigDef.convertToString` gives it).
    #[test]
    fn the_connectors_define_every_key_of_java_s_with_its_type_and_default() {
        let table = include_str!("../tests/fixtures/java-4.4-connector-keys.tsv");
        let defs = [
            ("source", source_config_def()),
            ("checkpoint", checkpoint_config_def()),
            ("heartbeat", heartbeat_config_def()),
        ];
        let mut wrong = Vec::new();
        for line in table.lines() {
            let f: Vec<&str> = line.split('\t').collect();
            let (connector, name, ty, default) =
                (f[0], f[1], f[2], f.get(3).copied().unwrap_or(""));
            let def = &defs.iter().find(|(c, _)| *c == connector).unwrap().1;
            let Some(key) = def.keys().find(|k| k.name == name) else {
                wrong.push(format!("{connector}: {name} missing"));
                continue;
            };
            let ours = match &key.default {
                DefaultValue::Required => "<required>".to_owned(),
                DefaultValue::Null => "<null>".to_owned(),
                DefaultValue::Value(v) => v.clone(),
            };
            if key.ty.java_name() != ty || ours != default {
                wrong.push(format!(
                    "{connector}: {name} is {} {ours:?}, Java's {ty} {default:?}",
                    key.ty.java_name()
                ));
            }
        }
        for (connector, def) in &defs {
            let java: Vec<&str> = table
                .lines()
                .filter(|l| l.starts_with(&format!("{connector}\t")))
                .filter_map(|l| l.split('\t').nth(1))
                .collect();
            for key in def.keys().filter(|k| !java.contains(&k.name.as_str())) {
                wrong.push(format!("{connector}: {} is not Java's", key.name));
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }
}
