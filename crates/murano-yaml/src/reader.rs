//! From bytes to characters, as PyYAML's reader does it.

use std::borrow::Cow;

use crate::error::{Mark, YamlError, YamlErrorClass};

/// Where the character after `before` is. PyYAML's reader errors carry
/// no mark; this one is added so that a message can say line and column
/// (`\n`, `\r\n` and `\r` end lines).
fn mark_after(before: &str) -> Mark {
    let index = before.chars().count();
    let line = before.matches('\n').count() + before.matches('\r').count()
        - before.matches("\r\n").count();
    let start = before.rfind(['\n', '\r']).map_or(0, |i| i + 1);
    let column = before[start..].chars().count();
    let clamp = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    Mark {
        index: clamp(index),
        line: clamp(line),
        column: clamp(column),
    }
}

/// Decodes a byte stream: UTF-16 (either order) when it starts with that
/// byte order mark, UTF-8 otherwise. A UTF-8 byte order mark stays in the
/// text (the scanner skips it, as PyYAML does). UTF-8 input is borrowed.
pub(crate) fn decode(bytes: &[u8]) -> Result<Cow<'_, str>, YamlError> {
    let text: Cow<'_, str> = if let Some(rest) = bytes.strip_prefix(&[0xFF, 0xFE]) {
        Cow::Owned(utf16(rest, u16::from_le_bytes)?)
    } else if let Some(rest) = bytes.strip_prefix(&[0xFE, 0xFF]) {
        Cow::Owned(utf16(rest, u16::from_be_bytes)?)
    } else {
        match std::str::from_utf8(bytes) {
            Ok(text) => Cow::Borrowed(text),
            Err(e) => {
                return Err(YamlError::new(
                    YamlErrorClass::Reader,
                    format!(
                        "'utf-8' codec can't decode byte 0x{:02x} in position {}",
                        bytes[e.valid_up_to()],
                        e.valid_up_to()
                    ),
                    std::str::from_utf8(&bytes[..e.valid_up_to()])
                        .ok()
                        .map(mark_after),
                ))
            }
        }
    };
    check_printable(&text)?;
    Ok(text)
}

/// Checks a text string (manifests are read as text).
pub(crate) fn from_str(text: &str) -> Result<&str, YamlError> {
    check_printable(text)?;
    Ok(text)
}

fn utf16(bytes: &[u8], word: fn([u8; 2]) -> u16) -> Result<String, YamlError> {
    let bad = || {
        YamlError::new(
            YamlErrorClass::Reader,
            "'utf-16' codec can't decode the stream",
            None,
        )
    };
    if bytes.len() % 2 != 0 {
        return Err(bad());
    }
    let words = bytes.chunks_exact(2).map(|c| word([c[0], c[1]]));
    char::decode_utf16(words)
        .collect::<Result<String, _>>()
        .map_err(|_| bad())
}

/// PyYAML accepts tab, line breaks, printable ASCII, NEL and the printable
/// planes of Unicode, and refuses every other character.
pub(crate) fn is_printable(c: char) -> bool {
    matches!(c,
        '\t' | '\n' | '\r' | '\u{20}'..='\u{7E}' | '\u{85}'
        | '\u{A0}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..='\u{10FFFF}')
}

fn is_printable_ascii(b: u8) -> bool {
    (0x20..=0x7E).contains(&b) | (b == b'\t') | (b == b'\n') | (b == b'\r')
}

fn check_printable(text: &str) -> Result<(), YamlError> {
    let bytes = text.as_bytes();
    // ASCII fast path, a block at a time (branch-free, so it vectorizes);
    // the first byte that is not printable ASCII starts a character.
    let mut clean = 0;
    for block in bytes.chunks(64) {
        if !block.iter().fold(true, |ok, &b| ok & is_printable_ascii(b)) {
            break;
        }
        clean += block.len();
    }
    let ascii = bytes[clean..].iter().position(|&b| !is_printable_ascii(b));
    let Some(first) = ascii.map(|i| clean + i) else {
        return Ok(());
    };
    let Some(rest) = text.get(first..) else {
        return Ok(());
    };
    let found = rest
        .char_indices()
        .find(|&(_, c)| !is_printable(c))
        .map(|(at, c)| (first + at, c));
    match found {
        None => Ok(()),
        Some((at, c)) => {
            let index = text.get(..at).map_or(0, |t| t.chars().count());
            Err(YamlError::new(
                YamlErrorClass::Reader,
                format!(
                    "unacceptable character #x{:04x}: special characters are not allowed (position {index})",
                    c as u32
                ),
                // PyYAML's ReaderError carries no mark: ours says where.
                text.get(..at).map(mark_after),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reader_errors_say_line_and_column() {
        let err = decode(b"a: 1\nb: x\xffy\n").unwrap_err();
        let mark = err.mark().expect("a mark");
        assert_eq!((mark.line, mark.column, mark.index), (1, 4, 9));
        assert!(err.to_string().ends_with("at line 2, column 5"), "{err}");
        let err = decode(b"a: 1\r\nb: \0\n").unwrap_err();
        let mark = err.mark().expect("a mark");
        assert_eq!((mark.line, mark.column), (1, 3));
    }
}
