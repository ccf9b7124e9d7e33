//! The plain YAML fast path (`murano_yaml::plain::load_plain`) checked
//! against the general loader (`load_single` with `Flavor::Plain`):
//! whenever either half of the fast path builds a document, the general
//! loader must build the same one. Used by murano-yaml's tests and the
//! `yaml_load` fuzz target.

use murano_yaml::plain::{load_plain_lines, load_plain_tokens, PlainLoad, PlainScalar, PlainTree};
use murano_yaml::{load_single, Flavor, Int, LoadOptions, Node, Value};

/// What both loaders are compared on.
#[derive(Debug, Clone, PartialEq)]
#[allow(missing_docs)]
pub enum Tree {
    Null,
    Bool(bool),
    Int(Int),
    /// By its bits: NaN equals NaN here.
    Float(u64),
    Str(String),
    /// A date or timestamp as written.
    Timestamp(String),
    List(Vec<Tree>),
    Map(Vec<(Tree, Tree)>),
}

impl PlainTree for Tree {
    fn scalar(scalar: PlainScalar<'_>) -> Tree {
        match scalar {
            PlainScalar::Null => Tree::Null,
            PlainScalar::Bool(b) => Tree::Bool(b),
            PlainScalar::Int(n) => Tree::Int(n),
            PlainScalar::Float(x) => Tree::Float(x.to_bits()),
            PlainScalar::Str(s) => Tree::Str(s),
            PlainScalar::Timestamp(t) => Tree::Timestamp(t.to_owned()),
        }
    }

    fn sequence(items: Vec<Tree>) -> Tree {
        Tree::List(items)
    }

    fn mapping(entries: Vec<(Tree, Tree)>) -> Tree {
        Tree::Map(entries)
    }

    fn key_text(&self) -> &str {
        match self {
            Tree::Str(s) => s,
            _ => "",
        }
    }
}

/// The general loader's node as a tree; `None` for what the fast path
/// must never build (keys that are not strings, sets, binaries...).
fn tree(node: &Node, chars: &[char]) -> Option<Tree> {
    Some(match &node.value {
        Value::Null => Tree::Null,
        Value::Bool(b) => Tree::Bool(*b),
        Value::Int(n) => Tree::Int(n.clone()),
        Value::Float(x) => Tree::Float(x.to_bits()),
        Value::Str(s) => Tree::Str(s.clone()),
        Value::Date(_) | Value::Timestamp(_) => Tree::Timestamp(
            chars
                .get(node.start.index as usize..node.end.index as usize)?
                .iter()
                .collect(),
        ),
        Value::Seq(items) => Tree::List(
            items
                .iter()
                .map(|n| tree(n, chars))
                .collect::<Option<_>>()?,
        ),
        Value::Map(entries) => Tree::Map(
            entries
                .iter()
                .map(|(k, v)| match &k.value {
                    Value::Str(s) => Some((Tree::Str(s.clone()), tree(v, chars)?)),
                    _ => None,
                })
                .collect::<Option<_>>()?,
        ),
        _ => return None,
    })
}

/// Which halves of the fast path built a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Built {
    /// `load_plain_lines` (the line reader).
    pub lines: bool,
    /// `load_plain_tokens` (the token builder).
    pub tokens: bool,
}

impl Built {
    /// Whether `load_plain` (one half, then the other) built it.
    pub fn any(self) -> bool {
        self.lines || self.tokens
    }
}

/// Checks one text with each half of the fast path against the general
/// loader (panicking on a difference); which halves built it.
pub fn check(text: &str, options: &LoadOptions) -> Built {
    let full = load_single(text.as_bytes(), Flavor::Plain, options);
    let lines = agrees(
        "lines",
        load_plain_lines::<Tree>(text, options),
        &full,
        text,
    );
    let tokens = agrees(
        "tokens",
        load_plain_tokens::<Tree>(text, options),
        &full,
        text,
    );
    Built { lines, tokens }
}

/// Whether `fast` built a document, after checking it is the general
/// loader's.
fn agrees(
    half: &str,
    fast: PlainLoad<Tree>,
    full: &Result<Option<Node>, murano_yaml::YamlError>,
    text: &str,
) -> bool {
    match fast {
        PlainLoad::NeedsFullLoader => false,
        PlainLoad::Empty => {
            assert!(matches!(full, Ok(None)), "{half}: {text:?}: {full:?}");
            true
        }
        PlainLoad::Document(t) => {
            let node = match full {
                Ok(Some(node)) => node,
                other => {
                    panic!("{half}: {text:?}: the fast path built {t:?}, the loader gave {other:?}")
                }
            };
            let chars: Vec<char> = text.chars().collect();
            assert_eq!(Some(t), tree(node, &chars), "{half}: {text:?}");
            true
        }
    }
}
