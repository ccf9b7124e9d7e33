//! Conformance of the class model (suite `muranopl-model`): every class
//! file of the corpus that Murano loads (its expected.json has documents)
//! becomes class definitions, one per class document, and every YAQL
//! expression of the file is represented in them (in a contract, default,
//! meta section, type name or method body instruction) or lies under a key
//! the engine ignores and the model reports, so the model drops nothing the
//! engine reads.

use std::collections::BTreeSet;
use std::path::Path;

use murano_dsl::model::{ClassDefinition, UNKNOWN_KEY_CODES};
use murano_dsl::yaml::{load_class_file, LoadOptions, Mark, Node, Value};
use murano_testkit::{conclude, files_ending, read_json, Suite};

fn main() {
    let Some((root, known)) =
        murano_testkit::conformance_setup(env!("CARGO_MANIFEST_DIR"), "known-failures.txt")
    else {
        return;
    };
    let mut suite = Suite::new("muranopl-model", &known);
    let mut issues = 0;
    for dir in ["corpus/class"] {
        for expected_path in files_ending(&root.join(dir), ".expected.json") {
            let Ok(expected) = read_json(&expected_path) else {
                continue;
            };
            if expected.get("documents").is_none() {
                continue;
            }
            let stem = expected_path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or("?")
                .trim_end_matches(".expected.json")
                .to_owned();
            let input = root.join(dir).join(format!("{stem}.yaml"));
            let id = format!("{}/{stem}", dir.trim_start_matches("corpus/"));
            let result = check(&input, &mut issues);
            suite.record(&id, result);
        }
    }
    println!(
        "muranopl-model: {issues} issues recorded in the models (problems Murano would refuse)"
    );
    conclude(vec![suite.finish()]);
}

fn check(input: &Path, issues: &mut usize) -> Result<(), String> {
    let bytes = std::fs::read(input).map_err(|e| e.to_string())?;
    let file = load_class_file(&bytes, &LoadOptions::default()).map_err(|e| e.to_string())?;
    let classes = ClassDefinition::from_documents(&file.documents, None);
    let class_documents = file
        .documents
        .iter()
        .filter(|d| !matches!(d.value.as_map(), Some(m) if m.len() == 1 && d.value.get("Namespaces").is_some()))
        .count();
    if classes.len() != class_documents {
        return Err(format!(
            "{} classes for {class_documents} class documents",
            classes.len()
        ));
    }
    let mut in_file = Vec::new();
    for doc in &file.documents {
        collect(doc, &mut in_file);
    }
    let mut represented = BTreeSet::new();
    let mut positions = BTreeSet::new();
    let mut ignored: Vec<(u32, u32)> = Vec::new();
    for class in &classes {
        *issues += class.issues().count();
        class.for_each_expression(&mut |y| {
            represented.insert(y.node_id);
        });
        for t in class.type_names() {
            positions.insert((t.start.line, t.start.column));
        }
        for issue in class
            .issues()
            .filter(|i| UNKNOWN_KEY_CODES.contains(&i.code))
        {
            if let (Some(start), Some(end)) = (issue.start, issue.end) {
                ignored.push((start.offset, end.offset));
            }
        }
    }
    let missing: Vec<String> = in_file
        .iter()
        .filter(|(id, mark, _)| {
            !represented.contains(id)
                && !positions.contains(&(mark.line, mark.column))
                && !ignored
                    .iter()
                    .any(|&(a, b)| a <= mark.index && mark.index <= b)
        })
        .map(|(_, mark, text)| format!("{}:{} {text:?}", mark.line + 1, mark.column + 1))
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "expressions not in the model: {}",
            missing.join(", ")
        ))
    }
}

/// Every YAQL node of a loaded document (not under `Namespaces` or
/// `Name`, which hold names, not expressions).
fn collect(node: &Node, out: &mut Vec<(usize, Mark, String)>) {
    match &node.value {
        Value::Yaql(y) => out.push((y.node_id, node.start, y.text().to_owned())),
        Value::Seq(items) | Value::Set(items) => items.iter().for_each(|n| collect(n, out)),
        Value::Map(pairs) | Value::Pairs(pairs) => {
            for (k, v) in pairs {
                if matches!(k.value.as_str(), Some("Namespaces" | "Name")) {
                    continue;
                }
                collect(k, out);
                collect(v, out);
            }
        }
        _ => {}
    }
}
