//! A Java source task in the plugin host. Each poll returns records already transformed and
//! converted; acknowledgements travel back with the next call and become Java's `commitRecord`.

use std::sync::Arc;

use async_trait::async_trait;
use ferry_api::record::{RecordMetadata, SourceRecord};
use ferry_api::task::{SourceTask, SourceTaskContext};
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
        self.version = start_task(&self.host, &mut self.conn, &id, props, false, json!({})).await?;
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
        let (_, payload) = answer?;
        decode_source_batch(&payload)
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
        metadata: Option<&RecordMetadata>,
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
