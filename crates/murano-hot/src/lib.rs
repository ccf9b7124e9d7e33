//! Heat Orchestration Templates (HOT) as OpenStack Heat 27 reads them,
//! offline: loading ([`load::parse`]), version detection with each
//! version's capabilities ([`version`]), structural validation at the
//! level of `heat template-validate` with every resource type treated as
//! generic ([`validate`]), parameter schemas and parameter values with
//! Heat's coercions and messages ([`params`]), and the resolution of the
//! intrinsic functions that need only parameters ([`resolve`]).
//!
//! # Why a crate of its own
//!
//! Heat's semantics are not Murano's: a HOT template is Heat's language,
//! with its own loader (JSON first, YAML with dates kept as strings), its
//! own versions and functions, and its own error classes. Murano only
//! wraps a template into a package. Keeping Heat's rules here lets
//! `murano-packages` (the Heat.HOT plug-in, `murano check`) and the CLI
//! use them without pulling Heat's model into the package layer, and lets
//! this crate be tested against Heat's own answers on its own.
//!
//! ```
//! use murano_hot::{Limits, Template};
//!
//! let text = "heat_template_version: 2016-10-14\n\
//!             parameters:\n  port: {type: number, default: 80,\n    constraints: [{range: {min: 1, max: 65535}}]}\n\
//!             outputs:\n  url: {value: {str_replace: {template: 'http://h:P/', params: {P: {get_param: port}}}}}\n";
//! let t = Template::load(text, &Limits::default())?;
//! assert_eq!(t.version.class_name(), "HOTemplate20161014");
//! t.validate(&[])?;
//! let values = t.parameter_values(&[("port".into(), murano_hot::Value::Str("8080".into()))])?;
//! assert_eq!(values[0].1, murano_hot::Value::Int(8080));
//! # Ok::<(), murano_hot::HeatError>(())
//! ```
//!
//! Every entry point takes untrusted text: the [`Limits`] bound the
//! template size, nesting depth, node count, function nesting and regex
//! work, each failing with [`ErrorClass::Limit`] rather than a panic, a
//! stack overflow or unbounded work.

#![forbid(unsafe_code)]

mod engine;
pub mod error;
pub mod load;
pub mod locate;
pub mod params;
pub mod resolve;
pub mod validate;
pub mod value;
pub mod version;

pub use error::{ErrorClass, HeatError, Position, Result};
pub use value::Value;
pub use version::{Function, TemplateVersion};

/// Limits for hostile templates. Every limit fails with
/// [`ErrorClass::Limit`] (Heat's own template size limit with
/// `RequestLimitExceeded`, as Heat does).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Longest template in characters: Heat's `max_template_size`
    /// (default 524,288).
    pub max_template_size: usize,
    /// Deepest nesting of YAML collections. Default 128.
    pub max_depth: u32,
    /// Most YAML nodes, aliases expanded. Default 1,000,000.
    pub max_nodes: usize,
    /// Deepest nesting of intrinsic functions within one another while
    /// validating or resolving. Default 64.
    pub max_function_depth: usize,
    /// Most constraints on one parameter. Default 1,000.
    pub max_constraints: usize,
    /// Longest `allowed_pattern`, in bytes. Default 10,000.
    pub max_pattern_len: usize,
    /// Backtracking steps one `allowed_pattern` match may take. Default
    /// 1,000,000.
    pub regex_backtrack_limit: usize,
    /// Largest value a function may build while resolving (items of a
    /// `repeat`, characters of a joined string). Default 1,000,000.
    pub max_result_size: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_template_size: 524_288,
            max_depth: 128,
            max_nodes: 1_000_000,
            max_function_depth: 64,
            max_constraints: 1_000,
            max_pattern_len: 10_000,
            regex_backtrack_limit: 1_000_000,
            max_result_size: 1_000_000,
        }
    }
}

/// A loaded template and the version Heat picked for it.
#[derive(Debug, Clone)]
pub struct Template {
    /// The parsed template.
    pub data: Value,
    /// The template class.
    pub version: TemplateVersion,
    /// The limits it was loaded with (used by the later steps).
    pub limits: Limits,
}

impl Template {
    /// Loads and detects the version: [`load::parse`] then
    /// [`version::detect`].
    pub fn load(text: &str, limits: &Limits) -> Result<Template> {
        let data = load::parse(text, limits)?;
        let detected = version::detect(&data)?;
        Ok(Template {
            data,
            version: detected.version,
            limits: limits.clone(),
        })
    }

    /// The parameter schemas ([`params::schemata`]).
    pub fn schemas(&self) -> Result<Vec<params::ParamSchema>> {
        params::schemata(self.version, &self.data, &self.limits)
    }

    /// Validates user values and returns every parameter's value
    /// ([`params::validate_values`]).
    pub fn parameter_values(&self, user: &[(String, Value)]) -> Result<Vec<(String, Value)>> {
        params::validate_values(&self.schemas()?, user)
    }

    /// `Template.validate()`: top-level sections and resource shapes.
    pub fn validate_sections(&self) -> Result<()> {
        validate::template_validate(self)
    }

    /// What `heat template-validate` checks, with generic resource types
    /// ([`validate::stack_validate`]). With `params`, their values are
    /// supplied (but not checked, as in template-validate).
    pub fn validate(&self, params: &[(String, Value)]) -> Result<()> {
        validate::stack_validate(self, params)
    }
}
