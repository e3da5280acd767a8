//! OAUTHBEARER with an OpenID Connect provider (librdkafka's `oidc` method): the client asks the
//! token endpoint for a token over HTTP, through the libcurl linked into librdkafka. Needs no
//! broker: the request is made before any broker is reached.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::mpsc;
use std::time::Duration;

use ferry_kafka::producer::AckingProducer;
use ferry_kafka::rdkafka::ClientConfig;

#[test]
fn a_client_asks_the_token_endpoint_for_a_client_credentials_token() {
    let endpoint = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/oauth2/token", endpoint.local_addr().unwrap());
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let (stream, _) = endpoint.accept().unwrap();
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut request_line = String::new();
        reader.read_line(&mut request_line).unwrap();
        let mut headers = Vec::new();
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            if line.trim().is_empty() {
                break;
            }
            headers.push(line.trim().to_owned());
        }
        let _ =
            (&stream).write_all(b"HTTP/1.1 500 Internal Server Error\r\ncontent-length: 0\r\n\r\n");
        tx.send((request_line.trim().to_owned(), headers)).unwrap();
    });

    let mut config = ClientConfig::new();
    // Nothing listens there; the token comes first.
    config
        .set("bootstrap.servers", "127.0.0.1:9")
        .set("security.protocol", "SASL_PLAINTEXT")
        .set("sasl.mechanism", "OAUTHBEARER")
        .set("sasl.oauthbearer.method", "oidc")
        .set("sasl.oauthbearer.client.id", "ferry-client")
        .set("sasl.oauthbearer.client.secret", "ferry-secret")
        .set("sasl.oauthbearer.token.endpoint.url", &url);
    let (_producer, _acks) = AckingProducer::new(&config).unwrap();

    let (request_line, headers) = rx
        .recv_timeout(Duration::from_secs(20))
        .expect("the client never asked the token endpoint for a token");
    assert_eq!(request_line, "POST /oauth2/token HTTP/1.1");
    // The client's credentials, as HTTP basic authentication.
    assert!(
        headers
            .iter()
            .any(|h| h.to_ascii_lowercase().starts_with("authorization: basic ")),
        "{headers:?}"
    );
}
