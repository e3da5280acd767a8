//! The source pipeline without a broker (in the spirit of Java's WorkerSourceTaskTest): what is
//! committed when acknowledgements lag behind a stop or a pause.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use ferry_api::data::Value;
use ferry_api::record::{OffsetMap, SourceRecord};
use ferry_api::task::{SourceTask, SourceTaskContext};
use ferry_api::{ConfigMap, ConnectError};

type Result<T> = std::result::Result<T, ConnectError>;

use super::run_with;
use crate::metrics::TaskKind;
use crate::status::{State, StatusStore};
use crate::worker::exactly_once::TransactionBoundary;
use crate::worker::fakes::{task_context, until, FakeProducer, Handles, ProducerState};
use crate::worker::task_context::TargetState;

/// Hands out the batches the test queues, one per poll.
struct ScriptedSource(Arc<Mutex<VecDeque<Vec<SourceRecord>>>>);

#[async_trait]
impl SourceTask for ScriptedSource {
    fn version(&self) -> String {
        "test".to_owned()
    }

    async fn start(&mut self, _: &ConfigMap, _: SourceTaskContext) -> Result<()> {
        Ok(())
    }

    async fn poll(&mut self) -> Result<Vec<SourceRecord>> {
        let next = self.0.lock().unwrap().pop_front();
        match next {
            Some(batch) => Ok(batch),
            None => {
                tokio::time::sleep(Duration::from_millis(5)).await;
                Ok(Vec::new())
            }
        }
    }

    async fn stop(&mut self) -> Result<()> {
        Ok(())
    }
}

/// Like `ScriptedSource`, for a connector that defines transaction boundaries: a record whose
/// value ends in `commit` or `abort` asks for that after it, an empty record list with one
/// record whose value is `commit batch` or `abort batch` asks for it after the batch.
struct BoundarySource {
    batches: Arc<Mutex<VecDeque<Vec<SourceRecord>>>>,
    context: Option<Arc<ferry_api::transaction::TransactionContext>>,
}

#[async_trait]
impl SourceTask for BoundarySource {
    fn version(&self) -> String {
        "test".to_owned()
    }

    async fn start(&mut self, _: &ConfigMap, context: SourceTaskContext) -> Result<()> {
        self.context = Some(context.transactions.expect("a transaction context"));
        Ok(())
    }

    async fn poll(&mut self) -> Result<Vec<SourceRecord>> {
        let Some(mut batch) = self.batches.lock().unwrap().pop_front() else {
            tokio::time::sleep(Duration::from_millis(5)).await;
            return Ok(Vec::new());
        };
        let context = self.context.as_ref().unwrap();
        for record in &batch {
            match &record.value {
                Value::String(v) if v.ends_with("abort batch") => context.abort_transaction(),
                Value::String(v) if v.ends_with("commit batch") => context.commit_transaction(),
                Value::String(v) if v.ends_with("abort") => context.abort_transaction_on(record)?,
                Value::String(v) if v.ends_with("commit") => {
                    context.commit_transaction_on(record)?
                }
                _ => {}
            }
        }
        batch.retain(|r| !matches!(&r.value, Value::String(v) if v.ends_with("batch")));
        Ok(batch)
    }

    async fn stop(&mut self) -> Result<()> {
        Ok(())
    }
}

/// Records `from..to` of one file partition, each carrying its position as the offset.
fn lines(from: i64, to: i64) -> Vec<SourceRecord> {
    let partition: Arc<OffsetMap> = Arc::new(
        [("file".to_owned(), Value::from("f"))]
            .into_iter()
            .collect(),
    );
    (from..to)
        .map(|i| {
            let offset: OffsetMap = [("position".to_owned(), Value::Int64(i + 1))]
                .into_iter()
                .collect();
            SourceRecord::new(
                Some(partition.clone()),
                Some(offset),
                "t",
                None,
                Value::from(format!("r{i}").as_str()),
            )
        })
        .collect()
}

struct Running {
    batches: Arc<Mutex<VecDeque<Vec<SourceRecord>>>>,
    producer: Arc<ProducerState>,
    handles: Handles,
    done: tokio::task::JoinHandle<Result<()>>,
}

fn start(flush_ms: u64) -> Running {
    start_with(flush_ms, None)
}

fn start_with(
    flush_ms: u64,
    exactly_once: Option<crate::worker::exactly_once::ExactlyOnce>,
) -> Running {
    let (mut ctx, handles) = task_context(TaskKind::Source, &[("topic", "t")], flush_ms);
    ctx.exactly_once = exactly_once;
    let (producer, state, acks) = FakeProducer::new();
    let batches = Arc::new(Mutex::new(VecDeque::new()));
    let task: Box<dyn SourceTask> = match &ctx.exactly_once {
        Some(eos) if eos.boundary == TransactionBoundary::Connector => Box::new(BoundarySource {
            batches: batches.clone(),
            context: None,
        }),
        _ => Box::new(ScriptedSource(batches.clone())),
    };
    let done = tokio::spawn(run_with(ctx, task, Box::new(producer), acks));
    Running {
        batches,
        producer: state,
        handles,
        done,
    }
}

impl Running {
    fn emit(&self, records: Vec<SourceRecord>) {
        self.batches.lock().unwrap().push_back(records);
    }

    fn sent(&self) -> usize {
        self.producer.values().len()
    }

    /// The stored offset of the file partition, as JSON text.
    fn stored(&self) -> Option<String> {
        self.handles
            .offsets
            .text()
            .into_iter()
            .next()
            .map(|(_, v)| v)
    }
}

#[tokio::test]
async fn a_stop_commits_the_offsets_of_acknowledged_records_only() {
    let mut run = start(3_600_000);
    run.producer.hold_acknowledgements();
    run.emit(lines(0, 3));
    until("3 records sent", || run.sent() == 3).await;
    run.producer.acknowledge_held();
    run.emit(lines(3, 5));
    until("5 records sent", || run.sent() == 5).await;

    // Records 3 and 4 are never acknowledged: the stop waits for them, then gives up on them.
    run.handles.cancel.cancel();
    (&mut run.done).await.unwrap().unwrap();
    assert_eq!(run.stored().as_deref(), Some(r#"{"position":3}"#));
    assert_eq!(run.producer.values(), ["r0", "r1", "r2", "r3", "r4"]);
}

#[tokio::test]
async fn an_undeliverable_record_fails_the_task_and_no_offset_from_it_on_is_committed() {
    let mut run = start(3_600_000);
    run.producer.fail_delivery_of(3);
    run.emit(lines(0, 5));
    let outcome = (&mut run.done).await.unwrap();
    let error = outcome.expect_err("errors.tolerance=none fails the task");
    assert!(
        error.to_string().contains("Tolerance exceeded")
            && error.to_string().contains("KAFKA_PRODUCE"),
        "{error}"
    );
    // Records 0 to 2 were delivered and record 4 after the failed one: only position 3 (past
    // record 2) may be committed, so a restart reads record 3 again, as Java's worker does.
    assert_eq!(run.stored().as_deref(), Some(r#"{"position":3}"#));
}

#[tokio::test]
async fn a_poll_s_records_go_to_the_producer_together_unless_a_header_or_topic_splits_them() {
    let mut run = start(3_600_000);
    let mut records = lines(0, 7);
    records[2].headers.add("origin", None, Value::from("test"));
    records[5].topic = "other".to_owned();
    records[6].topic = "other".to_owned();
    run.emit(records);
    until("7 records sent", || run.sent() == 7).await;
    run.handles.cancel.cancel();
    (&mut run.done).await.unwrap().unwrap();
    // r0 r1 together, r2 alone (batches carry no headers), r3 r4, then the other topic's two.
    assert_eq!(*run.producer.batches.lock().unwrap(), [2, 2, 2]);
    assert_eq!(
        run.producer.values(),
        ["r0", "r1", "r2", "r3", "r4", "r5", "r6"]
    );
    assert_eq!(run.stored().as_deref(), Some(r#"{"position":7}"#));
}

#[tokio::test]
async fn a_full_queue_sends_the_rest_of_a_batch_once_acknowledgements_make_room() {
    let mut run = start(3_600_000);
    run.producer.hold_acknowledgements();
    run.producer.limit_queue(4);
    run.emit(lines(0, 10));
    for sent in [4, 8] {
        until("a full queue", || run.sent() == sent).await;
        run.producer.acknowledge_held();
    }
    until("10 records sent", || run.sent() == 10).await;
    run.producer.acknowledge_held();
    run.handles.cancel.cancel();
    (&mut run.done).await.unwrap().unwrap();
    // Each retry starts at the first record the full queue refused: none is lost or sent twice.
    let values: Vec<String> = (0..10).map(|i| format!("r{i}")).collect();
    assert_eq!(run.producer.values(), values);
    let batches = run.producer.batches.lock().unwrap().clone();
    assert_eq!(batches.first(), Some(&10));
    assert!(batches.contains(&6) && batches.contains(&2), "{batches:?}");
    assert_eq!(run.stored().as_deref(), Some(r#"{"position":10}"#));
}

// Virtual time: a sleep ends only once every other task is idle, so "not polled while paused"
// is checked after the pipeline had every chance to poll, not after a guessed wall-clock wait.
#[tokio::test(start_paused = true)]
async fn a_pause_commits_what_was_acknowledged_and_polls_no_more_until_resumed() {
    let mut run = start(3_600_000);
    run.emit(lines(0, 4));
    until("4 records sent", || run.sent() == 4).await;

    run.handles.target.send(TargetState::Paused).unwrap();
    let status = run.handles.status.clone();
    until("the task paused", || {
        status
            .task(&crate::status::TaskId {
                connector: "c".to_owned(),
                task: 0,
            })
            .is_some_and(|s| s.state == State::Paused)
    })
    .await;
    assert_eq!(run.stored().as_deref(), Some(r#"{"position":4}"#));
    run.emit(lines(4, 6));
    // A poll would take the batch at once; while paused it stays queued.
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(
        run.batches.lock().unwrap().len(),
        1,
        "a paused task is not polled"
    );

    run.handles.target.send(TargetState::Started).unwrap();
    until("the records after the resume", || run.sent() == 6).await;
    run.handles.cancel.cancel();
    (&mut run.done).await.unwrap().unwrap();
    assert_eq!(run.stored().as_deref(), Some(r#"{"position":6}"#));
}

/// `ScriptedSource` that notes every record `commit_record` is shown (its value), and says
/// whether it wants them.
struct WatchingSource {
    batches: Arc<Mutex<VecDeque<Vec<SourceRecord>>>>,
    shown: Arc<Mutex<Vec<String>>>,
    needs_records: bool,
}

#[async_trait]
impl SourceTask for WatchingSource {
    fn version(&self) -> String {
        "test".to_owned()
    }

    async fn start(&mut self, _: &ConfigMap, _: SourceTaskContext) -> Result<()> {
        Ok(())
    }

    async fn poll(&mut self) -> Result<Vec<SourceRecord>> {
        ScriptedSource(self.batches.clone()).poll().await
    }

    fn commit_record(
        &mut self,
        record: &SourceRecord,
        metadata: Option<&ferry_api::record::RecordMetadata<'_>>,
    ) -> Result<()> {
        let acked = metadata.map_or("none".to_owned(), |m| format!("{}@{}", m.topic, m.offset));
        self.shown
            .lock()
            .unwrap()
            .push(format!("{}:{acked}", record.value));
        Ok(())
    }

    fn needs_commit_record(&self) -> bool {
        self.needs_records
    }

    async fn stop(&mut self) -> Result<()> {
        Ok(())
    }
}

/// Runs five records through a `WatchingSource`, the last two never acknowledged; answers what
/// `commit_record` was shown and the offset the stop committed.
async fn watch_records(needs_records: bool) -> (Vec<String>, Option<String>) {
    let (ctx, handles) = task_context(TaskKind::Source, &[("topic", "t")], 3_600_000);
    let (producer, state, acks) = FakeProducer::new();
    let batches = Arc::new(Mutex::new(VecDeque::new()));
    let shown = Arc::new(Mutex::new(Vec::new()));
    let task = Box::new(WatchingSource {
        batches: batches.clone(),
        shown: shown.clone(),
        needs_records,
    });
    let mut run = Running {
        batches,
        producer: state,
        handles,
        done: tokio::spawn(run_with(ctx, task, Box::new(producer), acks)),
    };
    run.producer.hold_acknowledgements();
    run.emit(lines(0, 3));
    until("3 records sent", || run.sent() == 3).await;
    run.producer.acknowledge_held();
    run.emit(lines(3, 5));
    until("5 records sent", || run.sent() == 5).await;
    run.handles.cancel.cancel();
    (&mut run.done).await.unwrap().unwrap();
    let shown = shown.lock().unwrap().clone();
    (shown, run.stored())
}

#[tokio::test]
async fn a_task_that_needs_its_records_is_shown_each_acknowledged_one_and_others_none() {
    let (shown, stored) = watch_records(true).await;
    assert_eq!(shown, ["r0:t@0", "r1:t@1", "r2:t@2"]);
    assert_eq!(stored.as_deref(), Some(r#"{"position":3}"#));

    // Without the records held, offsets still commit only up to the last acknowledged one.
    let (shown, stored) = watch_records(false).await;
    assert!(shown.is_empty(), "{shown:?}");
    assert_eq!(stored.as_deref(), Some(r#"{"position":3}"#));
}

/// Records what an exactly-once task asked around its producer's start.
#[derive(Default)]
struct Checks {
    calls: Mutex<Vec<&'static str>>,
    refuse_fencing: bool,
}

#[async_trait]
impl crate::worker::exactly_once::ExactlyOnceChecks for Checks {
    async fn before_producer(&self, _: &crate::status::TaskId) -> Result<()> {
        self.calls.lock().unwrap().push("fence");
        if self.refuse_fencing {
            return Err(ConnectError::other("Zombie fencing failed"));
        }
        Ok(())
    }

    async fn after_producer(&self, _: &crate::status::TaskId) -> Result<()> {
        self.calls.lock().unwrap().push("still current");
        Ok(())
    }
}

fn start_exactly_once(checks: Arc<Checks>) -> Running {
    start_with(
        3_600_000,
        Some(crate::worker::exactly_once::ExactlyOnce {
            transactional_id: "group-c-0".to_owned(),
            offsets_topic: "connect-offsets".to_owned(),
            worker_offsets: None,
            boundary: crate::worker::exactly_once::TransactionBoundary::Poll,
            checks,
        }),
    )
}

#[tokio::test]
async fn an_exactly_once_task_writes_each_poll_and_its_offsets_in_one_transaction() {
    use crate::worker::fakes::TransactionCall::*;
    let checks = Arc::new(Checks::default());
    let mut run = start_exactly_once(checks.clone());
    run.emit(lines(0, 2));
    run.emit(lines(2, 3));
    let transactions = || run.producer.transactions.lock().unwrap().clone();
    until("two transactions committed", || {
        transactions().iter().filter(|c| **c == Commit).count() == 2
    })
    .await;
    assert_eq!(
        *checks.calls.lock().unwrap(),
        ["fence", "still current"],
        "fenced before the producer starts, checked after"
    );
    assert_eq!(transactions(), [Init, Begin, Commit, Begin, Commit]);
    let sent: Vec<(String, Option<String>)> = run
        .producer
        .sent
        .lock()
        .unwrap()
        .iter()
        .map(|s| (s.topic.clone(), s.value.clone()))
        .collect();
    let offsets = |position: i64| {
        (
            "connect-offsets".to_owned(),
            Some(format!(r#"{{"position":{position}}}"#)),
        )
    };
    let record = |v: &str| ("t".to_owned(), Some(v.to_owned()));
    assert_eq!(
        sent,
        [
            record("r0"),
            record("r1"),
            offsets(2),
            record("r2"),
            offsets(3)
        ],
        "each transaction carries its records, then their offsets"
    );
    assert_eq!(
        run.stored(),
        None,
        "nothing goes through the worker's offset writer"
    );
    run.handles.cancel.cancel();
    (&mut run.done).await.unwrap().unwrap();
    assert_eq!(transactions().len(), 5, "nothing open: no more commits");
}

#[tokio::test]
async fn an_exactly_once_task_whose_fencing_fails_never_starts_its_producer() {
    let checks = Arc::new(Checks {
        refuse_fencing: true,
        ..Checks::default()
    });
    let mut run = start_exactly_once(checks);
    let outcome = (&mut run.done).await.unwrap();
    assert!(
        outcome.is_err_and(|e| e.to_string().contains("Zombie fencing failed")),
        "the task fails"
    );
    assert!(run.producer.transactions.lock().unwrap().is_empty());
}

/// Records of the file partition with the given values, at positions `from..`, each tagged with
/// its position so the task can name it in a transaction request.
fn tagged(from: i64, values: &[&str]) -> Vec<SourceRecord> {
    let mut records = lines(from, from + values.len() as i64);
    for (i, (record, value)) in records.iter_mut().zip(values).enumerate() {
        record.value = Value::from(*value);
        record.task_tag = Some(from as u64 + i as u64);
    }
    records
}

#[tokio::test]
async fn connector_defined_boundaries_commit_and_abort_where_the_task_asks() {
    use crate::worker::fakes::TransactionCall::*;
    let mut run = start_with(
        3_600_000,
        Some(crate::worker::exactly_once::ExactlyOnce {
            transactional_id: "group-c-0".to_owned(),
            offsets_topic: "connect-offsets".to_owned(),
            worker_offsets: None,
            boundary: TransactionBoundary::Connector,
            checks: Arc::new(Checks::default()),
        }),
    );
    let transactions = || run.producer.transactions.lock().unwrap().clone();
    // A commit after the second record; the third stays in the open transaction.
    run.emit(tagged(0, &["a", "b commit", "c"]));
    until("the first commit", || transactions().contains(&Commit)).await;
    // An abort after this batch drops it with the open record, yet commits their offsets.
    run.emit(tagged(3, &["d", "e", "abort batch"]));
    until("the abort", || transactions().contains(&Abort)).await;
    run.emit(tagged(5, &["f", "commit batch"]));
    until("three commits", || {
        transactions().iter().filter(|c| **c == Commit).count() == 3
    })
    .await;
    // Nothing asked for this one: the stop aborts it rather than commit it.
    run.emit(tagged(6, &["g"]));
    until("g sent", || run.producer.values().contains(&"g".to_owned())).await;
    run.handles.cancel.cancel();
    (&mut run.done).await.unwrap().unwrap();
    assert_eq!(
        transactions(),
        [Init, Begin, Commit, Begin, Abort, Begin, Commit, Begin, Commit, Begin, Abort]
    );
    let sent: Vec<String> = run
        .producer
        .sent
        .lock()
        .unwrap()
        .iter()
        .map(|s| s.value.clone().unwrap_or_default())
        .collect();
    assert_eq!(
        sent,
        [
            "a",
            "b commit",
            r#"{"position":2}"#,
            "c",
            "d",
            "e",
            r#"{"position":5}"#,
            "f",
            r#"{"position":6}"#,
            "g"
        ],
        "offsets go in the transaction the task ends; aborted records' offsets in the next one"
    );
}

/// A task whose poll is not cancel-safe, as a connector's may be: it takes the next record
/// number, then waits longer than the commit interval before handing the record out.
struct SlowSource {
    next: i64,
    commits: Arc<std::sync::atomic::AtomicUsize>,
}

#[async_trait]
impl SourceTask for SlowSource {
    fn version(&self) -> String {
        "test".to_owned()
    }

    async fn start(&mut self, _: &ConfigMap, _: SourceTaskContext) -> Result<()> {
        Ok(())
    }

    async fn poll(&mut self) -> Result<Vec<SourceRecord>> {
        let i = self.next;
        self.next += 1;
        tokio::time::sleep(Duration::from_millis(40)).await;
        Ok(lines(i, i + 1))
    }

    async fn commit(&mut self) -> Result<()> {
        self.commits
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Ok(())
    }

    async fn stop(&mut self) -> Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn a_commit_due_during_a_poll_never_drops_the_poll_and_still_commits() {
    let (ctx, handles) = task_context(TaskKind::Source, &[("topic", "t")], 10);
    let (producer, state, acks) = FakeProducer::new();
    let commits = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let task = SlowSource {
        next: 0,
        commits: commits.clone(),
    };
    let done = tokio::spawn(run_with(ctx, Box::new(task), Box::new(producer), acks));
    until("5 records sent", || state.values().len() >= 5).await;
    let stored = || handles.offsets.text().into_iter().next().map(|(_, v)| v);
    // Every poll outlasts the 10 ms commit interval, yet offsets are committed meanwhile and
    // the task's commit hook runs when its poll is back.
    until("an offset committed", || stored().is_some()).await;
    until("the commit hook run", || {
        commits.load(std::sync::atomic::Ordering::Relaxed) > 0
    })
    .await;
    handles.cancel.cancel();
    done.await.unwrap().unwrap();
    let values = state.values();
    let expected: Vec<String> = (0..values.len()).map(|i| format!("r{i}")).collect();
    assert_eq!(values, expected, "a record of a dropped poll is missing");
}
