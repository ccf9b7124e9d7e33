//! What murano-pkg-check's Python sees of a YAML value: `isinstance`,
//! `str()`, truth, the regular expressions it matches names with, and
//! which values carry a position (`__yaml_meta__`).

use murano_yaml::py_text::is_word as is_python_word;
use murano_yaml::{Mark, Node, Value};

/// Python's `$` also matches before one final newline.
fn dollar(s: &str) -> &str {
    s.strip_suffix('\n').unwrap_or(s)
}

/// `[a-zA-Z_]\w*`.
fn identifier(s: &str, extra: bool) -> bool {
    let mut chars = s.chars();
    let first_ok = |c: char| c.is_ascii_alphabetic() || c == '_' || (extra && c == '$');
    matches!(chars.next(), Some(c) if first_ok(c))
        && chars.all(|c| is_python_word(c) || (extra && c == '$'))
}

/// `NAME_REGEX`: `^[A-Za-z_][\w]*$`.
pub(crate) fn is_name(s: &str) -> bool {
    identifier(dollar(s), false)
}

/// `FQN_REGEX`: `^([a-zA-Z_$][\w$]*\.)*[a-zA-Z_$][\w$]*$`.
pub(crate) fn is_fqn(s: &str) -> bool {
    dollar(s).split('.').all(|part| identifier(part, true))
}

/// `_check_ns_fqn_name`: `ns:fqn` or `fqn`.
pub(crate) fn is_ns_fqn(s: &str) -> bool {
    match s.split_once(':') {
        Some((ns, fqn)) => is_name(ns) && is_fqn(fqn),
        None => is_fqn(s),
    }
}

/// `CLASSNAME_REGEX`: `^[a-zA-Z_]\w*(\.?\w+)*$`: a letter or `_`, then
/// word characters and single dots, not ending with a dot.
pub(crate) fn is_class_name(s: &str) -> bool {
    let s = dollar(s);
    let mut chars = s.chars();
    if !matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_') {
        return false;
    }
    let rest = chars.as_str();
    !rest.ends_with('.')
        && !rest.contains("..")
        && rest.chars().all(|c| c == '.' || is_python_word(c))
}

/// `ASSIGMENT_KEY`: `^\$.?[\w]`.
pub(crate) fn is_assignment_key(s: &str) -> bool {
    let Some(rest) = s.strip_prefix('$') else {
        return false;
    };
    let mut chars = rest.chars();
    match (chars.next(), chars.next()) {
        (Some(a), _) if is_python_word(a) => true,
        (Some(a), Some(b)) => a != '\n' && is_python_word(b),
        _ => false,
    }
}

/// `isinstance(value, str)`.
pub(crate) fn as_str(node: &Node) -> Option<&str> {
    match &node.value {
        Value::Str(s) => Some(s),
        Value::Yaql(y) => Some(y.text()),
        _ => None,
    }
}

/// `isinstance(value, dict)`.
pub(crate) fn as_map(node: &Node) -> Option<&[(Node, Node)]> {
    node.value.as_map()
}

/// `isinstance(value, list)`.
pub(crate) fn as_list(node: &Node) -> Option<&[Node]> {
    match &node.value {
        Value::Seq(items) => Some(items),
        _ => None,
    }
}

/// `isinstance(value, int)` (a bool is an int in Python).
pub(crate) fn is_int(node: &Node) -> bool {
    matches!(node.value, Value::Int(_) | Value::Bool(_))
}

/// Python truth.
pub(crate) fn truthy(node: &Node) -> bool {
    node.value.is_truthy()
}

/// Whether Python could hash it (lists and dicts cannot).
pub(crate) fn hashable(node: &Node) -> bool {
    !matches!(
        node.value,
        Value::Seq(_) | Value::Map(_) | Value::Set(_) | Value::Pairs(_) | Value::Recursive
    )
}

/// `str(value)` with murano-pkg-check's loader (its null prints `null`).
pub(crate) fn py_str(node: &Node) -> String {
    match &node.value {
        Value::Null => "null".into(),
        other => other.python_str(),
    }
}

/// The position murano-pkg-check knows: only strings, mappings, sequences
/// and nulls carry one.
pub(crate) fn meta(node: &Node) -> Option<Mark> {
    matches!(
        node.value,
        Value::Str(_) | Value::Yaql(_) | Value::Map(_) | Value::Seq(_) | Value::Null
    )
    .then_some(node.start)
}

/// `dict.get(key)` for a string key.
pub(crate) fn get<'a>(map: &'a [(Node, Node)], key: &str) -> Option<&'a Node> {
    map.iter()
        .find(|(k, _)| as_str(k) == Some(key))
        .map(|(_, v)| v)
}

/// `key in dict` for a string key.
pub(crate) fn has(map: &[(Node, Node)], key: &str) -> bool {
    get(map, key).is_some()
}

/// Python's `str.isupper()` on one character, and `s == s.upper()`.
pub(crate) fn camel_case(name: &str) -> bool {
    let first_upper = name.chars().next().is_some_and(char::is_uppercase);
    let all_upper = name.chars().count() > 3 && name.to_uppercase() == name;
    first_upper && !all_upper
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regexes() {
        assert!(is_name("a_1") && is_name("x\n") && !is_name("1a") && !is_name(""));
        assert!(is_fqn("io.murano.$x") && !is_fqn("a..b") && !is_fqn("a.") && !is_fqn(""));
        assert!(is_ns_fqn("std:Foo.Bar") && !is_ns_fqn("s-d:Foo") && is_ns_fqn("a.b"));
        assert!(is_class_name("Foo.Bar") && !is_class_name("Foo..Bar") && !is_class_name("Foo."));
        assert!(!is_class_name("1Foo") && !is_class_name("a:b"));
        assert!(is_assignment_key("$x") && is_assignment_key("$.x") && !is_assignment_key("$"));
        assert!(!is_assignment_key("x") && !is_assignment_key("$.") && is_assignment_key("$[1"));
        assert!(camel_case("Foo") && camel_case("IP") && !camel_case("FOOO") && !camel_case("foo"));
    }
}
