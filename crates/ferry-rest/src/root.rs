use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use serde_json::{json, Value};

use crate::AppState;

/// `GET /`: the worker's version, commit and Kafka cluster id.
pub(crate) async fn server_info(State(state): State<AppState>) -> Json<Value> {
    Json(json!({
        "version": env!("CARGO_PKG_VERSION"),
        "commit": option_env!("FERRY_GIT_COMMIT").unwrap_or("unknown"),
        "kafka_cluster_id": state.herder.kafka_cluster_id(),
    }))
}

/// `GET /health` (KIP-1017): healthy once start-up is over.
pub(crate) async fn health(State(state): State<AppState>) -> (StatusCode, Json<Value>) {
    if state.herder.is_ready() {
        (
            StatusCode::OK,
            Json(
                json!({"status": "healthy", "message": "Worker has completed startup and is ready to handle requests."}),
            ),
        )
    } else {
        (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(json!({"status": "starting", "message": "Worker is still starting up."})),
        )
    }
}

/// `GET /metrics`: the worker's metrics in the Prometheus text exposition format.
pub(crate) async fn metrics(
    State(state): State<AppState>,
) -> ([(axum::http::HeaderName, &'static str); 1], String) {
    (
        [(
            axum::http::header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        state.herder.render_metrics(),
    )
}

/// The OpenAPI document of this API (checked against the router by `tests/openapi.rs`).
pub const OPENAPI: &str = include_str!("../openapi.json");

pub(crate) async fn openapi() -> ([(axum::http::HeaderName, &'static str); 1], &'static str) {
    (
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        OPENAPI,
    )
}
