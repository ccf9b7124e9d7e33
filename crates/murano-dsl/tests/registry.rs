//! The class registry on real packages: every package tree of the corpus
//! in one registry (all Extends resolve, no cycles, every hierarchy
//! computes), and the engine oracle's schema cases (type weights as
//! Murano computes them, and the hierarchy and meta errors Murano raises).
//!
//! The data root comes from `MURANO_SHARED` (default `../shared` beside
//! the workspace); the tests print a message and pass when it is absent.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use murano_dsl::model::ClassDefinition;
use murano_dsl::registry::{
    codes, ClassId, ClassRegistry, PackageId, PackageInfo, RegistryBuilder, Resolution,
};
use murano_dsl::version::{manifest_version, parse_version_spec, YamlScalar};
use murano_dsl::yaml::{load_class_file, load_manifest, LoadOptions, Node, Value};
use murano_testkit::{data_root, files_below, read_jsonl};

fn shared() -> Option<PathBuf> {
    data_root(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// Names that some `Extends` of the corpus uses but no package of the
/// corpus declares: `com.mirantis.PaloAltoNode` extends a class of the
/// package `org.openstack.networkingSfc`, which is not in the corpus.
const GENUINELY_MISSING: &[&str] = &["org.openstack.networkingSfc.Instance"];

fn scalar(node: &Node) -> YamlScalar {
    match &node.value {
        Value::Null => YamlScalar::Null,
        Value::Bool(b) => YamlScalar::Bool(*b),
        Value::Int(i) => YamlScalar::Int(i.to_string()),
        Value::Float(x) => YamlScalar::Float(*x),
        Value::Str(s) => YamlScalar::Str(s.clone()),
        Value::Date(_) | Value::Timestamp(_) => YamlScalar::Date(node.value.python_str()),
        other => YamlScalar::Other {
            text: other.python_str(),
            truthy: other.is_truthy(),
        },
    }
}

/// A package folder: its manifest's information and its class
/// definitions.
struct PackageDir {
    dir: PathBuf,
    info: PackageInfo,
    classes: Vec<ClassDefinition>,
    problems: Vec<String>,
}

fn read_package(dir: &Path) -> Result<PackageDir, String> {
    let manifest_path = dir.join("manifest.yaml");
    let text = std::fs::read_to_string(&manifest_path).map_err(|e| e.to_string())?;
    let manifest = load_manifest(&text, &LoadOptions::default())
        .map_err(|e| format!("{}: {e}", manifest_path.display()))?
        .ok_or("empty manifest")?;
    let name = manifest
        .value
        .get("FullName")
        .map(|n| n.value.python_str())
        .ok_or("no FullName")?;
    let version = manifest_version(manifest.value.get("Version").map(scalar).as_ref())
        .map_err(|e| format!("{}: Version: {e}", dir.display()))?;
    let mut info = PackageInfo::new(name, version);
    let mut problems = Vec::new();
    if let Some(require) = manifest.value.get("Require").and_then(|r| r.value.as_map()) {
        for (k, v) in require {
            match parse_version_spec(&scalar(v)) {
                Ok(spec) => info = info.with_requirement(k.value.python_str(), spec),
                Err(e) => problems.push(format!("Require {}: {e}", k.value.python_str())),
            }
        }
    }
    if let Some(meta) = manifest.value.get("Meta") {
        info = info.with_meta(meta.clone());
    }
    // Every YAML file under Classes/ and every file the manifest's
    // Classes names.
    let mut files: BTreeSet<PathBuf> = files_below(&dir.join("Classes"))
        .into_iter()
        .map(|(_, path)| path)
        .filter(|path| path.extension().and_then(|e| e.to_str()) == Some("yaml"))
        .collect();
    if let Some(listed) = manifest.value.get("Classes").and_then(|c| c.value.as_map()) {
        for (_, file) in listed {
            let path = dir.join("Classes").join(file.value.python_str());
            if path.is_file() {
                files.insert(path);
            }
        }
    }
    let mut classes = Vec::new();
    for file in files {
        let bytes = std::fs::read(&file).map_err(|e| e.to_string())?;
        match load_class_file(&bytes, &LoadOptions::default()) {
            Ok(loaded) => classes.extend(ClassDefinition::from_documents(&loaded.documents, None)),
            Err(e) => problems.push(format!("{}: {e}", file.display())),
        }
    }
    Ok(PackageDir {
        dir: dir.to_owned(),
        info,
        classes,
        problems,
    })
}

/// Package folders under `root`: directories with a manifest that are not
/// inside another package folder, in sorted path order.
fn package_dirs(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_owned()];
    while let Some(dir) = stack.pop() {
        if dir.join("manifest.yaml").is_file() {
            out.push(dir);
            continue;
        }
        if let Ok(rd) = std::fs::read_dir(&dir) {
            stack.extend(
                rd.filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.is_dir()),
            );
        }
    }
    out.sort();
    out
}

struct Built {
    registry: ClassRegistry,
    /// Package folder → package id.
    packages: HashMap<PathBuf, PackageId>,
    classes: usize,
}

fn build(dirs: &[PathBuf], resolution: Resolution) -> Built {
    let mut builder = RegistryBuilder::new().resolution(resolution);
    let mut packages = HashMap::new();
    let mut classes = 0;
    for dir in dirs {
        let package = match read_package(dir) {
            Ok(p) => p,
            Err(e) => {
                println!("  skipped package {}: {e}", dir.display());
                continue;
            }
        };
        for problem in &package.problems {
            println!("  {}: {problem}", package.dir.display());
        }
        let id = match builder.add_package(package.info) {
            Ok(id) => id,
            Err(e) => {
                println!("  {}: {e}", dir.display());
                continue;
            }
        };
        packages.insert(dir.clone(), id);
        for class in package.classes {
            match builder.add_class(id, class) {
                Ok(_) => classes += 1,
                Err(e) => println!("  {}: {e}", dir.display()),
            }
        }
    }
    Built {
        registry: builder.build(),
        packages,
        classes,
    }
}

/// The unresolved parent names of a registry (by name), with the classes
/// using them.
fn unresolved_parents(registry: &ClassRegistry) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for class in registry.classes() {
        let Some(def) = registry.definition(class) else {
            continue;
        };
        for (i, link) in registry.parent_links(class).iter().enumerate() {
            if link.target.is_err() {
                let name = match &link.written {
                    None => "io.murano.Object".to_owned(),
                    Some(_) => def
                        .extends
                        .get(i)
                        .and_then(|t| t.resolved.clone().ok())
                        .unwrap_or_else(|| link.written.clone().unwrap_or_default()),
                };
                out.entry(name)
                    .or_default()
                    .insert(registry.class_name(class).unwrap_or("?").to_owned());
            }
        }
    }
    out
}

#[test]
fn corpus_packages_link() {
    let Some(root) = shared() else { return };
    let dirs = package_dirs(&root.join("corpus/packages"));
    assert!(!dirs.is_empty(), "no package folders found");

    let strict = build(&dirs, Resolution::Strict);
    let lenient = build(&dirs, Resolution::Lenient);
    let registry = &lenient.registry;
    println!(
        "registry: {} package folders, {} classes registered",
        strict.packages.len(),
        strict.classes
    );

    let strictly_unresolved = unresolved_parents(&strict.registry);
    println!(
        "strict (Murano's Require rules): {} parent names unresolved",
        strictly_unresolved.len()
    );
    for (name, users) in &strictly_unresolved {
        println!(
            "  {name} <- {}",
            users.iter().cloned().collect::<Vec<_>>().join(", ")
        );
    }
    let outside: Vec<_> = registry
        .diagnostics()
        .iter()
        .filter(|d| d.code == codes::OUTSIDE_REQUIREMENTS)
        .collect();
    println!(
        "lenient: {} names resolved outside their package's requirements",
        outside.len()
    );
    let missing = unresolved_parents(registry);
    println!(
        "lenient: {} parent names missing from the corpus",
        missing.len()
    );
    for (name, users) in &missing {
        println!(
            "  {name} <- {}",
            users.iter().cloned().collect::<Vec<_>>().join(", ")
        );
    }
    let unexpected: Vec<_> = missing
        .keys()
        .filter(|n| !GENUINELY_MISSING.contains(&n.as_str()))
        .collect();
    assert!(
        unexpected.is_empty(),
        "unexpected unresolved parents: {unexpected:?}"
    );

    let cycles: Vec<_> = registry
        .diagnostics()
        .iter()
        .filter(|d| d.code == codes::CYCLE)
        .collect();
    assert!(cycles.is_empty(), "cycles: {cycles:?}");

    let mut weighed = 0;
    let mut deepest = 0;
    for class in registry.classes() {
        let mro = registry
            .mro(class)
            .unwrap_or_else(|e| panic!("{:?}: {e}", registry.class_name(class)));
        let weights = registry
            .type_weights(class)
            .unwrap_or_else(|e| panic!("{:?}: {e}", registry.class_name(class)));
        assert_eq!(
            weights.get(registry.class_name(class).unwrap_or("?")),
            Some(0)
        );
        if registry.is_complete(class) {
            assert!(
                mro.iter()
                    .any(|c| registry.class_name(*c) == Some("io.murano.Object")),
                "{:?} does not reach io.murano.Object",
                registry.class_name(class)
            );
        }
        deepest = deepest.max(weights.iter().map(|(_, w)| w).max().unwrap_or(0));
        for name in registry.all_method_names(class).unwrap_or_default() {
            let _ = registry.find_method(class, name);
        }
        for name in registry.all_property_names(class).unwrap_or_default() {
            let _ = registry.property_meta(class, name);
        }
        let _ = registry.class_meta(class);
        weighed += 1;
    }
    println!("mro and weights computed for {weighed} classes (deepest weight {deepest})");

    let mut by_code: BTreeMap<&str, usize> = BTreeMap::new();
    for d in registry.diagnostics() {
        *by_code.entry(d.code).or_default() += 1;
    }
    println!("lenient diagnostics by code: {by_code:?}");
    for (d, _, class) in registry.diagnostic_origins() {
        if d.code != codes::OUTSIDE_REQUIREMENTS {
            let where_ = class
                .and_then(|c| registry.class_name(c))
                .unwrap_or("package meta");
            println!("  {where_}: {d}");
        }
    }
}

/// The engine oracle's schema cases of the directory loader: every class's
/// type weights equal Murano's (the oracle lists them sorted by name).
#[test]
fn engine_oracle_type_weights() {
    let Some(root) = shared() else { return };
    let oracle = root.join("corpus/engine-oracle");
    let Ok(cases) = read_jsonl(&oracle.join("schema_cases.jsonl")) else {
        println!("no schema cases; skipping");
        return;
    };
    let catalog_dir = |entry: &str| -> PathBuf {
        if let Some(rest) = entry.strip_prefix("synthetic/") {
            oracle.join("synthetic").join(rest)
        } else {
            root.join("corpus/packages").join(entry)
        }
    };
    let mut registries: HashMap<Vec<String>, Built> = HashMap::new();
    let (mut compared, mut failures) = (0, Vec::new());
    for case in &cases {
        if case["loader"] != "directory" {
            continue;
        }
        let Some(expected) = case.get("type_weights").and_then(|w| w.as_object()) else {
            continue;
        };
        let catalog: Vec<String> = case["catalog"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|e| e.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        let built = registries.entry(catalog.clone()).or_insert_with(|| {
            let dirs: Vec<PathBuf> = catalog.iter().map(|e| catalog_dir(e)).collect();
            build(&dirs, Resolution::Strict)
        });
        let id = case["id"].as_str().unwrap_or("?");
        let package_dir = catalog_dir(case["package_dir"].as_str().unwrap_or(""));
        let class_name = case["class"].as_str().unwrap_or("");
        let Some(class) = built
            .packages
            .get(&package_dir)
            .and_then(|p| built.registry.class_in_package(*p, class_name))
        else {
            failures.push(format!("{id}: class not registered"));
            continue;
        };
        compared += 1;
        let expected: BTreeMap<String, usize> = expected
            .iter()
            .map(|(k, v)| (k.clone(), v.as_u64().unwrap_or(u64::MAX) as usize))
            .collect();
        match built.registry.type_weights(class) {
            Ok(w) => {
                let got: BTreeMap<String, usize> =
                    w.iter().map(|(n, w)| (n.to_owned(), w)).collect();
                assert_eq!(got.len(), w.len(), "{id}: a name twice");
                if got != expected {
                    failures.push(format!("{id}: got {got:?}, expected {expected:?}"));
                }
            }
            Err(e) => failures.push(format!("{id}: {e}")),
        }
    }
    println!("type weights compared with Murano for {compared} classes");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(compared > 100, "only {compared} cases compared");
}

/// The errors the oracle records for hierarchy, meta and member lookup
/// are found by the registry with the same Python exception.
#[test]
fn engine_oracle_errors() {
    let Some(root) = shared() else { return };
    let oracle = root.join("corpus/engine-oracle");
    let Ok(cases) = read_jsonl(&oracle.join("schema_cases.jsonl")) else {
        println!("no schema cases; skipping");
        return;
    };
    let dirs: Vec<PathBuf> = {
        let mut dirs = vec![
            root.join("corpus/packages/murano/meta/io.murano"),
            root.join("corpus/packages/murano/meta/io.murano.applications"),
        ];
        dirs.extend(package_dirs(&oracle.join("synthetic")));
        dirs
    };
    let synthetic = build(&dirs, Resolution::Strict);
    let apps = build(
        &package_dirs(&root.join("corpus/packages")),
        Resolution::Strict,
    );
    let registry_for = |set: &str| {
        if set == "synthetic" {
            &synthetic
        } else {
            &apps
        }
    };
    // (case id suffix, how the registry reports it, Python exception)
    let expectations: &[(&str, &str, &str)] = &[
        (
            "contracts.HiddenOnClass",
            codes::META_NOT_APPLICABLE,
            "ValueError",
        ),
        ("contracts.TwoTitles", codes::META_CARDINALITY, "ValueError"),
        (
            "contracts.UnknownMeta",
            codes::META_UNRESOLVED,
            "NoClassFound",
        ),
        (
            "forms.TitledDiamond",
            codes::META_INHERITANCE_CONFLICT,
            "ValueError",
        ),
        (
            "forms.AmbiguousProps",
            "query",
            "AmbiguousPropertyNameError",
        ),
        ("PaloAltoApp", codes::UNRESOLVED_PARENT, "NoPackageFound"),
    ];
    let mut checked = 0;
    for case in &cases {
        let id = case["id"].as_str().unwrap_or("?");
        let Some(&(_, code, exception)) = expectations.iter().find(|(s, _, _)| id.ends_with(s))
        else {
            continue;
        };
        assert_eq!(case["error"]["type"], exception, "{id}: oracle changed");
        let built = registry_for(case["set"].as_str().unwrap_or(""));
        let class_name = case["class"].as_str().unwrap_or("");
        let class: ClassId = built
            .registry
            .find_class(class_name, None)
            .unwrap_or_else(|| panic!("{id}: {class_name} not registered"));
        if code == "query" {
            let errors: Vec<_> = built
                .registry
                .all_property_names(class)
                .unwrap_or_default()
                .into_iter()
                .filter_map(|p| built.registry.find_single_property(class, p).err())
                .collect();
            assert!(
                errors.iter().any(|e| e.python_exception() == exception),
                "{id}: {errors:?}"
            );
        } else {
            // The problem is in the class's hierarchy or its package.
            let mut in_hierarchy = built.registry.mro(class).unwrap_or_default();
            in_hierarchy.push(class);
            let package = built.registry.package_of(class);
            let found = built
                .registry
                .diagnostic_origins()
                .find(|(d, _, class)| {
                    d.code == code
                        && d.python_exception == Some(exception)
                        && class.is_some_and(|c| {
                            in_hierarchy.contains(&c) || built.registry.package_of(c) == package
                        })
                })
                .map(|(d, _, _)| d);
            assert!(
                found.is_some(),
                "{id}: no {code} ({exception}) in {:?}",
                built
                    .registry
                    .diagnostic_origins()
                    .filter(|(_, _, class)| class.is_some_and(|c| in_hierarchy.contains(&c)))
                    .map(|(d, _, _)| d)
                    .collect::<Vec<_>>()
            );
            let message = found.map(|d| d.message.as_str()).unwrap_or("");
            if matches!(exception, "NoClassFound" | "NoPackageFound") {
                assert_eq!(case["error"]["message"], message, "{id}");
            }
            println!("{id}: {message}");
        }
        checked += 1;
    }
    assert_eq!(checked, expectations.len(), "oracle cases not found");
}
