//! From bytes to characters, as PyYAML's reader does it.

use super::error::{YamlError, YamlErrorClass};

/// Decodes a byte stream: UTF-16 (either order) when it starts with that
/// byte order mark, UTF-8 otherwise. A UTF-8 byte order mark stays in the
/// text (the scanner skips it, as PyYAML does).
pub(crate) fn decode(bytes: &[u8]) -> Result<Vec<char>, YamlError> {
    let chars: Vec<char> = if let Some(rest) = bytes.strip_prefix(&[0xFF, 0xFE]) {
        utf16(rest, u16::from_le_bytes)?
    } else if let Some(rest) = bytes.strip_prefix(&[0xFE, 0xFF]) {
        utf16(rest, u16::from_be_bytes)?
    } else {
        match std::str::from_utf8(bytes) {
            Ok(text) => text.chars().collect(),
            Err(e) => {
                return Err(YamlError::new(
                    YamlErrorClass::Reader,
                    format!(
                        "'utf-8' codec can't decode byte 0x{:02x} in position {}",
                        bytes[e.valid_up_to()],
                        e.valid_up_to()
                    ),
                    None,
                ))
            }
        }
    };
    check_printable(&chars)?;
    Ok(chars)
}

/// Characters of a text string (manifests are read as text).
pub(crate) fn from_str(text: &str) -> Result<Vec<char>, YamlError> {
    let chars: Vec<char> = text.chars().collect();
    check_printable(&chars)?;
    Ok(chars)
}

fn utf16(bytes: &[u8], word: fn([u8; 2]) -> u16) -> Result<Vec<char>, YamlError> {
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
        .collect::<Result<Vec<char>, _>>()
        .map_err(|_| bad())
}

/// PyYAML accepts tab, line breaks, printable ASCII, NEL and the printable
/// planes of Unicode, and refuses every other character.
pub(crate) fn is_printable(c: char) -> bool {
    matches!(c,
        '\t' | '\n' | '\r' | '\u{20}'..='\u{7E}' | '\u{85}'
        | '\u{A0}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..='\u{10FFFF}')
}

fn check_printable(chars: &[char]) -> Result<(), YamlError> {
    match chars.iter().position(|&c| !is_printable(c)) {
        None => Ok(()),
        Some(index) => Err(YamlError::new(
            YamlErrorClass::Reader,
            format!(
                "unacceptable character #x{:04x}: special characters are not allowed (position {index})",
                chars[index] as u32
            ),
            // PyYAML's ReaderError carries no mark.
            None,
        )),
    }
}
