//! `/connectors/{c}/tasks…` endpoints.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use ferry_runtime::status::TaskId;
use serde_json::{json, Value};

use crate::entities::state_object;
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
    Ok(Json(state_object(Some(id.task), &info)))
}

pub(crate) async fn restart(
    State(state): State<AppState>,
    Path((name, task)): Path<(String, String)>,
) -> Result<StatusCode, ApiError> {
    state.herder.restart_task(&task_id(name, &task)?).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Internal endpoint for distributed workers; standalone answers as Java's does.
pub(crate) async fn submit_configs() -> ApiError {
    ApiError::new(
        StatusCode::INTERNAL_SERVER_ERROR,
        "Kafka Connect in standalone mode does not support externally setting task configurations.",
    )
}

/// Internal endpoint for exactly-once sources in distributed mode.
pub(crate) async fn fence() -> ApiError {
    ApiError::new(
        StatusCode::INTERNAL_SERVER_ERROR,
        "Kafka Connect in standalone mode does not support exactly-once source connectors.",
    )
}
