//! Connect's error body, `{"error_code":…,"message":…}`, for every failure.

use axum::extract::rejection::JsonRejection;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use ferry_runtime::herder::HerderError;
use serde_json::json;

#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub message: String,
    /// Set when the request belongs on another worker: the forwarding layer sends it there.
    pub forward_to: Option<crate::forward::ForwardTo>,
}

impl ApiError {
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        ApiError {
            status,
            message: message.into(),
            forward_to: None,
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if self.status.is_server_error() {
            tracing::error!(status = self.status.as_u16(), message = %self.message, "REST request failed");
        }
        let mut response = (
            self.status,
            Json(json!({"error_code": self.status.as_u16(), "message": self.message})),
        )
            .into_response();
        if let Some(target) = self.forward_to {
            response.extensions_mut().insert(target);
        }
        response
    }
}

impl From<HerderError> for ApiError {
    fn from(e: HerderError) -> Self {
        let status = match &e {
            HerderError::NotFound(_) => StatusCode::NOT_FOUND,
            HerderError::AlreadyExists(_) | HerderError::Conflict(_) => StatusCode::CONFLICT,
            HerderError::BadRequest(_) => StatusCode::BAD_REQUEST,
            HerderError::Forbidden(_) => StatusCode::FORBIDDEN,
            HerderError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
            HerderError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            HerderError::NotLeader { leader_url: url }
            | HerderError::NotAssigned { owner_url: url } => {
                let mut error = ApiError::new(StatusCode::CONFLICT, e.to_string());
                error.forward_to = Some(crate::forward::ForwardTo(url.clone()));
                return error;
            }
        };
        ApiError::new(status, e.to_string())
    }
}

/// A malformed body answers 400 with Connect's error shape (Java answers 500 here; this is a
/// documented difference).
impl From<JsonRejection> for ApiError {
    fn from(r: JsonRejection) -> Self {
        match r {
            JsonRejection::MissingJsonContentType(_) => ApiError::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "HTTP 415 Unsupported Media Type",
            ),
            other => ApiError::new(StatusCode::BAD_REQUEST, other.body_text()),
        }
    }
}

pub(crate) async fn not_found_fallback() -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, "HTTP 404 Not Found")
}

/// A method the path does not serve answers 405, except OPTIONS, which JAX-RS answers for every
/// resource with 200 and an empty body.
pub(crate) async fn method_not_allowed_fallback(method: axum::http::Method) -> Response {
    if method == axum::http::Method::OPTIONS {
        return StatusCode::OK.into_response();
    }
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "HTTP 405 Method Not Allowed",
    )
    .into_response()
}

/// How long a request may take before it answers 500, as Java's `RestServer` allows.
pub(crate) const REQUEST_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(90);

pub(crate) async fn request_timeout(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    match tokio::time::timeout(REQUEST_TIMEOUT, next.run(request)).await {
        Ok(response) => response,
        Err(_) => {
            ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "Request timed out").into_response()
        }
    }
}

#[cfg(test)]
mod tests {
    use axum::body::Body;
    use axum::http::Request;
    use axum::routing::get;
    use axum::Router;
    use tower::ServiceExt;

    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_request_that_takes_too_long_answers_500() {
        let app = Router::new()
            .route("/slow", get(std::future::pending::<&'static str>))
            .layer(axum::middleware::from_fn(request_timeout));
        let response = app
            .oneshot(Request::get("/slow").body(Body::empty()).unwrap())
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::INTERNAL_SERVER_ERROR);
    }
}
