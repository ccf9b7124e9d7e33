//! Unit tests of the registry.

use super::hierarchy::choose_from_chains;
use super::*;
use crate::model::ClassDefinition;
use crate::version::{parse_version_spec, YamlScalar};
use crate::yaml::{load_class_file, LoadOptions};

fn defs(text: &str) -> Vec<ClassDefinition> {
    let file = load_class_file(text.as_bytes(), &LoadOptions::default()).expect("test YAML loads");
    ClassDefinition::from_documents(&file.documents, None)
}

fn version(text: &str) -> Version {
    Version::parse(text).expect("test version")
}

fn spec(text: &str) -> VersionSpec {
    parse_version_spec(&YamlScalar::from(text)).expect("test spec")
}

/// A builder with `io.murano` 0.0.0 holding `io.murano.Object`.
fn core_builder() -> (RegistryBuilder, PackageId) {
    let mut builder = RegistryBuilder::new();
    let core = builder
        .add_package(PackageInfo::new(CORE_LIBRARY, version("0.0.0")))
        .expect("core");
    for class in defs("Name: io.murano.Object") {
        builder.add_class(core, class).expect("object");
    }
    (builder, core)
}

fn add_all(builder: &mut RegistryBuilder, package: PackageId, text: &str) {
    for class in defs(text) {
        builder.add_class(package, class).expect("class added");
    }
}

/// The core library plus one package `tests` with the classes of `text`.
fn registry(text: &str) -> ClassRegistry {
    let (mut builder, _) = core_builder();
    let tests = builder
        .add_package(PackageInfo::new("tests", version("0.0.0")))
        .expect("tests");
    add_all(&mut builder, tests, text);
    builder.build()
}

fn id(registry: &ClassRegistry, name: &str) -> ClassId {
    registry
        .find_class(name, None)
        .unwrap_or_else(|| panic!("class {name} registered"))
}

fn names(registry: &ClassRegistry, ids: &[ClassId]) -> Vec<String> {
    ids.iter()
        .map(|c| registry.class_name(*c).unwrap_or("?").to_owned())
        .collect()
}

fn codes_of(registry: &ClassRegistry) -> Vec<&'static str> {
    registry.diagnostics().iter().map(|d| d.code).collect()
}

fn declaring(registry: &ClassRegistry, class: &str, method: &str) -> Vec<String> {
    let found = registry
        .find_method(id(registry, class), method)
        .expect("query");
    found
        .iter()
        .map(|m| registry.class_name(m.class).unwrap_or("?").to_owned())
        .collect()
}

const DIAMOND: &str = "
Namespaces: {=: d}
Name: A
Methods:
  onlyA: {Body: []}
  inB: {Body: []}
  inBC: {Body: []}
  inAll: {Body: []}
Properties:
  p: {Contract: $}
---
Name: B
Extends: A
Methods:
  inB: {Body: []}
  inBC: {Body: []}
  inAll: {Body: []}
---
Name: C
Extends: A
Methods:
  inBC: {Body: []}
  inAll: {Body: []}
Properties:
  p: {Contract: $.int()}
---
Name: D
Extends: [B, C]
Methods:
  inAll: {Body: []}
";

#[test]
fn implicit_object_parent() {
    let r = registry(
        "
Name: t.Plain
---
Name: t.EmptyList
Extends: []
---
Name: t.EmptyString
Extends: ''
",
    );
    assert!(r.diagnostics().is_empty(), "{:?}", r.diagnostics());
    for name in ["t.Plain", "t.EmptyList", "t.EmptyString"] {
        let class = id(&r, name);
        assert_eq!(names(&r, r.parents(class)), ["io.murano.Object"], "{name}");
        assert_eq!(r.parent_links(class)[0].written, None);
    }
    let object = id(&r, OBJECT_CLASS);
    assert!(r.parents(object).is_empty());
    assert_eq!(r.ancestors(object).unwrap(), []);
}

#[test]
fn object_never_has_parents() {
    let (mut builder, _) = core_builder();
    let other = builder
        .add_package(PackageInfo::new("other", version("0.0.0")))
        .unwrap();
    add_all(
        &mut builder,
        other,
        "Name: io.murano.Object\nExtends: io.murano.Missing",
    );
    let r = builder.build();
    let object = r.class_in_package(other, OBJECT_CLASS).unwrap();
    assert!(r.parents(object).is_empty());
    // The name is still looked up, as Murano does before ignoring it.
    assert_eq!(codes_of(&r), [codes::UNRESOLVED_PARENT]);
}

#[test]
fn diamond_traversal_and_resolution() {
    let r = registry(DIAMOND);
    assert!(r.diagnostics().is_empty(), "{:?}", r.diagnostics());
    let d = id(&r, "d.D");
    assert_eq!(
        names(&r, &r.mro(d).unwrap()),
        ["d.D", "d.B", "d.C", "d.A", "io.murano.Object"]
    );
    assert_eq!(declaring(&r, "d.D", "onlyA"), ["d.A"]);
    // B overrides A; the path through C still reaches A, but B hides it.
    assert_eq!(declaring(&r, "d.D", "inB"), ["d.B"]);
    // B and C both override: ambiguous, B's chain first.
    assert_eq!(declaring(&r, "d.D", "inBC"), ["d.B", "d.C"]);
    assert_eq!(
        r.find_single_method(d, "inBC").unwrap_err(),
        QueryError::AmbiguousMethodName("inBC".into())
    );
    assert_eq!(declaring(&r, "d.D", "inAll"), ["d.D"]);
    assert_eq!(declaring(&r, "d.D", "missing"), Vec::<String>::new());
    assert_eq!(
        r.find_single_method(d, "missing").unwrap_err(),
        QueryError::NoMethodFound("missing".into())
    );
    // Properties resolve the same way: C's redeclaration hides A's.
    let p = r.find_single_property(d, "p").unwrap();
    assert_eq!(r.class_name(p.class), Some("d.C"));
    assert_eq!(
        r.all_method_names(d).unwrap(),
        ["inAll", "inB", "inBC", "onlyA"]
    );
    let every_in_all = r.find_methods(d, |m| m.name == "inAll").unwrap();
    assert_eq!(
        every_in_all
            .iter()
            .map(|m| r.class_name(m.class).unwrap())
            .collect::<Vec<_>>(),
        ["d.D", "d.B", "d.C", "d.A"]
    );
    assert!(r.is_subclass(d, id(&r, "d.A")).unwrap());
    assert!(!r.is_subclass(id(&r, "d.A"), d).unwrap());
}

#[test]
fn no_c3_linearization() {
    // Python's C3 would give D, B, A, C and pick A's method; Murano finds
    // two declarations no path hides, which is ambiguous.
    let r = registry(
        "
Namespaces: {=: n}
Name: A
Methods: {m: {Body: []}}
---
Name: B
Extends: A
---
Name: C
Methods: {m: {Body: []}}
---
Name: D
Extends: [B, C]
---
Name: E
Extends: [D, A]
",
    );
    // Murano's order: the chains in breadth-first order of their ends
    // (D -> C -> Object ends before D -> B -> A -> Object).
    assert_eq!(declaring(&r, "n.D", "m"), ["n.C", "n.A"]);
    // E reaches A directly and through D; nothing hides A or C. The chain
    // (A) appears twice; the later copy is the one kept, after (C).
    assert_eq!(declaring(&r, "n.E", "m"), ["n.C", "n.A"]);
    let e = id(&r, "n.E");
    assert_eq!(
        names(&r, &r.mro(e).unwrap()),
        ["n.E", "n.D", "n.A", "n.B", "n.C", "io.murano.Object"]
    );
}

#[test]
fn override_reached_by_a_shorter_path() {
    // D extends [A, B], B extends A and overrides: the chain (A) is the
    // end of the chain (B, A), so B wins.
    let r = registry(
        "
Namespaces: {=: o}
Name: A
Methods: {m: {Body: []}}
---
Name: B
Extends: A
Methods: {m: {Body: []}}
---
Name: D
Extends: [A, B]
",
    );
    assert_eq!(declaring(&r, "o.D", "m"), ["o.B"]);
}

#[test]
fn static_property_lookup() {
    let r = registry(
        "
Namespaces: {=: s}
Name: A
Properties:
  counter: {Contract: $.int(), Usage: Static}
---
Name: B
Extends: A
Properties:
  counter: {Contract: $.int()}
",
    );
    let b = id(&r, "s.B");
    assert_eq!(
        r.class_name(r.find_single_property(b, "counter").unwrap().class),
        Some("s.B")
    );
    assert_eq!(
        r.class_name(r.find_static_property(b, "counter").unwrap().class),
        Some("s.A")
    );
    assert_eq!(
        r.find_static_property(b, "other").unwrap_err(),
        QueryError::NoPropertyFound("other".into())
    );
}

/// A small deterministic generator for random hierarchies.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, bound: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % bound.max(1)
    }
}

#[test]
fn closed_form_matches_chain_enumeration() {
    let mut rng = Lcg(7);
    for round in 0..150 {
        let n = 2 + rng.next(9) as usize;
        let mut text = String::from("Namespaces: {=: r}\n");
        for i in 0..n {
            if i > 0 {
                text.push_str("---\n");
            }
            text.push_str(&format!("Name: C{i}\n"));
            let parents: Vec<String> = (0..i)
                .filter(|_| rng.next(3) == 0)
                .map(|p| format!("C{p}"))
                .collect();
            if !parents.is_empty() {
                text.push_str(&format!("Extends: [{}]\n", parents.join(", ")));
            }
            if rng.next(2) == 0 {
                text.push_str("Methods: {m: {Body: []}}\n");
            }
        }
        let r = registry(&text);
        for i in 0..n {
            let class = id(&r, &format!("r.C{i}"));
            let pick = |c: ClassId| r.members_of(c).and_then(|m| m.method("m"));
            let mut exact = choose_from_chains(r.symbol_chains(class, &pick));
            let mut closed = r.choose_symbol_closed_form(class, &pick);
            exact.sort();
            closed.sort();
            assert_eq!(exact, closed, "round {round}, class C{i}:\n{text}");
        }
    }
}

#[test]
fn wide_ladders_stay_fast() {
    // 40 levels of diamonds: 2^40 inheritance paths.
    let mut text = String::from("Namespaces: {=: w}\nName: L0\nMethods: {m: {Body: []}}\n");
    for i in 1..=40 {
        let p = i - 1;
        text.push_str(&format!(
            "---\nName: X{i}\nExtends: L{p}\n---\nName: Y{i}\nExtends: L{p}\n---\nName: L{i}\nExtends: [X{i}, Y{i}]\n"
        ));
    }
    text.push_str("---\nName: Y20\nExtends: L19\nMethods: {m: {Body: []}}\n");
    let (mut builder, _) = core_builder();
    let tests = builder
        .add_package(PackageInfo::new("tests", version("0.0.0")))
        .unwrap();
    for class in defs(&text) {
        // The second Y20 is a duplicate and refused.
        let _ = builder.add_class(tests, class);
    }
    let r = builder.build();
    let top = id(&r, "w.L40");
    assert_eq!(declaring(&r, "w.L40", "m"), ["w.L0"]);
    let weights = r.type_weights(top).unwrap();
    assert_eq!(weights.get("w.L0"), Some(80));
    assert_eq!(weights.get("io.murano.Object"), Some(81));
    assert_eq!(weights.len(), 122);
    assert!(r.class_meta(top).unwrap().is_empty());
}

#[test]
fn cycles_are_errors() {
    let r = registry(
        "
Namespaces: {=: c}
Name: Self
Extends: Self
---
Name: A
Extends: B
---
Name: B
Extends: [c.A, io.murano.Object]
---
Name: Below
Extends: [io.murano.Object, A]
---
Name: Fine
",
    );
    let diags: Vec<_> = r
        .diagnostics()
        .iter()
        .map(|d| (d.subject.as_deref().unwrap(), d.code))
        .collect();
    assert_eq!(
        diags,
        [
            ("c.Self", codes::CYCLE),
            ("c.A", codes::CYCLE),
            ("c.B", codes::CYCLE),
            ("c.Below", codes::CYCLE)
        ]
    );
    let a = id(&r, "c.A");
    let cycle = names(&r, r.cycle(a).unwrap());
    assert_eq!(cycle, ["c.A", "c.B", "c.A"]);
    for name in ["c.Self", "c.A", "c.B", "c.Below"] {
        let class = id(&r, name);
        assert!(
            matches!(r.mro(class), Err(QueryError::Cycle { .. })),
            "{name}"
        );
        assert!(r.type_weights(class).is_err());
        assert!(r.find_method(class, "m").is_err());
        assert!(r.class_meta(class).is_err());
        assert!(!r.is_complete(class));
    }
    assert_eq!(
        r.mro(id(&r, "c.Self")).unwrap_err().to_string(),
        "the hierarchy of c.Self is cyclic (c.Self -> c.Self)"
    );
    assert!(r.mro(id(&r, "c.Fine")).is_ok());
}

#[test]
fn unknown_ids_do_not_panic() {
    let r = registry("Name: t.A");
    let bogus = ClassId(999);
    assert_eq!(r.mro(bogus), Err(QueryError::UnknownClass(bogus)));
    assert!(r.parents(bogus).is_empty());
    assert!(r.class_name(bogus).is_none());
    assert!(r.find_method(bogus, "x").is_err());
    assert!(r.type_weights(bogus).is_err());
    assert!(r.find_extension_method(bogus, "x").is_err());
    assert!(r.package_meta(PackageId(42)).is_empty());
    assert!(r.resolve_class(PackageId(42), "t.A").is_err());
}

#[test]
fn unresolved_names() {
    let r = registry(
        "
Namespaces: {=: u, std: io.murano}
Name: Child
Extends: [std:Missing, nope:Thing, 'bad name']
",
    );
    let child = id(&r, "u.Child");
    let got: Vec<_> = r
        .diagnostics()
        .iter()
        .map(|d| (d.code, d.python_exception.unwrap(), d.message.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            (
                codes::UNRESOLVED_PARENT,
                "NoClassFound",
                "Class \"io.murano.Missing\" is not found in io.murano/0.0.0, tests/0.0.0"
            ),
            (
                codes::UNRESOLVED_PARENT,
                "KeyError",
                "unknown namespace prefix \"nope\""
            ),
            (
                codes::UNRESOLVED_PARENT,
                "ValueError",
                "invalid type name \"bad name\""
            ),
        ]
    );
    // Queries still work on what resolved (nothing here).
    assert_eq!(r.mro(child).unwrap(), [child]);
    assert!(!r.is_complete(child));
}

#[test]
fn missing_core_library() {
    let mut builder = RegistryBuilder::new();
    let p = builder
        .add_package(PackageInfo::new("alone", version("1.0.0")))
        .unwrap();
    add_all(&mut builder, p, "Name: a.Thing");
    let r = builder.build();
    let d = &r.diagnostics()[0];
    assert_eq!(d.code, codes::UNRESOLVED_PARENT);
    assert_eq!(d.python_exception, Some("NoPackageFound"));
    assert_eq!(d.message, "Package \"io.murano\" is not found");
    assert_eq!(r.mro(id(&r, "a.Thing")).unwrap().len(), 1);
}

#[test]
fn requirements_decide_visibility() {
    let build = |resolution: Resolution, require: bool| {
        let (builder, _) = core_builder();
        let mut builder = builder.resolution(resolution);
        let lib = builder
            .add_package(PackageInfo::new("lib", version("0.0.1")))
            .unwrap();
        add_all(&mut builder, lib, "Name: lib.Base");
        let newer = builder
            .add_package(PackageInfo::new("lib", version("2.0.0")))
            .unwrap();
        add_all(&mut builder, newer, "Name: lib.Base");
        let mut info = PackageInfo::new("app", version("0.0.0"));
        if require {
            info = info.with_requirement("lib", spec("0"));
        }
        let app = builder.add_package(info).unwrap();
        add_all(&mut builder, app, "Name: app.App\nExtends: lib.Base");
        (builder.build(), lib, newer)
    };
    // Required: the highest version the spec allows (0.0.1, not 2.0.0).
    let (r, lib, _) = build(Resolution::Strict, true);
    assert!(r.diagnostics().is_empty());
    let app = id(&r, "app.App");
    assert_eq!(r.package_of(r.parents(app)[0]), Some(lib));
    // Not required: not found.
    let (r, _, _) = build(Resolution::Strict, false);
    assert_eq!(r.diagnostics()[0].code, codes::UNRESOLVED_PARENT);
    assert_eq!(
        r.diagnostics()[0].message,
        "Class \"lib.Base\" is not found in io.murano/0.0.0, app/0.0.0"
    );
    assert!(r.parents(id(&r, "app.App")).is_empty());
    // Lenient: found anyway (highest version), with a diagnostic.
    let (r, _, newer) = build(Resolution::Lenient, false);
    assert_eq!(codes_of(&r), [codes::OUTSIDE_REQUIREMENTS]);
    assert_eq!(r.diagnostics()[0].python_exception, Some("NoClassFound"));
    let app = id(&r, "app.App");
    assert_eq!(r.package_of(r.parents(app)[0]), Some(newer));
    // Host lookups by version spec.
    assert_eq!(
        r.find_class("lib.Base", None).and_then(|c| r.package_of(c)),
        Some(newer)
    );
    assert_eq!(
        r.find_class("lib.Base", Some(&spec("<1")))
            .and_then(|c| r.package_of(c)),
        r.find_package("lib", Some(&spec("0")))
    );
    assert_eq!(r.find_class("lib.Base", Some(&spec(">3"))), None);
}

#[test]
fn missing_required_package_stops_the_search() {
    let (mut builder, _) = core_builder();
    let app = builder
        .add_package(
            PackageInfo::new("app", version("0.0.0"))
                .with_requirement("gone", spec("0"))
                .with_requirement("lib", spec("0")),
        )
        .unwrap();
    let lib = builder
        .add_package(PackageInfo::new("lib", version("0.0.0")))
        .unwrap();
    add_all(&mut builder, lib, "Name: lib.Base");
    add_all(&mut builder, app, "Name: app.App\nExtends: lib.Base");
    let r = builder.build();
    assert_eq!(
        r.resolve_class(app, "lib.Base"),
        Err(LookupError::NoPackageFound {
            name: "gone".into()
        })
    );
    assert_eq!(r.diagnostics()[0].python_exception, Some("NoPackageFound"));
}

#[test]
fn extensions_prefix_fallback() {
    let (mut builder, _) = core_builder();
    let plugin = builder
        .add_package(PackageInfo::new("plugin", version("0.0.0")))
        .unwrap();
    add_all(&mut builder, plugin, "Name: Tool");
    let app = builder
        .add_package(
            PackageInfo::new("app", version("0.0.0")).with_requirement("plugin", spec("0")),
        )
        .unwrap();
    let r = builder.build();
    let tool = r.resolve_class(app, "io.murano.extensions.Tool").unwrap();
    assert_eq!(r.class_name(tool), Some("Tool"));
}

#[test]
fn duplicates_are_refused() {
    let (mut builder, core) = core_builder();
    assert!(matches!(
        builder.add_package(PackageInfo::new(CORE_LIBRARY, version("0.0.0"))),
        Err(RegistryError::DuplicatePackage { .. })
    ));
    let err = builder
        .add_class(core, defs("Name: io.murano.Object").remove(0))
        .unwrap_err();
    assert!(matches!(err, RegistryError::DuplicateClass { .. }));
    assert_eq!(
        builder.add_class(core, defs("Usage: Class").remove(0)),
        Err(RegistryError::UnnamedClass)
    );
    assert_eq!(
        builder.add_class(PackageId(9), defs("Name: x.Y").remove(0)),
        Err(RegistryError::UnknownPackage(PackageId(9)))
    );
}

#[test]
fn class_cannot_extend_meta_class() {
    let r = registry(
        "
Namespaces: {=: m}
Name: Tag
Usage: Meta
---
Name: Tagged
Extends: Tag
---
Name: SubTag
Usage: Meta
Extends: Tag
",
    );
    assert_eq!(codes_of(&r), [codes::META_PARENT]);
    assert_eq!(
        r.diagnostics()[0].python_exception,
        Some("InvalidInheritanceError")
    );
    assert_eq!(
        r.diagnostic_origins().next().unwrap().2,
        Some(id(&r, "m.Tagged"))
    );
    assert_eq!(r.diagnostics()[0].subject.as_deref(), Some("m.Tagged"));
}

/// lib 1.0.0 and 1.1.0 with `lib.Base` each; `a.Mid` (package a, which
/// requires lib `a_spec`) extends lib.Base; `b.Leaf` extends `a.Mid` and
/// `b.Near`, which extends lib.Base through b's requirement (`1.1`).
fn two_versions(a_spec: &str) -> ClassRegistry {
    let (mut builder, _) = core_builder();
    let old = builder
        .add_package(PackageInfo::new("lib", version("1.0.0")))
        .unwrap();
    add_all(&mut builder, old, "Name: lib.Base");
    let new = builder
        .add_package(PackageInfo::new("lib", version("1.1.0")))
        .unwrap();
    add_all(&mut builder, new, "Name: lib.Base");
    let a = builder
        .add_package(PackageInfo::new("a", version("0.0.0")).with_requirement("lib", spec(a_spec)))
        .unwrap();
    add_all(&mut builder, a, "Name: a.Mid\nExtends: lib.Base");
    let b = builder
        .add_package(
            PackageInfo::new("b", version("0.0.0"))
                .with_requirement("lib", spec("1.1"))
                .with_requirement("a", spec("0")),
        )
        .unwrap();
    add_all(
        &mut builder,
        b,
        "Name: b.Leaf\nExtends: [a.Mid, b.Near]\n---\nName: b.Near\nExtends: lib.Base",
    );
    builder.build()
}

#[test]
fn weights_take_the_shortest_path() {
    let r = two_versions("==1.0.0");
    let leaf = id(&r, "b.Leaf");
    let weights: Vec<(String, usize)> = r
        .type_weights(leaf)
        .unwrap()
        .iter()
        .map(|(n, w)| (n.to_owned(), w))
        .collect();
    // Two versions of lib.Base share one entry.
    assert_eq!(
        weights,
        [
            ("b.Leaf".to_owned(), 0),
            ("a.Mid".to_owned(), 1),
            ("b.Near".to_owned(), 1),
            ("lib.Base".to_owned(), 2),
            ("io.murano.Object".to_owned(), 3),
        ]
    );
    // ... but they are different classes of the traversal: neither
    // requirement allows the other version, so Murano keeps both.
    let mro = r.mro(leaf).unwrap();
    assert_eq!(mro.len(), 6);
    assert!(r.diagnostics().is_empty(), "{:?}", r.diagnostics());
}

#[test]
fn version_remapping_is_reported() {
    // a's requirement (1.x) picks 1.1.0 too, but under another spec than
    // b's: Murano maps lib 1.1.0 onto itself and fails doing it.
    let r = two_versions("1");
    assert_eq!(codes_of(&r), [codes::VERSION_REMAP]);
    let d = &r.diagnostics()[0];
    assert_eq!(d.python_exception, Some("TypeError"));
    assert_eq!(
        r.diagnostic_origins().next().unwrap().2,
        Some(id(&r, "b.Leaf"))
    );
    assert!(d.message.contains("lib/1.1.0"), "{}", d.message);
    // The declared hierarchy is kept.
    assert_eq!(r.mro(id(&r, "b.Leaf")).unwrap().len(), 5);
}

#[test]
fn same_requirements_need_no_remapping() {
    let (mut builder, _) = core_builder();
    let lib = builder
        .add_package(PackageInfo::new("lib", version("0.0.0")))
        .unwrap();
    add_all(&mut builder, lib, "Name: lib.Base");
    let a = builder
        .add_package(PackageInfo::new("a", version("0.0.0")).with_requirement("lib", spec("0")))
        .unwrap();
    add_all(&mut builder, a, "Name: a.Mid\nExtends: lib.Base");
    let b = builder
        .add_package(
            PackageInfo::new("b", version("0.0.0"))
                .with_requirement("lib", spec("0.0"))
                .with_requirement("a", spec("0")),
        )
        .unwrap();
    add_all(&mut builder, b, "Name: b.Leaf\nExtends: [a.Mid, lib.Base]");
    let r = builder.build();
    // "0" and "0.0" are different requirements of lib 0.0.0: Murano maps
    // lib onto itself and fails.
    assert_eq!(codes_of(&r), [codes::VERSION_REMAP]);

    let (mut builder, _) = core_builder();
    let lib = builder
        .add_package(PackageInfo::new("lib", version("0.0.0")))
        .unwrap();
    add_all(&mut builder, lib, "Name: lib.Base");
    let a = builder
        .add_package(PackageInfo::new("a", version("0.0.0")).with_requirement("lib", spec("0")))
        .unwrap();
    add_all(&mut builder, a, "Name: a.Mid\nExtends: lib.Base");
    let b = builder
        .add_package(
            PackageInfo::new("b", version("0.0.0"))
                .with_requirement("lib", spec(""))
                .with_requirement("a", spec("0")),
        )
        .unwrap();
    add_all(&mut builder, b, "Name: b.Leaf\nExtends: [a.Mid, lib.Base]");
    let r = builder.build();
    assert!(r.diagnostics().is_empty(), "{:?}", r.diagnostics());
}

/// Murano's unit-test classes for meta (`TestMeta.yaml`), with the values
/// its tests expect.
const TEST_META: &str = "
Namespaces:
  =: metatests
Name: InheritedMultiMeta
Usage: Meta
Cardinality: Many
Applies: All
Inherited: true
Properties:
  val:
    Contract: $.int().notNull()
    Default: 111
---
Name: InheritedSingleMeta
Usage: Meta
Cardinality: One
Applies: All
Inherited: true
Properties:
  val:
    Contract: $.int().notNull()
    Default: 222
---
Name: InheritedSingleMeta2
Usage: Meta
Cardinality: One
Applies: All
Inherited: true
Extends: InheritedSingleMeta
---
Name: MultiMeta
Usage: Meta
Cardinality: Many
Applies: All
Inherited: false
Properties:
  val:
    Contract: $.int().notNull()
    Default: 333
---
Name: SingleMeta
Usage: Meta
Cardinality: One
Applies: All
Inherited: false
Properties:
  val:
    Contract: $.int().notNull()
    Default: 444
---
Name: SingleMeta2
Usage: Meta
Cardinality: One
Applies: All
Inherited: false
Extends: SingleMeta
---
Name: ParentClass0
Meta: [InheritedMultiMeta, SingleMeta]
Properties:
  prop1:
    Contract: $
    Meta:
    - SingleMeta:
        val: 1
Methods:
  foo:
    Meta:
      - InheritedMultiMeta:
          val: 1
      - InheritedSingleMeta:
          val: 2
      - SingleMeta:
          val: 3
      - InheritedSingleMeta2:
          val: 10
      - SingleMeta2:
          val: 11
    Arguments:
      - arg:
          Contract: $.string()
---
Name: ParentClass1
Extends: ParentClass0
Meta:
  - InheritedMultiMeta:
      val: 1
  - InheritedSingleMeta:
      val: 6
  - SingleMeta:
      val: 7
Methods:
  foo:
    Meta:
      - InheritedMultiMeta:
          val: 4
      - InheritedSingleMeta:
          val: 5
      - SingleMeta:
          val: 6
    Arguments:
      - arg:
          Contract: $.string()
---
Name: ParentClass2
Extends: ParentClass0
Usage: Class
Meta:
  - InheritedMultiMeta:
      val: 2
  - SingleMeta:
      val: 3
Properties:
  prop2:
    Contract: $
    Meta:
    - InheritedMultiMeta:
        val: 1
    - MultiMeta:
        val: 2
    - SingleMeta:
        val: 3
---
Name: TestMeta
Extends: [ParentClass1, ParentClass2]
Meta:
  - 'metatests.InheritedMultiMeta':
      val: 4
  - :SingleMeta:
      val: 5
Properties:
  prop2:
    Contract: $
    Meta:
    - InheritedMultiMeta:
        val: 4
Methods:
  foo:
    Meta:
      - InheritedMultiMeta:
          val: 7
      - InheritedSingleMeta:
          val: 8
      - SingleMeta:
          val: 9
    Arguments:
      - arg:
          Contract: $.string()
          Meta:
          - SingleMeta:
              val: 1
          - MultiMeta:
              val: 2
          - MultiMeta:
              val: 3
";

/// The `val` of meta instances (their own, or the meta class default).
fn vals(r: &ClassRegistry, meta: &[MetaInstance<'_>], only: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = meta
        .iter()
        .filter(|m| {
            only.is_empty() || only.contains(&r.class_name(m.attachment.meta_class).unwrap_or("?"))
        })
        .map(|m| {
            let own = m
                .attachment
                .properties
                .as_ref()
                .and_then(|p| p.value.get("val"));
            let default = r
                .definition(m.attachment.meta_class)
                .and_then(|d| d.property("val"))
                .and_then(|p| p.default.as_ref());
            own.or(default)
                .map(|n| n.value.python_str())
                .unwrap_or_default()
        })
        .collect();
    out.sort();
    out
}

fn strings(items: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = items.iter().map(|s| (*s).to_owned()).collect();
    out.sort();
    out
}

#[test]
fn murano_meta_tests() {
    let r = registry(TEST_META);
    assert!(r.diagnostics().is_empty(), "{:?}", r.diagnostics());
    let test = id(&r, "metatests.TestMeta");
    let class_meta = r.class_meta(test).unwrap();
    assert_eq!(
        vals(&r, &class_meta, &["metatests.InheritedMultiMeta"]),
        strings(&["4", "1", "111", "2"])
    );
    assert_eq!(
        vals(
            &r,
            &class_meta,
            &["metatests.SingleMeta", "metatests.InheritedSingleMeta"]
        ),
        strings(&["5", "6"])
    );
    // Not inherited meta of ParentClass2 itself.
    let parent2 = r.class_meta(id(&r, "metatests.ParentClass2")).unwrap();
    assert_eq!(vals(&r, &parent2, &["metatests.SingleMeta"]), ["3"]);
    assert_eq!(
        vals(&r, &r.method_meta(test, "foo").unwrap(), &[]),
        strings(&["7", "8", "9", "4", "1", "10"])
    );
    assert_eq!(
        vals(&r, &r.argument_meta(test, "foo", "arg").unwrap(), &[]),
        strings(&["1", "2", "3"])
    );
    assert_eq!(
        vals(&r, &r.property_meta(test, "prop1").unwrap(), &[]),
        ["1"]
    );
    assert_eq!(
        vals(&r, &r.property_meta(test, "prop2").unwrap(), &[]),
        strings(&["1", "4"])
    );
    let prop1 = r.property_meta(test, "prop1").unwrap();
    assert_eq!(
        r.class_name(prop1[0].declared_by),
        Some("metatests.ParentClass0")
    );
    assert!(matches!(
        r.argument_meta(test, "foo", "nope"),
        Err(QueryError::NoArgumentFound { .. })
    ));
}

#[test]
fn meta_checks() {
    let r = registry(
        "
Namespaces: {=: mc}
Name: OnlyProps
Usage: Meta
Applies: [Property]
---
Name: Once
Usage: Meta
---
Name: Often
Usage: Meta
Cardinality: Many
---
Name: Plain
---
Name: User
Meta:
  - OnlyProps
  - Once
  - Once
  - Often
  - Often
  - Plain
  - Missing
  - {Once: {}, Often: {}}
  -
Properties:
  p:
    Contract: $
    Meta: OnlyProps
Methods:
  m:
    Meta: {OnlyProps: {x: 1}}
    Arguments:
      - a:
          Contract: $
          Meta: [Once, Once]
---
Name: Empty
Meta: {}
",
    );
    let got: Vec<_> = r
        .diagnostics()
        .iter()
        .map(|d| (d.code, d.python_exception.unwrap()))
        .collect();
    assert_eq!(
        got,
        [
            (codes::META_NOT_APPLICABLE, "ValueError"),
            (codes::META_CARDINALITY, "ValueError"),
            (codes::META_NOT_META_CLASS, "ValueError"),
            (codes::META_UNRESOLVED, "NoClassFound"),
            (codes::META_FORMAT, "ValueError"),
            (codes::META_UNRESOLVED, "AttributeError"),
            (codes::META_NOT_APPLICABLE, "ValueError"),
            (codes::META_CARDINALITY, "ValueError"),
            (codes::META_FORMAT, "ValueError"),
        ]
    );
    let user = id(&r, "mc.User");
    let declared = r.declared_meta(user).unwrap();
    // Once, Often, Often survive on the class; the property keeps its
    // entry; the method's and the argument's second Once are dropped.
    assert_eq!(declared.class.len(), 3);
    assert_eq!(declared.properties[0].len(), 1);
    assert!(declared.methods[0].is_empty());
    assert_eq!(declared.arguments[0][0].len(), 1);
    assert_eq!(r.class_meta(user).unwrap().len(), 3);
}

#[test]
fn inherited_one_meta_from_two_parents_conflicts() {
    let text = "
Namespaces: {=: ic}
Name: Title
Usage: Meta
Inherited: true
---
Name: Left
Meta: Title
Properties:
  p: {Contract: $, Meta: Title}
---
Name: Right
Meta: Title
Properties:
  p: {Contract: $, Meta: Title}
---
Name: Both
Extends: [Left, Right]
---
Name: Own
Extends: [Left, Right]
Meta: Title
Properties:
  p: {Contract: $, Meta: Title}
---
Name: ViaOne
Extends: Left
---
Name: Diamond
Extends: [ViaOne, Left]
";
    let r = registry(text);
    let got: Vec<_> = r
        .diagnostics()
        .iter()
        .map(|d| (d.subject.as_deref().unwrap(), d.code))
        .collect();
    assert_eq!(got, [("ic.Both", codes::META_INHERITANCE_CONFLICT)]);
    let both = id(&r, "ic.Both");
    assert_eq!(
        r.class_meta(both).unwrap_err().to_string(),
        "Found more than one instance of Meta ic.Title with Cardinality One (from ic.Left and ic.Right)"
    );
    assert_eq!(
        r.class_meta(both).unwrap_err().python_exception(),
        "ValueError"
    );
    // The property is ambiguous before its meta is read.
    assert_eq!(
        r.property_meta(both, "p").unwrap_err(),
        QueryError::AmbiguousPropertyName("p".into())
    );
    let own = id(&r, "ic.Own");
    let meta = r.class_meta(own).unwrap();
    assert_eq!(meta.len(), 1);
    assert_eq!(meta[0].declared_by, own);
    assert_eq!(r.property_meta(own, "p").unwrap().len(), 1);
    // One class reached along two paths is no conflict.
    let diamond = r.class_meta(id(&r, "ic.Diamond")).unwrap();
    assert_eq!(diamond.len(), 1);
    assert_eq!(r.class_name(diamond[0].declared_by), Some("ic.Left"));
}

#[test]
fn many_meta_accumulates_over_overrides() {
    let r = registry(
        "
Namespaces: {=: mm}
Name: Note
Usage: Meta
Cardinality: Many
Inherited: true
---
Name: Base
Methods:
  run:
    Meta: [Note, Note]
---
Name: Child
Extends: Base
Methods:
  run:
    Meta: Note
---
Name: Silent
Extends: Base
Methods:
  run: {Body: []}
",
    );
    assert!(r.diagnostics().is_empty());
    assert_eq!(r.method_meta(id(&r, "mm.Child"), "run").unwrap().len(), 3);
    // An override without meta keeps the inherited meta.
    let silent = r.method_meta(id(&r, "mm.Silent"), "run").unwrap();
    assert_eq!(silent.len(), 2);
    assert!(silent
        .iter()
        .all(|m| r.class_name(m.declared_by) == Some("mm.Base")));
}

#[test]
fn package_meta_uses_full_names() {
    let (mut builder, _) = core_builder();
    let meta_text = "Meta:\n  - pm.Tag: {x: 1}\n  - Tag\n";
    let manifest = crate::yaml::load_manifest(meta_text, &LoadOptions::default())
        .unwrap()
        .unwrap();
    let meta = manifest.value.get("Meta").cloned().unwrap();
    let p = builder
        .add_package(PackageInfo::new("pm", version("0.0.0")).with_meta(meta))
        .unwrap();
    add_all(
        &mut builder,
        p,
        "Namespaces: {=: pm}\nName: Tag\nUsage: Meta\nApplies: [Package, Type]",
    );
    let r = builder.build();
    assert_eq!(r.package_meta(p).len(), 1);
    let d = &r.diagnostics()[0];
    assert_eq!(d.code, codes::META_UNRESOLVED);
    assert_eq!(r.diagnostic_origins().next().unwrap().2, None);
    assert!(
        d.message.starts_with("Class \"Tag\" is not found"),
        "{}",
        d.message
    );
}

#[test]
fn extension_methods() {
    let r = registry(
        "
Namespaces: {=: extcls}
Name: Extended
Methods:
  method: {Body: []}
---
Name: Extender
Methods:
  importedExtensionMethod:
    Usage: Extension
    Arguments:
      - obj: {Contract: $.class(Extended).notNull()}
      - n: {Contract: $.int().notNull()}
  extensionMethod:
    Usage: Extension
    Arguments:
      - obj: {Contract: $.class(Extended).notNull()}
  notAnExtension:
    Usage: Static
---
Name: SubExtender
Extends: Extender
---
Name: TestClass
Import: [Extender, extcls.Extender, SubExtender, extcls.TestClass, ':TestClass']
Methods:
  extensionMethod:
    Usage: Extension
    Arguments:
      - obj: {Contract: $.class(Extended).notNull()}
",
    );
    assert!(r.diagnostics().is_empty(), "{:?}", r.diagnostics());
    let test = id(&r, "extcls.TestClass");
    // Duplicates and the class's own full name are skipped; `:TestClass`
    // resolves to the class itself and is kept, as in Murano.
    assert_eq!(
        names(&r, r.imports(test)),
        ["extcls.Extender", "extcls.SubExtender", "extcls.TestClass"]
    );
    let found = r.find_extension_method(test, "extensionMethod").unwrap();
    let sources: Vec<_> = found
        .iter()
        .map(|c| (c.source, r.class_name(c.method.class).unwrap()))
        .collect();
    assert_eq!(
        sources,
        [
            (ExtensionSource::Own, "extcls.TestClass"),
            (
                ExtensionSource::Import {
                    position: 0,
                    class: id(&r, "extcls.Extender")
                },
                "extcls.Extender"
            ),
            (
                ExtensionSource::Import {
                    position: 1,
                    class: id(&r, "extcls.SubExtender")
                },
                "extcls.Extender"
            ),
            (
                ExtensionSource::Import {
                    position: 2,
                    class: test
                },
                "extcls.TestClass"
            ),
        ]
    );
    let imported = r
        .find_extension_method(test, "importedExtensionMethod")
        .unwrap();
    assert_eq!(imported.len(), 2);
    assert_eq!(imported[0].receiver().map(|a| a.name.as_str()), Some("obj"));
    assert!(r
        .find_extension_method(test, "notAnExtension")
        .unwrap()
        .is_empty());
    let exported: Vec<_> = r
        .exported_extension_methods(id(&r, "extcls.SubExtender"))
        .unwrap()
        .iter()
        .map(|m| m.member.name.clone())
        .collect();
    assert_eq!(exported, ["importedExtensionMethod", "extensionMethod"]);
}

#[test]
fn unresolved_import_is_reported() {
    let r = registry("Name: t.A\nImport: [t.Nothing]");
    assert_eq!(codes_of(&r), [codes::UNRESOLVED_IMPORT]);
    assert!(r.imports(id(&r, "t.A")).is_empty());
}

#[test]
fn effective_requirements_follow_murano() {
    let core = PackageInfo::new(CORE_LIBRARY, version("0.0.0"));
    let listed: Vec<String> = core
        .effective_requirements()
        .iter()
        .map(|(n, s)| format!("{n} {s}"))
        .collect();
    assert_eq!(listed, ["io.murano ==0"]);
    let app = PackageInfo::new("app", version("3.2.1"))
        .with_requirement("io.murano", spec("0.0"))
        .with_requirement("lib", spec(""));
    let listed: Vec<String> = app
        .effective_requirements()
        .iter()
        .map(|(n, s)| format!("{n} {s}"))
        .collect();
    assert_eq!(
        listed,
        ["app ==3", "io.murano <0.1.0,>=0.0.0", "lib <1.0.0,>=0.0.0"]
    );
}

#[test]
fn reference_meta_example() {
    // The MuranoPL reference's metadata example (classes Bar,
    // MetaClassOne, MetaClassMany and the package's Meta).
    let (mut builder, core) = core_builder();
    add_all(&mut builder, core, "Name: io.murano.Application");
    let manifest = crate::yaml::load_manifest(
        "Meta:\n io.murano.bar.MetaClassOne:\n   description: \"Just an empty application\"\n   count: 1\n",
        &LoadOptions::default(),
    )
    .unwrap()
    .unwrap();
    let bar = builder
        .add_package(
            PackageInfo::new("io.murano.bar.Bar", version("0.0.0"))
                .with_meta(manifest.value.get("Meta").cloned().unwrap()),
        )
        .unwrap();
    add_all(
        &mut builder,
        bar,
        "
Namespaces:
  =: io.murano.bar
  std: io.murano
Name: MetaClassOne
Usage: Meta
Cardinality: One
Applies: All
Properties:
  description:
    Contract: $.string()
    Default: null
  count:
    Contract: $.int().check($ >= 0)
    Default: 0
---
Name: MetaClassMany
Usage: Meta
Cardinality: Many
Applies: [Property, Method]
Inherited: true
Properties:
  description:
    Contract: $.string()
    Default: null
  count:
    Contract: $.int().check($ >= 0)
    Default: 0
---
Name: Bar
Extends: std:Application
Meta:
  MetaClassOne:
    description: \"Just an empty application class with some metadata\"
    count: 1
Properties:
  name:
    Contract: $.string().notNull()
    Meta:
      - MetaClassOne:
          description: \"Name of the app\"
          count: 1
      - MetaClassMany:
          count: 2
      - MetaClassMany:
          count: 3
Methods:
  initialize:
    Body:
      - $._environment: $.find(std:Environment).require()
    Meta:
      MetaClassOne:
        description: \"Method for initializing app\"
        count: 1
---
Name: BarChild
Extends: Bar
Properties:
  name:
    Contract: $.string()
---
Name: Wrong
Meta: MetaClassMany
",
    );
    let r = builder.build();
    let got: Vec<_> = r
        .diagnostics()
        .iter()
        .map(|d| (d.subject.as_deref().unwrap(), d.code))
        .collect();
    assert_eq!(got, [("io.murano.bar.Wrong", codes::META_NOT_APPLICABLE)]);
    let bar_class = id(&r, "io.murano.bar.Bar");
    assert_eq!(r.class_meta(bar_class).unwrap().len(), 1);
    assert_eq!(r.property_meta(bar_class, "name").unwrap().len(), 3);
    assert_eq!(r.method_meta(bar_class, ".init").unwrap().len(), 1);
    assert_eq!(r.package_meta(bar).len(), 1);
    // MetaClassOne is not inherited; the two MetaClassMany are.
    let child = id(&r, "io.murano.bar.BarChild");
    assert!(r.class_meta(child).unwrap().is_empty());
    let counts = vals_of(&r, &r.property_meta(child, "name").unwrap(), "count");
    assert_eq!(counts, ["2", "3"]);
    assert_eq!(
        names(&r, &r.mro(child).unwrap()),
        [
            "io.murano.bar.BarChild",
            "io.murano.bar.Bar",
            "io.murano.Application",
            "io.murano.Object"
        ]
    );
}

fn vals_of(r: &ClassRegistry, meta: &[MetaInstance<'_>], key: &str) -> Vec<String> {
    let _ = r;
    let mut out: Vec<String> = meta
        .iter()
        .filter_map(|m| m.attachment.properties.as_ref())
        .filter_map(|p| p.value.get(key))
        .map(|n| n.value.python_str())
        .collect();
    out.sort();
    out
}
