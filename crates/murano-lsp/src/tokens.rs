//! Semantic tokens for YAQL inside YAML scalars: variables, functions,
//! methods, properties, strings, numbers, keywords and operators of the
//! expressions of a class file (plain one-line scalars, where the
//! expression's text is the scalar's source).

use lsp_types::{SemanticToken, SemanticTokenType, SemanticTokensLegend};
use murano_yaml::{load_class_file, Node, Value};

use crate::analysis::Doc;
use crate::index::span_of;

/// The token types, in the legend's order.
const TYPES: [SemanticTokenType; 8] = [
    SemanticTokenType::VARIABLE,
    SemanticTokenType::FUNCTION,
    SemanticTokenType::METHOD,
    SemanticTokenType::PROPERTY,
    SemanticTokenType::STRING,
    SemanticTokenType::NUMBER,
    SemanticTokenType::KEYWORD,
    SemanticTokenType::OPERATOR,
];

/// The legend announced in the capabilities.
pub(crate) fn legend() -> SemanticTokensLegend {
    SemanticTokensLegend {
        token_types: TYPES.to_vec(),
        token_modifiers: Vec::new(),
    }
}

/// Token kinds (indexes into [`TYPES`]).
#[derive(Clone, Copy)]
#[repr(u32)]
enum Kind {
    Variable = 0,
    Function = 1,
    Method = 2,
    Property = 3,
    Str = 4,
    Number = 5,
    Keyword = 6,
    Operator = 7,
}

const KEYWORDS: [&str; 7] = ["and", "or", "not", "in", "null", "true", "false"];

/// Splits one expression (at byte `base` of the file) into tokens.
fn lex(expr: &str, base: usize, out: &mut Vec<(usize, usize, Kind)>) {
    let b = expr.as_bytes();
    let mut i = 0;
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    while i < b.len() {
        let c = b[i];
        let start = i;
        if c == b'$' {
            i += 1;
            while i < b.len() && ident(b[i]) {
                i += 1;
            }
            out.push((base + start, base + i, Kind::Variable));
        } else if c == b'\'' || c == b'"' || c == b'`' {
            i += 1;
            while i < b.len() && b[i] != c {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i = (i + 1).min(b.len());
            out.push((base + start, base + i, Kind::Str));
        } else if c.is_ascii_digit() {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'.') {
                i += 1;
            }
            out.push((base + start, base + i, Kind::Number));
        } else if ident(c) {
            while i < b.len() && (ident(b[i]) || b[i] == b':') {
                i += 1;
            }
            let word = &expr[start..i];
            let call = expr[i..].trim_start().starts_with('(');
            let member = expr[..start].ends_with('.');
            let kind = if KEYWORDS.contains(&word) {
                Kind::Keyword
            } else if call && member {
                Kind::Method
            } else if call {
                Kind::Function
            } else if member {
                Kind::Property
            } else {
                continue;
            };
            out.push((base + start, base + i, kind));
        } else if b"+-*/=<>!|&%~?".contains(&c) {
            while i < b.len() && b"+-*/=<>!|&%~?".contains(&b[i]) {
                i += 1;
            }
            out.push((base + start, base + i, Kind::Operator));
        } else {
            // Multi-byte characters and punctuation are skipped whole.
            i += expr[i..].chars().next().map_or(1, char::len_utf8);
        }
    }
}

fn walk(node: &Node, doc: &Doc, depth: usize, out: &mut Vec<(usize, usize, Kind)>) {
    if depth > 512 {
        return;
    }
    match &node.value {
        Value::Yaql(y) if node.start.line == node.end.line => {
            let (s, e) = span_of(&doc.text, &doc.lines, node);
            if doc.text.get(s..e) == Some(y.text()) {
                lex(y.text(), s, out);
            }
        }
        Value::Map(pairs) => {
            for (k, v) in pairs {
                walk(k, doc, depth + 1, out);
                walk(v, doc, depth + 1, out);
            }
        }
        Value::Seq(items) => {
            for n in items {
                walk(n, doc, depth + 1, out);
            }
        }
        _ => {}
    }
}

/// The tokens of a class file, delta-encoded as LSP wants them.
pub(crate) fn semantic_tokens(doc: &Doc, load: &murano_yaml::LoadOptions) -> Vec<SemanticToken> {
    let Ok(file) = load_class_file(doc.text.as_bytes(), load) else {
        return Vec::new();
    };
    let mut raw = Vec::new();
    for d in &file.documents {
        walk(d, doc, 0, &mut raw);
    }
    raw.sort_by_key(|t| t.0);
    let mut out = Vec::with_capacity(raw.len());
    let (mut line, mut col) = (0u32, 0u32);
    for (s, e, kind) in raw {
        let start = doc.lines.position(&doc.text, s);
        let end = doc.lines.position(&doc.text, e);
        if end.line != start.line {
            continue;
        }
        let delta_line = start.line - line;
        let delta_start = if delta_line == 0 {
            start.character - col
        } else {
            start.character
        };
        out.push(SemanticToken {
            delta_line,
            delta_start,
            length: end.character - start.character,
            token_type: kind as u32,
            token_modifiers_bitset: 0,
        });
        line = start.line;
        col = start.character;
    }
    out
}
