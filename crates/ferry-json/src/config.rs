//! The JsonConverter's settings (Java's `JsonConverterConfig`, which also carries the
//! `converter.type` key every converter config has).

use ferry_api::config::{
    ConfigDef, ConfigKey, ConfigType, DefaultValue, Importance, Validator, Width,
};
use ferry_api::converter::ConverterType;
use ferry_api::{ConfigMap, ConnectError};

pub const CONVERTER_TYPE_CONFIG: &str = "converter.type";
pub const SCHEMAS_ENABLE_CONFIG: &str = "schemas.enable";
pub const SCHEMAS_CACHE_SIZE_CONFIG: &str = "schemas.cache.size";
/// Kafka 4.2 (KIP-1054): one schema for every message, which is then plain JSON.
pub const SCHEMA_CONTENT_CONFIG: &str = "schema.content";
pub const DECIMAL_FORMAT_CONFIG: &str = "decimal.format";
pub const REPLACE_NULL_WITH_DEFAULT_CONFIG: &str = "replace.null.with.default";

/// How Decimal values are written (Java's `DecimalFormat`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecimalFormat {
    /// Base64 text of the unscaled value's two's-complement bytes.
    Base64,
    /// A plain JSON number.
    Numeric,
}

/// Parsed JsonConverter settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonConverterConfig {
    pub converter_type: ConverterType,
    pub schemas_enable: bool,
    pub schemas_cache_size: i32,
    /// `schema.content`: the schema (as JSON text) of every message read while
    /// `schemas.enable` is true; absent or empty when messages carry their own.
    pub schema_content: Option<String>,
    pub decimal_format: DecimalFormat,
    pub replace_null_with_default: bool,
}

impl Default for JsonConverterConfig {
    fn default() -> Self {
        JsonConverterConfig {
            converter_type: ConverterType::Value,
            schemas_enable: true,
            schemas_cache_size: 1000,
            schema_content: None,
            decimal_format: DecimalFormat::Base64,
            replace_null_with_default: true,
        }
    }
}

impl JsonConverterConfig {
    /// The declared keys, in Java's order.
    pub fn config_def() -> ConfigDef {
        ConfigDef::new()
            .define(
                ConfigKey::new(
                    CONVERTER_TYPE_CONFIG,
                    ConfigType::String,
                    DefaultValue::Required,
                    Importance::Low,
                    "What this converter is used for: record keys, record values or headers.",
                )
                .validator(Validator::one_of(&["key", "value", "header"])),
            )
            .define(
                ConfigKey::new(
                    SCHEMAS_ENABLE_CONFIG,
                    ConfigType::Boolean,
                    DefaultValue::Value("true".into()),
                    Importance::High,
                    "Whether each serialized key and value carries its schema alongside the data.",
                )
                .group("Schemas", 0, Width::Medium, "Enable Schemas"),
            )
            .define(
                ConfigKey::new(
                    SCHEMAS_CACHE_SIZE_CONFIG,
                    ConfigType::Int,
                    DefaultValue::Value("1000".into()),
                    Importance::High,
                    "How many schemas this converter instance keeps cached at most.",
                )
                .group("Schemas", 1, Width::Medium, "Schema Cache Size"),
            )
            .define(
                ConfigKey::new(
                    SCHEMA_CONTENT_CONFIG,
                    ConfigType::String,
                    DefaultValue::Null,
                    Importance::High,
                    "When set, this is used as the schema for all messages, and the schemas within each of the message will be ignored.Otherwise, the schema will be included in the content of each message. This configuration applies only 'schemas.enable' is true, and it exclusively affects the sink connector.",
                )
                .group("Schemas", 2, Width::Medium, "Schema Content"),
            )
            .define(
                ConfigKey::new(
                    DECIMAL_FORMAT_CONFIG,
                    ConfigType::String,
                    DefaultValue::Value("BASE64".into()),
                    Importance::Low,
                    "The form decimals are serialized in: 'BASE64' (the default) or 'NUMERIC'. Case does not matter.",
                )
                .validator(Validator::one_of_ignore_case(&["BASE64", "NUMERIC"]))
                .group("Serialization", 0, Width::Medium, "Decimal Format"),
            )
            .define(
                ConfigKey::new(
                    REPLACE_NULL_WITH_DEFAULT_CONFIG,
                    ConfigType::Boolean,
                    DefaultValue::Value("true".into()),
                    Importance::Low,
                    "When a field is null and its schema has a default, use the default (true) or keep the null (false).",
                )
                .group("Serialization", 1, Width::Medium, "Replace null with default"),
            )
    }

    /// Parses `props`, which must include `converter.type`.
    pub fn parse(props: &ConfigMap) -> Result<Self, ConnectError> {
        let parsed = Self::config_def().parse(props)?;
        let converter_type = match parsed.string(CONVERTER_TYPE_CONFIG)?.as_deref() {
            Some("key") => ConverterType::Key,
            Some("header") => ConverterType::Header,
            _ => ConverterType::Value,
        };
        let decimal_format = match parsed.string(DECIMAL_FORMAT_CONFIG)? {
            Some(s) if s.eq_ignore_ascii_case("NUMERIC") => DecimalFormat::Numeric,
            _ => DecimalFormat::Base64,
        };
        Ok(JsonConverterConfig {
            converter_type,
            schemas_enable: parsed.boolean(SCHEMAS_ENABLE_CONFIG)?,
            schemas_cache_size: parsed.int(SCHEMAS_CACHE_SIZE_CONFIG)?,
            schema_content: parsed
                .string(SCHEMA_CONTENT_CONFIG)?
                .filter(|s| !s.is_empty()),
            decimal_format,
            replace_null_with_default: parsed.boolean(REPLACE_NULL_WITH_DEFAULT_CONFIG)?,
        })
    }

    /// Parses `props` with `converter.type` forced to `kind`, as Java's `configure(map, isKey)`.
    pub fn parse_as(props: &ConfigMap, kind: ConverterType) -> Result<Self, ConnectError> {
        let mut props = props.clone();
        props.insert(
            CONVERTER_TYPE_CONFIG.to_owned(),
            kind.config_value().to_owned(),
        );
        Self::parse(&props)
    }
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
    fn defaults() {
        let c = JsonConverterConfig::parse_as(&ConfigMap::new(), ConverterType::Key).unwrap();
        assert_eq!(
            c,
            JsonConverterConfig {
                converter_type: ConverterType::Key,
                ..JsonConverterConfig::default()
            }
        );
    }

    #[test]
    fn decimal_format_is_case_insensitive() {
        let c = JsonConverterConfig::parse_as(
            &props(&[("decimal.format", "numeric"), ("schemas.enable", "false")]),
            ConverterType::Value,
        )
        .unwrap();
        assert_eq!(c.decimal_format, DecimalFormat::Numeric);
        assert!(!c.schemas_enable);
    }

    #[test]
    fn bad_values_use_java_messages() {
        let err = JsonConverterConfig::parse_as(
            &props(&[("decimal.format", "hex"), ("schemas.cache.size", "many")]),
            ConverterType::Value,
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "Invalid value many for configuration schemas.cache.size: Not a number of type INT; \
             Invalid value hex for configuration decimal.format: String must be one of (case insensitive): BASE64, NUMERIC"
        );
        let err = JsonConverterConfig::parse(&ConfigMap::new()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "Missing required configuration \"converter.type\" which has no default value."
        );
    }

    #[test]
    fn keys_in_java_order() {
        let names: Vec<_> = JsonConverterConfig::config_def()
            .keys()
            .map(|k| k.name.clone())
            .collect();
        assert_eq!(
            names,
            [
                "converter.type",
                "schemas.enable",
                "schemas.cache.size",
                "schema.content",
                "decimal.format",
                "replace.null.with.default"
            ]
        );
    }
}
