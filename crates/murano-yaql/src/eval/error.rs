//! Evaluation errors.

use std::fmt;
use std::sync::Arc;

use crate::span::Span;

/// The cause an [`Error`] may carry: any error a host function met.
pub type Cause = Arc<dyn std::error::Error + Send + Sync + 'static>;

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
    /// dateutil's `ParserError` (a `ValueError`): `datetime(string)` could
    /// not read the string as a date.
    ParserError,
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
            ErrorKind::ParserError => "ParserError",
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
            ErrorKind::ParserError => &["ValueError", "Exception"],
            ErrorKind::ZeroDivision | ErrorKind::Overflow => &["ArithmeticError", "Exception"],
            _ => &["Exception"],
        }
    }
}

/// An evaluation error: a kind, a message, the span of the node that
/// failed (when known) and, optionally, the error that caused it.
///
/// A host function that fails because of an error of its own attaches it
/// with [`Error::host`] or [`Error::with_source`]; the caller gets it back,
/// typed, with [`Error::downcast_ref`], and through
/// [`std::error::Error::source`]. The cause survives the span being added
/// and the error being cloned (it is shared, not copied).
///
/// ```
/// use std::error::Error as _;
/// use std::sync::Arc;
/// use murano_yaql::eval::{Context, Engine, Error, ErrorKind, FunctionDef, Library};
///
/// #[derive(Debug, PartialEq)]
/// struct Refused(&'static str);
/// impl std::fmt::Display for Refused {
///     fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
///         write!(f, "refused: {}", self.0)
///     }
/// }
/// impl std::error::Error for Refused {}
///
/// let mut lib = Library::standard(false);
/// lib.push_layer();
/// lib.register(FunctionDef::native("deploy", "", |_| Err(Error::host(Refused("quota")))));
/// let ctx = Context::new(Arc::new(lib));
/// let err = Engine::standard().compile("deploy()")?.evaluate(&ctx).unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::Host);
/// assert_eq!(err.message(), "refused: quota");
/// assert_eq!(err.downcast_ref::<Refused>(), Some(&Refused("quota")));
/// assert_eq!(err.source().unwrap().to_string(), "refused: quota");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Error {
    kind: ErrorKind,
    message: String,
    span: Option<Span>,
    /// Boxed so that the cause costs one word, not a fat pointer's two:
    /// every `Result` of the interpreter carries an `Error`.
    cause: Option<Box<Cause>>,
}

/// Errors are equal when their kind, message and span are, and they carry
/// the same cause (the same shared allocation) or none.
impl PartialEq for Error {
    fn eq(&self, other: &Error) -> bool {
        self.kind == other.kind
            && self.message == other.message
            && self.span == other.span
            && match (self.cause(), other.cause()) {
                (None, None) => true,
                (Some(a), Some(b)) => Arc::ptr_eq(a, b),
                _ => false,
            }
    }
}

impl Error {
    /// A new error.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error {
            kind,
            message: message.into(),
            span: None,
            cause: None,
        }
    }

    /// An error raised by a host function because of `cause`: kind
    /// [`ErrorKind::Host`], the cause's `Display` text as message, and the
    /// cause attached (see [`Error::with_source`]).
    pub fn host(cause: impl std::error::Error + Send + Sync + 'static) -> Error {
        Error::new(ErrorKind::Host, cause.to_string()).with_source(cause)
    }

    /// The same error with `cause` attached as its source (replacing any
    /// cause it had).
    pub fn with_source(self, cause: impl std::error::Error + Send + Sync + 'static) -> Error {
        self.with_shared_source(Arc::new(cause))
    }

    /// The same error with an already shared cause attached.
    pub fn with_shared_source(mut self, cause: Cause) -> Error {
        self.cause = Some(Box::new(cause));
        self
    }

    /// The attached cause, when there is one.
    pub fn cause(&self) -> Option<&Cause> {
        self.cause.as_deref()
    }

    /// The attached cause as a `T`, when there is one of that type.
    pub fn downcast_ref<T: std::error::Error + 'static>(&self) -> Option<&T> {
        self.cause()?.downcast_ref::<T>()
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

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self.cause() {
            Some(cause) => Some(&**cause),
            None => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::error::Error as _;

    use super::*;

    #[derive(Debug)]
    struct Inner;
    impl fmt::Display for Inner {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("inner")
        }
    }
    impl std::error::Error for Inner {}

    #[derive(Debug)]
    struct Outer(Inner);
    impl fmt::Display for Outer {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("outer")
        }
    }
    impl std::error::Error for Outer {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn the_cause_chain_is_visible_through_source() {
        let e = Error::host(Outer(Inner)).at(Span::new(3, 5));
        assert_eq!(e.kind(), ErrorKind::Host);
        assert_eq!(e.message(), "outer");
        assert_eq!(
            e.to_string(),
            "Exception: outer (bytes 3..5 of the expression)"
        );
        let mut chain = Vec::new();
        let mut next = e.source();
        while let Some(c) = next {
            chain.push(c.to_string());
            next = c.source();
        }
        assert_eq!(chain, ["outer", "inner"]);
        assert!(e.downcast_ref::<Outer>().is_some());
        assert!(e.downcast_ref::<Inner>().is_none());
    }

    #[test]
    fn a_cause_costs_one_word() {
        assert!(
            std::mem::size_of::<Error>() <= 48,
            "{}",
            std::mem::size_of::<Error>()
        );
    }

    #[test]
    fn errors_without_a_cause_have_no_source() {
        let e = Error::new(ErrorKind::KeyError, "'x'");
        assert!(e.source().is_none() && e.cause().is_none());
        assert!(e.downcast_ref::<Inner>().is_none());
    }

    #[test]
    fn clones_share_the_cause_and_compare_equal() {
        let e = Error::new(ErrorKind::ValueError, "v").with_source(Inner);
        let c = e.clone();
        assert_eq!(e, c);
        assert!(Arc::ptr_eq(e.cause().unwrap(), c.cause().unwrap()));
        // Same words, different cause: not the same error.
        assert_ne!(e, Error::new(ErrorKind::ValueError, "v").with_source(Inner));
        assert_ne!(e, Error::new(ErrorKind::ValueError, "v"));
    }
}
