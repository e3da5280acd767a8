//! SASL authentication of a connection (KIP-43, KIP-152): SaslHandshake names the mechanism,
//! then SaslAuthenticate carries the mechanism's messages, which the `sasl` crate produces.

use bytes::Bytes;
use hmac::{Hmac, Mac};
use kafka_protocol::messages::{ApiKey, SaslAuthenticateRequest, SaslHandshakeRequest};
use kafka_protocol::protocol::StrBytes;
use sasl::client::mechanisms::{Plain, Scram};
use sasl::client::Mechanism;
use sasl::common::scram::{DeriveError, ScramProvider, Sha256};
use sasl::common::{ChannelBinding, Password};
use sha2::Digest;

use crate::conn::Connection;
use crate::error::{codes, GroupError};
use crate::security::{SaslCredentials, SaslMechanism};

/// SCRAM-SHA-512, which the `sasl` crate leaves to its users: its SCRAM state machine with
/// RustCrypto's SHA-512, HMAC and PBKDF2.
pub(crate) struct Sha512;

/// The `sasl` crate's marker for stored server-side secrets; a client keeps none.
pub(crate) struct NoStoredSecret;

impl sasl::secret::Secret for NoStoredSecret {}

impl ScramProvider for Sha512 {
    type Secret = NoStoredSecret;

    fn name() -> &'static str {
        "SHA-512"
    }

    fn hash(data: &[u8]) -> Vec<u8> {
        sha2::Sha512::digest(data).to_vec()
    }

    fn hmac(data: &[u8], key: &[u8]) -> Result<Vec<u8>, hmac::digest::InvalidLength> {
        let mut mac = Hmac::<sha2::Sha512>::new_from_slice(key)?;
        mac.update(data);
        Ok(mac.finalize().into_bytes().to_vec())
    }

    fn derive(password: &Password, salt: &[u8], iterations: u32) -> Result<Vec<u8>, DeriveError> {
        match password {
            Password::Plain(plain) => {
                let mut out = vec![0; 64];
                pbkdf2::pbkdf2::<Hmac<sha2::Sha512>>(plain.as_bytes(), salt, iterations, &mut out)?;
                Ok(out)
            }
            Password::Pbkdf2 { method, .. } => Err(DeriveError::IncompatibleHashingMethod(
                method.clone(),
                Self::name().to_owned(),
            )),
        }
    }
}

fn mechanism(creds: &SaslCredentials) -> Result<Box<dyn Mechanism + Send>, String> {
    let (user, password) = (creds.username.clone(), creds.password.clone());
    Ok(match creds.mechanism {
        SaslMechanism::Plain => Box::new(Plain::new(user, password)),
        SaslMechanism::ScramSha256 => Box::new(
            Scram::<Sha256>::new(user, password, ChannelBinding::None)
                .map_err(|e| format!("{e:?}"))?,
        ),
        SaslMechanism::ScramSha512 => Box::new(
            Scram::<Sha512>::new(user, password, ChannelBinding::None)
                .map_err(|e| format!("{e:?}"))?,
        ),
    })
}

/// Authenticates `conn` as `creds`; the error carries the broker's reason.
pub(crate) async fn authenticate(
    conn: &mut Connection,
    creds: &SaslCredentials,
    timeout: std::time::Duration,
) -> Result<(), GroupError> {
    let addr = conn.addr().to_owned();
    let failed = |message: String| GroupError::Authentication(format!("{addr}: {message}"));
    let version = conn.version(ApiKey::SaslHandshake)?;
    let handshake = SaslHandshakeRequest::default()
        .with_mechanism(StrBytes::from_static_str(creds.mechanism.name()));
    let answer = conn.send(&handshake, version, timeout).await?;
    if answer.error_code != codes::NONE {
        let enabled: Vec<&str> = answer.mechanisms.iter().map(|m| m.as_str()).collect();
        return Err(failed(format!(
            "SASL mechanism {} is not enabled on this listener (it enables {})",
            creds.mechanism.name(),
            enabled.join(", ")
        )));
    }
    let mut mech = mechanism(creds).map_err(failed)?;
    let version = conn.version(ApiKey::SaslAuthenticate)?;
    let mut message = mech.initial();
    // PLAIN is one exchange; SCRAM two: client-first/server-first, client-final/server-final.
    let rounds = if creds.mechanism == SaslMechanism::Plain {
        1
    } else {
        2
    };
    for round in 1..=rounds {
        let request = SaslAuthenticateRequest::default()
            .with_auth_bytes(Bytes::from(std::mem::take(&mut message)));
        let answer = conn.send(&request, version, timeout).await?;
        if answer.error_code != codes::NONE {
            let reason = answer
                .error_message
                .as_ref()
                .map_or("authentication failed", |m| m.as_str());
            return Err(failed(format!("SASL authentication failed: {reason}")));
        }
        if round < rounds {
            message = mech
                .response(&answer.auth_bytes)
                .map_err(|e| failed(format!("the broker's SASL challenge was refused: {e}")))?;
        } else if rounds > 1 {
            mech.success(&answer.auth_bytes)
                .map_err(|e| failed(format!("the broker's SASL proof did not verify: {e}")))?;
        }
    }
    Ok(())
}
