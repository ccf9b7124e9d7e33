//! Emitting generated YAML (the HOT package's class and UI definition).
//!
//! Murano prints them with PyYAML's `yaml.dump(..., default_style='"')` on
//! a safe dumper that writes the `!yaql` tag. [`Gen::to_text`] writes the
//! same tree as YAML the loaders read back to the same values.

/// A generated YAML tree, emitted as text the engine's loader reads back.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Gen {
    Null,
    Bool(bool),
    Int(String),
    Float(f64),
    /// A date or timestamp, as Python's `str()` writes it.
    Time(String),
    Str(String),
    /// A scalar tagged `!yaql`.
    Yaql(String),
    Seq(Vec<Gen>),
    Map(Vec<(Gen, Gen)>),
}

pub(crate) fn s(text: &str) -> Gen {
    Gen::Str(text.to_owned())
}

pub(crate) fn y(text: &str) -> Gen {
    Gen::Yaql(text.to_owned())
}

pub(crate) fn map(entries: Vec<(Gen, Gen)>) -> Gen {
    Gen::Map(entries)
}

fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f || ('\u{80}'..='\u{9f}').contains(&c) => {
                out.push_str(&format!("\\x{:02X}", c as u32))
            }
            c if !murano_dsl_printable(c) => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn murano_dsl_printable(c: char) -> bool {
    matches!(c, '\u{20}'..='\u{7E}' | '\u{A0}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..='\u{10FFFF}')
}

impl Gen {
    /// Flow-style YAML: every scalar quoted or tagged, so the loaders read
    /// back exactly this tree.
    fn emit(&self, indent: usize, out: &mut String) {
        let pad = "  ".repeat(indent + 1);
        match self {
            Gen::Null => out.push_str("null"),
            Gen::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Gen::Int(digits) => out.push_str(&format!("!!int {}", quoted(digits))),
            Gen::Float(x) => {
                let text = if x.is_nan() {
                    ".nan".to_owned()
                } else if x.is_infinite() {
                    (if *x > 0.0 { ".inf" } else { "-.inf" }).to_owned()
                } else {
                    murano_yaql::python_float_repr(*x)
                };
                out.push_str(&format!("!!float {}", quoted(&text)));
            }
            Gen::Time(text) => out.push_str(&format!("!!timestamp {}", quoted(text))),
            Gen::Str(text) => out.push_str(&quoted(text)),
            Gen::Yaql(text) => {
                out.push_str("!yaql ");
                out.push_str(&quoted(text));
            }
            Gen::Seq(items) if items.is_empty() => out.push_str("[]"),
            Gen::Map(entries) if entries.is_empty() => out.push_str("{}"),
            Gen::Seq(items) => {
                out.push_str("[\n");
                for (i, item) in items.iter().enumerate() {
                    out.push_str(&pad);
                    item.emit(indent + 1, out);
                    out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
                }
                out.push_str(&"  ".repeat(indent));
                out.push(']');
            }
            Gen::Map(entries) => {
                out.push_str("{\n");
                for (i, (k, v)) in entries.iter().enumerate() {
                    out.push_str(&pad);
                    k.emit(indent + 1, out);
                    out.push_str(": ");
                    v.emit(indent + 1, out);
                    out.push_str(if i + 1 < entries.len() { ",\n" } else { "\n" });
                }
                out.push_str(&"  ".repeat(indent));
                out.push('}');
            }
        }
    }

    pub(crate) fn to_text(&self) -> String {
        let mut out = String::new();
        self.emit(0, &mut out);
        out.push('\n');
        out
    }
}
