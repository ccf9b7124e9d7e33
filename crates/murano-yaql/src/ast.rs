//! The syntax tree, one node kind per node class of yaql.

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};

use crate::span::Span;

/// A numeric literal. yaql's integers are Python's, so they have no upper
/// bound: the ones that do not fit in `i64` keep their decimal digits.
#[derive(Debug, Clone, PartialEq)]
pub enum Number {
    /// An integer that fits in 64 bits.
    Int(i64),
    /// A larger integer, as decimal digits without leading zeros.
    BigInt(Box<str>),
    /// A literal with a decimal point.
    Float(f64),
}

impl Number {
    /// The value of a run of ASCII digits, as Python's `int()` reads it
    /// (leading zeros allowed).
    pub(crate) fn from_digits(digits: &str) -> Number {
        match digits.parse::<i64>() {
            Ok(n) => Number::Int(n),
            Err(_) => {
                let trimmed = digits.trim_start_matches('0');
                Number::BigInt(trimmed.into())
            }
        }
    }
}

/// A constant: what yaql's `Constant` node holds.
#[derive(Debug, Clone, PartialEq)]
pub enum Constant {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number literal.
    Number(Number),
    /// A quoted string, escapes decoded.
    String(Box<str>),
}

/// Which operator an operator node applies, and the function it calls.
///
/// Shared by every node of the same operator role: cloning it copies a
/// reference. The names live for the rest of the process, interned once
/// per distinct symbol and function (grammars define a few dozen, in
/// code, never from parsed text), so that building and dropping operator
/// nodes touches no reference count: an atomic count update costs a
/// parse of the corpus expressions several percent of its time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OperatorRef(&'static OperatorNames);

#[derive(Debug, PartialEq, Eq, Hash)]
struct OperatorNames {
    symbol: Box<str>,
    function: Box<str>,
}

/// Every operator name pair made so far.
fn interned_operators() -> &'static Mutex<HashSet<&'static OperatorNames>> {
    static OPERATORS: OnceLock<Mutex<HashSet<&'static OperatorNames>>> = OnceLock::new();
    OPERATORS.get_or_init(Default::default)
}

impl OperatorRef {
    /// An operator reference from its symbol and function name.
    pub fn new(symbol: &str, function: &str) -> OperatorRef {
        let names = OperatorNames {
            symbol: symbol.into(),
            function: function.into(),
        };
        let mut interned = interned_operators()
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(known) = interned.get(&names) {
            return OperatorRef(known);
        }
        let names: &'static OperatorNames = Box::leak(Box::new(names));
        interned.insert(names);
        OperatorRef(names)
    }

    /// The operator as written (`+`, `and`, `?.`).
    pub fn symbol(&self) -> &str {
        &self.0.symbol
    }

    /// The function yaql calls: `#operator_+`, `#unary_operator_-`, or
    /// `*alias` (`*equal` for `=`).
    pub fn function(&self) -> &str {
        &self.0.function
    }
}

/// A node of the tree with its source span.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    /// What the node is.
    pub kind: ExprKind,
    /// The bytes of the source it was parsed from.
    pub span: Span,
}

/// The node kinds. Each prints (see [`std::fmt::Display`] on [`Expr`]) the
/// way yaql's own `str()` prints the matching node class.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ExprKind {
    /// A literal: yaql's `Constant`.
    Constant(Constant),
    /// A bare identifier used as a string (`foo` in `f(foo)`): yaql's
    /// `KeywordConstant`.
    Keyword(Box<str>),
    /// `$`, `$1` or `$name` as written: yaql's `GetContextValue`.
    Variable(Box<str>),
    /// `name(args)`: yaql's `Function`.
    Call {
        /// The function name.
        name: Box<str>,
        /// Positional (possibly [`ExprKind::NoValue`]) and keyword
        /// ([`ExprKind::MappingRule`]) arguments in source order.
        args: Vec<Expr>,
    },
    /// `value(args)` with delegates enabled: a `Function` named `#call`
    /// whose first argument is the callee.
    CallValue {
        /// What is called.
        callee: Box<Expr>,
        /// The arguments.
        args: Vec<Expr>,
    },
    /// `a op b`: yaql's `BinaryOperator`.
    Binary {
        /// The operator.
        op: OperatorRef,
        /// Left and right operands.
        operands: Box<[Expr; 2]>,
    },
    /// `op a` or `a op`: yaql's `UnaryOperator`.
    Unary {
        /// The operator.
        op: OperatorRef,
        /// Whether it is written after its operand.
        suffix: bool,
        /// The operand.
        operand: Box<Expr>,
    },
    /// `value[args]`: yaql's `IndexExpression`.
    Index {
        /// What is indexed.
        target: Box<Expr>,
        /// The arguments between the brackets.
        args: Vec<Expr>,
    },
    /// `[args]`: yaql's `ListExpression`.
    List(Vec<Expr>),
    /// `{args}`: yaql's `MapExpression`.
    Map(Vec<Expr>),
    /// `(expr)`: yaql's `Wrap`. Kept because it matters: it stops a call
    /// from using the method receiver, and in legacy mode `(a => b) => c`
    /// differs from `a => b => c`.
    Wrap(Box<Expr>),
    /// `name => value` as an argument: yaql's `MappingRuleExpression`.
    MappingRule {
        /// Left of `=>`.
        source: Box<Expr>,
        /// Right of `=>`.
        destination: Box<Expr>,
    },
    /// An omitted positional argument, as in `f(, x)`: yaql's `NO_VALUE`.
    NoValue,
}

impl Expr {
    /// The function name yaql would call for this node, if it is
    /// function-like (`#operator_+`, `#list`, `where`, `#call`…).
    ///
    /// ```
    /// let e = murano_yaql::Grammar::standard().parse("a = b")?;
    /// assert_eq!(e.root().function_name(), Some("*equal"));
    /// # Ok::<(), murano_yaql::ParseError>(())
    /// ```
    pub fn function_name(&self) -> Option<&str> {
        Some(match &self.kind {
            ExprKind::Call { name, .. } => name,
            ExprKind::CallValue { .. } => "#call",
            ExprKind::Binary { op, .. } | ExprKind::Unary { op, .. } => op.function(),
            ExprKind::Index { .. } => "#indexer",
            ExprKind::List(_) => "#list",
            ExprKind::Map(_) => "#map",
            _ => return None,
        })
    }

    /// The direct children in source order.
    ///
    /// ```
    /// let e = murano_yaql::Grammar::standard().parse("f(1, x => 2)")?;
    /// let printed: Vec<String> = e.root().children().iter().map(|c| c.to_string()).collect();
    /// assert_eq!(printed, ["1", "#mapping_rule(x, 2)"]);
    /// # Ok::<(), murano_yaql::ParseError>(())
    /// ```
    pub fn children(&self) -> Vec<&Expr> {
        match &self.kind {
            ExprKind::Constant(_)
            | ExprKind::Keyword(_)
            | ExprKind::Variable(_)
            | ExprKind::NoValue => Vec::new(),
            ExprKind::Call { args, .. } | ExprKind::List(args) | ExprKind::Map(args) => {
                args.iter().collect()
            }
            ExprKind::CallValue { callee: head, args } | ExprKind::Index { target: head, args } => {
                std::iter::once(&**head).chain(args.iter()).collect()
            }
            ExprKind::Binary { operands, .. } => operands.iter().collect(),
            ExprKind::Unary { operand, .. } | ExprKind::Wrap(operand) => vec![&**operand],
            ExprKind::MappingRule {
                source,
                destination,
            } => vec![&**source, &**destination],
        }
    }

    /// True when both trees are the same apart from spans.
    ///
    /// ```
    /// let g = murano_yaql::Grammar::standard();
    /// let (a, b) = (g.parse("1+2")?, g.parse(" 1 + 2 ")?);
    /// assert!(a.root().same_tree(b.root()));
    /// assert_ne!(a.root().span, b.root().span);
    /// # Ok::<(), murano_yaql::ParseError>(())
    /// ```
    pub fn same_tree(&self, other: &Expr) -> bool {
        let shallow = match (&self.kind, &other.kind) {
            (ExprKind::Constant(a), ExprKind::Constant(b)) => match (a, b) {
                (Constant::Number(Number::Float(x)), Constant::Number(Number::Float(y))) => {
                    x.to_bits() == y.to_bits()
                }
                _ => a == b,
            },
            (ExprKind::Keyword(a), ExprKind::Keyword(b))
            | (ExprKind::Variable(a), ExprKind::Variable(b)) => a == b,
            (ExprKind::Call { name: a, .. }, ExprKind::Call { name: b, .. }) => a == b,
            (ExprKind::Binary { op: a, .. }, ExprKind::Binary { op: b, .. }) => a == b,
            (
                ExprKind::Unary {
                    op: a, suffix: sa, ..
                },
                ExprKind::Unary {
                    op: b, suffix: sb, ..
                },
            ) => a == b && sa == sb,
            (a, b) => std::mem::discriminant(a) == std::mem::discriminant(b),
        };
        let (mine, theirs) = (self.children(), other.children());
        shallow
            && mine.len() == theirs.len()
            && mine.iter().zip(theirs).all(|(a, b)| a.same_tree(b))
    }
}

/// A parsed expression: the root of the tree and the text it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Expression {
    pub(crate) root: Expr,
    pub(crate) source: Box<str>,
}

impl Expression {
    /// The root node.
    pub fn root(&self) -> &Expr {
        &self.root
    }

    /// Takes the root node out.
    pub fn into_root(self) -> Expr {
        self.root
    }

    /// The text that was parsed.
    pub fn source(&self) -> &str {
        &self.source
    }
}
