//! Helpers shared by the transforms: which part of a record a `$Key`/`$Value` variant works on,
//! and Java's `Requirements` checks with their messages.

use std::sync::Arc;

use ferry_api::config::{ConfigValue, Validator};
use ferry_api::data::{SchemaRef, Struct, Value};
use ferry_api::transform::Record;
use ferry_api::ConnectError;

/// The part of a record a `$Key` or `$Value` transform works on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    Key,
    Value,
}

impl Part {
    pub fn schema(self, record: &dyn Record) -> Option<&SchemaRef> {
        match self {
            Part::Key => record.key_schema(),
            Part::Value => record.value_schema(),
        }
    }

    pub fn value(self, record: &dyn Record) -> &Value {
        match self {
            Part::Key => record.key(),
            Part::Value => record.value(),
        }
    }

    pub fn take(self, record: &mut dyn Record) -> (Option<SchemaRef>, Value) {
        match self {
            Part::Key => record.take_key(),
            Part::Value => record.take_value(),
        }
    }

    pub fn set(self, record: &mut dyn Record, schema: Option<SchemaRef>, value: Value) {
        match self {
            Part::Key => record.set_key(schema, value),
            Part::Value => record.set_value(schema, value),
        }
    }
}

/// Java's class name of a value, as its error messages show it (`null` for null).
pub use ferry_api::java::java_class_name as class_name;

/// Java's `Requirements.requireStruct`.
pub fn require_struct<'a>(value: &'a Value, purpose: &str) -> Result<&'a Struct, ConnectError> {
    match value {
        Value::Struct(s) => Ok(s),
        other => Err(ConnectError::data(format!(
            "Only Struct objects supported for [{purpose}], found: {}",
            class_name(other)
        ))),
    }
}

/// Java's `Requirements.requireMap` (schemaless records).
pub fn require_map<'a>(
    value: &'a Value,
    purpose: &str,
) -> Result<&'a [(Value, Value)], ConnectError> {
    match value {
        Value::Map(entries) => Ok(entries),
        other => Err(ConnectError::data(format!(
            "Only Map objects supported in absence of schema for [{purpose}], found: {}",
            class_name(other)
        ))),
    }
}

/// Java's `Requirements.requireSinkRecord`-style check for sink-only features.
pub fn require_schema(
    schema: Option<&SchemaRef>,
    purpose: &str,
) -> Result<SchemaRef, ConnectError> {
    schema
        .cloned()
        .ok_or_else(|| ConnectError::data(format!("Schema required for [{purpose}]")))
}

// Helpers added for Cast, ExtractField, Flatten, HoistField, InsertField and MaskField. Paths are
// written out in full so this section needs no `use` lines of its own.

/// Java's `SchemaUtil.copySchemaBasics(source, builder)`: the name, version, doc and parameters
/// of `source` onto `builder` (optionality and default are left to the caller).
pub fn copy_schema_basics(
    source: &ferry_api::data::Schema,
    mut builder: ferry_api::data::SchemaBuilder,
) -> ferry_api::data::SchemaBuilder {
    if let Some(name) = &source.name {
        builder = builder.name(name.clone());
    }
    if let Some(version) = source.version {
        builder = builder.version(version);
    }
    if let Some(doc) = &source.doc {
        builder = builder.doc(doc.clone());
    }
    if let Some(params) = &source.parameters {
        for (k, v) in params {
            builder = builder.parameter(k.clone(), v.clone());
        }
    }
    builder
}

/// Java's one-argument `SchemaUtil.copySchemaBasics(source)`: a builder of the same type (an
/// array keeps its item schema) carrying the name, version, doc and parameters.
pub fn copy_schema_basics_of(source: &ferry_api::data::Schema) -> ferry_api::data::SchemaBuilder {
    let builder = match (source.kind, &source.value_schema) {
        (ferry_api::data::Type::Array, Some(items)) => {
            ferry_api::data::SchemaBuilder::array(items.clone())
        }
        (kind, _) => ferry_api::data::SchemaBuilder::new(kind),
    };
    copy_schema_basics(source, builder)
}

/// A struct field's value, with the field schema's default standing in for null when
/// `with_default` is set (Java's `Struct.get` versus `Struct.getWithoutDefault`).
pub fn struct_field_value<'a>(
    value: &'a Struct,
    field: &'a ferry_api::data::Field,
    with_default: bool,
) -> &'a Value {
    let stored = value.values().get(field.index).unwrap_or(&Value::Null);
    match (stored, &field.schema.default) {
        (Value::Null, Some(default)) if with_default => default,
        (v, _) => v,
    }
}

/// Takes a field's value out of `values` (an input struct's, moved) for a rebuilt struct: the
/// field schema's default stands in for null when `with_default` is set, as in
/// [`struct_field_value`].
pub fn moved_field_value(
    values: &mut [Value],
    field: &ferry_api::data::Field,
    with_default: bool,
) -> Value {
    let stored = values
        .get_mut(field.index)
        .map(std::mem::take)
        .unwrap_or_default();
    match (&stored, &field.schema.default) {
        (Value::Null, Some(default)) if with_default => default.clone(),
        _ => stored,
    }
}

/// Moves the values out of the struct in a record part that [`require_struct`] has accepted.
/// Transforms call it once every check that can fail has passed, so a failing record is left
/// as it was.
pub fn take_struct_values(part: Part, record: &mut dyn Record) -> Vec<Value> {
    match part.take(record).1 {
        Value::Struct(s) => s.into_values(),
        // Not reached after require_struct; the rebuilt struct then refuses the missing values.
        _ => Vec::new(),
    }
}

/// The values of a struct rebuilt field for field from the one in a record part: each moved out
/// of the input (see [`moved_field_value`]) except those in `replaced`, given by position.
pub fn rebuilt_values(
    part: Part,
    record: &mut dyn Record,
    input: &ferry_api::data::Schema,
    with_default: bool,
    replaced: Vec<(usize, Value)>,
) -> Vec<Value> {
    let mut values = take_struct_values(part, record);
    let mut rebuilt: Vec<Value> = input
        .fields
        .iter()
        .map(|f| moved_field_value(&mut values, f, with_default))
        .collect();
    for (index, value) in replaced {
        if let Some(slot) = rebuilt.get_mut(index) {
            *slot = value;
        }
    }
    rebuilt
}

/// Java's `Struct.put(name, value)`: a null in a required field is refused with Java's message
/// before the value is checked against the field's schema.
pub fn put_struct_field(target: &mut Struct, name: &str, value: Value) -> Result<(), ConnectError> {
    if value.is_null() {
        if let Some(field) = target.schema().field(name) {
            if !field.schema.optional {
                return Err(ConnectError::data(format!(
                    "Invalid value: null used for required field: \"{name}\", schema type: {}",
                    field.schema.kind.java_name()
                )));
            }
        }
    }
    target.put(name, value)?;
    Ok(())
}

/// A struct schema under construction that refuses empty and repeated field names with the
/// messages of Java's `SchemaBuilder.field`.
pub struct StructFields {
    builder: ferry_api::data::SchemaBuilder,
    names: std::collections::HashSet<String>,
}

impl StructFields {
    /// Starts from `builder`, which must be a struct builder without fields yet.
    pub fn new(builder: ferry_api::data::SchemaBuilder) -> Self {
        StructFields {
            builder,
            names: std::collections::HashSet::new(),
        }
    }

    pub fn add(&mut self, name: &str, schema: SchemaRef) -> Result<(), ConnectError> {
        if name.is_empty() {
            return Err(ConnectError::data("fieldName cannot be null."));
        }
        if !self.names.insert(name.to_owned()) {
            return Err(ConnectError::data(format!(
                "Cannot create field because of field name duplication {name}"
            )));
        }
        let builder =
            std::mem::replace(&mut self.builder, ferry_api::data::SchemaBuilder::struct_());
        self.builder = builder.field(name, schema);
        Ok(())
    }

    pub fn into_builder(self) -> ferry_api::data::SchemaBuilder {
        self.builder
    }
}

/// Derived schemas keyed by the schema they were made from, as Java's transforms keep them in a
/// synchronized LRU cache of 16. A lookup tries the same `Arc` first, then an equal schema. What
/// is derived can carry more than the schema (`D`), such as where each field comes from.
pub struct SchemaCache<D = SchemaRef> {
    entries: std::sync::Mutex<Vec<(SchemaRef, D)>>,
}

impl<D: Clone> Default for SchemaCache<D> {
    fn default() -> Self {
        Self::new()
    }
}

impl<D: Clone> SchemaCache<D> {
    const CAPACITY: usize = 16;

    pub fn new() -> Self {
        SchemaCache {
            entries: std::sync::Mutex::new(Vec::new()),
        }
    }

    /// What is derived from `key`, built with `build` (outside the lock) when not cached.
    pub fn get_or_build(
        &self,
        key: &SchemaRef,
        build: impl FnOnce() -> Result<D, ConnectError>,
    ) -> Result<D, ConnectError> {
        {
            let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
            let found = entries
                .iter()
                .rposition(|(k, _)| std::sync::Arc::ptr_eq(k, key))
                .or_else(|| entries.iter().position(|(k, _)| **k == **key));
            if let Some(i) = found {
                // Most recently used entries live at the end.
                let last = entries.len() - 1;
                if i != last {
                    let entry = entries.remove(i);
                    entries.push(entry);
                }
                return Ok(entries[last].1.clone());
            }
        }
        let derived = build()?;
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if entries.len() >= Self::CAPACITY {
            entries.remove(0);
        }
        entries.push((key.clone(), derived.clone()));
        Ok(derived)
    }
}

/// Java's `NonEmptyListValidator`.
pub(crate) fn non_empty_list() -> Validator {
    Validator::Custom {
        description: "non-empty list".to_owned(),
        check: Arc::new(|value| match value {
            ConfigValue::List(items) if !items.is_empty() => Ok(()),
            _ => Err("Empty list".to_owned()),
        }),
    }
}
