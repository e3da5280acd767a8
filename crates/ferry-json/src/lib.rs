//! Ferry's JSON converter: a byte-for-byte compatible port of Kafka Connect's
//! `org.apache.kafka.connect.json.JsonConverter`, including Jackson's output formatting.

mod b64;
mod cache;
pub mod config;
mod converter;
mod emit;
mod node;
mod parse;
mod read;
mod schema_json;
mod write;

use ferry_api::config::ConfigDef;
use ferry_api::data::Value;
use ferry_api::record::OffsetMap;
use ferry_api::ConnectError;

pub use config::{DecimalFormat, JsonConverterConfig};
pub use converter::JsonConverter;

/// The Java class name workers and connector configs use to select this converter.
pub const CLASS_NAME: &str = "org.apache.kafka.connect.json.JsonConverter";

/// The converter's configuration keys (Java's `JsonConverterConfig.configDef()`).
pub fn config_def() -> ConfigDef {
    JsonConverterConfig::config_def()
}

/// Compact schemaless JSON for `value`, as a JsonConverter with `schemas.enable=false` writes
/// it (the form Connect uses for source offsets). Java cannot write a Struct or Decimal without
/// a schema; here a Struct is written as the object of its fields and a Decimal as a number.
pub fn schemaless_to_json_bytes(value: &Value) -> Vec<u8> {
    let writer = write::Writer {
        decimal_format: DecimalFormat::Numeric,
        replace_null_with_default: true,
        lenient_schemaless: true,
    };
    // Without a schema nothing can mismatch, and the lenient writer accepts every value.
    let node = writer.convert(None, value).unwrap_or(node::JsonNode::Null);
    emit::to_bytes(&node)
}

/// Reads schemaless JSON as a JsonConverter with `schemas.enable=false` does: integers become
/// int64, other numbers float64, objects string-keyed maps; empty input is null.
pub fn json_bytes_to_schemaless(bytes: &[u8]) -> Result<Value, ConnectError> {
    let root = parse::parse(bytes).map_err(|why| {
        ConnectError::data(format!(
            "Converting byte[] to Kafka Connect data failed due to serialization error: {why}"
        ))
    })?;
    Ok(root.as_ref().map_or(Value::Null, read::schemaless))
}

/// An offset map as a JSON map value; nested values are refused, as Java refuses them.
pub fn map_value(map: &OffsetMap) -> Result<Value, ConnectError> {
    let mut entries = Vec::with_capacity(map.len());
    for (k, v) in map {
        if matches!(v, Value::Array(_) | Value::Map(_) | Value::Struct(_)) {
            return Err(ConnectError::data(format!(
                "Offsets may only contain primitive types as values, but field {k} contains {}",
                v.type_description()
            )));
        }
        entries.push((Value::String(k.to_owned()), v.clone()));
    }
    Ok(Value::Map(entries))
}

/// A schemaless map value read back as an offset map.
pub fn offset_map(value: Value) -> Result<OffsetMap, ConnectError> {
    match value {
        Value::Map(entries) => entries
            .into_iter()
            .map(|(k, v)| match k {
                Value::String(k) => Ok((k, v)),
                other => Err(ConnectError::data(format!(
                    "Offset keys must be strings, found {}",
                    other.type_description()
                ))),
            })
            .collect(),
        other => Err(ConnectError::data(format!(
            "Offsets must be maps, found {}",
            other.type_description()
        ))),
    }
}

/// A source partition or offset in the bytes Java's offset store holds.
pub fn encode_offset(offset: &OffsetMap) -> Result<Vec<u8>, ConnectError> {
    Ok(schemaless_to_json_bytes(&map_value(offset)?))
}

pub fn decode_offset(bytes: &[u8]) -> Result<OffsetMap, ConnectError> {
    offset_map(json_bytes_to_schemaless(bytes)?)
}
