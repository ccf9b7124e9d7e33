//! `murano init`: scaffold a new package folder.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use murano_packages::scaffold::{class_name_from, scaffold, valid_full_name, ScaffoldOptions};
use murano_packages::source::PackageSource;

/// Create a new package folder.
///
/// Examples:
///
///   murano init my-app
///
///   murano init --type library --tests --name org.acme.Tools tools
///
/// The package passes `murano check` with no finding; an application
/// deploys with `murano deploy --dry-run` and gets a Dynamic UI definition
/// (UI/ui.yaml, also for a library with --ui); --tests adds a test class
/// that `murano test` runs.
#[derive(Args)]
#[command(verbatim_doc_comment)]
pub(crate) struct InitArgs {
    /// The folder to create (it may exist if empty).
    dir: PathBuf,
    /// What the package is.
    #[arg(long = "type", value_enum, default_value_t = Kind::Application)]
    kind: Kind,
    /// Write a Dynamic UI definition (always written for an application).
    #[arg(long)]
    ui: bool,
    /// Write a test class for `murano test`.
    #[arg(long)]
    tests: bool,
    /// The package's FullName (default: com.example.<Folder name in
    /// CamelCase>).
    #[arg(long, value_name = "FULLNAME")]
    name: Option<String>,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Kind {
    /// A deployable application (extends io.murano.Application).
    Application,
    /// A library of classes for other packages.
    Library,
}

pub(crate) fn run(args: &InitArgs) -> ExitCode {
    let full_name = match &args.name {
        Some(name) => name.clone(),
        None => {
            let folder = args
                .dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            format!("com.example.{}", class_name_from(&folder))
        }
    };
    if !valid_full_name(&full_name) {
        eprintln!(
            "murano: {full_name:?} is no package name: use dotted identifiers such as com.example.MyApp (--name)"
        );
        return ExitCode::from(2);
    }
    if args.dir.exists() {
        let empty = std::fs::read_dir(&args.dir).is_ok_and(|mut d| d.next().is_none());
        if !empty {
            eprintln!(
                "murano: {}: exists and is not an empty folder; nothing written",
                args.dir.display()
            );
            return ExitCode::from(2);
        }
    }
    let application = args.kind == Kind::Application;
    let files = match scaffold(&ScaffoldOptions {
        full_name: full_name.clone(),
        application,
        ui: args.ui,
        tests: args.tests,
    }) {
        Ok(files) => files,
        Err(e) => {
            eprintln!("murano: {e}");
            return ExitCode::from(2);
        }
    };
    for rel in files.paths() {
        let path = args.dir.join(rel);
        let written = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(&path, files.read(rel).unwrap_or_default()));
        if let Err(e) = written {
            eprintln!("murano: cannot write {}: {e}", path.display());
            return ExitCode::from(2);
        }
        outln!("created {}", path.display());
    }
    let dir = args.dir.display();
    outln!();
    outln!("next:");
    outln!("  murano check {dir}");
    if args.tests {
        outln!("  murano test {dir} --catalog path/to/io.murano");
    }
    if application {
        outln!(
            "  echo '{{\"?\": {{\"type\": \"{full_name}\", \"id\": \"app\"}}, \"name\": \"demo\"}}' > model.json"
        );
        outln!("  murano deploy --dry-run model.json --catalog {dir} --catalog path/to/io.murano");
    }
    outln!("  murano package {dir} -o {full_name}.zip");
    ExitCode::SUCCESS
}
