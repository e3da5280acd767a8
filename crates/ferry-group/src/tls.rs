//! TLS for the member's connections, with OpenSSL: the trust, key and host name rules Java's
//! clients apply (`ssl.*`), given as PEM or a PKCS12 key store.

use std::pin::Pin;

use openssl::pkcs12::Pkcs12;
use openssl::pkey::PKey;
use openssl::ssl::{SslConnector, SslMethod};
use openssl::x509::X509;
use tokio::net::TcpStream;
use tokio_openssl::SslStream;

use crate::error::GroupError;
use crate::security::TlsSettings;

fn setting_error(what: &str, e: impl std::fmt::Display) -> GroupError {
    GroupError::Config(format!("TLS settings: {what}: {e}"))
}

fn read(path: &std::path::Path) -> Result<Vec<u8>, GroupError> {
    std::fs::read(path).map_err(|e| setting_error(&path.display().to_string(), e))
}

/// PEM given inline, else read from its file.
fn inline_or_file(
    pem: &Option<String>,
    file: &Option<std::path::PathBuf>,
) -> Result<Option<Vec<u8>>, GroupError> {
    match (pem, file) {
        (Some(pem), _) => Ok(Some(pem.as_bytes().to_vec())),
        (None, Some(file)) => read(file).map(Some),
        (None, None) => Ok(None),
    }
}

/// An OpenSSL client context for `tls`.
pub(crate) fn connector(tls: &TlsSettings) -> Result<SslConnector, GroupError> {
    let mut builder =
        SslConnector::builder(SslMethod::tls_client()).map_err(|e| setting_error("OpenSSL", e))?;
    let ca = inline_or_file(&tls.ca_pem, &tls.ca_file)?;
    // Without trust settings the system's CAs apply, as Java's default trust store does.
    if let Some(pem) = ca {
        let certs = X509::stack_from_pem(&pem).map_err(|e| setting_error("CA certificates", e))?;
        let store = builder.cert_store_mut();
        for cert in certs {
            store
                .add_cert(cert)
                .map_err(|e| setting_error("CA certificates", e))?;
        }
    }
    if let Some(file) = &tls.pkcs12_file {
        let store = Pkcs12::from_der(&read(file)?)
            .and_then(|p| p.parse2(tls.pkcs12_password.as_deref().unwrap_or("")))
            .map_err(|_| {
                setting_error(
                    &file.display().to_string(),
                    "the key store password is wrong or the store is damaged",
                )
            })?;
        if let Some(key) = store.pkey {
            builder
                .set_private_key(&key)
                .map_err(|e| setting_error("private key", e))?;
        }
        if let Some(cert) = store.cert {
            builder
                .set_certificate(&cert)
                .map_err(|e| setting_error("certificate", e))?;
        }
        for extra in store.ca.into_iter().flatten() {
            builder
                .add_extra_chain_cert(extra)
                .map_err(|e| setting_error("certificate chain", e))?;
        }
    }
    let chain = inline_or_file(&tls.cert_chain_pem, &tls.cert_file)?;
    if let Some(pem) = chain {
        let mut certs = X509::stack_from_pem(&pem)
            .map_err(|e| setting_error("certificate chain", e))?
            .into_iter();
        if let Some(leaf) = certs.next() {
            builder
                .set_certificate(&leaf)
                .map_err(|e| setting_error("certificate", e))?;
        }
        for extra in certs {
            builder
                .add_extra_chain_cert(extra)
                .map_err(|e| setting_error("certificate chain", e))?;
        }
    }
    let key = inline_or_file(&tls.key_pem, &tls.key_file)?;
    if let Some(pem) = key {
        let key = match &tls.key_password {
            Some(password) => PKey::private_key_from_pem_passphrase(&pem, password.as_bytes()),
            None => PKey::private_key_from_pem(&pem),
        }
        .map_err(|_| setting_error("private key", "cannot be read (is the key password right?)"))?;
        builder
            .set_private_key(&key)
            .map_err(|e| setting_error("private key", e))?;
    }
    Ok(builder.build())
}

/// The host part of `host:port` (IPv6 literals without their brackets).
fn host_of(addr: &str) -> &str {
    let host = addr.rsplit_once(':').map_or(addr, |(h, _)| h);
    host.trim_start_matches('[').trim_end_matches(']')
}

/// Runs the TLS handshake on `tcp` to `addr`.
pub(crate) async fn handshake(
    connector: &SslConnector,
    verify_hostname: bool,
    addr: &str,
    tcp: TcpStream,
) -> Result<SslStream<TcpStream>, GroupError> {
    let tls_error = |message: String| GroupError::Tls {
        addr: addr.to_owned(),
        message,
    };
    let mut config = connector
        .configure()
        .map_err(|e| tls_error(e.to_string()))?;
    config.set_verify_hostname(verify_hostname);
    let ssl = config
        .into_ssl(host_of(addr))
        .map_err(|e| tls_error(e.to_string()))?;
    let mut stream = SslStream::new(ssl, tcp).map_err(|e| tls_error(e.to_string()))?;
    match Pin::new(&mut stream).connect().await {
        Ok(()) => Ok(stream),
        Err(e) => {
            let verify = stream.ssl().verify_result();
            let detail = if verify == openssl::x509::X509VerifyResult::OK {
                e.to_string()
            } else {
                format!("certificate verify failed: {}", verify.error_string())
            };
            Err(tls_error(format!("SSL handshake failed: {detail}")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::host_of;

    #[test]
    fn hosts() {
        assert_eq!(host_of("localhost:9094"), "localhost");
        assert_eq!(host_of("[::1]:9094"), "::1");
        assert_eq!(host_of("10.0.0.1:9094"), "10.0.0.1");
    }
}
