//! `murano ui`: fill in a package's Dynamic UI offline and print what the
//! dashboard would send, or the errors of each field.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;
use murano_packages::PluginRegistry;
use murano_ui::clean::FieldError;
use murano_ui::definition::{Definition, FieldKind, FormDef, WF_MANAGEMENT};
use murano_ui::host::{
    AvailabilityZone, ExistingApp, Flavor, Host, Image, ImageInfo, Named, Network, SystemEntropy,
};
use murano_ui::wizard::{Package, StepOutcome, Wizard};
use murano_yaml::{load_single, Flavor as YamlFlavor, LoadOptions, Node, Value};

use crate::files::read_package_or_message;

/// Validate form values against a package's UI definition and print the
/// object model the dashboard would send, or the errors per field.
///
/// Example:
///
///   murano ui path/to/package --values values.yaml [--cloud cloud.yaml]
///
/// The values file maps each form (step) name to its fields' raw values,
/// in the order of the forms:
///
///   settings:
///     name: my-shop
///     port: "8080"
///
/// A field left out gets its `initial` value, as in a browser; to post it
/// empty, write '' (`~` would post the text "None"). A password field
/// that asks for confirmation takes the second entry under its name with
/// `-clone` (`password: s3cret!` and `password-clone: s3cret!`). Errors
/// are printed per step and field; `__all__` is an error of the whole
/// form (a form validator, or passwords that do not match), not of a
/// field named so.
///
/// The optional cloud file describes what the dashboard would ask
/// OpenStack for (flavors, images, keypairs, zones, networks):
///
///   flavors: [{name: m1.small, vcpus: 1, ram: 2048, disk: 20}]
///   images: [{name: ubuntu, type: linux}]
///   keypairs: [mykey]
///   zones: [nova]
///   networks: [{name: private, id: net-1}]
///
/// A field of type network takes what the dashboard posts for a choice:
/// a Python tuple literal of a network id of the cloud file and a subnet
/// id, quoted in YAML, e.g. net: "('NETWORK_ID', None)" (any subnet of
/// the network) or "('NETWORK_ID', 'SUBNET_ID')"; "(None, None)" or ""
/// is the automatic choice. Any other value is an error of the field.
///
/// The exit status is 0 when every step is valid, 1 when a step is not
/// or the dashboard would fail, 2 on a usage or I/O error.
///
/// To see the forms in a browser instead, see `murano ui serve --help`.
#[derive(Args)]
#[command(
    verbatim_doc_comment,
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
pub(crate) struct UiArgs {
    #[command(subcommand)]
    command: Option<UiCommand>,
    /// A package directory or .zip archive.
    #[arg(required = true)]
    package: Option<PathBuf>,
    /// The form values (YAML or JSON).
    #[arg(long, value_name = "FILE", required = true)]
    values: Option<PathBuf>,
    /// The cloud resources the forms may list (YAML or JSON).
    #[arg(long, value_name = "FILE")]
    cloud: Option<PathBuf>,
}

/// `murano ui serve`.
#[derive(clap::Subcommand)]
enum UiCommand {
    Serve(crate::serve::wizard::ServeArgs),
}

/// A cloud described by a file: nothing is fetched.
#[derive(Default)]
struct OfflineCloud {
    flavors: Vec<Flavor>,
    images: Vec<Image>,
    keypairs: Vec<String>,
    zones: Vec<AvailabilityZone>,
    networks: Vec<Network>,
}

fn text(node: Option<&Node>) -> String {
    node.map(|n| n.value.python_str()).unwrap_or_default()
}

fn number(node: Option<&Node>) -> i64 {
    text(node).parse().unwrap_or(0)
}

fn items<'a>(doc: &'a Node, key: &str) -> &'a [Node] {
    match doc.value.get(key).map(|n| &n.value) {
        Some(Value::Seq(items)) => items,
        _ => &[],
    }
}

impl OfflineCloud {
    fn from_node(doc: &Node) -> OfflineCloud {
        OfflineCloud {
            flavors: items(doc, "flavors")
                .iter()
                .map(|f| Flavor {
                    id: text(f.value.get("id").or(f.value.get("name"))),
                    name: text(f.value.get("name")),
                    ram: number(f.value.get("ram")),
                    vcpus: number(f.value.get("vcpus")),
                    disk: number(f.value.get("disk")),
                })
                .collect(),
            images: items(doc, "images")
                .iter()
                .map(|i| Image {
                    id: text(i.value.get("id").or(i.value.get("name"))),
                    name: text(i.value.get("name")),
                    status: "active".into(),
                    snapshot: false,
                    info: i.value.get("type").map(|t| ImageInfo {
                        title: Some(text(i.value.get("name"))),
                        image_type: Some(t.value.python_str()),
                    }),
                })
                .collect(),
            keypairs: items(doc, "keypairs")
                .iter()
                .map(|k| k.value.python_str())
                .collect(),
            zones: items(doc, "zones")
                .iter()
                .map(|z| AvailabilityZone {
                    name: z.value.python_str(),
                    available: true,
                })
                .collect(),
            networks: items(doc, "networks")
                .iter()
                .map(|n| Network {
                    id: text(n.value.get("id").or(n.value.get("name"))),
                    name: text(n.value.get("name")),
                    external: false,
                    subnets: Vec::new(),
                })
                .collect(),
        }
    }
}

impl Host for OfflineCloud {
    fn region(&self) -> String {
        "RegionOne".into()
    }
    fn flavors(&self) -> Vec<Flavor> {
        self.flavors.clone()
    }
    fn images(&self) -> Vec<Image> {
        self.images.clone()
    }
    fn keypairs(&self) -> Vec<String> {
        self.keypairs.clone()
    }
    fn availability_zones(&self) -> Vec<AvailabilityZone> {
        self.zones.clone()
    }
    fn networks(&self) -> Vec<Network> {
        self.networks.clone()
    }
    fn environments(&self) -> Vec<String> {
        Vec::new()
    }
    fn security_groups(&self) -> Vec<String> {
        Vec::new()
    }
    fn volumes(&self) -> Vec<Named> {
        Vec::new()
    }
    fn volume_snapshots(&self) -> Vec<Named> {
        Vec::new()
    }
    fn dns_zones(&self) -> Vec<String> {
        Vec::new()
    }
    fn package_exists(&self, _fqn: &str) -> bool {
        false
    }
    fn environment_services(&self, _environment_id: Option<&str>) -> Vec<ExistingApp> {
        Vec::new()
    }
    fn encrypt_data(&self, _data: &str) -> Result<String, String> {
        Err("no secret store offline".into())
    }
    fn call_static_action(&self, _body: &serde_json::Value) -> Result<serde_json::Value, String> {
        Err("no Murano API offline".into())
    }
}

/// Largest values or cloud file read (the YAML loader's input limit).
const MAX_INPUT_SIZE: u64 = 16 << 20;

fn load_yaml(path: &Path) -> Result<Node, Failure> {
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

/// Why no object model was printed: a usage or I/O problem (exit status
/// 2), or a package, definition or evaluation that fails (1).
pub(crate) enum Failure {
    Usage(String),
    Failed(String),
}

impl Failure {
    /// The message, whatever the kind.
    pub(crate) fn message(&self) -> &str {
        match self {
            Failure::Usage(m) | Failure::Failed(m) => m,
        }
    }
}

/// The closest of `names` to `name` (edit distance at most a third of
/// the length, at least 2), for "did you mean" hints.
pub(crate) fn close_match<'a>(
    name: &str,
    names: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let distance = |a: &str, b: &str| {
        let b: Vec<char> = b.chars().collect();
        let mut row: Vec<usize> = (0..=b.len()).collect();
        for (i, ca) in a.chars().enumerate() {
            let mut previous = row[0];
            row[0] = i + 1;
            for j in 0..b.len() {
                let cost = usize::from(ca != b[j]);
                let next = (row[j + 1] + 1).min(row[j] + 1).min(previous + cost);
                previous = row[j + 1];
                row[j + 1] = next;
            }
        }
        row[b.len()]
    };
    let limit = (name.chars().count() / 3).max(2);
    names
        .into_iter()
        .map(|n| (distance(name, n), n))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, n)| n)
}

/// The values file must name forms and fields the definition has: a name
/// it does not have would be silently dropped.
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

/// What a browser would post for fields the user left untouched: the
/// constant `initial` of each field, and the last part of the package
/// name for the management form's `application_name` (the dashboard's
/// initial value).
/// Unchecked boxes post nothing, as in a browser.
pub(crate) fn browser_defaults(form: &FormDef, fqn: &str) -> BTreeMap<String, String> {
    let mut posted = BTreeMap::new();
    for field in &form.fields {
        let initial = match &field.initial {
            Some(node) => match &node.value {
                Value::Map(_) | Value::Seq(_) | Value::Null => continue,
                Value::Bool(false) => continue,
                Value::Bool(true) => "on".to_owned(),
                other => other.python_str(),
            },
            None if form.name == WF_MANAGEMENT && field.name == "application_name" => {
                fqn.rsplit('.').next().unwrap_or(fqn).to_owned()
            }
            None => continue,
        };
        posted.insert(field.name.clone(), initial);
    }
    posted
}

/// A package's UI definition, loaded as `murano ui` does, with the
/// package's identity and the name of the UI file for messages.
pub(crate) struct LoadedUi {
    pub(crate) definition: Definition,
    pub(crate) info: Package,
    pub(crate) ui_file: String,
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
    // The UI file, named in messages: `UI` of the manifest, or ui.yaml.
    let ui_name = {
        use murano_packages::source::PackageSource;
        loaded
            .files
            .read("manifest.yaml")
            .and_then(|m| String::from_utf8(m.to_vec()).ok())
            .and_then(|m| murano_dsl::yaml::load_manifest(&m, &LoadOptions::default()).ok())
            .flatten()
            .and_then(|m| m.value.get("UI").map(|n| n.value.python_str()))
            .unwrap_or_else(|| "ui.yaml".into())
    };
    let package = PluginRegistry::with_builtins()
        .load(loaded.files)
        .map_err(|e| failed(&format!("{}: {e}", path.display())))?;
    let ui_file = if package.format_name() == "Heat.HOT" {
        format!("{} (generated UI)", path.display())
    } else {
        format!("{}/UI/{ui_name}", path.display())
    };
    let ui = package
        .ui()
        .map_err(|e| failed(&format!("{ui_file}: {e}")))?
        .ok_or_else(|| {
            failed(&format!(
                "{}: the package has no UI definition",
                path.display()
            ))
        })?;
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

/// The cloud of `--cloud` (read afresh each call), or an empty one.
pub(crate) fn load_cloud(path: Option<&Path>) -> Result<Arc<dyn Host + Send + Sync>, Failure> {
    Ok(Arc::new(match path {
        Some(path) => OfflineCloud::from_node(&load_yaml(path)?),
        None => OfflineCloud::default(),
    }))
}

/// A wizard over a loaded definition, with the given cloud.
pub(crate) fn new_wizard(
    loaded: &LoadedUi,
    cloud: Arc<dyn Host + Send + Sync>,
) -> Result<Wizard, Failure> {
    Wizard::new(
        Arc::new(loaded.definition.clone()),
        loaded.info.clone(),
        None,
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

fn run_wizard(args: &UiArgs) -> Result<bool, Failure> {
    let failed = |e: &dyn std::fmt::Display| Failure::Failed(e.to_string());
    let (Some(package), Some(values_path)) = (&args.package, &args.values) else {
        return Err(Failure::Usage("a package and --values are required".into()));
    };
    let loaded = load_ui(package)?;
    let values = load_yaml(values_path)?;
    check_value_names(&values, &loaded.definition, values_path)?;
    let cloud = load_cloud(args.cloud.as_deref())?;
    let ui_file = loaded.ui_file.clone();
    let names = loaded.definition.form_names();
    let defaults: Vec<BTreeMap<String, String>> = loaded
        .definition
        .forms
        .iter()
        .map(|form| browser_defaults(form, &loaded.info.fqn))
        .collect();
    let mut wizard = new_wizard(&loaded, cloud)?;
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
        let bad_networks =
            network_errors(&loaded.definition.forms[index], &mut posted, values_path);
        let outcome = match submit_step(&mut wizard, index, &posted) {
            Ok(outcome) => with_field_errors(outcome, bad_networks),
            Err(e) if !invalid.is_empty() => {
                outln!(
                    "step {name:?} cannot be checked: it fails without the values of step {:?} ({e})",
                    invalid[0]
                );
                invalid.push(name);
                continue;
            }
            Err(e) => return Err(failed(&format!("{ui_file}: form {name:?}: {e}"))),
        };
        match outcome {
            StepOutcome::Valid(_) => {}
            StepOutcome::Invalid(errors) => {
                outln!("step {name:?} is not valid:");
                for (field, list) in errors {
                    for error in list {
                        match &error.code {
                            Some(code) => outln!("  {field}: {} ({code})", error.message),
                            None => outln!("  {field}: {}", error.message),
                        }
                    }
                }
                invalid.push(name);
            }
        }
    }
    if !invalid.is_empty() {
        return Ok(false);
    }
    let body = wizard
        .finish()
        .map_err(|e| failed(&format!("{ui_file}: Application: {e}")))?;
    outln!(
        "{}",
        serde_json::to_string_pretty(&body).unwrap_or_default()
    );
    Ok(true)
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

pub(crate) fn run(args: &UiArgs) -> ExitCode {
    if let Some(UiCommand::Serve(serve)) = &args.command {
        return crate::serve::wizard::run(serve);
    }
    match run_wizard(args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(Failure::Failed(e)) => {
            eprintln!("murano: {e}");
            ExitCode::from(1)
        }
        Err(Failure::Usage(e)) => {
            eprintln!("murano: {e}");
            ExitCode::from(2)
        }
    }
}
