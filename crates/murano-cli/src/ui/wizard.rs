//! What both halves of `murano ui` share: a package's UI definition
//! loaded, the wizard over it, and one step submitted as a browser
//! posts it.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use murano_packages::source::FileMap;
use murano_packages::PluginRegistry;
use murano_ui::clean::FieldError;
use murano_ui::definition::Definition;
use murano_ui::host::{Host, SystemEntropy};
use murano_ui::wizard::{Package, StepOutcome, Wizard};
use murano_yaml::{load_single, Flavor as YamlFlavor, LoadOptions, Node};

use super::Failure;
use crate::files::read_package_or_message;

/// Largest values or cloud file read (the YAML loader's input limit).
pub(super) const MAX_INPUT_SIZE: u64 = 16 << 20;

pub(super) fn load_yaml(path: &Path) -> Result<Node, Failure> {
    let bytes = crate::files::read_capped(path, MAX_INPUT_SIZE)
        .map_err(|e| Failure::Usage(format!("cannot read {}: {e}", path.display())))?
        .ok_or_else(|| {
            Failure::Usage(format!(
                "{}: larger than {MAX_INPUT_SIZE} bytes",
                path.display()
            ))
        })?;
    load_single(&bytes, YamlFlavor::Plain, &LoadOptions::default())
        .map_err(|e| Failure::Usage(format!("{}: {e}", path.display())))?
        .ok_or_else(|| Failure::Usage(format!("{}: empty", path.display())))
}

/// A definition error as `file:line:column: field "name": error`, with
/// the position and the field when the error has them.
fn definition_error(ui_file: &str, e: &murano_ui::Error) -> String {
    let mut out = ui_file.to_owned();
    if let Some(at) = e.position() {
        out.push_str(&format!(":{}:{}", at.line, at.column));
    }
    if let Some(field) = e.field() {
        out.push_str(&format!(": field {field:?}"));
    }
    format!("{out}: {e}")
}

// The defaults a browser posts for a step: the dashboard's own rule.
pub(crate) use murano_dashboard::wizard::browser_defaults;

/// A package's UI definition, loaded as `murano ui` does, with the
/// package's identity and the name of the UI file for messages.
pub(crate) struct LoadedUi {
    pub(crate) definition: Definition,
    pub(crate) info: Package,
    pub(crate) ui_file: String,
}

/// Where the package whose forms fill in an application comes from.
pub(crate) enum UiPackage<'a> {
    /// A package folder or zip.
    Path(&'a Path),
    /// A package's files read already (a package of the catalog store),
    /// named in messages by `label`.
    Files {
        /// The package's name in messages (its FQN).
        label: String,
        /// Its files.
        files: FileMap,
    },
}

impl UiPackage<'_> {
    /// Loads the package and its UI definition (see [`load_ui`]).
    pub(crate) fn load(&self) -> Result<LoadedUi, Failure> {
        match self {
            UiPackage::Path(path) => load_ui(path),
            UiPackage::Files { label, files } => load_ui_files(files.clone(), label),
        }
    }
}

/// Loads the package at `path` and its UI definition (read afresh each
/// call); a definition error names its file, line and column.
pub(crate) fn load_ui(path: &Path) -> Result<LoadedUi, Failure> {
    if !path.exists() {
        return Err(Failure::Usage(format!(
            "{}: no such file or folder",
            path.display()
        )));
    }
    let failed = |e: &dyn std::fmt::Display| Failure::Failed(e.to_string());
    let loaded = read_package_or_message(path).map_err(|e| failed(&e))?;
    load_ui_files(loaded.files, &path.display().to_string())
}

/// [`load_ui`] of a package's files; `label` names the package in
/// messages.
fn load_ui_files(files: FileMap, label: &str) -> Result<LoadedUi, Failure> {
    let failed = |e: &dyn std::fmt::Display| Failure::Failed(e.to_string());
    // The UI file, named in messages: `UI` of the manifest, or ui.yaml.
    let ui_name = {
        use murano_packages::source::PackageSource;
        files
            .read("manifest.yaml")
            .and_then(|m| String::from_utf8(m.to_vec()).ok())
            .and_then(|m| murano_dsl::yaml::load_manifest(&m, &LoadOptions::default()).ok())
            .flatten()
            .and_then(|m| m.value.get("UI").map(|n| n.value.python_str()))
            .unwrap_or_else(|| "ui.yaml".into())
    };
    let package = PluginRegistry::with_builtins()
        .load(files)
        .map_err(|e| failed(&format!("{}: {e}", label)))?;
    let ui_file = if package.format_name() == "Heat.HOT" {
        format!("{} (generated UI)", label)
    } else {
        format!("{}/UI/{ui_name}", label)
    };
    let ui = package
        .ui()
        .map_err(|e| failed(&format!("{ui_file}: {e}")))?
        .ok_or_else(|| failed(&format!("{}: the package has no UI definition", label)))?;
    let definition = Definition::load(&ui).map_err(|e| failed(&definition_error(&ui_file, &e)))?;
    let info = Package {
        fqn: package.full_name().to_owned(),
        name: package.display_name().value.python_str(),
        id: package.full_name().to_owned(),
        version: package.version().to_string(),
    };
    Ok(LoadedUi {
        definition,
        info,
        ui_file,
    })
}

/// A wizard over a loaded definition, with the given cloud.
pub(crate) fn new_wizard(
    loaded: &LoadedUi,
    cloud: Arc<dyn Host + Send + Sync>,
    environment: Option<String>,
) -> Result<Wizard, Failure> {
    Wizard::new(
        Arc::new(loaded.definition.clone()),
        loaded.info.clone(),
        environment,
        Some(cloud),
        Box::new(SystemEntropy::default()),
    )
    .map_err(|e| Failure::Failed(format!("{}: {e}", loaded.ui_file)))
}

/// Submits one step as a browser would post it: a flavor the cloud does
/// not have is an error of the field; any other failure of the dashboard
/// is an `Err` with its message.
pub(crate) fn submit_step(
    wizard: &mut Wizard,
    index: usize,
    posted: &BTreeMap<String, String>,
) -> Result<StepOutcome, murano_ui::Error> {
    match wizard.submit(index, posted) {
        Ok(outcome) => Ok(outcome),
        // The dashboard cleans a flavor field without checks and then
        // fails looking the flavor up (a server error, which the
        // library reproduces); for a person it is an error of the
        // field, like any other.
        Err(murano_ui::Error::ResourceUsages(_)) => Ok(StepOutcome::Invalid(vec![(
            "flavor".into(),
            vec![flavor_error(posted)],
        )])),
        Err(e) => Err(e),
    }
}

/// The error of a flavor field whose value names no flavor of the cloud.
fn flavor_error(posted: &BTreeMap<String, String>) -> FieldError {
    match posted
        .get("flavor")
        .filter(|v| !v.is_empty() && *v != "None")
    {
        None => FieldError {
            message: "This field is required.".into(),
            code: Some("required".into()),
        },
        Some(name) => FieldError {
            message: format!("Select a valid choice. {name} is not one of the available choices."),
            code: Some("invalid_choice".into()),
        },
    }
}
