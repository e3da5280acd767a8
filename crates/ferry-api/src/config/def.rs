//! Declared configuration keys and validation of a string map against them.

use indexmap::IndexMap;

use crate::config::error::{invalid_value_message, missing_message, KeyProblem};
use crate::config::{ConfigError, ConfigValue, ParsedConfig, Validator};
use crate::ConfigMap;

/// Declared type of a key (Java's `ConfigDef.Type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigType {
    Boolean,
    String,
    Int,
    Short,
    Long,
    Double,
    List,
    Class,
    Password,
}

impl ConfigType {
    /// The type Java's `ConfigDef.Type` name gives (`STRING` for any other).
    pub fn from_java_name(name: &str) -> ConfigType {
        match name {
            "BOOLEAN" => ConfigType::Boolean,
            "INT" => ConfigType::Int,
            "SHORT" => ConfigType::Short,
            "LONG" => ConfigType::Long,
            "DOUBLE" => ConfigType::Double,
            "LIST" => ConfigType::List,
            "CLASS" => ConfigType::Class,
            "PASSWORD" => ConfigType::Password,
            _ => ConfigType::String,
        }
    }

    pub fn java_name(self) -> &'static str {
        match self {
            ConfigType::Boolean => "BOOLEAN",
            ConfigType::String => "STRING",
            ConfigType::Int => "INT",
            ConfigType::Short => "SHORT",
            ConfigType::Long => "LONG",
            ConfigType::Double => "DOUBLE",
            ConfigType::List => "LIST",
            ConfigType::Class => "CLASS",
            ConfigType::Password => "PASSWORD",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Importance {
    High,
    Medium,
    Low,
}

impl Importance {
    /// The importance Java's `ConfigDef.Importance` name gives (`LOW` for any other).
    pub fn from_java_name(name: &str) -> Importance {
        match name {
            "HIGH" => Importance::High,
            "MEDIUM" => Importance::Medium,
            _ => Importance::Low,
        }
    }

    pub fn java_name(self) -> &'static str {
        match self {
            Importance::High => "HIGH",
            Importance::Medium => "MEDIUM",
            Importance::Low => "LOW",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Width {
    None,
    Short,
    Medium,
    Long,
}

impl Width {
    pub fn java_name(self) -> &'static str {
        match self {
            Width::None => "NONE",
            Width::Short => "SHORT",
            Width::Medium => "MEDIUM",
            Width::Long => "LONG",
        }
    }
}

/// A key's default: none (the key is required), null, or a value in string form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DefaultValue {
    Required,
    Null,
    Value(String),
}

/// One declared key.
#[derive(Debug, Clone)]
pub struct ConfigKey {
    pub name: String,
    pub ty: ConfigType,
    pub default: DefaultValue,
    pub validator: Option<Validator>,
    pub importance: Importance,
    pub documentation: String,
    pub group: Option<String>,
    pub order_in_group: i32,
    pub width: Width,
    pub display_name: String,
    pub dependents: Vec<String>,
}

impl ConfigKey {
    pub fn new(
        name: &str,
        ty: ConfigType,
        default: DefaultValue,
        importance: Importance,
        doc: &str,
    ) -> Self {
        ConfigKey {
            name: name.to_owned(),
            ty,
            default,
            validator: None,
            importance,
            documentation: doc.to_owned(),
            group: None,
            order_in_group: -1,
            width: Width::None,
            display_name: name.to_owned(),
            dependents: Vec::new(),
        }
    }

    pub fn validator(mut self, validator: Validator) -> Self {
        self.validator = Some(validator);
        self
    }

    pub fn group(mut self, group: &str, order: i32, width: Width, display_name: &str) -> Self {
        self.group = Some(group.to_owned());
        self.order_in_group = order;
        self.width = width;
        self.display_name = display_name.to_owned();
        self
    }

    /// The default parsed to the key's type; `Err` for a required key.
    fn default_parsed(&self) -> Option<Result<ConfigValue, String>> {
        match &self.default {
            DefaultValue::Required => None,
            DefaultValue::Null => Some(Ok(ConfigValue::Null)),
            DefaultValue::Value(text) => Some(ConfigValue::parse(self.ty, text)),
        }
    }
}

/// What validation found for one key (Java's `ConfigValue`).
#[derive(Debug, Clone, PartialEq)]
pub struct KeyReport {
    pub name: String,
    /// The submitted value, or the default in string form.
    pub value: Option<String>,
    pub recommended_values: Vec<String>,
    pub errors: Vec<String>,
    pub visible: bool,
}

/// A set of declared keys.
#[derive(Debug, Clone, Default)]
pub struct ConfigDef {
    keys: IndexMap<String, ConfigKey>,
}

impl ConfigDef {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn define(mut self, key: ConfigKey) -> Self {
        self.keys.insert(key.name.clone(), key);
        self
    }

    /// Adds every key of `other` (keys already present are replaced).
    pub fn merge(mut self, other: &ConfigDef) -> Self {
        for key in other.keys.values() {
            self.keys.insert(key.name.clone(), key.clone());
        }
        self
    }

    pub fn keys(&self) -> impl Iterator<Item = &ConfigKey> {
        self.keys.values()
    }

    pub fn key(&self, name: &str) -> Option<&ConfigKey> {
        self.keys.get(name)
    }

    /// Parses one key's value from `props`, or its default.
    /// Parses and checks one key. `drop_repeats`: parsing for use drops repeated list items
    /// before a `DistinctList` check (with Java's warning); validation, as Java's
    /// `ConfigDef.validate`, reports them.
    fn parse_key(
        &self,
        key: &ConfigKey,
        props: &ConfigMap,
        drop_repeats: bool,
    ) -> Result<ConfigValue, String> {
        let value = match props.get(&key.name) {
            Some(raw) => ConfigValue::parse(key.ty, raw)
                .map_err(|why| invalid_value_message(&key.name, raw.trim(), &why))?,
            None => match key.default_parsed() {
                None => return Err(missing_message(&key.name)),
                Some(parsed) => parsed.map_err(|why| {
                    invalid_value_message(&key.name, &default_text(&key.default), &why)
                })?,
            },
        };
        let value = match (&key.validator, value) {
            (Some(Validator::DistinctList { .. }), ConfigValue::List(items)) if drop_repeats => {
                ConfigValue::List(without_repeats(&key.name, items))
            }
            (_, value) => value,
        };
        if let Some(validator) = &key.validator {
            if props.contains_key(&key.name) || !value.is_null() {
                validator.check_key(&key.name, &value).map_err(|why| {
                    if validator.gives_whole_message() {
                        why
                    } else {
                        invalid_value_message(&key.name, &display_value(&value), &why)
                    }
                })?;
            }
        }
        Ok(value)
    }

    /// Parses `props`, failing with every bad key at once.
    pub fn parse(&self, props: &ConfigMap) -> Result<ParsedConfig, ConfigError> {
        let mut values = IndexMap::with_capacity(self.keys.len());
        let mut problems = Vec::new();
        for key in self.keys.values() {
            match self.parse_key(key, props, true) {
                Ok(v) => {
                    values.insert(key.name.clone(), v);
                }
                Err(message) => problems.push(KeyProblem {
                    key: key.name.clone(),
                    message,
                }),
            }
        }
        if problems.is_empty() {
            Ok(ParsedConfig {
                values,
                originals: props.clone(),
            })
        } else {
            Err(ConfigError { problems })
        }
    }

    /// Validates every declared key, reporting each one (the validate endpoint's shape).
    pub fn validate(&self, props: &ConfigMap) -> Vec<KeyReport> {
        self.keys
            .values()
            .map(|key| {
                // As Java's ConfigDef.validate: a value that does not parse is reported as
                // null, and the key's validator then judges that null too.
                let unparsable = props
                    .get(&key.name)
                    .and_then(|raw| ConfigValue::parse(key.ty, raw).err().map(|why| (raw, why)));
                let errors = match (&unparsable, &key.validator) {
                    (Some((raw, why)), validator) => {
                        let mut errors = vec![invalid_value_message(&key.name, raw.trim(), why)];
                        if let Some(Err(why)) =
                            validator.as_ref().map(|v| v.check(&ConfigValue::Null))
                        {
                            errors.push(invalid_value_message(&key.name, "null", &why));
                        }
                        errors
                    }
                    (None, _) => match self.parse_key(key, props, false) {
                        Ok(_) => Vec::new(),
                        Err(message) => vec![message],
                    },
                };
                let value = if unparsable.is_some() {
                    None
                } else {
                    props.get(&key.name).cloned().or(match &key.default {
                        DefaultValue::Value(v) => Some(v.clone()),
                        _ => None,
                    })
                };
                let value = match key.ty {
                    ConfigType::Password => value.map(|_| "[hidden]".to_owned()),
                    _ => value,
                };
                KeyReport {
                    name: key.name.clone(),
                    value,
                    recommended_values: Vec::new(),
                    errors,
                    visible: true,
                }
            })
            .collect()
    }
}

/// The list without repeated items, first occurrences kept; Java warns when it drops any.
fn without_repeats(key: &str, items: Vec<String>) -> Vec<String> {
    let mut kept: Vec<String> = Vec::with_capacity(items.len());
    for item in &items {
        if !kept.contains(item) {
            kept.push(item.clone());
        }
    }
    if kept.len() != items.len() {
        tracing::warn!(
            "Configuration key \"{key}\" contains duplicate values. Duplicates will be removed. The original value is: [{}], the updated value is: [{}]",
            items.join(", "),
            kept.join(", ")
        );
    }
    kept
}

fn default_text(default: &DefaultValue) -> String {
    match default {
        DefaultValue::Value(v) => v.clone(),
        _ => "null".to_owned(),
    }
}

/// How Java prints a parsed value in an error message.
fn display_value(value: &ConfigValue) -> String {
    match value {
        ConfigValue::Null => "null".to_owned(),
        ConfigValue::Boolean(b) => b.to_string(),
        ConfigValue::String(s) | ConfigValue::Class(s) => s.clone(),
        ConfigValue::Password(_) => "[hidden]".to_owned(),
        ConfigValue::Int(v) => v.to_string(),
        ConfigValue::Short(v) => v.to_string(),
        ConfigValue::Long(v) => v.to_string(),
        ConfigValue::Double(v) => v.to_string(),
        ConfigValue::List(l) => format!("[{}]", l.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn def() -> ConfigDef {
        ConfigDef::new()
            .define(ConfigKey::new(
                "file",
                ConfigType::String,
                DefaultValue::Required,
                Importance::High,
                "path",
            ))
            .define(
                ConfigKey::new(
                    "batch.size",
                    ConfigType::Int,
                    DefaultValue::Value("2000".into()),
                    Importance::Low,
                    "",
                )
                .validator(Validator::at_least(1.0)),
            )
            .define(ConfigKey::new(
                "flag",
                ConfigType::Boolean,
                DefaultValue::Value("false".into()),
                Importance::Low,
                "",
            ))
            .define(ConfigKey::new(
                "topics",
                ConfigType::List,
                DefaultValue::Value(String::new()),
                Importance::High,
                "",
            ))
    }

    fn props(pairs: &[(&str, &str)]) -> ConfigMap {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn parse_reports_every_bad_key_with_java_wording() {
        let err = def()
            .parse(&props(&[("batch.size", "0"), ("flag", "yes")]))
            .unwrap_err();
        let messages: Vec<_> = err
            .problems
            .iter()
            .map(|p| (p.key.as_str(), p.message.as_str()))
            .collect();
        assert_eq!(
            messages,
            vec![
                ("file", "Missing required configuration \"file\" which has no default value."),
                ("batch.size", "Invalid value 0 for configuration batch.size: Value must be at least 1"),
                ("flag", "Invalid value yes for configuration flag: Expected value to be either true or false"),
            ]
        );
    }

    #[test]
    fn parse_applies_defaults_and_types() {
        let parsed = def()
            .parse(&props(&[("file", " a.txt "), ("topics", "a , b,c")]))
            .unwrap();
        assert_eq!(parsed.string("file").unwrap().as_deref(), Some("a.txt"));
        assert_eq!(parsed.int("batch.size").unwrap(), 2000);
        assert!(!parsed.boolean("flag").unwrap());
        assert_eq!(parsed.list("topics").unwrap(), vec!["a", "b", "c"]);
    }

    #[test]
    fn not_a_number_message() {
        let err = def()
            .parse(&props(&[("file", "x"), ("batch.size", "ten")]))
            .unwrap_err();
        assert_eq!(
            err.problems[0].message,
            "Invalid value ten for configuration batch.size: Not a number of type INT"
        );
    }

    #[test]
    fn validate_reports_each_key() {
        let reports = def().validate(&props(&[("batch.size", "-1")]));
        assert_eq!(reports.len(), 4);
        assert_eq!(reports[0].errors.len(), 1);
        assert_eq!(reports[1].value.as_deref(), Some("-1"));
        assert_eq!(reports[1].errors.len(), 1);
        assert!(reports[2].errors.is_empty());
        assert_eq!(reports[2].value.as_deref(), Some("false"));
    }

    #[test]
    fn validate_reports_an_unparsable_value_as_null_and_validates_that_null() {
        let reports = def().validate(&props(&[("batch.size", "many")]));
        assert_eq!(reports[1].value, None);
        assert_eq!(
            reports[1].errors,
            vec![
                "Invalid value many for configuration batch.size: Not a number of type INT",
                "Invalid value null for configuration batch.size: Value must be non-null",
            ]
        );
    }

    #[test]
    fn distinct_lists_drop_repeats_and_refuse_empty_items_as_java_4_4() {
        let def = ConfigDef::new()
            .define(
                ConfigKey::new(
                    "servers",
                    ConfigType::List,
                    DefaultValue::Required,
                    Importance::High,
                    "",
                )
                .validator(Validator::distinct_list(false, false)),
            )
            .define(
                ConfigKey::new(
                    "topics",
                    ConfigType::List,
                    DefaultValue::Value(String::new()),
                    Importance::High,
                    "",
                )
                .validator(Validator::distinct_list(true, false)),
            );
        let parsed = def
            .parse(&props(&[("servers", "a:1, b:2, a:1"), ("topics", "")]))
            .unwrap();
        assert_eq!(parsed.list("servers").unwrap(), vec!["a:1", "b:2"]);
        assert!(parsed.list("topics").unwrap().is_empty());
        let err = def
            .parse(&props(&[("servers", ""), ("topics", "x,,y")]))
            .unwrap_err();
        let messages: Vec<_> = err.problems.iter().map(|p| p.message.as_str()).collect();
        assert_eq!(
            messages,
            vec![
                "Configuration 'servers' must not be empty. Valid values include: any non-empty value",
                "Configuration 'topics' values must not be empty.",
            ]
        );
        let reports = def.validate(&props(&[("servers", "a:1,"), ("topics", "t,t")]));
        assert_eq!(
            reports[0].errors,
            vec!["Configuration 'servers' values must not be empty."]
        );
        // Validation (the REST validate endpoint, connector creation) reports repeats instead.
        assert_eq!(
            reports[1].errors,
            vec!["Configuration 'topics' values must not be duplicated."]
        );
    }
}
