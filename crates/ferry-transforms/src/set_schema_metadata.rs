//! `SetSchemaMetadata$Key` / `SetSchemaMetadata$Value`: sets the name and/or version of the key or
//! value schema. A struct is rebuilt over the renamed schema so that its schema matches the
//! record's. A record part that is null and has no schema passes through; one with a value but no
//! schema is an error, and so (as in Java, which lists the schema's fields to copy it) is any
//! schema that is not a struct.

use std::sync::Arc;

use ferry_api::config::{
    ConfigDef, ConfigError, ConfigKey, ConfigType, ConfigValue, DefaultValue, Importance,
};
use ferry_api::data::{Schema, SchemaRef, Struct, Type, Value};
use ferry_api::transform::{Record, Transformation};
use ferry_api::{ConfigMap, ConnectError};

use crate::util::{put_struct_field, require_schema, struct_field_value, Part};

pub const SCHEMA_NAME_CONFIG: &str = "schema.name";
pub const SCHEMA_VERSION_CONFIG: &str = "schema.version";
pub const REPLACE_NULL_WITH_DEFAULT_CONFIG: &str = "replace.null.with.default";

const PURPOSE: &str = "updating schema metadata";

/// The keys `SetSchemaMetadata` accepts.
pub fn config_def() -> ConfigDef {
    ConfigDef::new()
        .define(ConfigKey::new(
            SCHEMA_NAME_CONFIG,
            ConfigType::String,
            DefaultValue::Null,
            Importance::High,
            "The name to give the schema.",
        ))
        .define(ConfigKey::new(
            SCHEMA_VERSION_CONFIG,
            ConfigType::Int,
            DefaultValue::Null,
            Importance::High,
            "The version to give the schema.",
        ))
        .define(ConfigKey::new(
            REPLACE_NULL_WITH_DEFAULT_CONFIG,
            ConfigType::Boolean,
            DefaultValue::Value("true".to_owned()),
            Importance::Medium,
            "When true, a null field whose schema has a default comes out as that default; \
             when false it stays null.",
        ))
}

pub struct SetSchemaMetadata {
    part: Part,
    schema_name: Option<String>,
    schema_version: Option<i32>,
    replace_null_with_default: bool,
}

impl SetSchemaMetadata {
    pub fn new(part: Part) -> Self {
        SetSchemaMetadata {
            part,
            schema_name: None,
            schema_version: None,
            replace_null_with_default: true,
        }
    }

    /// `schema` with the configured name and version.
    fn updated_schema(&self, schema: &Schema) -> SchemaRef {
        let mut updated = schema.clone();
        if let Some(name) = &self.schema_name {
            updated.name = Some(name.clone());
        }
        if let Some(version) = self.schema_version {
            updated.version = Some(version);
        }
        Arc::new(updated)
    }

    /// A struct rebuilt over `schema` (which has the same fields as the struct's own); anything
    /// else is returned as it is (Java's `updateSchemaIn`).
    fn update_schema_in(&self, value: Value, schema: &SchemaRef) -> Result<Value, ConnectError> {
        let Value::Struct(original) = value else {
            return Ok(value);
        };
        let mut updated = Struct::new(schema.clone())?;
        for field in &schema.fields {
            let field_value = match original.schema().field(&field.name) {
                Some(f) => struct_field_value(&original, f, self.replace_null_with_default).clone(),
                None => Value::Null,
            };
            put_struct_field(&mut updated, &field.name, field_value)?;
        }
        Ok(Value::Struct(updated))
    }
}

impl Transformation for SetSchemaMetadata {
    fn configure(&mut self, configs: &ConfigMap) -> ferry_api::error::Result<()> {
        let parsed = config_def().parse(configs)?;
        self.schema_name = parsed.string(SCHEMA_NAME_CONFIG)?;
        self.schema_version = match parsed.get(SCHEMA_VERSION_CONFIG) {
            Some(ConfigValue::Int(v)) => Some(*v),
            _ => None,
        };
        self.replace_null_with_default = parsed.boolean(REPLACE_NULL_WITH_DEFAULT_CONFIG)?;
        if self.schema_name.is_none() && self.schema_version.is_none() {
            return Err(ConfigError::single(
                SCHEMA_NAME_CONFIG,
                "Neither schema name nor version configured",
            )
            .into());
        }
        Ok(())
    }

    fn config_def(&self) -> ConfigDef {
        config_def()
    }

    fn apply(&self, record: &mut dyn Record) -> ferry_api::error::Result<bool> {
        let schema = self.part.schema(record);
        if schema.is_none() && self.part.value(record).is_null() {
            return Ok(true);
        }
        let schema = require_schema(schema, PURPOSE)?;
        if schema.kind != Type::Struct {
            // Java reads the schema's fields to copy them, which fails for any other type.
            return Err(ConnectError::data("Cannot list fields on non-struct type"));
        }
        let updated_schema = self.updated_schema(&schema);
        let updated_value = match self.part.value(record) {
            Value::Struct(_) => {
                self.update_schema_in(self.part.value(record).clone(), &updated_schema)?
            }
            _ => {
                let (_, value) = self.part.take(record);
                value
            }
        };
        self.part.set(record, Some(updated_schema), updated_value);
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferry_api::data::SchemaBuilder;
    use ferry_api::record::SinkRecord;

    fn configured(pairs: &[(&str, &str)]) -> SetSchemaMetadata {
        let mut xform = SetSchemaMetadata::new(Part::Value);
        let props = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        xform.configure(&props).unwrap();
        xform
    }

    fn record(schema: Option<SchemaRef>, value: Value) -> SinkRecord {
        SinkRecord {
            value_schema: schema,
            value,
            ..Default::default()
        }
    }

    fn assert_struct_uses(record: &SinkRecord) {
        let Value::Struct(s) = &record.value else {
            panic!("not a struct")
        };
        assert_eq!(Some(s.schema()), record.value_schema.as_ref());
        assert!(Arc::ptr_eq(
            s.schema(),
            record.value_schema.as_ref().unwrap()
        ));
    }

    #[test]
    fn sets_name_version_or_both() {
        let xform = configured(&[("schema.name", "foo")]);
        let mut r = record(Some(SchemaBuilder::struct_().build()), Value::Null);
        xform.apply(&mut r).unwrap();
        assert_eq!(
            r.value_schema.as_ref().unwrap().name.as_deref(),
            Some("foo")
        );
        assert_eq!(r.value_schema.as_ref().unwrap().version, None);

        let xform = configured(&[("schema.version", "42")]);
        let mut r = record(Some(SchemaBuilder::struct_().build()), Value::Null);
        xform.apply(&mut r).unwrap();
        assert_eq!(r.value_schema.as_ref().unwrap().version, Some(42));
        assert_eq!(r.value_schema.as_ref().unwrap().name, None);

        let xform = configured(&[("schema.name", "foo"), ("schema.version", "42")]);
        let mut r = record(Some(SchemaBuilder::struct_().build()), Value::Null);
        xform.apply(&mut r).unwrap();
        assert_eq!(
            r.value_schema.as_ref().unwrap().name.as_deref(),
            Some("foo")
        );
        assert_eq!(r.value_schema.as_ref().unwrap().version, Some(42));
    }

    fn two_fields(f1: SchemaRef) -> SchemaRef {
        SchemaBuilder::struct_()
            .name("my.orig.SchemaDefn")
            .field("f1", f1)
            .field("f2", Schema::int32())
            .build()
    }

    #[test]
    fn struct_values_follow_the_new_schema() {
        let schema = two_fields(Schema::string());
        let mut value = Struct::new(schema.clone()).unwrap();
        value.put("f1", "value1").unwrap().put("f2", 1).unwrap();
        let xform = configured(&[("schema.name", "foo"), ("schema.version", "42")]);
        let mut r = record(Some(schema), Value::Struct(value));
        xform.apply(&mut r).unwrap();
        let updated = r.value_schema.clone().unwrap();
        assert_eq!(updated.name.as_deref(), Some("foo"));
        assert_eq!(updated.version, Some(42));
        assert_struct_uses(&r);
        let Value::Struct(s) = &r.value else { panic!() };
        assert_eq!(s.get("f1").unwrap(), &Value::from("value1"));
        assert_eq!(s.get("f2").unwrap(), &Value::Int32(1));
    }

    #[test]
    fn null_field_with_default() {
        let f1 = SchemaBuilder::new(Type::String)
            .default_value("default".into())
            .optional()
            .build();
        for (replace, expected) in [("false", Value::Null), ("true", Value::from("default"))] {
            let schema = two_fields(f1.clone());
            let mut value = Struct::new(schema.clone()).unwrap();
            value.put("f2", 1).unwrap();
            let xform = configured(&[
                ("schema.name", "foo"),
                ("schema.version", "42"),
                ("replace.null.with.default", replace),
            ]);
            let mut r = record(Some(schema), Value::Struct(value));
            xform.apply(&mut r).unwrap();
            assert_struct_uses(&r);
            let Value::Struct(s) = &r.value else { panic!() };
            assert_eq!(s.get_without_default("f1").unwrap(), &expected);
        }
    }

    #[test]
    fn a_value_needs_a_schema() {
        let xform = configured(&[("schema.name", "foo")]);
        let mut r = record(None, Value::Int32(42));
        let err = xform.apply(&mut r).unwrap_err();
        assert!(matches!(err, ConnectError::Data { .. }));
        assert_eq!(
            err.to_string(),
            "Schema required for [updating schema metadata]"
        );
    }

    #[test]
    fn null_without_schema_passes_through() {
        let xform = configured(&[("schema.name", "foo")]);
        let mut r = record(None, Value::Null);
        xform.apply(&mut r).unwrap();
        assert_eq!(r, record(None, Value::Null));
    }

    #[test]
    fn only_struct_schemas_can_be_renamed() {
        let mut xform = SetSchemaMetadata::new(Part::Key);
        xform
            .configure(
                &[("schema.name".to_owned(), "k".to_owned())]
                    .into_iter()
                    .collect(),
            )
            .unwrap();
        let mut r = SinkRecord {
            key_schema: Some(Schema::int32()),
            key: Value::Int32(1),
            ..Default::default()
        };
        let err = xform.apply(&mut r).unwrap_err();
        assert!(matches!(err, ConnectError::Data { .. }));
        assert_eq!(err.to_string(), "Cannot list fields on non-struct type");
        assert_eq!(r.key, Value::Int32(1));
        assert_eq!(r.key_schema, Some(Schema::int32()));

        // The key variant leaves the value alone.
        let schema = SchemaBuilder::struct_().name("v").build();
        let mut r = SinkRecord {
            key_schema: Some(SchemaBuilder::struct_().build()),
            value_schema: Some(schema.clone()),
            ..Default::default()
        };
        xform.apply(&mut r).unwrap();
        assert_eq!(r.key_schema.unwrap().name.as_deref(), Some("k"));
        assert_eq!(r.value_schema, Some(schema));
    }

    #[test]
    fn needs_a_name_or_a_version() {
        let err = SetSchemaMetadata::new(Part::Value)
            .configure(&ConfigMap::new())
            .unwrap_err();
        assert!(matches!(err, ConnectError::Config(_)));
        assert_eq!(
            err.to_string(),
            "Neither schema name nor version configured"
        );
        let err = SetSchemaMetadata::new(Part::Value)
            .configure(
                &[("schema.version".to_owned(), "x".to_owned())]
                    .into_iter()
                    .collect(),
            )
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "Invalid value x for configuration schema.version: Not a number of type INT"
        );
    }
}
