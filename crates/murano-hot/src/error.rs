//! Errors, classified as the Python exceptions Heat raises.

use std::fmt;

/// Which Python exception Heat raises.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorClass {
    /// `ValueError` (loading, bad number text, ...).
    ValueError,
    /// `TypeError`.
    TypeError,
    /// `KeyError`.
    KeyError,
    /// `AttributeError` (a section of the wrong type where Heat calls a
    /// mapping method on it).
    AttributeError_,
    /// `re.error`: a pattern Python's `re` refuses.
    ReError,
    /// `heat.common.exception.StackValidationFailed`.
    StackValidationFailed,
    /// `heat.common.exception.InvalidTemplateVersion`.
    InvalidTemplateVersion,
    /// `heat.common.exception.InvalidTemplateSection`.
    InvalidTemplateSection,
    /// `heat.common.exception.InvalidSchemaError`.
    InvalidSchemaError,
    /// `heat.common.exception.UserParameterMissing`.
    UserParameterMissing,
    /// `heat.common.exception.UnknownUserParameter`.
    UnknownUserParameter,
    /// `heat.common.exception.InvalidTemplateReference`.
    InvalidTemplateReference,
    /// `heat.common.exception.InvalidTemplateAttribute`.
    InvalidTemplateAttribute,
    /// `heat.common.exception.CircularDependencyException`.
    CircularDependencyException,
    /// `heat.common.exception.RequestLimitExceeded` (template too large).
    RequestLimitExceeded,
    /// Not Heat's: one of this crate's limits for hostile input was hit.
    Limit,
}

impl ErrorClass {
    /// The fully qualified Python class name, as the conformance data
    /// writes it.
    pub fn python_name(self) -> &'static str {
        match self {
            ErrorClass::ValueError => "ValueError",
            ErrorClass::TypeError => "TypeError",
            ErrorClass::KeyError => "KeyError",
            ErrorClass::AttributeError_ => "AttributeError",
            ErrorClass::ReError => "re.error",
            ErrorClass::StackValidationFailed => "heat.common.exception.StackValidationFailed",
            ErrorClass::InvalidTemplateVersion => "heat.common.exception.InvalidTemplateVersion",
            ErrorClass::InvalidTemplateSection => "heat.common.exception.InvalidTemplateSection",
            ErrorClass::InvalidSchemaError => "heat.common.exception.InvalidSchemaError",
            ErrorClass::UserParameterMissing => "heat.common.exception.UserParameterMissing",
            ErrorClass::UnknownUserParameter => "heat.common.exception.UnknownUserParameter",
            ErrorClass::InvalidTemplateReference => {
                "heat.common.exception.InvalidTemplateReference"
            }
            ErrorClass::InvalidTemplateAttribute => {
                "heat.common.exception.InvalidTemplateAttribute"
            }
            ErrorClass::CircularDependencyException => {
                "heat.common.exception.CircularDependencyException"
            }
            ErrorClass::RequestLimitExceeded => "heat.common.exception.RequestLimitExceeded",
            ErrorClass::Limit => "murano_hot.Limit",
        }
    }
}

/// Where in the source text something is: 1-based line and column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    /// Line, from 1.
    pub line: u32,
    /// Column, from 1.
    pub column: u32,
}

/// An error as Heat reports it: class, message and, for
/// `StackValidationFailed`, the heading and path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeatError {
    /// The Python class.
    pub class: ErrorClass,
    /// `StackValidationFailed` only: the heading (`"Property error"`, often
    /// empty).
    pub heading: String,
    /// `StackValidationFailed` only: the path into the template.
    pub path: Vec<String>,
    /// The message without heading and path.
    pub error_message: String,
    /// Where in the text, when known.
    pub position: Option<Position>,
}

impl HeatError {
    /// An error of `class` with `message`.
    pub fn new(class: ErrorClass, message: impl Into<String>) -> Self {
        HeatError {
            class,
            heading: String::new(),
            path: Vec::new(),
            error_message: message.into(),
            position: None,
        }
    }

    /// A `StackValidationFailed` with a path and a heading.
    pub fn validation(heading: &str, path: Vec<String>, message: impl Into<String>) -> Self {
        HeatError {
            class: ErrorClass::StackValidationFailed,
            heading: heading.into(),
            path,
            error_message: message.into(),
            position: None,
        }
    }

    /// A `StackValidationFailed` without path or heading.
    pub fn failed(message: impl Into<String>) -> Self {
        HeatError::new(ErrorClass::StackValidationFailed, message)
    }

    /// `str(exception)`: for `StackValidationFailed`
    /// `"<heading>: <path joined by '.'>: <message>"` with empty parts
    /// dropped; for the others the message.
    pub fn message(&self) -> String {
        if self.class != ErrorClass::StackValidationFailed {
            return self.error_message.clone();
        }
        let path = self.path.join(".");
        [
            self.heading.as_str(),
            path.as_str(),
            self.error_message.as_str(),
        ]
        .iter()
        .filter(|p| !p.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join(": ")
    }
}

impl fmt::Display for HeatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())
    }
}

impl std::error::Error for HeatError {}

/// The result type of this crate.
pub type Result<T, E = HeatError> = std::result::Result<T, E>;
