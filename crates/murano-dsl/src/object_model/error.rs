//! Errors (the input is not an object model) and diagnostics (it is one,
//! but Murano would refuse or quietly change part of it).

use std::fmt;

use super::path::Path;
use crate::diagnostic::Diagnostic;
use crate::version::VersionError;
use crate::yaml::YamlError;

/// Why a text or value is not an object model, and where.
///
/// ```
/// use murano_dsl::object_model::{ErrorKind, ObjectModel};
///
/// let err = ObjectModel::from_json(r#"{"?": {"id": "a", "type": "io.murano.Foo/"}}"#).unwrap_err();
/// assert_eq!(err.path().to_string(), "/?/type");
/// assert!(matches!(err.kind(), ErrorKind::InvalidTypeString(_)));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectModelError {
    path: Path,
    kind: ErrorKind,
}

impl ObjectModelError {
    pub(crate) fn new(path: Path, kind: ErrorKind) -> ObjectModelError {
        ObjectModelError { path, kind }
    }

    /// Where the offending element is (the root for text-level errors).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What is wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }

    /// The error with `prefix` put before its path.
    pub(crate) fn under(mut self, prefix: &Path) -> ObjectModelError {
        self.path = prefix.join(&self.path);
        self
    }
}

impl fmt::Display for ObjectModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_root() {
            write!(f, "{}", self.kind)
        } else {
            write!(f, "{}: {}", self.path, self.kind)
        }
    }
}

impl std::error::Error for ObjectModelError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            ErrorKind::Yaml(e) => Some(e),
            ErrorKind::Json(e) => Some(e),
            ErrorKind::InvalidVersionSpec { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// A JSON syntax error, worded and placed as Python's `json.loads`
/// reports it (`Expecting value: line 1 column 1 (char 0)`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}: line {line} column {column} (char {offset})")]
pub struct JsonError {
    /// Python's message (`Expecting ',' delimiter`, `Extra data`, ...).
    pub message: String,
    /// Line, from 1.
    pub line: usize,
    /// Column in characters, from 1.
    pub column: usize,
    /// Index of the character in the text, from 0.
    pub offset: usize,
}

/// What makes an input not an object model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The JSON text does not parse.
    #[error(transparent)]
    Json(JsonError),
    /// The YAML text does not load.
    #[error(transparent)]
    Yaml(YamlError),
    /// The YAML stream has no document.
    #[error("the YAML text has no document")]
    EmptyDocument,
    /// A YAML value JSON cannot hold (a date, a set, binary data, a
    /// recursive alias).
    #[error("a YAML {0} cannot be part of an object model")]
    UnsupportedYamlValue(&'static str),
    /// Nesting deeper than the limit.
    #[error("nested deeper than {0} levels")]
    TooDeep(usize),
    /// The root was required to be an object (a mapping with `?`).
    #[error("not an object: a mapping with a `?` key is expected")]
    NotAnObject,
    /// The root of a deployment model is not a mapping of sections
    /// (Murano's executor raises `TypeError`).
    #[error(
        "a deployment model must be a mapping of sections (`Objects`, `ObjectsCopy`, `Attributes`)"
    )]
    NotAMapping,
    /// A property named `?` given to [`super::Object::new`].
    #[error("`?` is the system section, not a property")]
    SystemKeyAsProperty,
    /// `Objects` or `ObjectsCopy` is not an object (`parse_object_definition`
    /// gives nothing, or no type: `ValueError`).
    #[error("must be an object (a mapping with a `?` section) or null")]
    SectionNotObject,
    /// The root object of a deployment section has no type (Murano:
    /// "Invalid object representation: no type information was provided").
    #[error("the root object has no type")]
    RootWithoutType,
    /// The `?` section is not a mapping (`system_data.get` fails).
    #[error("the `?` section must be a mapping, not {0}")]
    SystemNotMapping(&'static str),
    /// `type` is true but not a string (`TYPE_RE.match` raises
    /// `TypeError`).
    #[error("the type must be a string, not {0}")]
    TypeNotString(&'static str),
    /// `type` does not match Murano's
    /// `([a-zA-Z0-9_.]+)(?:/([^@]+))?(?:@([a-zA-Z0-9_.]+))?$`.
    #[error("invalid type string {0:?}: expected `name`, `name/version`, `name@package` or `name/version@package`")]
    InvalidTypeString(String),
    /// The class version (from the type string or `classVersion`) is not
    /// a version spec Murano accepts.
    #[error("invalid class version {spec:?}: {source}")]
    InvalidVersionSpec {
        /// Python's `str()` of the spec.
        spec: String,
        /// Why it is refused.
        source: VersionError,
    },
    /// `package` is true but not a string.
    #[error("the package must be a string, not {0}")]
    PackageNotString(&'static str),
    /// `dependencies` is true but not a mapping.
    #[error("`dependencies` must be a mapping, not {0}")]
    DependenciesNotMapping(&'static str),
    /// `dependencies.onDestruction` is not a list.
    #[error("`onDestruction` must be a list, not {0}")]
    OnDestructionNotList(&'static str),
    /// A destruction dependency is not a mapping.
    #[error("a destruction dependency must be a mapping, not {0}")]
    DependencyNotMapping(&'static str),
    /// A destruction dependency has no `subscriber` (`KeyError`).
    #[error("a destruction dependency needs a `subscriber`")]
    MissingSubscriber,
    /// A subscriber is a list or mapping (unhashable: `TypeError`).
    #[error("a subscriber must be an object id, not {0}")]
    SubscriberNotScalar(&'static str),
    /// `_actions` is not a mapping.
    #[error("`_actions` must be a mapping, not {0}")]
    ActionsNotMapping(&'static str),
    /// An entry of `_actions` is not a mapping.
    #[error("an action must be a mapping, not {0}")]
    ActionNotMapping(&'static str),
    /// `Attributes` is true but not a list.
    #[error("`Attributes` must be a list, not {0}")]
    AttributesNotList(&'static str),
    /// An attribute is not a list `[object id, type name, name, value]`.
    #[error("an attribute must be a list [object id, type name, name, value]")]
    MalformedAttribute,
    /// A JSON mapping key that is not a string, number, boolean or null.
    #[error("a {0} cannot be a JSON key")]
    KeyNotJson(&'static str),
    /// An unevaluated expression cannot be written as JSON.
    #[error("the expression {0:?} has not been evaluated and has no JSON form")]
    YaqlInJson(String),
}

/// What a diagnostic of an object model is about: its message, code and
/// severity.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum DiagnosticKind {
    /// A second object with an id already used in the same section: Murano's
    /// object store hands out the first object again, so the two
    /// definitions become one object.
    #[error("duplicate object id {id:?} (first at {first})")]
    DuplicateId {
        /// The id.
        id: String,
        /// Where the first object with it is.
        first: Path,
    },
    /// An object id that is not a string (Murano keeps it, but no string
    /// property can refer to it).
    #[error("the object id is a {0}, not a string")]
    NonStringId(&'static str),
    /// A destruction dependency names an object the model does not hold:
    /// Murano skips it.
    #[error("destruction subscriber {id:?} is not in the model; Murano skips this dependency")]
    UnknownSubscriber {
        /// The subscriber id.
        id: String,
    },
    /// An attribute of an object the model does not hold: Murano keeps it
    /// while loading and drops it at the next serialization.
    #[error("attribute of unknown object {id:?}; Murano drops it when it saves the model")]
    AttributeOfUnknownObject {
        /// The object id.
        id: String,
    },
    /// A property name that is not a keyword: Murano filters properties
    /// with yaql's `filter_parameters_dict`, which fails (Python 3) on
    /// such a name, so the object does not load.
    #[error("property name {0:?} is not a keyword (letter or `_` first, not `__`); Murano cannot load this object")]
    PropertyNameNotKeyword(String),
    /// A property key that is not a string (yaql's keyword regex raises
    /// `TypeError`).
    #[error("property key {0} is not a string; Murano cannot load this object")]
    PropertyKeyNotString(String),
    /// A key in `?` that neither Murano, its API nor the dashboard uses and
    /// that does not start with `_`: the engine ignores it and does not
    /// write it back (often a property indented one level too deep).
    #[error("unknown key {0:?} in `?`: the engine ignores it and drops it")]
    UnknownSystemKey(String),
    /// A mapping with a `?` key whose value is not a mapping: not an
    /// object (Murano's `parse_object_definition` and the API's
    /// `build_entity_map` fail on it), kept as plain data.
    #[error("`?` holds a {0}, not a mapping: Murano cannot make an object of this mapping")]
    SystemNotMapping(&'static str),
    /// A top-level object without type: Murano can only create it where a
    /// `class()` contract supplies a default type.
    #[error("the object has no type")]
    MissingType,
}

impl DiagnosticKind {
    /// A stable code: `OM1xx` ids and references, `OM2xx` properties,
    /// `OM3xx` the `?` section.
    pub(crate) fn code(&self) -> &'static str {
        match self {
            DiagnosticKind::DuplicateId { .. } => "OM101",
            DiagnosticKind::NonStringId(_) => "OM102",
            DiagnosticKind::UnknownSubscriber { .. } => "OM103",
            DiagnosticKind::AttributeOfUnknownObject { .. } => "OM104",
            DiagnosticKind::PropertyNameNotKeyword(_) => "OM201",
            DiagnosticKind::PropertyKeyNotString(_) => "OM202",
            DiagnosticKind::UnknownSystemKey(_) => "OM301",
            DiagnosticKind::MissingType => "OM302",
            DiagnosticKind::SystemNotMapping(_) => "OM303",
        }
    }

    /// The diagnostic at `path` (its subject), with the severity the code
    /// table gives the code.
    pub(crate) fn at(self, path: &Path) -> Diagnostic {
        Diagnostic::new(self.code(), self.to_string()).with_subject(path.to_string())
    }
}
