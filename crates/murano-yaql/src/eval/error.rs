//! Evaluation errors.

use std::fmt;

use crate::span::Span;

/// What went wrong. Each kind maps onto the exception class Python yaql
/// (or Python itself) raises in the same situation: see
/// [`ErrorKind::python_name`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// No function of that name is callable as a function.
    NoFunctionRegistered,
    /// No method of that name is callable as a method.
    NoMethodRegistered,
    /// Functions of that name exist but none accepts the arguments.
    NoMatchingFunction,
    /// Methods of that name exist but none accepts the arguments.
    NoMatchingMethod,
    /// Several overloads match equally well (function syntax).
    AmbiguousFunction,
    /// Several overloads match equally well (method syntax).
    AmbiguousMethod,
    /// `a => b` whose left side is not a keyword, given as a keyword argument.
    MappingTranslation,
    /// A collection longer than `yaql.limitIterators`.
    CollectionTooLarge,
    /// The memory quota was exceeded.
    MemoryQuotaExceeded,
    /// Python `KeyError`.
    KeyError,
    /// Python `IndexError`.
    IndexError,
    /// Python `TypeError`.
    TypeError,
    /// Python `ValueError`.
    ValueError,
    /// Python `StopIteration` (first() of an empty collection…).
    StopIteration,
    /// Python `ZeroDivisionError`.
    ZeroDivision,
    /// Python `AssertionError` (`assert()`).
    AssertionError,
    /// Python `AttributeError`.
    AttributeError,
    /// Python `re.error`: a bad regular expression.
    RegexError,
    /// An integer left the 64-bit range (Python would go on with big ints).
    Overflow,
    /// The step budget (fuel) ran out.
    OutOfFuel,
    /// Evaluation nested deeper than the recursion limit.
    RecursionLimit,
    /// An error raised by a host function.
    Host,
    /// Internal: an overload rejected its arguments (never escapes a call).
    #[doc(hidden)]
    Mismatch,
}

impl ErrorKind {
    /// The Python class name yaql would raise.
    pub fn python_name(self) -> &'static str {
        match self {
            ErrorKind::NoFunctionRegistered => "NoFunctionRegisteredException",
            ErrorKind::NoMethodRegistered => "NoMethodRegisteredException",
            ErrorKind::NoMatchingFunction => "NoMatchingFunctionException",
            ErrorKind::NoMatchingMethod => "NoMatchingMethodException",
            ErrorKind::AmbiguousFunction => "AmbiguousFunctionException",
            ErrorKind::AmbiguousMethod => "AmbiguousMethodException",
            ErrorKind::MappingTranslation => "MappingTranslationException",
            ErrorKind::CollectionTooLarge => "CollectionTooLargeException",
            ErrorKind::MemoryQuotaExceeded => "MemoryQuotaExceededException",
            ErrorKind::KeyError => "KeyError",
            ErrorKind::IndexError => "IndexError",
            ErrorKind::TypeError => "TypeError",
            ErrorKind::ValueError => "ValueError",
            ErrorKind::StopIteration => "StopIteration",
            ErrorKind::ZeroDivision => "ZeroDivisionError",
            ErrorKind::AssertionError => "AssertionError",
            ErrorKind::AttributeError => "AttributeError",
            ErrorKind::RegexError => "error",
            ErrorKind::Overflow => "OverflowError",
            ErrorKind::OutOfFuel => "OutOfFuel",
            ErrorKind::RecursionLimit => "RecursionError",
            ErrorKind::Host => "Exception",
            ErrorKind::Mismatch => "ArgumentException",
        }
    }

    /// The Python base classes of [`ErrorKind::python_name`], nearest first.
    pub fn python_bases(self) -> &'static [&'static str] {
        match self {
            ErrorKind::NoFunctionRegistered
            | ErrorKind::NoMethodRegistered
            | ErrorKind::NoMatchingFunction
            | ErrorKind::NoMatchingMethod
            | ErrorKind::AmbiguousFunction
            | ErrorKind::AmbiguousMethod => &[
                "FunctionResolutionError",
                "ResolutionError",
                "YaqlException",
                "Exception",
            ],
            ErrorKind::MappingTranslation => &["YaqlException", "Exception"],
            ErrorKind::CollectionTooLarge | ErrorKind::MemoryQuotaExceeded => {
                &["YaqlException", "Exception"]
            }
            ErrorKind::KeyError | ErrorKind::IndexError => &["LookupError", "Exception"],
            ErrorKind::ZeroDivision | ErrorKind::Overflow => &["ArithmeticError", "Exception"],
            _ => &["Exception"],
        }
    }
}

/// An evaluation error: a kind, a message and the span of the node that
/// failed (when known).
#[derive(Debug, Clone, PartialEq)]
pub struct Error {
    kind: ErrorKind,
    message: String,
    span: Option<Span>,
}

impl Error {
    /// A new error.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error {
            kind,
            message: message.into(),
            span: None,
        }
    }

    /// The overload-rejection signal functions return when their arguments
    /// do not fit; the resolver then tries the next overload.
    pub fn mismatch() -> Error {
        Error::new(ErrorKind::Mismatch, "")
    }

    /// The kind.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The message (Python-like, informative only).
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The span of the failing node.
    pub fn span(&self) -> Option<Span> {
        self.span
    }

    /// Attaches a span unless one is already there.
    pub fn at(mut self, span: Span) -> Error {
        if self.span.is_none() {
            self.span = Some(span);
        }
        self
    }

    /// The Python class name (see [`ErrorKind::python_name`]).
    pub fn python_name(&self) -> &'static str {
        self.kind.python_name()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind.python_name(), self.message)?;
        if let Some(span) = self.span {
            write!(f, " (bytes {}..{} of the expression)", span.start, span.end)?;
        }
        Ok(())
    }
}

impl Error {
    /// The message, the line and column of the failing part of `source`
    /// (the expression that was compiled), and that source line with
    /// carets under the part.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use murano_yaql::eval::{Context, Engine, Library};
    ///
    /// let source = "[1, 2].select(\n  $ + 'a')";
    /// let ctx = Context::new(Arc::new(Library::standard(true)));
    /// let err = Engine::standard().compile(source)?.evaluate(&ctx).unwrap_err();
    /// let text = err.render(source);
    /// assert!(text.contains(" --> 2:3"), "{text}");
    /// assert!(text.ends_with("  |   ^^^^^^^"), "{text}");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn render(&self, source: &str) -> String {
        let head = format!("{}: {}", self.kind.python_name(), self.message);
        let Some(span) = self.span else {
            return head;
        };
        let start = murano_diagnostics::Position::at_byte(source, span.start as usize);
        let end = murano_diagnostics::Position::at_byte(source, span.end as usize);
        murano_diagnostics::Snippet::new(head)
            .source(source)
            .span(Some(start), Some(end))
            .render()
    }
}

impl std::error::Error for Error {}
