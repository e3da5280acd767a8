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

/// A librdkafka config for `role`: Ferry's fixed settings, then each translated layer, logging a
/// warning for every Java setting that has no librdkafka equivalent. Fails on settings no
/// client can be built with (a key store that cannot be opened).
pub fn client_config(
    role: ClientRole,
    settings: &ClientSettings,
    fixed: &[(&str, &str)],
) -> Result<ClientConfig, KafkaClientError> {
    let mut config = ClientConfig::new();
    for (k, v) in fixed {
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
