//! `Flatten$Key` / `Flatten$Value`: lifts the fields of nested structs (or maps, for schemaless
//! data) to the top level, joining the names along the way with a delimiter.

use std::collections::HashMap;

use ferry_api::config::{ConfigDef, ConfigKey, ConfigType, DefaultValue, Importance};
use ferry_api::data::{Schema, SchemaBuilder, SchemaRef, Struct, Type, Value};
use ferry_api::transform::{Record, Transformation};
use ferry_api::{ConfigMap, ConnectError};

use crate::cast::java_class_text;
use crate::util::{
    copy_schema_basics, copy_schema_basics_of, put_struct_field, require_map, require_struct,
    struct_field_value, Part, SchemaCache, StructFields,
};

pub const DELIMITER_CONFIG: &str = "delimiter";
const DELIMITER_DEFAULT: &str = ".";
const PURPOSE: &str = "flattening";

/// Java's `Flatten` transform for one part of the record.
pub struct Flatten {
    part: Part,
    delimiter: Option<String>,
    schemas: SchemaCache,
}

impl Flatten {
    pub fn new(part: Part) -> Self {
        Flatten {
            part,
            delimiter: None,
            schemas: SchemaCache::new(),
        }
    }

    fn name(delimiter: &str, prefix: &str, field: &str) -> String {
        if prefix.is_empty() {
            field.to_owned()
        } else {
            format!("{prefix}{delimiter}{field}")
        }
    }
}

/// A map being built in insertion order where a repeated key keeps its first position and takes
/// the latest value (Java's `LinkedHashMap.put`).
struct OrderedMap {
    entries: Vec<(Value, Value)>,
    positions: HashMap<String, usize>,
}

impl OrderedMap {
    fn put(&mut self, key: String, value: Value) {
        match self.positions.get(&key) {
            Some(&i) => self.entries[i].1 = value,
            None => {
                self.positions.insert(key.clone(), self.entries.len());
                self.entries.push((Value::String(key), value));
            }
        }
    }
}

fn flatten_map(
    delimiter: &str,
    entries: &[(Value, Value)],
    prefix: &str,
    out: &mut OrderedMap,
) -> Result<(), ConnectError> {
    for (key, value) in entries {
        let Some(key) = key.as_str() else {
            // Java casts every key to String and fails on anything else.
            return Err(ConnectError::data(format!(
                "{} cannot be cast to class java.lang.String",
                java_class_text(key)
            )));
        };
        let name = Flatten::name(delimiter, prefix, key);
        match value {
            Value::Null => out.put(name, Value::Null),
            Value::Decimal(_) => {
                return Err(ConnectError::data(format!(
                    "Flatten transformation was passed a value of type {} which is not supported by Connect's data API",
                    java_class_text(value)
                )))
            }
            Value::Map(nested) => flatten_map(delimiter, nested, &name, out)?,
            Value::Struct(_) => {
                return Err(ConnectError::data(format!(
                    "Flatten transformation does not support {} for record without schemas (for field {name}).",
                    java_class_text(value)
                )))
            }
            other => out.put(name, other.clone()),
        }
    }
    Ok(())
}

fn unsupported_with_schema(kind: Type, name: &str) -> ConnectError {
    ConnectError::data(format!(
        "Flatten transformation does not support {} for record with schemas (for field {name}).",
        kind.java_name()
    ))
}

/// Adds the flattened fields of `schema` to `out`. A field is optional when it or any enclosing
/// struct is, and takes its own default or else the matching part of an enclosing default.
fn flatten_schema(
    delimiter: &str,
    schema: &Schema,
    prefix: &str,
    out: &mut StructFields,
    optional: bool,
    parent_default: Option<&Struct>,
) -> Result<(), ConnectError> {
    for field in &schema.fields {
        let name = Flatten::name(delimiter, prefix, &field.name);
        let field_optional = optional || field.schema.optional;
        let default = match (&field.schema.default, parent_default) {
            (Some(own), _) => Some(own),
            (None, Some(parent)) => match struct_field_value(parent, field, true) {
                Value::Null => None,
                v => Some(v),
            },
            (None, None) => None,
        };
        match field.schema.kind {
            Type::Map => return Err(unsupported_with_schema(Type::Map, &name)),
            Type::Struct => {
                let nested_default = match default {
                    None => None,
                    Some(Value::Struct(s)) => Some(s),
                    Some(other) => {
                        return Err(ConnectError::data(format!(
                            "{} cannot be cast to class org.apache.kafka.connect.data.Struct",
                            java_class_text(other)
                        )))
                    }
                };
                flatten_schema(
                    delimiter,
                    &field.schema,
                    &name,
                    out,
                    field_optional,
                    nested_default,
                )?;
            }
            _ => {
                let mut builder = copy_schema_basics_of(&field.schema);
                if field_optional {
                    builder = builder.optional();
                }
                if let Some(default) = default {
                    field
                        .schema
                        .validate_value(default)
                        .map_err(|_| ConnectError::data("Invalid default value"))?;
                    builder = builder.default_value(default.clone());
                }
                out.add(&name, builder.build())?;
            }
        }
    }
    Ok(())
}

/// Copies the leaves of `value` into `out` under their flattened names. Nested structs are read
/// with their defaults applied, as Java's `getStruct` does.
fn flatten_struct(
    delimiter: &str,
    value: &Struct,
    prefix: &str,
    out: &mut Struct,
) -> Result<(), ConnectError> {
    for field in &value.schema().fields {
        let name = Flatten::name(delimiter, prefix, &field.name);
        let current = struct_field_value(value, field, true);
        match field.schema.kind {
            Type::Map => return Err(unsupported_with_schema(Type::Map, &name)),
            Type::Struct => match current {
                Value::Null => {}
                nested => flatten_struct(delimiter, require_struct(nested, PURPOSE)?, &name, out)?,
            },
            _ => put_struct_field(out, &name, current.clone())?,
        }
    }
    Ok(())
}

impl Transformation for Flatten {
    fn configure(&mut self, configs: &ConfigMap) -> ferry_api::error::Result<()> {
        let parsed = self.config_def().parse(configs)?;
        self.delimiter = Some(parsed.string(DELIMITER_CONFIG)?.unwrap_or_default());
        self.schemas = SchemaCache::new();
        Ok(())
    }

    fn config_def(&self) -> ConfigDef {
        ConfigDef::new().define(ConfigKey::new(
            DELIMITER_CONFIG,
            ConfigType::String,
            DefaultValue::Value(DELIMITER_DEFAULT.to_owned()),
            Importance::Medium,
            "Delimiter to insert between field names from the input record when generating field names for the \
             output record",
        ))
    }

    fn apply(&self, record: &mut dyn Record) -> ferry_api::error::Result<bool> {
        let delimiter = self.delimiter.as_deref().ok_or_else(|| {
            ConnectError::other("Flatten transformation used before it was configured")
        })?;
        let value = self.part.value(record);
        if value.is_null() {
            return Ok(true);
        }
        let (schema, flattened) = match self.part.schema(record) {
            None => {
                let entries = require_map(value, PURPOSE)?;
                let mut out = OrderedMap {
                    entries: Vec::with_capacity(entries.len()),
                    positions: HashMap::with_capacity(entries.len()),
                };
                flatten_map(delimiter, entries, "", &mut out)?;
                (None, Value::Map(out.entries))
            }
            Some(schema) => {
                let original = require_struct(value, PURPOSE)?;
                let updated: SchemaRef = self.schemas.get_or_build(schema, || {
                    let parent_default = match &schema.default {
                        Some(Value::Struct(s)) => Some(s),
                        _ => None,
                    };
                    let mut fields =
                        StructFields::new(copy_schema_basics(schema, SchemaBuilder::struct_()));
                    flatten_schema(
                        delimiter,
                        schema,
                        "",
                        &mut fields,
                        schema.optional,
                        parent_default,
                    )?;
                    Ok(fields.into_builder().build())
                })?;
                let mut out = Struct::new(updated.clone())?;
                flatten_struct(delimiter, original, "", &mut out)?;
                (Some(updated), Value::Struct(out))
            }
        };
        self.part.set(record, schema, flattened);
        Ok(true)
    }
}

#[cfg(test)]
mod tests;
