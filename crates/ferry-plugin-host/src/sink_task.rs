//! A Java sink task in the plugin host. Ferry's consumer hands over raw records; the host
//! converts, transforms and puts them, and answers with what the task asked of its context.

use std::sync::Arc;

use async_trait::async_trait;
use ferry_api::record::{SinkRecord, TopicPartition};
use ferry_api::task::{SinkOffsets, SinkTask, SinkTaskContext};
use ferry_api::{ConfigMap, ConnectError};
use serde_json::{json, Value};

use crate::connection::java_error;
use crate::connector::header;
use crate::host::PluginHost;
use crate::lease::HostLease;
use crate::task_start::{close_task, start_task, stop_task, task_name};
use crate::wire::encode_sink_batch;

pub(crate) struct HostedSinkTask {
    host: Arc<PluginHost>,
    conn: Option<HostLease>,
    task: String,
    version: String,
    context: Option<Arc<dyn SinkTaskContext>>,
}

fn partitions(list: &[TopicPartition]) -> Value {
    Value::Array(
        list.iter()
            .map(|tp| json!({ "topic": tp.topic, "partition": tp.partition }))
            .collect(),
    )
}

fn topic_partition(v: &Value) -> Option<TopicPartition> {
    Some(TopicPartition::new(
        v.get("topic")?.as_str()?,
        v.get("partition")?.as_i64()? as i32,
    ))
}

impl HostedSinkTask {
    pub fn new(host: Arc<PluginHost>) -> Self {
        HostedSinkTask {
            host,
            conn: None,
            task: String::new(),
            version: String::new(),
            context: None,
        }
    }

    async fn call(
        &self,
        op: &str,
        mut args: Value,
        payload: &[u8],
        batch: &[SinkRecord],
    ) -> Result<Value, ConnectError> {
        let conn = self
            .conn
            .as_ref()
            .ok_or_else(|| ConnectError::other("The task was not started in the plugin host"))?;
        args["task"] = json!(self.task);
        let (body, _) = conn
            .call(op, header(args), payload, self.host.settings.call_timeout)
            .await?;
        self.apply(&body, batch);
        Ok(body)
    }

    /// Carries out what the Java task asked of its context during the call.
    fn apply(&self, body: &Value, batch: &[SinkRecord]) {
        let Some(context) = &self.context else { return };
        let list = |k: &str| {
            body.get(k)
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default()
        };
        for r in list("rewind") {
            if let (Some(tp), Some(offset)) =
                (topic_partition(&r), r.get("offset").and_then(Value::as_i64))
            {
                context.offset(tp, offset);
            }
        }
        let tps = |k: &str| {
            list(k)
                .iter()
                .filter_map(topic_partition)
                .collect::<Vec<_>>()
        };
        let pause = tps("pause");
        if !pause.is_empty() {
            context.pause(&pause);
        }
        let resume = tps("resume");
        if !resume.is_empty() {
            context.resume(&resume);
        }
        if let Some(ms) = body.get("timeoutMs").and_then(Value::as_u64) {
            context.timeout(ms);
        }
        if body.get("requestCommit").and_then(Value::as_bool) == Some(true) {
            context.request_commit();
        }
        let failed = list("failed");
        if failed.is_empty() {
            return;
        }
        let reporter = context.errant_record_reporter();
        for f in failed {
            let error = java_error(f.get("error").unwrap_or(&Value::Null));
            let at = (
                f.get("topic").and_then(Value::as_str).unwrap_or(""),
                f.get("partition").and_then(Value::as_i64).unwrap_or(-1) as i32,
                f.get("offset").and_then(Value::as_i64).unwrap_or(-1),
            );
            let record = batch.iter().find(|r| {
                (
                    r.original_topic.as_str(),
                    r.original_kafka_partition,
                    r.original_kafka_offset,
                ) == at
            });
            let stage = f.get("stage").and_then(Value::as_str);
            let class = f.get("class").and_then(Value::as_str).unwrap_or("");
            match (&reporter, record, stage) {
                (Some(reporter), Some(record), Some(stage)) => {
                    reporter.report_failed_stage(record, error, stage, class)
                }
                (Some(reporter), Some(record), None) => reporter.report(record, error),
                _ => {
                    tracing::warn!(topic = at.0, partition = at.1, offset = at.2, %error, "A record failed in the plugin host and was skipped")
                }
            }
        }
    }
}

#[async_trait]
impl SinkTask for HostedSinkTask {
    fn version(&self) -> String {
        self.version.clone()
    }

    async fn start(
        &mut self,
        props: &ConfigMap,
        context: Arc<dyn SinkTaskContext>,
    ) -> ferry_api::error::Result<()> {
        let id = context.identity();
        let extra = json!({ "errantReporter": context.errant_record_reporter().is_some() });
        self.context = Some(context);
        self.task = task_name(&id);
        self.version = start_task(&self.host, &mut self.conn, &id, props, true, extra).await?;
        Ok(())
    }

    async fn open(&mut self, list: &[TopicPartition]) -> ferry_api::error::Result<()> {
        self.call(
            "sink.open",
            json!({ "partitions": partitions(list) }),
            &[],
            &[],
        )
        .await?;
        Ok(())
    }

    async fn close(&mut self, list: &[TopicPartition]) -> ferry_api::error::Result<()> {
        self.call(
            "sink.close",
            json!({ "partitions": partitions(list) }),
            &[],
            &[],
        )
        .await?;
        Ok(())
    }

    async fn put(&mut self, records: &[SinkRecord]) -> ferry_api::error::Result<()> {
        let payload = encode_sink_batch(records)?;
        self.call("sink.put", json!({}), &payload, records).await?;
        Ok(())
    }

    async fn pre_commit(&mut self, offsets: SinkOffsets) -> ferry_api::error::Result<SinkOffsets> {
        let list: Vec<Value> = offsets
            .iter()
            .map(|(tp, o)| json!({ "topic": tp.topic, "partition": tp.partition, "offset": o }))
            .collect();
        let body = self
            .call("sink.preCommit", json!({ "offsets": list }), &[], &[])
            .await?;
        Ok(body
            .get("offsets")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|o| Some((topic_partition(o)?, o.get("offset")?.as_i64()?)))
            .collect())
    }

    async fn stop(&mut self) -> ferry_api::error::Result<()> {
        stop_task(&self.host, self.conn.as_deref(), &self.task).await
    }
}

impl Drop for HostedSinkTask {
    fn drop(&mut self) {
        close_task(&self.host, self.conn.take(), &self.task, None);
    }
}
