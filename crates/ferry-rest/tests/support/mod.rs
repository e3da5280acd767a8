//! A real standalone worker, herder and router with test connectors, and no broker: the test
//! tasks never produce, and the worker points at a closed port.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use ferry_api::config::{ConfigDef, ConfigKey, ConfigType, DefaultValue, Importance};
use ferry_api::connector::{AnyConnector, Connector, ConnectorContext, SourceConnector};
use ferry_api::record::SourceRecord;
use ferry_api::task::{SourceTask, SourceTaskContext};
use ferry_api::{ConfigMap, ConnectError};
use ferry_runtime::config::worker::WorkerConfig;
use ferry_runtime::herder::StandaloneHerder;
use ferry_runtime::plugins::{ConnectorPlugin, PluginKind, Registry};
use ferry_runtime::status::MemoryStatusStore;
use ferry_runtime::storage::file_offsets::FileOffsetStore;
use ferry_runtime::worker::Worker;
use http_body_util::BodyExt;
use serde_json::Value;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

/// How often each (connector, task) has been started, to tell which instances a restart touched.
static TASK_STARTS: Mutex<BTreeMap<(String, usize), usize>> = Mutex::new(BTreeMap::new());

pub fn task_starts(connector: &str, task: usize) -> usize {
    TASK_STARTS
        .lock()
        .unwrap()
        .get(&(connector.to_owned(), task))
        .copied()
        .unwrap_or(0)
}

/// Waits until the start counts of `connector`'s tasks 0 and 1 are `expected` (tasks start in
/// the background after a restart request returns).
pub async fn wait_starts(connector: &str, expected: (usize, usize)) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let now = (task_starts(connector, 0), task_starts(connector, 1));
        if now == expected {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "task starts of {connector} are {now:?}, expected {expected:?}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// A source whose tasks idle, panic on their first poll, or fail it with an error. It makes
/// `tasks.max` task configs; the tasks listed in `failing.tasks` fail (so one of several can).
struct TestSource {
    behaviour: Behaviour,
    props: ConfigMap,
}

#[derive(Clone, Copy)]
enum Behaviour {
    Idle,
    Panic,
    FailSome,
}

struct TestTask {
    behaviour: Behaviour,
    fail: bool,
}

impl Connector for TestSource {
    fn version(&self) -> String {
        "test".into()
    }

    fn config_def(&self) -> ConfigDef {
        ConfigDef::new().define(ConfigKey::new(
            "failing.tasks",
            ConfigType::List,
            DefaultValue::Value(String::new()),
            Importance::Low,
            "indices of the tasks that fail",
        ))
    }

    fn start(
        &mut self,
        props: &ConfigMap,
        _: Arc<dyn ConnectorContext>,
    ) -> ferry_api::error::Result<()> {
        self.props = props.clone();
        Ok(())
    }

    fn task_configs(&self, n: usize) -> ferry_api::error::Result<Vec<ConfigMap>> {
        let failing: Vec<usize> = self
            .props
            .get("failing.tasks")
            .map(|v| v.split(',').filter_map(|i| i.trim().parse().ok()).collect())
            .unwrap_or_default();
        let name = self.props.get("name").cloned().unwrap_or_default();
        Ok((0..n)
            .map(|i| {
                ConfigMap::from([
                    ("fail".to_owned(), failing.contains(&i).to_string()),
                    ("connector".to_owned(), name.clone()),
                    ("index".to_owned(), i.to_string()),
                ])
            })
            .collect())
    }

    fn stop(&mut self) -> ferry_api::error::Result<()> {
        Ok(())
    }
}

impl SourceConnector for TestSource {
    fn create_task(&self) -> Box<dyn SourceTask> {
        Box::new(TestTask {
            behaviour: self.behaviour,
            fail: false,
        })
    }
}

#[async_trait]
impl SourceTask for TestTask {
    fn version(&self) -> String {
        "test".into()
    }

    async fn start(
        &mut self,
        props: &ConfigMap,
        _: SourceTaskContext,
    ) -> ferry_api::error::Result<()> {
        let key = (
            props.get("connector").cloned().unwrap_or_default(),
            props.get("index").and_then(|i| i.parse().ok()).unwrap_or(0),
        );
        *TASK_STARTS.lock().unwrap().entry(key).or_default() += 1;
        self.fail = props.get("fail").is_some_and(|v| v == "true");
        Ok(())
    }

    async fn poll(&mut self) -> ferry_api::error::Result<Vec<SourceRecord>> {
        match self.behaviour {
            Behaviour::Panic => panic!("the test task broke on purpose"),
            Behaviour::FailSome if self.fail => {
                Err(ConnectError::other("the test task failed on purpose"))
            }
            _ => {
                tokio::time::sleep(Duration::from_millis(20)).await;
                Ok(Vec::new())
            }
        }
    }

    async fn stop(&mut self) -> ferry_api::error::Result<()> {
        Ok(())
    }
}

fn plugin(class_name: &'static str, create: fn() -> AnyConnector) -> ConnectorPlugin {
    ConnectorPlugin::native(class_name, PluginKind::Source, "test", create)
}

pub fn registry() -> Registry {
    let mut registry = Registry::builtin();
    registry
        .connectors
        .push(plugin("test.IdleSourceConnector", || {
            AnyConnector::Source(Box::new(TestSource {
                behaviour: Behaviour::Idle,
                props: ConfigMap::new(),
            }))
        }));
    registry
        .connectors
        .push(plugin("test.PanickingSourceConnector", || {
            AnyConnector::Source(Box::new(TestSource {
                behaviour: Behaviour::Panic,
                props: ConfigMap::new(),
            }))
        }));
    registry
        .connectors
        .push(plugin("test.FailingSourceConnector", || {
            AnyConnector::Source(Box::new(TestSource {
                behaviour: Behaviour::FailSome,
                props: ConfigMap::new(),
            }))
        }));
    registry
}

/// Log levels kept in memory, to test the endpoints without a global subscriber.
#[derive(Default)]
pub struct FakeLevels {
    set: Mutex<BTreeMap<String, String>>,
}

impl ferry_rest::LogLevels for FakeLevels {
    fn all(&self) -> BTreeMap<String, ferry_rest::LoggerLevel> {
        let mut all: BTreeMap<_, _> = self
            .set
            .lock()
            .unwrap()
            .iter()
            .map(|(k, v)| {
                (
                    k.clone(),
                    ferry_rest::LoggerLevel {
                        level: v.clone(),
                        last_modified: Some(1),
                    },
                )
            })
            .collect();
        all.entry("root".to_owned())
            .or_insert(ferry_rest::LoggerLevel {
                level: "INFO".into(),
                last_modified: None,
            });
        all
    }

    fn get(&self, name: &str) -> ferry_rest::LoggerLevel {
        let level = self
            .set
            .lock()
            .unwrap()
            .get(name)
            .cloned()
            .unwrap_or_else(|| "INFO".into());
        ferry_rest::LoggerLevel {
            level,
            last_modified: None,
        }
    }

    fn set(&self, namespace: &str, level: &str) -> Vec<String> {
        self.set
            .lock()
            .unwrap()
            .insert(namespace.to_owned(), level.to_owned());
        vec![namespace.to_owned()]
    }
}

pub fn props(pairs: &[(&str, &str)]) -> ConfigMap {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

pub struct TestWorker {
    pub herder: Arc<StandaloneHerder>,
    pub app: ferry_rest::Service,
    _dir: tempfile::TempDir,
}

/// A worker with `extra` worker settings on top of the defaults.
pub fn worker(extra: &[(&str, &str)]) -> TestWorker {
    worker_with(registry(), extra)
}

/// A worker over `registry`; `bootstrap.servers` in `extra` points it at a real broker.
pub fn worker_with(registry: Registry, extra: &[(&str, &str)]) -> TestWorker {
    let dir = tempfile::tempdir().unwrap();
    let offsets = dir.path().join("offsets");
    let mut settings = props(&[
        ("bootstrap.servers", "127.0.0.1:1"),
        (
            "key.converter",
            "org.apache.kafka.connect.storage.StringConverter",
        ),
        (
            "value.converter",
            "org.apache.kafka.connect.storage.StringConverter",
        ),
        ("offset.storage.file.filename", offsets.to_str().unwrap()),
        ("task.shutdown.graceful.timeout.ms", "1000"),
    ]);
    settings.extend(props(extra));
    let (tx, rx) = mpsc::unbounded_channel();
    let worker = Arc::new(Worker::new(
        "test-worker:8083".into(),
        Arc::new(WorkerConfig::standalone(&settings).unwrap()),
        Arc::new(registry),
        Arc::new(FileOffsetStore::open(&offsets).unwrap()),
        Arc::new(MemoryStatusStore::default()),
        CancellationToken::new(),
        tx,
    ));
    let herder = StandaloneHerder::new(worker, "cluster-1".into(), rx);
    herder.set_ready();
    let app = ferry_rest::service(ferry_rest::AppState {
        herder: herder.clone(),
        loggers: Some(Arc::new(FakeLevels::default())),
        options: Arc::new(ferry_rest::RestOptions::from_worker(&settings).unwrap()),
    });
    TestWorker {
        herder,
        app,
        _dir: dir,
    }
}

impl TestWorker {
    /// Sends a request; answers the status, the JSON body (null when empty) and the headers.
    pub async fn call_full(
        &self,
        method: &str,
        uri: &str,
        body: Option<&str>,
    ) -> (StatusCode, Value, axum::http::HeaderMap) {
        let mut req = Request::builder()
            .method(method)
            .uri(uri)
            .header("host", "localhost:8083");
        if body.is_some() {
            req = req.header("content-type", "application/json");
        }
        let req = req
            .body(
                body.map(|b| Body::from(b.to_owned()))
                    .unwrap_or_else(Body::empty),
            )
            .unwrap();
        let resp = self.app.clone().oneshot(req).await.unwrap();
        let status = resp.status();
        let headers = resp.headers().clone();
        let bytes = resp.into_body().collect().await.unwrap().to_bytes();
        // Text answers (GET /metrics) come back as a JSON string.
        let value = if bytes.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&bytes)
                .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()))
        };
        (status, value, headers)
    }

    pub async fn call(&self, method: &str, uri: &str, body: Option<&str>) -> (StatusCode, Value) {
        let (s, v, _) = self.call_full(method, uri, body).await;
        (s, v)
    }

    /// Creates a connector through the API and waits until its tasks report a state.
    pub async fn create(&self, name: &str, class: &str, extra: &str) {
        let body =
            format!(r#"{{"name":"{name}","config":{{"connector.class":"{class}"{extra}}}}}"#);
        let (status, body) = self.call("POST", "/connectors", Some(&body)).await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
    }

    /// Polls the connector's status until `condition` holds (20 s at most).
    pub async fn wait_status(
        &self,
        name: &str,
        what: &str,
        condition: impl Fn(&Value) -> bool,
    ) -> Value {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let (_, s) = self
                .call("GET", &format!("/connectors/{name}/status"), None)
                .await;
            if condition(&s) {
                return s;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what}: {s}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    pub async fn task_states(&self, name: &str) -> Vec<String> {
        let (_, s) = self
            .call("GET", &format!("/connectors/{name}/status"), None)
            .await;
        s["tasks"]
            .as_array()
            .map(|t| {
                t.iter()
                    .map(|t| t["state"].as_str().unwrap_or("").to_owned())
                    .collect()
            })
            .unwrap_or_default()
    }
}
