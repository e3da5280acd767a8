//! A minimal HTTP/1.0 client for the local REST APIs under test (no TLS, no redirects).

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

use anyhow::{bail, Context as _};

/// `(host:port, path)` of an `http://` URL.
fn split(url: &str) -> anyhow::Result<(String, String)> {
    let rest = url
        .strip_prefix("http://")
        .with_context(|| format!("{url}: only http:// URLs are supported"))?;
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let authority = if authority.contains(':') {
        authority.to_owned()
    } else {
        format!("{authority}:80")
    };
    Ok((authority, path.to_owned()))
}

/// `GET url`: the status and body, or an error when nothing answers.
pub fn get(url: &str, timeout: Duration) -> anyhow::Result<(u16, String)> {
    request("GET", url, None, timeout)
}

/// `POST url` with a JSON body: the status and body, or an error when nothing answers.
pub fn post_json(url: &str, body: &str, timeout: Duration) -> anyhow::Result<(u16, String)> {
    request("POST", url, Some(body), timeout)
}

fn request(
    method: &str,
    url: &str,
    body: Option<&str>,
    timeout: Duration,
) -> anyhow::Result<(u16, String)> {
    let (authority, path) = split(url)?;
    let addr = authority
        .to_socket_addrs()?
        .next()
        .with_context(|| format!("{authority}: no address"))?;
    let mut stream = TcpStream::connect_timeout(&addr, timeout)?;
    stream.set_read_timeout(Some(timeout))?;
    stream.set_write_timeout(Some(timeout))?;
    let mut head =
        format!("{method} {path} HTTP/1.0\r\nHost: {authority}\r\nAccept: application/json\r\n");
    if let Some(body) = body {
        head.push_str(&format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\n",
            body.len()
        ));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    if let Some(body) = body {
        stream.write_all(body.as_bytes())?;
    }
    let mut response = Vec::new();
    stream.read_to_end(&mut response)?;
    let response = String::from_utf8_lossy(&response);
    let Some((head, body)) = response.split_once("\r\n\r\n") else {
        bail!("{method} {url}: malformed response");
    };
    let code = head
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .with_context(|| format!("{method} {url}: no status code"))?;
    Ok((code, body.to_owned()))
}
