//! Java's `Object.toString()` for Connect values, which is what `StringConverter` writes.
//!
//! Lists print as `[a, b]`, maps as `{k=v, k2=v2}`, structs as `Struct{field=value,…}` with null
//! fields left out, decimals as `BigDecimal.toString()` and dates (recognised from the schema) as
//! `java.util.Date.toString()` in UTC. One deliberate difference: Java prints a `byte[]` as its
//! identity (`[B@1b6d3586`), which nobody can use, so Ferry writes bytes as standard Base64, the
//! same form `Values` uses for headers.

use crate::data::{Schema, Value};
use base64::Engine as _;

use crate::java::calendar::java_date_string;
use crate::java::numbers::{java_big_decimal, java_double, java_float};
use crate::java::temporal::instant_of;

/// The Java `toString()` of `value`; `None` for null.
pub fn java_to_string(schema: Option<&Schema>, value: &Value) -> Option<String> {
    if value.is_null() {
        return None;
    }
    let mut out = String::new();
    write_value(&mut out, schema, value);
    Some(out)
}

fn write_value(out: &mut String, schema: Option<&Schema>, value: &Value) {
    if let Some(ms) = instant_of(schema, value) {
        out.push_str(&java_date_string(ms));
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
        Value::String(s) => out.push_str(s),
        Value::Bytes(b) => out.push_str(&base64::engine::general_purpose::STANDARD.encode(b)),
        Value::Decimal(d) => out.push_str(&java_big_decimal(d)),
        Value::Array(items) => {
            let item_schema = schema.and_then(|s| s.value_schema.as_deref());
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_value(out, item_schema, item);
            }
            out.push(']');
        }
        Value::Map(entries) => {
            let key_schema = schema.and_then(|s| s.key_schema.as_deref());
            let value_schema = schema.and_then(|s| s.value_schema.as_deref());
            out.push('{');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_value(out, key_schema, k);
                out.push('=');
                write_value(out, value_schema, v);
            }
            out.push('}');
        }
        Value::Struct(s) => {
            out.push_str("Struct{");
            let mut first = true;
            for (field, v) in s.schema().fields.iter().zip(s.values()) {
                if v.is_null() {
                    continue;
                }
                if !first {
                    out.push(',');
                }
                first = false;
                out.push_str(&field.name);
                out.push('=');
                write_value(out, Some(&field.schema), v);
            }
            out.push('}');
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::data::{Decimal, Schema, SchemaBuilder, Struct};

    use super::*;

    fn text(schema: Option<&Schema>, value: Value) -> String {
        java_to_string(schema, &value).unwrap()
    }

    #[test]
    fn scalars() {
        assert_eq!(text(None, Value::Boolean(true)), "true");
        assert_eq!(text(None, Value::Int8(-7)), "-7");
        assert_eq!(text(None, Value::Int64(i64::MIN)), "-9223372036854775808");
        assert_eq!(text(None, Value::Float64(1e10)), "1.0E10");
        assert_eq!(text(None, Value::Float32(0.5)), "0.5");
        assert_eq!(text(None, Value::Decimal(Decimal::new(12, -2))), "1.2E+3");
        assert_eq!(text(None, Value::Bytes(vec![0, 1, 2])), "AAEC");
        assert_eq!(java_to_string(None, &Value::Null), None);
    }

    #[test]
    fn collections_print_like_java_collections() {
        let list = Value::Array(vec![Value::Int32(1), Value::Null, "x".into()]);
        assert_eq!(text(None, list), "[1, null, x]");
        let map = Value::Map(vec![
            ("a".into(), Value::Int32(1)),
            ("b".into(), Value::Null),
        ]);
        assert_eq!(text(None, map), "{a=1, b=null}");
    }

    #[test]
    fn structs_skip_null_fields() {
        let schema = SchemaBuilder::struct_()
            .field("id", Schema::int32())
            .field("note", Schema::optional_string())
            .field("when", crate::data::date().optional().build())
            .build();
        let mut s = Struct::new(schema).unwrap();
        s.put("id", 7).unwrap();
        s.put("when", Value::Int32(1)).unwrap();
        assert_eq!(
            text(None, Value::Struct(s)),
            "Struct{id=7,when=Fri Jan 02 00:00:00 UTC 1970}"
        );
    }

    #[test]
    fn logical_dates_need_their_schema() {
        let ts = crate::data::timestamp().build();
        assert_eq!(
            text(Some(&ts), Value::Int64(0)),
            "Thu Jan 01 00:00:00 UTC 1970"
        );
        assert_eq!(text(None, Value::Int64(0)), "0");
    }
}
