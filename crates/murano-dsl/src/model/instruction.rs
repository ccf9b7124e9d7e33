//! Method bodies as a typed instruction tree.
//!
//! Murano turns each body item into an instruction: a YAQL expression, an
//! assignment (a one-entry mapping whose key is YAQL), or a block construct
//! recognised by its exact set of keys (`If`/`Then`/`Else`, `For`/`In`/`Do`,
//! `Try`/`Catch`/`Finally`/`Else`…), trying the constructs in the order the
//! engine registers them. Bodies are analysed, never executed. An item the
//! engine would refuse becomes [`InstructionKind::Invalid`] with the
//! reason, so that a whole class can still be inspected.

use murano_yaql::{Expr, ExprKind};

use super::issue;
use crate::diagnostic::Diagnostic;
use crate::yaml::{Mark, Node, Value, YaqlScalar};

/// A sequence of instructions (a body, a branch, a loop body).
pub type Block = Vec<Instruction>;

/// One instruction with its span.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Instruction {
    /// What it does.
    pub kind: InstructionKind,
    /// Start of its YAML node.
    pub start: Mark,
    /// End of its YAML node.
    pub end: Mark,
}

/// The instruction kinds of MuranoPL.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub enum InstructionKind {
    /// A YAQL expression evaluated for its effect.
    Expression(YaqlScalar),
    /// `target: value`: the value (YAQL or plain data) stored in the
    /// target.
    Assignment {
        /// Where the value goes.
        target: AssignTarget,
        /// What is stored.
        value: Node,
    },
    /// `Return: value`.
    Return(Option<Node>),
    /// `Break:`.
    Break,
    /// `Continue:`.
    Continue,
    /// `Do: block`.
    Do(Block),
    /// `If: cond`, `Then:`, optional `Else:`.
    If {
        /// The condition.
        condition: Node,
        /// Taken when true.
        then: Block,
        /// Taken when false.
        otherwise: Option<Block>,
    },
    /// `While: cond`, `Do:`.
    While {
        /// The condition (always YAQL).
        condition: YaqlScalar,
        /// The loop body.
        body: Block,
    },
    /// `For: name`, `In: collection`, `Do:`.
    For {
        /// The loop variable's name.
        variable: String,
        /// What is iterated.
        collection: Node,
        /// The loop body.
        body: Block,
    },
    /// `Repeat: count`, `Do:`.
    Repeat {
        /// How many times.
        count: Node,
        /// The loop body.
        body: Block,
    },
    /// `Match: {value: block…}`, `Value:`, optional `Default:`.
    Match {
        /// The value matched.
        value: Node,
        /// Case value and its block, in order.
        cases: Vec<(Node, Block)>,
        /// Taken when no case matches.
        default: Option<Block>,
    },
    /// `Switch: {condition: block…}`, optional `Default:`.
    Switch {
        /// Condition and its block, in order.
        cases: Vec<(Node, Block)>,
        /// Taken when no condition holds.
        default: Option<Block>,
    },
    /// `Parallel: block`, optional `Limit:`.
    Parallel {
        /// The instructions run in parallel.
        body: Block,
        /// The most run at once.
        limit: Option<Node>,
    },
    /// `Try:`, optional `Catch:`, `Else:`, `Finally:`.
    Try {
        /// The guarded block.
        body: Block,
        /// The handlers, in order.
        catch: Vec<CatchClause>,
        /// Run when nothing was thrown.
        otherwise: Option<Block>,
        /// Always run.
        finally: Option<Block>,
    },
    /// `Throw: names`, optional `Message:`, `Extra:`, `Cause:`.
    Throw {
        /// Exception names (one or a list).
        names: Vec<Node>,
        /// The message.
        message: Option<Node>,
        /// Extra data.
        extra: Option<Node>,
        /// The causing exception.
        cause: Option<Node>,
    },
    /// `Rethrow:`.
    Rethrow,
    /// A mapping whose keys no instruction has (a stray `Then:` after an
    /// `If:` item, a misspelt keyword): kept whole, so that every YAQL
    /// expression inside it is still part of the model, and reported as
    /// issue `M303` (the engine refuses to load it).
    Unknown {
        /// The keys as written, in order.
        keys: Vec<String>,
        /// The item itself, with its contents.
        node: Node,
    },
    /// Something the engine refuses to load; the reason says why.
    Invalid {
        /// Why.
        reason: String,
    },
}

/// A handler of a `Try`.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct CatchClause {
    /// Exception names it handles (`None`: all).
    pub with: Option<Vec<Node>>,
    /// The variable the exception is bound to.
    pub bind_as: Option<String>,
    /// The handler body.
    pub body: Option<Block>,
    /// Where the clause starts.
    pub start: Mark,
}

/// The left-hand side of an assignment, as Murano's engine reads it: a
/// root, then attribute and index steps.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct AssignTarget {
    /// The key as written.
    pub expression: YaqlScalar,
    /// What the steps start from.
    pub root: TargetRoot,
    /// Steps below the root.
    pub path: Vec<TargetStep>,
}

/// Where an assignment target starts.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum TargetRoot {
    /// A variable (`$x`, `$`): assigned, or updated through the path.
    Variable(String),
    /// Any other expression, evaluated; the engine can then set a static
    /// property on the class it yields (`:Foo.counter`, `type('x').y`).
    Expression(Expr),
}

/// A step of an assignment target.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum TargetStep {
    /// `.name`.
    Attribute(String),
    /// `[index, …]`.
    Index(Vec<Expr>),
}

/// Reads an assignment target from its expression, or says why the engine
/// cannot assign to it.
fn target(expression: &YaqlScalar) -> Result<AssignTarget, String> {
    fn walk(expr: &Expr, path: &mut Vec<TargetStep>) -> Result<TargetRoot, String> {
        match &expr.kind {
            ExprKind::Variable(name) => Ok(TargetRoot::Variable(name.to_string())),
            ExprKind::Binary { op, operands } if op.symbol() == "." => {
                let ExprKind::Keyword(attr) = &operands[1].kind else {
                    return Err(format!("cannot assign to the attribute {}", operands[1]));
                };
                let root = walk(&operands[0], path)?;
                path.push(TargetStep::Attribute(attr.to_string()));
                Ok(root)
            }
            ExprKind::Index { target, args } => {
                let root = walk(target, path)?;
                path.push(TargetStep::Index(args.clone()));
                Ok(root)
            }
            _ => Ok(TargetRoot::Expression(expr.clone())),
        }
    }
    let mut path = Vec::new();
    let root = walk(expression.expression.root(), &mut path)?;
    if matches!(root, TargetRoot::Expression(_)) && path.is_empty() {
        return Err(format!("cannot assign to {}", expression.expression));
    }
    Ok(AssignTarget {
        expression: expression.clone(),
        root,
        path,
    })
}

/// Builds instructions, recording problems in `issues`.
pub(crate) struct BodyBuilder<'a> {
    pub(crate) issues: &'a mut Vec<Diagnostic>,
}

impl BodyBuilder<'_> {
    /// A block from a body value: a list of items, one item, or nothing.
    pub(crate) fn block(&mut self, node: Option<&Node>) -> Block {
        match node {
            None => Vec::new(),
            Some(n) => match &n.value {
                Value::Null => Vec::new(),
                Value::Seq(items) => items.iter().map(|item| self.instruction(item)).collect(),
                _ => vec![self.instruction(n)],
            },
        }
    }

    fn invalid(&mut self, node: &Node, code: &'static str, reason: String) -> Instruction {
        self.issues.push(issue(code, reason.clone(), node));
        Instruction {
            kind: InstructionKind::Invalid { reason },
            start: node.start,
            end: node.end,
        }
    }

    /// One body item.
    pub(crate) fn instruction(&mut self, node: &Node) -> Instruction {
        let kind = match &node.value {
            Value::Yaql(expr) => InstructionKind::Expression(expr.clone()),
            Value::Map(entries) => {
                let yaql_keys = entries
                    .iter()
                    .filter(|(k, _)| matches!(k.value, Value::Yaql(_)))
                    .count();
                if yaql_keys > 0 {
                    if entries.len() != 1 {
                        return self.invalid(
                            node,
                            "M301",
                            "an assignment must be a mapping with exactly one entry".into(),
                        );
                    }
                    let (key, value) = &entries[0];
                    let Value::Yaql(key_expr) = &key.value else {
                        unreachable!("counted above")
                    };
                    match target(key_expr) {
                        Ok(target) => InstructionKind::Assignment {
                            target,
                            value: value.clone(),
                        },
                        Err(reason) => return self.invalid(node, "M302", reason),
                    }
                } else {
                    match self.construct(node, entries) {
                        Ok(kind) => kind,
                        Err(reason) => return self.invalid(node, "M303", reason),
                    }
                }
            }
            other => {
                return self.invalid(
                    node,
                    "M300",
                    format!(
                        "a body item must be a YAQL expression or a mapping, not {}",
                        describe(other)
                    ),
                )
            }
        };
        Instruction {
            kind,
            start: node.start,
            end: node.end,
        }
    }

    /// A block construct, chosen by its keys as the engine's macros are.
    fn construct(
        &mut self,
        node: &Node,
        entries: &[(Node, Node)],
    ) -> Result<InstructionKind, String> {
        let mut keys: Vec<&str> = Vec::with_capacity(entries.len());
        for (k, _) in entries {
            match &k.value {
                Value::Str(s) => keys.push(s),
                other => {
                    return Err(format!(
                        "instruction keys must be words, not {}",
                        describe(other)
                    ))
                }
            }
        }
        let get = |name: &str| {
            entries
                .iter()
                .find(|(k, _)| k.value.as_str() == Some(name))
                .map(|(_, v)| v)
        };
        let has_only = |allowed: &[&str], required: &[&str]| {
            keys.iter().all(|k| allowed.contains(k)) && required.iter().all(|r| keys.contains(r))
        };
        let not_null = |n: Option<&Node>| n.filter(|n| n.value != Value::Null).cloned();
        // The engine's registration order: Do, Return, Break, Continue,
        // Parallel, If, While, For, Repeat, Match, Switch, Throw, Try,
        // Rethrow.
        if has_only(&["Do"], &["Do"]) {
            return Ok(InstructionKind::Do(self.block(get("Do"))));
        }
        if has_only(&["Return"], &["Return"]) {
            return Ok(InstructionKind::Return(not_null(get("Return"))));
        }
        for (word, kind) in [
            ("Break", InstructionKind::Break),
            ("Continue", InstructionKind::Continue),
        ] {
            if has_only(&[word], &[word]) {
                if not_null(get(word)).is_some() {
                    return Err(format!("{word} cannot have a value"));
                }
                return Ok(kind);
            }
        }
        if has_only(&["Parallel", "Limit"], &["Parallel"]) {
            return Ok(InstructionKind::Parallel {
                body: self.block(get("Parallel")),
                limit: not_null(get("Limit")),
            });
        }
        if has_only(&["If", "Then", "Else"], &["If", "Then"]) {
            let otherwise = not_null(get("Else")).map(|n| self.block(Some(&n)));
            return Ok(InstructionKind::If {
                condition: get("If").cloned().unwrap_or_else(|| null_at(node)),
                then: self.block(get("Then")),
                otherwise,
            });
        }
        if has_only(&["While", "Do"], &["While", "Do"]) {
            if let Some(Value::Yaql(condition)) = get("While").map(|n| &n.value) {
                return Ok(InstructionKind::While {
                    condition: condition.clone(),
                    body: self.block(get("Do")),
                });
            }
            // The engine's While refuses a non-expression and no other
            // construct takes these keys.
            return Err("While needs a YAQL expression".into());
        }
        if has_only(&["For", "In", "Do"], &["For", "In", "Do"]) {
            let Some(Value::Str(variable)) = get("For").map(|n| &n.value) else {
                return Err("For value must be of string type".into());
            };
            return Ok(InstructionKind::For {
                variable: variable.clone(),
                collection: get("In").cloned().unwrap_or_else(|| null_at(node)),
                body: self.block(get("Do")),
            });
        }
        if has_only(&["Repeat", "Do"], &["Repeat", "Do"]) {
            return Ok(InstructionKind::Repeat {
                count: get("Repeat").cloned().unwrap_or_else(|| null_at(node)),
                body: self.block(get("Do")),
            });
        }
        if has_only(&["Match", "Value", "Default"], &["Match", "Value"]) {
            let Some(Value::Map(cases)) = get("Match").map(|n| &n.value) else {
                return Err("Match value must be of dictionary type".into());
            };
            let cases = cases
                .iter()
                .map(|(k, v)| (k.clone(), self.block(Some(v))))
                .collect();
            let default = not_null(get("Default")).map(|n| self.block(Some(&n)));
            return Ok(InstructionKind::Match {
                value: get("Value").cloned().unwrap_or_else(|| null_at(node)),
                cases,
                default,
            });
        }
        if has_only(&["Switch", "Default"], &["Switch"]) {
            let Some(Value::Map(cases)) = get("Switch").map(|n| &n.value) else {
                return Err("Switch value must be of dictionary type".into());
            };
            let cases = cases
                .iter()
                .map(|(k, v)| (k.clone(), self.block(Some(v))))
                .collect();
            let default = not_null(get("Default")).map(|n| self.block(Some(&n)));
            return Ok(InstructionKind::Switch { cases, default });
        }
        if has_only(&["Throw", "Message", "Extra", "Cause"], &["Throw"]) {
            let throw = get("Throw")
                .filter(|n| n.value.is_truthy())
                .ok_or("Throw needs a name")?;
            let names = match &throw.value {
                Value::Seq(items) => items.clone(),
                _ => vec![throw.clone()],
            };
            return Ok(InstructionKind::Throw {
                names,
                message: not_null(get("Message")),
                extra: not_null(get("Extra")),
                cause: not_null(get("Cause")),
            });
        }
        if has_only(&["Try", "Catch", "Finally", "Else"], &["Try"]) {
            let catch = match not_null(get("Catch")) {
                None => Vec::new(),
                Some(n) => {
                    let clauses = match &n.value {
                        Value::Seq(items) => items.clone(),
                        _ => vec![n],
                    };
                    let mut out = Vec::new();
                    for clause in &clauses {
                        out.push(self.catch_clause(clause)?);
                    }
                    out
                }
            };
            let otherwise = not_null(get("Else")).map(|n| self.block(Some(&n)));
            let finally = not_null(get("Finally")).map(|n| self.block(Some(&n)));
            return Ok(InstructionKind::Try {
                body: self.block(get("Try")),
                catch,
                otherwise,
                finally,
            });
        }
        if has_only(&["Rethrow"], &["Rethrow"]) {
            return Ok(InstructionKind::Rethrow);
        }
        let message = format!(
            "no instruction has the keys {}",
            keys.iter()
                .map(|k| format!("{k:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        self.issues.push(issue("M303", message, node));
        Ok(InstructionKind::Unknown {
            keys: keys.iter().map(|k| (*k).to_owned()).collect(),
            node: node.clone(),
        })
    }

    fn catch_clause(&mut self, node: &Node) -> Result<CatchClause, String> {
        let Value::Map(entries) = &node.value else {
            return Err("a Catch clause must be a mapping".into());
        };
        let mut clause = CatchClause {
            with: None,
            bind_as: None,
            body: None,
            start: node.start,
        };
        for (k, v) in entries {
            match k.value.as_str() {
                Some("With") if v.value != Value::Null => {
                    clause.with = Some(match &v.value {
                        Value::Seq(items) => items.clone(),
                        _ => vec![v.clone()],
                    })
                }
                Some("With") => {}
                Some("As") => clause.bind_as = v.value.as_str().map(str::to_owned),
                Some("Do") if v.value != Value::Null => clause.body = Some(self.block(Some(v))),
                Some("Do") => {}
                _ => return Err("a Catch clause takes only With, As and Do".into()),
            }
        }
        Ok(clause)
    }
}

fn null_at(node: &Node) -> Node {
    Node {
        value: Value::Null,
        start: node.start,
        end: node.start,
    }
}

/// A short description of a value's kind, for messages.
pub(crate) fn describe(value: &Value) -> &'static str {
    value.describe()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ClassDefinition;
    use crate::yaml::{load_class_file, LoadOptions};

    #[test]
    fn unknown_instructions_keep_their_contents_and_are_reported() {
        let text = "Name: A\nMethods:\n  run:\n    Body:\n      - If: $.x\n      - Then:\n          - $.y.f()\n      - $z: 1\n";
        let file = load_class_file(text.as_bytes(), &LoadOptions::default()).unwrap();
        let classes = ClassDefinition::from_documents(&file.documents, None);
        let method = classes[0].method("run").unwrap();
        let InstructionKind::Unknown { keys, node } = &method.body[1].kind else {
            panic!("{:?}", method.body[1].kind);
        };
        assert_eq!(keys, &["Then".to_owned()]);
        assert_eq!(node.start.line, 5, "{:?}", method.body);
        // `If:` without `Then:` is no instruction either.
        assert!(matches!(
            method.body[0].kind,
            InstructionKind::Unknown { .. }
        ));
        let lines: Vec<u32> = classes[0]
            .issues()
            .filter(|i| i.code == "M303")
            .filter_map(|i| i.start.map(|p| p.line))
            .collect();
        // 1-based lines of the `If:` and `Then:` items.
        assert_eq!(lines, [5, 6]);
        // The expression inside the stray item is part of the model.
        let mut texts = Vec::new();
        classes[0].for_each_expression(&mut |y| texts.push(y.text().to_owned()));
        assert!(texts.iter().any(|t| t == "$.y.f()"), "{texts:?}");
        // The items around it are still read.
        assert!(matches!(
            method.body[2].kind,
            InstructionKind::Assignment { .. }
        ));
    }
}
