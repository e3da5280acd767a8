//! Base64 as Jackson reads a text node's binary value: the string is trimmed, whitespace may
//! sit between 4-character groups, padding is required, and a padded group may be followed
//! by more groups. Writing uses the standard padded alphabet (the `base64` crate).

pub(crate) fn decode(text: &str) -> Result<Vec<u8>, String> {
    let b = text.trim_matches(|c: char| c <= ' ').as_bytes();
    let mut out = Vec::with_capacity(b.len() / 4 * 3);
    let mut i = 0;
    let next = |i: &mut usize| -> Option<u8> {
        let c = b.get(*i).copied();
        *i += 1;
        c
    };
    loop {
        let c0 = loop {
            match next(&mut i) {
                None => return Ok(out),
                Some(c) if c <= b' ' => continue,
                Some(c) => break c,
            }
        };
        let v0 = value(c0).ok_or_else(|| invalid(c0))?;
        let c1 = next(&mut i).ok_or_else(eof)?;
        let v1 = value(c1).ok_or_else(|| invalid(c1))?;
        let bits = (v0 << 6) | v1;
        let c2 = next(&mut i).ok_or_else(eof)?;
        let Some(v2) = value(c2) else {
            if c2 != b'=' || next(&mut i) != Some(b'=') {
                return Err(invalid(c2));
            }
            out.push((bits >> 4) as u8);
            continue;
        };
        let bits = (bits << 6) | v2;
        let c3 = next(&mut i).ok_or_else(eof)?;
        let Some(v3) = value(c3) else {
            if c3 != b'=' {
                return Err(invalid(c3));
            }
            out.push((bits >> 10) as u8);
            out.push((bits >> 2) as u8);
            continue;
        };
        let bits = (bits << 6) | v3;
        out.push((bits >> 16) as u8);
        out.push((bits >> 8) as u8);
        out.push(bits as u8);
    }
}

fn value(c: u8) -> Option<u32> {
    let v = match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => return None,
    };
    Some(u32::from(v))
}

fn invalid(c: u8) -> String {
    format!("Illegal character (code 0x{c:x}) in base64 content")
}

fn eof() -> String {
    "Unexpected end of base64-encoded String: base64 variant 'MIME-NO-LINEFEEDS' expects padding (one or more '=' characters) at the end".to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_like_jackson() {
        assert_eq!(decode("dGVzdC1zdHJpbmc=").unwrap(), b"test-string");
        assert_eq!(decode("AJw=").unwrap(), vec![0x00, 0x9C]);
        assert_eq!(decode(" AA== AAAA ").unwrap(), vec![0, 0, 0, 0]);
        assert_eq!(decode("").unwrap(), Vec::<u8>::new());
        assert!(decode("AJw").is_err());
        assert!(decode("A===").is_err());
        assert!(decode("AJ w=").is_err());
        assert!(decode("AJ-_").is_err());
    }
}
