//! Heat.HOT packages: the template checked as Heat 27 would check it
//! (`murano_hot`: loading, version, parameter schemas, template-validate
//! with generic resources), codes `H100`–`H104`.

use murano_hot::error::ErrorClass;
use murano_hot::{HeatError, Limits, Template};
use murano_yaml::{load_manifest, Mark};

use super::{diagnostic, Diagnostic};
use crate::source::{FileMap, PackageSource};

/// Where Murano's HOT plug-in reads the template.
const TEMPLATE: &str = "template.yaml";

fn is_hot_package(files: &FileMap) -> bool {
    let Some(text) = files
        .read("manifest.yaml")
        .and_then(|b| std::str::from_utf8(b).ok())
    else {
        return false;
    };
    let Ok(Some(doc)) = load_manifest(text, &Default::default()) else {
        return false;
    };
    doc.value
        .get("Format")
        .and_then(|f| f.value.as_str())
        .is_some_and(|f| f.trim_start().starts_with("Heat.HOT"))
}

fn code(stage: Stage, e: &HeatError) -> &'static str {
    match (stage, e.class) {
        (_, ErrorClass::Limit) => "H104",
        (Stage::Load, _) => "H100",
        (Stage::Version, _) => "H101",
        (_, ErrorClass::InvalidSchemaError | ErrorClass::ReError) => "H102",
        (Stage::Schemas, _) => "H102",
        (Stage::Validate, _) => "H103",
    }
}

#[derive(Clone, Copy)]
enum Stage {
    Load,
    Version,
    Schemas,
    Validate,
}

/// The diagnostics of a Heat.HOT package's template; nothing for other
/// packages or when the template is missing (other checks report that).
pub(crate) fn run(files: &FileMap) -> Vec<Diagnostic> {
    if !is_hot_package(files) {
        return Vec::new();
    }
    let Some(bytes) = files.read(TEMPLATE) else {
        return Vec::new();
    };
    let text = String::from_utf8_lossy(bytes);
    let limits = Limits::default();
    let result = murano_hot::load::parse(&text, &limits)
        .map_err(|e| (Stage::Load, e))
        .and_then(|data| {
            let detected = murano_hot::version::detect(&data).map_err(|e| (Stage::Version, e))?;
            Ok(Template {
                data,
                version: detected.version,
                limits: limits.clone(),
            })
        })
        .and_then(|t| {
            if !t.version.is_hot() {
                return Ok(());
            }
            t.schemas().map_err(|e| (Stage::Schemas, e))?;
            t.validate(&[]).map_err(|e| (Stage::Validate, e))
        });
    let Err((stage, e)) = result else {
        return Vec::new();
    };
    let mark = murano_hot::locate::locate(&text, &e).map(|p| Mark {
        index: 0,
        line: p.line.saturating_sub(1),
        column: p.column.saturating_sub(1),
    });
    let class = e.class.python_name().rsplit('.').next().unwrap_or("");
    vec![diagnostic(
        code(stage, &e),
        format!("Heat would refuse the template ({class}): {}", e.message()),
        Some(TEMPLATE),
        mark,
    )
    .with_python_exception(e.class.python_name())]
}
