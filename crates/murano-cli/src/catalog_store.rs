//! `murano catalog import|list|show|remove` over the store (`--db`): the
//! packages environments deploy from. `catalog list` with sources is
//! `catalog_cmd`'s; the subcommands are declared there.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;
use serde_json::json;

use murano_packages::source::PackageSource;

use crate::env_cmd::{open_store, Format};
use crate::files::{find_packages, read_package_or_message};

/// The options every store-backed catalog command takes.
#[derive(Args)]
pub(crate) struct StoreOptions {
    /// The store (default: `$XDG_DATA_HOME/murano/murano.db`, or
    /// `~/.local/share/murano/murano.db`; also `MURANO_DB`).
    #[arg(long)]
    pub(crate) db: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub(crate) format: Format,
}

impl StoreOptions {
    /// Runs `command` on the store these options name, printing as they
    /// say.
    pub(crate) fn run(&self, command: StoreCatalogCommand<'_>) -> ExitCode {
        run(command, self.db.as_deref(), self.format == Format::Json)
    }
}

/// What a store-backed catalog command does.
pub(crate) enum StoreCatalogCommand<'a> {
    /// Import packages (folders, zips, or folders holding packages).
    Import(&'a [PathBuf]),
    /// List the packages.
    List,
    /// Show one package (by `FullName`).
    Show(&'a str),
    /// Remove one package (by `FullName`).
    Remove(&'a str),
}

/// Runs `command` on the store at `db` (default place when `None`).
pub(crate) fn run(command: StoreCatalogCommand<'_>, db: Option<&Path>, json_out: bool) -> ExitCode {
    match go(command, db, json_out) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("murano: {e}");
            ExitCode::from(2)
        }
    }
}

fn go(
    command: StoreCatalogCommand<'_>,
    db: Option<&Path>,
    json_out: bool,
) -> Result<ExitCode, String> {
    let mut store = open_store(db)?;
    match command {
        StoreCatalogCommand::Import(paths) => {
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
        StoreCatalogCommand::Show(name) => {
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
        StoreCatalogCommand::Remove(name) => {
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
