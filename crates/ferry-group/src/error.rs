//! Errors of the group membership client.

use std::fmt;

use kafka_protocol::error::ResponseError;

/// Why a group member has to call [`GroupMember::join`](crate::GroupMember::join) again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RejoinReason {
    /// The coordinator started a rebalance (`REBALANCE_IN_PROGRESS`), e.g. because a member joined
    /// or left.
    RebalanceInProgress,
    /// The generation this member belongs to is no longer the group's generation
    /// (`ILLEGAL_GENERATION`).
    IllegalGeneration,
    /// The coordinator does not know this member any more (`UNKNOWN_MEMBER_ID`); the next join
    /// starts with an empty member id.
    UnknownMemberId,
    /// Another member registered the same static instance id (`FENCED_INSTANCE_ID`).
    FencedInstanceId,
    /// No heartbeat succeeded within the session timeout (coordinator unreachable or moving); the
    /// coordinator has most likely expired this member.
    CoordinatorLost,
    /// The heartbeat failed with another Kafka error code; heartbeating stopped.
    HeartbeatFailed(i16),
}

impl RejoinReason {
    /// Whether the member id must be forgotten before joining again.
    pub(crate) fn resets_member_id(self) -> bool {
        matches!(self, Self::UnknownMemberId | Self::FencedInstanceId)
    }
}

impl fmt::Display for RejoinReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::RebalanceInProgress => f.write_str("the group is rebalancing"),
            Self::IllegalGeneration => f.write_str("the member's generation is no longer current"),
            Self::UnknownMemberId => f.write_str("the coordinator no longer knows this member"),
            Self::FencedInstanceId => f.write_str("this member's instance id was fenced"),
            Self::CoordinatorLost => {
                f.write_str("no heartbeat succeeded within the session timeout")
            }
            Self::HeartbeatFailed(code) => {
                write!(f, "the heartbeat failed with {}", error_name(*code))
            }
        }
    }
}

/// Errors returned by [`GroupMember`](crate::GroupMember).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GroupError {
    /// The configuration cannot be used (no bootstrap servers, timeouts out of range, …).
    #[error("invalid group configuration: {0}")]
    Config(String),
    /// A TCP connection could not be opened.
    #[error("cannot connect to Kafka broker {addr}: {source}")]
    Connect {
        /// The `host:port` that was tried.
        addr: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// Reading or writing an established connection failed (e.g. the broker closed it).
    #[error("I/O error talking to Kafka broker {addr}: {source}")]
    Io {
        /// The broker's `host:port`.
        addr: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The TLS handshake failed (untrusted or mismatched certificate, refused client
    /// certificate).
    #[error("cannot connect to Kafka broker {addr} over TLS: {message}")]
    Tls {
        /// The broker's `host:port`.
        addr: String,
        /// OpenSSL's reason.
        message: String,
    },
    /// SASL authentication failed; the message carries the broker and its reason.
    #[error("authentication with Kafka broker {0}")]
    Authentication(String),
    /// A request got no response in time.
    #[error("timed out: {0}")]
    Timeout(String),
    /// The broker answered with a Kafka error code that this client does not handle by retrying.
    #[error("{name}: {1}", name = error_name(*.0))]
    Protocol(i16, String),
    /// A frame could not be encoded or decoded (malformed or unexpected response).
    #[error("Kafka wire format error: {0}")]
    Codec(String),
    /// The broker supports no version of an API that this client can speak.
    #[error(
        "broker {addr} supports no usable version of {api} (broker versions {broker}, client versions {client})"
    )]
    UnsupportedVersion {
        /// The broker's `host:port`.
        addr: String,
        /// The API's name.
        api: String,
        /// The broker's version range, or `none` when the broker does not offer the API.
        broker: String,
        /// The versions this client can use.
        client: String,
    },
    /// The group coordinator could not be found.
    #[error("cannot find the coordinator of group {group}: {message}")]
    CoordinatorNotFound {
        /// The group id.
        group: String,
        /// What went wrong.
        message: String,
    },
    /// The generation is gone (rebalance, fenced, expired): call
    /// [`GroupMember::join`](crate::GroupMember::join) again.
    #[error("the group is rebalancing or this member's generation is gone; rejoin the group")]
    RejoinNeeded,
    /// A call was made in a state that does not allow it (e.g. `sync` without a preceding `join`).
    #[error("{0}")]
    InvalidState(String),
}

impl GroupError {
    /// Whether retrying the same operation (after finding the coordinator again) can succeed:
    /// transport failures, timeouts and coordinator errors.
    pub fn is_retriable(&self) -> bool {
        match self {
            Self::Connect { .. }
            | Self::Io { .. }
            | Self::Timeout(_)
            | Self::CoordinatorNotFound { .. } => true,
            Self::Protocol(code, _) => is_coordinator_error(*code),
            _ => false,
        }
    }

    /// The Kafka error code carried by this error, if any.
    pub fn kafka_code(&self) -> Option<i16> {
        match self {
            Self::Protocol(code, _) => Some(*code),
            _ => None,
        }
    }
}

/// Kafka error codes used by the group protocol.
pub(crate) mod codes {
    pub const NONE: i16 = 0;
    pub const COORDINATOR_LOAD_IN_PROGRESS: i16 = 14;
    pub const COORDINATOR_NOT_AVAILABLE: i16 = 15;
    pub const NOT_COORDINATOR: i16 = 16;
    pub const ILLEGAL_GENERATION: i16 = 22;
    pub const INCONSISTENT_GROUP_PROTOCOL: i16 = 23;
    pub const UNKNOWN_MEMBER_ID: i16 = 25;
    pub const REBALANCE_IN_PROGRESS: i16 = 27;
    pub const UNSUPPORTED_VERSION: i16 = 35;
    pub const MEMBER_ID_REQUIRED: i16 = 79;
    pub const FENCED_INSTANCE_ID: i16 = 82;
}

/// `NOT_COORDINATOR`, `COORDINATOR_NOT_AVAILABLE` or `COORDINATOR_LOAD_IN_PROGRESS`.
pub(crate) fn is_coordinator_error(code: i16) -> bool {
    matches!(
        code,
        codes::COORDINATOR_LOAD_IN_PROGRESS
            | codes::COORDINATOR_NOT_AVAILABLE
            | codes::NOT_COORDINATOR
    )
}

/// `NAME (code)` for a Kafka error code, e.g. `RebalanceInProgress (27)`.
pub(crate) fn error_name(code: i16) -> String {
    match ResponseError::try_from_code(code) {
        None => "no error (0)".to_owned(),
        Some(ResponseError::Unknown(c)) => format!("Kafka error {c}"),
        Some(e) => format!("{e} ({code})"),
    }
}

/// A [`GroupError::Protocol`] for `code` returned by `api`, with the broker's message if any.
pub(crate) fn protocol_error(api: &str, code: i16, message: Option<&str>) -> GroupError {
    let text = match message {
        Some(m) if !m.is_empty() => format!("{api} failed: {m}"),
        _ => format!("{api} failed"),
    };
    GroupError::Protocol(code, text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_error() {
        let e = protocol_error("JoinGroup", codes::INCONSISTENT_GROUP_PROTOCOL, Some("bad"));
        assert_eq!(
            e.to_string(),
            "InconsistentGroupProtocol (23): JoinGroup failed: bad"
        );
        assert_eq!(e.kafka_code(), Some(23));
        assert!(!e.is_retriable());
        assert!(protocol_error("Heartbeat", codes::NOT_COORDINATOR, None).is_retriable());
        assert_eq!(error_name(12345), "Kafka error 12345");
        assert_eq!(
            RejoinReason::HeartbeatFailed(30).to_string(),
            "the heartbeat failed with GroupAuthorizationFailed (30)"
        );
    }
}
