//! `murano ui PACKAGE --values FILE`: the wizard walked in the terminal
//! with the values of a file, printing the object model or the errors
//! of each step.

use std::collections::BTreeMap;
use std::path::Path;

use murano_ui::clean::FieldError;
use murano_ui::definition::{Definition, FieldKind, FormDef};
use murano_ui::wizard::StepOutcome;
use murano_yaml::Node;

use super::cloud::load_cloud;
use super::wizard::{browser_defaults, load_yaml, new_wizard, submit_step, UiPackage};
use super::{Failure, UiArgs};
use crate::suggest::close_match;

/// The values file must name forms and fields the definition has: a name
/// it does not have would be silently dropped.
fn check_value_names(values: &Node, definition: &Definition, path: &Path) -> Result<(), Failure> {
    let Some(forms) = values.value.as_map() else {
        return Err(Failure::Usage(format!(
            "{}: expected a mapping of form names to their fields' values",
            path.display()
        )));
    };
    let hint = |m: Option<&str>| {
        m.map(|m| format!(" (did you mean {m:?}?)"))
            .unwrap_or_default()
    };
    for (form_name, fields) in forms {
        let form_name = form_name.value.python_str();
        let Some(form) = definition.forms.iter().find(|f| f.name == form_name) else {
            let names = definition.forms.iter().map(|f| f.name.as_str());
            return Err(Failure::Usage(format!(
                "{}: the UI definition has no form {form_name:?}{}",
                path.display(),
                hint(close_match(&form_name, names))
            )));
        };
        for (field_name, _) in fields.value.as_map().unwrap_or(&[]) {
            let field_name = field_name.value.python_str();
            if !form.fields.iter().any(|f| f.name == field_name) {
                let names = form.fields.iter().map(|f| f.name.as_str());
                return Err(Failure::Usage(format!(
                    "{}: form {form_name:?} has no field {field_name:?}{}",
                    path.display(),
                    hint(close_match(&field_name, names))
                )));
            }
        }
    }
    Ok(())
}

pub(super) fn run_wizard(args: &UiArgs) -> Result<bool, Failure> {
    let (Some(package), Some(values_path)) = (&args.package, &args.values) else {
        return Err(Failure::Usage("a package and --values are required".into()));
    };
    let cloud = load_cloud(args.cloud.as_deref())?;
    let (lines, result) = fill_in(&UiPackage::Path(package), values_path, cloud, None, &[]);
    for line in lines {
        outln!("{line}");
    }
    match result? {
        Some(body) => {
            outln!(
                "{}",
                serde_json::to_string_pretty(&body).unwrap_or_default()
            );
            Ok(true)
        }
        None => Ok(false),
    }
}

/// Walks the wizard of `package` with the values of `values_path` against
/// `cloud`, for the environment `environment` (whose applications
/// `apps` an application field may name by `?.name` or `?.id`). Returns
/// the lines reporting invalid steps, and the object model (`None` when
/// a step is invalid) or why the dashboard would fail.
pub(crate) fn fill_in(
    package: &UiPackage,
    values_path: &Path,
    cloud: std::sync::Arc<dyn murano_ui::host::Host + Send + Sync>,
    environment: Option<&str>,
    apps: &[murano_ui::host::ExistingApp],
) -> (Vec<String>, Result<Option<serde_json::Value>, Failure>) {
    let mut lines = Vec::new();
    let result = fill_in_lines(package, values_path, cloud, environment, apps, &mut lines);
    (lines, result)
}

fn fill_in_lines(
    package: &UiPackage,
    values_path: &Path,
    cloud: std::sync::Arc<dyn murano_ui::host::Host + Send + Sync>,
    environment: Option<&str>,
    apps: &[murano_ui::host::ExistingApp],
    lines: &mut Vec<String>,
) -> Result<Option<serde_json::Value>, Failure> {
    let failed = |e: &dyn std::fmt::Display| Failure::Failed(e.to_string());
    let loaded = package.load()?;
    let values = load_yaml(values_path)?;
    check_value_names(&values, &loaded.definition, values_path)?;
    let ui_file = loaded.ui_file.clone();
    let names = loaded.definition.form_names();
    let defaults: Vec<BTreeMap<String, String>> = loaded
        .definition
        .forms
        .iter()
        .map(|form| browser_defaults(form, &loaded.info.fqn))
        .collect();
    let mut wizard = new_wizard(&loaded, cloud, environment.map(str::to_owned))?;
    // Every step is submitted, so that one run shows every step's errors;
    // a step after an invalid one may then fail on the values it lacks.
    let mut invalid: Vec<&str> = Vec::new();
    for (index, name) in names.iter().enumerate() {
        let mut posted = defaults[index].clone();
        if let Some(step) = values.value.get(name).and_then(|n| n.value.as_map()) {
            for (k, v) in step {
                posted.insert(k.value.python_str(), v.value.python_str());
            }
        }
        name_apps(&loaded.definition.forms[index], &mut posted, apps);
        let bad_networks =
            network_errors(&loaded.definition.forms[index], &mut posted, values_path);
        let outcome = match submit_step(&mut wizard, index, &posted) {
            Ok(outcome) => with_field_errors(outcome, bad_networks),
            Err(e) if !invalid.is_empty() => {
                lines.push(format!(
                    "step {name:?} cannot be checked: it fails without the values of step {:?} ({e})",
                    invalid[0]
                ));
                invalid.push(name);
                continue;
            }
            Err(e) => return Err(failed(&format!("{ui_file}: form {name:?}: {e}"))),
        };
        match outcome {
            StepOutcome::Valid(_) => {}
            StepOutcome::Invalid(errors) => {
                lines.push(format!("step {name:?} is not valid:"));
                for (field, list) in errors {
                    for error in list {
                        match &error.code {
                            Some(code) => {
                                lines.push(format!("  {field}: {} ({code})", error.message))
                            }
                            None => lines.push(format!("  {field}: {}", error.message)),
                        }
                    }
                }
                invalid.push(name);
            }
        }
    }
    if !invalid.is_empty() {
        return Ok(None);
    }
    let body = wizard
        .finish()
        .map_err(|e| failed(&format!("{ui_file}: Application: {e}")))?;
    Ok(Some(body))
}

/// Application fields post the id of an application of the environment
/// (the dashboard's choice); a value that is the `?.name` of one of
/// `apps` is taken as its id.
fn name_apps(
    form: &FormDef,
    posted: &mut BTreeMap<String, String>,
    apps: &[murano_ui::host::ExistingApp],
) {
    for field in &form.fields {
        if !matches!(field.kind, FieldKind::AppRef(_) | FieldKind::Domain) {
            continue;
        }
        let Some(value) = posted.get_mut(&field.name) else {
            continue;
        };
        if apps.iter().any(|a| a.id == *value) {
            continue;
        }
        if let Some(app) = apps.iter().find(|a| a.name == *value) {
            *value = app.id.clone();
        }
    }
}

/// The forms a network field's value takes, for its error message.
const NETWORK_FORMS: &str = "write a Python tuple of a network id and a subnet id: \
    ('NETWORK_ID', 'SUBNET_ID'), ('NETWORK_ID', None) for any subnet (e.g. ('net-1', None)), \
    or (None, None) or nothing for the automatic choice";

/// The values of `network` fields that the dashboard cannot read (it reads
/// the posted choice with Python's `ast.literal_eval` and fails on the
/// whole step): errors of their fields, blamed on the values file, and
/// taken out of what is posted so that the step's other fields are
/// still checked.
fn network_errors(
    form: &FormDef,
    posted: &mut BTreeMap<String, String>,
    values_path: &Path,
) -> Vec<(String, FieldError)> {
    let mut out = Vec::new();
    for field in form.fields.iter().filter(|f| f.kind == FieldKind::Network) {
        let Some(value) = posted.get(&field.name) else {
            continue;
        };
        if value.is_empty() || murano_ui::clean::python_literal_pair(value).is_some() {
            continue;
        }
        out.push((
            field.name.clone(),
            FieldError {
                message: format!(
                    "{value:?} ({}) is not a network choice: {NETWORK_FORMS}",
                    values_path.display()
                ),
                code: Some("invalid_network".into()),
            },
        ));
        posted.remove(&field.name);
    }
    out
}

/// A step's outcome with more field errors.
fn with_field_errors(outcome: StepOutcome, extra: Vec<(String, FieldError)>) -> StepOutcome {
    if extra.is_empty() {
        return outcome;
    }
    let mut errors = match outcome {
        StepOutcome::Invalid(errors) => errors,
        _ => Vec::new(),
    };
    for (field, error) in extra {
        match errors.iter_mut().find(|(f, _)| *f == field) {
            Some((_, list)) => list.insert(0, error),
            None => errors.insert(0, (field, vec![error])),
        }
    }
    StepOutcome::Invalid(errors)
}
