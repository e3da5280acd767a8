//! Configuration of a group member.

use std::time::Duration;

use crate::error::GroupError;
use crate::security::Security;

/// Margin added to the rebalance timeout when waiting for a JoinGroup response (the broker may hold
/// a JoinGroup for up to the rebalance timeout).
pub(crate) const JOIN_TIMEOUT_MARGIN: Duration = Duration::from_secs(5);
/// First pause before retrying after a retriable error.
pub(crate) const RETRY_BACKOFF: Duration = Duration::from_millis(100);
/// Longest pause between retries.
pub(crate) const RETRY_BACKOFF_MAX: Duration = Duration::from_secs(1);
/// Upper bound for opening a TCP connection (further bounded by the request timeout).
pub(crate) const CONNECT_TIMEOUT_MAX: Duration = Duration::from_secs(10);

/// How to reach the cluster and how to behave in the group. The defaults follow Kafka Connect's
/// distributed worker (`session.timeout.ms` 10 s, `rebalance.timeout.ms` 60 s,
/// `heartbeat.interval.ms` 3 s, `request.timeout.ms` 40 s).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupConfig {
    /// Brokers to ask for the group coordinator, as `host:port`.
    pub bootstrap_servers: Vec<String>,
    /// The group to join (Connect: `group.id`).
    pub group_id: String,
    /// Client id sent in every request header.
    pub client_id: String,
    /// The class of protocols spoken by the group (`connect` for Connect workers).
    pub protocol_type: String,
    /// The coordinator expels the member when it sees no heartbeat for this long.
    pub session_timeout: Duration,
    /// How long the coordinator waits for every member to rejoin during a rebalance.
    pub rebalance_timeout: Duration,
    /// Pause between heartbeats while a generation is active.
    pub heartbeat_interval: Duration,
    /// Time allowed for a response (JoinGroup waits up to `rebalance_timeout` + 5 s instead when
    /// that is longer).
    pub request_timeout: Duration,
    /// TLS and SASL (Connect: `security.protocol`, `ssl.*`, `sasl.*`).
    pub security: Security,
}

impl GroupConfig {
    /// A configuration with Connect's defaults for the given bootstrap servers and group.
    pub fn new(bootstrap_servers: Vec<String>, group_id: impl Into<String>) -> Self {
        Self {
            bootstrap_servers,
            group_id: group_id.into(),
            ..Self::default()
        }
    }

    /// Checks that the configuration is usable.
    pub fn validate(&self) -> Result<(), GroupError> {
        if self.bootstrap_servers.iter().all(|s| s.trim().is_empty()) {
            return Err(GroupError::Config("bootstrap_servers is empty".to_owned()));
        }
        if self.group_id.is_empty() {
            return Err(GroupError::Config("group_id is empty".to_owned()));
        }
        if self.protocol_type.is_empty() {
            return Err(GroupError::Config("protocol_type is empty".to_owned()));
        }
        for (name, value) in [
            ("session_timeout", self.session_timeout),
            ("rebalance_timeout", self.rebalance_timeout),
            ("heartbeat_interval", self.heartbeat_interval),
            ("request_timeout", self.request_timeout),
        ] {
            if value.is_zero() {
                return Err(GroupError::Config(format!("{name} must be positive")));
            }
            millis_i32(name, value)?;
        }
        if self.heartbeat_interval >= self.session_timeout {
            return Err(GroupError::Config(format!(
                "heartbeat_interval ({:?}) must be lower than session_timeout ({:?})",
                self.heartbeat_interval, self.session_timeout
            )));
        }
        Ok(())
    }

    /// How long to wait for a JoinGroup response.
    pub(crate) fn join_timeout(&self) -> Duration {
        self.request_timeout
            .max(self.rebalance_timeout.saturating_add(JOIN_TIMEOUT_MARGIN))
    }

    /// How long to wait for a TCP connection.
    pub(crate) fn connect_timeout(&self) -> Duration {
        self.request_timeout.min(CONNECT_TIMEOUT_MAX)
    }
}

impl Default for GroupConfig {
    fn default() -> Self {
        Self {
            bootstrap_servers: Vec::new(),
            group_id: String::new(),
            client_id: "ferry".to_owned(),
            protocol_type: "connect".to_owned(),
            session_timeout: Duration::from_secs(10),
            rebalance_timeout: Duration::from_secs(60),
            heartbeat_interval: Duration::from_secs(3),
            request_timeout: Duration::from_secs(40),
            security: Security::default(),
        }
    }
}

/// A duration as the `i32` milliseconds of the wire protocol.
pub(crate) fn millis_i32(name: &str, value: Duration) -> Result<i32, GroupError> {
    i32::try_from(value.as_millis())
        .map_err(|_| GroupError::Config(format!("{name} ({value:?}) is too long")))
}

/// Exponential backoff between retries: 100 ms doubling up to 1 s.
#[derive(Debug)]
pub(crate) struct Backoff {
    next: Duration,
}

impl Backoff {
    pub(crate) fn new() -> Self {
        Self {
            next: RETRY_BACKOFF,
        }
    }

    /// The pause to take now; later pauses are longer.
    pub(crate) fn next_delay(&mut self) -> Duration {
        let delay = self.next;
        self.next = (self.next * 2).min(RETRY_BACKOFF_MAX);
        delay
    }

    pub(crate) fn reset(&mut self) {
        self.next = RETRY_BACKOFF;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_connects() {
        let c = GroupConfig::new(vec!["localhost:9092".to_owned()], "connect-cluster");
        assert_eq!(c.protocol_type, "connect");
        assert_eq!(c.session_timeout, Duration::from_secs(10));
        assert_eq!(c.join_timeout(), Duration::from_secs(65));
        assert_eq!(c.connect_timeout(), Duration::from_secs(10));
        c.validate().unwrap();
    }

    #[test]
    fn validation_rejects_bad_values() {
        let good = GroupConfig::new(vec!["localhost:9092".to_owned()], "g");
        let mut c = good.clone();
        c.bootstrap_servers.clear();
        assert!(c.validate().is_err());
        let mut c = good.clone();
        c.heartbeat_interval = c.session_timeout;
        assert!(c.validate().is_err());
        let mut c = good.clone();
        c.rebalance_timeout = Duration::from_secs(u64::from(u32::MAX));
        assert!(c.validate().is_err());
        let mut c = good;
        c.group_id.clear();
        assert!(c.validate().is_err());
    }

    #[test]
    fn backoff_doubles_up_to_the_cap() {
        let mut b = Backoff::new();
        let delays: Vec<_> = (0..6).map(|_| b.next_delay().as_millis()).collect();
        assert_eq!(delays, [100, 200, 400, 800, 1000, 1000]);
        b.reset();
        assert_eq!(b.next_delay().as_millis(), 100);
    }
}
