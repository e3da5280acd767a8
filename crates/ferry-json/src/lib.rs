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
