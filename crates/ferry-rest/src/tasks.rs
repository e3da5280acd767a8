//! `/connectors/{c}/tasks…` endpoints.

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::Json;
use ferry_api::ConfigMap;
use ferry_runtime::herder::InternalRequest;
use ferry_runtime::status::TaskId;
use serde_json::{json, Value};

use crate::entities::{plugin_version, state_object};
use crate::error::ApiError;
use crate::AppState;

pub(crate) async fn list(
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let tasks: Vec<Value> = state
        .herder
        .task_configs(&name)
        .await?
        .into_iter()
        .map(|(id, config)| json!({"id": {"connector": id.connector, "task": id.task}, "config": config}))
        .collect();
    Ok(Json(json!(tasks)))
}

/// A task index from the path; Java's routing answers a non-number with a plain 404.
fn task_id(name: String, task: &str) -> Result<TaskId, ApiError> {
    let task = task
        .parse()
        .map_err(|_| ApiError::new(StatusCode::NOT_FOUND, "HTTP 404 Not Found"))?;
    Ok(TaskId {
        connector: name,
        task,
    })
}

pub(crate) async fn status(
    State(state): State<AppState>,
    Path((name, task)): Path<(String, String)>,
) -> Result<Json<Value>, ApiError> {
    let id = task_id(name, &task)?;
    let info = state.herder.task_status(&id).await?;
    let version = plugin_version(&state, &id.connector).await;
    Ok(Json(state_object(Some(id.task), &info, version.as_deref())))
}

pub(crate) async fn restart(
    State(state): State<AppState>,
    Path((name, task)): Path<(String, String)>,
) -> Result<StatusCode, ApiError> {
    state.herder.restart_task(&task_id(name, &task)?).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// A worker-to-worker request: its signature headers and the exact body bytes they sign.
fn internal_request(headers: &HeaderMap, body: &Bytes) -> InternalRequest {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    InternalRequest {
        signature: header("X-Connect-Authorization"),
        algorithm: header("X-Connect-Request-Signature-Algorithm"),
        body: body.to_vec(),
    }
}

/// Internal endpoint: the worker running a connector sends its task configs to the leader,
/// signed with the session key. The exact body bytes go to the herder, which checks the MAC.
pub(crate) async fn submit_configs(
    State(state): State<AppState>,
    Path(name): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<StatusCode, ApiError> {
    let configs: Vec<ConfigMap> = serde_json::from_slice(&body).map_err(|e| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            format!("Invalid task configs: {e}"),
        )
    })?;
    let request = internal_request(&headers, &body);
    state
        .herder
        .put_task_configs(&name, configs, request)
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Internal endpoint (KIP-618): a worker about to start an exactly-once source task asks the
/// leader to fence out the connector's earlier task generations, signed with the session key.
pub(crate) async fn fence(
    State(state): State<AppState>,
    Path(name): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<StatusCode, ApiError> {
    let request = internal_request(&headers, &body);
    state.herder.fence_zombies(&name, request).await?;
    Ok(StatusCode::NO_CONTENT)
}
