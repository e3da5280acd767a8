//! A plain HTTP/1.0 client: one connection per request, the body read to the end. Both workers
//! answer HTTP/1.0 without chunking, and raw bodies go out exactly as written.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use anyhow::{bail, Context};
use serde_json::Value;

/// What a worker answered.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub status: u16,
    /// The `Location` header, when there is one.
    pub location: Option<String>,
    /// The body as JSON; a body that is not JSON is kept as a string, an empty one is null.
    pub body: Value,
}

impl Answer {
    pub fn new(status: u16, body: Value) -> Answer {
        Answer {
            status,
            location: None,
            body,
        }
    }
}

/// Sends one request to `127.0.0.1:port`. `body` is `(bytes, content type)`.
pub fn request(
    port: u16,
    method: &str,
    path: &str,
    body: Option<(&str, Option<&str>)>,
    timeout: Duration,
) -> anyhow::Result<Answer> {
    let response = exchange(port, method, path, body, "application/json", timeout)?;
    parse_response(&response)
}

/// A `GET` whose answer is text rather than JSON (Prometheus metrics): the status and the body
/// as sent.
pub fn get_text(
    port: u16,
    path: &str,
    accept: &str,
    timeout: Duration,
) -> anyhow::Result<(u16, String)> {
    let response = exchange(port, "GET", path, None, accept, timeout)?;
    let (status, _, body) = split_response(&response)?;
    Ok((status, body))
}

fn exchange(
    port: u16,
    method: &str,
    path: &str,
    body: Option<(&str, Option<&str>)>,
    accept: &str,
    timeout: Duration,
) -> anyhow::Result<Vec<u8>> {
    let mut stream = TcpStream::connect(("127.0.0.1", port))
        .with_context(|| format!("connecting to 127.0.0.1:{port}"))?;
    stream.set_read_timeout(Some(timeout))?;
    stream.set_write_timeout(Some(timeout))?;
    let mut head =
        format!("{method} {path} HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\nAccept: {accept}\r\n");
    let bytes = match body {
        Some((text, content_type)) => {
            if let Some(ct) = content_type {
                head.push_str(&format!("Content-Type: {ct}\r\n"));
            }
            head.push_str(&format!("Content-Length: {}\r\n", text.len()));
            text
        }
        None => "",
    };
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    stream.write_all(bytes.as_bytes())?;
    let mut response = Vec::new();
    stream
        .read_to_end(&mut response)
        .with_context(|| format!("reading the answer to {method} {path}"))?;
    Ok(response)
}

/// Status, `Location` and body text of a raw answer.
fn split_response(response: &[u8]) -> anyhow::Result<(u16, Option<String>, String)> {
    let text = String::from_utf8_lossy(response);
    let Some((head, body)) = text.split_once("\r\n\r\n") else {
        bail!(
            "not an HTTP answer: {}",
            text.chars().take(200).collect::<String>()
        );
    };
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .with_context(|| format!("no status line in {head}"))?;
    let location = lines
        .filter_map(|l| l.split_once(':'))
        .find(|(k, _)| k.trim().eq_ignore_ascii_case("location"))
        .map(|(_, v)| v.trim().to_owned());
    Ok((status, location, body.to_owned()))
}

fn parse_response(response: &[u8]) -> anyhow::Result<Answer> {
    let (status, location, body) = split_response(response)?;
    let body = if body.trim().is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&body).unwrap_or(Value::String(body))
    };
    Ok(Answer {
        status,
        location,
        body,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_status_location_and_json() {
        let a = parse_response(
            b"HTTP/1.1 201 Created\r\nlocation: http://h/connectors/a\r\n\r\n{\"name\":\"a\"}",
        )
        .unwrap();
        assert_eq!(a.status, 201);
        assert_eq!(a.location.as_deref(), Some("http://h/connectors/a"));
        assert_eq!(a.body, serde_json::json!({"name": "a"}));
        let empty = parse_response(b"HTTP/1.1 204 No Content\r\n\r\n").unwrap();
        assert_eq!(empty.body, Value::Null);
        let html = parse_response(b"HTTP/1.1 404 Not Found\r\n\r\n<html>").unwrap();
        assert_eq!(html.body, Value::String("<html>".into()));
    }
}
