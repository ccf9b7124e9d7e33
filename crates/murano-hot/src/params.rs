//! Parameter schemas and parameter values, as Heat's `HOTParamSchema`,
//! `constraints` and `Parameter` classes build and check them.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use crate::error::{ErrorClass, HeatError, Result};
use crate::value::Value;
use crate::version::TemplateVersion;

/// A parameter type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ParamType {
    /// `string`.
    String,
    /// `number`.
    Number,
    /// `comma_delimited_list`.
    CommaDelimitedList,
    /// `json`.
    Json,
    /// `boolean`.
    Boolean,
}

impl ParamType {
    fn from_name(name: &str) -> Option<ParamType> {
        Some(match name {
            "string" => ParamType::String,
            "number" => ParamType::Number,
            "comma_delimited_list" => ParamType::CommaDelimitedList,
            "json" => ParamType::Json,
            "boolean" => ParamType::Boolean,
            _ => return None,
        })
    }

    /// The template's name of the type.
    pub fn name(self) -> &'static str {
        match self {
            ParamType::String => "string",
            ParamType::Number => "number",
            ParamType::CommaDelimitedList => "comma_delimited_list",
            ParamType::Json => "json",
            ParamType::Boolean => "boolean",
        }
    }

    /// The validate-template API's name of the type.
    pub fn api_name(self) -> &'static str {
        match self {
            ParamType::String => "String",
            ParamType::Number => "Number",
            ParamType::CommaDelimitedList => "CommaDelimitedList",
            ParamType::Json => "Json",
            ParamType::Boolean => "Boolean",
        }
    }
}

/// One constraint of a parameter.
#[derive(Debug, Clone)]
pub enum ConstraintKind {
    /// `range: {min, max}`.
    Range {
        /// Lower bound.
        min: Option<Value>,
        /// Upper bound.
        max: Option<Value>,
    },
    /// `length: {min, max}`.
    Length {
        /// Lower bound.
        min: Option<Value>,
        /// Upper bound.
        max: Option<Value>,
    },
    /// `modulo: {step, offset}` (2017-02-24 and later).
    Modulo {
        /// Step.
        step: Value,
        /// Offset.
        offset: Value,
    },
    /// `allowed_values: [...]`.
    AllowedValues(Vec<Value>),
    /// `allowed_pattern: <regex>`, compiled as Python's `re.match`.
    AllowedPattern {
        /// The pattern as written.
        pattern: String,
        /// `\A(?:pattern)` translated for `fancy-regex`.
        regex: Arc<fancy_regex::Regex>,
    },
    /// `custom_constraint: <name>`: needs a cloud; always passes here.
    Custom(Value),
}

/// A constraint with its description.
#[derive(Debug, Clone)]
pub struct Constraint {
    /// What it constrains.
    pub kind: ConstraintKind,
    /// The template's description, if any.
    pub description: Option<Value>,
}

/// A parameter's schema.
#[derive(Debug, Clone)]
pub struct ParamSchema {
    /// The parameter's name.
    pub name: String,
    /// The type.
    pub param_type: ParamType,
    /// `description` as written.
    pub description: Option<Value>,
    /// `default` as written.
    pub default: Option<Value>,
    /// `hidden` as written.
    pub hidden: Value,
    /// `label` as written.
    pub label: Option<Value>,
    /// `immutable` as written.
    pub immutable: Value,
    /// `tags` as written.
    pub tags: Option<Value>,
    /// The constraints in declaration order.
    pub constraints: Vec<Constraint>,
}

fn schema_err(message: impl Into<String>) -> HeatError {
    HeatError::new(ErrorClass::InvalidSchemaError, message)
}

fn check_dict<'a>(v: &'a Value, allowed: &[&str], entity: &str) -> Result<&'a [(Value, Value)]> {
    let Some(m) = v.as_map() else {
        return Err(schema_err(format!("Invalid {entity}, expected a mapping")));
    };
    for (k, _) in m {
        if !k.as_str().is_some_and(|k| allowed.contains(&k)) {
            return Err(schema_err(format!(
                "Invalid key '{}' for {entity}",
                k.py_str()
            )));
        }
    }
    Ok(m)
}

/// A Python number.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Num {
    Int(i128),
    Float(f64),
}

impl Num {
    fn f(self) -> f64 {
        match self {
            Num::Int(n) => n as f64,
            Num::Float(x) => x,
        }
    }
    fn lt(self, o: Num) -> bool {
        match (self, o) {
            (Num::Int(a), Num::Int(b)) => a < b,
            _ => self.f() < o.f(),
        }
    }
    fn to_value(self) -> Value {
        match self {
            Num::Int(n) => i64::try_from(n)
                .map(Value::Int)
                .unwrap_or_else(|_| Value::BigInt(n.to_string())),
            Num::Float(x) => Value::Float(x),
        }
    }
}

fn py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `float(text)`.
fn py_float(text: &str) -> Option<f64> {
    let s = text.trim_matches(py_space);
    let lower = s.to_ascii_lowercase();
    let unsigned = lower.trim_start_matches(['+', '-']);
    if lower.len() - unsigned.len() > 1 {
        return None;
    }
    if matches!(unsigned, "inf" | "infinity" | "nan") {
        return lower.parse().ok();
    }
    // Underscores only between digits.
    let b = s.as_bytes();
    let mut clean = String::with_capacity(s.len());
    for (i, &c) in b.iter().enumerate() {
        if c == b'_' {
            let ok = i > 0
                && b[i - 1].is_ascii_digit()
                && b.get(i + 1).is_some_and(|n| n.is_ascii_digit());
            if !ok {
                return None;
            }
        } else if c.is_ascii_digit() || matches!(c, b'+' | b'-' | b'.' | b'e' | b'E') {
            clean.push(c as char);
        } else {
            return None;
        }
    }
    if !clean.bytes().any(|c| c.is_ascii_digit()) {
        return None;
    }
    clean.parse().ok()
}

/// Heat's `Schema.str_to_num`: numbers pass, strings go through `int()`
/// then `float()`; other types are a `TypeError`.
fn str_to_num(v: &Value) -> Result<Num> {
    match v {
        Value::Bool(b) => Ok(Num::Int(i128::from(*b))),
        Value::Int(n) => Ok(Num::Int(i128::from(*n))),
        Value::BigInt(s) => Ok(s
            .parse::<i128>()
            .map(Num::Int)
            .unwrap_or_else(|_| Num::Float(s.parse().unwrap_or(f64::INFINITY)))),
        Value::Float(x) => Ok(Num::Float(*x)),
        Value::Str(s) => match murano_yaql::pyint::parse(s) {
            Ok(n) => Ok(Num::Int(i128::from(n))),
            Err(murano_yaql::pyint::IntError::Overflow) => {
                let digits: String = s
                    .chars()
                    .filter(|c| c.is_ascii_digit() || *c == '-')
                    .collect();
                Ok(digits
                    .parse::<i128>()
                    .map(Num::Int)
                    .unwrap_or_else(|_| Num::Float(digits.parse().unwrap_or(f64::INFINITY))))
            }
            Err(_) => py_float(s).map(Num::Float).ok_or_else(|| {
                HeatError::new(
                    ErrorClass::ValueError,
                    format!(
                        "could not convert string to float: {}",
                        murano_yaml::py_text::repr(s)
                    ),
                )
            }),
        },
        other => Err(HeatError::new(
            ErrorClass::TypeError,
            format!(
                "int() argument must be a string, a bytes-like object or a real number, not '{}'",
                other.type_name()
            ),
        )),
    }
}

/// `str_to_num` as a value: numbers (booleans included) come back as
/// they are.
fn num_value(v: &Value) -> Result<Value> {
    if v.is_number() {
        return Ok(v.clone());
    }
    Ok(str_to_num(v)?.to_value())
}

fn get_num(m: &[(Value, Value)], key: &str) -> Result<Option<Value>> {
    match m.iter().find(|(k, _)| k.as_str() == Some(key)) {
        None | Some((_, Value::Null)) => Ok(None),
        Some((_, v)) => Ok(Some(str_to_num(v)?.to_value())),
    }
}

fn is_numeric_or_none(v: &Option<Value>) -> bool {
    match v {
        None => true,
        Some(v) => v.is_number(),
    }
}

/// Most compiled patterns kept per thread (Python's `re` keeps 512).
const PATTERN_CACHE: usize = 512;

thread_local! {
    static PATTERNS: RefCell<HashMap<(String, usize), Arc<fancy_regex::Regex>>> =
        RefCell::new(HashMap::new());
}

/// Compiles `pattern` as Python's `re.match` would use it, through a
/// per-thread cache as Python's `re.compile` has one.
fn compile_pattern(pattern: &str, backtrack_limit: usize) -> Result<Arc<fancy_regex::Regex>> {
    let key = (pattern.to_owned(), backtrack_limit);
    if let Some(r) = PATTERNS.with(|c| c.borrow().get(&key).cloned()) {
        return Ok(r);
    }
    let translated = format!("\\A(?:{})", murano_yaql::pyre::translate(pattern, false));
    let regex = fancy_regex::RegexBuilder::new(&translated)
        .backtrack_limit(backtrack_limit)
        .build()
        .map_err(|e| HeatError::new(ErrorClass::ReError, e.to_string()))?;
    let regex = Arc::new(regex);
    PATTERNS.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= PATTERN_CACHE {
            c.clear();
        }
        c.insert(key, regex.clone());
    });
    Ok(regex)
}

fn constraint_from_def(
    version: TemplateVersion,
    def: &[(Value, Value)],
    limits: &crate::Limits,
) -> Result<Constraint> {
    let get = |k: &str| {
        def.iter()
            .find(|(key, _)| key.as_str() == Some(k))
            .map(|(_, v)| v)
    };
    let description = get("description").cloned().filter(|d| *d != Value::Null);
    let range_keys = ["min", "max"];
    let kind = if version.has_modulo() && get("modulo").is_some() {
        let cdef = check_dict(
            get("modulo").unwrap_or(&Value::Null),
            &["step", "offset"],
            "modulo constraint",
        )?;
        let step = get_num(cdef, "step")?;
        let offset = get_num(cdef, "offset")?;
        let (Some(step), Some(offset)) = (step, offset) else {
            return Err(schema_err(
                "A modulo constraint must have a step value and an offset value specified.",
            ));
        };
        let (s, o) = (str_to_num(&step)?, str_to_num(&offset)?);
        for p in [s, o] {
            if let Num::Float(x) = p {
                if x.trunc() != x {
                    return Err(schema_err("step/offset must be integer"));
                }
            }
        }
        let (si, oi) = (s.f() as i128, o.f() as i128);
        if si == 0 {
            return Err(schema_err("step cannot be 0."));
        }
        if oi.abs() >= si.abs() {
            return Err(schema_err(
                "offset must be smaller (by absolute value) than step.",
            ));
        }
        if si * oi < 0 {
            return Err(schema_err(
                "step and offset must be both positive or both negative.",
            ));
        }
        ConstraintKind::Modulo { step, offset }
    } else if let Some(cdef) = get("range") {
        let cdef = check_dict(cdef, &range_keys, "range constraint")?;
        let (min, max) = (get_num(cdef, "min")?, get_num(cdef, "max")?);
        if !is_numeric_or_none(&min) || !is_numeric_or_none(&max) {
            return Err(schema_err("min/max must be numeric"));
        }
        if min.is_none() && max.is_none() {
            return Err(schema_err(
                "A range constraint must have a min value and/or a max value specified.",
            ));
        }
        ConstraintKind::Range { min, max }
    } else if let Some(cdef) = get("length") {
        let cdef = check_dict(cdef, &range_keys, "length constraint")?;
        let (min, max) = (get_num(cdef, "min")?, get_num(cdef, "max")?);
        if min.is_none() && max.is_none() {
            return Err(schema_err(
                "A length constraint must have a min value and/or a max value specified.",
            ));
        }
        if !is_numeric_or_none(&min) || !is_numeric_or_none(&max) {
            return Err(schema_err("min/max must be numeric"));
        }
        if [&min, &max]
            .iter()
            .any(|v| matches!(v, Some(Value::Float(_))))
        {
            return Err(schema_err("min/max length must be integral"));
        }
        ConstraintKind::Length { min, max }
    } else if let Some(cdef) = get("allowed_values") {
        match cdef {
            Value::List(items) => ConstraintKind::AllowedValues(items.clone()),
            Value::Bytes(b) => {
                ConstraintKind::AllowedValues(b.iter().map(|&c| Value::Int(i64::from(c))).collect())
            }
            _ => return Err(schema_err("AllowedValues must be a list")),
        }
    } else if let Some(cdef) = get("allowed_pattern") {
        let Value::Str(pattern) = cdef else {
            return Err(schema_err("AllowedPattern must be a string"));
        };
        if pattern.len() > limits.max_pattern_len {
            return Err(HeatError::new(
                ErrorClass::Limit,
                format!(
                    "allowed_pattern longer than {} bytes",
                    limits.max_pattern_len
                ),
            ));
        }
        ConstraintKind::AllowedPattern {
            pattern: pattern.clone(),
            regex: compile_pattern(pattern, limits.regex_backtrack_limit)?,
        }
    } else if let Some(cdef) = get("custom_constraint") {
        ConstraintKind::Custom(cdef.clone())
    } else {
        return Err(schema_err("No constraint expressed"));
    };
    Ok(Constraint { kind, description })
}

impl ParamSchema {
    /// `HOTParamSchema.from_dict` for the version's schema class.
    pub fn from_dict(
        version: TemplateVersion,
        name: &str,
        schema: &Value,
        limits: &crate::Limits,
    ) -> Result<ParamSchema> {
        const KEYS: [&str; 9] = [
            "type",
            "description",
            "default",
            "schema",
            "constraints",
            "hidden",
            "label",
            "immutable",
            "tags",
        ];
        let keys = if version.has_param_tags() {
            &KEYS[..]
        } else {
            &KEYS[..8]
        };
        // The common case checked without building the error's wording.
        let m = match schema.as_map() {
            Some(m)
                if m.iter()
                    .all(|(k, _)| k.as_str().is_some_and(|k| keys.contains(&k))) =>
            {
                m
            }
            _ => check_dict(schema, keys, &format!("parameter ({name})"))?,
        };
        let get = |k: &str| {
            m.iter()
                .find(|(key, _)| key.as_str() == Some(k))
                .map(|(_, v)| v)
        };
        let Some(type_value) = get("type") else {
            return Err(schema_err(format!(
                "Missing parameter type for parameter: {name}"
            )));
        };
        if version.has_param_tags() {
            if let Some(t) = get("tags") {
                if !matches!(t, Value::List(_)) {
                    return Err(schema_err(format!(
                        "Tags property should be a list for parameter: {name}"
                    )));
                }
            }
        }
        let mut constraints = Vec::new();
        match get("constraints") {
            None | Some(Value::Null) => {}
            Some(Value::List(items)) => {
                for c in items {
                    let def = check_dict(
                        c,
                        &[
                            "description",
                            "length",
                            "range",
                            "modulo",
                            "allowed_values",
                            "allowed_pattern",
                            "custom_constraint",
                        ],
                        "parameter constraints",
                    )?;
                    if constraints.len() >= limits.max_constraints {
                        return Err(HeatError::new(
                            ErrorClass::Limit,
                            format!("more than {} constraints", limits.max_constraints),
                        ));
                    }
                    constraints.push(constraint_from_def(version, def, limits)?);
                }
            }
            Some(_) => {
                return Err(schema_err(format!(
                    "Invalid parameter constraints for parameter {name}, expected a list"
                )))
            }
        }
        let Some(param_type) = type_value.as_str().and_then(ParamType::from_name) else {
            return Err(schema_err(format!(
                "Invalid type ({})",
                type_value.py_str()
            )));
        };
        let opt = |k: &str| get(k).cloned().filter(|v| *v != Value::Null);
        Ok(ParamSchema {
            name: name.to_owned(),
            param_type,
            description: opt("description"),
            default: opt("default"),
            hidden: get("hidden").cloned().unwrap_or(Value::Bool(false)),
            label: opt("label"),
            immutable: get("immutable").cloned().unwrap_or(Value::Bool(false)),
            tags: if version.has_param_tags() {
                opt("tags")
            } else {
                None
            },
            constraints,
        })
    }

    /// Whether a value is required (no default).
    pub fn required(&self) -> bool {
        self.default.is_none()
    }

    fn constraint_valid_for_type(&self, c: &Constraint) -> bool {
        use ParamType::*;
        let t = self.param_type;
        match c.kind {
            ConstraintKind::Range { .. } | ConstraintKind::Modulo { .. } => t == Number,
            ConstraintKind::Length { .. } => matches!(t, String | CommaDelimitedList | Json),
            ConstraintKind::AllowedValues(_) | ConstraintKind::Custom(_) => {
                matches!(t, String | Number | Boolean | CommaDelimitedList)
            }
            ConstraintKind::AllowedPattern { .. } => t == String,
        }
    }

    /// `Schema.validate`: each constraint valid for the type, the default
    /// within the constraints (`custom_constraint` skipped). Errors are
    /// as `Parameter.validate` wraps them.
    pub fn check(&self) -> Result<()> {
        self.check_inner().map_err(|e| self.wrap(e))
    }

    fn wrap(&self, e: HeatError) -> HeatError {
        match e.class {
            ErrorClass::StackValidationFailed | ErrorClass::InvalidSchemaError => HeatError::new(
                e.class,
                format!("Parameter '{}' is invalid: {}", self.name, e.message()),
            ),
            _ => e,
        }
    }

    fn check_inner(&self) -> Result<()> {
        for c in &self.constraints {
            if !self.constraint_valid_for_type(c) {
                let cname = match c.kind {
                    ConstraintKind::Range { .. } => "Range",
                    ConstraintKind::Length { .. } => "Length",
                    ConstraintKind::Modulo { .. } => "Modulo",
                    ConstraintKind::AllowedValues(_) => "AllowedValues",
                    ConstraintKind::AllowedPattern { .. } => "AllowedPattern",
                    ConstraintKind::Custom(_) => "CustomConstraint",
                };
                return Err(schema_err(format!(
                    "{cname} constraint invalid for {}",
                    self.param_type.name()
                )));
            }
        }
        if let Some(default) = &self.default {
            let value = if self.param_type == ParamType::CommaDelimitedList {
                match default {
                    Value::List(items) => {
                        Value::List(items.iter().map(|v| Value::Str(v.py_str())).collect())
                    }
                    // `str.split(',')`: an empty default is `['']`.
                    Value::Str(s) => {
                        Value::List(s.split(',').map(|p| Value::Str(p.to_owned())).collect())
                    }
                    other => {
                        return Err(schema_err(format!(
                            "Default must be a comma-delimited list string: '{}' object has no attribute 'split'",
                            other.type_name()
                        )))
                    }
                }
            } else {
                default.clone()
            };
            self.validate_constraints(&value, true)
                .map_err(|e| match e.class {
                    ErrorClass::ValueError
                    | ErrorClass::TypeError
                    | ErrorClass::StackValidationFailed => schema_err(format!(
                        "Invalid default {} ({})",
                        default.py_str(),
                        e.message()
                    )),
                    _ => e,
                })?;
        }
        Ok(())
    }

    /// `Schema.validate_constraints`: the first failing constraint, as a
    /// `StackValidationFailed` with its description or Heat's text.
    fn validate_constraints(&self, value: &Value, skip_custom: bool) -> Result<()> {
        for c in &self.constraints {
            if skip_custom && matches!(c.kind, ConstraintKind::Custom(_)) {
                continue;
            }
            match self.constraint_ok(c, value) {
                Ok(true) => {}
                Ok(false) => {
                    let msg = match &c.description {
                        Some(d) if d.truthy() => d.py_str(),
                        _ => err_text(c, value),
                    };
                    return Err(HeatError::failed(msg));
                }
                Err(e) if e.class == ErrorClass::ValueError => {
                    return Err(HeatError::failed(e.message()))
                }
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    fn to_schema_type(&self, v: &Value) -> Result<Value> {
        let bad = || {
            HeatError::new(
                ErrorClass::ValueError,
                format!(
                    "Value \"{}\" is invalid for data type \"{}\".",
                    v.py_str(),
                    self.param_type.name()
                ),
            )
        };
        Ok(match self.param_type {
            ParamType::Number => str_to_num(v)
                .map_err(|e| {
                    if e.class == ErrorClass::ValueError {
                        bad()
                    } else {
                        e
                    }
                })?
                .to_value(),
            ParamType::String => Value::Str(v.py_str()),
            ParamType::Boolean => {
                Value::Bool(bool_from_string(&Value::Str(v.py_str())).map_err(|_| bad())?)
            }
            _ => v.clone(),
        })
    }

    fn constraint_ok(&self, c: &Constraint, value: &Value) -> Result<bool> {
        Ok(match &c.kind {
            ConstraintKind::Range { min, max } => {
                let v = str_to_num(value)?;
                within(v, min, max)?
            }
            ConstraintKind::Length { min, max } => {
                let len = py_len(value)?;
                within(Num::Int(len as i128), min, max)?
            }
            ConstraintKind::Modulo { step, offset } => {
                let v = str_to_num(value)?;
                let (s, o) = (str_to_num(step)?, str_to_num(offset)?);
                match (v, s, o) {
                    (Num::Int(v), Num::Int(s), Num::Int(o)) => {
                        let r = if s > 0 {
                            v.rem_euclid(s)
                        } else {
                            -((-v).rem_euclid(-s))
                        };
                        r == o
                    }
                    _ => {
                        let (v, s, o) = (v.f(), s.f(), o.f());
                        let r = v - s * (v / s).floor();
                        r == o
                    }
                }
            }
            ConstraintKind::AllowedValues(allowed) => {
                if let Value::List(items) = value {
                    items.iter().all(|v| allowed.iter().any(|a| a.py_eq(v)))
                } else {
                    let conv = allowed
                        .iter()
                        .map(|a| self.to_schema_type(a))
                        .collect::<Result<Vec<_>>>()?;
                    let v = self.to_schema_type(value)?;
                    conv.iter().any(|a| a.py_eq(&v))
                }
            }
            ConstraintKind::AllowedPattern { regex, .. } => {
                let Value::Str(s) = value else {
                    return Err(HeatError::new(
                        ErrorClass::TypeError,
                        format!(
                            "expected string or bytes-like object, got '{}'",
                            value.type_name()
                        ),
                    ));
                };
                match regex.find(s) {
                    Ok(Some(m)) => m.end() == s.len(),
                    Ok(None) => false,
                    Err(e) => {
                        return Err(HeatError::new(
                            ErrorClass::Limit,
                            format!("allowed_pattern: {e}"),
                        ))
                    }
                }
            }
            ConstraintKind::Custom(_) => true,
        })
    }
}

fn within(v: Num, min: &Option<Value>, max: &Option<Value>) -> Result<bool> {
    if let Some(min) = min {
        if v.lt(str_to_num(min)?) {
            return Ok(false);
        }
    }
    if let Some(max) = max {
        if str_to_num(max)?.lt(v) {
            return Ok(false);
        }
    }
    Ok(true)
}

fn py_len(v: &Value) -> Result<usize> {
    Ok(match v {
        Value::Str(s) => s.chars().count(),
        Value::Bytes(b) => b.len(),
        Value::List(l) => l.len(),
        Value::Map(m) => m.len(),
        other => {
            return Err(HeatError::new(
                ErrorClass::TypeError,
                format!("object of type '{}' has no len()", other.type_name()),
            ))
        }
    })
}

fn opt_str(v: &Option<Value>) -> String {
    v.as_ref().map_or_else(|| "None".to_owned(), Value::py_str)
}

fn json_or_repr(v: &Value) -> String {
    v.json_dumps().unwrap_or_else(|| v.py_repr())
}

/// Heat's message for a failed constraint without a description.
fn err_text(c: &Constraint, value: &Value) -> String {
    match &c.kind {
        ConstraintKind::Range { min, max } => format!(
            "{} is out of range (min: {}, max: {})",
            value.py_str(),
            opt_str(min),
            opt_str(max)
        ),
        ConstraintKind::Length { min, max } => format!(
            "length ({}) is out of range (min: {}, max: {})",
            py_len(value).unwrap_or(0),
            opt_str(min),
            opt_str(max)
        ),
        ConstraintKind::Modulo { step, offset } => format!(
            "{} is not a multiple of {} with an offset of {}",
            value.py_str(),
            step.py_str(),
            offset.py_str()
        ),
        ConstraintKind::AllowedValues(allowed) => format!(
            "{} is not an allowed value [{}]",
            json_or_repr(value),
            allowed
                .iter()
                .map(json_or_repr)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        ConstraintKind::AllowedPattern { pattern, .. } => {
            format!(
                "\"{}\" does not match pattern \"{pattern}\"",
                value.py_str()
            )
        }
        ConstraintKind::Custom(name) => {
            format!("\"{}\" does not validate {}", value.py_str(), name.py_str())
        }
    }
}

/// Heat's default text for a constraint (`Constraint._str()`), shown when
/// the template gives no description.
pub fn default_text(c: &Constraint) -> String {
    let bounds = |what: &str, min: &Option<Value>, max: &Option<Value>| match (min, max) {
        (Some(min), None) => format!("The {what} must be at least {}.", min.py_str()),
        (None, Some(max)) => format!("The {what} must be no greater than {}.", max.py_str()),
        (min, max) => format!(
            "The {what} must be in the range {} to {}.",
            opt_str(min),
            opt_str(max)
        ),
    };
    match &c.kind {
        ConstraintKind::Range { min, max } => bounds("value", min, max),
        ConstraintKind::Length { min, max } => bounds("length", min, max),
        ConstraintKind::Modulo { step, offset } => format!(
            "The value must be a multiple of {} with an offset of {}.",
            step.py_str(),
            offset.py_str()
        ),
        ConstraintKind::AllowedValues(a) => format!(
            "Allowed values: {}",
            a.iter().map(json_or_repr).collect::<Vec<_>>().join(", ")
        ),
        ConstraintKind::AllowedPattern { pattern, .. } => {
            format!("Value must match pattern: {pattern}")
        }
        ConstraintKind::Custom(name) => format!("Value must be of type {}", name.py_str()),
    }
}

/// `strutils.bool_from_string(v, strict=True)`.
fn bool_from_string(v: &Value) -> Result<bool> {
    if let Value::Bool(b) = v {
        return Ok(*b);
    }
    let s = v.py_str();
    let lowered = s.trim().to_lowercase();
    match lowered.as_str() {
        "1" | "t" | "true" | "on" | "y" | "yes" => Ok(true),
        "0" | "f" | "false" | "off" | "n" | "no" => Ok(false),
        _ => Err(HeatError::new(
            ErrorClass::ValueError,
            format!(
                "Unrecognized value '{s}', acceptable values are: '0', '1', 'f', 'false', 'n', 'no', 'off', 'on', 't', 'true', 'y', 'yes'"
            ),
        )),
    }
}

fn split_list(s: &str) -> Value {
    if s.is_empty() {
        return Value::List(Vec::new());
    }
    Value::List(s.split(',').map(|p| Value::Str(p.to_owned())).collect())
}

/// `json.loads(json.dumps(v))` for a value `json.dumps` accepts: keys
/// become strings as `json.dumps` writes them (a repeated key keeps its
/// first place and its last value), everything else stays.
fn json_round_trip(v: &Value) -> Value {
    match v {
        Value::List(l) => Value::List(l.iter().map(json_round_trip).collect()),
        Value::Map(m) => {
            let mut out: Vec<(Value, Value)> = Vec::with_capacity(m.len());
            for (k, x) in m {
                let key = match k {
                    Value::Str(s) => s.clone(),
                    other => other
                        .json_dumps()
                        .map(|t| t.trim_matches('"').to_owned())
                        .unwrap_or_default(),
                };
                let x = json_round_trip(x);
                match out.iter_mut().find(|(k, _)| k.as_str() == Some(&key)) {
                    Some(slot) => slot.1 = x,
                    None => out.push((Value::Str(key), x)),
                }
            }
            Value::Map(out)
        }
        other => other.clone(),
    }
}

/// A JSON parameter's `parse`: strings are parsed as JSON, other values
/// go through `json.dumps` and back.
fn parse_json_param(v: &Value) -> Result<Value> {
    let text = match v {
        Value::Str(s) => s.clone(),
        other => match other.json_dumps() {
            // `json.loads(json.dumps(x))`, without the text (whose NaN and
            // infinities, nested anywhere, Python reads back).
            Some(_) => return Ok(json_round_trip(other)),
            None => {
                return Err(HeatError::new(
                    ErrorClass::ValueError,
                    format!(
                        "Value must be valid JSON: Object of type {} is not JSON serializable",
                        other.type_name()
                    ),
                ))
            }
        },
    };
    if text.is_empty() {
        return Ok(v.clone());
    }
    match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(j) => Ok(Value::from_json(&j)),
        Err(e) => {
            // Python also reads NaN and the infinities, anywhere a value
            // may stand.
            let marked = mark_python_constants(&text);
            match serde_json::from_str::<serde_json::Value>(&marked) {
                Ok(j) if marked != text => Ok(unmark_python_constants(Value::from_json(&j))),
                _ => Err(HeatError::new(
                    ErrorClass::ValueError,
                    format!("Value must be valid JSON: {e}"),
                )),
            }
        }
    }
}

/// The strings standing for Python's JSON constants while serde reads
/// the text (NUL-delimited: a JSON text can only spell them escaped).
const PY_JSON_CONSTANTS: [(&str, &str, f64); 3] = [
    ("-Infinity", "\\u0000-inf\\u0000", f64::NEG_INFINITY),
    ("Infinity", "\\u0000inf\\u0000", f64::INFINITY),
    ("NaN", "\\u0000nan\\u0000", f64::NAN),
];

/// Replaces `NaN`, `Infinity` and `-Infinity` outside strings by marked
/// strings.
fn mark_python_constants(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut in_str = false;
    let mut escaped = false;
    let mut rest = text;
    'outer: while let Some(c) = rest.chars().next() {
        if in_str {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_str = false;
            }
        } else if c == '"' {
            in_str = true;
        } else {
            for (token, mark, _) in PY_JSON_CONSTANTS {
                if let Some(after) = rest.strip_prefix(token) {
                    out.push('"');
                    out.push_str(mark);
                    out.push('"');
                    rest = after;
                    continue 'outer;
                }
            }
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

fn unmark_python_constants(v: Value) -> Value {
    match v {
        Value::Str(s) => {
            for (_, mark, x) in PY_JSON_CONSTANTS {
                if s == mark.replace("\\u0000", "\0") {
                    return Value::Float(x);
                }
            }
            Value::Str(s)
        }
        Value::List(l) => Value::List(l.into_iter().map(unmark_python_constants).collect()),
        Value::Map(m) => Value::Map(
            m.into_iter()
                .map(|(k, x)| (k, unmark_python_constants(x)))
                .collect(),
        ),
        other => other,
    }
}

impl ParamSchema {
    /// The parameter's value for `user_value` (or its default):
    /// `Parameter.validate(validate_value=True)` then `value()`.
    pub fn validate_value(&self, user_value: Option<&Value>) -> Result<Value> {
        self.check()?;
        let raw = match user_value.or(self.default.as_ref()) {
            Some(v) => v,
            None => {
                return Err(HeatError::new(
                    ErrorClass::UserParameterMissing,
                    format!("The Parameter ({}) was not provided.", self.name),
                ))
            }
        };
        self.validate_typed(raw).map_err(|e| self.wrap(e))
    }

    /// `Parameter.value()`: the user value or the default, coerced to
    /// the parameter's type, without checking constraints.
    pub fn value_of(&self, user_value: Option<&Value>) -> Result<Value> {
        let Some(raw) = user_value.or(self.default.as_ref()) else {
            return Err(HeatError::new(
                ErrorClass::UserParameterMissing,
                format!("The Parameter ({}) was not provided.", self.name),
            ));
        };
        match self.param_type {
            ParamType::Number => num_value(raw),
            ParamType::Boolean => bool_from_string(&Value::Str(raw.py_str())).map(Value::Bool),
            ParamType::String => Ok(Value::Str(raw.py_str())),
            ParamType::CommaDelimitedList => match raw {
                Value::List(items) => Ok(Value::List(
                    items.iter().map(|v| Value::Str(v.py_str())).collect(),
                )),
                Value::Str(s) => Ok(split_list(s)),
                other => Err(HeatError::new(
                    ErrorClass::ValueError,
                    format!(
                        "Value must be a comma-delimited list string: '{}' object has no attribute 'split'",
                        other.type_name()
                    ),
                )),
            },
            ParamType::Json => parse_json_param(raw),
        }
    }

    fn validate_typed(&self, raw: &Value) -> Result<Value> {
        let as_failed = |e: HeatError| match e.class {
            ErrorClass::ValueError | ErrorClass::TypeError => HeatError::failed(e.message()),
            _ => e,
        };
        match self.param_type {
            ParamType::Number => {
                let n = num_value(raw).map_err(as_failed)?;
                self.validate_constraints(raw, false)?;
                Ok(n)
            }
            ParamType::Boolean => {
                bool_from_string(raw).map_err(as_failed)?;
                self.validate_constraints(raw, false)?;
                bool_from_string(&Value::Str(raw.py_str()))
                    .map(Value::Bool)
                    .map_err(as_failed)
            }
            ParamType::String => {
                self.validate_constraints(raw, false)?;
                Ok(Value::Str(raw.py_str()))
            }
            ParamType::CommaDelimitedList => {
                let parsed = match raw {
                    Value::List(items) => {
                        Value::List(items.iter().map(|v| Value::Str(v.py_str())).collect())
                    }
                    Value::Str(s) => split_list(s),
                    other => {
                        return Err(HeatError::failed(format!(
                            "Value must be a comma-delimited list string: '{}' object has no attribute 'split'",
                            other.type_name()
                        )))
                    }
                };
                self.validate_constraints(&parsed, false)?;
                Ok(parsed)
            }
            ParamType::Json => {
                let parsed = parse_json_param(raw).map_err(as_failed)?;
                self.validate_constraints(&parsed, false)?;
                Ok(parsed)
            }
        }
    }

    /// The parameter as the validate-template API shows it.
    pub fn api(&self) -> Value {
        let s = |x: &str| Value::Str(x.to_owned());
        let mut out = vec![
            (s("Type"), s(self.param_type.api_name())),
            (
                s("Description"),
                self.description
                    .clone()
                    .filter(Value::truthy)
                    .unwrap_or_else(|| s("")),
            ),
            (
                s("NoEcho"),
                s(if self.hidden.truthy() {
                    "true"
                } else {
                    "false"
                }),
            ),
            (
                s("Label"),
                self.label
                    .clone()
                    .filter(Value::truthy)
                    .unwrap_or_else(|| s(&self.name)),
            ),
        ];
        if let Some(d) = &self.default {
            out.push((s("Default"), d.clone()));
        }
        if let Some(t) = self.tags.as_ref().filter(|t| t.truthy()) {
            out.push((s("Tags"), t.clone()));
        }
        let mut descriptions = Vec::new();
        let mut set = |k: &str, v: Value| {
            if let Some(e) = out.iter_mut().find(|(key, _)| key.as_str() == Some(k)) {
                e.1 = v;
            } else {
                out.push((s(k), v));
            }
        };
        for c in &self.constraints {
            match &c.kind {
                ConstraintKind::Length { min, max } => {
                    if let Some(m) = min {
                        set("MinLength", m.clone());
                    }
                    if let Some(m) = max {
                        set("MaxLength", m.clone());
                    }
                }
                ConstraintKind::Range { min, max } => {
                    if let Some(m) = min {
                        set("MinValue", m.clone());
                    }
                    if let Some(m) = max {
                        set("MaxValue", m.clone());
                    }
                }
                ConstraintKind::Modulo { step, offset } => {
                    set("Step", step.clone());
                    set("Offset", offset.clone());
                }
                ConstraintKind::AllowedValues(a) => set("AllowedValues", Value::List(a.clone())),
                ConstraintKind::AllowedPattern { pattern, .. } => set("AllowedPattern", s(pattern)),
                ConstraintKind::Custom(name) => set("CustomConstraint", name.clone()),
            }
            if let Some(d) = c.description.as_ref().filter(|d| d.truthy()) {
                descriptions.push(d.py_str());
            }
        }
        if !descriptions.is_empty() {
            set("ConstraintDescription", s(&descriptions.join(" ")));
        }
        Value::Map(out)
    }
}

/// The parameter schemas of a template (`param_schemata()`), in
/// declaration order; the first failing parameter fails them all.
pub fn schemata(
    version: TemplateVersion,
    template: &Value,
    limits: &crate::Limits,
) -> Result<Vec<ParamSchema>> {
    let section = template.get("parameters");
    let entries: &[(Value, Value)] = match section {
        None | Some(Value::Null) => &[],
        Some(Value::Map(m)) => m,
        Some(v) if !v.truthy() => &[],
        Some(other) => {
            return Err(HeatError::new(
                ErrorClass::AttributeError_,
                format!("'{}' object has no attribute 'items'", other.type_name()),
            ))
        }
    };
    entries
        .iter()
        .map(|(k, v)| ParamSchema::from_dict(version, &k.py_str(), v, limits))
        .collect()
}

/// HOT's pseudo parameters. A template may declare one of these names
/// (its declaration wins), but it is not reported among the values.
pub const PSEUDO_PARAMETERS: [&str; 4] = [
    "OS::stack_id",
    "OS::stack_name",
    "OS::region",
    "OS::project_id",
];

/// Validates user parameter values against the schemas, as Heat builds a
/// stack's parameters and validates them: unknown names first, then each
/// parameter in declaration order. On success, every parameter's value
/// after Heat's coercion.
pub fn validate_values(
    schemas: &[ParamSchema],
    user: &[(String, Value)],
) -> Result<Vec<(String, Value)>> {
    for (name, _) in user {
        if !schemas.iter().any(|s| s.name == *name) {
            return Err(HeatError::new(
                ErrorClass::UnknownUserParameter,
                format!("The Parameter ({name}) was not defined in template."),
            ));
        }
    }
    let mut out = Vec::with_capacity(schemas.len());
    for s in schemas {
        let given = user
            .iter()
            .rev()
            .find(|(n, _)| *n == s.name)
            .map(|(_, v)| v)
            .filter(|v| **v != Value::Null);
        let v = s.validate_value(given)?;
        if !PSEUDO_PARAMETERS.contains(&s.name.as_str()) {
            out.push((s.name.clone(), v));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use crate::{Limits, Template, Value};

    fn values(text: &str, user: &[(&str, &str)]) -> crate::Result<Vec<(String, Value)>> {
        let t = Template::load(text, &Limits::default())?;
        let user: Vec<(String, Value)> = user
            .iter()
            .map(|(k, v)| ((*k).to_owned(), Value::Str((*v).to_owned())))
            .collect();
        t.parameter_values(&user)
    }

    /// Python's `re` accepts a quantifier on a lookaround (`(?=x)*`):
    /// the pattern compiles and matches as Heat's `re.match` does.
    #[test]
    fn quantified_lookaround_patterns_compile_as_in_python() {
        let text = "heat_template_version: 2015-10-15\n\
                    parameters:\n  host:\n    type: string\n    constraints:\n\
                    \x20     - allowed_pattern: '[a-z]+(?=[.][a-z])*\\.[a-z]+'\n\
                    \x20 code:\n    type: string\n    constraints:\n\
                    \x20     - allowed_pattern: '(?=[A-Z]){1,3}[A-Z0-9]+'\n";
        let t = Template::load(text, &Limits::default()).unwrap();
        assert!(t.schemas().is_ok());
        assert!(values(text, &[("host", "web.example"), ("code", "X1")]).is_ok());
        // `{1,3}` keeps the assertion: the first character must be a capital.
        let e = values(text, &[("host", "web.example"), ("code", "1X")]).unwrap_err();
        assert_eq!(
            e.message(),
            "Parameter 'code' is invalid: \"1X\" does not match pattern \"(?=[A-Z]){1,3}[A-Z0-9]+\""
        );
        // `*` allows no repetition: only the rest of the pattern counts.
        let e = values(text, &[("host", "web"), ("code", "X1")]).unwrap_err();
        assert_eq!(
            e.message(),
            "Parameter 'host' is invalid: \"web\" does not match pattern \"[a-z]+(?=[.][a-z])*\\.[a-z]+\""
        );
    }
}

#[cfg(test)]
mod json_tests {
    use crate::{Limits, Template, Value};

    /// A JSON parameter reads NaN and the infinities wherever they stand,
    /// from a string or from a default YAML gave as data.
    #[test]
    fn json_parameters_read_python_constants_anywhere() {
        let text = "heat_template_version: 2013-05-23\n\
                    parameters:\n  a:\n    type: json\n    default: {x: .inf, y: [1, .nan]}\n";
        let t = Template::load(text, &Limits::default()).unwrap();
        let got = t.parameter_values(&[]).unwrap();
        let Value::Map(m) = &got[0].1 else {
            panic!("{got:?}")
        };
        assert_eq!(m[0].1, Value::Float(f64::INFINITY));
        let user = vec![(
            "a".to_owned(),
            Value::Str("{\"x\": -Infinity, \"s\": \"NaN\"}".into()),
        )];
        let got = t.parameter_values(&user).unwrap();
        let Value::Map(m) = &got[0].1 else {
            panic!("{got:?}")
        };
        assert_eq!(m[0].1, Value::Float(f64::NEG_INFINITY));
        assert_eq!(m[1].1, Value::Str("NaN".into()));
        let bad = vec![("a".to_owned(), Value::Str("[Nan]".into()))];
        assert!(t.parameter_values(&bad).is_err());
    }

    /// A parameters section that is a list fails as Heat's `.items()` call.
    #[test]
    fn a_parameters_list_is_an_attribute_error() {
        let t = Template::load(
            "heat_template_version: 2013-05-23\nparameters: [a]\n",
            &Limits::default(),
        )
        .unwrap();
        let e = t.schemas().unwrap_err();
        assert_eq!(e.class.python_name(), "AttributeError");
        assert_eq!(e.message(), "'list' object has no attribute 'items'");
    }
}
