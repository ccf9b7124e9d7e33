//! A host registers its own package type: a plug-in that generates one
//! MuranoPL class per line of a `classes.txt` file, on the fly.

use std::sync::Arc;

use murano_dsl::model::ClassDefinition;
use murano_dsl::version::Version;
use murano_packages::source::{FileMap, PackageSource};
use murano_packages::{
    ClassSource, DynSource, Package, PackageBase, PackageError, PackageType, PluginRegistry,
};
use murano_yaml::{load_class_file, LoadOptions, Node, Value};

struct Generated {
    base: PackageBase<DynSource>,
    names: Vec<String>,
}

fn null() -> Node {
    Node {
        value: Value::Null,
        start: Default::default(),
        end: Default::default(),
    }
}

impl Package for Generated {
    fn format_name(&self) -> &str {
        self.base.format_name()
    }
    fn runtime_version(&self) -> &Version {
        self.base.runtime_version()
    }
    fn full_name(&self) -> &str {
        self.base.full_name()
    }
    fn version(&self) -> &Version {
        self.base.version()
    }
    fn package_type(&self) -> PackageType {
        PackageType::Library
    }
    fn display_name(&self) -> Node {
        null()
    }
    fn description(&self) -> Node {
        null()
    }
    fn author(&self) -> Node {
        null()
    }
    fn supplier(&self) -> Node {
        null()
    }
    fn tags(&self) -> Result<Vec<Node>, PackageError> {
        Ok(Vec::new())
    }
    fn classes(&self) -> Result<Vec<String>, PackageError> {
        Ok(self.names.clone())
    }
    fn requirements(&self) -> Node {
        null()
    }
    fn meta(&self) -> Node {
        null()
    }
    fn logo(&self) -> Result<Option<Vec<u8>>, PackageError> {
        Ok(None)
    }
    fn supplier_logo(&self) -> Result<Option<Vec<u8>>, PackageError> {
        Ok(None)
    }
    fn ui(&self) -> Result<Option<Vec<u8>>, PackageError> {
        Ok(None)
    }
    fn get_class(&self, name: &str) -> Result<ClassSource, PackageError> {
        if !self.names.iter().any(|n| n == name) {
            return Err(PackageError::ClassLoad {
                class: name.into(),
                message: "Class not defined in this package".into(),
            });
        }
        let text = format!(
            "Name: {name}\nMethods:\n  hello:\n    Body:\n      - Return: 'hello from {name}'\n"
        );
        Ok(ClassSource {
            file: "<generated>".into(),
            bytes: text.into_bytes(),
        })
    }
    fn get_resource(&self, _name: &str) -> Result<Option<Vec<u8>>, PackageError> {
        Ok(None)
    }
}

#[test]
fn a_host_plugin_generates_classes() {
    let mut registry = PluginRegistry::with_builtins();
    registry.register(
        "Lines",
        Version::new(1, 0, 0),
        Arc::new(|base: PackageBase<DynSource>| {
            let names = base
                .source()
                .read("classes.txt")
                .map(|b| {
                    String::from_utf8_lossy(b)
                        .lines()
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default();
            Ok(Box::new(Generated { base, names }) as Box<dyn Package + Send + Sync>)
        }),
    );
    assert!(registry.formats().contains(&"Lines/1.0.0".to_string()));

    let mut files = FileMap::new();
    files
        .insert(
            "manifest.yaml",
            b"Format: Lines/1.0\nFullName: com.example.lines\nType: Library\n".to_vec(),
        )
        .unwrap();
    files
        .insert("classes.txt", b"com.example.A\ncom.example.B\n".to_vec())
        .unwrap();
    let package = registry.load(files).unwrap();
    assert_eq!(package.format_name(), "Lines");
    assert_eq!(
        package.classes().unwrap(),
        ["com.example.A", "com.example.B"]
    );
    let class = package.get_class("com.example.B").unwrap();
    let file = load_class_file(&class.bytes, &LoadOptions::default()).unwrap();
    let models = ClassDefinition::from_documents(&file.documents, None);
    assert_eq!(models[0].full_name.as_deref(), Some("com.example.B"));
    assert_eq!(models[0].methods[0].name, "hello");

    // Without the plug-in, the format is refused with its name.
    let mut files = FileMap::new();
    files
        .insert(
            "manifest.yaml",
            b"Format: Lines/1.0\nFullName: com.example.lines\nType: Library\n".to_vec(),
        )
        .unwrap();
    let err = PluginRegistry::with_builtins().load(files).err().unwrap();
    assert_eq!(
        err.to_string(),
        "Incorrect package format: Unsupported format Lines/1.0"
    );
}

/// HOT templates whose sections have the wrong YAML type fail as Murano's
/// `hot_package.py` does on them (its Python errors, by class and text),
/// and `Format` values that are not strings go through `str()` as
/// `load_utils` does.
#[test]
fn wrong_yaml_types_fail_with_the_reference_error_classes() {
    let hot = |template: &str| {
        let mut files = FileMap::new();
        files
            .insert(
                "manifest.yaml",
                b"Format: Heat.HOT/1.0\nFullName: t.hot\nType: Application\n".to_vec(),
            )
            .unwrap();
        files
            .insert("template.yaml", template.as_bytes().to_vec())
            .unwrap();
        let package = PluginRegistry::with_builtins().load(files).unwrap();
        package.get_class("t.hot").err()
    };
    for (template, class, message) in [
        // `(hot.get('parameters') or {}).items()`
        (
            "parameters: [a, b]\nresources: {}\n",
            "builtins.AttributeError",
            "'list' object has no attribute 'items'",
        ),
        (
            "parameters: 5\nresources: {}\n",
            "builtins.AttributeError",
            "'int' object has no attribute 'items'",
        ),
        // `(hot.get('outputs') or {}).keys()`
        (
            "outputs: [a]\nresources: {}\n",
            "builtins.AttributeError",
            "'list' object has no attribute 'keys'",
        ),
        (
            "outputs: text\nresources: {}\n",
            "builtins.AttributeError",
            "'str' object has no attribute 'keys'",
        ),
        // `value['type']` on a parameter that is a string
        (
            "parameters: {p: text}\nresources: {}\n",
            "builtins.TypeError",
            "string indices must be integers, not 'str'",
        ),
        // `'resources' not in hot` on a list
        (
            "- a\n- b\n",
            "murano.packages.exceptions.PackageFormatError",
            "Incorrect package format: Not a HOT template",
        ),
    ] {
        let err = hot(template).unwrap_or_else(|| panic!("{template:?} loaded"));
        assert_eq!(err.python_class(), class, "{template:?}: {err}");
        assert!(err.to_string().contains(message), "{template:?}: {err}");
    }
    // An empty section is no section (`or {}`).
    assert!(hot("parameters: []\noutputs: ''\nresources: {}\n").is_none());

    let format = |value: &str| {
        let mut files = FileMap::new();
        files
            .insert(
                "manifest.yaml",
                format!("Format: {value}\nFullName: t.f\nType: Library\n").into_bytes(),
            )
            .unwrap();
        PluginRegistry::with_builtins()
            .load(files)
            .err()
            .map(|e| format!("{}: {e}", e.python_class()))
    };
    // `str(content.get('Format') or 'MuranoPL/1.0')`, a leading digit
    // taking `MuranoPL/`: numbers work, other types are unsupported texts.
    assert_eq!(format("1.3"), None);
    assert_eq!(format("1"), None);
    assert_eq!(
        format("[MuranoPL/1.0]").as_deref(),
        Some("murano.packages.exceptions.PackageFormatError: Incorrect package format: Unsupported format ['MuranoPL/1.0']")
    );
    // No `/`: the plug-in loader's ValueError, with the text.
    for (value, text) in [
        ("[1, 2]", "[1, 2]"),
        ("{a: 1}", "{'a': 1}"),
        ("true", "True"),
    ] {
        assert_eq!(format(value), Some(format!("builtins.ValueError: {text}")));
    }
}
