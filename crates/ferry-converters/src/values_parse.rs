//! Reading `Values` text back into a value with an inferred schema (Java's `Values.parseString`).
//!
//! The rules, all Java's:
//! * `""` is an empty string; `null`, `true` and `false` are literals only when they are the whole
//!   text (or a whole element inside a collection).
//! * A token starting with a digit is first tried as an ISO date (`yyyy-MM-dd`), time
//!   (`HH:mm:ss.SSSZ`) or timestamp, parsed leniently, then as a number; a token starting with `+`
//!   or `-` only as a number. Whole numbers take the smallest of int8/int16/int32/int64, others
//!   float32 if finite, else float64, else a Decimal.
//! * `[…]` and `{…}` are arrays and maps of such values (strings must be quoted inside them, and
//!   quotes are not unescaped); if one fails to parse, the whole text is a string.
//! * Anything else is the original text as a string. At the top level only the first value is read,
//!   so `12,13` is the int8 12.
//!
//! Differences from Java: dates use UTC and the proleptic Gregorian calendar, only ASCII digits
//! count as digits, a time or date whose lenient field values overflow Ferry's physical type is
//! left as text, and nesting deeper than [`MAX_DEPTH`] is an error (Java would overflow its
//! stack, which `SimpleHeaderConverter` also turns into a raw-bytes fallback).

use ferry_api::data::{Schema, SchemaAndValue, Value};
use ferry_api::error::{ConnectError, Result};

use crate::values_align::{array_schema, convert_to, map_schema, Parsed, SchemaMerger};
use crate::values_number::parse_number;
use crate::values_tokens::{is_blank, java_trim, Tokens};
use ferry_api::java::calendar::{parse_iso_date, parse_iso_time, parse_iso_timestamp};
use ferry_api::java::temporal::Temporal;

/// How deeply arrays and maps may nest.
pub const MAX_DEPTH: usize = 128;

/// Parses `Values` text. `null` (the literal) gives [`SchemaAndValue::NULL`].
pub fn parse_string(text: &str) -> Result<SchemaAndValue> {
    if text.is_empty() {
        return Ok(SchemaAndValue::new(
            Some(Schema::string()),
            Value::String(String::new()),
        ));
    }
    let mut parser = ValueParser {
        tokens: Tokens::new(text),
        depth: 0,
    };
    match parser.parse(false) {
        Ok(Some(p)) => Ok(SchemaAndValue::new(Some(p.schema), p.value)),
        Ok(None) => Ok(SchemaAndValue::NULL),
        Err(Failure::Data(message)) => Err(ConnectError::data(message)),
        Err(Failure::TooDeep) => Err(ConnectError::data(format!(
            "Value nests arrays or maps more than {MAX_DEPTH} deep"
        ))),
    }
}

/// Why parsing stopped. Java catches the first kind around each array or map and reads the text
/// as something else instead; the second always ends the parse.
#[derive(Debug)]
enum Failure {
    Data(String),
    TooDeep,
}

type Step<T> = std::result::Result<T, Failure>;

struct ValueParser<'a> {
    tokens: Tokens<'a>,
    depth: usize,
}

impl ValueParser<'_> {
    /// One value; `None` is a null. Inside a collection (`embedded`) bare words are errors.
    fn parse(&mut self, embedded: bool) -> Step<Option<Parsed>> {
        if !self.tokens.has_next() {
            return Ok(None);
        }
        if embedded && self.tokens.can_consume("\"") {
            return Ok(Some(self.parse_quoted_string()));
        }
        if self.literal(embedded, "null") {
            return Ok(None);
        }
        for (word, b) in [("true", true), ("false", false)] {
            if self.literal(embedded, word) {
                return Ok(Some(Parsed::new(Schema::boolean(), Value::Boolean(b))));
            }
        }
        let start = self.tokens.mark();
        let nested = if self.tokens.can_consume("[") {
            Some(self.nested(Self::parse_array))
        } else if self.tokens.can_consume("{") {
            Some(self.nested(Self::parse_map))
        } else {
            None
        };
        match nested {
            Some(Ok(p)) => return Ok(Some(p)),
            Some(Err(Failure::Data(_))) => self.tokens.rewind_to(start),
            Some(Err(Failure::TooDeep)) => return Err(Failure::TooDeep),
            None => {}
        }
        let token = self.tokens.next_token();
        if is_blank(token) {
            return Ok(Some(Parsed::new(Schema::string(), token.into())));
        }
        self.parse_next_token(embedded, java_trim(token)).map(Some)
    }

    /// Whether the next token is `word`; at the top level it must also be the last token, so
    /// `true}` stays a string.
    fn literal(&mut self, embedded: bool, word: &str) -> bool {
        let start = self.tokens.mark();
        if self.tokens.can_consume(word) && (embedded || !self.tokens.has_next()) {
            return true;
        }
        self.tokens.rewind_to(start);
        false
    }

    fn nested(&mut self, parse: fn(&mut Self) -> Step<Parsed>) -> Step<Parsed> {
        if self.depth >= MAX_DEPTH {
            return Err(Failure::TooDeep);
        }
        self.depth += 1;
        let result = parse(self);
        self.depth -= 1;
        result
    }

    fn parse_next_token(&mut self, embedded: bool, token: &str) -> Step<Parsed> {
        let first = token.chars().next().unwrap_or(' ');
        if first.is_ascii_digit() {
            if let Some(temporal) = self.parse_temporal_tokens(token) {
                return Ok(temporal);
            }
        }
        if first.is_ascii_digit() || first == '+' || first == '-' {
            if let Some(number) = parse_number(token) {
                return Ok(number);
            }
        }
        if embedded {
            return Err(Failure::Data("Failed to parse embedded value".to_owned()));
        }
        Ok(Parsed::new(Schema::string(), self.tokens.original().into()))
    }

    /// Unescaped colons split a time into five tokens, so those are tried joined first.
    fn parse_temporal_tokens(&mut self, token: &str) -> Option<Parsed> {
        let position = self.tokens.mark();
        if let Some(rest) = self.tokens.next_n(4) {
            if let Some(t) = parse_temporal(&format!("{token}{rest}")) {
                return Some(t);
            }
        }
        self.tokens.rewind_to(position);
        parse_temporal(token)
    }

    /// Everything up to the closing quote, backslashes and all. A missing closing quote is not an
    /// error here; the enclosing collection then runs out of tokens.
    fn parse_quoted_string(&mut self) -> Parsed {
        let mut content = String::new();
        while self.tokens.has_next() {
            if self.tokens.can_consume("\"") {
                break;
            }
            content.push_str(self.tokens.next_token());
        }
        parse_temporal(&content).unwrap_or_else(|| Parsed::new(Schema::string(), content.into()))
    }

    fn parse_array(&mut self) -> Step<Parsed> {
        let mut items: Vec<Option<Parsed>> = Vec::new();
        let mut merger = SchemaMerger::default();
        while self.tokens.has_next() {
            if self.tokens.can_consume("]") {
                return finish_array(items, &merger);
            }
            if self.tokens.can_consume(",") {
                return Err(self.data("Unable to parse an empty array element: "));
            }
            let element = self.parse(true)?;
            merger.merge(element.as_ref());
            items.push(element);
            let current = self.tokens.mark();
            if self.tokens.can_consume("]") {
                self.tokens.rewind_to(current);
            } else if !self.tokens.can_consume(",") {
                return Err(Failure::Data(
                    "Array elements missing ',' delimiter".to_owned(),
                ));
            }
        }
        Err(self.unterminated(
            "Array is missing element after ',': ",
            "Array is missing terminating ']': ",
        ))
    }

    fn parse_map(&mut self) -> Step<Parsed> {
        let mut entries: Vec<(Parsed, Option<Parsed>)> = Vec::new();
        let mut keys = SchemaMerger::default();
        let mut values = SchemaMerger::default();
        while self.tokens.has_next() {
            if self.tokens.can_consume("}") {
                return finish_map(entries, &keys, &values);
            }
            if self.tokens.can_consume(",") {
                return Err(self.data("Unable to parse a map entry with no key or value: "));
            }
            let Some(key) = self.parse(true)? else {
                return Err(self.data("Map entry may not have a null key: "));
            };
            if !self.tokens.can_consume(":") {
                return Err(Failure::Data(format!(
                    "Map entry is missing ':' at {} in {}",
                    self.tokens.position(),
                    self.tokens.original()
                )));
            }
            let value = self.parse(true)?;
            self.tokens.can_consume(",");
            keys.merge(Some(&key));
            values.merge(value.as_ref());
            put(&mut entries, key, value);
        }
        Err(self.unterminated(
            "Map is missing element after ',': ",
            "Map is missing terminating '}': ",
        ))
    }

    fn data(&self, prefix: &str) -> Failure {
        Failure::Data(format!("{prefix}{}", self.tokens.original()))
    }

    fn unterminated(&self, after_comma: &str, otherwise: &str) -> Failure {
        if self.tokens.previous() == Some(",") {
            self.data(after_comma)
        } else {
            self.data(otherwise)
        }
    }
}

fn finish_array(items: Vec<Option<Parsed>>, merger: &SchemaMerger) -> Step<Parsed> {
    let Some(common) = merger.common() else {
        let raw = items
            .into_iter()
            .map(|i| i.map_or(Value::Null, |p| p.value));
        return Ok(Parsed::new(array_schema(None), Value::Array(raw.collect())));
    };
    let values = items
        .iter()
        .map(|i| convert_to(common, i.as_ref()))
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(Failure::Data)?;
    Ok(Parsed::new(
        array_schema(Some(common.clone())),
        Value::Array(values),
    ))
}

fn finish_map(
    entries: Vec<(Parsed, Option<Parsed>)>,
    keys: &SchemaMerger,
    values: &SchemaMerger,
) -> Step<Parsed> {
    let (key_schema, value_schema) = match (keys.common(), values.common()) {
        (Some(k), v) => (Some(k.clone()), v.cloned()),
        (None, _) => (None, None),
    };
    let mut out: Vec<(Value, Value)> = Vec::with_capacity(entries.len());
    for (key, value) in &entries {
        let k = match &key_schema {
            Some(s) => convert_to(s, Some(key)).map_err(Failure::Data)?,
            None => key.value.clone(),
        };
        let v = match &value_schema {
            Some(s) => convert_to(s, value.as_ref()).map_err(Failure::Data)?,
            None => value.as_ref().map_or(Value::Null, |p| p.value.clone()),
        };
        // Converted keys can collide (say 1 and 1.0); the later value wins, as in a Java map.
        match out.iter_mut().find(|(existing, _)| *existing == k) {
            Some(slot) => slot.1 = v,
            None => out.push((k, v)),
        }
    }
    Ok(Parsed::new(
        map_schema(key_schema, value_schema),
        Value::Map(out),
    ))
}

/// Java's `LinkedHashMap.put`: a repeated key keeps its place and takes the new value.
fn put(entries: &mut Vec<(Parsed, Option<Parsed>)>, key: Parsed, value: Option<Parsed>) {
    match entries.iter_mut().find(|(k, _)| k.value == key.value) {
        Some(slot) => slot.1 = value,
        None => entries.push((key, value)),
    }
}

/// A date, time or timestamp, chosen by the text's length (in UTF-16 units, as Java counts).
fn parse_temporal(token: &str) -> Option<Parsed> {
    let token = token.replace("\\:", ":");
    let (kind, instant) = match token.encode_utf16().count() {
        13 => (Temporal::Time, parse_iso_time(&token)?),
        24 => (Temporal::Timestamp, parse_iso_timestamp(&token)?),
        10 => (Temporal::Date, parse_iso_date(&token)?),
        _ => return None,
    };
    Some(Parsed {
        schema: kind.schema(),
        value: kind.physical(instant)?,
        instant: Some(instant),
    })
}

#[cfg(test)]
mod tests;
