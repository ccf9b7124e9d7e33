//! Every code with the example of `docs/diagnostics.md` that triggers it.

use murano_dsl::model::{Cardinality, MetaTarget};

use super::*;

const MANIFEST: &str = "Format: MuranoPL/1.4\nFullName: com.example\nType: Library\n\
Description: demo\nClasses:\n  com.example.App: App.yaml\n";
const CLASS: &str = "Namespaces:\n  =: com.example\nName: App\n";

/// A base package (clean) with `changes` applied: `(path, Some(text))`
/// writes a file, `(path, None)` removes it. A class-file text starting
/// with `+` is appended to the base class.
fn package(changes: &[(&str, Option<&str>)]) -> FileMap {
    let mut files: Vec<(String, String)> = vec![
        ("manifest.yaml".into(), MANIFEST.into()),
        ("LICENSE".into(), "Apache-2.0".into()),
        ("Classes/App.yaml".into(), CLASS.into()),
    ];
    for (path, text) in changes {
        files.retain(|(p, _)| p != path);
        if let Some(text) = text {
            let text = match text.strip_prefix('+') {
                Some(extra) => format!("{CLASS}{extra}"),
                None => (*text).to_owned(),
            };
            files.push(((*path).to_owned(), text));
        }
    }
    let mut map = FileMap::new();
    for (path, text) in files {
        map.insert(&path, text.into_bytes()).unwrap();
    }
    map
}

fn catalog() -> ClassIndex {
    let mut index = ClassIndex::new();
    index.insert_class("io.murano.Object", "io.murano");
    index.insert_class("com.other.Lib", "com.other");
    index.insert_class("com.other.Single", "com.other");
    index.insert_meta_class("com.other.Single", Cardinality::One);
    index.insert_class("com.other.OnProperties", "com.other");
    index.insert_meta_class("com.other.OnProperties", Cardinality::Many);
    index.insert_meta_applies("com.other.OnProperties", &[MetaTarget::Property]);
    index
}

const C: &str = "Classes/App.yaml";
const HOT_MANIFEST: &str =
    "Format: Heat.HOT/1.0\nType: Application\nFullName: com.example\nDescription: demo\n";
const T: &str = "template.yaml";
const M: &str = "manifest.yaml";
const U: &str = "UI/ui.yaml";

/// `(code, changes)`: the examples of the documentation.
/// File changes: `(path, Some(text))` writes, `(path, None)` removes.
type Changes = &'static [(&'static str, Option<&'static str>)];

/// A Heat.HOT manifest.
const HOT: &str =
    "Format: Heat.HOT/1.0\nFullName: com.example.Hot\nType: Application\nDescription: d\n";
const EXAMPLES: &[(&str, Changes)] = &[
    ("E000", &[(C, Some("+Properties:\n  port: 80\n"))]),
    ("E002", &[(C, Some("Name: [App\n"))]),
    ("E005", &[(U, Some("Version: 2\n---\nVersion: 2\n"))]),
    ("E011", &[(C, Some("Name: 1App\n"))]),
    ("E020", &[(M, Some("FullName: com.example\nType: Library\n"))]),
    ("E021", &[(C, Some("+Properties:\n  port:\n    Contract: $.int()\n    Defualt: 80\n"))]),
    ("E025", &[(C, Some("+Extends: my-base\n"))]),
    ("E026", &[(C, Some("+Properties: [port]\n"))]),
    ("E027", &[(C, Some("+Usage: Meta\nCardinality: Few\n"))]),
    ("E028", &[(C, Some("+Usage: Meta\nApplies: Everything\n"))]),
    ("E030", &[(M, Some("FullName: com.example\nType: Library\nDescription: [demo]\n"))]),
    ("E040", &[(M, Some("FullName: com.example\nType: Library\nDescription: demo\nAuthor: [me]\n"))]),
    ("E042", &[(C, Some("+Properties:\n  port:\n    Contract: $.int()\n    Usage: Sometimes\n"))]),
    ("E044", &[(C, Some("+Methods:\n  run:\n    Scope: Everywhere\n"))]),
    ("E045", &[(C, Some("+Methods:\n  run:\n    Body: 42\n"))]),
    ("E046", &[(C, Some("+Methods: [run]\n"))]),
    ("E047", &[(C, Some("+Properties:\n  port:\n    Default: 80\n"))]),
    ("E048", &[(C, Some("+Methods:\n  run:\n    Arguments:\n      a: {Contract: $.int()}\n      b: {Contract: $.int()}\n"))]),
    ("E050", &[(M, Some("FullName: com.example\nType: Library\nDescription: demo\nClasses:\n  com.example.App: Missing.yaml\n"))]),
    ("E052", &[
        (M, Some("Format: MuranoPL/1.3\nFullName: com.example\nType: Library\nDescription: demo\nClasses:\n  com.example.App: App.yaml\n")),
        (C, Some("+Methods:\n  run:\n    Arguments:\n      - rest:\n          Contract: $.int()\n          Usage: VarArgs\n")),
    ]),
    ("E053", &[(C, Some("+Methods:\n  run:\n    Arguments:\n      - a:\n          Contract: $.int()\n          Usage: Many\n"))]),
    ("E054", &[(C, Some("+Methods:\n  run-now:\n    Body: $.x()\n"))]),
    ("E060", &[(C, Some("Namespaces:\n  =: com.example\n  my-ns: com.example.lib\nName: App\n"))]),
    ("E070", &[(M, Some("FullName: com.example\nType: Library\nDescription: demo\nTags: web\n"))]),
    ("E071", &[(M, Some("FullName: com.example\nType: Service\nDescription: demo\n"))]),
    ("E072", &[(M, Some("FullName: com.example\nType: Application\nDescription: demo\nUI: [ui.yaml]\n"))]),
    ("E073", &[(M, Some("FullName: com-example\nType: Library\nDescription: demo\n"))]),
    ("E074", &[(M, Some("FullName: com.example\nType: Library\nDescription: demo\nClasses: [App.yaml]\n"))]),
    ("E081", &[(U, Some("Forms:\n  - main:\n      fields:\n        - name: port\n          required: maybe\n"))]),
    ("E083", &[(U, Some("Application:\n  my-app: 1\n"))]),
    ("E084", &[(U, Some("Application: [app]\n"))]),
    ("E100", &[(U, Some("Forms:\n  - main:\n      fields:\n        - name: port\n          type: my-type\n"))]),
    ("E200", &[(C, Some("+Methods:\n  run:\n    Body:\n      - Break: now\n"))]),
    ("E201", &[(C, Some("+Methods:\n  run:\n    Body:\n      - x: 1\n"))]),
    ("E203", &[(C, Some("+Methods:\n  run:\n    Body:\n      - For: [i]\n        In: $list\n        Do: $.f()\n"))]),
    ("E204", &[(C, Some("+Methods:\n  run:\n    Body:\n      - Try: $.f()\n"))]),
    ("H100", &[(M, Some(HOT_MANIFEST)), (T, Some("- not a mapping\n"))]),
    ("H101", &[(M, Some(HOT_MANIFEST)), (T, Some("heat_template_version: 2013-05-24\n"))]),
    ("H102", &[(M, Some(HOT_MANIFEST)), (T, Some("heat_template_version: 2013-05-23\nparameters:\n  p: {type: integer}\n"))]),
    ("H103", &[(M, Some(HOT_MANIFEST)), (T, Some("heat_template_version: 2013-05-23\nresources:\n  r:\n    type: X\n    depends_on: nothere\n"))]),
    ("H104", &[(M, Some(HOT_MANIFEST)), (T, Some("heat_template_version: 2013-05-23\ndescription: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]\n"))]),
    ("H110", &[(M, Some("Format: Heat.HOT/1.0\nFullName: com.example.Hot\nType: Application\nVersion: x.y\n")), (T, Some("resources: {}\n"))]),
    ("H111", &[(M, Some(HOT))]),
    ("H112", &[(M, Some(HOT)), (T, Some("resources: {}\nparameters:\n  p:\n    type: string\n    constraints:\n      - allowed_pattern: \"'\"\n"))]),
    ("H113", &[(M, Some(HOT)), (T, Some("resources: {}\nparameter_groups: 5\n"))]),
    ("M100", &[(C, Some("- Name: App\n"))]),
    ("M101", &[(C, Some("Name: [App]\n"))]),
    ("M102", &[(C, Some("+Usage: Mixin\n"))]),
    ("M103", &[(C, Some("+Extends: res:Base\n"))]),
    ("M104", &[(C, Some("+Import: res:Base\n"))]),
    ("M105", &[(C, Some("+Properties: [port]\n"))]),
    ("M106", &[(C, Some("+Methods: [run]\n"))]),
    ("M107", &[(C, Some("Namespaces:\n  =: com.example\n  my-ns: com.example.lib\nName: App\n"))]),
    ("M108", &[(C, Some("+Usage: Meta\nCardinality: Few\n"))]),
    ("M109", &[(C, Some("+Usage: Meta\nApplies: Everything\n"))]),
    ("M110", &[(C, Some("+Usage: Meta\nInherited: maybe\n"))]),
    ("M111", &[(C, Some("+Propertes: {}\n"))]),
    ("M200", &[(C, Some("+Properties:\n  ~:\n    Contract: $.int()\n"))]),
    ("M201", &[(C, Some("+Properties:\n  port: 80\n"))]),
    ("M202", &[(C, Some("+Properties:\n  port:\n    Default: 80\n"))]),
    ("M203", &[(C, Some("+Properties:\n  port:\n    Contract: $.int()\n    Usage: Sometimes\n"))]),
    ("M204", &[(C, Some("+Properties:\n  port:\n    Contract: $.int()\n    Defualt: 80\n"))]),
    ("M210", &[(C, Some("+Methods:\n  ~:\n    Body: $.f()\n"))]),
    ("M211", &[(C, Some("+Methods:\n  run: 42\n"))]),
    ("M212", &[(C, Some("+Methods:\n  run:\n    Usage: Sometimes\n"))]),
    ("M213", &[(C, Some("+Methods:\n  run:\n    Scope: Everywhere\n"))]),
    ("M214", &[(C, Some("+Methods:\n  run:\n    Usage: Action\n    Scope: Session\n"))]),
    ("M215", &[(C, Some("+Methods:\n  run:\n    Bdy: $.f()\n"))]),
    ("M220", &[(C, Some("+Methods:\n  run:\n    Arguments:\n      - a: {Contract: $.int()}\n        b: {Contract: $.int()}\n"))]),
    ("M221", &[(C, Some("+Methods:\n  run:\n    Arguments:\n      - a:\n          Contract: $.int()\n          Usage: Many\n"))]),
    ("M222", &[(C, Some("+Methods:\n  run:\n    Arguments:\n      - a: {Contract: $.int(), Usage: VarArgs}\n      - b: {Contract: $.int()}\n"))]),
    ("M223", &[(C, Some("+Methods:\n  run:\n    Arguments:\n      - a: 1\n"))]),
    ("M224", &[(C, Some("+Methods:\n  run:\n    Arguments:\n      - a: {Default: 1}\n"))]),
    ("M225", &[(C, Some("+Methods:\n  run:\n    Arguments:\n      - a: {Contract: $.int(), Defualt: 1}\n"))]),
    ("M300", &[(C, Some("+Methods:\n  run:\n    Body:\n      - just words\n"))]),
    ("M301", &[(C, Some("+Methods:\n  run:\n    Body:\n      - $x: 1\n        $y: 2\n"))]),
    ("M302", &[(C, Some("+Methods:\n  run:\n    Body:\n      - $x + 1: 2\n"))]),
    ("M303", &[(C, Some("+Methods:\n  run:\n    Body:\n      - Frobnicate: $x\n"))]),
    ("M400", &[(C, Some("+Methods:\n  run:\n    Body:\n      - $.f('\\xZZ')\n"))]),
    ("M401", &[(C, Some("+Methods:\n  run:\n    Body:\n      - $x: new(res:Server)\n"))]),
    ("M402", &[(C, Some("+Properties:\n  port:\n    Contract: $.integer()\n"))]),
    ("M403", &[(C, Some("+Properties:\n  a:\n    Contract: $.class('com.nowhere.Thing')\n"))]),
    ("M404", &[(C, Some("+Properties:\n  a:\n    Contract: $.class('com.other.Lib')\n"))]),
    ("M405", &[(C, Some("+Meta:\n  - com.other.Single: {}\n  - com.other.Single: {}\n"))]),
    ("M406", &[(C, Some("Namespaces:\n  =: com.example\nName: Other\n"))]),
    ("M407", &[(C, Some("+Extends: App\n"))]),
    ("M408", &[(C, Some("+Name: App\n"))]),
    ("M409", &[(C, Some("+Properties:\n  port:\n    Contract: $.int()\n    Default: eighty\n"))]),
    ("M410", &[(C, Some("+Meta:\n  - com.other.OnProperties: {}\n"))]),
    ("M423", &[(U, Some("Application:\n  ?: {type: com.example.Ap}\n"))]),
    ("M420", &[(M, Some("Format: MuranoPL/1.4\nFullName: com.example\nType: Library\nDescription: demo\nRequire:\n  com.missing: \nClasses:\n  com.example.App: App.yaml\n"))]),
    ("M421", &[(C, Some("+Methods:\n  run:\n    Body:\n      - Return: $.prot\n"))]),
    ("M422", &[
        (C, Some("+Properties:\n  name:\n    Contract: $.string()\n    Default: shop\n")),
        (U, Some("Application:\n  ?:\n    type: com.example.App\n  name: $.main.name\nForms:\n  - main:\n      fields:\n        - name: name\n          type: string\n          required: false\n")),
    ]),
    ("W010", &[(C, Some("+Propertes: {}\n"))]),
    ("W011", &[(C, Some("Namespaces:\n  =: com.example\nName: app\n"))]),
    ("W020", &[("Classes/Extra.yaml", Some("Name: Extra\n"))]),
    ("W030", &[(M, Some("Format: MuranoPL/9.9\nFullName: com.example\nType: Library\nDescription: demo\n"))]),
    ("W045", &[(C, Some("+Methods:\n  run:\n    Usage: Action\n"))]),
    ("W048", &[(C, Some("+Properties:\n  port:\n    Contract: int\n"))]),
    ("W060", &[(C, Some("Namespaces:\n  =: com..example\nName: App\n"))]),
    ("W073", &[(M, Some("FullName: com.example\nType: Application\nDescription: demo\nLogo: LICENSE\n"))]),
    ("W074", &[(M, Some("FullName: com.example\nType: Application\nDescription: demo\n")), (U, Some("Version: 2\n"))]),
    ("W082", &[(U, Some("Version: 3\n"))]),
    ("W100", &[(U, Some("Forms:\n  - main:\n      fields:\n        - name: port\n          type: strnig\n"))]),
    ("W120", &[("notes.txt", Some("todo"))]),
    ("W121", &[("LICENSE", None)]),
    ("W202", &[(C, Some("+Methods:\n  run:\n    Body:\n      - If: not valid yaql\n        Then: $.f()\n"))]),
];

fn run(changes: &[(&str, Option<&str>)]) -> Vec<Diagnostic> {
    check_package(
        &package(changes),
        &CheckOptions::default().with_catalog(catalog()),
    )
}

#[test]
fn cyclic_extends_are_spelled_out_once() {
    let manifest = "Format: MuranoPL/1.4\nFullName: com.example\nType: Library\n\
Description: demo\nClasses:\n  com.example.App: App.yaml\n  com.example.B: B.yaml\n";
    let report = run(&[
        (M, Some(manifest)),
        (C, Some("+Extends: B\n")),
        (
            "Classes/B.yaml",
            Some("Namespaces:\n  =: com.example\nName: B\nExtends: App\n"),
        ),
    ]);
    let cycles: Vec<&Diagnostic> = report.iter().filter(|d| d.code == "M407").collect();
    assert_eq!(cycles.len(), 1, "{report:#?}");
    assert!(
        cycles[0]
            .message
            .contains("com.example.App extends com.example.B extends com.example.App"),
        "{}",
        cycles[0].message
    );
    assert_eq!(cycles[0].file.as_deref(), Some(C));
    assert_eq!(cycles[0].start.map(|p| p.line), Some(4));
    let report = run(&[(C, Some("+Extends: [App]\n"))]);
    let m407 = report
        .iter()
        .find(|d| d.code == "M407")
        .expect("self cycle");
    assert!(m407
        .message
        .contains("com.example.App extends com.example.App"));
}

#[test]
fn base_package_is_clean() {
    let report = run(&[]);
    assert!(report.is_empty(), "{report:#?}");
}

#[test]
fn every_code_has_a_triggering_example() {
    let mut failures = Vec::new();
    // The reader's codes (M001-M005) are raised by the command line,
    // which tests them.
    let checked = [Layer::PkgCheck, Layer::Model, Layer::Checker];
    for info in CODES.iter().filter(|i| checked.contains(&i.layer)) {
        let Some((_, changes)) = EXAMPLES.iter().find(|(c, _)| *c == info.code) else {
            failures.push(format!("{}: no example", info.code));
            continue;
        };
        let report = run(changes);
        match report.iter().find(|d| d.code == info.code) {
            Some(d) => {
                assert_eq!(d.severity, info.severity);
                assert!(!d.message.is_empty());
            }
            None => failures.push(format!("{}: not reported; got {report:#?}", info.code)),
        }
    }
    for (code, _) in EXAMPLES {
        if !code_info(code).is_some_and(|i| checked.contains(&i.layer)) {
            failures.push(format!("{code}: example of a code not in the table"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn positions_are_one_based_and_relative() {
    let report = run(&[(C, Some("+Properties:\n  port:\n    Default: 80\n"))]);
    let e047 = report.iter().find(|d| d.code == "E047").unwrap();
    assert_eq!(e047.file.as_deref(), Some(C));
    let at = e047.start.unwrap();
    assert_eq!((at.line, at.column), (5, 3));
    assert_eq!(e047.end, None);
}

#[test]
fn pkgcheck_only_drops_m_codes() {
    let files = package(&[(C, Some("+Propertes: {}\n"))]);
    let report = check_package(&files, &CheckOptions::default().with_pkgcheck_only(true));
    assert!(report.iter().all(|d| !d.code.starts_with('M')));
    assert!(report.iter().any(|d| d.code == "W010"));
}

#[test]
fn crash_stops_only_its_check() {
    // The first property crashes murano-pkg-check's property check: the
    // second is not checked (as there), the methods still are.
    let report = run(&[(
        C,
        Some("+Properties:\n  a: 1\n  b:\n    Default: 1\nMethods:\n  run-it:\n    Body: $.f()\n"),
    )]);
    let codes: Vec<&str> = report.iter().map(|d| d.code).collect();
    assert!(
        codes.contains(&"E000") && codes.contains(&"E054"),
        "{codes:?}"
    );
    assert!(!codes.contains(&"E047"), "{codes:?}");
}

#[test]
fn hostile_input_does_not_panic() {
    let inputs: [&[u8]; 6] = [
        b"\xff\xfe\x00",
        b"[[[[[[[[[[",
        b"a: &x [*x]\n",
        b"? [a]\n: b\n",
        b"---\n---\n- 1\n",
        b"Name: App\nMethods:\n  run:\n    Body:\n      - Match: 1\n        Value: $\n      - Switch: [1]\n      - Try: []\n        Catch: [1, {Do: 2}]\n",
    ];
    for bytes in inputs {
        for path in ["manifest.yaml", C, U] {
            let mut files = package(&[]);
            files.insert(path, bytes.to_vec()).unwrap();
            let _ = check_package(&files, &CheckOptions::default());
        }
    }
}

#[test]
fn logo_exemption_is_pkgchecks_actual_one() {
    // murano-pkg-check exempts `logo.png` only: the manifest's `Logo` file
    // is an unknown file (W120), and a `Logo` list does not crash W120's
    // check.
    let manifest =
        |logo: &str| MANIFEST.replace("Type: Library", &format!("Type: Library\nLogo: {logo}"));
    let named = manifest("other.png");
    let report = run(&[("manifest.yaml", Some(&named)), ("other.png", Some("png"))]);
    assert!(
        report
            .iter()
            .any(|d| d.code == "W120" && d.file.as_deref() == Some("other.png")),
        "{report:#?}"
    );
    let report = run(&[("logo.png", Some("png"))]);
    assert!(!report.iter().any(|d| d.code == "W120"), "{report:#?}");
    let listed = manifest("[a.png, b.png]");
    let report = run(&[("manifest.yaml", Some(&listed)), ("logo.png", Some("png"))]);
    assert!(!report.iter().any(|d| d.code == "E000"), "{report:#?}");
    assert!(!report.iter().any(|d| d.code == "W120"), "{report:#?}");
}

#[test]
fn defaults_are_checked_against_their_contracts_at_the_default() {
    let report = run(&[(
        C,
        Some(
            "+Properties:\n  port:\n    Contract: $.int()\n    Default: eighty\n  \
             ok:\n    Contract: $.int()\n    Default: '80'\n  \
             list:\n    Contract: [$.string().notNull()]\n    Default: [a, null]\n  \
             dynamic:\n    Contract: $.int()\n    Default: $.other\n  \
             none:\n    Contract: $.int().notNull()\n    Default: null\n  \
             ranged:\n    Contract: $.int().check($ > 0)\n    Default: -1\n\
             Methods:\n  run:\n    Arguments:\n      - n:\n          Contract: $.int()\n          Default: x\n",
        ),
    )]);
    let lines: Vec<u32> = report
        .iter()
        .filter(|d| d.code == "M409")
        .filter_map(|d| d.start.map(|p| p.line))
        .collect();
    // Lines of `eighty`, `[a, null]`, `-1` and the argument's `x`.
    assert_eq!(lines, [7, 13, 22, 28], "{report:#?}");
}

#[test]
fn meta_applies_is_checked_per_target() {
    let ok = run(&[(
        C,
        Some("+Properties:\n  port:\n    Contract: $.int()\n    Meta:\n      - com.other.OnProperties: {}\n"),
    )]);
    assert!(!ok.iter().any(|d| d.code == "M410"), "{ok:#?}");
    // The package's own meta class, applied to a method.
    let own = run(&[
        (
            "Classes/Tag.yaml",
            Some("Namespaces:\n  =: com.example\nName: Tag\nUsage: Meta\nApplies: [Type, Property]\n"),
        ),
        (
            C,
            Some("+Methods:\n  run:\n    Meta:\n      - Tag: {}\n    Body:\n      - $.f()\n"),
        ),
    ]);
    let hits: Vec<&Diagnostic> = own.iter().filter(|d| d.code == "M410").collect();
    assert_eq!(hits.len(), 1, "{own:#?}");
    assert_eq!(hits[0].start.map(|p| p.line), Some(7));
}

#[test]
fn hot_packages_are_checked_as_hot_unless_pkgcheck_only() {
    let files = package(&[
        (M, Some(HOT)),
        (T, Some("heat_template_version: 2013-05-23\nparameters:\n  size: {type: number}\nresources: {}\n")),
        // A GIF's signature is text.
        ("logo.png", Some("GIF89a")),
    ]);
    let report = check_package(&files, &CheckOptions::default());
    assert!(report.is_empty(), "{report:#?}");
    // murano-pkg-check's view: it knows no HOT (W030 for the format).
    let report = check_package(&files, &CheckOptions::default().with_pkgcheck_only(true));
    assert!(report.iter().any(|d| d.code == "W030"), "{report:#?}");
    assert!(
        !report.iter().any(|d| d.code.starts_with('H')),
        "{report:#?}"
    );
}

#[test]
fn hot_packages_keep_the_package_level_checks() {
    // The manifest names a logo the package lacks (Murano refuses the
    // import), and there is no LICENSE.
    let manifest = format!("{HOT}Logo: logo.png\n");
    let report = run(&[
        (M, Some(&manifest)),
        (
            T,
            Some("heat_template_version: 2013-05-23\nresources: {}\n"),
        ),
        ("LICENSE", None),
    ]);
    let codes: Vec<&str> = report.iter().map(|d| d.code).collect();
    for code in ["W074", "W121", "H110"] {
        assert!(codes.contains(&code), "{code}: {report:#?}");
    }
    let h110 = report.iter().find(|d| d.code == "H110").unwrap();
    assert_eq!(h110.start.map(|p| p.line), Some(5), "{h110:?}");
    // The files a HOT package holds are not unknown files to it.
    assert!(!codes.contains(&"W120"), "{report:#?}");
    // With both, nothing.
    let report = run(&[
        (M, Some(&manifest)),
        (
            T,
            Some("heat_template_version: 2013-05-23\nresources: {}\n"),
        ),
        ("logo.png", Some("GIF89a")),
    ]);
    assert!(
        !report
            .iter()
            .any(|d| ["W074", "W121", "H110"].contains(&d.code)),
        "{report:#?}"
    );
}

#[test]
fn pkgcheck_errors_on_what_murano_accepts_are_marked_parity_only() {
    let parity = |body: &str| -> Vec<(&'static str, bool)> {
        run(&[(C, Some(&format!("+Methods:\n  run:\n    Body:\n{body}")))])
            .iter()
            .filter(|d| d.code.starts_with('E'))
            .map(|d| (d.code, is_parity_only(d)))
            .collect()
    };
    // `Do:` is a Murano macro murano-pkg-check does not know.
    assert_eq!(
        parity("      - Parallel:\n          - Do: [$.f()]\n"),
        [("E201", true)]
    );
    // A `!yaql` tag: murano-pkg-check's loader refuses it, Murano's reads it.
    assert_eq!(parity("      - Return: !yaql '1 + 1'\n"), [("E002", true)]);
    // What Murano refuses too stays an error that fails the run.
    assert_eq!(parity("      - x: 1\n"), [("E201", false)]);
    assert_eq!(
        parity("      - If: $.f()\n        Then: $.g()\n        Esle: $.h()\n"),
        [("E201", false)]
    );
    assert_eq!(parity("      - If: $.f()\n"), [("E204", false)]);
    let refused = parity("      - Return: !yaql '1 +'\n");
    assert!(refused.iter().all(|(_, p)| !p), "{refused:?}");
    // murano-pkg-check's own view is left as it is.
    let files = package(&[(
        C,
        Some("+Methods:\n  run:\n    Body:\n      - Return: !yaql '1 + 1'\n"),
    )]);
    let report = check_package(&files, &CheckOptions::default().with_pkgcheck_only(true));
    assert!(report
        .iter()
        .any(|d| d.code == "E002" && !is_parity_only(d)));
}

#[test]
fn ui_types_are_checked_against_the_package_and_the_catalog() {
    let ui = "Templates:\n  t:\n    ?: {type: com.other.Lb}\nApplication:\n  ?:\n    type: com.example.App\n  \
              lib:\n    ?: {type: com.other.Lib}\n  expr: {?: {type: $.f.type}}\n\
              Forms:\n  - f:\n      fields:\n        - {name: a, type: com.example.Ap}\n        \
              - {name: b, type: [com.other.Lib, string]}\n        - {name: c, type: string}\n";
    let report = run(&[(U, Some(ui))]);
    let m420: Vec<(u32, &str)> = report
        .iter()
        .filter(|d| d.code == "M423")
        .map(|d| (d.start.map_or(0, |p| p.line), d.message.as_str()))
        .collect();
    assert_eq!(m420.len(), 2, "{m420:#?}");
    assert_eq!(m420[0].0, 3);
    assert!(m420[0].1.contains("\"com.other.Lb\""), "{m420:?}");
    assert_eq!(m420[1].0, 13);
    assert!(m420[1].1.contains("\"com.example.Ap\""), "{m420:?}");
    // Without a catalog: not checked.
    let report = check_package(&package(&[(U, Some(ui))]), &CheckOptions::default());
    assert!(!report.iter().any(|d| d.code == "M423"), "{report:#?}");
}

#[test]
fn the_class_index_knows_the_class_of_a_hot_package() {
    let mut hot = FileMap::new();
    hot.insert("manifest.yaml", HOT.as_bytes().to_vec())
        .unwrap();
    hot.insert("template.yaml", b"resources: {}\n".to_vec())
        .unwrap();
    let mut index = catalog();
    assert_eq!(index.add_package(&hot).as_deref(), Some("com.example.Hot"));
    // A UI naming the HOT package's class finds it in the catalog.
    let ui = "Application:\n  ?: {type: com.example.Hot}\n";
    let report = check_package(
        &package(&[(U, Some(ui))]),
        &CheckOptions::default().with_catalog(index),
    );
    assert!(!report.iter().any(|d| d.code == "M423"), "{report:#?}");
}

#[test]
fn duplicate_keys_are_reported_in_every_yaml_file_with_both_positions() {
    let ui = "Version: 2\nForms:\n  - main:\n      fields:\n        - name: port\n          type: string\n          label: Port\n          label: Again\n";
    let report = run(&[
        (U, Some(ui)),
        (
            "Resources/Deploy.template",
            Some("FormatVersion: 2.0.0\nBody: a\nBody: b\n"),
        ),
        (
            "Resources/stack.yaml",
            Some("resources:\n  r: {type: X, type: Y}\n"),
        ),
    ]);
    let found: Vec<(&str, u32, &str)> = report
        .iter()
        .filter(|d| d.code == "M408")
        .map(|d| {
            (
                d.file.as_deref().unwrap_or(""),
                d.start.map_or(0, |p| p.line),
                d.message.as_str(),
            )
        })
        .collect();
    assert_eq!(found.len(), 3, "{report:#?}");
    assert!(found.iter().any(|(f, l, m)| *f == U
        && *l == 8
        && m.contains("\"label\"")
        && m.contains("first written at line 7")));
    assert!(found
        .iter()
        .any(|(f, l, m)| *f == "Resources/Deploy.template" && *l == 3 && m.contains("line 2")));
    assert!(found
        .iter()
        .any(|(f, l, _)| *f == "Resources/stack.yaml" && *l == 2));
    // A Heat.HOT package's template too.
    let files = package(&[
        (M, Some(HOT)),
        (
            T,
            Some("heat_template_version: 2013-05-23\nresources: {}\nresources: {}\n"),
        ),
    ]);
    let report = check_package(&files, &CheckOptions::default());
    assert!(
        report
            .iter()
            .any(|d| d.code == "M408" && d.file.as_deref() == Some(T)),
        "{report:#?}"
    );
    // Not with murano-pkg-check's codes only.
    let report = check_package(&files, &CheckOptions::default().with_pkgcheck_only(true));
    assert!(!report.iter().any(|d| d.code == "M408"), "{report:#?}");
}

#[test]
fn a_required_package_missing_from_the_catalog_is_one_finding() {
    let manifest = "Format: MuranoPL/1.4\nFullName: com.example\nType: Library\n\
Description: demo\nRequire:\n  com.other: \n  com.missing.lib: 1.0.0\nClasses:\n  com.example.App: App.yaml\n";
    let class = "+Extends: com.missing.lib.Base\nProperties:\n  a:\n    Contract: $.class('com.missing.lib.Thing')\n  \
                 b:\n    Contract: $.class('com.missing.lib.Other')\n";
    let report = run(&[(M, Some(manifest)), (C, Some(class))]);
    let codes: Vec<&str> = report.iter().map(|d| d.code).collect();
    assert!(!codes.contains(&"M403"), "{report:#?}");
    let m420: Vec<&Diagnostic> = report.iter().filter(|d| d.code == "M420").collect();
    assert_eq!(m420.len(), 1, "{report:#?}");
    assert_eq!(m420[0].file.as_deref(), Some(M));
    assert_eq!(m420[0].start.map(|p| p.line), Some(7));
    assert!(
        m420[0].message.contains("com.missing.lib.Base"),
        "{}",
        m420[0].message
    );
    assert!(
        m420[0].message.contains("com.missing.lib.Other"),
        "{}",
        m420[0].message
    );
}

#[test]
fn unknown_or_unrequired_classes_in_extends_and_import_are_errors() {
    // Murano resolves Extends and Import when it loads the class: a class
    // no package defines, or of a package not required, fails the load.
    for (text, code) in [
        ("+Extends: com.nowhere.Base\n", "M403"),
        ("+Import: com.nowhere.Base\n", "M403"),
        ("+Extends: com.other.Lib\n", "M404"),
    ] {
        let report = run(&[(C, Some(text))]);
        let d = report.iter().find(|d| d.code == code).expect(text);
        assert_eq!(d.severity, Severity::Error, "{text}");
        assert!(d.message.contains("cannot load"), "{}", d.message);
    }
    // In a contract the class is looked up only when the contract runs.
    let report = run(&[(
        C,
        Some("+Properties:\n  a:\n    Contract: $.class('com.nowhere.Thing')\n"),
    )]);
    let d = report.iter().find(|d| d.code == "M403").unwrap();
    assert_eq!(d.severity, Severity::Warning);
}

#[test]
fn undeclared_properties_of_this_are_reported_where_dollar_is_this() {
    let class = concat!(
        "+Properties:\n  port:\n    Contract: $.int()\n",
        "Methods:\n  run:\n    Body:\n",
        "      - $.port\n",
        "      - $.prot + 1\n",
        "      - $.items.where($.name = 1).select($.value)\n",
        "      - $scratch: $this.other\n",
        "      - $.cache: 1\n",
        "      - Return: $.cache\n",
        "      - $.f($.port)\n",
        "      - If: $.flag\n        Then:\n          - $.port.x\n",
    );
    let report = run(&[(C, Some(class))]);
    let found: Vec<(u32, &str)> = report
        .iter()
        .filter(|d| d.code == "M421")
        .map(|d| (d.start.map_or(0, |p| p.line), d.message.as_str()))
        .collect();
    let lines: Vec<u32> = found.iter().map(|(l, _)| *l).collect();
    // `prot`, `items` (not `name`/`value`: `$` is rebound in the
    // lambdas), `other`, `flag`; `cache` is stored by the class itself
    // (Murano keeps it aside), so it can be read back.
    assert_eq!(lines, [11, 12, 13, 17], "{found:#?}");
    assert!(found[0].1.contains("\"prot\"") && found[0].1.contains("com.example.App"));
}

#[test]
fn undeclared_property_checks_follow_known_ancestors_only() {
    let base = "Namespaces:\n  =: com.example\nName: Base\nProperties:\n  inherited:\n    Contract: $.string()\n";
    let manifest = "Format: MuranoPL/1.4\nFullName: com.example\nType: Library\n\
Description: demo\nRequire:\n  com.other:\nClasses:\n  com.example.App: App.yaml\n  com.example.Base: Base.yaml\n";
    let body = "Methods:\n  run:\n    Body:\n      - $.inherited\n      - $.fromLib\n";
    // An ancestor in the package: its properties count.
    let report = run(&[
        (M, Some(manifest)),
        ("Classes/Base.yaml", Some(base)),
        (C, Some(&format!("+Extends: Base\n{body}"))),
    ]);
    let lines: Vec<u32> = report
        .iter()
        .filter(|d| d.code == "M421")
        .filter_map(|d| d.start.map(|p| p.line))
        .collect();
    assert_eq!(lines, [9], "{report:#?}");
    // An ancestor the catalog names but does not describe: nothing.
    let text = format!("+Extends: com.other.Lib\n{body}");
    let report = run(&[(M, Some(manifest)), (C, Some(&text))]);
    assert!(!report.iter().any(|d| d.code == "M421"), "{report:#?}");
    // An ancestor the catalog holds with its class file: its properties.
    let mut lib = FileMap::new();
    lib.insert(
        "manifest.yaml",
        b"Format: MuranoPL/1.4\nFullName: com.lib\nType: Library\nDescription: d\n".to_vec(),
    )
    .unwrap();
    lib.insert(
        "Classes/Lib.yaml",
        b"Namespaces:\n  =: com.lib\nName: Lib\nProperties:\n  fromLib:\n    Contract: $.string()\n"
            .to_vec(),
    )
    .unwrap();
    let mut index = catalog();
    index.add_package(&lib);
    let manifest = manifest.replace("com.other:", "com.lib:");
    let text = format!("+Extends: com.lib.Lib\n{body}");
    let files = package(&[(M, Some(&manifest)), (C, Some(&text))]);
    let report = check_package(&files, &CheckOptions::default().with_catalog(index));
    let lines: Vec<u32> = report
        .iter()
        .filter(|d| d.code == "M421")
        .filter_map(|d| d.start.map(|p| p.line))
        .collect();
    assert_eq!(lines, [8], "{report:#?}");
}

#[test]
fn optional_string_fields_mapped_to_properties_with_defaults_are_reported() {
    let class = "+Properties:\n  name:\n    Contract: $.string()\n    Default: shop\n  \
                 size:\n    Contract: $.string()\n    Default: ''\n  port:\n    Contract: $.string()\n    Default: '80'\n";
    let ui = concat!(
        "Version: 2.2\n",
        "Application:\n",
        "  ?:\n    type: com.example.App\n",
        "  name: $.main.name\n",
        "  size: $.main.size\n",
        "  port: $.main.port\n",
        "Forms:\n",
        "  - main:\n",
        "      fields:\n",
        "        - name: name\n          type: string\n          required: false\n",
        "        - name: size\n          type: string\n          required: false\n",
        "        - name: port\n          type: string\n",
    );
    let report = run(&[(C, Some(class)), (U, Some(ui))]);
    let found: Vec<&Diagnostic> = report.iter().filter(|d| d.code == "M422").collect();
    // `name` only: `size`'s Default is '' already, `port` is required.
    assert_eq!(found.len(), 1, "{report:#?}");
    assert_eq!(found[0].file.as_deref(), Some(U));
    assert_eq!(found[0].start.map(|p| p.line), Some(5));
    assert!(
        found[0].message.contains("main.name"),
        "{}",
        found[0].message
    );
    assert!(found[0].message.contains("Default"), "{}", found[0].message);
}

#[test]
fn merged_indexes_equal_one_index_of_every_package() {
    let package = |name: &str, class: &str| {
        let mut files = FileMap::new();
        files
            .insert(
                "manifest.yaml",
                format!("Format: MuranoPL/1.4\nFullName: {name}\nType: Library\nClasses:\n  {class}: C.yaml\n").into_bytes(),
            )
            .unwrap();
        files
            .insert(
                "Classes/C.yaml",
                format!("Name: {class}\nProperties:\n  p:\n    Contract: $\n").into_bytes(),
            )
            .unwrap();
        files
    };
    let (a, b) = (package("p.a", "p.a.A"), package("p.b", "p.b.B"));
    let mut whole = ClassIndex::new();
    whole.add_package(&a);
    whole.add_package(&b);
    let (mut one, mut other) = (ClassIndex::new(), ClassIndex::new());
    one.add_package(&a);
    other.add_package(&b);
    let mut merged = ClassIndex::new();
    merged.merge(&one);
    merged.merge(&other);
    assert_eq!(merged, whole);
    assert!(merged.shape("p.b.B").is_some() && merged.has_package("p.a"));
}
