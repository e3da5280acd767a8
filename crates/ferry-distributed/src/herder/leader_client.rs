//! Requests a worker sends to the leader on its own behalf: new task configs of a connector it
//! runs, and zombie fencing before its exactly-once source tasks start; signed with the session
//! key when the group uses the `sessioned` protocol.

use std::sync::OnceLock;
use std::time::Duration;

use ferry_api::ConfigMap;
use ferry_runtime::herder::status_view::encode_path_segment;

use crate::herder::signing::{sign, ALGORITHM_HEADER, HMAC_SHA256, SIGNATURE_HEADER};

static CLIENT: OnceLock<reqwest::Client> = OnceLock::new();

/// The client task configs go to the leader with (TLS trust and identity for HTTPS workers);
/// set once at start-up.
pub fn set_client(client: reqwest::Client) {
    let _ = CLIENT.set(client);
}

fn client() -> &'static reqwest::Client {
    CLIENT.get_or_init(|| {
        reqwest::Client::builder()
            .timeout(Duration::from_secs(90))
            .build()
            .unwrap_or_default()
    })
}

/// Why the leader did not take the task configs.
#[derive(Debug, thiserror::Error)]
pub enum ForwardError {
    #[error("could not reach the leader at {url}: {message}")]
    Unreachable { url: String, message: String },
    #[error("the leader answered {status}: {body}")]
    Refused { status: u16, body: String },
}

pub async fn send_task_configs(
    leader_url: &str,
    connector: &str,
    configs: &[ConfigMap],
    session_key: Option<&[u8]>,
) -> Result<(), ForwardError> {
    let url = format!(
        "{}/connectors/{}/tasks?forward=true",
        leader_url.trim_end_matches('/'),
        encode_path_segment(connector)
    );
    let body = serde_json::to_vec(configs).unwrap_or_default();
    let mut request = client()
        .post(&url)
        .header(reqwest::header::CONTENT_TYPE, "application/json");
    if let Some(key) = session_key {
        request = request
            .header(SIGNATURE_HEADER, sign(key, &body))
            .header(ALGORITHM_HEADER, HMAC_SHA256);
    }
    answered(request.body(body), &url).await
}

/// Asks the leader to fence out a source connector's earlier task generations (KIP-618), signed
/// over the empty body as Java's workers sign it.
pub async fn send_fence(
    leader_url: &str,
    connector: &str,
    session_key: Option<&[u8]>,
) -> Result<(), ForwardError> {
    let url = format!(
        "{}/connectors/{}/fence?forward=true",
        leader_url.trim_end_matches('/'),
        encode_path_segment(connector)
    );
    let mut request = client().put(&url);
    if let Some(key) = session_key {
        request = request
            .header(SIGNATURE_HEADER, sign(key, b""))
            .header(ALGORITHM_HEADER, HMAC_SHA256);
    }
    answered(request, &url).await
}

/// Sends the request; any 2xx is success.
async fn answered(request: reqwest::RequestBuilder, url: &str) -> Result<(), ForwardError> {
    let answer = request
        .send()
        .await
        .map_err(|e| ForwardError::Unreachable {
            url: url.to_owned(),
            message: e.to_string(),
        })?;
    let status = answer.status();
    if status.is_success() {
        return Ok(());
    }
    Err(ForwardError::Refused {
        status: status.as_u16(),
        body: answer.text().await.unwrap_or_default(),
    })
}
