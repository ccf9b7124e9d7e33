//! Static checks of a whole Murano package: manifest, class files, UI
//! definitions and the file list.
//!
//! [`check_package`] reports [`Diagnostic`]s (the workspace's one
//! diagnostic type, from `murano-diagnostics`) with a stable code of the
//! table [`CODES`]. The codes
//! `E000`–`E204` and `W010`–`W202` are murano-pkg-check's, assigned exactly
//! as murano-pkg-check assigns them (see `docs/diagnostics.md` in the workspace); the `M` codes are checks beyond it: the issues
//! of the class model ([`ClassDefinition::issues`], `M1xx`–`M3xx`, kept
//! with their codes) and the checks of this module (`M4xx`), some of which
//! need a [`ClassIndex`] of the classes other packages define.
//!
//! ```
//! use murano_packages::check::{check_package, CheckOptions, Severity};
//! use murano_packages::source::FileMap;
//!
//! let mut files = FileMap::new();
//! files.insert("manifest.yaml", b"Format: MuranoPL/1.0\nFullName: com.example.Demo\n\
//! Type: Library\nDescription: demo\nClasses:\n  com.example.Demo: Demo.yaml\n".to_vec())?;
//! files.insert("LICENSE", b"Apache-2.0".to_vec())?;
//! files.insert("Classes/Demo.yaml", b"Name: com.example.Demo\nProperties:\n  port:\n    Default: 80\n".to_vec())?;
//! let report = check_package(&files, &CheckOptions::default());
//! let e047 = report.iter().find(|d| d.code == "E047").unwrap();
//! assert_eq!(e047.severity, Severity::Error);
//! assert_eq!(e047.file.as_deref(), Some("Classes/Demo.yaml"));
//! let at = e047.start.unwrap();
//! assert_eq!((at.line, at.column), (3, 3)); // 1-based
//! # Ok::<(), murano_packages::PackageError>(())
//! ```

mod accesses;
mod class_checks;
mod hot;
mod hot_package;
mod pkgcheck;
mod py;
#[cfg(test)]
mod tests;
mod ui_types;

use std::collections::{BTreeMap, BTreeSet};

use murano_dsl::diagnostic::position;
use murano_dsl::model::{Cardinality, ClassDefinition, ClassUsage, MetaTarget};
use murano_yaml::{load_class_file, load_manifest, LoadOptions, Mark};

pub use murano_diagnostics::{code_info, CodeInfo, Diagnostic, Layer, Position, Severity, CODES};

use crate::catalog::Catalog;
use crate::source::{FileMap, PackageSource};

/// A diagnostic of the checks: the code's severity, `file` relative to
/// the package root, the start only (as murano-pkg-check reports a line).
pub(crate) fn diagnostic(
    code: &'static str,
    message: impl Into<String>,
    file: Option<&str>,
    mark: Option<Mark>,
) -> Diagnostic {
    let mut d = Diagnostic::new(code, message);
    d.file = file.map(str::to_owned);
    d.start = mark.map(position);
    d
}

/// What classes exist outside the checked package: class name → the
/// packages that define it, and the cardinality of known meta classes.
/// Used for `M403`/`M404` (unknown or not required classes) and `M405`
/// (meta attached twice).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClassIndex {
    classes: BTreeMap<String, BTreeSet<String>>,
    /// What classes declare (for `M421`, `M422`), where known.
    shapes: BTreeMap<String, ClassShape>,
    /// Every package added, with classes or not (for `M420`).
    packages: BTreeSet<String>,
    meta: BTreeMap<String, Cardinality>,
    applies: BTreeMap<String, Vec<MetaTarget>>,
}

impl ClassIndex {
    /// An empty index.
    pub fn new() -> ClassIndex {
        ClassIndex::default()
    }

    /// Records that `package` defines `class`.
    pub fn insert_class(&mut self, class: &str, package: &str) {
        self.insert_package(package);
        self.classes
            .entry(class.to_owned())
            .or_default()
            .insert(package.to_owned());
    }

    /// Records that the catalog holds `package` (it may define no class).
    pub fn insert_package(&mut self, package: &str) {
        if !self.packages.contains(package) {
            self.packages.insert(package.to_owned());
        }
    }

    /// Whether the catalog holds `package`.
    pub fn has_package(&self, package: &str) -> bool {
        self.packages.contains(package)
    }

    /// Records that `class` is a meta class with `cardinality`.
    pub fn insert_meta_class(&mut self, class: &str, cardinality: Cardinality) {
        self.meta.insert(class.to_owned(), cardinality);
    }

    /// Records where meta class `class` may be attached (its `Applies`),
    /// for `M410`.
    pub fn insert_meta_applies(&mut self, class: &str, applies: &[MetaTarget]) {
        self.applies.insert(class.to_owned(), applies.to_vec());
    }

    /// Where a known meta class may be attached.
    pub fn meta_applies(&self, class: &str) -> Option<&[MetaTarget]> {
        self.applies.get(class).map(Vec::as_slice)
    }

    /// Every class of every package of a [`Catalog`] (no meta classes: a
    /// catalog entry does not say which classes are meta classes).
    pub fn from_catalog(catalog: &Catalog) -> ClassIndex {
        let mut index = ClassIndex::new();
        for (_, entry) in catalog.entries() {
            index.insert_package(&entry.name);
            for class in &entry.classes {
                index.insert_class(class, &entry.name);
            }
        }
        index
    }

    /// Adds a package's classes (the `Classes` of its manifest and every
    /// class its class files declare, or a Heat.HOT package's generated
    /// class) and its meta classes. Files that do
    /// not load are skipped; returns the package's `FullName`, if any.
    pub fn add_package(&mut self, files: &FileMap) -> Option<String> {
        let manifest = files.read("manifest.yaml")?;
        let text = String::from_utf8_lossy(manifest);
        let manifest = load_manifest(&text, &LoadOptions::default()).ok()??;
        let name = manifest.value.get("FullName")?.value.as_str()?.to_owned();
        // A Heat.HOT package's class is generated and named as the package.
        if hot_package::is_hot(Some(&manifest)) {
            self.insert_class(&name, &name);
        }
        self.insert_package(&name);
        if let Some(classes) = manifest.value.get("Classes").and_then(|c| c.value.as_map()) {
            for (class, _) in classes {
                if let Some(class) = class.value.as_str() {
                    self.insert_class(class, &name);
                }
            }
        }
        for path in files.files_under("Classes") {
            let Some(bytes) = files.read(&path) else {
                continue;
            };
            let Ok(file) = load_class_file(bytes, &LoadOptions::default()) else {
                continue;
            };
            for class in ClassDefinition::from_documents(&file.documents, Some(&path)) {
                let Some(full) = &class.full_name else {
                    continue;
                };
                self.insert_class(full, &name);
                self.insert_shape(full, ClassShape::of(&class));
                if class.usage == ClassUsage::Meta {
                    if let Some(info) = &class.meta_class {
                        self.insert_meta_class(full, info.cardinality);
                        self.insert_meta_applies(full, &info.applies);
                    }
                }
            }
        }
        Some(name)
    }

    /// Adds everything `other` holds (an index built per package and
    /// merged, so that a change to one package re-reads only that one).
    pub fn merge(&mut self, other: &ClassIndex) {
        for (class, packages) in &other.classes {
            self.classes
                .entry(class.clone())
                .or_default()
                .extend(packages.iter().cloned());
        }
        for (class, shape) in &other.shapes {
            self.shapes.insert(class.clone(), shape.clone());
        }
        self.packages.extend(other.packages.iter().cloned());
        for (class, cardinality) in &other.meta {
            self.meta.insert(class.clone(), *cardinality);
        }
        for (class, applies) in &other.applies {
            self.applies.insert(class.clone(), applies.clone());
        }
    }

    /// Records what `class` declares.
    pub fn insert_shape(&mut self, class: &str, shape: ClassShape) {
        self.shapes.insert(class.to_owned(), shape);
    }

    /// What `class` declares, when a package added with
    /// [`ClassIndex::add_package`] (or [`ClassIndex::insert_shape`]) says.
    pub fn shape(&self, class: &str) -> Option<&ClassShape> {
        self.shapes.get(class)
    }

    /// The packages that define `class`.
    pub fn packages_of(&self, class: &str) -> Option<&BTreeSet<String>> {
        self.classes.get(class)
    }

    /// The cardinality of a known meta class.
    pub fn meta_cardinality(&self, class: &str) -> Option<Cardinality> {
        self.meta.get(class).copied()
    }

    /// Whether no class is known.
    pub fn is_empty(&self) -> bool {
        self.classes.is_empty() && self.meta.is_empty() && self.packages.is_empty()
    }
}

/// What a class declares, as far as checks that follow the class
/// hierarchy need it (`M421`, `M422`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClassShape {
    /// The classes it extends (full names; `io.murano.Object` when it
    /// names none), or `None` when one of them does not resolve.
    pub parents: Option<Vec<String>>,
    /// Its properties, each with whether it has a Default other than
    /// null and the empty string (one the empty string would change).
    pub properties: BTreeMap<String, bool>,
}

impl ClassShape {
    /// The shape of a class read from a class file.
    pub fn of(class: &ClassDefinition) -> ClassShape {
        let parents = if class.extends.is_empty() {
            // Murano's implicit root; the root itself has no parent.
            if class.full_name.as_deref() == Some(OBJECT) {
                Some(Vec::new())
            } else {
                Some(vec![OBJECT.to_owned()])
            }
        } else {
            class
                .extends
                .iter()
                .map(|t| t.resolved.clone().ok())
                .collect()
        };
        let properties = class
            .properties
            .iter()
            .map(|p| {
                let has_default = p.default.as_ref().is_some_and(|d| match &d.value {
                    murano_yaml::Value::Null => false,
                    murano_yaml::Value::Str(s) => !s.is_empty(),
                    _ => true,
                });
                (p.name.clone(), has_default)
            })
            .collect();
        ClassShape {
            parents,
            properties,
        }
    }
}

/// The root of every class hierarchy. Murano's core library declares it
/// with no property (`meta/io.murano/Classes/Object.yaml`), so it is known
/// without a catalog.
pub(crate) const OBJECT: &str = "io.murano.Object";

/// Options of [`check_package`].
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct CheckOptions {
    /// Classes of other packages. Without it, `M403` and `M404` are not
    /// checked and `M405` knows only the package's own meta classes.
    pub catalog: Option<ClassIndex>,
    /// Report only murano-pkg-check's codes (no `M` codes).
    pub pkgcheck_only: bool,
    /// Limits for loading YAML.
    pub load: LoadOptions,
}

impl CheckOptions {
    /// Sets [`CheckOptions::catalog`].
    pub fn with_catalog(mut self, catalog: ClassIndex) -> Self {
        self.catalog = Some(catalog);
        self
    }

    /// Sets [`CheckOptions::pkgcheck_only`].
    pub fn with_pkgcheck_only(mut self, only: bool) -> Self {
        self.pkgcheck_only = only;
        self
    }
}

/// Checks a package held in memory. Paths are relative to the package
/// root. The result is sorted by file, line, column and code. Never fails:
/// whatever cannot be read becomes a diagnostic.
pub fn check_package(files: &FileMap, options: &CheckOptions) -> Vec<Diagnostic> {
    let manifest = files
        .read("manifest.yaml")
        .and_then(|b| load_manifest(&String::from_utf8_lossy(b), &options.load).ok())
        .flatten();
    let mut out = if !options.pkgcheck_only && hot_package::is_hot(manifest.as_ref()) {
        // murano-pkg-check knows no HOT: Murano's view (H110-H113) and
        // Heat's (H100-H104) instead.
        let mut out = hot_package::run(files, options);
        out.extend(hot::run(files));
        // The checks of the package as a whole apply to every format.
        out.extend(
            pkgcheck::run(files, &options.load)
                .into_iter()
                .filter(|d| PACKAGE_LEVEL.contains(&d.code)),
        );
        out
    } else {
        let mut out = pkgcheck::run(files, &options.load);
        if !options.pkgcheck_only {
            out.extend(class_checks::run(files, options));
            out.extend(hot::run(files));
            out.extend(ui_types::run(files, options));
            mark_parity_only(files, options, &mut out);
        }
        out
    };
    if !options.pkgcheck_only {
        out.extend(class_checks::duplicate_keys(files, options));
    }
    out.sort_by(|a, b| {
        (&a.file, a.start, a.code, &a.message).cmp(&(&b.file, b.start, b.code, &b.message))
    });
    out
}

/// murano-pkg-check's checks of the package as a whole (the logo, the
/// LICENSE), which hold for a Heat.HOT package too; its other checks are
/// about MuranoPL files.
const PACKAGE_LEVEL: [&str; 2] = ["W074", "W121"];

/// How the message of a murano-pkg-check error on something Murano's
/// engine accepts ends ([`is_parity_only`]).
pub const PARITY_NOTE: &str = "(reported for murano-pkg-check parity: Murano accepts this)";

/// Whether a diagnostic is one of murano-pkg-check's errors on something
/// Murano's engine loads and runs (a `Do:` block murano-pkg-check does not
/// know, a `!yaql` tag its YAML loader refuses): kept with its code and
/// severity for parity, its message ending with [`PARITY_NOTE`]. `murano
/// check` fails on such a finding only when asked to (`--deny parity`).
///
/// ```
/// use murano_packages::check::{check_package, is_parity_only, CheckOptions};
/// use murano_packages::source::FileMap;
///
/// let mut files = FileMap::new();
/// files.insert("manifest.yaml", b"Format: MuranoPL/1.4\nFullName: a.b\nType: Library\n\
/// Description: d\nClasses: {a.b.C: C.yaml}\n".to_vec())?;
/// files.insert("LICENSE", b"Apache-2.0".to_vec())?;
/// files.insert("Classes/C.yaml", b"Name: a.b.C\nMethods:\n  run:\n    Body:\n      \
/// - Return: !yaql '1 + 1'\n".to_vec())?;
/// let report = check_package(&files, &CheckOptions::default());
/// let e002 = report.iter().find(|d| d.code == "E002").unwrap();
/// assert!(is_parity_only(e002));
/// # Ok::<(), murano_packages::PackageError>(())
/// ```
pub fn is_parity_only(d: &Diagnostic) -> bool {
    code_info(d.code).is_some_and(|i| i.layer == Layer::PkgCheck)
        && d.message.ends_with(PARITY_NOTE)
}

/// Marks murano-pkg-check's errors on what the engine accepts: a file its
/// YAML loader refuses (`E002`) that the engine's loader for that kind of
/// file reads, and a body item of a class file it refuses (`E201`,
/// `E204`) where the engine's model of the class, loaded without error,
/// has no issue whose node holds the position.
fn mark_parity_only(files: &FileMap, options: &CheckOptions, out: &mut [Diagnostic]) {
    let at = |p: Position| (p.line, p.column);
    // The spans of the model's issues, per class file asked about.
    let mut spans: BTreeMap<String, Option<Vec<(Position, Position)>>> = BTreeMap::new();
    for d in out.iter_mut() {
        let (Some(file), Some(start)) = (d.file.as_deref(), d.start) else {
            continue;
        };
        let parity = match d.code {
            "E002" => engine_loads(files, file, &options.load),
            "E201" | "E204" if file.starts_with("Classes/") => {
                let issues = spans
                    .entry(file.to_owned())
                    .or_insert_with(|| model_issue_spans(files, file, &options.load));
                issues.as_ref().is_some_and(|issues| {
                    !issues
                        .iter()
                        .any(|(from, to)| at(*from) <= at(start) && at(start) < at(*to))
                })
            }
            _ => false,
        };
        if parity {
            d.message = format!("{} {PARITY_NOTE}", d.message);
        }
    }
}

/// The spans of the issues the engine's model finds in a class file, or
/// `None` when the engine's loader refuses the file.
fn model_issue_spans(
    files: &FileMap,
    file: &str,
    load: &LoadOptions,
) -> Option<Vec<(Position, Position)>> {
    let loaded = load_class_file(files.read(file)?, load).ok()?;
    let mut spans = Vec::new();
    for class in ClassDefinition::from_documents(&loaded.documents, Some(file)) {
        for issue in class.issues() {
            if let Some(start) = issue.start {
                // An issue without an end holds its whole line.
                let end = issue.end.unwrap_or(Position {
                    line: start.line + 1,
                    column: 0,
                    offset: 0,
                });
                spans.push((start, end));
            }
        }
    }
    Some(spans)
}

/// Whether Murano's loader for the kind of `file` (class, UI definition,
/// manifest) reads it.
fn engine_loads(files: &FileMap, file: &str, load: &LoadOptions) -> bool {
    let Some(bytes) = files.read(file) else {
        return false;
    };
    if file.starts_with("Classes/") {
        load_class_file(bytes, load).is_ok()
    } else if file.starts_with("UI/") {
        murano_yaml::load_ui_file(bytes, load).is_ok()
    } else if file == "manifest.yaml" {
        load_manifest(&String::from_utf8_lossy(bytes), load).is_ok()
    } else {
        false
    }
}
