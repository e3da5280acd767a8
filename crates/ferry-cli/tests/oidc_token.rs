//! The worker's clients still fetch OAUTHBEARER tokens from an OpenID Connect endpoint now that
//! the binary leaves libcurl's (and OpenSSL's) initialisation to libcurl's first request
//! (src/curl_init.rs). Needs no broker: the token is asked for before any broker is reached.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

#[test]
fn the_worker_asks_the_token_endpoint_for_a_token() {
    let endpoint = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/oauth2/token", endpoint.local_addr().unwrap());
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let (stream, _) = endpoint.accept().unwrap();
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut lines = Vec::new();
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            if line.trim().is_empty() {
                break;
            }
            lines.push(line.trim().to_owned());
        }
        let _ =
            (&stream).write_all(b"HTTP/1.1 500 Internal Server Error\r\ncontent-length: 0\r\n\r\n");
        tx.send(lines).unwrap();
    });

    let dir = tempfile::tempdir().unwrap();
    let worker = dir.path().join("worker.properties");
    std::fs::write(
        &worker,
        format!(
            "bootstrap.servers=127.0.0.1:9\n\
             security.protocol=SASL_PLAINTEXT\n\
             sasl.mechanism=OAUTHBEARER\n\
             sasl.oauthbearer.token.endpoint.url={url}\n\
             sasl.login.callback.handler.class=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler\n\
             sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required clientId=\"ferry-client\" clientSecret=\"ferry-secret\";\n\
             key.converter=org.apache.kafka.connect.storage.StringConverter\n\
             value.converter=org.apache.kafka.connect.storage.StringConverter\n\
             offset.storage.file.filename={}\n\
             listeners=http://127.0.0.1:0\n",
            dir.path().join("offsets").display()
        ),
    )
    .unwrap();
    let mut ferry = Command::new(env!("CARGO_BIN_EXE_ferry"))
        .arg("standalone")
        .arg(&worker)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let request = rx.recv_timeout(Duration::from_secs(30));
    let _ = ferry.kill();
    let _ = ferry.wait();
    let lines = request.expect("the worker never asked the token endpoint for a token");
    assert_eq!(lines[0], "POST /oauth2/token HTTP/1.1");
    assert!(
        lines
            .iter()
            .any(|h| h.to_ascii_lowercase().starts_with("authorization: basic ")),
        "{lines:?}"
    );
}
