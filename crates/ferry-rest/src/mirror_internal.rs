//! A dedicated MirrorMaker node's internal REST API (KIP-710, Java's `MirrorRestServer`): one
//! server for all the node's flows, each flow's worker-to-worker endpoints under
//! `/{source}/{target}/connectors/…`, so a follower of a flow can hand the flow's leader its
//! task configs (and ask it to fence zombies). It serves nothing else: a dedicated MirrorMaker
//! has no public REST API.

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::{post, put};
use axum::Router;

use crate::error::ApiError;
use crate::AppState;

/// Each flow's `(source, target)` with what serves it; filled in as the flows' workers start.
#[derive(Clone, Default)]
pub struct MirrorFlows(Arc<RwLock<BTreeMap<(String, String), AppState>>>);

impl MirrorFlows {
    pub fn add(&self, source: &str, target: &str, state: AppState) {
        self.0
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert((source.to_owned(), target.to_owned()), state);
    }

    /// Java's `InternalMirrorResource.herderForRequest`.
    fn flow(&self, source: &str, target: &str) -> Result<AppState, ApiError> {
        self.0
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(&(source.to_owned(), target.to_owned()))
            .cloned()
            .ok_or_else(|| {
                ApiError::new(
                    StatusCode::NOT_FOUND,
                    format!(
                        "No replication flow found for source '{source}' and target '{target}'"
                    ),
                )
            })
    }
}

async fn submit_configs(
    State(flows): State<MirrorFlows>,
    Path((source, target, name)): Path<(String, String, String)>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<StatusCode, ApiError> {
    let state = flows.flow(&source, &target)?;
    crate::tasks::submit_configs(State(state), Path(name), headers, body).await
}

async fn fence(
    State(flows): State<MirrorFlows>,
    Path((source, target, name)): Path<(String, String, String)>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<StatusCode, ApiError> {
    let state = flows.flow(&source, &target)?;
    crate::tasks::fence(State(state), Path(name), headers, body).await
}

pub fn service(flows: MirrorFlows) -> crate::Service {
    let router = Router::new()
        .route(
            "/{source}/{target}/connectors/{name}/tasks",
            post(submit_configs),
        )
        .route("/{source}/{target}/connectors/{name}/fence", put(fence))
        .fallback(crate::error::not_found_fallback)
        .method_not_allowed_fallback(crate::error::method_not_allowed_fallback)
        .with_state(flows)
        .layer(axum::middleware::from_fn(crate::forward::forward_layer))
        .layer(axum::middleware::from_fn(crate::error::request_timeout));
    tower::ServiceExt::map_request(router, crate::trim_trailing_slash as fn(_) -> _)
}

#[cfg(test)]
mod tests {
    use axum::body::Body;
    use axum::http::Request;
    use tower::ServiceExt;

    use super::*;

    async fn answer(request: Request<Body>) -> (StatusCode, serde_json::Value) {
        let response = service(MirrorFlows::default())
            .oneshot(request)
            .await
            .unwrap();
        let status = response.status();
        let body = axum::body::to_bytes(response.into_body(), 1 << 20)
            .await
            .unwrap();
        (status, serde_json::from_slice(&body).unwrap())
    }

    #[tokio::test]
    async fn a_flow_the_node_does_not_run_answers_java_s_404_and_nothing_else_is_served() {
        let (status, body) = answer(
            Request::post("/A/B/connectors/MirrorSourceConnector/tasks")
                .body(Body::from("[]"))
                .unwrap(),
        )
        .await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        assert_eq!(
            body["message"],
            "No replication flow found for source 'A' and target 'B'"
        );
        assert_eq!(body["error_code"], 404);
        let (status, _) = answer(Request::get("/connectors").body(Body::empty()).unwrap()).await;
        assert_eq!(status, StatusCode::NOT_FOUND);
    }
}
