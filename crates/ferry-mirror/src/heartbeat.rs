//! `org.apache.kafka.connect.mirror.MirrorHeartbeatConnector` and its task: one task writes a
//! heartbeat (source alias, target alias, time) to the target cluster's `heartbeats` topic
//! every `emit.heartbeats.interval.seconds`, so replication downstream can be seen alive.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use ferry_api::config::{ConfigDef, KeyReport};
use ferry_api::connector::{Connector, ConnectorContext, SourceConnector};
use ferry_api::record::SourceRecord;
use ferry_api::task::{SourceTask, SourceTaskContext};
use ferry_api::{ConfigMap, ConnectError};

use crate::client_configs::{Cluster, TARGET_CLUSTER_ALIAS, TARGET_CLUSTER_ALIAS_DEFAULT};
use crate::clients::admin;
use crate::config::heartbeat_config_def;
use crate::internal_records::heartbeat_record;
use crate::now_ms;
use crate::records::Heartbeat;
use crate::replication_policy::{from_config, ReplicationPolicy, SOURCE_CLUSTER_ALIAS};
use crate::schedule::Scheduler;
use crate::source_connector::create_compacted_topic;

pub const CLASS_NAME: &str = "org.apache.kafka.connect.mirror.MirrorHeartbeatConnector";
pub const TASK_CLASS_NAME: &str = "org.apache.kafka.connect.mirror.MirrorHeartbeatTask";

fn emits(props: &ConfigMap) -> bool {
    props
        .get("emit.heartbeats.enabled")
        .is_none_or(|v| v.trim().eq_ignore_ascii_case("true"))
}

fn interval(props: &ConfigMap) -> Duration {
    let seconds: i64 = props
        .get("emit.heartbeats.interval.seconds")
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(1);
    Duration::from_secs(u64::try_from(seconds).unwrap_or(0))
}

#[derive(Default)]
pub struct MirrorHeartbeatConnector {
    props: ConfigMap,
    scheduler: Option<Scheduler>,
}

struct Creation {
    admin: ferry_kafka::admin::Admin,
    topic: String,
    replication_factor: i32,
}

impl Creation {
    fn run(&mut self, rt: &tokio::runtime::Runtime) {
        create_compacted_topic(rt, &self.admin, &self.topic, self.replication_factor);
    }
}

impl Connector for MirrorHeartbeatConnector {
    fn version(&self) -> String {
        ferry_api::KAFKA_CONNECT_VERSION.to_owned()
    }

    fn config_def(&self) -> ConfigDef {
        heartbeat_config_def()
    }

    fn validate(&self, props: &ConfigMap) -> Vec<KeyReport> {
        crate::validation::with_policy(self.config_def().validate(props), props)
    }

    /// Java's does not look at `enabled`: heartbeats flow for disabled replications too.
    fn start(
        &mut self,
        props: &ConfigMap,
        _context: Arc<dyn ConnectorContext>,
    ) -> ferry_api::error::Result<()> {
        self.props = props.clone();
        crate::validation::check_classes(props)?;
        let policy = from_config(props).map_err(|e| ConnectError::other(e.to_string()))?;
        let creation = Creation {
            admin: admin(props, Cluster::Target, "heartbeats-target-admin")?,
            topic: policy.heartbeats_topic(),
            replication_factor: props
                .get("heartbeats.topic.replication.factor")
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(3),
        };
        let timeout = Duration::from_millis(
            props
                .get("admin.timeout.ms")
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(60_000),
        );
        let label = crate::client_configs::entity_label(props, false);
        self.scheduler = Some(
            Scheduler::start(&label, creation, Creation::run, Vec::new(), timeout).map_err(
                |e| ConnectError::with_source("Could not start the connector's scheduler", e),
            )?,
        );
        Ok(())
    }

    fn task_configs(&self, max_tasks: usize) -> ferry_api::error::Result<Vec<ConfigMap>> {
        if !emits(&self.props) || max_tasks == 0 {
            return Ok(Vec::new());
        }
        Ok(vec![self.props.clone()])
    }

    fn stop(&mut self) -> ferry_api::error::Result<()> {
        self.scheduler = None;
        Ok(())
    }

    fn task_class(&self) -> Option<String> {
        Some(TASK_CLASS_NAME.to_owned())
    }
}

impl SourceConnector for MirrorHeartbeatConnector {
    fn create_task(&self) -> Box<dyn SourceTask> {
        Box::<MirrorHeartbeatTask>::default()
    }
}

#[derive(Default)]
pub struct MirrorHeartbeatTask {
    policy: Option<Box<dyn ReplicationPolicy>>,
    source_alias: String,
    target_alias: String,
    interval: Duration,
}

#[async_trait]
impl SourceTask for MirrorHeartbeatTask {
    fn version(&self) -> String {
        ferry_api::KAFKA_CONNECT_VERSION.to_owned()
    }

    async fn start(
        &mut self,
        props: &ConfigMap,
        _context: SourceTaskContext,
    ) -> ferry_api::error::Result<()> {
        self.policy = Some(from_config(props).map_err(|e| ConnectError::other(e.to_string()))?);
        self.source_alias = props.get(SOURCE_CLUSTER_ALIAS).cloned().unwrap_or_default();
        self.target_alias = props
            .get(TARGET_CLUSTER_ALIAS)
            .cloned()
            .unwrap_or_else(|| TARGET_CLUSTER_ALIAS_DEFAULT.to_owned());
        self.interval = interval(props);
        Ok(())
    }

    /// One heartbeat after each interval; a stop drops the wait.
    async fn poll(&mut self) -> ferry_api::error::Result<Vec<SourceRecord>> {
        tokio::time::sleep(self.interval).await;
        let Some(policy) = &self.policy else {
            return Ok(Vec::new());
        };
        let heartbeat = Heartbeat {
            source_cluster_alias: self.source_alias.clone(),
            target_cluster_alias: self.target_alias.clone(),
            timestamp: now_ms(),
        };
        let record = heartbeat_record(policy.as_ref(), &heartbeat)
            .map_err(|e| ConnectError::data(e.to_string()))?;
        Ok(vec![record])
    }

    fn needs_commit_record(&self) -> bool {
        false
    }

    async fn stop(&mut self) -> ferry_api::error::Result<()> {
        Ok(())
    }
}
