//! The HTTP client for requests between workers (forwarding, task configs to the leader), with
//! the TLS trust and identity Java's `RestClient` takes from `listeners.https.ssl.*` (else the
//! worker's `ssl.*`).

use std::time::Duration;

use anyhow::{anyhow, Context};

pub fn configure(props: &ferry_api::ConfigMap) -> anyhow::Result<()> {
    let mut builder = reqwest::Client::builder().timeout(Duration::from_secs(90));
    if let Some(ssl) = ferry_rest::client_ssl(props) {
        if let Some(pem) = ssl
            .trust_pem()
            .map_err(|e| anyhow!("the REST client's trust store: {e}"))?
        {
            for cert in reqwest::Certificate::from_pem_bundle(pem.as_bytes())
                .context("the REST client's trusted certificates")?
            {
                builder = builder.add_root_certificate(cert);
            }
        }
        if let Some(der) = ssl
            .client_identity_pkcs12()
            .map_err(|e| anyhow!("the REST client's key store: {e}"))?
        {
            builder = builder.identity(
                reqwest::Identity::from_pkcs12_der(&der, "")
                    .context("the REST client's key store")?,
            );
        }
        if !ssl.verifies_host_names() {
            builder = builder.danger_accept_invalid_hostnames(true);
        }
    }
    let client = builder.build().context("building the REST client")?;
    ferry_rest::set_worker_client(client.clone());
    ferry_distributed::herder::leader_client::set_client(client);
    Ok(())
}
