//! How the member reaches brokers that require TLS, SASL or both (`security.protocol`), with
//! OpenSSL for TLS and the `sasl` crate's SASL mechanisms (PLAIN, SCRAM-SHA-256/512) over
//! Kafka's SaslHandshake/SaslAuthenticate exchange.

use std::fmt;
use std::path::PathBuf;

/// Java's `security.protocol`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SecurityProtocol {
    #[default]
    Plaintext,
    Ssl,
    SaslPlaintext,
    SaslSsl,
}

impl SecurityProtocol {
    pub fn parse(value: &str) -> Option<Self> {
        match value.trim().to_ascii_uppercase().as_str() {
            "PLAINTEXT" => Some(Self::Plaintext),
            "SSL" => Some(Self::Ssl),
            "SASL_PLAINTEXT" => Some(Self::SaslPlaintext),
            "SASL_SSL" => Some(Self::SaslSsl),
            _ => None,
        }
    }

    pub fn tls(self) -> bool {
        matches!(self, Self::Ssl | Self::SaslSsl)
    }

    pub fn sasl(self) -> bool {
        matches!(self, Self::SaslPlaintext | Self::SaslSsl)
    }
}

/// The SASL mechanisms the member speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SaslMechanism {
    Plain,
    ScramSha256,
    ScramSha512,
}

impl SaslMechanism {
    pub fn parse(value: &str) -> Option<Self> {
        match value.trim().to_ascii_uppercase().as_str() {
            "PLAIN" => Some(Self::Plain),
            "SCRAM-SHA-256" => Some(Self::ScramSha256),
            "SCRAM-SHA-512" => Some(Self::ScramSha512),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Plain => "PLAIN",
            Self::ScramSha256 => "SCRAM-SHA-256",
            Self::ScramSha512 => "SCRAM-SHA-512",
        }
    }
}

/// A SASL user; the password never appears in `Debug` output.
#[derive(Clone, PartialEq, Eq)]
pub struct SaslCredentials {
    pub mechanism: SaslMechanism,
    pub username: String,
    pub password: String,
}

impl fmt::Debug for SaslCredentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SaslCredentials")
            .field("mechanism", &self.mechanism)
            .field("username", &self.username)
            .field("password", &"[hidden]")
            .finish()
    }
}

/// Trust and key material, each as inline PEM or a file (PEM, or a PKCS12 key store).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct TlsSettings {
    pub ca_pem: Option<String>,
    pub ca_file: Option<PathBuf>,
    pub cert_chain_pem: Option<String>,
    pub cert_file: Option<PathBuf>,
    pub key_pem: Option<String>,
    pub key_file: Option<PathBuf>,
    /// The password of an encrypted PEM key.
    pub key_password: Option<String>,
    pub pkcs12_file: Option<PathBuf>,
    pub pkcs12_password: Option<String>,
    /// Java's `ssl.endpoint.identification.algorithm=https` (the default): the broker's
    /// certificate must name the host connected to.
    pub verify_hostname: bool,
}

impl fmt::Debug for TlsSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TlsSettings")
            .field("ca_file", &self.ca_file)
            .field("ca_pem", &self.ca_pem.as_ref().map(|_| "[inline]"))
            .field("cert_file", &self.cert_file)
            .field("key_file", &self.key_file)
            .field("key", &self.key_pem.as_ref().map(|_| "[hidden]"))
            .field("pkcs12_file", &self.pkcs12_file)
            .field("verify_hostname", &self.verify_hostname)
            .finish_non_exhaustive()
    }
}

/// Everything the member needs to connect to a secured cluster.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Security {
    pub protocol: SecurityProtocol,
    pub tls: TlsSettings,
    pub sasl: Option<SaslCredentials>,
}
