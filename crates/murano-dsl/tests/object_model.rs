//! Object models found in the shared corpus: JSON fixtures in package
//! trees, the object models the dashboard posts (Dynamic UI conformance
//! cases), the `Templates` and `Application` sections of UI definitions,
//! and object definitions written inside class files. Each is read, written
//! back and read again; the value must come back unchanged, JSON output
//! must read back (and agree with `serde_json`), and nothing may panic.
//!
//! The data root is `$MURANO_SHARED` (default: `shared` beside the
//! workspace); without it the tests say so and pass.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use murano_dsl::object_model::{
    Data, ModelKind, ObjectModel, ObjectModelError, ParseOptions, Severity, Value,
};
use murano_dsl::yaml::{self, load_class_file, load_ui_file, LoadOptions, Node};

fn data_root() -> Option<PathBuf> {
    murano_testkit::data_root(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// Every file below `dir` (recursively) whose name satisfies `keep`,
/// sorted.
fn files_below(dir: &Path, keep: &dyn Fn(&Path) -> bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if keep(&path) {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

fn name_of(path: &Path) -> &str {
    path.file_name().and_then(|n| n.to_str()).unwrap_or("")
}

/// Tallies for one source of models.
#[derive(Default)]
struct Tally {
    models: usize,
    objects: usize,
    references: usize,
    unresolved_id_like: usize,
    diagnostics: BTreeMap<&'static str, usize>,
    details: Vec<String>,
    errors: Vec<String>,
}

impl Tally {
    fn add(&mut self, source: &str, model: &ObjectModel) {
        self.models += 1;
        self.objects += model.objects().len();
        self.references += model.references().len();
        self.unresolved_id_like += model.unresolved_id_like_strings().len();
        for d in model.diagnostics() {
            *self.diagnostics.entry(d.code).or_default() += 1;
            self.details.push(format!("{source}: {d}"));
        }
    }

    fn report(&self, what: &str) {
        println!(
            "{what}: {} models, {} objects, {} references, {} unresolved id-like strings, diagnostics {:?}, errors {}",
            self.models,
            self.objects,
            self.references,
            self.unresolved_id_like,
            self.diagnostics,
            self.errors.len()
        );
        for d in self.details.iter().take(20) {
            println!("  {d}");
        }
        for e in &self.errors {
            println!("  {e}");
        }
    }
}

/// Parse → emit → parse: the value comes back, the second model equals
/// the first; JSON (when the model has no expressions) reads back to the
/// same model.
fn check_round_trip(source: &str, value: &Value, model: &ObjectModel, options: &ParseOptions) {
    let emitted = model.to_value();
    assert_eq!(&emitted, value, "{source}: value changed by the round trip");
    let again = ObjectModel::from_value_with(emitted, options)
        .unwrap_or_else(|e| panic!("{source}: emitted value does not parse: {e}"));
    assert_eq!(&again, model, "{source}: second parse differs");
    match model.to_json() {
        Ok(json) => {
            let from_json = ObjectModel::from_json_with(&json, options)
                .unwrap_or_else(|e| panic!("{source}: emitted JSON does not parse: {e}"));
            if string_keys_only(value) {
                assert_eq!(&from_json, model, "{source}: JSON round trip differs");
            } else {
                // JSON turns `1`, `true`, `null` keys into strings, as
                // Python's json.dumps does; from then on it is stable.
                assert_eq!(from_json.to_json().as_ref(), Ok(&json), "{source}");
            }
            let pretty = model
                .to_json_with(&murano_dsl::object_model::JsonOptions::default().with_indent(2))
                .unwrap_or_else(|e| panic!("{source}: {e}"));
            assert_eq!(
                ObjectModel::from_json_with(&pretty, options).as_ref(),
                Ok(&from_json),
                "{source}: indented JSON round trip differs"
            );
        }
        Err(e) => assert!(
            has_yaql(value),
            "{source}: a model without expressions must have a JSON form: {e}"
        ),
    }
}

fn has_yaql(value: &Value) -> bool {
    match value {
        Value::Yaql(_) => true,
        Value::List(items) => items.iter().any(has_yaql),
        Value::Map(map) => map.iter().any(|(k, v)| has_yaql(k) || has_yaql(v)),
        _ => false,
    }
}

fn string_keys_only(value: &Value) -> bool {
    match value {
        Value::List(items) => items.iter().all(string_keys_only),
        Value::Map(map) => map
            .iter()
            .all(|(k, v)| k.as_str().is_some() && string_keys_only(v)),
        _ => true,
    }
}

/// Whether some mapping of the tree has a `?` key.
fn has_object(value: &Value) -> bool {
    match value {
        Value::List(items) => items.iter().any(has_object),
        Value::Map(map) => map.contains_key("?") || map.values().any(has_object),
        _ => false,
    }
}

/// Every prefix of the text and the text with each character removed (up
/// to a budget) must be read without a panic.
fn no_panic_on_damage(text: &str) {
    let boundaries: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
    let step = (boundaries.len() / 400).max(1);
    for &i in boundaries.iter().step_by(step) {
        let _ = ObjectModel::from_json(&text[..i]);
        let mut damaged = String::with_capacity(text.len());
        damaged.push_str(&text[..i]);
        let rest = &text[i..];
        damaged.push_str(
            rest.get(rest.chars().next().map_or(0, char::len_utf8)..)
                .unwrap_or(""),
        );
        let _ = ObjectModel::from_json(&damaged);
    }
}

/// Compares our JSON reading and writing with `serde_json` (which keeps
/// key order in this workspace).
fn agrees_with_serde(source: &str, text: &str, model: &ObjectModel) {
    let ours: serde_json::Value = serde_json::from_str(&model.to_json().unwrap())
        .unwrap_or_else(|e| panic!("{source}: serde_json cannot read our output: {e}"));
    let theirs: serde_json::Value =
        serde_json::from_str(text).unwrap_or_else(|e| panic!("{source}: {e}"));
    assert_eq!(ours, theirs, "{source}: differs from serde_json's reading");
}

#[test]
fn json_fixtures_in_package_trees() {
    let Some(root) = data_root() else { return };
    let files = files_below(&root.join("corpus/packages"), &|p| {
        name_of(p).ends_with(".json")
            && std::fs::read_to_string(p).is_ok_and(|t| t.contains("\"?\""))
    });
    let mut tally = Tally::default();
    for file in &files {
        let source = file.display().to_string();
        let text = std::fs::read_to_string(file).unwrap();
        let value = Value::from_json(&text).unwrap_or_else(|e| panic!("{source}: {e}"));
        let options = ParseOptions::default();
        match ObjectModel::from_value_with(value.clone(), &options) {
            Ok(model) => {
                check_round_trip(&source, &value, &model, &options);
                agrees_with_serde(&source, &text, &model);
                tally.add(&source, &model);
            }
            Err(e) => tally.errors.push(format!("{source}: {e}")),
        }
        no_panic_on_damage(&text);
    }
    tally.report("JSON fixtures in package trees");
    assert!(
        tally.models >= 2,
        "expected the Tomcat and RefStackClient fixtures"
    );
    assert!(tally.errors.is_empty());
}

#[test]
fn dashboard_object_models() {
    let Some(root) = data_root() else { return };
    let dir = root.join("conformance/ui/cases/object_model");
    let files = murano_testkit::files_ending(&dir, ".json");
    let mut tally = Tally::default();
    for file in &files {
        let source = file.display().to_string();
        let case = murano_testkit::read_json(file).unwrap_or_else(|e| panic!("{e}"));
        let Some(expected) = case.get("expected").and_then(|e| e.get("object_model")) else {
            continue;
        };
        if expected.is_null() {
            continue;
        }
        let text = serde_json::to_string(expected).unwrap();
        let options = ParseOptions::default().with_kind(ModelKind::Object);
        match ObjectModel::from_json_with(&text, &options) {
            Ok(model) => {
                let value = Value::from_json(&text).unwrap();
                check_round_trip(&source, &value, &model, &options);
                agrees_with_serde(&source, &text, &model);
                // The dashboard gives every `?` of the definition an id and
                // writes its own storage key in the top one (which it
                // creates, without id or type, if the definition has none).
                let top = model.root_object().unwrap().system();
                assert!(top.dashboard_name().is_some(), "{source}");
                for found in model.objects() {
                    let system = found.object.system();
                    assert!(
                        system.id().is_some() || !system.has_type(),
                        "{source}: {}",
                        found.path
                    );
                }
                // The dashboard keeps a `?` that is not a mapping (a case
                // made for that); nothing else it writes is refused.
                assert!(
                    model
                        .diagnostics()
                        .iter()
                        .all(|d| d.severity == Severity::Warning || d.code == "OM303"),
                    "{source}: {:?}",
                    model.diagnostics()
                );
                tally.add(&source, &model);
            }
            Err(e) => tally.errors.push(format!("{source}: {e}")),
        }
    }
    tally.report("dashboard object models");
    assert!(tally.errors.is_empty());
}

fn ui_files(root: &Path) -> Vec<PathBuf> {
    let mut files = murano_testkit::files_ending(&root.join("corpus/ui"), ".yaml");
    files.extend(murano_testkit::files_ending(
        &root.join("corpus/quirks/ui"),
        ".yaml",
    ));
    files.extend(files_below(&root.join("corpus/packages"), &|p| {
        let name = name_of(p);
        (name.ends_with(".yaml") || name.ends_with(".yml"))
            && p.parent().is_some_and(|d| name_of(d) == "UI")
    }));
    files
}

/// Parses `node` as a fragment; records and returns the model.
fn parse_node(source: &str, node: &Node, tally: &mut Tally) -> Option<ObjectModel> {
    let value = match Value::from_yaml(node) {
        Ok(value) => value,
        Err(e) => {
            tally.errors.push(format!("{source}: {e}"));
            return None;
        }
    };
    let options = ParseOptions::default().with_kind(ModelKind::Fragment);
    match ObjectModel::from_value_with(value.clone(), &options) {
        Ok(model) => {
            check_round_trip(source, &value, &model, &options);
            tally.add(source, &model);
            Some(model)
        }
        Err(e) => {
            tally.errors.push(format!("{source}: {e}"));
            None
        }
    }
}

#[test]
fn ui_definition_templates() {
    let Some(root) = data_root() else { return };
    let mut sections = Tally::default();
    let mut whole = Tally::default();
    let mut unloadable = 0;
    for file in ui_files(&root) {
        let source = file.display().to_string();
        let bytes = std::fs::read(&file).unwrap();
        let Ok(Some(doc)) = load_ui_file(&bytes, &LoadOptions::default()) else {
            unloadable += 1;
            continue;
        };
        // The object model fragments: each template and the application.
        if let Some(templates) = doc.value.get("Templates") {
            if let yaml::Value::Map(entries) = &templates.value {
                for (key, template) in entries {
                    let name = key.value.as_str().unwrap_or("?");
                    parse_node(
                        &format!("{source}#Templates/{name}"),
                        template,
                        &mut sections,
                    );
                }
            }
        }
        if let Some(application) = doc.value.get("Application") {
            parse_node(&format!("{source}#Application"), application, &mut sections);
        }
        // The whole definition, as a fragment, must not fail either.
        parse_node(&source, &doc, &mut whole);
    }
    sections.report("UI Templates/Application sections");
    whole.report("UI definitions as fragments");
    println!("UI files that do not load: {unloadable}");
    assert!(sections.models > 300, "expected hundreds of UI sections");
    assert!(sections.errors.is_empty());
    // Outside the object model sections, synthetic quirk files hold YAML
    // values that have no JSON form (dates, sets, binary, recursion).
    assert!(
        whole
            .errors
            .iter()
            .all(|e| e.contains("/quirks/") && e.contains("cannot be part of an object model")),
        "{:?}",
        whole.errors
    );
}

#[test]
fn object_definitions_in_class_files() {
    let Some(root) = data_root() else { return };
    let mut files = murano_testkit::files_ending(&root.join("corpus/class"), ".yaml");
    files.extend(files_below(&root.join("corpus/packages"), &|p| {
        name_of(p).ends_with(".yaml")
            && p.components()
                .any(|c| matches!(c.as_os_str().to_str(), Some("Classes" | "meta")))
    }));
    let mut tally = Tally::default();
    let mut with_objects = 0;
    for file in files {
        let source = file.display().to_string();
        let bytes = std::fs::read(&file).unwrap();
        let Ok(class_file) = load_class_file(&bytes, &LoadOptions::default()) else {
            continue;
        };
        for (i, doc) in class_file.documents.iter().enumerate() {
            let Ok(value) = Value::from_yaml(doc) else {
                continue;
            };
            if !has_object(&value) {
                continue;
            }
            with_objects += 1;
            parse_node(&format!("{source}#{i}"), doc, &mut tally);
        }
    }
    tally.report("class documents with object definitions");
    println!("class documents with `?` mappings: {with_objects}");
    assert!(with_objects > 0);
    assert!(tally.errors.is_empty());
}

#[test]
fn damaged_models_never_panic() {
    let base = r#"{"Objects": {"?": {"id": "e", "type": "io.murano.Environment/1@io.murano",
        "dependencies": {"onDestruction": [{"subscriber": "a", "handler": "h"}]},
        "_actions": {"e_deploy": {"enabled": true, "name": "deploy"}}},
        "applications": [{"?": {"id": "a", "type": "x.A", "classVersion": ">=1,<2"}, "peer": "e"}]},
        "Attributes": [["a", "x.A", "k", 1]]}"#;
    let model = ObjectModel::from_json(base).unwrap();
    assert!(model.diagnostics().is_empty(), "{:?}", model.diagnostics());
    no_panic_on_damage(base);
    // Every scalar replaced by values of every kind.
    let replacements = [
        "null",
        "true",
        "0",
        "1.5",
        "\"\"",
        "\"x y\"",
        "[]",
        "{}",
        "[1]",
        "{\"a\": 1}",
    ];
    let mut count = 0;
    let mut starts = Vec::new();
    let bytes = base.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'"' {
            let end = base[i + 1..]
                .find('"')
                .map_or(bytes.len(), |e| i + 1 + e + 1);
            starts.push((i, end));
            i = end;
        } else {
            i += 1;
        }
    }
    for &(start, end) in &starts {
        for r in replacements {
            let text = format!("{}{}{}", &base[..start], r, &base[end..]);
            let result: Result<ObjectModel, ObjectModelError> = ObjectModel::from_json(&text);
            if let Ok(model) = result {
                let _ = model.to_json();
                let _ = model.references();
                let _ = model.attributes();
                count += 1;
            }
        }
    }
    assert!(count > 0);
    // Deep nesting is refused, not a stack overflow.
    let deep = format!("{}{}", "{\"a\": ".repeat(5000), "}".repeat(5000));
    assert!(ObjectModel::from_json(&deep).is_err());
    // (Values built by hand are the caller's: dropping a very deep one
    // recurses like any Rust tree, so this one stays moderate.)
    let deep_value = (0..1000).fold(Value::Null, |v, _| Value::List(vec![v]));
    assert!(ObjectModel::from_value(deep_value.clone()).is_err());
    assert!(Data::from_value(deep_value, 10).is_err());
}
