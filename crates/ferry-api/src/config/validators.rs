//! Value validators with Java's messages.

use std::fmt;
use std::sync::Arc;

use crate::config::ConfigValue;

/// A custom rule's check: `Err` carries the reason a value is wrong.
pub type CustomCheck = Arc<dyn Fn(&ConfigValue) -> Result<(), String> + Send + Sync>;

/// A check run on a parsed value; returns the reason a value is wrong.
#[derive(Clone)]
pub enum Validator {
    /// Numbers at least `min` and/or at most `max` (Java's `Range`).
    Range { min: Option<f64>, max: Option<f64> },
    /// One of a fixed set of strings (Java's `ValidString.in`).
    OneOf(Vec<String>),
    /// One of a set, ignoring case (Java's `CaseInsensitiveValidString`).
    OneOfIgnoreCase(Vec<String>),
    /// Non-empty strings (Java's `NonEmptyString`).
    NonEmptyString,
    /// Non-null (Java's `NonNullValidator`).
    NonNull,
    /// A list of distinct, non-empty items (Java's `ValidList.anyNonDuplicateValues`, Kafka
    /// 4.2's KIP-1161). Parsing drops repeated items first, with a warning, as Java does; its
    /// messages are whole sentences of their own, not reasons after "Invalid value".
    DistinctList {
        empty_allowed: bool,
        null_allowed: bool,
        /// The items allowed (Java's `ValidList.in`); any item when empty.
        allowed: Vec<String>,
    },
    /// A custom rule; the description shows in the validate endpoint's documentation.
    Custom {
        description: String,
        check: CustomCheck,
    },
}

impl Validator {
    pub fn at_least(min: f64) -> Self {
        Validator::Range {
            min: Some(min),
            max: None,
        }
    }

    pub fn between(min: f64, max: f64) -> Self {
        Validator::Range {
            min: Some(min),
            max: Some(max),
        }
    }

    pub fn one_of(values: &[&str]) -> Self {
        Validator::OneOf(values.iter().map(|s| (*s).to_owned()).collect())
    }

    /// Java's `ValidList.anyNonDuplicateValues(empty_allowed, null_allowed)`.
    pub fn distinct_list(empty_allowed: bool, null_allowed: bool) -> Self {
        Validator::DistinctList {
            empty_allowed,
            null_allowed,
            allowed: Vec::new(),
        }
    }

    /// Java's `ValidList.in(empty_allowed, values…)`: distinct items, each one of `values`.
    pub fn list_of(empty_allowed: bool, values: &[&str]) -> Self {
        Validator::DistinctList {
            empty_allowed,
            null_allowed: false,
            allowed: values.iter().map(|s| (*s).to_owned()).collect(),
        }
    }

    /// Whether the reason `check` gives is Java's whole message (not one to put after
    /// "Invalid value … for configuration …:").
    pub fn gives_whole_message(&self) -> bool {
        matches!(self, Validator::DistinctList { .. })
    }

    /// `check` for a key: Java's whole message naming `key`.
    pub fn check_key(&self, key: &str, value: &ConfigValue) -> Result<(), String> {
        let Validator::DistinctList {
            empty_allowed,
            null_allowed,
            allowed,
        } = self
        else {
            return self.check(value);
        };
        match value {
            ConfigValue::List(items) => {
                let unknown = (!allowed.is_empty())
                    .then(|| items.iter().find(|i| !allowed.contains(i)))
                    .flatten();
                if !empty_allowed && items.is_empty() {
                    let valid = if allowed.is_empty() {
                        "any non-empty value".to_owned()
                    } else {
                        format!("[{}]", allowed.join(", "))
                    };
                    Err(format!(
                        "Configuration '{key}' must not be empty. Valid values include: {valid}"
                    ))
                } else if items
                    .iter()
                    .enumerate()
                    .any(|(i, a)| items[..i].contains(a))
                {
                    Err(format!(
                        "Configuration '{key}' values must not be duplicated."
                    ))
                } else if items.iter().any(String::is_empty) {
                    Err(format!("Configuration '{key}' values must not be empty."))
                } else if let Some(item) = unknown {
                    Err(format!(
                        "Invalid value {item} for configuration {key}: String must be one of: {}",
                        allowed.join(", ")
                    ))
                } else {
                    Ok(())
                }
            }
            ConfigValue::Null if !null_allowed => {
                Err(format!("Configuration '{key}' values must not be null."))
            }
            _ => Ok(()),
        }
    }

    pub fn one_of_ignore_case(values: &[&str]) -> Self {
        Validator::OneOfIgnoreCase(values.iter().map(|s| (*s).to_owned()).collect())
    }

    /// Checks `value`, answering with Java's reason text on failure.
    pub fn check(&self, value: &ConfigValue) -> Result<(), String> {
        match self {
            Validator::Range { min, max } => {
                let Some(n) = value.as_f64() else {
                    return if value.is_null() {
                        Err("Value must be non-null".to_owned())
                    } else {
                        Ok(())
                    };
                };
                if let Some(min) = min {
                    if n < *min {
                        return Err(format!("Value must be at least {}", number_text(*min)));
                    }
                }
                if let Some(max) = max {
                    if n > *max {
                        return Err(format!("Value must be no more than {}", number_text(*max)));
                    }
                }
                Ok(())
            }
            Validator::OneOf(allowed) => match value.as_str() {
                Some(s) if allowed.iter().any(|a| a == s) => Ok(()),
                _ => Err(format!("String must be one of: {}", allowed.join(", "))),
            },
            Validator::OneOfIgnoreCase(allowed) => match value.as_str() {
                Some(s) if allowed.iter().any(|a| a.eq_ignore_ascii_case(s)) => Ok(()),
                _ => Err(format!(
                    "String must be one of (case insensitive): {}",
                    allowed.join(", ")
                )),
            },
            Validator::NonEmptyString => match value.as_str() {
                Some(s) if !s.is_empty() => Ok(()),
                _ => Err("String must be non-empty".to_owned()),
            },
            Validator::NonNull => {
                if value.is_null() {
                    Err("Value must be non-null".to_owned())
                } else {
                    Ok(())
                }
            }
            Validator::DistinctList { .. } => self.check_key("", value),
            Validator::Custom { check, .. } => check(value),
        }
    }
}

fn number_text(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        n.to_string()
    }
}

impl fmt::Display for Validator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Validator::Range {
                min: Some(min),
                max: None,
            } => write!(f, "[{},...]", number_text(*min)),
            Validator::Range {
                min: None,
                max: Some(max),
            } => write!(f, "[...,{}]", number_text(*max)),
            Validator::Range {
                min: Some(min),
                max: Some(max),
            } => {
                write!(f, "[{},...,{}]", number_text(*min), number_text(*max))
            }
            Validator::Range {
                min: None,
                max: None,
            } => f.write_str("[...]"),
            Validator::OneOf(v) => write!(f, "[{}]", v.join(", ")),
            Validator::OneOfIgnoreCase(v) => write!(f, "(case insensitive) [{}]", v.join(", ")),
            Validator::NonEmptyString => f.write_str("non-empty string"),
            Validator::NonNull => f.write_str("non-null value"),
            // Java's ValidList describes itself by its fixed values, "" without.
            Validator::DistinctList { allowed, .. } if allowed.is_empty() => Ok(()),
            Validator::DistinctList { allowed, .. } => write!(f, "[{}]", allowed.join(", ")),
            Validator::Custom { description, .. } => f.write_str(description),
        }
    }
}

impl fmt::Debug for Validator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Validator({self})")
    }
}
