//! Converters between Connect data and the bytes stored in Kafka.

use crate::config::ConfigDef;
use crate::data::{SchemaAndValue, SchemaRef, Value};
use crate::error::Result;
use crate::ConfigMap;

/// Which part of a record a converter handles (Java's `ConverterType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConverterType {
    Key,
    Value,
    Header,
}

impl ConverterType {
    pub fn config_value(self) -> &'static str {
        match self {
            ConverterType::Key => "key",
            ConverterType::Value => "value",
            ConverterType::Header => "header",
        }
    }
}

/// Converts keys or values (Java's `Converter`). Configured once, then shared by a task.
/// The `from_`/`to_` method names are Java's, kept so the API reads like the one plugin authors know.
#[allow(clippy::wrong_self_convention)]
pub trait Converter: Send + Sync {
    fn configure(&mut self, configs: &ConfigMap, is_key: bool) -> Result<()>;

    fn config_def(&self) -> ConfigDef {
        ConfigDef::new()
    }

    /// Serialises a value; `None` is a null (tombstone) payload.
    fn from_connect_data(
        &self,
        topic: &str,
        schema: Option<&SchemaRef>,
        value: &Value,
    ) -> Result<Option<Vec<u8>>>;

    /// Deserialises a payload; a null payload gives the converter's null.
    fn to_connect_data(&self, topic: &str, bytes: Option<&[u8]>) -> Result<SchemaAndValue>;
}

/// Converts header values (Java's `HeaderConverter`).
#[allow(clippy::wrong_self_convention)]
pub trait HeaderConverter: Send + Sync {
    fn configure(&mut self, configs: &ConfigMap) -> Result<()>;

    fn config_def(&self) -> ConfigDef {
        ConfigDef::new()
    }

    fn from_connect_header(
        &self,
        topic: &str,
        key: &str,
        schema: Option<&SchemaRef>,
        value: &Value,
    ) -> Result<Option<Vec<u8>>>;

    fn to_connect_header(
        &self,
        topic: &str,
        key: &str,
        bytes: Option<&[u8]>,
    ) -> Result<SchemaAndValue>;
}
