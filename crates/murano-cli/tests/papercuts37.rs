//! Issue 37's remaining papercuts (`inspect`, `hot validate`, `schema`),
//! through the real `murano` binary.

mod common;
use common::{examples, run, Scratch};

/// `inspect` of a MuranoPL package lists its UI's forms and fields:
/// name, type, required or optional, label.
#[test]
fn inspect_shows_the_forms_and_fields_of_a_muranopl_ui() {
    let shop = examples().join("packages/shop");
    let (code, out, err) = run(&["inspect", shop.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("  form settings:\n"), "{out}");
    assert!(
        out.contains("    name: string, required, label \"Shop name\"\n"),
        "{out}"
    );
    assert!(
        out.contains("    port: integer, required, label \"Port\"\n"),
        "{out}"
    );
    assert!(
        out.contains("    unitNamingPattern: string, optional, label \"Host name pattern\"\n"),
        "{out}"
    );
}

/// A UI definition that does not load is said so, and is a finding.
#[test]
fn inspect_reports_a_ui_that_does_not_load() {
    let dir = Scratch::new("bad-ui");
    let pkg = dir.0.join("shop");
    let from = examples().join("packages/shop");
    for sub in ["", "Classes", "UI"] {
        std::fs::create_dir_all(pkg.join(sub)).unwrap();
    }
    for file in [
        "manifest.yaml",
        "LICENSE",
        "logo.png",
        "Classes/Shop.yaml",
        "Classes/Database.yaml",
    ] {
        std::fs::copy(from.join(file), pkg.join(file)).unwrap();
    }
    std::fs::write(pkg.join("UI/ui.yaml"), "Version: 2\nForms: []\n").unwrap();
    let (code, out, err) = run(&["inspect", pkg.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(out.contains("Application section is required"), "{out}");
}

/// The generated class of a Heat.HOT package is shown as plain YAML a
/// class author would write, not PyYAML's all-quoted, tagged dump.
#[test]
fn inspect_shows_the_generated_hot_class_readably() {
    let hot = examples().join("packages/hello-hot");
    let (code, out, err) = run(&["inspect", hot.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(!out.contains("!!null"), "{out}");
    assert!(!out.contains("!!bool"), "{out}");
    assert!(!out.contains("\"Extends\""), "{out}");
    assert!(
        out.contains("    Extends: io.murano.Application\n"),
        "{out}"
    );
    assert!(out.contains("    Name: com.example.HelloHot\n"), "{out}");
    assert!(
        out.contains("- $environment: $.find('io.murano.Environment').require()\n"),
        "{out}"
    );
    // A YAQL text that plain YAML would read otherwise is quoted.
    assert!(
        out.contains("- $envRelPath: '''HotEnvironments/'' + $hotEnv'\n"),
        "{out}"
    );
    // Other scalars as YAML writes them, untagged and unquoted.
    assert!(out.contains("          required: true\n"), "{out}");
    assert!(out.contains("          maxLength: 64\n"), "{out}");
    // The generated UI's forms and fields, as for a MuranoPL package.
    assert!(out.contains("  form group1:\n"), "{out}");
    assert!(
        out.contains("    flavor: string, optional, label \"Flavor\"\n"),
        "{out}"
    );
}

/// `hot validate` shows an error as `check` does: the message, the
/// template's line and column, the source line and a caret under the
/// offending node.
#[test]
fn hot_validate_shows_the_offending_line_with_a_caret() {
    let dir = Scratch::new("hot-snippet");
    let path = dir.0.join("stack.yaml");
    std::fs::write(
        &path,
        "heat_template_version: 2021-04-16\n\
         resources:\n  \
           server:\n    \
             type: OS::Nova::Server\n    \
             properties:\n      \
               flavor: m1.small\n      \
               networks: {get_attr: [nothere, first_address]}\n",
    )
    .unwrap();
    let (code, out, err) = run(&["hot", "validate", path.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}{err}");
    let file = path.display().to_string();
    let expected = format!(
        "error[heat.common.exception.InvalidTemplateReference]: The specified reference \"nothere\" (in server.Properties.networks) is incorrect.\n  \
         --> {file}:7:7\n  \
         |\n\
         7 |       networks: {{get_attr: [nothere, first_address]}}\n  \
         |       ^\n"
    );
    assert!(out.contains(&expected), "{out}");
}

/// `schema` of a class whose inherited contract names a class in its
/// parent's namespace: Murano resolves the name in the child's
/// namespaces, so the class is missing; the CLI says why in one line.
#[test]
fn schema_explains_a_class_missing_through_an_inherited_contract() {
    let dir = Scratch::new("schema-quirk");
    let pkg = dir.0.join("pkg");
    std::fs::create_dir_all(pkg.join("Classes")).unwrap();
    std::fs::write(
        pkg.join("manifest.yaml"),
        "Format: MuranoPL/1.4\nType: Application\nFullName: com.example.Quirk\nName: Quirk\n\
         Classes:\n  com.example.Base: Base.yaml\n  com.example.Thing: Thing.yaml\n  com.other.App: App.yaml\n",
    )
    .unwrap();
    std::fs::write(
        pkg.join("Classes/Base.yaml"),
        "Namespaces:\n  =: com.example\nName: Base\nProperties:\n  thing:\n    Contract: $.class(Thing)\n",
    )
    .unwrap();
    std::fs::write(
        pkg.join("Classes/Thing.yaml"),
        "Namespaces:\n  =: com.example\nName: Thing\n",
    )
    .unwrap();
    std::fs::write(
        pkg.join("Classes/App.yaml"),
        "Namespaces:\n  =: com.other\n  ex: com.example\nName: App\nExtends: ex:Base\n",
    )
    .unwrap();
    // The core library the classes extend implicitly: its root class.
    let core = dir.0.join("io.murano");
    std::fs::create_dir_all(core.join("Classes")).unwrap();
    std::fs::write(
        core.join("manifest.yaml"),
        "Format: MuranoPL/1.4\nType: Library\nFullName: io.murano\nName: Core\n\
         Classes:\n  io.murano.Object: Object.yaml\n",
    )
    .unwrap();
    std::fs::write(core.join("Classes/Object.yaml"), "Name: io.murano.Object\n").unwrap();
    let schema = |class: &str| {
        run(&[
            "schema",
            pkg.to_str().unwrap(),
            class,
            "--catalog",
            core.to_str().unwrap(),
        ])
    };
    // The parent alone is fine.
    let (code, out, err) = schema("com.example.Base");
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = schema("com.other.App");
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.contains("com.other.Thing"), "{err}");
    let note: Vec<&str> = err.lines().filter(|l| l.contains("note:")).collect();
    assert_eq!(note.len(), 1, "{err}");
    assert!(note[0].contains("com.example.Base"), "{err}");
    assert!(note[0].contains("com.example.Thing"), "{err}");
    assert!(note[0].contains("inherited"), "{err}");
}
