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

/// JKS's magic number. Java's JKS key store type also opens PKCS12 files
/// (`keystore.type.compat`), so a store of type JKS without it is read as PKCS12.
const JKS_MAGIC: [u8; 4] = [0xFE, 0xED, 0xFE, 0xED];

/// A key or trust store, opened with its password.
enum Store {
    Jks(jks::KeyStore),
    Pkcs12(openssl::pkcs12::ParsedPkcs12_2),
}

impl Store {
    /// Reads the file once and opens it as its type says (JKS files that are really PKCS12
    /// open as PKCS12, as in Java).
    fn open(path: &str, store_type: &str, password: &str, what: &str) -> Result<Store, String> {
        let jks_type = store_type.eq_ignore_ascii_case("JKS");
        if !jks_type && !store_type.eq_ignore_ascii_case("PKCS12") {
            return Err(format!(
                "{what} type {store_type} is not supported (JKS, PKCS12 or PEM)"
            ));
        }
        let bytes = read(path, what)?;
        if jks_type && bytes.starts_with(&JKS_MAGIC) {
            let mut store = jks::KeyStore::new();
            store
                .load(bytes.as_slice(), password.as_bytes())
                .map_err(|e| match e {
                    jks::KeyStoreError::InvalidDigest => wrong_password("JKS", path),
                    other => format!("could not read the JKS store {path}: {other}"),
                })?;
            return Ok(Store::Jks(store));
        }
        Pkcs12::from_der(&bytes)
            .map_err(|e| format!("{path} is not a PKCS12 store: {e}"))?
            .parse2(password)
            .map(Store::Pkcs12)
            .map_err(|_| wrong_password("PKCS12", path))
    }
}

/// The certificates of a trust store, as PEM.
pub fn truststore_pem(path: &str, store_type: &str, password: &str) -> Result<String, String> {
    let mut pem = String::new();
    match Store::open(path, store_type, password, "trust store")? {
        Store::Jks(store) => {
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
        }
        Store::Pkcs12(parsed) => {
            for cert in parsed
                .cert
                .into_iter()
                .chain(parsed.ca.into_iter().flatten())
            {
                let bytes = cert.to_pem().map_err(|e| e.to_string())?;
                pem.push_str(&String::from_utf8_lossy(&bytes));
            }
        }
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
    let (key_der, chain) = match Store::open(path, store_type, store_password, "key store")? {
        Store::Jks(store) => {
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
        }
        Store::Pkcs12(parsed) => {
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
        }
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
