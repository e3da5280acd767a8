//! The tokenizer behind `Values` parsing (Java's `Values.Parser`).
//!
//! A token is either one delimiter character (`: , { } [ ] "`) or the longest run of other
//! characters; a delimiter after an odd number of backslashes belongs to the run, and the
//! backslashes are kept. Whitespace is part of a run, so callers trim. Positions are byte offsets
//! (delimiters are ASCII, so every token boundary is a character boundary).

/// A rewindable cursor over the tokens of one string.
#[derive(Debug, Clone)]
pub struct Tokens<'a> {
    original: &'a str,
    pos: usize,
    /// A token read ahead by [`Tokens::can_consume`] but not consumed.
    peeked: Option<&'a str>,
    previous: Option<&'a str>,
}

/// Java's `String.trim`: strips every character up to and including the space.
pub fn java_trim(s: &str) -> &str {
    s.trim_matches(|c: char| c <= ' ')
}

pub fn is_blank(s: &str) -> bool {
    java_trim(s).is_empty()
}

impl<'a> Tokens<'a> {
    pub fn new(original: &'a str) -> Self {
        Tokens {
            original,
            pos: 0,
            peeked: None,
            previous: None,
        }
    }

    pub fn original(&self) -> &'a str {
        self.original
    }

    /// Where reading has reached, including any token read ahead.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// The start of the next unconsumed token, for [`Tokens::rewind_to`].
    pub fn mark(&self) -> usize {
        self.pos - self.peeked.map_or(0, str::len)
    }

    pub fn rewind_to(&mut self, position: usize) {
        self.pos = position;
        self.peeked = None;
        self.previous = None;
    }

    pub fn has_next(&self) -> bool {
        self.peeked.is_some() || self.pos < self.original.len()
    }

    /// The last token returned by [`Tokens::next`].
    pub fn previous(&self) -> Option<&'a str> {
        self.previous
    }

    pub fn next_token(&mut self) -> &'a str {
        let token = match self.peeked.take() {
            Some(t) => t,
            None => self.read_token(),
        };
        self.previous = Some(token);
        token
    }

    /// The text spanned by the next `n` tokens, or `None` (consuming nothing) if fewer remain.
    pub fn next_n(&mut self, n: usize) -> Option<&'a str> {
        let start = self.mark();
        for _ in 0..n {
            if !self.has_next() {
                self.rewind_to(start);
                return None;
            }
            self.next_token();
        }
        Some(&self.original[start..self.pos])
    }

    /// Consumes the next token if, trimmed, it equals `expected`. Blank tokens in the way are
    /// skipped, and stay skipped even when the answer is no.
    pub fn can_consume(&mut self, expected: &str) -> bool {
        let token = match self.peeked {
            Some(t) => t,
            None => {
                if !self.has_next() {
                    return false;
                }
                self.read_token()
            }
        };
        let mut token = token;
        while is_blank(token) && self.pos < self.original.len() {
            token = self.read_token();
        }
        if java_trim(token) == expected {
            self.peeked = None;
            true
        } else {
            self.peeked = Some(token);
            false
        }
    }

    fn read_token(&mut self) -> &'a str {
        let bytes = self.original.as_bytes();
        let start = self.pos;
        let mut escaped = false;
        while self.pos < bytes.len() {
            match bytes[self.pos] {
                b'\\' => escaped = !escaped,
                b':' | b',' | b'{' | b'}' | b'[' | b']' | b'"' if !escaped => {
                    if start < self.pos {
                        return &self.original[start..self.pos];
                    }
                    self.pos += 1;
                    return &self.original[start..self.pos];
                }
                _ => escaped = false,
            }
            self.pos += 1;
        }
        &self.original[start..self.pos]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_tokens(text: &str) -> Vec<&str> {
        let mut t = Tokens::new(text);
        let mut out = Vec::new();
        while t.has_next() {
            out.push(t.next_token());
        }
        out
    }

    #[test]
    fn plain_and_escaped_runs_are_single_tokens() {
        for text in [
            "  ",
            "simple",
            "simple \n\t\u{8}string",
            "'simple' string",
            "si\\mple",
        ] {
            assert_eq!(all_tokens(text), vec![text]);
        }
        for text in [
            "si\\\"mple",
            "si\\{mple",
            "si\\]mple",
            "si\\:mple",
            "si\\,mple",
        ] {
            assert_eq!(all_tokens(text), vec![text]);
        }
        assert_eq!(all_tokens(""), Vec::<&str>::new());
    }

    #[test]
    fn delimiters_split_runs() {
        assert_eq!(all_tokens("a{b"), vec!["a", "{", "b"]);
        assert_eq!(all_tokens(",b"), vec![",", "b"]);
        assert_eq!(all_tokens("\""), vec!["\""]);
        assert_eq!(
            all_tokens("a { b c } d"),
            vec!["a ", "{", " b c ", "}", " d"]
        );
        assert_eq!(
            all_tokens("\"simple\" string"),
            vec!["\"", "simple", "\"", " string"]
        );
        // A double backslash escapes itself, not the delimiter after it.
        assert_eq!(all_tokens("a\\\\:b"), vec!["a\\\\", ":", "b"]);
    }

    #[test]
    fn positions_and_rewinding() {
        let mut t = Tokens::new("ab:cd");
        assert_eq!(t.next_token(), "ab");
        assert_eq!(t.position(), 2);
        assert_eq!(t.previous(), Some("ab"));
        t.rewind_to(0);
        assert_eq!(t.previous(), None);
        assert_eq!(t.next_token(), "ab");
    }

    #[test]
    fn next_n_reads_several_tokens_or_nothing() {
        let mut t = Tokens::new("a:b:c:d:e:f:g:h");
        assert_eq!(t.next_n(5), Some("a:b:c"));
        assert_eq!(t.next_token(), ":");
        assert_eq!(t.next_token(), "d");
        assert_eq!(t.next_token(), ":");
        assert_eq!(t.next_n(8), None);
        assert_eq!(t.next_token(), "e");
    }

    #[test]
    fn can_consume_trims_and_skips_blank_tokens() {
        let mut t = Tokens::new("[ , ]");
        assert!(t.can_consume("["));
        assert!(!t.can_consume("]"));
        let mark = t.mark();
        assert!(t.can_consume(","));
        assert!(t.can_consume("]"));
        assert!(!t.has_next());
        // The blank token was dropped for good: the mark is already at the comma.
        t.rewind_to(mark);
        assert_eq!(t.next_token(), ",");
    }
}
