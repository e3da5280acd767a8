//! Secured clusters: the broker of scripts/kafka has a SASL_SSL listener (SCRAM and PLAIN) and
//! an SSL listener that requires client certificates, both advertised as localhost, with
//! certificates and Java-style stores the script generated (FERRY_KAFKA_TLS). Worker configs
//! are written the way Java Connect users write them: top-level settings for the worker's own
//! clients, repeated under `producer.` and `consumer.` for the connectors' clients.
#![cfg(feature = "kafka-integration-tests")]

mod support;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use support::*;

fn tls_dir() -> PathBuf {
    PathBuf::from(std::env::var("FERRY_KAFKA_TLS").expect(
        "FERRY_KAFKA_TLS must name the broker's certificate directory (scripts/test sets it from scripts/kafka tls)",
    ))
}

fn listener(var: &str) -> String {
    std::env::var(var).unwrap_or_else(|_| {
        panic!("{var} must name the broker's secured listener (scripts/test sets it)")
    })
}

/// The same client settings at the top level and under `producer.`, `consumer.` and `admin.`.
fn everywhere(settings: &[(&str, String)]) -> String {
    let mut out = String::new();
    for prefix in ["", "producer.", "consumer.", "admin."] {
        for (k, v) in settings {
            out.push_str(&format!("{prefix}{k}={v}\n"));
        }
    }
    out
}

fn secured_worker(dir: &Path, port: u16, bootstrap: &str, settings: &[(&str, String)]) -> PathBuf {
    let worker = worker_properties(dir, port, 1000);
    let text = std::fs::read_to_string(&worker).unwrap().replace(
        &format!("bootstrap.servers={}", support::bootstrap()),
        &format!("bootstrap.servers={bootstrap}"),
    );
    write_file(&worker, &format!("{text}{}", everywhere(settings)));
    worker
}

fn scram(password: &str) -> Vec<(&'static str, String)> {
    vec![
        ("security.protocol", "SASL_SSL".to_owned()),
        ("sasl.mechanism", "SCRAM-SHA-512".to_owned()),
        (
            "sasl.jaas.config",
            format!("org.apache.kafka.common.security.scram.ScramLoginModule required username=\"ferry\" password=\"{password}\";"),
        ),
    ]
}

fn pem_trust(ca: &str) -> Vec<(&'static str, String)> {
    vec![
        ("ssl.truststore.type", "PEM".to_owned()),
        (
            "ssl.truststore.location",
            tls_dir().join(ca).display().to_string(),
        ),
    ]
}

fn pipeline(dir: &Path, topic: &str) -> Vec<PathBuf> {
    vec![
        connector_file(
            dir,
            &format!("{topic}-src"),
            &format!(
                "connector.class=FileStreamSource\nfile={}\ntopic={topic}\n",
                dir.join("in.txt").display()
            ),
        ),
        connector_file(
            dir,
            &format!("{topic}-sink"),
            &format!(
                "connector.class=FileStreamSink\nfile={}\ntopics={topic}\n",
                dir.join("out.txt").display()
            ),
        ),
    ]
}

/// Runs the file pipeline over `bootstrap` with `settings` and checks every line arrives.
fn pipeline_runs(name: &str, bootstrap: &str, settings: &[(&str, String)]) {
    let dir = tempfile::tempdir().unwrap();
    let (topic, port) = (unique(name), port());
    let total = 2_000;
    write_file(&dir.path().join("in.txt"), &numbered_lines(0, total));
    let worker = secured_worker(dir.path(), port, bootstrap, settings);
    let ferry = Ferry::start(dir.path(), port, &worker, &pipeline(dir.path(), &topic));
    let out = dir.path().join("out.txt");
    wait_until(
        "every line in the sink file",
        Duration::from_secs(90),
        || lines(&out).len() >= total,
    );
    let expected: Vec<String> = numbered_lines(0, total)
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(lines(&out), expected);
    let log = ferry.log_text();
    for secret in ["ferry-secret", "ferry-pass", "BEGIN PRIVATE KEY"] {
        assert!(!log.contains(secret), "a secret in the log:\n{log}");
    }
    ferry.stop();
}

#[test]
fn a_pipeline_runs_over_sasl_ssl_with_scram_and_a_pem_trust_store() {
    let mut settings = scram("ferry-secret");
    settings.extend(pem_trust("ca.pem"));
    pipeline_runs("scram", &listener("KAFKA_SASL_SSL"), &settings);
}

#[test]
fn a_pipeline_runs_over_sasl_ssl_with_plain_and_a_pkcs12_trust_store() {
    let settings = vec![
        ("security.protocol", "SASL_SSL".to_owned()),
        ("sasl.mechanism", "PLAIN".to_owned()),
        ("sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"ferry\" password=\"ferry-secret\";".to_owned()),
        ("ssl.truststore.type", "PKCS12".to_owned()),
        ("ssl.truststore.location", tls_dir().join("truststore.p12").display().to_string()),
        ("ssl.truststore.password", "ferry-pass".to_owned()),
    ];
    pipeline_runs("plain", &listener("KAFKA_SASL_SSL"), &settings);
}

#[test]
fn a_pipeline_runs_over_mutual_tls_with_jks_stores() {
    let settings = vec![
        ("security.protocol", "SSL".to_owned()),
        (
            "ssl.truststore.location",
            tls_dir().join("truststore.jks").display().to_string(),
        ),
        ("ssl.truststore.password", "ferry-pass".to_owned()),
        (
            "ssl.keystore.location",
            tls_dir().join("client.jks").display().to_string(),
        ),
        ("ssl.keystore.password", "ferry-pass".to_owned()),
        ("ssl.key.password", "ferry-pass".to_owned()),
    ];
    pipeline_runs("mtls-jks", &listener("KAFKA_SSL"), &settings);
}

#[test]
fn a_pipeline_runs_over_mutual_tls_with_a_pkcs12_key_store_and_inline_pem() {
    let tls = tls_dir();
    let settings = vec![
        ("security.protocol", "SSL".to_owned()),
        ("ssl.keystore.type", "PKCS12".to_owned()),
        (
            "ssl.keystore.location",
            tls.join("client.p12").display().to_string(),
        ),
        ("ssl.keystore.password", "ferry-pass".to_owned()),
        // Inline PEM, one line as a properties file holds it.
        ("ssl.truststore.type", "PEM".to_owned()),
        (
            "ssl.truststore.certificates",
            std::fs::read_to_string(tls.join("ca.pem"))
                .unwrap()
                .replace('\n', "\\n"),
        ),
    ];
    pipeline_runs("mtls-p12", &listener("KAFKA_SSL"), &settings);
}

/// Starts a worker that must fail: within `limit`, with a message containing every `needle`.
fn start_fails_quickly(name: &str, bootstrap: &str, settings: &[(&str, String)], needles: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let worker = secured_worker(dir.path(), port(), bootstrap, settings);
    let started = Instant::now();
    let stderr = start_fails(dir.path(), &worker, &[]);
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(20),
        "{name}: start-up took {took:?} to fail:\n{stderr}"
    );
    for needle in needles {
        assert!(
            stderr.contains(needle),
            "{name}: the error should name {needle:?}:\n{stderr}"
        );
    }
    for secret in ["ferry-secret", "wrong-secret", "ferry-pass"] {
        assert!(
            !stderr.contains(secret),
            "{name}: a secret in the output:\n{stderr}"
        );
    }
}

#[test]
fn bad_credentials_and_certificates_stop_start_up_within_seconds_naming_the_cause() {
    let sasl_ssl = listener("KAFKA_SASL_SSL");
    let ssl = listener("KAFKA_SSL");
    let mut wrong_password = scram("wrong-secret");
    wrong_password.extend(pem_trust("ca.pem"));
    start_fails_quickly(
        "wrong password",
        &sasl_ssl,
        &wrong_password,
        &["localhost:", "Authentication failed"],
    );

    let mut untrusted = scram("ferry-secret");
    untrusted.extend(pem_trust("other-ca.pem"));
    start_fails_quickly(
        "untrusted CA",
        &sasl_ssl,
        &untrusted,
        &["localhost:", "certificate verify failed"],
    );

    // The broker's certificate names localhost, not 127.0.0.1.
    let mut by_address = scram("ferry-secret");
    by_address.extend(pem_trust("ca.pem"));
    let address = sasl_ssl.replace("localhost", "127.0.0.1");
    start_fails_quickly(
        "host name mismatch",
        &address,
        &by_address,
        &["127.0.0.1:", "certificate verify failed"],
    );

    let tls = tls_dir();
    let mut expired = pem_trust("ca.pem");
    expired.extend([
        ("security.protocol", "SSL".to_owned()),
        ("ssl.keystore.type", "PEM".to_owned()),
        (
            "ssl.keystore.certificate.chain",
            std::fs::read_to_string(tls.join("client-expired.pem"))
                .unwrap()
                .replace('\n', "\\n"),
        ),
        (
            "ssl.keystore.key",
            std::fs::read_to_string(tls.join("client-expired.key"))
                .unwrap()
                .replace('\n', "\\n"),
        ),
    ]);
    start_fails_quickly(
        "expired client certificate",
        &ssl,
        &expired,
        &["localhost:", "SSL"],
    );

    let wrong_store_password = vec![
        ("security.protocol", "SSL".to_owned()),
        (
            "ssl.truststore.location",
            tls.join("truststore.jks").display().to_string(),
        ),
        ("ssl.truststore.password", "not-the-password".to_owned()),
    ];
    start_fails_quickly(
        "wrong trust store password",
        &ssl,
        &wrong_store_password,
        &["truststore.jks", "password"],
    );
}

/// A distributed worker's properties for `bootstrap` with `settings`.
fn secured_cluster_worker(
    dir: &Path,
    port: u16,
    cluster: &str,
    bootstrap: &str,
    settings: &[(&str, String)],
) -> PathBuf {
    let props = distributed_properties(dir, port, cluster, &everywhere(settings));
    let text = std::fs::read_to_string(&props).unwrap().replace(
        &format!("bootstrap.servers={}", support::bootstrap()),
        &format!("bootstrap.servers={bootstrap}"),
    );
    write_file(&props, &text);
    props
}

/// Three distributed workers over `bootstrap` with `settings`: their group membership, internal
/// topics and connector clients all authenticate; a file pipeline created through a follower
/// delivers every line.
fn cluster_pipeline_runs(name: &str, bootstrap: &str, settings: &[(&str, String)]) {
    let dir = tempfile::tempdir().unwrap();
    let cluster = unique(name);
    let ports: Vec<u16> = (0..3).map(|_| port()).collect();
    let mut workers = Vec::new();
    for &p in &ports {
        let props = secured_cluster_worker(dir.path(), p, &cluster, bootstrap, settings);
        workers.push(Ferry::distributed(dir.path(), p, &props));
    }
    for w in &workers {
        wait_until(
            "the worker to join the group",
            Duration::from_secs(120),
            || w.get("/health").is_some_and(|(code, _)| code == 200),
        );
    }
    let topic = unique(&format!("{name}-topic"));
    let total = 2_000;
    write_file(&dir.path().join("in.txt"), &numbered_lines(0, total));
    for body in [
        format!(
            r#"{{"name":"{topic}-src","config":{{"connector.class":"FileStreamSource","file":"{}","topic":"{topic}"}}}}"#,
            dir.path().join("in.txt").display()
        ),
        format!(
            r#"{{"name":"{topic}-sink","config":{{"connector.class":"FileStreamSink","file":"{}","topics":"{topic}"}}}}"#,
            dir.path().join("out.txt").display()
        ),
    ] {
        let mut answer = (0, serde_json::Value::Null);
        wait_until("the connector created", Duration::from_secs(60), || {
            answer = workers[2].call("POST", "/connectors", Some(&body));
            answer.0 != 409
        });
        assert_eq!(answer.0, 201, "{}", answer.1);
    }
    let out = dir.path().join("out.txt");
    wait_until(
        "every line in the sink file",
        Duration::from_secs(120),
        || lines(&out).len() >= total,
    );
    let got: std::collections::BTreeSet<String> = lines(&out).into_iter().collect();
    assert_eq!(got.len(), total);
    for w in workers {
        let log = w.log_text();
        assert!(
            !log.contains("ferry-secret") && !log.contains("ferry-pass"),
            "a secret in the log:\n{log}"
        );
        w.stop();
    }
}

#[test]
fn a_three_worker_cluster_runs_over_sasl_ssl_with_scram() {
    let mut settings = scram("ferry-secret");
    settings.extend(pem_trust("ca.pem"));
    cluster_pipeline_runs("dscram", &listener("KAFKA_SASL_SSL"), &settings);
}

#[test]
fn a_three_worker_cluster_runs_over_mutual_tls_with_pkcs12_stores() {
    let tls = tls_dir();
    let settings = vec![
        ("security.protocol", "SSL".to_owned()),
        ("ssl.keystore.type", "PKCS12".to_owned()),
        (
            "ssl.keystore.location",
            tls.join("client.p12").display().to_string(),
        ),
        ("ssl.keystore.password", "ferry-pass".to_owned()),
        ("ssl.truststore.type", "PKCS12".to_owned()),
        (
            "ssl.truststore.location",
            tls.join("truststore.p12").display().to_string(),
        ),
        ("ssl.truststore.password", "ferry-pass".to_owned()),
    ];
    cluster_pipeline_runs("dmtls", &listener("KAFKA_SSL"), &settings);
}

#[test]
fn a_connector_whose_override_credentials_are_wrong_fails_and_the_others_keep_running() {
    let dir = tempfile::tempdir().unwrap();
    let (topic, port) = (unique("override"), port());
    let mut settings = scram("ferry-secret");
    settings.extend(pem_trust("ca.pem"));
    let worker = secured_worker(dir.path(), port, &listener("KAFKA_SASL_SSL"), &settings);
    // connector.client.config.override.policy=All, as Java needs for overrides.
    let mut text = std::fs::read_to_string(&worker).unwrap();
    text.push_str("connector.client.config.override.policy=All\n");
    write_file(&worker, &text);
    write_file(&dir.path().join("in.txt"), &numbered_lines(0, 100));
    let wrong = "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"ferry\" password=\"wrong-secret\";";
    let connectors = vec![
        connector_file(dir.path(), &format!("{topic}-bad-src"), &format!("connector.class=FileStreamSource\nfile={}\ntopic={topic}-bad\nproducer.override.sasl.jaas.config={wrong}\n", dir.path().join("in.txt").display())),
        connector_file(dir.path(), &format!("{topic}-bad-sink"), &format!("connector.class=FileStreamSink\nfile={}\ntopics={topic}\nconsumer.override.sasl.jaas.config={wrong}\n", dir.path().join("bad-out.txt").display())),
        connector_file(dir.path(), &format!("{topic}-src"), &format!("connector.class=FileStreamSource\nfile={}\ntopic={topic}\n", dir.path().join("in.txt").display())),
        connector_file(dir.path(), &format!("{topic}-sink"), &format!("connector.class=FileStreamSink\nfile={}\ntopics={topic}\n", dir.path().join("out.txt").display())),
    ];
    let ferry = Ferry::start(dir.path(), port, &worker, &connectors);
    for bad in [format!("{topic}-bad-src"), format!("{topic}-bad-sink")] {
        wait_until(
            &format!("{bad}'s task FAILED"),
            Duration::from_secs(60),
            || ferry.task_state(&bad, 0).as_deref() == Some("FAILED"),
        );
        let status = ferry.status(&bad);
        let trace = status["tasks"][0]["trace"].as_str().unwrap_or("");
        assert!(trace.contains("Authentication failed"), "{status}");
        assert!(!trace.contains("wrong-secret"), "{status}");
    }
    let out = dir.path().join("out.txt");
    wait_until("the good pipeline's lines", Duration::from_secs(60), || {
        lines(&out).len() >= 100
    });
    assert_eq!(
        ferry.task_state(&format!("{topic}-src"), 0).as_deref(),
        Some("RUNNING")
    );
    assert_eq!(
        ferry.task_state(&format!("{topic}-sink"), 0).as_deref(),
        Some("RUNNING")
    );
    assert!(!ferry.log_text().contains("wrong-secret"));
    ferry.stop();
}

#[test]
fn a_pipeline_runs_over_sasl_ssl_with_oauthbearer() {
    // Kafka's unsecured test tokens (the broker's default validator): the token flow is
    // librdkafka's OAUTHBEARER, as with an OIDC provider, without the provider.
    let mut settings = vec![
        ("security.protocol", "SASL_SSL".to_owned()),
        ("sasl.mechanism", "OAUTHBEARER".to_owned()),
        (
            "sasl.jaas.config",
            "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub=\"ferry\";".to_owned(),
        ),
    ];
    settings.extend(pem_trust("ca.pem"));
    pipeline_runs("oauth", &listener("KAFKA_SASL_SSL"), &settings);
}

#[test]
fn a_distributed_worker_with_a_sasl_mechanism_its_group_client_lacks_stops_saying_so() {
    let dir = tempfile::tempdir().unwrap();
    let mut settings = vec![
        ("security.protocol", "SASL_SSL".to_owned()),
        ("sasl.mechanism", "OAUTHBEARER".to_owned()),
        (
            "sasl.jaas.config",
            "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub=\"ferry\";".to_owned(),
        ),
    ];
    settings.extend(pem_trust("ca.pem"));
    let props = secured_cluster_worker(
        dir.path(),
        port(),
        &unique("doauth"),
        &listener("KAFKA_SASL_SSL"),
        &settings,
    );
    let started = Instant::now();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ferry"))
        .arg("distributed")
        .arg(&props)
        .current_dir(dir.path())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(started.elapsed() < Duration::from_secs(60), "{stderr}");
    assert!(
        stderr
            .contains("OAUTHBEARER is not supported for the distributed worker's group membership"),
        "{stderr}"
    );
}

#[test]
fn a_three_worker_cluster_runs_over_mutual_tls_with_jks_stores() {
    let tls = tls_dir();
    let settings = vec![
        ("security.protocol", "SSL".to_owned()),
        (
            "ssl.keystore.location",
            tls.join("client.jks").display().to_string(),
        ),
        ("ssl.keystore.password", "ferry-pass".to_owned()),
        ("ssl.key.password", "ferry-pass".to_owned()),
        (
            "ssl.truststore.location",
            tls.join("truststore.jks").display().to_string(),
        ),
        ("ssl.truststore.password", "ferry-pass".to_owned()),
    ];
    cluster_pipeline_runs("djks", &listener("KAFKA_SSL"), &settings);
}
