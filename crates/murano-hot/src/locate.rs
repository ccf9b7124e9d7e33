//! Where in the text an error is: the YAML mark of a load error, or the
//! node a validation error's path names (walked through the YAML nodes
//! with their marks).

use murano_yaml::{self as yaml, Flavor, LoadOptions, Node, Value as Y};

use crate::error::{ErrorClass, HeatError, Position};

/// The path segments of an error: the path Heat reports (one dotted
/// string for parse errors, a list for validation errors), else the
/// section the class of error is about.
fn segments(e: &HeatError) -> Vec<String> {
    let mut out = Vec::new();
    for p in &e.path {
        for part in p.split('.') {
            // `name[0]` is key `name`, item 0.
            let mut rest = part;
            if let Some(i) = rest.find('[') {
                if i > 0 {
                    out.push(rest[..i].to_owned());
                }
                rest = &rest[i..];
                while let Some(end) = rest.find(']') {
                    out.push(rest[..=end].to_owned());
                    rest = &rest[end + 1..];
                }
            } else if !part.is_empty() {
                out.push(part.to_owned());
            }
        }
    }
    if out.is_empty() {
        let msg = e.error_message.as_str();
        // A reference: `(in r.Properties.a)` names the place.
        if let (Some(a), Some(b)) = (msg.find("(in "), msg.rfind(')')) {
            if e.class == ErrorClass::InvalidTemplateReference && a + 4 <= b {
                out.push("resources".to_owned());
                for part in msg[a + 4..b].split('.') {
                    out.push(match part {
                        "Properties" => "properties".to_owned(),
                        "Metadata" => "metadata".to_owned(),
                        other => other.to_owned(),
                    });
                }
                return out;
            }
        }
        // A parameter named in the message.
        for (open, close) in [("Parameter '", '\''), ("The Parameter (", ')')] {
            if let Some(start) = msg.find(open) {
                let rest = &msg[start + open.len()..];
                if let Some(end) = rest.find(close) {
                    out.push("parameters".to_owned());
                    out.push(rest[..end].to_owned());
                    return out;
                }
            }
        }
        let section = match e.class {
            ErrorClass::InvalidSchemaError | ErrorClass::ReError => Some("parameters"),
            ErrorClass::InvalidTemplateVersion => Some("heat_template_version"),
            ErrorClass::InvalidTemplateReference | ErrorClass::CircularDependencyException => {
                Some("resources")
            }
            _ => None,
        };
        if let Some(s) = section {
            out.push(s.to_owned());
        }
        if e.class == ErrorClass::InvalidTemplateSection {
            if let Some(name) = msg.rsplit(": ").next() {
                out.push(name.to_owned());
            }
        }
    }
    out
}

/// The child named `seg`: where it is named (the key, or the item) and
/// the node to go on from.
fn child<'a>(node: &'a Node, seg: &str) -> Option<(&'a Node, &'a Node)> {
    match &node.value {
        Y::Map(entries) => entries
            .iter()
            .find(|(k, _)| k.value.python_str() == seg)
            .map(|(k, v)| (k, v)),
        Y::Seq(items) => {
            let i: usize = seg.strip_prefix('[')?.strip_suffix(']')?.parse().ok()?;
            items.get(i).map(|n| (n, n))
        }
        _ => None,
    }
}

/// The node an error without a path names in its message: the unknown
/// key of a resource (in the first resource by name that has it, the one
/// Heat reports), or the `depends_on` entry naming a missing resource.
fn named_in_message<'a>(root: &'a Node, e: &HeatError) -> Option<&'a yaml::Mark> {
    if !e.path.is_empty() {
        return None;
    }
    let (_, resources) = child(root, "resources")?;
    let Y::Map(resources) = &resources.value else {
        return None;
    };
    let msg = e.error_message.as_str();
    let keyword = msg
        .strip_prefix('"')
        .and_then(|m| m.strip_suffix("\" is not a valid keyword inside a resource definition"));
    if let Some(keyword) = keyword {
        return resources
            .iter()
            .filter_map(|(name, r)| Some((name.value.python_str(), child(r, keyword)?.0)))
            .min_by(|a, b| a.0.cmp(&b.0))
            .map(|(_, key)| &key.start);
    }
    if e.class != ErrorClass::InvalidTemplateReference {
        return None;
    }
    // `The specified reference "x" (in r) is incorrect.`: a dependency.
    let rest = msg.strip_prefix("The specified reference \"")?;
    let (target, rest) = rest.split_once("\" (in ")?;
    let resource = rest.strip_suffix(") is incorrect.")?;
    if resource.contains('.') {
        return None;
    }
    let (_, r) = resources
        .iter()
        .find(|(name, _)| name.value.python_str() == resource)?;
    let (_, depends) = child(r, "depends_on")?;
    match &depends.value {
        Y::Seq(items) => items
            .iter()
            .find(|n| n.value.python_str() == target)
            .map(|n| &n.start),
        _ if depends.value.python_str() == target => Some(&depends.start),
        _ => None,
    }
}

/// The line and column (1-based) an error points at, when the text is
/// YAML and the error names a place in it.
pub fn locate(text: &str, e: &HeatError) -> Option<Position> {
    if e.position.is_some() {
        return e.position;
    }
    let root = yaml::load_single(text.as_bytes(), Flavor::Plain, &LoadOptions::default())
        .ok()
        .flatten()?;
    if let Some(at) = named_in_message(&root, e) {
        return Some(Position {
            line: at.line + 1,
            column: at.column + 1,
        });
    }
    let mut node = &root;
    let mut found = None;
    for seg in segments(e) {
        match child(node, &seg) {
            Some((at, n)) => {
                node = n;
                found = Some(at.start);
            }
            None => break,
        }
    }
    found.map(|m| Position {
        line: m.line + 1,
        column: m.column + 1,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Limits, Template};

    fn position(text: &str) -> Option<Position> {
        let t = Template::load(text, &Limits::default()).unwrap();
        let e = t.validate(&[]).unwrap_err();
        locate(text, &e)
    }

    #[test]
    fn points_at_an_unknown_resource_keyword() {
        let text = "heat_template_version: 2021-04-16\nresources:\n  b:\n    type: X\n    propertes: {}\n  a:\n    type: X\n    propertes: {}\n";
        // Heat reports the first resource by name: `a`.
        assert_eq!(position(text), Some(Position { line: 8, column: 5 }));
    }

    #[test]
    fn points_at_a_dependency_on_a_missing_resource() {
        let text = "heat_template_version: 2021-04-16\nresources:\n  a:\n    type: X\n    depends_on: [a2, missing]\n  a2:\n    type: X\n";
        assert_eq!(
            position(text),
            Some(Position {
                line: 5,
                column: 22
            })
        );
        let text = "heat_template_version: 2021-04-16\nresources:\n  a:\n    type: X\n    depends_on: missing\n";
        assert_eq!(
            position(text),
            Some(Position {
                line: 5,
                column: 17
            })
        );
    }

    #[test]
    fn points_at_the_node() {
        let text = "heat_template_version: 2013-05-23\nresources:\n  r:\n    type: X\n    properties:\n      a: {get_attr: x}\n";
        let t = Template::load(text, &Limits::default()).unwrap();
        let e = t.validate(&[]).unwrap_err();
        assert_eq!(
            locate(text, &e),
            Some(Position {
                line: 6,
                column: 11
            })
        );
    }
}
