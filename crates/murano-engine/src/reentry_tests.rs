//! Recursion through paths that re-enter the engine without a method
//! frame (property defaults and contracts, objects contracts create,
//! argument defaults and contracts, meta classes): each ends with the
//! call-depth limit, a typed error, instead of overflowing the stack.

use murano_yaql::eval::Value;

use crate::{Engine, EngineError, ErrorKind, LimitKind, Limits, Receiver};

const CLASSES: &str = r#"
Name: Root
Methods:
  make:
    Scope: Public
    Arguments: [{class: {Contract: $.string().notNull()}}]
    Body:
      - Return: new($class)
  argDefault:
    Scope: Public
    Arguments:
      - x:
          Contract: $
          Default: $this.argDefault()
    Body:
      - Return: $x
  argContract:
    Scope: Public
    Arguments:
      - x:
          Contract: $.check($this.argContract(1) != null)
    Body:
      - Return: $x
  metaLoop:
    Scope: Public
    Body:
      - Return: typeinfo(new(Looping)).meta
  deepCalls:
    Scope: Public
    Arguments: [{n: {Contract: $.int()}}]
    Body:
      - If: $n > 0
        Then:
          - Return: $this.deepCalls($n - 1)
      - Return: $n
  breakOutside:
    Scope: Public
    Body:
      - $x: 1
      - If: $x = 1
        Then:
          - Break:
  badArgument:
    Scope: Public
    Arguments:
      - bad:
          Contract: $.int().check(1 / $ > 0)
    Body:
      - Return: $bad
  callBadArgument:
    Scope: Public
    Body:
      - Return: $this.badArgument(0)
  nestSelect:
    Scope: Public
    Arguments: [{levels: {Contract: $.int()}}]
    Body:
      - If: $levels <= 0
        Then:
          - Return: 1
      - $r: range(0, 4).pselect(new(Root).nestSelect($levels - 1))
      - Return: $r[0] + $r[1] + $r[2] + $r[3]
  nestParallel:
    Scope: Public
    Arguments: [{levels: {Contract: $.int()}}]
    Body:
      - If: $levels <= 0
        Then:
          - Return: 1
      - $n: 0
      - Parallel:
          - $n: $n + new(Root).nestParallel($levels - 1)
          - $n: $n + new(Root).nestParallel($levels - 1)
          - $n: $n + new(Root).nestParallel($levels - 1)
          - $n: $n + new(Root).nestParallel($levels - 1)
      - Return: $n
---
Name: SelfClass
Properties:
  p:
    Contract: $.class(SelfClass)
    Default: {}
---
Name: SelfTemplate
Properties:
  p:
    Contract: $.template(SelfTemplate)
    Default: {}
---
Name: ContractNew
Properties:
  p:
    Contract: $.check(new(ContractNew) != null)
    Default: 1
---
Name: DefaultNew
Properties:
  p:
    Contract: $
    Default: new(DefaultNew)
---
Name: Looping
Meta:
  - Loop:
---
Name: Loop
Usage: Meta
Properties:
  p:
    Contract: $
    Default: typeinfo(new(Looping)).meta
"#;

fn engine(limits: Limits) -> (Engine, Value) {
    crate::tests::engine_over(CLASSES, "Root.yaml", "Root", limits, Vec::new())
}

fn call(limits: Limits, method: &str, args: Vec<Value>) -> Result<Value, EngineError> {
    let (engine, root) = engine(limits);
    engine.call(&Receiver::Object(root), method, args, Vec::new())
}

fn assert_depth_error(method: &str, class: Option<&str>) {
    for limits in [
        Limits::default(),
        Limits {
            max_call_depth: 5,
            ..Limits::default()
        },
    ] {
        let args = class.map(|c| vec![Value::str(c)]).unwrap_or_default();
        let e = call(limits, method, args).unwrap_err();
        assert_eq!(
            e.kind,
            ErrorKind::Limit(LimitKind::CallDepth),
            "{method} {class:?}: {e}"
        );
        assert!(!e.catchable());
    }
}

// Each on the calling thread: a test thread's default stack (2 MiB).

#[test]
fn a_class_contract_default_building_its_own_class() {
    assert_depth_error("make", Some("SelfClass"));
}

#[test]
fn a_template_contract_default_building_its_own_class() {
    assert_depth_error("make", Some("SelfTemplate"));
}

#[test]
fn a_contract_calling_new_of_its_own_class() {
    assert_depth_error("make", Some("ContractNew"));
}

#[test]
fn a_default_calling_new_of_its_own_class() {
    assert_depth_error("make", Some("DefaultNew"));
}

#[test]
fn an_argument_default_calling_its_method() {
    assert_depth_error("argDefault", None);
}

#[test]
fn an_argument_contract_calling_its_method() {
    assert_depth_error("argContract", None);
}

#[test]
fn a_meta_class_default_reading_its_meta() {
    assert_depth_error("metaLoop", None);
}

#[test]
fn every_path_counts_against_a_lower_depth_too() {
    // One nesting level of each path costs one unit (a method call, or a
    // re-entry without a frame): a depth of 2 lets each run one level.
    for (method, class) in [
        ("make", "SelfClass"),
        ("make", "SelfTemplate"),
        ("make", "DefaultNew"),
    ] {
        let limits = Limits {
            max_call_depth: 2,
            ..Limits::default()
        };
        let e = call(limits, method, vec![Value::str(class)]).unwrap_err();
        assert_eq!(e.message, "call depth exceeds 2", "{class}");
        // The error records where MuranoPL was when it was raised.
        assert!(
            e.frames.iter().any(|f| f.method == method && f.line > 0),
            "{class}: {:?}",
            e.frames
        );
    }
}

#[test]
fn nested_parallel_counts_every_live_green_thread() {
    let limits = |max_threads| Limits {
        max_threads,
        ..Limits::default()
    };
    // 4 + 16 + 64 branches alive at once: more than 8.
    for method in ["nestSelect", "nestParallel"] {
        let e = call(limits(8), method, vec![Value::Int(3)]).unwrap_err();
        assert_eq!(
            e.kind,
            ErrorKind::Limit(LimitKind::Threads),
            "{method}: {e}"
        );
        assert!(!e.catchable());
        // 4 + 16 fit in 32.
        let out = call(limits(32), method, vec![Value::Int(2)]).unwrap();
        if method == "nestSelect" {
            assert_eq!(out, Value::Int(16));
        }
    }
}

/// The 1-based line of the first line of [`CLASSES`] that is `text`
/// once trimmed.
fn line_of(text: &str) -> u32 {
    let i = CLASSES
        .lines()
        .position(|l| l.trim() == text)
        .expect("line in CLASSES");
    i as u32 + 1
}

#[test]
fn break_outside_a_loop_has_a_position() {
    let e = call(Limits::default(), "breakOutside", vec![]).unwrap_err();
    assert_eq!(e.python_type(), "DslInvalidOperationError", "{e}");
    let f = e.frames.first().expect("a frame");
    assert_eq!(
        (f.method.as_str(), f.line),
        ("breakOutside", line_of("- Break:")),
        "{f:?}"
    );
    assert!(
        f.column > 1 && f.file.as_deref() == Some("Root.yaml"),
        "{f:?}"
    );
}

#[test]
fn an_error_in_an_argument_contract_names_the_method_and_argument() {
    let e = call(Limits::default(), "callBadArgument", vec![]).unwrap_err();
    let (inner, caller) = (&e.frames[0], &e.frames[1]);
    assert_eq!(
        (inner.method.as_str(), inner.line),
        ("badArgument", line_of("- bad:")),
        "{e:?}"
    );
    assert_eq!(
        inner.instruction.as_deref(),
        Some("Contract of argument bad")
    );
    assert_eq!(caller.method, "callBadArgument");
    assert!(e.formatted().contains("in method badArgument of type Root"));
}
