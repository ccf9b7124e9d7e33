//! Checks beyond murano-pkg-check, on the class model the engine builds
//! (`Flavor::Engine` loading, [`ClassDefinition`]).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use murano_dsl::contract::{Contract, ContractErrorKind, MemoryHost, Runtime, Scope};
use murano_dsl::model::{Cardinality, ClassDefinition, ClassUsage, MetaTarget, Namespaces};
use murano_dsl::version::YamlScalar;
use murano_yaml::{
    load_all, load_class_file, load_manifest, Flavor, Mark, Node, Value, YaqlScalar,
};
use murano_yaql::{Constant, Expr, ExprKind};

use super::accesses::{block_accesses, form_field, objects_of};
use super::{diagnostic, CheckOptions, ClassShape, Diagnostic, Severity, OBJECT};
use crate::source::{FileMap, PackageSource};

/// The functions a contract may call outside `check(…)`.
pub(crate) const CONTRACT_FUNCTIONS: [&str; 9] = [
    "int", "string", "bool", "notNull", "check", "class", "template", "owned", "notOwned",
];

/// One class file as the engine reads it.
struct ClassFile {
    path: String,
    documents: Vec<Node>,
    classes: Vec<ClassDefinition>,
}

/// What the manifest says, as far as these checks need it.
#[derive(Default)]
struct Manifest {
    full_name: Option<String>,
    require: BTreeSet<String>,
    /// `Require` entries with where each is written.
    require_at: Vec<(String, Mark)>,
    /// `Classes`: class name, file name node.
    classes: Vec<(String, Node)>,
    /// The MuranoPL runtime version `Format` asks for (1.0 by default).
    runtime: (u32, u32),
}

fn read_manifest(files: &FileMap, options: &CheckOptions) -> Manifest {
    let mut manifest = Manifest {
        runtime: (1, 0),
        ..Manifest::default()
    };
    let Some(bytes) = files.read("manifest.yaml") else {
        return manifest;
    };
    let text = String::from_utf8_lossy(bytes);
    let Ok(Some(doc)) = load_manifest(&text, &options.load) else {
        return manifest;
    };
    let format = doc.value.get("Format").map(|n| YamlScalar::from(&n.value));
    if let Ok((_, version)) =
        crate::format::split_format(&crate::format::format_text(format.as_ref()))
    {
        manifest.runtime = (
            version
                .major()
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .unwrap_or(1),
            version
                .minor()
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .unwrap_or(0),
        );
    }
    manifest.full_name = doc
        .value
        .get("FullName")
        .and_then(|n| n.value.as_str())
        .map(str::to_owned);
    if let Some(map) = doc.value.get("Require").and_then(|n| n.value.as_map()) {
        for (k, _) in map {
            manifest.require.insert(k.value.python_str());
            manifest.require_at.push((k.value.python_str(), k.start));
        }
    }
    if let Some(map) = doc.value.get("Classes").and_then(|n| n.value.as_map()) {
        for (k, v) in map {
            if let Some(name) = k.value.as_str() {
                manifest.classes.push((name.to_owned(), v.clone()));
            }
        }
    }
    manifest
}

/// Runs the checks of the `M` codes.
pub(crate) fn run(files: &FileMap, options: &CheckOptions) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let manifest = read_manifest(files, options);
    let mut class_files = Vec::new();
    for path in files.files_under("Classes") {
        if !path.ends_with(".yaml") {
            continue;
        }
        let Some(bytes) = files.read(&path) else {
            continue;
        };
        match load_class_file(bytes, &options.load) {
            Ok(file) => {
                let classes = ClassDefinition::from_documents(&file.documents, Some(&path));
                class_files.push(ClassFile {
                    path,
                    documents: file.documents,
                    classes,
                });
            }
            Err(e) => {
                // A file plain YAML reads (so that E002 is silent) but the
                // engine's loader refuses: YAQL it cannot take.
                if load_all(bytes, Flavor::Plain, &options.load).is_ok() {
                    out.push(diagnostic(
                        "M400",
                        format!("the engine cannot load this file: {e}"),
                        Some(&path),
                        e.mark(),
                    ));
                }
            }
        }
    }
    let mut own: BTreeSet<String> = manifest.classes.iter().map(|(n, _)| n.clone()).collect();
    let mut meta: BTreeMap<String, Cardinality> = BTreeMap::new();
    let mut applies: BTreeMap<String, Vec<MetaTarget>> = BTreeMap::new();
    for file in &class_files {
        for class in &file.classes {
            if let Some(name) = &class.full_name {
                own.insert(name.clone());
                if let (ClassUsage::Meta, Some(info)) = (class.usage, &class.meta_class) {
                    meta.insert(name.clone(), info.cardinality);
                    applies.insert(name.clone(), info.applies.clone());
                }
            }
        }
    }
    let scope = Scope::new(
        Arc::new(Runtime::new(manifest.runtime.0, manifest.runtime.1)),
        Arc::new(MemoryHost::new()),
    );
    // Required packages the catalog lacks: classes used that no catalog
    // package defines may be theirs (M420 instead of M403 for each).
    let missing: Vec<&(String, Mark)> = match &options.catalog {
        Some(catalog) => manifest
            .require_at
            .iter()
            .filter(|(name, _)| {
                manifest.full_name.as_deref() != Some(name.as_str()) && !catalog.has_package(name)
            })
            .collect(),
        None => Vec::new(),
    };
    let mut own_shapes: BTreeMap<String, ClassShape> = BTreeMap::new();
    for file in &class_files {
        for class in &file.classes {
            if let Some(name) = &class.full_name {
                own_shapes
                    .entry(name.clone())
                    .or_insert_with(|| ClassShape::of(class));
            }
        }
    }
    let ctx = Context {
        options,
        own_shapes: &own_shapes,
        missing: missing.iter().map(|(n, _)| n.as_str()).collect(),
        folded: std::cell::RefCell::new(BTreeMap::new()),
        manifest: &manifest,
        own: &own,
        meta: &meta,
        applies: &applies,
        scope: &scope,
    };
    for file in &class_files {
        for class in &file.classes {
            let mut sink = Sink {
                out: &mut out,
                path: &file.path,
            };
            model_issues(class, &mut sink);
            let doc = file.documents.iter().find(|d| d.start == class.start);
            ctx.check_class(class, doc, &mut sink);
        }
    }
    for path in files.files_under("UI") {
        if path.ends_with(".yaml") {
            if let Some(bytes) = files.read(&path) {
                ctx.ui_defaults(&path, bytes, &mut out);
            }
        }
    }
    let mut folded = ctx.folded.take();
    for (name, at) in &missing {
        let classes = folded.remove(name.as_str()).unwrap_or_default();
        let mut message = format!(
            "package {name:?} in Require is in no catalog path: its classes cannot be checked"
        );
        if !classes.is_empty() {
            let list: Vec<&str> = classes.iter().map(String::as_str).collect();
            message.push_str(&format!(
                " (classes used that no catalog package defines: {})",
                list.join(", ")
            ));
        }
        out.push(diagnostic(
            "M420",
            message,
            Some("manifest.yaml"),
            Some(*at),
        ));
    }
    hierarchy_cycles(&class_files, &mut out);
    for (name, file_node) in &manifest.classes {
        let Some(file_name) = file_node.value.as_str() else {
            continue;
        };
        let path = format!("Classes/{file_name}");
        let Some(file) = class_files.iter().find(|f| f.path == path) else {
            continue;
        };
        // The engine gives an unnamed class the name it looks for.
        let declared = file.classes.iter().any(|c| {
            c.full_name.as_deref() == Some(name.as_str())
                || (c.name.is_none() && c.class_issues.iter().all(|i| i.code != "M100"))
        });
        if !declared {
            out.push(diagnostic(
                "M406",
                format!("{path} does not declare class {name:?}"),
                Some("manifest.yaml"),
                Some(file_node.start),
            ));
        }
    }
    out
}

/// M408: keys written twice in one mapping of any YAML file of the
/// package (manifest, class files, UI definitions, Heat and agent
/// templates). PyYAML, so Murano and its dashboard, keeps the last value
/// without a word; the loaded value is not changed here, only reported
/// with both positions. Files that do not load are left to the other
/// checks.
pub(crate) fn duplicate_keys(files: &FileMap, options: &CheckOptions) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for path in files.paths() {
        let lower = path.to_ascii_lowercase();
        if ![".yaml", ".yml", ".template"]
            .iter()
            .any(|ext| lower.ends_with(ext))
        {
            continue;
        }
        // Each file as the reader that loads it sees it (YAQL or not).
        let flavor = if path.starts_with("Classes/") {
            Flavor::Engine
        } else if path.starts_with("UI/") {
            Flavor::Dashboard
        } else {
            Flavor::Plain
        };
        let Some(bytes) = files.read(path) else {
            continue;
        };
        let Ok(found) = murano_yaml::duplicate_key_positions(bytes, flavor, &options.load) else {
            continue;
        };
        for d in found {
            out.push(diagnostic(
                "M408",
                format!(
                    "key {:?} is written twice in this mapping (first written at line {}, column {}); \
                     the second value wins and the first is ignored",
                    d.key,
                    d.first.line + 1,
                    d.first.column + 1
                ),
                Some(path),
                Some(d.second),
            ));
        }
    }
    out
}

/// A class's file and the classes it extends, with where each is named.
type Parents<'a> = (&'a str, Vec<(&'a str, Mark)>);

/// M407: `Extends` chains among the package's classes that come back to
/// where they started (`A` extends `B` extends `A`, or `A` extends `A`):
/// Murano cannot load any class of the cycle. Each cycle is reported
/// once, at the `Extends` entry of its first class (in file order), with
/// the cycle spelled out.
fn hierarchy_cycles(class_files: &[ClassFile], out: &mut Vec<Diagnostic>) {
    // Class -> (file, its Extends targets with their marks).
    let mut parents: BTreeMap<&str, Parents<'_>> = BTreeMap::new();
    let mut order: Vec<&str> = Vec::new();
    for file in class_files {
        for class in &file.classes {
            let Some(name) = class.full_name.as_deref() else {
                continue;
            };
            let targets = class
                .extends
                .iter()
                .filter_map(|t| t.resolved.as_deref().ok().map(|r| (r, t.start)))
                .collect();
            if parents
                .insert(name, (file.path.as_str(), targets))
                .is_none()
            {
                order.push(name);
            }
        }
    }
    let mut reported: BTreeSet<Vec<&str>> = BTreeSet::new();
    for &start in &order {
        // Depth-first search for a path from `start` back to itself.
        let mut path: Vec<&str> = vec![start];
        let mut stack: Vec<std::vec::IntoIter<&str>> = Vec::new();
        let next_of = |class: &str| -> std::vec::IntoIter<&str> {
            parents
                .get(class)
                .map(|(_, p)| p.iter().map(|(n, _)| *n).collect::<Vec<_>>())
                .unwrap_or_default()
                .into_iter()
        };
        let mut seen: BTreeSet<&str> = BTreeSet::new();
        stack.push(next_of(start));
        let mut found = None;
        while let Some(top) = stack.last_mut() {
            let Some(next) = top.next() else {
                stack.pop();
                path.pop();
                continue;
            };
            if next == start {
                found = Some(path.clone());
                break;
            }
            if parents.contains_key(next) && seen.insert(next) {
                path.push(next);
                stack.push(next_of(next));
            }
        }
        let Some(cycle) = found else {
            continue;
        };
        let mut members = cycle.clone();
        members.sort_unstable();
        if !reported.insert(members) {
            continue;
        }
        let (file, targets) = &parents[start];
        let second = cycle.get(1).copied().unwrap_or(start);
        let at = targets.iter().find(|(n, _)| *n == second).map(|(_, m)| *m);
        let spelled: Vec<&str> = cycle.iter().copied().chain([start]).collect();
        out.push(diagnostic(
            "M407",
            format!(
                "the class hierarchy is cyclic: {} (Murano cannot load these classes)",
                spelled.join(" extends ")
            ),
            Some(*file),
            at,
        ));
    }
}

/// Where diagnostics of one file go.
struct Sink<'a> {
    out: &'a mut Vec<Diagnostic>,
    path: &'a str,
}

impl Sink<'_> {
    fn push(&mut self, code: &'static str, message: String, at: Mark) {
        self.out
            .push(diagnostic(code, message, Some(self.path), Some(at)));
    }
}

/// The model's issues, with their codes.
fn model_issues(class: &ClassDefinition, sink: &mut Sink<'_>) {
    for issue in class.issues() {
        // The start only, as for every diagnostic of the checks.
        let mut d = Diagnostic::new(issue.code, issue.message.clone());
        d.file = Some(sink.path.to_owned());
        d.start = issue.start;
        sink.out.push(d);
    }
}

struct Context<'a> {
    options: &'a CheckOptions,
    /// What the package's classes declare.
    own_shapes: &'a BTreeMap<String, ClassShape>,
    /// Required packages the catalog lacks.
    missing: Vec<&'a str>,
    /// Classes defined nowhere, put to the missing package that may
    /// define them (reported once per package, `M420`).
    folded: std::cell::RefCell<BTreeMap<String, BTreeSet<String>>>,
    manifest: &'a Manifest,
    own: &'a BTreeSet<String>,
    meta: &'a BTreeMap<String, Cardinality>,
    applies: &'a BTreeMap<String, Vec<MetaTarget>>,
    /// Where defaults are checked against their contracts (the package's
    /// runtime, no objects).
    scope: &'a Scope,
}

impl Context<'_> {
    fn check_class(&self, class: &ClassDefinition, doc: Option<&Node>, sink: &mut Sink<'_>) {
        let ns = &class.namespaces;
        // M401 in every expression but the names the model resolves itself.
        if let Some(map) = doc.and_then(|d| d.value.as_map()) {
            for (k, v) in map {
                if matches!(
                    k.value.as_str(),
                    Some("Name" | "Extends" | "Import" | "Namespaces")
                ) {
                    continue;
                }
                walk_yaql(k, &mut |node, y| prefixes(ns, node, y, sink));
                walk_yaql(v, &mut |node, y| prefixes(ns, node, y, sink));
            }
        }
        // Contracts: M402, and class() / template() targets.
        // `true`: resolved when Murano loads the class (Extends, Import).
        let mut targets: Vec<(String, Mark, bool)> = Vec::new();
        for t in class.type_names() {
            if let Ok(full) = &t.resolved {
                targets.push((full.clone(), t.start, true));
            }
        }
        let contracts = class
            .properties
            .iter()
            .filter_map(|p| p.contract.as_ref())
            .chain(
                class
                    .methods
                    .iter()
                    .flat_map(|m| m.arguments.iter().filter_map(|a| a.contract.as_ref())),
            );
        for contract in contracts {
            walk_yaql(contract, &mut |node, y| {
                let mut unknown = BTreeSet::new();
                let mut names = Vec::new();
                contract_calls(y.expression.root(), false, &mut unknown, &mut names);
                for name in unknown {
                    sink.push(
                        "M402",
                        format!("{name}() is not a contract function (in {:?})", y.text()),
                        node.start,
                    );
                }
                for name in names {
                    if let Ok(full) = ns.resolve(&name) {
                        targets.push((full, node.start, false));
                    }
                }
            });
        }
        self.check_targets(&targets, sink);
        // M405, M410 (and M401 for meta keys the walk above saw already).
        let metas = std::iter::once((class.meta.as_ref(), MetaTarget::Type))
            .chain(
                class
                    .properties
                    .iter()
                    .map(|p| (p.meta.as_ref(), MetaTarget::Property)),
            )
            .chain(class.methods.iter().flat_map(|m| {
                std::iter::once((m.meta.as_ref(), MetaTarget::Method)).chain(
                    m.arguments
                        .iter()
                        .map(|a| (a.meta.as_ref(), MetaTarget::Argument)),
                )
            }))
            .filter_map(|(node, target)| node.map(|n| (n, target)));
        for (node, target) in metas {
            self.check_meta(ns, node, target, sink);
        }
        self.undeclared_properties(class, sink);
        // M409: defaults against their own contracts.
        let declared = class
            .properties
            .iter()
            .map(|p| (p.contract.as_ref(), p.default.as_ref()))
            .chain(class.methods.iter().flat_map(|m| {
                m.arguments
                    .iter()
                    .map(|a| (a.contract.as_ref(), a.default.as_ref()))
            }));
        for (contract, default) in declared {
            if let (Some(contract), Some(default)) = (contract, default) {
                self.check_default(contract, default, sink);
            }
        }
    }

    /// Applies a contract to its default, as the engine does when the
    /// value is not given: a violation is `M409` at the default. Defaults
    /// holding YAQL (evaluated at run time), null defaults (the same as
    /// none) and contracts that need objects (`class()`, `template()`) are
    /// not checked.
    fn check_default(&self, contract: &Node, default: &Node, sink: &mut Sink<'_>) {
        if matches!(default.value, Value::Null) {
            return;
        }
        let mut dynamic = false;
        walk_yaql(default, &mut |_, _| dynamic = true);
        walk_yaql(contract, &mut |_, y| {
            let mut unknown = BTreeSet::new();
            let mut names = Vec::new();
            contract_calls(y.expression.root(), false, &mut unknown, &mut names);
            dynamic |=
                !names.is_empty() || !unknown.is_empty() || uses_objects(y.expression.root());
        });
        if dynamic {
            return;
        }
        let Ok(contract) = Contract::from_node(contract) else {
            return;
        };
        if let Err(e) = contract.transform(self.scope, None, Some(default)) {
            if e.kind == ContractErrorKind::Violation {
                let mut message = format!("the default violates its contract: {}", e.message);
                if !e.path.is_empty() {
                    message.push_str(&format!(" (at {})", e.path));
                }
                sink.push("M409", message, default.start);
            }
        }
    }

    /// The properties `class` and its ancestors declare (name: whether it
    /// has a Default), or `None` when an ancestor is not known (not in the
    /// package, not described by the catalog).
    pub(crate) fn declared_properties(&self, class: &str) -> Option<BTreeMap<String, bool>> {
        let mut out = BTreeMap::new();
        let mut seen = BTreeSet::new();
        let mut todo = vec![class.to_owned()];
        while let Some(name) = todo.pop() {
            if !seen.insert(name.clone()) {
                continue;
            }
            let shape = self
                .own_shapes
                .get(&name)
                .or_else(|| self.options.catalog.as_ref().and_then(|c| c.shape(&name)));
            let shape = match shape {
                Some(shape) => shape,
                None if name == OBJECT => continue,
                None => return None,
            };
            for (property, has_default) in &shape.properties {
                let known = out.entry(property.clone()).or_insert(false);
                *known |= *has_default;
            }
            todo.extend(shape.parents.as_ref()?.iter().cloned());
        }
        Some(out)
    }

    /// M421: `$.name` (or `$this.name`) in a method body, where `$` is
    /// certainly the object, for a property neither the class nor its
    /// ancestors declare. Murano looks the property up from the method's
    /// class upwards (`MuranoObject.get_property`): a read raises
    /// `UninitializedPropertyAccessError` unless the class stored the
    /// name itself (a write of an undeclared name from the class's own
    /// methods is kept aside for that class, `set_property`).
    fn undeclared_properties(&self, class: &ClassDefinition, sink: &mut Sink<'_>) {
        let Some(name) = &class.full_name else {
            return;
        };
        let mut accesses = Vec::new();
        for method in &class.methods {
            block_accesses(&method.body, &mut accesses);
        }
        if accesses.is_empty() {
            return;
        }
        let Some(declared) = self.declared_properties(name) else {
            return;
        };
        let written: BTreeSet<&str> = accesses
            .iter()
            .filter(|a| a.write)
            .map(|a| a.name.as_str())
            .collect();
        for access in &accesses {
            if declared.contains_key(&access.name) {
                continue;
            }
            let property = &access.name;
            // A name the class stores itself (`$.name: value`, Murano's
            // usual private state) can be read back: it is not reported,
            // nor is the store.
            if access.write || written.contains(property.as_str()) {
                continue;
            }
            let message = format!(
                "`{}` reads property {property:?}, which neither {name} nor its ancestors \
                 declare, and {name} never stores it (Murano raises \
                 UninitializedPropertyAccessError here)",
                access.text
            );
            sink.push("M421", message, access.at);
        }
    }

    /// M422: an optional text field (`string`, `text`, `password`,
    /// `required: false`, no `initial`) whose value an object of the UI's
    /// `Application` or `Templates` gives a property that has a Default:
    /// the dashboard sends the empty string for a field left empty, and a
    /// value, even empty, replaces the Default.
    fn ui_defaults(&self, path: &str, bytes: &[u8], out: &mut Vec<Diagnostic>) {
        let Ok(Some(doc)) = murano_yaml::load_ui_file(bytes, &self.options.load) else {
            return;
        };
        // form name -> field name -> whether it may be sent empty.
        let mut optional: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        let seq = |node: Option<&'_ Node>| match node.map(|n| &n.value) {
            Some(Value::Seq(items)) => items.clone(),
            _ => Vec::new(),
        };
        for form in seq(doc.value.get("Forms")) {
            for (form_name, form) in form.value.as_map().unwrap_or(&[]) {
                let Some(form_name) = form_name.value.as_str() else {
                    continue;
                };
                for field in seq(form.value.get("fields")) {
                    let text = |key: &str| field.value.get(key).and_then(|v| v.value.as_str());
                    let required = field.value.get("required").map(|r| &r.value);
                    let initial = field.value.get("initial").map(|i| &i.value);
                    let empty_initial = match initial {
                        None | Some(Value::Null) => true,
                        Some(Value::Str(s)) => s.is_empty(),
                        _ => false,
                    };
                    if matches!(text("type"), Some("string" | "text" | "password"))
                        && matches!(required, Some(Value::Bool(false)))
                        && empty_initial
                    {
                        if let Some(name) = text("name") {
                            optional
                                .entry(form_name.to_owned())
                                .or_default()
                                .insert(name.to_owned());
                        }
                    }
                }
            }
        }
        if optional.is_empty() {
            return;
        }
        let mut objects = Vec::new();
        if let Some(app) = doc.value.get("Application") {
            objects_of(app, &mut objects);
        }
        if let Some(templates) = doc.value.get("Templates") {
            objects_of(templates, &mut objects);
        }
        for (class, object) in objects {
            let Some(declared) = self.declared_properties(&class) else {
                continue;
            };
            for (key, value) in object.value.as_map().unwrap_or(&[]) {
                let (Some(property), Value::Yaql(y)) = (key.value.as_str(), &value.value) else {
                    continue;
                };
                let Some((form, field)) = form_field(y.expression.root()) else {
                    continue;
                };
                if declared.get(property) == Some(&true)
                    && optional.get(&form).is_some_and(|f| f.contains(&field))
                {
                    out.push(diagnostic(
                        "M422",
                        format!(
                            "optional field {form}.{field} gives property {property:?} of {class}, \
                             which has a Default: left empty, the dashboard sends '' and the \
                             Default is not used (make the field required or give it an initial)"
                        ),
                        Some(path),
                        Some(value.start),
                    ));
                }
            }
        }
    }

    /// The missing required package that may define `class`: the one
    /// whose name starts the class name (the longest), else the only one.
    fn missing_owner(&self, class: &str) -> Option<&str> {
        let by_prefix = self
            .missing
            .iter()
            .filter(|p| {
                class
                    .strip_prefix(**p)
                    .is_some_and(|rest| rest.starts_with('.'))
            })
            .max_by_key(|p| p.len());
        match (by_prefix, self.missing.as_slice()) {
            (Some(p), _) => Some(p),
            (None, [only]) => Some(only),
            _ => None,
        }
    }

    /// M403 and M404: classes no catalog package defines, or whose
    /// packages Require does not list. Murano resolves Extends and Import
    /// when it loads the class (`package.find_class`, which searches the
    /// package and its requirements only), so there they are errors.
    fn check_targets(&self, targets: &[(String, Mark, bool)], sink: &mut Sink<'_>) {
        let Some(catalog) = &self.options.catalog else {
            return;
        };
        let at_load = |d: Diagnostic, load: bool| {
            if load {
                let mut d = d.with_severity(Severity::Error);
                d.message.push_str(" (Murano cannot load this class)");
                d
            } else {
                d
            }
        };
        for (class, at, load) in targets {
            if self.own.contains(class) {
                continue;
            }
            match catalog.packages_of(class) {
                None => {
                    if let Some(owner) = self.missing_owner(class) {
                        self.folded
                            .borrow_mut()
                            .entry(owner.to_owned())
                            .or_default()
                            .insert(class.clone());
                        continue;
                    }
                    let d = diagnostic(
                        "M403",
                        format!("no package of the catalog defines class {class:?}"),
                        Some(sink.path),
                        Some(*at),
                    );
                    sink.out.push(at_load(d, *load));
                }
                Some(packages) => {
                    let required = packages.iter().any(|p| {
                        p == "io.murano"
                            || self.manifest.require.contains(p)
                            || self.manifest.full_name.as_deref() == Some(p.as_str())
                    });
                    if !required {
                        let list: Vec<&str> = packages.iter().map(String::as_str).collect();
                        let d = diagnostic(
                            "M404",
                            format!(
                                "class {class:?} comes from {}, which Require does not list",
                                list.join(" or ")
                            ),
                            Some(sink.path),
                            Some(*at),
                        );
                        sink.out.push(at_load(d, *load));
                    }
                }
            }
        }
    }

    fn cardinality(&self, class: &str) -> Option<Cardinality> {
        self.meta.get(class).copied().or_else(|| {
            self.options
                .catalog
                .as_ref()
                .and_then(|c| c.meta_cardinality(class))
        })
    }

    fn meta_applies(&self, class: &str) -> Option<&[MetaTarget]> {
        self.applies.get(class).map(Vec::as_slice).or_else(|| {
            self.options
                .catalog
                .as_ref()
                .and_then(|c| c.meta_applies(class))
        })
    }

    fn check_meta(&self, ns: &Namespaces, node: &Node, target: MetaTarget, sink: &mut Sink<'_>) {
        let items: Vec<&Node> = match &node.value {
            Value::Seq(items) => items.iter().collect(),
            _ => vec![node],
        };
        let mut seen: BTreeMap<String, usize> = BTreeMap::new();
        for item in items {
            let Some(map) = item.value.as_map() else {
                continue;
            };
            for (k, _) in map {
                let text = match &k.value {
                    Value::Str(s) => s.clone(),
                    Value::Yaql(y) => y.text().to_owned(),
                    _ => continue,
                };
                let Ok(full) = ns.resolve(&text) else {
                    continue;
                };
                if let Some(applies) = self.meta_applies(&full) {
                    if !applies.contains(&target) {
                        let allowed: Vec<&str> = applies.iter().map(|t| t.as_str()).collect();
                        sink.push(
                            "M410",
                            format!(
                                "meta class {full:?} does not apply to a {} (Applies: {})",
                                target.as_str(),
                                if allowed.is_empty() {
                                    "nothing".to_owned()
                                } else {
                                    allowed.join(", ")
                                }
                            ),
                            k.start,
                        );
                    }
                }
                let count = seen.entry(full.clone()).or_insert(0);
                *count += 1;
                if *count == 2 && self.cardinality(&full) == Some(Cardinality::One) {
                    sink.push(
                        "M405",
                        format!("meta class {full:?} has Cardinality One but is attached again"),
                        k.start,
                    );
                }
            }
        }
    }
}

/// Calls `f` on every YAQL scalar of a data node, keys included.
pub(super) fn walk_yaql<'a>(node: &'a Node, f: &mut dyn FnMut(&'a Node, &'a YaqlScalar)) {
    match &node.value {
        Value::Yaql(y) => f(node, y),
        Value::Seq(items) | Value::Set(items) => items.iter().for_each(|n| walk_yaql(n, f)),
        Value::Map(pairs) | Value::Pairs(pairs) => {
            for (k, v) in pairs {
                walk_yaql(k, f);
                walk_yaql(v, f);
            }
        }
        _ => {}
    }
}

/// Every `prefix:Name` of an expression: M401 when `prefix` is undeclared.
fn prefixes(ns: &Namespaces, node: &Node, y: &YaqlScalar, sink: &mut Sink<'_>) {
    let mut found = BTreeSet::new();
    collect_prefixes(y.expression.root(), &mut found);
    for prefix in found {
        if ns.get(&prefix).is_none() {
            sink.push(
                "M401",
                format!(
                    "namespace prefix {prefix:?} is not declared (in {:?})",
                    y.text()
                ),
                node.start,
            );
        }
    }
}

fn collect_prefixes(expr: &Expr, out: &mut BTreeSet<String>) {
    if let ExprKind::Binary { op, operands } = &expr.kind {
        // Only `prefix:Name`; `OS::Heat::X` (a Heat type written bare)
        // has an operator on the right and is no class name.
        if let (true, ExprKind::Keyword(prefix), ExprKind::Keyword(_)) = (
            op.function() == "#operator_:",
            &operands[0].kind,
            &operands[1].kind,
        ) {
            out.insert(prefix.to_string());
        }
    }
    for child in expr.children() {
        collect_prefixes(child, out);
    }
}

/// The class name an argument of `class()` / `template()` writes.
fn class_argument(expr: &Expr) -> Option<String> {
    match &expr.kind {
        ExprKind::Keyword(name) => Some(name.to_string()),
        ExprKind::Constant(Constant::String(s)) => Some(s.to_string()),
        ExprKind::Binary { op, operands } if op.function() == "#operator_:" => {
            match (&operands[0].kind, &operands[1].kind) {
                (ExprKind::Keyword(p), ExprKind::Keyword(n)) => Some(format!("{p}:{n}")),
                _ => None,
            }
        }
        ExprKind::Unary { op, operand, .. } if op.function() == "#unary_operator_:" => {
            match &operand.kind {
                ExprKind::Keyword(n) => Some(format!(":{n}")),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Walks a contract expression: the functions it calls outside `check()`
/// that are not contract functions, and the class names given to
/// `class()` and `template()`.
fn contract_calls(
    expr: &Expr,
    free: bool,
    unknown: &mut BTreeSet<String>,
    classes: &mut Vec<String>,
) {
    match &expr.kind {
        ExprKind::Call { name, args } => {
            let name: &str = name;
            if !free && !CONTRACT_FUNCTIONS.contains(&name) {
                unknown.insert(name.to_owned());
            }
            if matches!(name, "class" | "template") {
                if let Some(first) = args.first().and_then(class_argument) {
                    classes.push(first);
                }
                return;
            }
            let inner = free || name == "check";
            for arg in args {
                contract_calls(arg, inner, unknown, classes);
            }
        }
        _ => {
            for child in expr.children() {
                contract_calls(child, free, unknown, classes);
            }
        }
    }
}

/// Whether a contract expression names objects or classes (`class()`,
/// `template()`, `owned()`, `notOwned()`): those need an object store.
fn uses_objects(expr: &Expr) -> bool {
    match &expr.kind {
        ExprKind::Call { name, args } => {
            matches!(&**name, "class" | "template" | "owned" | "notOwned")
                || args.iter().any(uses_objects)
        }
        _ => expr.children().into_iter().any(uses_objects),
    }
}
