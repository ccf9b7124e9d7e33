//! Applying a contract to data: Murano's `transform`, `validate` and
//! `check_type`.

use std::sync::Arc;

use murano_yaql::eval::{
    Arg, Call, Context, Dict, Engine, Error as YaqlError, ErrorKind as YaqlErrorKind, FunctionDef,
    Library, Value,
};

use super::error::{ContractError, ContractErrorKind};
use super::host::ObjectHost;
use super::python::{format_scalar, py_int, py_str};
use super::spec::{node_to_value, ContractSpec, DictContract, DictKey, ExprContract, ListContract};
use crate::yaml::{Node, Value as YamlValue};

/// The YAQL side of a package runtime version: Murano's engine and function
/// library for it. Runtime 1.0 and 1.1 use yaql's legacy library and
/// `ENGINE_10` options; later runtimes the standard library and
/// `ENGINE_12`.
///
/// ```
/// use murano_dsl::contract::Runtime;
/// assert!(Runtime::new(1, 0).is_legacy());
/// assert!(!Runtime::new(1, 4).is_legacy());
/// ```
#[derive(Debug)]
pub struct Runtime {
    version: (u32, u32),
    engine: Engine,
    library: Arc<Library>,
}

impl Runtime {
    /// The runtime of a package format `major.minor`.
    pub fn new(major: u32, minor: u32) -> Runtime {
        let legacy = (major, minor) <= (1, 1);
        let mut library = if legacy {
            Library::legacy()
        } else {
            Library::standard(false)
        };
        crate::functions::register(
            &mut library,
            (major, minor),
            Arc::new(crate::functions::Standalone),
        );
        Runtime {
            version: (major, minor),
            engine: Engine::murano(!legacy),
            library: Arc::new(library),
        }
    }

    /// The runtime version.
    ///
    /// ```
    /// assert_eq!(murano_dsl::contract::Runtime::new(1, 3).version(), (1, 3));
    /// ```
    pub fn version(&self) -> (u32, u32) {
        self.version
    }

    /// True for runtime 1.0 and 1.1 (yaql's legacy mode).
    pub fn is_legacy(&self) -> bool {
        self.version <= (1, 1)
    }

    /// The YAQL engine (Murano's grammar, `ENGINE_10` or `ENGINE_12`
    /// options).
    ///
    /// ```
    /// let rt = murano_dsl::contract::Runtime::new(1, 0);
    /// assert!(rt.engine().options().iterable_dicts);
    /// ```
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// The function library.
    ///
    /// ```
    /// let rt = murano_dsl::contract::Runtime::new(1, 4);
    /// assert!(rt.library().names().contains(&"len"));
    /// ```
    pub fn library(&self) -> &Arc<Library> {
        &self.library
    }

    /// A fresh root context over the library (add `$this` and the like for
    /// a [`Scope`]).
    ///
    /// ```
    /// let ctx = murano_dsl::contract::Runtime::new(1, 4).root_context();
    /// assert!(ctx.get("$this").is_none());
    /// ```
    pub fn root_context(&self) -> Context {
        Context::new(self.library.clone())
    }
}

/// Where a contract is applied: the runtime, the caller's context (in which
/// defaults and `check()` predicates are evaluated: `$this`, class
/// functions…), the object store, and the object that owns the value.
///
/// ```
/// use std::sync::Arc;
/// use murano_dsl::contract::{MemoryHost, Runtime, Scope};
/// use murano_yaql::eval::Value;
///
/// let runtime = Arc::new(Runtime::new(1, 4));
/// let ctx = runtime.root_context().with("$limit", Value::Int(3));
/// let scope = Scope::new(runtime, Arc::new(MemoryHost::new())).with_context(ctx);
/// assert!(scope.context.get("$limit").is_some());
/// ```
#[derive(Clone)]
pub struct Scope {
    /// The runtime.
    pub runtime: Arc<Runtime>,
    /// The caller's context.
    pub context: Context,
    /// The object store.
    pub host: Arc<dyn ObjectHost>,
    /// The object whose property or method this is (`owned()` checks).
    pub this: Option<Value>,
    /// The owner for objects created by `class()`.
    pub owner: Option<Value>,
}

impl std::fmt::Debug for Scope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scope")
            .field("runtime", &self.runtime.version)
            .finish_non_exhaustive()
    }
}

impl Scope {
    /// A scope with the runtime's root context and no `this` or owner.
    pub fn new(runtime: Arc<Runtime>, host: Arc<dyn ObjectHost>) -> Scope {
        Scope {
            context: runtime.root_context(),
            runtime,
            host,
            this: None,
            owner: None,
        }
    }

    /// The same scope with another caller context.
    pub fn with_context(mut self, context: Context) -> Scope {
        self.context = context;
        self
    }

    /// The same scope with `this` (the object `owned()` and `notOwned()`
    /// look for among the owners of the value).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use murano_dsl::contract::{Contract, MemoryHost, Runtime, Scope};
    ///
    /// let mut host = MemoryHost::new();
    /// host.add_class("io.murano.Object", &[]);
    /// let env = host.add_object("env", "io.murano.Object", None);
    /// let app = host.add_object("app", "io.murano.Object", Some("env"));
    /// let scope = Scope::new(Arc::new(Runtime::new(1, 4)), Arc::new(host)).with_this(env);
    /// let owned = Contract::parse_yaml("$.owned()")?;
    /// assert_eq!(owned.transform(&scope, Some(&app), None)?.value, app);
    /// # Ok::<(), murano_dsl::contract::ContractError>(())
    /// ```
    pub fn with_this(mut self, this: Value) -> Scope {
        self.this = Some(this);
        self
    }

    /// The same scope with an owner for the objects `class()` creates from
    /// model dictionaries.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use murano_dsl::contract::{MemoryHost, Runtime, Scope};
    /// use murano_yaql::eval::Value;
    ///
    /// let scope = Scope::new(Arc::new(Runtime::new(1, 4)), Arc::new(MemoryHost::new()))
    ///     .with_owner(Value::Null);
    /// assert_eq!(scope.owner, Some(Value::Null));
    /// ```
    pub fn with_owner(mut self, owner: Value) -> Scope {
        self.owner = Some(owner);
        self
    }
}

/// The result of [`Contract::transform`]: the value and whether a mapping
/// is Murano's `FrozenDict` or a plain `dict`.
#[derive(Debug, Clone, PartialEq)]
pub struct Transformed {
    /// The transformed value. Lists Murano returns as tuples are
    /// [`Value::Tuple`]; lists passed through unchanged stay
    /// [`Value::List`].
    pub value: Value,
    plain_dict: bool,
}

impl Transformed {
    /// The Python type name of the value as Murano returns it: `tuple`,
    /// `list`, `FrozenDict`, `dict`, `str`, `int`, `float`, `bool`,
    /// `NoneType`, …
    ///
    /// ```
    /// use std::sync::Arc;
    /// use murano_dsl::contract::{Contract, MemoryHost, Runtime, Scope};
    /// use murano_yaql::eval::Value;
    ///
    /// let scope = Scope::new(Arc::new(Runtime::new(1, 4)), Arc::new(MemoryHost::new()));
    /// let t = Contract::parse_yaml("[$.int()]")?.transform(&scope, Some(&Value::str("3")), None)?;
    /// assert_eq!(t.python_type(), "tuple");
    /// assert_eq!(t.value, Value::tuple(vec![Value::Int(3)]));
    /// let t = Contract::parse_yaml("{}")?.transform(&scope, None, None)?;
    /// assert_eq!(t.python_type(), "dict");
    /// # Ok::<(), murano_dsl::contract::ContractError>(())
    /// ```
    pub fn python_type(&self) -> &str {
        match &self.value {
            Value::Dict(_) if self.plain_dict => "dict",
            Value::Dict(_) => "FrozenDict",
            Value::Object(o) => o.type_name(),
            other => other.type_name(),
        }
    }
}

/// A contract ready to apply.
///
/// ```
/// use std::sync::Arc;
/// use murano_dsl::contract::{Contract, MemoryHost, Runtime, Scope};
/// use murano_yaql::eval::Value;
///
/// let scope = Scope::new(Arc::new(Runtime::new(1, 4)), Arc::new(MemoryHost::new()));
/// let contract = Contract::parse_yaml("{host: $.string().notNull(), port: $.int().check($ > 0)}")?;
/// let data = Value::dict([(Value::str("host"), Value::str("h")), (Value::str("port"), Value::str("80"))]);
/// let out = contract.transform(&scope, Some(&data), None)?;
/// assert_eq!(out.value, Value::dict([(Value::str("host"), Value::str("h")), (Value::str("port"), Value::Int(80))]));
///
/// let bad = Value::dict([(Value::str("host"), Value::str("h")), (Value::str("port"), Value::Int(0))]);
/// let err = contract.transform(&scope, Some(&bad), None).unwrap_err();
/// assert_eq!((err.path.as_str(), err.message.as_str()), ("['port']", "Value 0 doesn't match predicate"));
/// assert!(!contract.check_type(&scope, Some(&bad), None)?);
/// # Ok::<(), murano_dsl::contract::ContractError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Contract {
    spec: ContractSpec,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Transform,
    Validate,
    CheckType,
    /// Murano's finalize context: every contract method returns its value
    /// but `template()`, which turns its object into the object's model.
    Finalize,
}

impl Contract {
    /// A contract from its tree.
    ///
    /// ```
    /// use murano_dsl::contract::{Contract, ContractSpec};
    /// let c = Contract::new(ContractSpec::parse_yaml("$.int()")?);
    /// assert!(matches!(c.spec(), ContractSpec::Expression(_)));
    /// # Ok::<(), murano_dsl::contract::ContractError>(())
    /// ```
    pub fn new(spec: ContractSpec) -> Contract {
        Contract { spec }
    }

    /// A contract from the YAML node of a `Contract:` key.
    ///
    /// ```
    /// use murano_dsl::contract::Contract;
    /// use murano_dsl::yaml::{load_class_file, LoadOptions};
    ///
    /// let file = load_class_file(b"Properties:\n  port:\n    Contract: $.int()\n", &LoadOptions::default())
    ///     .unwrap();
    /// let port = file.documents[0].value.get("Properties").unwrap().value.get("port").unwrap();
    /// let contract = Contract::from_node(port.value.get("Contract").unwrap())?;
    /// assert_eq!(contract, Contract::parse_yaml("$.int()")?);
    /// # Ok::<(), murano_dsl::contract::ContractError>(())
    /// ```
    pub fn from_node(node: &Node) -> Result<Contract, ContractError> {
        ContractSpec::from_node(node).map(Contract::new)
    }

    /// A contract from YAML text (see [`ContractSpec::parse_yaml`]).
    ///
    /// ```
    /// assert!(murano_dsl::contract::Contract::parse_yaml("[$.int(), 1]").is_ok());
    /// ```
    pub fn parse_yaml(text: &str) -> Result<Contract, ContractError> {
        ContractSpec::parse_yaml(text).map(Contract::new)
    }

    /// The tree.
    ///
    /// ```
    /// use murano_dsl::contract::{Contract, ContractSpec};
    /// let c = Contract::parse_yaml("[]")?;
    /// assert!(matches!(c.spec(), ContractSpec::List(l) if l.items.is_empty()));
    /// # Ok::<(), murano_dsl::contract::ContractError>(())
    /// ```
    pub fn spec(&self) -> &ContractSpec {
        &self.spec
    }

    /// Murano's `Contract.transform`: coerces `data` (`None` is NO_VALUE,
    /// "not given", which takes the evaluated `default`, or null).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use murano_dsl::contract::{Contract, MemoryHost, Runtime, Scope};
    /// use murano_dsl::yaml::{load_single, Flavor, LoadOptions};
    /// use murano_yaql::eval::Value;
    ///
    /// let scope = Scope::new(Arc::new(Runtime::new(1, 4)), Arc::new(MemoryHost::new()));
    /// let contract = Contract::parse_yaml("$.string()")?;
    /// assert_eq!(contract.transform(&scope, Some(&Value::Bool(true)), None)?.value, Value::str("True"));
    /// let default = load_single(b"6 * 7", Flavor::Engine, &LoadOptions::default()).unwrap().unwrap();
    /// assert_eq!(contract.transform(&scope, None, Some(&default))?.value, Value::str("42"));
    /// # Ok::<(), murano_dsl::contract::ContractError>(())
    /// ```
    pub fn transform(
        &self,
        scope: &Scope,
        data: Option<&Value>,
        default: Option<&Node>,
    ) -> Result<Transformed, ContractError> {
        let value = self.execute(Mode::Transform, scope, data, default, true)?;
        let plain_dict = matches!(&self.spec, ContractSpec::Dict(d) if d.entries.is_empty());
        Ok(Transformed { value, plain_dict })
    }

    /// Murano's `Contract.transform(..., finalize=False)`: as
    /// [`Contract::transform`], but a `template()` keeps the object it
    /// loaded (no model yet); [`Contract::finalize`] finishes. Murano
    /// transforms so when several classes of an object's hierarchy declare
    /// a property, so that the others validate the object.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use murano_dsl::contract::{Contract, MemoryHost, Runtime, Scope};
    /// use murano_yaql::eval::Value;
    ///
    /// let scope = Scope::new(Arc::new(Runtime::new(1, 0)), Arc::new(MemoryHost::new()));
    /// let contract = Contract::parse_yaml("$.int()")?;
    /// let t = contract.transform_unfinalized(&scope, Some(&Value::str("7")), None)?;
    /// assert_eq!(contract.finalize(&scope, &t.value)?, Value::Int(7));
    /// # Ok::<(), murano_dsl::contract::ContractError>(())
    /// ```
    pub fn transform_unfinalized(
        &self,
        scope: &Scope,
        data: Option<&Value>,
        default: Option<&Node>,
    ) -> Result<Transformed, ContractError> {
        let value = self.execute(Mode::Transform, scope, data, default, false)?;
        let plain_dict = matches!(&self.spec, ContractSpec::Dict(d) if d.entries.is_empty());
        Ok(Transformed { value, plain_dict })
    }

    /// Murano's `Contract.finalize`: what [`Contract::transform_unfinalized`]
    /// left to do (a `template()`'s object becomes its model).
    pub fn finalize(&self, scope: &Scope, data: &Value) -> Result<Value, ContractError> {
        self.execute(Mode::Finalize, scope, Some(data), None, true)
    }

    /// Murano's `Contract.validate`: strict checks, no coercion (`string()`
    /// accepts only strings, `int()` only integers, `bool()` only booleans;
    /// null passes them all).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use murano_dsl::contract::{Contract, MemoryHost, Runtime, Scope};
    /// use murano_yaql::eval::Value;
    ///
    /// let scope = Scope::new(Arc::new(Runtime::new(1, 4)), Arc::new(MemoryHost::new()));
    /// let contract = Contract::parse_yaml("$.int()")?;
    /// assert!(contract.validate(&scope, Some(&Value::Int(5)), None).is_ok());
    /// assert_eq!(contract.validate(&scope, Some(&Value::str("5")), None).unwrap_err().message, "");
    /// # Ok::<(), murano_dsl::contract::ContractError>(())
    /// ```
    pub fn validate(
        &self,
        scope: &Scope,
        data: Option<&Value>,
        default: Option<&Node>,
    ) -> Result<(), ContractError> {
        self.execute(Mode::Validate, scope, data, default, true)
            .map(|_| ())
    }

    /// Murano's `Contract.check_type`: `validate` with violations turned
    /// into `false`; other errors (YAQL errors, malformed contracts) pass
    /// through.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use murano_dsl::contract::{Contract, MemoryHost, Runtime, Scope};
    /// use murano_yaql::eval::Value;
    ///
    /// let scope = Scope::new(Arc::new(Runtime::new(1, 4)), Arc::new(MemoryHost::new()));
    /// let contract = Contract::parse_yaml("$.check($ > 0)")?;
    /// assert!(contract.check_type(&scope, Some(&Value::Int(1)), None)?);
    /// assert!(!contract.check_type(&scope, Some(&Value::Int(0)), None)?);
    /// // Comparing a string with 0 is a YAQL error, not a violation.
    /// let err = contract.check_type(&scope, Some(&Value::str("x")), None).unwrap_err();
    /// assert_eq!(err.python_type(), "NoMatchingFunctionException");
    /// # Ok::<(), murano_dsl::contract::ContractError>(())
    /// ```
    pub fn check_type(
        &self,
        scope: &Scope,
        data: Option<&Value>,
        default: Option<&Node>,
    ) -> Result<bool, ContractError> {
        match self.execute(Mode::CheckType, scope, data, default, true) {
            Ok(_) => Ok(true),
            Err(e) if e.is_violation() => Ok(false),
            Err(e) => Err(e),
        }
    }

    fn execute(
        &self,
        mode: Mode,
        scope: &Scope,
        data: Option<&Value>,
        default: Option<&Node>,
        finalize: bool,
    ) -> Result<Value, ContractError> {
        let data = match data {
            Some(v) => v.clone(),
            None => match default {
                Some(node) => evaluate_default(node, scope)?,
                None => Value::Null,
            },
        };
        // The passkey of a template's excluded property passes unchecked
        // (`check_type` says no).
        if super::passkey::is_passkey(&data) {
            return match mode {
                Mode::CheckType => Err(ContractError::violation(String::new())),
                _ => Ok(data),
            };
        }
        let state = Arc::new(State {
            mode,
            finalize,
            root: scope.context.clone(),
            host: scope.host.clone(),
            this: scope.this.clone(),
            owner: scope.owner.clone(),
        });
        let mut context = scope.runtime.root_context().child();
        register_functions(&mut context, &state);
        let mapper = Mapper {
            engine: scope.runtime.engine(),
            context,
        };
        mapper.map(data, &self.spec, "")
    }
}

/// Murano's `helpers.evaluate` of a default: expressions evaluated in the
/// caller's context, lists frozen into tuples, mappings into frozen
/// dictionaries.
fn evaluate_default(node: &Node, scope: &Scope) -> Result<Value, ContractError> {
    Ok(match &node.value {
        YamlValue::Yaql(y) => {
            let query = scope.runtime.engine().compile_parsed(&y.expression);
            let v = query
                .evaluate_raw(&scope.context)
                .map_err(|e| ContractError::from_yaql(&e))?;
            freeze(v)?
        }
        YamlValue::Seq(items) => Value::tuple(
            items
                .iter()
                .map(|n| evaluate_default(n, scope))
                .collect::<Result<_, _>>()?,
        ),
        YamlValue::Set(items) => Value::Set(Arc::new(
            items
                .iter()
                .map(|n| evaluate_default(n, scope))
                .collect::<Result<_, _>>()?,
        )),
        YamlValue::Map(pairs) | YamlValue::Pairs(pairs) => {
            let mut out = Dict::default();
            for (k, v) in pairs {
                out.insert(evaluate_default(k, scope)?, evaluate_default(v, scope)?);
            }
            Value::Dict(Arc::new(out))
        }
        _ => node_to_value(node)?,
    })
}

/// The most items an iterator result may have (`dsl_iterators_limit`).
const ITERATOR_LIMIT: usize = 2000;

/// Murano's `#finalize` of an expression result (`helpers.evaluate` with
/// freezing): lists become tuples, dictionaries frozen, iterators tuples.
fn freeze(v: Value) -> Result<Value, ContractError> {
    Ok(match v {
        Value::List(items) | Value::Tuple(items) => Value::tuple(
            items
                .iter()
                .cloned()
                .map(freeze)
                .collect::<Result<_, _>>()?,
        ),
        Value::Dict(d) => {
            let mut out = Dict::default();
            for (k, x) in d.iter() {
                out.insert(freeze(k.clone())?, freeze(x.clone())?);
            }
            Value::Dict(Arc::new(out))
        }
        Value::Set(s) => Value::Set(Arc::new(
            s.iter().cloned().map(freeze).collect::<Result<_, _>>()?,
        )),
        Value::Iter(it) => {
            let mut items = Vec::new();
            for item in it.take() {
                if items.len() >= ITERATOR_LIMIT {
                    return Err(ContractError::new(
                        ContractErrorKind::Yaql(YaqlErrorKind::CollectionTooLarge),
                        format!("Collection length exceeds {ITERATOR_LIMIT} elements"),
                    ));
                }
                items.push(freeze(item.map_err(|e| ContractError::from_yaql(&e))?)?);
            }
            Value::tuple(items)
        }
        other => other,
    })
}

/// What the contract functions of one application share.
struct State {
    mode: Mode,
    /// In `Transform` mode: whether `template()` finalizes (returns the
    /// model) or keeps its object for [`Contract::finalize`].
    finalize: bool,
    root: Context,
    host: Arc<dyn ObjectHost>,
    this: Option<Value>,
    owner: Option<Value>,
}

impl State {
    /// A host error raised by a contract function: the structured
    /// [`ContractError`] travels as the evaluation error's cause, and
    /// [`Mapper::map_expression`] takes it back from there.
    fn fail(&self, e: ContractError) -> YaqlError {
        YaqlError::new(YaqlErrorKind::Host, e.message.clone()).with_source(e)
    }

    fn violation(&self, message: impl Into<String>) -> YaqlError {
        self.fail(ContractError::violation(message))
    }

    /// Lifts an error raised by a host call inside a contract function.
    fn lift(&self, r: Result<Value, ContractError>) -> Result<Value, YaqlError> {
        r.map_err(|e| self.fail(e))
    }
}

struct Mapper<'a> {
    engine: &'a Engine,
    context: Context,
}

impl Mapper<'_> {
    fn map(&self, data: Value, spec: &ContractSpec, path: &str) -> Result<Value, ContractError> {
        if super::passkey::is_passkey(&data) {
            return Ok(data);
        }
        match spec {
            ContractSpec::Expression(e) => self.map_expression(data, e, path),
            ContractSpec::Dict(d) => self.map_dict(data, d, path),
            ContractSpec::List(l) => self.map_list(data, l, path),
            ContractSpec::Scalar(s) => {
                if &data == s {
                    Ok(data)
                } else {
                    Err(ContractError::violation(format!(
                        "Value {} is not equal to {}",
                        format_scalar(&data),
                        py_str(s)
                    )))
                }
            }
        }
    }

    fn map_expression(
        &self,
        data: Value,
        e: &ExprContract,
        path: &str,
    ) -> Result<Value, ContractError> {
        let ctx = self.context.child().with("$", data);
        let query = self.engine.compile_parsed(&e.expression);
        match query.evaluate_raw(&ctx) {
            Ok(v) => freeze(v),
            Err(err) => {
                let mut e = match (err.kind(), err.downcast_ref::<ContractError>()) {
                    (YaqlErrorKind::Host, Some(cause)) => cause.clone(),
                    _ => ContractError::from_yaql(&err),
                };
                if e.is_violation() {
                    e.path = path.to_owned();
                }
                Err(e)
            }
        }
    }

    fn map_dict(
        &self,
        data: Value,
        spec: &DictContract,
        path: &str,
    ) -> Result<Value, ContractError> {
        let data = match data {
            Value::Null => Arc::default(),
            Value::Dict(d) => d,
            other => {
                return Err(ContractError::violation(format!(
                    "Value {} is not of a dictionary type",
                    format_scalar(&other)
                )))
            }
        };
        if spec.entries.is_empty() {
            return Ok(Value::Dict(data));
        }
        let mut result = Dict::default();
        let mut expression_key: Option<(&ExprContract, &ContractSpec)> = None;
        for (key, value_spec) in &spec.entries {
            match key {
                DictKey::Expression(e) => {
                    if expression_key.is_some() {
                        return Err(ContractError::new(
                            ContractErrorKind::Syntax,
                            "Dictionary contract cannot have more than one expression key",
                        ));
                    }
                    expression_key = Some((e, value_spec));
                }
                DictKey::Fixed(k) => {
                    let item = data.get(k).cloned().unwrap_or(Value::Null);
                    let item_path = format!("{path}[{}]", format_scalar(k));
                    let mapped = self.map(item, value_spec, &item_path)?;
                    result.insert(k.clone(), mapped);
                }
            }
        }
        if let Some((key_spec, value_spec)) = expression_key {
            let key_spec = ContractSpec::Expression(key_spec.clone());
            for (k, v) in data.iter() {
                if result.contains_key(k) {
                    continue;
                }
                let new_key = self.map(k.clone(), &key_spec, path)?;
                let item_path = format!("{path}[{}]", format_scalar(&new_key));
                let mapped = self.map(v.clone(), value_spec, &item_path)?;
                result.insert(new_key, mapped);
            }
        }
        Ok(Value::Dict(Arc::new(result)))
    }

    fn map_list(
        &self,
        data: Value,
        spec: &ListContract,
        path: &str,
    ) -> Result<Value, ContractError> {
        let items: Arc<Vec<Value>> = match data {
            Value::List(v) | Value::Tuple(v) if spec.items.is_empty() => {
                return Ok(Value::List(v));
            }
            Value::List(v) | Value::Tuple(v) => v,
            Value::Iter(it) => {
                let mut v = Vec::new();
                for item in it.take() {
                    if v.len() >= ITERATOR_LIMIT {
                        return Err(ContractError::new(
                            ContractErrorKind::Yaql(YaqlErrorKind::CollectionTooLarge),
                            format!("Collection length exceeds {ITERATOR_LIMIT} elements"),
                        ));
                    }
                    v.push(item.map_err(|e| ContractError::from_yaql(&e))?);
                }
                Arc::new(v)
            }
            Value::Null => Arc::new(Vec::new()),
            other => Arc::new(vec![other]),
        };
        if spec.items.is_empty() {
            return Ok(Value::List(items));
        }
        let len = i64::try_from(items.len()).unwrap_or(i64::MAX);
        let min = spec.min_length();
        match spec.max_length() {
            Some(max) if !(min <= len && len <= max) => {
                return Err(ContractError::violation(format!(
                    "Array length {len} is not within [{min}..{max}] range"
                )));
            }
            None if len < min => {
                return Err(ContractError::violation(format!(
                    "Array length {len} must not be less than {min}"
                )));
            }
            _ => {}
        }
        let item_specs = spec.item_specs();
        let mut out = Vec::with_capacity(items.len());
        for (index, item) in items.iter().enumerate() {
            let item_spec = item_specs
                .get(index)
                .or_else(|| item_specs.last())
                .ok_or_else(|| {
                    ContractError::new(ContractErrorKind::IndexError, "list index out of range")
                })?;
            out.push(self.map(item.clone(), item_spec, &format!("{path}[{index}]"))?);
        }
        Ok(Value::tuple(out))
    }
}

/// Registers the contract methods in `context` (each a method taking any
/// receiver, as Murano's contract factories are).
fn register_functions(context: &mut Context, state: &Arc<State>) {
    register_namespace_operator(context);
    if state.mode == Mode::Finalize {
        // Every contract method's `finalize()` returns its value, but
        // `template()`'s.
        for (name, params) in [
            ("string", "value"),
            ("int", "value"),
            ("bool", "value"),
            ("notNull", "value"),
            ("check", "value, ~predicate, msg="),
            ("class", "value, ~name, ~defaultName=, versionSpec="),
            ("owned", "value"),
            ("notOwned", "value"),
        ] {
            context.register(
                FunctionDef::native(name, params, |call| Ok(call.value(0)?.clone())).method(),
            );
        }
        let s = state.clone();
        context.register(
            FunctionDef::native(
                "template",
                "value, ~type, ~defaultType=, versionSpec=, excludeProperties=",
                move |call| template(&s, call),
            )
            .method(),
        );
        return;
    }
    let s = state.clone();
    context.register(
        FunctionDef::native("string", "value", move |call| string(&s, call.value(0)?)).method(),
    );
    let s = state.clone();
    context.register(
        FunctionDef::native("int", "value", move |call| int(&s, call.value(0)?)).method(),
    );
    let s = state.clone();
    context.register(
        FunctionDef::native("bool", "value", move |call| boolean(&s, call.value(0)?)).method(),
    );
    let s = state.clone();
    context.register(
        FunctionDef::native("notNull", "value", move |call| {
            let v = call.value(0)?;
            if v.is_null() {
                Err(s.violation("null value violates notNull() contract"))
            } else {
                Ok(v.clone())
            }
        })
        .method(),
    );
    let s = state.clone();
    context.register(
        FunctionDef::native("check", "value, ~predicate, msg=", move |call| {
            check(&s, call)
        })
        .method(),
    );
    let s = state.clone();
    context.register(
        FunctionDef::native(
            "class",
            "value, ~name, ~defaultName=, versionSpec=",
            move |call| class(&s, call),
        )
        .method(),
    );
    let s = state.clone();
    context.register(
        FunctionDef::native(
            "template",
            "value, ~type, ~defaultType=, versionSpec=, excludeProperties=",
            move |call| template(&s, call),
        )
        .method(),
    );
    let s = state.clone();
    context.register(
        FunctionDef::native("owned", "value", move |call| {
            owned(&s, call.value(0)?, true)
        })
        .method(),
    );
    let s = state.clone();
    context.register(
        FunctionDef::native("notOwned", "value", move |call| {
            owned(&s, call.value(0)?, false)
        })
        .method(),
    );
}

/// `ns:Name` and `:Name` evaluate to the text as written, which the host
/// resolves (Murano's `:` operator resolves namespaces itself).
fn register_namespace_operator(context: &mut Context) {
    context.register(FunctionDef::native("#operator_:", "ns, name", |call| {
        Ok(Value::str(&format!(
            "{}:{}",
            call.string(0)?,
            call.string(1)?
        )))
    }));
    context.register(FunctionDef::native("#unary_operator_:", "name", |call| {
        Ok(Value::str(&format!(":{}", call.string(0)?)))
    }));
}

fn string(s: &State, v: &Value) -> Result<Value, YaqlError> {
    if s.mode != Mode::Transform {
        return match v {
            Value::Null | Value::Str(_) => Ok(v.clone()),
            _ => Err(s.violation("")),
        };
    }
    match v {
        Value::Null | Value::Str(_) => Ok(v.clone()),
        Value::Int(_) | Value::Bool(_) => Ok(Value::str(&v.py_str())),
        _ => match s.host.object_info(v) {
            Some(info) => Ok(Value::str(&info.id)),
            None => Err(s.violation(format!(
                "Value {} violates string() contract",
                format_scalar(v)
            ))),
        },
    }
}

fn int(s: &State, v: &Value) -> Result<Value, YaqlError> {
    if s.mode != Mode::Transform {
        return match v {
            Value::Null | Value::Int(_) => Ok(v.clone()),
            _ => Err(s.violation("")),
        };
    }
    if v.is_null() {
        return Ok(Value::Null);
    }
    match py_int(v) {
        Some(n) => Ok(Value::Int(n)),
        None => Err(s.violation(format!(
            "Value {} violates int() contract",
            format_scalar(v)
        ))),
    }
}

fn boolean(s: &State, v: &Value) -> Result<Value, YaqlError> {
    if s.mode != Mode::Transform {
        return match v {
            Value::Null | Value::Bool(_) => Ok(v.clone()),
            _ => Err(s.violation("")),
        };
    }
    Ok(match v {
        Value::Null => Value::Null,
        other => Value::Bool(other.truthy()),
    })
}

fn check(s: &State, call: &mut Call<'_>) -> Result<Value, YaqlError> {
    let value = call.value(0)?.clone();
    let message = call.opt_string(2)?.map(str::to_owned);
    let predicate = call.need_lambda(1)?;
    let ctx = s.root.child().with("$", value.clone());
    if predicate.call_in(&ctx)?.truthy() {
        return Ok(value);
    }
    let message = match message {
        Some(m) if !m.is_empty() => m,
        _ => format!("Value {} doesn't match predicate", format_scalar(&value)),
    };
    Err(s.violation(message))
}

/// The class a lazy type argument names, resolved by the host.
fn type_argument(s: &State, call: &Call<'_>, i: usize) -> Result<Option<String>, YaqlError> {
    let name = match call.arg(i) {
        None | Some(Arg::Missing) => return Ok(None),
        Some(Arg::Lazy(_)) => match call.need_lambda(i)?.call(&[])? {
            Value::Null => return Ok(None),
            Value::Str(t) => t.to_string(),
            _ => return Err(YaqlError::mismatch()),
        },
        Some(Arg::Value(Value::Null)) => return Ok(None),
        Some(Arg::Value(Value::Str(t))) => t.to_string(),
        Some(_) => return Err(YaqlError::mismatch()),
    };
    s.host.resolve_class(&name).map(Some).map_err(|e| s.fail(e))
}

fn class_validate(
    s: &State,
    v: Value,
    class: &str,
    version: Option<&str>,
) -> Result<Value, YaqlError> {
    if v.is_null() || s.host.is_instance_of(&v, class, version) {
        return Ok(v);
    }
    match s.host.object_info(&v) {
        None => Err(s.violation("Value is not an object")),
        Some(info) => Err(s.violation(format!(
            "Object of type {} is not compatible with requested type {class}",
            info.class
        ))),
    }
}

fn class(s: &State, call: &mut Call<'_>) -> Result<Value, YaqlError> {
    let value = call.value(0)?.clone();
    let version = call.opt_string(3)?.map(str::to_owned);
    let Some(class) = type_argument(s, call, 1)? else {
        return Err(YaqlError::mismatch());
    };
    let default_class = type_argument(s, call, 2)?.unwrap_or_else(|| class.clone());
    if s.mode != Mode::Transform {
        return class_validate(s, value, &class, version.as_deref());
    }
    let object = match &value {
        Value::Null => return Ok(Value::Null),
        Value::Dict(_) => {
            s.lift(
                s.host
                    .load_object(&value, s.owner.as_ref(), &default_class, false),
            )?
        }
        Value::Str(id) => match s.host.find_object(id) {
            Some(o) => o,
            None => {
                return Err(s.fail(ContractError::new(
                    ContractErrorKind::NoObjectFound,
                    format!("Object \"{id}\" is not found in object store"),
                )))
            }
        },
        v if s.host.object_info(v).is_some() => v.clone(),
        v => {
            return Err(s.violation(format!(
                "Value {} cannot be represented as class {class}",
                format_scalar(v)
            )))
        }
    };
    class_validate(s, object, &class, version.as_deref())
}

fn template(s: &State, call: &mut Call<'_>) -> Result<Value, YaqlError> {
    let value = call.value(0)?.clone();
    let version = call.opt_string(3)?.map(str::to_owned);
    let excluded: Vec<String> = match call.opt(4)? {
        None | Some(Value::Null) => Vec::new(),
        Some(v) => match v.as_slice() {
            Some(items) => items
                .iter()
                .filter_map(|i| i.as_str().map(str::to_owned))
                .collect(),
            None => return Err(YaqlError::mismatch()),
        },
    };
    let Some(class) = type_argument(s, call, 1)? else {
        return Err(YaqlError::mismatch());
    };
    let default_class = type_argument(s, call, 2)?.unwrap_or_else(|| class.clone());
    match s.mode {
        Mode::CheckType if matches!(value, Value::Dict(_)) => return Ok(value),
        Mode::Validate | Mode::CheckType => {
            return class_validate(s, value, &class, version.as_deref())
        }
        Mode::Finalize => return Ok(template_model(s, value, &excluded)),
        Mode::Transform => {}
    }
    let object = match &value {
        Value::Null => return Ok(Value::Null),
        Value::Dict(d) => {
            let model = with_passkeys(d, &excluded);
            s.lift(s.host.load_object(
                &Value::Dict(Arc::new(model)),
                s.owner.as_ref(),
                &default_class,
                true,
            ))?
        }
        v if s.host.object_info(v).is_some() => v.clone(),
        v => {
            return Err(s.violation(format!(
                "Value {} cannot be represented as class {class}",
                format_scalar(v)
            )))
        }
    };
    let object = class_validate(s, object, &class, version.as_deref())?;
    if !s.finalize {
        return Ok(object);
    }
    Ok(template_model(s, object, &excluded))
}

/// `template()`'s finalize: the object's model, without the excluded
/// properties (anything but an object stays as it is).
fn template_model(s: &State, object: Value, excluded: &[String]) -> Value {
    if s.host.object_info(&object).is_none() {
        return object;
    }
    let model = s.host.serialize(&object).unwrap_or_default();
    match model {
        Value::Dict(d) => {
            let mut d = (*d).clone();
            for p in excluded {
                remove_path(&mut d, p);
            }
            Value::Dict(Arc::new(d))
        }
        Value::Null => Value::Dict(Arc::default()),
        other => other,
    }
}

/// An object definition whose `excluded` properties (dotted paths into
/// nested mappings) hold the contract passkey, as Murano's
/// `patch_dict(props, path, passkey)`: a top-level name is set whether
/// given or not, a nested one only where its parent mappings exist. In
/// any of the definition's forms: `{":Class": {props}, ...}` (the
/// properties under the type key, a type name or reference, as in
/// Murano's `parse_object_definition`), or the properties beside a `?`
/// header.
fn with_passkeys(model: &Dict, excluded: &[String]) -> Dict {
    let mut model = model.clone();
    if excluded.is_empty() {
        return model;
    }
    let type_key = model
        .keys()
        .find(|k| match k {
            Value::Str(s) => &**s != "?" && s.contains(':'),
            // A type reference (`:Class` evaluated in MuranoPL).
            Value::Object(_) => true,
            _ => false,
        })
        .cloned();
    match type_key {
        Some(key) => {
            let mut props = match model.get(&key) {
                Some(Value::Dict(props)) => (**props).clone(),
                _ => Dict::default(),
            };
            for p in excluded {
                set_path(&mut props, p, super::passkey::passkey());
            }
            model.insert(key, Value::Dict(Arc::new(props)));
        }
        None => {
            for p in excluded {
                set_path(&mut model, p, super::passkey::passkey());
            }
        }
    }
    model
}

/// Sets `path` (dotted) in nested mappings that exist.
fn set_path(d: &mut Dict, path: &str, value: Value) {
    match path.split_once('.') {
        None => {
            d.insert(Value::str(path), value);
        }
        Some((head, rest)) => {
            if let Some(Value::Dict(inner)) = d.get(&Value::str(head)) {
                let mut inner = (**inner).clone();
                set_path(&mut inner, rest, value);
                d.insert(Value::str(head), Value::Dict(Arc::new(inner)));
            }
        }
    }
}

fn remove_path(d: &mut Dict, path: &str) {
    match path.split_once('.') {
        None => {
            d.shift_remove(&Value::str(path));
        }
        Some((head, rest)) => {
            if let Some(Value::Dict(inner)) = d.get(&Value::str(head)) {
                let mut inner = (**inner).clone();
                remove_path(&mut inner, rest);
                d.insert(Value::str(head), Value::Dict(Arc::new(inner)));
            }
        }
    }
}

fn owned(s: &State, v: &Value, want_owned: bool) -> Result<Value, YaqlError> {
    if v.is_null() {
        return Ok(Value::Null);
    }
    if s.host.object_info(v).is_none() {
        return Err(s.violation(format!("Value {} is not an object", py_str(v))));
    }
    let is_owned = s
        .this
        .as_ref()
        .is_some_and(|this| s.host.is_owned_by(v, this));
    if is_owned == want_owned {
        Ok(v.clone())
    } else {
        let which = if want_owned { "owned()" } else { "notOwned()" };
        Err(s.violation(format!("Object {} violates {which} contract", py_str(v))))
    }
}

#[cfg(test)]
mod exclusion_tests {
    use super::*;

    fn dict(pairs: &[(&str, Value)]) -> Dict {
        let mut d = Dict::default();
        for (k, v) in pairs {
            d.insert(Value::str(k), v.clone());
        }
        d
    }

    #[test]
    fn excluded_properties_in_every_form_and_nested() {
        let inner = Value::Dict(Arc::new(dict(&[
            ("x", Value::Int(1)),
            ("y", Value::Int(2)),
        ])));
        let props = dict(&[("a", Value::Int(1)), ("b", inner)]);
        let excluded = vec![
            "a".to_owned(),
            "b.y".to_owned(),
            "missing.z".to_owned(),
            "c".to_owned(),
        ];
        let shown = |d: Dict| {
            // The passkey shows as `<<Contract Passkey> object>`.
            format!("{:?}", Value::Dict(Arc::new(d))).replace("<<Contract Passkey> object>", "KEY")
        };
        // Properties beside a header: the excluded ones hold the passkey
        // (a top-level one even when absent, a nested one only where its
        // parent mapping is given).
        let mut full = props.clone();
        full.insert(Value::str("?"), Value::Dict(Arc::default()));
        let out = with_passkeys(&full, &excluded);
        assert_eq!(
            shown(out),
            "{'a': KEY, 'b': {'x': 1, 'y': KEY}, '?': {}, 'c': KEY}"
        );
        // Properties under a type key.
        let short = dict(&[(":Class", Value::Dict(Arc::new(props)))]);
        let out = with_passkeys(&short, &excluded);
        assert_eq!(
            shown(out),
            "{':Class': {'a': KEY, 'b': {'x': 1, 'y': KEY}, 'c': KEY}}"
        );
    }

    #[test]
    fn the_passkey_passes_every_contract_but_check_type() {
        use crate::contract::{passkey, MemoryHost, Runtime, Scope};
        let scope = Scope::new(Arc::new(Runtime::new(1, 0)), Arc::new(MemoryHost::new()));
        let key = passkey();
        for text in ["$.int().notNull()", "[$.string()]", "{a: $.int()}", "1"] {
            let c = Contract::parse_yaml(text).unwrap();
            let out = c.transform(&scope, Some(&key), None).unwrap().value;
            assert!(crate::contract::is_passkey(&out), "{text}");
            assert!(c.validate(&scope, Some(&key), None).is_ok(), "{text}");
            assert!(!c.check_type(&scope, Some(&key), None).unwrap(), "{text}");
        }
        // Inside a structure too.
        let c = Contract::parse_yaml("{a: $.int().notNull(), b: $.int()}").unwrap();
        let mut d = Dict::default();
        d.insert(Value::str("a"), key);
        d.insert(Value::str("b"), Value::str("7"));
        let out = c
            .transform(&scope, Some(&Value::Dict(Arc::new(d))), None)
            .unwrap();
        assert_eq!(
            format!("{:?}", out.value).replace("<<Contract Passkey> object>", "KEY"),
            "{'a': KEY, 'b': 7}"
        );
    }
}
