//! `converter.type`, the key every Connect converter config shares (Java's `ConverterConfig`).

use ferry_api::config::{
    ConfigDef, ConfigKey, ConfigType, DefaultValue, Importance, ParsedConfig, Validator,
};
use ferry_api::converter::ConverterType;
use ferry_api::error::Result;
use ferry_api::ConfigMap;

/// Which role the converter plays: `key`, `value` or `header`.
pub const TYPE_CONFIG: &str = "converter.type";

/// The definition every converter's config starts from.
pub fn converter_config_def() -> ConfigDef {
    let roles = [
        ConverterType::Key,
        ConverterType::Value,
        ConverterType::Header,
    ];
    let names: Vec<&str> = roles.iter().map(|r| r.config_value()).collect();
    ConfigDef::new().define(
        ConfigKey::new(
            TYPE_CONFIG,
            ConfigType::String,
            DefaultValue::Required,
            Importance::Low,
            "How this converter will be used.",
        )
        .validator(Validator::one_of(&names)),
    )
}

/// Parses `configs` for a key or value converter, whose role Java always fills in itself.
pub fn parse_for_data(def: &ConfigDef, configs: &ConfigMap, is_key: bool) -> Result<ParsedConfig> {
    let role = if is_key {
        ConverterType::Key
    } else {
        ConverterType::Value
    };
    let mut props = configs.clone();
    props.insert(TYPE_CONFIG.to_owned(), role.config_value().to_owned());
    Ok(def.parse(&props)?)
}

/// Parses `configs` for a header converter. Java's worker passes `converter.type=header`; when a
/// caller leaves it out Ferry assumes that rather than failing, but a wrong role is still rejected.
pub fn parse_for_header(def: &ConfigDef, configs: &ConfigMap) -> Result<ParsedConfig> {
    let mut props = configs.clone();
    props
        .entry(TYPE_CONFIG.to_owned())
        .or_insert_with(|| ConverterType::Header.config_value().to_owned());
    Ok(def.parse(&props)?)
}

/// Whether a parsed config is for a key converter (decides which `key.`/`value.` overrides apply).
pub fn is_key(parsed: &ParsedConfig) -> bool {
    matches!(parsed.string(TYPE_CONFIG), Ok(Some(role)) if role == ConverterType::Key.config_value())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_role_is_assumed_but_checked() {
        let def = converter_config_def();
        let parsed = parse_for_header(&def, &ConfigMap::new()).unwrap();
        assert!(!is_key(&parsed));
        let mut bad = ConfigMap::new();
        bad.insert(TYPE_CONFIG.into(), "sideways".into());
        let err = parse_for_header(&def, &bad).unwrap_err();
        assert_eq!(
            err.to_string(),
            "Invalid value sideways for configuration converter.type: String must be one of: key, value, header"
        );
    }

    #[test]
    fn data_role_overrides_whatever_was_passed() {
        let def = converter_config_def();
        let mut props = ConfigMap::new();
        props.insert(TYPE_CONFIG.into(), "sideways".into());
        assert!(is_key(&parse_for_data(&def, &props, true).unwrap()));
        assert!(!is_key(&parse_for_data(&def, &props, false).unwrap()));
    }
}
