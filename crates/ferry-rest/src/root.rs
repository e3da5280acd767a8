use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use serde_json::{json, Value};

use crate::AppState;

/// `GET /`: Java's three fields. `version` is the Kafka Connect release Ferry reproduces (tools
/// compare it before using newer endpoints); `commit` names Ferry's own version and commit.
pub(crate) async fn server_info(State(state): State<AppState>) -> Json<Value> {
    Json(json!({
        "version": ferry_runtime::KAFKA_CONNECT_VERSION,
        "commit": format!("ferry-{}+{}", env!("CARGO_PKG_VERSION"), env!("FERRY_GIT_COMMIT")),
        "kafka_cluster_id": state.herder.kafka_cluster_id(),
    }))
}

/// How long `GET /health` waits for the herder, as Java's health check does.
const HEALTH_CHECK_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// `GET /health` (KIP-1017): starting until start-up is over; then healthy when the herder
/// answers within the timeout, unhealthy (500) when it is stuck.
pub(crate) async fn health(State(state): State<AppState>) -> (StatusCode, Json<Value>) {
    if !state.herder.is_ready() {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(json!({"status": "starting", "message": "Worker is still starting up."})),
        );
    }
    match tokio::time::timeout(HEALTH_CHECK_TIMEOUT, state.herder.health_check()).await {
        Ok(()) => (
            StatusCode::OK,
            Json(
                json!({"status": "healthy", "message": "Worker has completed startup and is ready to handle requests."}),
            ),
        ),
        Err(_) => {
            tracing::warn!(
                timeout_ms = HEALTH_CHECK_TIMEOUT.as_millis() as u64,
                "Health check: the herder did not answer in time"
            );
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                Json(
                    json!({"status": "unhealthy", "message": "Worker was unable to handle this request and may be unable to handle other requests."}),
                ),
            )
        }
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
