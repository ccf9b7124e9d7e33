//! The one vocabulary of text positions.

use std::fmt;

/// A place in a text.
///
/// `line` and `column` are **1-based**, as people, editors and SARIF count
/// them; `column` counts characters (Unicode scalar values), not bytes.
/// `offset` is the **0-based** index of the character in the whole text.
/// `\r\n`, `\n` and a lone `\r` each end a line.
///
/// A diagnostic without a place has no `Position` at all (its `start` is
/// `None`); there is no "line 0".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Position {
    /// Line, from 1.
    pub line: u32,
    /// Column in characters, from 1.
    pub column: u32,
    /// Character index in the text, from 0.
    pub offset: u32,
}

impl Position {
    /// A position from its 1-based line and column and 0-based character
    /// offset.
    pub const fn new(line: u32, column: u32, offset: u32) -> Position {
        Position {
            line,
            column,
            offset,
        }
    }

    /// A position from 0-based line, column and character index (the
    /// convention of PyYAML's marks).
    pub fn from_zero_based(line: u32, column: u32, offset: u32) -> Position {
        Position {
            line: line.saturating_add(1),
            column: column.saturating_add(1),
            offset,
        }
    }

    /// The position of byte `offset` of `source` (clamped to its length
    /// and to a character boundary).
    ///
    /// ```
    /// use murano_diagnostics::Position;
    ///
    /// let src = "é\r\nab\rc";
    /// assert_eq!(Position::at_byte(src, 0), Position::new(1, 1, 0));
    /// assert_eq!(Position::at_byte(src, 5), Position::new(2, 2, 4));
    /// assert_eq!(Position::at_byte(src, 7), Position::new(3, 1, 6));
    /// assert_eq!(Position::at_byte(src, 99), Position::new(3, 2, 7));
    /// ```
    pub fn at_byte(source: &str, offset: usize) -> Position {
        let mut end = offset.min(source.len());
        while !source.is_char_boundary(end) {
            end -= 1;
        }
        let before = &source[..end];
        let bytes = before.as_bytes();
        let mut line = 1usize;
        let mut line_start = 0;
        for (i, &b) in bytes.iter().enumerate() {
            let breaks = b == b'\n' || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n'));
            if breaks {
                line += 1;
                line_start = i + 1;
            }
        }
        let column = before[line_start..].chars().count() + 1;
        let chars = before.chars().count();
        Position {
            line: clamp(line),
            column: clamp(column),
            offset: clamp(chars),
        }
    }
}

fn clamp(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl fmt::Display for Position {
    /// `line:column`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_based_marks_convert() {
        assert_eq!(Position::from_zero_based(0, 0, 0), Position::new(1, 1, 0));
        assert_eq!(Position::from_zero_based(4, 2, 40), Position::new(5, 3, 40));
        assert_eq!(
            Position::from_zero_based(u32::MAX, 0, 0).line,
            u32::MAX,
            "saturates"
        );
    }

    #[test]
    fn display_is_line_colon_column() {
        assert_eq!(Position::new(2, 9, 12).to_string(), "2:9");
    }

    #[test]
    fn byte_offsets_inside_a_character_round_down() {
        assert_eq!(Position::at_byte("é", 1), Position::new(1, 1, 0));
    }
}
