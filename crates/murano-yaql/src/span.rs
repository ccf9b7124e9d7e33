//! Byte ranges into the parsed text, and their line and column.

use std::fmt;

/// A byte range `start..end` into the source text of an expression.
///
/// Offsets are bytes so that `&source[span.range()]` works; use
/// [`Span::line_col`] or [`Span::char_offset`] for what people and yaql's
/// messages count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Span {
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

impl Span {
    /// A span from `start` to `end` (bytes).
    pub fn new(start: usize, end: usize) -> Span {
        Span {
            start: clamp(start),
            end: clamp(end),
        }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    /// The range, for slicing the source.
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }

    /// 1-based line and column of the start, counting columns in characters
    /// (code points). `\r\n`, `\n` and a lone `\r` each end a line.
    ///
    /// ```
    /// let src = "$.a\n  .é(1 +)";
    /// let err = murano_yaql::Grammar::standard().parse(src).unwrap_err();
    /// let at = err.span().line_col(src);
    /// assert_eq!((at.line, at.column), (2, 9)); // the `)`, counting `é` once
    /// ```
    pub fn line_col(self, source: &str) -> LineCol {
        line_col(source, self.start as usize)
    }

    /// The start as a 0-based character (code point) index, as yaql reports
    /// positions.
    pub fn char_offset(self, source: &str) -> usize {
        char_offset(source, self.start as usize)
    }
}

fn clamp(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// A 1-based line and column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LineCol {
    /// Line, from 1.
    pub line: usize,
    /// Column in characters, from 1.
    pub column: usize,
}

impl fmt::Display for LineCol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// Line and column of byte `offset` in `source` (clamped to its length and
/// to a character boundary).
pub(crate) fn line_col(source: &str, offset: usize) -> LineCol {
    let at = murano_diagnostics::Position::at_byte(source, offset);
    LineCol {
        line: at.line as usize,
        column: at.column as usize,
    }
}

pub(crate) fn char_offset(source: &str, offset: usize) -> usize {
    source[..floor_boundary(source, offset)].chars().count()
}

fn floor_boundary(source: &str, offset: usize) -> usize {
    let mut offset = offset.min(source.len());
    while !source.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_characters() {
        let src = "é\r\nab\rc";
        assert_eq!(line_col(src, 0), LineCol { line: 1, column: 1 });
        assert_eq!(line_col(src, 2), LineCol { line: 1, column: 2 });
        assert_eq!(line_col(src, 5), LineCol { line: 2, column: 2 });
        assert_eq!(line_col(src, 7), LineCol { line: 3, column: 1 });
        assert_eq!(line_col(src, 99), LineCol { line: 3, column: 2 });
        assert_eq!(char_offset(src, 1), 0);
    }
}
