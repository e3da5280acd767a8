//! Framing of requests and responses, and API version negotiation.
//!
//! A frame is a 4-byte big-endian length followed by a request header and a request body (or a
//! response header and a response body). The header version follows the API version: flexible
//! API versions use request header v2 / response header v1 (tagged fields), except ApiVersions
//! responses, which always use response header v0.

use std::collections::HashMap;

use bytes::{BufMut, Bytes, BytesMut};
use kafka_protocol::messages::{
    ApiKey, ApiVersionsRequest, ApiVersionsResponse, RequestHeader, ResponseHeader,
};
use kafka_protocol::protocol::{
    Decodable, Encodable, HeaderVersion, Message, Request, StrBytes, VersionRange,
};

use crate::error::{codes, GroupError};

/// Largest response frame accepted (group metadata of large groups stays far below this).
pub(crate) const MAX_FRAME_LEN: usize = 100 * 1024 * 1024;

/// The ApiVersions version sent first (falls back to v0 when the broker rejects it).
pub(crate) const API_VERSIONS_VERSION: i16 = 3;

/// The versions of every API this client sends that it can encode and interpret.
pub(crate) fn client_versions(api: ApiKey) -> VersionRange {
    use kafka_protocol::messages::{
        FindCoordinatorRequest, HeartbeatRequest, JoinGroupRequest, LeaveGroupRequest,
        SaslAuthenticateRequest, SaslHandshakeRequest, SyncGroupRequest,
    };
    // The upper bounds are the versions whose fields this crate knows; the intersection with the
    // codec's range keeps them valid should the codec drop a version.
    let (ours, codec) = match api {
        ApiKey::ApiVersions => (
            VersionRange {
                min: 0,
                max: API_VERSIONS_VERSION,
            },
            ApiVersionsRequest::VERSIONS,
        ),
        ApiKey::FindCoordinator => (
            VersionRange { min: 0, max: 6 },
            FindCoordinatorRequest::VERSIONS,
        ),
        ApiKey::JoinGroup => (VersionRange { min: 0, max: 9 }, JoinGroupRequest::VERSIONS),
        ApiKey::SyncGroup => (VersionRange { min: 0, max: 5 }, SyncGroupRequest::VERSIONS),
        ApiKey::Heartbeat => (VersionRange { min: 0, max: 4 }, HeartbeatRequest::VERSIONS),
        ApiKey::LeaveGroup => (VersionRange { min: 0, max: 5 }, LeaveGroupRequest::VERSIONS),
        // v1: the mechanism's messages travel in SaslAuthenticate requests (KIP-152).
        ApiKey::SaslHandshake => (
            VersionRange { min: 1, max: 1 },
            SaslHandshakeRequest::VERSIONS,
        ),
        ApiKey::SaslAuthenticate => (
            VersionRange { min: 0, max: 2 },
            SaslAuthenticateRequest::VERSIONS,
        ),
        _ => (
            VersionRange { min: 0, max: -1 },
            VersionRange { min: 0, max: -1 },
        ),
    };
    ours.intersect(&codec)
}

/// The API versions a broker advertised in its ApiVersions response.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct BrokerVersions {
    ranges: HashMap<i16, VersionRange>,
}

impl BrokerVersions {
    pub(crate) fn from_response(response: &ApiVersionsResponse) -> Self {
        let ranges = response
            .api_keys
            .iter()
            .map(|k| {
                (
                    k.api_key,
                    VersionRange {
                        min: k.min_version,
                        max: k.max_version,
                    },
                )
            })
            .collect();
        Self { ranges }
    }

    /// The broker's range for `api`, if it offers the API at all.
    pub(crate) fn range(&self, api: ApiKey) -> Option<VersionRange> {
        self.ranges.get(&(api as i16)).copied()
    }

    /// The highest version of `api` that both the broker and this client support.
    pub(crate) fn negotiate(&self, api: ApiKey, addr: &str) -> Result<i16, GroupError> {
        let client = client_versions(api);
        let broker = self.range(api);
        match broker.map(|b| b.intersect(&client)) {
            Some(common) if !common.is_empty() => Ok(common.max),
            _ => Err(GroupError::UnsupportedVersion {
                addr: addr.to_owned(),
                api: format!("{api:?}"),
                broker: broker.map_or_else(|| "none".to_owned(), |b| b.to_string()),
                client: client.to_string(),
            }),
        }
    }
}

fn codec_error(what: &str, err: impl std::fmt::Display) -> GroupError {
    GroupError::Codec(format!("{what}: {err}"))
}

/// Encodes a complete request frame (length prefix, header, body).
pub(crate) fn encode_request<R: Request>(
    correlation_id: i32,
    client_id: &StrBytes,
    request: &R,
    version: i16,
) -> Result<BytesMut, GroupError> {
    let api = ApiKey::try_from(R::KEY).map_err(|()| codec_error("unknown API key", R::KEY))?;
    let header = RequestHeader::default()
        .with_request_api_key(R::KEY)
        .with_request_api_version(version)
        .with_correlation_id(correlation_id)
        .with_client_id(Some(client_id.clone()));
    let mut buf = BytesMut::with_capacity(256);
    buf.put_i32(0);
    header
        .encode(&mut buf, R::header_version(version))
        .map_err(|e| {
            codec_error(
                &format!("encoding the {api:?} v{version} request header"),
                e,
            )
        })?;
    request
        .encode(&mut buf, version)
        .map_err(|e| codec_error(&format!("encoding the {api:?} v{version} request"), e))?;
    let len =
        i32::try_from(buf.len() - 4).map_err(|_| codec_error("request too large", buf.len()))?;
    buf[..4].copy_from_slice(&len.to_be_bytes());
    Ok(buf)
}

/// Reads the length prefix of a response frame.
pub(crate) fn frame_len(prefix: [u8; 4]) -> Result<usize, GroupError> {
    let len = i32::from_be_bytes(prefix);
    match usize::try_from(len) {
        Ok(len) if (4..=MAX_FRAME_LEN).contains(&len) => Ok(len),
        _ => Err(GroupError::Codec(format!(
            "invalid response frame length {len}"
        ))),
    }
}

/// Decodes the response header and checks its correlation id; returns the body.
fn decode_header(
    frame: &mut Bytes,
    header_version: i16,
    expected_correlation_id: i32,
) -> Result<(), GroupError> {
    let header = ResponseHeader::decode(frame, header_version)
        .map_err(|e| codec_error("decoding the response header", e))?;
    if header.correlation_id != expected_correlation_id {
        return Err(GroupError::Codec(format!(
            "response correlation id {} does not match request correlation id {}",
            header.correlation_id, expected_correlation_id
        )));
    }
    Ok(())
}

/// Decodes a response frame (without its length prefix) to a request of type `R`.
pub(crate) fn decode_response<R: Request>(
    mut frame: Bytes,
    version: i16,
    expected_correlation_id: i32,
) -> Result<R::Response, GroupError> {
    decode_header(
        &mut frame,
        R::Response::header_version(version),
        expected_correlation_id,
    )?;
    R::Response::decode(&mut frame, version).map_err(|e| {
        let api =
            ApiKey::try_from(R::KEY).map_or_else(|()| R::KEY.to_string(), |a| format!("{a:?}"));
        codec_error(&format!("decoding the {api} v{version} response"), e)
    })
}

/// Decodes an ApiVersions response. A broker that does not support the requested version answers
/// with `UNSUPPORTED_VERSION` and a v0 body listing its versions, which is decoded as such.
pub(crate) fn decode_api_versions_response(
    mut frame: Bytes,
    version: i16,
    expected_correlation_id: i32,
) -> Result<ApiVersionsResponse, GroupError> {
    decode_header(
        &mut frame,
        ApiVersionsResponse::header_version(version),
        expected_correlation_id,
    )?;
    let error_code = frame
        .get(..2)
        .map(|b| i16::from_be_bytes([b[0], b[1]]))
        .ok_or_else(|| GroupError::Codec("empty ApiVersions response".to_owned()))?;
    let body_version = if error_code == codes::UNSUPPORTED_VERSION {
        0
    } else {
        version
    };
    ApiVersionsResponse::decode(&mut frame, body_version).map_err(|e| {
        codec_error(
            &format!("decoding the ApiVersions v{body_version} response"),
            e,
        )
    })
}

/// The ApiVersions request this client sends as `version` (v3+ names the client software).
pub(crate) fn api_versions_request(version: i16) -> ApiVersionsRequest {
    if version >= 3 {
        ApiVersionsRequest::default()
            .with_client_software_name(StrBytes::from_static_str("ferry-group"))
            .with_client_software_version(StrBytes::from_static_str(env!("CARGO_PKG_VERSION")))
    } else {
        ApiVersionsRequest::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Buf;
    use kafka_protocol::messages::api_versions_response::ApiVersion;
    use kafka_protocol::messages::{GroupId, JoinGroupRequest, JoinGroupResponse};

    fn broker(ranges: &[(ApiKey, i16, i16)]) -> BrokerVersions {
        let response = ApiVersionsResponse::default().with_api_keys(
            ranges
                .iter()
                .map(|&(k, min, max)| {
                    ApiVersion::default()
                        .with_api_key(k as i16)
                        .with_min_version(min)
                        .with_max_version(max)
                })
                .collect(),
        );
        BrokerVersions::from_response(&response)
    }

    #[test]
    fn negotiation_picks_the_highest_common_version() {
        // Kafka 4.1 ranges.
        let b = broker(&[
            (ApiKey::FindCoordinator, 0, 6),
            (ApiKey::JoinGroup, 2, 9),
            (ApiKey::SyncGroup, 0, 5),
            (ApiKey::Heartbeat, 0, 4),
            (ApiKey::LeaveGroup, 0, 5),
        ]);
        assert_eq!(b.negotiate(ApiKey::FindCoordinator, "b:1").unwrap(), 6);
        assert_eq!(b.negotiate(ApiKey::JoinGroup, "b:1").unwrap(), 9);
        assert_eq!(b.negotiate(ApiKey::SyncGroup, "b:1").unwrap(), 5);
        assert_eq!(b.negotiate(ApiKey::Heartbeat, "b:1").unwrap(), 4);
        assert_eq!(b.negotiate(ApiKey::LeaveGroup, "b:1").unwrap(), 5);

        // An older broker caps the versions; a newer one is capped by this client.
        let b = broker(&[(ApiKey::JoinGroup, 0, 5), (ApiKey::Heartbeat, 3, 99)]);
        assert_eq!(b.negotiate(ApiKey::JoinGroup, "b:1").unwrap(), 5);
        assert_eq!(b.negotiate(ApiKey::Heartbeat, "b:1").unwrap(), 4);
    }

    #[test]
    fn negotiation_fails_without_overlap() {
        let b = broker(&[(ApiKey::JoinGroup, 10, 12)]);
        let err = b.negotiate(ApiKey::JoinGroup, "b:1").unwrap_err();
        assert_eq!(
            err.to_string(),
            "broker b:1 supports no usable version of JoinGroup (broker versions 10..12, client versions 0..9)"
        );
        let err = b.negotiate(ApiKey::SyncGroup, "b:1").unwrap_err();
        assert!(err.to_string().contains("broker versions none"), "{err}");
    }

    #[test]
    fn request_frames_carry_length_and_matching_header_version() {
        let client_id = StrBytes::from_static_str("me");
        let request = JoinGroupRequest::default()
            .with_group_id(GroupId(StrBytes::from_static_str("g")))
            .with_protocol_type(StrBytes::from_static_str("connect"));
        for version in [5_i16, 9] {
            let mut frame = encode_request(42, &client_id, &request, version)
                .unwrap()
                .freeze();
            let len = frame.get_i32();
            assert_eq!(usize::try_from(len).unwrap(), frame.len());
            let header =
                kafka_protocol::protocol::decode_request_header_from_buffer(&mut frame).unwrap();
            assert_eq!(header.request_api_key, ApiKey::JoinGroup as i16);
            assert_eq!(header.request_api_version, version);
            assert_eq!(header.correlation_id, 42);
            assert_eq!(header.client_id.as_deref(), Some("me"));
            let decoded = JoinGroupRequest::decode(&mut frame, version).unwrap();
            assert_eq!(decoded, request);
            assert!(frame.is_empty());
        }
        // Flexible versions use request header v2, older ones v1.
        assert_eq!(JoinGroupRequest::header_version(9), 2);
        assert_eq!(JoinGroupRequest::header_version(5), 1);
    }

    fn response_frame<M: Encodable>(
        correlation_id: i32,
        header_version: i16,
        body: &M,
        version: i16,
    ) -> Bytes {
        let mut buf = BytesMut::new();
        ResponseHeader::default()
            .with_correlation_id(correlation_id)
            .encode(&mut buf, header_version)
            .unwrap();
        body.encode(&mut buf, version).unwrap();
        buf.freeze()
    }

    #[test]
    fn responses_are_checked_and_decoded() {
        let response = JoinGroupResponse::default()
            .with_generation_id(3)
            .with_member_id(StrBytes::from_static_str("m-1"))
            .with_leader(StrBytes::from_static_str("m-1"))
            .with_protocol_name(Some(StrBytes::from_static_str("default")));
        let frame = response_frame(7, 1, &response, 9);
        let decoded = decode_response::<JoinGroupRequest>(frame.clone(), 9, 7).unwrap();
        assert_eq!(decoded, response);
        let err = decode_response::<JoinGroupRequest>(frame, 9, 8).unwrap_err();
        assert!(matches!(err, GroupError::Codec(_)), "{err}");
    }

    #[test]
    fn api_versions_falls_back_to_v0_body_on_unsupported_version() {
        let v0 = ApiVersionsResponse::default()
            .with_error_code(codes::UNSUPPORTED_VERSION)
            .with_api_keys(vec![ApiVersion::default()
                .with_api_key(ApiKey::ApiVersions as i16)
                .with_min_version(0)
                .with_max_version(2)]);
        let frame = response_frame(1, 0, &v0, 0);
        let decoded = decode_api_versions_response(frame, 3, 1).unwrap();
        assert_eq!(decoded.error_code, codes::UNSUPPORTED_VERSION);
        assert_eq!(decoded.api_keys.len(), 1);

        let v3 = ApiVersionsResponse::default().with_api_keys(vec![ApiVersion::default()
            .with_api_key(ApiKey::JoinGroup as i16)
            .with_min_version(2)
            .with_max_version(9)]);
        // ApiVersions responses always use response header v0.
        let frame = response_frame(2, 0, &v3, 3);
        let decoded = decode_api_versions_response(frame, 3, 2).unwrap();
        assert_eq!(
            BrokerVersions::from_response(&decoded).range(ApiKey::JoinGroup),
            Some(VersionRange { min: 2, max: 9 })
        );
    }

    #[test]
    fn frame_lengths_are_bounded() {
        assert_eq!(frame_len(10_i32.to_be_bytes()).unwrap(), 10);
        assert!(frame_len((-1_i32).to_be_bytes()).is_err());
        assert!(frame_len(0_i32.to_be_bytes()).is_err());
        assert!(frame_len(i32::MAX.to_be_bytes()).is_err());
    }
}
