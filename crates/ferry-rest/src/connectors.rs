//! `/connectors` endpoints.

use std::collections::BTreeMap;

use std::collections::HashMap;

use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use ferry_api::ConfigMap;
use ferry_runtime::herder::{ConfigPatch, RestartRequest, Written};
use ferry_runtime::worker::TargetState;
use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::entities::{connector_info, connector_status, plugin_version};
use crate::error::ApiError;
use crate::query;
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
    'connectors: for name in names {
        let mut entry = Map::new();
        for e in &expands {
            match *e {
                "status" => match state.herder.connector_status(&name).await {
                    Ok(s) => {
                        let version = plugin_version(&state, &name).await;
                        entry.insert(
                            "status".to_owned(),
                            connector_status(&s, version.as_deref()),
                        );
                    }
                    // Java leaves out a connector whose status cannot be found.
                    Err(_) => continue 'connectors,
                },
                "info" => {
                    let info = state.herder.connector_info(&name).await.ok();
                    entry.insert(
                        "info".to_owned(),
                        info.as_ref().map_or(Value::Null, connector_info),
                    );
                }
                _ => {}
            }
        }
        out.insert(name, Value::Object(entry));
    }
    Ok(Json(Value::Object(out)))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
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
    headers: HeaderMap,
    body: Result<Json<CreateRequest>, axum::extract::rejection::JsonRejection>,
) -> Result<Response, ApiError> {
    let Json(req) = body?;
    let config = string_map(req.config.unwrap_or_default());
    let name = req
        .name
        .map(|n| n.trim().to_owned())
        .or_else(|| config.get("name").cloned())
        .unwrap_or_default();
    check_name(&config, &name)?;
    let initial = target_state(req.initial_state.as_deref())?;
    let (_, info) = state
        .herder
        .put_connector_config(&name, config, false, initial)
        .await?;
    Ok(created(&base_uri(&headers), &name, &info))
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
    headers: HeaderMap,
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
    if written == Written::Created {
        return Ok(created(&base_uri(&headers), &name, &info));
    }
    Ok((StatusCode::OK, Json(connector_info(&info))).into_response())
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
    let status = state.herder.connector_status(&name).await?;
    let version = plugin_version(&state, &name).await;
    Ok(Json(connector_status(&status, version.as_deref())))
}

/// The absolute base URL of this request (`http://host:port`), for `Location` headers.
fn base_uri(headers: &HeaderMap) -> String {
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("localhost");
    format!("http://{host}")
}

/// 201 with the new connector's `Location`, as Java answers a create.
fn created(base: &str, name: &str, info: &ferry_runtime::herder::ConnectorInfo) -> Response {
    let location = format!(
        "{base}/connectors/{}",
        ferry_runtime::herder::status_view::encode_path_segment(name)
    );
    (
        StatusCode::CREATED,
        [(header::LOCATION, location)],
        Json(connector_info(info)),
    )
        .into_response()
}

pub(crate) async fn patch_config(
    State(state): State<AppState>,
    Path(name): Path<String>,
    body: Result<Json<BTreeMap<String, Value>>, axum::extract::rejection::JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    let Json(patch) = body?;
    let patch: ConfigPatch = patch
        .into_iter()
        .map(|(k, v)| match v {
            Value::Null => (k, None),
            Value::String(s) => (k, Some(s)),
            other => (k, Some(other.to_string())),
        })
        .collect();
    Ok(Json(connector_info(
        &state.herder.patch_connector_config(&name, patch).await?,
    )))
}

/// `POST /connectors/{c}/restart`: 204 for the legacy restart, else 202 with the plan (KIP-745).
pub(crate) async fn restart(
    State(state): State<AppState>,
    Path(name): Path<String>,
    Query(params): Query<HashMap<String, String>>,
) -> Result<Response, ApiError> {
    let request = RestartRequest {
        include_tasks: query::boolean(&params, "includeTasks", false),
        only_failed: query::boolean(&params, "onlyFailed", false),
    };
    if request.is_legacy() {
        state.herder.restart_connector(&name).await?;
        return Ok(StatusCode::NO_CONTENT.into_response());
    }
    let plan = state
        .herder
        .restart_connector_and_tasks(&name, request)
        .await?;
    let version = plugin_version(&state, &name).await;
    Ok((
        StatusCode::ACCEPTED,
        Json(connector_status(&plan, version.as_deref())),
    )
        .into_response())
}

pub(crate) async fn pause(
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> Result<StatusCode, ApiError> {
    state.herder.pause_connector(&name).await?;
    Ok(StatusCode::ACCEPTED)
}

pub(crate) async fn resume(
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> Result<StatusCode, ApiError> {
    state.herder.resume_connector(&name).await?;
    Ok(StatusCode::ACCEPTED)
}

pub(crate) async fn stop(
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> Result<StatusCode, ApiError> {
    state.herder.stop_connector(&name).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `GET /connectors/{c}/topics` (KIP-558); no existence check, as in Java.
pub(crate) async fn topics(
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let topics = state.herder.connector_topics(&name).await?;
    Ok(Json(json!({ name: {"topics": topics} })))
}

pub(crate) async fn reset_topics(
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> Result<StatusCode, ApiError> {
    state.herder.reset_connector_topics(&name).await?;
    Ok(StatusCode::ACCEPTED)
}
