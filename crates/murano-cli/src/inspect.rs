//! `murano inspect`: what a package declares and generates.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use murano_dsl::yaml::{Node, Value};
use murano_packages::PluginRegistry;

use crate::files::read_package_or_message;

/// Show a package: manifest properties, classes, requirements, the forms
/// and fields of its UI; for Heat.HOT packages also the generated class
/// and UI definition (as plain YAML).
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
                        if generated {
                            // Murano's text is PyYAML's all-quoted dump:
                            // shown as plain YAML a class author writes.
                            outln!("{}", indent(&readable(&source.bytes, Kind::Class)));
                        } else if args.classes {
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
        Ok(Some(ui)) => {
            if generated {
                outln!("ui (generated):\n{}", indent(&readable(&ui, Kind::Ui)));
            } else {
                outln!("ui: {} bytes", ui.len());
            }
            match murano_ui::definition::Definition::load(&ui) {
                Ok(definition) => outln!("{}", forms(&definition)),
                Err(e) => {
                    failed = true;
                    outln!("  does not load: {e}");
                    eprintln!("murano: {}: ui: {e}", args.path.display());
                }
            }
        }
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

/// The forms of a UI definition and each field's name, type, whether it
/// is required, and label.
fn forms(definition: &murano_ui::definition::Definition) -> String {
    let mut lines = Vec::new();
    for form in &definition.forms {
        lines.push(crate::output::line(&format!("  form {}:", form.name)).into_owned());
        for field in &form.fields {
            let mut line = format!(
                "    {}: {}, {}",
                field.name,
                type_name(&field.kind),
                if field.required {
                    "required"
                } else {
                    "optional"
                }
            );
            if field.hidden {
                line.push_str(", hidden");
            }
            if let Some(label) = &field.label {
                line.push_str(&format!(", label {label:?}"));
            }
            lines.push(crate::output::line(&line).into_owned());
        }
    }
    if lines.is_empty() {
        lines.push("  no forms".to_owned());
    }
    lines.join("\n")
}

/// A field's type as `ui.yaml` writes it.
fn type_name(kind: &murano_ui::definition::FieldKind) -> String {
    use murano_ui::definition::FieldKind as K;
    match kind {
        K::String => "string",
        K::Text => "text",
        K::Password => "password",
        K::Integer => "integer",
        K::Boolean => "boolean",
        K::FloatingIp => "floatingip",
        K::ClusterIp => "clusterip",
        K::DatabaseList => "databaselist",
        K::Choice => "choice",
        K::Flavor => "flavor",
        K::Image => "image",
        K::KeyPair => "keypair",
        K::AZone => "azone",
        K::Network => "network",
        K::SecurityGroup => "securitygroup",
        K::Volume => "volume",
        K::Zone => "zone",
        K::Domain => "domain",
        K::AppRef(names) => return names.join(" or "),
    }
    .to_owned()
}

/// Which generated text [`readable`] reads.
enum Kind {
    Class,
    Ui,
}

/// Generated YAML as plain block YAML (document order, scalars quoted
/// only where plain YAML would read them otherwise, no tags); the text
/// as it is when it does not load.
fn readable(bytes: &[u8], kind: Kind) -> String {
    use murano_dsl::yaml::{load_class_file, load_ui_file, LoadOptions};
    let options = LoadOptions::default();
    let documents = match kind {
        Kind::Class => load_class_file(bytes, &options).map(|c| c.documents),
        Kind::Ui => load_ui_file(bytes, &options).map(|d| d.into_iter().collect()),
    };
    let Ok(documents) = documents else {
        return String::from_utf8_lossy(bytes).into_owned();
    };
    let mut out = String::new();
    for (i, document) in documents.iter().enumerate() {
        if i > 0 {
            out.push_str("---\n");
        }
        block(document, 0, &mut out);
    }
    // Package text: nothing a terminal acts on.
    crate::output::block(out.trim_end()).into_owned()
}

/// A node at `indent`, each line ending in a line break.
fn block(node: &Node, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    match &node.value {
        Value::Map(pairs) if !pairs.is_empty() => {
            for (k, v) in pairs {
                out.push_str(&format!("{pad}{}:", inline(k)));
                after_key(v, indent, out);
            }
        }
        Value::Seq(items) if !items.is_empty() => {
            for item in items {
                match &item.value {
                    // `- key: value` with the other keys under it.
                    Value::Map(pairs) if !pairs.is_empty() => {
                        for (i, (k, v)) in pairs.iter().enumerate() {
                            let lead = if i == 0 { "- " } else { "  " };
                            out.push_str(&format!("{pad}{lead}{}:", inline(k)));
                            after_key(v, indent + 2, out);
                        }
                    }
                    Value::Seq(inner) if !inner.is_empty() => {
                        out.push_str(&format!("{pad}-\n"));
                        block(item, indent + 2, out);
                    }
                    _ => out.push_str(&format!("{pad}- {}\n", inline(item))),
                }
            }
        }
        _ => out.push_str(&format!("{pad}{}\n", inline(node))),
    }
}

/// The value of a mapping key at `indent`: nested on the next lines, or
/// after the colon.
fn after_key(value: &Node, indent: usize, out: &mut String) {
    match &value.value {
        Value::Map(pairs) if !pairs.is_empty() => {
            out.push('\n');
            block(value, indent + 2, out);
        }
        // Sequences under a key are not indented, as PyYAML writes them.
        Value::Seq(items) if !items.is_empty() => {
            out.push('\n');
            block(value, indent, out);
        }
        _ => out.push_str(&format!(" {}\n", inline(value))),
    }
}

/// A scalar (or empty collection) on one line.
fn inline(node: &Node) -> String {
    match &node.value {
        Value::Null => "null".to_owned(),
        Value::Str(s) => scalar(s),
        // In a class, a plain string that parses as YAQL is YAQL.
        Value::Yaql(y) => scalar(y.text()),
        Value::Map(_) => "{}".to_owned(),
        Value::Seq(_) => "[]".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Float(_) => node.value.python_repr(),
        other => scalar(&other.python_str()),
    }
}

/// The text plain when plain YAML reads it back as this string, else
/// single-quoted (double-quoted with escapes when it has a control
/// character).
fn scalar(s: &str) -> String {
    let lower = s.to_ascii_lowercase();
    let plain = !s.is_empty()
        && s.trim() == s
        && !s.chars().any(|c| c.is_control())
        && !s.starts_with(|c: char| "-?:,[]{}#&*!|>'\"%@`".contains(c))
        && !s.starts_with(|c: char| c.is_ascii_digit() || c == '+' || c == '.')
        && !s.contains(": ")
        && !s.contains(" #")
        && !s.ends_with(':')
        && !matches!(
            lower.as_str(),
            "null" | "true" | "false" | "yes" | "no" | "on" | "off" | "y" | "n" | "~"
        );
    if plain {
        s.to_owned()
    } else if !s.chars().any(|c| c.is_control()) {
        format!("'{}'", s.replace('\'', "''"))
    } else {
        format!("{s:?}")
    }
}
