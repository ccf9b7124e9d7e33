//! `M423`: classes a UI definition names (`?: {type: …}` in `Application`
//! and `Templates`, fields whose type is a class) that neither the package
//! nor the catalog defines. The dashboard sends them as written; the
//! deployment then fails to load the object model (`NoClassFound`).

use murano_yaml::{load_ui_file, Node, Value};

use super::{diagnostic, CheckOptions, ClassIndex, Diagnostic};
use crate::source::{FileMap, PackageSource};

/// Runs the check over every `UI/*.yaml` file; nothing without a catalog
/// (the classes of other packages are unknown then).
pub(crate) fn run(files: &FileMap, options: &CheckOptions) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let Some(catalog) = &options.catalog else {
        return out;
    };
    let mut own = ClassIndex::new();
    own.add_package(files);
    let known =
        |class: &str| own.packages_of(class).is_some() || catalog.packages_of(class).is_some();
    for path in files.files_under("UI") {
        if !path.ends_with(".yaml") {
            continue;
        }
        let Some(bytes) = files.read(&path) else {
            continue;
        };
        let Ok(Some(doc)) = load_ui_file(bytes, &options.load) else {
            continue;
        };
        let mut named: Vec<(&Node, &'static str)> = Vec::new();
        for section in ["Application", "Templates"] {
            if let Some(node) = doc.value.get(section) {
                object_types(node, section, &mut named);
            }
        }
        if let Some(forms) = doc.value.get("Forms") {
            field_types(forms, &mut named);
        }
        for (node, role) in named {
            let Value::Str(class) = &node.value else {
                continue;
            };
            if !known(class) {
                out.push(diagnostic(
                    "M423",
                    format!(
                        "{role} names class {class:?}, which neither the package nor the catalog defines (the deployment fails with NoClassFound)"
                    ),
                    Some(&path),
                    Some(node.start),
                ));
            }
        }
    }
    out
}

/// The `type` of every `?` header under `node` (a walk with its own stack:
/// the loader bounds the depth, the walk needs no recursion).
fn object_types<'a>(
    node: &'a Node,
    section: &'static str,
    out: &mut Vec<(&'a Node, &'static str)>,
) {
    let role = if section == "Application" {
        "the Application's object model"
    } else {
        "a template of Templates"
    };
    let mut stack = vec![node];
    while let Some(node) = stack.pop() {
        match &node.value {
            Value::Map(pairs) => {
                for (k, v) in pairs {
                    if matches!(&k.value, Value::Str(s) if s == "?") {
                        if let Some(t) = v.value.get("type") {
                            out.push((t, role));
                        }
                    }
                    stack.push(v);
                }
            }
            Value::Seq(items) => stack.extend(items.iter()),
            _ => {}
        }
    }
}

/// Field types that name a class (`type: com.example.Db`, or such names
/// in a list of types).
fn field_types<'a>(forms: &'a Node, out: &mut Vec<(&'a Node, &'static str)>) {
    let Value::Seq(forms) = &forms.value else {
        return;
    };
    for named in forms {
        let Value::Map(named) = &named.value else {
            continue;
        };
        for (_, form) in named {
            let Some(Value::Seq(fields)) = form.value.get("fields").map(|f| &f.value) else {
                continue;
            };
            for field in fields {
                let Some(t) = field.value.get("type") else {
                    continue;
                };
                let types: Vec<&Node> = match &t.value {
                    Value::Seq(items) => items.iter().collect(),
                    _ => vec![t],
                };
                for t in types {
                    if matches!(&t.value, Value::Str(s) if s.contains('.')) {
                        out.push((t, "a field's type"));
                    }
                }
            }
        }
    }
}
