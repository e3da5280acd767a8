//! JSON as Java Connect's internal converter reads and writes it (schemaless `JsonConverter` over
//! Jackson), shared by the config and status topic formats.
//!
//! Writing: compact output, object fields in the order given, and Jackson's string escaping:
//! `"` and `\` are escaped, `\b \t \n \f \r` get their short escapes, every other control character
//! below U+0020 becomes `\u00XX` with upper-case hex, and a character outside the Basic
//! Multilingual Plane becomes its UTF-16 surrogate pair as two upper-case `\uXXXX` escapes (Jackson
//! sees Java's UTF-16 strings and does not combine surrogates when it writes UTF-8). Everything
//! else, DEL and U+2028/U+2029 included, is written as plain UTF-8.
//!
//! Reading: every JSON integer is a 64-bit long on the Java side, so an int field accepts any JSON
//! integer that fits in an `i64`; Java then narrows it to an int by dropping the high bits, which
//! [`java_int`] reproduces.

use std::fmt::Write as _;

use serde_json::{Map, Value};

/// Builds one compact JSON document the way Jackson writes it.
#[derive(Default)]
pub(crate) struct JsonOut {
    out: String,
    /// Whether the innermost open object already has a field (so the next one needs a comma).
    has_field: Vec<bool>,
}

impl JsonOut {
    pub(crate) fn new() -> Self {
        JsonOut::default()
    }

    pub(crate) fn begin_object(&mut self) -> &mut Self {
        self.out.push('{');
        self.has_field.push(false);
        self
    }

    pub(crate) fn end_object(&mut self) -> &mut Self {
        self.out.push('}');
        self.has_field.pop();
        self
    }

    /// Writes the field name (and the comma before it when needed); the value must follow.
    pub(crate) fn field(&mut self, name: &str) -> &mut Self {
        if let Some(has) = self.has_field.last_mut() {
            if *has {
                self.out.push(',');
            }
            *has = true;
        }
        push_string(&mut self.out, name);
        self.out.push(':');
        self
    }

    pub(crate) fn string(&mut self, s: &str) -> &mut Self {
        push_string(&mut self.out, s);
        self
    }

    pub(crate) fn opt_string(&mut self, s: Option<&str>) -> &mut Self {
        match s {
            Some(s) => self.string(s),
            None => self.null(),
        }
    }

    pub(crate) fn null(&mut self) -> &mut Self {
        self.out.push_str("null");
        self
    }

    pub(crate) fn int(&mut self, n: i64) -> &mut Self {
        let _ = write!(self.out, "{n}");
        self
    }

    pub(crate) fn bool(&mut self, b: bool) -> &mut Self {
        self.out.push_str(if b { "true" } else { "false" });
        self
    }

    pub(crate) fn finish(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.out).into_bytes()
    }
}

/// Appends `s` as a JSON string literal with Jackson's escaping (see the module docs).
pub(crate) fn push_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{08}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{0C}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c if (c as u32) > 0xFFFF => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{unit:04X}");
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Decodes a record value. `Ok(None)` for a missing value (a tombstone) *and* for the JSON literal
/// `null`: Java's converter turns both into a null value, which every reader treats the same way.
pub(crate) fn decode(value: Option<&[u8]>) -> Result<Option<Value>, serde_json::Error> {
    match value {
        None => Ok(None),
        Some(bytes) => match serde_json::from_slice::<Value>(bytes)? {
            Value::Null => Ok(None),
            v => Ok(Some(v)),
        },
    }
}

/// A JSON type's name for log lines and errors.
pub(crate) fn type_name(v: Option<&Value>) -> &'static str {
    match v {
        None | Some(Value::Null) => "null",
        Some(Value::Bool(_)) => "boolean",
        Some(Value::Number(n)) if n.is_i64() || n.is_u64() => "integer",
        Some(Value::Number(_)) => "number",
        Some(Value::String(_)) => "string",
        Some(Value::Array(_)) => "array",
        Some(Value::Object(_)) => "object",
    }
}

/// The value as an object, or a description of what it is instead.
pub(crate) fn as_object<'a>(v: &'a Value, what: &str) -> Result<&'a Map<String, Value>, String> {
    v.as_object()
        .ok_or_else(|| format!("{what} should be an object but is {}", type_name(Some(v))))
}

/// A field that must be a JSON integer (Java: a Long), as an `i64`.
pub(crate) fn long_field(map: &Map<String, Value>, name: &str) -> Result<i64, String> {
    let v = map.get(name);
    v.and_then(Value::as_i64)
        .ok_or_else(|| format!("'{name}' should be an integer but is {}", type_name(v)))
}

/// A field that Java reads as an int: any JSON integer, narrowed to 32 bits as Java's
/// `Long.intValue()` does.
pub(crate) fn int_field(map: &Map<String, Value>, name: &str) -> Result<i32, String> {
    long_field(map, name).map(java_int)
}

/// Java's `(int) someLong`: keeps the low 32 bits.
pub(crate) fn java_int(n: i64) -> i32 {
    n as i32
}

/// A field that must be a string.
pub(crate) fn string_field<'a>(map: &'a Map<String, Value>, name: &str) -> Result<&'a str, String> {
    let v = map.get(name);
    v.and_then(Value::as_str)
        .ok_or_else(|| format!("'{name}' should be a string but is {}", type_name(v)))
}

/// A field that may be a string, null or missing.
pub(crate) fn opt_string_field<'a>(
    map: &'a Map<String, Value>,
    name: &str,
) -> Result<Option<&'a str>, String> {
    match map.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(format!(
            "'{name}' should be a string but is {}",
            type_name(Some(other))
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_like_jackson() {
        let mut all = String::new();
        for c in 0u32..0x20 {
            all.push(char::from_u32(c).unwrap());
        }
        all.push_str("\"\\/\u{7f}\u{80}é€😀\u{2028}\u{2029}<>&'");
        let mut out = String::new();
        push_string(&mut out, &all);
        // What Java's JsonConverter (Jackson 2.19, Connect 4.1.1) wrote for the same string.
        let expected = concat!(
            "\"\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n\\u000B\\f\\r",
            "\\u000E\\u000F\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017\\u0018\\u0019",
            "\\u001A\\u001B\\u001C\\u001D\\u001E\\u001F\\\"\\\\/\u{7f}\u{80}é€\\uD83D\\uDE00",
            "\u{2028}\u{2029}<>&'\""
        );
        assert_eq!(out, expected);
        // And it reads back to the same string.
        let back: String = serde_json::from_str(&out).unwrap();
        assert_eq!(back, all);
    }

    #[test]
    fn writer_places_commas() {
        let bytes = JsonOut::new()
            .begin_object()
            .field("a")
            .begin_object()
            .field("x")
            .int(-1)
            .field("y")
            .null()
            .end_object()
            .field("b")
            .bool(true)
            .end_object()
            .finish();
        assert_eq!(bytes, br#"{"a":{"x":-1,"y":null},"b":true}"#);
        let empty = JsonOut::new().begin_object().end_object().finish();
        assert_eq!(empty, b"{}");
    }

    #[test]
    fn json_null_reads_as_no_value() {
        assert_eq!(decode(Some(b"null")).unwrap(), None);
        assert_eq!(decode(None).unwrap(), None);
        assert!(decode(Some(b"")).is_err());
        assert!(decode(Some(b"{")).is_err());
    }

    #[test]
    fn ints_narrow_like_java() {
        let map: Map<String, Value> =
            serde_json::from_str(r#"{"a":5,"b":4294967297,"c":1.0,"d":"5","e":-3}"#).unwrap();
        assert_eq!(int_field(&map, "a"), Ok(5));
        assert_eq!(int_field(&map, "b"), Ok(1));
        assert!(int_field(&map, "c").is_err());
        assert!(int_field(&map, "d").is_err());
        assert!(int_field(&map, "missing").is_err());
        assert_eq!(int_field(&map, "e"), Ok(-3));
    }
}
