//! A compiled operator table: what the lexer and the parser consult.
//!
//! yaql turns its table into a PLY grammar whose ambiguities are settled by
//! precedence declarations. The parser in this crate is a precedence climber
//! that makes the same shift/reduce choices, so this module computes the
//! precedence *levels* PLY would see, quirks included:
//!
//! * yaql numbers groups from 1 and then declares levels `1..=n` where `n`
//!   is the number of distinct (level, associativity) pairs. When a table
//!   starts with an empty group (Murano's does), the loosest group falls
//!   outside that range and its operators get no precedence at all.
//! * Within one group a right-associative operator binds tighter than a
//!   left-associative one.
//! * A token without precedence (the delegate call's `(`) facing a rule
//!   with precedence makes PLY reduce, so `1 + $f(2)` calls `1 + $f`.

use std::collections::HashMap;
use std::sync::Arc;

use crate::ast::OperatorRef;
use crate::chars::{is_ignored, is_word};
use crate::operators::{OperatorKind, OperatorTable, OperatorTableError, TableEntry};

/// A precedence as PLY sees it: `level` 0 means "none"; a higher level binds
/// tighter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Prec {
    pub(crate) level: u32,
    pub(crate) left: bool,
}

impl Prec {
    /// What a rule or token without declared precedence gets.
    pub(crate) const NONE: Prec = Prec {
        level: 0,
        left: false,
    };

    /// True when a parser that has just built a rule of precedence `self`
    /// should take a following token of precedence `token` into the rule's
    /// last operand instead of closing the rule (PLY's shift/reduce choice).
    pub(crate) fn shifts(self, token: u32) -> bool {
        !(token < self.level || (token == self.level && self.left))
    }
}

/// The unary or binary role of an operator symbol.
#[derive(Debug, Clone)]
pub(crate) struct Role {
    /// Precedence of the grammar rule this role produces.
    pub(crate) rule: Prec,
    /// The operator and the function the node calls (`#operator_+`,
    /// `#unary_operator_-`, or `*alias`), shared by all nodes.
    pub(crate) op: OperatorRef,
}

/// Everything known about one operator symbol.
#[derive(Debug, Clone)]
pub(crate) struct OperatorInfo {
    pub(crate) symbol: Arc<str>,
    /// Precedence of the token itself, used when it follows a value.
    pub(crate) token: Prec,
    pub(crate) prefix: Option<Role>,
    pub(crate) suffix: Option<Role>,
    pub(crate) binary: Option<Role>,
}

/// What a symbol matched by the lexer's operator phase stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SymbolToken {
    Operator(u16),
    Mapping,
    Indexer,
    Map,
}

/// A grammar built from an [`OperatorTable`]: yaql's engine minus the
/// evaluator. Cheap to clone; build it once and parse many expressions.
///
/// ```
/// use murano_yaql::Grammar;
///
/// let grammar = Grammar::standard();
/// let tree = grammar.parse("$.where($ > 3)")?;
/// assert_eq!(tree.to_string(), "#operator_.($, where(#operator_>($, 3)))");
/// # Ok::<(), murano_yaql::ParseError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Grammar {
    pub(crate) inner: Arc<GrammarInner>,
}

#[derive(Debug)]
pub(crate) struct GrammarInner {
    pub(crate) operators: Vec<OperatorInfo>,
    /// Operators by symbol, for the few that are words (`and`, `mod`):
    /// a short list beats hashing every identifier.
    pub(crate) word_operators: Vec<(Box<str>, u16)>,
    /// Every symbol the operator phase of the lexer may match, by first
    /// byte, longest first (PLY orders these rules by the length of their
    /// regex, which for literal symbols is the same as longest match).
    pub(crate) symbols: Vec<Vec<(Box<str>, SymbolToken)>>,
    pub(crate) name_value_op: Option<Arc<str>>,
    pub(crate) indexer: Option<Prec>,
    pub(crate) has_map: bool,
    pub(crate) allow_delegates: bool,
    pub(crate) table: OperatorTable,
}

#[derive(Default, Clone)]
struct Accumulated {
    up: i64,
    bp: i64,
    alias: Option<String>,
}

impl Grammar {
    /// Compiles `table`. `allow_delegates` enables calling any value,
    /// `$f(1)`, as `YaqlFactory(allow_delegates=True)` does.
    pub fn new(
        table: &OperatorTable,
        allow_delegates: bool,
    ) -> Result<Grammar, OperatorTableError> {
        // yaql's `_build_operator_table`: one record per symbol, with the
        // unary (`up`) and binary (`bp`) group numbers, negative for
        // suffix / right associative.
        let mut order: Vec<String> = Vec::new();
        let mut records: HashMap<String, Accumulated> = HashMap::new();
        let mut name_value_op: Option<String> = None;
        let mut precedence: i64 = 1;
        for entry in table.entries() {
            let record = match entry {
                TableEntry::GroupBreak => {
                    precedence += 1;
                    continue;
                }
                TableEntry::Operator(record) => record,
            };
            if record.symbol.is_empty() || record.symbol.chars().any(is_ignored) {
                return Err(OperatorTableError::BadSymbol(record.symbol.clone()));
            }
            if record.kind == OperatorKind::NameValuePair {
                if name_value_op.is_some() {
                    return Err(OperatorTableError::Duplicate(record.symbol.clone()));
                }
                name_value_op = Some(record.symbol.clone());
                continue;
            }
            if !records.contains_key(&record.symbol) {
                order.push(record.symbol.clone());
            }
            let acc = records.entry(record.symbol.clone()).or_default();
            match record.kind {
                OperatorKind::PrefixUnary | OperatorKind::SuffixUnary => {
                    if acc.up != 0 {
                        return Err(OperatorTableError::Duplicate(record.symbol.clone()));
                    }
                    acc.up = if record.kind == OperatorKind::PrefixUnary {
                        precedence
                    } else {
                        -precedence
                    };
                }
                OperatorKind::BinaryLeft | OperatorKind::BinaryRight => {
                    if acc.bp != 0 {
                        return Err(OperatorTableError::Duplicate(record.symbol.clone()));
                    }
                    acc.bp = if record.kind == OperatorKind::BinaryLeft {
                        precedence
                    } else {
                        -precedence
                    };
                }
                OperatorKind::NameValuePair => {}
            }
            // yaql keeps the alias of the last record for a symbol.
            acc.alias = record.alias.clone();
        }

        // The parser's precedence declarations. Keys are (group, is_left);
        // the values name pseudo tokens: "U:<sym>" for the unary rule of a
        // symbol that is also binary, "T:<sym>" for the token itself.
        let mut groups: Vec<((i64, bool), Vec<String>)> = Vec::new();
        let mut add = |key: (i64, bool), name: String| {
            if let Some((_, names)) = groups.iter_mut().find(|(k, _)| *k == key) {
                names.push(name);
            } else {
                groups.push((key, vec![name]));
            }
        };
        for symbol in &order {
            let acc = &records[symbol];
            if acc.up != 0 {
                let name = if acc.bp != 0 {
                    format!("U:{symbol}")
                } else {
                    format!("T:{symbol}")
                };
                add((acc.up.abs(), acc.up > 0), name);
            }
            if acc.bp != 0 {
                add((acc.bp.abs(), acc.bp > 0), format!("T:{symbol}"));
            }
        }
        // yaql walks groups 1..=len(dict), right before left, then puts ','
        // first and reverses; PLY ranks the resulting list loosest first.
        let count = groups.len() as i64;
        let mut declared: Vec<(bool, &Vec<String>)> = Vec::new();
        for level in 1..=count {
            for is_left in [false, true] {
                if let Some((_, names)) = groups.iter().find(|(k, _)| *k == (level, is_left)) {
                    declared.push((is_left, names));
                }
            }
        }
        // Reversed list, then ',' last; rank 1 = loosest.
        let mut prec_of: HashMap<&str, Prec> = HashMap::new();
        for (rank, (is_left, names)) in declared.iter().rev().enumerate() {
            for name in names.iter() {
                prec_of.insert(
                    name.as_str(),
                    Prec {
                        level: rank as u32 + 1,
                        left: *is_left,
                    },
                );
            }
        }
        let lookup = |name: String| prec_of.get(name.as_str()).copied().unwrap_or(Prec::NONE);

        let mut operators = Vec::new();
        let mut by_symbol: HashMap<Arc<str>, u16> = HashMap::new();
        let mut symbols: Vec<(Arc<str>, SymbolToken)> = Vec::new();
        let mut indexer = None;
        let mut has_map = false;
        for symbol in &order {
            let acc = &records[symbol];
            let token = lookup(format!("T:{symbol}"));
            if symbol == "[]" {
                indexer = Some(token);
                symbols.push((Arc::from("["), SymbolToken::Indexer));
                continue;
            }
            if symbol == "{}" {
                has_map = true;
                symbols.push((Arc::from("{"), SymbolToken::Map));
                continue;
            }
            let unary_rule = if acc.bp != 0 {
                lookup(format!("U:{symbol}"))
            } else {
                token
            };
            let unary_function = match &acc.alias {
                Some(alias) => format!("*{alias}"),
                None => format!("#unary_operator_{symbol}"),
            };
            let binary_function = match &acc.alias {
                Some(alias) => format!("*{alias}"),
                None => format!("#operator_{symbol}"),
            };
            let unary = Role {
                rule: unary_rule,
                op: OperatorRef::new(symbol, &unary_function),
            };
            let info = OperatorInfo {
                symbol: Arc::from(symbol.as_str()),
                token,
                prefix: (acc.up > 0).then(|| unary.clone()),
                suffix: (acc.up < 0).then(|| unary.clone()),
                binary: (acc.bp != 0).then(|| Role {
                    rule: token,
                    op: OperatorRef::new(symbol, &binary_function),
                }),
            };
            let id = u16::try_from(operators.len())
                .map_err(|_| OperatorTableError::Duplicate(symbol.clone()))?;
            by_symbol.insert(info.symbol.clone(), id);
            symbols.push((info.symbol.clone(), SymbolToken::Operator(id)));
            operators.push(info);
        }
        if let Some(nv) = &name_value_op {
            symbols.push((Arc::from(nv.as_str()), SymbolToken::Mapping));
        }
        symbols.sort_by_key(|(s, _)| std::cmp::Reverse(s.len()));
        let mut by_first_byte: Vec<Vec<(Box<str>, SymbolToken)>> = vec![Vec::new(); 256];
        for (symbol, token) in &symbols {
            by_first_byte[usize::from(symbol.as_bytes()[0])].push((symbol.as_ref().into(), *token));
        }
        let word_operators = by_symbol
            .iter()
            .filter(|(s, _)| s.chars().all(is_word))
            .map(|(s, id)| (s.as_ref().into(), *id))
            .collect();

        Ok(Grammar {
            inner: Arc::new(GrammarInner {
                operators,
                word_operators,
                symbols: by_first_byte,
                name_value_op: name_value_op.map(Arc::from),
                indexer,
                has_map,
                allow_delegates,
                table: table.clone(),
            }),
        })
    }

    /// yaql's standard grammar with delegates off: `YaqlFactory()`. This is
    /// what the Murano dashboard uses for UI files.
    pub fn standard() -> Grammar {
        static BUILT: std::sync::OnceLock<Grammar> = std::sync::OnceLock::new();
        BUILT
            .get_or_init(|| Self::built_in(&OperatorTable::standard(), false))
            .clone()
    }

    /// yaql's standard grammar with delegates on:
    /// `YaqlFactory(allow_delegates=True)`.
    pub fn standard_with_delegates() -> Grammar {
        static BUILT: std::sync::OnceLock<Grammar> = std::sync::OnceLock::new();
        BUILT
            .get_or_init(|| Self::built_in(&OperatorTable::standard(), true))
            .clone()
    }

    /// The grammar of Murano's engine (class files, all format versions).
    pub fn murano() -> Grammar {
        static BUILT: std::sync::OnceLock<Grammar> = std::sync::OnceLock::new();
        BUILT
            .get_or_init(|| Self::built_in(&OperatorTable::murano(), false))
            .clone()
    }

    /// yaql's legacy grammar (`yaql.legacy.YaqlFactory()`).
    pub fn legacy() -> Grammar {
        static BUILT: std::sync::OnceLock<Grammar> = std::sync::OnceLock::new();
        BUILT
            .get_or_init(|| Self::built_in(&OperatorTable::legacy(), false))
            .clone()
    }

    /// Built-in grammars are built once per process (cheap clones after).
    fn built_in(table: &OperatorTable, allow_delegates: bool) -> Grammar {
        match Grammar::new(table, allow_delegates) {
            Ok(grammar) => grammar,
            // The built-in tables are fixed and tested; an error here is a
            // bug in this crate, not something input can cause.
            Err(e) => panic!("built-in operator table rejected: {e}"),
        }
    }

    /// The table this grammar was built from.
    pub fn table(&self) -> &OperatorTable {
        &self.inner.table
    }

    /// Whether any value may be called (`$f(1)`).
    pub fn allows_delegates(&self) -> bool {
        self.inner.allow_delegates
    }

    /// The keyword-argument operator (`=>`), if the table has one.
    pub fn name_value_operator(&self) -> Option<&str> {
        self.inner.name_value_op.as_deref()
    }
}

impl GrammarInner {
    pub(crate) fn operator(&self, id: u16) -> &OperatorInfo {
        &self.operators[usize::from(id)]
    }

    pub(crate) fn word_operator(&self, word: &str) -> Option<u16> {
        self.word_operators
            .iter()
            .find(|(w, _)| &**w == word)
            .map(|(_, id)| *id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prec(grammar: &Grammar, symbol: &str) -> Prec {
        let inner = &grammar.inner;
        let id = inner
            .operators
            .iter()
            .position(|o| &*o.symbol == symbol)
            .expect("operator in table");
        inner.operator(id as u16).token
    }

    #[test]
    fn standard_levels_follow_groups() {
        let g = Grammar::standard();
        assert!(prec(&g, ".").level > prec(&g, "*").level);
        assert!(prec(&g, "*").level > prec(&g, "+").level);
        assert!(prec(&g, "and").level > prec(&g, "or").level);
        assert!(prec(&g, "or").level > prec(&g, "->").level);
        assert!(!prec(&g, "->").left);
        assert!(prec(&g, "->").level > 0);
    }

    #[test]
    fn murano_colon_binds_tightest_and_lambda_loses_precedence() {
        let g = Grammar::murano();
        assert!(prec(&g, ":").level > prec(&g, ".").level);
        assert_eq!(prec(&g, "->"), Prec::NONE);
        assert_eq!(prec(&g, "is").level, prec(&g, ">").level);
    }

    #[test]
    fn duplicate_binary_role_is_refused() {
        let mut table = OperatorTable::standard();
        table.push(crate::OperatorRecord::new("+", OperatorKind::BinaryLeft));
        assert!(matches!(
            Grammar::new(&table, false),
            Err(OperatorTableError::Duplicate(_))
        ));
    }
}
