use axum::extract::State;
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
