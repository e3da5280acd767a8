//! Membership in a Kafka group through the classic group protocol, written over the
//! `kafka-protocol` codec because librdkafka cannot join a group whose protocol type is `connect`.
//!
//! [`GroupMember`] finds the group coordinator (FindCoordinator through the bootstrap servers),
//! joins (JoinGroup), distributes or receives assignments (SyncGroup), heartbeats in a background
//! task on its own connection, signals when a rebalance requires a rejoin
//! ([`GroupMember::rejoin_needed`] / [`RejoinSignal`]) and leaves (LeaveGroup). API versions are
//! negotiated per connection with ApiVersions: each request uses the highest version both the
//! broker and this crate support (Kafka 4.x removed many old versions, KIP-896).
//!
//! ```no_run
//! # async fn run() -> Result<(), ferry_group::GroupError> {
//! use bytes::Bytes;
//! use ferry_group::{GroupConfig, GroupMember};
//!
//! let mut member = GroupMember::new(GroupConfig::new(vec!["localhost:9092".into()], "connect-cluster"));
//! let protocols = [("default".to_owned(), Bytes::from_static(b"metadata"))];
//! loop {
//!     let joined = member.join(&protocols).await?;
//!     let assignments = if joined.is_leader() {
//!         joined.members.iter().map(|(id, _)| (id.clone(), Bytes::from_static(b"work"))).collect()
//!     } else {
//!         Vec::new()
//!     };
//!     match member.sync(assignments).await {
//!         Ok(_assignment) => {}
//!         Err(e) if e.is_retriable() || matches!(e, ferry_group::GroupError::RejoinNeeded) => continue,
//!         Err(e) => return Err(e),
//!     }
//!     let reason = member.rejoin_needed().await;
//!     tracing::info!(%reason, "rebalancing");
//! }
//! # }
//! ```

mod config;
mod conn;
mod error;
mod heartbeat;
mod member;
#[cfg(test)]
mod mock_tests;
mod sasl_auth;
mod security;
mod telemetry;
mod tls;
mod wire;

pub use config::GroupConfig;
pub use error::{GroupError, RejoinReason};
pub use heartbeat::RejoinSignal;
pub use member::{GroupMember, JoinOutcome};
pub use security::{SaslCredentials, SaslMechanism, Security, SecurityProtocol, TlsSettings};
pub use telemetry::cluster_takes_client_telemetry;
