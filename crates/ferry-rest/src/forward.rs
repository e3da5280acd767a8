//! Forwarding of requests that must run on another worker (the leader, or the owner of a
//! connector), as Java's `HerderRequestHandler` does: the same method, path, query and body are
//! sent to the target with a `forward` query parameter that bounds the hops to two.

use std::sync::OnceLock;
use std::time::Duration;

use axum::body::Body;
use axum::extract::Request;
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;

/// Where a request belongs; `None` when no such worker is known (mid-rebalance).
#[derive(Debug, Clone)]
pub struct ForwardTo(pub Option<String>);

/// Bodies larger than this are not buffered for a possible forward (Connect's are small).
const MAX_BODY: usize = 32 * 1024 * 1024;
const FORWARD_TIMEOUT: Duration = Duration::from_secs(90);

static CLIENT: OnceLock<reqwest::Client> = OnceLock::new();

/// The client requests to other workers go out with (their TLS trust and identity); set once
/// at start-up, before the first forward.
pub fn set_worker_client(client: reqwest::Client) {
    let _ = CLIENT.set(client);
}

fn client() -> &'static reqwest::Client {
    CLIENT.get_or_init(|| {
        reqwest::Client::builder()
            .timeout(FORWARD_TIMEOUT)
            .build()
            .unwrap_or_default()
    })
}

/// The `forward` parameter as JAX-RS reads a `Boolean`: absent, true, or anything else false.
fn forward_param(uri: &Uri) -> Option<bool> {
    uri.query()?.split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        (k == "forward").then(|| v.eq_ignore_ascii_case("true"))
    })
}

/// The query with `forward` replaced by `value`, other parameters kept in order.
fn query_with_forward(uri: &Uri, value: bool) -> String {
    let mut parts: Vec<String> = uri
        .query()
        .unwrap_or("")
        .split('&')
        .filter(|p| !p.is_empty() && p.split('=').next() != Some("forward"))
        .map(str::to_owned)
        .collect();
    parts.push(format!("forward={value}"));
    parts.join("&")
}

fn conflict(message: &str) -> Response {
    ApiError::new(StatusCode::CONFLICT, message).into_response()
}

/// Runs the request here; when the answer says it belongs elsewhere, sends it there and relays
/// that worker's answer.
pub(crate) async fn forward_layer(request: Request, next: Next) -> Response {
    let (parts, body) = request.into_parts();
    let bytes = match axum::body::to_bytes(body, MAX_BODY).await {
        Ok(b) => b,
        Err(e) => {
            return ApiError::new(StatusCode::BAD_REQUEST, format!("Cannot read body: {e}"))
                .into_response()
        }
    };
    let method = parts.method.clone();
    let uri = parts.uri.clone();
    let headers = parts.headers.clone();
    let response = next
        .run(Request::from_parts(parts, Body::from(bytes.clone())))
        .await;
    let Some(ForwardTo(target)) = response.extensions().get::<ForwardTo>().cloned() else {
        return response;
    };
    let next_forward = match forward_param(&uri) {
        None => true,
        Some(true) => false,
        Some(false) => return conflict(
            "Cannot complete request because of a conflicting operation (e.g. worker rebalance)",
        ),
    };
    let Some(base) = target else {
        return conflict(
            "Cannot complete request momentarily due to no known leader URL, likely because a rebalance was underway.",
        );
    };
    let url = format!(
        "{}{}?{}",
        base.trim_end_matches('/'),
        uri.path(),
        query_with_forward(&uri, next_forward)
    );
    tracing::debug!(%method, %url, "Forwarding request");
    relay(method, &url, &headers, bytes).await
}

async fn relay(
    method: Method,
    url: &str,
    headers: &HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    let mut request = client().request(method, url);
    for name in [header::CONTENT_TYPE, header::AUTHORIZATION] {
        if let Some(value) = headers.get(&name) {
            request = request.header(name, value);
        }
    }
    let answer = match request.body(body).send().await {
        Ok(a) => a,
        Err(e) => {
            return ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("Error trying to forward REST request: {e}"),
            )
            .into_response()
        }
    };
    let status =
        StatusCode::from_u16(answer.status().as_u16()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let content_type = answer.headers().get(header::CONTENT_TYPE).cloned();
    let location = answer.headers().get(header::LOCATION).cloned();
    let body = answer.bytes().await.unwrap_or_default();
    let mut response = (status, body).into_response();
    let put = |response: &mut Response, name, value: Option<HeaderValue>| {
        if let Some(value) = value {
            response.headers_mut().insert(name, value);
        }
    };
    put(&mut response, header::CONTENT_TYPE, content_type);
    put(&mut response, header::LOCATION, location);
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forward_parameter_is_read_and_replaced() {
        let uri: Uri = "/connectors/a/restart?includeTasks=true&forward=true"
            .parse()
            .unwrap();
        assert_eq!(forward_param(&uri), Some(true));
        assert_eq!(
            query_with_forward(&uri, false),
            "includeTasks=true&forward=false"
        );
        let plain: Uri = "/connectors".parse().unwrap();
        assert_eq!(forward_param(&plain), None);
        assert_eq!(query_with_forward(&plain, true), "forward=true");
        let odd: Uri = "/connectors?forward=yes".parse().unwrap();
        assert_eq!(forward_param(&odd), Some(false));
    }
}
