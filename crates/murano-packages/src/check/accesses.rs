//! What method bodies do with `$` (`M421`) and what UI files map to
//! properties (`M422`): walks of the class model and of UI definitions
//! for the checks of `class_checks`.

use murano_dsl::model::instruction::{Instruction, InstructionKind, TargetRoot, TargetStep};
use murano_yaml::{Mark, Node, Value};
use murano_yaql::{Expr, ExprKind};

use super::class_checks::walk_yaql;

/// A `$.name` of a method body (`M421`).
pub(super) struct Access {
    /// The property name.
    pub(super) name: String,
    /// The expression it is in, for the message.
    pub(super) text: String,
    /// Where the expression is.
    pub(super) at: Mark,
    /// A plain `$.name: value` assignment.
    pub(super) write: bool,
}

/// Functions whose arguments yaql evaluates in the caller's context (no
/// lambda rebinds `$` in them); arguments of any other call are skipped.
const SAME_CONTEXT: [&str; 14] = [
    "len", "str", "int", "float", "bool", "format", "concat", "join", "list", "isString", "isList",
    "isDict", "new", "id",
];

/// The `$.name` reads of a YAML value of a body.
fn node_accesses(node: &Node, out: &mut Vec<Access>) {
    walk_yaql(node, &mut |n, y| {
        expr_accesses(y.expression.root(), y.text(), n.start, out)
    });
}

/// The `$.name` and `$this.name` reads of an expression, where `$` is
/// certainly the object: not inside a call's arguments (lambdas rebind
/// `$`: `where($.x)`), except [`SAME_CONTEXT`] functions, nor right of
/// `->`, nor in an index (legacy yaql filters with it).
fn expr_accesses(expr: &Expr, text: &str, at: Mark, out: &mut Vec<Access>) {
    match &expr.kind {
        ExprKind::Binary { op, operands } if op.symbol() == "." => {
            if let (ExprKind::Variable(v), ExprKind::Keyword(name)) =
                (&operands[0].kind, &operands[1].kind)
            {
                if matches!(&**v, "$" | "$this") {
                    out.push(Access {
                        name: name.to_string(),
                        text: text.to_owned(),
                        at,
                        write: false,
                    });
                }
                return;
            }
            // The receiver only: a method call's arguments may be lambdas.
            expr_accesses(&operands[0], text, at, out);
        }
        ExprKind::Binary { op, operands } if op.symbol() == "->" => {
            expr_accesses(&operands[0], text, at, out);
        }
        ExprKind::Binary { operands, .. } => {
            for operand in operands.iter() {
                expr_accesses(operand, text, at, out);
            }
        }
        ExprKind::Unary { operand, .. } | ExprKind::Wrap(operand) => {
            expr_accesses(operand, text, at, out);
        }
        ExprKind::Index { target, .. } => expr_accesses(target, text, at, out),
        ExprKind::Call { name, args } if SAME_CONTEXT.contains(&&**name) => {
            for arg in args {
                expr_accesses(arg, text, at, out);
            }
        }
        ExprKind::List(items) | ExprKind::Map(items) => {
            for item in items {
                expr_accesses(item, text, at, out);
            }
        }
        ExprKind::MappingRule {
            source,
            destination,
        } => {
            expr_accesses(source, text, at, out);
            expr_accesses(destination, text, at, out);
        }
        _ => {}
    }
}

/// The `$.name` reads and writes of a block, nested blocks included.
pub(super) fn block_accesses(block: &[Instruction], out: &mut Vec<Access>) {
    for instruction in block {
        let at = instruction.start;
        match &instruction.kind {
            InstructionKind::Expression(y) => expr_accesses(y.expression.root(), y.text(), at, out),
            InstructionKind::Assignment { target, value } => {
                match &target.root {
                    TargetRoot::Variable(v) if matches!(v.as_str(), "$" | "$this") => {
                        if let Some(TargetStep::Attribute(name)) = target.path.first() {
                            // `$.a.b: x` reads `$.a` to update it.
                            out.push(Access {
                                name: name.clone(),
                                text: target.expression.text().to_owned(),
                                at,
                                write: target.path.len() == 1,
                            });
                        }
                    }
                    TargetRoot::Variable(_) => {}
                    TargetRoot::Expression(e) => {
                        expr_accesses(e, target.expression.text(), at, out)
                    }
                }
                for step in &target.path {
                    if let TargetStep::Index(args) = step {
                        for arg in args {
                            expr_accesses(arg, target.expression.text(), at, out);
                        }
                    }
                }
                node_accesses(value, out);
            }
            InstructionKind::Return(Some(value)) => node_accesses(value, out),
            InstructionKind::Do(body) => block_accesses(body, out),
            InstructionKind::If {
                condition,
                then,
                otherwise,
            } => {
                node_accesses(condition, out);
                block_accesses(then, out);
                block_accesses(otherwise.as_deref().unwrap_or_default(), out);
            }
            InstructionKind::While { condition, body } => {
                expr_accesses(condition.expression.root(), condition.text(), at, out);
                block_accesses(body, out);
            }
            InstructionKind::For {
                collection, body, ..
            } => {
                node_accesses(collection, out);
                block_accesses(body, out);
            }
            InstructionKind::Repeat { count, body } => {
                node_accesses(count, out);
                block_accesses(body, out);
            }
            InstructionKind::Match {
                value,
                cases,
                default,
            } => {
                node_accesses(value, out);
                for (case, body) in cases {
                    node_accesses(case, out);
                    block_accesses(body, out);
                }
                block_accesses(default.as_deref().unwrap_or_default(), out);
            }
            InstructionKind::Switch { cases, default } => {
                for (case, body) in cases {
                    node_accesses(case, out);
                    block_accesses(body, out);
                }
                block_accesses(default.as_deref().unwrap_or_default(), out);
            }
            InstructionKind::Parallel { body, limit } => {
                block_accesses(body, out);
                if let Some(limit) = limit {
                    node_accesses(limit, out);
                }
            }
            InstructionKind::Try {
                body,
                catch,
                otherwise,
                finally,
            } => {
                block_accesses(body, out);
                for clause in catch {
                    block_accesses(clause.body.as_deref().unwrap_or_default(), out);
                }
                block_accesses(otherwise.as_deref().unwrap_or_default(), out);
                block_accesses(finally.as_deref().unwrap_or_default(), out);
            }
            InstructionKind::Throw {
                names,
                message,
                extra,
                cause,
            } => {
                for node in names.iter().chain(message).chain(extra).chain(cause) {
                    node_accesses(node, out);
                }
            }
            _ => {}
        }
    }
}

/// The objects (mappings with `?: {type: name}`) of a UI section, with
/// their class, nested ones included.
pub(super) fn objects_of<'a>(node: &'a Node, out: &mut Vec<(String, &'a Node)>) {
    match &node.value {
        Value::Map(pairs) | Value::Pairs(pairs) => {
            let class = pairs
                .iter()
                .find(|(k, _)| k.value.as_str() == Some("?"))
                .and_then(|(_, header)| header.value.get("type"))
                .and_then(|t| t.value.as_str());
            if let Some(class) = class {
                out.push((class.to_owned(), node));
            }
            for (_, v) in pairs {
                objects_of(v, out);
            }
        }
        Value::Seq(items) => items.iter().for_each(|n| objects_of(n, out)),
        _ => {}
    }
}

/// `form` and `field` of an expression that is exactly `$.form.field`.
pub(super) fn form_field(expr: &Expr) -> Option<(String, String)> {
    let ExprKind::Binary { op, operands } = &expr.kind else {
        return None;
    };
    let ExprKind::Keyword(field) = &operands[1].kind else {
        return None;
    };
    let ExprKind::Binary {
        op: inner,
        operands: form,
    } = &operands[0].kind
    else {
        return None;
    };
    match (&form[0].kind, &form[1].kind) {
        (ExprKind::Variable(v), ExprKind::Keyword(name))
            if &**v == "$" && op.symbol() == "." && inner.symbol() == "." =>
        {
            Some((name.to_string(), field.to_string()))
        }
        _ => None,
    }
}
