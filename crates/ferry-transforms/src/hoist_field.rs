//! `HoistField$Key` / `HoistField$Value`: wraps the key or value in a struct (or, schemaless, a
//! map) with a single field.

use ferry_api::config::{ConfigDef, ConfigKey, ConfigType, DefaultValue, Importance};
use ferry_api::data::{SchemaBuilder, Struct, Value};
use ferry_api::transform::{Record, Transformation};
use ferry_api::{ConfigMap, ConnectError};

use crate::util::{put_struct_field, Part, SchemaCache, StructFields};

pub const FIELD_CONFIG: &str = "field";

/// Java's `HoistField` transform for one part of the record.
pub struct HoistField {
    part: Part,
    field: Option<String>,
    schemas: SchemaCache,
}

impl HoistField {
    pub fn new(part: Part) -> Self {
        HoistField {
            part,
            field: None,
            schemas: SchemaCache::new(),
        }
    }
}

impl Transformation for HoistField {
    fn configure(&mut self, configs: &ConfigMap) -> ferry_api::error::Result<()> {
        let parsed = self.config_def().parse(configs)?;
        self.field = Some(parsed.string(FIELD_CONFIG)?.unwrap_or_default());
        self.schemas = SchemaCache::new();
        Ok(())
    }

    fn config_def(&self) -> ConfigDef {
        ConfigDef::new().define(ConfigKey::new(
            FIELD_CONFIG,
            ConfigType::String,
            DefaultValue::Required,
            Importance::Medium,
            "Field name for the single field that will be created in the resulting Struct or Map.",
        ))
    }

    fn apply(&self, record: &mut dyn Record) -> ferry_api::error::Result<bool> {
        let name = self.field.as_deref().ok_or_else(|| {
            ConnectError::other("HoistField transformation used before it was configured")
        })?;
        match self.part.schema(record).cloned() {
            None => {
                // Null values are wrapped too, as Java does.
                let (_, value) = self.part.take(record);
                let hoisted = Value::Map(vec![(Value::String(name.to_owned()), value)]);
                self.part.set(record, None, hoisted);
            }
            Some(schema) => {
                let updated = self.schemas.get_or_build(&schema, || {
                    let mut fields = StructFields::new(SchemaBuilder::struct_());
                    fields.add(name, schema.clone())?;
                    Ok(fields.into_builder().build())
                })?;
                let mut hoisted = Struct::new(updated.clone())?;
                // Check against the schema before taking the value out, so a failure leaves the
                // record as it was.
                let value = self.part.value(record);
                if value.is_null() {
                    put_struct_field(&mut hoisted, name, Value::Null)?;
                } else {
                    schema.validate_value(value)?;
                    let (_, value) = self.part.take(record);
                    hoisted.put(name, value)?;
                }
                self.part.set(record, Some(updated), Value::Struct(hoisted));
            }
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests;
