//! The worker's security settings for its own group membership, which Java's worker takes from
//! its top-level `security.protocol`, `ssl.*` and `sasl.*` keys like its other internal
//! clients. They go through the same translation as the librdkafka clients (key stores read
//! into PEM, JAAS parsed), so both kinds of connection trust and authenticate alike.

use std::path::PathBuf;

use ferry_group::{SaslCredentials, SaslMechanism, Security, SecurityProtocol, TlsSettings};
use ferry_kafka::client_properties::{translate, ClientRole};
use ferry_runtime::config::worker::WorkerConfig;

use crate::stores::StoreError;

pub fn group_security(worker: &WorkerConfig) -> Result<Security, StoreError> {
    let translated = translate(ClientRole::Admin, &worker.connection_settings());
    if !translated.errors.is_empty() {
        return Err(StoreError::Config(translated.errors.join("; ")));
    }
    let get = |name: &str| {
        translated
            .properties
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    let protocol = match get("security.protocol") {
        None => SecurityProtocol::Plaintext,
        Some(p) => SecurityProtocol::parse(&p).ok_or_else(|| {
            StoreError::Config(format!(
                "Invalid value {p} for configuration security.protocol"
            ))
        })?,
    };
    let sasl = if protocol.sasl() {
        let name = get("sasl.mechanisms").unwrap_or_else(|| "GSSAPI".to_owned());
        let mechanism = SaslMechanism::parse(&name).ok_or_else(|| {
            StoreError::Config(format!(
                "sasl.mechanism {name} is not supported for the distributed worker's group membership yet (PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 are)"
            ))
        })?;
        Some(SaslCredentials {
            mechanism,
            username: get("sasl.username").unwrap_or_default(),
            password: get("sasl.password").unwrap_or_default(),
        })
    } else {
        None
    };
    let tls = TlsSettings {
        ca_pem: get("ssl.ca.pem"),
        ca_file: get("ssl.ca.location").map(PathBuf::from),
        cert_chain_pem: get("ssl.certificate.pem"),
        cert_file: get("ssl.certificate.location").map(PathBuf::from),
        key_pem: get("ssl.key.pem"),
        key_file: get("ssl.key.location").map(PathBuf::from),
        key_password: get("ssl.key.password"),
        pkcs12_file: get("ssl.keystore.location").map(PathBuf::from),
        pkcs12_password: get("ssl.keystore.password"),
        // Java's default, `https`, checks the host name; an empty value does not.
        verify_hostname: get("ssl.endpoint.identification.algorithm")
            .is_none_or(|v| !v.eq_ignore_ascii_case("none")),
    };
    Ok(Security {
        protocol,
        tls,
        sasl,
    })
}
