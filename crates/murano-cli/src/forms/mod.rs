//! `murano forms serve`: the MuranoPL forms design in a browser, as the
//! dashboard's class form for one package ([`crate::dashboard_open`]),
//! or with `--preview` as the preview here. There a form is
//! generated from the JSON schema of a class (and one per model builder),
//! grouped by `formSection`, ordered by `formIndex`, with the UI hints of
//! meta (titles, descriptions, help texts, hidden fields); a submitted form
//! is validated against the schema and gives the object model (for a
//! model builder, the static action call that would run it).

mod app;
mod render;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use murano_ui::host::SystemEntropy;

use self::app::FormsApp;
use crate::schema::load_catalog;

/// The forms generated from MuranoPL classes (the MuranoPL forms design)
/// in a browser.
#[derive(Args)]
pub(crate) struct FormsArgs {
    #[command(subcommand)]
    command: FormsCommand,
}

#[derive(Subcommand)]
enum FormsCommand {
    Serve(FormsServeArgs),
}

/// Open the MuranoPL form of a class in the dashboard, in a browser.
///
/// Example:
///
///   murano forms serve path/to/package com.example.App --catalog path/to/core-library
///   Serving the form of path/to/package in the dashboard at http://127.0.0.1:38427/environments/…/form/…?class=com.example.App (Ctrl-C to stop)
///
/// A local server runs the dashboard of `murano serve` over an in-memory
/// store: the package imported (the --catalog packages become the
/// engine's system packages), an environment made for it, and the
/// address printed opens the form generated from the class's JSON schema
/// that adds it there: fields grouped by section (formSection) and
/// ordered by formIndex, with the titles, descriptions and help texts of
/// their meta; muranoObject properties offer the catalog's classes of
/// their type; model builders run on the engine and fill the form.
/// Adding shows the application's object model on the environment's
/// page, from where it deploys. Nothing is written to disk.
///
/// With --preview, the older single-class preview is served instead: it
/// reads the package again on every page load, takes objects as JSON,
/// and shows the object model (for a model builder, the static action
/// call that runs it) without adding anything.
///
/// Either server listens on 127.0.0.1 only and never writes a file. It
/// answers only requests naming it (Host 127.0.0.1:PORT or
/// localhost:PORT; others get 421) and takes posts from its own pages
/// only (another origin gets 403). It serves --max-connections
/// connections at once (when all are taken, the one idle the longest is
/// closed) and closes a connection idle for --idle-timeout seconds, a
/// request that takes more than --read-timeout seconds to arrive, and a
/// client that does not read its answer for --write-timeout seconds.
#[derive(Args)]
#[command(verbatim_doc_comment)]
struct FormsServeArgs {
    /// A package directory or .zip archive.
    package: PathBuf,
    /// The full name of the class.
    class: String,
    /// Packages (folders searched recursively, or .zip files) the class may
    /// use, e.g. Murano's core library (as for `murano schema`).
    #[arg(long, value_name = "DIR")]
    catalog: Vec<PathBuf>,
    /// The port to listen on (127.0.0.1 only); 0 picks a free one.
    #[arg(long, default_value_t = 0)]
    port: u16,
    #[command(flatten)]
    limits: crate::serve::ServeOptions,
    /// Serve the older single-class preview instead of the dashboard: it
    /// reads the package again on every page load (edits show on
    /// reload) and shows the object model, or a model builder's call,
    /// without adding anything to an environment.
    #[arg(long)]
    preview: bool,
    /// The default (kept for scripts written when it was an option).
    #[arg(long, hide = true, conflicts_with = "preview")]
    dashboard: bool,
}

pub(crate) fn run(args: &FormsArgs) -> ExitCode {
    let FormsCommand::Serve(args) = &args.command;
    for path in std::iter::once(&args.package).chain(&args.catalog) {
        if !path.exists() {
            eprintln!("murano: {}: no such file or folder", path.display());
            return ExitCode::from(2);
        }
    }
    if !args.preview {
        return crate::dashboard_open::run(crate::dashboard_open::Shortcut {
            command: "murano forms serve",
            package: &args.package,
            catalog: &args.catalog,
            port: args.port,
            limits: &args.limits,
            opens: crate::dashboard_open::Opens::Form,
            class: Some(&args.class),
            cloud: None,
        });
    }
    let mut app = FormsApp {
        package: args.package.clone(),
        class: args.class.clone(),
        catalog: args.catalog.clone(),
        typed: BTreeMap::new(),
        entropy: SystemEntropy::default(),
    };
    // Say once what the catalog lacks; page loads stay quiet.
    let mut warn = |message: String| eprintln!("murano: {message}");
    if let Err(e) = load_catalog(&args.package, &args.catalog, &mut warn) {
        eprintln!("murano: {e}");
    }
    crate::serve::serve(
        args.port,
        &args.limits,
        &format!("the forms of {}", args.class),
        &mut app,
    )
}
