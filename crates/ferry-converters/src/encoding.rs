//! The Java character sets `StringConverter` can be configured with.
//!
//! Java looks charsets up by canonical name or alias, ignoring case, and both encoding and decoding
//! are lossy: characters a charset cannot represent become its replacement (`?` for the single-byte
//! sets) and malformed input decodes to U+FFFD. Only the charsets people actually put in connector
//! configs are supported; any other name is rejected at configure time.

/// A supported Java charset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Charset {
    Utf8,
    UsAscii,
    Iso8859_1,
    Windows1252,
    /// Java's `UTF-16`: writes a big-endian byte-order mark; reads either order, big-endian if unmarked.
    Utf16,
    Utf16Be,
    Utf16Le,
}

/// Canonical name first, then Java's aliases.
const NAMES: &[(Charset, &[&str])] = &[
    (Charset::Utf8, &["UTF-8", "UTF8", "unicode-1-1-utf-8"]),
    (
        Charset::UsAscii,
        &[
            "US-ASCII",
            "iso-ir-6",
            "ANSI_X3.4-1986",
            "ISO_646.irv:1991",
            "ASCII",
            "ISO646-US",
            "us",
            "IBM367",
            "cp367",
            "csASCII",
            "default",
            "646",
            "iso_646.irv:1983",
            "ANSI_X3.4-1968",
            "ascii7",
        ],
    ),
    (
        Charset::Iso8859_1,
        &[
            "ISO-8859-1",
            "iso-ir-100",
            "ISO_8859-1",
            "latin1",
            "l1",
            "IBM819",
            "cp819",
            "csISOLatin1",
            "819",
            "IBM-819",
            "ISO8859_1",
            "ISO_8859-1:1987",
            "ISO_8859_1",
            "8859_1",
            "ISO8859-1",
        ],
    ),
    (
        Charset::Windows1252,
        &["windows-1252", "cp1252", "cp5348", "ibm-1252", "ibm1252"],
    ),
    (
        Charset::Utf16,
        &["UTF-16", "UTF_16", "utf16", "unicode", "UnicodeBig"],
    ),
    (
        Charset::Utf16Be,
        &[
            "UTF-16BE",
            "UTF_16BE",
            "ISO-10646-UCS-2",
            "X-UTF-16BE",
            "UnicodeBigUnmarked",
        ],
    ),
    (
        Charset::Utf16Le,
        &[
            "UTF-16LE",
            "UTF_16LE",
            "X-UTF-16LE",
            "UnicodeLittleUnmarked",
        ],
    ),
];

/// Bytes 0x80..=0x9F of windows-1252; the rest of the set matches ISO-8859-1. `None` marks the
/// five unassigned bytes.
const CP1252_HIGH: [Option<char>; 32] = [
    Some('\u{20AC}'),
    None,
    Some('\u{201A}'),
    Some('\u{0192}'),
    Some('\u{201E}'),
    Some('\u{2026}'),
    Some('\u{2020}'),
    Some('\u{2021}'),
    Some('\u{02C6}'),
    Some('\u{2030}'),
    Some('\u{0160}'),
    Some('\u{2039}'),
    Some('\u{0152}'),
    None,
    Some('\u{017D}'),
    None,
    None,
    Some('\u{2018}'),
    Some('\u{2019}'),
    Some('\u{201C}'),
    Some('\u{201D}'),
    Some('\u{2022}'),
    Some('\u{2013}'),
    Some('\u{2014}'),
    Some('\u{02DC}'),
    Some('\u{2122}'),
    Some('\u{0161}'),
    Some('\u{203A}'),
    Some('\u{0153}'),
    None,
    Some('\u{017E}'),
    Some('\u{0178}'),
];

impl Charset {
    /// Looks a charset up the way `Charset.forName` does (case-insensitive name or alias).
    pub fn for_name(name: &str) -> Option<Charset> {
        NAMES
            .iter()
            .find(|(_, names)| names.iter().any(|n| n.eq_ignore_ascii_case(name)))
            .map(|(charset, _)| *charset)
    }

    /// Java's canonical name (`Charset.name()`).
    pub fn name(self) -> &'static str {
        NAMES
            .iter()
            .find(|(c, _)| *c == self)
            .map_or("UTF-8", |(_, names)| names[0])
    }

    pub fn encode(self, text: &str) -> Vec<u8> {
        match self {
            Charset::Utf8 => text.as_bytes().to_vec(),
            Charset::UsAscii => single_byte(text, |c| u8::try_from(c).ok().filter(u8::is_ascii)),
            Charset::Iso8859_1 => single_byte(text, |c| u8::try_from(c).ok()),
            Charset::Windows1252 => single_byte(text, cp1252_byte),
            Charset::Utf16 => {
                // Java writes no byte-order mark for an empty string: there is nothing to mark.
                if text.is_empty() {
                    return Vec::new();
                }
                let mut out = vec![0xFE, 0xFF];
                out.extend(text.encode_utf16().flat_map(u16::to_be_bytes));
                out
            }
            Charset::Utf16Be => text.encode_utf16().flat_map(u16::to_be_bytes).collect(),
            Charset::Utf16Le => text.encode_utf16().flat_map(u16::to_le_bytes).collect(),
        }
    }

    pub fn decode(self, bytes: &[u8]) -> String {
        match self {
            // Valid UTF-8 (the usual case) is copied as it is; only invalid input pays for the
            // replacement scan.
            Charset::Utf8 => match std::str::from_utf8(bytes) {
                Ok(text) => text.to_owned(),
                Err(_) => String::from_utf8_lossy(bytes).into_owned(),
            },
            Charset::UsAscii => bytes
                .iter()
                .map(|&b| {
                    if b.is_ascii() {
                        char::from(b)
                    } else {
                        '\u{FFFD}'
                    }
                })
                .collect(),
            Charset::Iso8859_1 => bytes.iter().map(|&b| char::from(b)).collect(),
            Charset::Windows1252 => bytes.iter().map(|&b| cp1252_char(b)).collect(),
            Charset::Utf16 => match bytes {
                [0xFE, 0xFF, rest @ ..] => decode_utf16(rest, u16::from_be_bytes),
                [0xFF, 0xFE, rest @ ..] => decode_utf16(rest, u16::from_le_bytes),
                _ => decode_utf16(bytes, u16::from_be_bytes),
            },
            Charset::Utf16Be => decode_utf16(bytes, u16::from_be_bytes),
            Charset::Utf16Le => decode_utf16(bytes, u16::from_le_bytes),
        }
    }
}

fn single_byte(text: &str, map: impl Fn(char) -> Option<u8>) -> Vec<u8> {
    text.chars().map(|c| map(c).unwrap_or(b'?')).collect()
}

fn cp1252_byte(c: char) -> Option<u8> {
    if let Some(i) = CP1252_HIGH.iter().position(|&h| h == Some(c)) {
        return u8::try_from(0x80 + i).ok();
    }
    match u8::try_from(c) {
        Ok(b) if !(0x80..=0x9F).contains(&b) => Some(b),
        _ => None,
    }
}

fn cp1252_char(b: u8) -> char {
    match b {
        0x80..=0x9F => CP1252_HIGH[usize::from(b - 0x80)].unwrap_or('\u{FFFD}'),
        _ => char::from(b),
    }
}

fn decode_utf16(bytes: &[u8], unit: fn([u8; 2]) -> u16) -> String {
    let chunks = bytes.chunks_exact(2);
    let dangling = !chunks.remainder().is_empty();
    let mut out: String = char::decode_utf16(chunks.map(|p| unit([p[0], p[1]])))
        .map(|r| r.unwrap_or('\u{FFFD}'))
        .collect();
    if dangling {
        out.push('\u{FFFD}');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_aliases_ignore_case() {
        assert_eq!(Charset::for_name("utf8"), Some(Charset::Utf8));
        assert_eq!(Charset::for_name("Utf-8"), Some(Charset::Utf8));
        assert_eq!(Charset::for_name("latin1"), Some(Charset::Iso8859_1));
        assert_eq!(Charset::for_name("us-ascii"), Some(Charset::UsAscii));
        assert_eq!(Charset::for_name("CP1252"), Some(Charset::Windows1252));
        assert_eq!(Charset::for_name("utf-16le"), Some(Charset::Utf16Le));
        assert_eq!(Charset::for_name("EBCDIC-nope"), None);
        assert_eq!(Charset::for_name(""), None);
        assert_eq!(
            Charset::for_name("utf16").map(Charset::name),
            Some("UTF-16")
        );
    }

    #[test]
    fn unmappable_characters_become_question_marks() {
        assert_eq!(Charset::UsAscii.encode("aé"), b"a?");
        assert_eq!(Charset::Iso8859_1.encode("é€"), vec![0xE9, b'?']);
        assert_eq!(Charset::Windows1252.encode("é€"), vec![0xE9, 0x80]);
    }

    #[test]
    fn bad_input_decodes_to_replacement_characters() {
        assert_eq!(Charset::UsAscii.decode(&[b'a', 0xE9]), "a\u{FFFD}");
        assert_eq!(Charset::Utf8.decode(&[b'a', 0xFF]), "a\u{FFFD}");
        assert_eq!(Charset::Windows1252.decode(&[0x80, 0x81]), "€\u{FFFD}");
        assert_eq!(Charset::Utf16Be.decode(&[0, b'a', 0]), "a\u{FFFD}");
    }

    #[test]
    fn utf16_marks_big_endian_and_reads_either_mark() {
        assert_eq!(Charset::Utf16.encode("a"), vec![0xFE, 0xFF, 0, b'a']);
        assert_eq!(Charset::Utf16.encode(""), Vec::<u8>::new());
        assert_eq!(Charset::Utf16.decode(&[0xFF, 0xFE, b'a', 0]), "a");
        assert_eq!(Charset::Utf16.decode(&[0, b'a']), "a");
        // The explicit-order variants keep a mark as a character, as Java does.
        assert_eq!(Charset::Utf16Be.decode(&[0xFE, 0xFF, 0, b'a']), "\u{FEFF}a");
    }
}
