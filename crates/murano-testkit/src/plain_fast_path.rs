//! The plain YAML fast path (`murano_yaml::plain::load_plain`) checked
//! against the general loader (`load_single` with `Flavor::Plain`):
//! whenever the fast path builds a document, the general loader must
//! build the same one. Used by murano-yaml's tests and the `yaml_load`
//! fuzz target.

use murano_yaml::plain::{load_plain, PlainLoad, PlainScalar, PlainTree};
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

/// Checks one text; true when the fast path built it.
pub fn check(text: &str, options: &LoadOptions) -> bool {
    let fast = load_plain::<Tree>(text, options);
    let full = load_single(text.as_bytes(), Flavor::Plain, options);
    match fast {
        PlainLoad::NeedsFullLoader => false,
        PlainLoad::Empty => {
            assert!(matches!(full, Ok(None)), "{text:?}: {full:?}");
            true
        }
        PlainLoad::Document(t) => {
            let node = match full {
                Ok(Some(node)) => node,
                other => panic!("{text:?}: the fast path built {t:?}, the loader gave {other:?}"),
            };
            let chars: Vec<char> = text.chars().collect();
            assert_eq!(Some(t), tree(&node, &chars), "{text:?}");
            true
        }
    }
}
