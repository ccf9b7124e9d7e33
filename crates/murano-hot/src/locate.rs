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

/// The line and column (1-based) an error points at, when the text is
/// YAML and the error names a place in it.
pub fn locate(text: &str, e: &HeatError) -> Option<Position> {
    if e.position.is_some() {
        return e.position;
    }
    let root = yaml::load_single(text.as_bytes(), Flavor::Plain, &LoadOptions::default())
        .ok()
        .flatten()?;
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
