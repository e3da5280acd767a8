//! `org.apache.kafka.connect.mirror.MirrorSourceConnector`: finds the source topics to
//! replicate, creates their remote topics on the target (same partition count, replicated
//! configs) and the offset-syncs topic, keeps configs in sync, notices new topics and
//! partitions, and spreads the source partitions over its tasks.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ferry_api::config::{ConfigDef, KeyReport};
use ferry_api::connector::{Connector, ConnectorContext, ExactlyOnceSupport, SourceConnector};
use ferry_api::task::SourceTask;
use ferry_api::{ConfigMap, ConnectError};
use ferry_kafka::admin::{Admin, TopicSpec};

use crate::client_configs::{
    client_config, Client, Cluster, TARGET_CLUSTER_ALIAS, TARGET_CLUSTER_ALIAS_DEFAULT,
};
use crate::clients::{admin, offset_syncs_cluster, offset_syncs_topic};
use crate::config::{source_config_def, EMIT_OFFSET_SYNCS_ENABLED};
use crate::replication_policy::{from_config, ReplicationPolicy, SOURCE_CLUSTER_ALIAS};
use crate::schedule::{seconds, Repeating, Scheduler};
use crate::task_assignment::{source_task_partitions, TASK_ASSIGNED_PARTITIONS};
use crate::topic_configs;
use crate::topic_filter::{ConfigPropertyFilter, NameFilter};
use crate::topic_selection::TopicSelection;

pub const CLASS_NAME: &str = "org.apache.kafka.connect.mirror.MirrorSourceConnector";
pub const TASK_CLASS_NAME: &str = "org.apache.kafka.connect.mirror.MirrorSourceTask";

/// What the connector knows of both clusters; `task_configs` reads it.
#[derive(Debug, Default)]
struct Known {
    /// Source partitions to replicate, sorted by topic and partition.
    source: Vec<(String, i32)>,
    /// Remote topics of this source on the target, with their partition counts.
    target: BTreeMap<String, usize>,
}

/// The connector's clients and settings, owned by its scheduler thread.
struct Work {
    context: Arc<dyn ConnectorContext>,
    known: Arc<Mutex<Known>>,
    policy: Box<dyn ReplicationPolicy>,
    source_alias: String,
    target_alias: String,
    topics: NameFilter,
    properties: ConfigPropertyFilter,
    heartbeats_replication: bool,
    replication_factor: i32,
    source_admin: Admin,
    target_admin: Admin,
    /// With the offset-syncs topic's name and replication factor, when syncs are emitted.
    offset_syncs: Option<(Admin, String, i32)>,
    timeout: Duration,
}

#[derive(Default)]
pub struct MirrorSourceConnector {
    props: ConfigMap,
    enabled: bool,
    known: Arc<Mutex<Known>>,
    scheduler: Option<Scheduler>,
}

pub(crate) fn bool_of(props: &ConfigMap, key: &str, default: bool) -> bool {
    props
        .get(key)
        .map_or(default, |v| v.trim().eq_ignore_ascii_case("true"))
}

pub(crate) fn number_of(props: &ConfigMap, key: &str, default: i64) -> i64 {
    props
        .get(key)
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

pub(crate) fn enabled(props: &ConfigMap) -> bool {
    bool_of(props, "enabled", true)
}

impl Work {
    fn selection(&self) -> TopicSelection<'_> {
        TopicSelection {
            policy: self.policy.as_ref(),
            filter: &self.topics,
            heartbeats_replication_enabled: self.heartbeats_replication,
            target_alias: &self.target_alias,
        }
    }

    fn source_partitions(&self) -> Option<Vec<(String, i32)>> {
        let topics = match self.source_admin.list_topics(self.timeout) {
            Ok(t) => t,
            Err(error) => {
                tracing::warn!(%error, "Could not list the source cluster's topics");
                return None;
            }
        };
        let selection = self.selection();
        let counts: BTreeMap<String, usize> = topics
            .into_iter()
            .filter(|(t, _)| selection.replicates(t))
            .collect();
        Some(
            counts
                .iter()
                .flat_map(|(t, n)| (0..*n).map(move |p| (t.clone(), p as i32)))
                .collect(),
        )
    }

    fn target_topics(&self) -> Option<BTreeMap<String, usize>> {
        let topics = match self.target_admin.list_topics(self.timeout) {
            Ok(t) => t,
            Err(error) => {
                tracing::warn!(%error, "Could not list the target cluster's topics");
                return None;
            }
        };
        let checkpoints = self.policy.checkpoints_topic(&self.source_alias);
        Some(
            topics
                .into_iter()
                .filter(|(t, _)| {
                    self.policy.topic_source(t).as_deref() == Some(self.source_alias.as_str())
                        && *t != checkpoints
                })
                .collect(),
        )
    }

    fn create_offset_syncs_topic(&mut self, rt: &tokio::runtime::Runtime) {
        let Some((admin, topic, replication_factor)) = &self.offset_syncs else {
            return;
        };
        create_compacted_topic(rt, admin, topic, *replication_factor);
    }

    /// Java's `loadTopicPartitions` then `computeAndCreateTopicPartitions` and
    /// `refreshKnownTargetTopics`.
    fn startup(&mut self, rt: &tokio::runtime::Runtime) {
        self.create_offset_syncs_topic(rt);
        if let (Some(source), Some(target)) = (self.source_partitions(), self.target_topics()) {
            let mut known = self.known.lock().unwrap_or_else(|p| p.into_inner());
            known.source = source;
            known.target = target;
        }
        self.create_topics_and_partitions(rt);
        if let Some(target) = self.target_topics() {
            self.known.lock().unwrap_or_else(|p| p.into_inner()).target = target;
        }
    }

    fn create_topics_and_partitions(&self, rt: &tokio::runtime::Runtime) {
        let (source, target) = {
            let known = self.known.lock().unwrap_or_else(|p| p.into_inner());
            (known.source.clone(), known.target.clone())
        };
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        for (topic, _) in &source {
            *counts.entry(topic.clone()).or_default() += 1;
        }
        let mut new_topics = Vec::new();
        for (topic, count) in &counts {
            let remote = self.policy.format_remote_topic(&self.source_alias, topic);
            match target.get(&remote) {
                None => new_topics.push((topic.clone(), remote, *count)),
                Some(target_count) if count > target_count => {
                    match rt.block_on(self.target_admin.create_partitions(&remote, *count)) {
                        Ok(_) => tracing::info!(
                            topic = %remote,
                            partitions = count,
                            "Increased the remote topic's partition count"
                        ),
                        Err(error) => {
                            tracing::warn!(topic = %remote, %error, "Could not add partitions")
                        }
                    }
                }
                Some(_) => {}
            }
        }
        if new_topics.is_empty() {
            return;
        }
        let names: Vec<String> = new_topics.iter().map(|(t, _, _)| t.clone()).collect();
        let configs: BTreeMap<String, Vec<(String, String)>> = match rt
            .block_on(self.source_admin.describe_topic_configs(&names))
        {
            Ok(described) => described
                .into_iter()
                .map(|(t, entries)| (t, topic_configs::for_new_topic(&entries, &self.properties)))
                .collect(),
            Err(error) => {
                tracing::warn!(%error, "Could not read the source topics' configs");
                BTreeMap::new()
            }
        };
        for (topic, remote, partitions) in new_topics {
            let spec = TopicSpec {
                name: remote.clone(),
                partitions: i32::try_from(partitions).unwrap_or(i32::MAX),
                replication_factor: self.replication_factor,
                configs: configs.get(&topic).cloned().unwrap_or_default(),
            };
            match rt.block_on(self.target_admin.create_topic(&spec)) {
                Ok(_) => tracing::info!(
                    topic = %remote,
                    partitions,
                    "Created remote topic {remote} with {partitions} partitions."
                ),
                Err(error) => {
                    tracing::warn!(topic = %remote, %error, "Could not create topic {remote}.")
                }
            }
        }
    }

    /// Java's `refreshTopicPartitions`.
    fn refresh(&mut self, rt: &tokio::runtime::Runtime) {
        let (Some(source), Some(target)) = (self.source_partitions(), self.target_topics()) else {
            return;
        };
        let upstream: HashSet<(String, i32)> = target
            .iter()
            .filter_map(|(t, n)| Some((self.policy.upstream_topic(t)?, *n)))
            .flat_map(|(t, n)| (0..n).map(move |p| (t.clone(), p as i32)))
            .collect();
        let missing_in_target = source.iter().any(|tp| !upstream.contains(tp));
        let changed = {
            let mut known = self.known.lock().unwrap_or_else(|p| p.into_inner());
            known.target = target;
            let before: BTreeSet<_> = known.source.iter().collect();
            let now: BTreeSet<_> = source.iter().collect();
            let changed = before != now || missing_in_target;
            if changed {
                tracing::info!(
                    before = before.len(),
                    now = now.len(),
                    "Found new or removed source partitions, or remote ones missing"
                );
                known.source = source;
            }
            changed
        };
        if changed {
            self.create_topics_and_partitions(rt);
            if let Some(target) = self.target_topics() {
                self.known.lock().unwrap_or_else(|p| p.into_inner()).target = target;
            }
            self.context.request_task_reconfiguration();
        }
    }

    /// Java's `syncTopicConfigs`: every replicated topic whose remote topic exists.
    fn sync_configs(&mut self, rt: &tokio::runtime::Runtime) {
        let pairs: Vec<(String, String)> = {
            let known = self.known.lock().unwrap_or_else(|p| p.into_inner());
            let topics: BTreeSet<&String> = known.source.iter().map(|(t, _)| t).collect();
            topics
                .into_iter()
                .map(|t| {
                    (
                        t.clone(),
                        self.policy.format_remote_topic(&self.source_alias, t),
                    )
                })
                .filter(|(_, remote)| known.target.contains_key(remote))
                .collect()
        };
        if pairs.is_empty() {
            return;
        }
        let sources: Vec<String> = pairs.iter().map(|(s, _)| s.clone()).collect();
        let remotes: Vec<String> = pairs.iter().map(|(_, r)| r.clone()).collect();
        let described = rt.block_on(async {
            let s = self.source_admin.describe_topic_configs(&sources).await?;
            let t = self.target_admin.describe_topic_configs(&remotes).await?;
            Ok::<_, ferry_kafka::KafkaClientError>((s, t))
        });
        let (source_configs, target_configs) = match described {
            Ok((s, t)) => (
                s.into_iter().collect::<BTreeMap<_, _>>(),
                t.into_iter().collect::<BTreeMap<_, _>>(),
            ),
            Err(error) => {
                tracing::warn!(%error, "Could not read topic configs to sync them");
                return;
            }
        };
        for (source, remote) in pairs {
            let (Some(s), Some(t)) = (source_configs.get(&source), target_configs.get(&remote))
            else {
                continue;
            };
            let Some(wanted) = topic_configs::synced(s, t, &self.properties) else {
                continue;
            };
            match rt.block_on(self.target_admin.set_topic_configs(&remote, &wanted)) {
                Ok(()) => tracing::debug!(topic = %remote, "Synced the remote topic's configs"),
                Err(error) => {
                    tracing::warn!(topic = %remote, %error, "Could not sync the remote topic's configs")
                }
            }
        }
    }
}

/// A one-partition compacted topic, as Java's `MirrorUtils.createSinglePartitionCompactedTopic`;
/// failures are logged (Java's scheduler logs them too).
pub(crate) fn create_compacted_topic(
    rt: &tokio::runtime::Runtime,
    admin: &Admin,
    topic: &str,
    replication_factor: i32,
) {
    let spec = TopicSpec {
        name: topic.to_owned(),
        partitions: 1,
        replication_factor,
        configs: vec![("cleanup.policy".to_owned(), "compact".to_owned())],
    };
    match rt.block_on(admin.create_topic(&spec)) {
        Ok(true) => tracing::info!(topic, "Created the topic"),
        Ok(false) => tracing::debug!(topic, "The topic exists already"),
        Err(error) => tracing::error!(topic, %error, "Could not create the topic"),
    }
}

impl MirrorSourceConnector {
    fn work(
        &self,
        props: &ConfigMap,
        context: Arc<dyn ConnectorContext>,
    ) -> Result<Work, ConnectError> {
        crate::validation::check_classes(props)?;
        let policy = from_config(props).map_err(|e| ConnectError::other(e.to_string()))?;
        let source_alias = props.get(SOURCE_CLUSTER_ALIAS).cloned().unwrap_or_default();
        let target_alias = props
            .get(TARGET_CLUSTER_ALIAS)
            .cloned()
            .unwrap_or_else(|| TARGET_CLUSTER_ALIAS_DEFAULT.to_owned());
        let topics = NameFilter::topics(props).map_err(|e| ConnectError::other(e.to_string()))?;
        let properties =
            ConfigPropertyFilter::new(props).map_err(|e| ConnectError::other(e.to_string()))?;
        let offset_syncs = if bool_of(props, EMIT_OFFSET_SYNCS_ENABLED, true) {
            let (cluster, location) = offset_syncs_cluster(props);
            Some((
                admin(props, cluster, &format!("offset-syncs-{location}-admin"))?,
                offset_syncs_topic(props, policy.as_ref()),
                number_of(props, "offset-syncs.topic.replication.factor", 3) as i32,
            ))
        } else {
            None
        };
        if bool_of(props, "sync.topic.acls.enabled", true) {
            tracing::warn!(
                "sync.topic.acls.enabled=true: Ferry's MirrorSourceConnector does not sync topic \
                 ACLs yet (librdkafka's client has no ACL calls); set it to false, or run Kafka's \
                 connector with ferry.plugin.preference=plugin.path where ACLs must be synced"
            );
        }
        Ok(Work {
            context,
            known: self.known.clone(),
            policy,
            source_alias,
            target_alias,
            topics,
            properties,
            heartbeats_replication: bool_of(props, "heartbeats.replication.enabled", true),
            replication_factor: number_of(props, "replication.factor", 2) as i32,
            source_admin: admin(props, Cluster::Source, "replication-source-admin")?,
            target_admin: admin(props, Cluster::Target, "replication-target-admin")?,
            offset_syncs,
            timeout: Duration::from_millis(
                u64::try_from(number_of(props, "admin.timeout.ms", 60_000)).unwrap_or(60_000),
            ),
        })
    }
}

impl Connector for MirrorSourceConnector {
    fn version(&self) -> String {
        ferry_api::KAFKA_CONNECT_VERSION.to_owned()
    }

    fn config_def(&self) -> ConfigDef {
        source_config_def()
    }

    fn validate(&self, props: &ConfigMap) -> Vec<KeyReport> {
        crate::validation::with_policy_and_filters(self.config_def().validate(props), props, true)
    }

    fn start(
        &mut self,
        props: &ConfigMap,
        context: Arc<dyn ConnectorContext>,
    ) -> ferry_api::error::Result<()> {
        self.props = props.clone();
        self.enabled = enabled(props);
        if !self.enabled {
            return Ok(());
        }
        let work = self.work(props, context)?;
        let timeout = work.timeout;
        let mut jobs = Vec::new();
        if bool_of(props, "sync.topic.configs.enabled", true) {
            if let Some(every) =
                seconds(number_of(props, "sync.topic.configs.interval.seconds", 600))
            {
                jobs.push(Repeating {
                    name: "sync topic configs",
                    first: Duration::ZERO,
                    every,
                    run: Work::sync_configs,
                });
            }
        }
        if bool_of(props, "refresh.topics.enabled", true) {
            if let Some(every) = seconds(number_of(props, "refresh.topics.interval.seconds", 600)) {
                jobs.push(Repeating {
                    name: "refresh topic partitions",
                    first: every,
                    every,
                    run: Work::refresh,
                });
            }
        }
        let label = crate::client_configs::entity_label(props, false);
        self.scheduler = Some(
            Scheduler::start(&label, work, Work::startup, jobs, timeout).map_err(|e| {
                ConnectError::with_source("Could not start the connector's scheduler", e)
            })?,
        );
        Ok(())
    }

    fn task_configs(&self, max_tasks: usize) -> ferry_api::error::Result<Vec<ConfigMap>> {
        let known = self.known.lock().unwrap_or_else(|p| p.into_inner());
        if !self.enabled || known.source.is_empty() || max_tasks == 0 {
            return Ok(Vec::new());
        }
        Ok(crate::task_assignment::task_configs(
            &self.props,
            TASK_ASSIGNED_PARTITIONS,
            source_task_partitions(&known.source, max_tasks),
        ))
    }

    fn stop(&mut self) -> ferry_api::error::Result<()> {
        self.scheduler = None;
        Ok(())
    }

    fn task_class(&self) -> Option<String> {
        Some(TASK_CLASS_NAME.to_owned())
    }
}

impl SourceConnector for MirrorSourceConnector {
    fn create_task(&self) -> Box<dyn SourceTask> {
        Box::<crate::source_task::MirrorSourceTask>::default()
    }

    /// Java's: exactly once only when the source consumer reads committed records.
    fn exactly_once_support(
        &self,
        props: &ConfigMap,
    ) -> ferry_api::error::Result<Option<ExactlyOnceSupport>> {
        let consumer = client_config(props, Cluster::Source, Client::Consumer, None, false);
        let committed = consumer
            .get("isolation.level")
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("read_committed"));
        Ok(Some(if committed {
            ExactlyOnceSupport::Supported
        } else {
            ExactlyOnceSupport::Unsupported
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task_assignment::TASK_INDEX;
    use crate::test_support::props;

    #[test]
    fn tasks_get_the_known_partitions_round_robin_with_every_connector_key() {
        let connector = MirrorSourceConnector {
            props: props(&[
                ("name", "m"),
                ("source.cluster.alias", "A"),
                ("topics", "t.*"),
            ]),
            enabled: true,
            ..Default::default()
        };
        assert!(
            connector.task_configs(3).unwrap().is_empty(),
            "nothing known yet"
        );
        connector.known.lock().unwrap().source =
            vec![("t0".into(), 0), ("t0".into(), 1), ("t1".into(), 0)];
        let configs = connector.task_configs(2).unwrap();
        assert_eq!(configs.len(), 2);
        assert_eq!(configs[0][TASK_ASSIGNED_PARTITIONS], "t0-0,t1-0");
        assert_eq!(configs[1][TASK_ASSIGNED_PARTITIONS], "t0-1");
        assert_eq!(configs[1][TASK_INDEX], "1");
        assert_eq!(configs[0]["topics"], "t.*");
        assert_eq!(connector.task_class().as_deref(), Some(TASK_CLASS_NAME));
    }

    #[test]
    fn exactly_once_only_when_the_source_consumer_reads_committed_records() {
        let connector = MirrorSourceConnector::default();
        let plain = props(&[("source.cluster.alias", "A")]);
        assert_eq!(
            connector.exactly_once_support(&plain).unwrap(),
            Some(ExactlyOnceSupport::Unsupported)
        );
        let committed = props(&[
            ("source.cluster.alias", "A"),
            ("source.consumer.isolation.level", "read_committed"),
        ]);
        assert_eq!(
            connector.exactly_once_support(&committed).unwrap(),
            Some(ExactlyOnceSupport::Supported)
        );
    }
}
