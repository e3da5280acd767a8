//! `ValueToKey`: replaces the key with a struct (with a schema) or map (without one) made of the
//! listed fields of the value. The value is left as it is.

use ferry_api::config::{
    ConfigDef, ConfigError, ConfigKey, ConfigType, DefaultValue, Importance, Validator,
};
use ferry_api::data::{SchemaBuilder, SchemaRef, Struct, Value};
use ferry_api::transform::{Record, Transformation};
use ferry_api::{ConfigMap, ConnectError};

use crate::extract_field::{
    field_syntax_version, field_syntax_version_key, FieldPath, FIELD_SYNTAX_VERSION_CONFIG,
};
use crate::util::{put_struct_field, require_map, require_struct, SchemaCache, StructFields};

pub const FIELDS_CONFIG: &str = "fields";
pub const REPLACE_NULL_WITH_DEFAULT_CONFIG: &str = "replace.null.with.default";

const PURPOSE: &str = "copying fields from value to key";

/// The keys `ValueToKey` accepts.
pub fn config_def() -> ConfigDef {
    ConfigDef::new()
        .define(
            ConfigKey::new(
                FIELDS_CONFIG,
                ConfigType::List,
                DefaultValue::Required,
                Importance::High,
                "The value fields that make up the new key.",
            )
            .validator(Validator::distinct_list(false, false)),
        )
        .define(ConfigKey::new(
            REPLACE_NULL_WITH_DEFAULT_CONFIG,
            ConfigType::Boolean,
            DefaultValue::Value("true".to_owned()),
            Importance::Medium,
            "When true, a null field whose schema has a default comes out as that default; \
             when false it stays null.",
        ))
        // Nested fields since Kafka 4.2 (KIP-821 extended to ValueToKey).
        .define(field_syntax_version_key())
}

pub struct ValueToKey {
    /// The names as configured: the key's field names.
    fields: Vec<String>,
    /// Where each of `fields` is read in the value (one step each under `V1`).
    paths: Vec<FieldPath>,
    replace_null_with_default: bool,
    cache: SchemaCache,
}

impl Default for ValueToKey {
    fn default() -> Self {
        Self::new()
    }
}

impl ValueToKey {
    pub fn new() -> Self {
        ValueToKey {
            fields: Vec::new(),
            paths: Vec::new(),
            replace_null_with_default: true,
            cache: SchemaCache::new(),
        }
    }

    fn key_schema(&self, value_schema: &SchemaRef) -> Result<SchemaRef, ConnectError> {
        let mut key = StructFields::new(SchemaBuilder::struct_());
        for (name, path) in self.fields.iter().zip(&self.paths) {
            let field = path
                .field_from(value_schema)?
                .ok_or_else(|| ConnectError::data(format!("Field does not exist: {name}")))?;
            key.add(name, field.schema.clone())?;
        }
        Ok(key.into_builder().build())
    }

    fn schemaless_key(&self, value: &Value) -> Result<Value, ConnectError> {
        require_map(value, PURPOSE)?;
        let mut key: Vec<(Value, Value)> = Vec::with_capacity(self.fields.len());
        // `fields` holds no repeats: parsing its config dropped them.
        for (name, path) in self.fields.iter().zip(&self.paths) {
            let field_value = path.value_from_map(value)?.clone();
            key.push((Value::from(name.as_str()), field_value));
        }
        Ok(Value::Map(key))
    }

    fn struct_key(&self, value: &Value) -> Result<(SchemaRef, Value), ConnectError> {
        let value = require_struct(value, PURPOSE)?;
        let schema = self
            .cache
            .get_or_build(value.schema(), || self.key_schema(value.schema()))?;
        let mut key = Struct::new(schema.clone())?;
        for (name, path) in self.fields.iter().zip(&self.paths) {
            let field_value = path.value_from_struct(value, self.replace_null_with_default)?;
            put_struct_field(&mut key, name, field_value.clone())?;
        }
        Ok((schema, Value::Struct(key)))
    }
}

impl Transformation for ValueToKey {
    fn configure(&mut self, configs: &ConfigMap) -> ferry_api::error::Result<()> {
        let parsed = config_def().parse(configs)?;
        self.fields = parsed.list(FIELDS_CONFIG)?;
        let version = field_syntax_version(
            &parsed
                .string(FIELD_SYNTAX_VERSION_CONFIG)?
                .unwrap_or_default(),
        )?;
        self.paths = self
            .fields
            .iter()
            .map(|f| FieldPath::parse(f, version))
            .collect::<Result<_, _>>()
            .map_err(|message| ConfigError::single(FIELDS_CONFIG, message))?;
        self.replace_null_with_default = parsed.boolean(REPLACE_NULL_WITH_DEFAULT_CONFIG)?;
        self.cache = SchemaCache::new();
        Ok(())
    }

    fn config_def(&self) -> ConfigDef {
        config_def()
    }

    fn apply(&self, record: &mut dyn Record) -> ferry_api::error::Result<bool> {
        if record.value_schema().is_none() {
            let key = self.schemaless_key(record.value())?;
            record.set_key(None, key);
        } else {
            let (schema, key) = self.struct_key(record.value())?;
            record.set_key(Some(schema), key);
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferry_api::data::{Schema, Type};
    use ferry_api::record::SinkRecord;

    fn configured(pairs: &[(&str, &str)]) -> ValueToKey {
        let mut xform = ValueToKey::new();
        let props = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        xform.configure(&props).unwrap();
        xform
    }

    fn record(schema: Option<SchemaRef>, value: Value) -> SinkRecord {
        SinkRecord {
            key: "old".into(),
            value_schema: schema,
            value,
            ..Default::default()
        }
    }

    fn abc_schema() -> SchemaRef {
        SchemaBuilder::struct_()
            .field("a", Schema::int32())
            .field("b", Schema::int32())
            .field("c", Schema::int32())
            .build()
    }

    #[test]
    fn schemaless() {
        let xform = configured(&[("fields", "a,b")]);
        let value = Value::Map(vec![
            ("a".into(), Value::Int32(1)),
            ("b".into(), Value::Int32(2)),
            ("c".into(), Value::Int32(3)),
        ]);
        let mut r = record(None, value.clone());
        xform.apply(&mut r).unwrap();
        assert_eq!(r.key_schema, None);
        assert_eq!(
            r.key,
            Value::Map(vec![
                ("a".into(), Value::Int32(1)),
                ("b".into(), Value::Int32(2))
            ])
        );
        assert_eq!(r.value, value);
    }

    #[test]
    fn schemaless_missing_fields_are_null() {
        let xform = configured(&[("fields", "a,z,a")]);
        let mut r = record(None, Value::Map(vec![("a".into(), Value::Int32(1))]));
        xform.apply(&mut r).unwrap();
        assert_eq!(
            r.key,
            Value::Map(vec![
                ("a".into(), Value::Int32(1)),
                ("z".into(), Value::Null)
            ])
        );
    }

    #[test]
    fn nested_fields_with_field_syntax_v2() {
        let xform = configured(&[("fields", "id,inner.n"), ("field.syntax.version", "V2")]);
        let inner = SchemaBuilder::struct_().field("n", Schema::int64()).build();
        let schema = SchemaBuilder::struct_()
            .field("id", Schema::int32())
            .field("inner", inner.clone())
            .build();
        let mut nested = Struct::new(inner).unwrap();
        nested.put("n", Value::Int64(7)).unwrap();
        let mut value = Struct::new(schema.clone()).unwrap();
        value.put("id", Value::Int32(1)).unwrap();
        value.put("inner", Value::Struct(nested)).unwrap();
        let mut r = record(Some(schema), Value::Struct(value));
        xform.apply(&mut r).unwrap();
        let key_schema = r.key_schema.clone().unwrap();
        let names: Vec<_> = key_schema.fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, vec!["id", "inner.n"]);
        let Value::Struct(key) = &r.key else {
            panic!("{:?}", r.key)
        };
        assert_eq!(key.get("inner.n").unwrap(), &Value::Int64(7));

        let mut r = record(
            None,
            Value::Map(vec![
                ("id".into(), Value::Int32(2)),
                (
                    "inner".into(),
                    Value::Map(vec![("n".into(), Value::Int64(8))]),
                ),
            ]),
        );
        xform.apply(&mut r).unwrap();
        assert_eq!(
            r.key,
            Value::Map(vec![
                ("id".into(), Value::Int32(2)),
                ("inner.n".into(), Value::Int64(8))
            ])
        );
        // Under V1 (the default) the dotted name is one top-level field, as before 4.2.
        let v1 = configured(&[("fields", "inner.n")]);
        let mut r = record(None, Value::Map(vec![("inner.n".into(), Value::Int32(3))]));
        v1.apply(&mut r).unwrap();
        assert_eq!(r.key, Value::Map(vec![("inner.n".into(), Value::Int32(3))]));
    }

    #[test]
    fn with_schema() {
        let xform = configured(&[("fields", "a,b")]);
        let mut value = Struct::new(abc_schema()).unwrap();
        value
            .put("a", 1)
            .unwrap()
            .put("b", 2)
            .unwrap()
            .put("c", 3)
            .unwrap();
        let mut r = record(Some(abc_schema()), Value::Struct(value.clone()));
        xform.apply(&mut r).unwrap();
        let expected_schema = SchemaBuilder::struct_()
            .field("a", Schema::int32())
            .field("b", Schema::int32())
            .build();
        let mut expected = Struct::new(expected_schema.clone()).unwrap();
        expected.put("a", 1).unwrap().put("b", 2).unwrap();
        assert_eq!(r.key_schema, Some(expected_schema));
        assert_eq!(r.key, Value::Struct(expected));
        assert_eq!(r.value, Value::Struct(value));
    }

    #[test]
    fn non_existing_field() {
        let xform = configured(&[("fields", "not_exist")]);
        let schema = SchemaBuilder::struct_().field("a", Schema::int32()).build();
        let mut value = Struct::new(schema.clone()).unwrap();
        value.put("a", 1).unwrap();
        let err = xform
            .apply(&mut record(Some(schema), Value::Struct(value)))
            .unwrap_err();
        assert!(matches!(err, ConnectError::Data { .. }));
        assert_eq!(err.to_string(), "Field does not exist: not_exist");
    }

    #[test]
    fn null_with_default() {
        let schema = SchemaBuilder::struct_()
            .field(
                "optional_with_default",
                SchemaBuilder::new(Type::Int32)
                    .optional()
                    .default_value(Value::Int32(42))
                    .build(),
            )
            .build();
        for (replace, expected) in [("false", Value::Null), ("true", Value::Int32(42))] {
            let xform = configured(&[
                ("fields", "optional_with_default"),
                ("replace.null.with.default", replace),
            ]);
            let value = Struct::new(schema.clone()).unwrap();
            let mut r = record(Some(schema.clone()), Value::Struct(value));
            xform.apply(&mut r).unwrap();
            let Value::Struct(key) = &r.key else { panic!() };
            assert_eq!(
                key.get_without_default("optional_with_default").unwrap(),
                &expected
            );
        }
    }

    #[test]
    fn tombstones_and_wrong_types_fail() {
        let xform = configured(&[("fields", "a")]);
        assert_eq!(
            xform.apply(&mut record(None, Value::Null)).unwrap_err().to_string(),
            "Only Map objects supported in absence of schema for [copying fields from value to key], found: null"
        );
        assert_eq!(
            xform
                .apply(&mut record(Some(abc_schema()), Value::Null))
                .unwrap_err()
                .to_string(),
            "Only Struct objects supported for [copying fields from value to key], found: null"
        );
    }

    #[test]
    fn config_errors() {
        let mut xform = ValueToKey::new();
        assert_eq!(
            xform.configure(&ConfigMap::new()).unwrap_err().to_string(),
            "Missing required configuration \"fields\" which has no default value."
        );
        assert_eq!(
            xform
                .configure(&[("fields".to_owned(), String::new())].into_iter().collect())
                .unwrap_err()
                .to_string(),
            "Configuration 'fields' must not be empty. Valid values include: any non-empty value"
        );
    }
}
