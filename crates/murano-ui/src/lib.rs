//! Murano Dynamic UI definitions for Rust: the typed definition
//! ([`definition`]), field cleaning and validation ([`clean`]), the wizard
//! ([`wizard`]) and evaluation into the object model ([`evaluate`]), with
//! everything cloud-related behind [`host::Host`] and randomness behind
//! [`host::Entropy`]. It follows the dashboard's real behaviour.
//!
//! ```
//! use murano_ui::expression::is_expression;
//!
//! assert!(is_expression("$.appConfiguration.name")?);
//! assert!(!is_expression("std:Application")?); // ':' counts as a word here
//! assert!(!is_expression("$ is string")?); // no `is` operator in this grammar
//! # Ok::<(), murano_yaql::ParseError>(())
//! ```

#![forbid(unsafe_code)]

pub mod clean;
pub mod definition;
pub mod evaluate;
pub mod expression;
pub mod host;
pub mod pyre;
pub mod wizard;

pub use murano_diagnostics::Position;
use murano_yaml::{load_ui_file, LoadOptions, Value as Y};

/// The Python exception class an [`Error`] stands for.
///
/// ```
/// use murano_ui::ErrorClass;
/// use murano_yaql::eval::ErrorKind;
///
/// assert_eq!(ErrorClass::YamlError.python_name(), "YAMLError");
/// assert_eq!(ErrorClass::Yaql(ErrorKind::NoMethodRegistered).to_string(), "NoMethodRegisteredException");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorClass {
    /// `builtins.AttributeError`.
    AttributeError,
    /// `builtins.KeyError`.
    KeyError,
    /// `builtins.TypeError`.
    TypeError,
    /// `builtins.ValueError`.
    ValueError,
    /// `yaml.YAMLError`: the definition is not YAML the loader accepts.
    YamlError,
    /// `re.error`: a regular expression Python's `re` rejects.
    RegexError,
    /// An exception YAQL raised while evaluating, by its kind.
    Yaql(murano_yaql::eval::ErrorKind),
}

impl ErrorClass {
    /// The Python class name (`KeyError`, `re.error`, ...), as the error's
    /// text shows it.
    pub fn python_name(self) -> &'static str {
        match self {
            ErrorClass::AttributeError => "AttributeError",
            ErrorClass::KeyError => "KeyError",
            ErrorClass::TypeError => "TypeError",
            ErrorClass::ValueError => "ValueError",
            ErrorClass::YamlError => "YAMLError",
            ErrorClass::RegexError => "re.error",
            ErrorClass::Yaql(kind) => kind.python_name(),
        }
    }
}

impl std::fmt::Display for ErrorClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.python_name())
    }
}

/// Errors, by the stage at which the dashboard fails, each with the Python
/// exception class it stands for when there is one ([`Error::class`]) and,
/// for definitions, where in the file it was found ([`Error::position`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The definition was rejected while loading.
    #[error("definition: {exception}: {message}")]
    Definition {
        /// Python exception class.
        exception: ErrorClass,
        /// Message.
        message: String,
        /// Where in the definition's text (line and column from 1), when
        /// the failure belongs to one node.
        position: Option<Position>,
        /// The name of the field the failure is about, when it is about
        /// one (not part of the message, which is the dashboard's).
        field: Option<String>,
    },
    /// The dashboard raised while cleaning a step.
    #[error("validation: {message}")]
    Validation {
        /// Python exception class, when the failure is one the dashboard
        /// raises (not, e.g., a step that does not exist).
        exception: Option<ErrorClass>,
        /// Message.
        message: String,
    },
    /// No flavor of that name for resource usages.
    #[error("resource_usages: {0}")]
    ResourceUsages(String),
    /// Templates/Application evaluation failed.
    #[error("evaluation: {exception}: {message}")]
    Evaluation {
        /// Python exception class.
        exception: ErrorClass,
        /// Message.
        message: String,
    },
    /// Building the final body failed.
    #[error("finalize: {0}")]
    Finalize(String),
}

impl Error {
    /// The stage name the conformance cases use.
    ///
    /// ```
    /// assert_eq!(murano_ui::Error::Finalize("x".into()).stage(), "finalize");
    /// ```
    pub fn stage(&self) -> &'static str {
        match self {
            Error::Definition { .. } => "definition",
            Error::Validation { .. } => "validation",
            Error::ResourceUsages(_) => "resource_usages",
            Error::Evaluation { .. } => "evaluation",
            Error::Finalize(_) => "finalize",
        }
    }

    /// The Python exception class, when the failure has one (resource
    /// usages and finalization failures are this crate's own).
    ///
    /// ```
    /// use murano_ui::{definition::Definition, ErrorClass};
    ///
    /// let err = Definition::load(b"Version: 2.4\nForms: []\n").unwrap_err();
    /// assert_eq!(err.class(), Some(ErrorClass::ValueError));
    /// ```
    pub fn class(&self) -> Option<ErrorClass> {
        match self {
            Error::Definition { exception, .. } | Error::Evaluation { exception, .. } => {
                Some(*exception)
            }
            Error::Validation { exception, .. } => *exception,
            Error::ResourceUsages(_) | Error::Finalize(_) => None,
        }
    }

    /// Where in the definition the failure was found (line and column from
    /// 1), when it belongs to one place.
    ///
    /// ```
    /// let err = murano_ui::definition::Definition::load(b"Version: 2.4\nForms: {}\n\
    /// Application: {}\n").unwrap_err();
    /// let at = err.position().unwrap();
    /// assert_eq!((at.line, at.column), (2, 8));
    /// ```
    pub fn position(&self) -> Option<Position> {
        match self {
            Error::Definition { position, .. } => *position,
            _ => None,
        }
    }

    /// The name of the field a definition error is about, when it is about
    /// one.
    ///
    /// ```
    /// let err = murano_ui::definition::Definition::load(b"Version: 2.4\n\
    /// Forms:\n  - step:\n      fields:\n        - name: size\n          \
    /// type: integer\n          minLength: 1\nApplication: {}\n").unwrap_err();
    /// assert_eq!(err.field(), Some("size"));
    /// assert_eq!(err.position().map(|at| at.line), Some(7));
    /// // The message is the dashboard's, without the field's name.
    /// assert!(!err.to_string().contains("size"));
    /// ```
    pub fn field(&self) -> Option<&str> {
        match self {
            Error::Definition { field, .. } => field.as_deref(),
            _ => None,
        }
    }
}

/// What the dashboard's loader makes of a plain YAML scalar: `yaql`,
/// `str`, `int`, `float`, `bool`, `null`, `timestamp`.
///
/// ```
/// assert_eq!(murano_ui::resolve_plain_scalar("Hello-World"), "yaql");
/// assert_eq!(murano_ui::resolve_plain_scalar("foo bar"), "str");
/// assert_eq!(murano_ui::resolve_plain_scalar("0x1F"), "int");
/// ```
pub fn resolve_plain_scalar(text: &str) -> &'static str {
    match load_ui_file(text.as_bytes(), &LoadOptions::default()) {
        Ok(Some(node)) => match node.value {
            Y::Yaql(_) => "yaql",
            Y::Str(_) => "str",
            Y::Int(_) => "int",
            Y::Float(_) => "float",
            Y::Bool(_) => "bool",
            Y::Null => "null",
            Y::Date(_) | Y::Timestamp(_) => "timestamp",
            _ => fallback(text),
        },
        Ok(None) => "null",
        Err(_) => fallback(text),
    }
}

fn fallback(text: &str) -> &'static str {
    if expression::is_expression(text).unwrap_or(false) {
        "yaql"
    } else {
        "str"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clean::{clean_field, CleanFailure};
    use crate::definition::Definition;
    use crate::evaluate::Walker;
    use murano_yaql::eval::ErrorKind;

    fn load_err(text: &str) -> Error {
        match Definition::load(text.as_bytes()) {
            Ok(_) => panic!("{text:?} loaded"),
            Err(e) => e,
        }
    }

    #[test]
    fn definition_errors_have_a_class_and_a_position() {
        let e = load_err("Forms: [\n");
        assert_eq!(e.class(), Some(ErrorClass::YamlError));
        assert!(e.position().is_some(), "{e:?}");
        assert!(e.to_string().starts_with("definition: YAMLError: "), "{e}");

        let e = load_err("Version: 3.0\nApplication: {}\n");
        assert_eq!(e.class(), Some(ErrorClass::ValueError));
        let at = e.position().unwrap();
        assert_eq!((at.line, at.column), (1, 10));

        let text =
            "Version: 2.4\nApplication: {}\nForms:\n  - step1:\n      fields:\n        - name: x\n";
        let e = load_err(text);
        assert_eq!(e.class(), Some(ErrorClass::KeyError));
        assert_eq!(e.to_string(), "definition: KeyError: 'type'");
        let at = e.position().unwrap();
        assert_eq!((at.line, at.column), (6, 11));

        // No node to point at: an empty document.
        let e = load_err("");
        assert_eq!(e.class(), Some(ErrorClass::AttributeError));
        assert_eq!(e.position(), None);
    }

    #[test]
    fn field_errors_name_the_field() {
        let form = |fields: &str| {
            format!("Version: 2.4\nApplication: {{}}\nForms:\n  - step1:\n      fields:\n{fields}")
        };
        // A missing type: the field is named, the message is unchanged.
        let e = load_err(&form("        - name: x\n"));
        assert_eq!(e.field(), Some("x"));
        assert_eq!(e.to_string(), "definition: KeyError: 'type'");
        // Errors deeper in the field: an attribute, choices, a regex.
        let e = load_err(&form(
            "        - {name: a, type: string}\n        - name: n\n          type: integer\n          maxLength: 3\n",
        ));
        assert_eq!(e.field(), Some("n"));
        assert_eq!(e.position().map(|at| (at.line, at.column)), Some((9, 11)));
        let e = load_err(&form(
            "        - name: c\n          type: choice\n          choices: 3\n",
        ));
        assert_eq!(
            (e.field(), e.class()),
            (Some("c"), Some(ErrorClass::ValueError))
        );
        let e = load_err(&form(
            "        - name: r\n          type: string\n          regexpValidator: '['\n",
        ));
        assert_eq!(
            (e.field(), e.class()),
            (Some("r"), Some(ErrorClass::RegexError))
        );
        // A field without a name, and errors about no field.
        assert_eq!(load_err(&form("        - type: string\n")).field(), None);
        assert_eq!(load_err(&form("        - 3\n")).field(), None);
        assert_eq!(
            load_err("Version: 2.4\nForms: {}\nApplication: {}\n").field(),
            None
        );
        assert_eq!(load_err("Version: 3.0\nApplication: {}\n").field(), None);
    }

    #[test]
    fn validation_crashes_keep_the_python_class() {
        let text = "Version: 2.4\nApplication: {}\nForms:\n  - step1:\n      fields:\n        - {name: net, type: network}\n";
        let def = Definition::load(text.as_bytes()).unwrap();
        let field = &def.forms[0].fields[0];
        match clean_field(field, Some("not a literal"), &Vec::new(), &Walker::plain()) {
            Err(CleanFailure::Crash { exception, message }) => {
                assert_eq!(exception, ErrorClass::ValueError);
                assert!(message.starts_with("malformed node or string"), "{message}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn classes_and_stages() {
        let e = Error::Evaluation {
            exception: ErrorClass::Yaql(ErrorKind::KeyError),
            message: "'x'".into(),
        };
        assert_eq!(e.class(), Some(ErrorClass::Yaql(ErrorKind::KeyError)));
        assert_eq!(e.to_string(), "evaluation: KeyError: 'x'");
        let e = Error::Validation {
            exception: None,
            message: "no step 3".into(),
        };
        assert_eq!((e.class(), e.stage()), (None, "validation"));
        assert_eq!(e.to_string(), "validation: no step 3");
        assert_eq!(Error::Finalize("x".into()).class(), None);
        assert_eq!(ErrorClass::RegexError.python_name(), "re.error");
    }
}
