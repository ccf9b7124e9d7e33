//! The parsed form of template snippets (data with function calls), and
//! what Heat does with it: parsing (`Template.parse`, with each function's
//! argument checks), validation (`function.validate`), dependencies and
//! resolution (`function.resolve`), for the functions that need only
//! parameters.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::OnceLock;

use crate::error::{ErrorClass, HeatError, Result};
use crate::params::ParamSchema;
use crate::value::Value;
use crate::version::{Function, TemplateVersion};
use crate::Limits;

/// A parsed snippet, borrowing the template's data (`'v`): only the
/// structure Heat's parse gives it is built, never a copy of a leaf.
#[derive(Debug, Clone)]
pub(crate) enum Snip<'v> {
    /// A scalar (or anything that is not a collection).
    Data(&'v Value),
    /// A list.
    List(Vec<Snip<'v>>),
    /// A mapping that is not a function call.
    Map(Vec<(&'v Value, Snip<'v>)>),
    /// A function call.
    Call(Box<Call<'v>>),
    /// `if` without a false branch whose condition is false (2021-04-16):
    /// the enclosing item disappears.
    Absent,
}

/// A function call.
#[derive(Debug, Clone)]
pub(crate) struct Call<'v> {
    pub name: &'v str,
    pub f: Function,
    pub args: Snip<'v>,
}

/// `None`, for the parts of a snippet that are missing.
pub(crate) static NULL: Value = Value::Null;

fn type_err(m: impl Into<String>) -> HeatError {
    HeatError::new(ErrorClass::TypeError, m)
}
fn value_err(m: impl Into<String>) -> HeatError {
    HeatError::new(ErrorClass::ValueError, m)
}
fn key_err(m: &str) -> HeatError {
    HeatError::new(ErrorClass::KeyError, murano_yaml::py_text::repr(m))
}

fn yaql_grammar() -> &'static murano_yaql::Grammar {
    static G: OnceLock<murano_yaql::Grammar> = OnceLock::new();
    G.get_or_init(murano_yaql::Grammar::standard)
}

impl<'v> Snip<'v> {
    fn is_seq(&self) -> bool {
        matches!(
            self,
            Snip::List(_) | Snip::Data(Value::Str(_)) | Snip::Data(Value::Bytes(_))
        )
    }
    fn is_str(&self) -> bool {
        matches!(self, Snip::Data(Value::Str(_)))
    }
    /// A mapping, parsed or already resolved (the arguments `make_url`
    /// checks again after resolving them).
    fn is_map(&self) -> bool {
        matches!(self, Snip::Map(_) | Snip::Data(Value::Map(_)))
    }
    fn is_call(&self) -> bool {
        matches!(self, Snip::Call(_))
    }
    /// Data or an absent item: nothing to walk into.
    fn is_leaf(&self) -> bool {
        matches!(self, Snip::Data(_) | Snip::Absent)
    }
    /// Python truthiness of the parsed object (a function object is true).
    fn truthy(&self) -> bool {
        match self {
            Snip::Data(v) => v.truthy(),
            Snip::List(l) => !l.is_empty(),
            Snip::Map(m) => !m.is_empty(),
            Snip::Call(_) => true,
            Snip::Absent => true,
        }
    }
    fn len(&self) -> Option<usize> {
        match self {
            Snip::List(l) => Some(l.len()),
            Snip::Map(m) => Some(m.len()),
            Snip::Data(Value::Str(s)) => Some(s.chars().count()),
            _ => None,
        }
    }
    fn map_get(&self, key: &str) -> Option<&Snip<'v>> {
        match self {
            Snip::Map(m) => m
                .iter()
                .find(|(k, _)| k.as_str() == Some(key))
                .map(|(_, v)| v),
            _ => None,
        }
    }
    fn item(&self, i: usize) -> Option<&Snip<'v>> {
        match self {
            Snip::List(l) => l.get(i),
            _ => None,
        }
    }
}

/// A dotted template path (`resources.r.properties.x[0]`), built only
/// when an error needs it.
#[derive(Clone, Copy)]
pub(crate) enum DotPath<'a> {
    Root(&'a str),
    Key(&'a DotPath<'a>, &'a Value),
    Name(&'a DotPath<'a>, &'a str),
    Index(&'a DotPath<'a>, usize),
}

impl DotPath<'_> {
    pub(crate) fn render(&self) -> String {
        match self {
            DotPath::Root(s) => (*s).to_owned(),
            DotPath::Key(p, k) => format!("{}.{}", p.render(), k.py_str()),
            DotPath::Name(p, n) => format!("{}.{n}", p.render()),
            DotPath::Index(p, i) => format!("{}[{i}]", p.render()),
        }
    }
}

/// A `function.validate` path (a list; list items rename the last
/// element `parent[i]`), built only when an error needs it.
#[derive(Clone, Copy)]
pub(crate) enum ListPath<'a> {
    Root(&'a str),
    Key(&'a ListPath<'a>, &'a Value),
    Index(&'a ListPath<'a>, usize),
}

impl ListPath<'_> {
    pub(crate) fn render(&self) -> Vec<String> {
        match self {
            ListPath::Root(s) => vec![(*s).to_owned()],
            ListPath::Key(p, k) => {
                let mut v = p.render();
                v.push(k.py_str());
                v
            }
            ListPath::Index(p, i) => {
                let mut v = p.render();
                let parent = v.pop().unwrap_or_default();
                v.push(format!("{parent}[{i}]"));
                v
            }
        }
    }
}

type ParsedConditions<'a> = std::result::Result<Vec<(String, Snip<'a>)>, HeatError>;

/// The state Heat's `Stack` gives functions: the template, the parameter
/// values, the resource names and the conditions.
pub(crate) struct Env<'a> {
    pub version: TemplateVersion,
    pub limits: &'a Limits,
    pub schemas: &'a [ParamSchema],
    pub user: &'a [(String, Value)],
    /// Pseudo parameters and their values.
    pub pseudo: [(&'static str, Value); 3],
    /// The names of all resources (Python's `str()` of each key).
    pub resources: Vec<Cow<'a, str>>,
    /// Raw condition definitions.
    pub conditions_raw: &'a [(Value, Value)],
    conditions: RefCell<Option<ParsedConditions<'a>>>,
    resolved_conditions: RefCell<HashMap<String, Option<bool>>>,
}

impl<'a> Env<'a> {
    pub(crate) fn new(
        version: TemplateVersion,
        limits: &'a Limits,
        template: &'a Value,
        schemas: &'a [ParamSchema],
        user: &'a [(String, Value)],
        pseudo: [(&'static str, Value); 3],
    ) -> Env<'a> {
        let resources = match template.get("resources") {
            Some(Value::Map(m)) => m.iter().map(|(k, _)| py_str_cow(k)).collect(),
            _ => Vec::new(),
        };
        let conditions_raw = if version.has_conditions() {
            match template.get("conditions") {
                Some(Value::Map(m)) => m.as_slice(),
                _ => &[],
            }
        } else {
            &[]
        };
        Env {
            version,
            limits,
            schemas,
            user,
            pseudo,
            resources,
            conditions_raw,
            conditions: RefCell::new(None),
            resolved_conditions: RefCell::new(HashMap::new()),
        }
    }

    /// `Parameters.__getitem__`: the value of a parameter (`value()`, no
    /// validation).
    pub(crate) fn param(&self, name: &str) -> Result<Value> {
        let Some(schema) = self.schemas.iter().find(|s| s.name == name) else {
            if let Some((_, v)) = self.pseudo.iter().find(|(n, _)| *n == name) {
                return Ok(v.clone());
            }
            return Err(HeatError::new(
                ErrorClass::UserParameterMissing,
                format!("The Parameter ({name}) was not provided."),
            ));
        };
        let given = self
            .user
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v)
            .filter(|v| **v != Value::Null);
        schema.value_of(given)
    }

    // ---------------------------------------------------------------
    // Parsing

    /// `Template.parse` with the version's functions.
    pub(crate) fn parse<'v>(&self, v: &'v Value, path: &str) -> Result<Snip<'v>> {
        self.parse_in(v, &DotPath::Root(path), false, 0, 0)
    }

    /// [`Env::parse`] at a path rendered only if an error needs it.
    pub(crate) fn parse_at<'v>(&self, v: &'v Value, path: &DotPath<'_>) -> Result<Snip<'v>> {
        self.parse_in(v, path, false, 0, 0)
    }

    /// `Template.parse_condition`.
    pub(crate) fn parse_condition<'v>(&self, v: &'v Value, path: &str) -> Result<Snip<'v>> {
        self.parse_in(v, &DotPath::Root(path), true, 0, 0)
    }

    /// [`Env::parse_condition`] at a path rendered only if an error needs
    /// it.
    pub(crate) fn parse_condition_at<'v>(
        &self,
        v: &'v Value,
        path: &DotPath<'_>,
    ) -> Result<Snip<'v>> {
        self.parse_in(v, path, true, 0, 0)
    }

    fn lookup(&self, name: &str, cond: bool) -> Option<(Function, bool)> {
        // (function, invalid-in-this-context)
        if cond {
            if let Some(f) = self.version.condition_function(name) {
                return Some((f, false));
            }
            return self
                .version
                .function(name)
                .map(|f| (f, f != Function::Removed));
        }
        self.version.function(name).map(|f| (f, false))
    }

    /// `depth`: collections and calls above `v`; `calls`: function calls
    /// above `v` (bounded by [`Limits::max_function_depth`]).
    fn parse_in<'v>(
        &self,
        v: &'v Value,
        path: &DotPath<'_>,
        cond: bool,
        depth: usize,
        calls: usize,
    ) -> Result<Snip<'v>> {
        if self.too_deep(depth) {
            return Err(HeatError::new(
                ErrorClass::Limit,
                format!("template nested deeper than {}", self.limits.max_depth),
            ));
        }
        match v {
            Value::Map(m) => {
                if m.len() == 1 {
                    if let Some(name) = m[0].0.as_str() {
                        if let Some((f, invalid)) = self.lookup(name, cond) {
                            if calls >= self.limits.max_function_depth {
                                return Err(HeatError::new(
                                    ErrorClass::Limit,
                                    format!(
                                        "functions nested deeper than {} at {}",
                                        self.limits.max_function_depth,
                                        path.render()
                                    ),
                                ));
                            }
                            let fpath = DotPath::Name(path, name);
                            let wrap = |e: HeatError| match e.class {
                                ErrorClass::ValueError
                                | ErrorClass::TypeError
                                | ErrorClass::KeyError => {
                                    HeatError::validation("", vec![fpath.render()], e.message())
                                }
                                _ => e,
                            };
                            if f == Function::If && !invalid {
                                return self
                                    .parse_if(name, &m[0].1, &fpath, cond, depth, calls + 1)
                                    .map_err(wrap);
                            }
                            let args =
                                self.parse_in(&m[0].1, &fpath, cond, depth + 1, calls + 1)?;
                            if invalid {
                                return Err(wrap(value_err(format!(
                                    "The function \"{name}\" is invalid in this context"
                                ))));
                            }
                            check_args(self.version, name, f, &args).map_err(wrap)?;
                            return Ok(Snip::Call(Box::new(Call { name, f, args })));
                        }
                    }
                }
                let mut out = Vec::with_capacity(m.len());
                for (k, val) in m {
                    let p = DotPath::Key(path, k);
                    out.push((k, self.parse_in(val, &p, cond, depth + 1, calls)?));
                }
                Ok(Snip::Map(out))
            }
            Value::List(l) => {
                let mut out = Vec::with_capacity(l.len());
                for (i, val) in l.iter().enumerate() {
                    out.push(self.parse_in(
                        val,
                        &DotPath::Index(path, i),
                        cond,
                        depth + 1,
                        calls,
                    )?);
                }
                Ok(Snip::List(out))
            }
            other => Ok(Snip::Data(other)),
        }
    }

    fn parse_if<'v>(
        &self,
        name: &str,
        args: &'v Value,
        fpath: &DotPath<'_>,
        cond: bool,
        depth: usize,
        calls: usize,
    ) -> Result<Snip<'v>> {
        let form = || {
            value_err(format!(
                "Arguments to \"{name}\" must be of the form: [condition_name, value_if_true, value_if_false]"
            ))
        };
        let Value::List(items) = args else {
            return Err(form());
        };
        let nullable = self.version >= TemplateVersion::Hot20210416;
        let ok_len = if nullable {
            (2..=3).contains(&items.len())
        } else {
            items.len() == 3
        };
        if !ok_len {
            return Err(form());
        }
        let c = self.parse_condition(&items[0], name)?;
        let c = self.resolve(&c, 0)?;
        let enabled = self.condition_enabled(&c)?;
        if enabled {
            self.parse_in(&items[1], fpath, cond, depth + 1, calls)
        } else if let Some(f) = items.get(2) {
            self.parse_in(f, fpath, cond, depth + 1, calls)
        } else {
            Ok(Snip::Absent)
        }
    }

    // ---------------------------------------------------------------
    // Conditions

    /// Parses every condition definition once (the first error is kept).
    pub(crate) fn parsed_conditions(&self) -> Result<()> {
        if let Some(done) = self.conditions.borrow().as_ref() {
            return done.as_ref().map(|_| ()).map_err(Clone::clone);
        }
        let mut parsed = Vec::new();
        let mut result = Ok(());
        for (k, v) in self.conditions_raw {
            let name = k.py_str();
            match self.parse_condition(v, &format!("conditions.{name}")) {
                Ok(s) => parsed.push((name, s)),
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        *self.conditions.borrow_mut() = Some(result.clone().map(|()| parsed));
        result
    }

    /// `Conditions.validate`: each definition a boolean or a function,
    /// and its functions valid.
    pub(crate) fn validate_conditions(&self) -> Result<()> {
        self.parsed_conditions()?;
        let guard = self.conditions.borrow();
        let Some(Ok(conds)) = guard.as_ref() else {
            return Ok(());
        };
        for (name, c) in conds {
            check_condition_type(name, c)?;
            self.validate_args(c, 0)?;
        }
        Ok(())
    }

    /// `Conditions.is_enabled` for a resolved condition reference.
    pub(crate) fn condition_enabled(&self, c: &Value) -> Result<bool> {
        match c {
            Value::Null => Ok(true),
            Value::Bool(b) => Ok(*b),
            Value::Str(name) => self.condition_named(name),
            other => Err(value_err(format!(
                "Invalid condition \"{}\"",
                other.py_str()
            ))),
        }
    }

    fn condition_named(&self, name: &str) -> Result<bool> {
        self.parsed_conditions()?;
        if let Some(r) = self.resolved_conditions.borrow().get(name) {
            return match r {
                Some(b) => Ok(*b),
                None => Err(HeatError::validation(
                    "Condition validation error",
                    Vec::new(),
                    format!("Circular definition for condition \"{name}\""),
                )),
            };
        }
        // The parsed definitions stay borrowed while resolving: they are
        // complete by now, so nothing replaces them meanwhile.
        let guard = self.conditions.borrow();
        let Some(Ok(conds)) = guard.as_ref() else {
            return Err(value_err(format!("Invalid condition \"{name}\"")));
        };
        let Some((_, snip)) = conds.iter().find(|(n, _)| n == name) else {
            return Err(value_err(format!("Invalid condition \"{name}\"")));
        };
        self.resolved_conditions
            .borrow_mut()
            .insert(name.to_owned(), None);
        let resolved = self.resolve(snip, 0)?;
        drop(guard);
        let b = match resolved {
            Value::Bool(b) => b,
            other => {
                return Err(HeatError::validation(
                    "Condition validation error",
                    Vec::new(),
                    format!(
                        "The definition of condition \"{name}\" is invalid: {}",
                        other.py_str()
                    ),
                ))
            }
        };
        self.resolved_conditions
            .borrow_mut()
            .insert(name.to_owned(), Some(b));
        Ok(b)
    }

    /// Every condition's value, in definition order.
    pub(crate) fn all_conditions(&self) -> Result<Vec<(String, Result<bool>)>> {
        self.parsed_conditions()?;
        let names: Vec<String> = self
            .conditions_raw
            .iter()
            .map(|(k, _)| k.py_str())
            .collect();
        Ok(names
            .into_iter()
            .map(|n| {
                let r = self.condition_named(&n);
                (n, r)
            })
            .collect())
    }

    // ---------------------------------------------------------------
    // Validation

    /// `function.validate(snippet, path)`.
    pub(crate) fn validate_snip(&self, s: &Snip, path: &ListPath<'_>, depth: usize) -> Result<()> {
        self.check_snippet_depth(depth)?;
        match s {
            Snip::Call(c) => self.validate_call(c, depth).map_err(|e| {
                let mut p = path.render();
                p.push(c.name.to_owned());
                HeatError::validation("", p, e.message())
            }),
            Snip::Map(m) => {
                for (k, v) in m {
                    if !v.is_leaf() {
                        self.validate_snip(v, &ListPath::Key(path, k), depth + 1)?;
                    }
                }
                self.check_leaf_depth(depth + 1, m.len())
            }
            Snip::List(l) => {
                for (i, v) in l.iter().enumerate() {
                    if !v.is_leaf() {
                        self.validate_snip(v, &ListPath::Index(path, i), depth + 1)?;
                    }
                }
                self.check_leaf_depth(depth + 1, l.len())
            }
            Snip::Data(_) | Snip::Absent => Ok(()),
        }
    }

    /// What visiting the leaves (data, absent items) of a collection of
    /// `items` items, at `depth`, does in the walks of
    /// [`Env::validate_snip`] and [`Env::dependencies`]: nothing but their
    /// depth check, the same error as for any other item at that depth,
    /// so the walks skip the calls.
    fn check_leaf_depth(&self, depth: usize, items: usize) -> Result<()> {
        if items > 0 {
            self.check_snippet_depth(depth)?;
        }
        Ok(())
    }

    /// Whether `depth` is past the bound every walk of a template shares
    /// ([`Limits::max_depth`] plus [`Limits::max_function_depth`]).
    fn too_deep(&self, depth: usize) -> bool {
        depth > self.limits.max_depth as usize + self.limits.max_function_depth
    }

    /// The validation walks' depth check.
    fn check_snippet_depth(&self, depth: usize) -> Result<()> {
        if self.too_deep(depth) {
            return Err(HeatError::new(
                ErrorClass::Limit,
                "snippet nested too deeply",
            ));
        }
        Ok(())
    }

    /// `function.validate(snippet)` with no path (a function's own
    /// arguments).
    fn validate_args(&self, s: &Snip, depth: usize) -> Result<()> {
        match s {
            Snip::Call(c) => self
                .validate_call(c, depth)
                .map_err(|e| HeatError::validation("", vec![c.name.to_owned()], e.message())),
            Snip::Map(m) => {
                for (k, v) in m {
                    if !v.is_leaf() {
                        let path = ListPath::Key(&ListPath::Root("\u{0}"), k);
                        self.validate_snip(v, &path, depth + 1)
                            .map_err(strip_root)?;
                    }
                }
                self.check_leaf_depth(depth + 1, m.len())
            }
            Snip::List(l) => {
                for (i, v) in l.iter().enumerate() {
                    if !v.is_leaf() {
                        let path = ListPath::Index(&ListPath::Root("\u{0}"), i);
                        self.validate_snip(v, &path, depth + 1)
                            .map_err(strip_root)?;
                    }
                }
                self.check_leaf_depth(depth + 1, l.len())
            }
            Snip::Data(_) | Snip::Absent => Ok(()),
        }
    }

    fn validate_call(&self, c: &Call, depth: usize) -> Result<()> {
        use Function::*;
        match c.f {
            Removed => {
                return Err(HeatError::new(
                    ErrorClass::InvalidTemplateVersion,
                    format!(
                        "The template version is invalid: The function {} is not supported in this version of HOT.",
                        c.name
                    ),
                ))
            }
            _ => self.validate_args(&c.args, depth + 1)?,
        }
        match c.f {
            GetAttr => {
                let name = self.get_attr_resource(&c.args, depth + 1)?;
                // Python's `==` between a name and the value: only an
                // equal string.
                if !self.is_resource(&name) {
                    return Err(invalid_reference(&name, "unknown"));
                }
                if let Some(a) = get_attr_attribute(&c.args) {
                    // Every attribute of a generic resource is valid, but
                    // the name must resolve.
                    self.resolve(a, depth + 1)?;
                }
            }
            Repeat => {
                if let Some(fe) = c.args.map_get("for_each") {
                    if !fe.is_call() && !fe.is_map() {
                        return Err(type_err(format!(
                            "The \"for_each\" argument to \"{}\" must contain a map",
                            c.name
                        )));
                    }
                }
            }
            Yaql => {
                if let Some(expr) = c.args.map_get("expression") {
                    if !expr.is_call() {
                        let Snip::Data(Value::Str(e)) = expr else {
                            return Err(type_err(format!(
                                "The \"expression\" argument to {} must contain a string.",
                                c.name
                            )));
                        };
                        if let Err(err) = yaql_grammar().parse(e) {
                            return Err(value_err(format!("Bad expression {err}.")));
                        }
                    }
                }
            }
            MakeUrl => {
                let Snip::Map(m) = &c.args else {
                    return Err(type_err(format!(
                        "The arguments to \"{}\" must be a map",
                        c.name
                    )));
                };
                const KEYS: [&str; 8] = [
                    "scheme", "username", "password", "host", "port", "path", "query", "fragment",
                ];
                let invalid: Vec<String> = m
                    .iter()
                    .filter(|(k, _)| !k.as_str().is_some_and(|k| KEYS.contains(&k)))
                    .map(|(k, _)| k.py_str())
                    .collect();
                if !invalid.is_empty() {
                    return Err(value_err(format!(
                        "Invalid arguments to \"{}\": {}",
                        c.name,
                        invalid.join(", ")
                    )));
                }
                check_make_url_args(c.name, m)?;
            }
            _ => {}
        }
        Ok(())
    }

    // ---------------------------------------------------------------
    // Dependencies

    /// Whether `name` is one of the template's resources (Python's `==`
    /// between a resource name and the value: only an equal string).
    pub(crate) fn is_resource(&self, name: &Value) -> bool {
        name.as_str()
            .is_some_and(|name| self.resources.iter().any(|r| r == name))
    }

    /// The rendered path of a reference, needed only when it names no
    /// resource (for [`invalid_reference`]); empty otherwise.
    fn path_if_unknown(&self, name: &Value, path: &DotPath<'_>) -> String {
        if self.is_resource(name) {
            String::new()
        } else {
            path.render()
        }
    }

    /// `function.dependencies`: every resource named by `get_resource` /
    /// `get_attr`, with the path Heat reports for a missing one (empty,
    /// never rendered, for a resource that exists).
    pub(crate) fn dependencies(
        &self,
        s: &Snip,
        path: &DotPath<'_>,
        out: &mut Vec<(Value, String)>,
        depth: usize,
    ) -> Result<()> {
        self.check_snippet_depth(depth)?;
        match s {
            Snip::Call(c) => {
                let p = DotPath::Name(path, c.name);
                match c.f {
                    Function::GetResource => {
                        self.dependencies(&c.args, &p, out, depth + 1)?;
                        let name = hashable(self.resolve(&c.args, depth + 1)?)?;
                        let shown = self.path_if_unknown(&name, path);
                        out.push((name, shown));
                    }
                    Function::GetAttr => {
                        self.dependencies(&c.args, &p, out, depth + 1)?;
                        let name = hashable(self.get_attr_resource(&c.args, depth + 1)?)?;
                        let shown = self.path_if_unknown(&name, path);
                        out.push((name, shown));
                    }
                    _ => self.dependencies(&c.args, &p, out, depth + 1)?,
                }
            }
            Snip::Map(m) => {
                for (k, v) in m {
                    if !v.is_leaf() {
                        self.dependencies(v, &DotPath::Key(path, k), out, depth + 1)?;
                    }
                }
                self.check_leaf_depth(depth + 1, m.len())?;
            }
            Snip::List(l) => {
                for (i, v) in l.iter().enumerate() {
                    if !v.is_leaf() {
                        self.dependencies(v, &DotPath::Index(path, i), out, depth + 1)?;
                    }
                }
                self.check_leaf_depth(depth + 1, l.len())?;
            }
            _ => {}
        }
        Ok(())
    }

    // ---------------------------------------------------------------
    // Resolution

    /// `function.resolve`.
    pub(crate) fn resolve(&self, s: &Snip, depth: usize) -> Result<Value> {
        Ok(self.resolve_opt(s, depth)?.unwrap_or(Value::Null))
    }

    /// Resolution; `None` for an absent `if` branch.
    fn resolve_opt(&self, s: &Snip, depth: usize) -> Result<Option<Value>> {
        if self.too_deep(depth) {
            return Err(HeatError::new(
                ErrorClass::Limit,
                "functions nested too deeply",
            ));
        }
        Ok(Some(match s {
            Snip::Data(v) => (*v).clone(),
            Snip::Absent => return Ok(None),
            Snip::List(l) => {
                let mut out = Vec::with_capacity(l.len());
                for v in l {
                    if let Some(r) = self.resolve_opt(v, depth + 1)? {
                        out.push(r);
                    }
                }
                Value::List(out)
            }
            Snip::Map(m) => {
                let mut out = Vec::with_capacity(m.len());
                for (k, v) in m {
                    if let Some(r) = self.resolve_opt(v, depth + 1)? {
                        out.push(((*k).clone(), r));
                    }
                }
                Value::Map(out)
            }
            Snip::Call(c) => crate::resolve::call(self, c, depth + 1)?,
        }))
    }
}

/// Drops the placeholder root of a path built by `validate_args`.
fn strip_root(mut e: HeatError) -> HeatError {
    if let Some(first) = e.path.first_mut() {
        if let Some(rest) = first.strip_prefix('\u{0}') {
            *first = rest.to_owned();
            if first.is_empty() {
                e.path.remove(0);
            }
        }
    }
    e
}

/// Python's `str()` of a value, borrowed when it is a string.
pub(crate) fn py_str_cow(v: &Value) -> Cow<'_, str> {
    match v {
        Value::Str(s) => Cow::Borrowed(s),
        other => Cow::Owned(other.py_str()),
    }
}

pub(crate) fn invalid_reference(name: &Value, key: &str) -> HeatError {
    HeatError::new(
        ErrorClass::InvalidTemplateReference,
        format!(
            "The specified reference \"{}\" (in {key}) is incorrect.",
            name.py_str()
        ),
    )
}

impl Env<'_> {
    /// The resolved resource argument of a parsed `get_attr` (`args[0]`:
    /// of a string, its first character).
    fn get_attr_resource(&self, args: &Snip<'_>, depth: usize) -> Result<Value> {
        match args {
            Snip::List(l) => self.resolve(l.first().unwrap_or(&Snip::Data(&NULL)), depth),
            Snip::Data(Value::Str(s)) => {
                let first = Value::Str(s.chars().next().map(String::from).unwrap_or_default());
                self.resolve(&Snip::Data(&first), depth)
            }
            _ => self.resolve(&Snip::Data(&NULL), depth),
        }
    }
}

/// The attribute argument of a parsed `get_attr` (`args[1]`).
fn get_attr_attribute<'s, 'v>(args: &'s Snip<'v>) -> Option<&'s Snip<'v>> {
    match args {
        Snip::List(l) => l.get(1),
        _ => None,
    }
}

/// `stack[name]` needs a hashable name.
fn hashable(name: Value) -> Result<Value> {
    match name {
        Value::List(_) | Value::Map(_) => {
            Err(type_err(format!("unhashable type: '{}'", name.type_name())))
        }
        other => Ok(other),
    }
}

fn check_condition_type(name: &str, c: &Snip) -> Result<()> {
    if matches!(c, Snip::Data(Value::Bool(_)) | Snip::Call(_)) {
        return Ok(());
    }
    let shown = match snip_data(c) {
        Some(v) => v.py_str(),
        None => "<definition>".to_owned(),
    };
    Err(HeatError::validation(
        "Condition validation error",
        Vec::new(),
        format!("The definition of condition \"{name}\" is invalid: {shown}"),
    ))
}

/// The data a parsed snippet holds when it calls no function (Python
/// shows such a definition as the plain dict or list).
fn snip_data(s: &Snip) -> Option<Value> {
    match s {
        Snip::Data(v) => Some((*v).clone()),
        Snip::List(l) => l
            .iter()
            .map(snip_data)
            .collect::<Option<Vec<_>>>()
            .map(Value::List),
        Snip::Map(m) => m
            .iter()
            .map(|(k, v)| snip_data(v).map(|v| ((*k).clone(), v)))
            .collect::<Option<Vec<_>>>()
            .map(Value::Map),
        Snip::Call(_) | Snip::Absent => None,
    }
}

pub(crate) fn check_make_url_args(name: &str, m: &[(&Value, Snip<'_>)]) -> Result<()> {
    const KEYS: [&str; 8] = [
        "scheme", "username", "password", "host", "port", "path", "query", "fragment",
    ];
    for key in KEYS {
        let Some((_, v)) = m.iter().find(|(k, _)| k.as_str() == Some(key)) else {
            continue;
        };
        match key {
            "query" => {
                if !v.is_call() && !v.is_map() {
                    return Err(type_err(format!(
                        "The \"query\" argument to \"{name}\" must be a map"
                    )));
                }
                return Ok(());
            }
            "port" => {
                if v.is_call() {
                    continue;
                }
                let port =
                    match v {
                        Snip::Data(Value::Int(n)) => i128::from(*n),
                        Snip::Data(Value::Bool(b)) => i128::from(*b),
                        Snip::Data(Value::Str(s)) => match murano_yaql::pyint::parse(s) {
                            Ok(n) => i128::from(n),
                            Err(_) => {
                                return Err(value_err(format!(
                                    "Invalid URL port \"{s}\" for {name} called with {{...}}"
                                )))
                            }
                        },
                        Snip::Data(Value::Float(x)) => *x as i128,
                        _ => return Err(type_err(
                            "int() argument must be a string, a bytes-like object or a real number",
                        )),
                    };
                if !(1..=65535).contains(&port) {
                    return Err(value_err(format!(
                        "Invalid URL port {port}, must be in range 1-65535"
                    )));
                }
            }
            _ => {
                if !v.is_call() && !v.is_str() {
                    return Err(type_err(format!(
                        "The \"{key}\" argument to \"{name}\" must be a string"
                    )));
                }
            }
        }
    }
    Ok(())
}

/// The argument checks each function's constructor makes.
fn check_args(version: TemplateVersion, name: &str, f: Function, args: &Snip) -> Result<()> {
    use Function::*;
    match f {
        GetAttr => {
            let too_few = || {
                value_err(format!(
                    "Arguments to \"{name}\" must be of the form [resource_name, attribute, (path), ...]"
                ))
            };
            let not_list = || type_err(format!("Argument to \"{name}\" must be a list"));
            if version >= TemplateVersion::Hot20151015 {
                if !args.truthy() {
                    return Err(value_err(format!(
                        "Arguments to \"{name}\" can be of the next forms: [resource_name] or [resource_name, attribute, (path), ...]"
                    )));
                }
                if !args.is_seq() || (args.len().unwrap_or(0) > 1 && args.is_str()) {
                    return Err(not_list());
                }
            } else {
                if !args.is_seq() || args.is_str() {
                    return Err(not_list());
                }
                if args.len().unwrap_or(0) < 2 {
                    return Err(too_few());
                }
            }
        }
        StrReplace | StrReplaceStrict | StrReplaceVstrict => {
            if !args.is_map() {
                return Err(type_err(format!("Arguments to \"{name}\" must be a map")));
            }
            let (Some(params), Some(_)) = (args.map_get("params"), args.map_get("template")) else {
                return Err(key_err(&format!(
                    "\"{name}\" syntax should be {name}:\n              template: This is var1 template var2\n              params:\n                var1: a\n                var2: string"
                )));
            };
            if !params.is_map() && !params.is_call() {
                return Err(type_err(format!("\"{name}\" parameters must be a mapping")));
            }
        }
        ListJoin => {
            let multiple = version >= TemplateVersion::Hot20151015;
            let example = if multiple {
                format!("\"{name}\" : [ \" \", [ \"str1\", \"str2\"] ...]")
            } else {
                format!("\"{name}\" : [ \" \", [ \"str1\", \"str2\"]]")
            };
            let msg = format!("Incorrect arguments to \"{name}\" should be: {example}");
            let Snip::List(l) = args else {
                return Err(type_err(msg));
            };
            if (multiple && l.len() < 2) || (!multiple && l.len() != 2) {
                return Err(value_err(msg));
            }
        }
        ResourceFacade => {
            let ok = matches!(args, Snip::Data(Value::Str(s)) if ["metadata", "deletion_policy", "update_policy"].contains(&s.as_str()));
            if !ok {
                return Err(value_err(format!(
                    "Incorrect arguments to \"{name}\" should be one of: metadata, deletion_policy, update_policy"
                )));
            }
        }
        Repeat => {
            if !args.is_map() {
                return Err(type_err(format!("Arguments to \"{name}\" must be a map")));
            }
            if args.map_get("for_each").is_none() || args.map_get("template").is_none() {
                return Err(key_err(
                    "\"repeat\" syntax should be repeat:\n              template: This is %var%\n              for_each:\n                %var%: ['a', 'b', 'c']",
                ));
            }
            if version >= TemplateVersion::Hot20170901 {
                if let Some(p) = args.map_get("permutations") {
                    if !matches!(p, Snip::Data(Value::Bool(_))) {
                        return Err(type_err(format!(
                            "\"permutations\" should be boolean type for {name} function."
                        )));
                    }
                }
            }
        }
        StrSplit if args.is_str() || args.is_map() => {
            return Err(type_err(format!(
                "Incorrect arguments to \"{name}\" should be: \"{name}\" : [ \",\", \"apples,pears\", <index>]"
            )));
        }
        Yaql => {
            if !args.is_map() {
                return Err(type_err(format!("Arguments to \"{name}\" must be a map.")));
            }
            let Snip::Map(m) = args else { return Ok(()) };
            let extra = m
                .iter()
                .any(|(k, _)| !matches!(k.as_str(), Some("expression") | Some("data")));
            if args.map_get("expression").is_none() || extra {
                return Err(key_err(&format!(
                    "\"{name}\" syntax should be {name}:\n              expression: $.data.var1.sum()\n              data:\n                var1: [3, 2, 1]"
                )));
            }
        }
        Equals => {
            let form = || {
                value_err(format!(
                    "Arguments to \"{name}\" must be of the form: [value_1, value_2]"
                ))
            };
            match args {
                Snip::List(l) if l.len() == 2 => {}
                _ => return Err(form()),
            }
        }
        And | Or => {
            if !args.is_seq() || args.is_str() {
                return Err(value_err(format!(
                    "Arguments to \"{name}\" must be a list of conditions"
                )));
            }
            if !args.truthy() || args.len().unwrap_or(0) < 2 {
                return Err(value_err(format!(
                    "The minimum number of condition arguments to \"{name}\" is 2."
                )));
            }
        }
        Not => {
            if matches!(args, Snip::Data(Value::Null)) {
                return Err(value_err(format!(
                    "Argument to \"{name}\" must be a condition"
                )));
            }
        }
        Filter => {
            if !args.is_seq() || args.is_str() {
                return Err(type_err(format!("Argument to \"{name}\" must be a list")));
            }
            let n = args.len().unwrap_or(0);
            if n != 2 {
                return Err(value_err(format!(
                    "\"{name}\" expected 2 arguments of the form [values, sequence] but got {n} arguments instead"
                )));
            }
        }
        Contains => {
            let Snip::List(l) = args else {
                return Err(type_err(format!(
                    "Incorrect arguments to \"{name}\" should be: \"{name}\" : [ \"value1\", [ \"value1\", \"value2\"]]"
                )));
            };
            if l.is_empty() {
                return Err(type_err(format!(
                    "Incorrect arguments to \"{name}\" should be: \"{name}\" : [ \"value1\", [ \"value1\", \"value2\"]]"
                )));
            }
            if l.len() != 2 {
                return Err(value_err(format!(
                    "Arguments to \"{name}\" must be of the form: [value1, [value1, value2]]"
                )));
            }
        }
        _ => {}
    }
    let _ = args.item(0);
    Ok(())
}
