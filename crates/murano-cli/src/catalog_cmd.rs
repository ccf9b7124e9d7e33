//! `murano catalog`: `list` of the packages and classes of folders, zips
//! and repositories, as a table, JSON, or the dependency graph in DOT;
//! `import`, `show`, `remove` and `list` without sources work on the
//! store's catalog (`catalog_store`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand, ValueEnum};
use murano_packages::repository::{check_closures, PackageSummary};

use crate::catalog_store::{self, StoreCatalogCommand, StoreOptions};
use crate::files;
use crate::package_cmd::PackLimits;
use crate::pkg_source;

/// List package catalogs; manage the store's catalog environments deploy
/// from.
///
/// Examples:
///
///   murano catalog list examples/packages
///
///   murano catalog import ./packages/io.murano.zip ./MySQL
#[derive(Args)]
#[command(verbatim_doc_comment)]
pub(crate) struct CatalogArgs {
    #[command(subcommand)]
    command: CatalogCommand,
}

#[derive(Subcommand)]
enum CatalogCommand {
    List(CatalogListArgs),
    /// Import packages (folders, zips, or folders holding packages) into
    /// the store's catalog.
    Import {
        /// The packages.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        #[command(flatten)]
        store: StoreOptions,
    },
    /// Show one package of the store's catalog.
    Show {
        /// Its name (`FullName`).
        name: String,
        #[command(flatten)]
        store: StoreOptions,
    },
    /// Remove one package from the store's catalog.
    Remove {
        /// Its name (`FullName`).
        name: String,
        #[command(flatten)]
        store: StoreOptions,
    },
}

/// List the packages and classes of package folders, zips and
/// repositories.
///
/// Examples:
///
///   murano catalog list examples/packages
///
///   murano catalog list repo/ --format json
///
///   murano catalog list examples/packages --graph | dot -Tsvg > deps.svg
///
/// SOURCES are package folders, zips, folders holding packages, and
/// repositories `murano repo build` wrote (a package published under
/// several names is listed once). Requirements the sources do not serve
/// are marked (`!` in the table, `"served": false` in JSON, dashed in the
/// graph). Without SOURCES, the packages of the store's catalog
/// (`--db`).
#[derive(Args)]
#[command(verbatim_doc_comment)]
pub(crate) struct CatalogListArgs {
    /// Package folders, zips, folders of packages, repositories.
    #[arg(value_name = "SOURCE")]
    sources: Vec<PathBuf>,
    /// The store listed when no SOURCE is given (default:
    /// `$XDG_DATA_HOME/murano/murano.db`; also `MURANO_DB`).
    #[arg(long, conflicts_with = "sources")]
    db: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
    /// Print the dependency graph (Graphviz DOT) instead.
    #[arg(long, requires = "sources")]
    graph: bool,
    /// Largest file in a package, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = files::DEFAULT_MAX_FILE_SIZE)]
    max_file_size: u64,
    /// Largest package, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = files::DEFAULT_MAX_PACKAGE_SIZE)]
    max_package_size: u64,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Table,
    Json,
}

pub(crate) fn run(args: &CatalogArgs) -> ExitCode {
    match &args.command {
        CatalogCommand::List(list) if list.sources.is_empty() => catalog_store::run(
            StoreCatalogCommand::List,
            list.db.as_deref(),
            list.format == Format::Json,
        ),
        CatalogCommand::List(list) => run_list(list),
        CatalogCommand::Import { paths, store } => store.run(StoreCatalogCommand::Import(paths)),
        CatalogCommand::Show { name, store } => store.run(StoreCatalogCommand::Show(name)),
        CatalogCommand::Remove { name, store } => store.run(StoreCatalogCommand::Remove(name)),
    }
}

/// Reads every source's packages, each (name, version) once, sorted.
fn read_all(args: &CatalogListArgs) -> Result<Vec<PackageSummary>, String> {
    let limits = PackLimits {
        max_file_size: args.max_file_size,
        max_package_size: args.max_package_size,
    };
    let mut by_key: BTreeMap<(String, String), PackageSummary> = BTreeMap::new();
    for source in &args.sources {
        for path in pkg_source::expand(source)? {
            let loaded = pkg_source::load(&path, &limits, true)?;
            let s = loaded.summary;
            by_key
                .entry((s.name.clone(), s.version.to_string()))
                .or_insert(s);
        }
    }
    let mut list: Vec<PackageSummary> = by_key.into_values().collect();
    list.sort_by(|a, b| (&a.name, &a.version).cmp(&(&b.name, &b.version)));
    Ok(list)
}

/// Whether some listed package of that name satisfies the spec.
fn served(packages: &[PackageSummary], name: &str, written: &str) -> bool {
    let scalar = if written.is_empty() {
        murano_dsl::version::YamlScalar::Null
    } else {
        written.into()
    };
    let Ok(spec) = murano_dsl::version::parse_version_spec(&scalar) else {
        return false;
    };
    packages
        .iter()
        .any(|p| p.name == name && spec.matches(&p.version))
}

fn run_list(args: &CatalogListArgs) -> ExitCode {
    if let Some(path) = args.sources.iter().find(|p| !p.exists()) {
        eprintln!("murano: {}: no such file or folder", path.display());
        return ExitCode::from(2);
    }
    let packages = match read_all(args) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("murano: {e}");
            return ExitCode::from(1);
        }
    };
    if args.graph {
        outln!("{}", render_dot(&packages));
        return ExitCode::SUCCESS;
    }
    match args.format {
        Format::Json => outln!("{}", render_json(&packages)),
        Format::Table => outln!("{}", render_table(&packages)),
    }
    for problem in check_closures(&packages) {
        eprintln!("murano: warning: {problem}");
    }
    ExitCode::SUCCESS
}

fn render_json(packages: &[PackageSummary]) -> String {
    let list: Vec<serde_json::Value> = packages
        .iter()
        .map(|s| {
            serde_json::json!({
                "name": s.name,
                "version": s.version.to_string(),
                "type": s.package_type,
                "format": s.format,
                "display_name": s.display_name,
                "description": s.description,
                "author": s.author,
                "tags": s.tags,
                "categories": s.categories,
                "classes": s.classes,
                "requires": s.requires.iter().map(|(n, v)| serde_json::json!({
                    "name": n, "version": v, "served": served(packages, n, v),
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let classes: Vec<serde_json::Value> = class_rows(packages)
        .into_iter()
        .map(|(class, package, version)| {
            serde_json::json!({"class": class, "package": package, "version": version})
        })
        .collect();
    serde_json::to_string_pretty(&serde_json::json!({"packages": list, "classes": classes}))
        .unwrap_or_default()
}

/// (class, package, version), sorted by class.
fn class_rows(packages: &[PackageSummary]) -> Vec<(String, String, String)> {
    let mut rows: Vec<_> = packages
        .iter()
        .flat_map(|p| {
            p.classes
                .iter()
                .map(|c| (c.clone(), p.name.clone(), p.version.to_string()))
        })
        .collect();
    rows.sort();
    rows
}

/// Rows as aligned columns (the last column unpadded).
fn columns(rows: &[Vec<String>]) -> String {
    let width = rows.first().map_or(0, Vec::len);
    let widths: Vec<usize> = (0..width)
        .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
        .collect();
    rows.iter()
        .map(|r| {
            let mut line = String::new();
            for (i, cell) in r.iter().enumerate() {
                if i + 1 == r.len() {
                    line.push_str(cell);
                } else {
                    line.push_str(&format!("{cell:<w$}  ", w = widths[i]));
                }
            }
            line.trim_end().to_owned()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn render_table(packages: &[PackageSummary]) -> String {
    let mut rows = vec![[
        "PACKAGE", "VERSION", "TYPE", "FORMAT", "CLASSES", "REQUIRES",
    ]
    .map(String::from)
    .to_vec()];
    for p in packages {
        let requires: Vec<String> = p
            .requires
            .iter()
            .map(|(n, v)| {
                let mark = if served(packages, n, v) { "" } else { "!" };
                if v.is_empty() {
                    format!("{mark}{n}")
                } else {
                    format!("{mark}{n} {v}")
                }
            })
            .collect();
        rows.push(vec![
            p.name.clone(),
            p.version.to_string(),
            p.package_type.clone(),
            p.format.clone(),
            p.classes.len().to_string(),
            if requires.is_empty() {
                "-".to_owned()
            } else {
                requires.join(", ")
            },
        ]);
    }
    let mut class_table = vec![["CLASS", "PACKAGE", "VERSION"].map(String::from).to_vec()];
    for (class, package, version) in class_rows(packages) {
        class_table.push(vec![class, package, version]);
    }
    format!("{}\n\n{}", columns(&rows), columns(&class_table))
}

/// A DOT string literal.
fn dot_quote(text: &str) -> String {
    let escaped = text
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n");
    format!("\"{escaped}\"")
}

fn render_dot(packages: &[PackageSummary]) -> String {
    let mut out = String::from("digraph packages {\n  rankdir=LR;\n  node [shape=box];\n");
    let names: BTreeSet<&str> = packages.iter().map(|p| p.name.as_str()).collect();
    let mut missing = BTreeSet::new();
    for p in packages {
        out.push_str(&format!(
            "  {} [label={}];\n",
            dot_quote(&p.name),
            dot_quote(&format!("{}\n{} {}", p.name, p.version, p.package_type))
        ));
    }
    let mut edges = BTreeSet::new();
    for p in packages {
        for (name, spec) in &p.requires {
            let ok = served(packages, name, spec);
            if !names.contains(name.as_str()) {
                missing.insert(name.clone());
            }
            edges.insert((p.name.clone(), name.clone(), spec.clone(), ok));
        }
    }
    for name in &missing {
        out.push_str(&format!(
            "  {} [style=dashed, color=red];\n",
            dot_quote(name)
        ));
    }
    for (from, to, spec, ok) in edges {
        let style = if ok { "" } else { ", style=dashed, color=red" };
        out.push_str(&format!(
            "  {} -> {} [label={}{style}];\n",
            dot_quote(&from),
            dot_quote(&to),
            dot_quote(&spec)
        ));
    }
    out.push('}');
    out
}
