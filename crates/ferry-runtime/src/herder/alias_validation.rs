//! The keys of each transform and predicate alias in the validate endpoint's answer, as Java's
//! `ConnectorConfig.enrich` lists them: a group `Transforms: <alias>` (or `Predicates: <alias>`)
//! with the alias's `type` and `plugin.version`, then the framework's alias keys and the plugin's
//! own keys, prefixed and in name order, each validated by the plugin's definition.

use ferry_api::config::{
    split_list, ConfigDef, ConfigKey, ConfigType, DefaultValue, Importance, KeyReport, Width,
};
use ferry_api::ConfigMap;

use super::validation::ConfigInfo;
use crate::config::connector::{PREDICATES, TRANSFORMS};
use crate::plugins::{PluginKind, Registry};

/// Transforms or predicates.
#[derive(Clone, Copy)]
enum AliasKind {
    Transform,
    Predicate,
}

impl AliasKind {
    fn list_key(self) -> &'static str {
        match self {
            AliasKind::Transform => TRANSFORMS,
            AliasKind::Predicate => PREDICATES,
        }
    }

    /// `Transforms` or `Predicates`, for the group name.
    fn group(self) -> &'static str {
        match self {
            AliasKind::Transform => "Transforms",
            AliasKind::Predicate => "Predicates",
        }
    }

    /// `transformation` or `predicate`, for documentation and display names.
    fn noun(self) -> &'static str {
        match self {
            AliasKind::Transform => "transformation",
            AliasKind::Predicate => "predicate",
        }
    }

    fn plugin_kind(self) -> PluginKind {
        match self {
            AliasKind::Transform => PluginKind::Transformation,
            AliasKind::Predicate => PluginKind::Predicate,
        }
    }
}

/// The keys every transform alias has besides the transformation's own.
fn framework_transform_keys() -> Vec<ConfigKey> {
    vec![
        ConfigKey::new(
            "negate",
            ConfigType::Boolean,
            DefaultValue::Value("false".to_owned()),
            Importance::Medium,
            "Whether the configured predicate should be negated.",
        ),
        ConfigKey::new(
            "predicate",
            ConfigType::String,
            DefaultValue::Null,
            Importance::Medium,
            "The alias of a predicate used to determine whether to apply this transformation.",
        ),
    ]
}

/// What this worker knows of a plugin class: its version and definition, or nothing.
fn plugin_of(registry: &Registry, kind: AliasKind, class: &str) -> Option<(String, ConfigDef)> {
    let native = match kind {
        AliasKind::Transform => registry
            .transformation(class)
            .map(|p| (p.create)().config_def()),
        AliasKind::Predicate => registry.predicate(class).map(|p| (p.create)().config_def()),
    };
    if let Some(def) = native {
        return Some((crate::KAFKA_CONNECT_VERSION.to_owned(), def));
    }
    let hosted = registry
        .hosted_other(class)
        .filter(|p| p.kind == kind.plugin_kind())?;
    let def = (hosted.config)().unwrap_or_default();
    Some((hosted.version.clone(), def))
}

/// Every class of the kind, as Java recommends them for `<alias>.type`.
fn classes(registry: &Registry, kind: AliasKind) -> Vec<String> {
    let mut out: Vec<String> = match kind {
        AliasKind::Transform => registry
            .transformations
            .iter()
            .map(|p| p.class_name.to_owned())
            .collect(),
        AliasKind::Predicate => registry
            .predicates
            .iter()
            .map(|p| p.class_name.to_owned())
            .collect(),
    };
    out.extend(
        registry
            .hosted_others
            .iter()
            .filter(|p| p.kind == kind.plugin_kind())
            .map(|p| p.class_name.clone()),
    );
    out.sort();
    out.dedup();
    out
}

fn report(name: String, value: Option<String>, recommended: Vec<String>) -> KeyReport {
    KeyReport {
        name,
        value,
        recommended_values: recommended,
        errors: Vec::new(),
        visible: true,
    }
}

/// The reports of every alias of `config`, transforms first.
pub(crate) fn alias_infos(registry: &Registry, config: &ConfigMap) -> Vec<ConfigInfo> {
    let mut out = Vec::new();
    for kind in [AliasKind::Transform, AliasKind::Predicate] {
        let aliases = config
            .get(kind.list_key())
            .map(|v| split_list(v))
            .unwrap_or_default();
        for alias in aliases {
            out.extend(one_alias(registry, config, kind, &alias));
        }
    }
    out
}

fn one_alias(
    registry: &Registry,
    config: &ConfigMap,
    kind: AliasKind,
    alias: &str,
) -> Vec<ConfigInfo> {
    let prefix = format!("{}.{alias}.", kind.list_key());
    let group = format!("{}: {alias}", kind.group());
    let noun = kind.noun();
    let type_key = format!("{prefix}type");
    let class = config.get(&type_key).map(|c| c.trim().to_owned());
    let plugin = class.as_deref().and_then(|c| plugin_of(registry, kind, c));
    let mut out = Vec::new();

    let type_definition = ConfigKey::new(
        &type_key,
        ConfigType::Class,
        DefaultValue::Required,
        Importance::High,
        &format!("Class for the '{alias}' {noun}."),
    )
    .group(
        &group,
        0,
        Width::Long,
        &format!("{} type for {alias}", capitalized(noun)),
    );
    // An unknown class is reported as null, as Java cannot load it.
    let type_value = class.clone().filter(|_| plugin.is_some());
    out.push(ConfigInfo {
        definition: Some(type_definition),
        value: Some(report(type_key, type_value, classes(registry, kind))),
    });

    let version_key = format!("{prefix}plugin.version");
    let version = plugin.as_ref().map(|(v, _)| v.clone());
    let version_definition = ConfigKey::new(
        &version_key,
        ConfigType::String,
        version
            .clone()
            .map_or(DefaultValue::Null, DefaultValue::Value),
        Importance::High,
        &format!("Version of the '{alias}' {noun}."),
    )
    .group(
        &group,
        1,
        Width::Long,
        &format!("{} version for {alias}", capitalized(noun)),
    );
    let asked = config.get(&version_key).cloned();
    let mut version_report = report(
        version_key.clone(),
        asked.clone().or_else(|| version.clone()),
        version.iter().cloned().collect(),
    );
    if let (Some(asked), Some(version)) = (asked, &version) {
        if asked.trim() != version {
            version_report.errors.push(format!(
                "Invalid value {} for configuration {version_key}: this worker has version {version} only",
                asked.trim()
            ));
        }
    }
    out.push(ConfigInfo {
        definition: Some(version_definition),
        value: Some(version_report),
    });

    // The framework's alias keys and the plugin's own, in name order, each under the prefix;
    // as in Java, none for a class that cannot be loaded.
    let Some((_, plugin_def)) = &plugin else {
        return out;
    };
    let mut keys: Vec<ConfigKey> = match kind {
        AliasKind::Transform => framework_transform_keys(),
        AliasKind::Predicate => Vec::new(),
    };
    let own_keys: Vec<ConfigKey> = plugin_def
        .keys()
        .filter(|k| !keys_contain(&keys, &k.name))
        .cloned()
        .collect();
    keys.extend(own_keys);
    keys.sort_by(|a, b| a.name.cmp(&b.name));
    let own: ConfigMap = config
        .iter()
        .filter_map(|(k, v)| {
            k.strip_prefix(&prefix)
                .map(|rest| (rest.to_owned(), v.clone()))
        })
        .collect();
    let def = keys
        .iter()
        .cloned()
        .fold(ConfigDef::new(), |def, key| def.define(key));
    let reports = def.validate(&own);
    for (i, (key, mut value)) in keys.into_iter().zip(reports).enumerate() {
        let display = key.name.clone();
        let name = format!("{prefix}{}", key.name);
        let mut definition = key.group(&group, i as i32 + 2, Width::None, &display);
        definition.name.clone_from(&name);
        value.name = name;
        out.push(ConfigInfo {
            definition: Some(definition),
            value: Some(value),
        });
    }
    out
}

fn keys_contain(keys: &[ConfigKey], name: &str) -> bool {
    keys.iter().any(|k| k.name == name)
}

fn capitalized(noun: &str) -> String {
    let mut chars = noun.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}
