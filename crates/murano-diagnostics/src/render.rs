//! The one snippet renderer: message, file:line:column, source line,
//! carets.

use std::fmt::Write as _;

use crate::position::Position;

/// The widest source line a [`Snippet`] shows whole, in characters; a
/// longer line is shown as a window of this width around the column.
pub const DEFAULT_MAX_WIDTH: usize = 120;

/// What to render: a header line, where, and the text it is in.
///
/// ```text
/// error[E047]: property "port" has no Contract
///   --> Classes/App.yaml:3:3
///   |
/// 3 |   port:
///   |   ^
/// ```
///
/// The location line shows `file:line:column`, `line:column` without a
/// file, and `file` alone without a position; there is none when there is
/// neither. The source line and the carets follow when the text is given
/// and holds the line. The carets run from the start to the end (at
/// least one; to the end of the line when the end is on a later line).
/// Tabs before the column are kept, so the carets line up under them. A
/// line longer than [`Snippet::max_width`] characters is cut to a window
/// around the column, with `…` where text is left out.
///
/// ```
/// use murano_diagnostics::{Position, Snippet};
///
/// let text = Snippet::new("syntax error")
///     .source("$.a +")
///     .span(Some(Position::new(1, 5, 4)), None)
///     .render();
/// assert_eq!(text, "syntax error\n  --> 1:5\n  |\n1 | $.a +\n  |     ^");
/// ```
#[derive(Debug, Clone)]
pub struct Snippet<'a> {
    header: String,
    file: Option<&'a str>,
    source: Option<&'a str>,
    start: Option<Position>,
    end: Option<Position>,
    max_width: usize,
}

impl<'a> Snippet<'a> {
    /// A snippet whose first line is `header`.
    pub fn new(header: impl Into<String>) -> Snippet<'a> {
        Snippet {
            header: header.into(),
            file: None,
            source: None,
            start: None,
            end: None,
            max_width: DEFAULT_MAX_WIDTH,
        }
    }

    /// The file name to show.
    pub fn file(mut self, file: &'a str) -> Snippet<'a> {
        self.file = Some(file);
        self
    }

    /// The whole text the positions are in.
    pub fn source(mut self, source: &'a str) -> Snippet<'a> {
        self.source = Some(source);
        self
    }

    /// Where: the start (no location when `None`) and the end.
    pub fn span(mut self, start: Option<Position>, end: Option<Position>) -> Snippet<'a> {
        self.start = start;
        self.end = end;
        self
    }

    /// The widest line shown whole, in characters (at least 8; default
    /// [`DEFAULT_MAX_WIDTH`]).
    pub fn max_width(mut self, width: usize) -> Snippet<'a> {
        self.max_width = width.max(8);
        self
    }

    /// The text, without a final newline.
    pub fn render(&self) -> String {
        let mut out = self.header.clone();
        match (self.file, self.start) {
            (Some(file), Some(at)) => {
                let _ = write!(out, "\n  --> {file}:{at}");
            }
            (None, Some(at)) => {
                let _ = write!(out, "\n  --> {at}");
            }
            (Some(file), None) => {
                let _ = write!(out, "\n  --> {file}");
            }
            (None, None) => {}
        }
        let (Some(source), Some(at)) = (self.source, self.start) else {
            return out;
        };
        let Some(line) = (at.line as usize)
            .checked_sub(1)
            .and_then(|i| nth_line(source, i))
        else {
            return out;
        };
        let chars: Vec<char> = line.chars().collect();
        let column = (at.column as usize).saturating_sub(1).min(chars.len());
        let carets = match self.end {
            Some(end) if end.line == at.line => (end.column as usize).saturating_sub(1),
            Some(end) if end.line > at.line => chars.len(),
            _ => column,
        }
        .saturating_sub(column)
        .max(1);

        // The window of the line to show: all of it, or `max_width`
        // characters around the column.
        let (from, to) = if chars.len() <= self.max_width {
            (0, chars.len())
        } else {
            let from = column
                .saturating_sub(self.max_width / 2)
                .min(chars.len() - self.max_width);
            (from, from + self.max_width)
        };
        let mut shown = String::new();
        let mut pad = String::new();
        if from > 0 {
            shown.push('…');
            pad.push(' ');
        }
        shown.extend(&chars[from..to]);
        if to < chars.len() {
            shown.push('…');
        }
        pad.extend(
            chars[from..column.max(from)]
                .iter()
                .map(|&c| if c == '\t' { '\t' } else { ' ' }),
        );
        let carets = carets.min(to.saturating_sub(column).max(1));

        let number = at.line.to_string();
        let blank = " ".repeat(number.len());
        let _ = write!(
            out,
            "\n{blank} |\n{number} | {shown}\n{blank} | {pad}{}",
            "^".repeat(carets)
        );
        out
    }
}

/// Line `index` (0-based) of `source`, where `\r\n`, `\n` and a lone `\r`
/// end lines; `None` past the last line. As with [`str::lines`], a final
/// line break ends the last line rather than starting an empty one.
pub fn nth_line(source: &str, index: usize) -> Option<&str> {
    let mut rest = source;
    for _ in 0..index {
        let i = rest.find(['\n', '\r'])?;
        let skip = if rest[i..].starts_with("\r\n") { 2 } else { 1 };
        rest = &rest[i + skip..];
        if rest.is_empty() {
            return None;
        }
    }
    let end = rest.find(['\n', '\r']).unwrap_or(rest.len());
    Some(&rest[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(line: u32, column: u32) -> Option<Position> {
        Some(Position::new(line, column, 0))
    }

    #[test]
    fn location_line_has_what_there_is() {
        assert_eq!(Snippet::new("m").render(), "m");
        assert_eq!(Snippet::new("m").file("f").render(), "m\n  --> f");
        assert_eq!(
            Snippet::new("m").span(at(2, 3), None).render(),
            "m\n  --> 2:3"
        );
        assert_eq!(
            Snippet::new("m").file("f").span(at(2, 3), None).render(),
            "m\n  --> f:2:3"
        );
    }

    #[test]
    fn no_source_line_past_the_end() {
        let text = Snippet::new("m")
            .source("a\nb")
            .span(at(3, 1), None)
            .render();
        assert_eq!(text, "m\n  --> 3:1");
        let text = Snippet::new("m").source("a").span(at(0, 1), None).render();
        assert_eq!(text, "m\n  --> 0:1");
    }

    #[test]
    fn carets_span_the_range_on_one_line() {
        let text = Snippet::new("m")
            .source("x = foo(1)")
            .span(at(1, 5), at(1, 8))
            .render();
        assert!(text.ends_with("1 | x = foo(1)\n  |     ^^^"), "{text}");
        // An end on a later line: to the end of the line.
        let text = Snippet::new("m")
            .source("x = foo(\n1)")
            .span(at(1, 5), at(2, 2))
            .render();
        assert!(text.ends_with("  |     ^^^^"), "{text}");
        // An end before the start: one caret.
        let text = Snippet::new("m")
            .source("abc")
            .span(at(1, 3), at(1, 1))
            .render();
        assert!(text.ends_with("  |   ^"), "{text}");
    }

    #[test]
    fn tabs_line_up_and_wide_line_numbers_widen_the_gutter() {
        let source = "\n\n\n\n\n\n\n\n\n\tab";
        let text = Snippet::new("m")
            .source(source)
            .span(at(10, 3), None)
            .render();
        assert_eq!(text, "m\n  --> 10:3\n   |\n10 | \tab\n   | \t ^");
    }

    #[test]
    fn column_past_the_end_of_the_line_points_after_it() {
        let text = Snippet::new("m").source("ab").span(at(1, 9), None).render();
        assert!(text.ends_with("1 | ab\n  |   ^"), "{text}");
    }

    #[test]
    fn long_lines_show_a_window_around_the_column() {
        let line: String = (0..1000)
            .map(|i| char::from(b'a' + (i % 26) as u8))
            .collect();
        let text = Snippet::new("m")
            .source(&line)
            .span(at(1, 500), at(1, 505))
            .render();
        let shown = text.lines().nth(3).unwrap();
        let carets = text.lines().nth(4).unwrap();
        assert!(
            shown.starts_with("1 | …") && shown.ends_with('…'),
            "{shown}"
        );
        assert_eq!(shown.chars().count(), "1 | ".len() + DEFAULT_MAX_WIDTH + 2);
        // The caret is under character 500 of the line.
        let caret_at = carets.find('^').unwrap();
        let under = shown.chars().nth(caret_at).unwrap();
        assert_eq!(under, line.chars().nth(499).unwrap());
        assert_eq!(carets.matches('^').count(), 5);

        // At the start: no leading ellipsis; at the end: no trailing one.
        let text = Snippet::new("m")
            .source(&line)
            .span(at(1, 1), None)
            .render();
        let shown = text.lines().nth(3).unwrap();
        assert!(
            shown.starts_with("1 | abc") && shown.ends_with('…'),
            "{shown}"
        );
        let text = Snippet::new("m")
            .source(&line)
            .span(at(1, 1000), None)
            .render();
        let shown = text.lines().nth(3).unwrap();
        assert!(
            shown.starts_with("1 | …") && !shown.ends_with('…'),
            "{shown}"
        );
        assert!(text.ends_with('^'));

        // Carets stop at the window's edge.
        let text = Snippet::new("m")
            .source(&line)
            .span(at(1, 10), at(1, 900))
            .render();
        let carets = text.lines().nth(4).unwrap();
        assert_eq!(carets.matches('^').count(), DEFAULT_MAX_WIDTH - 9);
    }

    #[test]
    fn lines_end_at_any_line_break() {
        assert_eq!(nth_line("a\r\nb\rc\nd", 0), Some("a"));
        assert_eq!(nth_line("a\r\nb\rc\nd", 1), Some("b"));
        assert_eq!(nth_line("a\r\nb\rc\nd", 2), Some("c"));
        assert_eq!(nth_line("a\r\nb\rc\nd", 3), Some("d"));
        assert_eq!(nth_line("a\r\nb\rc\nd", 4), None);
        assert_eq!(nth_line("a\n", 1), None);
        assert_eq!(nth_line("a\n\nb", 1), Some(""));
        assert_eq!(nth_line("", 0), Some(""));
    }
}
