//! REST tests over a fake herder, with no socket.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use ferry_api::ConfigMap;
use ferry_runtime::herder::{
    ConnectorInfo, ConnectorStateInfo, Herder, HerderError, StateInfo, Written,
};
use ferry_runtime::plugins::PluginKind;
use ferry_runtime::status::{State, TaskId};
use ferry_runtime::worker::TargetState;
use http_body_util::BodyExt;
use serde_json::{json, Value};
use tower::ServiceExt;

#[derive(Default)]
struct FakeHerder {
    connectors: Mutex<Vec<(String, ConfigMap)>>,
}

#[async_trait]
impl Herder for FakeHerder {
    async fn connectors(&self) -> Vec<String> {
        self.connectors
            .lock()
            .unwrap()
            .iter()
            .map(|(n, _)| n.clone())
            .collect()
    }

    async fn connector_info(&self, name: &str) -> Result<ConnectorInfo, HerderError> {
        let c = self.connectors.lock().unwrap();
        let (_, config) = c
            .iter()
            .find(|(n, _)| n == name)
            .ok_or_else(|| HerderError::NotFound(format!("Connector {name} not found")))?;
        Ok(ConnectorInfo {
            name: name.to_owned(),
            config: config.clone(),
            tasks: vec![TaskId {
                connector: name.to_owned(),
                task: 0,
            }],
            kind: Some(PluginKind::Source),
        })
    }

    async fn connector_status(&self, name: &str) -> Result<ConnectorStateInfo, HerderError> {
        self.connector_info(name).await?;
        let running = StateInfo {
            state: State::Running,
            trace: None,
            worker_id: "w:8083".into(),
        };
        let failed = StateInfo {
            state: State::Failed,
            trace: Some("boom".into()),
            worker_id: "w:8083".into(),
        };
        Ok(ConnectorStateInfo {
            name: name.to_owned(),
            connector: running,
            tasks: vec![(0, failed)],
            kind: Some(PluginKind::Source),
        })
    }

    async fn put_connector_config(
        &self,
        name: &str,
        config: ConfigMap,
        allow_replace: bool,
        _: TargetState,
    ) -> Result<(Written, ConnectorInfo), HerderError> {
        if !config.contains_key("connector.class") {
            return Err(HerderError::BadRequest(
                "Connector configuration is invalid".into(),
            ));
        }
        let written = {
            let mut c = self.connectors.lock().unwrap();
            match c.iter_mut().find(|(n, _)| n == name) {
                Some(_) if !allow_replace => {
                    return Err(HerderError::AlreadyExists(format!(
                        "Connector {name} already exists"
                    )))
                }
                Some(existing) => {
                    existing.1 = config;
                    Written::Updated
                }
                None => {
                    c.push((name.to_owned(), config));
                    Written::Created
                }
            }
        };
        Ok((written, self.connector_info(name).await?))
    }

    async fn delete_connector(&self, name: &str) -> Result<(), HerderError> {
        let mut c = self.connectors.lock().unwrap();
        let before = c.len();
        c.retain(|(n, _)| n != name);
        if c.len() == before {
            return Err(HerderError::NotFound(format!("Connector {name} not found")));
        }
        Ok(())
    }

    fn kafka_cluster_id(&self) -> String {
        "cluster-1".into()
    }
}

async fn call(
    app: &axum::Router,
    method: &str,
    uri: &str,
    body: Option<&str>,
) -> (StatusCode, Value) {
    let req = Request::builder()
        .method(method)
        .uri(uri)
        .header("content-type", "application/json")
        .body(
            body.map(|b| Body::from(b.to_owned()))
                .unwrap_or_else(Body::empty),
        )
        .unwrap();
    let resp = app.clone().oneshot(req).await.unwrap();
    let status = resp.status();
    let bytes = resp.into_body().collect().await.unwrap().to_bytes();
    let value = if bytes.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&bytes).unwrap()
    };
    (status, value)
}

fn app() -> axum::Router {
    crate::router(Arc::new(FakeHerder::default()))
}

#[tokio::test]
async fn root_reports_cluster_id() {
    let (status, body) = call(&app(), "GET", "/", None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["kafka_cluster_id"], "cluster-1");
    assert!(body["version"].is_string());
}

#[tokio::test]
async fn create_get_status_delete() {
    let app = app();
    let (status, body) = call(
        &app,
        "POST",
        "/connectors",
        Some(r#"{"name":"a","config":{"connector.class":"FileStreamSource","tasks.max":1}}"#),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED);
    assert_eq!(body["config"]["tasks.max"], "1");
    assert_eq!(body["tasks"], json!([{"connector": "a", "task": 0}]));
    let (status, body) = call(
        &app,
        "POST",
        "/connectors",
        Some(r#"{"name":"a","config":{"connector.class":"FileStreamSource"}}"#),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(
        body,
        json!({"error_code": 409, "message": "Connector a already exists"})
    );
    let (status, body) = call(&app, "GET", "/connectors", None).await;
    assert_eq!((status, body), (StatusCode::OK, json!(["a"])));
    let (status, body) = call(&app, "GET", "/connectors/a/status", None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        body["connector"],
        json!({"state": "RUNNING", "worker_id": "w:8083"})
    );
    assert_eq!(
        body["tasks"],
        json!([{"id": 0, "state": "FAILED", "trace": "boom", "worker_id": "w:8083"}])
    );
    assert_eq!(body["type"], "source");
    let (status, body) = call(&app, "GET", "/connectors?expand=status&expand=info", None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["a"]["status"]["name"], "a");
    assert_eq!(body["a"]["info"]["name"], "a");
    let (status, _) = call(&app, "DELETE", "/connectors/a", None).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, body) = call(&app, "GET", "/connectors/a/status", None).await;
    assert_eq!(
        (status, body),
        (
            StatusCode::NOT_FOUND,
            json!({"error_code": 404, "message": "Connector a not found"})
        )
    );
}

#[tokio::test]
async fn put_config_answers_201_then_200() {
    let app = app();
    let (status, _) = call(
        &app,
        "PUT",
        "/connectors/b/config",
        Some(r#"{"connector.class":"FileStreamSink"}"#),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED);
    let (status, _) = call(
        &app,
        "PUT",
        "/connectors/b/config",
        Some(r#"{"connector.class":"FileStreamSink"}"#),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn malformed_body_and_unknown_path() {
    let app = app();
    let (status, body) = call(&app, "POST", "/connectors", Some("{not json")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["error_code"], 400);
    let (status, body) = call(&app, "GET", "/nowhere", None).await;
    assert_eq!(
        (status, body["error_code"].clone()),
        (StatusCode::NOT_FOUND, json!(404))
    );
}
