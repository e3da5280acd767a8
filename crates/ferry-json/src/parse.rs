//! Reads bytes into a [`JsonNode`] the way Connect's Jackson `ObjectMapper` does: strict JSON
//! except that leading zeros in numbers are accepted (Connect enables that), numbers keep their
//! full text, a repeated object key keeps the last value, empty input is "missing" rather than
//! an error, and anything after the first complete value is ignored (Jackson does not look
//! for trailing tokens by default).

use indexmap::IndexMap;

use crate::node::{JsonNode, JsonNumber};

/// Jackson's default nesting limit.
const MAX_DEPTH: usize = 1000;
/// Jackson's default limit on the length of a number literal.
const MAX_NUMBER_LEN: usize = 1000;

/// `Ok(None)` when the input holds no value at all (only whitespace).
pub(crate) fn parse(bytes: &[u8]) -> Result<Option<JsonNode>, String> {
    let mut p = Parser::at_first_token(bytes);
    if p.i >= p.b.len() {
        return Ok(None);
    }
    let root_is_number = matches!(p.b[p.i], b'-' | b'0'..=b'9');
    let value = p.value()?;
    // A number at the root must be followed by whitespace, or it would be ambiguous.
    if root_is_number {
        if let Some(&c) = p.b.get(p.i) {
            if !matches!(c, b' ' | b'\t' | b'\n' | b'\r') {
                return Err(format!(
                    "Expected space separating root-level values, found {}",
                    describe(c)
                ));
            }
        }
    }
    Ok(Some(value))
}

struct Parser<'a> {
    b: &'a [u8],
    i: usize,
    depth: usize,
}

fn describe(c: u8) -> String {
    if c.is_ascii_graphic() {
        format!("'{}' (code {c})", c as char)
    } else {
        format!("(code {c})")
    }
}

/// An envelope `{"schema": …, "payload": …}` with its schema left as text: most records of a
/// topic carry the same schema, so its text finds the translated schema in a cache without a
/// tree being built for it.
pub(crate) struct Envelope<'a> {
    pub(crate) schema: &'a str,
    pub(crate) payload: JsonNode,
}

/// `None` for anything but exactly such an envelope (valid JSON, an object with those two keys
/// once each); the caller then parses the whole input to get Jackson's answer for it.
pub(crate) fn envelope(bytes: &[u8]) -> Option<Envelope<'_>> {
    let mut p = Parser::at_first_token(bytes);
    if p.peek() != Some(b'{') {
        return None;
    }
    p.enter().ok()?;
    let (mut schema, mut payload) = (None, None);
    loop {
        p.skip_ws();
        let key = p.field_name().ok()?;
        match key.as_str() {
            "schema" if schema.is_none() => {
                let start = p.i;
                p.skip_value().ok()?;
                schema = Some(&p.b[start..p.i]);
            }
            "payload" if payload.is_none() => payload = Some(p.value().ok()?),
            _ => return None,
        }
        p.skip_ws();
        match p.peek() {
            Some(b',') => p.i += 1,
            Some(b'}') => break,
            _ => return None,
        }
    }
    Some(Envelope {
        schema: std::str::from_utf8(schema?).ok()?,
        payload: payload?,
    })
}

impl<'a> Parser<'a> {
    /// A parser past a byte order mark and leading whitespace.
    fn at_first_token(bytes: &'a [u8]) -> Self {
        let mut p = Parser {
            b: bytes,
            i: 0,
            depth: 0,
        };
        if p.b.starts_with(&[0xEF, 0xBB, 0xBF]) {
            p.i = 3;
        }
        p.skip_ws();
        p
    }

    fn skip_ws(&mut self) {
        while let Some(&c) = self.b.get(self.i) {
            if matches!(c, b' ' | b'\t' | b'\n' | b'\r') {
                self.i += 1;
            } else {
                break;
            }
        }
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn unexpected(&self, expecting: &str) -> String {
        match self.peek() {
            Some(c) => format!("Unexpected character {}: {expecting}", describe(c)),
            None => format!("Unexpected end-of-input: {expecting}"),
        }
    }

    fn value(&mut self) -> Result<JsonNode, String> {
        match self.peek() {
            Some(b'{') => self.object(),
            Some(b'[') => self.array(),
            Some(b'"') => Ok(JsonNode::Text(self.string()?)),
            Some(b't') => self.literal("true", JsonNode::Bool(true)),
            Some(b'f') => self.literal("false", JsonNode::Bool(false)),
            Some(b'n') => self.literal("null", JsonNode::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(self.unexpected("expected a valid value")),
        }
    }

    /// Checks and passes one value without building it.
    fn skip_value(&mut self) -> Result<(), String> {
        let (open, close) = match self.peek() {
            Some(b'{') => (b'{', b'}'),
            Some(b'[') => (b'[', b']'),
            _ => return self.value().map(drop),
        };
        self.enter()?;
        self.skip_ws();
        if self.peek() == Some(close) {
            self.i += 1;
            self.depth -= 1;
            return Ok(());
        }
        loop {
            self.skip_ws();
            if open == b'{' {
                self.field_name()?;
            }
            self.skip_value()?;
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(c) if c == close => {
                    self.i += 1;
                    self.depth -= 1;
                    return Ok(());
                }
                _ => return Err(self.unexpected("was expecting comma to separate entries")),
            }
        }
    }

    /// An object's `"name":` and the whitespace around it.
    fn field_name(&mut self) -> Result<String, String> {
        if self.peek() != Some(b'"') {
            return Err(self.unexpected("was expecting double-quote to start field name"));
        }
        let name = self.string()?;
        self.skip_ws();
        if self.peek() != Some(b':') {
            return Err(self.unexpected("was expecting a colon to separate field name and value"));
        }
        self.i += 1;
        self.skip_ws();
        Ok(name)
    }

    fn enter(&mut self) -> Result<(), String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(format!(
                "Document nesting depth exceeds the maximum allowed ({MAX_DEPTH})"
            ));
        }
        self.i += 1;
        Ok(())
    }

    fn object(&mut self) -> Result<JsonNode, String> {
        self.enter()?;
        let mut map = IndexMap::new();
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.i += 1;
            self.depth -= 1;
            return Ok(JsonNode::Object(map));
        }
        loop {
            self.skip_ws();
            let key = self.field_name()?;
            let value = self.value()?;
            map.insert(key, value);
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    self.depth -= 1;
                    return Ok(JsonNode::Object(map));
                }
                _ => return Err(self.unexpected("was expecting comma to separate Object entries")),
            }
        }
    }

    fn array(&mut self) -> Result<JsonNode, String> {
        self.enter()?;
        let mut items = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.i += 1;
            self.depth -= 1;
            return Ok(JsonNode::Array(items));
        }
        loop {
            self.skip_ws();
            items.push(self.value()?);
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    self.depth -= 1;
                    return Ok(JsonNode::Array(items));
                }
                _ => return Err(self.unexpected("was expecting comma to separate Array entries")),
            }
        }
    }

    fn literal(&mut self, word: &str, node: JsonNode) -> Result<JsonNode, String> {
        let end = self.i + word.len();
        if self.b.get(self.i..end) != Some(word.as_bytes()) {
            return Err(self.unrecognized_token());
        }
        // Jackson rejects a keyword glued to identifier characters, such as `truex`.
        if let Some(&c) = self.b.get(end) {
            if c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80 {
                return Err(self.unrecognized_token());
            }
        }
        self.i = end;
        Ok(node)
    }

    fn unrecognized_token(&self) -> String {
        let token: String = self.b[self.i..]
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
            .take(256)
            .map(|&c| c as char)
            .collect();
        format!("Unrecognized token '{token}': was expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')")
    }

    fn digits(&mut self) -> usize {
        let start = self.i;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.i += 1;
        }
        self.i - start
    }

    fn number(&mut self) -> Result<JsonNode, String> {
        let start = self.i;
        let negative = self.peek() == Some(b'-');
        if negative {
            self.i += 1;
        }
        let int_start = self.i;
        if self.digits() == 0 {
            return Err(self
                .unexpected("expected digit (0-9) to follow minus sign, for valid numeric value"));
        }
        let int_digits = std::str::from_utf8(&self.b[int_start..self.i]).unwrap_or("0");
        let int_digits = match int_digits.trim_start_matches('0') {
            "" => "0",
            trimmed => trimmed,
        };
        let mut integral = true;
        let rest_start = self.i;
        if self.peek() == Some(b'.') {
            integral = false;
            self.i += 1;
            if self.digits() == 0 {
                return Err(self.unexpected("Decimal point not followed by a digit"));
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            integral = false;
            self.i += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if self.digits() == 0 {
                return Err(self.unexpected("Exponent indicator not followed by a digit"));
            }
        }
        if self.i - start > MAX_NUMBER_LEN {
            return Err(format!(
                "Number value length ({}) exceeds the maximum allowed ({MAX_NUMBER_LEN})",
                self.i - start
            ));
        }
        let rest = std::str::from_utf8(&self.b[rest_start..self.i]).unwrap_or("");
        let sign = if negative { "-" } else { "" };
        Ok(JsonNode::Number(JsonNumber {
            text: format!("{sign}{int_digits}{rest}"),
            integral,
        }))
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let mut v = 0u32;
        for _ in 0..4 {
            let Some(c) = self.peek() else {
                return Err("Unexpected end-of-input in character escape sequence".to_owned());
            };
            let digit = (c as char).to_digit(16).ok_or_else(|| {
                format!(
                    "Unexpected character {}: expected a hex-digit for character escape sequence",
                    describe(c)
                )
            })?;
            v = v * 16 + digit;
            self.i += 1;
        }
        Ok(v)
    }

    fn string(&mut self) -> Result<String, String> {
        self.i += 1;
        // Most strings have no escapes: take them in one piece, checked once.
        let rest = &self.b[self.i..];
        let plain = rest
            .iter()
            .position(|&c| c == b'"' || c == b'\\' || c < 0x20)
            .unwrap_or(rest.len());
        if rest.get(plain) == Some(&b'"') {
            self.i += plain + 1;
            return std::str::from_utf8(&rest[..plain])
                .map(str::to_owned)
                .map_err(|_| "Invalid UTF-8 in string value".to_owned());
        }
        let mut buf: Vec<u8> = Vec::with_capacity(plain + 16);
        buf.extend_from_slice(&rest[..plain]);
        self.i += plain;
        loop {
            let Some(c) = self.peek() else {
                return Err(
                    "Unexpected end-of-input: was expecting closing quote for a string value"
                        .to_owned(),
                );
            };
            self.i += 1;
            match c {
                b'"' => break,
                b'\\' => self.escape(&mut buf)?,
                c if c < 0x20 => {
                    return Err(format!(
                        "Illegal unquoted character ((CTRL-CHAR, code {c})): has to be escaped using backslash to be included in string value"
                    ))
                }
                c => buf.push(c),
            }
        }
        String::from_utf8(buf).map_err(|_| "Invalid UTF-8 in string value".to_owned())
    }

    fn escape(&mut self, buf: &mut Vec<u8>) -> Result<(), String> {
        let Some(c) = self.peek() else {
            return Err("Unexpected end-of-input in character escape sequence".to_owned());
        };
        self.i += 1;
        let ch = match c {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{08}',
            b'f' => '\u{0C}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => self.unicode_escape()?,
            other => return Err(format!("Unrecognized character escape {}", describe(other))),
        };
        let mut tmp = [0u8; 4];
        buf.extend_from_slice(ch.encode_utf8(&mut tmp).as_bytes());
        Ok(())
    }

    /// Pairs surrogate escapes; a lone surrogate (legal in a Java string, not in a Rust one)
    /// becomes U+FFFD.
    fn unicode_escape(&mut self) -> Result<char, String> {
        let first = self.hex4()?;
        if (0xD800..0xDC00).contains(&first) && self.b.get(self.i..self.i + 2) == Some(b"\\u") {
            let save = self.i;
            self.i += 2;
            let second = self.hex4()?;
            if (0xDC00..0xE000).contains(&second) {
                let code = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00);
                return Ok(char::from_u32(code).unwrap_or('\u{FFFD}'));
            }
            self.i = save;
        }
        Ok(char::from_u32(first).unwrap_or('\u{FFFD}'))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emit::to_text;

    fn round(text: &str) -> String {
        to_text(&parse(text.as_bytes()).unwrap().unwrap())
    }

    #[test]
    fn parses_and_normalises() {
        assert_eq!(
            round(
                " { \"a\" : [1, -0012, 1.50, 2E+3, true, null, \"x\\u00e9\\ud83d\\ude00\\n\"] } "
            ),
            // The pair is decoded to one char; writing escapes it again, as Jackson does.
            "{\"a\":[1,-12,1.50,2E+3,true,null,\"xé\\uD83D\\uDE00\\n\"]}"
        );
    }

    #[test]
    fn strings_without_escapes_are_taken_whole_and_checked() {
        assert_eq!(
            round("[\"plain é\", \"\", \"a\\\"b\"]"),
            "[\"plain é\",\"\",\"a\\\"b\"]"
        );
        assert!(parse(b"\"bad \xff byte\"").is_err());
        assert!(parse(b"\"bad \xff\\n after\"").is_err());
    }

    #[test]
    fn repeated_keys_keep_last_value_in_first_position() {
        assert_eq!(round("{\"a\":1,\"b\":2,\"a\":3}"), "{\"a\":3,\"b\":2}");
    }

    #[test]
    fn empty_input_is_missing_and_trailing_content_is_ignored() {
        assert_eq!(parse(b"  \n").unwrap(), None);
        assert_eq!(round("{\"a\":1} trailing"), "{\"a\":1}");
        assert_eq!(round("12 34"), "12");
    }

    #[test]
    fn rejects_invalid_json() {
        for bad in [
            "{\"a\":1,}",
            "[1,]",
            "{a:1}",
            "'x'",
            "tru",
            "truex",
            "1.",
            ".5",
            "-",
            "+1",
            "NaN",
            "\"a\nb\"",
            "\"\\x\"",
            "12abc",
            "[1 2]",
            "{\"a\" 1}",
            "\"open",
        ] {
            assert!(parse(bad.as_bytes()).is_err(), "{bad}");
        }
    }

    #[test]
    fn rejects_deep_nesting() {
        let deep = "[".repeat(1001) + &"]".repeat(1001);
        assert!(parse(deep.as_bytes()).is_err());
        let ok = "[".repeat(1000) + &"]".repeat(1000);
        assert!(parse(ok.as_bytes()).is_ok());
    }
}
