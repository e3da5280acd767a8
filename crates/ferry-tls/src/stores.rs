//! Java key and trust stores (JKS and PKCS12, what keytool and Strimzi write) read into the
//! PEM text that librdkafka and the group client take. Parsing and decryption are OpenSSL's
//! (PKCS12) and the `jks` crate's; nothing here handles key material beyond re-encoding it.
//! Error messages name the store and the problem, never a password.

use openssl::pkcs12::Pkcs12;
use openssl::pkey::PKey;
use openssl::x509::X509;

/// A private key (unencrypted PKCS#8 PEM) and its certificate chain (PEM, leaf first).
pub struct KeyMaterial {
    pub key_pem: String,
    pub chain_pem: String,
}

impl std::fmt::Debug for KeyMaterial {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeyMaterial").finish_non_exhaustive()
    }
}

fn read(path: &str, what: &str) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("could not read the {what} {path}: {e}"))
}

fn pem_of(der: &[u8], path: &str) -> Result<String, String> {
    let cert = X509::from_der(der)
        .map_err(|e| format!("{path} holds a certificate that is not X.509: {e}"))?;
    let pem = cert.to_pem().map_err(|e| e.to_string())?;
    Ok(String::from_utf8_lossy(&pem).into_owned())
}

fn wrong_password(kind: &str, path: &str) -> String {
    format!("could not open the {kind} store {path}: the password is wrong or the store is damaged (Keystore was tampered with, or password was incorrect)")
}

fn load_jks(path: &str, password: &str, what: &str) -> Result<jks::KeyStore, String> {
    let bytes = read(path, what)?;
    let mut store = jks::KeyStore::new();
    store
        .load(bytes.as_slice(), password.as_bytes())
        .map_err(|e| match e {
            jks::KeyStoreError::InvalidDigest => wrong_password("JKS", path),
            other => format!("could not read the JKS store {path}: {other}"),
        })?;
    Ok(store)
}

fn load_pkcs12(
    path: &str,
    password: &str,
    what: &str,
) -> Result<openssl::pkcs12::ParsedPkcs12_2, String> {
    let bytes = read(path, what)?;
    Pkcs12::from_der(&bytes)
        .map_err(|e| format!("{path} is not a PKCS12 store: {e}"))?
        .parse2(password)
        .map_err(|_| wrong_password("PKCS12", path))
}

/// JKS's magic number. Java's JKS key store type also opens PKCS12 files
/// (`keystore.type.compat`), so a store of type JKS without it is read as PKCS12.
const JKS_MAGIC: [u8; 4] = [0xFE, 0xED, 0xFE, 0xED];

fn is_jks(path: &str, store_type: &str) -> bool {
    store_type.eq_ignore_ascii_case("JKS")
        && std::fs::read(path).is_ok_and(|b| b.starts_with(&JKS_MAGIC))
}

fn is_pkcs12(path: &str, store_type: &str) -> bool {
    store_type.eq_ignore_ascii_case("PKCS12")
        || (store_type.eq_ignore_ascii_case("JKS") && !is_jks(path, store_type))
}

/// The certificates of a trust store, as PEM.
pub fn truststore_pem(path: &str, store_type: &str, password: &str) -> Result<String, String> {
    let mut pem = String::new();
    if is_jks(path, store_type) {
        let store = load_jks(path, password, "trust store")?;
        for alias in store.aliases() {
            if let Ok(entry) = store.get_trusted_certificate_entry(&alias) {
                pem.push_str(&pem_of(&entry.certificate.content, path)?);
            } else if let Ok(chain) = store.get_private_key_entry_certificate_chain(&alias) {
                // Java trusts the certificates of key entries in a trust store too.
                for cert in chain {
                    pem.push_str(&pem_of(&cert.content, path)?);
                }
            }
        }
    } else if is_pkcs12(path, store_type) {
        let parsed = load_pkcs12(path, password, "trust store")?;
        for cert in parsed
            .cert
            .into_iter()
            .chain(parsed.ca.into_iter().flatten())
        {
            let bytes = cert.to_pem().map_err(|e| e.to_string())?;
            pem.push_str(&String::from_utf8_lossy(&bytes));
        }
    } else {
        return Err(format!(
            "trust store type {store_type} is not supported (JKS, PKCS12 or PEM)"
        ));
    }
    if pem.is_empty() {
        return Err(format!("the trust store {path} holds no certificate"));
    }
    Ok(pem)
}

/// The private key and certificate chain of a key store's key entry.
pub fn keystore_pem(
    path: &str,
    store_type: &str,
    store_password: &str,
    key_password: Option<&str>,
) -> Result<KeyMaterial, String> {
    let key_password = key_password.unwrap_or(store_password);
    let (key_der, chain) = if is_jks(path, store_type) {
        let store = load_jks(path, store_password, "key store")?;
        let alias = store
            .aliases()
            .into_iter()
            .find(|a| store.is_private_key_entry(a))
            .ok_or_else(|| format!("the key store {path} holds no private key"))?;
        let entry = store
            .get_private_key_entry(&alias, key_password.as_bytes())
            .map_err(|_| format!("could not recover the key in {path}: the key password is wrong (Cannot recover key)"))?;
        let chain: Vec<Vec<u8>> = entry
            .certificate_chain
            .into_iter()
            .map(|c| c.content)
            .collect();
        (entry.private_key, chain)
    } else if is_pkcs12(path, store_type) {
        let parsed = load_pkcs12(path, store_password, "key store")?;
        let key = parsed
            .pkey
            .ok_or_else(|| format!("the key store {path} holds no private key"))?;
        let key_der = key.private_key_to_pkcs8().map_err(|e| e.to_string())?;
        let mut chain = Vec::new();
        for cert in parsed
            .cert
            .into_iter()
            .chain(parsed.ca.into_iter().flatten())
        {
            chain.push(cert.to_der().map_err(|e| e.to_string())?);
        }
        (key_der, chain)
    } else {
        return Err(format!(
            "key store type {store_type} is not supported (JKS, PKCS12 or PEM)"
        ));
    };
    let key = PKey::private_key_from_pkcs8(&key_der)
        .map_err(|e| format!("the key in {path} is not a PKCS#8 private key: {e}"))?;
    let key_pem = key.private_key_to_pem_pkcs8().map_err(|e| e.to_string())?;
    let mut chain_pem = String::new();
    for der in &chain {
        chain_pem.push_str(&pem_of(der, path)?);
    }
    Ok(KeyMaterial {
        key_pem: String::from_utf8_lossy(&key_pem).into_owned(),
        chain_pem,
    })
}
