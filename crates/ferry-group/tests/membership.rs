//! Group membership against a real Kafka broker (Apache Kafka 4.1, KRaft).
//!
//! Needs `KAFKA_BOOTSTRAP_SERVERS` (e.g. `127.0.0.1:9092`; `scripts/kafka start` runs one). The
//! tests fail when it is unset or unreachable; they never skip.
#![cfg(feature = "kafka-integration-tests")]

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use ferry_group::{
    GroupConfig, GroupError, GroupMember, JoinOutcome, RejoinReason, SaslCredentials,
    SaslMechanism, Security, SecurityProtocol, TlsSettings,
};
use tokio::task::JoinHandle;

/// Generous bound for any single step (a rebalance waits at most the 10 s rebalance timeout).
const STEP: Duration = Duration::from_secs(30);

fn bootstrap_servers() -> Vec<String> {
    let servers = std::env::var("KAFKA_BOOTSTRAP_SERVERS").unwrap_or_else(|_| {
        panic!("KAFKA_BOOTSTRAP_SERVERS is not set; start a broker (scripts/kafka start) and export KAFKA_BOOTSTRAP_SERVERS=127.0.0.1:9092")
    });
    let servers: Vec<String> = servers
        .split(',')
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect();
    assert!(!servers.is_empty(), "KAFKA_BOOTSTRAP_SERVERS is empty");
    let reachable = servers
        .iter()
        .any(|s| std::net::TcpStream::connect(s.as_str()).is_ok());
    assert!(
        reachable,
        "no Kafka broker reachable at KAFKA_BOOTSTRAP_SERVERS={servers:?}"
    );
    servers
}

fn unique_group(test: &str) -> String {
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock after 1970")
        .as_nanos();
    format!(
        "ferry-group-it-{test}-{}-{nanos}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

fn config(group: &str, client: &str) -> GroupConfig {
    GroupConfig {
        bootstrap_servers: bootstrap_servers(),
        group_id: group.to_owned(),
        client_id: client.to_owned(),
        protocol_type: "connect".to_owned(),
        session_timeout: Duration::from_secs(6),
        rebalance_timeout: Duration::from_secs(10),
        heartbeat_interval: Duration::from_secs(1),
        request_timeout: Duration::from_secs(20),
        ..GroupConfig::default()
    }
}

fn protocols(list: &[(&str, &str)]) -> Vec<(String, Bytes)> {
    list.iter()
        .map(|(name, meta)| ((*name).to_owned(), Bytes::copy_from_slice(meta.as_bytes())))
        .collect()
}

async fn step<T>(what: &str, future: impl Future<Output = T>) -> T {
    match tokio::time::timeout(STEP, future).await {
        Ok(v) => v,
        Err(_) => panic!("{what} did not complete within {STEP:?}"),
    }
}

/// Starts a join on another task (the broker holds it until the rebalance completes).
fn join_in_background(
    mut member: GroupMember,
    protocols: Vec<(String, Bytes)>,
) -> JoinHandle<(GroupMember, JoinOutcome)> {
    tokio::spawn(async move {
        let outcome = member.join(&protocols).await.expect("background join");
        (member, outcome)
    })
}

fn sorted(members: &[(String, Bytes)]) -> BTreeMap<String, Bytes> {
    members.iter().cloned().collect()
}

/// Joins and syncs a member that is alone in its group; returns the outcome.
async fn join_alone(member: &mut GroupMember, offered: &[(String, Bytes)]) -> JoinOutcome {
    let joined = step("join", member.join(offered)).await.expect("join");
    assert!(joined.is_leader(), "a lone member leads: {joined:?}");
    assert_eq!(joined.members.len(), 1, "{joined:?}");
    let assignment = Bytes::from(format!("alone:{}", joined.member_id));
    let got = step(
        "sync",
        member.sync(vec![(joined.member_id.clone(), assignment.clone())]),
    )
    .await
    .expect("sync");
    assert_eq!(got, assignment);
    joined
}

/// A leads alone, then B joins: A must be told to rejoin, and both end up in one generation.
/// Returns (A's outcome, B's member, B's outcome) after both synced distinct assignments.
async fn form_pair(
    a: &mut GroupMember,
    a_protocols: &[(String, Bytes)],
    b: GroupMember,
    b_protocols: Vec<(String, Bytes)>,
) -> (JoinOutcome, GroupMember, JoinOutcome) {
    let first = join_alone(a, a_protocols).await;

    let b_join = join_in_background(b, b_protocols);
    let reason = step("A's rejoin signal", a.rejoin_needed()).await;
    assert_eq!(reason, RejoinReason::RebalanceInProgress);
    let a_joined = step("A's rejoin", a.join(a_protocols))
        .await
        .expect("A rejoins");
    let (mut b, b_joined) = step("B's join", b_join).await.expect("B's join task");

    assert_eq!(a_joined.generation_id, b_joined.generation_id);
    assert!(a_joined.generation_id > first.generation_id);
    assert_eq!(a_joined.member_id, first.member_id, "A keeps its member id");
    assert_eq!(
        a_joined.leader_id, a_joined.member_id,
        "the first member stays leader"
    );
    assert_eq!(b_joined.leader_id, a_joined.member_id);
    assert!(!b_joined.is_leader());
    assert!(b_joined.members.is_empty(), "followers get no member list");
    assert_eq!(a_joined.protocol_name, b_joined.protocol_name);
    assert_eq!(a.generation_id(), a_joined.generation_id);
    assert_eq!(b.generation_id(), b_joined.generation_id);

    let for_a = Bytes::from_static(b"assignment-for-a");
    let for_b = Bytes::from_static(b"assignment-for-b");
    let assignments = vec![
        (a_joined.member_id.clone(), for_a.clone()),
        (b_joined.member_id.clone(), for_b.clone()),
    ];
    let (a_got, b_got) = step("both syncs", async {
        tokio::join!(a.sync(assignments), b.sync(Vec::new()))
    })
    .await;
    assert_eq!(a_got.expect("A syncs"), for_a);
    assert_eq!(b_got.expect("B syncs"), for_b);
    (a_joined, b, b_joined)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn single_member_joins_leads_and_receives_its_assignment() {
    let group = unique_group("single");
    let mut member = GroupMember::new(config(&group, "single"));
    let offered = protocols(&[("default", "metadata-of-the-only-member")]);

    let joined = step("join", member.join(&offered)).await.expect("join");
    assert!(joined.generation_id >= 1, "{joined:?}");
    assert!(!joined.member_id.is_empty());
    assert!(joined.is_leader());
    assert_eq!(joined.protocol_name, "default");
    assert_eq!(
        joined.members,
        vec![(
            joined.member_id.clone(),
            Bytes::from_static(b"metadata-of-the-only-member")
        )]
    );
    assert_eq!(member.member_id(), joined.member_id);
    assert_eq!(member.generation_id(), joined.generation_id);

    let assignment = Bytes::from_static(b"everything");
    let got = step(
        "sync",
        member.sync(vec![(joined.member_id.clone(), assignment.clone())]),
    )
    .await
    .expect("sync");
    assert_eq!(got, assignment);
    assert!(member.is_active());

    // Stable: heartbeats succeed, no rejoin for several heartbeat intervals.
    let quiet = tokio::time::timeout(Duration::from_secs(3), member.rejoin_needed()).await;
    assert!(quiet.is_err(), "unexpected rejoin signal: {quiet:?}");

    step("leave", member.leave()).await;
    assert_eq!(member.member_id(), "");
    assert_eq!(member.generation_id(), -1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn second_member_triggers_a_rebalance_and_both_share_a_generation() {
    let group = unique_group("pair");
    let mut a = GroupMember::new(config(&group, "worker-a"));
    let b = GroupMember::new(config(&group, "worker-b"));
    let a_protocols = protocols(&[("default", "meta-a")]);
    let b_protocols = protocols(&[("default", "meta-b")]);

    let (a_joined, mut b, b_joined) = form_pair(&mut a, &a_protocols, b, b_protocols).await;
    assert_eq!(a_joined.protocol_name, "default");
    assert_eq!(a_joined.members.len(), 2);
    assert_eq!(
        sorted(&a_joined.members),
        BTreeMap::from([
            (a_joined.member_id.clone(), Bytes::from_static(b"meta-a")),
            (b_joined.member_id.clone(), Bytes::from_static(b"meta-b")),
        ])
    );
    assert_ne!(a_joined.member_id, b_joined.member_id);

    // The pair is stable while both heartbeat.
    let quiet = tokio::time::timeout(Duration::from_secs(3), async {
        tokio::select! {
            r = a.rejoin_needed() => r,
            r = b.rejoin_needed() => r,
        }
    })
    .await;
    assert!(quiet.is_err(), "unexpected rejoin signal: {quiet:?}");

    step("leave", async { tokio::join!(a.leave(), b.leave()) }).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn remaining_member_rejoins_alone_after_the_other_leaves() {
    let group = unique_group("leave");
    let mut a = GroupMember::new(config(&group, "worker-a"));
    let b = GroupMember::new(config(&group, "worker-b"));
    let a_protocols = protocols(&[("default", "meta-a")]);
    let b_protocols = protocols(&[("default", "meta-b")]);
    let (pair, mut b, _) = form_pair(&mut a, &a_protocols, b, b_protocols).await;

    step("B leaves", b.leave()).await;
    let reason = step("A's rejoin signal", a.rejoin_needed()).await;
    assert_eq!(reason, RejoinReason::RebalanceInProgress);

    let alone = step("A's rejoin", a.join(&a_protocols))
        .await
        .expect("A rejoins");
    assert!(alone.generation_id > pair.generation_id);
    assert!(alone.is_leader());
    assert_eq!(alone.member_id, pair.member_id);
    assert_eq!(
        alone.members,
        vec![(alone.member_id.clone(), Bytes::from_static(b"meta-a"))]
    );
    let got = step(
        "sync",
        a.sync(vec![(alone.member_id.clone(), Bytes::from_static(b"all"))]),
    )
    .await
    .expect("sync");
    assert_eq!(got, Bytes::from_static(b"all"));
    step("leave", a.leave()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn coordinator_selects_the_most_preferred_common_protocol() {
    let group = unique_group("protocols");
    let mut a = GroupMember::new(config(&group, "worker-a"));
    let b = GroupMember::new(config(&group, "worker-b"));
    let a_protocols = protocols(&[
        ("sessioned", "a-sessioned"),
        ("compatible", "a-compatible"),
        ("default", "a-default"),
    ]);
    let b_protocols = protocols(&[("compatible", "b-compatible"), ("default", "b-default")]);

    // Alone, A gets its first choice.
    let alone = step("join", a.join(&a_protocols)).await.expect("join");
    assert_eq!(alone.protocol_name, "sessioned");
    assert_eq!(
        alone.members,
        vec![(alone.member_id.clone(), Bytes::from_static(b"a-sessioned"))]
    );
    step(
        "sync",
        a.sync(vec![(alone.member_id.clone(), Bytes::new())]),
    )
    .await
    .expect("sync");
    // Start over from a stable single-member generation (form_pair joins again).
    step("leave", a.leave()).await;

    let (a_joined, mut b, b_joined) = form_pair(&mut a, &a_protocols, b, b_protocols).await;
    assert_eq!(a_joined.protocol_name, "compatible");
    assert_eq!(b_joined.protocol_name, "compatible");
    assert_eq!(
        sorted(&a_joined.members),
        BTreeMap::from([
            (
                a_joined.member_id.clone(),
                Bytes::from_static(b"a-compatible")
            ),
            (
                b_joined.member_id.clone(),
                Bytes::from_static(b"b-compatible")
            ),
        ])
    );
    step("leave", async { tokio::join!(a.leave(), b.leave()) }).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn heartbeats_keep_the_member_alive_past_the_session_timeout() {
    let group = unique_group("alive");
    let mut a = GroupMember::new(config(&group, "worker-a"));
    let offered = protocols(&[("default", "meta-a")]);
    let first = join_alone(&mut a, &offered).await;

    // 8 s > the 6 s session timeout: without heartbeats the coordinator would expel A.
    let quiet = tokio::time::timeout(Duration::from_secs(8), a.rejoin_needed()).await;
    assert!(quiet.is_err(), "unexpected rejoin signal: {quiet:?}");

    // A is still a member: a newcomer triggers a rebalance (not UNKNOWN_MEMBER_ID) and A rejoins
    // as leader with the same id.
    let b_join = join_in_background(
        GroupMember::new(config(&group, "worker-b")),
        protocols(&[("default", "meta-b")]),
    );
    let reason = step("A's rejoin signal", a.rejoin_needed()).await;
    assert_eq!(reason, RejoinReason::RebalanceInProgress);
    let again = step("A's rejoin", a.join(&offered))
        .await
        .expect("A rejoins");
    assert_eq!(again.member_id, first.member_id);
    assert!(again.is_leader());
    let (mut b, b_joined) = step("B's join", b_join).await.expect("B's join task");
    assert_eq!(b_joined.generation_id, again.generation_id);
    let assignments = again
        .members
        .iter()
        .map(|(id, _)| (id.clone(), Bytes::from(id.clone())))
        .collect();
    let (a_got, b_got) = step("both syncs", async {
        tokio::join!(a.sync(assignments), b.sync(Vec::new()))
    })
    .await;
    assert_eq!(
        a_got.expect("A syncs"),
        Bytes::from(again.member_id.clone())
    );
    assert_eq!(
        b_got.expect("B syncs"),
        Bytes::from(b_joined.member_id.clone())
    );
    step("leave", async { tokio::join!(a.leave(), b.leave()) }).await;
}

/// The broker's SASL_SSL listener (scripts/test sets KAFKA_SASL_SSL and FERRY_KAFKA_TLS).
fn sasl_ssl(mechanism: SaslMechanism, password: &str) -> (Vec<String>, Security) {
    let listener = std::env::var("KAFKA_SASL_SSL")
        .expect("KAFKA_SASL_SSL must name the broker's SASL_SSL listener (scripts/test sets it)");
    let tls = std::env::var("FERRY_KAFKA_TLS")
        .expect("FERRY_KAFKA_TLS must name the broker's certificates (scripts/test sets it)");
    let security = Security {
        protocol: SecurityProtocol::SaslSsl,
        tls: TlsSettings {
            ca_file: Some(std::path::Path::new(&tls).join("ca.pem")),
            verify_hostname: true,
            ..TlsSettings::default()
        },
        sasl: Some(SaslCredentials {
            mechanism,
            username: "ferry".to_owned(),
            password: password.to_owned(),
        }),
    };
    (vec![listener], security)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn members_join_over_sasl_ssl_with_each_mechanism_and_a_wrong_password_is_refused() {
    for mechanism in [
        SaslMechanism::ScramSha512,
        SaslMechanism::ScramSha256,
        SaslMechanism::Plain,
    ] {
        let group = unique_group("secured");
        let (servers, security) = sasl_ssl(mechanism, "ferry-secret");
        let mut member = GroupMember::new(GroupConfig {
            bootstrap_servers: servers,
            security,
            ..config(&group, "secured")
        });
        let offered = protocols(&[("default", "m")]);
        let joined = step("join", member.join(&offered))
            .await
            .unwrap_or_else(|e| panic!("{mechanism:?}: {e}"));
        assert!(joined.is_leader());
        step("leave", member.leave()).await;
    }

    let (servers, security) = sasl_ssl(SaslMechanism::ScramSha512, "wrong-secret");
    let mut member = GroupMember::new(GroupConfig {
        bootstrap_servers: servers,
        security,
        ..config(&unique_group("refused"), "refused")
    });
    let error = step("join", member.join(&protocols(&[("default", "m")])))
        .await
        .expect_err("a wrong password cannot join");
    assert!(
        matches!(&error, GroupError::Authentication(m) if m.contains("localhost:") && m.contains("SASL authentication failed")),
        "{error}"
    );
    assert!(!error.to_string().contains("wrong-secret"));
}

/// The test broker has no client telemetry receiver, so it does not offer
/// GetTelemetrySubscriptions (KIP-714) and Ferry's clients need not prepare to push.
#[tokio::test]
async fn a_broker_without_a_telemetry_receiver_takes_no_client_telemetry() {
    let config = config(&unique_group("telemetry"), "probe");
    assert!(!step(
        "the probe",
        ferry_group::cluster_takes_client_telemetry(&config)
    )
    .await
    .unwrap());
}
