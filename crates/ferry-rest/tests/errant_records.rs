//! KIP-610 on a real broker: a sink task reports records it cannot handle through its errant
//! record reporter; they go to the dead letter queue and the others stay with the task.
#![cfg(feature = "kafka-integration-tests")]

mod support;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use ferry_api::config::ConfigDef;
use ferry_api::connector::{AnyConnector, Connector, ConnectorContext, SinkConnector};
use ferry_api::record::SinkRecord;
use ferry_api::task::{SinkTask, SinkTaskContext};
use ferry_api::{ConfigMap, ConnectError};
use ferry_kafka::rdkafka::consumer::{BaseConsumer, Consumer};
use ferry_kafka::rdkafka::message::{Headers, Message};
use ferry_kafka::rdkafka::producer::{
    BaseRecord, DefaultProducerContext, Producer, ThreadedProducer,
};
use ferry_kafka::rdkafka::ClientConfig;
use ferry_runtime::plugins::{ConnectorPlugin, PluginKind};
use support::{registry, worker_with};

/// Values the test sink accepted.
static ACCEPTED: Mutex<Vec<String>> = Mutex::new(Vec::new());

#[derive(Default)]
struct ReportingSink;

struct ReportingTask {
    context: Option<Arc<dyn SinkTaskContext>>,
}

impl Connector for ReportingSink {
    fn version(&self) -> String {
        "test".into()
    }
    fn config_def(&self) -> ConfigDef {
        ConfigDef::new()
    }
    fn start(
        &mut self,
        _: &ConfigMap,
        _: Arc<dyn ConnectorContext>,
    ) -> ferry_api::error::Result<()> {
        Ok(())
    }
    fn task_configs(&self, _: usize) -> ferry_api::error::Result<Vec<ConfigMap>> {
        Ok(vec![ConfigMap::new()])
    }
    fn stop(&mut self) -> ferry_api::error::Result<()> {
        Ok(())
    }
}

impl SinkConnector for ReportingSink {
    fn create_task(&self) -> Box<dyn SinkTask> {
        Box::new(ReportingTask { context: None })
    }
}

#[async_trait]
impl SinkTask for ReportingTask {
    fn version(&self) -> String {
        "test".into()
    }
    async fn start(
        &mut self,
        _: &ConfigMap,
        context: Arc<dyn SinkTaskContext>,
    ) -> ferry_api::error::Result<()> {
        self.context = Some(context);
        Ok(())
    }
    async fn put(&mut self, records: &[SinkRecord]) -> ferry_api::error::Result<()> {
        let reporter = self
            .context
            .as_ref()
            .and_then(|c| c.errant_record_reporter())
            .expect("a reporter with a DLQ");
        for r in records {
            let value = r.value.to_string();
            if value.starts_with("bad") {
                reporter.report(r, ConnectError::data(format!("cannot store {value}")));
            } else {
                ACCEPTED.lock().unwrap().push(value);
            }
        }
        Ok(())
    }
    async fn stop(&mut self) -> ferry_api::error::Result<()> {
        Ok(())
    }
}

fn bootstrap() -> String {
    std::env::var("KAFKA_BOOTSTRAP_SERVERS")
        .expect("KAFKA_BOOTSTRAP_SERVERS is not set: start a broker with scripts/kafka start")
}

fn unique(prefix: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    format!("{prefix}-{}-{nanos}", std::process::id())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reported_records_reach_the_dead_letter_queue() {
    let (topic, dlq) = (unique("errant-in"), unique("errant-dlq"));
    let producer: ThreadedProducer<DefaultProducerContext> = ClientConfig::new()
        .set("bootstrap.servers", bootstrap())
        .create()
        .unwrap();
    for v in ["good 1", "bad 2", "good 3", "bad 4"] {
        producer
            .send(BaseRecord::<(), str>::to(&topic).payload(v))
            .map_err(|(e, _)| e)
            .unwrap();
    }
    producer.flush(Duration::from_secs(30)).unwrap();

    let mut registry = registry();
    registry.connectors.push(ConnectorPlugin::native(
        "test.ReportingSinkConnector",
        PluginKind::Sink,
        "test",
        || AnyConnector::Sink(Box::<ReportingSink>::default()),
    ));
    let servers = bootstrap();
    let w = worker_with(
        registry,
        &[
            ("bootstrap.servers", servers.as_str()),
            ("offset.flush.interval.ms", "200"),
        ],
    );
    let body = format!(
        r#"{{"name":"{}","config":{{"connector.class":"test.ReportingSinkConnector","topics":"{topic}","errors.tolerance":"all",
            "errors.deadletterqueue.topic.name":"{dlq}","errors.deadletterqueue.topic.replication.factor":"1",
            "errors.deadletterqueue.context.headers.enable":"true"}}}}"#,
        unique("reporting")
    );
    assert_eq!(
        w.call("POST", "/connectors", Some(&body)).await.0,
        axum::http::StatusCode::CREATED
    );

    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", bootstrap())
        .set("group.id", unique("dlq-reader"))
        .set("auto.offset.reset", "earliest")
        .create()
        .unwrap();
    consumer.subscribe(&[&dlq]).unwrap();
    let mut dead = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    while dead.len() < 2 && Instant::now() < deadline {
        if let Some(Ok(m)) = consumer.poll(Duration::from_millis(200)) {
            let stage = m.headers().and_then(|h| {
                h.iter()
                    .find(|h| h.key == "__connect.errors.stage")
                    .and_then(|h| h.value.map(<[u8]>::to_vec))
            });
            dead.push((
                String::from_utf8_lossy(m.payload().unwrap_or_default()).into_owned(),
                stage,
            ));
        }
    }
    assert_eq!(
        dead,
        vec![
            ("bad 2".to_owned(), Some(b"TASK_PUT".to_vec())),
            ("bad 4".to_owned(), Some(b"TASK_PUT".to_vec()))
        ]
    );
    let accepted = ACCEPTED.lock().unwrap().clone();
    assert_eq!(accepted, vec!["good 1", "good 3"]);
    w.herder.stop().await;
}
