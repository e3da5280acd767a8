//! The worker leaves Cyrus SASL's initialisation, which loads every plugin of its plugin
//! directory, to a GSSAPI client's first connection (src/sasl_init.rs). Needs no broker: the
//! first test's worker has none to reach, the second's talks to a stand-in that answers the two
//! requests before authentication. A binary built with `FERRY_DEFAULT_LINK=1` (no wraps) fails
//! the first, as it fails tests/link.rs.

#![cfg(all(target_arch = "x86_64", target_os = "linux"))]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Where Cyrus looks for its plugins on this host; the first test can only fail where there
/// are some (Debian's libsasl2-modules, which scripts/deps installs).
fn plugin_dir() -> PathBuf {
    [
        "/usr/lib/x86_64-linux-gnu/sasl2",
        "/usr/lib64/sasl2",
        "/usr/lib/sasl2",
    ]
    .iter()
    .map(PathBuf::from)
    .find(|dir| {
        std::fs::read_dir(dir).is_ok_and(|entries| {
            entries
                .flatten()
                .any(|e| e.file_name().to_string_lossy().contains(".so"))
        })
    })
    .expect("no Cyrus SASL plugins on this host: install libsasl2-modules (scripts/deps does)")
}

fn worker_file(dir: &Path, bootstrap: &str, security: &str) -> PathBuf {
    let worker = dir.join("worker.properties");
    std::fs::write(
        &worker,
        format!(
            "bootstrap.servers={bootstrap}\n\
             {security}\
             key.converter=org.apache.kafka.connect.storage.StringConverter\n\
             value.converter=org.apache.kafka.connect.storage.StringConverter\n\
             offset.storage.file.filename={}\n\
             listeners=http://127.0.0.1:0\n",
            dir.join("offsets").display()
        ),
    )
    .unwrap();
    worker
}

fn spawn(worker: &Path, stderr: Stdio) -> Child {
    Command::new(env!("CARGO_BIN_EXE_ferry"))
        .arg("standalone")
        .arg(worker)
        .env("NO_COLOR", "1")
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .unwrap()
}

/// Whether librdkafka's main thread runs in the process: its first `rd_kafka_new`, which made
/// Cyrus's global initialisation before this change, has returned.
fn has_a_kafka_client(pid: u32) -> bool {
    std::fs::read_dir(format!("/proc/{pid}/task")).is_ok_and(|tasks| {
        tasks.flatten().any(|task| {
            std::fs::read_to_string(task.path().join("comm"))
                .is_ok_and(|name| name.trim() == "rdk:main")
        })
    })
}

#[test]
fn a_worker_that_does_not_use_gssapi_loads_no_cyrus_sasl_plugin() {
    let plugins = plugin_dir();
    let dir = tempfile::tempdir().unwrap();
    // No broker answers: the worker's first client keeps trying while the maps are read.
    let worker = worker_file(dir.path(), "127.0.0.1:9", "");
    let mut ferry = spawn(&worker, Stdio::null());
    let pid = ferry.id();
    let deadline = Instant::now() + Duration::from_secs(30);
    while !has_a_kafka_client(pid) {
        assert!(
            Instant::now() < deadline,
            "the worker made no Kafka client within 30 s"
        );
        assert!(ferry.try_wait().unwrap().is_none(), "the worker exited");
        std::thread::sleep(Duration::from_millis(20));
    }
    let maps = std::fs::read_to_string(format!("/proc/{pid}/maps")).unwrap();
    let _ = ferry.kill();
    let _ = ferry.wait();
    assert!(
        maps.contains("libsasl2"),
        "librdkafka is built with Cyrus SASL:\n{maps}"
    );
    let loaded: Vec<&str> = maps
        .lines()
        .filter(|l| l.contains(plugins.to_str().unwrap()) || l.contains("libdb-"))
        .collect();
    assert!(
        loaded.is_empty(),
        "Cyrus SASL's plugins were loaded by a worker without GSSAPI:\n{}",
        loaded.join("\n")
    );
}

/// A request frame's API key, version and correlation id.
fn read_request(stream: &mut TcpStream) -> Option<(i16, i16, i32)> {
    let mut size = [0u8; 4];
    stream.read_exact(&mut size).ok()?;
    let mut body = vec![0u8; i32::from_be_bytes(size) as usize];
    stream.read_exact(&mut body).ok()?;
    Some((
        i16::from_be_bytes([body[0], body[1]]),
        i16::from_be_bytes([body[2], body[3]]),
        i32::from_be_bytes([body[4], body[5], body[6], body[7]]),
    ))
}

fn respond(stream: &mut TcpStream, correlation_id: i32, body: &[u8]) {
    let mut frame = ((body.len() + 4) as i32).to_be_bytes().to_vec();
    frame.extend_from_slice(&correlation_id.to_be_bytes());
    frame.extend_from_slice(body);
    stream.write_all(&frame).unwrap();
}

/// ApiVersions: ApiVersions 0-3, SaslHandshake 0-1 and SaslAuthenticate 0-2, in the response
/// layout of the request's version (v3 on is flexible: compact array, tagged fields).
fn api_versions(version: i16) -> Vec<u8> {
    let keys: [(i16, i16, i16); 3] = [(18, 0, 3), (17, 0, 1), (36, 0, 2)];
    let mut body = 0i16.to_be_bytes().to_vec();
    if version >= 3 {
        body.push(keys.len() as u8 + 1);
    } else {
        body.extend_from_slice(&(keys.len() as i32).to_be_bytes());
    }
    for (key, min, max) in keys {
        for v in [key, min, max] {
            body.extend_from_slice(&v.to_be_bytes());
        }
        if version >= 3 {
            body.push(0);
        }
    }
    if version >= 1 {
        body.extend_from_slice(&0i32.to_be_bytes());
    }
    if version >= 3 {
        body.push(0);
    }
    body
}

/// SaslHandshake v0/v1: no error, the broker enables GSSAPI.
fn sasl_handshake() -> Vec<u8> {
    let mut body = 0i16.to_be_bytes().to_vec();
    body.extend_from_slice(&1i32.to_be_bytes());
    body.extend_from_slice(&6i16.to_be_bytes());
    body.extend_from_slice(b"GSSAPI");
    body
}

/// Answers every connection's ApiVersions and SaslHandshake, then waits for the client to go.
fn stand_in_broker(listener: TcpListener) {
    for stream in listener.incoming() {
        let Ok(mut stream) = stream else { return };
        std::thread::spawn(move || {
            while let Some((key, version, correlation_id)) = read_request(&mut stream) {
                match key {
                    18 => respond(&mut stream, correlation_id, &api_versions(version)),
                    17 => respond(&mut stream, correlation_id, &sasl_handshake()),
                    _ => return,
                }
            }
        });
    }
}

#[test]
fn a_gssapi_client_initialises_cyrus_sasl_at_its_first_connection() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let bootstrap = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || stand_in_broker(listener));
    let dir = tempfile::tempdir().unwrap();
    let worker = worker_file(
        dir.path(),
        &bootstrap,
        "security.protocol=SASL_PLAINTEXT\n\
         sasl.mechanism=GSSAPI\n\
         sasl.kerberos.service.name=kafka\n\
         sasl.kerberos.min.time.before.relogin=0\n",
    );
    let ferry = spawn(&worker, Stdio::piped());
    let pid = ferry.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(ferry.wait_with_output().unwrap()));
    let Ok(out) = rx.recv_timeout(Duration::from_secs(60)) else {
        let _ = Command::new("kill").arg("-9").arg(pid.to_string()).status();
        panic!("the worker did not stop within 60 s on a failed GSSAPI authentication");
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    // Cyrus made the connection (sasl_client_new after the real initialisation; without it,
    // "SASL library is not initialized") and its GSSAPI mechanism started: without a Kerberos
    // ticket, or without the GSSAPI plugin, the start fails.
    assert!(
        stderr.contains("SASL handshake failed (start"),
        "the worker should have failed in Cyrus's sasl_client_start:\n{stderr}"
    );
}
