//! Load errors, classified the way PyYAML and Murano raise them.

use std::fmt;

/// A position in the decoded text: 0-based like PyYAML's marks; add one
/// for what people read. Columns count characters, and a byte order mark
/// does not advance them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Mark {
    /// Index of the character in the decoded text.
    pub index: u32,
    /// Line, from 0.
    pub line: u32,
    /// Column in characters, from 0.
    pub column: u32,
}

impl fmt::Display for Mark {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}", self.line + 1, self.column + 1)
    }
}

/// The stage (and so the Python exception class) an error comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum YamlErrorClass {
    /// Undecodable bytes or a non-printable character (`ReaderError`).
    Reader,
    /// Malformed tokens (`ScannerError`).
    Scanner,
    /// Tokens in a wrong order (`ParserError`).
    Parser,
    /// Anchors, aliases, or several documents where one is expected
    /// (`ComposerError`).
    Composer,
    /// A tag without constructor, a bad value for a tag, an unhashable key
    /// (`ConstructorError`).
    Constructor,
    /// A bad number for an implicit int (`ValueError` escaping PyYAML).
    Value,
    /// A `!yaql` scalar that does not parse: yaql's exception
    /// (`YaqlGrammarException`, `YaqlLexicalException`), or Python's
    /// `UnicodeDecodeError` from a malformed escape in any YAQL candidate.
    Yaql(murano_yaql::ErrorClass),
    /// A limit of [`crate::LoadOptions`] was exceeded (no Python
    /// counterpart; hostile input).
    Limit,
}

impl YamlErrorClass {
    /// The Python exception class name.
    pub fn python_name(self) -> &'static str {
        match self {
            YamlErrorClass::Reader => "ReaderError",
            YamlErrorClass::Scanner => "ScannerError",
            YamlErrorClass::Parser => "ParserError",
            YamlErrorClass::Composer => "ComposerError",
            YamlErrorClass::Constructor => "ConstructorError",
            YamlErrorClass::Value => "ValueError",
            YamlErrorClass::Yaql(class) => class.python_name(),
            YamlErrorClass::Limit => "LimitExceeded",
        }
    }
}

/// Why a YAML file did not load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError(Box<Inner>);

#[derive(Debug, Clone, PartialEq, Eq)]
struct Inner {
    class: YamlErrorClass,
    context: Option<(String, Option<Mark>)>,
    problem: String,
    mark: Option<Mark>,
}

impl YamlError {
    pub(crate) fn new(
        class: YamlErrorClass,
        problem: impl Into<String>,
        mark: Option<Mark>,
    ) -> Self {
        YamlError(Box::new(Inner {
            class,
            context: None,
            problem: problem.into(),
            mark,
        }))
    }

    pub(crate) fn with_context(mut self, context: impl Into<String>, mark: Option<Mark>) -> Self {
        self.0.context = Some((context.into(), mark));
        self
    }

    /// The stage, as a Python exception class.
    pub fn class(&self) -> YamlErrorClass {
        self.0.class
    }

    /// Where the problem is (PyYAML's `problem_mark`), when known.
    pub fn mark(&self) -> Option<Mark> {
        self.0.mark
    }

    /// What is wrong.
    pub fn problem(&self) -> &str {
        &self.0.problem
    }

    /// What was being read, and where it started, when that helps.
    pub fn context(&self) -> Option<(&str, Option<Mark>)> {
        self.0.context.as_ref().map(|(c, m)| (c.as_str(), *m))
    }
}

impl fmt::Display for YamlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some((context, mark)) = &self.0.context {
            write!(f, "{context}")?;
            if let Some(mark) = mark {
                write!(f, " (at {mark})")?;
            }
            f.write_str(": ")?;
        }
        f.write_str(&self.0.problem)?;
        if let Some(mark) = self.0.mark {
            write!(f, " at {mark}")?;
        }
        Ok(())
    }
}

impl std::error::Error for YamlError {}
