//! Ferry's REST API: Connect's endpoints over `dyn Herder`, answering with Connect's status
//! codes and JSON bodies.

mod connectors;
mod entities;
mod error;
mod root;
mod server;

use std::sync::Arc;

use axum::routing::get;
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
            get(connectors::config).put(connectors::put_config),
        )
        .route("/connectors/{name}/status", get(connectors::status))
        .route("/connectors/{name}/tasks", get(connectors::tasks))
        .fallback(error::not_found_fallback)
        .with_state(AppState { herder })
}

#[cfg(test)]
mod tests;
