//! Operator tables: the value that decides yaql's grammar.
//!
//! yaql does not have one fixed grammar. A factory holds an ordered list of
//! operator records split into precedence groups; the first group binds
//! tightest. Murano and yaql's legacy mode edit that list before building an
//! engine, so the table is data here too, and [`crate::Grammar`] compiles it.

use std::fmt;

/// How an operator combines with its operands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OperatorKind {
    /// `op value`, such as `not x` or `-x`.
    PrefixUnary,
    /// `value op`. None of the built-in tables has one, but hosts may.
    SuffixUnary,
    /// `a op b op c` groups as `(a op b) op c`.
    BinaryLeft,
    /// `a op b op c` groups as `a op (b op c)`, like `->`.
    BinaryRight,
    /// The keyword-argument operator (`=>` in `f(name => value)`). At most
    /// one per table; it takes no part in precedence.
    NameValuePair,
}

impl OperatorKind {
    /// True for the two binary kinds.
    pub fn is_binary(self) -> bool {
        matches!(self, OperatorKind::BinaryLeft | OperatorKind::BinaryRight)
    }

    /// True for the two unary kinds.
    pub fn is_unary(self) -> bool {
        matches!(self, OperatorKind::PrefixUnary | OperatorKind::SuffixUnary)
    }
}

/// One operator in a table.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct OperatorRecord {
    /// The operator's text: a symbol (`+`, `?.`), a word (`and`), or the
    /// two pseudo operators `[]` (indexer and list literal) and `{}` (map
    /// literal), whose place in the table sets their precedence.
    pub symbol: String,
    /// Prefix, suffix, binary, or the name-value pair operator.
    pub kind: OperatorKind,
    /// When set, the operator's function is `*alias` instead of
    /// `#operator_<symbol>` (yaql's `=` is `*equal`).
    pub alias: Option<String>,
}

impl OperatorRecord {
    /// A record without an alias.
    pub fn new(symbol: impl Into<String>, kind: OperatorKind) -> Self {
        OperatorRecord {
            symbol: symbol.into(),
            kind,
            alias: None,
        }
    }

    /// A record whose function name is `*alias`.
    pub fn with_alias(
        symbol: impl Into<String>,
        kind: OperatorKind,
        alias: impl Into<String>,
    ) -> Self {
        OperatorRecord {
            symbol: symbol.into(),
            kind,
            alias: Some(alias.into()),
        }
    }
}

/// An entry of the table: an operator, or the boundary between two
/// precedence groups.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum TableEntry {
    /// An operator of the current group.
    Operator(OperatorRecord),
    /// Starts the next, looser group.
    GroupBreak,
}

/// Why an operator table was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OperatorTableError {
    /// `insert_operator` named an operator the table does not have.
    #[error("operator {0:?} is not in the table")]
    NotFound(String),
    /// The same symbol was given two prefix/suffix roles, two binary roles,
    /// or a second name-value pair operator appeared.
    #[error("operator {0:?} is defined twice in the same role")]
    Duplicate(String),
    /// The symbol cannot be lexed: empty, or containing white space.
    #[error("operator symbol {0:?} cannot be lexed (empty or contains white space)")]
    BadSymbol(String),
}

/// An ordered list of operators in precedence groups, tightest first.
///
/// Build one of the three tables yaql and Murano use, or edit one the way
/// yaql's `YaqlFactory.insert_operator` does:
///
/// ```
/// use murano_yaql::{Grammar, OperatorKind, OperatorTable};
///
/// let mut table = OperatorTable::standard();
/// // A new group of its own, just looser than `or`.
/// table.insert_operator(Some("or"), true, "xor", OperatorKind::BinaryLeft, true, None)?;
/// let grammar = Grammar::new(&table, false)?;
/// let tree = grammar.parse("a or b xor c")?;
/// assert_eq!(tree.to_string(), "#operator_xor(#operator_or(a, b), c)");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct OperatorTable {
    entries: Vec<TableEntry>,
}

fn op(symbol: &str, kind: OperatorKind) -> TableEntry {
    TableEntry::Operator(OperatorRecord::new(symbol, kind))
}

impl OperatorTable {
    /// A table with no operators at all.
    pub fn empty() -> Self {
        OperatorTable {
            entries: Vec::new(),
        }
    }

    /// yaql's operators before the keyword operator is added (the list
    /// `YaqlFactory._standard_operators` returns).
    pub fn base() -> Self {
        use OperatorKind::*;
        use TableEntry::GroupBreak as G;
        let entries = vec![
            op(".", BinaryLeft),
            op("?.", BinaryLeft),
            G,
            op("[]", BinaryLeft),
            op("{}", BinaryLeft),
            G,
            op("+", PrefixUnary),
            op("-", PrefixUnary),
            G,
            op("=~", BinaryLeft),
            op("!~", BinaryLeft),
            G,
            op("*", BinaryLeft),
            op("/", BinaryLeft),
            op("mod", BinaryLeft),
            G,
            op("+", BinaryLeft),
            op("-", BinaryLeft),
            G,
            op(">", BinaryLeft),
            op("<", BinaryLeft),
            op(">=", BinaryLeft),
            op("<=", BinaryLeft),
            TableEntry::Operator(OperatorRecord::with_alias("!=", BinaryLeft, "not_equal")),
            TableEntry::Operator(OperatorRecord::with_alias("=", BinaryLeft, "equal")),
            op("in", BinaryLeft),
            G,
            op("not", PrefixUnary),
            G,
            op("and", BinaryLeft),
            G,
            op("or", BinaryLeft),
            G,
            op("->", BinaryRight),
        ];
        OperatorTable { entries }
    }

    /// yaql's standard table: [`OperatorTable::base`] with the `=>`
    /// keyword-argument operator in front (`YaqlFactory()`).
    pub fn standard() -> Self {
        let mut table = Self::base();
        table
            .entries
            .insert(0, op("=>", OperatorKind::NameValuePair));
        table
    }

    /// The table of Murano's engine: the standard table plus binary `is`
    /// among the comparisons, binary and prefix `:` in a new group that binds
    /// tighter than everything, and an empty group in front (which, through
    /// the way yaql numbers groups, leaves `->` without a precedence; the
    /// parse trees are the same).
    pub fn murano() -> Self {
        let mut table = Self::standard();
        let steps = [
            table.insert_operator(Some(">"), true, "is", OperatorKind::BinaryLeft, false, None),
            table.insert_operator(None, true, ":", OperatorKind::BinaryLeft, true, None),
            table.insert_operator(Some(":"), true, ":", OperatorKind::PrefixUnary, false, None),
        ];
        debug_assert!(steps.iter().all(Result::is_ok));
        table.entries.insert(0, TableEntry::GroupBreak);
        table
    }

    /// yaql's legacy (0.2 compatible) table: no keyword-argument operator,
    /// and `=>` an ordinary left-associative operator in a group between
    /// `or` and `->`.
    pub fn legacy() -> Self {
        let mut table = Self::base();
        let step =
            table.insert_operator(Some("or"), true, "=>", OperatorKind::BinaryLeft, true, None);
        debug_assert!(step.is_ok());
        table
    }

    /// The entries, tightest group first.
    pub fn entries(&self) -> &[TableEntry] {
        &self.entries
    }

    /// Appends an operator to the last group.
    pub fn push(&mut self, record: OperatorRecord) {
        self.entries.push(TableEntry::Operator(record));
    }

    /// Ends the current group: operators pushed after this bind looser.
    pub fn push_group_break(&mut self) {
        self.entries.push(TableEntry::GroupBreak);
    }

    /// Inserts an operator exactly as yaql's `insert_operator` does.
    ///
    /// With `existing` set, the new operator joins the end of the group that
    /// holds `existing` (its binary or its unary form, as
    /// `existing_is_binary` says), or, with `create_group`, a new group right
    /// after it. With `existing` = `None` it goes to the front: into the
    /// first group, or a new first group with `create_group`.
    pub fn insert_operator(
        &mut self,
        existing: Option<&str>,
        existing_is_binary: bool,
        symbol: &str,
        kind: OperatorKind,
        create_group: bool,
        alias: Option<&str>,
    ) -> Result<(), OperatorTableError> {
        let entries = &mut self.entries;
        let mut position = 0;
        if let Some(existing) = existing {
            position = entries
                .iter()
                .position(|entry| match entry {
                    TableEntry::Operator(r) => {
                        r.symbol == existing
                            && if existing_is_binary {
                                r.kind.is_binary()
                            } else {
                                r.kind.is_unary()
                            }
                    }
                    TableEntry::GroupBreak => false,
                })
                .ok_or_else(|| OperatorTableError::NotFound(existing.to_owned()))?;
            while position < entries.len() && matches!(entries[position], TableEntry::Operator(_)) {
                position += 1;
            }
        }
        if create_group {
            if position == entries.len() {
                entries.push(TableEntry::GroupBreak);
                position += 1;
            } else {
                while position < entries.len()
                    && matches!(entries[position], TableEntry::GroupBreak)
                {
                    position += 1;
                }
                entries.insert(position, TableEntry::GroupBreak);
            }
        }
        let record = OperatorRecord {
            symbol: symbol.to_owned(),
            kind,
            alias: alias.map(str::to_owned),
        };
        entries.insert(position, TableEntry::Operator(record));
        Ok(())
    }
}

impl Default for OperatorTable {
    /// The standard table.
    fn default() -> Self {
        Self::standard()
    }
}

impl fmt::Display for OperatorTable {
    /// One group per line, tightest first.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first_in_line = true;
        for entry in &self.entries {
            match entry {
                TableEntry::GroupBreak => {
                    writeln!(f)?;
                    first_in_line = true;
                }
                TableEntry::Operator(r) => {
                    if !first_in_line {
                        f.write_str(" ")?;
                    }
                    write!(f, "{}:{:?}", r.symbol, r.kind)?;
                    first_in_line = false;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn symbols_of_group_with(table: &OperatorTable, symbol: &str) -> Vec<String> {
        let groups: Vec<Vec<String>> = table
            .entries()
            .split(|e| matches!(e, TableEntry::GroupBreak))
            .map(|g| {
                g.iter()
                    .map(|e| match e {
                        TableEntry::Operator(r) => r.symbol.clone(),
                        TableEntry::GroupBreak => unreachable!(),
                    })
                    .collect()
            })
            .collect();
        groups
            .into_iter()
            .find(|g| g.iter().any(|s| s == symbol))
            .unwrap_or_default()
    }

    #[test]
    fn murano_puts_is_among_comparisons() {
        let table = OperatorTable::murano();
        assert_eq!(
            symbols_of_group_with(&table, "is"),
            [">", "<", ">=", "<=", "!=", "=", "in", "is"]
        );
    }

    #[test]
    fn murano_colon_group_comes_first() {
        let table = OperatorTable::murano();
        assert_eq!(table.entries()[0], TableEntry::GroupBreak);
        assert_eq!(symbols_of_group_with(&table, ":"), [":", ":"]);
    }

    #[test]
    fn legacy_arrow_group_between_or_and_lambda() {
        let table = OperatorTable::legacy();
        assert_eq!(symbols_of_group_with(&table, "=>"), ["=>"]);
        let text = table.to_string();
        let lines: Vec<&str> = text.lines().collect();
        let n = lines.len();
        assert!(lines[n - 3].starts_with("or:"));
        assert!(lines[n - 2].starts_with("=>:"));
        assert!(lines[n - 1].starts_with("->:"));
    }

    #[test]
    fn unknown_anchor_is_an_error() {
        let mut table = OperatorTable::standard();
        let err = table
            .insert_operator(
                Some("nope"),
                true,
                "x",
                OperatorKind::BinaryLeft,
                false,
                None,
            )
            .unwrap_err();
        assert_eq!(err, OperatorTableError::NotFound("nope".into()));
    }
}
