//! Java's SSL keys (`ssl.keystore.*`, `ssl.truststore.*`, `ssl.client.auth`, …) under
//! a prefix, and the OpenSSL server context they describe (Java's REST server's
//! `SslContextFactory`).

use std::collections::BTreeMap;

use openssl::pkcs12::Pkcs12;
use openssl::pkey::{PKey, Private};
use openssl::ssl::{SslAcceptor, SslMethod, SslVerifyMode};
use openssl::x509::store::X509StoreBuilder;
use openssl::x509::X509;

use crate::stores;

/// `ssl.client.auth` of Java's REST server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ClientAuth {
    #[default]
    None,
    Requested,
    Required,
}

/// The SSL settings of one scope (a listener prefix, or the worker's top level).
#[derive(Clone, Default)]
pub struct JavaSsl {
    values: BTreeMap<String, String>,
}

impl std::fmt::Debug for JavaSsl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Keys only: values include passwords and keys.
        f.debug_struct("JavaSsl")
            .field("keys", &self.values.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// A private key, its leaf certificate and the rest of the chain.
type Identity = (PKey<Private>, X509, Vec<X509>);

/// Java's default store type.
const DEFAULT_STORE_TYPE: &str = "JKS";

impl JavaSsl {
    /// The `ssl.*` settings found under `prefix` (e.g. `listeners.https.`), or `None` when
    /// there are none (Java then falls back to the next scope).
    pub fn with_prefix<'a>(
        props: impl IntoIterator<Item = (&'a String, &'a String)>,
        prefix: &str,
    ) -> Option<Self> {
        let full = format!("{prefix}ssl.");
        let values: BTreeMap<String, String> = props
            .into_iter()
            .filter_map(|(k, v)| {
                k.strip_prefix(&full)
                    .map(|rest| (format!("ssl.{rest}"), v.trim().to_owned()))
            })
            .collect();
        (!values.is_empty()).then_some(JavaSsl { values })
    }

    fn get(&self, key: &str) -> Option<&str> {
        self.values
            .get(key)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    /// Keys of this scope that only Java's JSSE reads (protocol versions, cipher suites,
    /// providers); OpenSSL's own choices apply instead, so callers warn about them.
    pub fn jsse_only_keys(&self) -> Vec<&str> {
        const JSSE_ONLY: &[&str] = &[
            "ssl.protocol",
            "ssl.enabled.protocols",
            "ssl.cipher.suites",
            "ssl.provider",
            "ssl.keymanager.algorithm",
            "ssl.trustmanager.algorithm",
            "ssl.secure.random.implementation",
            "ssl.engine.factory.class",
        ];
        self.values
            .keys()
            .map(String::as_str)
            .filter(|k| JSSE_ONLY.contains(k))
            .collect()
    }

    /// Java's `ssl.endpoint.identification.algorithm`: `https` (the default) checks host names.
    pub fn verifies_host_names(&self) -> bool {
        self.values
            .get("ssl.endpoint.identification.algorithm")
            .is_none_or(|v| !v.trim().is_empty())
    }

    pub fn client_auth(&self) -> Result<ClientAuth, String> {
        match self.get("ssl.client.auth").map(str::to_ascii_lowercase).as_deref() {
            None | Some("none") => Ok(ClientAuth::None),
            Some("requested") => Ok(ClientAuth::Requested),
            Some("required") => Ok(ClientAuth::Required),
            Some(other) => Err(format!(
                "Invalid value {other} for configuration ssl.client.auth: must be none, requested or required"
            )),
        }
    }

    /// The trusted certificates as PEM: inline, a PEM file, or a JKS/PKCS12 trust store.
    pub fn trust_pem(&self) -> Result<Option<String>, String> {
        if let Some(inline) = self.get("ssl.truststore.certificates") {
            return Ok(Some(inline.replace("\\n", "\n")));
        }
        let Some(location) = self.get("ssl.truststore.location") else {
            return Ok(None);
        };
        let store_type = self
            .get("ssl.truststore.type")
            .unwrap_or(DEFAULT_STORE_TYPE);
        if store_type.eq_ignore_ascii_case("PEM") {
            return std::fs::read_to_string(location)
                .map(Some)
                .map_err(|e| format!("could not read the trust store {location}: {e}"));
        }
        let password = self.get("ssl.truststore.password").unwrap_or("");
        stores::truststore_pem(location, store_type, password).map(Some)
    }

    /// The private key and certificate chain: inline PEM, a PEM file, or a JKS/PKCS12 store.
    pub fn key_material(&self) -> Result<Option<stores::KeyMaterial>, String> {
        if let (Some(key), Some(chain)) = (
            self.get("ssl.keystore.key"),
            self.get("ssl.keystore.certificate.chain"),
        ) {
            return Ok(Some(stores::KeyMaterial {
                key_pem: key.replace("\\n", "\n"),
                chain_pem: chain.replace("\\n", "\n"),
            }));
        }
        let Some(location) = self.get("ssl.keystore.location") else {
            return Ok(None);
        };
        let store_type = self.get("ssl.keystore.type").unwrap_or(DEFAULT_STORE_TYPE);
        if store_type.eq_ignore_ascii_case("PEM") {
            let text = std::fs::read_to_string(location)
                .map_err(|e| format!("could not read the key store {location}: {e}"))?;
            return Ok(Some(stores::KeyMaterial {
                key_pem: text.clone(),
                chain_pem: text,
            }));
        }
        let password = self.get("ssl.keystore.password").unwrap_or("");
        stores::keystore_pem(location, store_type, password, self.get("ssl.key.password")).map(Some)
    }

    /// The key store's private key, leaf certificate and the rest of its chain.
    fn identity(&self) -> Result<Option<Identity>, String> {
        let Some(material) = self.key_material()? else {
            return Ok(None);
        };
        let key = match self.get("ssl.key.password") {
            Some(p) => {
                PKey::private_key_from_pem_passphrase(material.key_pem.as_bytes(), p.as_bytes())
            }
            None => PKey::private_key_from_pem(material.key_pem.as_bytes()),
        }
        .map_err(|_| {
            "the key store's private key cannot be read (is ssl.key.password right?)".to_owned()
        })?;
        let mut chain = X509::stack_from_pem(material.chain_pem.as_bytes())
            .map_err(|e| format!("the key store's certificate chain: {e}"))?
            .into_iter();
        let leaf = chain
            .next()
            .ok_or_else(|| "the key store holds no certificate".to_owned())?;
        Ok(Some((key, leaf, chain.collect())))
    }

    /// An OpenSSL server context: the key store's key and chain, and with client
    /// authentication the trust store's certificates to verify clients against.
    pub fn acceptor(&self) -> Result<SslAcceptor, String> {
        let (key, leaf, chain) = self.identity()?.ok_or_else(|| {
            "an https listener needs ssl.keystore.location (or ssl.keystore.key and ssl.keystore.certificate.chain)".to_owned()
        })?;
        let mut builder = SslAcceptor::mozilla_intermediate_v5(SslMethod::tls_server())
            .map_err(|e| e.to_string())?;
        builder.set_private_key(&key).map_err(|e| e.to_string())?;
        builder.set_certificate(&leaf).map_err(|e| e.to_string())?;
        for extra in chain {
            builder
                .add_extra_chain_cert(extra)
                .map_err(|e| e.to_string())?;
        }
        builder
            .check_private_key()
            .map_err(|_| "the key store's key does not match its certificate".to_owned())?;
        let auth = self.client_auth()?;
        if auth != ClientAuth::None {
            let pem = self.trust_pem()?.ok_or_else(|| {
                "ssl.client.auth needs a trust store (ssl.truststore.location or ssl.truststore.certificates)".to_owned()
            })?;
            let mut store = X509StoreBuilder::new().map_err(|e| e.to_string())?;
            for cert in X509::stack_from_pem(pem.as_bytes()).map_err(|e| e.to_string())? {
                store.add_cert(cert).map_err(|e| e.to_string())?;
            }
            builder
                .set_verify_cert_store(store.build())
                .map_err(|e| e.to_string())?;
            let mode = if auth == ClientAuth::Required {
                SslVerifyMode::PEER | SslVerifyMode::FAIL_IF_NO_PEER_CERT
            } else {
                SslVerifyMode::PEER
            };
            builder.set_verify(mode);
        }
        Ok(builder.build())
    }

    /// A PKCS12 bundle of the key material, for HTTP clients that present a certificate.
    pub fn client_identity_pkcs12(&self) -> Result<Option<Vec<u8>>, String> {
        let Some((key, leaf, chain)) = self.identity()? else {
            return Ok(None);
        };
        let mut extra = openssl::stack::Stack::new().map_err(|e| e.to_string())?;
        for c in chain {
            extra.push(c).map_err(|e| e.to_string())?;
        }
        let bundle = Pkcs12::builder()
            .name("ferry")
            .pkey(&key)
            .cert(&leaf)
            .ca(extra)
            .build2("")
            .map_err(|e| e.to_string())?;
        bundle.to_der().map(Some).map_err(|e| e.to_string())
    }
}
