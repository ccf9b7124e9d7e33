//! Positions: the checker's 1-based character lines and columns, YAML
//! marks, byte offsets and LSP's UTF-16 positions meet here, and file
//! paths become `file://` URIs and back.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use lsp_types::{Position, Range, Uri};

/// Where each line of a text starts, to convert offsets both ways.
#[derive(Debug, Clone)]
pub(crate) struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    /// Indexes `text` (`\n`, `\r\n` and a lone `\r` end lines, as the
    /// checker counts them).
    pub(crate) fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        let bytes = text.as_bytes();
        for (i, &b) in bytes.iter().enumerate() {
            if b == b'\n' || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n')) {
                starts.push(i + 1);
            }
        }
        LineIndex { starts }
    }

    /// The text of line `line` (0-based) without its line break.
    pub(crate) fn line<'a>(&self, text: &'a str, line: usize) -> &'a str {
        let Some(&start) = self.starts.get(line) else {
            return "";
        };
        let end = self.starts.get(line + 1).copied().unwrap_or(text.len());
        text.get(start..end)
            .unwrap_or("")
            .trim_end_matches(['\n', '\r'])
    }

    /// The byte offset of 0-based `line` and character `column`
    /// (clamped to the line's end).
    pub(crate) fn byte_of_char(&self, text: &str, line: usize, column: usize) -> usize {
        let Some(&start) = self.starts.get(line) else {
            return text.len();
        };
        let line_text = self.line(text, line);
        start
            + line_text
                .char_indices()
                .nth(column)
                .map_or(line_text.len(), |(i, _)| i)
    }

    /// The byte offset of an LSP (UTF-16) position, clamped.
    pub(crate) fn byte_of(&self, text: &str, pos: Position) -> usize {
        let line = pos.line as usize;
        let Some(&start) = self.starts.get(line) else {
            return text.len();
        };
        let line_text = self.line(text, line);
        let mut units = 0u32;
        for (i, c) in line_text.char_indices() {
            if units >= pos.character {
                return start + i;
            }
            units += c.len_utf16() as u32;
        }
        start + line_text.len()
    }

    /// The LSP (UTF-16) position of byte `offset` (clamped).
    pub(crate) fn position(&self, text: &str, offset: usize) -> Position {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let start = self.starts[line];
        let character = text[start..offset]
            .chars()
            .map(|c| c.len_utf16() as u32)
            .sum();
        Position::new(line as u32, character)
    }

    /// The LSP range of bytes `start..end`.
    pub(crate) fn range(&self, text: &str, start: usize, end: usize) -> Range {
        Range::new(self.position(text, start), self.position(text, end))
    }
}

/// The `file://` URI of an absolute path, percent-encoding what a URI
/// path cannot hold.
pub(crate) fn path_to_uri(path: &Path) -> Option<Uri> {
    let text = path.to_str()?;
    let mut uri = String::from("file://");
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~!$&'()*+,;=:@".contains(&b) {
            uri.push(b as char);
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    Uri::from_str(&uri).ok()
}

/// The path of a `file://` URI, decoding percent escapes; `None` for
/// other schemes.
pub(crate) fn uri_to_path(uri: &Uri) -> Option<PathBuf> {
    let text = uri.as_str();
    let rest = text.strip_prefix("file://")?;
    let path = rest.get(rest.find('/')?..)?;
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
            if let Some(b) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    Some(PathBuf::from(String::from_utf8(out).ok()?))
}

/// The identifier-like word around byte `offset`: letters, digits, `_`,
/// and for class names `.` and `:` (a namespace prefix). Returns the
/// byte range.
pub(crate) fn word_at(text: &str, offset: usize) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b':';
    let offset = offset.min(bytes.len());
    let mut start = offset;
    while start > 0 && is_word(bytes[start - 1]) {
        start -= 1;
    }
    let mut end = offset;
    while end < bytes.len() && is_word(bytes[end]) {
        end += 1;
    }
    // A dot or colon at either end belongs to the syntax around the word.
    while start < end && matches!(bytes[start], b'.' | b':') {
        start += 1;
    }
    while end > start && matches!(bytes[end - 1], b'.' | b':') {
        end -= 1;
    }
    (start < end).then_some((start, end))
}

/// The plain identifier (no dots or colons) around `offset`.
pub(crate) fn ident_at(text: &str, offset: usize) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let offset = offset.min(bytes.len());
    let mut start = offset;
    while start > 0 && is_ident(bytes[start - 1]) {
        start -= 1;
    }
    let mut end = offset;
    while end < bytes.len() && is_ident(bytes[end]) {
        end += 1;
    }
    (start < end).then_some((start, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_utf16_units() {
        let text = "a: é😀x\nb";
        let index = LineIndex::new(text);
        let x = text.find('x').unwrap();
        assert_eq!(index.position(text, x), Position::new(0, 6));
        assert_eq!(index.byte_of(text, Position::new(0, 6)), x);
        assert_eq!(index.byte_of(text, Position::new(1, 0)), text.len() - 1);
        assert_eq!(index.byte_of(text, Position::new(9, 9)), text.len());
    }

    #[test]
    fn uris_round_trip_with_escapes() {
        let path = Path::new("/tmp/a b/é.yaml");
        let uri = path_to_uri(path).unwrap();
        assert_eq!(uri.as_str(), "file:///tmp/a%20b/%C3%A9.yaml");
        assert_eq!(uri_to_path(&uri).unwrap(), path);
    }

    #[test]
    fn words_keep_namespace_prefixes() {
        let text = "$.class(res:Instance).x";
        let at = text.find("Inst").unwrap();
        let (s, e) = word_at(text, at).unwrap();
        assert_eq!(&text[s..e], "res:Instance");
        let (s, e) = ident_at(text, at).unwrap();
        assert_eq!(&text[s..e], "Instance");
    }
}
