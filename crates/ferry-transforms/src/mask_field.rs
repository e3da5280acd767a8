//! `MaskField$Key` / `MaskField$Value`: replaces named top-level fields with an empty value of
//! their type (0, false, "", empty list or map), or with a configured replacement.

use ferry_api::config::{ConfigDef, ConfigKey, ConfigType, DefaultValue, Importance, Validator};
use ferry_api::data::{check_field_value, check_null_allowed, Decimal, Schema, Struct, Value};
use ferry_api::java::temporal::Temporal;
use ferry_api::transform::{Record, Transformation};
use ferry_api::{ConfigMap, ConnectError};

use crate::cast::{
    decimal_double_value, decimal_long_value, java_class_text, parse_java_big_decimal,
};
use crate::util::{rebuilt_values, require_map, require_struct, struct_field_value, Part};

pub const FIELDS_CONFIG: &str = "fields";
pub const REPLACEMENT_CONFIG: &str = "replacement";
pub const REPLACE_NULL_WITH_DEFAULT_CONFIG: &str = "replace.null.with.default";

const PURPOSE: &str = "mask fields";

#[derive(Debug, Clone)]
struct MaskConfig {
    /// Field names in configured order, without repeats.
    fields: Vec<String>,
    replacement: Option<String>,
    replace_null_with_default: bool,
}

/// Java's `MaskField` transform for one part of the record.
pub struct MaskField {
    part: Part,
    config: Option<MaskConfig>,
}

impl MaskField {
    pub fn new(part: Part) -> Self {
        MaskField { part, config: None }
    }
}

/// The empty value of a value's type; logical dates and times become the epoch.
fn mask_with_empty(value: &Value) -> Result<Value, ConnectError> {
    Ok(match value {
        Value::Boolean(_) => Value::Boolean(false),
        Value::Int8(_) => Value::Int8(0),
        Value::Int16(_) => Value::Int16(0),
        Value::Int32(_) => Value::Int32(0),
        Value::Int64(_) => Value::Int64(0),
        Value::Float32(_) => Value::Float32(0.0),
        Value::Float64(_) => Value::Float64(0.0),
        Value::Decimal(_) => Value::Decimal(Decimal::new(0, 0)),
        Value::String(_) => Value::String(String::new()),
        Value::Array(_) => Value::Array(Vec::new()),
        Value::Map(_) => Value::Map(Vec::new()),
        other => {
            return Err(ConnectError::data(format!(
                "Cannot mask value of type: {}",
                java_class_text(other)
            )))
        }
    })
}

/// Java's `Values.convertToLong(null, text)` family: any decimal text, fraction dropped.
fn replacement_long(text: &str) -> Result<i64, ConnectError> {
    parse_java_big_decimal(text)
        .map(|d| decimal_long_value(&d))
        .ok_or_else(|| not_a_number(text, "a number"))
}

fn replacement_double(text: &str) -> Result<f64, ConnectError> {
    parse_java_big_decimal(text)
        .map(|d| decimal_double_value(&d))
        .ok_or_else(|| not_a_number(text, "a number"))
}

fn not_a_number(text: &str, what: &str) -> ConnectError {
    ConnectError::data(format!(
        "Unable to convert {text} (class java.lang.String) to {what}"
    ))
}

/// The replacement text converted to the type of `value`; only numbers, decimals and strings
/// can be replaced.
fn mask_with_replacement(
    schema: Option<&Schema>,
    value: &Value,
    replacement: &str,
) -> Result<Value, ConnectError> {
    if Temporal::of(schema).is_some() {
        // Java holds these as java.util.Date, which has no replacement conversion.
        return Err(ConnectError::data(
            "Cannot mask value of type class java.util.Date with custom replacement.",
        ));
    }
    Ok(match value {
        Value::Int8(_) => Value::Int8(replacement_long(replacement)? as i8),
        Value::Int16(_) => Value::Int16(replacement_long(replacement)? as i16),
        Value::Int32(_) => Value::Int32(replacement_long(replacement)? as i32),
        Value::Int64(_) => Value::Int64(replacement_long(replacement)?),
        Value::Float32(_) => Value::Float32(replacement_double(replacement)? as f32),
        Value::Float64(_) => Value::Float64(replacement_double(replacement)?),
        Value::String(_) => Value::String(replacement.to_owned()),
        Value::Decimal(_) => Value::Decimal(
            parse_java_big_decimal(replacement)
                .ok_or_else(|| not_a_number(replacement, "number"))?,
        ),
        other => {
            return Err(ConnectError::data(format!(
                "Cannot mask value of type {} with custom replacement.",
                java_class_text(other)
            )))
        }
    })
}

fn masked(cfg: &MaskConfig, schema: Option<&Schema>, value: &Value) -> Result<Value, ConnectError> {
    if value.is_null() {
        return Ok(Value::Null);
    }
    match &cfg.replacement {
        None => mask_with_empty(value),
        Some(r) => mask_with_replacement(schema, value, r),
    }
}

impl Transformation for MaskField {
    fn configure(&mut self, configs: &ConfigMap) -> ferry_api::error::Result<()> {
        let parsed = self.config_def().parse(configs)?;
        // Without repeats: parsing a distinct list drops them.
        let fields = parsed.list(FIELDS_CONFIG)?;
        self.config = Some(MaskConfig {
            fields,
            replacement: parsed.string(REPLACEMENT_CONFIG)?,
            replace_null_with_default: parsed.boolean(REPLACE_NULL_WITH_DEFAULT_CONFIG)?,
        });
        Ok(())
    }

    fn config_def(&self) -> ConfigDef {
        ConfigDef::new()
            .define(
                ConfigKey::new(
                    FIELDS_CONFIG,
                    ConfigType::List,
                    DefaultValue::Required,
                    Importance::High,
                    "Names of fields to mask.",
                )
                .validator(Validator::distinct_list(false, false)),            )
            .define(
                ConfigKey::new(
                    REPLACEMENT_CONFIG,
                    ConfigType::String,
                    DefaultValue::Null,
                    Importance::Low,
                    "Custom value replacement, that will be applied to all 'fields' values (numeric or non-empty string values only).",
                )
                .validator(Validator::NonEmptyString),
            )
            .define(ConfigKey::new(
                REPLACE_NULL_WITH_DEFAULT_CONFIG,
                ConfigType::Boolean,
                DefaultValue::Value("true".to_owned()),
                Importance::Medium,
                "Whether to replace fields that have a default value and that are null to the default value. \
                 When set to true, the default value is used, otherwise null is used.",
            ))
    }

    fn apply(&self, record: &mut dyn Record) -> ferry_api::error::Result<bool> {
        let cfg = self.config.as_ref().ok_or_else(|| {
            ConnectError::other("MaskField transformation used before it was configured")
        })?;
        // Unlike most transforms, Java's MaskField does not pass null keys or values through: they
        // fail the struct or map requirement below.
        let value = self.part.value(record);
        let schema = self.part.schema(record).cloned();
        let updated = match &schema {
            None => {
                let mut entries = require_map(value, PURPOSE)?.to_vec();
                for name in &cfg.fields {
                    let slot = entries.iter().position(|(k, _)| k.as_str() == Some(name));
                    let current = slot.map_or(&Value::Null, |i| &entries[i].1);
                    let new_value = masked(cfg, None, current)?;
                    match slot {
                        Some(i) => entries[i].1 = new_value,
                        // Java's HashMap.put adds the missing key, with null.
                        None => entries.push((Value::String(name.clone()), new_value)),
                    }
                }
                Value::Map(entries)
            }
            Some(_) => {
                let original = require_struct(value, PURPOSE)?;
                let input = original.schema().clone();
                let with_default = cfg.replace_null_with_default;
                // The masks and Java's checks of every put come first: nothing is moved out of
                // a record that fails.
                let mut masks = Vec::with_capacity(cfg.fields.len());
                for field in &input.fields {
                    let current = struct_field_value(original, field, with_default);
                    if cfg.fields.contains(&field.name) {
                        let mask = masked(cfg, Some(&field.schema), current)?;
                        check_field_value(field, &mask)?;
                        masks.push((field.index, mask));
                    } else {
                        check_null_allowed(field, current)?;
                    }
                }
                let updated = rebuilt_values(self.part, record, &input, with_default, masks);
                Value::Struct(Struct::from_values(input, updated)?)
            }
        };
        self.part.set(record, schema, updated);
        Ok(true)
    }
}

#[cfg(test)]
mod tests;
