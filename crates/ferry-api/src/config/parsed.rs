//! Parsed configuration values and typed getters.

use indexmap::IndexMap;

use crate::config::{ConfigError, ConfigType};
use crate::ConfigMap;

/// A value parsed to its declared type.
#[derive(Debug, Clone, PartialEq)]
pub enum ConfigValue {
    Null,
    Boolean(bool),
    String(String),
    Int(i32),
    Short(i16),
    Long(i64),
    Double(f64),
    List(Vec<String>),
    Class(String),
    Password(String),
}

impl ConfigValue {
    pub fn is_null(&self) -> bool {
        matches!(self, ConfigValue::Null)
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            ConfigValue::String(s) | ConfigValue::Class(s) | ConfigValue::Password(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            ConfigValue::Int(v) => Some(v.into()),
            ConfigValue::Short(v) => Some(v.into()),
            ConfigValue::Long(v) => Some(v as f64),
            ConfigValue::Double(v) => Some(v),
            _ => None,
        }
    }

    /// Parses `raw` as `ty`, with Java's trimming rules; the error is Java's reason text.
    pub fn parse(ty: ConfigType, raw: &str) -> Result<Self, String> {
        let trimmed = raw.trim();
        let number_error = || format!("Not a number of type {}", ty.java_name());
        Ok(match ty {
            ConfigType::Boolean => {
                if trimmed.eq_ignore_ascii_case("true") {
                    ConfigValue::Boolean(true)
                } else if trimmed.eq_ignore_ascii_case("false") {
                    ConfigValue::Boolean(false)
                } else {
                    return Err("Expected value to be either true or false".to_owned());
                }
            }
            ConfigType::String => ConfigValue::String(trimmed.to_owned()),
            ConfigType::Int => ConfigValue::Int(trimmed.parse().map_err(|_| number_error())?),
            ConfigType::Short => ConfigValue::Short(trimmed.parse().map_err(|_| number_error())?),
            ConfigType::Long => ConfigValue::Long(trimmed.parse().map_err(|_| number_error())?),
            ConfigType::Double => ConfigValue::Double(trimmed.parse().map_err(|_| number_error())?),
            ConfigType::List => ConfigValue::List(split_list(trimmed)),
            ConfigType::Class => ConfigValue::Class(trimmed.to_owned()),
            ConfigType::Password => ConfigValue::Password(raw.to_owned()),
        })
    }
}

/// Splits a comma-separated list, trimming around commas; an empty string is an empty list.
pub fn split_list(text: &str) -> Vec<String> {
    let text = text.trim();
    if text.is_empty() {
        return Vec::new();
    }
    text.split(',').map(|s| s.trim().to_owned()).collect()
}

/// A configuration after parsing: typed values for declared keys, plus the originals.
#[derive(Debug, Clone, Default)]
pub struct ParsedConfig {
    pub(crate) values: IndexMap<String, ConfigValue>,
    pub(crate) originals: ConfigMap,
}

impl ParsedConfig {
    pub fn originals(&self) -> &ConfigMap {
        &self.originals
    }

    pub fn get(&self, key: &str) -> Option<&ConfigValue> {
        self.values.get(key)
    }

    fn typed<T>(
        &self,
        key: &str,
        pick: impl Fn(&ConfigValue) -> Option<T>,
    ) -> Result<T, ConfigError> {
        self.values.get(key).and_then(pick).ok_or_else(|| {
            ConfigError::single(key, format!("Unknown configuration or wrong type: {key}"))
        })
    }

    /// A string (or class, or password) value; `None` when it is null.
    pub fn string(&self, key: &str) -> Result<Option<String>, ConfigError> {
        self.typed(key, |v| match v {
            ConfigValue::Null => Some(None),
            other => other.as_str().map(|s| Some(s.to_owned())),
        })
    }

    pub fn int(&self, key: &str) -> Result<i32, ConfigError> {
        self.typed(key, |v| {
            if let ConfigValue::Int(i) = v {
                Some(*i)
            } else {
                None
            }
        })
    }

    pub fn short(&self, key: &str) -> Result<i16, ConfigError> {
        self.typed(key, |v| {
            if let ConfigValue::Short(i) = v {
                Some(*i)
            } else {
                None
            }
        })
    }

    pub fn long(&self, key: &str) -> Result<i64, ConfigError> {
        self.typed(key, |v| {
            if let ConfigValue::Long(i) = v {
                Some(*i)
            } else {
                None
            }
        })
    }

    pub fn boolean(&self, key: &str) -> Result<bool, ConfigError> {
        self.typed(key, |v| {
            if let ConfigValue::Boolean(b) = v {
                Some(*b)
            } else {
                None
            }
        })
    }

    pub fn list(&self, key: &str) -> Result<Vec<String>, ConfigError> {
        self.typed(key, |v| match v {
            ConfigValue::List(l) => Some(l.clone()),
            ConfigValue::Null => Some(Vec::new()),
            _ => None,
        })
    }

    /// Originals whose key starts with `prefix`, with the prefix removed.
    pub fn originals_with_prefix(&self, prefix: &str) -> ConfigMap {
        self.originals
            .iter()
            .filter_map(|(k, v)| {
                k.strip_prefix(prefix)
                    .map(|rest| (rest.to_owned(), v.clone()))
            })
            .collect()
    }
}
