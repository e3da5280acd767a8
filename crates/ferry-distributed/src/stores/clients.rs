//! Client configs of the internal topics' readers and writers, built from the worker's
//! top-level settings as Java builds them from the worker's originals.

use ferry_kafka::client_properties::ClientRole;
use ferry_kafka::rdkafka::ClientConfig;
use ferry_kafka::{client_config, ClientSettings};
use ferry_runtime::config::worker::WorkerConfig;

/// Only connection and security settings apply to internal clients; converter, REST and other
/// worker keys are not client settings at all.
fn connection_settings(worker: &WorkerConfig) -> Vec<(String, String)> {
    let mut out = vec![(
        "bootstrap.servers".to_owned(),
        worker.bootstrap_servers.clone(),
    )];
    for (k, v) in &worker.originals {
        let security = k.starts_with("ssl.")
            || k.starts_with("sasl.")
            || k == "security.protocol"
            || k == "client.dns.lookup";
        if security {
            out.push((k.clone(), v.clone()));
        }
    }
    out
}

pub fn internal_client(worker: &WorkerConfig, role: ClientRole, client_id: &str) -> ClientConfig {
    let settings = ClientSettings::new().layer(connection_settings(worker));
    let mut config = client_config(role, &settings, &[]);
    config.set("client.id", client_id);
    config
}
