//! Validates a connector config against the framework's keys and the connector's own, in the
//! `ConfigInfos` shape of the validate endpoint; creating a connector refuses a config with any
//! error and names every one.

use ferry_api::config::{ConfigKey, KeyReport};
use ferry_api::ConfigMap;

use crate::config::connector::{
    sink_connector_config_def, sink_topic_problems, source_connector_config_def, CONNECTOR_CLASS,
    PREDICATES, TRANSFORMS,
};
use crate::herder::HerderError;
use crate::plugins::{PluginKind, Registry};
use crate::worker::transformation_chain::TransformationChain;

/// One key: its declaration (absent for undeclared keys) and what validation found.
#[derive(Debug, Clone)]
pub struct ConfigInfo {
    pub definition: Option<ConfigKey>,
    pub value: Option<KeyReport>,
}

/// The validate endpoint's answer (Java's `ConfigInfos`).
#[derive(Debug, Clone)]
pub struct ConfigInfos {
    /// `connector.class` exactly as submitted.
    pub name: String,
    pub error_count: usize,
    pub groups: Vec<String>,
    pub configs: Vec<ConfigInfo>,
}

/// Runs a validation off the runtime's threads: a plugin's `validate` may block (a hosted one
/// waits on the JVM), and one that hangs must hold only its own request, never the threads
/// every other request, task and herder loop run on. Java validates on an executor of its own
/// for the same reason.
pub async fn off_runtime<R: Send + 'static>(validation: impl FnOnce() -> R + Send + 'static) -> R {
    match tokio::task::spawn_blocking(validation).await {
        Ok(answer) => answer,
        Err(error) => std::panic::resume_unwind(error.into_panic()),
    }
}

/// Validates `config` and reports every key, with the connector's kind, as Kafka 4.4 does: a
/// connector's own `config.providers*` keys are dropped first (only the worker's providers
/// resolve variables), validation sees the resolved values, and a key whose value a provider
/// replaced answers the value as submitted, no recommended values, and, if it failed, one
/// generic error: neither a resolved secret nor an error quoting it reaches the answer.
pub fn config_infos(
    registry: &Registry,
    config: &ConfigMap,
) -> Result<(ConfigInfos, PluginKind), HerderError> {
    let config = without_connector_config_providers(config);
    if registry.config_transformer.is_none() {
        return resolved_config_infos(registry, &config);
    }
    let resolved = registry.resolve(&config);
    let (mut infos, kind) = resolved_config_infos(registry, &resolved)?;
    for value in infos.configs.iter_mut().filter_map(|c| c.value.as_mut()) {
        let Some(raw) = config.get(&value.name) else {
            continue;
        };
        if resolved.get(&value.name).is_some_and(|r| r != raw) {
            value.value = Some(raw.clone());
            value.recommended_values.clear();
            if !value.errors.is_empty() {
                value.errors = vec![format!(
                    "Invalid value for configuration '{}': the value resolved from the config provider reference failed validation",
                    value.name
                )];
            }
        }
    }
    infos.error_count = error_count(&infos.configs);
    Ok((infos, kind))
}

fn error_count(configs: &[ConfigInfo]) -> usize {
    configs
        .iter()
        .filter_map(|c| c.value.as_ref())
        .map(|v| v.errors.len())
        .sum()
}

/// The config without `config.providers` and `config.providers.*`, which Kafka 4.4 ignores in a
/// connector's config (a connector must not bring its own providers).
fn without_connector_config_providers(config: &ConfigMap) -> ConfigMap {
    config
        .iter()
        .filter(|(k, _)| *k != "config.providers" && !k.starts_with("config.providers."))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

fn resolved_config_infos(
    registry: &Registry,
    config: &ConfigMap,
) -> Result<(ConfigInfos, PluginKind), HerderError> {
    let class = config
        .get(CONNECTOR_CLASS)
        .map(|c| c.trim().to_owned())
        .filter(|c| !c.is_empty())
        .ok_or_else(|| {
            HerderError::BadRequest("Connector config contains no connector type".into())
        })?;
    let plugin = registry.connector(&class).ok_or_else(|| {
        let names: Vec<&str> = registry.connectors.iter().map(|p| p.class_name.as_str()).collect();
        // Java 4.1.1 answers 400 for an unknown connector class.
        HerderError::BadRequest(format!(
            "Failed to find any class that implements Connector and which name matches {class}, available connectors are: {}",
            names.join(", ")
        ))
    })?;
    let sink = plugin.kind == PluginKind::Sink;
    let framework = if sink {
        sink_connector_config_def()
    } else {
        source_connector_config_def()
    };
    let mut reports = framework.validate(config);
    if sink {
        for problem in sink_topic_problems(config) {
            if let Some(r) = reports.iter_mut().find(|r| r.name == problem.key) {
                r.errors.push(problem.message);
            }
        }
    }
    let mut configs: Vec<ConfigInfo> = framework
        .keys()
        .cloned()
        .zip(reports)
        .map(|(definition, value)| ConfigInfo {
            definition: Some(definition),
            value: Some(value),
        })
        .collect();
    apply_worker_converters(registry, config, &mut configs);
    apply_plugin_versions(registry, &plugin.version, config, &mut configs);
    // Java lists each alias's keys after the framework's and before the connector's own.
    configs.extend(super::alias_validation::alias_infos(registry, config));
    let instance = (plugin.create)();
    if let Some(enabled) = registry.exactly_once_source {
        super::exactly_once_validation::check(enabled, &instance, config, &mut configs);
    }
    let connector = instance.as_connector();
    let own = connector.config_def();
    for value in connector.validate(config) {
        if framework.key(&value.name).is_some()
            || configs
                .iter()
                .any(|c| c.value.as_ref().is_some_and(|v| v.name == value.name))
        {
            continue;
        }
        configs.push(ConfigInfo {
            definition: own.key(&value.name).cloned(),
            value: Some(value),
        });
    }
    // Transforms and predicates: every alias must resolve, and its references hold. A hosted
    // connector's chain runs in the plugin host with Kafka's classes; here its classes that
    // Ferry also has are checked the same way, and those only the host has need only to exist
    // there. What a plugin refuses only when it is configured (InsertField's static.value
    // without a field) fails the task at start, as in Java, not validation.
    if let Err(e) = TransformationChain::from_config(registry, config) {
        let alias_key = |key: &str| {
            key == TRANSFORMS
                || key == PREDICATES
                || key.starts_with("transforms.")
                || key.starts_with("predicates.")
        };
        for problem in e.problems.into_iter().filter(|p| alias_key(&p.key)) {
            let hosted_class = plugin.hosted
                && problem.key.ends_with(".type")
                && config
                    .get(&problem.key)
                    .is_some_and(|class| registry.hosted_other(class.trim()).is_some());
            if !hosted_class {
                add_problem(&mut configs, config, &problem.key, problem.message);
            }
        }
    }
    // KIP-158 topic creation settings of a source connector.
    if !sink {
        if let Err(errors) = crate::worker::topic_creation::TopicCreation::from_config(true, config)
        {
            for (key, message) in errors {
                add_problem(&mut configs, config, &key, message);
            }
        }
    }
    // Client overrides under the worker's policy: Java lists every override key, with its
    // policy's verdict.
    let problems = registry.override_problems(config);
    for (k, v) in config {
        if !crate::config::override_policy::OVERRIDE_PREFIXES
            .iter()
            .any(|p| k.starts_with(p))
            || configs
                .iter()
                .any(|c| c.value.as_ref().is_some_and(|v| &v.name == k))
        {
            continue;
        }
        configs.push(ConfigInfo {
            definition: None,
            value: Some(KeyReport {
                name: k.clone(),
                value: Some(v.clone()),
                recommended_values: Vec::new(),
                errors: problems
                    .iter()
                    .filter(|(key, _)| key == k)
                    .map(|(_, m)| m.clone())
                    .collect(),
                visible: true,
            }),
        });
    }
    let mut groups: Vec<String> = Vec::new();
    for group in configs
        .iter()
        .filter_map(|c| c.definition.as_ref()?.group.clone())
    {
        if !groups.contains(&group) {
            groups.push(group);
        }
    }
    let infos = ConfigInfos {
        name: config.get(CONNECTOR_CLASS).cloned().unwrap_or_default(),
        error_count: error_count(&configs),
        groups,
        configs,
    };
    Ok((infos, plugin.kind))
}

/// The report of a declared key.
fn declared_mut<'a>(configs: &'a mut [ConfigInfo], key: &str) -> Option<&'a mut ConfigInfo> {
    configs
        .iter_mut()
        .find(|c| c.definition.as_ref().is_some_and(|d| d.name == key))
}

/// As Java's KIP-891 converter defaults: the converter keys default to the worker's converters,
/// an unset one reports the worker's as its value, and every converter class is recommended.
fn apply_worker_converters(registry: &Registry, config: &ConfigMap, configs: &mut [ConfigInfo]) {
    use crate::config::connector::{HEADER_CONVERTER, KEY_CONVERTER, VALUE_CONVERTER};
    let worker = &registry.worker_converters;
    for (key, default, header) in [
        (KEY_CONVERTER, &worker.key, false),
        (VALUE_CONVERTER, &worker.value, false),
        (HEADER_CONVERTER, &worker.header, true),
    ] {
        let Some(info) = declared_mut(configs, key) else {
            continue;
        };
        if let (Some(default), Some(definition)) = (default, info.definition.as_mut()) {
            definition.default = ferry_api::config::DefaultValue::Value(default.clone());
        }
        if let Some(value) = info.value.as_mut() {
            if !config.contains_key(key) {
                value.value.clone_from(default);
            }
            value.recommended_values = registry.converter_classes(header);
        }
    }
}

/// The version of a converter class this worker has, native or hosted.
fn converter_version(registry: &Registry, class: &str, header: bool) -> Option<String> {
    let native = if header {
        registry.header_converter(class).is_some()
    } else {
        registry.converter(class).is_some()
    };
    if native {
        return Some(crate::KAFKA_CONNECT_VERSION.to_owned());
    }
    let kind = if header {
        PluginKind::HeaderConverter
    } else {
        PluginKind::Converter
    };
    registry
        .hosted_other(class)
        .filter(|p| p.kind == kind)
        .map(|p| p.version.clone())
}

/// KIP-891: each `*.plugin.version` key defaults to the version of the plugin in use, which is
/// also the one recommended; Ferry has one version of each plugin, so asking for another is an
/// error rather than a setting that silently does nothing.
fn apply_plugin_versions(
    registry: &Registry,
    connector_version: &str,
    config: &ConfigMap,
    configs: &mut [ConfigInfo],
) {
    use crate::config::connector::{
        CONNECTOR_PLUGIN_VERSION, HEADER_CONVERTER, HEADER_CONVERTER_PLUGIN_VERSION, KEY_CONVERTER,
        KEY_CONVERTER_PLUGIN_VERSION, VALUE_CONVERTER, VALUE_CONVERTER_PLUGIN_VERSION,
    };
    let worker = &registry.worker_converters;
    let converter = |key: &str, worker: &Option<String>, header: bool| {
        config
            .get(key)
            .map(|c| c.trim().to_owned())
            .or_else(|| worker.clone())
            .and_then(|class| converter_version(registry, &class, header))
    };
    for (key, version) in [
        (CONNECTOR_PLUGIN_VERSION, Some(connector_version.to_owned())),
        (
            KEY_CONVERTER_PLUGIN_VERSION,
            converter(KEY_CONVERTER, &worker.key, false),
        ),
        (
            VALUE_CONVERTER_PLUGIN_VERSION,
            converter(VALUE_CONVERTER, &worker.value, false),
        ),
        (
            HEADER_CONVERTER_PLUGIN_VERSION,
            converter(HEADER_CONVERTER, &worker.header, true),
        ),
    ] {
        let Some(info) = declared_mut(configs, key) else {
            continue;
        };
        let Some(version) = version else {
            continue;
        };
        if let Some(definition) = info.definition.as_mut() {
            definition.default = ferry_api::config::DefaultValue::Value(version.clone());
        }
        if let Some(value) = info.value.as_mut() {
            value.recommended_values = vec![version.clone()];
            match config.get(key).map(|v| v.trim()) {
                None | Some("") => value.value = Some(version.clone()),
                Some(asked) if asked == version => {}
                Some(asked) => value.errors.push(format!(
                    "Invalid value {asked} for configuration {key}: this worker has version {version} only"
                )),
            }
        }
    }
}

/// Adds `message` to the report of `key`, which is created when the connector's and the
/// framework's definitions do not have it.
fn add_problem(configs: &mut Vec<ConfigInfo>, config: &ConfigMap, key: &str, message: String) {
    match configs
        .iter_mut()
        .filter_map(|c| c.value.as_mut())
        .find(|v| v.name == key)
    {
        Some(v) => v.errors.push(message),
        None => configs.push(ConfigInfo {
            definition: None,
            value: Some(KeyReport {
                name: key.to_owned(),
                value: config.get(key).cloned(),
                recommended_values: Vec::new(),
                errors: vec![message],
                visible: true,
            }),
        }),
    }
}

/// The connector's kind when `config` is valid; otherwise a 400 naming every error.
pub fn validate_connector_config(
    registry: &Registry,
    config: &ConfigMap,
) -> Result<PluginKind, HerderError> {
    let (infos, kind) = config_infos(registry, config)?;
    if infos.error_count == 0 {
        return Ok(kind);
    }
    let mut message = format!(
        "Connector configuration is invalid and contains the following {} error(s):",
        infos.error_count
    );
    for error in infos
        .configs
        .iter()
        .filter_map(|c| c.value.as_ref())
        .flat_map(|v| &v.errors)
    {
        message.push('\n');
        message.push_str(error);
    }
    message.push_str("\nYou can also find the above list of errors at the endpoint `/connector-plugins/{connectorType}/config/validate`");
    Err(HerderError::BadRequest(message))
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
    fn values_from_providers_are_redacted_and_a_connector_brings_no_providers_of_its_own() {
        use crate::config::providers::{ConfigTransformer, ENV_PROVIDER};
        std::env::set_var("FERRY_VALIDATE_REDACT_TASKS", "s3cret-many");
        std::env::set_var("FERRY_VALIDATE_REDACT_TOPIC", "redacted-topic");
        let mut r = Registry::builtin();
        r.config_transformer = ConfigTransformer::from_worker_props(&props(&[
            ("config.providers", "env"),
            ("config.providers.env.class", ENV_PROVIDER),
        ]))
        .unwrap()
        .map(std::sync::Arc::new);
        let (infos, _) = config_infos(
            &r,
            &props(&[
                ("name", "src"),
                ("connector.class", "FileStreamSource"),
                ("tasks.max", "${env:FERRY_VALIDATE_REDACT_TASKS}"),
                ("topic", "${env:FERRY_VALIDATE_REDACT_TOPIC}"),
                // Ignored in a connector's config since Kafka 4.4: `own` never resolves.
                ("config.providers", "own"),
                ("config.providers.own.class", ENV_PROVIDER),
                ("file", "${own:HOME}"),
            ]),
        )
        .unwrap();
        let value = |name: &str| {
            infos
                .configs
                .iter()
                .filter_map(|c| c.value.as_ref())
                .find(|v| v.name == name)
                .unwrap_or_else(|| panic!("{name}"))
                .clone()
        };
        let tasks = value("tasks.max");
        assert_eq!(
            tasks.value.as_deref(),
            Some("${env:FERRY_VALIDATE_REDACT_TASKS}")
        );
        assert_eq!(
            tasks.errors,
            vec!["Invalid value for configuration 'tasks.max': the value resolved from the config provider reference failed validation"]
        );
        let topic = value("topic");
        assert_eq!(
            topic.value.as_deref(),
            Some("${env:FERRY_VALIDATE_REDACT_TOPIC}")
        );
        assert!(topic.errors.is_empty(), "{:?}", topic.errors);
        assert_eq!(value("file").value.as_deref(), Some("${own:HOME}"));
        let errors: Vec<_> = infos
            .configs
            .iter()
            .filter_map(|c| c.value.as_ref())
            .filter(|v| !v.errors.is_empty())
            .map(|v| (v.name.clone(), v.errors.clone()))
            .collect();
        assert_eq!(infos.error_count, 1, "{errors:?}");
        let text = format!("{infos:?}");
        assert!(
            !text.contains("s3cret") && !text.contains("redacted-topic"),
            "{text}"
        );
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
        assert!(matches!(err, HerderError::BadRequest(_)));
        assert!(
            err.to_string().contains("matches com.example.Nope"),
            "{err}"
        );
    }

    #[test]
    fn missing_class_is_a_bad_request() {
        let err =
            validate_connector_config(&Registry::builtin(), &props(&[("name", "s")])).unwrap_err();
        assert_eq!(
            err,
            HerderError::BadRequest("Connector config contains no connector type".into())
        );
    }

    #[test]
    fn converter_keys_default_to_the_worker_s_converters_and_recommend_every_converter() {
        let mut r = Registry::builtin();
        r.worker_converters.value = Some("org.apache.kafka.connect.json.JsonConverter".into());
        let config = props(&[
            ("name", "s"),
            ("connector.class", "FileStreamSink"),
            ("topics", "t"),
            (
                "key.converter",
                "org.apache.kafka.connect.storage.StringConverter",
            ),
        ]);
        let (infos, _) = config_infos(&r, &config).unwrap();
        let info = |key: &str| {
            infos
                .configs
                .iter()
                .find(|c| c.definition.as_ref().is_some_and(|d| d.name == key))
                .unwrap()
                .clone()
        };
        let value = info("value.converter");
        assert_eq!(
            value.definition.unwrap().default,
            ferry_api::config::DefaultValue::Value(
                "org.apache.kafka.connect.json.JsonConverter".into()
            )
        );
        let report = value.value.unwrap();
        assert_eq!(
            report.value.as_deref(),
            Some("org.apache.kafka.connect.json.JsonConverter")
        );
        assert!(report
            .recommended_values
            .contains(&"org.apache.kafka.connect.converters.LongConverter".to_owned()));
        let key = info("key.converter").value.unwrap();
        assert_eq!(
            key.value.as_deref(),
            Some("org.apache.kafka.connect.storage.StringConverter"),
            "set: as submitted"
        );
        let header = info("header.converter").value.unwrap();
        assert!(header
            .recommended_values
            .contains(&"org.apache.kafka.connect.storage.SimpleHeaderConverter".to_owned()));
    }

    #[test]
    fn plugin_version_keys_default_to_the_versions_in_use_and_refuse_others() {
        let r = Registry::builtin();
        let base = [
            ("name", "s"),
            ("connector.class", "FileStreamSink"),
            ("topics", "t"),
            (
                "key.converter",
                "org.apache.kafka.connect.storage.StringConverter",
            ),
        ];
        let (infos, _) = config_infos(&r, &props(&base)).unwrap();
        let report = |infos: &ConfigInfos, key: &str| {
            infos
                .configs
                .iter()
                .find_map(|c| c.value.clone().filter(|v| v.name == key))
                .unwrap()
        };
        for key in ["connector.plugin.version", "key.converter.plugin.version"] {
            let v = report(&infos, key);
            assert_eq!(
                v.value.as_deref(),
                Some(crate::KAFKA_CONNECT_VERSION),
                "{key}"
            );
            assert_eq!(
                v.recommended_values,
                vec![crate::KAFKA_CONNECT_VERSION.to_owned()]
            );
            assert!(v.errors.is_empty());
        }
        let mut asked: Vec<(&str, &str)> = base.to_vec();
        asked.push(("connector.plugin.version", "3.0.0"));
        let (infos, _) = config_infos(&r, &props(&asked)).unwrap();
        assert_eq!(infos.error_count, 1);
        assert!(report(&infos, "connector.plugin.version").errors[0].contains("3.0.0"));
    }

    #[test]
    fn each_transform_alias_is_validated_key_by_key_as_java_does() {
        let r = Registry::builtin();
        let base = [
            ("name", "s"),
            ("connector.class", "FileStreamSink"),
            ("topics", "t"),
            ("transforms", "ins,x"),
            (
                "transforms.ins.type",
                "org.apache.kafka.connect.transforms.InsertField$Value",
            ),
            ("transforms.ins.static.field", "origin"),
            ("transforms.x.type", "com.example.Nope"),
        ];
        let (infos, _) = config_infos(&r, &props(&base)).unwrap();
        let names: Vec<String> = infos
            .configs
            .iter()
            .filter_map(|c| c.value.as_ref().map(|v| v.name.clone()))
            .filter(|n| n.starts_with("transforms."))
            .collect();
        assert!(
            names.starts_with(&[
                "transforms.ins.type".to_owned(),
                "transforms.ins.plugin.version".to_owned(),
                "transforms.ins.negate".to_owned(),
            ]),
            "{names:?}"
        );
        assert!(names.contains(&"transforms.ins.static.value".to_owned()));
        // An unknown class: its type (as null, with the reason) and version only.
        let x: Vec<&String> = names
            .iter()
            .filter(|n| n.starts_with("transforms.x."))
            .collect();
        assert_eq!(x, ["transforms.x.type", "transforms.x.plugin.version"]);
        let x_type = infos
            .configs
            .iter()
            .find_map(|c| c.value.clone().filter(|v| v.name == "transforms.x.type"))
            .unwrap();
        assert_eq!(x_type.value, None);
        assert_eq!(x_type.errors.len(), 1);
        // InsertField's static.value is checked when the transform is configured, not here.
        assert_eq!(infos.error_count, 1, "only the unknown class");
        assert!(infos.groups.contains(&"Transforms: ins".to_owned()));
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

    #[test]
    fn infos_list_framework_then_connector_keys_with_groups() {
        let (infos, _) = config_infos(
            &Registry::builtin(),
            &props(&[("connector.class", "FileStreamSink")]),
        )
        .unwrap();
        assert_eq!(infos.name, "FileStreamSink");
        // name missing, and neither topics nor topics.regex set (reported on both keys).
        assert_eq!(infos.error_count, 3);
        assert_eq!(
            infos.groups,
            vec!["Common", "Transforms", "Predicates", "Error Handling"]
        );
        assert_eq!(infos.configs[0].definition.as_ref().unwrap().name, "name");
        assert_eq!(
            infos
                .configs
                .last()
                .unwrap()
                .definition
                .as_ref()
                .unwrap()
                .name,
            "file"
        );
    }
}
