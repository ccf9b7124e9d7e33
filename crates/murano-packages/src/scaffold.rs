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

/// A small PNG (the examples' logo): the logo Murano shows until the author draws
/// one.
const LOGO: &[u8] = &[
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
    files.insert("logo.png", LOGO.to_vec())?;
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
