//! Ferry's REST API: Connect's endpoints over `dyn Herder`, answering with Connect's status
//! codes and JSON bodies.

mod connectors;
mod entities;
mod error;
mod loggers;
mod offsets;
mod plugins;
mod query;
mod root;
mod server;
mod tasks;

use std::sync::Arc;

use axum::routing::{get, post, put};
use axum::Router;
use ferry_runtime::herder::Herder;

pub use error::ApiError;
pub use loggers::{LogLevels, LoggerLevel};
pub use server::{parse_listener, serve};

/// Shared by every handler.
#[derive(Clone)]
pub struct AppState {
    pub herder: Arc<dyn Herder>,
    /// Absent when the admin endpoints are switched off.
    pub loggers: Option<Arc<dyn LogLevels>>,
}

/// The full router, without a socket (tests call it directly).
pub fn router(herder: Arc<dyn Herder>) -> Router {
    router_with(AppState {
        herder,
        loggers: None,
    })
}

/// What the server runs: the router behind a path normaliser, so `/connectors/` reaches the
/// same endpoint as `/connectors`, as in Java.
pub type Service =
    tower::util::MapRequest<Router, fn(axum::extract::Request) -> axum::extract::Request>;

pub fn service(state: AppState) -> Service {
    tower::ServiceExt::map_request(router_with(state), trim_trailing_slash as fn(_) -> _)
}

fn trim_trailing_slash(mut request: axum::extract::Request) -> axum::extract::Request {
    let path = request.uri().path();
    if path.len() > 1 && path.ends_with('/') {
        let trimmed = path.trim_end_matches('/');
        let trimmed = if trimmed.is_empty() { "/" } else { trimmed };
        let rebuilt = match request.uri().query() {
            Some(q) => format!("{trimmed}?{q}"),
            None => trimmed.to_owned(),
        };
        if let Ok(uri) = rebuilt.parse() {
            *request.uri_mut() = uri;
        }
    }
    request
}

/// The full router over `state`.
pub fn router_with(state: AppState) -> Router {
    Router::new()
        .route("/", get(root::server_info))
        .route("/health", get(root::health))
        .route(
            "/connectors",
            get(connectors::list).post(connectors::create),
        )
        .route(
            "/connectors/{name}",
            get(connectors::info).delete(connectors::delete),
        )
        .route(
            "/connectors/{name}/config",
            get(connectors::config)
                .put(connectors::put_config)
                .patch(connectors::patch_config),
        )
        .route("/connectors/{name}/status", get(connectors::status))
        .route("/connectors/{name}/restart", post(connectors::restart))
        .route("/connectors/{name}/pause", put(connectors::pause))
        .route("/connectors/{name}/resume", put(connectors::resume))
        .route("/connectors/{name}/stop", put(connectors::stop))
        .route("/connectors/{name}/topics", get(connectors::topics))
        .route(
            "/connectors/{name}/topics/reset",
            put(connectors::reset_topics),
        )
        .route(
            "/connectors/{name}/offsets",
            get(offsets::get)
                .patch(offsets::alter)
                .delete(offsets::reset),
        )
        .route("/connectors/{name}/tasks", get(tasks::list))
        .route("/connectors/{name}/tasks/{task}/status", get(tasks::status))
        .route(
            "/connectors/{name}/tasks/{task}/restart",
            post(tasks::restart),
        )
        .route("/admin/loggers", get(loggers::list))
        .route("/admin/loggers/{name}", get(loggers::get).put(loggers::set))
        .route("/connector-plugins", get(plugins::list))
        .route("/connector-plugins/{plugin}/config", get(plugins::config))
        .route(
            "/connector-plugins/{plugin}/config/validate",
            put(plugins::validate),
        )
        .fallback(error::not_found_fallback)
        .method_not_allowed_fallback(error::method_not_allowed_fallback)
        .with_state(state)
}
