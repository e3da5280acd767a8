//! The file `connect-mirror-maker.sh` takes (Java's `MirrorMakerConfig`): `clusters`, per-cluster
//! settings `A.x`, per-flow settings `A->B.x`, and from them, for each flow, the distributed
//! worker's config and the three connectors' configs, derived as Java derives them so that a
//! dedicated MirrorMaker of Ferry's and one of Java's share internal topics and groups.

use std::collections::BTreeMap;

use ferry_api::ConfigMap;

use crate::config::{checkpoint_config_def, heartbeat_config_def, source_config_def};

pub const CLUSTERS: &str = "clusters";
pub const ENABLE_INTERNAL_REST: &str = "dedicated.mode.enable.internal.rest";
const BYTE_ARRAY_CONVERTER: &str = "org.apache.kafka.connect.converters.ByteArrayConverter";

/// The three connectors every flow's worker runs, as Java's `MirrorMaker.startConnectors`.
pub const CONNECTOR_CLASSES: [&str; 3] = [
    "org.apache.kafka.connect.mirror.MirrorSourceConnector",
    "org.apache.kafka.connect.mirror.MirrorCheckpointConnector",
    "org.apache.kafka.connect.mirror.MirrorHeartbeatConnector",
];

/// Connect's own connector keys (`ConnectorConfig.configDef()`), which Java's MirrorMaker
/// connector definitions start from: a top-level `tasks.max` reaches every connector.
const CONNECT_CONNECTOR_KEYS: [&str; 19] = [
    "name",
    "connector.class",
    "connector.plugin.version",
    "tasks.max",
    "tasks.max.enforce",
    "key.converter",
    "key.converter.plugin.version",
    "value.converter",
    "value.converter.plugin.version",
    "header.converter",
    "header.converter.plugin.version",
    "transforms",
    "predicates",
    "config.action.reload",
    "errors.retry.timeout",
    "errors.retry.delay.max.ms",
    "errors.tolerance",
    "errors.log.enable",
    "errors.log.include.messages",
];

/// A replication flow, `source->target`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SourceAndTarget {
    pub source: String,
    pub target: String,
}

impl std::fmt::Display for SourceAndTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}->{}", self.source, self.target)
    }
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum MirrorMakerConfigError {
    #[error("Missing required configuration \"clusters\" which has no default value.")]
    NoClusters,
    #[error(
        "Invalid value {value} for configuration {key}: Expected value to be either true or false"
    )]
    NotBoolean { key: String, value: String },
    #[error("--clusters names {0}, which is not in clusters")]
    UnknownCluster(String),
}

pub struct MirrorMakerConfig {
    raw: ConfigMap,
    clusters: Vec<String>,
    internal_rest: bool,
}

fn parse_bool(raw: &ConfigMap, key: &str, default: bool) -> Result<bool, MirrorMakerConfigError> {
    match raw.get(key).map(|v| v.trim().to_ascii_lowercase()) {
        None => Ok(default),
        Some(v) if v == "true" => Ok(true),
        Some(v) if v == "false" => Ok(false),
        Some(_) => Err(MirrorMakerConfigError::NotBoolean {
            key: key.to_owned(),
            value: raw[key].clone(),
        }),
    }
}

/// Java's `MirrorClientConfig.CLIENT_CONFIG_DEF`: the connection, its SSL and SASL settings.
fn is_client_key(key: &str) -> bool {
    key == "bootstrap.servers"
        || key == "security.protocol"
        || key.starts_with("ssl.")
        || key.starts_with("sasl.")
}

fn is_client_prefixed(key: &str) -> bool {
    key.starts_with("consumer") || key.starts_with("producer") || key.starts_with("admin")
}

impl MirrorMakerConfig {
    pub fn new(raw: ConfigMap) -> Result<Self, MirrorMakerConfigError> {
        let clusters: Vec<String> = raw
            .get(CLUSTERS)
            .ok_or(MirrorMakerConfigError::NoClusters)?
            .split(',')
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .map(str::to_owned)
            .fold(Vec::new(), |mut seen, c| {
                if !seen.contains(&c) {
                    seen.push(c);
                }
                seen
            });
        let internal_rest = parse_bool(&raw, ENABLE_INTERNAL_REST, false)?;
        Ok(MirrorMakerConfig {
            raw,
            clusters,
            internal_rest,
        })
    }

    /// The file's properties as given (Java's `originals`), which the internal REST server
    /// reads its `listeners` and `rest.advertised.*` from.
    pub fn originals(&self) -> &ConfigMap {
        &self.raw
    }

    pub fn clusters(&self) -> &[String] {
        &self.clusters
    }

    pub fn enable_internal_rest(&self) -> bool {
        self.internal_rest
    }

    /// Java's `clusterPairs`: every ordered pair whose flow is enabled (`A->B.enabled`, false by
    /// default) or emits heartbeats (`emit.heartbeats.enabled`, globally or for the flow, true
    /// by default), since a flow A->B's heartbeats are emitted by the herder of B->A.
    pub fn cluster_pairs(&self) -> Vec<SourceAndTarget> {
        let lenient = |key: &str| {
            self.raw
                .get(key)
                .map(|v| v.trim().eq_ignore_ascii_case("true"))
        };
        let global_heartbeats = lenient("emit.heartbeats.enabled").unwrap_or(true);
        let mut pairs = Vec::new();
        for source in &self.clusters {
            for target in &self.clusters {
                if source == target {
                    continue;
                }
                let prefix = format!("{source}->{target}.");
                let enabled = lenient(&format!("{prefix}enabled")).unwrap_or(false);
                let heartbeats = lenient(&format!("{prefix}emit.heartbeats.enabled"))
                    .unwrap_or(global_heartbeats);
                if enabled || heartbeats {
                    pairs.push(SourceAndTarget {
                        source: source.clone(),
                        target: target.clone(),
                    });
                }
            }
        }
        pairs
    }

    /// The flows this process runs: with `--clusters`, only those into the named clusters.
    pub fn pairs_for(
        &self,
        only_targets: &[String],
    ) -> Result<Vec<SourceAndTarget>, MirrorMakerConfigError> {
        if let Some(unknown) = only_targets.iter().find(|c| !self.clusters.contains(c)) {
            return Err(MirrorMakerConfigError::UnknownCluster(unknown.clone()));
        }
        Ok(self
            .cluster_pairs()
            .into_iter()
            .filter(|p| only_targets.is_empty() || only_targets.contains(&p.target))
            .collect())
    }

    fn with_prefix_stripped(&self, prefix: &str) -> ConfigMap {
        self.raw
            .iter()
            .filter_map(|(k, v)| {
                k.strip_prefix(prefix)
                    .map(|rest| (rest.to_owned(), v.clone()))
            })
            .collect()
    }

    fn with_prefix(&self, prefix: &str) -> ConfigMap {
        self.raw
            .iter()
            .filter(|(k, _)| k.starts_with(prefix))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    /// Java's `clusterProps`: `A.x` stripped of its prefix; each client connection key (from
    /// the cluster, else the top level) also for the producer, consumer and admin.
    pub fn cluster_props(&self, cluster: &str) -> ConfigMap {
        let mut props = self.with_prefix_stripped(&format!("{cluster}."));
        let cluster_level: Vec<(String, String)> = props
            .iter()
            .filter(|(k, _)| is_client_key(k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let top_level: Vec<(String, String)> = self
            .raw
            .iter()
            .filter(|(k, _)| is_client_key(k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        for (k, v) in cluster_level.iter().chain(&top_level) {
            for role in ["producer.", "consumer.", "admin."] {
                props
                    .entry(format!("{role}{k}"))
                    .or_insert_with(|| v.clone());
            }
        }
        for (k, v) in top_level {
            props.entry(k).or_insert(v);
        }
        props
    }

    /// Java's `workerConfig`: the target cluster's settings, the top-level storage, converter,
    /// `task*`, `worker*`, `replication.policy*` and `config.providers*` keys, then the
    /// defaults: `client.id` the flow, `group.id` `<source>-mm2`, the `mm2-offsets.<source>.internal`
    /// (status, configs) topics on the target, ByteArrayConverter.
    pub fn worker_config(&self, flow: &SourceAndTarget) -> ConfigMap {
        let mut props = self.cluster_props(&flow.target);
        for prefix in [
            "offset.storage",
            "config.storage",
            "status.storage",
            "key.converter",
            "value.converter",
            "header.converter",
            "task",
            "worker",
            "replication.policy",
            "config.providers",
        ] {
            props.extend(self.with_prefix(prefix));
        }
        let source = &flow.source;
        let defaults = [
            ("client.id", flow.to_string()),
            ("group.id", format!("{source}-mm2")),
            (
                "offset.storage.topic",
                format!("mm2-offsets.{source}.internal"),
            ),
            (
                "status.storage.topic",
                format!("mm2-status.{source}.internal"),
            ),
            (
                "config.storage.topic",
                format!("mm2-configs.{source}.internal"),
            ),
            ("key.converter", BYTE_ARRAY_CONVERTER.to_owned()),
            ("value.converter", BYTE_ARRAY_CONVERTER.to_owned()),
            ("header.converter", BYTE_ARRAY_CONVERTER.to_owned()),
        ];
        for (k, v) in defaults {
            props.entry(k.to_owned()).or_insert(v);
        }
        props
    }

    /// Every key of the three connectors' definitions (Java's `allConfigNames`).
    fn connector_key_names() -> Vec<String> {
        let mut names: Vec<String> = CONNECT_CONNECTOR_KEYS
            .iter()
            .map(|k| (*k).to_owned())
            .collect();
        for def in [
            source_config_def(),
            checkpoint_config_def(),
            heartbeat_config_def(),
        ] {
            names.extend(def.keys().map(|k| k.name.clone()));
        }
        names
    }

    /// Java's `connectorBaseConfig`: the top-level connector keys, `config.providers*` and
    /// `replication.policy*`; the source's and target's settings under `source.cluster.` and
    /// `target.cluster.` (client-prefixed ones under `source.`/`target.`); the name (the class's
    /// simple name), class and aliases; the flow's own `A->B.x` settings over all of it; and
    /// `enabled` false unless the flow says otherwise.
    pub fn connector_config(&self, flow: &SourceAndTarget, class: &str) -> ConfigMap {
        let names = Self::connector_key_names();
        let mut props: ConfigMap = self
            .raw
            .iter()
            .filter(|(k, _)| names.iter().any(|n| n == *k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        props.extend(self.with_prefix("config.providers"));
        props.extend(self.with_prefix("replication.policy"));
        for (cluster, alias) in [("source", &flow.source), ("target", &flow.target)] {
            for (k, v) in self.cluster_props(alias) {
                let key = if is_client_prefixed(&k) {
                    format!("{cluster}.{k}")
                } else {
                    format!("{cluster}.cluster.{k}")
                };
                props.insert(key, v);
            }
        }
        let simple = class.rsplit('.').next().unwrap_or(class);
        for (k, v) in [
            ("name", simple),
            ("connector.class", class),
            ("source.cluster.alias", &flow.source),
            ("target.cluster.alias", &flow.target),
        ] {
            props.entry(k.to_owned()).or_insert_with(|| v.to_owned());
        }
        props.extend(self.with_prefix_stripped(&format!("{flow}.")));
        props
            .entry("enabled".to_owned())
            .or_insert_with(|| "false".to_owned());
        props
    }

    /// The three connectors of a flow, by name.
    pub fn connector_configs(&self, flow: &SourceAndTarget) -> BTreeMap<String, ConfigMap> {
        CONNECTOR_CLASSES
            .iter()
            .map(|class| {
                let config = self.connector_config(flow, class);
                (config["name"].clone(), config)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(pairs: &[(&str, &str)]) -> MirrorMakerConfig {
        MirrorMakerConfig::new(
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
        )
        .unwrap()
    }

    fn flow(s: &str, t: &str) -> SourceAndTarget {
        SourceAndTarget {
            source: s.into(),
            target: t.into(),
        }
    }

    // After Kafka's MirrorMakerConfigTest.

    #[test]
    fn cluster_settings_reach_the_clients_and_top_level_ones_fill_in() {
        let c = config(&[
            ("clusters", "a, b"),
            ("a.bootstrap.servers", "servers-one"),
            ("b.bootstrap.servers", "servers-two"),
            ("security.protocol", "SSL"),
            ("replication.factor", "4"),
        ]);
        let a = c.cluster_props("a");
        assert_eq!(a["bootstrap.servers"], "servers-one");
        assert_eq!(a["consumer.bootstrap.servers"], "servers-one");
        assert_eq!(a["producer.bootstrap.servers"], "servers-one");
        assert_eq!(a["admin.bootstrap.servers"], "servers-one");
        assert_eq!(a["security.protocol"], "SSL");
        assert_eq!(a["consumer.security.protocol"], "SSL");
        assert!(!a.contains_key("replication.factor"), "not a client key");
    }

    #[test]
    fn a_flow_s_connectors_get_both_clusters_and_the_flow_s_own_settings() {
        let c = config(&[
            ("clusters", "a, b"),
            ("a.bootstrap.servers", "servers-one"),
            ("b.bootstrap.servers", "servers-two"),
            ("a.consumer.max.poll.records", "10"),
            ("b.producer.linger.ms", "7"),
            ("tasks.max", "3"),
            ("replication.factor", "4"),
            ("not.a.connector.key", "x"),
            ("a->b.enabled", "true"),
            ("a->b.topics", "orders.*"),
            ("b->a.topics", "other"),
            ("replication.policy.separator", "_"),
        ]);
        let source = c.connector_config(&flow("a", "b"), CONNECTOR_CLASSES[0]);
        assert_eq!(source["name"], "MirrorSourceConnector");
        assert_eq!(source["connector.class"], CONNECTOR_CLASSES[0]);
        assert_eq!(source["source.cluster.alias"], "a");
        assert_eq!(source["target.cluster.alias"], "b");
        assert_eq!(source["source.cluster.bootstrap.servers"], "servers-one");
        assert_eq!(source["target.cluster.bootstrap.servers"], "servers-two");
        assert_eq!(source["source.consumer.max.poll.records"], "10");
        assert_eq!(source["source.consumer.bootstrap.servers"], "servers-one");
        assert_eq!(source["target.producer.linger.ms"], "7");
        assert_eq!(source["tasks.max"], "3");
        assert_eq!(source["replication.factor"], "4");
        assert_eq!(source["replication.policy.separator"], "_");
        assert_eq!(source["topics"], "orders.*");
        assert_eq!(source["enabled"], "true");
        assert!(!source.contains_key("not.a.connector.key"));
        assert!(!source.contains_key("a->b.topics"));
        // The reverse flow is disabled unless enabled: its connectors still exist.
        let back = c.connector_config(&flow("b", "a"), CONNECTOR_CLASSES[0]);
        assert_eq!(back["enabled"], "false");
        assert_eq!(back["topics"], "other");
    }

    #[test]
    fn a_flow_s_worker_lives_on_the_target_with_internal_topics_named_after_the_source() {
        let c = config(&[
            ("clusters", "a, b"),
            ("a.bootstrap.servers", "servers-one"),
            ("b.bootstrap.servers", "servers-two"),
            ("b.security.protocol", "SASL_SSL"),
            ("offset.storage.replication.factor", "1"),
            ("config.providers", "file"),
            (
                "config.providers.file.class",
                "org.apache.kafka.common.config.provider.FileConfigProvider",
            ),
            ("topics", "not-a-worker-key"),
        ]);
        let w = c.worker_config(&flow("a", "b"));
        assert_eq!(w["bootstrap.servers"], "servers-two");
        assert_eq!(w["security.protocol"], "SASL_SSL");
        assert_eq!(w["client.id"], "a->b");
        assert_eq!(w["group.id"], "a-mm2");
        assert_eq!(w["offset.storage.topic"], "mm2-offsets.a.internal");
        assert_eq!(w["status.storage.topic"], "mm2-status.a.internal");
        assert_eq!(w["config.storage.topic"], "mm2-configs.a.internal");
        assert_eq!(w["offset.storage.replication.factor"], "1");
        assert_eq!(w["key.converter"], BYTE_ARRAY_CONVERTER);
        assert_eq!(w["header.converter"], BYTE_ARRAY_CONVERTER);
        assert_eq!(w["config.providers"], "file");
        assert!(!w.contains_key("topics"));
    }

    #[test]
    fn flows_run_when_enabled_or_emitting_heartbeats_and_clusters_filters_by_target() {
        let c = config(&[("clusters", "a, b, c"), ("a->b.enabled", "true")]);
        // Heartbeats are on by default: every pair gets a herder.
        assert_eq!(c.cluster_pairs().len(), 6);
        let c = config(&[
            ("clusters", "a, b, c"),
            ("a->b.enabled", "true"),
            ("emit.heartbeats.enabled", "false"),
            ("b->c.emit.heartbeats.enabled", "true"),
        ]);
        assert_eq!(c.cluster_pairs(), vec![flow("a", "b"), flow("b", "c")]);
        assert_eq!(c.pairs_for(&["c".into()]).unwrap(), vec![flow("b", "c")]);
        assert_eq!(
            c.pairs_for(&["d".into()]),
            Err(MirrorMakerConfigError::UnknownCluster("d".into()))
        );
    }

    #[test]
    fn a_file_without_clusters_is_refused() {
        assert_eq!(
            MirrorMakerConfig::new(ConfigMap::new()).err(),
            Some(MirrorMakerConfigError::NoClusters)
        );
    }
}
