//! The sink pipeline: consume → convert → `put`; offsets are committed only after `preCommit`
//! (by default `flush`) succeeds, every `offset.flush.interval.ms`, on request, and on stop.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use ferry_api::record::{SinkRecord, TimestampType, TopicPartition};
use ferry_api::task::{SinkOffsets, SinkTask};
use ferry_api::ConnectError;
use ferry_kafka::client_properties::ClientRole;
use ferry_kafka::consumer::{ConsumedRecord, RebalanceEvent, Subscription};
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::errors::{DeadLetterQueue, ErrorContext, Stage};
use crate::metrics::{elapsed_ms, TaskClient};
use crate::status::{State, TopicTracker};
use crate::worker::clients::RecordConsumer;
use crate::worker::sink_context::{ErrantRecords, WorkerSinkTaskContext};
use crate::worker::task_context::TaskContext;

/// Java's `max.poll.records` default: the most records handed to one `put`.
const MAX_BATCH: usize = 500;
/// How long to wait before putting a batch again after a retriable failure.
const RETRY_BACKOFF: Duration = Duration::from_millis(100);

type Offsets = HashMap<(String, i32), i64>;

struct SinkPipeline {
    ctx: TaskContext,
    task: Box<dyn SinkTask>,
    consumer: Box<dyn RecordConsumer>,
    events: mpsc::UnboundedReceiver<RebalanceEvent>,
    context: Arc<WorkerSinkTaskContext>,
    assignment: HashSet<TopicPartition>,
    paused_by_task: HashSet<TopicPartition>,
    /// Next offset to consume per partition, for records `put` accepted.
    current: Offsets,
    last_committed: Offsets,
    /// A batch to put again after a retriable failure, with its offsets.
    retry: Option<(Vec<SinkRecord>, Offsets)>,
    paused: bool,
    /// Consumption is paused until a batch that failed with a retriable error goes through.
    paused_for_retry: bool,
    topics: TopicTracker,
    dlq: Option<DeadLetterQueue>,
    /// Records the task reported through its errant record reporter (KIP-610).
    errant: Option<Arc<ErrantRecords>>,
    /// Records put since the last completed commit (Java's sink-record-active-count).
    uncommitted: usize,
}

/// Which class a failed stage belongs to.
enum Class {
    Key,
    Value,
    Header,
    Named(String),
}

fn subscription(ctx: &TaskContext) -> Result<Subscription, ConnectError> {
    let topics = ctx.connector.topics.clone();
    let regex = ctx.connector.topics_regex.as_deref();
    match (topics.is_empty(), regex) {
        (false, None) => Ok(Subscription::Topics(topics)),
        (true, Some(r)) => Ok(Subscription::Regex(r.to_owned())),
        _ => Err(ConnectError::other(
            "Must configure exactly one of topics or topics.regex",
        )),
    }
}

pub(crate) async fn run(ctx: TaskContext, task: Box<dyn SinkTask>) -> Result<(), ConnectError> {
    let subscription = subscription(&ctx)?;
    let client_id = format!("connector-consumer-{}-{}", ctx.id.connector, ctx.id.task);
    let group_id = format!("connect-{}", ctx.id.connector);
    let fixed = [
        ("group.id", group_id.as_str()),
        ("client.id", client_id.as_str()),
        ("enable.auto.commit", "false"),
        ("auto.offset.reset", "earliest"),
        // Java's consumer asks the broker to create a subscribed topic that does not exist yet;
        // librdkafka's does not by default, and would wait for its next metadata refresh.
        ("allow.auto.create.topics", "true"),
        // Java's consumer refetches metadata soon when a subscribed topic is missing;
        // librdkafka waits for its periodic refresh (5 min by default), so refresh more often.
        ("topic.metadata.refresh.interval.ms", "10000"),
        // Once its prefetch queue holds `queued.min.messages`, librdkafka postpones the next
        // fetch by this much (1 s by default): a sink that drains the queue faster then stalls
        // for most of every second. Java's consumer fetches again as soon as it has room.
        ("fetch.queue.backoff.ms", "5"),
        // Java's consumer default; librdkafka's is read_committed. A sink reads what a sink on
        // Java Connect reads unless `consumer.isolation.level` (or an override) says otherwise.
        ("isolation.level", "read_uncommitted"),
    ];
    let mut config =
        ferry_kafka::client_config(ClientRole::Consumer, &ctx.client_layers("consumer"), &fixed)
            .map_err(|e| ConnectError::with_source("Invalid consumer settings", e))?;
    if ctx.worker.client_statistics_interval_ms > 0 {
        ferry_kafka::stats::enable(&mut config, ctx.worker.client_statistics_interval_ms);
    }
    let parts = ctx
        .clients
        .consumer(&config, &subscription)
        .map_err(|e| ConnectError::with_source("Failed to create the consumer", e))?;
    if let Some(stats) = parts.stats {
        ctx.metrics.set_client(TaskClient { client_id, stats });
    }
    run_with(ctx, task, parts.consumer, parts.events).await
}

/// The pipeline on a consumer made already (librdkafka's, or a fake in tests).
pub(crate) async fn run_with(
    mut ctx: TaskContext,
    mut task: Box<dyn SinkTask>,
    consumer: Box<dyn RecordConsumer>,
    events: mpsc::UnboundedReceiver<RebalanceEvent>,
) -> Result<(), ConnectError> {
    if !ctx.wait_while_paused().await {
        return Ok(());
    }
    let dlq = open_dlq(&ctx).await?;
    let log_errors = ctx.connector.errors.log;
    let errant = (dlq.is_some() || log_errors).then(|| Arc::new(ErrantRecords::default()));
    let context = Arc::new(WorkerSinkTaskContext::new(
        ctx.task_props.clone(),
        ctx.identity(),
        errant.clone(),
    ));
    task.start(&ctx.task_props, context.clone()).await?;
    ctx.report(State::Running, None);
    let topics = TopicTracker::new(ctx.worker.topic_tracking, &ctx.id, ctx.status.clone());
    let mut pipeline = SinkPipeline {
        ctx,
        task,
        consumer,
        events,
        context,
        assignment: HashSet::new(),
        paused_by_task: HashSet::new(),
        current: Offsets::new(),
        last_committed: Offsets::new(),
        retry: None,
        paused: false,
        paused_for_retry: false,
        topics,
        dlq,
        errant,
        uncommitted: 0,
    };
    let outcome = pipeline.execute().await;
    let stopped = pipeline.stop(outcome.is_ok()).await;
    outcome.and(stopped)
}

fn key(tp: &TopicPartition) -> (String, i32) {
    (tp.topic.clone(), tp.partition)
}

fn topic_partitions(parts: Vec<(String, i32)>) -> Vec<TopicPartition> {
    parts
        .into_iter()
        .map(|(t, p)| TopicPartition::new(t, p))
        .collect()
}

impl SinkPipeline {
    async fn execute(&mut self) -> Result<(), ConnectError> {
        let interval = self.ctx.worker.offset_flush_interval;
        let mut next_commit = Instant::now() + interval;
        loop {
            if self.ctx.cancel.is_cancelled() {
                return Ok(());
            }
            self.handle_rebalances().await?;
            self.follow_target_state()?;
            let requests = self.context.take_requests();
            self.apply_requests(&requests)?;
            if requests.commit || Instant::now() >= next_commit {
                self.commit(false, None).await;
                next_commit = Instant::now() + interval;
            }
            let wait = next_commit.saturating_duration_since(Instant::now());
            let wait = requests
                .timeout_ms
                .map_or(wait, |t| wait.min(Duration::from_millis(t)));
            if let Some((batch, offsets)) = self.retry.take() {
                tokio::select! {
                    _ = self.ctx.cancel.cancelled() => { self.retry = Some((batch, offsets)); return Ok(()) }
                    _ = tokio::time::sleep(RETRY_BACKOFF.min(wait)) => {}
                }
                self.deliver(batch, offsets).await?;
                continue;
            }
            let consumed = tokio::select! {
                _ = self.ctx.cancel.cancelled() => return Ok(()),
                polled = self.consumer.poll_batch(MAX_BATCH, wait.max(Duration::from_millis(1))) => {
                    polled.map_err(|e| ConnectError::with_source("Failed to poll for records", e))?
                }
            };
            // Like Java's WorkerSinkTask, an empty poll still reaches put: sinks flush on time
            // and resume partitions they paused from there.
            let (batch, offsets) = if consumed.is_empty() {
                (Vec::new(), Offsets::default())
            } else {
                let metrics = &self.ctx.metrics;
                metrics.sink_record_read.mark(consumed.len() as u64);
                metrics.batch_size.record(consumed.len() as f64);
                self.convert(consumed).await?
            };
            self.deliver(batch, offsets).await?;
        }
    }

    async fn convert(
        &mut self,
        consumed: Vec<ConsumedRecord>,
    ) -> Result<(Vec<SinkRecord>, Offsets), ConnectError> {
        // A batch spans few partitions, so a short list beats hashing (and cloning) a topic
        // name for every record.
        let mut offsets: Vec<((String, i32), i64)> = Vec::new();
        let mut batch = Vec::with_capacity(consumed.len());
        for r in consumed {
            self.topics.record(&r.topic);
            match offsets
                .iter_mut()
                .find(|((t, p), _)| *p == r.partition && *t == r.topic)
            {
                Some(slot) => slot.1 = r.offset + 1,
                None => offsets.push(((r.topic.clone(), r.partition), r.offset + 1)),
            }
            // A record that failed and was tolerated is skipped; its offset still moves on.
            if let Some(record) = self.sink_record(r).await? {
                batch.push(record);
            }
        }
        Ok((batch, offsets.into_iter().collect()))
    }

    /// Converts and transforms one consumed record; `None` when it was dropped or tolerated.
    async fn sink_record(&mut self, r: ConsumedRecord) -> Result<Option<SinkRecord>, ConnectError> {
        let ctx = &self.ctx;
        let key = match ctx
            .errors
            .with_retries(|| {
                ctx.key_converter
                    .to_connect_data(&r.topic, r.key.as_deref())
            })
            .await
        {
            Ok(k) => k,
            Err(e) => return self.failed(Stage::KeyConverter, Class::Key, e, &r).await,
        };
        let value = match ctx
            .errors
            .with_retries(|| {
                ctx.value_converter
                    .to_connect_data(&r.topic, r.value.as_deref())
            })
            .await
        {
            Ok(v) => v,
            Err(e) => {
                return self
                    .failed(Stage::ValueConverter, Class::Value, e, &r)
                    .await
            }
        };
        let mut headers = ferry_api::header::Headers::new();
        for (k, v) in &r.headers {
            match ctx
                .errors
                .with_retries(|| {
                    ctx.header_converter
                        .to_connect_header(&r.topic, k, v.as_deref())
                })
                .await
            {
                Ok(h) => headers.add(k.clone(), h.schema, h.value),
                Err(e) => {
                    return self
                        .failed(Stage::HeaderConverter, Class::Header, e, &r)
                        .await
                }
            }
        }
        let timestamp_type = match (r.timestamp, r.log_append_time) {
            (None, _) => TimestampType::NoTimestampType,
            (Some(_), true) => TimestampType::LogAppendTime,
            (Some(_), false) => TimestampType::CreateTime,
        };
        let mut record = SinkRecord {
            original_topic: r.topic.clone(),
            original_kafka_partition: r.partition,
            original_kafka_offset: r.offset,
            topic: r.topic.clone(),
            kafka_partition: r.partition,
            key_schema: key.schema,
            key: key.value,
            value_schema: value.schema,
            value: value.value,
            kafka_offset: r.offset,
            timestamp: r.timestamp,
            timestamp_type,
            headers,
        };
        if self.ctx.chain.is_empty() {
            return Ok(Some(record));
        }
        match self.ctx.chain.apply(&mut record) {
            Ok(true) => Ok(Some(record)),
            Ok(false) => Ok(None),
            Err(failure) => {
                let (class, error) = (failure.class.to_owned(), failure.error);
                self.failed(Stage::Transformation, Class::Named(class), error, &r)
                    .await
            }
        }
    }

    /// A failed stage: fails the task, or (tolerated) skips the record after sending it to
    /// the dead letter queue.
    async fn failed(
        &mut self,
        stage: Stage,
        class: Class,
        error: ConnectError,
        r: &ConsumedRecord,
    ) -> Result<Option<SinkRecord>, ConnectError> {
        let class = match class {
            Class::Key => self.ctx.converter_classes.key.clone(),
            Class::Value => self.ctx.converter_classes.value.clone(),
            Class::Header => self.ctx.converter_classes.header.clone(),
            Class::Named(c) => c,
        };
        let describe = || {
            format!(
                "topic='{}', partition={}, offset={}, timestamp={:?}",
                r.topic, r.partition, r.offset, r.timestamp
            )
        };
        self.ctx.errors.handle(&ErrorContext {
            stage,
            class: &class,
            error: &error,
            record: &describe,
        })?;
        if let Some(dlq) = self.dlq.as_mut() {
            dlq.report(r, stage, &class, &error).await?;
        }
        Ok(None)
    }

    /// Puts a batch; a retriable failure pauses consumption and keeps the batch for redelivery.
    async fn deliver(
        &mut self,
        batch: Vec<SinkRecord>,
        offsets: Offsets,
    ) -> Result<(), ConnectError> {
        let started = Instant::now();
        let put = self.task.put(&batch).await;
        self.ctx
            .metrics
            .put_batch_time_ms
            .record(elapsed_ms(started));
        self.handle_errant().await?;
        match put {
            Ok(()) => {
                if !batch.is_empty() {
                    self.ctx.metrics.sink_record_send.mark(batch.len() as u64);
                    self.uncommitted += batch.len();
                    self.ctx.metrics.set_active(self.uncommitted);
                }
                self.current.extend(offsets);
                // Resume only after a redelivery: resuming partitions that were never paused
                // makes librdkafka restart their fetchers, which costs throughput on every batch.
                if self.paused_for_retry {
                    self.paused_for_retry = false;
                    if !self.paused {
                        self.resume_consumption()?;
                    }
                }
                Ok(())
            }
            Err(e) if e.is_retriable() => {
                tracing::warn!(error = %e, "Retriable error from put; the batch will be delivered again");
                self.pause_consumption()?;
                self.paused_for_retry = true;
                self.retry = Some((batch, offsets));
                Ok(())
            }
            Err(e) => Err(e),
        }
    }

    async fn handle_rebalances(&mut self) -> Result<(), ConnectError> {
        while let Ok(event) = self.events.try_recv() {
            match event {
                RebalanceEvent::Assigned(parts) => {
                    let parts = topic_partitions(parts);
                    self.assignment.extend(parts.iter().cloned());
                    self.context.set_assignment(&self.assignment);
                    self.ctx
                        .metrics
                        .partition_count
                        .store(self.assignment.len() as u64, Ordering::Relaxed);
                    if self.paused || self.retry.is_some() {
                        self.pause_consumption()?;
                    }
                    self.task.open(&parts).await?;
                }
                RebalanceEvent::Revoked(parts) => {
                    let parts = topic_partitions(parts);
                    // As Java's onPartitionsRevoked: commit what the task processed of them,
                    // then close them, before the group gives them to another member.
                    let revoked: HashSet<(String, i32)> = parts.iter().map(key).collect();
                    self.commit(true, Some(&revoked)).await;
                    let closed = self.task.close(&parts).await;
                    self.forget(&parts)?;
                    self.consumer.finish_revocation();
                    closed?;
                }
                RebalanceEvent::Lost(parts) => {
                    let parts = topic_partitions(parts);
                    let closed = self.task.close(&parts).await;
                    self.forget(&parts)?;
                    closed?;
                }
            }
        }
        Ok(())
    }

    /// Drops what the pipeline keeps for partitions it no longer owns.
    fn forget(&mut self, parts: &[TopicPartition]) -> Result<(), ConnectError> {
        for tp in parts {
            self.assignment.remove(tp);
            self.current.remove(&key(tp));
            self.last_committed.remove(&key(tp));
        }
        // Records of the batch kept for redelivery that belong to the revoked partitions are
        // consumed again by their next owner; the rest are still this task's to deliver.
        if let Some((mut batch, mut offsets)) = self.retry.take() {
            let gone: HashSet<(String, i32)> = parts.iter().map(key).collect();
            batch.retain(|r| {
                !gone.contains(&(r.original_topic.clone(), r.original_kafka_partition))
            });
            offsets.retain(|tp, _| !gone.contains(tp));
            if !offsets.is_empty() {
                self.retry = Some((batch, offsets));
            }
        }
        if self.retry.is_none() && self.paused_for_retry {
            self.paused_for_retry = false;
            if !self.paused {
                self.resume_consumption()?;
            }
        }
        self.context.set_assignment(&self.assignment);
        self.ctx
            .metrics
            .partition_count
            .store(self.assignment.len() as u64, Ordering::Relaxed);
        Ok(())
    }

    fn follow_target_state(&mut self) -> Result<(), ConnectError> {
        let want_paused = self.ctx.is_paused();
        if want_paused && !self.paused {
            self.paused = true;
            self.pause_consumption()?;
            self.ctx.report(State::Paused, None);
            self.context.request_commit_now();
        } else if !want_paused && self.paused {
            self.paused = false;
            if self.retry.is_none() {
                self.resume_consumption()?;
            }
            self.ctx.report(State::Running, None);
        }
        Ok(())
    }

    fn apply_requests(
        &mut self,
        requests: &super::sink_context::Requests,
    ) -> Result<(), ConnectError> {
        for (tp, offset) in &requests.rewinds {
            self.consumer
                .seek(&tp.topic, tp.partition, *offset)
                .map_err(|e| ConnectError::with_source(format!("Failed to rewind {tp}"), e))?;
            self.current.insert(key(tp), *offset);
            self.last_committed.insert(key(tp), *offset);
        }
        if !requests.pause.is_empty() {
            self.paused_by_task.extend(requests.pause.iter().cloned());
            let parts: Vec<_> = requests.pause.iter().map(key).collect();
            self.consumer
                .pause(&parts)
                .map_err(|e| ConnectError::with_source("Failed to pause partitions", e))?;
        }
        if !requests.resume.is_empty() {
            for tp in &requests.resume {
                self.paused_by_task.remove(tp);
            }
            if !self.paused && self.retry.is_none() {
                let parts: Vec<_> = requests.resume.iter().map(key).collect();
                self.consumer
                    .resume(&parts)
                    .map_err(|e| ConnectError::with_source("Failed to resume partitions", e))?;
            }
        }
        Ok(())
    }

    fn pause_consumption(&self) -> Result<(), ConnectError> {
        let parts: Vec<_> = self.assignment.iter().map(key).collect();
        self.consumer
            .pause(&parts)
            .map_err(|e| ConnectError::with_source("Failed to pause partitions", e))
    }

    fn resume_consumption(&self) -> Result<(), ConnectError> {
        let parts: Vec<_> = self
            .assignment
            .iter()
            .filter(|tp| !self.paused_by_task.contains(tp))
            .map(key)
            .collect();
        self.consumer
            .resume(&parts)
            .map_err(|e| ConnectError::with_source("Failed to resume partitions", e))
    }

    fn commit_completed(&mut self, started: Instant) {
        let metrics = &self.ctx.metrics;
        metrics.offset_commit_time_ms.record(elapsed_ms(started));
        metrics.offset_commit_completion.mark(1);
        self.uncommitted = 0;
        metrics.set_active(0);
    }

    /// Asks the task what is safe to commit (flushing by default) and commits it.
    /// Handles what the task reported as errant: tolerance decides, the DLQ gets the record.
    async fn handle_errant(&mut self) -> Result<(), ConnectError> {
        let Some(errant) = self.errant.as_ref() else {
            return Ok(());
        };
        for (record, error, failed_stage) in errant.take() {
            let describe = || {
                format!(
                    "topic='{}', partition={}, offset={}",
                    record.original_topic,
                    record.original_kafka_partition,
                    record.original_kafka_offset
                )
            };
            let (stage, class) = failed_stage.unwrap_or_else(|| {
                (
                    Stage::TaskPut,
                    "org.apache.kafka.connect.sink.SinkTask".to_owned(),
                )
            });
            self.ctx.errors.handle(&ErrorContext {
                stage,
                class: &class,
                error: &error,
                record: &describe,
            })?;
            if let Some(dlq) = self.dlq.as_mut() {
                let original = consumed_form(&self.ctx, &record)?;
                dlq.report(&original, stage, &class, &error).await?;
            }
        }
        Ok(())
    }

    /// Commits what `preCommit` allows, of every partition or of `only` those.
    async fn commit(&mut self, closing: bool, only: Option<&HashSet<(String, i32)>>) {
        if let Err(error) = self.handle_errant().await {
            tracing::error!(%error, "Errant records could not be handled; offsets are not committed this time");
            return;
        }
        // Offsets past a record sent to the dead letter queue may commit only once it is there.
        if let Some(dlq) = self.dlq.as_mut() {
            if let Err(error) = dlq.flush(self.ctx.worker.offset_flush_timeout).await {
                tracing::error!(%error, "Dead letter queue not flushed; offsets are not committed this time");
                return;
            }
        }
        let offsets: SinkOffsets = self
            .current
            .iter()
            .filter(|(tp, _)| only.is_none_or(|only| only.contains(*tp)))
            .map(|((t, p), o)| (TopicPartition::new(t.clone(), *p), *o))
            .collect();
        if offsets.is_empty() {
            return;
        }
        let started = Instant::now();
        self.ctx
            .metrics
            .offset_commit_seq_no
            .fetch_add(1, Ordering::Relaxed);
        match self.task.pre_commit(offsets).await {
            Ok(returned) => {
                let commit: Offsets = returned
                    .into_iter()
                    .filter(|(tp, o)| self.current.get(&key(tp)).is_some_and(|cur| o <= cur))
                    .filter(|(tp, _)| only.is_none_or(|only| only.contains(&key(tp))))
                    .map(|(tp, o)| (key(&tp), o))
                    .collect();
                let unchanged = commit
                    .iter()
                    .all(|(tp, o)| self.last_committed.get(tp) == Some(o));
                if commit.is_empty() || unchanged {
                    // As Java, a commit with nothing new to write completes at once.
                    self.commit_completed(started);
                    return;
                }
                match self.consumer.commit(&commit, closing) {
                    Ok(()) => {
                        tracing::debug!(partitions = commit.len(), "Committed sink offsets");
                        self.last_committed.extend(commit);
                        self.commit_completed(started);
                    }
                    Err(error) => tracing::error!(%error, "Commit of offsets failed"),
                }
            }
            Err(error) => {
                tracing::error!(%error, "Offset commit failed, rewinding to last committed offsets");
                if closing {
                    return;
                }
                for ((t, p), o) in &self.last_committed {
                    if let Err(error) = self.consumer.seek(t, *p, *o) {
                        tracing::error!(%error, "Rewind failed");
                    }
                }
                self.current.clone_from(&self.last_committed);
            }
        }
    }

    /// The stop path: a final synchronous commit (only if the task did not fail), then
    /// `stop`, then the consumer leaves its group.
    async fn stop(mut self, healthy: bool) -> Result<(), ConnectError> {
        if healthy {
            self.commit(true, None).await;
            if let Err(e) = self
                .task
                .close(&self.assignment.iter().cloned().collect::<Vec<_>>())
                .await
            {
                tracing::warn!(error = %e, "Task close failed");
            }
        }
        let stopped = self.task.stop().await;
        let committed = if healthy {
            self.last_committed.clone()
        } else {
            Offsets::new()
        };
        let consumer = self.consumer;
        if let Err(error) = tokio::task::spawn_blocking(move || consumer.close(&committed))
            .await
            .unwrap_or(Ok(()))
        {
            tracing::warn!(%error, "Consumer close failed");
        }
        stopped
    }
}

/// The dead letter queue, when the connector names a topic for it.
async fn open_dlq(ctx: &TaskContext) -> Result<Option<DeadLetterQueue>, ConnectError> {
    let Some(settings) = ctx.connector.dlq.clone() else {
        return Ok(None);
    };
    let client_id = format!(
        "connector-dlq-producer-{}-{}",
        ctx.id.connector, ctx.id.task
    );
    let producer = ferry_kafka::client_config(
        ClientRole::Producer,
        &ctx.client_layers("producer"),
        &[
            ("client.id", client_id.as_str()),
            ("acks", "all"),
            ("enable.idempotence", "false"),
        ],
    )
    .map_err(|e| ConnectError::with_source("Invalid producer settings", e))?;
    let admin_config =
        ferry_kafka::client_config(ClientRole::Admin, &ctx.client_layers("admin"), &[])
            .map_err(|e| ConnectError::with_source("Invalid admin settings", e))?;
    let admin = ferry_kafka::admin::Admin::new(&admin_config)
        .map_err(|e| ConnectError::with_source("Failed to create the admin client", e))?;
    DeadLetterQueue::open(
        settings,
        &producer,
        &admin,
        &ctx.id.connector,
        ctx.id.task,
        ctx.errors.metrics().clone(),
    )
    .await
    .map(Some)
}

/// A sink record as the bytes it was consumed from, rebuilt with the task's converters (Java
/// does the same when the original consumer record is gone).
fn consumed_form(ctx: &TaskContext, record: &SinkRecord) -> Result<ConsumedRecord, ConnectError> {
    let topic = &record.original_topic;
    let mut headers = Vec::with_capacity(record.headers.len());
    for h in &record.headers {
        headers.push((
            h.key.clone(),
            ctx.header_converter
                .from_connect_header(topic, &h.key, h.schema.as_ref(), &h.value)?,
        ));
    }
    Ok(ConsumedRecord {
        topic: topic.clone(),
        partition: record.original_kafka_partition,
        offset: record.original_kafka_offset,
        timestamp: record.timestamp,
        log_append_time: record.timestamp_type == TimestampType::LogAppendTime,
        key: ctx
            .key_converter
            .from_connect_data(topic, record.key_schema.as_ref(), &record.key)?,
        value: ctx.value_converter.from_connect_data(
            topic,
            record.value_schema.as_ref(),
            &record.value,
        )?,
        headers,
    })
}

#[cfg(test)]
#[path = "sink_task_tests.rs"]
mod tests;
