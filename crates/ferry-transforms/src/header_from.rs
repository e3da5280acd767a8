//! `HeaderFrom$Key` / `HeaderFrom$Value`: copies or moves top-level fields of the key or value
//! into headers. The n-th entry of `fields` goes to a header named by the n-th entry of
//! `headers`; `operation` is `copy` (the field stays) or `move` (it is removed). Headers are
//! added after the existing ones, carrying the field's schema when there is one.

use ferry_api::config::{
    ConfigDef, ConfigError, ConfigKey, ConfigType, DefaultValue, Importance, Validator,
};
use ferry_api::data::{SchemaBuilder, SchemaRef, Struct, Value};
use ferry_api::header::Headers;
use ferry_api::transform::{Record, Transformation};
use ferry_api::{ConfigMap, ConnectError};

use crate::util::non_empty_list;
use crate::util::{
    copy_schema_basics, put_struct_field, require_map, require_struct, struct_field_value, Part,
    SchemaCache, StructFields,
};

pub const FIELDS_CONFIG: &str = "fields";
pub const HEADERS_CONFIG: &str = "headers";
pub const OPERATION_CONFIG: &str = "operation";
pub const REPLACE_NULL_WITH_DEFAULT_CONFIG: &str = "replace.null.with.default";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Operation {
    Move,
    Copy,
}

impl Operation {
    fn name(self) -> &'static str {
        match self {
            Operation::Move => "move",
            Operation::Copy => "copy",
        }
    }
}

/// The keys `HeaderFrom` accepts.
pub fn config_def() -> ConfigDef {
    ConfigDef::new()
        .define(
            ConfigKey::new(
                FIELDS_CONFIG,
                ConfigType::List,
                DefaultValue::Required,
                Importance::High,
                "The fields whose values go into headers.",
            )
            .validator(non_empty_list()),
        )
        .define(
            ConfigKey::new(
                HEADERS_CONFIG,
                ConfigType::List,
                DefaultValue::Required,
                Importance::High,
                "The header names, one for each entry of fields and in the same order.",
            )
            .validator(non_empty_list()),
        )
        .define(
            ConfigKey::new(
                OPERATION_CONFIG,
                ConfigType::String,
                DefaultValue::Required,
                Importance::High,
                "move to take the fields out of the key or value, copy to leave them there.",
            )
            .validator(Validator::one_of(&["move", "copy"])),
        )
        .define(ConfigKey::new(
            REPLACE_NULL_WITH_DEFAULT_CONFIG,
            ConfigType::Boolean,
            DefaultValue::Value("true".to_owned()),
            Importance::Medium,
            "When true, a null field whose schema has a default comes out as that default; \
             when false it stays null.",
        ))
}

pub struct HeaderFrom {
    part: Part,
    fields: Vec<String>,
    headers: Vec<String>,
    operation: Operation,
    replace_null_with_default: bool,
    cache: SchemaCache,
}

impl HeaderFrom {
    pub fn new(part: Part) -> Self {
        HeaderFrom {
            part,
            fields: Vec::new(),
            headers: Vec::new(),
            operation: Operation::Copy,
            replace_null_with_default: true,
            cache: SchemaCache::new(),
        }
    }

    fn purpose(&self) -> String {
        format!("header {}", self.operation.name())
    }

    fn field_value(&self, value: &Struct, name: &str) -> Value {
        match value.schema().field(name) {
            Some(field) => struct_field_value(value, field, self.replace_null_with_default).clone(),
            None => Value::Null,
        }
    }

    /// `schema` without the moved fields (Java keeps only its name, version, doc and parameters).
    fn moved_schema(&self, schema: &SchemaRef) -> Result<SchemaRef, ConnectError> {
        let mut fields = StructFields::new(copy_schema_basics(schema, SchemaBuilder::struct_()));
        for field in &schema.fields {
            if !self.fields.contains(&field.name) {
                fields.add(&field.name, field.schema.clone())?;
            }
        }
        Ok(fields.into_builder().build())
    }

    /// The new schema and value (`None` when unchanged) and the headers to add.
    #[allow(clippy::type_complexity)]
    fn with_schema(
        &self,
        schema: &SchemaRef,
        value: &Value,
    ) -> Result<(Option<(SchemaRef, Value)>, Headers), ConnectError> {
        let original = require_struct(value, &self.purpose())?;
        let mut added = Headers::new();
        for (name, header) in self.fields.iter().zip(&self.headers) {
            let field_schema = schema
                .field(name)
                .map(|f| f.schema.clone())
                .ok_or_else(|| {
                    ConnectError::other(format!(
                        "Field {name} is not in the schema of the record's {}",
                        match self.part {
                            Part::Key => "key",
                            Part::Value => "value",
                        }
                    ))
                })?;
            added.add(
                header.clone(),
                Some(field_schema),
                self.field_value(original, name),
            );
        }
        if self.operation == Operation::Copy {
            return Ok((None, added));
        }
        let moved = self
            .cache
            .get_or_build(schema, || self.moved_schema(schema))?;
        let mut updated = Struct::new(moved.clone())?;
        for field in &moved.fields {
            put_struct_field(
                &mut updated,
                &field.name,
                self.field_value(original, &field.name),
            )?;
        }
        Ok((Some((moved, Value::Struct(updated))), added))
    }

    fn schemaless(&self, value: &Value) -> Result<(Value, Headers), ConnectError> {
        let entries = require_map(value, &self.purpose())?;
        let mut added = Headers::new();
        for (name, header) in self.fields.iter().zip(&self.headers) {
            let field_value = entries
                .iter()
                .find(|(k, _)| k.as_str() == Some(name.as_str()))
                .map_or(Value::Null, |(_, v)| v.clone());
            added.add(header.clone(), None, field_value);
        }
        let updated = match self.operation {
            Operation::Copy => entries.to_vec(),
            Operation::Move => entries
                .iter()
                .filter(|(k, _)| {
                    !k.as_str()
                        .is_some_and(|k| self.fields.iter().any(|f| f == k))
                })
                .cloned()
                .collect(),
        };
        Ok((Value::Map(updated), added))
    }
}

impl Transformation for HeaderFrom {
    fn configure(&mut self, configs: &ConfigMap) -> ferry_api::error::Result<()> {
        let parsed = config_def().parse(configs)?;
        self.fields = parsed.list(FIELDS_CONFIG)?;
        self.headers = parsed.list(HEADERS_CONFIG)?;
        if self.fields.len() != self.headers.len() {
            return Err(ConfigError::single(
                HEADERS_CONFIG,
                format!(
                    "'{FIELDS_CONFIG}' config must have the same number of elements as '{HEADERS_CONFIG}' config."
                ),
            )
            .into());
        }
        self.operation = match parsed.string(OPERATION_CONFIG)?.as_deref() {
            Some("move") => Operation::Move,
            _ => Operation::Copy,
        };
        self.replace_null_with_default = parsed.boolean(REPLACE_NULL_WITH_DEFAULT_CONFIG)?;
        self.cache = SchemaCache::new();
        Ok(())
    }

    fn config_def(&self) -> ConfigDef {
        config_def()
    }

    fn apply(&self, record: &mut dyn Record) -> ferry_api::error::Result<bool> {
        let value = self.part.value(record);
        let added = match self.part.schema(record) {
            None => {
                let (updated, added) = self.schemaless(value)?;
                self.part.set(record, None, updated);
                added
            }
            Some(schema) => {
                let (updated, added) = self.with_schema(schema, value)?;
                if let Some((schema, value)) = updated {
                    self.part.set(record, Some(schema), value);
                }
                added
            }
        };
        let headers = record.headers_mut();
        for header in added.iter() {
            headers.add(
                header.key.clone(),
                header.schema.clone(),
                header.value.clone(),
            );
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferry_api::data::{Schema, Type};
    use ferry_api::record::SourceRecord;

    /// A key or value made of named fields, with the record's headers; it builds both the
    /// schemaless and the struct form of the same record, as Java's test does.
    #[derive(Clone, Default)]
    struct Sample {
        fields: Vec<(&'static str, SchemaRef, Value)>,
        headers: Vec<(&'static str, SchemaRef, Value)>,
    }

    impl Sample {
        fn field(mut self, name: &'static str, schema: SchemaRef, value: Value) -> Self {
            self.fields.push((name, schema, value));
            self
        }

        fn header(mut self, name: &'static str, schema: SchemaRef, value: Value) -> Self {
            self.headers.push((name, schema, value));
            self
        }

        fn record(&self, key: bool, schema: Option<SchemaRef>, data: Value) -> SourceRecord {
            let mut headers = Headers::new();
            for (name, header_schema, value) in &self.headers {
                // Schemaless transforms write headers without a schema.
                let header_schema = schema.as_ref().map(|_| header_schema.clone());
                headers.add(*name, header_schema, value.clone());
            }
            let mut r = SourceRecord {
                topic: "topic".to_owned(),
                kafka_partition: Some(0),
                timestamp: Some(0),
                headers,
                key: "key".into(),
                value: "value".into(),
                ..Default::default()
            };
            if key {
                r.key_schema = schema;
                r.key = data;
            } else {
                r.value_schema = schema;
                r.value = data;
            }
            r
        }

        fn schemaless(&self, key: bool) -> SourceRecord {
            let map = self
                .fields
                .iter()
                .map(|(name, _, value)| (Value::from(*name), value.clone()))
                .collect();
            self.record(key, None, Value::Map(map))
        }

        fn with_schema(&self, key: bool) -> SourceRecord {
            let mut builder = SchemaBuilder::struct_();
            for (name, schema, _) in &self.fields {
                builder = builder.field(*name, schema.clone());
            }
            let schema = builder.build();
            let mut value = Struct::new(schema.clone()).unwrap();
            for (name, _, v) in &self.fields {
                value.put(name, v.clone()).unwrap();
            }
            self.record(key, Some(schema), Value::Struct(value))
        }
    }

    fn string() -> SchemaRef {
        Schema::string()
    }

    fn optional_with_default() -> SchemaRef {
        SchemaBuilder::new(Type::String)
            .default_value("default".into())
            .optional()
            .build()
    }

    fn nested() -> (SchemaRef, Value) {
        let schema = SchemaBuilder::struct_().field("foo", string()).build();
        let mut s = Struct::new(schema.clone()).unwrap();
        s.put("foo", "foo-value").unwrap();
        (schema, Value::Struct(s))
    }

    struct Case {
        name: &'static str,
        original: Sample,
        fields: &'static str,
        headers: &'static str,
        operation: &'static str,
        replace_null_with_default: bool,
        expected: Sample,
    }

    fn two_strings() -> Sample {
        Sample::default()
            .field("field1", string(), "field1-value".into())
            .field("field2", string(), "field2-value".into())
    }

    fn cases() -> Vec<Case> {
        let (nested_schema, nested_value) = nested();
        let existing = |s: Sample| s.header("header1", string(), "existing-value".into());
        vec![
            Case {
                name: "basic copy",
                original: existing(two_strings()),
                fields: "field1",
                headers: "inserted1",
                operation: "copy",
                replace_null_with_default: true,
                expected: existing(two_strings()).header(
                    "inserted1",
                    string(),
                    "field1-value".into(),
                ),
            },
            Case {
                name: "basic move",
                original: existing(two_strings()),
                fields: "field1",
                headers: "inserted1",
                operation: "move",
                replace_null_with_default: true,
                expected: existing(Sample::default().field(
                    "field2",
                    string(),
                    "field2-value".into(),
                ))
                .header("inserted1", string(), "field1-value".into()),
            },
            Case {
                name: "copy with preexisting header",
                original: two_strings().header("inserted1", string(), "existing-value".into()),
                fields: "field1",
                headers: "inserted1",
                operation: "copy",
                replace_null_with_default: true,
                expected: two_strings()
                    .header("inserted1", string(), "existing-value".into())
                    .header("inserted1", string(), "field1-value".into()),
            },
            Case {
                name: "move with preexisting header",
                original: two_strings().header("inserted1", string(), "existing-value".into()),
                fields: "field1",
                headers: "inserted1",
                operation: "move",
                replace_null_with_default: true,
                expected: Sample::default()
                    .field("field2", string(), "field2-value".into())
                    .header("inserted1", string(), "existing-value".into())
                    .header("inserted1", string(), "field1-value".into()),
            },
            Case {
                name: "copy with struct value",
                original: existing(
                    Sample::default()
                        .field("field1", nested_schema.clone(), nested_value.clone())
                        .field("field2", string(), "field2-value".into()),
                ),
                fields: "field1",
                headers: "inserted1",
                operation: "copy",
                replace_null_with_default: true,
                expected: existing(
                    Sample::default()
                        .field("field1", nested_schema.clone(), nested_value.clone())
                        .field("field2", string(), "field2-value".into()),
                )
                .header("inserted1", nested_schema.clone(), nested_value.clone()),
            },
            Case {
                name: "move with struct value",
                original: existing(
                    Sample::default()
                        .field("field1", nested_schema.clone(), nested_value.clone())
                        .field("field2", string(), "field2-value".into()),
                ),
                fields: "field1",
                headers: "inserted1",
                operation: "move",
                replace_null_with_default: true,
                expected: existing(Sample::default().field(
                    "field2",
                    string(),
                    "field2-value".into(),
                ))
                .header("inserted1", nested_schema, nested_value),
            },
            Case {
                name: "two headers from same field",
                original: existing(two_strings()),
                fields: "field1,field1",
                headers: "inserted1,inserted2",
                operation: "move",
                replace_null_with_default: true,
                expected: existing(Sample::default().field(
                    "field2",
                    string(),
                    "field2-value".into(),
                ))
                .header("inserted1", string(), "field1-value".into())
                .header("inserted2", string(), "field1-value".into()),
            },
            Case {
                name: "two fields to same header",
                original: existing(two_strings()),
                fields: "field1,field2",
                headers: "inserted1,inserted1",
                operation: "move",
                replace_null_with_default: true,
                expected: existing(Sample::default())
                    .header("inserted1", string(), "field1-value".into())
                    .header("inserted1", string(), "field2-value".into()),
            },
            Case {
                name: "copy null field without default",
                original: existing(
                    Sample::default()
                        .field("field1", optional_with_default(), "field1-value".into())
                        .field("field2", optional_with_default(), Value::Null),
                ),
                fields: "field1,field2",
                headers: "inserted1,inserted2",
                operation: "copy",
                replace_null_with_default: false,
                expected: existing(
                    Sample::default()
                        .field("field1", optional_with_default(), "field1-value".into())
                        .field("field2", optional_with_default(), Value::Null),
                )
                .header("inserted1", optional_with_default(), "field1-value".into())
                .header("inserted2", optional_with_default(), Value::Null),
            },
            Case {
                name: "move null field without default",
                original: existing(
                    Sample::default()
                        .field("field1", optional_with_default(), "field1-value".into())
                        .field("field2", optional_with_default(), Value::Null),
                ),
                fields: "field1,field2",
                headers: "inserted1,inserted2",
                operation: "move",
                replace_null_with_default: false,
                expected: existing(Sample::default())
                    .header("inserted1", optional_with_default(), "field1-value".into())
                    .header("inserted2", optional_with_default(), Value::Null),
            },
        ]
    }

    fn xform(key: bool, case: &Case) -> HeaderFrom {
        let mut xform = HeaderFrom::new(if key { Part::Key } else { Part::Value });
        let props = [
            ("fields", case.fields),
            ("headers", case.headers),
            ("operation", case.operation),
            (
                "replace.null.with.default",
                if case.replace_null_with_default {
                    "true"
                } else {
                    "false"
                },
            ),
        ]
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
        xform.configure(&props).unwrap();
        xform
    }

    #[test]
    fn schemaless_cases() {
        for key in [true, false] {
            for case in cases() {
                let mut record = case.original.schemaless(key);
                xform(key, &case).apply(&mut record).unwrap();
                assert_eq!(
                    record,
                    case.expected.schemaless(key),
                    "{} (key: {key})",
                    case.name
                );
            }
        }
    }

    #[test]
    fn with_schema_cases() {
        for key in [true, false] {
            for case in cases() {
                let mut record = case.original.with_schema(key);
                xform(key, &case).apply(&mut record).unwrap();
                assert_eq!(
                    record,
                    case.expected.with_schema(key),
                    "{} (key: {key})",
                    case.name
                );
            }
        }
    }

    #[test]
    fn moved_null_field_with_default_uses_the_default() {
        let original = Sample::default()
            .field("field1", optional_with_default(), Value::Null)
            .field("field2", optional_with_default(), Value::Null);
        let case = Case {
            name: "move with defaults",
            original: original.clone(),
            fields: "field1",
            headers: "h",
            operation: "move",
            replace_null_with_default: true,
            expected: Sample::default(),
        };
        let mut record = original.with_schema(false);
        xform(false, &case).apply(&mut record).unwrap();
        let h = record.headers.last_with_name("h").unwrap();
        assert_eq!(h.value, Value::from("default"));
        let Value::Struct(s) = &record.value else {
            panic!()
        };
        assert_eq!(
            s.get_without_default("field2").unwrap(),
            &Value::from("default")
        );
    }

    fn config_error(pairs: &[(&str, &str)]) -> String {
        let props = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        HeaderFrom::new(Part::Value)
            .configure(&props)
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn config_errors() {
        let mismatch = "'fields' config must have the same number of elements as 'headers' config.";
        assert_eq!(
            config_error(&[
                ("fields", "foo,bar"),
                ("headers", "foo"),
                ("operation", "copy")
            ]),
            mismatch
        );
        assert_eq!(
            config_error(&[
                ("fields", "foo"),
                ("headers", "foo,bar"),
                ("operation", "copy")
            ]),
            mismatch
        );
        let empty = config_error(&[("fields", ""), ("headers", ""), ("operation", "copy")]);
        assert!(
            empty.contains("Invalid value [] for configuration fields: Empty list"),
            "{empty}"
        );
        assert!(
            empty.contains("Invalid value [] for configuration headers: Empty list"),
            "{empty}"
        );
        assert_eq!(
            config_error(&[("fields", "a"), ("headers", "b"), ("operation", "swap")]),
            "Invalid value swap for configuration operation: String must be one of: move, copy"
        );
    }

    #[test]
    fn needs_a_map_or_struct() {
        let case = &cases()[0];
        let mut record = case.original.schemaless(false);
        record.value = Value::Null;
        assert_eq!(
            xform(false, case)
                .apply(&mut record)
                .unwrap_err()
                .to_string(),
            "Only Map objects supported in absence of schema for [header copy], found: null"
        );
        let mut record = case.original.with_schema(false);
        record.value = Value::Int32(1);
        assert_eq!(
            xform(false, case)
                .apply(&mut record)
                .unwrap_err()
                .to_string(),
            "Only Struct objects supported for [header copy], found: java.lang.Integer"
        );
    }
}
