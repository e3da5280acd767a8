//! `org.apache.kafka.connect.mirror.MirrorCheckpointConnector`: creates the checkpoints topic
//! on the target, finds the source cluster's consumer groups worth checkpointing (those the
//! group filter takes that have an offset of a topic the topic filter takes), notices new and
//! gone groups, and spreads the groups over its tasks in contiguous chunks.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use ferry_api::config::{ConfigDef, KeyReport};
use ferry_api::connector::{Connector, ConnectorContext, SourceConnector};
use ferry_api::task::SourceTask;
use ferry_api::{ConfigMap, ConnectError};
use ferry_kafka::admin::Admin;
use ferry_kafka::rdkafka::ClientConfig;

use crate::client_configs::{Client, Cluster};
use crate::clients::{admin, kafka_config};
use crate::config::{checkpoint_config_def, EMIT_OFFSET_SYNCS_ENABLED};
use crate::replication_policy::{from_config, SOURCE_CLUSTER_ALIAS};
use crate::schedule::{seconds, Repeating, Scheduler};
use crate::source_connector::{bool_of, create_compacted_topic, enabled, number_of};
use crate::task_assignment::{checkpoint_task_groups, TASK_ASSIGNED_GROUPS};
use crate::topic_filter::NameFilter;

pub const CLASS_NAME: &str = "org.apache.kafka.connect.mirror.MirrorCheckpointConnector";
pub const TASK_CLASS_NAME: &str = "org.apache.kafka.connect.mirror.MirrorCheckpointTask";

/// The groups to checkpoint, sorted; `None` until the first look at the source cluster.
type KnownGroups = Arc<Mutex<Option<Vec<String>>>>;

struct Work {
    context: Arc<dyn ConnectorContext>,
    groups: KnownGroups,
    group_filter: NameFilter,
    topic_filter: NameFilter,
    source_admin: Admin,
    /// The source admin's settings, for the group calls librdkafka makes on a consumer handle.
    source: ClientConfig,
    target_admin: Admin,
    checkpoints_topic: String,
    replication_factor: i32,
    timeout: Duration,
}

impl Work {
    /// Java's `findConsumerGroups`.
    fn find_groups(&self) -> Option<Vec<String>> {
        let listed = match ferry_kafka::group_admin::list_groups(&self.source, None, self.timeout) {
            Ok(l) => l,
            Err(error) => {
                tracing::warn!(%error, "Could not list the source cluster's consumer groups");
                return None;
            }
        };
        let partitions: Vec<(String, i32)> = match self.source_admin.list_topics(self.timeout) {
            Ok(topics) => topics
                .into_iter()
                .filter(|(t, _)| self.topic_filter.accepts(t))
                .flat_map(|(t, n)| (0..n).map(move |p| (t.clone(), p as i32)))
                .collect(),
            Err(error) => {
                tracing::warn!(%error, "Could not list the source cluster's topics");
                return None;
            }
        };
        let mut groups: Vec<String> = listed
            .into_iter()
            .map(|g| g.group)
            .filter(|g| self.group_filter.accepts(g))
            .filter(|g| {
                ferry_kafka::group_admin::committed(&self.source, g, &partitions, self.timeout)
                    .map(|c| !c.is_empty())
                    .unwrap_or_else(|error| {
                        tracing::warn!(group = %g, %error, "Could not read the group's offsets");
                        false
                    })
            })
            .collect();
        groups.sort();
        groups.dedup();
        Some(groups)
    }

    fn startup(&mut self, rt: &tokio::runtime::Runtime) {
        create_compacted_topic(
            rt,
            &self.target_admin,
            &self.checkpoints_topic,
            self.replication_factor,
        );
        if let Some(found) = self.find_groups() {
            *self.groups.lock().unwrap_or_else(|p| p.into_inner()) = Some(found);
        }
    }

    /// Java's `refreshConsumerGroups`.
    fn refresh(&mut self, _rt: &tokio::runtime::Runtime) {
        let Some(found) = self.find_groups() else {
            return;
        };
        let changed = {
            let mut known = self.groups.lock().unwrap_or_else(|p| p.into_inner());
            let changed = known.as_ref() != Some(&found);
            if changed {
                tracing::info!(
                    groups = found.len(),
                    "The consumer groups to checkpoint changed"
                );
                *known = Some(found);
            }
            changed
        };
        if changed {
            self.context.request_task_reconfiguration();
        }
    }
}

#[derive(Default)]
pub struct MirrorCheckpointConnector {
    props: ConfigMap,
    enabled: bool,
    groups: KnownGroups,
    scheduler: Option<Scheduler>,
}

impl Connector for MirrorCheckpointConnector {
    fn version(&self) -> String {
        ferry_api::KAFKA_CONNECT_VERSION.to_owned()
    }

    fn config_def(&self) -> ConfigDef {
        checkpoint_config_def()
    }

    fn validate(&self, props: &ConfigMap) -> Vec<KeyReport> {
        let mut reports = crate::validation::with_policy_and_filters(
            self.config_def().validate(props),
            props,
            false,
        );
        // Java's `MirrorCheckpointConfig.validate`: only for an enabled replication.
        if enabled(props) {
            let mut add =
                |key: &str, message: &str| match reports.iter_mut().find(|r| r.name == key) {
                    Some(r) => r.errors.push(message.to_owned()),
                    None => reports.push(KeyReport {
                        name: key.to_owned(),
                        value: props.get(key).cloned(),
                        recommended_values: Vec::new(),
                        errors: vec![message.to_owned()],
                        visible: true,
                    }),
                };
            if !bool_of(props, "emit.checkpoints.enabled", true) {
                add(
                    "emit.checkpoints.enabled",
                    "MirrorCheckpointConnector can't run with emit.checkpoints.enabled set to false",
                );
            }
            if !bool_of(props, EMIT_OFFSET_SYNCS_ENABLED, true) {
                add(
                    EMIT_OFFSET_SYNCS_ENABLED,
                    "MirrorCheckpointConnector can't run without offset syncs",
                );
            }
        }
        reports
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
        crate::validation::check_classes(props)?;
        let policy = from_config(props).map_err(|e| ConnectError::other(e.to_string()))?;
        let source_alias = props.get(SOURCE_CLUSTER_ALIAS).cloned().unwrap_or_default();
        let filter_error = |e: crate::topic_filter::FilterError| ConnectError::other(e.to_string());
        let work = Work {
            context,
            groups: self.groups.clone(),
            group_filter: NameFilter::groups(props).map_err(filter_error)?,
            topic_filter: NameFilter::topics(props).map_err(filter_error)?,
            source_admin: admin(props, Cluster::Source, "checkpoint-source-admin")?,
            source: kafka_config(
                props,
                Cluster::Source,
                Client::Admin,
                "checkpoint-source-admin",
                false,
            )?,
            target_admin: admin(props, Cluster::Target, "checkpoint-target-admin")?,
            checkpoints_topic: policy.checkpoints_topic(&source_alias),
            replication_factor: number_of(props, "checkpoints.topic.replication.factor", 3) as i32,
            timeout: Duration::from_millis(
                u64::try_from(number_of(props, "admin.timeout.ms", 60_000)).unwrap_or(60_000),
            ),
        };
        let timeout = work.timeout;
        let mut jobs = Vec::new();
        if bool_of(props, "refresh.groups.enabled", true) {
            if let Some(every) = seconds(number_of(props, "refresh.groups.interval.seconds", 600)) {
                jobs.push(Repeating {
                    name: "refreshing consumer groups",
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
        if !self.enabled
            || !bool_of(&self.props, "emit.checkpoints.enabled", true)
            || number_of(&self.props, "emit.checkpoints.interval.seconds", 60) < 0
        {
            return Ok(Vec::new());
        }
        let known = self.groups.lock().unwrap_or_else(|p| p.into_inner());
        let Some(groups) = known.as_ref() else {
            return Err(ConnectError::retriable(
                "Timeout while loading consumer groups.",
            ));
        };
        Ok(crate::task_assignment::task_configs(
            &self.props,
            TASK_ASSIGNED_GROUPS,
            checkpoint_task_groups(groups, max_tasks),
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

impl SourceConnector for MirrorCheckpointConnector {
    fn create_task(&self) -> Box<dyn SourceTask> {
        Box::<crate::checkpoint_task::MirrorCheckpointTask>::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task_assignment::TASK_INDEX;
    use crate::test_support::props;

    fn errors(reports: &[KeyReport], key: &str) -> Vec<String> {
        reports
            .iter()
            .find(|r| r.name == key)
            .map(|r| r.errors.clone())
            .unwrap_or_default()
    }

    #[test]
    fn validation_names_checkpoints_or_offset_syncs_switched_off_as_java_does() {
        let connector = MirrorCheckpointConnector::default();
        let off = props(&[
            ("source.cluster.alias", "A"),
            ("emit.checkpoints.enabled", "false"),
            ("emit.offset-syncs.enabled", "false"),
        ]);
        let reports = connector.validate(&off);
        assert_eq!(
            errors(&reports, "emit.checkpoints.enabled"),
            vec!["MirrorCheckpointConnector can't run with emit.checkpoints.enabled set to false"]
        );
        assert_eq!(
            errors(&reports, "emit.offset-syncs.enabled"),
            vec!["MirrorCheckpointConnector can't run without offset syncs"]
        );
        let mut disabled = off.clone();
        disabled.insert("enabled".into(), "false".into());
        let reports = connector.validate(&disabled);
        assert!(errors(&reports, "emit.checkpoints.enabled").is_empty());
        let bad_policy = props(&[
            ("source.cluster.alias", "A"),
            ("replication.policy.class", "com.example.Policy"),
        ]);
        assert_eq!(
            errors(&connector.validate(&bad_policy), "replication.policy.class").len(),
            1
        );
    }

    #[test]
    fn task_configs_wait_for_the_groups_then_chunk_them() {
        let mut connector = MirrorCheckpointConnector {
            props: props(&[("name", "cp"), ("source.cluster.alias", "A")]),
            enabled: true,
            ..Default::default()
        };
        let early = connector.task_configs(2).unwrap_err();
        assert!(early.is_retriable(), "{early}");
        assert_eq!(early.to_string(), "Timeout while loading consumer groups.");
        *connector.groups.lock().unwrap() = Some(vec!["a".into(), "b".into(), "c".into()]);
        let configs = connector.task_configs(2).unwrap();
        let groups: Vec<_> = configs
            .iter()
            .map(|c| c[TASK_ASSIGNED_GROUPS].clone())
            .collect();
        assert_eq!(groups, vec!["a,b", "c"]);
        assert_eq!(configs[1][TASK_INDEX], "1");
        assert_eq!(configs[0]["name"], "cp");
        connector
            .props
            .insert("emit.checkpoints.interval.seconds".into(), "-1".into());
        assert!(connector.task_configs(2).unwrap().is_empty());
        connector.enabled = false;
        assert!(connector.task_configs(2).unwrap().is_empty());
    }
}
