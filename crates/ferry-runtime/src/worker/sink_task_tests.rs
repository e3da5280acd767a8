//! The sink pipeline without a broker (in the spirit of Java's WorkerSinkTaskTest): rebalances,
//! retries and stops against the in-memory consumer.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use ferry_api::record::{SinkRecord, TopicPartition};
use ferry_api::task::{SinkTask, SinkTaskContext};
use ferry_api::{ConfigMap, ConnectError};

type Result<T> = std::result::Result<T, ConnectError>;

use super::run_with;
use crate::metrics::TaskKind;
use crate::worker::clients::PartitionOffsets;
use crate::worker::fakes::{
    task_context, until, ConsumerCall, ConsumerState, FakeConsumer, Handles,
};

/// What the task saw.
#[derive(Default)]
struct Seen {
    /// `(partition, offset)` of every record a successful `put` took.
    put: Mutex<Vec<(i32, i64)>>,
    /// Every batch `put` was called with, failed or not.
    attempts: Mutex<Vec<Vec<(i32, i64)>>>,
    closed: Mutex<Vec<TopicPartition>>,
    /// While set, `put` fails with a retriable error.
    failing: AtomicBool,
}

struct RecordingSink(Arc<Seen>);

#[async_trait]
impl SinkTask for RecordingSink {
    fn version(&self) -> String {
        "test".to_owned()
    }

    async fn start(&mut self, _: &ConfigMap, _: Arc<dyn SinkTaskContext>) -> Result<()> {
        Ok(())
    }

    async fn put(&mut self, records: &[SinkRecord]) -> Result<()> {
        let batch: Vec<(i32, i64)> = records
            .iter()
            .map(|r| (r.kafka_partition, r.kafka_offset))
            .collect();
        self.0.attempts.lock().unwrap().push(batch.clone());
        if self.0.failing.load(Ordering::SeqCst) && !batch.is_empty() {
            return Err(ConnectError::retriable("not now"));
        }
        self.0.put.lock().unwrap().extend(batch);
        Ok(())
    }

    async fn close(&mut self, partitions: &[TopicPartition]) -> Result<()> {
        self.0
            .closed
            .lock()
            .unwrap()
            .extend(partitions.iter().cloned());
        Ok(())
    }

    async fn stop(&mut self) -> Result<()> {
        Ok(())
    }
}

struct Running {
    seen: Arc<Seen>,
    consumer: Arc<ConsumerState>,
    handles: Handles,
    done: tokio::task::JoinHandle<Result<()>>,
}

/// A sink pipeline over the fake consumer, assigned `t-0` and `t-1`; periodic commits are an hour
/// apart, so only rebalances and the stop commit.
fn start() -> Running {
    let (ctx, handles) = task_context(TaskKind::Sink, &[("topics", "t")], 3_600_000);
    let (consumer, state, events) = FakeConsumer::new();
    state.assign(&[("t", 0), ("t", 1)]);
    let seen = Arc::new(Seen::default());
    let task = Box::new(RecordingSink(seen.clone()));
    let done = tokio::spawn(run_with(ctx, task, Box::new(consumer), events));
    Running {
        seen,
        consumer: state,
        handles,
        done,
    }
}

fn offsets(pairs: &[(i32, i64)]) -> PartitionOffsets {
    pairs
        .iter()
        .map(|(p, o)| (("t".to_owned(), *p), *o))
        .collect()
}

impl Running {
    async fn stop(self) -> Vec<ConsumerCall> {
        self.handles.cancel.cancel();
        self.done.await.unwrap().unwrap();
        self.consumer.calls()
    }

    fn put_count(&self) -> usize {
        self.seen.put.lock().unwrap().len()
    }
}

#[tokio::test]
async fn revoked_partitions_commit_what_was_put_before_they_go_back_to_the_group() {
    let run = start();
    run.consumer.add_records("t", 0, 0, 5);
    run.consumer.add_records("t", 1, 0, 3);
    until("8 records put", || run.put_count() == 8).await;

    run.consumer.revoke(&[("t", 0), ("t", 1)]);
    until("the revocation to finish", || {
        !run.consumer.revocation_pending()
    })
    .await;
    let closed = run.seen.closed.lock().unwrap().clone();
    assert_eq!(
        closed,
        [TopicPartition::new("t", 0), TopicPartition::new("t", 1)]
    );
    let calls = run.stop().await;
    assert_eq!(
        calls[..2],
        [
            ConsumerCall::Commit {
                offsets: offsets(&[(0, 5), (1, 3)]),
                sync: true
            },
            ConsumerCall::FinishRevocation,
        ],
        "the commit comes first, synchronously: {calls:?}"
    );
    // Nothing is owned after the revocation: the stop has nothing more to commit.
    assert_eq!(
        calls[2..],
        [ConsumerCall::Close {
            offsets: PartitionOffsets::new()
        }]
    );
}

#[tokio::test]
async fn a_cooperative_revocation_commits_only_the_partitions_it_takes() {
    let run = start();
    run.consumer.add_records("t", 0, 0, 5);
    run.consumer.add_records("t", 1, 0, 3);
    until("8 records put", || run.put_count() == 8).await;

    run.consumer.revoke(&[("t", 1)]);
    until("the revocation to finish", || {
        !run.consumer.revocation_pending()
    })
    .await;
    run.consumer.add_records("t", 0, 5, 2);
    until("the later records of t-0 put", || run.put_count() == 10).await;
    let calls = run.stop().await;
    assert_eq!(
        calls,
        [
            ConsumerCall::Commit {
                offsets: offsets(&[(1, 3)]),
                sync: true
            },
            ConsumerCall::FinishRevocation,
            ConsumerCall::Commit {
                offsets: offsets(&[(0, 7)]),
                sync: true
            },
            ConsumerCall::Close {
                offsets: offsets(&[(0, 7)])
            },
        ]
    );
}

#[tokio::test]
async fn lost_partitions_close_without_a_commit() {
    let run = start();
    run.consumer.add_records("t", 0, 0, 4);
    until("4 records put", || run.put_count() == 4).await;

    run.consumer.lose(&[("t", 0)]);
    until("t-0 closed", || !run.seen.closed.lock().unwrap().is_empty()).await;
    let calls = run.stop().await;
    assert!(
        calls.iter().all(|c| !matches!(c, ConsumerCall::Commit { offsets, .. } if offsets.contains_key(&("t".to_owned(), 0)))),
        "a lost partition may belong to another member already: {calls:?}"
    );
}

#[tokio::test]
async fn a_batch_awaiting_redelivery_keeps_the_records_of_partitions_still_owned() {
    let run = start();
    run.seen.failing.store(true, Ordering::SeqCst);
    run.consumer.add_records("t", 0, 0, 2);
    run.consumer.add_records("t", 1, 0, 2);
    until("a failed put", || {
        run.seen
            .attempts
            .lock()
            .unwrap()
            .iter()
            .any(|b| !b.is_empty())
    })
    .await;

    run.consumer.revoke(&[("t", 1)]);
    until("the revocation to finish", || {
        !run.consumer.revocation_pending()
    })
    .await;
    run.seen.failing.store(false, Ordering::SeqCst);
    until("the retried batch put", || run.put_count() > 0).await;
    let put = run.seen.put.lock().unwrap().clone();
    assert_eq!(
        put,
        [(0, 0), (0, 1)],
        "t-0's records go through; t-1's are its next owner's"
    );
    let calls = run.stop().await;
    assert_eq!(
        calls.last(),
        Some(&ConsumerCall::Close {
            offsets: offsets(&[(0, 2)])
        })
    );
}

#[tokio::test]
async fn a_stop_commits_everything_put_then_leaves() {
    let run = start();
    run.consumer.add_records("t", 0, 0, 3);
    until("3 records put", || run.put_count() == 3).await;
    let calls = run.stop().await;
    assert_eq!(
        calls,
        [
            ConsumerCall::Commit {
                offsets: offsets(&[(0, 3)]),
                sync: true
            },
            ConsumerCall::Close {
                offsets: offsets(&[(0, 3)])
            },
        ]
    );
}
