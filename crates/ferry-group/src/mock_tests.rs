//! Tests of [`GroupMember`] against a scripted in-process broker (no Kafka needed).

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use bytes::{BufMut, Bytes, BytesMut};
use kafka_protocol::messages::api_versions_response::ApiVersion;
use kafka_protocol::messages::find_coordinator_response::Coordinator as CoordinatorEntry;
use kafka_protocol::messages::join_group_response::JoinGroupResponseMember;
use kafka_protocol::messages::leave_group_response::MemberResponse;
use kafka_protocol::messages::{
    ApiKey, ApiVersionsResponse, BrokerId, FindCoordinatorRequest, FindCoordinatorResponse,
    HeartbeatRequest, HeartbeatResponse, JoinGroupRequest, JoinGroupResponse, LeaveGroupRequest,
    LeaveGroupResponse, ResponseHeader, SyncGroupRequest, SyncGroupResponse,
};
use kafka_protocol::protocol::{
    decode_request_header_from_buffer, Decodable, Encodable, HeaderVersion, StrBytes,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::error::codes;
use crate::{GroupConfig, GroupError, GroupMember, RejoinReason};

/// A request the scripted broker received.
#[derive(Debug, Clone)]
enum Req {
    Join(JoinGroupRequest),
    Sync(SyncGroupRequest),
    Heartbeat(HeartbeatRequest),
    Leave(LeaveGroupRequest),
}

/// What the script answers.
enum Resp {
    Join(JoinGroupResponse),
    Sync(SyncGroupResponse),
    Heartbeat(HeartbeatResponse),
    Leave(LeaveGroupResponse),
    /// Never answer (the connection stays open).
    Hang,
    /// Close the connection.
    Close,
}

type Script = Box<dyn FnMut(&Req, i16) -> Resp + Send>;

struct State {
    script: Script,
    /// Every group request with its version, in arrival order.
    log: Vec<(Req, i16)>,
    find_coordinator_versions: Vec<i16>,
    api_versions_versions: Vec<i16>,
}

#[derive(Clone)]
struct MockBroker {
    addr: String,
    state: Arc<Mutex<State>>,
    /// API ranges advertised in ApiVersions.
    ranges: Arc<Vec<(ApiKey, i16, i16)>>,
    /// Highest ApiVersions version understood.
    api_versions_max: i16,
}

const KAFKA_41: &[(ApiKey, i16, i16)] = &[
    (ApiKey::ApiVersions, 0, 4),
    (ApiKey::FindCoordinator, 0, 6),
    (ApiKey::JoinGroup, 2, 9),
    (ApiKey::SyncGroup, 0, 5),
    (ApiKey::Heartbeat, 0, 4),
    (ApiKey::LeaveGroup, 0, 5),
];

impl MockBroker {
    async fn start(
        ranges: &[(ApiKey, i16, i16)],
        api_versions_max: i16,
        script: impl FnMut(&Req, i16) -> Resp + Send + 'static,
    ) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let broker = Self {
            addr,
            state: Arc::new(Mutex::new(State {
                script: Box::new(script),
                log: Vec::new(),
                find_coordinator_versions: Vec::new(),
                api_versions_versions: Vec::new(),
            })),
            ranges: Arc::new(ranges.to_vec()),
            api_versions_max,
        };
        let accepting = broker.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(accepting.clone().serve(stream));
            }
        });
        broker
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn log(&self) -> Vec<(Req, i16)> {
        self.lock().log.clone()
    }

    fn config(&self) -> GroupConfig {
        GroupConfig {
            bootstrap_servers: vec![self.addr.clone()],
            group_id: "g".to_owned(),
            client_id: "test".to_owned(),
            protocol_type: "connect".to_owned(),
            session_timeout: Duration::from_millis(1500),
            rebalance_timeout: Duration::from_secs(2),
            heartbeat_interval: Duration::from_millis(100),
            request_timeout: Duration::from_secs(2),
            security: Default::default(),
        }
    }

    async fn serve(self, mut stream: TcpStream) {
        loop {
            let Ok(len) = stream.read_i32().await else {
                return;
            };
            let mut frame = BytesMut::zeroed(usize::try_from(len).unwrap());
            if stream.read_exact(&mut frame).await.is_err() {
                return;
            }
            let mut frame = frame.freeze();
            let header = decode_request_header_from_buffer(&mut frame).unwrap();
            let version = header.request_api_version;
            let api = ApiKey::try_from(header.request_api_key).unwrap();
            let (header_version, body) = match api {
                ApiKey::ApiVersions => self.api_versions(version),
                ApiKey::FindCoordinator => {
                    let request = FindCoordinatorRequest::decode(&mut frame, version).unwrap();
                    self.find_coordinator(&request, version)
                }
                _ => {
                    let request = match api {
                        ApiKey::JoinGroup => {
                            Req::Join(JoinGroupRequest::decode(&mut frame, version).unwrap())
                        }
                        ApiKey::SyncGroup => {
                            Req::Sync(SyncGroupRequest::decode(&mut frame, version).unwrap())
                        }
                        ApiKey::Heartbeat => {
                            Req::Heartbeat(HeartbeatRequest::decode(&mut frame, version).unwrap())
                        }
                        ApiKey::LeaveGroup => {
                            Req::Leave(LeaveGroupRequest::decode(&mut frame, version).unwrap())
                        }
                        other => panic!("unexpected request {other:?}"),
                    };
                    let response = {
                        let mut state = self.lock();
                        state.log.push((request.clone(), version));
                        (state.script)(&request, version)
                    };
                    match response {
                        Resp::Join(r) => encode::<JoinGroupResponse>(&r, version),
                        Resp::Sync(r) => encode::<SyncGroupResponse>(&r, version),
                        Resp::Heartbeat(r) => encode::<HeartbeatResponse>(&r, version),
                        Resp::Leave(r) => encode::<LeaveGroupResponse>(&r, version),
                        Resp::Hang => {
                            std::future::pending::<()>().await;
                            return;
                        }
                        Resp::Close => return,
                    }
                }
            };
            let mut out = BytesMut::new();
            ResponseHeader::default()
                .with_correlation_id(header.correlation_id)
                .encode(&mut out, header_version)
                .unwrap();
            out.put_slice(&body);
            let mut framed = BytesMut::new();
            framed.put_i32(i32::try_from(out.len()).unwrap());
            framed.put_slice(&out);
            if stream.write_all(&framed).await.is_err() {
                return;
            }
        }
    }

    fn api_versions(&self, version: i16) -> (i16, Bytes) {
        self.lock().api_versions_versions.push(version);
        let keys = self
            .ranges
            .iter()
            .map(|&(k, min, max)| {
                ApiVersion::default()
                    .with_api_key(k as i16)
                    .with_min_version(min)
                    .with_max_version(max)
            })
            .collect();
        let header_version = ApiVersionsResponse::header_version(version);
        if version > self.api_versions_max {
            let response = ApiVersionsResponse::default()
                .with_error_code(codes::UNSUPPORTED_VERSION)
                .with_api_keys(keys);
            return (
                header_version,
                encode::<ApiVersionsResponse>(&response, 0).1,
            );
        }
        let response = ApiVersionsResponse::default().with_api_keys(keys);
        (
            header_version,
            encode::<ApiVersionsResponse>(&response, version).1,
        )
    }

    fn find_coordinator(&self, request: &FindCoordinatorRequest, version: i16) -> (i16, Bytes) {
        self.lock().find_coordinator_versions.push(version);
        let (host, port) = self.addr.rsplit_once(':').unwrap();
        let port: i32 = port.parse().unwrap();
        let response = if version >= 4 {
            assert_eq!(request.coordinator_keys.len(), 1);
            FindCoordinatorResponse::default().with_coordinators(vec![CoordinatorEntry::default()
                .with_key(request.coordinator_keys[0].clone())
                .with_node_id(BrokerId(1))
                .with_host(StrBytes::from_string(host.to_owned()))
                .with_port(port)])
        } else {
            assert_eq!(request.key.as_str(), "g");
            FindCoordinatorResponse::default()
                .with_node_id(BrokerId(1))
                .with_host(StrBytes::from_string(host.to_owned()))
                .with_port(port)
        };
        encode::<FindCoordinatorResponse>(&response, version)
    }
}

fn encode<M: Encodable + HeaderVersion>(message: &M, version: i16) -> (i16, Bytes) {
    let mut buf = BytesMut::new();
    message.encode(&mut buf, version).unwrap();
    (M::header_version(version), buf.freeze())
}

fn s(text: &str) -> StrBytes {
    StrBytes::from_string(text.to_owned())
}

/// A successful JoinGroup answer that makes `member` the only member and leader.
fn sole_leader(member: &str, generation: i32, metadata: Bytes, version: i16) -> JoinGroupResponse {
    let mut response = JoinGroupResponse::default()
        .with_generation_id(generation)
        .with_protocol_name(Some(s("default")))
        .with_leader(s(member))
        .with_member_id(s(member))
        .with_members(vec![JoinGroupResponseMember::default()
            .with_member_id(s(member))
            .with_metadata(metadata)]);
    if version >= 7 {
        response.protocol_type = Some(s("connect"));
    }
    response
}

fn protocols() -> Vec<(String, Bytes)> {
    vec![("default".to_owned(), Bytes::from_static(b"meta"))]
}

async fn within<T>(limit: Duration, future: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(limit, future)
        .await
        .expect("did not complete in time")
}

#[tokio::test]
async fn full_cycle_with_member_id_required_heartbeats_and_leave() {
    let mut heartbeats = 0;
    let broker = MockBroker::start(KAFKA_41, 3, move |req, version| match req {
        Req::Join(j) if j.member_id.is_empty() => Resp::Join(
            JoinGroupResponse::default()
                .with_error_code(codes::MEMBER_ID_REQUIRED)
                .with_member_id(s("m-1")),
        ),
        Req::Join(j) => Resp::Join(sole_leader(
            &j.member_id,
            1,
            j.protocols[0].metadata.clone(),
            version,
        )),
        Req::Sync(sync) => Resp::Sync(
            SyncGroupResponse::default()
                .with_protocol_type(Some(s("connect")))
                .with_protocol_name(Some(s("default")))
                .with_assignment(sync.assignments[0].assignment.clone()),
        ),
        Req::Heartbeat(_) => {
            heartbeats += 1;
            let code = if heartbeats < 3 {
                codes::NONE
            } else {
                codes::REBALANCE_IN_PROGRESS
            };
            Resp::Heartbeat(HeartbeatResponse::default().with_error_code(code))
        }
        Req::Leave(_) => Resp::Leave(
            LeaveGroupResponse::default()
                .with_members(vec![MemberResponse::default().with_member_id(s("m-1"))]),
        ),
    })
    .await;
    let mut member = GroupMember::new(broker.config());
    assert_eq!(member.generation_id(), -1);

    let joined = within(Duration::from_secs(5), member.join(&protocols()))
        .await
        .unwrap();
    assert_eq!(joined.generation_id, 1);
    assert_eq!(joined.member_id, "m-1");
    assert!(joined.is_leader());
    assert_eq!(joined.protocol_name, "default");
    assert_eq!(
        joined.members,
        vec![("m-1".to_owned(), Bytes::from_static(b"meta"))]
    );
    assert_eq!(member.member_id(), "m-1");
    assert_eq!(member.generation_id(), 1);

    // No rejoin signal before the generation is active.
    assert!(
        tokio::time::timeout(Duration::from_millis(50), member.rejoin_needed())
            .await
            .is_err()
    );

    let assignment = within(
        Duration::from_secs(5),
        member.sync(vec![("m-1".to_owned(), Bytes::from_static(b"work"))]),
    )
    .await
    .unwrap();
    assert_eq!(assignment, Bytes::from_static(b"work"));
    assert!(member.is_active());

    let reason = within(Duration::from_secs(5), member.rejoin_needed()).await;
    assert_eq!(reason, RejoinReason::RebalanceInProgress);
    // Level-triggered.
    assert_eq!(
        member.rejoin_signal().current(),
        Some(RejoinReason::RebalanceInProgress)
    );

    within(Duration::from_secs(5), member.leave()).await;
    assert_eq!(member.member_id(), "");
    assert_eq!(member.generation_id(), -1);
    assert_eq!(member.rejoin_signal().current(), None);

    let log = broker.log();
    // Highest common versions with Kafka 4.1.
    let versions: Vec<(&str, i16)> = log
        .iter()
        .map(|(r, v)| {
            let name = match r {
                Req::Join(_) => "join",
                Req::Sync(_) => "sync",
                Req::Heartbeat(_) => "heartbeat",
                Req::Leave(_) => "leave",
            };
            (name, *v)
        })
        .collect();
    assert_eq!(versions[..3], [("join", 9), ("join", 9), ("sync", 5)]);
    assert!(versions[3..versions.len() - 1]
        .iter()
        .all(|v| *v == ("heartbeat", 4)));
    assert_eq!(versions.last(), Some(&("leave", 5)));
    assert!(broker
        .lock()
        .find_coordinator_versions
        .iter()
        .all(|&v| v == 6));
    // The second JoinGroup carries the assigned id, protocol type and a reason.
    let Req::Join(second) = &log[1].0 else {
        panic!()
    };
    assert_eq!(second.member_id.as_str(), "m-1");
    assert_eq!(second.protocol_type.as_str(), "connect");
    assert_eq!(second.session_timeout_ms, 1500);
    assert_eq!(second.rebalance_timeout_ms, 2000);
    assert!(second.group_instance_id.is_none());
    assert!(second.reason.is_some());
    let Req::Heartbeat(heartbeat) = &log[3].0 else {
        panic!()
    };
    assert_eq!(heartbeat.generation_id, 1);
    assert_eq!(heartbeat.member_id.as_str(), "m-1");
    let Req::Sync(sync) = &log[2].0 else { panic!() };
    assert_eq!(sync.generation_id, 1);
    assert_eq!(sync.protocol_name.as_deref(), Some("default"));
    let Req::Leave(leave) = &log.last().unwrap().0 else {
        panic!()
    };
    assert_eq!(leave.members[0].member_id.as_str(), "m-1");
}

#[tokio::test]
async fn join_finds_the_coordinator_again_after_not_coordinator() {
    let mut joins = 0;
    let broker = MockBroker::start(KAFKA_41, 3, move |req, version| match req {
        Req::Join(j) => {
            joins += 1;
            match joins {
                1 => {
                    Resp::Join(JoinGroupResponse::default().with_error_code(codes::NOT_COORDINATOR))
                }
                2 => Resp::Close,
                3 => Resp::Join(
                    JoinGroupResponse::default()
                        .with_error_code(codes::COORDINATOR_LOAD_IN_PROGRESS),
                ),
                _ => Resp::Join(sole_leader(
                    if j.member_id.is_empty() {
                        "m-9"
                    } else {
                        &j.member_id
                    },
                    4,
                    Bytes::new(),
                    version,
                )),
            }
        }
        _ => Resp::Hang,
    })
    .await;
    let mut member = GroupMember::new(broker.config());
    let joined = within(Duration::from_secs(10), member.join(&protocols()))
        .await
        .unwrap();
    assert_eq!(joined.generation_id, 4);
    assert_eq!(broker.log().len(), 4);
    // Found once at first, again after NOT_COORDINATOR and after the disconnect.
    assert_eq!(broker.lock().find_coordinator_versions.len(), 3);
}

#[tokio::test]
async fn join_forgets_an_unknown_member_id_and_fails_on_fatal_errors() {
    let broker = MockBroker::start(KAFKA_41, 3, move |req, version| match req {
        Req::Join(j) if j.member_id.as_str() == "stale" => {
            Resp::Join(JoinGroupResponse::default().with_error_code(codes::UNKNOWN_MEMBER_ID))
        }
        Req::Join(j) if j.protocols[0].name.as_str() == "bad" => Resp::Join(
            JoinGroupResponse::default().with_error_code(codes::INCONSISTENT_GROUP_PROTOCOL),
        ),
        Req::Join(j) if j.member_id.is_empty() => Resp::Join(
            JoinGroupResponse::default()
                .with_error_code(codes::MEMBER_ID_REQUIRED)
                .with_member_id(s("fresh")),
        ),
        Req::Join(j) => Resp::Join(sole_leader(&j.member_id, 2, Bytes::new(), version)),
        Req::Sync(_) => {
            Resp::Sync(SyncGroupResponse::default().with_error_code(codes::UNKNOWN_MEMBER_ID))
        }
        _ => Resp::Hang,
    })
    .await;
    let mut member = GroupMember::new(broker.config());
    member.member_id = "stale".to_owned();
    let joined = within(Duration::from_secs(5), member.join(&protocols()))
        .await
        .unwrap();
    assert_eq!(joined.member_id, "fresh");

    // UNKNOWN_MEMBER_ID on sync: rejoin with a new id.
    let err = within(Duration::from_secs(5), member.sync(Vec::new()))
        .await
        .unwrap_err();
    assert!(matches!(err, GroupError::RejoinNeeded), "{err}");
    assert_eq!(member.member_id(), "");
    assert_eq!(member.generation_id(), -1);
    // A second sync without join is refused.
    let err = member.sync(Vec::new()).await.unwrap_err();
    assert!(matches!(err, GroupError::InvalidState(_)), "{err}");

    let err = within(
        Duration::from_secs(5),
        member.join(&[("bad".to_owned(), Bytes::new())]),
    )
    .await
    .unwrap_err();
    assert_eq!(err.kafka_code(), Some(codes::INCONSISTENT_GROUP_PROTOCOL));
}

#[tokio::test]
async fn sync_rebalance_in_progress_requires_rejoin() {
    let broker = MockBroker::start(KAFKA_41, 3, move |req, version| match req {
        Req::Join(j) if j.member_id.is_empty() => Resp::Join(
            JoinGroupResponse::default()
                .with_error_code(codes::MEMBER_ID_REQUIRED)
                .with_member_id(s("m")),
        ),
        Req::Join(j) => Resp::Join(sole_leader(&j.member_id, 3, Bytes::new(), version)),
        Req::Sync(_) => {
            Resp::Sync(SyncGroupResponse::default().with_error_code(codes::REBALANCE_IN_PROGRESS))
        }
        _ => Resp::Hang,
    })
    .await;
    let mut member = GroupMember::new(broker.config());
    within(Duration::from_secs(5), member.join(&protocols()))
        .await
        .unwrap();
    let err = within(Duration::from_secs(5), member.sync(Vec::new()))
        .await
        .unwrap_err();
    assert!(matches!(err, GroupError::RejoinNeeded), "{err}");
    // The member id survives; no heartbeat runs.
    assert_eq!(member.member_id(), "m");
    assert!(!member.is_active());
    assert!(
        tokio::time::timeout(Duration::from_millis(300), member.rejoin_needed())
            .await
            .is_err()
    );
}

#[tokio::test]
async fn heartbeat_signals_when_the_coordinator_stops_answering() {
    let broker = MockBroker::start(KAFKA_41, 3, move |req, version| match req {
        Req::Join(j) => Resp::Join(sole_leader(
            if j.member_id.is_empty() {
                "m"
            } else {
                &j.member_id
            },
            1,
            Bytes::new(),
            version,
        )),
        Req::Sync(_) => {
            Resp::Sync(SyncGroupResponse::default().with_assignment(Bytes::from_static(b"a")))
        }
        Req::Heartbeat(_) => Resp::Hang,
        Req::Leave(_) => Resp::Leave(LeaveGroupResponse::default()),
    })
    .await;
    let mut member = GroupMember::new(broker.config());
    within(Duration::from_secs(5), member.join(&protocols()))
        .await
        .unwrap();
    within(Duration::from_secs(5), member.sync(Vec::new()))
        .await
        .unwrap();
    let started = tokio::time::Instant::now();
    let reason = within(Duration::from_secs(5), member.rejoin_needed()).await;
    assert_eq!(reason, RejoinReason::CoordinatorLost);
    // Session timeout is 1.5 s.
    assert!(
        started.elapsed() >= Duration::from_millis(1200),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn heartbeat_stops_on_fatal_errors_and_join_resets_the_member_id() {
    let broker = MockBroker::start(KAFKA_41, 3, move |req, version| match req {
        Req::Join(j) if j.member_id.is_empty() => Resp::Join(
            JoinGroupResponse::default()
                .with_error_code(codes::MEMBER_ID_REQUIRED)
                .with_member_id(s("m-2")),
        ),
        Req::Join(j) => Resp::Join(sole_leader(&j.member_id, 1, Bytes::new(), version)),
        Req::Sync(_) => Resp::Sync(SyncGroupResponse::default()),
        Req::Heartbeat(_) => {
            Resp::Heartbeat(HeartbeatResponse::default().with_error_code(codes::UNKNOWN_MEMBER_ID))
        }
        Req::Leave(_) => Resp::Leave(LeaveGroupResponse::default()),
    })
    .await;
    let mut member = GroupMember::new(broker.config());
    within(Duration::from_secs(5), member.join(&protocols()))
        .await
        .unwrap();
    within(Duration::from_secs(5), member.sync(Vec::new()))
        .await
        .unwrap();
    let reason = within(Duration::from_secs(5), member.rejoin_needed()).await;
    assert_eq!(reason, RejoinReason::UnknownMemberId);
    // Only one heartbeat: the task stopped.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let heartbeats = broker
        .log()
        .iter()
        .filter(|(r, _)| matches!(r, Req::Heartbeat(_)))
        .count();
    assert_eq!(heartbeats, 1);
    // The next join starts with an empty member id.
    within(Duration::from_secs(5), member.join(&protocols()))
        .await
        .unwrap();
    let joins: Vec<String> = broker
        .log()
        .iter()
        .filter_map(|(r, _)| match r {
            Req::Join(j) => Some(j.member_id.to_string()),
            _ => None,
        })
        .collect();
    assert_eq!(joins, ["", "m-2", "", "m-2"]);
}

#[tokio::test]
async fn old_broker_versions_are_negotiated_down() {
    // A broker that only knows ApiVersions v0-2 and older group API versions.
    let old: &[(ApiKey, i16, i16)] = &[
        (ApiKey::ApiVersions, 0, 2),
        (ApiKey::FindCoordinator, 0, 3),
        (ApiKey::JoinGroup, 0, 5),
        (ApiKey::SyncGroup, 0, 3),
        (ApiKey::Heartbeat, 0, 3),
        (ApiKey::LeaveGroup, 0, 2),
    ];
    let broker = MockBroker::start(old, 2, move |req, version| match req {
        Req::Join(j) if j.member_id.is_empty() => Resp::Join(
            JoinGroupResponse::default()
                .with_error_code(codes::MEMBER_ID_REQUIRED)
                .with_member_id(s("old-1")),
        ),
        Req::Join(j) => Resp::Join(sole_leader(&j.member_id, 1, Bytes::new(), version)),
        Req::Sync(_) => {
            Resp::Sync(SyncGroupResponse::default().with_assignment(Bytes::from_static(b"x")))
        }
        Req::Heartbeat(_) => Resp::Heartbeat(HeartbeatResponse::default()),
        Req::Leave(_) => Resp::Leave(LeaveGroupResponse::default()),
    })
    .await;
    let mut member = GroupMember::new(broker.config());
    within(Duration::from_secs(5), member.join(&protocols()))
        .await
        .unwrap();
    assert_eq!(
        within(Duration::from_secs(5), member.sync(Vec::new()))
            .await
            .unwrap(),
        Bytes::from_static(b"x")
    );
    // Leave only once a heartbeat has gone out, so its negotiated version is checked too.
    within(Duration::from_secs(5), async {
        while !broker
            .log()
            .iter()
            .any(|(r, _)| matches!(r, Req::Heartbeat(_)))
        {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    within(Duration::from_secs(5), member.leave()).await;
    let versions: Vec<i16> = broker.log().iter().map(|(_, v)| *v).collect();
    assert_eq!(versions[..3], [5, 5, 3]);
    assert!(versions[3..versions.len() - 1].iter().all(|&v| v == 3));
    assert_eq!(versions.last(), Some(&2));
    let log = broker.log();
    let Req::Leave(leave) = &log.last().unwrap().0 else {
        panic!()
    };
    assert_eq!(leave.member_id.as_str(), "old-1");
    let state = broker.lock();
    assert!(state.find_coordinator_versions.iter().all(|&v| v == 3));
    // v3 was rejected with UNSUPPORTED_VERSION, then v2 used.
    assert_eq!(state.api_versions_versions[..2], [3, 2]);
}

#[tokio::test]
async fn unreachable_bootstrap_servers_fail_join_with_a_connect_error() {
    // Reserve a port and close it so that connecting is refused.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    drop(listener);
    let mut config = GroupConfig::new(vec![addr.clone()], "g");
    config.rebalance_timeout = Duration::from_millis(100);
    config.request_timeout = Duration::from_millis(200);
    config.session_timeout = Duration::from_millis(500);
    config.heartbeat_interval = Duration::from_millis(100);
    let mut member = GroupMember::new(config);
    let err = within(Duration::from_secs(15), member.join(&protocols()))
        .await
        .unwrap_err();
    assert!(matches!(err, GroupError::Connect { .. }), "{err}");
    assert!(err.to_string().contains(&addr), "{err}");
}

#[tokio::test]
async fn client_telemetry_is_taken_only_where_brokers_offer_its_subscriptions() {
    let plain = MockBroker::start(KAFKA_41, 3, |_, _| Resp::Close).await;
    let with_receiver: Vec<_> = KAFKA_41
        .iter()
        .copied()
        .chain([
            (ApiKey::GetTelemetrySubscriptions, 0, 0),
            (ApiKey::PushTelemetry, 0, 0),
        ])
        .collect();
    let receiving = MockBroker::start(&with_receiver, 3, |_, _| Resp::Close).await;
    let limit = Duration::from_secs(5);
    assert!(!within(
        limit,
        crate::cluster_takes_client_telemetry(&plain.config())
    )
    .await
    .unwrap());
    assert!(within(
        limit,
        crate::cluster_takes_client_telemetry(&receiving.config())
    )
    .await
    .unwrap());
    // The first server that answers decides; an unreachable one is skipped.
    let mut config = receiving.config();
    config.bootstrap_servers.insert(0, "127.0.0.1:1".to_owned());
    assert!(
        within(limit, crate::cluster_takes_client_telemetry(&config))
            .await
            .unwrap()
    );
}
