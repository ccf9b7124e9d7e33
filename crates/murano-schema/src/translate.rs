//! Contracts as JSON schema: Murano's `translate` and the
//! schema-generation mode of its contract methods.

use std::sync::Arc;

use murano_dsl::contract::{
    class_name_of, ChainCall, ContractSpec, DictKey, ExprContract, Runtime,
};
use murano_dsl::model::{MethodUsage, NameError, PropertyUsage};
use murano_dsl::registry::{ClassId, QueryError};
use murano_yaml::{Node, Value as YamlValue};
use murano_yaql::eval::Value as YValue;
use murano_yaql::{Constant, Expr, ExprKind, Number};
use serde_json::{Map, Value as Json};

use crate::meta::yaml_to_yaql;
use crate::{Catalog, ErrorClass, SchemaError};

/// How deep static methods may call each other while folding constants.
const MAX_FOLD_DEPTH: usize = 16;

/// The class a contract is translated for (its names scope and `$this`)
/// and the runtime its declaring package uses.
pub(crate) struct Translator<'a> {
    pub catalog: &'a Catalog,
    pub class: ClassId,
    /// The class declaring the contract (`class` or an ancestor), for
    /// the note on Murano's inherited-contract resolution.
    pub declaring: ClassId,
    pub runtime: Arc<Runtime>,
}

/// Translates one contract into JSON schema, as Murano does when
/// generating the schema of `class` (whose namespaces resolve `class()`
/// names and whose static members `check()` constants may use).
/// `runtime` is the MuranoPL runtime of the package declaring the
/// contract. A scalar contract translates to `null`.
///
/// ```
/// use murano_dsl::contract::ContractSpec;
/// use murano_dsl::version::Version;
/// use murano_schema::{translate_contract, CatalogBuilder};
/// use serde_json::json;
///
/// let mut builder = CatalogBuilder::new();
/// builder.add_class_directory("io.murano", Version::new(0, 0, 0), (1, 4),
///     vec![("O.yaml".into(), b"Name: io.murano.Object".to_vec())])?;
/// let catalog = builder.build();
/// let object = catalog.registry().find_class("io.murano.Object", None).unwrap();
///
/// let spec = ContractSpec::parse_yaml("- $.string().check($ in [a, b])\n- 1").unwrap();
/// let schema = translate_contract(&catalog, object, &spec, (1, 4))?;
/// assert_eq!(schema, json!({
///     "type": "array",
///     "items": {"type": ["string", "null"], "enum": ["a", "b"]},
/// }));
/// # Ok::<(), murano_schema::SchemaError>(())
/// ```
pub fn translate_contract(
    catalog: &Catalog,
    class: ClassId,
    contract: &ContractSpec,
    runtime: (u32, u32),
) -> Result<Json, SchemaError> {
    let t = Translator {
        catalog,
        class,
        declaring: class,
        runtime: Arc::new(Runtime::new(runtime.0, runtime.1)),
    };
    Ok(t.translate(contract)?.unwrap_or(Json::Null))
}

fn name_error(e: &NameError) -> SchemaError {
    match e {
        NameError::UnknownPrefix(p) => {
            SchemaError::new("KeyError", format!("'Unknown namespace prefix {p}'"))
        }
        other => SchemaError::new("ValueError", other.to_string()),
    }
}

pub(crate) fn query_error(e: &QueryError) -> SchemaError {
    SchemaError::new(e.python_exception(), e.to_string())
}

fn is_dollar(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Variable(v) if &**v == "$" || &**v == "$1")
}

fn uses_dollar(e: &Expr) -> bool {
    is_dollar(e) || e.children().into_iter().any(uses_dollar)
}

fn constant_value(c: &Constant) -> YValue {
    match c {
        Constant::Null => YValue::Null,
        Constant::Bool(b) => YValue::Bool(*b),
        Constant::Number(Number::Int(n)) => YValue::Int(*n),
        Constant::Number(Number::BigInt(digits)) => YValue::str(digits),
        Constant::Number(Number::Float(f)) => YValue::Float(*f),
        Constant::String(s) => YValue::str(s),
    }
}

/// A YAQL value as JSON ([`murano_yaml::convert::to_json`]: sequences
/// become arrays, mappings objects).
pub(crate) fn to_json(v: &YValue) -> Json {
    murano_yaml::convert::to_json(v, &murano_yaml::convert::ToJson::default())
}

enum Fold {
    Value(YValue),
    /// A YAQL error (or `$`): not a constant.
    NotConstant,
}

impl Translator<'_> {
    /// `translate`: `None` for a scalar contract.
    pub(crate) fn translate(&self, spec: &ContractSpec) -> Result<Option<Json>, SchemaError> {
        Ok(match spec {
            ContractSpec::Dict(d) => {
                let mut properties = Map::new();
                let mut additional = Json::Bool(false);
                for (key, value) in &d.entries {
                    let schema = self.translate(value)?.unwrap_or(Json::Null);
                    match key {
                        DictKey::Expression(_) => additional = schema,
                        DictKey::Fixed(k) => {
                            let name = match k {
                                YValue::Str(s) => s.to_string(),
                                other => other.py_str(),
                            };
                            properties.insert(name, schema);
                        }
                    }
                }
                let mut out = Map::new();
                out.insert("type".into(), Json::from("object"));
                out.insert("properties".into(), Json::Object(properties));
                out.insert("additionalProperties".into(), additional);
                Some(Json::Object(out))
            }
            ContractSpec::List(l) => {
                // Python's isinstance(x, int) is true for booleans too.
                let mut items = Vec::new();
                for item in &l.items {
                    if matches!(item, ContractSpec::Scalar(YValue::Int(_) | YValue::Bool(_))) {
                        continue;
                    }
                    items.push(self.translate(item)?.unwrap_or(Json::Null));
                }
                let mut out = Map::new();
                out.insert("type".into(), Json::from("array"));
                match items.len() {
                    0 => {}
                    1 => {
                        out.insert("items".into(), items.remove(0));
                    }
                    _ => {
                        let last = items.last().cloned().unwrap_or(Json::Null);
                        out.insert("items".into(), Json::Array(items));
                        out.insert("additionalItems".into(), last);
                    }
                }
                Some(Json::Object(out))
            }
            ContractSpec::Expression(e) => Some(Json::Object(self.expression(e)?)),
            ContractSpec::Scalar(_) => None,
        })
    }

    fn expression(&self, e: &ExprContract) -> Result<Map<String, Json>, SchemaError> {
        let source = e.expression.source();
        let Some(chain) = e.chain() else {
            return Err(SchemaError::new(
                "YaqlException",
                format!("contract {} is not a chain of contract methods", e.text),
            ));
        };
        let mut value = Map::new();
        let mut not_null = false;
        for call in chain {
            match call {
                ChainCall::String | ChainCall::Int | ChainCall::Bool => {
                    let t = match call {
                        ChainCall::String => "string",
                        ChainCall::Int => "integer",
                        _ => "boolean",
                    };
                    value = Map::new();
                    value.insert("type".into(), typed(t, not_null));
                    not_null = false;
                }
                ChainCall::NotNull => {
                    if let Some(Json::Array(types)) = value.get_mut("type") {
                        if let Some(i) = types.iter().position(|t| t == "null") {
                            types.remove(i);
                            if types.len() == 1 {
                                let only = types.remove(0);
                                value.insert("type".into(), only);
                            }
                        }
                    }
                    not_null = true;
                }
                ChainCall::Owned => {
                    value.insert("owned".into(), Json::Bool(true));
                }
                ChainCall::NotOwned => {
                    value.insert("owned".into(), Json::Bool(false));
                }
                ChainCall::Check { predicate, .. } => {
                    let mut rest = Some(predicate);
                    while let Some(current) = rest {
                        let item = match &current.kind {
                            ExprKind::Binary { op, operands }
                                if op.function() == "#operator_and" =>
                            {
                                rest = Some(&operands[1]);
                                &operands[0]
                            }
                            _ => {
                                rest = None;
                                current
                            }
                        };
                        if let Some(found) = self.pattern(item, source)? {
                            value.extend(found);
                        }
                    }
                }
                ChainCall::Class {
                    class,
                    default_class,
                    ..
                } => {
                    value = self.object_schema(class, default_class.as_ref(), source, not_null)?;
                    not_null = false;
                }
                ChainCall::Template {
                    class,
                    default_class,
                    exclude_properties,
                    ..
                } => {
                    value = self.object_schema(class, default_class.as_ref(), source, not_null)?;
                    value.insert("owned".into(), Json::Bool(true));
                    if let Some(ex) = exclude_properties {
                        if let Fold::Value(v) = self.fold(ex, source, 0)? {
                            if v.truthy() {
                                value.insert("excludedProperties".into(), to_json(&v));
                            }
                        }
                    }
                    not_null = false;
                }
                ChainCall::Other { name, .. } => {
                    let known = [
                        "string", "int", "bool", "notNull", "owned", "notOwned", "check", "class",
                        "template",
                    ];
                    let exception = if known.contains(&name.as_str()) {
                        "NoMatchingMethodException"
                    } else {
                        "NoMethodRegisteredException"
                    };
                    return Err(SchemaError::new(
                        exception,
                        format!(
                            "Unknown method \"{name}\" for receiver {}",
                            Json::Object(value)
                        ),
                    ));
                }
                #[allow(unreachable_patterns)]
                _ => {
                    return Err(SchemaError::new(
                        "NoMethodRegisteredException",
                        format!("Unknown method \"{}\"", call.name()),
                    ))
                }
            }
        }
        Ok(value)
    }

    /// The schema `class()` and `template()` start afresh: an object of
    /// the class named (the default class is resolved too, for its errors).
    fn object_schema(
        &self,
        class: &Expr,
        default_class: Option<&Expr>,
        source: &str,
        not_null: bool,
    ) -> Result<Map<String, Json>, SchemaError> {
        let name = self.class_argument(class, source)?;
        if let Some(d) = default_class {
            self.class_argument(d, source)?;
        }
        let mut value = Map::new();
        value.insert("type".into(), typed("muranoObject", not_null));
        value.insert("muranoType".into(), Json::from(name));
        Ok(value)
    }

    /// A `class()` / `template()` type argument, resolved in the names
    /// scope of the generated class.
    fn class_argument(&self, expr: &Expr, source: &str) -> Result<String, SchemaError> {
        let name = match class_name_of(expr) {
            Some(n) => n,
            None => {
                if let ExprKind::Binary { op, operands } = &expr.kind {
                    if op.function() == "#operator_." {
                        if let ExprKind::Keyword(k) = &operands[1].kind {
                            return Err(SchemaError::new(
                                "NoFunctionRegisteredException",
                                format!("Unknown function \"#property#{k}\""),
                            ));
                        }
                    }
                }
                match self.fold(expr, source, 0)? {
                    Fold::Value(YValue::Str(s)) => s.to_string(),
                    _ => {
                        return Err(SchemaError::new(
                            "NoMatchingFunctionException",
                            format!("No function \"class\" matches the type argument {expr}"),
                        ))
                    }
                }
            }
        };
        self.resolve_in(self.class, &name)
            .map_err(|e| self.inherited_note(e, &name))
    }

    /// The full name `name` means in `class`'s names scope and package.
    fn resolve_in(&self, class: ClassId, name: &str) -> Result<String, SchemaError> {
        let registry = self.catalog.registry();
        let def = registry
            .definition(class)
            .ok_or_else(|| SchemaError::new("NoClassFound", "unknown class"))?;
        let full = def.namespaces.resolve(name).map_err(|e| name_error(&e))?;
        let package = registry
            .package_of(class)
            .ok_or_else(|| SchemaError::new("NoClassFound", "unknown class"))?;
        let found = registry
            .resolve_class(package, &full)
            .map_err(|e| SchemaError::new(e.python_exception(), e.to_string()))?;
        Ok(registry.class_name(found).unwrap_or(&full).to_owned())
    }

    /// Murano resolves an inherited contract's class names in the class
    /// whose schema is made, not in the one declaring it: when the name
    /// resolves in the declaring class, the error says so in a note.
    fn inherited_note(&self, error: SchemaError, name: &str) -> SchemaError {
        if self.declaring == self.class {
            return error;
        }
        let Ok(meant) = self.resolve_in(self.declaring, name) else {
            return error;
        };
        let registry = self.catalog.registry();
        let class_name = |c| registry.class_name(c).unwrap_or("?");
        error.with_note(format!(
            "the contract naming {name:?} is inherited from {}, where it means {meant}; \
             Murano resolves the class names of inherited contracts in the namespaces \
             of the class whose schema is made ({}), so the schema cannot be made",
            class_name(self.declaring),
            class_name(self.class),
        ))
    }

    /// Murano's `extract_pattern`.
    fn pattern(&self, e: &Expr, source: &str) -> Result<Option<Map<String, Json>>, SchemaError> {
        let ExprKind::Binary { op, operands } = &e.kind else {
            return Ok(None);
        };
        const OPS: [&str; 4] = ["#operator_>", "#operator_<", "#operator_>=", "#operator_<="];
        let [left, right] = &**operands;
        if let Some(mut index) = OPS.iter().position(|o| *o == op.function()) {
            let constant = if is_dollar(left) {
                self.fold(right, source, 0)?
            } else if is_dollar(right) {
                index = 3 - index;
                self.fold(left, source, 0)?
            } else {
                return Ok(None);
            };
            let constant = match constant {
                Fold::Value(YValue::Null) | Fold::NotConstant => return Ok(None),
                Fold::Value(v) => to_json(&v),
            };
            let (bound, exclusive_key, exclusive) = match OPS[index] {
                "#operator_>" => ("minimum", "exclusiveMinimum", true),
                "#operator_>=" => ("minimum", "exclusiveMinimum", false),
                "#operator_<" => ("maximum", "exclusiveMaximum", true),
                _ => ("maximum", "exclusiveMaximum", false),
            };
            let mut out = Map::new();
            out.insert(bound.into(), constant);
            out.insert(exclusive_key.into(), Json::Bool(exclusive));
            return Ok(Some(out));
        }
        match op.function() {
            "#operator_in" if is_dollar(left) => {
                if let Fold::Value(v @ (YValue::Tuple(_) | YValue::List(_))) =
                    self.fold(right, source, 0)?
                {
                    let mut out = Map::new();
                    out.insert("enum".into(), to_json(&v));
                    return Ok(Some(out));
                }
                Ok(None)
            }
            "#operator_." if is_dollar(left) => {
                let ExprKind::Call { name, args } = &right.kind else {
                    return Ok(None);
                };
                if &**name != "matches" {
                    return Ok(None);
                }
                let Some(first) = args.first() else {
                    return Ok(None);
                };
                match self.fold(first, source, 0)? {
                    Fold::Value(YValue::Null) | Fold::NotConstant => Ok(None),
                    Fold::Value(v) => {
                        let mut out = Map::new();
                        out.insert("pattern".into(), to_json(&v));
                        Ok(Some(out))
                    }
                }
            }
            _ => Ok(None),
        }
    }

    /// Murano's `evaluate_constant`: literals as they are; anything else
    /// evaluated without `$`, with `$this` the generated class.
    fn fold(&self, e: &Expr, source: &str, depth: usize) -> Result<Fold, SchemaError> {
        if let ExprKind::Constant(c) = &e.kind {
            return Ok(Fold::Value(constant_value(c)));
        }
        if uses_dollar(e) || depth > MAX_FOLD_DEPTH {
            return Ok(Fold::NotConstant);
        }
        // `$this.x` and `$this.m()` become variables bound to their value.
        let mut replacements: Vec<(std::ops::Range<usize>, YValue)> = Vec::new();
        if !self.collect_this(e, depth, &mut replacements)? {
            return Ok(Fold::NotConstant);
        }
        let range = e.span.range();
        let Some(mut text) = source.get(range.clone()).map(str::to_owned) else {
            return Ok(Fold::NotConstant);
        };
        let mut ctx = self.runtime.root_context().child();
        replacements.sort_by_key(|(r, _)| std::cmp::Reverse(r.start));
        for (i, (r, v)) in replacements.into_iter().enumerate() {
            let name = format!("$schemaConstant{i}");
            let (Some(start), Some(end)) = (
                r.start.checked_sub(range.start),
                r.end.checked_sub(range.start),
            ) else {
                return Ok(Fold::NotConstant);
            };
            if end > text.len() || !text.is_char_boundary(start) || !text.is_char_boundary(end) {
                return Ok(Fold::NotConstant);
            }
            text.replace_range(start..end, &name);
            ctx.set(&name, v);
        }
        let Ok(parsed) = murano_yaml::expression::engine_grammar().parse(&text) else {
            return Ok(Fold::NotConstant);
        };
        let query = self.runtime.engine().compile_parsed(&parsed);
        Ok(match query.evaluate_raw(&ctx) {
            Ok(YValue::Iter(it)) => Fold::Value(YValue::List(Arc::new(
                it.take().filter_map(Result::ok).collect(),
            ))),
            Ok(v) => Fold::Value(v),
            Err(_) => Fold::NotConstant,
        })
    }

    /// Finds `$this.name` / `$this.method()` under `e` and evaluates them.
    /// `false` when one cannot be evaluated (a YAQL error in Murano).
    fn collect_this(
        &self,
        e: &Expr,
        depth: usize,
        out: &mut Vec<(std::ops::Range<usize>, YValue)>,
    ) -> Result<bool, SchemaError> {
        if let ExprKind::Binary { op, operands } = &e.kind {
            let [left, right] = &**operands;
            let is_this = matches!(&left.kind, ExprKind::Variable(v) if &**v == "$this");
            if op.function() == "#operator_." && is_this {
                let value = match &right.kind {
                    ExprKind::Keyword(name) => Some(self.static_property(name)?),
                    ExprKind::Call { name, args } if args.is_empty() => {
                        self.static_method(name, depth)?
                    }
                    _ => None,
                };
                return Ok(match value {
                    Some(v) => {
                        out.push((e.span.range(), v));
                        true
                    }
                    None => false,
                });
            }
        }
        for child in e.children() {
            if !self.collect_this(child, depth, out)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn static_property(&self, name: &str) -> Result<YValue, SchemaError> {
        let registry = self.catalog.registry();
        let found = registry
            .find_static_property(self.class, name)
            .map_err(|e| query_error(&e))?;
        if found.member.usage != PropertyUsage::Static {
            return Err(SchemaError::new(
                "NoPropertyFound",
                format!("Property \"{name}\" is not found"),
            ));
        }
        match &found.member.default {
            Some(node) => self.node_value(node, 0),
            None => Ok(YValue::Null),
        }
    }

    /// A static method whose body is a single `Return`; `None` otherwise.
    fn static_method(&self, name: &str, depth: usize) -> Result<Option<YValue>, SchemaError> {
        let registry = self.catalog.registry();
        let Ok(found) = registry.find_single_method(self.class, name) else {
            return Ok(None);
        };
        let method = found.member;
        if !matches!(method.usage, MethodUsage::Static) || !method.arguments.is_empty() {
            return Ok(None);
        }
        let [only] = method.body.as_slice() else {
            return Ok(None);
        };
        let murano_dsl::model::InstructionKind::Return(value) = &only.kind else {
            return Ok(None);
        };
        match value {
            None => Ok(Some(YValue::Null)),
            Some(node) => match self.node_value(node, depth + 1) {
                Ok(v) => Ok(Some(v)),
                Err(e) if e.class == ErrorClass::NotConstant => Ok(None),
                Err(e) => Err(e),
            },
        }
    }

    /// A YAML value with its expressions evaluated (as constants).
    fn node_value(&self, node: &Node, depth: usize) -> Result<YValue, SchemaError> {
        match &node.value {
            YamlValue::Yaql(y) => {
                match self.fold(y.expression.root(), y.expression.source(), depth)? {
                    Fold::Value(v) => Ok(v),
                    Fold::NotConstant => {
                        Err(SchemaError::of(ErrorClass::NotConstant, y.text()).at_mark(node.start))
                    }
                }
            }
            YamlValue::Seq(items) => Ok(YValue::tuple(
                items
                    .iter()
                    .map(|i| self.node_value(i, depth))
                    .collect::<Result<_, _>>()?,
            )),
            _ => Ok(yaml_to_yaql(node)),
        }
    }
}

/// A JSON-schema `type`: the type alone when null is excluded, else the
/// type or null.
fn typed(t: &str, not_null: bool) -> Json {
    if not_null {
        Json::from(t)
    } else {
        Json::Array(vec![Json::from(t), Json::from("null")])
    }
}
