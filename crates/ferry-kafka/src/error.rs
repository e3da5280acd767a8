use rdkafka::error::KafkaError;

/// A failure of a Kafka client operation. The cause is part of the message rather than a
/// `source`, so error chains (task traces, `{:#}`) print it once.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum KafkaClientError {
    #[error("could not create the Kafka {role} client: {cause}")]
    Create {
        role: &'static str,
        cause: KafkaError,
    },
    #[error("{operation} failed: {cause}")]
    Operation {
        operation: &'static str,
        cause: KafkaError,
    },
    #[error("{operation} timed out after {timeout_ms} ms")]
    Timeout {
        operation: &'static str,
        timeout_ms: u64,
    },
    #[error("topic {topic}: {message}")]
    Topic { topic: String, message: String },
    /// A blocking client call could not finish (the thread running it was lost).
    #[error("{operation} did not finish: {message}")]
    Interrupted {
        operation: &'static str,
        message: String,
    },
    /// Client settings that no client can be built with.
    #[error("invalid Kafka client settings: {0}")]
    Settings(String),
    /// The connection could not be secured or authenticated (librdkafka's reason).
    #[error("could not connect to Kafka: {0}")]
    Connection(String),
}

impl KafkaClientError {
    pub(crate) fn op(operation: &'static str) -> impl FnOnce(KafkaError) -> Self {
        move |cause| KafkaClientError::Operation { operation, cause }
    }

    /// Whether the broker may accept the same request later.
    pub fn is_retriable(&self) -> bool {
        match self {
            KafkaClientError::Operation { cause, .. } => cause
                .rdkafka_error_code()
                .map(|c| {
                    use rdkafka::types::RDKafkaErrorCode as C;
                    matches!(
                        c,
                        C::QueueFull
                            | C::RequestTimedOut
                            | C::NotEnoughReplicas
                            | C::NotEnoughReplicasAfterAppend
                            | C::LeaderNotAvailable
                            | C::NotLeaderForPartition
                            | C::NetworkException
                            | C::BrokerTransportFailure
                            | C::AllBrokersDown
                            | C::MessageTimedOut
                    )
                })
                .unwrap_or(false),
            KafkaClientError::Timeout { .. } => true,
            _ => false,
        }
    }
}
