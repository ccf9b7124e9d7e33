//! The one diagnostic type.

use std::fmt;

use crate::codes::code_info;
use crate::position::Position;
use crate::render::Snippet;

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum Severity {
    /// Murano refuses it, or fails when it is used.
    Error,
    /// Suspicious, deprecated, or quietly ignored or changed by Murano.
    Warning,
}

impl Severity {
    /// `"error"` or `"warning"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One finding of any layer: the class model, the class registry, object
/// models, package checks.
///
/// `code` is a code of [`crate::CODES`]; [`Diagnostic::new`] takes the
/// severity from there. `file` names the text the positions are in
/// (relative to the package root for package checks); a finding about a
/// whole package, or about data that was not read from a named file, has
/// none. `start` and `end` are [`Position`]s in that text (`end` one past
/// the last character), `None` where the layer has no position.
/// `subject` says what the finding is about where a text position does
/// not: the path of an element of an object model
/// (`/Objects/applications/0/?/id`), the class a registry finding
/// concerns.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Diagnostic {
    /// The stable code (see [`crate::CODES`]).
    pub code: &'static str,
    /// How serious it is.
    pub severity: Severity,
    /// What is wrong, for people.
    pub message: String,
    /// The file the positions are in.
    pub file: Option<String>,
    /// Where it starts.
    pub start: Option<Position>,
    /// Where it ends (one past the last character).
    pub end: Option<Position>,
    /// What it is about, where a position does not say it.
    pub subject: Option<String>,
    /// The exception Murano's Python code raises for the same problem,
    /// where it raises one (`NoClassFound`, `ValueError`, ...).
    pub python_exception: Option<&'static str>,
}

impl Diagnostic {
    /// A diagnostic with the severity the code table gives `code` (an
    /// error for a code outside the table; a test of the workspace checks
    /// that every code emitted is in it), and no place yet.
    pub fn new(code: &'static str, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            code,
            severity: code_info(code).map_or(Severity::Error, |c| c.severity),
            message: message.into(),
            file: None,
            start: None,
            end: None,
            subject: None,
            python_exception: None,
        }
    }

    /// Sets [`Diagnostic::file`].
    pub fn with_file(mut self, file: impl Into<String>) -> Diagnostic {
        self.file = Some(file.into());
        self
    }

    /// Sets [`Diagnostic::start`].
    pub fn with_start(mut self, start: Position) -> Diagnostic {
        self.start = Some(start);
        self
    }

    /// Sets [`Diagnostic::start`] and [`Diagnostic::end`].
    pub fn with_span(mut self, start: Position, end: Position) -> Diagnostic {
        self.start = Some(start);
        self.end = Some(end);
        self
    }

    /// Sets [`Diagnostic::subject`].
    pub fn with_subject(mut self, subject: impl Into<String>) -> Diagnostic {
        self.subject = Some(subject.into());
        self
    }

    /// Sets [`Diagnostic::python_exception`].
    pub fn with_python_exception(mut self, exception: &'static str) -> Diagnostic {
        self.python_exception = Some(exception);
        self
    }

    /// Sets [`Diagnostic::severity`] (where a layer's rule differs from
    /// the code's default).
    pub fn with_severity(mut self, severity: Severity) -> Diagnostic {
        self.severity = severity;
        self
    }

    /// The first line of [`Diagnostic::render`]:
    /// `severity[code]: message`.
    pub fn header(&self) -> String {
        format!("{}[{}]: {}", self.severity, self.code, self.message)
    }

    /// The diagnostic as the command line tool shows it: the header, the
    /// file and position, and (given the text of `file`) the source line
    /// with carets under the span. See [`Snippet`].
    pub fn render(&self, source: Option<&str>) -> String {
        self.snippet(self.file.as_deref(), source).render()
    }

    /// A [`Snippet`] of the diagnostic with the file shown as `file` (for
    /// example with the package's path in front), to render with other
    /// options.
    pub fn snippet<'a>(&self, file: Option<&'a str>, source: Option<&'a str>) -> Snippet<'a> {
        let mut snippet = Snippet::new(self.header());
        if let Some(file) = file {
            snippet = snippet.file(file);
        }
        if let Some(source) = source {
            snippet = snippet.source(source);
        }
        snippet.span(self.start, self.end)
    }
}

impl fmt::Display for Diagnostic {
    /// One line: `file:line:column (subject): severity[code]: message`,
    /// each part of the place only where there is one.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut placed = false;
        if let Some(file) = &self.file {
            f.write_str(file)?;
            placed = true;
        }
        if let Some(start) = self.start {
            if placed {
                f.write_str(":")?;
            }
            write!(f, "{start}")?;
            placed = true;
        }
        if let Some(subject) = &self.subject {
            if placed {
                write!(f, " ({subject})")?;
            } else {
                f.write_str(subject)?;
            }
            placed = true;
        }
        if placed {
            f.write_str(": ")?;
        }
        write!(f, "{}[{}]: {}", self.severity, self.code, self.message)
    }
}

impl std::error::Error for Diagnostic {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn severity_comes_from_the_table() {
        assert_eq!(Diagnostic::new("W010", "x").severity, Severity::Warning);
        assert_eq!(Diagnostic::new("E047", "x").severity, Severity::Error);
        assert_eq!(Diagnostic::new("OM101", "x").severity, Severity::Warning);
    }

    #[test]
    fn display_names_each_part_of_the_place() {
        let d = Diagnostic::new("E047", "no Contract");
        assert_eq!(d.to_string(), "error[E047]: no Contract");
        let d = d.with_file("Classes/App.yaml");
        assert_eq!(d.to_string(), "Classes/App.yaml: error[E047]: no Contract");
        let d = d.with_start(Position::new(5, 3, 40));
        assert_eq!(
            d.to_string(),
            "Classes/App.yaml:5:3: error[E047]: no Contract"
        );
        let d = Diagnostic::new("OM101", "duplicate id").with_subject("/Objects/?/id");
        assert_eq!(d.to_string(), "/Objects/?/id: warning[OM101]: duplicate id");
        let d = Diagnostic::new("R100", "no parent")
            .with_subject("com.example.App")
            .with_start(Position::new(2, 10, 12));
        assert_eq!(
            d.to_string(),
            "2:10 (com.example.App): error[R100]: no parent"
        );
    }

    #[test]
    fn sorting_puts_findings_without_position_first() {
        let a = Diagnostic::new("E047", "x").with_file("a");
        let b = a.clone().with_start(Position::new(1, 1, 0));
        assert!(a.start < b.start);
    }
}
