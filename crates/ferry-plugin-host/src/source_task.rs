//! A Java source task in the plugin host. Each poll returns records already transformed and
//! converted; acknowledgements travel back with the next call and become Java's `commitRecord`.

use std::sync::Arc;

use async_trait::async_trait;
use ferry_api::record::{RecordMetadata, SourceRecord};
use ferry_api::task::{SourceTask, SourceTaskContext};
use ferry_api::transaction::{TransactionContext, TransactionRequest};
use ferry_api::{ConfigMap, ConnectError};
use serde_json::{json, Value};

use crate::connection::{Connection, PendingCall};
use crate::connector::header;
use crate::host::PluginHost;
use crate::lease::HostLease;
use crate::task_start::{close_task, start_task, stop_task, task_name};
use crate::wire::decode_source_batch;

pub(crate) struct HostedSourceTask {
    host: Arc<PluginHost>,
    conn: Option<HostLease>,
    task: String,
    version: String,
    /// commitRecord calls not yet sent.
    acks: Vec<Value>,
    /// A poll whose answer has not been taken yet; kept here so a dropped poll loses nothing.
    pending_poll: Option<PendingCall>,
    /// With `transaction.boundary=connector`: where the Java task's requests go.
    transactions: Option<Arc<TransactionContext>>,
}

impl HostedSourceTask {
    pub fn new(host: Arc<PluginHost>) -> Self {
        HostedSourceTask {
            host,
            conn: None,
            task: String::new(),
            version: String::new(),
            acks: Vec::new(),
            pending_poll: None,
            transactions: None,
        }
    }

    fn conn(&self) -> Result<&Arc<Connection>, ConnectError> {
        self.conn
            .as_deref()
            .ok_or_else(|| ConnectError::other("The task was not started in the plugin host"))
    }

    fn args(&mut self) -> Value {
        json!({ "task": self.task, "acks": std::mem::take(&mut self.acks) })
    }
}

#[async_trait]
impl SourceTask for HostedSourceTask {
    fn version(&self) -> String {
        self.version.clone()
    }

    async fn start(
        &mut self,
        props: &ConfigMap,
        context: SourceTaskContext,
    ) -> ferry_api::error::Result<()> {
        let id = context.identity;
        self.task = task_name(&id);
        self.host
            .hooks
            .register_reader(&id.connector, context.offset_reader.clone());
        self.transactions = context.transactions.clone();
        let extra = json!({ "transactionContext": self.transactions.is_some() });
        self.version = start_task(&self.host, &mut self.conn, &id, props, false, extra).await?;
        Ok(())
    }

    async fn poll(&mut self) -> ferry_api::error::Result<Vec<SourceRecord>> {
        if self.pending_poll.is_none() {
            let args = self.args();
            let call = self.conn()?.send(
                "source.poll",
                header(args),
                &[],
                self.host.settings.call_timeout,
            )?;
            self.pending_poll = Some(call);
        }
        let answer = match self.pending_poll.as_mut() {
            Some(call) => call.wait().await,
            None => return Ok(Vec::new()),
        };
        self.pending_poll = None;
        let (answer, payload) = answer?;
        let records = decode_source_batch(&payload)?;
        if let Some(transactions) = &self.transactions {
            pass_transaction_requests(&answer, &records, transactions)?;
        }
        Ok(records)
    }

    async fn commit(&mut self) -> ferry_api::error::Result<()> {
        let args = self.args();
        self.conn()?
            .call(
                "source.commit",
                header(args),
                &[],
                self.host.settings.call_timeout,
            )
            .await?;
        Ok(())
    }

    fn commit_record(
        &mut self,
        record: &SourceRecord,
        metadata: Option<&RecordMetadata<'_>>,
    ) -> ferry_api::error::Result<()> {
        if let Some(id) = record.task_tag {
            self.acks.push(match metadata {
                Some(m) => json!({ "id": id, "topic": m.topic, "partition": m.partition, "offset": m.offset }),
                None => json!({ "id": id }),
            });
        }
        Ok(())
    }

    async fn stop(&mut self) -> ferry_api::error::Result<()> {
        stop_task(&self.host, Some(self.conn()?), &self.task).await
    }
}

/// The Java task's transaction requests of one poll (`boundaries`: after which record sent,
/// -1 for before the batch; `batch`), handed to the worker's transaction context.
fn pass_transaction_requests(
    answer: &Value,
    records: &[SourceRecord],
    transactions: &TransactionContext,
) -> ferry_api::error::Result<()> {
    let request = |action: Option<&str>| match action {
        Some("abort") => Some(TransactionRequest::Abort),
        Some("commit") => Some(TransactionRequest::Commit),
        _ => None,
    };
    for boundary in answer
        .get("boundaries")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let Some(asked) = request(boundary.get(1).and_then(Value::as_str)) else {
            continue;
        };
        let after = boundary.get(0).and_then(Value::as_i64).unwrap_or(-1);
        match usize::try_from(after).ok().and_then(|i| records.get(i)) {
            Some(record) if asked == TransactionRequest::Abort => {
                transactions.abort_transaction_on(record)?;
            }
            Some(record) => transactions.commit_transaction_on(record)?,
            None => transactions.request_before_batch(asked),
        }
    }
    match request(answer.get("batch").and_then(Value::as_str)) {
        Some(TransactionRequest::Abort) => transactions.abort_transaction(),
        Some(TransactionRequest::Commit) => transactions.commit_transaction(),
        None => {}
    }
    Ok(())
}

impl Drop for HostedSourceTask {
    /// The pipeline is done with the task: the last acknowledgements, then the host releases it.
    fn drop(&mut self) {
        let acks = self.args();
        close_task(
            &self.host,
            self.conn.take(),
            &self.task,
            Some(("source.acks", acks)),
        );
    }
}
