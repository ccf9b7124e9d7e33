//! Contracts as readable text: `$.string().notNull().check(len($) >= 3)`
//! reads "string, required, where `len($) >= 3`"; class contracts link to
//! the class. A contract the reader does not know is shown as code.

use murano_dsl::model::Namespaces;
use murano_yaml::{Node, Value};

use super::Inline;

/// Splits `$.a(x).b()` into `[("a", "x"), ("b", "")]`; `None` when the
/// text is not such a chain (string literals may hold parentheses).
fn chain(text: &str) -> Option<Vec<(String, String)>> {
    let rest = text.trim().strip_prefix('$')?;
    let chars: Vec<char> = rest.chars().collect();
    let mut calls = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i].is_whitespace() {
            i += 1;
            continue;
        }
        if chars[i] != '.' {
            return None;
        }
        i += 1;
        let start = i;
        while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
            i += 1;
        }
        let name: String = chars[start..i].iter().collect();
        if name.is_empty() || chars.get(i) != Some(&'(') {
            return None;
        }
        i += 1;
        let arg_start = i;
        let mut depth = 1usize;
        let mut quote: Option<char> = None;
        while i < chars.len() {
            let c = chars[i];
            match quote {
                Some(_) if c == '\\' => i += 1,
                Some(q) if c == q => quote = None,
                Some(_) => {}
                None if c == '\'' || c == '"' || c == '`' => quote = Some(c),
                None if c == '(' || c == '[' || c == '{' => depth += 1,
                None if c == ')' || c == ']' || c == '}' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                None => {}
            }
            i += 1;
        }
        if depth != 0 {
            return None;
        }
        let args: String = chars[arg_start..i].iter().collect();
        i += 1;
        calls.push((name, args.trim().to_owned()));
    }
    Some(calls)
}

/// A class name as written in a contract (maybe quoted), resolved through
/// the class's namespaces.
fn class_ref(written: &str, namespaces: &Namespaces) -> Inline {
    let bare = written
        .split(',')
        .next()
        .unwrap_or("")
        .trim()
        .trim_matches(|c| c == '\'' || c == '"');
    match namespaces.resolve(bare) {
        Ok(full) => Inline::Link {
            text: full.clone(),
            class: full,
        },
        Err(_) => Inline::Code(bare.to_owned()),
    }
}

/// The readable form of one contract expression.
fn expression(text: &str, namespaces: &Namespaces) -> Vec<Inline> {
    let text = text.trim();
    if text == "$" {
        return vec![Inline::Text("any value".into())];
    }
    let Some(calls) = chain(text) else {
        return vec![Inline::Code(text.to_owned())];
    };
    let mut parts: Vec<Vec<Inline>> = Vec::new();
    for (name, args) in calls {
        let part = match name.as_str() {
            "string" => vec![Inline::Text("string".into())],
            "int" => vec![Inline::Text("integer".into())],
            "bool" => vec![Inline::Text("boolean".into())],
            "notNull" => vec![Inline::Text("required".into())],
            "class" => vec![class_ref(&args, namespaces), Inline::Text(" object".into())],
            "template" => vec![
                Inline::Text("template of ".into()),
                class_ref(&args, namespaces),
            ],
            "check" => vec![Inline::Text("where ".into()), Inline::Code(args)],
            "not_null" => vec![Inline::Text("required".into())],
            _ => vec![Inline::Code(format!("{name}({args})"))],
        };
        parts.push(part);
    }
    join(parts, ", ")
}

fn join(parts: Vec<Vec<Inline>>, separator: &str) -> Vec<Inline> {
    let mut out = Vec::new();
    for (i, part) in parts.into_iter().enumerate() {
        if i > 0 {
            out.push(Inline::Text(separator.into()));
        }
        out.extend(part);
    }
    out
}

/// The readable form of a contract node (an expression, a list or a
/// mapping contract, nested at most `depth` levels).
pub(crate) fn describe(node: &Node, namespaces: &Namespaces) -> Vec<Inline> {
    let mut budget = MAX_NODES;
    describe_at(node, namespaces, 0, &mut budget)
}

/// Most contract nodes described in one contract: a mapping contract that
/// aliases a big mapping many times is cut there.
const MAX_NODES: usize = 200;

/// Longest expression text described (longer ones are cut, with `…`).
const MAX_EXPRESSION: usize = 400;

/// `text`, cut at [`MAX_EXPRESSION`] characters.
fn bounded(text: &str) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(MAX_EXPRESSION) {
        Some((at, _)) => format!("{}…", &text[..at]).into(),
        None => text.into(),
    }
}

fn describe_at(
    node: &Node,
    namespaces: &Namespaces,
    depth: usize,
    budget: &mut usize,
) -> Vec<Inline> {
    if depth > 8 || *budget == 0 {
        return vec![Inline::Text("…".into())];
    }
    *budget -= 1;
    match &node.value {
        Value::Null => vec![Inline::Text("any value".into())],
        Value::Yaql(y) => expression(&bounded(y.text()), namespaces),
        Value::Str(s) => expression(&bounded(s), namespaces),
        Value::Seq(items) => {
            let Some(first) = items.first() else {
                return vec![Inline::Text("list".into())];
            };
            let mut out = vec![Inline::Text("list of (".into())];
            out.extend(describe_at(first, namespaces, depth + 1, budget));
            out.push(Inline::Text(")".into()));
            let counts: Vec<String> = items[1..]
                .iter()
                .take(2)
                .map(|n| bounded(&n.value.python_str()).into_owned())
                .collect();
            match counts.as_slice() {
                [] => {}
                [min] => out.push(Inline::Text(format!(", at least {min}"))),
                [min, max, ..] => out.push(Inline::Text(format!(", {min} to {max} items"))),
            }
            out
        }
        Value::Map(pairs) => {
            let mut parts = Vec::new();
            for (key, value) in pairs {
                if *budget == 0 {
                    parts.push(vec![Inline::Text("…".into())]);
                    break;
                }
                let mut part = match &key.value {
                    Value::Yaql(y) => {
                        let mut k = vec![Inline::Text("keys ".into())];
                        k.extend(expression(&bounded(y.text()), namespaces));
                        k
                    }
                    other => vec![Inline::Code(bounded(&other.python_str()).into_owned())],
                };
                part.push(Inline::Text(": ".into()));
                part.extend(describe_at(value, namespaces, depth + 1, budget));
                parts.push(part);
            }
            let mut out = vec![Inline::Text("mapping {".into())];
            out.extend(join(parts, "; "));
            out.push(Inline::Text("}".into()));
            out
        }
        other => vec![Inline::Code(bounded(&other.python_str()).into_owned())],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use murano_yaml::{load_class_file, LoadOptions};

    fn text(inlines: &[Inline]) -> String {
        inlines
            .iter()
            .map(|i| match i {
                Inline::Text(t) => t.clone(),
                Inline::Code(c) => format!("`{c}`"),
                Inline::Link { text, .. } => format!("[{text}]"),
            })
            .collect()
    }

    fn read(contract: &str) -> String {
        let doc = format!("Contract: {contract}\n");
        let file = load_class_file(doc.as_bytes(), &LoadOptions::default()).unwrap();
        let node = file.documents[0].value.get("Contract").unwrap().clone();
        let ns = Namespaces::new([
            ("res", Some("io.murano.resources")),
            ("=", Some("com.example")),
        ])
        .unwrap();
        text(&describe(&node, &ns))
    }

    #[test]
    fn common_contracts_read_as_text() {
        assert_eq!(
            read("$.string().notNull().check(len($) >= 3)"),
            "string, required, where `len($) >= 3`"
        );
        assert_eq!(
            read("$.class(res:Instance).notNull()"),
            "[io.murano.resources.Instance] object, required"
        );
        assert_eq!(read("$"), "any value");
        assert_eq!(read("[$.int(), 1]"), "list of (integer), at least 1");
        assert_eq!(
            read("{name: $.string().notNull()}"),
            "mapping {`name`: string, required}"
        );
        assert_eq!(read("$.check($ in list(a, b))"), "where `$ in list(a, b)`");
        assert_eq!(read("$.foo(1)"), "`foo(1)`");
        assert_eq!(read("len($) > 1"), "`len($) > 1`");
    }

    #[test]
    fn aliased_and_long_contracts_are_cut() {
        let long = format!("$.check({})", "x".repeat(5000));
        let shown = read(&long);
        assert!(shown.len() < 500, "{}", shown.len());
        assert!(shown.contains('…'));
        // Three levels of 30 keys aliasing the level below: 27,000 paths
        // (half a megabyte of text undescribed).
        let mut doc = String::from("l0: &l0 {");
        doc.push_str(
            &(0..30)
                .map(|i| format!("k{i}: $.int()"))
                .collect::<Vec<_>>()
                .join(", "),
        );
        doc.push_str("}\n");
        for level in 1..3 {
            doc.push_str(&format!("l{level}: &l{level} {{"));
            doc.push_str(
                &(0..30)
                    .map(|i| format!("k{i}: *l{}", level - 1))
                    .collect::<Vec<_>>()
                    .join(", "),
            );
            doc.push_str("}\n");
        }
        doc.push_str("Contract: *l2\n");
        let file = load_class_file(doc.as_bytes(), &LoadOptions::default()).unwrap();
        let node = file.documents[0].value.get("Contract").unwrap().clone();
        let ns = Namespaces::new([("=", Some("a"))]).unwrap();
        let shown = text(&describe(&node, &ns));
        assert!(shown.len() < 20_000, "{}", shown.len());
        assert!(shown.contains('…'));
    }
}
