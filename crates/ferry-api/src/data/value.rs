//! Connect values and structs.

use crate::data::{Decimal, Schema, SchemaRef, Type};
use crate::error::{ConnectError, Result};

/// A Connect value. Logical Date/Time/Timestamp values are held in their physical form
/// (days, milliseconds of day, epoch milliseconds); Decimal has a variant of its own because
/// its physical bytes are meaningless without the scale.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Value {
    #[default]
    Null,
    Boolean(bool),
    Int8(i8),
    Int16(i16),
    Int32(i32),
    Int64(i64),
    Float32(f32),
    Float64(f64),
    String(String),
    Bytes(Vec<u8>),
    Array(Vec<Value>),
    /// Entries in insertion order; keys of any type, as Connect maps allow.
    Map(Vec<(Value, Value)>),
    Struct(Struct),
    Decimal(Decimal),
}

impl Value {
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The value as an i64 if it is any integer type.
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            Value::Int8(v) => Some(v.into()),
            Value::Int16(v) => Some(v.into()),
            Value::Int32(v) => Some(v.into()),
            Value::Int64(v) => Some(v),
            _ => None,
        }
    }

    /// The schema type a schemaless value would be inferred as (Java's `ConnectSchema.schemaType`).
    pub fn inferred_type(&self) -> Option<Type> {
        Some(match self {
            Value::Null => return None,
            Value::Boolean(_) => Type::Boolean,
            Value::Int8(_) => Type::Int8,
            Value::Int16(_) => Type::Int16,
            Value::Int32(_) => Type::Int32,
            Value::Int64(_) => Type::Int64,
            Value::Float32(_) => Type::Float32,
            Value::Float64(_) => Type::Float64,
            Value::String(_) => Type::String,
            Value::Bytes(_) | Value::Decimal(_) => Type::Bytes,
            Value::Array(_) => Type::Array,
            Value::Map(_) => Type::Map,
            Value::Struct(_) => Type::Struct,
        })
    }

    /// A short description for error messages.
    pub fn type_description(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Boolean(_) => "Boolean",
            Value::Int8(_) => "Byte",
            Value::Int16(_) => "Short",
            Value::Int32(_) => "Integer",
            Value::Int64(_) => "Long",
            Value::Float32(_) => "Float",
            Value::Float64(_) => "Double",
            Value::String(_) => "String",
            Value::Bytes(_) => "byte[]",
            Value::Array(_) => "ArrayList",
            Value::Map(_) => "HashMap",
            Value::Struct(_) => "Struct",
            Value::Decimal(_) => "BigDecimal",
        }
    }

    /// Looks up a string key in a map value.
    pub fn map_get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Map(entries) => entries
                .iter()
                .find(|(k, _)| k.as_str() == Some(key))
                .map(|e| &e.1),
            _ => None,
        }
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::String(s.to_owned())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::String(s)
    }
}

impl From<i64> for Value {
    fn from(v: i64) -> Self {
        Value::Int64(v)
    }
}

impl From<i32> for Value {
    fn from(v: i32) -> Self {
        Value::Int32(v)
    }
}

impl From<bool> for Value {
    fn from(v: bool) -> Self {
        Value::Boolean(v)
    }
}

/// A struct value: one value per field of its schema.
#[derive(Debug, Clone, PartialEq)]
pub struct Struct {
    schema: SchemaRef,
    values: Vec<Value>,
}

impl Struct {
    /// An empty struct of `schema`; every field starts null.
    pub fn new(schema: SchemaRef) -> Result<Self> {
        if schema.kind != Type::Struct {
            return Err(ConnectError::data(
                "Not a struct schema: ".to_owned() + schema.kind.java_name(),
            ));
        }
        let values = vec![Value::Null; schema.fields.len()];
        Ok(Struct { schema, values })
    }

    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// Sets a field, checking the value against the field's schema.
    pub fn put(&mut self, field: &str, value: impl Into<Value>) -> Result<&mut Self> {
        let value = value.into();
        let f = self
            .schema
            .field(field)
            .ok_or_else(|| ConnectError::data(format!("{field} is not a valid field name")))?;
        f.schema.validate_value(&value)?;
        self.values[f.index] = value;
        Ok(self)
    }

    /// The value of a field as stored (null if unset; defaults are not applied).
    pub fn get_without_default(&self, field: &str) -> Result<&Value> {
        let f = self
            .schema
            .field(field)
            .ok_or_else(|| ConnectError::data(format!("{field} is not a valid field name")))?;
        Ok(&self.values[f.index])
    }

    /// The value of a field, or the field schema's default when it is null.
    pub fn get(&self, field: &str) -> Result<&Value> {
        let f = self
            .schema
            .field(field)
            .ok_or_else(|| ConnectError::data(format!("{field} is not a valid field name")))?;
        Ok(self.value_or_default(f.index, &f.schema))
    }

    pub fn get_index(&self, index: usize) -> &Value {
        &self.values[index]
    }

    /// A struct of `schema` holding `values` in field order, each value checked against its
    /// field's schema; a null stands for a field left unset, as in [`Struct::new`]. Transforms
    /// build their output this way, moving the input's values rather than copying them.
    pub fn from_values(schema: SchemaRef, values: Vec<Value>) -> Result<Self> {
        if schema.kind != Type::Struct {
            return Err(ConnectError::data(
                "Not a struct schema: ".to_owned() + schema.kind.java_name(),
            ));
        }
        if values.len() != schema.fields.len() {
            return Err(ConnectError::data(format!(
                "A struct of {} fields cannot hold {} values",
                schema.fields.len(),
                values.len()
            )));
        }
        for (field, value) in schema.fields.iter().zip(&values) {
            if !value.is_null() {
                field.schema.validate_value(value)?;
            }
        }
        Ok(Struct { schema, values })
    }

    /// The struct's values in field order, moved out.
    pub fn into_values(self) -> Vec<Value> {
        self.values
    }

    fn value_or_default<'a>(&'a self, index: usize, schema: &'a Schema) -> &'a Value {
        match (&self.values[index], &schema.default) {
            (Value::Null, Some(default)) => default,
            (value, _) => value,
        }
    }

    /// Checks that every required field without a default is set.
    pub fn validate(&self) -> Result<()> {
        for f in &self.schema.fields {
            f.schema
                .validate_value(self.value_or_default(f.index, &f.schema))
                .map_err(|_| {
                    ConnectError::data(format!(
                        "Invalid value: null used for required field: \"{}\", schema type: {}",
                        f.name,
                        f.schema.kind.java_name()
                    ))
                })?;
        }
        Ok(())
    }

    /// The raw values, in field order.
    pub fn values(&self) -> &[Value] {
        &self.values
    }
}

/// Java's `ConnectSchema.validateValue(field.name(), field.schema(), value)`, which refuses a
/// null for a required field even when the field has a default.
pub fn check_field_value(field: &crate::data::Field, value: &Value) -> Result<()> {
    check_null_allowed(field, value)?;
    field.schema.validate_value(value)
}

/// The null check of [`check_field_value`] alone, with Java's message naming the field.
pub fn check_null_allowed(field: &crate::data::Field, value: &Value) -> Result<()> {
    if value.is_null() && !field.schema.optional {
        return Err(ConnectError::data(format!(
            "Invalid value: null used for required field: \"{}\", schema type: {}",
            field.name,
            field.schema.kind.java_name()
        )));
    }
    Ok(())
}

/// A schema (absent for schemaless data) with its value.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SchemaAndValue {
    pub schema: Option<SchemaRef>,
    pub value: Value,
}

impl SchemaAndValue {
    pub const NULL: SchemaAndValue = SchemaAndValue {
        schema: None,
        value: Value::Null,
    };

    pub fn new(schema: Option<SchemaRef>, value: Value) -> Self {
        SchemaAndValue { schema, value }
    }
}
