//! murano-pkg-check's checks, with its codes, on the values its YAML
//! loader builds (plain YAML: no YAQL detection).
//!
//! Its checks are Python generators nested in generators; when one raises,
//! murano-pkg-check reports `E000` and that generator stops while the
//! others go on. Each check here returns `Err(Crash)` where the Python one
//! would raise, and [`Pkg::guard`] turns it into `E000` at the level where
//! murano-pkg-check catches it.

use murano_dsl::version::Version;
use murano_yaml::expression::engine_grammar;
use murano_yaml::{load_all, Flavor, LoadOptions, Mark, Node, Value};

use super::py::{
    as_list, as_map, as_str, camel_case, get, has, hashable, is_assignment_key, is_class_name,
    is_fqn, is_int, is_name, is_ns_fqn, meta, py_str, truthy,
};
use super::{diagnostic, Diagnostic};
use crate::source::{FileMap, PackageSource};

/// Where murano-pkg-check would raise: why, and at which value.
pub(crate) struct Crash {
    reason: String,
    at: Option<Mark>,
}

type R = Result<(), Crash>;

fn crash(reason: impl Into<String>, node: &Node) -> Crash {
    Crash {
        reason: reason.into(),
        at: Some(node.start),
    }
}

const FORMATS: [&str; 5] = ["1.0", "1.1", "1.2", "1.3", "1.4"];
const METHOD_KEYWORDS: [&str; 5] = ["Body", "Arguments", "Usage", "Scope", "Meta"];
const ARGUMENT_KEYWORDS: [&str; 4] = ["Contract", "Usage", "Meta", "Default"];
const PROPERTY_KEYWORDS: [&str; 4] = ["Contract", "Usage", "Default", "Meta"];
const PROPERTY_USAGES: [&str; 7] = ["In", "Out", "InOut", "Const", "Static", "Runtime", "Config"];
const APPLIES: [&str; 6] = ["Package", "Type", "Method", "Property", "Argument", "All"];
const UI_VERSIONS: [&str; 8] = ["1.0", "1", "2", "2.0", "2.1", "2.2", "2.3", "2.4"];
const FIELD_TYPES: [&str; 19] = [
    "string",
    "boolean",
    "text",
    "integer",
    "password",
    "clusterip",
    "floatingip",
    "domain",
    "databaselist",
    "table",
    "flavor",
    "keypair",
    "image",
    "azone",
    "psqlDatabase",
    "network",
    "choice",
    "volume",
    "zone",
];
const KNOWN_ROOT: [&str; 6] = [
    "manifest.yaml",
    "UI",
    "LICENSE",
    "Classes",
    "images.lst",
    "README.rst",
];
const MANIFEST_KEYS: [&str; 12] = [
    "Format",
    "Author",
    "Version",
    "FullName",
    "Name",
    "Classes",
    "Tags",
    "Require",
    "Type",
    "Description",
    "UI",
    "Logo",
];
const CLASS_KEYS: [&str; 11] = [
    "Meta",
    "Usage",
    "Inherited",
    "Cardinality",
    "Applies",
    "Name",
    "Extends",
    "Methods",
    "Import",
    "Namespaces",
    "Properties",
];
const UI_KEYS: [&str; 4] = ["Forms", "Templates", "Application", "Version"];

/// The checks of one instruction kind: (keyword, check, required).
type Structure = (&'static str, &'static [(&'static str, Check, bool)]);

#[derive(Clone, Copy)]
enum Check {
    Codeblock,
    Catchblock,
    Yaql,
    Empty,
    Str,
    /// `(left, right)` checks of each entry of a mapping.
    Pair(&'static Check, &'static Check),
}

const CODE_STRUCTURE: [Structure; 13] = [
    (
        "Try",
        &[
            ("Try", Check::Codeblock, true),
            ("Catch", Check::Catchblock, true),
            ("Else", Check::Codeblock, false),
            ("Finally", Check::Codeblock, false),
        ],
    ),
    (
        "Parallel",
        &[
            ("Limit", Check::Codeblock, false),
            ("Parallel", Check::Codeblock, true),
        ],
    ),
    (
        "Repeat",
        &[
            ("Repeat", Check::Yaql, true),
            ("Do", Check::Codeblock, true),
        ],
    ),
    (
        "If",
        &[
            ("If", Check::Yaql, true),
            ("Then", Check::Codeblock, true),
            ("Else", Check::Codeblock, false),
        ],
    ),
    ("Break", &[("Break", Check::Empty, true)]),
    // murano-pkg-check lists no keywords for Return.
    ("Return", &[]),
    (
        "While",
        &[("While", Check::Yaql, true), ("Do", Check::Codeblock, true)],
    ),
    (
        "For",
        &[
            ("For", Check::Str, true),
            ("In", Check::Yaql, true),
            ("Do", Check::Codeblock, true),
        ],
    ),
    (
        "Match",
        &[
            ("Match", Check::Pair(&Check::Yaql, &Check::Codeblock), true),
            ("Value", Check::Yaql, true),
            ("Default", Check::Codeblock, false),
        ],
    ),
    (
        "Switch",
        &[
            ("Switch", Check::Pair(&Check::Yaql, &Check::Codeblock), true),
            ("Default", Check::Codeblock, true),
        ],
    ),
    (
        "Throw",
        &[("Throw", Check::Str, true), ("Message", Check::Str, true)],
    ),
    ("Continue", &[("Continue", Check::Empty, true)]),
    ("Rethrow", &[("Rethrow", Check::Empty, true)]),
];

/// The state of one run.
struct Pkg<'a> {
    files: &'a FileMap,
    options: &'a LoadOptions,
    out: Vec<Diagnostic>,
    /// The file being checked.
    file: String,
    /// The format version murano-pkg-check compares as a string.
    format_version: String,
    /// The manifest's first document, if it loaded.
    manifest: Option<Node>,
}

/// Runs murano-pkg-check's validators: manifest, MuranoPL, UI, package.
pub(crate) fn run(files: &FileMap, options: &LoadOptions) -> Vec<Diagnostic> {
    let mut pkg = Pkg {
        files,
        options,
        out: Vec::new(),
        file: String::new(),
        format_version: "1.0".into(),
        manifest: None,
    };
    let manifest_docs = files
        .read("manifest.yaml")
        .and_then(|b| load_all(b, Flavor::Plain, options).ok());
    pkg.manifest = manifest_docs.and_then(|d| d.into_iter().next());
    pkg.set_format();
    pkg.run_files("manifest.yaml", false, Pkg::manifest_doc);
    let paths: Vec<String> = files.paths().map(str::to_owned).collect();
    for path in &paths {
        if path.starts_with("Classes/") && path.ends_with(".yaml") {
            pkg.run_files(path, true, Pkg::class_doc);
        }
    }
    for path in &paths {
        if path.starts_with("UI/") && path.ends_with(".yaml") {
            pkg.run_files(path, false, Pkg::ui_doc);
        }
    }
    pkg.package_files(&paths);
    pkg.out
}

impl<'a> Pkg<'a> {
    fn report(&mut self, code: &'static str, message: impl Into<String>, node: Option<&Node>) {
        // murano-pkg-check locates only strings, mappings, sequences and
        // nulls; other values get their position here too.
        let mark = node.map(|n| meta(n).unwrap_or(n.start));
        let file = node.map(|_| self.file.clone());
        self.out
            .push(diagnostic(code, message, file.as_deref(), mark));
    }

    /// A diagnostic at the package level (no file).
    fn report_package(&mut self, code: &'static str, message: impl Into<String>) {
        self.out.push(diagnostic(code, message, None, None));
    }

    /// Runs a nested check; its crash becomes `E000` and ends only it.
    fn guard(&mut self, check: impl FnOnce(&mut Self) -> R) {
        if let Err(c) = check(self) {
            let file = c.at.map(|_| self.file.clone());
            self.out.push(diagnostic(
                "E000",
                format!("murano-pkg-check's check fails here: {}", c.reason),
                file.as_deref(),
                c.at,
            ));
        }
    }

    fn set_format(&mut self) {
        let Some(format) = self.manifest.as_ref().and_then(|m| {
            as_map(m)?
                .iter()
                .find(|(k, _)| as_str(k) == Some("Format"))
                .map(|(_, v)| v.clone())
        }) else {
            return;
        };
        let text = py_str(&format);
        self.format_version = match text.split_once('/') {
            Some((_, version)) => version.to_owned(),
            None => text,
        };
    }

    /// `YamlValidator._run_single` over one file.
    fn run_files(
        &mut self,
        path: &str,
        allows_multi: bool,
        doc_check: fn(&mut Self, &Node, &[(Node, Node)]),
    ) {
        let Some(bytes) = self.files.read(path) else {
            return;
        };
        self.file = path.to_owned();
        let docs = match load_all(bytes, Flavor::Plain, self.options) {
            Ok(docs) => docs,
            Err(e) => {
                let mark = e.mark();
                self.out.push(diagnostic(
                    "E002",
                    format!("YAML error: {e}"),
                    Some(path),
                    mark,
                ));
                return;
            }
        };
        if docs.len() > 1 && !allows_multi {
            self.report(
                "E005",
                format!("{path} holds {} YAML documents; one is allowed", docs.len()),
                docs.get(1),
            );
        }
        for doc in &docs {
            let Some(map) = as_map(doc) else {
                // murano-pkg-check stops checking the whole package here.
                self.guard(|_| Err(crash("a YAML document that is not a mapping", doc)));
                continue;
            };
            doc_check(self, doc, map);
        }
    }

    /// Unknown top-level keys (W010) and missing required ones (E020).
    fn top_keys(&mut self, map: &[(Node, Node)], known: &[&str], required: &[&str]) {
        for (k, _) in map {
            if !as_str(k).is_some_and(|k| known.contains(&k)) {
                self.report("W010", format!("unknown keyword {:?}", py_str(k)), Some(k));
            }
        }
        for key in required {
            if !has(map, key) {
                self.report_package("E020", format!("required key {key:?} is missing"));
                if let Some(last) = self.out.last_mut() {
                    last.file = Some(self.file.clone());
                }
            }
        }
    }

    /// `_valid_keywords`: E021 for each key outside `known`.
    fn keywords(&mut self, map: &[(Node, Node)], known: &[&str]) {
        for (k, _) in map {
            if !as_str(k).is_some_and(|k| known.contains(&k)) {
                self.report("E021", format!("unknown keyword {:?}", py_str(k)), Some(k));
            }
        }
    }

    fn valid_string(&mut self, node: &Node) {
        if as_str(node).is_none() {
            self.report(
                "E040",
                format!("value {:?} is not a string", py_str(node)),
                Some(node),
            );
        }
    }

    // ----- manifest -----

    fn manifest_doc(&mut self, _doc: &Node, map: &[(Node, Node)]) {
        // The file-level check runs first.
        if !has(map, "Logo") {
            self.guard(|s| s.logo(None));
        }
        if !has(map, "UI") {
            self.guard(|s| s.ui(None));
        }
        for (k, v) in map {
            match as_str(k) {
                Some("Format") => self.format(v),
                Some("Author") | Some("Name") => self.valid_string(v),
                Some("Version") if Version::coerce(&py_str(v)).is_err() => {
                    self.report(
                        "E071",
                        format!("Version {:?} is not compatible with SemVer", py_str(v)),
                        Some(v),
                    );
                }
                Some("FullName") if !as_str(v).is_some_and(is_fqn) => {
                    self.report("E073", format!("invalid FullName {:?}", py_str(v)), Some(v));
                }
                Some("Classes") => self.guard(|s| s.manifest_classes(v)),
                Some("Tags") if as_list(v).is_none() => {
                    self.report("E070", "Tags should be a list", Some(v));
                }
                Some("Require") => self.require(v),
                Some("Type") if !matches!(as_str(v), Some("Application" | "Library")) => {
                    self.report(
                        "E071",
                        format!("Type {:?} is not Application or Library", py_str(v)),
                        Some(v),
                    );
                }
                Some("Description") if as_str(v).is_none() && v.value != Value::Null => {
                    self.report(
                        "E030",
                        format!("Description {:?} is not a string", py_str(v)),
                        Some(v),
                    );
                }
                Some("UI") => self.guard(|s| s.ui(Some(v))),
                Some("Logo") => self.guard(|s| s.logo(Some(v))),
                _ => {}
            }
        }
        self.top_keys(map, &MANIFEST_KEYS, &["FullName", "Type", "Description"]);
    }

    fn format(&mut self, value: &Node) {
        let text = py_str(value);
        let parts: Vec<&str> = text.splitn(2, '/').collect();
        if parts.len() > 1 && parts[0] != "MuranoPL" {
            self.report(
                "W030",
                format!("format {text:?} is not supported"),
                Some(value),
            );
            return;
        }
        if !FORMATS.contains(parts.last().unwrap_or(&"")) {
            self.report(
                "W030",
                format!("format version {text:?} is not supported"),
                Some(value),
            );
        }
    }

    fn require(&mut self, value: &Node) {
        let Some(map) = as_map(value) else {
            self.report("E005", "Require is not a mapping", Some(value));
            return;
        };
        for (k, _) in map {
            if !as_str(k).is_some_and(is_fqn) {
                self.report(
                    "E005",
                    format!("Require key {:?} is not a dotted name", py_str(k)),
                    Some(k),
                );
            }
        }
    }

    /// The manifest's `Type`, as `manifest[0]['Type']` reads it.
    fn package_type(&self, at: Option<&Node>) -> Result<Option<String>, Crash> {
        let fail = |reason: &str| Crash {
            reason: reason.to_owned(),
            at: at.map(|n| n.start),
        };
        let Some(map) = self.manifest.as_ref().and_then(as_map) else {
            return Err(fail("the manifest is not a mapping"));
        };
        match get(map, "Type") {
            Some(t) => Ok(as_str(t).map(str::to_owned)),
            None => Err(fail("the manifest has no Type")),
        }
    }

    fn exists(&self, path: &str) -> bool {
        self.files.read(path).is_some() || self.files.is_dir(path)
    }

    fn ui(&mut self, value: Option<&Node>) -> R {
        let (name, node) = match value {
            None => ("ui.yaml".to_owned(), None),
            Some(v) => match as_str(v) {
                Some(s) => (s.to_owned(), Some(v)),
                None => {
                    self.report("E072", "UI is not a string", Some(v));
                    return Ok(());
                }
            },
        };
        if self.package_type(node)?.as_deref() == Some("Library") {
            return Ok(());
        }
        if !self.exists(&format!("UI/{name}")) {
            let message = format!("there is no UI file {name:?}");
            match node {
                Some(n) => self.report("W073", message, Some(n)),
                None => self.report_package("W073", message),
            }
        }
        Ok(())
    }

    fn logo(&mut self, value: Option<&Node>) -> R {
        let (name, node) = match value {
            None => ("logo.png".to_owned(), None),
            Some(v) => match as_str(v) {
                Some(s) => (s.to_owned(), Some(v)),
                None => {
                    self.report("E074", "Logo is not a string", Some(v));
                    return Ok(());
                }
            },
        };
        if self.package_type(node)?.as_deref() == Some("Library") {
            return Ok(());
        }
        if !self.exists(&name) {
            let message = format!("there is no logo file {name:?}");
            match node {
                Some(n) => self.report("W074", message, Some(n)),
                None => self.report_package("W074", message),
            }
        }
        Ok(())
    }

    fn manifest_classes(&mut self, value: &Node) -> R {
        let Some(map) = as_map(value) else {
            self.report("E074", "Classes should be a mapping", Some(value));
            return Ok(());
        };
        if let Some((_, v)) = map.iter().find(|(_, v)| !hashable(v)) {
            return Err(crash("a class file name that is a list or a mapping", v));
        }
        // `list_files('Classes')`: every path starting with "Classes",
        // with the prefix and slashes around it removed.
        let existing: Vec<String> = self
            .files
            .paths()
            .filter_map(|p| p.strip_prefix("Classes"))
            .map(|p| p.trim_matches('/').to_owned())
            .collect();
        let mut listed: Vec<&Node> = Vec::new();
        for (_, v) in map {
            if !listed.iter().any(|n| n.value == v.value) {
                listed.push(v);
            }
        }
        for v in &listed {
            let present = as_str(v).is_some_and(|s| existing.iter().any(|e| e == s));
            if !present {
                self.report(
                    "E050",
                    format!("file {:?} is listed in the manifest but missing", py_str(v)),
                    Some(v),
                );
            }
        }
        for e in &existing {
            if !listed.iter().any(|v| as_str(v) == Some(e)) {
                let message = format!("file {e:?} is in Classes/ but not in the manifest");
                self.out.push(diagnostic(
                    "W020",
                    message,
                    Some(&format!("Classes/{e}")),
                    None,
                ));
            }
        }
        Ok(())
    }

    // ----- MuranoPL -----

    fn class_doc(&mut self, _doc: &Node, map: &[(Node, Node)]) {
        for (k, v) in map {
            match as_str(k) {
                Some("Meta") | Some("Usage") => {}
                Some("Inherited") if !matches!(v.value, Value::Bool(_)) => {
                    self.report(
                        "E027",
                        format!("Inherited {:?} is not a boolean", py_str(v)),
                        Some(v),
                    );
                }
                Some("Cardinality") if !matches!(as_str(v), Some("One" | "Many")) => {
                    self.report(
                        "E027",
                        format!("wrong Cardinality {:?}", py_str(v)),
                        Some(v),
                    );
                }
                Some("Applies") => self.applies(v, true),
                Some("Name") => self.class_name(v),
                Some("Extends") => self.extends(v, true),
                Some("Methods") => self.guard(|s| s.methods(v)),
                Some("Import") => self.import(v, true),
                Some("Namespaces") => self.namespaces(v),
                Some("Properties") => self.guard(|s| s.properties(v)),
                _ => {}
            }
        }
        self.top_keys(map, &CLASS_KEYS, &[]);
    }

    fn applies(&mut self, value: &Node, allow_list: bool) {
        if let (true, Some(items)) = (allow_list, as_list(value)) {
            for item in items {
                self.applies(item, false);
            }
        } else if !as_str(value).is_some_and(|s| APPLIES.contains(&s)) {
            self.report(
                "E028",
                format!("wrong Applies {:?}", py_str(value)),
                Some(value),
            );
        }
    }

    fn import(&mut self, value: &Node, can_be_list: bool) {
        if let (true, Some(items)) = (can_be_list, as_list(value)) {
            for item in items {
                self.import(item, false);
            }
        } else if !as_str(value).is_some_and(is_ns_fqn) {
            self.report(
                "E025",
                format!("wrong class name {:?} in Import", py_str(value)),
                Some(value),
            );
        }
    }

    fn extends(&mut self, value: &Node, can_be_list: bool) {
        if let (true, Some(items)) = (can_be_list, as_list(value)) {
            for item in items {
                self.extends(item, false);
            }
        } else if let Some(s) = as_str(value) {
            if !is_ns_fqn(s) {
                self.report(
                    "E025",
                    format!("wrong class name {s:?} in Extends"),
                    Some(value),
                );
            }
        } else {
            self.report(
                "E025",
                "Extends should be a class name or a list of them",
                Some(value),
            );
        }
    }

    fn class_name(&mut self, value: &Node) {
        let Some(name) = as_str(value) else {
            self.report(
                "E011",
                format!("class name {:?} is not a string", py_str(value)),
                Some(value),
            );
            return;
        };
        if name.starts_with("__") || !is_class_name(name) {
            self.report("E011", format!("invalid class name {name:?}"), Some(value));
        } else if !camel_case(name) {
            self.report(
                "W011",
                format!("class name {name:?} is not in CamelCase"),
                Some(value),
            );
        }
    }

    fn namespaces(&mut self, value: &Node) {
        let Some(map) = as_map(value) else {
            self.report("E044", "Namespaces should be a mapping", Some(value));
            return;
        };
        for (name, ns) in map {
            if !as_str(ns).is_some_and(is_fqn) {
                self.report(
                    "W060",
                    format!("namespace {:?} is not a dotted name", py_str(ns)),
                    Some(ns),
                );
            }
            let name_ok = as_str(name).is_some_and(|n| is_name(n) || n == "=");
            if !name_ok {
                // Reported at the namespace, as murano-pkg-check does.
                self.report(
                    "E060",
                    format!(
                        "invalid prefix {:?} for namespace {:?}",
                        py_str(name),
                        py_str(ns)
                    ),
                    Some(ns),
                );
            }
        }
    }

    fn properties(&mut self, value: &Node) -> R {
        let Some(map) = as_map(value) else {
            self.report("E026", "Properties should be a mapping", Some(value));
            return Ok(());
        };
        for (name, data) in map {
            let Some(data_map) = as_map(data) else {
                return Err(crash("a property declaration that is not a mapping", data));
            };
            if let Some(usage) = get(data_map, "Usage").filter(|u| truthy(u)) {
                if !hashable(usage) {
                    return Err(crash("a property Usage that is a list or a mapping", usage));
                }
                if !as_str(usage).is_some_and(|u| PROPERTY_USAGES.contains(&u)) {
                    self.report(
                        "E042",
                        format!("Usage {:?} is not allowed", py_str(usage)),
                        Some(usage),
                    );
                }
            }
            match get(data_map, "Contract") {
                Some(contract) => self.guard(|s| s.contract(contract)),
                None => self.report(
                    "E047",
                    format!("property {:?} has no Contract", py_str(name)),
                    Some(name),
                ),
            }
            self.keywords(data_map, &PROPERTY_KEYWORDS);
        }
        Ok(())
    }

    /// Whether murano-pkg-check's YAQL engine parses the value.
    fn yaql_ok(&self, node: &Node) -> Result<bool, Crash> {
        match &node.value {
            Value::Str(text) => match engine_grammar().parse(text) {
                Ok(_) => Ok(true),
                Err(e) if e.class().is_yaql_parsing_error() => Ok(false),
                Err(e) => Err(crash(format!("YAQL fails: {e}"), node)),
            },
            // ply refuses a list with ValueError, which is not caught.
            Value::Seq(_) | Value::Pairs(_) => Err(crash("a list where YAQL is expected", node)),
            // A TypeError, caught: not valid.
            _ => Ok(false),
        }
    }

    fn contract(&mut self, node: &Node) -> R {
        if let Some(items) = as_list(node) {
            match items.len() {
                0 => {}
                1 => self.guard(|s| s.contract(&items[0])),
                n => {
                    if (n == 2 && is_int(&items[1]))
                        || (n == 3 && is_int(&items[1]) && is_int(&items[2]))
                    {
                        return Ok(());
                    }
                    for item in items {
                        self.guard(|s| s.contract(item));
                    }
                }
            }
        } else if let Some(map) = as_map(node) {
            for (k, v) in map {
                self.valid_string(k);
                self.guard(|s| s.contract(v));
            }
        } else if let Some(text) = as_str(node) {
            if !self.yaql_ok(node)? || (!text.starts_with("$.") && text != "$") {
                self.report(
                    "W048",
                    format!("contract {text:?} is not valid YAQL"),
                    Some(node),
                );
            }
        } else {
            self.report(
                "W048",
                format!("contract {:?} is not valid YAQL", py_str(node)),
                Some(node),
            );
        }
        Ok(())
    }

    fn methods(&mut self, value: &Node) -> R {
        let Some(map) = as_map(value) else {
            if value.value != Value::Null {
                self.report("E046", "Methods should be a mapping", Some(value));
            }
            return Ok(());
        };
        for (name, data) in map {
            let Some(data_map) = as_map(data) else {
                if truthy(data) {
                    self.report("E046", "a method should be a mapping", Some(name));
                }
                // murano-pkg-check stops at the first such method.
                return Ok(());
            };
            let Some(name_text) = as_str(name) else {
                return Err(crash("a method name that is not a string", name));
            };
            if !(name_text == ".init" || name_text == ".destroy" || is_name(name_text)) {
                self.report(
                    "E054",
                    format!("invalid method name {name_text:?}"),
                    Some(name),
                );
            }
            if let Some(scope) = get(data_map, "Scope").filter(|n| truthy(n)) {
                self.scope(scope);
            }
            if let Some(usage) = get(data_map, "Usage").filter(|n| truthy(n)) {
                self.guard(|s| s.method_usage(usage));
            }
            if let Some(arguments) = get(data_map, "Arguments").filter(|n| truthy(n)) {
                self.guard(|s| s.arguments(arguments));
            }
            if let Some(body) = get(data_map, "Body").filter(|n| truthy(n)) {
                if matches!(body.value, Value::Seq(_) | Value::Str(_) | Value::Map(_)) {
                    self.guard(|s| s.codeblock(body));
                } else {
                    self.report(
                        "E045",
                        "Body should be a list, a string or a mapping",
                        Some(body),
                    );
                }
            }
            self.keywords(data_map, &METHOD_KEYWORDS);
        }
        Ok(())
    }

    fn scope(&mut self, scope: &Node) {
        if self.format_version.as_str() >= "1.4" {
            if !matches!(as_str(scope), Some("Public" | "Session")) {
                self.report(
                    "E044",
                    format!("wrong Scope {:?}", py_str(scope)),
                    Some(scope),
                );
            }
        } else {
            self.report(
                "E044",
                "Scope is not supported before format 1.4",
                Some(scope),
            );
        }
    }

    fn method_usage(&mut self, usage: &Node) -> R {
        let text = as_str(usage);
        if text == Some("Action") {
            if self.format_version.as_str() >= "1.4" {
                self.report(
                    "W045",
                    "Usage \"Action\" is deprecated since format 1.4",
                    Some(usage),
                );
            }
            return Ok(());
        }
        if !hashable(usage) {
            return Err(crash("a method Usage that is a list or a mapping", usage));
        }
        if matches!(text, Some("Static" | "Extension")) {
            if self.format_version.as_str() <= "1.3" {
                self.report(
                    "W045",
                    format!("Usage {:?} needs format 1.4", py_str(usage)),
                    Some(usage),
                );
            }
        } else if text != Some("Runtime") {
            self.report(
                "W045",
                format!("unsupported Usage {:?}", py_str(usage)),
                Some(usage),
            );
        }
        Ok(())
    }

    fn arguments(&mut self, arguments: &Node) -> R {
        let items: Vec<&Node> = match (&arguments.value, as_list(arguments)) {
            (Value::Map(m), _) if m.len() > 1 => {
                self.report(
                    "E048",
                    "arguments written as one mapping with several keys are unsafe",
                    Some(arguments),
                );
                return Ok(());
            }
            (Value::Map(_), _) => vec![arguments],
            (_, Some(items)) => items.iter().collect(),
            _ => {
                self.report(
                    "E046",
                    "Arguments should be a list or a mapping",
                    Some(arguments),
                );
                return Ok(());
            }
        };
        for argument in items {
            let single = as_map(argument).filter(|m| m.len() == 1);
            let Some([(name, value)]) = single else {
                self.report(
                    "E046",
                    "each argument should be a mapping with one key",
                    Some(argument),
                );
                continue;
            };
            if !as_str(name).is_some_and(is_name) {
                self.report(
                    "E054",
                    format!("invalid argument name {:?}", py_str(name)),
                    Some(name),
                );
            }
            let Some(value_map) = as_map(value) else {
                return Err(crash(
                    "an argument declaration that is not a mapping",
                    value,
                ));
            };
            if let Some(contract) = get(value_map, "Contract").filter(|n| truthy(n)) {
                self.guard(|s| s.contract(contract));
            }
            if let Some(usage) = get(value_map, "Usage").filter(|n| truthy(n)) {
                self.guard(|s| s.argument_usage(usage));
            }
            self.keywords(value_map, &ARGUMENT_KEYWORDS);
        }
        Ok(())
    }

    fn argument_usage(&mut self, usage: &Node) -> R {
        if self.format_version.as_str() < "1.4" {
            self.report("E052", "argument Usage needs format 1.4", Some(usage));
        }
        if !hashable(usage) {
            return Err(crash(
                "an argument Usage that is a list or a mapping",
                usage,
            ));
        }
        if !matches!(as_str(usage), Some("Standard" | "VarArgs" | "KwArgs")) {
            self.report(
                "E053",
                format!("invalid argument Usage {:?}", py_str(usage)),
                Some(usage),
            );
        }
        Ok(())
    }

    // ----- code structure -----

    fn run_check(&mut self, check: Check, value: &Node) {
        match check {
            Check::Codeblock => self.guard(|s| s.codeblock(value)),
            Check::Catchblock => self.guard(|s| s.catchblock(value)),
            Check::Yaql => self.guard(|s| s.yaql(value)),
            Check::Empty => {
                if truthy(value) {
                    self.report(
                        "E200",
                        format!("the statement should be empty, not {:?}", py_str(value)),
                        Some(value),
                    );
                }
            }
            Check::Str => self.string(value),
            // Only used by `check_structure`.
            Check::Pair(..) => {}
        }
    }

    fn string(&mut self, value: &Node) {
        if as_str(value).is_none() {
            self.report(
                "E203",
                format!("{:?} should be a string", py_str(value)),
                Some(value),
            );
        }
    }

    fn yaql(&mut self, value: &Node) -> R {
        if !self.yaql_ok(value)? && !matches!(value.value, Value::Bool(_)) {
            self.report(
                "W202",
                format!("{:?} is not a valid YAQL expression", py_str(value)),
                Some(value),
            );
        }
        Ok(())
    }

    fn codeblock(&mut self, block: &Node) -> R {
        match as_list(block) {
            Some(items) => {
                for item in items {
                    self.guard(|s| s.single_block(item));
                }
            }
            None => self.guard(|s| s.single_block(block)),
        }
        Ok(())
    }

    fn single_block(&mut self, block: &Node) -> R {
        if let Some(map) = as_map(block) {
            self.guard(|s| s.check_structure(block, map));
        } else if as_str(block).is_some() {
            self.guard(|s| s.yaql(block));
        }
        Ok(())
    }

    fn catchblock(&mut self, block: &Node) -> R {
        match as_list(block) {
            Some(items) => {
                for item in items {
                    self.guard(|s| s.single_catchblock(item));
                }
            }
            None => self.guard(|s| s.single_catchblock(block)),
        }
        Ok(())
    }

    fn single_catchblock(&mut self, block: &Node) -> R {
        let Some(map) = as_map(block) else {
            return Err(crash("a Catch clause that is not a mapping", block));
        };
        match get(map, "Do").filter(|d| truthy(d)) {
            Some(body) => self.guard(|s| s.codeblock(body)),
            None => self.report("E204", "Catch has no Do block", Some(block)),
        }
        for key in ["With", "As"] {
            if let Some(v) = get(map, key) {
                self.string(v);
            }
        }
        Ok(())
    }

    fn check_structure(&mut self, block: &Node, map: &[(Node, Node)]) -> R {
        let Some((key, keywords)) = CODE_STRUCTURE.iter().find(|(k, _)| has(map, k)) else {
            if map.len() == 1 {
                let k = &map[0].0;
                if !as_str(k).is_some_and(is_assignment_key) {
                    self.report(
                        "E201",
                        format!("{:?} is not a valid variable name", py_str(k)),
                        Some(k),
                    );
                }
            } else {
                self.report(
                    "E204",
                    "wrong code structure or assignment (probably a typo)",
                    Some(block),
                );
            }
            return Ok(());
        };
        for (keyword, _, required) in keywords.iter() {
            if *required && !has(map, keyword) {
                self.report(
                    "E204",
                    format!("keyword {keyword:?} is missing in {key:?}"),
                    Some(block),
                );
            }
        }
        for (k, _) in map {
            let known =
                as_str(k).is_some_and(|k| k == *key || keywords.iter().any(|(w, _, _)| *w == k));
            if !known {
                self.report(
                    "E201",
                    format!("unknown keyword {:?} in {key:?}", py_str(k)),
                    Some(k),
                );
            }
        }
        for (keyword, check, _) in keywords.iter() {
            let Some(data) = get(map, keyword).filter(|d| truthy(d)) else {
                continue;
            };
            match check {
                Check::Pair(left, right) => {
                    let Some(pairs) = as_map(data) else {
                        return Err(crash(format!("{keyword} is not a mapping"), data));
                    };
                    for (l, r) in pairs {
                        self.run_check(**left, l);
                        self.run_check(**right, r);
                    }
                }
                other => self.run_check(*other, data),
            }
        }
        Ok(())
    }

    // ----- UI -----

    fn ui_doc(&mut self, _doc: &Node, map: &[(Node, Node)]) {
        for (k, v) in map {
            match as_str(k) {
                Some("Forms") => self.guard(|s| s.forms(v)),
                Some("Application") => self.application(v),
                Some("Version") if !UI_VERSIONS.contains(&py_str(v).as_str()) => {
                    self.report(
                        "W082",
                        format!("UI version {:?} is not known", py_str(v)),
                        Some(v),
                    );
                }
                _ => {}
            }
        }
        self.top_keys(map, &UI_KEYS, &[]);
    }

    fn application(&mut self, value: &Node) {
        let Some(map) = as_map(value) else {
            self.report("E084", "Application should be a mapping", Some(value));
            return;
        };
        for (name, _) in map {
            if !as_str(name).is_some_and(|n| is_name(n) || n == "?") {
                self.report(
                    "E083",
                    format!("invalid name {:?} in Application", py_str(name)),
                    Some(name),
                );
            }
        }
    }

    fn forms(&mut self, forms: &Node) -> R {
        for named in py_iter(forms)? {
            let Some(named_map) = as_map(named) else {
                return Err(crash("a form entry that is not a mapping", named));
            };
            for (_, form) in named_map {
                let Some(form_map) = as_map(form) else {
                    return Err(crash("a form that is not a mapping", form));
                };
                let Some(fields) = get(form_map, "fields") else {
                    return Err(crash("a form without fields", form));
                };
                self.guard(|s| s.form_fields(fields));
                self.keywords(form_map, &["fields", "validators"]);
            }
        }
        Ok(())
    }

    fn form_fields(&mut self, fields: &Node) -> R {
        for field in py_iter(fields)? {
            let Some(map) = as_map(field) else {
                return Err(crash("a field that is not a mapping", field));
            };
            for (k, v) in map {
                match as_str(k) {
                    Some(
                        key @ ("name" | "label" | "description" | "descriptionTitle"
                        | "regexpValidator" | "helpText"),
                    ) if as_str(v).is_none() => {
                        self.report(
                            "E040",
                            format!("{key} should be a string, not {:?}", py_str(v)),
                            Some(k),
                        );
                    }
                    Some(key @ ("required" | "hidden")) if !matches!(v.value, Value::Bool(_)) => {
                        self.report(
                            "E081",
                            format!("{key} should be a boolean, not {:?}", py_str(v)),
                            Some(k),
                        );
                    }
                    Some(key @ ("minLength" | "maxLength" | "minValue" | "maxValue"))
                        if !is_int(v) =>
                    {
                        // murano-pkg-check reports an unregistered code
                        // here, which raises.
                        return Err(crash(format!("{key} should be an integer"), k));
                    }
                    Some("type") => self.field_type(v),
                    _ => {}
                }
            }
        }
        Ok(())
    }

    fn field_type(&mut self, value: &Node) {
        if let Some(items) = as_list(value) {
            for item in items {
                self.field_type(item);
            }
        } else if let Some(name) = as_str(value).filter(|s| is_fqn(s)) {
            if !name.contains('.') && !FIELD_TYPES.contains(&name) {
                self.report(
                    "W100",
                    format!("{name:?} is not a known field type (a typo?)"),
                    Some(value),
                );
            }
        } else {
            self.report(
                "E100",
                format!(
                    "{:?} is not a class name or a known field type",
                    py_str(value)
                ),
                Some(value),
            );
        }
    }

    // ----- package -----

    fn package_files(&mut self, paths: &[String]) {
        let root: Vec<&str> = paths
            .iter()
            .map(String::as_str)
            .filter(|p| !p.contains('/'))
            .collect();
        // murano-pkg-check means to exempt the manifest's `Logo` here, but
        // it calls `.yaml()` on the file *name* `search_for` yields: the
        // AttributeError is caught and the exempt file is always
        // `logo.png` (any other logo file is W120; a `Logo` list is fine).
        let logo = "logo.png";
        for file in &root {
            if !KNOWN_ROOT.contains(file) && *file != logo {
                self.out.push(diagnostic(
                    "W120",
                    format!("unknown file {file:?} in the package"),
                    Some(file),
                    None,
                ));
            }
        }
        for required in ["manifest.yaml", "LICENSE"] {
            if !root.contains(&required) {
                self.report_package("W121", format!("{required:?} is missing in the package"));
            }
        }
    }
}

/// What `for x in value` walks in Python: a list's items, a mapping's keys,
/// a string's characters (here only whether there are any); a crash for
/// anything else.
fn py_iter(node: &Node) -> Result<Vec<&Node>, Crash> {
    match &node.value {
        Value::Seq(items) => Ok(items.iter().collect()),
        Value::Map(pairs) => Ok(pairs.iter().map(|(k, _)| k).collect()),
        Value::Str(s) if s.is_empty() => Ok(Vec::new()),
        Value::Str(_) => Err(crash("a string where a list is expected", node)),
        _ => Err(crash("not a list", node)),
    }
}
