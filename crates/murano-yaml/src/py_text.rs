//! The few Python character classes that Murano's version and format code
//! depends on: `\d` (Unicode decimal digits, category Nd), `str.isdigit()`,
//! `\s` / `str.isspace()` / `str.strip()`, `str.title()`, plus `repr()` of
//! a string for error messages.
//!
//! The tables are those of Python 3.11 (Unicode 14.0.0), the Python the
//! oracle ran under.
//!
//! ```
//! use murano_yaml::py_text;
//!
//! assert_eq!(py_text::decimal_value('\u{663}'), Some(3)); // ARABIC-INDIC DIGIT THREE
//! assert!(py_text::is_digit('\u{b2}')); // SUPERSCRIPT TWO: isdigit(), not \d
//! assert_eq!(py_text::decimal_value('\u{b2}'), None);
//! assert_eq!(py_text::strip("\u{3000} Heat.HOT\u{1f}"), "Heat.HOT");
//! assert_eq!(py_text::repr("it's"), "\"it's\"");
//! ```

mod title;

pub use title::title;

/// Characters for which `str.isdigit()` holds although they are not
/// decimal digits (superscripts, circled digits, ...), as inclusive ranges.
const OTHER_DIGIT_RANGES: [(u32, u32); 20] = [
    (0xb2, 0xb3),
    (0xb9, 0xb9),
    (0x1369, 0x1371),
    (0x19da, 0x19da),
    (0x2070, 0x2070),
    (0x2074, 0x2079),
    (0x2080, 0x2089),
    (0x2460, 0x2468),
    (0x2474, 0x247c),
    (0x2488, 0x2490),
    (0x24ea, 0x24ea),
    (0x24f5, 0x24fd),
    (0x24ff, 0x24ff),
    (0x2776, 0x277e),
    (0x2780, 0x2788),
    (0x278a, 0x2792),
    (0x10a40, 0x10a43),
    (0x10e60, 0x10e68),
    (0x11052, 0x1105a),
    (0x1f100, 0x1f10a),
];

/// The value of `c` if Python's `\d` matches it (a Unicode decimal digit,
/// which Python's `int()` also reads); the table lives with YAQL's `int()`.
pub use murano_yaql::pyint::decimal_value;

/// Python's `c.isdigit()`: decimal digits plus other digit characters
/// (superscripts, circled digits, ...).
pub fn is_digit(c: char) -> bool {
    if decimal_value(c).is_some() {
        return true;
    }
    let code = u32::from(c);
    OTHER_DIGIT_RANGES
        .iter()
        .any(|&(low, high)| (low..=high).contains(&code))
}

/// Python's `\w` for `str` patterns (and `str.isidentifier()`'s
/// continuation test as Murano's name checks use it): `_` or a Unicode
/// letter or digit.
pub fn is_word(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

/// Python's `c.isspace()`, which is also what `\s` matches in a `str`
/// pattern (Rust's whitespace plus the separators U+001C to U+001F).
pub fn is_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n'
            | '\u{b}'
            | '\u{c}'
            | '\r'
            | '\u{1c}'..='\u{1f}'
            | ' '
            | '\u{85}'
            | '\u{a0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200a}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202f}'
            | '\u{205f}'
            | '\u{3000}'
    )
}

/// Python's `str.strip()` without arguments.
pub fn strip(s: &str) -> &str {
    s.trim_matches(is_space)
}

/// Assigned characters that Python's `str.isprintable()` rejects (Unicode
/// 14.0.0), as inclusive ranges: controls, separators other than the
/// space, format characters.
const UNPRINTABLE_RANGES: [(u32, u32); 25] = [
    (0x0, 0x1f),
    (0x7f, 0xa0),
    (0xad, 0xad),
    (0x600, 0x605),
    (0x61c, 0x61c),
    (0x6dd, 0x6dd),
    (0x70f, 0x70f),
    (0x890, 0x891),
    (0x8e2, 0x8e2),
    (0x1680, 0x1680),
    (0x180e, 0x180e),
    (0x2000, 0x200f),
    (0x2028, 0x202f),
    (0x205f, 0x2064),
    (0x2066, 0x206f),
    (0x3000, 0x3000),
    (0xfeff, 0xfeff),
    (0xfff9, 0xfffb),
    (0x110bd, 0x110bd),
    (0x110cd, 0x110cd),
    (0x13430, 0x13438),
    (0x1bca0, 0x1bca3),
    (0x1d173, 0x1d17a),
    (0xe0001, 0xe0001),
    (0xe0020, 0xe007f),
];

/// Whether Python's `repr()` prints `c` as an escape: every unprintable
/// assigned character and the private-use ones. Unassigned code points
/// (which Python also escapes) are printed as themselves.
fn repr_escapes(c: char) -> bool {
    let code = u32::from(c);
    UNPRINTABLE_RANGES
        .iter()
        .any(|&(low, high)| (low..=high).contains(&code))
        || (0xe000..=0xf8ff).contains(&code)
        || code >= 0xf0000
}

/// Python's `repr()` of a `bytes` value (what `str()` of PyYAML's
/// `!!binary` gives): `b'...'`, in double quotes when the bytes hold `'`
/// and no `"`; printable ASCII as it is, the backslash, the quote, tab,
/// line feed and carriage return escaped, every other byte as `\xhh`.
pub fn bytes_repr(bytes: &[u8]) -> String {
    let quote = if bytes.contains(&b'\'') && !bytes.contains(&b'"') {
        b'"'
    } else {
        b'\''
    };
    let mut out = String::with_capacity(bytes.len() + 3);
    out.push('b');
    out.push(char::from(quote));
    for &b in bytes {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'\t' => out.push_str("\\t"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            _ if b == quote => {
                out.push('\\');
                out.push(char::from(quote));
            }
            0x20..=0x7e => out.push(char::from(b)),
            _ => out.push_str(&format!("\\x{b:02x}")),
        }
    }
    out.push(char::from(quote));
    out
}

/// Python's `repr()` of a string: single quotes unless the text contains
/// `'` and no `"`, with Python's escapes (`\n`, `\x7f`, `\u2028`, ...).
/// Unassigned code points are the one difference: Python escapes them,
/// this prints them as they are.
pub fn repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if repr_escapes(c) => {
                let code = u32::from(c);
                if code <= 0xff {
                    out.push_str(&format!("\\x{code:02x}"));
                } else if code <= 0xffff {
                    out.push_str(&format!("\\u{code:04x}"));
                } else {
                    out.push_str(&format!("\\U{code:08x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_digits_of_several_scripts() {
        assert_eq!(decimal_value('7'), Some(7));
        assert_eq!(decimal_value('\u{663}'), Some(3)); // ARABIC-INDIC DIGIT THREE
        assert_eq!(decimal_value('\u{ff19}'), Some(9)); // FULLWIDTH DIGIT NINE
        assert_eq!(decimal_value('\u{1d7ce}'), Some(0)); // MATHEMATICAL BOLD DIGIT ZERO
        assert_eq!(decimal_value('\u{1d7d7}'), Some(9));
        assert_eq!(decimal_value('a'), None);
        assert_eq!(decimal_value('\u{b2}'), None); // superscript two
        assert_eq!(decimal_value('\u{670}'), None);
        assert_eq!(decimal_value('\u{2f}'), None);
    }

    /// What Python's `repr()` prints for these bytes (checked against
    /// CPython 3.11).
    #[test]
    fn bytes_repr_like_python() {
        assert_eq!(bytes_repr(b"hello"), "b'hello'");
        assert_eq!(bytes_repr(b"it's"), "b\"it's\"");
        assert_eq!(bytes_repr(b"it's \"q\""), "b'it\\'s \"q\"'");
        assert_eq!(
            bytes_repr(b"\x00\xff\t\n\r\\"),
            "b'\\x00\\xff\\t\\n\\r\\\\'"
        );
        assert_eq!(bytes_repr(b""), "b''");
        assert_eq!(bytes_repr(b"\""), "b'\"'");
    }

    #[test]
    fn isdigit_is_wider_than_decimal() {
        assert!(is_digit('\u{b2}'));
        assert!(is_digit('\u{2460}'));
        assert!(is_digit('\u{966}'));
        assert!(!is_digit('\u{bd}')); // vulgar fraction one half
        assert!(!is_digit('x'));
    }

    #[test]
    fn whitespace_like_python() {
        assert!(is_space('\u{1f}'));
        assert!(is_space('\u{3000}'));
        assert!(!is_space('\u{200b}'));
        assert!(!is_space('\u{180e}'));
        assert_eq!(strip("\u{a0} MuranoPL\t"), "MuranoPL");
    }

    #[test]
    fn repr_like_python() {
        assert_eq!(repr("v1.0"), "'v1.0'");
        assert_eq!(repr("it's"), "\"it's\"");
        assert_eq!(repr("a'b\"c"), "'a\\'b\"c'");
        assert_eq!(repr("a\nb\\"), "'a\\nb\\\\'");
        assert_eq!(
            repr("\u{7f}\u{a0}\u{e9}\u{2603}"),
            "'\\x7f\\xa0\u{e9}\u{2603}'"
        );
        assert_eq!(repr("\u{2028}"), "'\\u2028'");
    }
}
