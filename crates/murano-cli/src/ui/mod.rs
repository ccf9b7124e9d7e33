//! `murano ui`: fill in a package's Dynamic UI offline and print what the
//! dashboard would send, or the errors of each field. Two halves over
//! what [`wizard`] loads: the terminal (`murano ui PACKAGE --values`,
//! [`terminal`]) and the browser (`murano ui serve`, [`browser`]).

mod browser;
mod cloud;
mod terminal;
mod wizard;

pub(crate) use wizard::UiPackage;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

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
    Serve(browser::ServeArgs),
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

pub(crate) fn run(args: &UiArgs) -> ExitCode {
    if let Some(UiCommand::Serve(serve)) = &args.command {
        return browser::run(serve);
    }
    match terminal::run_wizard(args) {
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

/// `murano env add --package`: the object model the dashboard would add
/// to the environment `environment` from the forms of `package` (a
/// folder or zip, or a package of the catalog store) filled
/// with the values of `values` (as `murano ui --values` takes them),
/// against the cloud of `cloud`. Application fields list `apps` (the
/// environment's applications, named by `?.name` or `?.id` in the
/// values) whose packages are in `catalog`. An invalid step is an error
/// listing the errors of every step.
pub(crate) fn application_from_values(
    package: &UiPackage,
    values: &std::path::Path,
    cloud: Option<&std::path::Path>,
    environment: &str,
    apps: Vec<murano_ui::host::ExistingApp>,
    catalog: Vec<String>,
) -> Result<serde_json::Value, String> {
    let host =
        cloud::load_cloud_for(cloud, apps.clone(), catalog).map_err(|e| e.message().to_owned())?;
    let (lines, result) = terminal::fill_in(package, values, host, Some(environment), &apps);
    match result {
        Ok(Some(body)) => Ok(body),
        Ok(None) => Err(format!("the forms are not valid:\n{}", lines.join("\n"))),
        Err(e) => Err(e.message().to_owned()),
    }
}
