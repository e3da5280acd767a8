//! Distributed mode's preflight checks of a source connector's exactly-once keys (KIP-618), as
//! Java's `DistributedHerder.validateSourceConnectorConfig` adds them to the validation.

use ferry_api::connector::{AnyConnector, ExactlyOnceSupport, TransactionBoundaries};
use ferry_api::ConfigMap;
use ferry_api::ConnectError;

use super::validation::ConfigInfo;
use crate::config::connector::{EXACTLY_ONCE_SUPPORT, OFFSETS_STORAGE_TOPIC, TRANSACTION_BOUNDARY};

/// Adds the errors of `exactly.once.support=required`, `transaction.boundary=connector` and an
/// `offsets.storage.topic` Ferry cannot place to their keys, when those keys have no error yet. `enabled`: the worker's
/// `exactly.once.source.support=enabled`.
pub(crate) fn check(
    enabled: bool,
    instance: &AnyConnector,
    config: &ConfigMap,
    configs: &mut [ConfigInfo],
) {
    let AnyConnector::Source(connector) = instance else {
        return;
    };
    let asks = |key: &str, value: &str| {
        config
            .get(key)
            .is_some_and(|v| v.trim().eq_ignore_ascii_case(value))
    };
    if asks(EXACTLY_ONCE_SUPPORT, "required") {
        let mut errors = Vec::new();
        if !enabled {
            errors
                .push("This worker does not have exactly-once source support enabled.".to_owned());
        }
        match connector.exactly_once_support(config) {
            Ok(Some(ExactlyOnceSupport::Supported)) => {}
            Ok(Some(ExactlyOnceSupport::Unsupported)) => errors.push(
                "The connector does not support exactly-once semantics with the provided configuration."
                    .to_owned(),
            ),
            Ok(None) => errors.push("The connector does not implement the API required for preflight validation of exactly-once source support. Please consult the documentation for the connector to determine whether it supports exactly-once semantics, and then consider reconfiguring the connector to use the value \"requested\" for this property (which will disable this preflight check and allow the connector to be created).".to_owned()),
            Err(error) => errors.push(unexpected("exactly-once semantics", &error)),
        }
        add(configs, EXACTLY_ONCE_SUPPORT, errors);
    }
    if asks(TRANSACTION_BOUNDARY, "connector") {
        let error = match connector.can_define_transaction_boundaries(config) {
            Ok(Some(TransactionBoundaries::Supported)) => None,
            Ok(Some(TransactionBoundaries::Unsupported)) => Some("The connector does not support connector-defined transaction boundaries with the given configuration. Please reconfigure it to use a different transaction boundary definition.".to_owned()),
            Ok(None) => Some("This connector has returned a null value from its canDefineTransactionBoundaries method, which is not permitted. The connector will be treated as if it cannot define its own transaction boundaries, and cannot be configured with 'transaction.boundary' set to 'connector'.".to_owned()),
            Err(error) => Some(unexpected("defining its own transaction boundaries", &error)),
        };
        add(configs, TRANSACTION_BOUNDARY, error.into_iter().collect());
    }
    // Java creates a connector's offsets topic on the cluster its producer writes to; Ferry
    // keeps it on the worker's, so it refuses the combination rather than ignore the override.
    let set = |key: &str| config.get(key).is_some_and(|v| !v.trim().is_empty());
    if set(OFFSETS_STORAGE_TOPIC) && set(PRODUCER_BOOTSTRAP_OVERRIDE) {
        add(
            configs,
            OFFSETS_STORAGE_TOPIC,
            vec![format!("Ferry keeps connector-specific offsets topics on the worker's Kafka cluster, so it cannot use one together with {PRODUCER_BOOTSTRAP_OVERRIDE} (Java would create the topic on the producer's cluster); remove one of the two.")],
        );
    }
}

const PRODUCER_BOOTSTRAP_OVERRIDE: &str = "producer.override.bootstrap.servers";

/// Java's message when the connector's answer was an exception.
fn unexpected(what: &str, error: &ConnectError) -> String {
    tracing::error!(%error, "Failed while validating connector support for {what}");
    let message = error.to_string();
    let message = message.trim();
    if message.is_empty() {
        "An unexpected error occurred during validation; please see the worker logs for more details."
            .to_owned()
    } else {
        format!("An unexpected error occurred during validation: {message}")
    }
}

/// Java adds these only to a key that has no error yet.
fn add(configs: &mut [ConfigInfo], key: &str, errors: Vec<String>) {
    if let Some(value) = configs
        .iter_mut()
        .filter_map(|c| c.value.as_mut())
        .find(|v| v.name == key && v.errors.is_empty())
    {
        value.errors.extend(errors);
    }
}

#[cfg(test)]
mod tests {
    use crate::herder::config_infos;
    use crate::plugins::Registry;

    /// The errors validation reports for `key`.
    fn errors(exactly_once_source: Option<bool>, pairs: &[(&str, &str)], key: &str) -> Vec<String> {
        let mut registry = Registry::builtin();
        registry.exactly_once_source = exactly_once_source;
        let mut config: ferry_api::ConfigMap = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        config.insert("name".to_owned(), "src".to_owned());
        config.insert("connector.class".to_owned(), "FileStreamSource".to_owned());
        config.insert("topic".to_owned(), "t".to_owned());
        let (infos, _) = config_infos(&registry, &config).unwrap();
        infos
            .configs
            .iter()
            .filter_map(|c| c.value.as_ref())
            .find(|v| v.name == key)
            .map(|v| v.errors.clone())
            .unwrap_or_default()
    }

    #[test]
    fn required_exactly_once_needs_a_worker_with_it_enabled_and_a_connector_that_says_so() {
        let required = [("exactly.once.support", "required"), ("file", "/in.txt")];
        assert_eq!(
            errors(Some(false), &required, "exactly.once.support"),
            ["This worker does not have exactly-once source support enabled."]
        );
        assert!(errors(Some(true), &required, "exactly.once.support").is_empty());
        assert_eq!(
            errors(Some(true), &[("exactly.once.support", "REQUIRED")], "exactly.once.support"),
            ["The connector does not support exactly-once semantics with the provided configuration."],
            "standard input keeps no offsets"
        );
        assert!(
            errors(None, &required, "exactly.once.support").is_empty(),
            "standalone mode has no preflight check"
        );
    }

    #[test]
    fn a_connector_specific_offsets_topic_is_accepted() {
        let topic = [("offsets.storage.topic", "my-offsets"), ("file", "/in.txt")];
        for mode in [Some(true), Some(false), None] {
            assert!(errors(mode, &topic, "offsets.storage.topic").is_empty());
        }
    }

    #[test]
    fn a_connector_offsets_topic_on_another_cluster_is_refused_in_distributed_mode() {
        let elsewhere = [
            ("offsets.storage.topic", "my-offsets"),
            ("producer.override.bootstrap.servers", "other:9092"),
            ("file", "/in.txt"),
        ];
        for mode in [Some(true), Some(false)] {
            let errors = errors(mode, &elsewhere, "offsets.storage.topic");
            assert_eq!(errors.len(), 1, "{errors:?}");
            assert!(errors[0].contains("producer.override.bootstrap.servers"));
        }
        assert!(
            errors(None, &elsewhere, "offsets.storage.topic").is_empty(),
            "standalone mode ignores offsets.storage.topic, as Java's does"
        );
    }

    #[test]
    fn connector_defined_boundaries_are_refused_in_distributed_mode() {
        let connector = [("transaction.boundary", "connector"), ("file", "/in.txt")];
        assert_eq!(
            errors(Some(false), &connector, "transaction.boundary"),
            ["The connector does not support connector-defined transaction boundaries with the given configuration. Please reconfigure it to use a different transaction boundary definition."]
        );
        assert!(errors(None, &connector, "transaction.boundary").is_empty());
        assert!(errors(
            Some(true),
            &[("transaction.boundary", "interval")],
            "transaction.boundary"
        )
        .is_empty());
    }
}
