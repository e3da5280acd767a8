//! A source task's say over its transactions (KIP-618's `transaction.boundary=connector`), as
//! Java's `TransactionContext`: the task asks, and the worker commits or aborts when the batch or
//! the named record has been sent.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::error::Result;
use crate::record::SourceRecord;
use crate::ConnectError;

/// What a task asked for at a point of its records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransactionRequest {
    Commit,
    Abort,
}

#[derive(Default)]
struct Requests {
    batch_commit: bool,
    batch_abort: bool,
    /// By the records' `task_tag`.
    records: HashMap<u64, Vec<TransactionRequest>>,
    before_batch: Option<TransactionRequest>,
}

/// Handed to a source task in its `SourceTaskContext` when its connector defines transaction
/// boundaries; shared by the task (which asks) and the worker (which takes the requests).
#[derive(Default)]
pub struct TransactionContext {
    requests: Mutex<Requests>,
}

impl TransactionContext {
    fn requests(&self) -> std::sync::MutexGuard<'_, Requests> {
        self.requests.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Commit once the records of the current batch are sent.
    pub fn commit_transaction(&self) {
        self.requests().batch_commit = true;
    }

    /// Abort once the records of the current batch are sent: they are not delivered, and their
    /// offsets are committed so the task does not see them again.
    pub fn abort_transaction(&self) {
        self.requests().batch_abort = true;
    }

    /// Commit right after `record` is sent. The record is known by its `task_tag`.
    pub fn commit_transaction_on(&self, record: &SourceRecord) -> Result<()> {
        self.on(record, TransactionRequest::Commit)
    }

    /// Abort right after `record` is sent (it is not delivered, nor is anything before it in the
    /// transaction). The record is known by its `task_tag`.
    pub fn abort_transaction_on(&self, record: &SourceRecord) -> Result<()> {
        self.on(record, TransactionRequest::Abort)
    }

    /// For a record the task dropped itself before the first record of the batch it returns
    /// (the plugin host transforms Java tasks' records): the request applies before the batch.
    pub fn request_before_batch(&self, request: TransactionRequest) {
        let mut requests = self.requests();
        if requests.before_batch != Some(TransactionRequest::Abort) {
            requests.before_batch = Some(request);
        }
    }

    fn on(&self, record: &SourceRecord, request: TransactionRequest) -> Result<()> {
        let tag = record.task_tag.ok_or_else(|| {
            ConnectError::other(
                "A record that defines a transaction boundary needs a task_tag to be known by",
            )
        })?;
        self.requests()
            .records
            .entry(tag)
            .or_default()
            .push(request);
        Ok(())
    }

    /// The worker's side: what the task asked for the batch just sent (Java's
    /// `shouldCommitBatch`/`shouldAbortBatch`); both at once is the task's error.
    pub fn take_for_batch(&self) -> Result<Option<TransactionRequest>> {
        let mut requests = self.requests();
        let (commit, abort) = (requests.batch_commit, requests.batch_abort);
        requests.batch_commit = false;
        requests.batch_abort = false;
        match (commit, abort) {
            (true, true) => Err(ConnectError::other(
                "Connector requested both commit and abort of same transaction",
            )),
            (_, true) => Ok(Some(TransactionRequest::Abort)),
            (true, _) => Ok(Some(TransactionRequest::Commit)),
            _ => Ok(None),
        }
    }

    /// The worker's side: what the task asked for right after the record with `tag`.
    pub fn take_for_record(&self, tag: Option<u64>) -> Result<Option<TransactionRequest>> {
        let Some(tag) = tag else {
            return Ok(None);
        };
        let Some(asked) = self.requests().records.remove(&tag) else {
            return Ok(None);
        };
        if asked.contains(&TransactionRequest::Commit) && asked.contains(&TransactionRequest::Abort)
        {
            return Err(ConnectError::other(
                "Connector requested both commit and abort of same record",
            ));
        }
        Ok(asked.first().copied())
    }

    /// The worker's side: a request that applies before the batch's first record.
    pub fn take_before_batch(&self) -> Option<TransactionRequest> {
        self.requests().before_batch.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tagged(tag: u64) -> SourceRecord {
        let mut record = SourceRecord::new(None, None, "t", None, crate::data::Value::Null);
        record.task_tag = Some(tag);
        record
    }

    #[test]
    fn requests_are_taken_once_and_contradictions_are_errors() {
        let context = TransactionContext::default();
        context.commit_transaction_on(&tagged(1)).unwrap();
        context.abort_transaction_on(&tagged(2)).unwrap();
        assert_eq!(context.take_for_record(Some(0)).unwrap(), None);
        assert_eq!(
            context.take_for_record(Some(1)).unwrap(),
            Some(TransactionRequest::Commit)
        );
        assert_eq!(context.take_for_record(Some(1)).unwrap(), None);
        assert_eq!(
            context.take_for_record(Some(2)).unwrap(),
            Some(TransactionRequest::Abort)
        );

        assert_eq!(context.take_for_batch().unwrap(), None);
        context.commit_transaction();
        assert_eq!(
            context.take_for_batch().unwrap(),
            Some(TransactionRequest::Commit)
        );
        context.commit_transaction();
        context.abort_transaction();
        assert!(context.take_for_batch().is_err());
        assert_eq!(context.take_for_batch().unwrap(), None);

        context.commit_transaction_on(&tagged(3)).unwrap();
        context.abort_transaction_on(&tagged(3)).unwrap();
        assert!(context.take_for_record(Some(3)).is_err());
        let untagged = SourceRecord::new(None, None, "t", None, crate::data::Value::Null);
        assert!(context.commit_transaction_on(&untagged).is_err());
    }
}
