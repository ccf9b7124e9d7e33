//! JSON-schema conformance: every case of the engine oracle's
//! `schema_cases.jsonl` (Murano's `generate_schema` on real and synthetic
//! classes) is generated again and compared: the same JSON (key order
//! free) for `ok` cases, the same Python exception for `error` cases (any
//! of `possible_errors`). `skipped` cases (inputs Murano could not load,
//! outside the corpus) are not counted.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use murano_dsl::version::Version;
use murano_packages::source::FileMap;
use murano_packages::PluginRegistry;
use murano_schema::{generate, Catalog, CatalogBuilder, SchemaRequest};
use murano_testkit::{conclude, files_below, read_jsonl, KnownFailures, Suite};
use serde_json::Value as Json;

fn main() {
    let Some((root, known)) =
        murano_testkit::conformance_setup(env!("CARGO_MANIFEST_DIR"), "known-failures.txt")
    else {
        return;
    };
    conclude(vec![schema(&root, &known).finish()]);
}

fn catalog_dir(root: &Path, entry: &str) -> PathBuf {
    match entry.strip_prefix("synthetic/") {
        Some(rest) => root.join("corpus/engine-oracle/synthetic").join(rest),
        None => root.join("corpus/packages").join(entry),
    }
}

fn directory_catalog(root: &Path, entries: &[String]) -> Result<Catalog, String> {
    let mut builder = CatalogBuilder::new();
    for entry in entries {
        let dir = catalog_dir(root, entry);
        let mut files = FileMap::new();
        for (rel, path) in files_below(&dir) {
            let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            files.insert(&rel, bytes).map_err(|e| e.to_string())?;
        }
        let package = PluginRegistry::with_builtins()
            .load(files)
            .map_err(|e| format!("{entry}: {e}"))?;
        builder
            .add_package(package.as_ref())
            .map_err(|e| format!("{entry}: {e}"))?;
    }
    Ok(builder.build())
}

fn yaml_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    files_below(dir)
        .into_iter()
        .filter(|(rel, _)| rel.ends_with(".yaml") && !rel.ends_with("manifest.yaml"))
        .filter_map(|(rel, path)| std::fs::read(path).ok().map(|b| (rel, b)))
        .collect()
}

fn test_foundation_catalog(root: &Path) -> Result<Catalog, String> {
    let mut builder = CatalogBuilder::new();
    let packages = root.join("corpus/packages/murano");
    builder
        .add_class_directory(
            "tests",
            Version::new(0, 0, 0),
            (1, 0),
            yaml_files(&packages.join("murano/tests/unit/dsl/meta")),
        )
        .map_err(|e| e.to_string())?;
    builder
        .add_class_directory(
            "io.murano",
            Version::new(0, 0, 0),
            (1, 0),
            yaml_files(&packages.join("meta/io.murano/Classes")),
        )
        .map_err(|e| e.to_string())?;
    Ok(builder.build())
}

/// JSON equality with integers and floats distinct (`2` is not `2.0`).
fn same(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => {
            x.is_f64() == y.is_f64()
                && if x.is_f64() {
                    x.as_f64() == y.as_f64()
                } else {
                    x == y
                }
        }
        (Json::Array(x), Json::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Json::Object(x), Json::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

fn first_difference(path: &str, got: &Json, expected: &Json) -> String {
    match (got, expected) {
        (Json::Object(g), Json::Object(e)) => {
            for (k, v) in e {
                match g.get(k) {
                    None => return format!("{path}/{k}: missing (expected {v})"),
                    Some(w) if !same(w, v) => {
                        return first_difference(&format!("{path}/{k}"), w, v)
                    }
                    _ => {}
                }
            }
            for k in g.keys() {
                if !e.contains_key(k) {
                    return format!("{path}/{k}: unexpected {}", g[k]);
                }
            }
            format!("{path}: differs")
        }
        _ => format!("{path}: got {got}, expected {expected}"),
    }
}

/// The schemas with `index` removed from every `formSections` entry, and
/// the sorted indexes of each schema.
fn without_section_indexes(schemas: &Json) -> (Json, Vec<Vec<i64>>) {
    let mut out = schemas.clone();
    let mut indexes = Vec::new();
    if let Some(map) = out.as_object_mut() {
        for schema in map.values_mut() {
            let mut found = Vec::new();
            if let Some(sections) = schema.get_mut("formSections").and_then(Json::as_object_mut) {
                for section in sections.values_mut() {
                    if let Some(i) = section.as_object_mut().and_then(|s| s.remove("index")) {
                        found.push(i.as_i64().unwrap_or(-1));
                    }
                }
            }
            found.sort_unstable();
            indexes.push(found);
        }
    }
    (out, indexes)
}

fn compare(
    result: &Result<BTreeMap<String, Json>, murano_schema::SchemaError>,
    case: &Json,
) -> Result<(), String> {
    match case["status"].as_str() {
        Some("ok") => {
            let got = match result {
                Ok(map) => Json::Object(map.iter().map(|(k, v)| (k.clone(), v.clone())).collect()),
                Err(e) => return Err(format!("unexpected error {e}")),
            };
            let expected = &case["result"];
            if same(&got, expected) {
                return Ok(());
            }
            if case.get("order_dependent").is_some() {
                if let Some(variant) = case.get("result_variant") {
                    if same(&got, variant) {
                        return Ok(());
                    }
                }
                // Murano's set order decides between tied sections: accept
                // any renumbering of the same sections.
                let (g, g_indexes) = without_section_indexes(&got);
                let (e, e_indexes) = without_section_indexes(expected);
                if same(&g, &e) && g_indexes == e_indexes {
                    return Ok(());
                }
            }
            Err(first_difference("", &got, expected))
        }
        Some("error") => {
            let mut accepted: Vec<&str> = vec![case["error"]["type"].as_str().unwrap_or("")];
            for e in case["possible_errors"].as_array().into_iter().flatten() {
                accepted.push(e["type"].as_str().unwrap_or(""));
            }
            match result {
                Ok(_) => Err(format!("generated a schema, expected {}", accepted[0])),
                Err(e) if accepted.contains(&e.exception()) => Ok(()),
                Err(e) => Err(format!("got {e}, expected {}", accepted.join(" | "))),
            }
        }
        other => Err(format!("unexpected status {other:?}")),
    }
}

fn schema(root: &Path, known: &KnownFailures) -> Suite {
    let mut suite = Suite::new("schema", known);
    let cases =
        read_jsonl(&root.join("corpus/engine-oracle/schema_cases.jsonl")).unwrap_or_default();
    let mut catalogs: HashMap<Vec<String>, Result<Catalog, String>> = HashMap::new();
    let mut foundation: Option<Result<Catalog, String>> = None;
    let mut skipped = 0;
    for case in &cases {
        let id = case["id"].as_str().unwrap_or("?");
        if !matches!(case["status"].as_str(), Some("ok" | "error")) {
            skipped += 1;
            continue;
        }
        let catalog = if case["loader"] == "test-foundation" {
            foundation.get_or_insert_with(|| test_foundation_catalog(root))
        } else {
            let entries: Vec<String> = case["catalog"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|e| e.as_str().map(str::to_owned))
                .collect();
            catalogs
                .entry(entries.clone())
                .or_insert_with(|| directory_catalog(root, &entries))
        };
        let catalog = match catalog {
            Ok(c) => c,
            Err(e) => {
                suite.record(id, Err(format!("catalog: {e}")));
                continue;
            }
        };
        let call = &case["call"];
        let request = |methods: Option<&Json>| SchemaRequest {
            class_name: call["class_name"].as_str().unwrap_or("").to_owned(),
            class_version: call["class_version"].as_str().map(str::to_owned),
            package_name: call["package_name"].as_str().map(str::to_owned),
            methods: methods.and_then(Json::as_array).map(|a| {
                a.iter()
                    .filter_map(|m| m.as_str().map(str::to_owned))
                    .collect()
            }),
        };
        let mut outcome = compare(
            &generate(catalog, &request(Some(&call["method_names"]))),
            case,
        );
        for extra in case["extra_calls"].as_array().into_iter().flatten() {
            if outcome.is_err() {
                break;
            }
            let mut req = request(Some(&extra["method_names"]));
            if let Some(p) = extra["package_name"].as_str() {
                req.package_name = Some(p.to_owned());
            }
            outcome = compare(&generate(catalog, &req), extra)
                .map_err(|e| format!("extra call {}: {e}", extra["method_names"]));
        }
        suite.record(id, outcome);
    }
    println!("({skipped} skipped cases not counted: their inputs cannot load in Murano either)");
    suite
}
