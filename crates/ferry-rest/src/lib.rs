//! Ferry's REST API: Connect's endpoints over `dyn Herder`, answering with Connect's status
//! codes and JSON bodies.

mod basic_auth;
mod connectors;
mod entities;
mod error;
mod forward;
mod http_headers;
mod loggers;
pub mod mirror_internal;
mod offsets;
mod plugins;
mod query;
mod root;
mod server;
mod tasks;

use std::sync::Arc;

use axum::extract::State;
use axum::routing::{get, post, put};
use axum::Router;
use ferry_runtime::herder::Herder;

pub use error::ApiError;
pub use forward::set_worker_client;
pub use http_headers::{parse_header_rules, HeaderRule};
pub use loggers::{LogLevels, LoggerLevel};
pub use server::{
    client_ssl, parse_listener, parse_listener_addr, serve, serve_mirror_internal, ListenerAddr,
    ListenerPlan, ServeError,
};

/// Shared by every handler.
#[derive(Clone)]
pub struct AppState {
    pub herder: Arc<dyn Herder>,
    /// Absent when the admin endpoints are switched off.
    pub loggers: Option<Arc<dyn LogLevels>>,
    pub options: Arc<RestOptions>,
}

/// Worker settings that shape every response.
#[derive(Debug, Clone, Default)]
pub struct RestOptions {
    /// `access.control.allow.origin`; blank leaves CORS off.
    pub cors_allow_origin: String,
    /// `access.control.allow.methods`; blank means GET, POST and HEAD.
    pub cors_allow_methods: String,
    /// `response.http.headers.config`, parsed.
    pub header_rules: Vec<HeaderRule>,
    /// Basic authentication (`rest.extension.classes` with Java's basic auth extension).
    pub basic_auth: Option<Arc<basic_auth::BasicAuth>>,
}

impl RestOptions {
    /// Reads the worker's REST settings; a bad `response.http.headers.config` names the key.
    pub fn from_worker(
        originals: &ferry_api::ConfigMap,
    ) -> Result<Self, ferry_api::config::ConfigError> {
        let get = |k: &str| originals.get(k).cloned().unwrap_or_default();
        let rules = get("response.http.headers.config");
        let header_rules = parse_header_rules(&rules).map_err(|why| {
            ferry_api::config::ConfigError::invalid_value(
                "response.http.headers.config",
                &rules,
                &why,
            )
        })?;
        let kafka_opts = std::env::var("KAFKA_OPTS").unwrap_or_default();
        let basic_auth =
            basic_auth::BasicAuth::from_worker(originals, &kafka_opts).map_err(|why| {
                ferry_api::config::ConfigError::invalid_value(
                    basic_auth::REST_EXTENSION_CLASSES,
                    &get(basic_auth::REST_EXTENSION_CLASSES),
                    &why,
                )
            })?;
        Ok(RestOptions {
            cors_allow_origin: get("access.control.allow.origin"),
            cors_allow_methods: get("access.control.allow.methods"),
            header_rules,
            basic_auth,
        })
    }
}

/// The full router, without a socket (tests call it directly).
pub fn router(herder: Arc<dyn Herder>) -> Router {
    router_with(AppState {
        herder,
        loggers: None,
        options: Arc::default(),
    })
}

/// What the server runs: the router behind a path normaliser, so `/connectors/` reaches the
/// same endpoint as `/connectors`, as in Java.
pub type Service =
    tower::util::MapRequest<Router, fn(axum::extract::Request) -> axum::extract::Request>;

pub fn service(state: AppState) -> Service {
    service_with(state, |router| router)
}

/// [`service`] with `extra` applied to the router first (the admin listeners' path filter).
pub fn service_with(state: AppState, extra: impl FnOnce(Router) -> Router) -> Service {
    let options = state.options.clone();
    let mut router = extra(router_with(state))
        .layer(axum::middleware::from_fn(forward::forward_layer))
        .layer(axum::middleware::from_fn(error::request_timeout));
    if let Some(auth) = options.basic_auth.clone() {
        router = router.layer(axum::middleware::from_fn_with_state(
            auth,
            basic_auth::layer,
        ));
    }
    if !options.header_rules.is_empty() {
        let rules = options.header_rules.clone();
        router = router.layer(axum::middleware::map_response(
            move |mut response: axum::response::Response| {
                let rules = rules.clone();
                async move {
                    http_headers::apply_rules(&rules, response.headers_mut());
                    response
                }
            },
        ));
    }
    if let Some(cors) = http_headers::cors(&options.cors_allow_origin, &options.cors_allow_methods)
    {
        router = router.layer(cors);
    }
    tower::ServiceExt::map_request(router, trim_trailing_slash as fn(_) -> _)
}

/// The router of a metrics listener: `GET /metrics` and nothing else.
pub fn metrics_service(state: AppState) -> Service {
    let router = Router::new()
        .route("/metrics", get(root::metrics))
        .fallback(error::not_found_fallback)
        .with_state(state);
    tower::ServiceExt::map_request(router, trim_trailing_slash as fn(_) -> _)
}

/// Strimzi's metrics reporter's listener: `GET /metrics` under the reporter's names.
pub fn strimzi_reporter_service(state: AppState, allow: Arc<regex::Regex>) -> Service {
    let router = Router::new()
        .route(
            "/metrics",
            get(move |State(state): State<AppState>| {
                let allow = allow.clone();
                async move {
                    (
                        [(
                            axum::http::header::CONTENT_TYPE,
                            "text/plain; version=0.0.4; charset=utf-8",
                        )],
                        ferry_runtime::metrics::strimzi_reporter::render(
                            &state.herder.render_metrics(),
                            &allow,
                        ),
                    )
                }
            }),
        )
        .fallback(error::not_found_fallback)
        .with_state(state);
    tower::ServiceExt::map_request(router, trim_trailing_slash as fn(_) -> _)
}

pub(crate) fn trim_trailing_slash(mut request: axum::extract::Request) -> axum::extract::Request {
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
        .route("/metrics", get(root::metrics))
        .route("/openapi.json", get(root::openapi))
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
        .route(
            "/connectors/{name}/tasks",
            get(tasks::list).post(tasks::submit_configs),
        )
        .route("/connectors/{name}/fence", put(tasks::fence))
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
