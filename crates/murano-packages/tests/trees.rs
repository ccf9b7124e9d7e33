//! Real package trees and manifests of the corpus:
//!
//! * `package-trees`: every package tree of `corpus/packages/` loads
//!   through the plug-in registry, unless murano-pkg-check's oracle says
//!   the package could not be loaded, and every class it lists loads as a
//!   class file and becomes a class model.
//! * `manifest-formats`: the Format interpretation (`package_format`) of
//!   every manifest of `corpus/manifest/`.

use std::path::Path;

use murano_dsl::model::ClassDefinition;
use murano_dsl::version::YamlScalar;
use murano_packages::format::{format_text, parse_format, FormatError};
use murano_packages::PluginRegistry;
use murano_testkit::{conclude, files_ending, read_json, read_jsonl, KnownFailures, Suite};
use murano_yaml::{load_class_file, load_manifest, LoadOptions};
use serde_json::Value as Json;

fn main() {
    let Some((root, known)) =
        murano_testkit::conformance_setup(env!("CARGO_MANIFEST_DIR"), "known-failures.txt")
    else {
        return;
    };
    conclude(vec![
        trees(&root, &known).finish(),
        formats(&root, &known).finish(),
    ]);
}

fn trees(root: &Path, known: &KnownFailures) -> Suite {
    let mut suite = Suite::new("package-trees", known);
    let rows = read_jsonl(&root.join("corpus/packages/index.jsonl")).unwrap_or_default();
    for row in rows {
        if row.get("note").is_some() {
            continue; // not a package (a class directory without manifest)
        }
        // `package` is the tree's path under corpus/, `packages/<repo>/…`.
        let package = row["package"].as_str().unwrap_or_default().to_owned();
        let relative = package.trim_start_matches("packages/");
        let pkgcheck = read_json(
            &root
                .join("corpus/pkgcheck")
                .join(relative)
                .join("diagnostics.json"),
        )
        .ok();
        let murano_fails = pkgcheck
            .as_ref()
            .is_some_and(|d| d.get("load_error").is_some());
        let result = load_tree(&root.join("corpus").join(&package), &row, pkgcheck.as_ref());
        let result = match (result, murano_fails) {
            (Ok(()), false) | (Err(_), true) => Ok(()),
            (Ok(()), true) => Err("loads, but murano-pkg-check could not load it".into()),
            (Err(e), false) => Err(e),
        };
        suite.record(&package, result);
    }
    suite
}

/// Loads the tree and every class it lists. A class file that is missing
/// is accepted when murano-pkg-check reports it too (E050): the package
/// loads, and only that class would fail when the engine needs it.
fn load_tree(dir: &Path, row: &Json, pkgcheck: Option<&Json>) -> Result<(), String> {
    let files = murano_testkit::read_listed_files(dir, row)?;
    let package = PluginRegistry::with_builtins()
        .load(files)
        .map_err(|e| format!("load: {e}"))?;
    for class in package.classes().map_err(|e| format!("classes: {e}"))? {
        let source = match package.get_class(&class) {
            Ok(source) => source,
            Err(e)
                if e.to_string()
                    .ends_with("File with class definition not found") =>
            {
                let reported = pkgcheck
                    .and_then(|d| d["diagnostics"].as_array())
                    .is_some_and(|d| d.iter().any(|x| x["code"] == "E050"));
                if reported {
                    continue;
                }
                return Err(format!("{class}: {e}"));
            }
            Err(e) => return Err(format!("{class}: {e}")),
        };
        let file = load_class_file(&source.bytes, &LoadOptions::default())
            .map_err(|e| format!("{class}: {e}"))?;
        let models = ClassDefinition::from_documents(&file.documents, None);
        if models.is_empty() {
            return Err(format!("{class}: no class in {}", source.file));
        }
    }
    Ok(())
}

fn formats(root: &Path, known: &KnownFailures) -> Suite {
    let mut suite = Suite::new("manifest-formats", known);
    let dir = root.join("corpus/manifest");
    for expected_path in files_ending(&dir, ".expected.json") {
        let Ok(expected) = read_json(&expected_path) else {
            continue;
        };
        let Some(want) = expected.get("package_format") else {
            continue;
        };
        let stem = expected_path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("?")
            .trim_end_matches(".expected.json")
            .to_owned();
        let text = std::fs::read_to_string(dir.join(format!("{stem}.yaml"))).unwrap_or_default();
        let result = check_format(&text, want);
        suite.record(&format!("manifest/{stem}"), result);
    }
    suite
}

fn check_format(text: &str, want: &Json) -> Result<(), String> {
    let doc = load_manifest(text, &LoadOptions::default()).map_err(|e| e.to_string())?;
    let Some(map) = doc.as_ref().filter(|d| d.value.as_map().is_some()) else {
        return if want.get("error").is_some() {
            Ok(())
        } else {
            Err("manifest is not a mapping".into())
        };
    };
    let value = map.value.get("Format").map(|n| YamlScalar::from(&n.value));
    let spec = format_text(value.as_ref());
    if want["format_spec"].as_str() != Some(spec.as_str()) {
        return Err(format!(
            "format spec {spec:?}, want {}",
            want["format_spec"]
        ));
    }
    match parse_format(value.as_ref()) {
        Ok(f) => {
            let got = (
                f.name.as_str(),
                f.runtime_version.to_string(),
                Some(f.handler.class_name()),
            );
            let expected = (
                want["format_name"].as_str().unwrap_or_default(),
                want["runtime_version"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                want["handler"].as_str(),
            );
            if got == expected {
                Ok(())
            } else {
                Err(format!("{got:?}, want {expected:?}"))
            }
        }
        Err(FormatError::Unsupported(_)) if want["handler"].is_null() => Ok(()),
        Err(e) => Err(format!("{e}, want {want}")),
    }
}
