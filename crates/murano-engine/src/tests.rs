//! Unit tests: limits, control flow and errors on small classes.

use std::sync::Arc;

use murano_dsl::version::Version;
use murano_yaql::eval::{Dict, Value};

use crate::{ClassSetBuilder, Engine, EngineError, ErrorKind, LimitKind, Limits, Receiver};

const CLASSES: &str = r#"
Name: Looper
Properties:
  n: {Contract: $.int(), Default: 0}
Methods:
  forever:
    Scope: Public
    Body:
      - While: $.n = 0
        Do:
          - $x: 1
  catchForever:
    Scope: Public
    Body:
      - Try:
          - $.forever()
        Catch:
          - Do:
              - Return: caught
  recurse:
    Scope: Public
    Body:
      - Return: $.recurse()
  spawn:
    Scope: Public
    Arguments: [{count: {Contract: $.int()}}]
    Body:
      - For: i
        In: range(0, $count)
        Do:
          - $o: new(Looper)
  flow:
    Scope: Public
    Body:
      - $out: []
      - For: i
        In: range(0, 10)
        Do:
          - If: $i = 2
            Then:
              - Continue:
          - If: $i = 5
            Then:
              - Break:
          - $out: $out + [$i]
      - $d: {}
      - $d.a.b: 1
      - $d.a[c]: 2
      - Switch:
          $i = 5:
            - $out: $out + [s1]
          true:
            - $out: $out + [s2]
      - Match:
          5:
            - $out: $out + [m5]
        Value: $i
      - Try:
          - Try:
              - Throw: inner
                Message: first
            Catch:
              - As: first
                Do:
                  - Throw: boom
                    Message: bad
                    Cause: $first
        Catch:
          - With: boom
            As: e
            Do:
              - $out: $out + [$e.message, $e.cause.message]
        Finally:
          - $out: $out + [fin]
      - Return: [$out, $d]
  logAndAttributes:
    Scope: Public
    Body:
      - $log: logger(demo)
      - $log.info('{0}-{x}', 1, x => 2)
      - $log.error('{missing}')
      - $.setAttr(k, v)
      - Return:
          - $.getAttr(k)
          - $.getAttr(other, dflt)
          - $.native(20)
  native:
    Arguments: [{n: {Contract: $.int()}}]
    Body:
      - Return: declared body not used
  interleave:
    Scope: Public
    Body:
      - $log: []
      - Parallel:
          - Do:
              - $log: $log + [a1]
              - sleep(0)
              - $log: $log + [a2]
          - Do:
              - $log: $log + [b1]
              - sleep(0)
              - $log: $log + [b2]
      - Return: $log
  emptyMapYields:
    Scope: Public
    Body:
      - $log: []
      - Parallel:
          - Do:
              - $log: $log + [a1]
              - $none: list().pselect($)
              - $log: $log + [a2]
          - Do:
              - $log: $log + [b1]
      - Return: $log
  held:
    Scope: Public
    Body:
      - Parallel:
          - $.held()
  wide:
    Scope: Public
    Arguments: [{n: {Contract: $.int()}}]
    Body:
      - Return: range(0, $n).pselect(sleep($ mod 3)).len()
  throwing:
    Scope: Public
    Body:
      - $x: 1
      - Throw: failed
        Message: format('failed {0}', $x)
  throwingBadly:
    Scope: Public
    Body:
      - Throw: failed
        Message: $.nope
  parallel:
    Scope: Public
    Body:
      - $x: []
      - Parallel:
          - $x: $x + [1]
          - sleep(0)
        Limit: 1
      - sleep(0)
      - Return: $x + list(1, 2).pselect($ * 10)
"#;

fn engine(limits: Limits) -> (Engine, Value) {
    engine_with(limits, Vec::new())
}

fn engine_with(limits: Limits, natives: Vec<crate::NativeMethod>) -> (Engine, Value) {
    engine_over(CLASSES, "Looper.yaml", "Looper", limits, natives)
}

/// An engine over `classes` (the file `file` of the package `t`), the
/// system classes and a bare core library, with one object of type
/// `root_type` loaded (the second result). `reentry_tests` shares it.
pub(crate) fn engine_over(
    classes: &str,
    file: &str,
    root_type: &str,
    limits: Limits,
    natives: Vec<crate::NativeMethod>,
) -> (Engine, Value) {
    let mut b = ClassSetBuilder::new();
    let pkg = b.add_package("t", Version::new(0, 0, 0)).unwrap();
    let core = b.add_package("io.murano", Version::new(0, 0, 0)).unwrap();
    b.add_system_classes(core).unwrap();
    let core_classes = "Name: io.murano.Object\n---\nName: io.murano.system.Logger\n---\nName: io.murano.Exception\n\
        Properties: {name: {Contract: $, Usage: Runtime}, message: {Contract: $, Usage: Runtime}, cause: {Contract: $, Usage: Runtime}}\n";
    for def in ClassSetBuilder::parse_file(core_classes.as_bytes(), "Object.yaml").unwrap() {
        b.add_class(core, "Object.yaml", def).unwrap();
    }
    for def in ClassSetBuilder::parse_file(classes.as_bytes(), file).unwrap() {
        b.add_class(pkg, file, def).unwrap();
    }
    let engine = Engine::with_natives(Arc::new(b.build()), limits, Vec::new(), natives);
    let mut header = Dict::default();
    header.insert(Value::str("type"), Value::str(root_type));
    header.insert(Value::str("id"), Value::str("root"));
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

fn call(limits: Limits, method: &str, args: Vec<Value>) -> Result<Value, EngineError> {
    let (engine, root) = engine(limits);
    engine.call(&Receiver::Object(root), method, args, Vec::new())
}

#[test]
fn while_true_runs_out_of_fuel_and_is_not_caught() {
    let limits = Limits {
        fuel: Some(10_000),
        ..Limits::default()
    };
    for method in ["forever", "catchForever"] {
        let e = call(limits.clone(), method, vec![]).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Limit(LimitKind::Fuel), "{method}: {e}");
        assert!(!e.catchable());
    }
    // The default limits end it too.
    let e = call(Limits::default(), "forever", vec![]).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Limit(LimitKind::Fuel));
}

#[test]
fn unbounded_recursion_hits_the_call_depth() {
    let limits = Limits {
        max_call_depth: 20,
        ..Limits::default()
    };
    let e = call(limits, "recurse", vec![]).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Limit(LimitKind::CallDepth), "{e}");
    let e = call(Limits::default(), "recurse", vec![]).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Limit(LimitKind::CallDepth), "{e}");
}

/// Levels that each nest a deep expression take far more stack than
/// the call depth counts: the stack budget ends the recursion (here
/// within 512 KiB on a 2 MiB test thread) instead of an overflow that
/// would abort the process.
#[test]
fn deep_expressions_per_level_end_at_the_stack_budget() {
    let deep = format!("{}$.recurseDeep(){}", "abs(".repeat(150), ")".repeat(150));
    let classes = format!(
        "Name: Deep\nMethods:\n  recurseDeep:\n    Scope: Public\n    Body:\n      - Return: {deep}\n"
    );
    let limits = Limits {
        max_call_depth: 100_000,
        max_stack: 512 << 10,
        ..Limits::default()
    };
    let (engine, root) = engine_over(&classes, "Deep.yaml", "Deep", limits, Vec::new());
    let e = engine
        .call(&Receiver::Object(root), "recurseDeep", vec![], vec![])
        .unwrap_err();
    // Caught first by the engine (a call) or by the evaluator (an
    // expression level, yaql's RecursionError): either way an error.
    assert!(
        e.kind == ErrorKind::Limit(LimitKind::CallDepth) || e.python_type().contains("Recursion"),
        "{e:?}"
    );
}

#[test]
fn object_count_is_limited() {
    let limits = Limits {
        max_objects: 5,
        ..Limits::default()
    };
    assert!(call(limits.clone(), "spawn", vec![Value::Int(3)]).is_ok());
    let e = call(limits, "spawn", vec![Value::Int(10)]).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Limit(LimitKind::Objects), "{e}");
}

#[test]
fn block_constructs() {
    let out = call(Limits::default(), "flow", vec![]).unwrap();
    let Value::List(parts) = out else {
        panic!("{out:?}")
    };
    let expected_out: Vec<Value> = ["0", "1", "3", "4", "s1", "s2", "m5", "bad", "first", "fin"]
        .iter()
        .map(|s| match s.parse::<i64>() {
            Ok(n) => Value::Int(n),
            Err(_) => Value::str(s),
        })
        .collect();
    assert_eq!(parts[0].as_slice(), Some(&expected_out[..]));
    let d = format!("{:?}", parts[1]);
    assert_eq!(d, "{'a': {'b': 1, 'c': 2}}");
}

#[test]
fn parallel_branches_interleave_at_sleeps() {
    let out = call(Limits::default(), "interleave", vec![]).unwrap();
    assert_eq!(format!("{out:?}"), "['a1', 'b1', 'a2', 'b2']");
}

#[test]
fn an_empty_pselect_lets_the_other_branches_run() {
    // eventlet's GreenPool.imap spawns a mapper and waits even for no
    // items, so the other branch runs first.
    let out = call(Limits::default(), "emptyMapYields", vec![]).unwrap();
    assert_eq!(format!("{out:?}"), "['a1', 'b1', 'a2']");
}

#[test]
fn a_branch_waiting_on_its_parents_lock_is_a_deadlock_not_a_hang() {
    // `held` holds its lock on the object while its branch calls `held`
    // again from another green thread: Murano hangs forever here.
    let e = call(Limits::default(), "held", vec![]).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Limit(LimitKind::Deadlock), "{e}");
    assert!(!e.catchable());
}

#[test]
fn green_threads_are_limited() {
    for max_threads in [1, 4, crate::DEFAULT_MAX_THREADS] {
        let limits = Limits {
            max_threads,
            ..Limits::default()
        };
        let out = call(limits, "wide", vec![Value::Int(300)]).unwrap();
        assert_eq!(out, Value::Int(300), "max_threads {max_threads}");
    }
}

#[test]
fn missing_methods_and_wrong_arguments() {
    let e = call(Limits::default(), "nope", vec![]).unwrap_err();
    assert_eq!(e.python_type(), "NoMethodFound");
    let e = call(Limits::default(), "flow", vec![Value::Int(1)]).unwrap_err();
    assert_eq!(e.python_type(), "NoMatchingMethodException");
}

#[test]
fn parallel_branches_share_variables_and_pselect_keeps_order() {
    let out = call(Limits::default(), "parallel", vec![]).unwrap();
    assert_eq!(format!("{out:?}"), "[1, 10, 20]");
}

#[test]
fn loggers_attributes_and_native_methods() {
    let native = crate::NativeMethod {
        class: "Looper".into(),
        method: "native".into(),
        body: Arc::new(|call| {
            assert!(call.receiver.is_some());
            let n = call.arg("n").and_then(Value::as_int).unwrap_or(0);
            Ok(Value::Int(n + 1))
        }),
    };
    let (engine, root) = engine_with(Limits::default(), vec![native]);
    let out = engine
        .call(&Receiver::Object(root), "logAndAttributes", vec![], vec![])
        .unwrap();
    assert_eq!(format!("{out:?}"), "['v', 'dflt', 21]");
    let log = engine.take_log();
    let lines: Vec<String> = log
        .iter()
        .map(|r| format!("{} {} {}", r.logger, r.level, r.message))
        .collect();
    assert_eq!(lines, ["demo info 1-2", "demo error {missing}"]);
    assert!(engine.take_log().is_empty());
    let model = engine.serialized_model();
    let text = format!("{model:?}");
    assert!(text.contains("['root', 'Looper', 'k', 'v']"), "{text}");
}

/// An engine whose io.murano package has a class reading `config()`, and
/// another package's class trying to.
fn config_engine() -> (Engine, Value, Value) {
    let mut b = ClassSetBuilder::new();
    let core = b.add_package("io.murano", Version::new(0, 0, 0)).unwrap();
    let other = b.add_package("t", Version::new(0, 0, 0)).unwrap();
    let inside = "Name: io.murano.Object\n---\nName: io.murano.Reader\nMethods:\n  read:\n    Scope: Public\n    Body:\n      - Return: list(config(engine, agent_timeout), config(region), randomName(), randomName())\n  missing:\n    Scope: Public\n    Body:\n      - Return: config(engine, nope)\n  file:\n    Scope: Public\n    Body:\n      - Return: config(engine, agent_source, true)\n";
    for def in ClassSetBuilder::parse_file(inside.as_bytes(), "Reader.yaml").unwrap() {
        b.add_class(core, "Reader.yaml", def).unwrap();
    }
    let outside = "Name: Outsider\nMethods:\n  read:\n    Scope: Public\n    Body:\n      - Return: config(region)\n";
    for def in ClassSetBuilder::parse_file(outside.as_bytes(), "Outsider.yaml").unwrap() {
        b.add_class(other, "Outsider.yaml", def).unwrap();
    }
    let engine = Engine::new(Arc::new(b.build()), Limits::default(), Vec::new());
    let mut engine_group = Dict::default();
    engine_group.insert(Value::str("agent_timeout"), Value::Int(3600));
    engine_group.insert(Value::str("agent_source"), Value::str("murano-agent"));
    let mut config = Dict::default();
    config.insert(Value::str("engine"), Value::Dict(Arc::new(engine_group)));
    config.insert(Value::str("region"), Value::str("RegionOne"));
    engine.set_config(config);
    let root = |ty: &str, id: &str| {
        let mut header = Dict::default();
        header.insert(Value::str("type"), Value::str(ty));
        header.insert(Value::str("id"), Value::str(id));
        let mut obj = Dict::default();
        obj.insert(Value::str("?"), Value::Dict(Arc::new(header)));
        let mut model = Dict::default();
        model.insert(Value::str("Objects"), Value::Dict(Arc::new(obj)));
        Value::Dict(Arc::new(model))
    };
    let reader = engine
        .load_model(&root("io.murano.Reader", "r"))
        .unwrap()
        .unwrap();
    let outsider = engine.load_model(&root("Outsider", "o")).unwrap().unwrap();
    (engine, reader, outsider)
}

#[test]
fn config_and_random_names() {
    let (engine, reader, outsider) = config_engine();
    let call =
        |who: &Value, m: &str| engine.call(&Receiver::Object(who.clone()), m, vec![], vec![]);
    let out = call(&reader, "read").unwrap();
    assert_eq!(
        format!("{out:?}"),
        "[3600, 'RegionOne', 'abcdej5399reo1', 'fghijj5399reo2']"
    );
    let e = call(&reader, "missing").unwrap_err();
    assert_eq!(e.python_type(), "NoSuchOptError", "{e}");
    assert_eq!(e.message, "no such option nope in group [engine]");
    let e = call(&reader, "file").unwrap_err();
    assert_eq!(e.python_type(), "FileNotFoundError", "{e}");
    // Only io.murano's classes see config().
    let e = call(&outsider, "read").unwrap_err();
    assert_eq!(e.python_type(), "NoFunctionRegisteredException", "{e}");
}

#[test]
fn a_throw_frame_points_at_the_throw_not_at_its_message() {
    // Murano takes the trace before it evaluates `Message:`.
    let e = call(Limits::default(), "throwing", vec![]).unwrap_err();
    assert_eq!(e.message, "failed 1");
    let frame = &e.frames[0];
    assert_eq!(
        (frame.method.as_str(), frame.instruction.as_deref()),
        ("throwing", None)
    );
    let throw_line = CLASSES
        .lines()
        .position(|l| l.contains("Throw: failed"))
        .unwrap() as u32
        + 1;
    assert_eq!(frame.line, throw_line);
    // An error raised by the message's expression is at that expression.
    let e = call(Limits::default(), "throwingBadly", vec![]).unwrap_err();
    let frame = &e.frames[0];
    assert_eq!(frame.method, "throwingBadly");
    assert_eq!(frame.instruction.as_deref(), Some("$.nope"));
    assert_eq!(frame.line, throw_line + 6);
}

const TEMPLATE_CLASSES: &str = r#"
Name: Inst
Properties:
  name: {Contract: $.string().notNull()}
  size: {Contract: $.int().notNull(), Default: 1}
---
Name: Holder
Properties:
  tpl:
    Contract: $.template(Inst, excludeProperties => [name])
  strict:
    Contract: $.template(Inst)
Methods:
  make:
    Scope: Public
    Body:
      - $t: $.tpl
      - $t.name: made
      - Return: [$.tpl.containsKey(name), $.tpl.size, new($t).name]
---
Name: Base
Properties:
  count: {Contract: $.int(), Default: 0, Usage: InOut}
Methods:
  .init:
    Body:
      - $.count: $.count + 1
---
Name: Left
Extends: Base
---
Name: Right
Extends: Base
---
Name: Diamond
Extends: [Left, Right]
Methods:
  count:
    Scope: Public
    Body:
      - Return: $.count
"#;

fn load_root(model: Value) -> Result<(Engine, Value), EngineError> {
    load_classes(TEMPLATE_CLASSES, "T.yaml", model)
}

/// Loads `model` (the `Objects` value) over `classes` (one file of the
/// package `t`) and a bare `io.murano.Object`.
fn load_classes(classes: &str, file: &str, model: Value) -> Result<(Engine, Value), EngineError> {
    let mut b = ClassSetBuilder::new();
    let pkg = b.add_package("t", Version::new(0, 0, 0)).unwrap();
    let core = b.add_package("io.murano", Version::new(0, 0, 0)).unwrap();
    for def in ClassSetBuilder::parse_file(b"Name: io.murano.Object\n", "Object.yaml").unwrap() {
        b.add_class(core, "Object.yaml", def).unwrap();
    }
    for def in ClassSetBuilder::parse_file(classes.as_bytes(), file).unwrap() {
        b.add_class(pkg, file, def).unwrap();
    }
    let engine = Engine::new(Arc::new(b.build()), Limits::default(), Vec::new());
    let root = engine
        .load_model(&Value::dict([(Value::str("Objects"), model)]))?
        .unwrap();
    Ok((engine, root))
}

fn header(ty: &str, id: &str) -> (Value, Value) {
    (
        Value::str("?"),
        Value::dict([
            (Value::str("type"), Value::str(ty)),
            (Value::str("id"), Value::str(id)),
        ]),
    )
}

#[test]
fn template_excluded_properties_are_not_checked_and_not_kept() {
    // `name` is notNull and missing: excluded, it neither fails the load
    // nor appears in the template.
    let tpl = Value::dict([header("Inst", "i1")]);
    let model = Value::dict([header("Holder", "h"), (Value::str("tpl"), tpl.clone())]);
    let (engine, root) = load_root(model).unwrap();
    let out = engine
        .call(&Receiver::Object(root), "make", vec![], vec![])
        .unwrap();
    assert_eq!(format!("{out:?}"), "[False, 1, 'made']");
    // The template keeps its model (its id included), without `name`.
    let text = format!("{:?}", engine.serialized_model());
    assert!(
        text.contains("'tpl': {'?': {'type': 'Inst/0.0.0@t', 'id': 'i1', 'name': None, 'metadata': None}, 'size': 1}"),
        "{text}"
    );
    // Without the exclusion the missing name is a violation.
    let model = Value::dict([header("Holder", "h"), (Value::str("strict"), tpl)]);
    let e = load_root(model).unwrap_err();
    assert_eq!(e.python_type(), "ContractViolationException", "{e}");
    assert!(e.message.contains("notNull"), "{e}");
}

#[test]
fn a_class_reached_along_two_paths_runs_its_init_twice() {
    let (engine, root) = load_root(Value::dict([header("Diamond", "d")])).unwrap();
    let out = engine
        .call(&Receiver::Object(root), "count", vec![], vec![])
        .unwrap();
    assert_eq!(out, Value::Int(2));
}

const VIOLATION_CLASSES: &str = r#"
Name: Holder
Properties:
  label: {Contract: $.string(), Default: x}
  sizes: {Contract: [$.int()], Default: []}
  inner: {Contract: $.class(Holder)}
Methods:
  take:
    Scope: Public
    Arguments: [{counts: {Contract: [$.int()]}}]
    Body:
      - Return: $counts
"#;

/// Loads `Holder` objects from `model` (the `Objects` value).
fn load_holder(model: Value) -> Result<(Engine, Value), EngineError> {
    load_classes(VIOLATION_CLASSES, "H.yaml", model)
}

/// Violations name the property (or method and argument) and the path
/// inside the value, as Murano's `MuranoProperty.transform` and
/// `MuranoMethodArgument.transform` write them, whatever letters the
/// message holds; a nested object's violation gets both prefixes
/// (checked against Murano 14.0.0).
#[test]
fn contract_violations_name_the_property_and_the_path() {
    let list = |items: Vec<Value>| Value::List(Arc::new(items));
    let message = |model: Value| load_holder(model).unwrap_err().message;
    // "sizes" shares letters with "Value ... violates": still prefixed.
    let model = Value::dict([
        header("Holder", "h"),
        (
            Value::str("sizes"),
            list(vec![Value::Int(1), Value::str("x")]),
        ),
    ]);
    assert_eq!(
        message(model),
        "[Holder.sizes[1]] Value 'x' violates int() contract"
    );
    let inner = Value::dict([
        header("Holder", "h2"),
        (Value::str("label"), list(vec![Value::Int(1)])),
    ]);
    let model = Value::dict([header("Holder", "h"), (Value::str("inner"), inner)]);
    assert_eq!(
        message(model),
        "[Holder.inner] [Holder.label] Value [1] violates string() contract"
    );
    let (engine, root) = load_holder(Value::dict([header("Holder", "h")])).unwrap();
    let e = engine
        .call(
            &Receiver::Object(root),
            "take",
            vec![list(vec![Value::str("y")])],
            vec![],
        )
        .unwrap_err();
    assert_eq!(
        e.message,
        "[Holder::take(counts[0])] Value 'y' violates int() contract"
    );
}

/// Headers Murano's `parse_object_definition` cannot read fail as it
/// fails, and a header without a type takes the contract's class
/// (checked against Murano 14.0.0's DSL test foundation).
#[test]
fn object_headers_are_read_as_murano_reads_them() {
    let with_inner =
        |inner: Value| Value::dict([header("Holder", "h"), (Value::str("inner"), inner)]);
    let error = |model: Value| {
        let e = load_holder(model).unwrap_err();
        (e.python_type().to_owned(), e.message)
    };
    let list = |items: Vec<Value>| Value::List(Arc::new(items));
    let inner = Value::dict([(Value::str("?"), list(vec![Value::str("Holder")]))]);
    assert_eq!(
        error(with_inner(inner)),
        (
            "AttributeError".to_owned(),
            "'list' object has no attribute 'get'".to_owned()
        )
    );
    let typed = |ty: Value| {
        Value::dict([(
            Value::str("?"),
            Value::dict([
                (Value::str("type"), ty),
                (Value::str("id"), Value::str("h2")),
            ]),
        )])
    };
    assert_eq!(
        error(with_inner(typed(Value::Int(5)))),
        (
            "TypeError".to_owned(),
            "expected string or bytes-like object, got 'int'".to_owned()
        )
    );
    // No type: the `class()` contract's class.
    let untyped = Value::dict([(
        Value::str("?"),
        Value::dict([(Value::str("id"), Value::str("h2"))]),
    )]);
    let (engine, root) = load_holder(with_inner(untyped)).unwrap();
    let text = format!("{:?}", engine.serialized_model());
    assert!(
        text.contains("'inner': {'?': {'type': 'Holder/0.0.0@t'"),
        "{text}"
    );
    drop(root);
    // A version that is no spec.
    let model = Value::dict([header("Holder/x@t", "h")]);
    assert_eq!(
        error(model),
        (
            "ValueError".to_owned(),
            "Invalid simple block 'x'".to_owned()
        )
    );
}
