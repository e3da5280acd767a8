//! A parser for the `.properties` format, matching `java.util.Properties::load(Reader)`.
//!
//! Worker and connector configs are written for Java's `connect-standalone.sh`, so
//! any divergence from Java's reading of a file would silently change a config.
//! The code therefore mirrors the JDK's `LineReader`/`load0`/`loadConvert` state
//! machine (JDK 9+) rather than re-deriving the rules, including its odd corners:
//! a comment line never continues, a blank natural line ends a continued logical
//! line, and a lone trailing backslash at end of input yields an empty key.
//!
//! The input is taken as already-decoded text. Like Java's `Reader`-based load, a
//! leading byte-order mark is not stripped; it becomes part of the first key.

use std::collections::HashMap;
use std::iter::Peekable;
use std::str::Chars;

/// Why a properties document could not be parsed.
#[derive(Debug, thiserror::Error)]
pub enum PropertiesError {
    /// A `\u` escape not followed by exactly four hex digits (Java throws
    /// `IllegalArgumentException: Malformed \uxxxx encoding.`).
    #[error("malformed \\uxxxx encoding in the logical line starting at line {line}")]
    MalformedUnicodeEscape {
        /// 1-based line number where the offending logical line starts.
        line: usize,
    },
}

/// Parses `text` as `java.util.Properties::load(Reader)` would.
///
/// Entries come back in order of each key's first appearance. A later duplicate
/// key replaces the earlier value in place (last value wins, as in Java's
/// `Hashtable`), so the result never contains a key twice.
pub fn parse_properties(text: &str) -> Result<Vec<(String, String)>, PropertiesError> {
    let mut reader = LineReader {
        chars: text.chars().peekable(),
        line: 1,
        after_cr: false,
    };
    let mut entries: Vec<(String, String)> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    while let Some((buf, line)) = reader.read_line() {
        let (key, value) = split_entry(&buf, line)?;
        match index.get(&key) {
            Some(&i) => entries[i].1 = value,
            None => {
                index.insert(key.clone(), entries.len());
                entries.push((key, value));
            }
        }
    }
    Ok(entries)
}

fn is_whitespace(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\x0c')
}

/// Splits the input into logical lines (JDK `Properties.LineReader`).
struct LineReader<'a> {
    chars: Peekable<Chars<'a>>,
    /// Natural line number of the next character to be read.
    line: usize,
    after_cr: bool,
}

impl LineReader<'_> {
    /// Returns the next character and the line it sits on.
    fn next_char(&mut self) -> Option<(char, usize)> {
        let c = self.chars.next()?;
        let line = self.line;
        // `\r\n` is one terminator, so its `\n` must not count a second line.
        if c == '\r' || (c == '\n' && !self.after_cr) {
            self.line += 1;
        }
        self.after_cr = c == '\r';
        Some((c, line))
    }

    /// Returns the raw (still escaped) text of the next logical line, without
    /// line terminators, continuation backslashes or leading whitespace, plus the
    /// line it starts on. Comment and blank lines are skipped.
    fn read_line(&mut self) -> Option<(Vec<char>, usize)> {
        let mut buf: Vec<char> = Vec::new();
        let mut start: Option<usize> = None;
        let mut skip_whitespace = true;
        // Set right after a continuation: a terminator there must end the logical
        // line instead of being skipped as a blank line.
        let mut appended_line_begin = false;
        let mut preceding_backslash = false;

        loop {
            let Some((c, line)) = self.next_char() else {
                if buf.is_empty() {
                    return None;
                }
                if preceding_backslash {
                    buf.pop();
                }
                return Some((buf, start.unwrap_or(self.line)));
            };

            if skip_whitespace {
                if is_whitespace(c) || (!appended_line_begin && matches!(c, '\r' | '\n')) {
                    continue;
                }
                skip_whitespace = false;
                appended_line_begin = false;
            }

            // Java tests "buffer empty", not "start of natural line": so a `#`
            // after a continuation that contributed nothing still starts a comment.
            if buf.is_empty() && matches!(c, '#' | '!') {
                // A comment ends at the first terminator, backslash or not.
                while let Some((c, _)) = self.next_char() {
                    if matches!(c, '\r' | '\n') {
                        break;
                    }
                }
                start = None;
                skip_whitespace = true;
                continue;
            }

            if !matches!(c, '\r' | '\n') {
                start.get_or_insert(line);
                buf.push(c);
                preceding_backslash = c == '\\' && !preceding_backslash;
                continue;
            }

            if buf.is_empty() {
                start = None;
                skip_whitespace = true;
                continue;
            }
            if self.chars.peek().is_none() {
                // Unlike the top-of-loop EOF check, this returns even an empty
                // buffer: Java loads a lone `\` + newline as the entry ("", "").
                if preceding_backslash {
                    buf.pop();
                }
                return Some((buf, start.unwrap_or(line)));
            }
            if !preceding_backslash {
                return Some((buf, start.unwrap_or(line)));
            }
            buf.pop();
            skip_whitespace = true;
            appended_line_begin = true;
            preceding_backslash = false;
            if c == '\r' && self.chars.peek() == Some(&'\n') {
                self.next_char();
            }
        }
    }
}

/// Splits a logical line into unescaped key and value (JDK `Properties.load0`).
fn split_entry(buf: &[char], line: usize) -> Result<(String, String), PropertiesError> {
    let mut key_len = 0;
    let mut value_start = buf.len();
    let mut has_separator = false;
    let mut preceding_backslash = false;
    while key_len < buf.len() {
        let c = buf[key_len];
        if !preceding_backslash && matches!(c, '=' | ':') {
            value_start = key_len + 1;
            has_separator = true;
            break;
        }
        if !preceding_backslash && is_whitespace(c) {
            value_start = key_len + 1;
            break;
        }
        preceding_backslash = c == '\\' && !preceding_backslash;
        key_len += 1;
    }
    // Whitespace, then at most one `=`/`:` (unless the key already ended on
    // one), then whitespace; what remains, trailing whitespace included, is
    // the value.
    while value_start < buf.len() {
        let c = buf[value_start];
        if !is_whitespace(c) {
            if !has_separator && matches!(c, '=' | ':') {
                has_separator = true;
            } else {
                break;
            }
        }
        value_start += 1;
    }
    Ok((
        unescape(&buf[..key_len], line)?,
        unescape(&buf[value_start..], line)?,
    ))
}

/// Resolves backslash escapes (JDK `Properties.loadConvert`).
fn unescape(chars: &[char], line: usize) -> Result<String, PropertiesError> {
    if !chars.contains(&'\\') {
        return Ok(chars.iter().collect());
    }
    // Java's `\uXXXX` yields UTF-16 code units, so a surrogate pair written as two
    // escapes must combine into one character. Java would keep a lone surrogate;
    // a Rust `String` cannot, so it becomes U+FFFD.
    let mut out: Vec<u16> = Vec::with_capacity(chars.len());
    let mut units = [0u16; 2];
    let mut iter = chars.iter().copied();
    while let Some(c) = iter.next() {
        if c != '\\' {
            out.extend_from_slice(c.encode_utf16(&mut units));
            continue;
        }
        // The reader never leaves an unescaped trailing backslash, so `None` is
        // unreachable; treating it as a literal backslash keeps this total.
        let c = match iter.next().unwrap_or('\\') {
            'u' => {
                let mut unit = 0u16;
                for _ in 0..4 {
                    let digit = iter
                        .next()
                        .and_then(|h| h.to_digit(16))
                        .ok_or(PropertiesError::MalformedUnicodeEscape { line })?;
                    unit = (unit << 4) | digit as u16;
                }
                out.push(unit);
                continue;
            }
            't' => '\t',
            'n' => '\n',
            'r' => '\r',
            'f' => '\x0c',
            other => other,
        };
        out.extend_from_slice(c.encode_utf16(&mut units));
    }
    Ok(String::from_utf16_lossy(&out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Vec<(String, String)> {
        parse_properties(text).expect("should parse")
    }

    fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
        expected
            .iter()
            .map(|&(k, v)| (k.to_owned(), v.to_owned()))
            .collect()
    }

    fn error_line(text: &str) -> usize {
        match parse_properties(text) {
            Err(PropertiesError::MalformedUnicodeEscape { line }) => line,
            Ok(entries) => panic!("expected an error, got {entries:?}"),
        }
    }

    #[test]
    fn separators() {
        assert_eq!(parse("a=b"), pairs(&[("a", "b")]));
        assert_eq!(parse("a = b"), pairs(&[("a", "b")]));
        assert_eq!(parse("a:b"), pairs(&[("a", "b")]));
        assert_eq!(parse("a b"), pairs(&[("a", "b")]));
        assert_eq!(parse("a\t\x0c b"), pairs(&[("a", "b")]));
        assert_eq!(parse("a=  \t b"), pairs(&[("a", "b")]));
    }

    #[test]
    fn only_one_separator_is_consumed() {
        assert_eq!(parse("a==b"), pairs(&[("a", "=b")]));
        assert_eq!(parse("a:=b"), pairs(&[("a", "=b")]));
        assert_eq!(parse("a = = b"), pairs(&[("a", "= b")]));
        assert_eq!(parse("a b=c"), pairs(&[("a", "b=c")]));
        assert_eq!(parse("a=b:c=d"), pairs(&[("a", "b:c=d")]));
    }

    #[test]
    fn missing_value_is_empty() {
        assert_eq!(parse("a="), pairs(&[("a", "")]));
        assert_eq!(parse("a"), pairs(&[("a", "")]));
        assert_eq!(parse("a   "), pairs(&[("a", "")]));
        assert_eq!(parse("a :  "), pairs(&[("a", "")]));
        assert_eq!(parse("=b"), pairs(&[("", "b")]));
    }

    #[test]
    fn leading_whitespace_skipped_trailing_kept() {
        assert_eq!(parse("   \t a=b  \t"), pairs(&[("a", "b  \t")]));
    }

    #[test]
    fn escaped_separators_belong_to_the_key() {
        assert_eq!(
            parse(r"key\ with\ spaces = v"),
            pairs(&[("key with spaces", "v")])
        );
        assert_eq!(parse(r"a\=b=c"), pairs(&[("a=b", "c")]));
        assert_eq!(parse(r"a\:b:c"), pairs(&[("a:b", "c")]));
        assert_eq!(parse(r"\#k=v"), pairs(&[("#k", "v")]));
        assert_eq!(parse(r"\!k=v"), pairs(&[("!k", "v")]));
    }

    #[test]
    fn escapes() {
        assert_eq!(parse(r"a=\t\n\r\f"), pairs(&[("a", "\t\n\r\x0c")]));
        assert_eq!(parse(r"a=c:\\dir"), pairs(&[("a", r"c:\dir")]));
        // Any other escaped character is itself.
        assert_eq!(parse(r"a=\b\=\:\ \#\!\x"), pairs(&[("a", "b=: #!x")]));
        // An escaped leading space is not skipped as separator whitespace.
        assert_eq!(parse(r"a=\  b"), pairs(&[("a", "  b")]));
        // Unescaping is a single pass: `\u005c` is a literal backslash.
        assert_eq!(parse(r"a=\u005cn"), pairs(&[("a", r"\n")]));
    }

    #[test]
    fn unicode_escapes() {
        assert_eq!(parse(r"\u0041=\u00e9"), pairs(&[("A", "é")]));
        assert_eq!(parse(r"a=\u00E9\u00c9"), pairs(&[("a", "éÉ")]));
        assert_eq!(parse(r"a=\ud83d\ude00"), pairs(&[("a", "😀")]));
        assert_eq!(parse(r"a=\ud83dx"), pairs(&[("a", "\u{fffd}x")]));
        // Exactly four digits: a fifth is ordinary text.
        assert_eq!(parse(r"a=\u00411"), pairs(&[("a", "A1")]));
    }

    #[test]
    fn malformed_unicode_escape_reports_logical_line_start() {
        assert_eq!(error_line(r"a=\u12"), 1);
        assert_eq!(error_line("a=1\n\n# c\nb=\\u12\nc=3"), 4);
        assert_eq!(error_line("a=1\nb=\\u12zz"), 2);
        assert_eq!(error_line("\\u00g1=v"), 1);
        assert_eq!(error_line("a=1\r\n\r\nb=\\u1\r\n"), 3);
        assert_eq!(error_line("a=1\rb=x\\\n   \\u"), 2);
        // Not even a Unicode non-ASCII digit counts as hex.
        assert_eq!(error_line("a=\\u００41"), 1);
        let message = parse_properties("\n\\u").unwrap_err().to_string();
        assert!(message.contains("line 2"), "{message}");
    }

    #[test]
    fn continuation_lines() {
        assert_eq!(parse("a=b\\\nc\nd=e"), pairs(&[("a", "bc"), ("d", "e")]));
        assert_eq!(
            parse("fruits    apple, banana, pear, \\\n   \t\x0c  cantaloupe, watermelon, \\\n   kiwi, mango"),
            pairs(&[("fruits", "apple, banana, pear, cantaloupe, watermelon, kiwi, mango")])
        );
        // The key may continue too.
        assert_eq!(parse("ke\\\n  y=v"), pairs(&[("key", "v")]));
        // On a continuation line `#` is data, not a comment.
        assert_eq!(parse("a=b\\\n  #c"), pairs(&[("a", "b#c")]));
        // An empty natural line ends the logical line.
        assert_eq!(parse("a=b\\\n\nc=d"), pairs(&[("a", "b"), ("c", "d")]));
    }

    #[test]
    fn only_an_odd_backslash_run_continues() {
        assert_eq!(parse("a=b\\\\\nc=d"), pairs(&[("a", "b\\"), ("c", "d")]));
        assert_eq!(parse("a=b\\\\\\\nc"), pairs(&[("a", "b\\c")]));
    }

    #[test]
    fn backslash_at_end_of_input_is_dropped() {
        assert_eq!(parse("a=b\\"), pairs(&[("a", "b")]));
        assert_eq!(parse("a=b\\\n"), pairs(&[("a", "b")]));
        assert_eq!(parse("a=b\\\n   "), pairs(&[("a", "b")]));
        // Java quirk: a lone backslash line at the very end loads as ("", "").
        assert_eq!(parse("a=b\n\\"), pairs(&[("a", "b"), ("", "")]));
    }

    #[test]
    fn comments_and_blank_lines() {
        let text = "# hash\n! bang\n   # indented\n\t! tab-indented\n\n   \t\n a=b\n#c=d";
        assert_eq!(parse(text), pairs(&[("a", "b")]));
        // A comment cannot be continued.
        assert_eq!(parse("# comment \\\na=b"), pairs(&[("a", "b")]));
        assert_eq!(parse("# only a comment"), pairs(&[]));
        assert_eq!(parse(""), pairs(&[]));
    }

    #[test]
    fn hash_inside_a_value_is_kept() {
        assert_eq!(
            parse("a=b # not a comment"),
            pairs(&[("a", "b # not a comment")])
        );
        assert_eq!(parse("a=#b"), pairs(&[("a", "#b")]));
        assert_eq!(parse("a !b"), pairs(&[("a", "!b")]));
    }

    #[test]
    fn line_terminators() {
        let expected = pairs(&[("a", "b"), ("c", "d")]);
        assert_eq!(parse("a=b\r\nc=d\r\n"), expected);
        assert_eq!(parse("a=b\rc=d\r"), expected);
        assert_eq!(parse("# x\r\n\r\na=b\r\n\r\nc=d"), expected);
        assert_eq!(
            parse("a=x\\\r\n   y\r\nc=d"),
            pairs(&[("a", "xy"), ("c", "d")])
        );
        assert_eq!(parse("a=x\\\r   y\rc=d"), pairs(&[("a", "xy"), ("c", "d")]));
    }

    #[test]
    fn duplicate_keys_keep_first_position_and_last_value() {
        assert_eq!(parse("a=1\nb=2\na=3"), pairs(&[("a", "3"), ("b", "2")]));
        // Keys are compared after unescaping.
        assert_eq!(parse("a=1\n\\u0061=2"), pairs(&[("a", "2")]));
    }

    #[test]
    fn non_ascii_passes_through() {
        assert_eq!(
            parse("clé = välue 😀\n日本=語"),
            pairs(&[("clé", "välue 😀"), ("日本", "語")])
        );
    }

    #[test]
    fn kafka_quickstart_file_source() {
        let text = "\
# Licensed to the Apache Software Foundation (ASF) under one or more
# contributor license agreements.  See the NOTICE file distributed with
# this work for additional information regarding copyright ownership.
# The ASF licenses this file to You under the Apache License, Version 2.0
# (the \"License\"); you may not use this file except in compliance with
# the License.  You may obtain a copy of the License at
#
#    http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an \"AS IS\" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

name=local-file-source
connector.class=FileStreamSource
tasks.max=1
file=test.txt
topic=connect-test
";
        assert_eq!(
            parse(text),
            pairs(&[
                ("name", "local-file-source"),
                ("connector.class", "FileStreamSource"),
                ("tasks.max", "1"),
                ("file", "test.txt"),
                ("topic", "connect-test"),
            ])
        );
    }
}
