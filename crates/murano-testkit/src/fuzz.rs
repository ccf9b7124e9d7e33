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
    use murano_yaml::{load_class_file, load_manifest, load_ui_file, LoadOptions};

    let options = LoadOptions::default()
        .with_max_nodes(100_000)
        .with_max_depth(64);
    let chars = String::from_utf8_lossy(data).chars().count() + 1;
    let check_mark = |e: &murano_yaml::YamlError| {
        if let Some(mark) = e.mark() {
            assert!(
                mark.index as usize <= chars,
                "mark {mark:?} beyond the text"
            );
        }
    };
    match load_class_file(data, &options) {
        Ok(file) => {
            let again = load_class_file(data, &options).expect("loads twice the same");
            // Compared as printed: a `.nan` value is not equal to itself.
            assert_eq!(format!("{file:?}"), format!("{again:?}"));
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
        // The plain fast path (Heat templates) builds what the general
        // loader builds, or leaves the text to it.
        crate::plain_fast_path::check(text, &options);
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
                let _ = murano_yaml::load_class_file(&source.bytes, &Default::default());
            }
        }
    }
    if let Ok(Some(ui)) = package.ui() {
        let _ = murano_yaml::load_ui_file(&ui, &Default::default());
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

/// Splits fuzz input at the first NUL byte: the part before it and, when
/// there is one, the part after it.
fn split_nul(data: &[u8]) -> (&[u8], Option<&[u8]>) {
    match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], Some(&data[i + 1..])),
        None => (data, None),
    }
}

/// Limits for the YAML data the fuzz checks load: small enough that one
/// execution stays fast.
fn fuzz_load_options() -> murano_yaml::LoadOptions {
    murano_yaml::LoadOptions::default()
        .with_max_nodes(10_000)
        .with_max_depth(64)
}

/// The step budget of one `yaql_eval` execution: a few milliseconds.
const FUZZ_FUEL: u64 = 100_000;

/// YAQL evaluation: an expression and, after a NUL byte, JSON or YAML data
/// bound to `$`. A leading `\x01` selects yaql's legacy engine and library,
/// `\x02` Murano's engine (format 1.2+ options); anything else is the
/// standard engine with delegates. Evaluation under the default limits
/// (with a smaller step budget) ends with a value or an error, never a
/// panic, and the result prints.
pub fn yaql_eval(data: &[u8]) {
    use murano_yaml::{load_single, Flavor};
    use murano_yaql::eval::{Context, Engine, Library};
    use std::sync::Arc;

    let (expr, input) = split_nul(data);
    let (mut engine, library, expr) = match expr.first() {
        Some(1) => (Engine::legacy(), Library::legacy(), &expr[1..]),
        Some(2) => (Engine::murano(true), Library::standard(false), &expr[1..]),
        _ => (Engine::standard(), Library::standard(true), expr),
    };
    let Ok(source) = std::str::from_utf8(expr) else {
        return;
    };
    engine.options_mut().fuel = Some(FUZZ_FUEL);
    let mut context = Context::new(Arc::new(library));
    if let Some(input) = input {
        match load_single(input, Flavor::Plain, &fuzz_load_options()) {
            Ok(Some(node)) => {
                context = context.with("$", murano_ui::definition::yaml_to_value(&node))
            }
            Ok(None) => context = context.with("$", murano_yaql::eval::Value::Null),
            Err(_) => return,
        }
    }
    let Ok(query) = engine.compile(source) else {
        return;
    };
    match query.evaluate(&context) {
        Ok(value) => {
            let _ = value.py_str();
        }
        Err(e) => {
            let _ = (e.kind(), e.to_string());
        }
    }
}

/// A cloud with no resources at all, for `ui_load`.
struct EmptyCloud;

impl murano_ui::host::Host for EmptyCloud {
    fn region(&self) -> String {
        "RegionOne".into()
    }
    fn flavors(&self) -> Vec<murano_ui::host::Flavor> {
        Vec::new()
    }
    fn images(&self) -> Vec<murano_ui::host::Image> {
        Vec::new()
    }
    fn keypairs(&self) -> Vec<String> {
        Vec::new()
    }
    fn availability_zones(&self) -> Vec<murano_ui::host::AvailabilityZone> {
        Vec::new()
    }
    fn networks(&self) -> Vec<murano_ui::host::Network> {
        Vec::new()
    }
    fn environments(&self) -> Vec<String> {
        Vec::new()
    }
    fn security_groups(&self) -> Vec<String> {
        Vec::new()
    }
    fn volumes(&self) -> Vec<murano_ui::host::Named> {
        Vec::new()
    }
    fn volume_snapshots(&self) -> Vec<murano_ui::host::Named> {
        Vec::new()
    }
    fn dns_zones(&self) -> Vec<String> {
        Vec::new()
    }
    fn package_exists(&self, _fqn: &str) -> bool {
        false
    }
    fn environment_services(
        &self,
        _environment_id: Option<&str>,
    ) -> Vec<murano_ui::host::ExistingApp> {
        Vec::new()
    }
    fn encrypt_data(&self, _data: &str) -> Result<String, String> {
        Err("no secret store".into())
    }
    fn call_static_action(&self, _body: &serde_json::Value) -> Result<serde_json::Value, String> {
        Err("no Murano API".into())
    }
}

/// Dynamic UI: a definition (YAML) and, after a NUL byte, form values as
/// `field=value` lines posted to every step (over the fields' constant
/// `initial` values, as a browser posts them). The definition loads or is
/// rejected; the wizard is built over a cloud with no resources, each
/// step's choices are listed and the step submitted, and when every step
/// is valid `finish()` evaluates the application. No panic.
pub fn ui_load(data: &[u8]) {
    use murano_ui::definition::Definition;
    use murano_ui::host::SequentialEntropy;
    use murano_ui::wizard::{Package, StepOutcome, Wizard};
    use murano_yaml::Value as Y;
    use std::collections::BTreeMap;
    use std::sync::Arc;

    let (ui, values) = split_nul(data);
    let Ok(definition) = Definition::load(ui) else {
        return;
    };
    let mut posted_values = BTreeMap::new();
    if let Some(values) = values {
        for line in String::from_utf8_lossy(values).lines() {
            if let Some((k, v)) = line.split_once('=') {
                posted_values.insert(k.to_owned(), v.to_owned());
            }
        }
    }
    let _ = definition.form_names();
    let forms = definition.forms.clone();
    let package = Package {
        fqn: "com.example.Fuzz".into(),
        name: "Fuzz".into(),
        id: "fuzz-id".into(),
        version: "1.0.0".into(),
    };
    let Ok(mut wizard) = Wizard::new(
        Arc::new(definition),
        package,
        Some("env-id".into()),
        Some(Arc::new(EmptyCloud)),
        Box::new(SequentialEntropy::default()),
    ) else {
        return;
    };
    let _ = wizard.static_action_call();
    for (index, form) in forms.iter().enumerate() {
        let mut posted = BTreeMap::new();
        for field in &form.fields {
            let _ = field.display_label();
            if field.kind.is_select() {
                let _ = wizard.options(field);
            }
            let initial = match field.initial.as_ref().map(|n| &n.value) {
                None | Some(Y::Map(_) | Y::Seq(_) | Y::Null | Y::Bool(false)) => continue,
                Some(Y::Bool(true)) => "on".to_owned(),
                Some(other) => other.python_str(),
            };
            posted.insert(field.name.clone(), initial);
        }
        for (k, v) in &posted_values {
            posted.insert(k.clone(), v.clone());
        }
        match wizard.submit(index, &posted) {
            Ok(StepOutcome::Valid(_)) => {}
            Ok(StepOutcome::Invalid(_)) | Err(_) => return,
        }
    }
    let _ = wizard.cleaned_data(true);
    let _ = wizard.finish();
}

/// Contracts: a contract (YAML) and, after a NUL byte, data (YAML or
/// JSON). Under runtimes 1.0 and 1.4, with an in-memory object store that
/// knows one class and one object, the contract transforms, validates and
/// type-checks the data, the absent value, and the data read as a class
/// file's `Default:` (YAQL evaluated). No panic.
pub fn contract_apply(data: &[u8]) {
    use murano_dsl::contract::{Contract, MemoryHost, Runtime, Scope};
    use murano_yaml::{load_single, Flavor};
    use std::sync::Arc;

    let (contract, input) = split_nul(data);
    let Ok(text) = std::str::from_utf8(contract) else {
        return;
    };
    let Ok(contract) = Contract::parse_yaml(text) else {
        return;
    };
    let input = input.unwrap_or_default();
    let options = fuzz_load_options();
    let value = match load_single(input, Flavor::Plain, &options) {
        Ok(node) => node.as_ref().map(murano_ui::definition::yaml_to_value),
        Err(_) => None,
    };
    let default = load_single(input, Flavor::Engine, &options).ok().flatten();
    for (major, minor) in [(1, 0), (1, 4)] {
        let mut host = MemoryHost::new();
        host.add_class("io.murano.Object", &[]);
        host.add_class("com.example.Server", &["io.murano.Object"]);
        host.add_alias("Server", "com.example.Server");
        let server = host.add_object("s1", "com.example.Server", None);
        let scope =
            Scope::new(Arc::new(Runtime::new(major, minor)), Arc::new(host)).with_this(server);
        if let Some(value) = &value {
            if let Ok(out) = contract.transform(&scope, Some(value), None) {
                let _ = out.python_type();
                let _ = contract.validate(&scope, Some(&out.value), None);
            }
            let _ = contract.validate(&scope, Some(value), None);
            let _ = contract.check_type(&scope, Some(value), None);
        }
        let _ = contract.transform(&scope, None, None);
        if let Some(default) = &default {
            let _ = contract.transform(&scope, None, Some(default));
            let _ = contract.check_type(&scope, None, Some(default));
        }
    }
}

/// The base classes every schema-generation input sees: an object root
/// and the metadata classes the generator reads (written for the fuzzer,
/// shaped like Murano's core library).
const SCHEMA_BASE_CLASSES: &[(&str, &str)] = &[
    ("Object.yaml", "Name: io.murano.Object\n"),
    (
        "ModelBuilder.yaml",
        "Namespaces: {=: io.murano.metadata}\nName: ModelBuilder\nUsage: Meta\n\
         Applies: Method\nProperties:\n  enabled: {Contract: $.bool().notNull(), Default: true}\n",
    ),
    (
        "Title.yaml",
        "Namespaces: {=: io.murano.metadata}\nName: Title\nUsage: Meta\n\
         Properties:\n  text: {Contract: $.string().notNull()}\n",
    ),
    (
        "Position.yaml",
        "Namespaces: {=: io.murano.metadata.forms}\nName: Position\nUsage: Meta\n\
         Applies: [Property, Argument]\nProperties:\n  index: {Contract: $.int()}\n\
           section: {Contract: $.string()}\n",
    ),
    (
        "Section.yaml",
        "Namespaces: {=: io.murano.metadata.forms}\nName: Section\nUsage: Meta\n\
         Applies: Type\nCardinality: Many\nProperties:\n  name: {Contract: $.string().notNull()}\n\
           title: {Contract: $.string()}\n  index: {Contract: $.int()}\n",
    ),
];

/// Schema generation: up to four class files (separated by NUL bytes)
/// beside a small base library, under runtimes 1.0 and 1.4; every class's
/// schemas (the class and all its model builders) are generated. No
/// panic; an answer serialises as JSON and has the class schema; an error
/// has a status and a message.
pub fn schema_generate(data: &[u8]) {
    use murano_dsl::version::Version;
    use murano_schema::{generate, CatalogBuilder, SchemaRequest};

    let inputs = data.split(|&b| b == 0).take(4);
    let mut files: Vec<(String, Vec<u8>)> = SCHEMA_BASE_CLASSES
        .iter()
        .map(|(name, text)| ((*name).to_owned(), text.as_bytes().to_vec()))
        .collect();
    files.extend(
        inputs
            .enumerate()
            .map(|(i, f)| (format!("Input{i}.yaml"), f.to_vec())),
    );
    for runtime in [(1, 0), (1, 4)] {
        let mut builder = CatalogBuilder::new();
        if builder
            .add_class_directory("io.murano", Version::new(0, 0, 0), runtime, files.clone())
            .is_err()
        {
            return;
        }
        let catalog = builder.build();
        let registry = catalog.registry();
        let names: Vec<String> = registry
            .classes()
            .filter_map(|c| registry.class_name(c).map(str::to_owned))
            .take(32)
            .collect();
        for name in names {
            match generate(&catalog, &SchemaRequest::new(&name)) {
                Ok(schemas) => {
                    assert!(schemas.contains_key(""), "{name}: no class schema");
                    serde_json::to_string(&schemas).expect("serialises");
                }
                Err(e) => {
                    let _ = e.status();
                    assert!(!e.to_string().is_empty());
                }
            }
        }
    }
}

/// The core classes beside the fuzzed ones in `engine_run`.
const ENGINE_CORE_CLASSES: &str =
    "Name: io.murano.Object\n---\nName: io.murano.system.Logger\n---\n\
Name: io.murano.Exception\nProperties: {name: {Contract: $, Usage: Runtime}, \
message: {Contract: $, Usage: Runtime}, cause: {Contract: $, Usage: Runtime}}\n";

/// MuranoPL execution under tight limits: up to three class files
/// (separated by NUL bytes) in a package beside a small core library; an
/// object of each class (at most four) is loaded from a one-object model
/// and each of its methods (at most eight) is called without arguments
/// (so argument defaults and contracts run), then the model is serialised.
/// No panic, stack overflow, hang or runaway memory, through property
/// defaults and `class()`/`template()` contracts that create objects,
/// meta classes and nested `Parallel`/`pselect` too (the seeds of
/// `fuzz/seeds/engine_run` start there); every error names its Python
/// class and has a message; every warning is a muted exception.
pub fn engine_run(data: &[u8]) {
    use murano_dsl::version::Version;
    use murano_engine::{ClassSetBuilder, EngineBuilder, Limits, Receiver};
    use murano_yaql::eval::{Dict, Value};
    use std::sync::Arc;

    let mut b = ClassSetBuilder::new();
    let (Ok(pkg), Ok(core)) = (
        b.add_package("fuzz", Version::new(0, 0, 0)),
        b.add_package("io.murano", Version::new(0, 0, 0)),
    ) else {
        return;
    };
    let Ok(defs) = ClassSetBuilder::parse_file(ENGINE_CORE_CLASSES.as_bytes(), "Object.yaml")
    else {
        panic!("core classes do not parse");
    };
    for def in defs {
        b.add_class(core, "Object.yaml", def).expect("core class");
    }
    b.add_system_classes(core).expect("system classes");
    let mut names = Vec::new();
    for (i, file) in data.split(|&c| c == 0).take(3).enumerate() {
        let path = format!("Input{i}.yaml");
        let Ok(defs) = ClassSetBuilder::parse_file(file, &path) else {
            continue;
        };
        for def in defs {
            // Namespaced classes go by their full name.
            let name = def.full_name.clone().or_else(|| def.name.clone());
            if b.add_class(pkg, &path, def).is_ok() {
                names.extend(name);
            }
        }
    }
    let classes = Arc::new(b.build());
    let limits = Limits {
        fuel: Some(20_000),
        max_call_depth: 16,
        max_objects: 500,
        max_threads: 16,
        max_memory: 64 << 20,
    };
    let check = |e: &murano_engine::EngineError| {
        assert!(!e.python_type().is_empty(), "{e:?}");
        let _ = e.to_string();
    };
    for name in names.iter().take(4) {
        let Some(class) = classes.find(name) else {
            continue;
        };
        let methods: Vec<String> = classes
            .definition(class)
            .map(|d| d.methods.iter().take(8).map(|m| m.name.clone()).collect())
            .unwrap_or_default();
        let engine = EngineBuilder::new(classes.clone())
            .limits(limits.clone())
            .build();
        let mut header = Dict::default();
        header.insert(Value::str("type"), Value::str(name));
        header.insert(Value::str("id"), Value::str("root"));
        let mut objects = Dict::default();
        objects.insert(Value::str("?"), Value::Dict(Arc::new(header)));
        let mut model = Dict::default();
        model.insert(Value::str("Objects"), Value::Dict(Arc::new(objects)));
        let root = match engine.load_model(&Value::Dict(Arc::new(model))) {
            Ok(Some(root)) => root,
            Ok(None) => continue,
            Err(e) => {
                check(&e);
                continue;
            }
        };
        for method in &methods {
            if let Err(e) = engine.call(
                &Receiver::Object(root.clone()),
                method,
                Vec::new(),
                Vec::new(),
            ) {
                check(&e);
            }
        }
        let _ = engine.serialized_model();
        if let Err(e) = engine.finalize() {
            check(&e);
        }
        // What Murano mutes and logs (a `.destroy` that raised).
        for w in engine.take_warnings() {
            assert!(w.starts_with("Muted exception during "), "{w}");
        }
    }
}

/// A fuzz check: panics when an invariant breaks.
pub type Check = fn(&[u8]);

/// Heat templates: a template (JSON or YAML) and, after a NUL byte,
/// parameter values (a JSON or YAML mapping). Loading, the version, the
/// parameter schemas, `template-validate` with the values, the values'
/// checks and the resolution of what needs no resources: no panic, every
/// error located inside the text, and the same outcome twice.
pub fn hot_validate(data: &[u8]) {
    use murano_hot::{Limits, Template, Value};

    let (template, values) = split_nul(data);
    let Ok(text) = std::str::from_utf8(template) else {
        return;
    };
    let limits = Limits::default();
    let params: Vec<(String, Value)> = values
        .and_then(|v| std::str::from_utf8(v).ok())
        .and_then(|v| murano_hot::load::simple_parse(v, &limits).ok())
        .and_then(|v| match v {
            Value::Map(entries) => Some(
                entries
                    .into_iter()
                    .filter_map(|(k, v)| Some((k.as_str()?.to_owned(), v)))
                    .collect(),
            ),
            _ => None,
        })
        .unwrap_or_default();
    // At most as many lines as YAML's line breaks make (`\r\n` counted
    // twice).
    let lines = text
        .chars()
        .filter(|c| matches!(c, '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}'))
        .count() as u32
        + 1;
    let check_position = |e: &murano_hot::HeatError| {
        if let Some(pos) = murano_hot::locate::locate(text, e) {
            assert!(
                pos.line <= lines,
                "{e} located at line {} of {lines}",
                pos.line
            );
        }
    };
    let outcome = || -> String {
        let template = match Template::load(text, &limits) {
            Ok(t) => t,
            Err(e) => {
                check_position(&e);
                return format!("load: {e}");
            }
        };
        let mut out = format!("{:?}", template.version);
        let mut note = |step: &str, result: Result<String, murano_hot::HeatError>| match result {
            Ok(s) => out.push_str(&format!("\n{step}: {s}")),
            Err(e) => {
                check_position(&e);
                out.push_str(&format!("\n{step}: error {e}"));
            }
        };
        note("schemas", template.schemas().map(|s| s.len().to_string()));
        note(
            "sections",
            template.validate_sections().map(|()| String::new()),
        );
        note(
            "validate",
            template.validate(&params).map(|()| String::new()),
        );
        note(
            "values",
            template.parameter_values(&params).map(|v| format!("{v:?}")),
        );
        note(
            "resolve",
            murano_hot::resolve::resolve_template(&template, &params).map(|r| {
                format!(
                    "{} outputs, {} resources, {} conditions",
                    r.outputs.len(),
                    r.resource_properties.len(),
                    r.conditions.len()
                )
            }),
        );
        out
    };
    let first = outcome();
    assert_eq!(first, outcome(), "a second run differs");
}

/// The plain YAML fast path, each half alone, against the general loader
/// (see `plain_fast_path::check`), with the default limits and with tight
/// ones (so the halves must leave the limit errors to the general loader).
pub fn yaml_plain(data: &[u8]) {
    use murano_yaml::LoadOptions;

    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    crate::plain_fast_path::check(text, &LoadOptions::default());
    let tight = LoadOptions::default().with_max_depth(4).with_max_nodes(24);
    crate::plain_fast_path::check(text, &tight);
}

/// The fuzz targets and their checks, by target name.
pub const TARGETS: &[(&str, Check)] = &[
    ("hot_validate", hot_validate),
    ("yaml_plain", yaml_plain),
    ("yaql_parse", yaql_parse),
    ("yaml_load", yaml_load),
    ("package_load", package_load),
    ("zip_read", zip_read),
    ("version_spec", version_spec),
    ("yaql_eval", yaql_eval),
    ("ui_load", ui_load),
    ("contract_apply", contract_apply),
    ("schema_generate", schema_generate),
    ("engine_run", engine_run),
];
