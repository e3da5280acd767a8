//! Client configs of the internal topics' readers and writers, built from the worker's
//! top-level settings as Java builds them from the worker's originals.

use ferry_kafka::client_properties::ClientRole;
use ferry_kafka::rdkafka::ClientConfig;
use ferry_kafka::{client_config, ClientSettings, KafkaClientError};
use ferry_runtime::config::worker::WorkerConfig;

pub fn internal_client(
    worker: &WorkerConfig,
    role: ClientRole,
    client_id: &str,
) -> Result<ClientConfig, KafkaClientError> {
    let settings = ClientSettings::new().layer(worker.connection_settings());
    let mut config = client_config(role, &settings, &[])?;
    config.set("client.id", client_id);
    Ok(config)
}
