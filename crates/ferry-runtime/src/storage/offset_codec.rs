//! The byte form of source offsets, identical to Java's: the key is the schemaless JSON of
//! `[connector, partition]`, the value the schemaless JSON of the offset map.

use ferry_api::data::Value;
use ferry_api::record::OffsetMap;
use ferry_api::ConnectError;
use ferry_json::{map_value, offset_map};

pub fn encode_key(connector: &str, partition: &OffsetMap) -> Result<Vec<u8>, ConnectError> {
    let key = Value::Array(vec![
        Value::String(connector.to_owned()),
        map_value(partition)?,
    ]);
    Ok(ferry_json::schemaless_to_json_bytes(&key))
}

pub use ferry_json::{decode_offset, encode_offset};

/// Splits a stored key into its connector and partition; `None` for keys of another shape.
pub fn decode_key(bytes: &[u8]) -> Option<(String, OffsetMap)> {
    match ferry_json::json_bytes_to_schemaless(bytes).ok()? {
        Value::Array(mut items) if items.len() == 2 => {
            let partition = offset_map(items.pop()?).ok()?;
            match items.pop()? {
                Value::String(connector) => Some((connector, partition)),
                _ => None,
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_and_value_bytes_match_java() {
        let partition = OffsetMap::from([("filename".to_owned(), Value::from("in.txt"))]);
        assert_eq!(
            encode_key("file-src", &partition).unwrap(),
            br#"["file-src",{"filename":"in.txt"}]"#.to_vec()
        );
        let offset = OffsetMap::from([("position".to_owned(), Value::Int64(1234))]);
        assert_eq!(
            encode_offset(&offset).unwrap(),
            br#"{"position":1234}"#.to_vec()
        );
        assert_eq!(decode_offset(br#"{"position":1234}"#).unwrap(), offset);
        assert_eq!(
            decode_key(br#"["file-src",{"filename":"in.txt"}]"#),
            Some(("file-src".to_owned(), partition))
        );
    }

    #[test]
    fn nested_values_are_refused() {
        let bad = OffsetMap::from([("x".to_owned(), Value::Array(vec![]))]);
        assert!(encode_offset(&bad).is_err());
    }
}
