//! TLS material as Java's `ssl.*` settings describe it: key and trust stores (PEM, PKCS12, JKS)
//! read with OpenSSL and the `jks` crate, and OpenSSL contexts built from them, for every part
//! of Ferry that speaks TLS without librdkafka (the REST API, its client, the group member).

pub mod settings;
pub mod stores;

pub use settings::{ClientAuth, JavaSsl};
