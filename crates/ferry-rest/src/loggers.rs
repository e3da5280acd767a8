//! `/admin/loggers` (KIP-495): log levels changed at run time. The binary owns the logging
//! backend; REST sees it through [`LogLevels`].

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};

use crate::error::ApiError;
use crate::AppState;

/// A logger's level and when this API last changed it (epoch ms).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoggerLevel {
    pub level: String,
    pub last_modified: Option<i64>,
}

/// The worker's log levels.
pub trait LogLevels: Send + Sync {
    /// `root` plus every logger with an explicitly set level.
    fn all(&self) -> BTreeMap<String, LoggerLevel>;
    /// The effective level of a logger (`root` included).
    fn get(&self, name: &str) -> LoggerLevel;
    /// Sets `namespace` and every known logger under it to `level` (a log4j level name, upper
    /// case); answers the loggers affected, sorted.
    fn set(&self, namespace: &str, level: &str) -> Vec<String>;
}

/// Log4j's level names, which clients send.
const LEVELS: &[&str] = &[
    "ALL", "TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL", "OFF",
];

fn loggers(state: &AppState) -> Result<&Arc<dyn LogLevels>, ApiError> {
    state
        .loggers
        .as_ref()
        .ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, "HTTP 404 Not Found"))
}

fn level_json(l: &LoggerLevel) -> Value {
    json!({"level": l.level, "last_modified": l.last_modified})
}

pub(crate) async fn list(State(state): State<AppState>) -> Result<Json<Value>, ApiError> {
    let all = loggers(&state)?.all();
    Ok(Json(Value::Object(
        all.iter()
            .map(|(k, v)| (k.clone(), level_json(v)))
            .collect(),
    )))
}

pub(crate) async fn get(
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let levels = loggers(&state)?;
    let name = if name.eq_ignore_ascii_case("root") {
        "root".to_owned()
    } else {
        name
    };
    Ok(Json(level_json(&levels.get(&name))))
}

pub(crate) async fn set(
    State(state): State<AppState>,
    Path(name): Path<String>,
    Query(params): Query<HashMap<String, String>>,
    body: Result<Json<BTreeMap<String, Value>>, JsonRejection>,
) -> Result<Response, ApiError> {
    let levels = loggers(&state)?;
    let Json(body) = body?;
    let level = body.get("level").and_then(Value::as_str).ok_or_else(|| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            "Desired 'level' parameter was not specified in request.",
        )
    })?;
    let upper = level.to_ascii_uppercase();
    if !LEVELS.contains(&upper.as_str()) {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            format!("invalid log level '{level}'."),
        ));
    }
    let cluster = params
        .get("scope")
        .is_some_and(|s| s.eq_ignore_ascii_case("cluster"));
    // KIP-976: in distributed mode the level goes to every worker through the config topic,
    // this one included when it reads its own record.
    if cluster && state.herder.set_cluster_logger_level(&name, &upper).await? {
        return Ok(StatusCode::NO_CONTENT.into_response());
    }
    // Java leaves out of its answer the loggers that already had this level.
    let before = levels.all();
    let namespace_before = levels.get(&name).level;
    let affected: Vec<String> = levels
        .set(&name, &upper)
        .into_iter()
        .filter(|logger| {
            let previous = before
                .get(logger)
                .map_or(namespace_before.as_str(), |l| l.level.as_str());
            previous != upper
        })
        .collect();
    // Standalone applies the cluster scope locally, answering as Java does for that scope.
    if cluster {
        return Ok(StatusCode::NO_CONTENT.into_response());
    }
    Ok(Json(json!(affected)).into_response())
}
