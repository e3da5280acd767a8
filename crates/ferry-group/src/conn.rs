//! One TCP connection to a broker: ApiVersions negotiation on connect, then request/response
//! round trips with correlation ids.
//!
//! A connection is used for one request at a time. Callers take it out of its slot before a
//! request and put it back only after a complete response, so a failed or cancelled request
//! (which may leave unread bytes on the socket) drops the connection.

use std::fmt;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use kafka_protocol::messages::find_coordinator_response::Coordinator as CoordinatorEntry;
use kafka_protocol::messages::{ApiKey, FindCoordinatorRequest, GroupId};
use kafka_protocol::protocol::{Request, StrBytes};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;
use tracing::{debug, info};

use crate::config::GroupConfig;
use crate::error::{codes, protocol_error, GroupError};
use crate::wire::{self, BrokerVersions};

/// A broker connection's byte stream: plain TCP, or TLS over it.
trait BrokerIo: AsyncRead + AsyncWrite + Unpin + Send + Sync {}

impl<T: AsyncRead + AsyncWrite + Unpin + Send + Sync> BrokerIo for T {}

/// An open connection to one broker.
pub(crate) struct Connection {
    addr: String,
    stream: Box<dyn BrokerIo>,
    client_id: StrBytes,
    next_correlation_id: i32,
    versions: BrokerVersions,
}

impl fmt::Debug for Connection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Connection")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl Connection {
    /// Connects to `addr` and negotiates API versions.
    pub(crate) async fn open(addr: &str, config: &GroupConfig) -> Result<Self, GroupError> {
        let connect_timeout = config.connect_timeout();
        let stream = tokio::time::timeout(connect_timeout, TcpStream::connect(addr))
            .await
            .map_err(|_| {
                GroupError::Timeout(format!(
                    "connecting to {addr} took longer than {connect_timeout:?}"
                ))
            })?
            .map_err(|source| GroupError::Connect {
                addr: addr.to_owned(),
                source,
            })?;
        // Small request/response exchanges: do not wait for Nagle.
        if let Err(e) = stream.set_nodelay(true) {
            debug!(addr, error = %e, "cannot set TCP_NODELAY");
        }
        let security = &config.security;
        let stream: Box<dyn BrokerIo> = if security.protocol.tls() {
            let connector = crate::tls::connector(&security.tls)?;
            let handshake =
                crate::tls::handshake(&connector, security.tls.verify_hostname, addr, stream);
            Box::new(
                tokio::time::timeout(connect_timeout, handshake)
                    .await
                    .map_err(|_| {
                        GroupError::Timeout(format!(
                            "the TLS handshake with {addr} took longer than {connect_timeout:?}"
                        ))
                    })??,
            )
        } else {
            Box::new(stream)
        };
        let mut conn = Self {
            addr: addr.to_owned(),
            stream,
            client_id: StrBytes::from_string(config.client_id.clone()),
            next_correlation_id: 0,
            versions: BrokerVersions::default(),
        };
        conn.negotiate_versions(config.request_timeout).await?;
        if security.protocol.sasl() {
            let creds = security.sasl.as_ref().ok_or_else(|| {
                GroupError::Config(format!(
                    "security.protocol {:?} needs SASL credentials (sasl.jaas.config)",
                    security.protocol
                ))
            })?;
            crate::sasl_auth::authenticate(&mut conn, creds, config.request_timeout).await?;
        }
        debug!(addr, "connected to broker");
        Ok(conn)
    }

    /// The broker's `host:port`.
    pub(crate) fn addr(&self) -> &str {
        &self.addr
    }

    /// Whether the broker offers `api` at all.
    pub(crate) fn offers(&self, api: ApiKey) -> bool {
        self.versions.range(api).is_some()
    }

    /// The version of `api` to use on this connection.
    pub(crate) fn version(&self, api: ApiKey) -> Result<i16, GroupError> {
        self.versions.negotiate(api, &self.addr)
    }

    fn next_correlation_id(&mut self) -> i32 {
        let id = self.next_correlation_id;
        self.next_correlation_id = self.next_correlation_id.wrapping_add(1) & i32::MAX;
        id
    }

    /// Sends ApiVersions (v3, or the broker's highest version when it rejects v3) and records the
    /// broker's version ranges.
    async fn negotiate_versions(&mut self, timeout: Duration) -> Result<(), GroupError> {
        let mut version = wire::API_VERSIONS_VERSION;
        loop {
            let correlation_id = self.next_correlation_id();
            let request = wire::api_versions_request(version);
            let frame = wire::encode_request(correlation_id, &self.client_id, &request, version)?;
            let body = self.round_trip(frame, timeout, "ApiVersions").await?;
            let response = wire::decode_api_versions_response(body, version, correlation_id)?;
            match response.error_code {
                codes::NONE => {
                    self.versions = BrokerVersions::from_response(&response);
                    debug!(addr = %self.addr, api_versions_version = version, "negotiated API versions");
                    return Ok(());
                }
                codes::UNSUPPORTED_VERSION => {
                    let broker_max = BrokerVersions::from_response(&response)
                        .range(ApiKey::ApiVersions)
                        .map_or(0, |r| r.max);
                    if broker_max >= version || broker_max < 0 {
                        return Err(protocol_error(
                            "ApiVersions",
                            response.error_code,
                            Some(&format!("broker {} rejected version {version}", self.addr)),
                        ));
                    }
                    debug!(addr = %self.addr, version, broker_max, "retrying ApiVersions with a lower version");
                    version = broker_max;
                }
                code => return Err(protocol_error("ApiVersions", code, None)),
            }
        }
    }

    /// Sends `request` as `version` and waits up to `timeout` for its response.
    pub(crate) async fn send<R: Request>(
        &mut self,
        request: &R,
        version: i16,
        timeout: Duration,
    ) -> Result<R::Response, GroupError> {
        let correlation_id = self.next_correlation_id();
        let frame = wire::encode_request(correlation_id, &self.client_id, request, version)?;
        let api =
            ApiKey::try_from(R::KEY).map_or_else(|()| R::KEY.to_string(), |a| format!("{a:?}"));
        let body = self.round_trip(frame, timeout, &api).await?;
        wire::decode_response::<R>(body, version, correlation_id)
    }

    /// Writes one frame and reads one response frame (without its length prefix).
    async fn round_trip(
        &mut self,
        frame: BytesMut,
        timeout: Duration,
        what: &str,
    ) -> Result<Bytes, GroupError> {
        let addr = self.addr.clone();
        let io_error = |source: std::io::Error| GroupError::Io {
            addr: addr.clone(),
            source,
        };
        let exchange = async {
            self.stream.write_all(&frame).await.map_err(io_error)?;
            let mut prefix = [0_u8; 4];
            self.stream
                .read_exact(&mut prefix)
                .await
                .map_err(io_error)?;
            let len = wire::frame_len(prefix)?;
            let mut body = BytesMut::zeroed(len);
            self.stream.read_exact(&mut body).await.map_err(io_error)?;
            Ok(body.freeze())
        };
        tokio::time::timeout(timeout, exchange).await.map_err(|_| {
            GroupError::Timeout(format!(
                "{what} request to {}: no response within {timeout:?}",
                self.addr
            ))
        })?
    }
}

/// The broker coordinating a group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Coordinator {
    pub(crate) node_id: i32,
    pub(crate) addr: String,
}

/// `host:port`, bracketing IPv6 literals.
pub(crate) fn host_port(host: &str, port: i32) -> String {
    if host.contains(':') && !host.starts_with('[') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

/// A connection to the first of the bootstrap servers (in order) that answers.
pub(crate) async fn open_bootstrap(config: &GroupConfig) -> Result<Connection, GroupError> {
    let mut last_error = None;
    for server in config
        .bootstrap_servers
        .iter()
        .map(|s| s.trim())
        .filter(|s| !s.is_empty())
    {
        match Connection::open(server, config).await {
            Ok(conn) => return Ok(conn),
            Err(e) => {
                debug!(server, error = %e, "bootstrap server unavailable");
                last_error = Some(e);
            }
        }
    }
    Err(last_error.unwrap_or_else(|| GroupError::Config("bootstrap_servers is empty".to_owned())))
}

/// Asks the bootstrap servers (in order, until one answers) for the group's coordinator.
pub(crate) async fn find_coordinator(config: &GroupConfig) -> Result<Coordinator, GroupError> {
    let mut conn = open_bootstrap(config).await?;
    let coordinator = lookup_coordinator(&mut conn, config).await?;
    info!(
        group = %config.group_id,
        coordinator = %coordinator.addr,
        node_id = coordinator.node_id,
        "found group coordinator"
    );
    Ok(coordinator)
}

/// Sends FindCoordinator for the group on `conn`.
async fn lookup_coordinator(
    conn: &mut Connection,
    config: &GroupConfig,
) -> Result<Coordinator, GroupError> {
    let version = conn.version(ApiKey::FindCoordinator)?;
    let group = StrBytes::from_string(config.group_id.clone());
    // key_type 0 = group (the default). v4+ batches keys.
    let request = if version >= 4 {
        FindCoordinatorRequest::default().with_coordinator_keys(vec![group])
    } else {
        FindCoordinatorRequest::default().with_key(group)
    };
    let response = conn.send(&request, version, config.request_timeout).await?;
    let entry = if version >= 4 {
        response
            .coordinators
            .into_iter()
            .find(|c| c.key.as_str() == config.group_id)
            .ok_or_else(|| GroupError::CoordinatorNotFound {
                group: config.group_id.clone(),
                message: format!("{} answered without an entry for the group", conn.addr()),
            })?
    } else {
        CoordinatorEntry::default()
            .with_error_code(response.error_code)
            .with_error_message(response.error_message)
            .with_node_id(response.node_id)
            .with_host(response.host)
            .with_port(response.port)
    };
    if entry.error_code != codes::NONE {
        return Err(protocol_error(
            "FindCoordinator",
            entry.error_code,
            entry.error_message.as_deref(),
        ));
    }
    Ok(Coordinator {
        node_id: entry.node_id.0,
        addr: host_port(&entry.host, entry.port),
    })
}

/// The group id as the protocol's type.
pub(crate) fn group_id(config: &GroupConfig) -> GroupId {
    GroupId(StrBytes::from_string(config.group_id.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_port_brackets_ipv6() {
        assert_eq!(host_port("localhost", 9092), "localhost:9092");
        assert_eq!(host_port("::1", 9092), "[::1]:9092");
        assert_eq!(host_port("[::1]", 9092), "[::1]:9092");
    }
}
