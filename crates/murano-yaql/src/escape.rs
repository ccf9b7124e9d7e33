//! Decoding of escapes in `'…'` and `"…"` literals, the way yaql does it.
//!
//! yaql replaces each match of a fixed set of escape patterns with Python's
//! `unicode-escape` decoding of the matched text. Escapes outside that set
//! (`\d`, `\q`, a `\x` with one digit left) are kept as written, backslash
//! included. A pattern that matches but does not decode (`\xZZ`, an unknown
//! `\N{…}` name, a code point above U+10FFFF) makes Python raise
//! `UnicodeDecodeError`, reported here as [`Decode`](crate::ErrorClass::Decode).

use std::borrow::Cow;

/// An escape that matched yaql's pattern but cannot be decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BadEscape {
    /// Byte offset of the backslash within the decoded text's source.
    pub(crate) offset: usize,
    pub(crate) escape: String,
    pub(crate) reason: &'static str,
}

/// Decodes the escapes of a quoted literal's body (the text between the
/// quotes).
pub(crate) fn decode_escapes(body: &str) -> Result<Cow<'_, str>, BadEscape> {
    if !body.contains('\\') {
        return Ok(Cow::Borrowed(body));
    }
    let mut out = String::with_capacity(body.len());
    let mut rest = body;
    let mut consumed = 0;
    while let Some(i) = rest.find('\\') {
        out.push_str(&rest[..i]);
        let at = &rest[i..];
        let (decoded, len) = match decode_one(at) {
            Ok(Some(found)) => found,
            Ok(None) => ('\\', 1),
            Err((len, reason)) => {
                return Err(BadEscape {
                    offset: consumed + i,
                    escape: at[..len].to_owned(),
                    reason,
                })
            }
        };
        out.push(decoded);
        consumed += i + len;
        rest = &rest[i + len..];
    }
    out.push_str(rest);
    Ok(Cow::Owned(out))
}

type Decoded = Result<Option<(char, usize)>, (usize, &'static str)>;

/// Decodes the escape at the start of `s` (which starts with a backslash).
/// `Ok(None)` means "not an escape yaql knows": keep the backslash.
fn decode_one(s: &str) -> Decoded {
    let mut chars = s.chars();
    chars.next();
    let Some(kind) = chars.next() else {
        return Ok(None);
    };
    match kind {
        'U' => fixed_hex(s, 8),
        'u' => fixed_hex(s, 4),
        'x' => fixed_hex(s, 2),
        '0'..='7' => {
            let digits: String = s[1..]
                .chars()
                .take(3)
                .take_while(|c| ('0'..='7').contains(c))
                .collect();
            let value = u32::from_str_radix(&digits, 8).unwrap_or(0);
            // At most 0o777, always a valid scalar value.
            let c = char::from_u32(value).unwrap_or('\u{fffd}');
            Ok(Some((c, 1 + digits.len())))
        }
        'N' => named(s),
        '\\' => Ok(Some(('\\', 2))),
        '\'' => Ok(Some(('\'', 2))),
        '"' => Ok(Some(('"', 2))),
        'a' => Ok(Some(('\u{7}', 2))),
        'b' => Ok(Some(('\u{8}', 2))),
        'f' => Ok(Some(('\u{c}', 2))),
        'n' => Ok(Some(('\n', 2))),
        'r' => Ok(Some(('\r', 2))),
        't' => Ok(Some(('\t', 2))),
        'v' => Ok(Some(('\u{b}', 2))),
        _ => Ok(None),
    }
}

/// `\x..`, `\u....`, `\U........`: the pattern takes exactly `n` characters
/// other than a line break, whatever they are; only then does decoding
/// decide.
fn fixed_hex(s: &str, n: usize) -> Decoded {
    let body: Vec<(usize, char)> = s[2..].char_indices().take(n).collect();
    if body.len() < n || body.iter().any(|&(_, c)| c == '\n') {
        return Ok(None);
    }
    let len = 2 + body.last().map(|&(i, c)| i + c.len_utf8()).unwrap_or(0);
    let digits = &s[2..len];
    if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err((len, "truncated hexadecimal escape"));
    }
    let value = u32::from_str_radix(digits, 16).map_err(|_| (len, "bad hexadecimal escape"))?;
    if value > 0x10FFFF {
        return Err((len, "illegal Unicode character"));
    }
    match char::from_u32(value) {
        Some(c) => Ok(Some((c, len))),
        // Python builds a string holding a lone surrogate; Rust strings
        // cannot, so this is refused (see COMPATIBILITY.md).
        None => Err((len, "lone surrogate code point")),
    }
}

/// `\N{NAME}`: the pattern needs a non-empty name without `}`.
fn named(s: &str) -> Decoded {
    let Some(after) = s.get(2..).filter(|r| r.starts_with('{')) else {
        return Ok(None);
    };
    let Some(close) = after.find('}') else {
        return Ok(None);
    };
    let name = &after[1..close];
    if name.is_empty() || name.contains('\n') {
        return Ok(None);
    }
    let len = 2 + close + 1;
    match lookup_name(name) {
        Some(c) => Ok(Some((c, len))),
        None => Err((len, "unknown Unicode character name")),
    }
}

#[cfg(feature = "unicode-names")]
fn lookup_name(name: &str) -> Option<char> {
    unicode_names2::character(name)
}

#[cfg(not(feature = "unicode-names"))]
fn lookup_name(_name: &str) -> Option<char> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(s: &str) -> String {
        decode_escapes(s).unwrap().into_owned()
    }

    #[test]
    fn python_escapes_decode() {
        assert_eq!(
            ok(r"a\nb\tc\\d\'e\x41\u00e9\U0001F600\101"),
            "a\nb\tc\\d'eAé😀A"
        );
    }

    #[test]
    fn unknown_escapes_keep_their_backslash() {
        assert_eq!(ok(r"\d\q\x4"), r"\d\q\x4");
        assert_eq!(ok(r"\U12"), r"\U12");
    }

    #[test]
    fn octal_takes_at_most_three_digits() {
        assert_eq!(ok(r"\1234"), "S4");
        assert_eq!(ok(r"\777"), "\u{1ff}");
    }

    #[test]
    fn malformed_escapes_are_decode_errors() {
        let e = decode_escapes(r"ab\xZZ").unwrap_err();
        assert_eq!(e.offset, 2);
        assert_eq!(e.escape, r"\xZZ");
        assert!(decode_escapes(r"\U00110000").is_err());
        assert!(decode_escapes(r"\N{NO SUCH NAME}").is_err());
        assert!(decode_escapes(r"\ud800").is_err());
    }

    #[cfg(feature = "unicode-names")]
    #[test]
    fn named_characters() {
        assert_eq!(ok(r"\N{EM DASH}"), "—");
    }
}
