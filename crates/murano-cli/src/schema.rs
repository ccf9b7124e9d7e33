//! `murano schema`: the JSON schema Murano's API would answer for a class
//! and its model builders (`GET /schemas/{className}[/{methods}]`).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use murano_packages::PluginRegistry;
use murano_schema::{generate, CatalogBuilder, ErrorStatus, SchemaRequest};

use crate::core_library;
use crate::files::read_package_or_message;

/// Print the JSON schema of a class and of its model builders.
///
/// Examples:
///
///   murano schema path/to/package com.example.App --catalog path/to/core-library
///   murano schema app.zip com.example.App --method createModel --version '>=1.0'
///
/// The classes the class extends or names in its contracts and meta (such
/// as Murano's core library `io.murano`) must be in the package or in a
/// `--catalog` folder. The output maps "" (the class) and each model
/// builder to a draft-04 JSON schema. The exit status is 0 with a schema,
/// 1 when Murano would answer the request with an error (printed with its
/// HTTP class: not found or bad request), 2 on a usage or I/O error.
#[derive(Args)]
#[command(verbatim_doc_comment)]
pub(crate) struct SchemaArgs {
    /// A package directory or .zip archive.
    package: PathBuf,
    /// The full name of the class.
    class: String,
    /// A model builder to include (repeatable; default: every one).
    #[arg(long = "method", value_name = "NAME")]
    methods: Vec<String>,
    /// A version spec the class's package must match.
    #[arg(long, value_name = "SPEC")]
    version: Option<String>,
    /// Packages (folders searched recursively, or .zip files) the class may
    /// use, e.g. Murano's core library. After these come the paths of
    /// MURANO_CATALOG, then /usr/share/murano-common when the core library
    /// (io.murano) is still missing.
    #[arg(long, value_name = "DIR")]
    catalog: Vec<PathBuf>,
}

fn build_request(args: &SchemaArgs, package_name: &str) -> SchemaRequest {
    let mut request = SchemaRequest::new(args.class.clone()).package(package_name);
    if let Some(spec) = &args.version {
        request = request.version(spec.clone());
    }
    if !args.methods.is_empty() {
        request = request.methods(args.methods.iter().cloned());
    }
    request
}

fn add(
    builder: &mut CatalogBuilder,
    path: &std::path::Path,
    skipped_out: &mut Vec<String>,
) -> Result<String, String> {
    let loaded = read_package_or_message(path)?;
    let package = PluginRegistry::with_builtins()
        .load(loaded.files)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let skipped = builder
        .add_package(package.as_ref())
        .map_err(|e| format!("{}: {e}", path.display()))?;
    for (class, reason) in skipped {
        skipped_out.push(format!(
            "{}: class {class} left out: {reason}",
            path.display()
        ));
    }
    Ok(package.full_name().to_owned())
}

/// The catalog of `package` and the `catalog` paths (then MURANO_CATALOG
/// and the system's core library when io.murano is still missing), read
/// afresh, with the full name of `package`. Problems with catalog
/// packages are passed to `warn`; a package that does not load is an
/// error.
pub(crate) fn load_catalog(
    package: &std::path::Path,
    catalog: &[PathBuf],
    warn: &mut dyn FnMut(String),
) -> Result<(murano_schema::Catalog, String), String> {
    let mut builder = CatalogBuilder::new();
    let mut skipped = Vec::new();
    let name = add(&mut builder, package, &mut skipped)?;
    let mut names = vec![name.clone()];
    let read = |path: &std::path::Path| add(&mut builder, path, &mut skipped);
    let mut skip = |e: String| warn(format!("catalog: {e}"));
    let found = core_library::read_catalog(&mut names, catalog, read, String::as_str, &mut skip);
    if !found && core_library::system_catalog().is_none() {
        warn(format!("warning: {}", core_library::missing_hint()));
    }
    for message in skipped {
        warn(message);
    }
    Ok((builder.build(), name))
}

pub(crate) fn run(args: &SchemaArgs) -> ExitCode {
    // Exit status: 2 for paths that do not exist, 1 for a package that
    // does not load or a schema that cannot be made.
    for path in std::iter::once(&args.package).chain(&args.catalog) {
        if !path.exists() {
            eprintln!("murano: {}: no such file or folder", path.display());
            return ExitCode::from(2);
        }
    }
    let mut warn = |message: String| eprintln!("murano: {message}");
    let (catalog, name) = match load_catalog(&args.package, &args.catalog, &mut warn) {
        Ok(loaded) => loaded,
        Err(e) => {
            eprintln!("murano: {e}");
            return ExitCode::from(1);
        }
    };
    match generate(&catalog, &build_request(args, &name)) {
        Ok(schemas) => {
            outln!(
                "{}",
                serde_json::to_string_pretty(&schemas).unwrap_or_default()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            let status = match e.status() {
                ErrorStatus::NotFound => "not found",
                ErrorStatus::BadRequest => "bad request",
            };
            let mut hint = String::new();
            if e.status() == ErrorStatus::NotFound {
                // A misspelt class name: the closest of the package's.
                let classes = read_package_or_message(&args.package)
                    .ok()
                    .and_then(|p| PluginRegistry::with_builtins().load(p.files).ok())
                    .and_then(|p| p.classes().ok())
                    .unwrap_or_default();
                if !classes.contains(&args.class) {
                    if let Some(m) =
                        crate::suggest::close_match(&args.class, classes.iter().map(String::as_str))
                    {
                        hint = format!(" (did you mean {m:?}?)");
                    }
                }
            }
            eprintln!("murano: {status}: {e}{hint}");
            if let Some(note) = &e.note {
                eprintln!("murano: note: {note}");
            }
            ExitCode::from(1)
        }
    }
}
