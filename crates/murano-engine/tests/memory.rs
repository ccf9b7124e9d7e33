//! Memory and work bounds of the third hardening round (issue 38) on small
//! classes: hostile MuranoPL ends with its result or a typed error.

use std::sync::Arc;

use murano_dsl::version::Version;
use murano_engine::{ClassSetBuilder, Engine, ErrorKind, Limits, Receiver};
use murano_yaql::eval::{Dict, Value};

const CLASS: &str = r#"
Name: Hog
Methods:
  doubling:
    Scope: Public
    Arguments: [{times: {Contract: $.int()}}]
    Body:
      - $s: [x]
      - For: i
        In: range(0, $times)
        Do:
          - $s: [$s, $s]
      - Return: list(len($s), len($s[0][1][0]))
  encoding:
    Scope: Public
    Body:
      - $s: ('x' * 40000000)
      - For: i
        In: range(0, 2)
        Do:
          - $s: base64encode($s)
      - Return: len($s)
"#;

/// An engine over `CLASS` and the object to call its methods on.
fn engine(limits: Limits) -> (Engine, Value) {
    let mut b = ClassSetBuilder::new();
    let pkg = b.add_package("t", Version::new(0, 0, 0)).unwrap();
    let core = b.add_package("io.murano", Version::new(0, 0, 0)).unwrap();
    b.add_system_classes(core).unwrap();
    for def in ClassSetBuilder::parse_file(b"Name: io.murano.Object", "Object.yaml").unwrap() {
        b.add_class(core, "Object.yaml", def).unwrap();
    }
    for def in ClassSetBuilder::parse_file(CLASS.as_bytes(), "Hog.yaml").unwrap() {
        b.add_class(pkg, "Hog.yaml", def).unwrap();
    }
    let engine = Engine::new(Arc::new(b.build()), limits, vec![]);
    let mut header = Dict::default();
    header.insert(Value::str("type"), Value::str("Hog"));
    header.insert(Value::str("id"), Value::str("hog"));
    let mut obj = Dict::default();
    obj.insert(Value::str("?"), Value::Dict(Arc::new(header)));
    let mut model = Dict::default();
    model.insert(Value::str("Objects"), Value::Dict(Arc::new(obj)));
    let root = engine
        .load_model(&Value::Dict(Arc::new(model)))
        .unwrap()
        .unwrap();
    (engine, root)
}

/// Item 5: every expression's result was copied whole when frozen, so
/// `$s: [$s, $s]` n times copied 2^n paths (22 times: seconds and GBs).
/// Conversions keep sharing now: sixty doublings are sixty lists.
#[test]
fn doubling_a_shared_list_is_linear() {
    let (engine, hog) = engine(Limits::default());
    let r = engine
        .call(
            &Receiver::Object(hog),
            "doubling",
            vec![],
            vec![("times".into(), Value::Int(60))],
        )
        .unwrap();
    assert_eq!(format!("{r:?}"), "[2, 2]");
}

/// Item 3: each `base64encode` result is a third longer than its input,
/// and none was checked against the string limit (64 MiB): two chained
/// calls on 40 MB made 71 MB. The result is refused before encoding.
#[test]
fn chained_base64_stops_at_the_string_limit() {
    let (engine, hog) = engine(Limits::default());
    let e = engine
        .call(&Receiver::Object(hog), "encoding", vec![], vec![])
        .unwrap_err();
    assert_eq!(
        e.kind,
        ErrorKind::Yaql(murano_yaql::eval::ErrorKind::MemoryQuotaExceeded),
        "{e:?}"
    );
}
