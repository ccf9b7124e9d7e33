//! What the server knows of each class file: the class's name, the
//! namespace prefixes of its file, parents, properties and methods, each
//! with the byte range of its name, read from the YAML tree's marks.

use murano_yaml::{load_class_file, LoadOptions, Node, Value};

use crate::text::LineIndex;

/// A byte range in a file's text.
pub(crate) type Span = (usize, usize);

/// A property as declared.
#[derive(Debug, Clone)]
pub(crate) struct PropertyInfo {
    pub(crate) name: String,
    pub(crate) span: Span,
    pub(crate) contract: Option<String>,
    pub(crate) usage: Option<String>,
    pub(crate) default: Option<String>,
}

/// A method as declared.
#[derive(Debug, Clone)]
pub(crate) struct MethodInfo {
    pub(crate) name: String,
    pub(crate) span: Span,
    /// Argument names with their contract text.
    pub(crate) arguments: Vec<(String, Option<String>)>,
    pub(crate) scope: Option<String>,
    pub(crate) usage: Option<String>,
}

/// One class of a class file.
#[derive(Debug, Clone)]
pub(crate) struct ClassInfo {
    /// The full name (namespace prefixes resolved).
    pub(crate) name: String,
    pub(crate) span: Span,
    /// Prefix → namespace (`=` is the default namespace).
    pub(crate) namespaces: Vec<(String, String)>,
    /// Parents, full names.
    pub(crate) extends: Vec<String>,
    pub(crate) properties: Vec<PropertyInfo>,
    pub(crate) methods: Vec<MethodInfo>,
}

/// Resolves a class name as written in a file with `namespaces`:
/// `prefix:Name`, a dotted full name, or a short name in the default
/// namespace.
pub(crate) fn resolve_name(namespaces: &[(String, String)], written: &str) -> Option<String> {
    let lookup = |prefix: &str| {
        namespaces
            .iter()
            .find(|(p, _)| p == prefix)
            .map(|(_, ns)| ns.as_str())
    };
    if let Some((prefix, name)) = written.split_once(':') {
        if name.is_empty() || name.contains(':') {
            return None;
        }
        return Some(format!("{}.{name}", lookup(prefix)?));
    }
    if written.contains('.') {
        return Some(written.to_owned());
    }
    match lookup("=") {
        Some(ns) => Some(format!("{ns}.{written}")),
        None => Some(written.to_owned()),
    }
}

/// The text of a node's source, for hover (a contract, a default).
fn source_of(text: &str, lines: &LineIndex, node: &Node) -> String {
    let start = lines.byte_of_char(text, node.start.line as usize, node.start.column as usize);
    let end = lines.byte_of_char(text, node.end.line as usize, node.end.column as usize);
    let raw = text.get(start..end.max(start)).unwrap_or("").trim_end();
    match &node.value {
        Value::Yaql(y) => y.text().to_owned(),
        Value::Str(s) if !raw.contains('\n') => s.clone(),
        _ => raw.to_owned(),
    }
}

/// The byte range of a node.
pub(crate) fn span_of(text: &str, lines: &LineIndex, node: &Node) -> Span {
    let start = lines.byte_of_char(text, node.start.line as usize, node.start.column as usize);
    let end = lines.byte_of_char(text, node.end.line as usize, node.end.column as usize);
    (start, end.max(start))
}

fn str_of(node: &Node) -> Option<String> {
    match &node.value {
        Value::Str(s) => Some(s.clone()),
        Value::Yaql(y) => Some(y.text().to_owned()),
        Value::Null => None,
        other => Some(other.python_str()),
    }
}

/// The value of `key` in the mapping `decl`.
fn field<'n>(decl: &'n Node, key: &str) -> Option<&'n Node> {
    decl.value
        .as_map()
        .and_then(|m| m.iter().find(|(k, _)| k.value.as_str() == Some(key)))
        .map(|(_, v)| v)
}

/// The classes of a class file (its documents with a `Name`); nothing
/// when it does not load.
pub(crate) fn index_class_file(text: &str, load: &LoadOptions) -> Vec<ClassInfo> {
    let Ok(file) = load_class_file(text.as_bytes(), load) else {
        return Vec::new();
    };
    let lines = LineIndex::new(text);
    let mut out = Vec::new();
    for doc in &file.documents {
        let Some(map) = doc.value.as_map() else {
            continue;
        };
        let get = |key: &str| map.iter().find(|(k, _)| k.value.as_str() == Some(key));
        let namespaces: Vec<(String, String)> = get("Namespaces")
            .and_then(|(_, v)| v.value.as_map())
            .map(|m| {
                m.iter()
                    .filter_map(|(k, v)| Some((str_of(k)?, str_of(v)?)))
                    .collect()
            })
            .unwrap_or_default();
        let Some((_, name_node)) = get("Name") else {
            continue;
        };
        let Some(written) = str_of(name_node) else {
            continue;
        };
        let Some(name) = resolve_name(&namespaces, &written) else {
            continue;
        };
        let extends = match get("Extends").map(|(_, v)| &v.value) {
            Some(Value::Seq(items)) => items
                .iter()
                .filter_map(str_of)
                .filter_map(|w| resolve_name(&namespaces, &w))
                .collect(),
            Some(_) => get("Extends")
                .and_then(|(_, v)| str_of(v))
                .and_then(|w| resolve_name(&namespaces, &w))
                .into_iter()
                .collect(),
            None => Vec::new(),
        };
        let properties = get("Properties")
            .and_then(|(_, v)| v.value.as_map())
            .unwrap_or_default()
            .iter()
            .filter_map(|(k, v)| {
                Some(PropertyInfo {
                    name: k.value.as_str()?.to_owned(),
                    span: span_of(text, &lines, k),
                    contract: field(v, "Contract").map(|c| source_of(text, &lines, c)),
                    usage: field(v, "Usage").and_then(str_of),
                    default: field(v, "Default").map(|c| source_of(text, &lines, c)),
                })
            })
            .collect();
        let methods = get("Methods")
            .and_then(|(_, v)| v.value.as_map())
            .unwrap_or_default()
            .iter()
            .filter_map(|(k, v)| {
                let arguments = match field(v, "Arguments").map(|a| &a.value) {
                    Some(Value::Seq(items)) => items
                        .iter()
                        .filter_map(|item| item.value.as_map()?.first())
                        .filter_map(|(k, v)| {
                            Some((
                                k.value.as_str()?.to_owned(),
                                field(v, "Contract").map(|c| source_of(text, &lines, c)),
                            ))
                        })
                        .collect(),
                    Some(Value::Map(items)) => items
                        .iter()
                        .filter_map(|(k, v)| {
                            Some((
                                k.value.as_str()?.to_owned(),
                                field(v, "Contract").map(|c| source_of(text, &lines, c)),
                            ))
                        })
                        .collect(),
                    _ => Vec::new(),
                };
                Some(MethodInfo {
                    name: k.value.as_str()?.to_owned(),
                    span: span_of(text, &lines, k),
                    arguments,
                    scope: field(v, "Scope").and_then(str_of),
                    usage: field(v, "Usage").and_then(str_of),
                })
            })
            .collect();
        out.push(ClassInfo {
            name,
            span: span_of(text, &lines, name_node),
            namespaces,
            extends,
            properties,
            methods,
        });
    }
    out
}

/// The manifest facts hover shows for a class: package name and version.
#[derive(Debug, Clone, Default)]
pub(crate) struct ManifestInfo {
    pub(crate) full_name: Option<String>,
    pub(crate) version: Option<String>,
    /// The packages of `Require`.
    pub(crate) requires: Vec<String>,
}

/// Reads the manifest facts; defaults when it does not load.
pub(crate) fn index_manifest(text: &str, load: &LoadOptions) -> ManifestInfo {
    let Ok(Some(node)) = murano_yaml::load_manifest(text, load) else {
        return ManifestInfo::default();
    };
    let get = |key: &str| node.value.get(key).and_then(str_of);
    ManifestInfo {
        full_name: get("FullName"),
        version: get("Version"),
        requires: node
            .value
            .get("Require")
            .and_then(|r| r.value.as_map())
            .map(|m| m.iter().filter_map(|(k, _)| str_of(k)).collect())
            .unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_are_indexed_with_spans() {
        let text = "Namespaces:\n  =: a.b\n  std: io.murano\nName: C\nExtends: std:Object\n\
Properties:\n  port:\n    Contract: $.int()\n    Default: 80\nMethods:\n  run:\n    Arguments:\n      - x:\n          Contract: $.string()\n";
        let classes = index_class_file(text, &LoadOptions::default());
        let c = &classes[0];
        assert_eq!(c.name, "a.b.C");
        assert_eq!(c.extends, ["io.murano.Object"]);
        assert_eq!(&text[c.span.0..c.span.1], "C");
        let p = &c.properties[0];
        assert_eq!(&text[p.span.0..p.span.1], "port");
        assert_eq!(p.contract.as_deref(), Some("$.int()"));
        assert_eq!(p.default.as_deref(), Some("80"));
        let m = &c.methods[0];
        assert_eq!(
            m.arguments,
            [("x".to_owned(), Some("$.string()".to_owned()))]
        );
    }

    #[test]
    fn names_resolve_through_prefixes() {
        let ns = vec![("=".into(), "a.b".into()), ("res".into(), "io.r".into())];
        assert_eq!(resolve_name(&ns, "res:X").as_deref(), Some("io.r.X"));
        assert_eq!(resolve_name(&ns, "X").as_deref(), Some("a.b.X"));
        assert_eq!(resolve_name(&ns, "c.d.X").as_deref(), Some("c.d.X"));
        assert_eq!(resolve_name(&ns, "zz:X"), None);
    }
}
