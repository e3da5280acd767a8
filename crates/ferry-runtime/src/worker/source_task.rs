//! The source pipeline: poll → convert → produce; offsets are committed every
//! `offset.flush.interval.ms` for acknowledged records only, and once more on every stop.

use std::sync::Arc;
use std::time::Duration;

use ferry_api::record::{RecordMetadata, SourceRecord};
use ferry_api::task::{SourceTask, SourceTaskContext};
use ferry_api::transaction::{TransactionContext, TransactionRequest};
use ferry_api::ConnectError;
use ferry_kafka::client_properties::ClientRole;
use ferry_kafka::producer::{Ack, BatchError, BatchRecord, OutgoingRecord, SendError};
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::errors::{ErrorContext, ErrorHandler, Stage};
use crate::metrics::{elapsed_ms, TaskClient};
use crate::status::{State, TopicTracker};
use crate::storage::offset_codec::{encode_key, encode_offset};
use crate::storage::offsets::ConnectorOffsetReader;
use crate::worker::clients::RecordProducer;
use crate::worker::exactly_once::{ExactlyOnce, TransactionBoundary};
use crate::worker::submitted_records::{PartitionOffset, SubmittedRecords};
use crate::worker::task_context::TaskContext;
use crate::worker::topic_creation::{TopicCreation, TOPIC_CREATION_ENABLE};

/// How long to wait for an acknowledgement when librdkafka's queue is full.
const QUEUE_FULL_BACKOFF: Duration = Duration::from_millis(100);
/// How long an exactly-once task's producer may take to register its transactional id, or to
/// commit or abort a transaction.
const TRANSACTION_CALL_TIMEOUT: Duration = Duration::from_secs(60);
/// The sequence number of an offset record: no acknowledgement of it is awaited.
const OFFSET_RECORD_SEQ: usize = usize::MAX;

struct SourcePipeline {
    ctx: TaskContext,
    task: Box<dyn SourceTask>,
    producer: Box<dyn RecordProducer>,
    acks: mpsc::UnboundedReceiver<Ack>,
    submitted: SubmittedRecords,
    /// The task is shown its records again in `commit_record`, so each is held until
    /// acknowledged; otherwise only its source partition and offset are.
    holds_records: bool,
    /// Committable offsets not yet written; kept across a failed write so none is lost.
    staged: Vec<PartitionOffset>,
    /// Reused buffers for converted headers, so a record with headers costs no extra vector.
    header_bytes: Vec<(String, Option<Vec<u8>>)>,
    /// Converted records of the current batch not yet handed to the producer.
    outbox: Outbox,
    /// KIP-158: the connector's topic creation rules and the admin client that applies them.
    topic_creation: Option<(TopicCreation, ferry_kafka::admin::Admin)>,
    /// An exactly-once task's transaction (KIP-618); `None` for at-least-once tasks.
    transaction: Option<Transaction>,
}

/// Converted records of one topic, without headers or timestamp, that go to the producer
/// together: one call into librdkafka per poll batch instead of one per record. Each is
/// already submitted (its sequence number taken), so the outbox is emptied before anything
/// that expects the submitted records to be in the producer: the end of the batch, a
/// transaction's commit or abort, a record that is sent alone, and the stop.
#[derive(Default)]
struct Outbox {
    topic: String,
    records: Vec<BatchRecord>,
}

/// An exactly-once task's current transaction.
struct Transaction {
    settings: ExactlyOnce,
    /// Records were sent since the last commit.
    open: bool,
    last_commit: Instant,
    /// With `transaction.boundary=connector`: what the task asks.
    requests: Option<Arc<TransactionContext>>,
}

/// The connector's topic creation, when the worker and the connector ask for it.
fn topic_creation(
    ctx: &TaskContext,
) -> Result<Option<(TopicCreation, ferry_kafka::admin::Admin)>, ConnectError> {
    let enabled = ctx
        .worker
        .originals
        .get(TOPIC_CREATION_ENABLE)
        .is_none_or(|v| !v.trim().eq_ignore_ascii_case("false"));
    let rules = TopicCreation::from_config(enabled, &ctx.connector.props).map_err(|errors| {
        let messages: Vec<String> = errors.into_iter().map(|(_, m)| m).collect();
        ConnectError::other(messages.join("; "))
    })?;
    let Some(rules) = rules else {
        return Ok(None);
    };
    let config = ferry_kafka::client_config(ClientRole::Admin, &ctx.client_layers("admin"), &[])
        .map_err(|e| ConnectError::with_source("Invalid admin settings", e))?;
    let admin = ferry_kafka::admin::Admin::new(&config)
        .map_err(|e| ConnectError::with_source("Failed to create the admin client", e))?;
    Ok(Some((rules, admin)))
}

fn producer_config(
    ctx: &TaskContext,
) -> Result<ferry_kafka::rdkafka::ClientConfig, ferry_kafka::KafkaClientError> {
    let client_id = format!("connector-producer-{}-{}", ctx.id.connector, ctx.id.task);
    // Java's defaults for connector producers: all replicas acknowledge, one request in flight
    // per connection so retries keep order, and no delivery deadline.
    let mut fixed = vec![
        ("client.id", client_id.as_str()),
        ("acks", "all"),
        ("max.in.flight.requests.per.connection", "1"),
        // Java's client partitions keyed records with murmur2; so must we, to land on the same
        // partitions as records Java Connect wrote.
        ("partitioner", "murmur2_random"),
    ];
    if ctx.exactly_once.is_none() {
        fixed.extend([("enable.idempotence", "false"), ("message.timeout.ms", "0")]);
    }
    let mut config =
        ferry_kafka::client_config(ClientRole::Producer, &ctx.client_layers("producer"), &fixed)?;
    if let Some(eos) = &ctx.exactly_once {
        // As Java's exactly-once task producer: idempotent and transactional whatever the
        // overrides say (a different value is overwritten, with a warning). A transactional
        // producer's deliveries are bounded by its transaction timeout, so librdkafka's own
        // message timeout stays.
        for (key, value) in [
            ("enable.idempotence", "true"),
            ("transactional.id", eos.transactional_id.as_str()),
        ] {
            if let Some(given) = config.get(key).filter(|g| !g.eq_ignore_ascii_case(value)) {
                tracing::warn!(
                    "The value '{given}' for the '{key}' property will be ignored as it cannot be overridden for connectors when exactly-once source support is enabled. The value '{value}' will be used instead."
                );
            }
            config.set(key, value);
        }
    }
    Ok(config)
}

pub(crate) async fn run(ctx: TaskContext, task: Box<dyn SourceTask>) -> Result<(), ConnectError> {
    let mut config = producer_config(&ctx)
        .map_err(|e| ConnectError::with_source("Invalid producer settings", e))?;
    let stats_interval = ctx.worker.client_statistics_interval_ms;
    if stats_interval > 0 {
        ferry_kafka::stats::enable(&mut config, stats_interval);
    }
    let parts = ctx
        .clients
        .producer(&config)
        .map_err(|e| ConnectError::with_source("Failed to create the producer", e))?;
    if let Some(stats) = parts.stats {
        ctx.metrics.set_client(TaskClient {
            client_id: config.get("client.id").unwrap_or_default().to_owned(),
            stats,
        });
    }
    run_with(ctx, task, parts.producer, parts.acks).await
}

/// The pipeline on a producer made already (librdkafka's, or a fake in tests).
pub(crate) async fn run_with(
    mut ctx: TaskContext,
    mut task: Box<dyn SourceTask>,
    producer: Box<dyn RecordProducer>,
    acks: mpsc::UnboundedReceiver<Ack>,
) -> Result<(), ConnectError> {
    let reader = Arc::new(ConnectorOffsetReader {
        connector: ctx.id.connector.clone(),
        store: ctx.offsets.clone(),
    });
    let requests = ctx
        .exactly_once
        .as_ref()
        .filter(|eos| eos.boundary == TransactionBoundary::Connector)
        .map(|_| Arc::new(TransactionContext::default()));
    let context = SourceTaskContext {
        configs: ctx.task_props.clone(),
        offset_reader: reader,
        identity: ctx.identity(),
        transactions: requests.clone(),
        metrics: ctx.metrics.plugin.clone(),
    };
    if !ctx.wait_while_paused().await {
        return Ok(());
    }
    // A connector's own offsets topic exists (and is read) before its task produces to it.
    ctx.offsets.open().await.map_err(|e| {
        ConnectError::with_source("Failed to open the connector's offsets topic", e)
    })?;
    if let Some(eos) = &ctx.exactly_once {
        // As Java's ExactlyOnceWorkerSourceTask: the leader fences earlier generations first,
        // then this producer registers its id (fencing any zombie of the same task), then the
        // task must still be current here.
        eos.checks.before_producer(&ctx.id).await?;
        producer
            .init_transactions(TRANSACTION_CALL_TIMEOUT)
            .await
            .map_err(|e| {
                ConnectError::with_source("Failed to initialize the transactional producer", e)
            })?;
        eos.checks.after_producer(&ctx.id).await?;
    }
    task.start(&ctx.task_props, context).await?;
    ctx.report(State::Running, None);
    if ctx.worker.topic_tracking {
        // As Java's send callback: a topic is active once the broker acknowledged a record of
        // it, whatever the task is doing at that moment (a file source may be waiting a second
        // for its file to grow).
        let topics = std::sync::Mutex::new(TopicTracker::new(true, &ctx.id, ctx.status.clone()));
        producer.on_delivered(Box::new(move |topic| {
            topics
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .record(topic);
        }));
    }
    let topic_creation = topic_creation(&ctx)?;
    let transaction = ctx.exactly_once.clone().map(|settings| Transaction {
        settings,
        open: false,
        last_commit: Instant::now(),
        requests,
    });
    let mut pipeline = SourcePipeline {
        holds_records: task.needs_commit_record(),
        transaction,
        topic_creation,
        ctx,
        task,
        producer,
        acks,
        submitted: SubmittedRecords::default(),
        staged: Vec::new(),
        header_bytes: Vec::new(),
        outbox: Outbox::default(),
    };
    let outcome = pipeline.execute().await;
    let stopped = pipeline.stop(outcome.is_err()).await;
    outcome.and(stopped)
}

impl SourcePipeline {
    async fn execute(&mut self) -> Result<(), ConnectError> {
        let interval = self.ctx.worker.offset_flush_interval;
        let mut next_commit = Instant::now() + interval;
        loop {
            self.drain_acks()?;
            if self.ctx.cancel.is_cancelled() {
                return Ok(());
            }
            if self.ctx.is_paused() {
                if self.transaction.is_some() {
                    self.final_commit().await?;
                } else {
                    self.commit_offsets().await;
                }
                if !self.ctx.wait_while_paused().await {
                    return Ok(());
                }
                if let Some(t) = self.transaction.as_mut() {
                    t.last_commit = Instant::now();
                }
            }
            // Exactly-once tasks commit with their transactions only.
            if self.transaction.is_none() && Instant::now() >= next_commit {
                self.commit_offsets().await;
                next_commit = Instant::now() + interval;
            }
            let polled_at = Instant::now();
            // A poll is never dropped for a commit: a task's poll need not be cancel-safe (the
            // checkpoint task's records, dropped here, were never written and never emitted
            // again). Offsets are committed while it runs, as Java's committer does beside
            // `poll`; the task's own commit hook runs when the poll is back, since it needs the
            // task. Exactly-once tasks commit as batches are dispatched, so only the others wake
            // up for the commit interval (an exactly-once task woken here would spin on a past
            // deadline).
            let mut hook_due = false;
            let batch = {
                let poll = self.task.poll();
                tokio::pin!(poll);
                loop {
                    tokio::select! {
                        _ = self.ctx.cancel.cancelled() => return Ok(()),
                        _ = tokio::time::sleep_until(next_commit), if self.transaction.is_none() => {
                            hook_due |= commit_positions(&mut self.submitted, &mut self.staged, &self.ctx).await;
                            next_commit = Instant::now() + interval;
                        }
                        batch = &mut poll => break batch?,
                    }
                }
            };
            if hook_due {
                self.commit_hook().await;
            }
            let metrics = &self.ctx.metrics;
            if !batch.is_empty() {
                metrics.poll_batch_time_ms.record(elapsed_ms(polled_at));
                metrics.batch_size.record(batch.len() as f64);
                metrics.source_record_poll.mark(batch.len() as u64);
            }
            if let Some(request) = self.requests().and_then(|r| r.take_before_batch()) {
                self.apply_request(request).await?;
            }
            for record in batch {
                let tag = record.task_tag;
                self.send(record).await?;
                if let Some(requests) = self.requests() {
                    if let Some(request) = requests.take_for_record(tag)? {
                        self.apply_request(request).await?;
                    }
                }
            }
            self.batch_dispatched().await?;
            self.ctx.metrics.set_active(self.submitted.outstanding());
        }
    }

    /// A batch is sent (or the poll returned nothing): an exactly-once task commits its
    /// transaction when its boundary says so.
    async fn batch_dispatched(&mut self) -> Result<(), ConnectError> {
        self.flush_outbox().await?;
        let Some(t) = self.transaction.as_ref() else {
            return Ok(());
        };
        let due = match t.settings.boundary {
            TransactionBoundary::Poll => true,
            TransactionBoundary::Interval(every) => t.last_commit.elapsed() >= every,
            TransactionBoundary::Connector => return self.final_commit().await,
        };
        if due {
            self.commit_transaction().await?;
        }
        Ok(())
    }

    /// On pause and stop: Java's `maybeCommitFinalTransaction`. Connector-defined boundaries
    /// commit only what the task asked for; the others commit what was sent.
    async fn final_commit(&mut self) -> Result<(), ConnectError> {
        match self.requests() {
            Some(requests) => match requests.take_for_batch()? {
                Some(request) => self.apply_request(request).await,
                None => Ok(()),
            },
            None => self.commit_transaction().await,
        }
    }

    /// The task's say over its transactions (`transaction.boundary=connector`).
    fn requests(&self) -> Option<Arc<TransactionContext>> {
        self.transaction.as_ref().and_then(|t| t.requests.clone())
    }

    /// A commit or abort the task asked for, as Java's connector-defined boundaries do it: an
    /// aborted transaction's records are dropped, but their offsets are committed, so the task
    /// does not see them again.
    async fn apply_request(&mut self, request: TransactionRequest) -> Result<(), ConnectError> {
        if request == TransactionRequest::Abort {
            self.abort_transaction().await?;
        }
        self.commit_transaction().await
    }

    /// Aborts the open transaction, then opens one for the aborted records' offsets.
    async fn abort_transaction(&mut self) -> Result<(), ConnectError> {
        self.flush_outbox().await?;
        let Some(t) = self.transaction.as_ref() else {
            return Ok(());
        };
        if !t.open {
            tracing::warn!(
                "Ignoring request by task to abort transaction as the current transaction is empty"
            );
            return Ok(());
        }
        tracing::info!("Aborting transaction as requested by the connector");
        self.producer
            .abort_transaction(TRANSACTION_CALL_TIMEOUT)
            .await
            .map_err(|e| ConnectError::with_source("Failed to abort the transaction", e))?;
        // The aborted records' reports: delivered into the aborted transaction, or purged.
        // Neither fails the task; the records count as done.
        let deadline = Instant::now() + TRANSACTION_CALL_TIMEOUT;
        while self.producer.in_flight() > 0 && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        while let Ok(ack) = self.acks.try_recv() {
            let task = &mut self.task;
            let committed = self.submitted.ack(ack.seq, |record| match record {
                Some(record) => task.commit_record(record, None),
                None => Ok(()),
            });
            if let Some(committed) = committed {
                committed?;
            }
        }
        self.producer
            .begin_transaction()
            .map_err(|e| ConnectError::with_source("Failed to begin a transaction", e))?;
        Ok(())
    }

    /// Writes the offsets of the records sent in the open transaction with the same producer,
    /// then commits it: the records and their offsets become visible together, or neither.
    /// A failure fails the task, as in Java; its records are aborted with the transaction.
    async fn commit_transaction(&mut self) -> Result<(), ConnectError> {
        self.flush_outbox().await?;
        let Some(t) = self.transaction.as_mut() else {
            return Ok(());
        };
        if !t.open {
            t.last_commit = Instant::now();
            if let Err(error) = self.task.commit().await {
                tracing::warn!(%error, "Task commit hook failed");
            }
            return Ok(());
        }
        let offsets_topic = t.settings.offsets_topic.clone();
        // A copy for the worker's offsets topic, when the connector has a topic of its own.
        let copy_to_worker = t.settings.worker_offsets.is_some();
        let failed = |e: &dyn std::fmt::Display| {
            ConnectError::other(format!(
                "Failed to flush offsets and/or records for task {}: {e}",
                self.ctx.id
            ))
        };
        let mut written = Vec::new();
        for (partition, offset) in self.submitted.latest() {
            let key = encode_key(&self.ctx.id.connector, &partition)?;
            let value = encode_offset(&offset)?;
            if copy_to_worker {
                written.push((key.clone(), Some(value.clone())));
            }
            let record = OutgoingRecord {
                topic: &offsets_topic,
                partition: None,
                key: Some(&key),
                value: Some(&value),
                timestamp: None,
                headers: Vec::new(),
            };
            loop {
                match self.producer.send(&record, OFFSET_RECORD_SEQ) {
                    Ok(()) => break,
                    Err(SendError::QueueFull) => tokio::time::sleep(QUEUE_FULL_BACKOFF).await,
                    Err(SendError::Fatal(e)) => return Err(failed(&e)),
                }
            }
        }
        let started = Instant::now();
        self.producer
            .commit_transaction(TRANSACTION_CALL_TIMEOUT)
            .await
            .map_err(|e| failed(&e))?;
        self.ctx
            .metrics
            .offset_commit_time_ms
            .record(elapsed_ms(started));
        if let Some(t) = self.transaction.as_mut() {
            t.open = false;
            t.last_commit = Instant::now();
            if let Some(worker) = &t.settings.worker_offsets {
                if let Err(error) = worker.set(written).await {
                    tracing::warn!(%error, "Failed to write offsets to the worker's offsets topic as well");
                }
            }
        }
        // The commit flushed every record: their acknowledgements are in.
        self.drain_acks()?;
        self.submitted.forget_acknowledged();
        if let Err(error) = self.task.commit().await {
            tracing::warn!(%error, "Task commit hook failed");
        }
        Ok(())
    }

    /// Tolerates (or not) a failed stage of one record; a tolerated record is skipped and
    /// reported to the task as never sent.
    fn tolerate(
        &mut self,
        stage: Stage,
        class: &str,
        error: &ConnectError,
        record: &SourceRecord,
    ) -> Result<(), ConnectError> {
        let describe = || {
            format!(
                "SourceRecord{{topic='{}', kafkaPartition={:?}, value={}}}",
                record.topic, record.kafka_partition, record.value
            )
        };
        self.ctx.errors.handle(&ErrorContext {
            stage,
            class,
            error,
            record: &describe,
        })?;
        self.task.commit_record(record, None)
    }

    /// Transforms, converts and sends one record.
    async fn send(&mut self, mut record: SourceRecord) -> Result<(), ConnectError> {
        if !self.ctx.chain.is_empty() {
            match self.ctx.chain.apply(&mut record) {
                Ok(true) => {}
                Ok(false) => return self.task.commit_record(&record, None),
                Err(failure) => {
                    let (class, error) = (failure.class.to_owned(), failure.error);
                    return self.tolerate(Stage::Transformation, &class, &error, &record);
                }
            }
        }
        let topic = record.topic.as_str();
        let ctx = &self.ctx;
        let key = match ctx
            .errors
            .with_retries(|| {
                ctx.key_converter
                    .from_connect_data(topic, record.key_schema.as_ref(), &record.key)
            })
            .await
        {
            Ok(k) => k,
            Err(e) => {
                let class = self.ctx.converter_classes.key.clone();
                return self.tolerate(Stage::KeyConverter, &class, &e, &record);
            }
        };
        let value = match ctx
            .errors
            .with_retries(|| {
                ctx.value_converter.from_connect_data(
                    topic,
                    record.value_schema.as_ref(),
                    &record.value,
                )
            })
            .await
        {
            Ok(v) => v,
            Err(e) => {
                let class = self.ctx.converter_classes.value.clone();
                return self.tolerate(Stage::ValueConverter, &class, &e, &record);
            }
        };
        self.header_bytes.clear();
        for h in &record.headers {
            match ctx
                .errors
                .with_retries(|| {
                    ctx.header_converter.from_connect_header(
                        topic,
                        &h.key,
                        h.schema.as_ref(),
                        &h.value,
                    )
                })
                .await
            {
                Ok(bytes) => self.header_bytes.push((h.key.clone(), bytes)),
                Err(e) => {
                    let class = self.ctx.converter_classes.header.clone();
                    return self.tolerate(Stage::HeaderConverter, &class, &e, &record);
                }
            }
        }
        self.create_topic(&record.topic).await?;
        let topic = record.topic.as_str();
        let timestamp = match record.timestamp {
            Some(ts) if ts < -1 => {
                return Err(ConnectError::other(format!(
                    "Invalid record timestamp {ts}: must be non-negative or -1"
                )))
            }
            Some(-1) | None => None,
            Some(ts) => Some(ts),
        };
        if let Some(t) = self.transaction.as_mut() {
            if topic == t.settings.offsets_topic {
                return Err(ConnectError::other(
                    "Source tasks may not produce to their own offsets topics when exactly-once support is enabled",
                ));
            }
            if !t.open {
                self.producer
                    .begin_transaction()
                    .map_err(|e| ConnectError::with_source("Failed to begin a transaction", e))?;
                t.open = true;
            }
        }
        let seq = self.submitted.next_seq();
        if self.header_bytes.is_empty() && timestamp.is_none() {
            if self.outbox.topic != topic {
                self.flush_outbox().await?;
                topic.clone_into(&mut self.outbox.topic);
            }
            self.outbox.records.push(BatchRecord {
                partition: record.kafka_partition,
                key,
                value,
                seq,
            });
        } else {
            // Batches cannot carry headers or timestamps; this record goes alone, after the
            // staged ones.
            self.flush_outbox().await?;
            // Out of `self` while waiting for room, which needs all of it.
            let header_bytes = std::mem::take(&mut self.header_bytes);
            let outgoing = OutgoingRecord {
                topic,
                partition: record.kafka_partition,
                key: key.as_deref(),
                value: value.as_deref(),
                timestamp,
                headers: header_bytes
                    .iter()
                    .map(|(k, v)| (k.as_str(), v.as_deref()))
                    .collect(),
            };
            loop {
                match self.producer.send(&outgoing, seq) {
                    Ok(()) => break,
                    Err(SendError::QueueFull) => self.wait_for_room().await?,
                    Err(SendError::Fatal(e)) => {
                        return Err(ConnectError::with_source(
                            format!("Failed to send record to topic {topic}"),
                            e,
                        ))
                    }
                }
            }
            drop(outgoing);
            self.header_bytes = header_bytes;
        }
        if self.holds_records {
            self.submitted.submit(record);
        } else {
            self.submitted
                .submit_position(record.source_partition, record.source_offset);
        }
        Ok(())
    }

    /// Hands the outbox's records to the producer. It is empty afterwards, also on an error:
    /// after one, the task fails and its unsent records stay unacknowledged.
    async fn flush_outbox(&mut self) -> Result<(), ConnectError> {
        if self.outbox.records.is_empty() {
            return Ok(());
        }
        let mut records = std::mem::take(&mut self.outbox.records);
        let sent = self.send_staged(&records).await;
        records.clear();
        self.outbox.records = records;
        sent
    }

    async fn send_staged(&mut self, records: &[BatchRecord]) -> Result<(), ConnectError> {
        let mut from = 0;
        while from < records.len() {
            match self
                .producer
                .send_batch(&self.outbox.topic, &records[from..])
            {
                Ok(()) => break,
                Err(BatchError {
                    index,
                    error: SendError::QueueFull,
                }) => {
                    from += index;
                    self.wait_for_room().await?;
                }
                Err(BatchError {
                    error: SendError::Fatal(e),
                    ..
                }) => {
                    return Err(ConnectError::with_source(
                        format!("Failed to send record to topic {}", self.outbox.topic),
                        e,
                    ))
                }
            }
        }
        Ok(())
    }

    /// librdkafka's queue is full: lets it drain a while, handling whatever acknowledgement
    /// arrives meanwhile.
    async fn wait_for_room(&mut self) -> Result<(), ConnectError> {
        if let Some(reason) = self.producer.connection_failure() {
            return Err(ConnectError::other(format!(
                "The producer cannot connect to Kafka: {reason}"
            )));
        }
        if let Ok(Some(ack)) = tokio::time::timeout(QUEUE_FULL_BACKOFF, self.acks.recv()).await {
            if handle_ack(
                &mut self.submitted,
                self.task.as_mut(),
                &mut self.ctx.errors,
                ack,
            )? {
                self.ctx.metrics.source_record_write.mark(1);
            }
        }
        Ok(())
    }

    /// Creates `topic` by the connector's rules before its first record (KIP-158); a topic that
    /// exists already is left as it is.
    async fn create_topic(&mut self, topic: &str) -> Result<(), ConnectError> {
        let Some((rules, admin)) = self.topic_creation.as_mut() else {
            return Ok(());
        };
        let Some(group) = rules.first_use(topic) else {
            return Ok(());
        };
        let spec = ferry_kafka::admin::TopicSpec {
            name: topic.to_owned(),
            partitions: group.partitions,
            replication_factor: group.replication_factor,
            configs: group.configs.clone(),
        };
        let group = group.name.clone();
        match admin.create_topic(&spec).await {
            Ok(true) => {
                tracing::info!(topic, group, partitions = spec.partitions, "Created topic");
                Ok(())
            }
            Ok(false) => Ok(()),
            Err(e) => {
                rules.retry(topic);
                Err(ConnectError::with_source(
                    format!("Unable to create topic {topic} with the settings of group {group}"),
                    e,
                ))
            }
        }
    }

    fn drain_acks(&mut self) -> Result<(), ConnectError> {
        if let Some(reason) = self.producer.connection_failure() {
            return Err(ConnectError::other(format!(
                "The producer cannot connect to Kafka: {reason}"
            )));
        }
        let mut written = 0;
        while let Ok(ack) = self.acks.try_recv() {
            written += u64::from(handle_ack(
                &mut self.submitted,
                self.task.as_mut(),
                &mut self.ctx.errors,
                ack,
            )?);
        }
        if written > 0 {
            self.ctx.metrics.source_record_write.mark(written);
        }
        Ok(())
    }

    /// Writes the offsets of acknowledged records; a failed write keeps them for the next try.
    async fn commit_offsets(&mut self) {
        if commit_positions(&mut self.submitted, &mut self.staged, &self.ctx).await {
            self.commit_hook().await;
        }
    }

    /// The task's `commit`, after its offsets were written.
    async fn commit_hook(&mut self) {
        if let Err(error) = self.task.commit().await {
            tracing::warn!(%error, "Task commit hook failed");
        }
    }

    /// The stop path: stop the task, wait for outstanding acknowledgements, commit once more.
    /// An exactly-once task commits its last transaction, unless it failed.
    async fn stop(&mut self, failed: bool) -> Result<(), ConnectError> {
        // Records converted before a failure in the same batch are sent, as Java sends each
        // record before it looks at the next.
        if let Err(error) = self.flush_outbox().await {
            tracing::warn!(%error, "Could not send the batch's last records while stopping");
        }
        let stopped = self.task.stop().await;
        if self.transaction.is_some() {
            let committed = if failed {
                Ok(())
            } else {
                self.final_commit().await
            };
            if self.transaction.as_ref().is_some_and(|t| t.open) {
                // A failed task's transaction, or one its connector did not ask to commit:
                // abort at once, rather than leave read_committed consumers waiting for it to
                // time out.
                if let Err(error) = self
                    .producer
                    .abort_transaction(TRANSACTION_CALL_TIMEOUT)
                    .await
                {
                    tracing::warn!(%error, "Could not abort the task's open transaction");
                }
            }
            return stopped.and(committed);
        }
        // librdkafka's own thread keeps delivering while we wait, so waiting asynchronously for
        // the in-flight count to reach zero is a flush that does not block the runtime.
        let deadline = Instant::now() + self.ctx.worker.offset_flush_timeout;
        while self.producer.in_flight() > 0 && Instant::now() < deadline {
            if let Ok(Some(ack)) = tokio::time::timeout(QUEUE_FULL_BACKOFF, self.acks.recv()).await
            {
                match handle_ack(
                    &mut self.submitted,
                    self.task.as_mut(),
                    &mut self.ctx.errors,
                    ack,
                ) {
                    Ok(true) => self.ctx.metrics.source_record_write.mark(1),
                    Ok(false) => {}
                    Err(error) => tracing::warn!(%error, "A record failed while stopping"),
                }
            }
        }
        if self.producer.in_flight() > 0 {
            tracing::warn!(
                outstanding = self.submitted.outstanding(),
                "Not every record was acknowledged before the stop"
            );
        }
        let acked = self.drain_acks();
        self.commit_offsets().await;
        stopped.and(acked)
    }
}

/// Handles one acknowledgement; `true` when it is a record written to Kafka.
fn handle_ack(
    submitted: &mut SubmittedRecords,
    task: &mut dyn SourceTask,
    errors: &mut ErrorHandler,
    ack: Ack,
) -> Result<bool, ConnectError> {
    match ack.result {
        Ok(delivered) => {
            let Some(committed) = submitted.ack(ack.seq, |record| {
                let Some(record) = record else {
                    return Ok(());
                };
                let metadata = RecordMetadata {
                    topic: &record.topic,
                    partition: delivered.partition,
                    offset: delivered.offset,
                };
                task.commit_record(record, Some(&metadata))
            }) else {
                return Ok(false);
            };
            committed?;
            Ok(true)
        }
        Err(e) => {
            let error =
                ConnectError::with_source("Unrecoverable exception from producer send callback", e);
            let describe = || {
                ack.topic
                    .as_deref()
                    .map(|t| format!("SourceRecord{{topic='{t}'}}"))
                    .unwrap_or_default()
            };
            // Not tolerated, the record stays unacknowledged and the task fails, so no offset
            // from it on commits (Java's producerSendException). Tolerated, it counts as done,
            // so later offsets of its partition commit.
            errors.handle(&ErrorContext {
                stage: Stage::KafkaProduce,
                class: "org.apache.kafka.clients.producer.KafkaProducer",
                error: &error,
                record: &describe,
            })?;
            let committed = submitted.ack(ack.seq, |record| {
                record.map_or(Ok(()), |record| task.commit_record(record, None))
            });
            if let Some(committed) = committed {
                committed?;
            }
            Ok(false)
        }
    }
}

#[cfg(test)]
#[path = "source_task_tests.rs"]
mod tests;

/// Writes the acknowledged records' offsets (and any staged by an earlier failed write) to the
/// offset store; a failed write keeps them staged for the next commit and answers false (then
/// the task's commit hook does not run, as in Java).
async fn commit_positions(
    submitted: &mut SubmittedRecords,
    staged: &mut Vec<PartitionOffset>,
    ctx: &TaskContext,
) -> bool {
    for (partition, offset) in submitted.committable() {
        match staged
            .iter_mut()
            .find(|(p, _)| Arc::ptr_eq(p, &partition) || p == &partition)
        {
            Some(slot) => slot.1 = offset,
            None => staged.push((partition, offset)),
        }
    }
    if !staged.is_empty() {
        let entries: Result<Vec<_>, ConnectError> = staged
            .iter()
            .map(|(p, o)| Ok((encode_key(&ctx.id.connector, p)?, Some(encode_offset(o)?))))
            .collect();
        let entries = match entries {
            Ok(e) => e,
            Err(error) => {
                tracing::error!(%error, "Invalid source offsets; they cannot be committed");
                staged.clear();
                return false;
            }
        };
        let timeout = ctx.worker.offset_flush_timeout;
        let started = Instant::now();
        match tokio::time::timeout(timeout, ctx.offsets.set(entries)).await {
            Ok(Ok(())) => {
                ctx.metrics
                    .offset_commit_time_ms
                    .record(elapsed_ms(started));
                tracing::debug!(partitions = staged.len(), "Committed source offsets");
                staged.clear();
            }
            Ok(Err(error)) => {
                tracing::error!(%error, "Failed to commit offsets");
                return false;
            }
            Err(_) => {
                tracing::error!(
                    timeout_ms = timeout.as_millis() as u64,
                    "Timed out committing offsets"
                );
                return false;
            }
        }
    }
    true
}
