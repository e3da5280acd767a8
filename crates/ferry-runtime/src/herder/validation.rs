//! Validates a connector config against the common keys and the connector's own, naming every
//! bad key in Java's error message.

use ferry_api::config::KeyProblem;
use ferry_api::ConfigMap;

use crate::config::connector::{ConnectorConfig, CONNECTOR_CLASS};
use crate::herder::HerderError;
use crate::plugins::{PluginKind, Registry};

/// Every problem with `config`, or the connector's kind when there is none.
pub fn validate_connector_config(
    registry: &Registry,
    config: &ConfigMap,
) -> Result<PluginKind, HerderError> {
    let class = config.get(CONNECTOR_CLASS).map(|c| c.trim().to_owned());
    let plugin = class.as_deref().and_then(|c| registry.connector(c));
    let mut problems: Vec<KeyProblem> = Vec::new();
    match (&class, plugin) {
        (None, _) => problems.push(KeyProblem {
            key: CONNECTOR_CLASS.to_owned(),
            message: "Missing required configuration \"connector.class\" which has no default value.".to_owned(),
        }),
        (Some(c), None) => {
            return Err(HerderError::BadRequest(format!(
                "Failed to find any class that implements Connector and which name matches {c}, available connectors are: {}",
                available(registry)
            )))
        }
        _ => {}
    }
    let sink = plugin.is_some_and(|p| p.kind == PluginKind::Sink);
    if let Err(e) = ConnectorConfig::parse(config, sink) {
        problems.extend(
            e.problems
                .into_iter()
                .filter(|p| p.key != CONNECTOR_CLASS || class.is_none()),
        );
    }
    if let Some(plugin) = plugin {
        let instance = (plugin.create)();
        for report in instance.as_connector().validate(config) {
            problems.extend(report.errors.into_iter().map(|message| KeyProblem {
                key: report.name.clone(),
                message,
            }));
        }
    }
    if problems.is_empty() {
        return Ok(plugin.map(|p| p.kind).unwrap_or(PluginKind::Source));
    }
    let mut message = format!(
        "Connector configuration is invalid and contains the following {} error(s):",
        problems.len()
    );
    for p in &problems {
        message.push('\n');
        message.push_str(&p.message);
    }
    message.push_str("\nYou can also find the above list of errors at the endpoint `/connector-plugins/{connectorType}/config/validate`");
    Err(HerderError::BadRequest(message))
}

fn available(registry: &Registry) -> String {
    let names: Vec<&str> = registry.connectors.iter().map(|p| p.class_name).collect();
    names.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn props(pairs: &[(&str, &str)]) -> ConfigMap {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn names_every_bad_key() {
        let r = Registry::builtin();
        let err = validate_connector_config(
            &r,
            &props(&[
                ("name", "s"),
                ("connector.class", "FileStreamSource"),
                ("tasks.max", "0"),
            ]),
        )
        .unwrap_err();
        let HerderError::BadRequest(message) = err else {
            panic!("{err:?}")
        };
        assert!(
            message.starts_with(
                "Connector configuration is invalid and contains the following 2 error(s):"
            ),
            "{message}"
        );
        assert!(message
            .contains("Invalid value 0 for configuration tasks.max: Value must be at least 1"));
        assert!(message
            .contains("Missing required configuration \"topic\" which has no default value."));
    }

    #[test]
    fn unknown_class_is_named() {
        let r = Registry::builtin();
        let err = validate_connector_config(
            &r,
            &props(&[("name", "s"), ("connector.class", "com.example.Nope")]),
        )
        .unwrap_err();
        assert!(
            err.to_string().contains("matches com.example.Nope"),
            "{err}"
        );
    }

    #[test]
    fn good_sink_config() {
        let r = Registry::builtin();
        let kind = validate_connector_config(
            &r,
            &props(&[
                ("name", "s"),
                ("connector.class", "FileStreamSink"),
                ("topics", "t"),
            ]),
        )
        .unwrap();
        assert_eq!(kind, PluginKind::Sink);
    }
}
