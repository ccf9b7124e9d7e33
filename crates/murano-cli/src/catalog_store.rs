//! `murano catalog import|list|show|remove`: the packages of the store's
//! catalog (`--db`), which environments deploy from.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args, Subcommand};
use serde_json::json;

use murano_packages::source::PackageSource;

use crate::env_cmd::{open_store, Format};
use crate::files::{find_packages, read_package_or_message};

/// Manage the packages of the store's catalog.
///
/// Example: murano catalog import ./packages/io.murano.zip ./MySQL
#[derive(Args)]
pub(crate) struct StoreCatalogArgs {
    #[command(subcommand)]
    command: StoreCatalogCommand,
    /// The store (default: `$XDG_DATA_HOME/murano/murano.db`, or
    /// `~/.local/share/murano/murano.db`; also `MURANO_DB`).
    #[arg(long, global = true)]
    db: Option<PathBuf>,
    /// Output format.
    #[arg(long, global = true, value_enum, default_value_t = Format::Text)]
    format: Format,
}

#[derive(Subcommand)]
enum StoreCatalogCommand {
    /// Import packages (folders, zips, or folders holding packages).
    Import {
        /// The packages.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// List the packages.
    List,
    /// Show one package.
    Show {
        /// Its name (`FullName`).
        name: String,
    },
    /// Remove one package.
    Remove {
        /// Its name (`FullName`).
        name: String,
    },
}

pub(crate) fn run(args: &StoreCatalogArgs) -> ExitCode {
    match go(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("murano: {e}");
            ExitCode::from(2)
        }
    }
}

fn go(args: &StoreCatalogArgs) -> Result<ExitCode, String> {
    let mut store = open_store(args.db.as_deref())?;
    let json_out = args.format == Format::Json;
    match &args.command {
        StoreCatalogCommand::Import { paths } => {
            let mut imported = Vec::new();
            for path in paths {
                let found = if path.is_dir() && !path.join("manifest.yaml").is_file() {
                    find_packages(path)
                } else {
                    vec![path.clone()]
                };
                if found.is_empty() {
                    return Err(format!("{}: no package there", path.display()));
                }
                for p in found {
                    let loaded = read_package_or_message(&p)?;
                    let mut files = BTreeMap::new();
                    for f in loaded.files.paths() {
                        if let Some(bytes) = loaded.files.read(f) {
                            files.insert(f.to_owned(), Arc::new(bytes.to_vec()));
                        }
                    }
                    let pkg = store
                        .import_package(&p.display().to_string(), &files)
                        .map_err(|e| format!("{}: {e}", p.display()))?;
                    if !json_out {
                        outln!(
                            "imported {} {} ({} classes)",
                            pkg.name,
                            pkg.version,
                            pkg.classes.len()
                        );
                    }
                    imported.push(json!({"name": pkg.name, "version": pkg.version}));
                }
            }
            if json_out {
                outln!("{}", json!({"imported": imported}));
            }
        }
        StoreCatalogCommand::List => {
            let list = store.packages().map_err(|e| e.to_string())?;
            if json_out {
                let items: Vec<_> = list
                    .iter()
                    .map(|p| json!({"name": p.name, "version": p.version, "classes": p.classes}))
                    .collect();
                outln!("{}", json!(items));
            } else {
                for p in list {
                    outln!("{} {} ({} classes)", p.name, p.version, p.classes.len());
                }
            }
        }
        StoreCatalogCommand::Show { name } => {
            let p = store.package(name).map_err(|e| e.to_string())?;
            if json_out {
                outln!(
                    "{}",
                    json!({"name": p.name, "version": p.version, "source": p.source,
                           "classes": p.classes, "files": p.files})
                );
            } else {
                outln!("{} {}", p.name, p.version);
                outln!("imported from {}", p.source);
                outln!("{} files; classes:", p.files);
                for c in p.classes {
                    outln!("  {c}");
                }
            }
        }
        StoreCatalogCommand::Remove { name } => {
            store.remove_package(name).map_err(|e| e.to_string())?;
            if json_out {
                outln!("{}", json!({"removed": name}));
            } else {
                outln!("removed {name}");
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
