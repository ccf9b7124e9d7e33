//! `Heat.HOT` packages checked as Murano loads them: the manifest, the
//! template, and the class and UI definition generated from it. (murano-
//! pkg-check knows only MuranoPL packages; its view of a HOT package stays
//! available with `CheckOptions::with_pkgcheck_only`.)

use murano_dsl::model::ClassDefinition;
use murano_yaml::{load_class_file, load_ui_file, Node, Value};

use super::{CheckOptions, Diagnostic};
use crate::error::PackageError;
use crate::hot::HotPackage;
use crate::package::Package;
use crate::source::{FileMap, PackageSource};

/// Whether the manifest asks for the Heat.HOT format.
pub(crate) fn is_hot(manifest: Option<&Node>) -> bool {
    let Some(format) = manifest.and_then(|m| m.value.get("Format")) else {
        return false;
    };
    let Value::Str(text) = &format.value else {
        return false;
    };
    crate::format::split_format(text).is_ok_and(|(name, _)| name == "Heat.HOT")
}

fn at(e: &PackageError) -> Option<murano_yaml::Mark> {
    match e {
        PackageError::Yaml(y) => y.mark(),
        _ => None,
    }
}

/// Runs the checks of Murano's HOT plug-in (codes `H110`–`H113`).
pub(crate) fn run(files: &FileMap, options: &CheckOptions) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let package = match HotPackage::new(files.clone()) {
        Ok(p) => p,
        Err(e) => {
            out.push(super::diagnostic(
                "H110",
                format!("Murano refuses the manifest: {e}"),
                Some("manifest.yaml"),
                at(&e),
            ));
            return out;
        }
    };
    // Murano reads the logos when the package is imported: a logo the
    // manifest names but the package lacks makes the import fail.
    for (key, logo) in [
        ("Logo", package.logo()),
        ("Supplier", package.supplier_logo()),
    ] {
        if let Err(e) = logo {
            let node = manifest_key(files, options, key);
            out.push(super::diagnostic(
                "H110",
                format!("Murano refuses the package at import: {e}"),
                Some("manifest.yaml"),
                node,
            ));
        }
    }
    let classes = match package.classes() {
        Ok(c) => c,
        Err(e) => {
            out.push(template_error(&e));
            return out;
        }
    };
    for name in classes {
        match package.get_class(&name) {
            Err(e) => out.push(template_error(&e)),
            Ok(source) => match load_class_file(&source.bytes, &options.load) {
                Err(e) => out.push(super::diagnostic(
                    "H112",
                    format!("the class generated for {name:?} does not load: {e}"),
                    Some("template.yaml"),
                    None,
                )),
                Ok(file) => {
                    for class in ClassDefinition::from_documents(&file.documents, None) {
                        for issue in class.issues() {
                            out.push(super::diagnostic(
                                "H112",
                                format!(
                                    "the class generated for {name:?} is invalid: {} ({})",
                                    issue.message, issue.code
                                ),
                                Some("template.yaml"),
                                None,
                            ));
                        }
                    }
                }
            },
        }
    }
    match package.ui() {
        Err(e) => out.push(super::diagnostic(
            "H113",
            format!("no UI definition can be generated: {e}"),
            Some("template.yaml"),
            at(&e),
        )),
        Ok(Some(bytes)) => {
            if let Err(e) = load_ui_file(&bytes, &options.load) {
                out.push(super::diagnostic(
                    "H113",
                    format!("the generated UI definition does not load: {e}"),
                    Some("template.yaml"),
                    None,
                ));
            }
        }
        Ok(None) => {}
    }
    out
}

fn template_error(e: &PackageError) -> Diagnostic {
    super::diagnostic(
        "H111",
        format!("the template cannot become a class: {e}"),
        Some("template.yaml"),
        at(e),
    )
}

/// Where the manifest's top-level `key` is, for a finding about it.
fn manifest_key(files: &FileMap, options: &CheckOptions, key: &str) -> Option<murano_yaml::Mark> {
    let text = String::from_utf8_lossy(files.read("manifest.yaml")?);
    let doc = murano_yaml::load_manifest(&text, &options.load).ok()??;
    let (k, _) = doc
        .value
        .as_map()?
        .iter()
        .find(|(k, _)| k.value.as_str() == Some(key))?;
    Some(k.start)
}
