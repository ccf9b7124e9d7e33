//! `murano inspect`: what a package declares and generates.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use murano_packages::PluginRegistry;

use crate::files::read_package;

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
    let loaded = match read_package(&args.path) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("murano: {e}");
            return ExitCode::from(2);
        }
    };
    let package = match PluginRegistry::with_builtins().load(loaded.files) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("murano: {}: {e}", args.path.display());
            return ExitCode::from(1);
        }
    };
    println!("package:   {} {}", package.full_name(), package.version());
    println!(
        "format:    {}/{}",
        package.format_name(),
        package.runtime_version()
    );
    println!("type:      {}", package.package_type().as_str());
    println!("name:      {}", package.display_name().value.python_str());
    let description = package.description().value.python_str();
    if description != "None" {
        println!("description: {}", description.trim());
    }
    if let Ok(tags) = package.tags() {
        let tags: Vec<String> = tags.iter().map(|t| t.value.python_str()).collect();
        println!("tags:      {}", tags.join(", "));
    }
    let requirements = package.requirements();
    if let Some(pairs) = requirements.value.as_map() {
        if !pairs.is_empty() {
            println!("requires:");
            for (name, spec) in pairs {
                println!("  {}: {}", name.value.python_str(), spec.value.python_str());
            }
        }
    }
    let generated = package.format_name() == "Heat.HOT";
    match package.classes() {
        Ok(classes) => {
            println!("classes:");
            for class in &classes {
                match package.get_class(class) {
                    Ok(source) => {
                        println!("  {class} ({}, {} bytes)", source.file, source.bytes.len());
                        if generated || args.classes {
                            println!("{}", indent(&String::from_utf8_lossy(&source.bytes)));
                        }
                    }
                    Err(e) => println!("  {class}: {e}"),
                }
            }
        }
        Err(e) => println!("classes: {e}"),
    }
    match package.ui() {
        Ok(Some(ui)) if generated => {
            println!("ui (generated):\n{}", indent(&String::from_utf8_lossy(&ui)))
        }
        Ok(Some(ui)) => println!("ui: {} bytes", ui.len()),
        Ok(None) => println!("ui: none"),
        Err(e) => println!("ui: {e}"),
    }
    ExitCode::SUCCESS
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}
