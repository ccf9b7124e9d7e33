//! `serde::Serialize` for expressions (feature `serde`).
//!
//! Trees are not serialized node by node: an [`Expression`] is its source
//! text, an [`Expr`] (a subtree, which has no text of its own) the source
//! text [`Expr::to_source`] prints for it, which parses back to the same
//! tree. A [`Span`] is `{"start": …, "end": …}` (bytes).

use serde::ser::{Serialize, SerializeStruct, Serializer};

use crate::ast::{Expr, Expression};
use crate::span::Span;

impl Serialize for Expression {
    /// The text that was parsed.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.source())
    }
}

impl Serialize for Expr {
    /// Source text that parses back to this tree ([`Expr::to_source`]).
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.to_source())
    }
}

impl Serialize for Span {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Span", 2)?;
        s.serialize_field("start", &self.start)?;
        s.serialize_field("end", &self.end)?;
        s.end()
    }
}

#[cfg(test)]
mod tests {
    use crate::Grammar;

    #[test]
    fn expressions_serialize_as_text() {
        let g = Grammar::murano();
        let e = g.parse("$.x.where($ > 1)").unwrap();
        assert_eq!(serde_json::to_string(&e).unwrap(), r#""$.x.where($ > 1)""#);
        let root = serde_json::to_value(e.root()).unwrap();
        let text = root.as_str().unwrap();
        assert!(g.parse(text).unwrap().root().same_tree(e.root()));
        assert_eq!(
            serde_json::to_string(&e.root().span).unwrap(),
            r#"{"start":0,"end":16}"#
        );
    }
}
