//! `org.apache.kafka.connect.mirror.MirrorCheckpointTask`: for its consumer groups, translates
//! each group's committed upstream offsets through the offset syncs and emits checkpoints to
//! `<source>.checkpoints.internal` on the target every `emit.checkpoints.interval.seconds`;
//! with `sync.group.offsets.enabled`, also writes the translated offsets into each group on the
//! target while it has no active members there, never moving one backwards.
//!
//! At start, as Java's, it loads its groups' last checkpoints from the checkpoints topic and
//! then reads the offset-syncs topic to its end (keeping only the newest syncs when the
//! checkpoints could not be loaded); it emits nothing before both are done.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use ferry_api::data::Value;
use ferry_api::record::{RecordMetadata, SourceRecord};
use ferry_api::task::{SourceTask, SourceTaskContext};
use ferry_api::{ConfigMap, ConnectError};
use ferry_kafka::admin::Admin;
use ferry_kafka::group_admin::{self, CommittedOffset};
use ferry_kafka::rdkafka::ClientConfig;
use ferry_kafka::topic_log::{LogRecord, TopicLog};

use crate::checkpoints::{offsets_to_sync, Committed, GroupCheckpoints, Partition};
use crate::client_configs::{Client, Cluster, TARGET_CLUSTER_ALIAS, TARGET_CLUSTER_ALIAS_DEFAULT};
use crate::clients::{admin, kafka_config, kafka_error, offset_syncs_cluster, offset_syncs_topic};
use crate::internal_records::checkpoint_record;
use crate::metrics::{checkpoint_latency, MirrorMetrics, Sensors};
use crate::now_ms;
use crate::offset_sync_store::OffsetSyncStore;
use crate::records::{Checkpoint, OffsetSync};
use crate::replication_policy::{from_config, ReplicationPolicy, SOURCE_CLUSTER_ALIAS};
use crate::source_connector::{bool_of, number_of};
use crate::task_assignment::TASK_ASSIGNED_GROUPS;
use crate::topic_filter::NameFilter;

const CALL_TIMEOUT: Duration = Duration::from_secs(30);
/// How long the start-up reads of the checkpoints and offset-syncs topics may take.
const READ_TIMEOUT: Duration = Duration::from_secs(120);

/// The last checkpoint of each downstream partition, per group.
type CheckpointStore = BTreeMap<String, BTreeMap<Partition, Checkpoint>>;

/// What the task's calls share with its start-up reader and its group-offset sync.
struct Shared {
    policy: Box<dyn ReplicationPolicy>,
    source_alias: String,
    target_alias: String,
    topics: NameFilter,
    groups: Vec<String>,
    source_admin: Admin,
    /// The source and target admins' settings, for the group calls.
    source: ClientConfig,
    target: ClientConfig,
    syncs: Arc<Mutex<OffsetSyncStore>>,
    /// `None` until the start-up reads are done.
    checkpoints: Mutex<Option<CheckpointStore>>,
    /// Tails the offset-syncs topic once started.
    syncs_log: Mutex<Option<TopicLog>>,
    /// Set by `stop`, so that a start-up still waiting for the offset-syncs topic gives up.
    stopped: AtomicBool,
}

impl Shared {
    /// Java's `CheckpointStore.start`: the latest checkpoint per partition of each of this
    /// task's groups; `None` when the topic could not be read.
    fn load_checkpoints(
        &self,
        consumer: &ClientConfig,
        producer: &ClientConfig,
    ) -> Option<CheckpointStore> {
        let topic = self.policy.checkpoints_topic(&self.source_alias);
        let read: Arc<Mutex<Vec<LogRecord>>> = Arc::default();
        let sink = read.clone();
        let log = TopicLog::start(
            &topic,
            consumer,
            producer,
            Box::new(move |r| sink.lock().unwrap_or_else(|p| p.into_inner()).push(r)),
        );
        let mut log = match log {
            Ok(l) => l,
            Err(error) => {
                tracing::warn!(%topic, %error, "Could not read the checkpoints topic; only the newest offset syncs will be used");
                return None;
            }
        };
        let done = tokio::runtime::Handle::current().block_on(log.read_to_end(READ_TIMEOUT));
        log.stop();
        if let Err(error) = done {
            tracing::warn!(%topic, %error, "Could not read the checkpoints topic to its end");
            return None;
        }
        let mut store = CheckpointStore::new();
        for record in read.lock().unwrap_or_else(|p| p.into_inner()).drain(..) {
            let (Some(key), Some(value)) = (record.key, record.value) else {
                continue;
            };
            match Checkpoint::read(&key, &value) {
                Ok(c) if self.groups.contains(&c.group) => {
                    store
                        .entry(c.group.clone())
                        .or_default()
                        .insert((c.topic.clone(), c.partition), c);
                }
                Ok(_) => {}
                Err(error) => tracing::warn!(%error, "Skipping a checkpoint that cannot be read"),
            }
        }
        Some(store)
    }

    /// The source partitions of the topics the filter takes.
    fn source_partitions(&self) -> Result<Vec<Partition>, ConnectError> {
        Ok(self
            .source_admin
            .list_topics(CALL_TIMEOUT)
            .map_err(|e| kafka_error("Could not list the source cluster's topics", e))?
            .into_iter()
            .filter(|(t, _)| self.topics.accepts(t))
            .flat_map(|(t, n)| (0..n).map(move |p| (t.clone(), p as i32)))
            .collect())
    }

    /// Java's `sourceRecordsForGroup` for every group: the new checkpoints, as records.
    fn checkpoint_records(&self) -> Result<Vec<SourceRecord>, ConnectError> {
        let partitions = self.source_partitions()?;
        let mut records = Vec::new();
        for group in &self.groups {
            let timestamp = now_ms();
            let upstream: BTreeMap<Partition, Option<Committed>> = match group_admin::committed(
                &self.source,
                group,
                &partitions,
                CALL_TIMEOUT,
            ) {
                Ok(c) => c
                    .into_iter()
                    .map(|(tp, o)| {
                        (
                            tp,
                            Some(Committed {
                                offset: o.offset,
                                metadata: o.metadata,
                            }),
                        )
                    })
                    .collect(),
                Err(error) => {
                    tracing::warn!(%group, %error, "Could not read the group's offsets upstream");
                    continue;
                }
            };
            let new = {
                let syncs = self.syncs.lock().unwrap_or_else(|p| p.into_inner());
                let checkpoints = self.checkpoints.lock().unwrap_or_else(|p| p.into_inner());
                let Some(store) = checkpoints.as_ref() else {
                    return Ok(Vec::new());
                };
                GroupCheckpoints {
                    policy: self.policy.as_ref(),
                    topics: &self.topics,
                    syncs: &syncs,
                    source_alias: &self.source_alias,
                    target_alias: &self.target_alias,
                }
                .for_group(
                    group,
                    &upstream,
                    store.get(group).unwrap_or(&BTreeMap::new()),
                )
            };
            let mut checkpoints = self.checkpoints.lock().unwrap_or_else(|p| p.into_inner());
            let store = checkpoints
                .get_or_insert_with(Default::default)
                .entry(group.clone())
                .or_default();
            for checkpoint in new {
                records.push(
                    checkpoint_record(
                        self.policy.as_ref(),
                        &self.source_alias,
                        &checkpoint,
                        timestamp,
                    )
                    .map_err(|e| ConnectError::data(e.to_string()))?,
                );
                store.insert((checkpoint.topic.clone(), checkpoint.partition), checkpoint);
            }
        }
        Ok(records)
    }

    /// Java's `refreshIdleConsumerGroupOffset` then `syncGroupOffset`.
    fn sync_group_offsets(&self) {
        let by_group: CheckpointStore = match self
            .checkpoints
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
        {
            Some(store) => store.clone(),
            None => return,
        };
        for (group, checkpoints) in by_group {
            if checkpoints.is_empty() {
                continue;
            }
            let state = match group_admin::list_groups(&self.target, Some(&group), CALL_TIMEOUT) {
                Ok(l) => l.into_iter().next().map(|g| g.state),
                Err(error) => {
                    tracing::warn!(%group, %error, "Could not describe the group on the target");
                    continue;
                }
            };
            // Only an empty group's offsets are compared; for one that is absent, dead or
            // active all are written (the broker refuses them for an active one).
            let idle: Option<BTreeMap<Partition, Option<i64>>> = if state.as_deref()
                == Some("Empty")
            {
                let partitions: Vec<Partition> = checkpoints.keys().cloned().collect();
                match group_admin::committed(&self.target, &group, &partitions, CALL_TIMEOUT) {
                    Ok(c) => Some(c.into_iter().map(|(tp, o)| (tp, Some(o.offset))).collect()),
                    Err(error) => {
                        tracing::warn!(%group, %error, "Could not read the group's offsets on the target");
                        continue;
                    }
                }
            } else {
                None
            };
            let wanted = offsets_to_sync(&checkpoints, idle.as_ref());
            if wanted.is_empty() {
                continue;
            }
            let offsets: Vec<_> = wanted
                .into_iter()
                .map(|(tp, c)| {
                    (
                        tp,
                        CommittedOffset {
                            offset: c.offset,
                            metadata: c.metadata,
                        },
                    )
                })
                .collect();
            match group_admin::commit(&self.target, &group, &offsets) {
                Ok(()) => {
                    tracing::debug!(%group, partitions = offsets.len(), "Synced the group's offsets")
                }
                Err(ferry_kafka::group_offsets::GroupWriteError::Active) => tracing::warn!(
                    %group,
                    "Unable to sync offsets for consumer group {group}. This is likely caused by consumers currently using this group in the target cluster."
                ),
                Err(error) => {
                    tracing::error!(%group, %error, "Unable to sync offsets for consumer group")
                }
            }
        }
    }
}

/// `checkpoint-latency-ms` per group and downstream partition, made at its first checkpoint.
struct LatencyMetrics {
    metrics: MirrorMetrics,
    source_alias: String,
    target_alias: String,
    sensors: HashMap<(String, String, i32), Sensors>,
}

impl LatencyMetrics {
    /// Java's `commitRecord`: the time from reading the group's offsets to Kafka's ack.
    fn record(&mut self, record: &SourceRecord) {
        let Some(partition) = record.source_partition.as_deref() else {
            return;
        };
        let text = |key| match partition.get(key) {
            Some(Value::String(s)) => Some(s.clone()),
            _ => None,
        };
        let number = match partition.get("partition") {
            Some(Value::Int32(p)) => Some(*p),
            _ => None,
        };
        let (Some(group), Some(topic), Some(number), Some(timestamp)) =
            (text("group"), text("topic"), number, record.timestamp)
        else {
            return;
        };
        let key = (group, topic, number);
        let sensors = self.sensors.entry(key).or_insert_with_key(|(g, t, p)| {
            checkpoint_latency(
                &self.metrics,
                &self.source_alias,
                &self.target_alias,
                g,
                t,
                *p,
            )
        });
        sensors.record((now_ms() - timestamp) as f64);
    }
}

#[derive(Default)]
pub struct MirrorCheckpointTask {
    shared: Option<Arc<Shared>>,
    interval: Duration,
    next_emit: Option<Instant>,
    background: Vec<tokio::task::JoinHandle<()>>,
    latency: Option<LatencyMetrics>,
}

#[async_trait]
impl SourceTask for MirrorCheckpointTask {
    fn version(&self) -> String {
        ferry_api::KAFKA_CONNECT_VERSION.to_owned()
    }

    async fn start(
        &mut self,
        props: &ConfigMap,
        context: SourceTaskContext,
    ) -> ferry_api::error::Result<()> {
        let policy = from_config(props).map_err(|e| ConnectError::other(e.to_string()))?;
        let groups: Vec<String> = props
            .get(TASK_ASSIGNED_GROUPS)
            .map(|v| {
                v.split(',')
                    .map(str::trim)
                    .filter(|g| !g.is_empty())
                    .map(String::from)
                    .collect()
            })
            .unwrap_or_default();
        let (syncs_cluster, location) = offset_syncs_cluster(props);
        let syncs_topic = offset_syncs_topic(props, policy.as_ref());
        let syncs_consumer = kafka_config(
            props,
            syncs_cluster,
            Client::Consumer,
            &format!("offset-syncs-{location}-consumer"),
            true,
        )?;
        let syncs_producer = kafka_config(
            props,
            syncs_cluster,
            Client::Producer,
            &format!("offset-syncs-{location}-producer"),
            true,
        )?;
        let checkpoints_consumer = kafka_config(
            props,
            Cluster::Target,
            Client::Consumer,
            "checkpoints-target-consumer",
            true,
        )?;
        let checkpoints_producer = kafka_config(
            props,
            Cluster::Target,
            Client::Producer,
            "checkpoints-target-producer",
            true,
        )?;
        let shared = Arc::new(Shared {
            source_alias: props.get(SOURCE_CLUSTER_ALIAS).cloned().unwrap_or_default(),
            target_alias: props
                .get(TARGET_CLUSTER_ALIAS)
                .cloned()
                .unwrap_or_else(|| TARGET_CLUSTER_ALIAS_DEFAULT.to_owned()),
            topics: NameFilter::topics(props).map_err(|e| ConnectError::other(e.to_string()))?,
            groups,
            source_admin: admin(props, Cluster::Source, "checkpoint-source-admin")?,
            source: kafka_config(
                props,
                Cluster::Source,
                Client::Admin,
                "checkpoint-source-admin",
                true,
            )?,
            target: kafka_config(
                props,
                Cluster::Target,
                Client::Admin,
                "checkpoint-target-admin",
                true,
            )?,
            syncs: Arc::new(Mutex::new(OffsetSyncStore::new(true))),
            checkpoints: Mutex::new(None),
            syncs_log: Mutex::new(None),
            stopped: AtomicBool::new(false),
            policy,
        });
        self.interval = Duration::from_secs(
            u64::try_from(number_of(props, "emit.checkpoints.interval.seconds", 60)).unwrap_or(60),
        );
        self.next_emit = Some(Instant::now() + self.interval);
        let sync_every = (bool_of(props, "sync.group.offsets.enabled", false))
            .then(|| {
                u64::try_from(number_of(props, "sync.group.offsets.interval.seconds", 60)).ok()
            })
            .flatten()
            .map(Duration::from_secs);
        let reader = shared.clone();
        let init = tokio::task::spawn_blocking(move || {
            let loaded = reader.load_checkpoints(&checkpoints_consumer, &checkpoints_producer);
            *reader.syncs.lock().unwrap_or_else(|p| p.into_inner()) =
                OffsetSyncStore::new(loaded.is_none());
            let log = loop {
                let store = reader.syncs.clone();
                let started = TopicLog::start(
                    &syncs_topic,
                    &syncs_consumer,
                    &syncs_producer,
                    Box::new(move |r: LogRecord| {
                        let (0, Some(key), Some(value)) = (r.partition, r.key, r.value) else {
                            return;
                        };
                        match OffsetSync::read(&key, &value) {
                            Ok(s) => store.lock().unwrap_or_else(|p| p.into_inner()).apply(
                                &s.topic,
                                s.partition,
                                s.upstream_offset,
                                s.downstream_offset,
                            ),
                            Err(error) => {
                                tracing::warn!(%error, "Skipping an offset sync that cannot be read")
                            }
                        }
                    }),
                );
                match started {
                    Ok(l) => break l,
                    // The source connector that creates the topic may start after this task
                    // (Java's task fails here after 30 s; waiting on spares a restart).
                    Err(error) if !reader.stopped.load(Ordering::Relaxed) => {
                        tracing::warn!(topic = %syncs_topic, %error, "The offset-syncs topic cannot be read yet; no checkpoints until it can");
                        std::thread::sleep(Duration::from_secs(1));
                    }
                    Err(_) => return,
                }
            };
            if let Err(error) =
                tokio::runtime::Handle::current().block_on(log.read_to_end(READ_TIMEOUT))
            {
                tracing::warn!(topic = %syncs_topic, %error, "Could not read the offset-syncs topic to its end");
            }
            reader
                .syncs
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .initial_read_done();
            *reader.syncs_log.lock().unwrap_or_else(|p| p.into_inner()) = Some(log);
            *reader.checkpoints.lock().unwrap_or_else(|p| p.into_inner()) =
                Some(loaded.unwrap_or_default());
            tracing::info!(
                groups = reader.groups.len(),
                "The checkpoint task read its checkpoints and offset syncs"
            );
        });
        self.background.push(tokio::spawn(async move {
            let _ = init.await;
        }));
        if let Some(every) = sync_every {
            let syncer = shared.clone();
            self.background.push(tokio::spawn(async move {
                let mut ticks = tokio::time::interval(every.max(Duration::from_millis(100)));
                loop {
                    ticks.tick().await;
                    let s = syncer.clone();
                    let _ = tokio::task::spawn_blocking(move || s.sync_group_offsets()).await;
                }
            }));
        }
        self.latency = Some(LatencyMetrics {
            metrics: MirrorMetrics::checkpoint(props, &context),
            source_alias: shared.source_alias.clone(),
            target_alias: shared.target_alias.clone(),
            sensors: HashMap::new(),
        });
        self.shared = Some(shared);
        Ok(())
    }

    async fn poll(&mut self) -> ferry_api::error::Result<Vec<SourceRecord>> {
        let (Some(shared), Some(at)) = (self.shared.clone(), self.next_emit) else {
            return Ok(Vec::new());
        };
        tokio::time::sleep_until(at.into()).await;
        self.next_emit = Some(Instant::now() + self.interval);
        let emitted = tokio::task::spawn_blocking(move || shared.checkpoint_records()).await;
        match emitted {
            Ok(Ok(records)) => Ok(records),
            // Java logs a failing round and tries again at the next interval.
            Ok(Err(error)) => {
                tracing::warn!(%error, "Failure polling consumer state for checkpoints.");
                Ok(Vec::new())
            }
            Err(error) => {
                tracing::warn!(%error, "Failure polling consumer state for checkpoints.");
                Ok(Vec::new())
            }
        }
    }

    fn commit_record(
        &mut self,
        record: &SourceRecord,
        _metadata: Option<&RecordMetadata<'_>>,
    ) -> ferry_api::error::Result<()> {
        if let Some(latency) = &mut self.latency {
            latency.record(record);
        }
        Ok(())
    }

    async fn stop(&mut self) -> ferry_api::error::Result<()> {
        for job in self.background.drain(..) {
            job.abort();
        }
        if let Some(shared) = self.shared.take() {
            shared.stopped.store(true, Ordering::Relaxed);
            let log = shared
                .syncs_log
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .take();
            if let Some(mut log) = log {
                let _ = tokio::task::spawn_blocking(move || log.stop()).await;
            }
        }
        Ok(())
    }
}
