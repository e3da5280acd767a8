//! In-memory stand-ins for Kafka and the offset store, and a task context built on them, for the
//! pipelines' unit tests.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use ferry_api::converter::{Converter, HeaderConverter};
use ferry_api::ConfigMap;
use ferry_converters::StringConverter;
use ferry_kafka::consumer::{ConsumedRecord, RebalanceEvent, Subscription};
use ferry_kafka::producer::{Ack, BatchError, BatchRecord, Delivered, OutgoingRecord, SendError};
use ferry_kafka::KafkaClientError;
use tokio::sync::{mpsc, watch, Notify};
use tokio_util::sync::CancellationToken;

use crate::config::connector::ConnectorConfig;
use crate::config::worker::WorkerConfig;
use crate::errors::{ErrorHandler, ErrorSettings};
use crate::metrics::{ConnectMetrics, TaskKind};
use crate::status::{MemoryStatusStore, TaskId};
use crate::storage::offsets::{OffsetBackingStore, OffsetStoreError};
use crate::worker::clients::{
    ClientFactory, ConsumerParts, PartitionOffsets, ProducerParts, RecordConsumer, RecordProducer,
};
use crate::worker::task_context::{ConverterClasses, TargetState, TaskContext};
use crate::worker::transformation_chain::TransformationChain;

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A record the fake producer was given.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Sent {
    pub topic: String,
    pub value: Option<String>,
    pub seq: usize,
}

/// The fake producer's state, shared with the test.
#[derive(Default)]
pub(crate) struct ProducerState {
    pub sent: Mutex<Vec<Sent>>,
    /// Sequence numbers sent and not acknowledged yet (when acknowledgements are held).
    held: Mutex<Vec<usize>>,
    hold_acks: std::sync::atomic::AtomicBool,
    /// With acknowledgements held: how many records fit before sends find the queue full
    /// (0: any number).
    capacity: std::sync::atomic::AtomicUsize,
    /// The size of each batch given to `send_batch`, in order.
    pub batches: Mutex<Vec<usize>>,
    /// Sequence numbers whose delivery fails, as a record the broker refuses.
    failing: Mutex<Vec<usize>>,
    acks: Mutex<Option<mpsc::UnboundedSender<Ack>>>,
    /// The transaction calls made, in order.
    pub transactions: Mutex<Vec<TransactionCall>>,
    delivered: std::sync::OnceLock<ferry_kafka::producer::DeliveryObserver>,
}

impl ProducerState {
    /// From now on, records wait for [`ProducerState::acknowledge_held`].
    pub fn hold_acknowledgements(&self) {
        self.hold_acks
            .store(true, std::sync::atomic::Ordering::SeqCst);
    }

    /// From now on, a send finds the queue full while `records` acknowledgements are held.
    pub fn limit_queue(&self, records: usize) {
        self.capacity
            .store(records, std::sync::atomic::Ordering::SeqCst);
    }

    /// The record sent with `seq` will be reported undeliverable.
    pub fn fail_delivery_of(&self, seq: usize) {
        lock(&self.failing).push(seq);
    }

    /// Acknowledges every record held so far, in the order sent.
    pub fn acknowledge_held(&self) {
        let held: Vec<usize> = lock(&self.held).drain(..).collect();
        for seq in held {
            self.ack(seq);
        }
    }

    fn ack(&self, seq: usize) {
        if lock(&self.failing).contains(&seq) {
            if let Some(acks) = lock(&self.acks).as_ref() {
                let topic = lock(&self.sent)
                    .iter()
                    .find(|s| s.seq == seq)
                    .map(|s| s.topic.clone());
                let _ = acks.send(Ack {
                    seq,
                    result: Err(ferry_kafka::rdkafka::error::KafkaError::MessageProduction(
                        ferry_kafka::rdkafka::types::RDKafkaErrorCode::MessageSizeTooLarge,
                    )),
                    topic,
                });
            }
            return;
        }
        if let Some(observer) = self.delivered.get() {
            let topic = lock(&self.sent)
                .iter()
                .find(|s| s.seq == seq)
                .map(|s| s.topic.clone());
            if let Some(topic) = topic {
                observer(&topic);
            }
        }
        if let Some(acks) = lock(&self.acks).as_ref() {
            let _ = acks.send(Ack {
                seq,
                result: Ok(Delivered {
                    partition: 0,
                    offset: seq as i64,
                }),
                topic: None,
            });
        }
    }

    pub fn values(&self) -> Vec<String> {
        lock(&self.sent)
            .iter()
            .filter_map(|s| s.value.clone())
            .collect()
    }
}

/// A producer that acknowledges at once, or when the test says so.
pub(crate) struct FakeProducer(pub Arc<ProducerState>);

impl FakeProducer {
    pub fn new() -> (Self, Arc<ProducerState>, mpsc::UnboundedReceiver<Ack>) {
        let (tx, rx) = mpsc::unbounded_channel();
        let state = Arc::new(ProducerState::default());
        *lock(&state.acks) = Some(tx);
        (FakeProducer(state.clone()), state, rx)
    }
}

#[async_trait]
impl RecordProducer for FakeProducer {
    fn send(&self, record: &OutgoingRecord<'_>, seq: usize) -> Result<(), SendError> {
        let capacity = self.0.capacity.load(std::sync::atomic::Ordering::SeqCst);
        if capacity > 0 && lock(&self.0.held).len() >= capacity {
            return Err(SendError::QueueFull);
        }
        lock(&self.0.sent).push(Sent {
            topic: record.topic.to_owned(),
            value: record
                .value
                .map(|v| String::from_utf8_lossy(v).into_owned()),
            seq,
        });
        if self.0.hold_acks.load(std::sync::atomic::Ordering::SeqCst) {
            lock(&self.0.held).push(seq);
        } else {
            self.0.ack(seq);
        }
        Ok(())
    }

    fn send_batch(&self, topic: &str, records: &[BatchRecord]) -> Result<(), BatchError> {
        lock(&self.0.batches).push(records.len());
        crate::worker::clients::send_one_by_one(self, topic, records)
    }

    fn on_delivered(&self, observer: ferry_kafka::producer::DeliveryObserver) {
        let _ = self.0.delivered.set(observer);
    }

    fn connection_failure(&self) -> Option<String> {
        None
    }

    fn in_flight(&self) -> i32 {
        lock(&self.0.held).len() as i32
    }

    async fn init_transactions(&self, _timeout: Duration) -> Result<(), KafkaClientError> {
        lock(&self.0.transactions).push(TransactionCall::Init);
        Ok(())
    }

    fn begin_transaction(&self) -> Result<(), KafkaClientError> {
        lock(&self.0.transactions).push(TransactionCall::Begin);
        Ok(())
    }

    async fn commit_transaction(&self, _timeout: Duration) -> Result<(), KafkaClientError> {
        lock(&self.0.transactions).push(TransactionCall::Commit);
        Ok(())
    }

    async fn abort_transaction(&self, _timeout: Duration) -> Result<(), KafkaClientError> {
        lock(&self.0.transactions).push(TransactionCall::Abort);
        Ok(())
    }
}

/// A transaction call made of a fake producer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TransactionCall {
    Init,
    Begin,
    Commit,
    Abort,
}

/// What the sink pipeline asked of its consumer, in order.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ConsumerCall {
    Commit {
        offsets: PartitionOffsets,
        sync: bool,
    },
    FinishRevocation,
    Close {
        offsets: PartitionOffsets,
    },
}

/// The fake consumer's state, shared with the test.
pub(crate) struct ConsumerState {
    records: Mutex<VecDeque<ConsumedRecord>>,
    pub calls: Mutex<Vec<ConsumerCall>>,
    revoking: std::sync::atomic::AtomicBool,
    /// The partitions of the pending revocation; their fetched records go with them.
    revoked: Mutex<Vec<(String, i32)>>,
    /// Counts rebalance events; a poll returns early after one, as the real consumer's does.
    rebalances: std::sync::atomic::AtomicU64,
    arrived: Notify,
    events: mpsc::UnboundedSender<RebalanceEvent>,
}

impl ConsumerState {
    /// Records of `topic`'s `partition`, offsets from `first`, values `v<offset>`.
    pub fn add_records(&self, topic: &str, partition: i32, first: i64, count: i64) {
        let mut records = lock(&self.records);
        for offset in first..first + count {
            records.push_back(ConsumedRecord {
                topic: topic.to_owned(),
                partition,
                offset,
                timestamp: None,
                log_append_time: false,
                key: None,
                value: Some(format!("v{offset}").into_bytes()),
                headers: Vec::new(),
            });
        }
        drop(records);
        self.arrived.notify_one();
    }

    pub fn assign(&self, partitions: &[(&str, i32)]) {
        self.event(RebalanceEvent::Assigned(owned(partitions)));
    }

    fn event(&self, event: RebalanceEvent) {
        self.rebalances
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let _ = self.events.send(event);
        self.arrived.notify_one();
    }

    /// An orderly revocation: polls return at once until the pipeline finishes it.
    pub fn revoke(&self, partitions: &[(&str, i32)]) {
        self.revoking
            .store(true, std::sync::atomic::Ordering::SeqCst);
        *lock(&self.revoked) = owned(partitions);
        self.event(RebalanceEvent::Revoked(owned(partitions)));
    }

    pub fn lose(&self, partitions: &[(&str, i32)]) {
        self.drop_records_of(&owned(partitions));
        self.event(RebalanceEvent::Lost(owned(partitions)));
    }

    fn drop_records_of(&self, partitions: &[(String, i32)]) {
        lock(&self.records).retain(|r| {
            !partitions
                .iter()
                .any(|(t, p)| *t == r.topic && *p == r.partition)
        });
    }

    pub fn calls(&self) -> Vec<ConsumerCall> {
        lock(&self.calls).clone()
    }

    pub fn revocation_pending(&self) -> bool {
        self.revoking.load(std::sync::atomic::Ordering::SeqCst)
    }
}

fn owned(partitions: &[(&str, i32)]) -> Vec<(String, i32)> {
    partitions
        .iter()
        .map(|(t, p)| ((*t).to_owned(), *p))
        .collect()
}

pub(crate) struct FakeConsumer(pub Arc<ConsumerState>);

impl FakeConsumer {
    pub fn new() -> (
        Self,
        Arc<ConsumerState>,
        mpsc::UnboundedReceiver<RebalanceEvent>,
    ) {
        let (tx, rx) = mpsc::unbounded_channel();
        let state = Arc::new(ConsumerState {
            records: Mutex::default(),
            calls: Mutex::default(),
            revoking: Default::default(),
            revoked: Mutex::default(),
            rebalances: Default::default(),
            arrived: Notify::new(),
            events: tx,
        });
        (FakeConsumer(state.clone()), state, rx)
    }
}

#[async_trait]
impl RecordConsumer for FakeConsumer {
    async fn poll_batch(
        &self,
        max: usize,
        timeout: Duration,
    ) -> Result<Vec<ConsumedRecord>, KafkaClientError> {
        let deadline = tokio::time::Instant::now() + timeout;
        let seen = self.0.rebalances.load(std::sync::atomic::Ordering::SeqCst);
        loop {
            let arrived = self.0.arrived.notified();
            let rebalanced = self.0.rebalances.load(std::sync::atomic::Ordering::SeqCst) != seen;
            if rebalanced || self.0.revocation_pending() {
                return Ok(Vec::new());
            }
            {
                let mut records = lock(&self.0.records);
                if !records.is_empty() {
                    let n = records.len().min(max);
                    return Ok(records.drain(..n).collect());
                }
            }
            if tokio::time::timeout_at(deadline, arrived).await.is_err() {
                return Ok(Vec::new());
            }
        }
    }

    fn commit(&self, offsets: &PartitionOffsets, sync: bool) -> Result<(), KafkaClientError> {
        lock(&self.0.calls).push(ConsumerCall::Commit {
            offsets: offsets.clone(),
            sync,
        });
        Ok(())
    }

    fn pause(&self, _partitions: &[(String, i32)]) -> Result<(), KafkaClientError> {
        Ok(())
    }

    fn resume(&self, _partitions: &[(String, i32)]) -> Result<(), KafkaClientError> {
        Ok(())
    }

    fn seek(&self, _topic: &str, _partition: i32, _offset: i64) -> Result<(), KafkaClientError> {
        Ok(())
    }

    fn finish_revocation(&self) {
        let revoked = std::mem::take(&mut *lock(&self.0.revoked));
        self.0.drop_records_of(&revoked);
        self.0
            .revoking
            .store(false, std::sync::atomic::Ordering::SeqCst);
        lock(&self.0.calls).push(ConsumerCall::FinishRevocation);
    }

    fn close(self: Box<Self>, offsets: &PartitionOffsets) -> Result<(), KafkaClientError> {
        lock(&self.0.calls).push(ConsumerCall::Close {
            offsets: offsets.clone(),
        });
        Ok(())
    }
}

/// Makes fake clients and keeps their states, by client id, for the test to look at.
#[derive(Default)]
pub(crate) struct FakeClients {
    pub producers: Mutex<Vec<(String, Arc<ProducerState>)>>,
    pub consumers: Mutex<Vec<(String, Arc<ConsumerState>)>>,
}

impl FakeClients {
    /// Every record any producer was given, in the order of the producers' creation.
    pub fn sent(&self) -> Vec<Sent> {
        lock(&self.producers)
            .iter()
            .flat_map(|(_, p)| lock(&p.sent).clone())
            .collect()
    }

    pub fn consumer_ids(&self) -> Vec<String> {
        lock(&self.consumers)
            .iter()
            .map(|(id, _)| id.clone())
            .collect()
    }
}

impl ClientFactory for FakeClients {
    fn producer(
        &self,
        config: &ferry_kafka::rdkafka::ClientConfig,
    ) -> Result<ProducerParts, KafkaClientError> {
        let (producer, state, acks) = FakeProducer::new();
        let id = config.get("client.id").unwrap_or_default().to_owned();
        lock(&self.producers).push((id, state));
        Ok(ProducerParts {
            producer: Box::new(producer),
            acks,
            stats: None,
        })
    }

    fn consumer(
        &self,
        config: &ferry_kafka::rdkafka::ClientConfig,
        subscription: &Subscription,
    ) -> Result<ConsumerParts, KafkaClientError> {
        let (consumer, state, events) = FakeConsumer::new();
        // The group gives each new consumer partition 0 of every topic it subscribes to.
        if let Subscription::Topics(topics) = subscription {
            let parts: Vec<(&str, i32)> = topics.iter().map(|t| (t.as_str(), 0)).collect();
            state.assign(&parts);
        }
        let id = config.get("client.id").unwrap_or_default().to_owned();
        lock(&self.consumers).push((id, state));
        Ok(ConsumerParts {
            consumer: Box::new(consumer),
            events,
            stats: None,
        })
    }
}

/// An offset store in memory.
#[derive(Default)]
pub(crate) struct MemoryOffsetStore {
    pub entries: Mutex<BTreeMap<Vec<u8>, Vec<u8>>>,
}

impl MemoryOffsetStore {
    /// Every stored offset as `(partition JSON key, offset JSON)` text.
    pub fn text(&self) -> Vec<(String, String)> {
        lock(&self.entries)
            .iter()
            .map(|(k, v)| {
                (
                    String::from_utf8_lossy(k).into_owned(),
                    String::from_utf8_lossy(v).into_owned(),
                )
            })
            .collect()
    }
}

#[async_trait]
impl OffsetBackingStore for MemoryOffsetStore {
    async fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, OffsetStoreError> {
        Ok(lock(&self.entries).get(key).cloned())
    }

    async fn set(&self, entries: Vec<(Vec<u8>, Option<Vec<u8>>)>) -> Result<(), OffsetStoreError> {
        let mut stored = lock(&self.entries);
        for (k, v) in entries {
            match v {
                Some(v) => stored.insert(k, v),
                None => stored.remove(&k),
            };
        }
        Ok(())
    }

    async fn all(&self) -> Result<Vec<(Vec<u8>, Vec<u8>)>, OffsetStoreError> {
        Ok(lock(&self.entries)
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect())
    }
}

/// Waits up to 10 s for `condition`, checking every 5 ms; panics naming `what` on timeout.
pub(crate) async fn until(what: &str, mut condition: impl FnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while !condition() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// A standalone worker's settings on String converters (no broker is ever contacted).
pub(crate) fn worker_props(flush_ms: u64, extra: &[(&str, &str)]) -> ConfigMap {
    let mut props: ConfigMap = [
        ("bootstrap.servers", "unused:9092"),
        (
            "key.converter",
            "org.apache.kafka.connect.storage.StringConverter",
        ),
        (
            "value.converter",
            "org.apache.kafka.connect.storage.StringConverter",
        ),
        ("offset.storage.file.filename", "/nonexistent/offsets"),
    ]
    .iter()
    .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
    .collect();
    props.insert("offset.flush.interval.ms".to_owned(), flush_ms.to_string());
    props.extend(
        extra
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned())),
    );
    props
}

/// What a test keeps of the context it gave a pipeline.
pub(crate) struct Handles {
    pub cancel: CancellationToken,
    pub target: watch::Sender<TargetState>,
    pub offsets: Arc<MemoryOffsetStore>,
    pub status: Arc<MemoryStatusStore>,
}

/// A task context on String converters, no transforms, in-memory stores, and `flush_ms` between
/// periodic commits.
pub(crate) fn task_context(
    kind: TaskKind,
    connector_props: &[(&str, &str)],
    flush_ms: u64,
) -> (TaskContext, Handles) {
    let worker_props = worker_props(flush_ms, &[("offset.flush.timeout.ms", "500")]);
    let worker = WorkerConfig::standalone(&worker_props).expect("a valid worker config");
    let connector_props: ConfigMap = connector_props
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    let id = TaskId {
        connector: "c".to_owned(),
        task: 0,
    };
    let cancel = CancellationToken::new();
    let (target, target_rx) = watch::channel(TargetState::Started);
    let metrics = ConnectMetrics::default().task_started(&id, kind);
    let offsets = Arc::new(MemoryOffsetStore::default());
    let status = Arc::new(MemoryStatusStore::default());
    let string = || -> Box<dyn Converter> { Box::new(StringConverter::new()) };
    let header: Box<dyn HeaderConverter> = Box::new(StringConverter::new());
    let class = "org.apache.kafka.connect.storage.StringConverter".to_owned();
    let ctx = TaskContext {
        id,
        worker_id: "test:8083".to_owned(),
        worker: Arc::new(worker),
        task_props: connector_props.clone(),
        key_converter: string(),
        value_converter: string(),
        header_converter: header,
        converter_classes: ConverterClasses {
            key: class.clone(),
            value: class.clone(),
            header: class,
        },
        chain: TransformationChain::default(),
        errors: ErrorHandler::new(
            ErrorSettings::from_config(&connector_props),
            cancel.clone(),
            metrics.errors.clone(),
        ),
        connector: ConnectorConfig::from_stored(&connector_props),
        metrics,
        status: status.clone(),
        offsets: offsets.clone(),
        target: target_rx,
        cancel: cancel.clone(),
        // The tests hand the pipeline its client themselves.
        clients: Arc::new(crate::worker::clients::KafkaClients),
        exactly_once: None,
    };
    (
        ctx,
        Handles {
            cancel,
            target,
            offsets,
            status,
        },
    )
}
