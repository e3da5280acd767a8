//! Builds librdkafka client configs from Java-style settings.

use rdkafka::ClientConfig;

use crate::client_properties::{translate, ClientRole};
use crate::KafkaClientError;

/// Java client settings for one client: the base ones (from the worker's top level) and the
/// overrides applied after them (worker `producer.*` etc., then connector `*.override.*`).
#[derive(Debug, Clone, Default)]
pub struct ClientSettings {
    pub layers: Vec<Vec<(String, String)>>,
}

impl ClientSettings {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a layer of settings that wins over the earlier ones.
    pub fn layer(mut self, settings: Vec<(String, String)>) -> Self {
        self.layers.push(settings);
        self
    }
}

/// Java's reconnection backoff (50 ms, doubling up to 1 s) rather than librdkafka's (100 ms up to
/// 10 s). Besides reconnections, librdkafka spaces a new client's first connections to the
/// cluster's brokers by half of `reconnect.backoff.ms`: with its own default, every client
/// reached its first broker by id 50 ms after the bootstrap connection, which held up a sink
/// task's group join and a source task's first send by as much.
const JAVA_CONNECTION_DEFAULTS: [(&str, &str); 2] = [
    ("reconnect.backoff.ms", "50"),
    ("reconnect.backoff.max.ms", "1000"),
];

/// A librdkafka config for `role`: Java's connection defaults, Ferry's fixed settings, then each
/// translated layer, logging a warning for every Java setting that has no librdkafka
/// equivalent. Fails on settings no client can be built with (a key store that cannot be
/// opened).
pub fn client_config(
    role: ClientRole,
    settings: &ClientSettings,
    fixed: &[(&str, &str)],
) -> Result<ClientConfig, KafkaClientError> {
    let mut config = ClientConfig::new();
    for (k, v) in JAVA_CONNECTION_DEFAULTS.iter().chain(fixed) {
        config.set(*k, *v);
    }
    for layer in &settings.layers {
        let translated = translate(role, layer);
        if !translated.errors.is_empty() {
            return Err(KafkaClientError::Settings(translated.errors.join("; ")));
        }
        for warning in &translated.warnings {
            tracing::warn!(role = ?role, "{warning}");
        }
        for (k, v) in translated.properties {
            config.set(k, v);
        }
    }
    Ok(config)
}
