//! Connect data to a JSON tree (Java's `convertToJson`), with Java's checks and messages.
//! Java discovers most mismatches through failed casts, so the messages name the Java class
//! the value would have had.

use ferry_api::data::{
    Schema, Type, Value, DATE_LOGICAL_NAME, DECIMAL_LOGICAL_NAME, DECIMAL_SCALE_PARAMETER,
    TIMESTAMP_LOGICAL_NAME, TIME_LOGICAL_NAME,
};
use ferry_api::ConnectError;
use indexmap::IndexMap;

use crate::config::DecimalFormat;
use crate::node::JsonNode;
use ferry_api::java::{java_big_decimal, java_double, java_float};

const MILLIS_PER_DAY: i32 = 86_400_000;

#[derive(Debug, Clone, Copy)]
pub(crate) struct Writer {
    pub(crate) decimal_format: DecimalFormat,
    pub(crate) replace_null_with_default: bool,
    /// Java refuses schemaless structs and decimals; the offset helpers write them anyway.
    pub(crate) lenient_schemaless: bool,
}

fn data(message: impl Into<String>) -> ConnectError {
    ConnectError::data(message)
}

/// The class Java would report for a value of this shape.
pub(crate) fn java_class(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Boolean(_) => "class java.lang.Boolean",
        Value::Int8(_) => "class java.lang.Byte",
        Value::Int16(_) => "class java.lang.Short",
        Value::Int32(_) => "class java.lang.Integer",
        Value::Int64(_) => "class java.lang.Long",
        Value::Float32(_) => "class java.lang.Float",
        Value::Float64(_) => "class java.lang.Double",
        Value::String(_) => "class java.lang.String",
        Value::Bytes(_) => "class [B",
        Value::Array(_) => "class java.util.ArrayList",
        Value::Map(_) => "class java.util.HashMap",
        Value::Struct(_) => "class org.apache.kafka.connect.data.Struct",
        Value::Decimal(_) => "class java.math.BigDecimal",
    }
}

impl Writer {
    pub(crate) fn convert(
        &self,
        schema: Option<&Schema>,
        value: &Value,
    ) -> Result<JsonNode, ConnectError> {
        let Some(schema) = schema else {
            return self.schemaless(value);
        };
        if value.is_null() {
            if let (Some(default), true) = (&schema.default, self.replace_null_with_default) {
                return self.convert(Some(schema), default);
            }
            if schema.optional {
                return Ok(JsonNode::Null);
            }
            return Err(data(
                "Conversion error: null value for field that is required and has no default value",
            ));
        }
        if let Some(node) = self.logical(schema, value)? {
            return Ok(node);
        }
        let mismatch = || {
            data(format!(
                "Invalid type for {}: {}",
                schema.kind.java_name(),
                java_class(value)
            ))
        };
        Ok(match (schema.kind, value) {
            (Type::Int8, Value::Int8(v)) => JsonNode::Int(i64::from(*v)),
            (Type::Int16, Value::Int16(v)) => JsonNode::Int(i64::from(*v)),
            (Type::Int32, Value::Int32(v)) => JsonNode::Int(i64::from(*v)),
            (Type::Int64, Value::Int64(v)) => JsonNode::Int(*v),
            (Type::Float32, Value::Float32(v)) => JsonNode::Float(*v),
            (Type::Float64, Value::Float64(v)) => JsonNode::Double(*v),
            (Type::Boolean, Value::Boolean(v)) => JsonNode::Bool(*v),
            (Type::String, Value::String(v)) => JsonNode::Text(v.clone()),
            (Type::Bytes, Value::Bytes(v)) => JsonNode::Binary(v.clone()),
            (Type::Bytes, other) => {
                return Err(data(format!(
                    "Invalid type for bytes type: {}",
                    java_class(other)
                )))
            }
            (Type::Array, Value::Array(items)) => {
                let item_schema = schema.value_schema.as_deref();
                JsonNode::Array(
                    items
                        .iter()
                        .map(|item| self.convert(item_schema, item))
                        .collect::<Result<_, _>>()?,
                )
            }
            (Type::Map, Value::Map(entries)) => {
                let string_keys = schema
                    .key_schema
                    .as_ref()
                    .is_some_and(|k| k.kind == Type::String);
                self.map(
                    schema.key_schema.as_deref(),
                    schema.value_schema.as_deref(),
                    entries,
                    string_keys,
                )?
            }
            (Type::Struct, Value::Struct(s)) => {
                if s.schema().as_ref() != schema {
                    return Err(data("Mismatching schema."));
                }
                let mut fields = IndexMap::with_capacity(schema.fields.len());
                for field in &schema.fields {
                    let node = self.convert(Some(&field.schema), s.get_index(field.index))?;
                    fields.insert(field.name.clone(), node);
                }
                JsonNode::Object(fields)
            }
            _ => return Err(mismatch()),
        })
    }

    /// Logical types are recognised by schema name alone, as in Java.
    fn logical(&self, schema: &Schema, value: &Value) -> Result<Option<JsonNode>, ConnectError> {
        let Some(name) = schema.name.as_deref() else {
            return Ok(None);
        };
        let wrong = |logical: &str, expected: &str| {
            data(format!(
                "Invalid type for {logical}, expected {expected} but was {}",
                java_class(value)
            ))
        };
        let node = match name {
            DECIMAL_LOGICAL_NAME => {
                let Value::Decimal(d) = value else {
                    return Err(wrong("Decimal", "BigDecimal"));
                };
                match self.decimal_format {
                    DecimalFormat::Numeric => JsonNode::Decimal(d.clone()),
                    DecimalFormat::Base64 => {
                        let scale = decimal_scale(schema)?;
                        if d.scale != scale {
                            return Err(data(format!(
                                "Decimal value has mismatching scale for given Decimal schema. \
                                 Schema has scale {scale}, value has scale {}.",
                                d.scale
                            )));
                        }
                        JsonNode::Binary(d.to_bytes())
                    }
                }
            }
            DATE_LOGICAL_NAME => match value {
                Value::Int32(days) => JsonNode::Int(i64::from(*days)),
                _ => return Err(wrong("Date", "Date")),
            },
            TIME_LOGICAL_NAME => match value {
                Value::Int32(ms) if (0..=MILLIS_PER_DAY).contains(ms) => JsonNode::Int(i64::from(*ms)),
                Value::Int32(_) => {
                    return Err(data(
                        "Kafka Connect Time type should not have any date fields set to non-zero values.",
                    ))
                }
                _ => return Err(wrong("Time", "Date")),
            },
            TIMESTAMP_LOGICAL_NAME => match value {
                Value::Int64(ms) => JsonNode::Int(*ms),
                _ => return Err(wrong("Timestamp", "Date")),
            },
            _ => return Ok(None),
        };
        Ok(Some(node))
    }

    fn map(
        &self,
        key_schema: Option<&Schema>,
        value_schema: Option<&Schema>,
        entries: &[(Value, Value)],
        object_mode: bool,
    ) -> Result<JsonNode, ConnectError> {
        if object_mode {
            let mut object = IndexMap::with_capacity(entries.len());
            for (k, v) in entries {
                let key = as_text(&self.convert(key_schema, k)?);
                object.insert(key, self.convert(value_schema, v)?);
            }
            return Ok(JsonNode::Object(object));
        }
        let mut pairs = Vec::with_capacity(entries.len());
        for (k, v) in entries {
            pairs.push(JsonNode::Array(vec![
                self.convert(key_schema, k)?,
                self.convert(value_schema, v)?,
            ]));
        }
        Ok(JsonNode::Array(pairs))
    }

    fn schemaless(&self, value: &Value) -> Result<JsonNode, ConnectError> {
        Ok(match value {
            Value::Null => JsonNode::Null,
            Value::Boolean(v) => JsonNode::Bool(*v),
            Value::Int8(v) => JsonNode::Int(i64::from(*v)),
            Value::Int16(v) => JsonNode::Int(i64::from(*v)),
            Value::Int32(v) => JsonNode::Int(i64::from(*v)),
            Value::Int64(v) => JsonNode::Int(*v),
            Value::Float32(v) => JsonNode::Float(*v),
            Value::Float64(v) => JsonNode::Double(*v),
            Value::String(v) => JsonNode::Text(v.clone()),
            Value::Bytes(v) => JsonNode::Binary(v.clone()),
            Value::Array(items) => JsonNode::Array(
                items
                    .iter()
                    .map(|item| self.schemaless(item))
                    .collect::<Result<_, _>>()?,
            ),
            Value::Map(entries) => {
                let all_strings = entries.iter().all(|(k, _)| matches!(k, Value::String(_)));
                self.map(None, None, entries, all_strings)?
            }
            Value::Struct(s) if self.lenient_schemaless => self.convert(Some(s.schema()), value)?,
            // Java compares the struct's schema with the (absent) one and fails.
            Value::Struct(_) => return Err(data("Mismatching schema.")),
            Value::Decimal(d) if self.lenient_schemaless => JsonNode::Decimal(d.clone()),
            Value::Decimal(_) => return Err(data(
                "Java class class java.math.BigDecimal does not have corresponding schema type.",
            )),
        })
    }
}

/// The scale a Decimal schema declares, with Java's messages when it cannot be read.
pub(crate) fn decimal_scale(schema: &Schema) -> Result<i32, ConnectError> {
    let text = schema
        .parameter(DECIMAL_SCALE_PARAMETER)
        .ok_or_else(|| data("Invalid Decimal schema: scale parameter not found."))?;
    text.parse::<i32>()
        .map_err(|_| data("Invalid scale parameter found in Decimal schema: "))
}

/// Jackson's `asText()`, which names an object-mode map entry.
fn as_text(node: &JsonNode) -> String {
    match node {
        JsonNode::Null => "null".to_owned(),
        JsonNode::Bool(b) => b.to_string(),
        JsonNode::Int(v) => v.to_string(),
        JsonNode::Float(v) => java_float(*v),
        JsonNode::Double(v) => java_double(*v),
        JsonNode::Decimal(d) => java_big_decimal(d),
        JsonNode::Number(n) => n.text.clone(),
        JsonNode::Text(s) => s.clone(),
        JsonNode::Binary(_) => crate::emit::to_text(node).trim_matches('"').to_owned(),
        JsonNode::Array(_) | JsonNode::Object(_) => String::new(),
    }
}
