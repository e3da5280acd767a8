//! Distributed worker configuration (Java's `DistributedConfig`), on top of the common worker
//! settings.

use std::time::Duration;

use ferry_api::config::{
    ConfigDef, ConfigError, ConfigKey, ConfigType, DefaultValue, Importance, Validator,
};
use ferry_api::ConfigMap;
use ferry_runtime::config::worker::{worker_config_def, WorkerConfig};

pub const GROUP_ID: &str = "group.id";
pub const CONFIG_TOPIC: &str = "config.storage.topic";
pub const CONFIG_REPLICATION: &str = "config.storage.replication.factor";
pub const OFFSET_TOPIC: &str = "offset.storage.topic";
pub const OFFSET_PARTITIONS: &str = "offset.storage.partitions";
pub const OFFSET_REPLICATION: &str = "offset.storage.replication.factor";
pub const STATUS_TOPIC: &str = "status.storage.topic";
pub const STATUS_PARTITIONS: &str = "status.storage.partitions";
pub const STATUS_REPLICATION: &str = "status.storage.replication.factor";
pub const SESSION_TIMEOUT_MS: &str = "session.timeout.ms";
pub const HEARTBEAT_INTERVAL_MS: &str = "heartbeat.interval.ms";
pub const REBALANCE_TIMEOUT_MS: &str = "rebalance.timeout.ms";
pub const WORKER_SYNC_TIMEOUT_MS: &str = "worker.sync.timeout.ms";
pub const WORKER_UNSYNC_BACKOFF_MS: &str = "worker.unsync.backoff.ms";
pub const CONNECT_PROTOCOL: &str = "connect.protocol";
pub const SCHEDULED_REBALANCE_MAX_DELAY_MS: &str = "scheduled.rebalance.max.delay.ms";
pub const EXACTLY_ONCE_SOURCE_SUPPORT: &str = "exactly.once.source.support";
pub const KEY_GENERATION_ALGORITHM: &str = "inter.worker.key.generation.algorithm";
pub const KEY_SIZE: &str = "inter.worker.key.size";
pub const KEY_TTL_MS: &str = "inter.worker.key.ttl.ms";
pub const SIGNATURE_ALGORITHM: &str = "inter.worker.signature.algorithm";
pub const VERIFICATION_ALGORITHMS: &str = "inter.worker.verification.algorithms";
pub const REST_ADVERTISED_LISTENER: &str = "rest.advertised.listener";
/// Kafka 4.4: `false` makes a missing internal topic an error instead of creating it.
pub const INTERNAL_TOPICS_CREATION: &str = "internal.topics.automatic.creation.enable";
/// Kafka 4.4: Connect accepts only 0 (synchronous resolution) and warns about other values.
pub const BOOTSTRAP_RESOLVE_TIMEOUT_MS: &str = "bootstrap.resolve.timeout.ms";
/// Kafka 4.4's misrouted-connection check; Ferry's clients do not make it.
pub const METADATA_CLUSTER_CHECK: &str = "metadata.cluster.check.enable";
const CONNECTIONS_MAX_IDLE_MS: &str = "connections.max.idle.ms";

const HMAC_SHA256: &str = "HmacSHA256";

fn key(name: &str, ty: ConfigType, default: DefaultValue, doc: &str) -> ConfigKey {
    ConfigKey::new(name, ty, default, Importance::High, doc)
}

fn value(v: &str) -> DefaultValue {
    DefaultValue::Value(v.to_owned())
}

pub fn distributed_config_def() -> ConfigDef {
    use ConfigType::*;
    worker_config_def()
        .define(key(GROUP_ID, String, DefaultValue::Required, "A unique string that identifies the Connect cluster group this worker belongs to."))
        .define(key(CONFIG_TOPIC, String, DefaultValue::Required, "The name of the Kafka topic where connector configurations are stored"))
        .define(key(CONFIG_REPLICATION, Short, value("3"), "Replication factor used when creating the configuration storage topic"))
        .define(key(OFFSET_TOPIC, String, DefaultValue::Required, "The name of the Kafka topic where source connector offsets are stored"))
        .define(key(OFFSET_PARTITIONS, Int, value("25"), "The number of partitions used when creating the offset storage topic"))
        .define(key(OFFSET_REPLICATION, Short, value("3"), "Replication factor used when creating the offset storage topic"))
        .define(key(STATUS_TOPIC, String, DefaultValue::Required, "The name of the Kafka topic where connector and task status are stored"))
        .define(key(STATUS_PARTITIONS, Int, value("5"), "The number of partitions used when creating the status storage topic"))
        .define(key(STATUS_REPLICATION, Short, value("3"), "Replication factor used when creating the status storage topic"))
        .define(key(SESSION_TIMEOUT_MS, Int, value("10000"), "The timeout used to detect worker failures."))
        .define(key(HEARTBEAT_INTERVAL_MS, Int, value("3000"), "The expected time between heartbeats to the group coordinator."))
        .define(key(REBALANCE_TIMEOUT_MS, Int, value("60000"), "The maximum allowed time for each worker to join the group once a rebalance has begun."))
        .define(key(WORKER_SYNC_TIMEOUT_MS, Int, value("3000"), "How long to wait for a worker to get in sync with the config topic before giving up."))
        .define(key(WORKER_UNSYNC_BACKOFF_MS, Int, value("300000"), "How long to wait before rejoining after failing to get in sync."))
        .define(key(CONNECT_PROTOCOL, String, value("sessioned"), "Compatibility mode for Kafka Connect Protocol").validator(Validator::one_of_ignore_case(&["eager", "compatible", "sessioned"])))
        .define(key(SCHEDULED_REBALANCE_MAX_DELAY_MS, Int, value("300000"), "The maximum delay that is scheduled in order to wait for the return of one or more departed workers before rebalancing and reassigning their connectors and tasks to the group.").validator(Validator::between(0.0, f64::from(i32::MAX))))
        .define(key(EXACTLY_ONCE_SOURCE_SUPPORT, String, value("disabled"), "Whether to enable exactly-once support for source connectors.").validator(Validator::one_of_ignore_case(&["disabled", "preparing", "enabled"])))
        .define(key(KEY_GENERATION_ALGORITHM, String, value(HMAC_SHA256), "The algorithm to use for generating internal request keys."))
        .define(key(KEY_SIZE, Int, DefaultValue::Null, "The size of the key to use for signing internal requests, in bits."))
        .define(key(KEY_TTL_MS, Int, value("3600000"), "The TTL of generated session keys used for internal request validation (in milliseconds)"))
        .define(key(SIGNATURE_ALGORITHM, String, value(HMAC_SHA256), "The algorithm used to sign internal requests"))
        .define(key(VERIFICATION_ALGORITHMS, List, value(HMAC_SHA256), "A list of permitted algorithms for verifying internal requests"))
        .define(key(REST_ADVERTISED_LISTENER, String, DefaultValue::Null, "Sets the advertised listener (HTTP or HTTPS) which will be given to other workers to use."))
        .define(key(INTERNAL_TOPICS_CREATION, Boolean, value("true"), "Whether to automatically create internal topics used by Connect. This includes the offset, config, and status topics, as well as connector-specific offset topics configured via 'offsets.storage.topic' in the source connector configuration."))
        .define(key(BOOTSTRAP_RESOLVE_TIMEOUT_MS, Long, value("0"), "Kafka Connect does not support asynchronous bootstrap resolution; this configuration is ignored and always treated as <code>0</code> (synchronous resolution).").validator(Validator::at_least(0.0)))
        .define(key(METADATA_CLUSTER_CHECK, Boolean, value("true"), "Whether the client should send cluster and node information when connecting to a broker to enable it to check for a misrouted connection."))
        .define(key(CONNECTIONS_MAX_IDLE_MS, Long, value("540000"), "Close idle connections after the number of milliseconds specified by this config."))
}

/// How the worker takes part in the group (`connect.protocol`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProtocolMode {
    Eager,
    Compatible,
    Sessioned,
}

/// An internal topic's creation settings.
#[derive(Debug, Clone)]
pub struct TopicSettings {
    pub name: String,
    pub partitions: i32,
    pub replication_factor: i32,
    /// Other `<prefix>.*` settings, passed as topic configs.
    pub configs: Vec<(String, String)>,
    /// Whether a missing topic is created (`internal.topics.automatic.creation.enable`).
    pub create: bool,
}

#[derive(Debug, Clone)]
pub struct DistributedConfig {
    pub worker: WorkerConfig,
    pub group_id: String,
    pub config_topic: TopicSettings,
    pub offset_topic: TopicSettings,
    pub status_topic: TopicSettings,
    pub session_timeout: Duration,
    pub heartbeat_interval: Duration,
    pub rebalance_timeout: Duration,
    pub worker_sync_timeout: Duration,
    pub worker_unsync_backoff: Duration,
    pub protocol: ProtocolMode,
    pub scheduled_rebalance_max_delay: Duration,
    pub key_ttl: Duration,
    pub key_size_bits: Option<usize>,
    pub verification_algorithms: Vec<String>,
    pub exactly_once: ExactlyOnceSourceSupport,
    /// Path segments between a worker's advertised URL and `connectors/…` in the requests it
    /// sends the leader: a dedicated MirrorMaker's flow (`source`, `target`, KIP-710), whose
    /// nodes serve several flows' internal endpoints on one REST server; empty otherwise.
    pub rest_namespace: Vec<String>,
}

/// `exactly.once.source.support` (KIP-618): `preparing` is the first step of a rolling upgrade
/// of an existing cluster (the leader writes the config topic transactionally, so it can be
/// fenced), `enabled` also runs source tasks exactly once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExactlyOnceSourceSupport {
    Disabled,
    Preparing,
    Enabled,
}

fn millis(v: i64) -> Duration {
    Duration::from_millis(u64::try_from(v).unwrap_or(0))
}

fn topic_settings(
    props: &ConfigMap,
    prefix: &str,
    name: String,
    partitions: i32,
    replication_factor: i32,
    create: bool,
) -> TopicSettings {
    let configs = props
        .iter()
        .filter_map(|(k, v)| {
            let rest = k.strip_prefix(prefix)?;
            match rest {
                "topic" | "partitions" | "replication.factor" => None,
                "cleanup.policy" => {
                    tracing::warn!(
                        "Ignoring '{k}': internal topics are always compacted ('cleanup.policy=compact')"
                    );
                    None
                }
                other => Some((other.to_owned(), v.clone())),
            }
        })
        .collect();
    TopicSettings {
        name,
        partitions,
        replication_factor,
        configs,
        create,
    }
}

impl DistributedConfig {
    pub fn parse(props: &ConfigMap) -> Result<Self, ConfigError> {
        let def = distributed_config_def();
        let worker = WorkerConfig::from_def(&def, props)?;
        let parsed = def.parse(props)?;
        let string =
            |k: &str| -> Result<String, ConfigError> { Ok(parsed.string(k)?.unwrap_or_default()) };
        let int = |k: &str| -> Result<i64, ConfigError> { parsed.int(k).map(i64::from) };
        let i32_of = |k: &str| -> Result<i32, ConfigError> {
            match parsed.short(k) {
                Ok(v) => Ok(i32::from(v)),
                Err(_) => parsed.int(k),
            }
        };
        let protocol = match string(CONNECT_PROTOCOL)?.to_ascii_lowercase().as_str() {
            "eager" => ProtocolMode::Eager,
            "compatible" => ProtocolMode::Compatible,
            _ => ProtocolMode::Sessioned,
        };
        let verification_algorithms = parsed.list(VERIFICATION_ALGORITHMS)?;
        let signature = string(SIGNATURE_ALGORITHM)?;
        if !verification_algorithms.contains(&signature) {
            return Err(ConfigError::invalid_value(
                VERIFICATION_ALGORITHMS,
                &verification_algorithms.join(","),
                &format!("Signature algorithm '{signature}' must be present in the list of permitted algorithms"),
            ));
        }
        for (k, v) in [
            (KEY_GENERATION_ALGORITHM, string(KEY_GENERATION_ALGORITHM)?),
            (SIGNATURE_ALGORITHM, signature),
        ] {
            if v != HMAC_SHA256 {
                return Err(ConfigError::invalid_value(
                    k,
                    &v,
                    "Ferry supports HmacSHA256 only",
                ));
            }
        }
        let exactly_once = match string(EXACTLY_ONCE_SOURCE_SUPPORT)?
            .to_ascii_lowercase()
            .as_str()
        {
            "enabled" => ExactlyOnceSourceSupport::Enabled,
            "preparing" => ExactlyOnceSourceSupport::Preparing,
            _ => ExactlyOnceSourceSupport::Disabled,
        };
        let create = parsed.boolean(INTERNAL_TOPICS_CREATION)?;
        let resolve_timeout = parsed.long(BOOTSTRAP_RESOLVE_TIMEOUT_MS)?;
        if resolve_timeout != 0 {
            tracing::warn!(
                "The value {resolve_timeout} for the {BOOTSTRAP_RESOLVE_TIMEOUT_MS} property will be ignored as Kafka Connect does not support asynchronous bootstrap resolution. The value 0 will be used instead."
            );
        }
        if props.contains_key(METADATA_CLUSTER_CHECK) && parsed.boolean(METADATA_CLUSTER_CHECK)? {
            tracing::warn!(
                "{METADATA_CLUSTER_CHECK}=true has no effect: Ferry's clients do not send the cluster and node ids with which a Kafka 4.4 broker refuses a misrouted connection"
            );
        }
        let max_idle = parsed.long(CONNECTIONS_MAX_IDLE_MS)?;
        let rebalance_timeout = int(REBALANCE_TIMEOUT_MS)?;
        if max_idle >= 0 && max_idle < rebalance_timeout {
            tracing::warn!(
                "Configuration '{CONNECTIONS_MAX_IDLE_MS}' with value '{max_idle}' is lower than configuration '{REBALANCE_TIMEOUT_MS}' with value '{rebalance_timeout}'. This may cause the connection to the group coordinator to be closed during an ongoing rebalance, which can prolong or disrupt group rejoin."
            );
        }
        Ok(DistributedConfig {
            exactly_once,
            rest_namespace: Vec::new(),
            group_id: string(GROUP_ID)?,
            config_topic: topic_settings(
                props,
                "config.storage.",
                string(CONFIG_TOPIC)?,
                1,
                i32_of(CONFIG_REPLICATION)?,
                create,
            ),
            offset_topic: topic_settings(
                props,
                "offset.storage.",
                string(OFFSET_TOPIC)?,
                i32_of(OFFSET_PARTITIONS)?,
                i32_of(OFFSET_REPLICATION)?,
                create,
            ),
            status_topic: topic_settings(
                props,
                "status.storage.",
                string(STATUS_TOPIC)?,
                i32_of(STATUS_PARTITIONS)?,
                i32_of(STATUS_REPLICATION)?,
                create,
            ),
            session_timeout: millis(int(SESSION_TIMEOUT_MS)?),
            heartbeat_interval: millis(int(HEARTBEAT_INTERVAL_MS)?),
            rebalance_timeout: millis(int(REBALANCE_TIMEOUT_MS)?),
            worker_sync_timeout: millis(int(WORKER_SYNC_TIMEOUT_MS)?),
            worker_unsync_backoff: millis(int(WORKER_UNSYNC_BACKOFF_MS)?),
            protocol,
            scheduled_rebalance_max_delay: millis(int(SCHEDULED_REBALANCE_MAX_DELAY_MS)?),
            key_ttl: millis(int(KEY_TTL_MS)?),
            key_size_bits: parsed.get(KEY_SIZE).and_then(|v| match v {
                ferry_api::config::ConfigValue::Int(i) => usize::try_from(*i).ok(),
                _ => None,
            }),
            verification_algorithms,
            worker,
        })
    }

    pub fn warnings(&self) -> Vec<String> {
        self.worker.warnings_for(&distributed_config_def())
    }

    /// `<group.id>-` or `<group.id>-<client.id>-`: the prefix of the internal clients' ids.
    pub fn client_id_base(&self) -> String {
        match self
            .worker
            .originals
            .get("client.id")
            .filter(|c| !c.is_empty())
        {
            Some(client) => format!("{}-{client}-", self.group_id),
            None => format!("{}-", self.group_id),
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

    fn minimal() -> Vec<(&'static str, &'static str)> {
        vec![
            ("bootstrap.servers", "localhost:9092"),
            (
                "key.converter",
                "org.apache.kafka.connect.json.JsonConverter",
            ),
            (
                "value.converter",
                "org.apache.kafka.connect.json.JsonConverter",
            ),
            ("group.id", "connect-cluster"),
            ("config.storage.topic", "connect-configs"),
            ("offset.storage.topic", "connect-offsets"),
            ("status.storage.topic", "connect-status"),
        ]
    }

    #[test]
    fn defaults_match_java() {
        let c = DistributedConfig::parse(&props(&minimal())).unwrap();
        assert_eq!(c.offset_topic.partitions, 25);
        assert_eq!(c.status_topic.partitions, 5);
        assert_eq!(c.config_topic.partitions, 1);
        assert_eq!(c.config_topic.replication_factor, 3);
        assert_eq!(c.session_timeout, Duration::from_secs(10));
        assert_eq!(c.heartbeat_interval, Duration::from_secs(3));
        assert_eq!(c.rebalance_timeout, Duration::from_secs(60));
        assert_eq!(c.scheduled_rebalance_max_delay, Duration::from_secs(300));
        assert_eq!(c.protocol, ProtocolMode::Sessioned);
        assert_eq!(c.key_ttl, Duration::from_secs(3600));
        assert_eq!(c.client_id_base(), "connect-cluster-");
        assert!(c.config_topic.create && c.offset_topic.create && c.status_topic.create);
        assert!(c.warnings().is_empty(), "{:?}", c.warnings());
    }

    #[test]
    fn kafka_4_4_keys() {
        let mut p = minimal();
        p.extend([
            ("internal.topics.automatic.creation.enable", "false"),
            ("bootstrap.resolve.timeout.ms", "100"),
            ("metadata.cluster.check.enable", "false"),
        ]);
        let c = DistributedConfig::parse(&props(&p)).unwrap();
        assert!(!c.config_topic.create && !c.offset_topic.create && !c.status_topic.create);
        assert!(c.warnings().is_empty(), "known keys: {:?}", c.warnings());
        let mut bad = minimal();
        bad.push(("internal.topics.automatic.creation.enable", "sometimes"));
        assert!(DistributedConfig::parse(&props(&bad)).is_err());
    }

    #[test]
    fn missing_required_keys_are_all_named() {
        let err = DistributedConfig::parse(&props(&[("connect.protocol", "chatty")])).unwrap_err();
        let keys: Vec<_> = err.problems.iter().map(|p| p.key.as_str()).collect();
        for k in [
            "bootstrap.servers",
            "group.id",
            "config.storage.topic",
            "offset.storage.topic",
            "status.storage.topic",
            "key.converter",
            "connect.protocol",
        ] {
            assert!(keys.contains(&k), "{k} missing from {keys:?}");
        }
    }

    #[test]
    fn topic_settings_pass_extra_keys_as_topic_configs() {
        let mut p = minimal();
        p.extend([
            ("offset.storage.segment.bytes", "1048576"),
            ("offset.storage.cleanup.policy", "delete"),
            ("connect.protocol", "EAGER"),
            ("client.id", "w1"),
        ]);
        let c = DistributedConfig::parse(&props(&p)).unwrap();
        assert_eq!(
            c.offset_topic.configs,
            vec![("segment.bytes".to_owned(), "1048576".to_owned())]
        );
        assert_eq!(c.protocol, ProtocolMode::Eager);
        assert_eq!(c.client_id_base(), "connect-cluster-w1-");
        assert!(c.warnings().is_empty(), "{:?}", c.warnings());
    }
}
