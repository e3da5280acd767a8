//! KIP-507: internal requests between workers carry an HMAC of their body, keyed by the session
//! key the leader keeps in the config topic.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use ferry_runtime::herder::{HerderError, InternalRequest};

pub const SIGNATURE_HEADER: &str = "X-Connect-Authorization";
pub const ALGORITHM_HEADER: &str = "X-Connect-Request-Signature-Algorithm";
pub const HMAC_SHA256: &str = "HmacSHA256";

/// Java's default key size for HmacSHA256.
const DEFAULT_KEY_BYTES: usize = 32;

pub fn generate_key(size_bits: Option<usize>) -> Vec<u8> {
    let len = size_bits.map_or(DEFAULT_KEY_BYTES, |bits| bits.div_ceil(8).max(1));
    (0..len).map(|_| rand::random::<u8>()).collect()
}

fn mac(key: &[u8]) -> Hmac<Sha256> {
    // HMAC takes keys of any length, so this cannot fail.
    <Hmac<Sha256> as Mac>::new_from_slice(key)
        .unwrap_or_else(|_| unreachable!("HMAC accepts any key length"))
}

/// The `X-Connect-Authorization` value for `body`.
pub fn sign(key: &[u8], body: &[u8]) -> String {
    let mut m = mac(key);
    m.update(body);
    STANDARD.encode(m.finalize().into_bytes())
}

/// Checks a request as Java's receiver does, in the same order and with the same answers.
pub fn verify(
    key: Option<&[u8]>,
    accepted_algorithms: &[String],
    request: &InternalRequest,
) -> Result<(), HerderError> {
    let Some(signature) = request.signature.as_deref() else {
        return Err(HerderError::BadRequest(
            "Internal request missing required signature".to_owned(),
        ));
    };
    let algorithm = request.algorithm.as_deref().unwrap_or_default();
    if !accepted_algorithms.iter().any(|a| a == algorithm) {
        return Err(HerderError::BadRequest(format!(
            "This worker does not support the '{algorithm}' key signing algorithm used by other workers. This worker is currently configured to use: [{}]. Check that all workers' configuration files permit the same set of signature algorithms, and correct any misconfigured worker and restart it.",
            accepted_algorithms.join(", ")
        )));
    }
    let Some(key) = key else {
        return Err(HerderError::Unavailable(
            "This worker is still starting up and has not been able to read a session key from the config topic yet".to_owned(),
        ));
    };
    let claimed = STANDARD.decode(signature).unwrap_or_default();
    let mut m = mac(key);
    m.update(&request.body);
    m.verify_slice(&claimed).map_err(|_| {
        HerderError::Forbidden("Internal request contained invalid signature.".to_owned())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(signature: Option<String>, algorithm: &str, body: &[u8]) -> InternalRequest {
        InternalRequest {
            signature,
            algorithm: Some(algorithm.to_owned()),
            body: body.to_vec(),
        }
    }

    #[test]
    fn matches_a_known_hmac_sha256_vector() {
        // RFC 4231 test case 2.
        let sig = sign(b"Jefe", b"what do ya want for nothing?");
        assert_eq!(
            STANDARD.decode(sig).unwrap(),
            hex("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        );
    }

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    #[test]
    fn checks_in_javas_order() {
        let key = generate_key(None);
        assert_eq!(key.len(), 32);
        let algs = vec![HMAC_SHA256.to_owned()];
        let body = br#"[{"k":"v"}]"#;
        let good = request(Some(sign(&key, body)), HMAC_SHA256, body);
        assert!(verify(Some(&key), &algs, &good).is_ok());
        assert!(matches!(
            verify(Some(&key), &algs, &request(None, HMAC_SHA256, body)),
            Err(HerderError::BadRequest(_))
        ));
        assert!(matches!(
            verify(
                Some(&key),
                &algs,
                &request(Some(sign(&key, body)), "HmacMD5", body)
            ),
            Err(HerderError::BadRequest(_))
        ));
        assert!(matches!(
            verify(None, &algs, &good),
            Err(HerderError::Unavailable(_))
        ));
        let tampered = request(Some(sign(&key, body)), HMAC_SHA256, b"[]");
        assert!(matches!(
            verify(Some(&key), &algs, &tampered),
            Err(HerderError::Forbidden(_))
        ));
    }
}
