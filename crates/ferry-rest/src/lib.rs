//! Ferry's REST API: Connect's endpoints over `dyn Herder`, answering with Connect's status
//! codes and JSON bodies.

mod connectors;
mod entities;
mod error;
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
pub use server::{parse_listener, serve};

/// Shared by every handler.
#[derive(Clone)]
pub struct AppState {
    pub herder: Arc<dyn Herder>,
}

/// The full router, without a socket (tests call it directly).
pub fn router(herder: Arc<dyn Herder>) -> Router {
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
        .route("/connector-plugins", get(plugins::list))
        .route("/connector-plugins/{plugin}/config", get(plugins::config))
        .route(
            "/connector-plugins/{plugin}/config/validate",
            put(plugins::validate),
        )
        .fallback(error::not_found_fallback)
        .method_not_allowed_fallback(error::method_not_allowed_fallback)
        .with_state(AppState { herder })
}
