//! A new package's files (what `murano init` writes), without I/O: a
//! manifest, one class, and optionally a Dynamic UI definition and a test
//! class. The package passes the package check with no finding, an
//! application deploys (it reports to its environment), and its tests
//! pass.

use crate::source::FileMap;
use crate::PackageError;

/// What to scaffold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScaffoldOptions {
    /// The package's `FullName` (`com.example.MyApp`); its last part names
    /// the class.
    pub full_name: String,
    /// An application (deployable, extends `io.murano.Application`), else
    /// a library.
    pub application: bool,
    /// Write `UI/ui.yaml`. Applications always get one: the catalog needs
    /// a form to add them to an environment (and the package check warns
    /// without it).
    pub ui: bool,
    /// Write a test class (`<Name>Tests`) for `murano test`.
    pub tests: bool,
}

/// A small PNG (the examples' logo): the logo Murano shows until the
/// author draws one.
pub const DEFAULT_LOGO: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53,
    0xde, 0x00, 0x00, 0x00, 0x0c, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xd0, 0xaa, 0xbf, 0x02,
    0x00, 0x02, 0x54, 0x01, 0x7e, 0x5a, 0x42, 0xca, 0x47, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e,
    0x44, 0xae, 0x42, 0x60, 0x82,
];

/// Whether `name` is a dotted name of identifiers (`com.example.App`).
pub fn valid_full_name(name: &str) -> bool {
    !name.is_empty()
        && name.split('.').all(|part| {
            let mut chars = part.chars();
            chars
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
}

/// `my-app_2` → `MyApp2`: a class name from a folder name (`App` when
/// nothing is left).
pub fn class_name_from(text: &str) -> String {
    let mut out = String::new();
    for word in text.split(|c: char| !c.is_ascii_alphanumeric()) {
        let mut chars = word.chars();
        if let Some(first) = chars.next() {
            out.push(first.to_ascii_uppercase());
            out.extend(chars);
        }
    }
    match out.chars().next() {
        Some(c) if c.is_ascii_alphabetic() => out,
        Some(_) => format!("App{out}"),
        None => "App".to_owned(),
    }
}

/// The files of the new package.
///
/// ```
/// use murano_packages::scaffold::{scaffold, ScaffoldOptions};
/// use murano_packages::source::PackageSource;
///
/// let files = scaffold(&ScaffoldOptions {
///     full_name: "com.example.Demo".into(),
///     application: true,
///     ui: true,
///     tests: true,
/// })?;
/// assert!(files.read("Classes/Demo.yaml").is_some());
/// assert!(files.read("Classes/DemoTests.yaml").is_some());
/// assert!(files.read("UI/ui.yaml").is_some());
/// # Ok::<(), murano_packages::PackageError>(())
/// ```
pub fn scaffold(options: &ScaffoldOptions) -> Result<FileMap, PackageError> {
    if !valid_full_name(&options.full_name) {
        return Err(PackageError::Load(format!(
            "{:?} is no package name: dotted identifiers such as com.example.MyApp",
            options.full_name
        )));
    }
    let full = options.full_name.as_str();
    let (namespace, name) = match full.rsplit_once('.') {
        Some((ns, name)) => (ns, name),
        None => ("", full),
    };
    let qualify = |short: &str| {
        if namespace.is_empty() {
            short.to_owned()
        } else {
            format!("{namespace}.{short}")
        }
    };
    let ui = options.ui || options.application;
    let mut files = FileMap::new();

    let mut manifest = format!(
        "Format: MuranoPL/1.4\n\
         Type: {}\n\
         FullName: {full}\n\
         Name: {name}\n\
         Description: >-\n  {name}: describe what it does and what it needs.\n\
         Author: Your name\n\
         Tags: [{}]\n\
         Version: 0.1.0\n\
         Classes:\n  {full}: {name}.yaml\n",
        if options.application {
            "Application"
        } else {
            "Library"
        },
        if options.application {
            "application"
        } else {
            "library"
        },
    );
    if options.tests {
        manifest.push_str(&format!(
            "  {}: {name}Tests.yaml\n",
            qualify(&format!("{name}Tests"))
        ));
    }
    if ui {
        manifest.push_str("UI: ui.yaml\n");
    }
    manifest.push_str("Logo: logo.png\n");
    files.insert("manifest.yaml", manifest.into_bytes())?;
    files.insert("logo.png", DEFAULT_LOGO.to_vec())?;
    // Murano's package check warns when a package has no license.
    files.insert(
        "LICENSE",
        format!(
            "{full}: replace this text with the package's license (for example the\n\
             Apache License, Version 2.0: https://www.apache.org/licenses/LICENSE-2.0).\n"
        )
        .into_bytes(),
    )?;

    let namespaces = if namespace.is_empty() {
        "Namespaces:\n  std: io.murano\n".to_owned()
    } else {
        format!("Namespaces:\n  =: {namespace}\n  std: io.murano\n")
    };
    let class = if options.application {
        format!(
            "{namespaces}\n\
             Name: {name}\n\n\
             Extends: std:Application\n\n\
             Properties:\n\
             \x20 name:\n\
             \x20   Contract: $.string().notNull()\n\
             \x20   Default: {name}\n\n\
             Methods:\n\
             \x20 # A pure function: murano test calls it without a cloud.\n\
             \x20 greeting:\n\
             \x20   Usage: Static\n\
             \x20   Arguments:\n\
             \x20     - who:\n\
             \x20         Contract: $.string().notNull()\n\
             \x20   Body:\n\
             \x20     - Return: format('Hello from {{0}}', $who)\n\n\
             \x20 deploy:\n\
             \x20   Body:\n\
             \x20     - $env: $.find(std:Environment).require()\n\
             \x20     - $env.reporter.report($this, type('{full}').greeting($.name))\n"
        )
    } else {
        format!(
            "{namespaces}\n\
             Name: {name}\n\n\
             Methods:\n\
             \x20 greeting:\n\
             \x20   Usage: Static\n\
             \x20   Arguments:\n\
             \x20     - who:\n\
             \x20         Contract: $.string().notNull()\n\
             \x20   Body:\n\
             \x20     - Return: format('Hello from {{0}}', $who)\n"
        )
    };
    files.insert(&format!("Classes/{name}.yaml"), class.into_bytes())?;

    if options.tests {
        let tests = format!(
            "{}  test: io.murano.test\n\n\
             # murano test runs every method whose name starts with \"test\".\n\
             Name: {name}Tests\n\n\
             Extends: test:TestFixture\n\n\
             Methods:\n\
             \x20 testGreeting:\n\
             \x20   Body:\n\
             \x20     - $.assertEqual('Hello from Ada', type('{full}').greeting('Ada'))\n",
            namespaces
        );
        files.insert(&format!("Classes/{name}Tests.yaml"), tests.into_bytes())?;
    }

    if ui {
        let ui_text = format!(
            "Version: 2.4\n\n\
             Application:\n\
             \x20 ?:\n\
             \x20   type: {full}\n\
             \x20 name: $.settings.name\n\n\
             Forms:\n\
             \x20 - settings:\n\
             \x20     fields:\n\
             \x20       - name: name\n\
             \x20         type: string\n\
             \x20         label: Name\n\
             \x20         initial: {name}\n\
             \x20         description: What the application reports when it deploys\n"
        );
        files.insert("UI/ui.yaml", ui_text.into_bytes())?;
    }
    Ok(files)
}

/// What muranoclient's `package-create --classes-dir` asks for beside the
/// class files; what is left out is guessed from the classes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ComposeOptions {
    /// `FullName` (default: the class extending `io.murano.Application`).
    pub full_name: Option<String>,
    /// `Name` (default: the last part of that class's name).
    pub name: Option<String>,
    /// `Application` or `Library` (default: `Application` when a class
    /// extends `io.murano.Application`).
    pub package_type: Option<String>,
    /// `Author`.
    pub author: Option<String>,
    /// `Description`.
    pub description: Option<String>,
    /// `Tags`.
    pub tags: Vec<String>,
    /// Whether the package has a UI definition (`UI: ui.yaml`).
    pub ui: bool,
    /// The MuranoPL format version (default `1.0`, as muranoclient
    /// writes; classes using later features need a later one).
    pub format_version: Option<String>,
}

/// A YAML double-quoted scalar.
fn yaml_quote(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The manifest of a package made of class files, as muranoclient's
/// `package-create --classes-dir` writes it: each file's class (first
/// document's `Name` through its `Namespaces`) under `Classes`, the type,
/// full name and name guessed from a class that extends
/// `io.murano.Application`. `classes` are (path under `Classes/`, bytes).
pub fn compose_manifest(
    classes: &[(String, Vec<u8>)],
    options: &ComposeOptions,
) -> Result<String, PackageError> {
    use murano_dsl::model::ClassDefinition;
    let mut entries = Vec::new();
    let mut application = None;
    for (path, bytes) in classes {
        let file = murano_yaml::load_class_file(bytes, &murano_yaml::LoadOptions::default())
            .map_err(|e| PackageError::Load(format!("Classes/{path}: not a class file: {e}")))?;
        let class = ClassDefinition::from_documents(&file.documents, None)
            .into_iter()
            .next()
            .and_then(|c| c.full_name.clone().map(|n| (n, c)));
        let Some((name, class)) = class else {
            return Err(PackageError::Load(format!(
                "Classes/{path}: the class has no Name"
            )));
        };
        let extends_application = class
            .extends
            .iter()
            .any(|t| t.resolved.as_deref() == Ok("io.murano.Application"));
        if extends_application && application.is_none() {
            application = Some(name.clone());
        }
        entries.push((name, path.clone()));
    }
    if entries.is_empty() {
        return Err(PackageError::Load(
            "a package needs at least one class".into(),
        ));
    }
    let package_type = options
        .package_type
        .clone()
        .or_else(|| application.as_ref().map(|_| "Application".to_owned()))
        .ok_or_else(|| {
            PackageError::Load("no class extends io.murano.Application: give the type".into())
        })?;
    if package_type != "Application" && package_type != "Library" {
        return Err(PackageError::Load(format!(
            "the type is Application or Library, not {package_type:?}"
        )));
    }
    let full_name = options
        .full_name
        .clone()
        .or_else(|| application.clone())
        .ok_or_else(|| PackageError::Load("give the package's full name".into()))?;
    if !valid_full_name(&full_name) {
        return Err(PackageError::Load(format!(
            "{full_name:?} is no package name"
        )));
    }
    let name = options.name.clone().unwrap_or_else(|| {
        full_name
            .rsplit('.')
            .next()
            .unwrap_or(&full_name)
            .to_owned()
    });
    let format_version = options.format_version.as_deref().unwrap_or("1.0");
    let plain_version = !format_version.is_empty()
        && format_version
            .chars()
            .all(|c| c.is_ascii_digit() || c == '.');
    if !plain_version {
        return Err(PackageError::Load(format!(
            "{format_version:?} is no format version (such as 1.4)"
        )));
    }
    let mut text = format!(
        "Format: MuranoPL/{format_version}\nType: {package_type}\nFullName: {full_name}\nName: {}\n",
        yaml_quote(&name)
    );
    text.push_str(&format!(
        "Description: {}\n",
        yaml_quote(
            options
                .description
                .as_deref()
                .unwrap_or("Description for the application is not provided")
        )
    ));
    if let Some(author) = &options.author {
        text.push_str(&format!("Author: {}\n", yaml_quote(author)));
    }
    if !options.tags.is_empty() {
        text.push_str("Tags:\n");
        for tag in &options.tags {
            text.push_str(&format!("  - {}\n", yaml_quote(tag)));
        }
    }
    text.push_str("Classes:\n");
    entries.sort();
    for (class, path) in entries {
        text.push_str(&format!("  {class}: {}\n", yaml_quote(&path)));
    }
    if options.ui {
        text.push_str("UI: ui.yaml\n");
    }
    Ok(text)
}

#[cfg(test)]
mod compose_tests {
    use super::*;

    #[test]
    fn the_manifest_is_guessed_from_the_classes() {
        let classes = vec![
            (
                "App.yaml".to_owned(),
                b"Namespaces:\n  =: org.acme\n  std: io.murano\nName: App\nExtends: std:Application\n"
                    .to_vec(),
            ),
            (
                "sub/Helper.yaml".to_owned(),
                b"Namespaces:\n  =: org.acme\nName: Helper\n".to_vec(),
            ),
        ];
        let text = compose_manifest(&classes, &ComposeOptions::default()).unwrap();
        assert!(
            text.contains("Type: Application\nFullName: org.acme.App\nName: \"App\"\n"),
            "{text}"
        );
        assert!(
            text.contains("  org.acme.Helper: \"sub/Helper.yaml\"\n"),
            "{text}"
        );
        let library = compose_manifest(&classes[1..], &ComposeOptions::default());
        assert!(library.is_err());
        let library = compose_manifest(
            &classes[1..],
            &ComposeOptions {
                package_type: Some("Library".into()),
                full_name: Some("org.acme.Lib".into()),
                tags: vec!["a \"b\"".into()],
                ..ComposeOptions::default()
            },
        )
        .unwrap();
        assert!(
            library.contains("Tags:\n  - \"a \\\"b\\\"\"\n"),
            "{library}"
        );
        assert!(compose_manifest(&[], &ComposeOptions::default()).is_err());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{check_package, CheckOptions};

    #[test]
    fn every_variant_checks_clean() {
        for application in [true, false] {
            for ui in [true, false] {
                for tests in [true, false] {
                    let files = scaffold(&ScaffoldOptions {
                        full_name: "org.acme.Thing".into(),
                        application,
                        ui,
                        tests,
                    })
                    .unwrap();
                    let found = check_package(&files, &CheckOptions::default());
                    assert!(found.is_empty(), "{application} {ui} {tests}: {found:?}");
                }
            }
        }
    }

    #[test]
    fn names_are_checked_and_derived() {
        assert!(valid_full_name("com.example.App"));
        assert!(!valid_full_name("com..App"));
        assert!(!valid_full_name("com.1x"));
        assert!(!valid_full_name("a/b"));
        assert_eq!(class_name_from("my-app_2"), "MyApp2");
        assert_eq!(class_name_from("42"), "App42");
        assert_eq!(class_name_from("--"), "App");
        assert!(scaffold(&ScaffoldOptions {
            full_name: "../x".into(),
            application: true,
            ui: false,
            tests: false
        })
        .is_err());
    }
}
