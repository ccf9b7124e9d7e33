//! The checks behind the fuzz targets in `fuzz/`, kept here so that the
//! seed corpora and regression inputs replay as ordinary tests on a stable
//! toolchain. Each check panics when an invariant breaks.

use murano_yaql::{Grammar, ParseOptions};

/// YAQL lexing and parsing in every built-in grammar: no panic; a tree
/// prints in both forms, and its source form parses back to the same tree.
pub fn yaql_parse(data: &[u8]) {
    let Ok(source) = std::str::from_utf8(data) else {
        return;
    };
    let options = ParseOptions::default().with_max_depth(64);
    for grammar in [
        Grammar::standard(),
        Grammar::standard_with_delegates(),
        Grammar::murano(),
        Grammar::legacy(),
    ] {
        let _ = grammar.tokenize(source);
        match grammar.parse_with(source, &options) {
            Ok(tree) => {
                let _ = tree.to_string();
                let printed = tree.root().to_source();
                let again = grammar
                    .parse(&printed)
                    .unwrap_or_else(|e| panic!("{source:?} printed as {printed:?} fails: {e}"));
                assert!(
                    again.root().same_tree(tree.root()),
                    "{source:?} printed as {printed:?} reads back differently"
                );
            }
            Err(e) => {
                let _ = e.render(source);
                assert!(e.span().end as usize <= source.len());
            }
        }
    }
}

/// YAML loading in the three flavours, and class-model building: no
/// panic, errors have marks inside the text, and loading is deterministic.
pub fn yaml_load(data: &[u8]) {
    use murano_dsl::model::ClassDefinition;
    use murano_dsl::yaml::{load_class_file, load_manifest, load_ui_file, LoadOptions};

    let options = LoadOptions::default()
        .with_max_nodes(100_000)
        .with_max_depth(64);
    let chars = String::from_utf8_lossy(data).chars().count() + 1;
    let check_mark = |e: &murano_dsl::yaml::YamlError| {
        if let Some(mark) = e.mark() {
            assert!(mark.index <= chars, "mark {mark:?} beyond the text");
        }
    };
    match load_class_file(data, &options) {
        Ok(file) => {
            let again = load_class_file(data, &options).expect("loads twice the same");
            assert_eq!(file, again);
            for class in ClassDefinition::from_documents(&file.documents, None) {
                let mut n = 0;
                class.for_each_expression(&mut |_| n += 1);
                let _ = class.issues().count();
            }
        }
        Err(e) => check_mark(&e),
    }
    if let Err(e) = load_ui_file(data, &options) {
        check_mark(&e);
    }
    if let Ok(text) = std::str::from_utf8(data) {
        if let Err(e) = load_manifest(text, &options) {
            check_mark(&e);
        }
    }
}

/// A package from a manifest (and, when the input has a NUL byte, a Heat
/// template after it): every property and the generated class and UI.
pub fn package_load(data: &[u8]) {
    use murano_packages::source::FileMap;
    use murano_packages::PluginRegistry;

    let (manifest, template) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], Some(&data[i + 1..])),
        None => (data, None),
    };
    let mut files = FileMap::new();
    let _ = files.insert("manifest.yaml", manifest.to_vec());
    if let Some(template) = template {
        let _ = files.insert("template.yaml", template.to_vec());
        let _ = files.insert("Classes/A.yaml", template.to_vec());
    }
    let Ok(package) = PluginRegistry::with_builtins().load(files) else {
        return;
    };
    let _ = (
        package.display_name(),
        package.description(),
        package.author(),
        package.supplier(),
    );
    let _ = (
        package.tags(),
        package.logo(),
        package.supplier_logo(),
        package.meta(),
    );
    let _ = package.requirements();
    if let Ok(classes) = package.classes() {
        for class in classes {
            if let Ok(source) = package.get_class(&class) {
                let _ = murano_dsl::yaml::load_class_file(&source.bytes, &Default::default());
            }
        }
    }
    if let Ok(Some(ui)) = package.ui() {
        let _ = murano_dsl::yaml::load_ui_file(&ui, &Default::default());
    }
}

/// Zip archives from bytes: no panic; what is accepted stays inside the
/// package root and within the limits.
pub fn zip_read(data: &[u8]) {
    use murano_packages::archive::ArchiveLimits;
    use murano_packages::source::FileMap;

    let limits = ArchiveLimits::default();
    if let Ok(files) = FileMap::from_zip(data, &limits) {
        let total: usize = files
            .paths()
            .map(|p| {
                assert!(
                    !p.starts_with('/') && !p.split('/').any(|part| part == ".."),
                    "{p}"
                );
                murano_packages::source::PackageSource::read(&files, p).map_or(0, <[u8]>::len)
            })
            .sum();
        assert!(total as u64 <= limits.max_total_size);
    }
}

/// Version strings and specs: no panic, and a spec's normalised form
/// parses again to the same normalised form.
pub fn version_spec(data: &[u8]) {
    use murano_dsl::version::{parse_version_spec, Version, VersionSpec, YamlScalar};

    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = Version::coerce(text);
    if let Ok(spec) = parse_version_spec(&YamlScalar::from(text)) {
        let normalized = spec.normalized();
        if let Ok(again) = VersionSpec::parse(&normalized) {
            assert_eq!(again.normalized(), normalized, "{text:?}");
        }
        let _ = spec.items();
        if let Ok(v) = Version::coerce(text) {
            let _ = spec.matches(&v);
        }
    }
}

/// A fuzz check: panics when an invariant breaks.
pub type Check = fn(&[u8]);

/// The fuzz targets and their checks, by target name.
pub const TARGETS: &[(&str, Check)] = &[
    ("yaql_parse", yaql_parse),
    ("yaml_load", yaml_load),
    ("package_load", package_load),
    ("zip_read", zip_read),
    ("version_spec", version_spec),
];
