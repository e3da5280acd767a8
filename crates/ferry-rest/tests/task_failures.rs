//! A panicking task, run by the real worker and herder, shows FAILED with its trace in
//! `GET /connectors/{c}/status` while the worker and another connector carry on. No broker is
//! needed: the tasks never reach Kafka (the worker points at a closed port).

use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use ferry_api::config::ConfigDef;
use ferry_api::connector::{AnyConnector, Connector, ConnectorContext, SourceConnector};
use ferry_api::record::SourceRecord;
use ferry_api::task::{SourceTask, SourceTaskContext};
use ferry_api::ConfigMap;
use ferry_runtime::config::worker::WorkerConfig;
use ferry_runtime::herder::{Herder, StandaloneHerder};
use ferry_runtime::plugins::{ConnectorPlugin, PluginKind, Registry};
use ferry_runtime::status::MemoryStatusStore;
use ferry_runtime::storage::file_offsets::FileOffsetStore;
use ferry_runtime::worker::{TargetState, Worker};
use http_body_util::BodyExt;
use serde_json::Value;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

/// A source whose task either panics on its first poll or idles forever.
#[derive(Default)]
struct TestSource {
    panics: bool,
}

struct TestTask {
    panics: bool,
}

impl Connector for TestSource {
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

impl SourceConnector for TestSource {
    fn create_task(&self) -> Box<dyn SourceTask> {
        Box::new(TestTask {
            panics: self.panics,
        })
    }
}

#[async_trait]
impl SourceTask for TestTask {
    fn version(&self) -> String {
        "test".into()
    }
    async fn start(&mut self, _: &ConfigMap, _: SourceTaskContext) -> ferry_api::error::Result<()> {
        Ok(())
    }
    async fn poll(&mut self) -> ferry_api::error::Result<Vec<SourceRecord>> {
        if self.panics {
            panic!("the test task broke on purpose");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        Ok(Vec::new())
    }
    async fn stop(&mut self) -> ferry_api::error::Result<()> {
        Ok(())
    }
}

fn registry() -> Registry {
    let mut registry = Registry::builtin();
    registry.connectors.push(ConnectorPlugin {
        class_name: "test.PanickingSourceConnector",
        kind: PluginKind::Source,
        version: "test",
        create: || AnyConnector::Source(Box::new(TestSource { panics: true })),
    });
    registry.connectors.push(ConnectorPlugin {
        class_name: "test.IdleSourceConnector",
        kind: PluginKind::Source,
        version: "test",
        create: || AnyConnector::Source(Box::new(TestSource { panics: false })),
    });
    registry
}

async fn status(app: &axum::Router, connector: &str) -> Value {
    let req = Request::get(format!("/connectors/{connector}/status"))
        .body(Body::empty())
        .unwrap();
    let resp = app.clone().oneshot(req).await.unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    serde_json::from_slice(&resp.into_body().collect().await.unwrap().to_bytes()).unwrap()
}

fn props(pairs: &[(&str, &str)]) -> ConfigMap {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_task_is_failed_with_its_trace_and_the_worker_carries_on() {
    let dir = tempfile::tempdir().unwrap();
    let config = WorkerConfig::standalone(&props(&[
        ("bootstrap.servers", "127.0.0.1:1"),
        (
            "key.converter",
            "org.apache.kafka.connect.storage.StringConverter",
        ),
        (
            "value.converter",
            "org.apache.kafka.connect.storage.StringConverter",
        ),
        (
            "offset.storage.file.filename",
            dir.path().join("offsets").to_str().unwrap(),
        ),
        ("task.shutdown.graceful.timeout.ms", "1000"),
    ]))
    .unwrap();
    let (tx, rx) = mpsc::unbounded_channel();
    let worker = Arc::new(Worker::new(
        "test-worker:8083".into(),
        Arc::new(config),
        Arc::new(registry()),
        Arc::new(FileOffsetStore::open(dir.path().join("offsets")).unwrap()),
        Arc::new(MemoryStatusStore::default()),
        CancellationToken::new(),
        tx,
    ));
    let herder = StandaloneHerder::new(worker, "cluster".into(), rx);
    for (name, class) in [
        ("panicky", "test.PanickingSourceConnector"),
        ("idle", "IdleSource"),
    ] {
        herder
            .put_connector_config(
                name,
                props(&[("connector.class", class)]),
                false,
                TargetState::Started,
            )
            .await
            .unwrap();
    }
    let app = ferry_rest::router(herder.clone());

    let deadline = Instant::now() + Duration::from_secs(20);
    let failed = loop {
        let s = status(&app, "panicky").await;
        if s["tasks"][0]["state"] == "FAILED" {
            break s;
        }
        assert!(
            Instant::now() < deadline,
            "the panicking task never became FAILED: {s}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let trace = failed["tasks"][0]["trace"].as_str().unwrap();
    assert!(trace.contains("the test task broke on purpose"), "{trace}");
    assert_eq!(failed["tasks"][0]["worker_id"], "test-worker:8083");
    assert_eq!(failed["connector"]["state"], "RUNNING");

    let idle = status(&app, "idle").await;
    assert_eq!(idle["tasks"][0]["state"], "RUNNING", "{idle}");
    // The worker still takes new work after the panic.
    herder
        .put_connector_config(
            "later",
            props(&[("connector.class", "IdleSource")]),
            false,
            TargetState::Started,
        )
        .await
        .unwrap();
    assert_eq!(status(&app, "later").await["connector"]["state"], "RUNNING");
    herder.stop().await;
}
