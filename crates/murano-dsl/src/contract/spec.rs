//! The contract tree: what a `Contract:` declares, structured.

use std::sync::Arc;

use murano_yaql::eval::Value;
use murano_yaql::{Constant, Expr, ExprKind, Expression};

use super::error::{ContractError, ContractErrorKind};
use crate::yaml::{Node, Value as YamlValue};
use murano_yaml::convert::{self, ToYaql};

/// A contract, as the YAML of a `Contract:` key declares it.
///
/// ```
/// use murano_dsl::contract::{ChainCall, ContractSpec};
///
/// let spec = ContractSpec::parse_yaml("- $.int().check($ > 0)\n- 1\n- 3")?;
/// let ContractSpec::List(list) = &spec else { panic!() };
/// assert_eq!((list.min_length(), list.max_length()), (1, Some(3)));
/// let ContractSpec::Expression(item) = &list.item_specs()[0] else { panic!() };
/// let chain = item.chain().unwrap();
/// assert_eq!(chain[0], ChainCall::Int);
/// let ChainCall::Check { predicate, message: None } = &chain[1] else { panic!() };
/// assert_eq!(predicate.to_string(), "#operator_>($, 0)");
/// # Ok::<(), murano_dsl::contract::ContractError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum ContractSpec {
    /// A YAQL expression (`$.int().notNull()`, `$`).
    Expression(ExprContract),
    /// A list: item contracts, then optionally one or two integers (the
    /// minimum, or the minimum and the maximum number of items).
    List(ListContract),
    /// A mapping: fixed keys and at most one expression key.
    Dict(DictContract),
    /// Any other YAML value: the data must equal it.
    Scalar(
        #[cfg_attr(
            feature = "serde",
            serde(serialize_with = "crate::serde_impls::yaql_value")
        )]
        Value,
    ),
}

impl ContractSpec {
    /// Builds the tree from the YAML node of a `Contract:` key.
    ///
    /// ```
    /// use murano_dsl::contract::ContractSpec;
    /// use murano_dsl::yaml::{load_single, Flavor, LoadOptions};
    ///
    /// let node = load_single(b"{name: $.string(), $.string(): $}", Flavor::Engine, &LoadOptions::default())?
    ///     .unwrap();
    /// let ContractSpec::Dict(dict) = ContractSpec::from_node(&node).unwrap() else { panic!() };
    /// assert_eq!(dict.entries.len(), 2);
    /// # Ok::<(), murano_dsl::yaml::YamlError>(())
    /// ```
    pub fn from_node(node: &Node) -> Result<ContractSpec, ContractError> {
        Ok(match &node.value {
            YamlValue::Yaql(y) => ContractSpec::Expression(ExprContract::new(
                y.text().to_owned(),
                y.expression.clone(),
            )),
            YamlValue::Seq(items) => ContractSpec::List(ListContract::new(
                items
                    .iter()
                    .map(ContractSpec::from_node)
                    .collect::<Result<_, _>>()?,
            )),
            YamlValue::Pairs(pairs) => {
                // `!!omap` / `!!pairs`: a Python list of 2-tuples.
                let mut items = Vec::with_capacity(pairs.len());
                for (k, v) in pairs {
                    items.push(ContractSpec::List(ListContract::new(vec![
                        ContractSpec::from_node(k)?,
                        ContractSpec::from_node(v)?,
                    ])));
                }
                ContractSpec::List(ListContract::new(items))
            }
            YamlValue::Map(pairs) => {
                let mut entries = Vec::with_capacity(pairs.len());
                for (k, v) in pairs {
                    let key = match &k.value {
                        YamlValue::Yaql(y) => DictKey::Expression(ExprContract::new(
                            y.text().to_owned(),
                            y.expression.clone(),
                        )),
                        _ => DictKey::Fixed(node_to_value(k)?),
                    };
                    entries.push((key, ContractSpec::from_node(v)?));
                }
                ContractSpec::Dict(DictContract { entries })
            }
            _ => ContractSpec::Scalar(node_to_value(node)?),
        })
    }

    /// Parses YAML text (Murano's YAQL-aware engine rules) and builds the
    /// tree; an empty text is the `null` contract.
    ///
    /// ```
    /// use murano_dsl::contract::ContractSpec;
    /// assert!(matches!(ContractSpec::parse_yaml("$")?, ContractSpec::Expression(_)));
    /// assert!(matches!(ContractSpec::parse_yaml("'fixed'")?, ContractSpec::Scalar(_)));
    /// # Ok::<(), murano_dsl::contract::ContractError>(())
    /// ```
    pub fn parse_yaml(text: &str) -> Result<ContractSpec, ContractError> {
        let node = crate::yaml::load_single(
            text.as_bytes(),
            crate::yaml::Flavor::Engine,
            &crate::yaml::LoadOptions::default(),
        )
        .map_err(|e| ContractError::new(ContractErrorKind::Syntax, e.to_string()))?;
        match node {
            Some(node) => ContractSpec::from_node(&node),
            None => Ok(ContractSpec::Scalar(Value::Null)),
        }
    }

    /// Calls `f` on every expression of the tree (dictionary keys too), in
    /// document order.
    ///
    /// ```
    /// use murano_dsl::contract::ContractSpec;
    /// let spec = ContractSpec::parse_yaml("{$.string(): [$.int()]}")?;
    /// let mut texts = Vec::new();
    /// spec.for_each_expression(&mut |e| texts.push(e.text.clone()));
    /// assert_eq!(texts, ["$.string()", "$.int()"]);
    /// # Ok::<(), murano_dsl::contract::ContractError>(())
    /// ```
    pub fn for_each_expression(&self, f: &mut dyn FnMut(&ExprContract)) {
        match self {
            ContractSpec::Expression(e) => f(e),
            ContractSpec::List(l) => l.items.iter().for_each(|i| i.for_each_expression(f)),
            ContractSpec::Dict(d) => {
                for (k, v) in &d.entries {
                    if let DictKey::Expression(e) = k {
                        f(e);
                    }
                    v.for_each_expression(f);
                }
            }
            ContractSpec::Scalar(_) => {}
        }
    }
}

/// Converts a YAML value that holds no expression into a YAQL value with
/// [`murano_yaml::convert`]'s contract rules (lists, sets, dicts;
/// expressions as their text, dates as ISO text; integers beyond 64 bits,
/// binary data and recursive aliases refused).
pub(crate) fn node_to_value(node: &Node) -> Result<Value, ContractError> {
    convert::to_yaql(node, &ToYaql::contracts()).map_err(|e| {
        ContractError::new(
            ContractErrorKind::Syntax,
            format!("{} is not supported in a contract (at {})", e.what, e.mark),
        )
    })
}

/// A list contract.
#[derive(Debug, Clone, PartialEq)]
pub struct ListContract {
    /// Every element as written, the trailing counts included.
    pub items: Vec<ContractSpec>,
    counts: usize,
    min_length: i64,
    max_length: i64,
}

/// An integer as Python's `isinstance(x, int)` sees it (booleans too).
fn as_count(spec: &ContractSpec) -> Option<i64> {
    match spec {
        ContractSpec::Scalar(Value::Int(n)) => Some(*n),
        ContractSpec::Scalar(Value::Bool(b)) => Some(i64::from(*b)),
        _ => None,
    }
}

impl ListContract {
    /// A list contract from its elements as written.
    ///
    /// ```
    /// use murano_dsl::contract::{ContractSpec, ListContract};
    /// use murano_yaql::eval::Value;
    /// let l = ListContract::new(vec![ContractSpec::Scalar(Value::Int(2))]);
    /// assert_eq!((l.min_length(), l.max_length(), l.item_specs().len()), (2, None, 0));
    /// ```
    pub fn new(items: Vec<ContractSpec>) -> ListContract {
        let mut counts = 0;
        let mut min_length = 0;
        let mut max_length = -1;
        if let Some(last) = items.last().and_then(as_count) {
            min_length = last;
            counts = 1;
            if items.len() >= 2 {
                if let Some(before) = as_count(&items[items.len() - 2]) {
                    max_length = min_length;
                    min_length = before;
                    counts = 2;
                }
            }
        }
        ListContract {
            items,
            counts,
            min_length,
            max_length,
        }
    }

    /// The item contracts (the elements before the trailing counts); the
    /// last one applies to every further item.
    pub fn item_specs(&self) -> &[ContractSpec] {
        &self.items[..self.items.len() - self.counts]
    }

    /// The minimum number of items (0 when not given).
    pub fn min_length(&self) -> i64 {
        self.min_length
    }

    /// The maximum number of items, when given (Murano ignores a negative
    /// maximum).
    pub fn max_length(&self) -> Option<i64> {
        (self.max_length >= 0).then_some(self.max_length)
    }

    /// How many trailing integers were read as counts (0, 1 or 2).
    pub fn count_elements(&self) -> usize {
        self.counts
    }
}

/// A dictionary contract, entries in document order.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct DictContract {
    /// Keys and their value contracts.
    pub entries: Vec<(DictKey, ContractSpec)>,
}

impl DictContract {
    /// The expression keys (Murano accepts at most one, and says so only
    /// when the contract is applied to a dictionary).
    ///
    /// ```
    /// use murano_dsl::contract::ContractSpec;
    /// let ContractSpec::Dict(d) = ContractSpec::parse_yaml("{a: $, $.string(): $.int()}")? else { panic!() };
    /// assert_eq!(d.expression_keys().count(), 1);
    /// # Ok::<(), murano_dsl::contract::ContractError>(())
    /// ```
    pub fn expression_keys(&self) -> impl Iterator<Item = (&ExprContract, &ContractSpec)> {
        self.entries.iter().filter_map(|(k, v)| match k {
            DictKey::Expression(e) => Some((e, v)),
            DictKey::Fixed(_) => None,
        })
    }
}

/// A key of a dictionary contract.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum DictKey {
    /// A fixed key (a string, number, boolean or null).
    Fixed(
        #[cfg_attr(
            feature = "serde",
            serde(serialize_with = "crate::serde_impls::yaql_value")
        )]
        Value,
    ),
    /// An expression that every other key of the data must satisfy.
    Expression(ExprContract),
}

/// A YAQL contract expression, with its chain of contract methods when it
/// is one (`$.a().b()…`).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ExprContract {
    /// The expression text.
    pub text: String,
    /// The parsed expression (Murano's engine grammar).
    #[cfg_attr(feature = "serde", serde(skip))]
    pub expression: Arc<Expression>,
    chain: Option<Vec<ChainCall>>,
}

impl ExprContract {
    /// Wraps a parsed expression and reads its chain.
    pub fn new(text: String, expression: Arc<Expression>) -> ExprContract {
        let chain = read_chain(expression.root());
        ExprContract {
            text,
            expression,
            chain,
        }
    }

    /// Parses an expression with Murano's engine grammar.
    ///
    /// ```
    /// use murano_dsl::contract::{ChainCall, ExprContract};
    /// let e = ExprContract::parse("$.string().notNull()").unwrap();
    /// assert_eq!(e.chain(), Some(&[ChainCall::String, ChainCall::NotNull][..]));
    /// assert_eq!(ExprContract::parse("$").unwrap().chain(), Some(&[][..]));
    /// assert_eq!(ExprContract::parse("$.int() or 5").unwrap().chain(), None);
    /// ```
    pub fn parse(text: &str) -> Result<ExprContract, murano_yaql::ParseError> {
        let expression = crate::expression::engine_grammar().parse(text)?;
        Ok(ExprContract::new(text.to_owned(), Arc::new(expression)))
    }

    /// The calls applied to `$`, first first; `None` when the expression is
    /// not such a chain (`$.int() or 5`). `$` alone is an empty chain.
    pub fn chain(&self) -> Option<&[ChainCall]> {
        self.chain.as_deref()
    }
}

/// One call of a contract chain, arguments as parsed YAQL trees.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub enum ChainCall {
    /// `string()`.
    String,
    /// `int()`.
    Int,
    /// `bool()`.
    Bool,
    /// `notNull()`.
    NotNull,
    /// `owned()`.
    Owned,
    /// `notOwned()`.
    NotOwned,
    /// `check(predicate[, message])`.
    Check {
        /// The predicate, evaluated with `$` bound to the value.
        predicate: Expr,
        /// The message given when it fails.
        message: Option<Expr>,
    },
    /// `class(type[, defaultType][, versionSpec])`.
    Class {
        /// The class (a name, `ns:Name`, or an expression).
        class: Expr,
        /// The class to create objects of when the data names none.
        default_class: Option<Expr>,
        /// A version spec for the class.
        version: Option<Expr>,
    },
    /// `template(type[, defaultType][, versionSpec][, excludeProperties])`.
    Template {
        /// The class.
        class: Expr,
        /// The class to use when the data names none.
        default_class: Option<Expr>,
        /// A version spec.
        version: Option<Expr>,
        /// Properties left out of the template.
        exclude_properties: Option<Expr>,
    },
    /// Any other method (or a contract method with arguments it does not
    /// take): applying it fails as Murano's evaluation would.
    Other {
        /// The method name.
        name: String,
        /// The arguments as written (keyword ones as mapping rules).
        args: Vec<Expr>,
    },
}

impl ChainCall {
    /// The method name as written.
    ///
    /// ```
    /// use murano_dsl::contract::ChainCall;
    /// assert_eq!(ChainCall::NotOwned.name(), "notOwned");
    /// ```
    pub fn name(&self) -> &str {
        match self {
            ChainCall::String => "string",
            ChainCall::Int => "int",
            ChainCall::Bool => "bool",
            ChainCall::NotNull => "notNull",
            ChainCall::Owned => "owned",
            ChainCall::NotOwned => "notOwned",
            ChainCall::Check { .. } => "check",
            ChainCall::Class { .. } => "class",
            ChainCall::Template { .. } => "template",
            ChainCall::Other { name, .. } => name,
        }
    }
}

/// The class name a `class()` / `template()` argument spells, when it is
/// written as a name (`Foo`, `'io.murano.Object'`, `res:Instance`).
///
/// ```
/// use murano_dsl::contract::{class_name_of, ChainCall, ExprContract};
/// let e = ExprContract::parse("$.class(res:Instance)").unwrap();
/// let Some([ChainCall::Class { class, .. }]) = e.chain() else { panic!() };
/// assert_eq!(class_name_of(class).as_deref(), Some("res:Instance"));
/// ```
pub fn class_name_of(expr: &Expr) -> Option<String> {
    match &expr.kind {
        ExprKind::Keyword(k) => Some(k.to_string()),
        ExprKind::Constant(Constant::String(s)) => Some(s.to_string()),
        ExprKind::Binary { op, operands } if op.function() == "#operator_:" => {
            let ns = class_name_of(&operands[0])?;
            let name = class_name_of(&operands[1])?;
            Some(format!("{ns}:{name}"))
        }
        ExprKind::Unary { op, operand, .. } if op.function() == "#unary_operator_:" => {
            Some(format!(":{}", class_name_of(operand)?))
        }
        ExprKind::Wrap(inner) => class_name_of(inner),
        _ => None,
    }
}

fn is_dollar(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Variable(v) if &**v == "$")
}

fn read_chain(root: &Expr) -> Option<Vec<ChainCall>> {
    let mut calls = Vec::new();
    let mut node = root;
    loop {
        if is_dollar(node) {
            calls.reverse();
            return Some(calls);
        }
        let ExprKind::Binary { op, operands } = &node.kind else {
            return None;
        };
        if op.function() != "#operator_." {
            return None;
        }
        let ExprKind::Call { name, args } = &operands[1].kind else {
            return None;
        };
        calls.push(chain_call(name, args));
        node = &operands[0];
    }
}

/// Binds positional and keyword arguments to parameter names; `None` when
/// they do not fit.
fn bind(args: &[Expr], params: &[&str], required: usize) -> Option<Vec<Option<Expr>>> {
    let mut out: Vec<Option<Expr>> = vec![None; params.len()];
    let mut positional = 0;
    for a in args {
        match &a.kind {
            ExprKind::MappingRule {
                source,
                destination,
            } => {
                let ExprKind::Keyword(k) = &source.kind else {
                    return None;
                };
                let i = params.iter().position(|p| *p == &**k)?;
                if out[i].is_some() {
                    return None;
                }
                out[i] = Some((**destination).clone());
            }
            ExprKind::NoValue => positional += 1,
            _ => {
                let slot = out.get_mut(positional)?;
                *slot = Some(a.clone());
                positional += 1;
            }
        }
    }
    if out.iter().take(required).any(Option::is_none) {
        return None;
    }
    Some(out)
}

fn chain_call(name: &str, args: &[Expr]) -> ChainCall {
    let other = || ChainCall::Other {
        name: name.to_owned(),
        args: args.to_vec(),
    };
    let simple = match name {
        "string" => Some(ChainCall::String),
        "int" => Some(ChainCall::Int),
        "bool" => Some(ChainCall::Bool),
        "notNull" => Some(ChainCall::NotNull),
        "owned" => Some(ChainCall::Owned),
        "notOwned" => Some(ChainCall::NotOwned),
        _ => None,
    };
    if let Some(call) = simple {
        return if args.is_empty() { call } else { other() };
    }
    let bound = match name {
        "check" => bind(args, &["predicate", "msg"], 1),
        "class" => bind(args, &["name", "defaultName", "versionSpec"], 1),
        "template" => bind(
            args,
            &["type", "defaultType", "versionSpec", "excludeProperties"],
            1,
        ),
        _ => None,
    };
    let Some(mut bound) = bound else {
        return other();
    };
    let mut take = |i: usize| bound.get_mut(i).and_then(Option::take);
    let Some(first) = take(0) else {
        return other();
    };
    match name {
        "check" => ChainCall::Check {
            predicate: first,
            message: take(1),
        },
        "class" => ChainCall::Class {
            class: first,
            default_class: take(1),
            version: take(2),
        },
        _ => ChainCall::Template {
            class: first,
            default_class: take(1),
            version: take(2),
            exclude_properties: take(3),
        },
    }
}
