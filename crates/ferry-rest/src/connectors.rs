//! `/connectors` endpoints.

use std::collections::BTreeMap;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use ferry_api::ConfigMap;
use ferry_runtime::herder::Written;
use ferry_runtime::worker::TargetState;
use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::entities::{connector_info, connector_status};
use crate::error::ApiError;
use crate::AppState;

pub(crate) async fn list(
    State(state): State<AppState>,
    Query(q): Query<Vec<(String, String)>>,
) -> Result<Json<Value>, ApiError> {
    let names = state.herder.connectors().await;
    let expands: Vec<&str> = q
        .iter()
        .filter(|(k, _)| k == "expand")
        .map(|(_, v)| v.as_str())
        .collect();
    if expands.is_empty() {
        return Ok(Json(json!(names)));
    }
    let mut out = Map::new();
    for name in names {
        let mut entry = Map::new();
        for e in &expands {
            match *e {
                "status" => {
                    if let Ok(s) = state.herder.connector_status(&name).await {
                        entry.insert("status".to_owned(), connector_status(&s));
                    }
                }
                "info" => {
                    if let Ok(i) = state.herder.connector_info(&name).await {
                        entry.insert("info".to_owned(), connector_info(&i));
                    }
                }
                _ => {}
            }
        }
        out.insert(name, Value::Object(entry));
    }
    Ok(Json(Value::Object(out)))
}

#[derive(Deserialize)]
pub(crate) struct CreateRequest {
    name: Option<String>,
    config: Option<BTreeMap<String, Value>>,
    initial_state: Option<String>,
}

fn string_map(config: BTreeMap<String, Value>) -> ConfigMap {
    config
        .into_iter()
        .filter_map(|(k, v)| match v {
            Value::String(s) => Some((k, s)),
            Value::Null => None,
            other => Some((k, other.to_string())),
        })
        .collect()
}

/// A `name` inside the config must be the connector's own name.
fn check_name(config: &ConfigMap, name: &str) -> Result<(), ApiError> {
    match config.get("name") {
        Some(config_name) if config_name != name => Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            format!("Connector name configuration ({config_name}) doesn't match connector name in the URL ({name})"),
        )),
        _ => Ok(()),
    }
}

fn target_state(initial: Option<&str>) -> Result<TargetState, ApiError> {
    match initial.map(str::to_ascii_uppercase).as_deref() {
        None | Some("RUNNING") => Ok(TargetState::Started),
        Some("PAUSED") => Ok(TargetState::Paused),
        Some("STOPPED") => Ok(TargetState::Stopped),
        Some(other) => Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            format!("Invalid initial state {other}"),
        )),
    }
}

pub(crate) async fn create(
    State(state): State<AppState>,
    body: Result<Json<CreateRequest>, axum::extract::rejection::JsonRejection>,
) -> Result<Response, ApiError> {
    let Json(req) = body?;
    let config = string_map(req.config.unwrap_or_default());
    let name = req
        .name
        .map(|n| n.trim().to_owned())
        .or_else(|| config.get("name").cloned())
        .unwrap_or_default();
    if name.is_empty() {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "Connector name is null.",
        ));
    }
    check_name(&config, &name)?;
    let initial = target_state(req.initial_state.as_deref())?;
    let (_, info) = state
        .herder
        .put_connector_config(&name, config, false, initial)
        .await?;
    Ok((StatusCode::CREATED, Json(connector_info(&info))).into_response())
}

pub(crate) async fn info(
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(connector_info(
        &state.herder.connector_info(&name).await?,
    )))
}

pub(crate) async fn config(
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(json!(
        state.herder.connector_info(&name).await?.config
    )))
}

pub(crate) async fn put_config(
    State(state): State<AppState>,
    Path(name): Path<String>,
    body: Result<Json<BTreeMap<String, Value>>, axum::extract::rejection::JsonRejection>,
) -> Result<Response, ApiError> {
    let Json(config) = body?;
    let config = string_map(config);
    check_name(&config, &name)?;
    let (written, info) = state
        .herder
        .put_connector_config(&name, config, true, TargetState::Started)
        .await?;
    let status = if written == Written::Created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((status, Json(connector_info(&info))).into_response())
}

pub(crate) async fn delete(
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> Result<StatusCode, ApiError> {
    state.herder.delete_connector(&name).await?;
    Ok(StatusCode::NO_CONTENT)
}

pub(crate) async fn status(
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(connector_status(
        &state.herder.connector_status(&name).await?,
    )))
}

pub(crate) async fn tasks(
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let info = state.herder.connector_info(&name).await?;
    let tasks: Vec<Value> = info
        .tasks
        .iter()
        .map(|t| json!({"id": {"connector": t.connector, "task": t.task}, "config": {}}))
        .collect();
    Ok(Json(json!(tasks)))
}
