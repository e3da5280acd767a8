//! A JSON tree to Connect data (Java's `convertToConnect`). Java reads scalars through
//! Jackson's lenient accessors, so a payload of the wrong JSON kind mostly becomes 0, false or
//! null rather than an error; that behaviour is kept so both sides read the same data alike.

use ferry_api::data::{
    Decimal, SchemaRef, Struct, Type, Value, DATE_LOGICAL_NAME, DECIMAL_LOGICAL_NAME,
    TIMESTAMP_LOGICAL_NAME, TIME_LOGICAL_NAME,
};
use ferry_api::ConnectError;

use crate::b64;
use crate::node::JsonNode;
use crate::write::decimal_scale;

const MILLIS_PER_DAY: i32 = 86_400_000;

fn data(message: impl Into<String>) -> ConnectError {
    ConnectError::data(message)
}

/// `node` is `None` when the JSON had no such member at all.
pub(crate) fn to_connect(
    schema: Option<&SchemaRef>,
    node: Option<&JsonNode>,
    replace_null_with_default: bool,
) -> Result<Value, ConnectError> {
    let Some(schema) = schema else {
        return Ok(node.map_or(Value::Null, schemaless));
    };
    let node = match node {
        None | Some(JsonNode::Null) => {
            if let (Some(default), true) = (&schema.default, replace_null_with_default) {
                return Ok(default.clone());
            }
            if schema.optional {
                return Ok(Value::Null);
            }
            return Err(data(format!(
                "Invalid null value for required {} field",
                schema.kind.java_name()
            )));
        }
        Some(node) => node,
    };
    if let Some(value) = logical(schema, node)? {
        return Ok(value);
    }
    Ok(match schema.kind {
        Type::Boolean => Value::Boolean(matches!(node, JsonNode::Bool(true))),
        Type::Int8 => Value::Int8(node.int_value() as i8),
        Type::Int16 => Value::Int16(node.int_value() as i16),
        Type::Int32 => Value::Int32(node.int_value()),
        Type::Int64 => Value::Int64(node.long_value()),
        Type::Float32 => Value::Float32(node.float_value()),
        Type::Float64 => Value::Float64(node.double_value()),
        Type::Bytes => match node {
            JsonNode::Text(text) => {
                Value::Bytes(b64::decode(text).map_err(|_| data("Invalid bytes field"))?)
            }
            JsonNode::Binary(bytes) => Value::Bytes(bytes.clone()),
            _ => Value::Null,
        },
        Type::String => match node {
            JsonNode::Text(text) => Value::String(text.clone()),
            _ => Value::Null,
        },
        Type::Array => {
            let item_schema = schema.value_schema.as_ref();
            Value::Array(
                node.elements()
                    .map(|item| to_connect(item_schema, Some(item), replace_null_with_default))
                    .collect::<Result<_, _>>()?,
            )
        }
        Type::Map => map(schema, node, replace_null_with_default)?,
        Type::Struct => structure(schema, node, replace_null_with_default)?,
    })
}

fn map(schema: &SchemaRef, node: &JsonNode, replace: bool) -> Result<Value, ConnectError> {
    let key_schema = schema.key_schema.as_ref();
    let value_schema = schema.value_schema.as_ref();
    let string_keys = key_schema.is_none_or(|k| k.kind == Type::String);
    let mut entries = Vec::new();
    if string_keys {
        let JsonNode::Object(object) = node else {
            return Err(data(format!(
                "Maps with string fields should be encoded as JSON objects, but found {}",
                node.node_type()
            )));
        };
        for (key, value) in object {
            entries.push((
                Value::String(key.clone()),
                to_connect(value_schema, Some(value), replace)?,
            ));
        }
        return Ok(Value::Map(entries));
    }
    let JsonNode::Array(pairs) = node else {
        return Err(data(format!(
            "Maps with non-string fields should be encoded as JSON array of tuples, but found {}",
            node.node_type()
        )));
    };
    for pair in pairs {
        let JsonNode::Array(tuple) = pair else {
            return Err(data(format!(
                "Found invalid map entry instead of array tuple: {}",
                pair.node_type()
            )));
        };
        if tuple.len() != 2 {
            return Err(data(format!(
                "Found invalid map entry, expected length 2 but found :{}",
                tuple.len()
            )));
        }
        entries.push((
            to_connect(key_schema, Some(&tuple[0]), replace)?,
            to_connect(value_schema, Some(&tuple[1]), replace)?,
        ));
    }
    Ok(Value::Map(entries))
}

fn structure(schema: &SchemaRef, node: &JsonNode, replace: bool) -> Result<Value, ConnectError> {
    if !matches!(node, JsonNode::Object(_)) {
        return Err(data(format!(
            "Structs should be encoded as JSON objects, but found {}",
            node.node_type()
        )));
    }
    let mut result = Struct::new(schema.clone())?;
    for field in &schema.fields {
        let value = to_connect(Some(&field.schema), node.get(&field.name), replace)?;
        if value.is_null() && !field.schema.optional {
            return Err(data(format!(
                "Invalid value: null used for required field: \"{}\", schema type: {}",
                field.name,
                field.schema.kind.java_name()
            )));
        }
        result.put(&field.name, value)?;
    }
    Ok(Value::Struct(result))
}

/// Logical types are recognised by schema name alone, as in Java.
fn logical(schema: &SchemaRef, node: &JsonNode) -> Result<Option<Value>, ConnectError> {
    let Some(name) = schema.name.as_deref() else {
        return Ok(None);
    };
    let value = match name {
        DECIMAL_LOGICAL_NAME => Value::Decimal(decimal(schema, node)?),
        DATE_LOGICAL_NAME => {
            if !node.is_int() {
                return Err(data(format!(
                    "Invalid type for Date, underlying representation should be integer but was {}",
                    node.node_type()
                )));
            }
            Value::Int32(node.int_value())
        }
        TIME_LOGICAL_NAME => {
            if !node.is_int() {
                return Err(data(format!(
                    "Invalid type for Time, underlying representation should be integer but was {}",
                    node.node_type()
                )));
            }
            let ms = node.int_value();
            if !(0..=MILLIS_PER_DAY).contains(&ms) {
                return Err(data(
                    "Time values must use number of milliseconds greater than 0 and less than 86400000",
                ));
            }
            Value::Int32(ms)
        }
        TIMESTAMP_LOGICAL_NAME => {
            if !node.is_integral() {
                return Err(data(format!(
                    "Invalid type for Timestamp, underlying representation should be integral but was {}",
                    node.node_type()
                )));
            }
            Value::Int64(node.long_value())
        }
        _ => return Ok(None),
    };
    Ok(Some(value))
}

/// A number keeps its own scale (Java does not rescale to the schema's); text is Base64 of
/// the unscaled bytes with the schema's scale.
fn decimal(schema: &SchemaRef, node: &JsonNode) -> Result<Decimal, ConnectError> {
    match node {
        JsonNode::Number(n) => n.decimal_value(),
        JsonNode::Text(_) | JsonNode::Binary(_) => {
            let invalid = || data("Invalid bytes for Decimal field");
            let bytes = match node {
                JsonNode::Text(text) => b64::decode(text).map_err(|_| invalid())?,
                JsonNode::Binary(bytes) => bytes.clone(),
                _ => unreachable!("matched above"),
            };
            let scale = decimal_scale(schema).map_err(|_| invalid())?;
            if bytes.is_empty() {
                return Err(invalid());
            }
            Ok(Decimal::from_bytes(&bytes, scale))
        }
        other => Err(data(format!(
            "Invalid type for Decimal, underlying representation should be numeric or bytes but was {}",
            other.node_type()
        ))),
    }
}

/// Without a schema: integers become int64, other numbers float64, objects string-keyed maps.
pub(crate) fn schemaless(node: &JsonNode) -> Value {
    match node {
        JsonNode::Null => Value::Null,
        JsonNode::Bool(b) => Value::Boolean(*b),
        JsonNode::Number(n) if n.integral => Value::Int64(node.long_value()),
        JsonNode::Number(_) => Value::Float64(node.double_value()),
        JsonNode::Int(v) => Value::Int64(*v),
        JsonNode::Float(v) => Value::Float64(f64::from(*v)),
        JsonNode::Double(v) => Value::Float64(*v),
        JsonNode::Decimal(_) => Value::Float64(crate::emit::to_text(node).parse().unwrap_or(0.0)),
        JsonNode::Text(s) => Value::String(s.clone()),
        JsonNode::Binary(b) => Value::Bytes(b.clone()),
        JsonNode::Array(items) => Value::Array(items.iter().map(schemaless).collect()),
        JsonNode::Object(map) => Value::Map(
            map.iter()
                .map(|(k, v)| (Value::String(k.clone()), schemaless(v)))
                .collect(),
        ),
    }
}
