//! The start-up lookup of the cluster id (Java's `ConnectUtils.lookupKafkaClusterId`), which is
//! also the worker's first test of its connection settings: a TLS or SASL failure ends it at
//! once with librdkafka's reason (which names the broker and listener) instead of waiting out
//! the timeout.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use rdkafka::client::ClientContext;
use rdkafka::consumer::{BaseConsumer, Consumer, ConsumerContext};
use rdkafka::error::KafkaError;
use rdkafka::types::RDKafkaErrorCode;
use rdkafka::ClientConfig;

use crate::KafkaClientError;

/// Keeps a client's first error that no retry can fix: an authentication or TLS failure.
#[derive(Default)]
pub(crate) struct ConnectionFailure {
    first: Mutex<Option<String>>,
}

impl ConnectionFailure {
    /// Called from a client context's `error`: keeps a connection failure, logs the others
    /// (brokers away for a while) for `client`.
    pub(crate) fn observe(&self, client: &str, error: &KafkaError, reason: &str) {
        if is_connection_failure(error, reason) {
            let mut first = self.first.lock().unwrap_or_else(|p| p.into_inner());
            first.get_or_insert_with(|| reason.to_owned());
        } else {
            tracing::warn!(%error, reason, "{client} error");
        }
    }

    /// librdkafka's reason for the first connection failure, which names the broker.
    pub(crate) fn get(&self) -> Option<String> {
        self.first.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

/// The lookup's client: connection failures end it; other errors are only logged at debug,
/// since the broker may still come up within the timeout.
#[derive(Default)]
struct FatalErrors {
    failure: ConnectionFailure,
}

/// Whether a client error means the connection can never be secured or authenticated with
/// these settings (as Java's `AuthenticationException` and `SslAuthenticationException`),
/// rather than a broker being away for a while.
pub(crate) fn is_connection_failure(error: &KafkaError, reason: &str) -> bool {
    matches!(
        error.rdkafka_error_code(),
        Some(RDKafkaErrorCode::Authentication | RDKafkaErrorCode::SaslAuthenticationFailed)
    ) || reason.contains("SSL handshake failed")
        || reason.contains("certificate verify failed")
        // A TLS alert from the broker: it refused our certificate or protocol.
        || reason.contains("SSL routines")
        || reason.contains("SSL alert")
        || reason.contains("SASL authentication error")
        || reason.contains("Authentication failed")
}

impl ClientContext for FatalErrors {
    fn error(&self, error: KafkaError, reason: &str) {
        if is_connection_failure(&error, reason) {
            self.failure.observe("Cluster id lookup", &error, reason);
        } else {
            tracing::debug!(%error, reason, "Kafka client error during the cluster id lookup");
        }
    }
}

impl ConsumerContext for FatalErrors {}

/// The cluster's id, asked with `config` (the worker's connection settings). Fails within
/// about a second of the first authentication or TLS failure, with its reason; otherwise
/// after `timeout`.
pub fn lookup_cluster_id(
    config: &ClientConfig,
    timeout: Duration,
) -> Result<String, KafkaClientError> {
    let client: BaseConsumer<FatalErrors> = config
        .create_with_context(FatalErrors::default())
        .map_err(|cause| KafkaClientError::Create {
            role: "admin",
            cause,
        })?;
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(id) = client.client().fetch_cluster_id(Duration::from_millis(500)) {
            return Ok(id);
        }
        // Serves the client's error events into FatalErrors.
        let _ = client.poll(Duration::from_millis(100));
        if let Some(reason) = client.client().context().failure.get() {
            return Err(KafkaClientError::Connection(reason));
        }
        if Instant::now() >= deadline {
            return Err(KafkaClientError::Timeout {
                operation: "looking up the Kafka cluster id",
                timeout_ms: timeout.as_millis() as u64,
            });
        }
    }
}
