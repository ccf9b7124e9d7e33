//! `murano hot validate`: a Heat template checked as Heat 27 would check
//! it (murano-hot), with parameter values optionally.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use murano_hot::resolve::{resolve_template, Resolved};
use murano_hot::{locate::locate, HeatError, Limits, Template, Value};

/// Check a Heat (HOT) template as Heat 27's `template-validate` does,
/// offline, with every resource type treated as generic: loading (JSON
/// or YAML), the version, sections, parameter schemas and defaults,
/// parameter groups, conditions, resources, outputs, references,
/// dependency loops and function arguments.
///
/// With --params, the values are then checked against the parameter
/// schemas (Heat's coercions and messages) and, when they are accepted,
/// the parameters' values and the outputs that need no real resource
/// are printed.
///
/// Exit status: 0 valid, 1 findings, 2 usage or I/O error.
///
/// Examples:
///
///   murano hot validate stack.yaml
///
///   murano hot validate stack.yaml --params values.yaml --format json
#[derive(Args)]
#[command(verbatim_doc_comment)]
pub(crate) struct ValidateArgs {
    /// The template.
    template: PathBuf,
    /// Parameter values: a JSON or YAML mapping of name to value, or a
    /// Heat environment file (its `parameters` section).
    #[arg(long, value_name = "FILE")]
    params: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    #[command(flatten)]
    output: crate::output::OutputArgs,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Json,
}

struct Finding {
    error: HeatError,
    /// Line and column, where the error's path can be found in the text.
    at: Option<(u32, u32)>,
}

fn finding(text: &str, error: HeatError) -> Finding {
    let at = locate(text, &error).map(|p| (p.line, p.column));
    Finding { error, at }
}

/// The position of 1-based `line` and `column` in `text` (its character
/// offset counted; lines end as `Position` counts them).
fn at(text: &str, line: u32, column: u32) -> murano_diagnostics::Position {
    let mut offset = 0u32;
    let mut current = 1u32;
    let mut chars = text.chars().peekable();
    while current < line {
        let Some(c) = chars.next() else { break };
        offset = offset.saturating_add(1);
        if c == '\n' || (c == '\r' && chars.peek() != Some(&'\n')) {
            current += 1;
        }
    }
    murano_diagnostics::Position::new(line, column, offset.saturating_add(column - 1))
}

fn read_params(path: &Path) -> Result<Vec<(String, Value)>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let data = if text.trim().is_empty() {
        Value::Map(Vec::new())
    } else {
        murano_hot::load::simple_parse(&text, &Limits::default())
            .map_err(|e| format!("{}: {e}", path.display()))?
    };
    let Value::Map(entries) = &data else {
        return Err(format!("{}: not a mapping", path.display()));
    };
    const ENV_SECTIONS: [&str; 6] = [
        "parameters",
        "parameter_defaults",
        "resource_registry",
        "encrypted_param_names",
        "event_sinks",
        "parameter_merge_strategies",
    ];
    let is_env = !entries.is_empty()
        && entries
            .iter()
            .all(|(k, _)| k.as_str().is_some_and(|k| ENV_SECTIONS.contains(&k)));
    let values = if is_env {
        match data.get("parameters") {
            Some(Value::Map(m)) => m.clone(),
            _ => Vec::new(),
        }
    } else {
        entries.clone()
    };
    Ok(values.into_iter().map(|(k, v)| (k.py_str(), v)).collect())
}

pub(crate) fn run(args: &ValidateArgs) -> ExitCode {
    crate::output::set_limit(args.output.max_output);
    let text = match std::fs::read(&args.template) {
        Ok(b) => match String::from_utf8(b) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("murano: {}: {e}", args.template.display());
                return ExitCode::from(2);
            }
        },
        Err(e) => {
            eprintln!("murano: {}: {e}", args.template.display());
            return ExitCode::from(2);
        }
    };
    let params = match args.params.as_deref().map(read_params).transpose() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("murano: {e}");
            return ExitCode::from(2);
        }
    };
    let limits = Limits::default();
    let mut findings = Vec::new();
    let mut version = None;
    let mut values = None;
    let mut outputs = Vec::new();
    match Template::load(&text, &limits) {
        Err(e) => findings.push(finding(&text, e)),
        Ok(t) => {
            // As the template writes it (`heat_template_version:
            // 2021-04-16`), not Heat's class name.
            version = Some(
                murano_hot::version::detect(&t.data)
                    .map(|d| format!("{}: {}", d.key, d.value))
                    .unwrap_or_else(|_| t.version.class_name().to_owned()),
            );
            if t.version.is_hot() {
                let supplied = params.clone().unwrap_or_default();
                if let Err(e) = t.validate(&supplied) {
                    findings.push(finding(&text, e));
                } else if let Some(p) = &params {
                    match t.parameter_values(p) {
                        Err(e) => findings.push(finding(&text, e)),
                        Ok(v) => {
                            values = Some(v);
                            match resolve_template(&t, p) {
                                Ok(r) => outputs = r.outputs,
                                Err(e) => findings.push(finding(&text, e)),
                            }
                        }
                    }
                }
            }
        }
    }
    let file = args.template.display().to_string();
    match args.format {
        Format::Text => {
            // As `check` shows diagnostics: the one snippet renderer
            // (message, file:line:column, the source line, a caret).
            for f in &findings {
                let start = f.at.map(|(l, c)| at(&text, l, c));
                let snippet = murano_diagnostics::Snippet::new(format!(
                    "error[{}]: {}",
                    f.error.class.python_name(),
                    f.error.message()
                ))
                .file(&file)
                .source(&text)
                .span(start, None)
                .render();
                outln!("{snippet}\n");
            }
            if findings.is_empty() {
                outln!(
                    "{file}: valid ({})",
                    version.as_deref().unwrap_or("unknown version")
                );
            }
            for (name, v) in values.iter().flatten() {
                outln!(
                    "parameter {name} = {}",
                    v.json_dumps().unwrap_or_else(|| v.py_repr())
                );
            }
            for (name, r) in &outputs {
                match r {
                    Resolved::Value(v) => {
                        outln!(
                            "output {name} = {}",
                            v.json_dumps().unwrap_or_else(|| v.py_repr())
                        )
                    }
                    Resolved::Error(e) => outln!(
                        "output {name}: error[{}]: {}",
                        e.class.python_name(),
                        e.message()
                    ),
                    Resolved::NeedsResources(f) => {
                        outln!("output {name}: needs resources ({})", f.join(", "))
                    }
                    Resolved::ConditionFalse => outln!("output {name}: condition false"),
                }
            }
        }
        Format::Json => {
            let diagnostics: Vec<serde_json::Value> = findings
                .iter()
                .map(|f| {
                    serde_json::json!({
                        "file": file,
                        "line": f.at.map(|(l, _)| l),
                        "column": f.at.map(|(_, c)| c),
                        "class": f.error.class.python_name(),
                        "message": f.error.message(),
                        "path": f.error.path,
                    })
                })
                .collect();
            let mut out = serde_json::json!({
                "file": file,
                "valid": findings.is_empty(),
                "version": version,
                "diagnostics": diagnostics,
            });
            if let Some(v) = &values {
                out["parameters"] = serde_json::Value::Object(
                    v.iter().map(|(k, v)| (k.clone(), v.to_json())).collect(),
                );
            }
            if !outputs.is_empty() {
                out["outputs"] = serde_json::Value::Object(
                    outputs
                        .iter()
                        .map(|(k, r)| {
                            let j = match r {
                                Resolved::Value(v) => serde_json::json!({"value": v.to_json()}),
                                Resolved::Error(e) => serde_json::json!({
                                    "error": {"class": e.class.python_name(), "message": e.message()}
                                }),
                                Resolved::NeedsResources(f) => {
                                    serde_json::json!({"skipped": "needs_resources", "functions": f})
                                }
                                Resolved::ConditionFalse => {
                                    serde_json::json!({"skipped": "condition_false"})
                                }
                            };
                            (k.clone(), j)
                        })
                        .collect(),
                );
            }
            if let Err(e) = crate::output::print_json(&out) {
                eprintln!("murano: cannot print the report: {e}");
                return ExitCode::from(2);
            }
        }
    }
    if findings.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
