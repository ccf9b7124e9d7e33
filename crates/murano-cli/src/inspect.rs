//! `murano inspect`: what a package declares and generates.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use murano_dsl::yaml::Value;
use murano_packages::PluginRegistry;

use crate::files::read_package_or_message;

/// Show a package: manifest properties, classes, requirements; for
/// Heat.HOT packages also the generated class and UI definition.
///
/// Example:
///
///   murano inspect path/to/package
#[derive(Args)]
#[command(verbatim_doc_comment)]
pub(crate) struct InspectArgs {
    /// A package directory or .zip archive.
    path: PathBuf,
    /// Also print every class definition (generated ones are always shown).
    #[arg(long)]
    classes: bool,
}

pub(crate) fn run(args: &InspectArgs) -> ExitCode {
    if !args.path.exists() {
        eprintln!("murano: {}: no such file or folder", args.path.display());
        return ExitCode::from(2);
    }
    let loaded = match read_package_or_message(&args.path) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("murano: {e}");
            return ExitCode::from(1);
        }
    };
    let package = match PluginRegistry::with_builtins().load(loaded.files) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("murano: {}: {e}", args.path.display());
            return ExitCode::from(1);
        }
    };
    outln!("package:   {} {}", package.full_name(), package.version());
    outln!(
        "format:    {}/{}",
        package.format_name(),
        package.runtime_version()
    );
    outln!("type:      {}", package.package_type().as_str());
    outln!(
        "name:      {}",
        shown(&package.display_name().value, "(none)")
    );
    let description = package.description();
    if description.value != Value::Null {
        outln!("description: {}", description.value.python_str().trim());
    }
    if let Ok(tags) = package.tags() {
        // A null tag is shown as nothing, not as Python's `None`.
        let tags: Vec<String> = tags
            .iter()
            .filter(|t| t.value != Value::Null)
            .map(|t| t.value.python_str())
            .collect();
        outln!("tags:      {}", tags.join(", "));
    }
    let requirements = package.requirements();
    if let Some(pairs) = requirements.value.as_map() {
        if !pairs.is_empty() {
            outln!("requires:");
            for (name, spec) in pairs {
                // A null version spec is any version, as Murano reads it.
                outln!(
                    "  {}: {}",
                    name.value.python_str(),
                    shown(&spec.value, "any version")
                );
            }
        }
    }
    let generated = package.format_name() == "Heat.HOT";
    // Something that cannot be loaded is a finding: exit status 1.
    let mut failed = false;
    match package.classes() {
        Ok(classes) => {
            outln!("classes:");
            for class in &classes {
                match package.get_class(class) {
                    Ok(source) => {
                        outln!("  {class} ({}, {} bytes)", source.file, source.bytes.len());
                        let options = murano_dsl::yaml::LoadOptions::default();
                        if let Err(e) = murano_dsl::yaml::load_class_file(&source.bytes, &options) {
                            failed = true;
                            eprintln!(
                                "murano: {}/{}: class {class} does not load: {e}",
                                args.path.display(),
                                source.file
                            );
                        }
                        if generated || args.classes {
                            outln!("{}", indent(&String::from_utf8_lossy(&source.bytes)));
                        }
                    }
                    Err(e) => {
                        failed = true;
                        outln!("  {class}: {e}");
                        eprintln!("murano: {}: class {class}: {e}", args.path.display());
                    }
                }
            }
        }
        Err(e) => {
            failed = true;
            outln!("classes: {e}");
            eprintln!("murano: {}: classes: {e}", args.path.display());
        }
    }
    match package.ui() {
        Ok(Some(ui)) if generated => {
            outln!("ui (generated):\n{}", indent(&String::from_utf8_lossy(&ui)))
        }
        Ok(Some(ui)) => outln!("ui: {} bytes", ui.len()),
        Ok(None) => outln!("ui: none"),
        Err(e) => {
            failed = true;
            outln!("ui: {e}");
            eprintln!("murano: {}: ui: {e}", args.path.display());
        }
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// The value as text, `empty` for null (never Python's `None`).
fn shown(value: &Value, empty: &str) -> String {
    match value {
        Value::Null => empty.to_owned(),
        other => other.python_str(),
    }
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}
