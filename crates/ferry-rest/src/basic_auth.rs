//! HTTP basic authentication as Java's `BasicAuthSecurityRestExtension` does it, configured the
//! same way: `rest.extension.classes` names the extension, and the JAAS file that Java reads
//! through `-Djava.security.auth.login.config=…` (in `KAFKA_OPTS`) holds a `KafkaConnect`
//! section whose `PropertyFileLoginModule` names a file of `user=password` lines.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use base64::Engine;

pub const REST_EXTENSION_CLASSES: &str = "rest.extension.classes";
pub const BASIC_AUTH_EXTENSION: &str =
    "org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension";
const PROPERTY_FILE_LOGIN_MODULE: &str =
    "org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule";
/// The JAAS login context the extension uses.
const LOGIN_CONTEXT: &str = "KafkaConnect";

/// The users the REST API accepts.
pub struct BasicAuth {
    credentials: HashMap<String, String>,
}

impl std::fmt::Debug for BasicAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BasicAuth")
            .field("users", &self.credentials.len())
            .finish()
    }
}

/// The JAAS file named by `-Djava.security.auth.login.config=…` in `kafka_opts`.
fn jaas_file(kafka_opts: &str) -> Option<String> {
    kafka_opts.split_whitespace().find_map(|opt| {
        opt.strip_prefix("-Djava.security.auth.login.config=")
            .map(|p| {
                p.trim_matches(|c| c == '"' || c == '\'')
                    .trim_start_matches('=')
                    .to_owned()
            })
    })
}

/// The `file` option of the `KafkaConnect` section's PropertyFileLoginModule.
fn credentials_file(jaas: &str) -> Result<String, String> {
    let start = jaas
        .find(LOGIN_CONTEXT)
        .ok_or_else(|| format!("it has no {LOGIN_CONTEXT} section"))?;
    let body = &jaas[start + LOGIN_CONTEXT.len()..];
    let body = body
        .trim_start()
        .strip_prefix('{')
        .ok_or_else(|| format!("its {LOGIN_CONTEXT} section does not open with {{"))?;
    let body = &body[..body
        .find('}')
        .ok_or_else(|| format!("its {LOGIN_CONTEXT} section does not close"))?];
    if !body.contains(PROPERTY_FILE_LOGIN_MODULE) {
        return Err(format!(
            "its {LOGIN_CONTEXT} section does not use {PROPERTY_FILE_LOGIN_MODULE}, the only login module Ferry runs"
        ));
    }
    let at = body
        .find("file=")
        .or_else(|| body.find("file ="))
        .ok_or_else(|| "its login module has no file option".to_owned())?;
    let rest = body[at..]
        .split_once('=')
        .map_or("", |(_, v)| v)
        .trim_start();
    let value = rest
        .strip_prefix('"')
        .and_then(|r| r.split_once('"'))
        .map(|(v, _)| v.to_owned())
        .unwrap_or_else(|| rest.split([';', ' ', '\n']).next().unwrap_or("").to_owned());
    if value.is_empty() {
        return Err("its login module's file option is empty".to_owned());
    }
    Ok(value)
}

impl BasicAuth {
    /// The basic authentication the worker's `rest.extension.classes` asks for, if any. Any
    /// other extension class, or a JAAS set-up that cannot be read, is an error: a REST API
    /// that was meant to be locked must not run open.
    pub fn from_worker(
        originals: &ferry_api::ConfigMap,
        kafka_opts: &str,
    ) -> Result<Option<Arc<Self>>, String> {
        let classes: Vec<&str> = originals
            .get(REST_EXTENSION_CLASSES)
            .map(|v| {
                v.split(',')
                    .map(str::trim)
                    .filter(|c| !c.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        if let Some(other) = classes.iter().find(|c| **c != BASIC_AUTH_EXTENSION) {
            return Err(format!(
                "{other} is not an extension Ferry runs; it runs only {BASIC_AUTH_EXTENSION}"
            ));
        }
        if classes.is_empty() {
            return Ok(None);
        }
        let jaas_path = jaas_file(kafka_opts).ok_or_else(|| {
            format!("{BASIC_AUTH_EXTENSION} needs a JAAS file: set -Djava.security.auth.login.config=<file> in KAFKA_OPTS, as for Java Connect")
        })?;
        let jaas = std::fs::read_to_string(&jaas_path)
            .map_err(|e| format!("could not read the JAAS file {jaas_path}: {e}"))?;
        let file =
            credentials_file(&jaas).map_err(|why| format!("the JAAS file {jaas_path}: {why}"))?;
        let text = std::fs::read_to_string(&file)
            .map_err(|e| format!("could not read the credentials file {file}: {e}"))?;
        let credentials = ferry_runtime::config::properties::parse_properties(&text)
            .map_err(|e| format!("the credentials file {file}: {e}"))?
            .into_iter()
            .collect();
        Ok(Some(Arc::new(BasicAuth { credentials })))
    }

    /// Whether an `Authorization` header names a known user with the right password.
    fn accepts(&self, authorization: Option<&str>) -> bool {
        let Some((scheme, encoded)) = authorization.and_then(|a| a.split_once(' ')) else {
            return false;
        };
        if !scheme.eq_ignore_ascii_case("basic") {
            return false;
        }
        let Ok(decoded) = base64::engine::general_purpose::STANDARD.decode(encoded.trim()) else {
            return false;
        };
        let decoded = String::from_utf8_lossy(&decoded);
        let Some((user, password)) = decoded.split_once(':').filter(|(u, _)| !u.is_empty()) else {
            return false;
        };
        self.credentials
            .get(user)
            .is_some_and(|expected| constant_time_eq(expected.as_bytes(), password.as_bytes()))
    }
}

/// Compares without stopping at the first difference, so timing tells nothing of the password.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Requests between workers that Java's filter lets through: they are signed (KIP-507).
fn internal(method: &Method, path: &str) -> bool {
    let parts: Vec<&str> = path.trim_matches('/').split('/').collect();
    match parts.as_slice() {
        ["connectors", _, "tasks"] => method == Method::POST,
        ["connectors", _, "fence"] => method == Method::PUT,
        _ => false,
    }
}

pub(crate) async fn layer(
    State(auth): State<Arc<BasicAuth>>,
    request: Request,
    next: Next,
) -> Response {
    if internal(request.method(), request.uri().path())
        || auth.accepts(
            request
                .headers()
                .get(header::AUTHORIZATION)
                .and_then(|v| v.to_str().ok()),
        )
    {
        return next.run(request).await;
    }
    let mut response =
        (StatusCode::UNAUTHORIZED, "User cannot access the resource.").into_response();
    response.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static("Basic realm=\"Kafka Connect\""),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jaas_and_headers() {
        assert_eq!(
            jaas_file("-Xmx1g -Djava.security.auth.login.config=/etc/connect_jaas.conf -Dx=y"),
            Some("/etc/connect_jaas.conf".to_owned())
        );
        let jaas = "KafkaConnect {\n  org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule required\n  file=\"/etc/connect.password\";\n};\n";
        assert_eq!(credentials_file(jaas).unwrap(), "/etc/connect.password");
        assert!(credentials_file("Other { x required; };").is_err());
        let auth = BasicAuth {
            credentials: HashMap::from([("alice".to_owned(), "s3cret".to_owned())]),
        };
        let header = |u: &str| {
            format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(u)
            )
        };
        assert!(auth.accepts(Some(&header("alice:s3cret"))));
        assert!(!auth.accepts(Some(&header("alice:wrong"))));
        assert!(!auth.accepts(Some(&header("bob:s3cret"))));
        assert!(!auth.accepts(Some("Bearer abc")));
        assert!(!auth.accepts(None));
        assert!(internal(&Method::POST, "/connectors/c/tasks"));
        assert!(internal(&Method::PUT, "/connectors/c/fence"));
        assert!(!internal(&Method::GET, "/connectors/c/tasks"));
        assert!(!internal(&Method::POST, "/connectors"));
    }

    #[test]
    fn other_extensions_stop_start_up() {
        let props: ferry_api::ConfigMap = [(
            REST_EXTENSION_CLASSES.to_owned(),
            "com.example.MyExtension".to_owned(),
        )]
        .into_iter()
        .collect();
        let err = BasicAuth::from_worker(&props, "").unwrap_err();
        assert!(err.contains("com.example.MyExtension"), "{err}");
        let props: ferry_api::ConfigMap = [(
            REST_EXTENSION_CLASSES.to_owned(),
            BASIC_AUTH_EXTENSION.to_owned(),
        )]
        .into_iter()
        .collect();
        let err = BasicAuth::from_worker(&props, "").unwrap_err();
        assert!(err.contains("java.security.auth.login.config"), "{err}");
    }
}
