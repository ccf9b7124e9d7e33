//! `murano docs`: documentation pages generated from packages.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use murano_packages::docs::{document, render_html, render_markdown};
use murano_packages::PluginRegistry;

use crate::package_cmd::{write_atomic, PackLimits};
use crate::pkg_source;

/// Generate documentation for packages: a page per class.
///
/// Examples:
///
///   murano docs examples/packages/shop -o docs/
///
///   murano docs app/ lib.zip --format html -o site/
///
/// Each class page has its description (meta Title and Description),
/// parents, properties (contract as text, usage, default, meta), methods
/// and actions (arguments with contracts, scope, usage), static actions
/// and model builders, and the UI forms that create it; index.md (or
/// index.html) lists the packages. Classes of every package given link to
/// each other. Without -o, the pages are printed one after another.
#[derive(Args)]
#[command(verbatim_doc_comment)]
pub(crate) struct DocsArgs {
    /// Package folders, zips, or folders holding packages.
    #[arg(required = true, value_name = "PACKAGE")]
    packages: Vec<PathBuf>,
    /// The folder to write the pages to.
    #[arg(short, long, value_name = "DIR")]
    output: Option<PathBuf>,
    /// Page format.
    #[arg(long, value_enum, default_value_t = Format::Markdown)]
    format: Format,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Markdown,
    Html,
}

pub(crate) fn run(args: &DocsArgs) -> ExitCode {
    if let Some(path) = args.packages.iter().find(|p| !p.exists()) {
        eprintln!("murano: {}: no such file or folder", path.display());
        return ExitCode::from(2);
    }
    let mut loaded = Vec::new();
    for source in &args.packages {
        let paths = match pkg_source::expand(source) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("murano: {e}");
                return ExitCode::from(1);
            }
        };
        for path in paths {
            let package = pkg_source::load(&path, &PackLimits::default(), true).and_then(|p| {
                PluginRegistry::with_builtins()
                    .load(p.files)
                    .map_err(|e| format!("{}: {e}", path.display()))
            });
            match package {
                Ok(p) => loaded.push(p),
                Err(e) => {
                    eprintln!("murano: {e}");
                    return ExitCode::from(1);
                }
            }
        }
    }
    let refs: Vec<&dyn murano_packages::Package> = loaded
        .iter()
        .map(|p| p.as_ref() as &dyn murano_packages::Package)
        .collect();
    let pages = document(&refs);
    let (render, extension): (fn(&_) -> String, &str) = match args.format {
        Format::Markdown => (render_markdown, "md"),
        Format::Html => (render_html, "html"),
    };
    let Some(dir) = &args.output else {
        for (i, page) in pages.iter().enumerate() {
            if i > 0 {
                outln!();
            }
            outln!("{}", render(page).trim_end());
        }
        return ExitCode::SUCCESS;
    };
    if let Err(e) = std::fs::create_dir_all(dir) {
        eprintln!("murano: cannot create {}: {e}", dir.display());
        return ExitCode::from(2);
    }
    for page in &pages {
        // Class names are dotted identifiers: safe file names.
        let path = dir.join(format!("{}.{extension}", page.name));
        if let Err(e) = write_atomic(&path, render(page).as_bytes()) {
            eprintln!("murano: {e}");
            return ExitCode::from(2);
        }
    }
    outln!("{}: {} pages", dir.display(), pages.len());
    ExitCode::SUCCESS
}
