//! Writing values in the text form of Java's `Values.convertToString`, which
//! `SimpleHeaderConverter` stores in headers and [`crate::values_parse`] reads back.
//!
//! Top-level strings and bytes are written bare; inside arrays, maps and structs they are quoted,
//! with `\` and `"` escaped. Bytes are Base64. Arrays are `[a,b]`, maps and structs `{k:v,k2:v2}`
//! (struct field names quoted, field defaults applied). Dates, times and timestamps, recognised from
//! the schema, are printed by their instant as Java does, not by their logical type: instants before
//! 1970-01-02 as `HH:mm:ss.SSSZ`, whole days as `yyyy-MM-dd`, anything else as a full timestamp.

use base64::Engine as _;
use ferry_api::data::{Schema, Value};

use ferry_api::java::calendar::{iso_date, iso_time, iso_timestamp, MILLIS_PER_DAY};
use ferry_api::java::temporal::instant_of;
use ferry_api::java::{java_big_decimal, java_double, java_float};

/// The `Values` text of `value`; `None` for null.
pub fn convert_to_string(schema: Option<&Schema>, value: &Value) -> Option<String> {
    if value.is_null() {
        return None;
    }
    let mut out = String::new();
    append(&mut out, schema, value, false);
    Some(out)
}

/// Java's `Values.escape`: backslashes doubled, then quotes backslash-escaped.
pub fn escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The text Java picks for a `java.util.Date`, by looking only at its instant.
pub fn instant_text(epoch_ms: i64) -> String {
    if epoch_ms < MILLIS_PER_DAY {
        iso_time(epoch_ms)
    } else if epoch_ms % MILLIS_PER_DAY == 0 {
        iso_date(epoch_ms)
    } else {
        iso_timestamp(epoch_ms)
    }
}

fn push_quoted(out: &mut String, text: &str) {
    out.push('"');
    out.push_str(&escape(text));
    out.push('"');
}

fn append(out: &mut String, schema: Option<&Schema>, value: &Value, embedded: bool) {
    if let Some(ms) = instant_of(schema, value) {
        out.push_str(&instant_text(ms));
        return;
    }
    match value {
        Value::Null => out.push_str("null"),
        Value::Boolean(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int8(v) => out.push_str(&v.to_string()),
        Value::Int16(v) => out.push_str(&v.to_string()),
        Value::Int32(v) => out.push_str(&v.to_string()),
        Value::Int64(v) => out.push_str(&v.to_string()),
        Value::Float32(v) => out.push_str(&java_float(*v)),
        Value::Float64(v) => out.push_str(&java_double(*v)),
        Value::Decimal(d) => out.push_str(&java_big_decimal(d)),
        Value::String(s) if embedded => push_quoted(out, s),
        Value::String(s) => out.push_str(s),
        Value::Bytes(b) => {
            let encoded = base64::engine::general_purpose::STANDARD.encode(b);
            if embedded {
                out.push('"');
                out.push_str(&encoded);
                out.push('"');
            } else {
                out.push_str(&encoded);
            }
        }
        Value::Array(items) => {
            let item_schema = schema.and_then(|s| s.value_schema.as_deref());
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                append(out, item_schema, item, true);
            }
            out.push(']');
        }
        Value::Map(entries) => {
            let key_schema = schema.and_then(|s| s.key_schema.as_deref());
            let value_schema = schema.and_then(|s| s.value_schema.as_deref());
            out.push('{');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                append(out, key_schema, k, true);
                out.push(':');
                append(out, value_schema, v, true);
            }
            out.push('}');
        }
        Value::Struct(s) => {
            out.push('{');
            for (i, field) in s.schema().fields.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                push_quoted(out, &field.name);
                out.push(':');
                let raw = s.get_index(field.index);
                let v = match (raw, &field.schema.default) {
                    (Value::Null, Some(default)) => default,
                    _ => raw,
                };
                append(out, Some(&field.schema), v, true);
            }
            out.push('}');
        }
    }
}

#[cfg(test)]
mod tests {
    use ferry_api::data::{Decimal, Schema, SchemaBuilder, Struct};

    use super::*;

    fn text(schema: Option<&Schema>, value: Value) -> String {
        convert_to_string(schema, &value).unwrap()
    }

    #[test]
    fn escaping_doubles_backslashes_then_quotes() {
        assert_eq!(escape("three\"blind\\\"mice"), "three\\\"blind\\\\\\\"mice");
    }

    #[test]
    fn top_level_strings_and_bytes_are_bare() {
        assert_eq!(text(None, "a \"b\"".into()), "a \"b\"");
        assert_eq!(text(None, Value::Bytes(b"hi".to_vec())), "aGk=");
        assert_eq!(convert_to_string(None, &Value::Null), None);
    }

    #[test]
    fn collections_quote_their_strings() {
        let list = Value::Array(vec!["foo".into(), Value::Null, Value::Int16(1)]);
        assert_eq!(text(None, list), "[\"foo\",null,1]");
        let map = Value::Map(vec![
            ("a".into(), Value::Bytes(b"hi".to_vec())),
            ("b\\".into(), Value::Float32(1.5)),
        ]);
        assert_eq!(text(None, map), "{\"a\":\"aGk=\",\"b\\\\\":1.5}");
    }

    #[test]
    fn structs_are_objects_with_defaults_applied() {
        let schema = SchemaBuilder::struct_()
            .field("id", Schema::int32())
            .field(
                "kind",
                SchemaBuilder::new(ferry_api::data::Type::String)
                    .optional()
                    .default_value("plain".into())
                    .build(),
            )
            .field("note", Schema::optional_string())
            .build();
        let mut s = Struct::new(schema).unwrap();
        s.put("id", 7).unwrap();
        assert_eq!(
            text(None, Value::Struct(s)),
            "{\"id\":7,\"kind\":\"plain\",\"note\":null}"
        );
    }

    #[test]
    fn numbers_use_java_text() {
        assert_eq!(text(None, Value::Float64(1e10)), "1.0E10");
        assert_eq!(text(None, Value::Decimal(Decimal::new(201, 2))), "2.01");
    }

    #[test]
    fn dates_are_printed_by_instant() {
        let date = ferry_api::data::date().build();
        let time = ferry_api::data::time().build();
        let ts = ferry_api::data::timestamp().build();
        assert_eq!(text(Some(&date), Value::Int32(18_131)), "2019-08-23");
        assert_eq!(text(Some(&time), Value::Int32(52_494_346)), "14:34:54.346Z");
        let instant = 18_131 * MILLIS_PER_DAY + 52_494_346;
        assert_eq!(
            text(Some(&ts), Value::Int64(instant)),
            "2019-08-23T14:34:54.346Z"
        );
        // Java only looks at the instant: a midnight timestamp prints as a date and the epoch
        // day itself as a time.
        assert_eq!(
            text(Some(&ts), Value::Int64(18_131 * MILLIS_PER_DAY)),
            "2019-08-23"
        );
        assert_eq!(text(Some(&date), Value::Int32(0)), "00:00:00.000Z");
        let list = SchemaBuilder::array(date).build();
        assert_eq!(
            text(Some(&list), Value::Array(vec![Value::Int32(18_131)])),
            "[2019-08-23]"
        );
    }
}
