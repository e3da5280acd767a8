//! Configuration errors that name every bad key.

use std::fmt;

/// One problem with one configuration key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyProblem {
    pub key: String,
    pub message: String,
}

/// Invalid configuration: every problem found, in declaration order.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct ConfigError {
    pub problems: Vec<KeyProblem>,
}

impl ConfigError {
    pub fn single(key: impl Into<String>, message: impl Into<String>) -> Self {
        ConfigError {
            problems: vec![KeyProblem {
                key: key.into(),
                message: message.into(),
            }],
        }
    }

    /// Java's `ConfigException(name, value, message)` wording.
    pub fn invalid_value(key: &str, value: &str, message: &str) -> Self {
        Self::single(key, invalid_value_message(key, value, message))
    }
}

/// `Invalid value <v> for configuration <k>: <why>`, as Java words it.
pub fn invalid_value_message(key: &str, value: &str, why: &str) -> String {
    if why.is_empty() {
        format!("Invalid value {value} for configuration {key}")
    } else {
        format!("Invalid value {value} for configuration {key}: {why}")
    }
}

pub(crate) fn missing_message(key: &str) -> String {
    format!("Missing required configuration \"{key}\" which has no default value.")
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let messages: Vec<&str> = self.problems.iter().map(|p| p.message.as_str()).collect();
        f.write_str(&messages.join("; "))
    }
}
