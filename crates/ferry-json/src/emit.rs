//! Compact JSON text exactly as Jackson's default generator writes a tree: no whitespace,
//! only `"`, `\` and control characters escaped (short forms where JSON has them, otherwise
//! `\u00XX` with upper-case hex), `/` and other BMP characters left as they are, characters
//! outside the BMP written as their UTF-16 surrogate pair of `\uXXXX` escapes (Jackson 2.19's
//! UTF-8 generator, COMBINE_UNICODE_SURROGATES_IN_UTF8 off by default), and non-finite floats
//! quoted (`"NaN"`), because QUOTE_NON_NUMERIC_NUMBERS is on by default.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;

use crate::node::JsonNode;
use ferry_api::java::{java_big_decimal, java_double, java_float};

pub(crate) fn to_bytes(node: &JsonNode) -> Vec<u8> {
    let mut out = String::new();
    write_node(node, &mut out);
    out.into_bytes()
}

pub(crate) fn to_text(node: &JsonNode) -> String {
    let mut out = String::new();
    write_node(node, &mut out);
    out
}

pub(crate) fn write_node(node: &JsonNode, out: &mut String) {
    match node {
        JsonNode::Null => out.push_str("null"),
        JsonNode::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        JsonNode::Int(v) => out.push_str(&v.to_string()),
        JsonNode::Float(v) => write_float_text(java_float(*v), v.is_finite(), out),
        JsonNode::Double(v) => write_float_text(java_double(*v), v.is_finite(), out),
        JsonNode::Decimal(d) => out.push_str(&java_big_decimal(d)),
        JsonNode::Number(n) => out.push_str(&n.text),
        JsonNode::Text(s) => write_string(s, out),
        JsonNode::Binary(bytes) => {
            out.push('"');
            out.push_str(&STANDARD.encode(bytes));
            out.push('"');
        }
        JsonNode::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_node(item, out);
            }
            out.push(']');
        }
        JsonNode::Object(map) => {
            out.push('{');
            for (i, (key, value)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(key, out);
                out.push(':');
                write_node(value, out);
            }
            out.push('}');
        }
    }
}

fn write_float_text(text: String, finite: bool, out: &mut String) {
    if finite {
        out.push_str(&text);
    } else {
        write_string(&text, out);
    }
}

const HEX: &[u8; 16] = b"0123456789ABCDEF";

/// `\uXXXX` with upper-case hex digits.
fn push_unicode_escape(unit: u16, out: &mut String) {
    out.push_str("\\u");
    for shift in [12, 8, 4, 0] {
        out.push(HEX[usize::from((unit >> shift) & 0xF)] as char);
    }
}

pub(crate) fn write_string(s: &str, out: &mut String) {
    out.reserve(s.len() + 2);
    out.push('"');
    // Runs of characters written as they are go out in one piece; what needs an escape is a
    // control character, a quote, a backslash, or a character beyond U+FFFF (a four-byte
    // sequence, whose lead byte is 0xF0 or more), which Jackson writes as a surrogate pair.
    let mut start = 0;
    for (i, b) in s.bytes().enumerate() {
        if b >= 0x20 && b != b'"' && b != b'\\' && b < 0xF0 {
            continue;
        }
        out.push_str(&s[start..i]);
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            0x08 => out.push_str("\\b"),
            b'\t' => out.push_str("\\t"),
            0x0C => out.push_str("\\f"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            c if c < 0x20 => push_unicode_escape(u16::from(c), out),
            _ => {
                if let Some(c) = s[i..].chars().next() {
                    let mut units = [0u16; 2];
                    for unit in c.encode_utf16(&mut units) {
                        push_unicode_escape(*unit, out);
                    }
                    start = i + c.len_utf8();
                    continue;
                }
            }
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use indexmap::IndexMap;

    #[test]
    fn strings_escape_like_jackson() {
        let mut out = String::new();
        write_string(
            "a\"b\\c/\n\t\r\u{8}\u{c}\u{1}\u{1f}\u{7f}é\u{800}\u{ffff}😀\u{1d11e}",
            &mut out,
        );
        assert_eq!(
            out,
            "\"a\\\"b\\\\c/\\n\\t\\r\\b\\f\\u0001\\u001F\u{7f}é\u{800}\u{ffff}\\uD83D\\uDE00\\uD834\\uDD1E\""
        );
    }

    #[test]
    fn non_finite_floats_are_quoted() {
        let node = JsonNode::Array(vec![
            JsonNode::Double(f64::NAN),
            JsonNode::Float(f32::NEG_INFINITY),
            JsonNode::Double(1e10),
        ]);
        assert_eq!(to_text(&node), "[\"NaN\",\"-Infinity\",1.0E10]");
    }

    #[test]
    fn objects_are_compact() {
        let mut map = IndexMap::new();
        map.insert("b".to_owned(), JsonNode::Binary(vec![0, 0x9C]));
        map.insert("n".to_owned(), JsonNode::Null);
        assert_eq!(
            to_text(&JsonNode::Object(map)),
            "{\"b\":\"AJw=\",\"n\":null}"
        );
    }
}
