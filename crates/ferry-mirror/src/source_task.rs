//! `org.apache.kafka.connect.mirror.MirrorSourceTask`: reads its source partitions outside any
//! group, from one past the last offset the worker stored for each, and hands each record on
//! unchanged for the remote topic; once Kafka has acknowledged a record, it notes where it
//! landed and writes offset syncs as Java's `OffsetSyncWriter` decides.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use ferry_api::data::Value;
use ferry_api::record::{OffsetMap, RecordMetadata, SourceRecord};
use ferry_api::task::{SourceTask, SourceTaskContext};
use ferry_api::{ConfigMap, ConnectError};
use ferry_kafka::assigned_consumer::AssignedConsumer;
use ferry_kafka::topic_writer::TopicWriter;

use crate::client_configs::{Client, Cluster, TARGET_CLUSTER_ALIAS, TARGET_CLUSTER_ALIAS_DEFAULT};
use crate::clients::{kafka_config, kafka_error, offset_syncs_cluster, offset_syncs_topic};
use crate::config::{CONSUMER_POLL_TIMEOUT_MS, EMIT_OFFSET_SYNCS_ENABLED, OFFSET_LAG_MAX};
use crate::metrics::{MirrorMetrics, PartitionMetrics};
use crate::now_ms;
use crate::partition_state::OffsetSyncQueue;
use crate::records::OffsetSync;
use crate::replication_policy::{from_config, SOURCE_CLUSTER_ALIAS};
use crate::source_records::{
    replicated, resume_at, source_partition, Consumed, OFFSET_KEY, PARTITION_KEY, TOPIC_KEY,
};
use crate::task_assignment::{parse_partitions, TASK_ASSIGNED_PARTITIONS};

/// Java's consumer default `max.poll.records`.
const MAX_POLL_RECORDS: usize = 500;
/// How long a stopping task waits for its offset syncs in flight.
const SYNC_FLUSH_TIMEOUT: Duration = Duration::from_secs(5);

struct OffsetSyncs {
    writer: TopicWriter,
    queue: OffsetSyncQueue,
}

impl OffsetSyncs {
    /// Java's `firePendingOffsetSyncs`.
    fn fire(&mut self) {
        for ((topic, partition), sync) in self.queue.take_pending(self.writer.in_flight()) {
            let record = OffsetSync {
                topic,
                partition,
                upstream_offset: sync.upstream_offset,
                downstream_offset: sync.downstream_offset,
            };
            let sent = record.key().map_err(|e| e.to_string()).and_then(|key| {
                self.writer
                    .send(0, &key, &record.value())
                    .map_err(|e| e.to_string())
            });
            if let Err(error) = sent {
                tracing::error!(topic = %self.writer.topic(), %error, "Failure sending offset sync");
            }
        }
    }
}

/// Where the records of one source partition go: its source partition map (shared by all its
/// records) and its remote topic; and what the partition's replication measures.
struct Route {
    /// The source topic and partition, as the offset syncs are keyed.
    key: (String, i32),
    source_partition: Arc<OffsetMap>,
    remote_topic: String,
    metrics: PartitionMetrics,
}

type Routes = HashMap<String, Vec<Route>, foldhash::fast::RandomState>;

#[derive(Default)]
pub struct MirrorSourceTask {
    /// Per source topic, the routes of its assigned partitions.
    routes: Routes,
    source_alias: String,
    consumer: Option<AssignedConsumer>,
    offset_syncs: Option<OffsetSyncs>,
    poll_timeout: Duration,
    max_records: usize,
    stopping: bool,
}

fn number(props: &ConfigMap, key: &str, default: i64) -> i64 {
    props
        .get(key)
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

/// The source topic and partition a replicated record came from.
fn unwrap_partition(record: &SourceRecord) -> Option<(&str, i32)> {
    let partition = record.source_partition.as_ref()?;
    let topic = match partition.get(TOPIC_KEY)? {
        Value::String(t) => t.as_str(),
        _ => return None,
    };
    let number = match partition.get(PARTITION_KEY)? {
        Value::Int32(p) => *p,
        Value::Int64(p) => i32::try_from(*p).ok()?,
        _ => return None,
    };
    Some((topic, number))
}

fn unwrap_offset(record: &SourceRecord) -> Option<i64> {
    match record.source_offset.as_ref()?.get(OFFSET_KEY)? {
        Value::Int64(o) => Some(*o),
        Value::Int32(o) => Some(i64::from(*o)),
        _ => None,
    }
}

/// The route of a source partition among `routes`.
fn route_of<'a>(routes: &'a mut Routes, topic: &str, partition: i32) -> Option<&'a mut Route> {
    routes
        .get_mut(topic)
        .and_then(|routes| routes.iter_mut().find(|route| route.key.1 == partition))
}

impl MirrorSourceTask {
    fn flush_metrics(&mut self) {
        for route in self.routes.values_mut().flatten() {
            route.metrics.flush();
        }
    }
}

#[async_trait]
impl SourceTask for MirrorSourceTask {
    fn version(&self) -> String {
        ferry_api::KAFKA_CONNECT_VERSION.to_owned()
    }

    async fn start(
        &mut self,
        props: &ConfigMap,
        context: SourceTaskContext,
    ) -> ferry_api::error::Result<()> {
        let policy = from_config(props).map_err(|e| ConnectError::other(e.to_string()))?;
        self.source_alias = props.get(SOURCE_CLUSTER_ALIAS).cloned().unwrap_or_default();
        let target_alias = props
            .get(TARGET_CLUSTER_ALIAS)
            .cloned()
            .unwrap_or_else(|| TARGET_CLUSTER_ALIAS_DEFAULT.to_owned());
        let partitions = parse_partitions(
            props
                .get(TASK_ASSIGNED_PARTITIONS)
                .map_or("", String::as_str),
        )
        .map_err(ConnectError::other)?;
        self.poll_timeout = Duration::from_millis(
            u64::try_from(number(props, CONSUMER_POLL_TIMEOUT_MS, 1000)).unwrap_or(1000),
        );
        let consumer_config = kafka_config(
            props,
            Cluster::Source,
            Client::Consumer,
            "replication-consumer",
            true,
        )?;
        self.max_records = consumer_config
            .get("max.poll.records")
            .and_then(|v| v.parse().ok())
            .unwrap_or(MAX_POLL_RECORDS);
        if props
            .get(EMIT_OFFSET_SYNCS_ENABLED)
            .is_none_or(|v| v.trim().eq_ignore_ascii_case("true"))
        {
            let (cluster, location) = offset_syncs_cluster(props);
            let config = kafka_config(
                props,
                cluster,
                Client::Producer,
                &format!("offset-syncs-{location}-producer"),
                true,
            )?;
            let topic = offset_syncs_topic(props, policy.as_ref());
            let writer = TopicWriter::new(&config, &topic)
                .map_err(|e| kafka_error("Could not create the offset-syncs producer", e))?;
            self.offset_syncs = Some(OffsetSyncs {
                writer,
                queue: OffsetSyncQueue::new(number(props, OFFSET_LAG_MAX, 100)),
            });
        }
        let mut assignment = Vec::with_capacity(partitions.len());
        for (topic, partition) in partitions {
            let stored = context
                .offset_reader
                .offset(&source_partition(&self.source_alias, &topic, partition))
                .await?;
            let start = resume_at(stored.as_ref());
            tracing::debug!(%topic, partition, ?start, "Replicating a partition");
            assignment.push(((topic, partition), start));
        }
        let metrics = MirrorMetrics::source(props, &context);
        for ((topic, partition), _) in &assignment {
            let remote_topic = policy.format_remote_topic(&self.source_alias, topic);
            self.routes.entry(topic.clone()).or_default().push(Route {
                key: (topic.clone(), *partition),
                source_partition: Arc::new(source_partition(&self.source_alias, topic, *partition)),
                metrics: PartitionMetrics::new(
                    &metrics,
                    &self.source_alias,
                    &target_alias,
                    &remote_topic,
                    *partition,
                ),
                remote_topic,
            });
        }
        let consumer = AssignedConsumer::new(&consumer_config)
            .map_err(|e| kafka_error("Could not create the source consumer", e))?;
        consumer
            .assign(&assignment)
            .map_err(|e| kafka_error("Could not assign the source partitions", e))?;
        tracing::info!(
            partitions = assignment.len(),
            "{} replicating {} topic-partitions {}->{}",
            crate::client_configs::entity_label(props, true),
            assignment.len(),
            self.source_alias,
            target_alias
        );
        self.consumer = Some(consumer);
        Ok(())
    }

    async fn poll(&mut self) -> ferry_api::error::Result<Vec<SourceRecord>> {
        // What the records acknowledged since the last poll gave the metrics.
        self.flush_metrics();
        let Some(consumer) = &self.consumer else {
            return Ok(Vec::new());
        };
        let batch = match consumer
            .poll_batch(self.max_records, self.poll_timeout)
            .await
        {
            Ok(batch) => batch,
            // Java logs a KafkaException from poll and polls again.
            Err(error) => {
                tracing::warn!(%error, "Failure during poll.");
                return Ok(Vec::new());
            }
        };
        let mut records = Vec::with_capacity(batch.len());
        let now = now_ms();
        for r in batch {
            let Some(route) = route_of(&mut self.routes, &r.topic, r.partition) else {
                tracing::warn!(topic = %r.topic, partition = r.partition, "A record of a partition not assigned to this task");
                continue;
            };
            // Java counts the value's bytes only.
            route.metrics.polled(
                r.timestamp.map(|t| now - t),
                r.value.as_ref().map_or(0, Vec::len),
            );
            records.push(replicated(
                route.source_partition.clone(),
                route.remote_topic.clone(),
                Consumed {
                    topic: r.topic,
                    partition: r.partition,
                    offset: r.offset,
                    key: r.key,
                    value: r.value,
                    timestamp: r.timestamp,
                    headers: r.headers,
                },
            ));
        }
        self.flush_metrics();
        Ok(records)
    }

    async fn commit(&mut self) -> ferry_api::error::Result<()> {
        if let Some(syncs) = &mut self.offset_syncs {
            syncs.queue.promote_delayed();
            syncs.fire();
        }
        // The worker's last commit after `stop`: the syncs of the last records go out before
        // the task does.
        if self.stopping {
            if let Some(syncs) = self.offset_syncs.take() {
                flush(syncs.writer).await;
            }
        }
        Ok(())
    }

    fn commit_record(
        &mut self,
        record: &SourceRecord,
        metadata: Option<&RecordMetadata<'_>>,
    ) -> ferry_api::error::Result<()> {
        let Some(metadata) = metadata else {
            return Ok(());
        };
        if metadata.offset < 0 {
            tracing::error!(
                topic = metadata.topic,
                "RecordMetadata has no offsets for a replicated record"
            );
            return Ok(());
        }
        let (Some((topic, partition)), Some(upstream)) =
            (unwrap_partition(record), unwrap_offset(record))
        else {
            return Ok(());
        };
        let Some(route) = route_of(&mut self.routes, topic, partition) else {
            return Ok(());
        };
        if !self.stopping {
            route
                .metrics
                .replicated(record.timestamp.map(|t| now_ms() - t));
        }
        // Unlike Java's, this task keeps noting syncs after `stop`: Ferry's worker shows a
        // task its acknowledged records between polls and after the stop, not from the
        // producer's thread, so the last records' syncs would otherwise never be written.
        if let Some(syncs) = &mut self.offset_syncs {
            syncs
                .queue
                .record_replicated(&route.key, upstream, metadata.offset);
            syncs.fire();
        }
        Ok(())
    }

    async fn stop(&mut self) -> ferry_api::error::Result<()> {
        self.stopping = true;
        self.consumer = None;
        Ok(())
    }
}

/// Waits (at most [`SYNC_FLUSH_TIMEOUT`], off the runtime's threads) for the syncs in flight.
async fn flush(writer: TopicWriter) {
    let flushed = tokio::task::spawn_blocking(move || writer.flush(SYNC_FLUSH_TIMEOUT)).await;
    if let Ok(Err(error)) = flushed {
        tracing::warn!(%error, "Offset syncs in flight were not all written");
    }
}
