//! Unit tests on object models, class parts (`cast()`), templates and the
//! native methods of Murano's core classes, each on small classes.

use std::sync::{Arc, Mutex};

use murano_dsl::version::Version;
use murano_yaql::eval::{Dict, FunctionDef, Value};

use crate::{ClassSetBuilder, Engine, EngineError, Limits, Receiver};

/// Murano's core classes as far as these tests need them.
const CORE: &str = "Name: io.murano.Object
---
Name: io.murano.StackTrace
Properties:
  frames: {Contract: $}
---
Name: io.murano.Exception
Properties:
  name: {Contract: $, Usage: Runtime}
  message: {Contract: $, Usage: Runtime}
  stackTrace: {Contract: $, Usage: Runtime}
  extra: {Contract: $, Usage: Runtime}
  nativeException: {Contract: $, Usage: Runtime}
  cause: {Contract: $, Usage: Runtime}
";

/// An engine over `classes` (package `t`, then `io.murano`), with
/// `trace(x)` appending to the returned list.
fn engine(classes: &str) -> (Engine, Arc<Mutex<Vec<Value>>>) {
    let mut b = ClassSetBuilder::new();
    let pkg = b.add_package("tests", Version::new(0, 0, 0)).unwrap();
    let core = b.add_package("io.murano", Version::new(0, 0, 0)).unwrap();
    b.add_system_classes(core).unwrap();
    for def in ClassSetBuilder::parse_file(CORE.as_bytes(), "Core.yaml").unwrap() {
        b.add_class(core, "Core.yaml", def).unwrap();
    }
    for def in ClassSetBuilder::parse_file(classes.as_bytes(), "T.yaml").unwrap() {
        b.add_class(pkg, "T.yaml", def).unwrap();
    }
    let traces = Arc::new(Mutex::new(Vec::new()));
    let t = traces.clone();
    let trace = FunctionDef::native("trace", "data", move |call| {
        t.lock().unwrap().push(call.value(0)?.clone());
        Ok(Value::Null)
    });
    let engine = Engine::new(Arc::new(b.build()), Limits::default(), vec![trace]);
    (engine, traces)
}

fn dict(pairs: Vec<(&str, Value)>) -> Value {
    let mut d = Dict::default();
    for (k, v) in pairs {
        d.insert(Value::str(k), v);
    }
    Value::Dict(Arc::new(d))
}

/// Loads `{Objects: {?: {type, id: root}, props...}}` and returns the root.
fn load(engine: &Engine, class: &str, props: Vec<(&str, Value)>) -> Result<Value, EngineError> {
    let header = dict(vec![
        ("type", Value::str(class)),
        ("id", Value::str("root")),
    ]);
    let mut all = vec![("?", header)];
    all.extend(props);
    let model = dict(vec![("Objects", dict(all))]);
    Ok(engine.load_model(&model)?.expect("a root"))
}

fn call(
    engine: &Engine,
    obj: &Value,
    method: &str,
    args: Vec<Value>,
) -> Result<Value, EngineError> {
    engine.call(&Receiver::Object(obj.clone()), method, args, Vec::new())
}

fn shown(v: &Value) -> String {
    format!("{v:?}")
}

fn taken(traces: &Arc<Mutex<Vec<Value>>>) -> String {
    let items = std::mem::take(&mut *traces.lock().unwrap());
    shown(&Value::List(Arc::new(items)))
}

const TREE: &str = "Name: Branch
Properties:
  leaves:
    Contract: [$.class(Branch)]
  label:
    Contract: $.string()
Methods:
  grow:
    Scope: Public
    Body:
      - $m:
          :Branch:
            label: top
            leaves:
              - second
              - :Sprout:
                  label: s1
                id: second
      - $.made: new($m, $this)
---
Name: Sprout
Extends: Branch
Methods:
  .init:
    Body:
      - $.find(Branch).leaves.select(trace($.label))
";

#[test]
fn an_init_sees_its_owners_references_resolved() {
    // While a model loads, every property of the tree is set before any
    // `.init` runs: the sprout's owner already lists the sprout twice
    // (once by reference, once inline) when the sprout's `.init` reads it.
    let (engine, traces) = engine(TREE);
    let root = load(&engine, "Branch", vec![]).unwrap();
    call(&engine, &root, "grow", vec![]).unwrap();
    assert_eq!(taken(&traces), "['s1', 's1']");
}

const PETS: &str = "Name: Vet
Methods:
  dumps:
    Scope: Public
    Body:
      - $cat: new(Cat, legs => 4, whiskers => long)
      - $whole: dump($cat.cast(Animal), Serializable)
      - $part: dump($cat.cast(Animal), Serializable, false)
      - $inline: dump($cat.cast(Animal), Inline, false)
      - Return:
          - $whole.get('?').type
          - $whole.keys().where($ != '?').orderBy($)
          - $part.get('?').type
          - $part.keys().where($ != '?').orderBy($)
          - $inline.values().where($ != null).where($ != id($cat)).select($.keys())
---
Name: Animal
Properties:
  legs: {Contract: $.int()}
---
Name: Cat
Extends: Animal
Properties:
  whiskers: {Contract: $.string()}
";

#[test]
fn dump_of_a_cast_object_without_ignoring_upcasts_dumps_that_part() {
    // `dump($obj.cast(Parent), mode, false)`: the parent part, its type and
    // the properties it declares; with upcasts ignored (the default) the
    // whole object.
    let (engine, _) = engine(PETS);
    let root = load(&engine, "Vet", vec![]).unwrap();
    let out = call(&engine, &root, "dumps", vec![]).unwrap();
    assert_eq!(
        shown(&out),
        "['Cat/0.0.0@tests', ['legs', 'whiskers'], 'Animal/0.0.0@tests', ['legs'], [['legs']]]"
    );
}

const TEMPLATES: &str = r#"Name: Factory
Methods:
  build:
    Scope: Public
    Body:
      - $shop: new(Shop, blueprint => {label => x, spec => {size => 2}})
      - $b: $shop.blueprint
      - trace([$b.keys().orderBy($).toList(), $b.get(label), $b.get(spec)])
      - trace($shop.plan({serial => 'not a number', label => y, spec => {code => 1}}).keys().orderBy($).toList())
      - Try:
          - $shop.plan({label => z, spec => {size => 1}})
        Catch:
          - As: e
            Do:
              - trace($e.name)
---
Name: Shop
Properties:
  blueprint:
    Contract: $.template(Gadget, excludeProperties => [serial, 'spec.code'])
Methods:
  plan:
    Arguments:
      - t:
          Contract: $.template(Gadget, excludeProperties => [serial])
    Body:
      - Return: $t
---
Name: Gadget
Properties:
  serial: {Contract: $.int().notNull()}
  label: {Contract: $.string(), Default: none}
  spec:
    Contract:
      code: $.int().notNull()
      size: $.int()
"#;

#[test]
fn template_exclusions_pass_their_contracts_and_leave_the_model() {
    // `template(T, excludeProperties => [...])`: an excluded property is
    // neither checked (a `notNull()` property may be absent, an `int()`
    // one hold a string) nor defaulted, and the template's model leaves
    // it out; a nested path only where its parent is given.
    let (engine, traces) = engine(TEMPLATES);
    let root = load(&engine, "Factory", vec![]).unwrap();
    call(&engine, &root, "build", vec![]).unwrap();
    assert_eq!(
        taken(&traces),
        "[(['?', 'label', 'spec'], 'x', {'size': 2}), ['?', 'label', 'spec'], \
         'murano.dsl.exceptions.ContractViolationException']"
    );
}

const NATIVES: &str = r#"Name: Keeper
Methods:
  run:
    Scope: Public
    Body:
      - $info: typeinfo($)
      - trace($info.methods.name.orderBy($).toList())
      - trace(str($info.version))
      - trace(typeinfo($).methods.where($.name = getAttr).single().declaringType.name)
      - $.setAttr(k, 1)
      - $.setAttr(k, 2, Other)
      - trace([$.getAttr(k), $.getAttr(k, null, Other), $.getAttr(missing, dflt)])
      - $o: new(Other)
      - trace($o.readBack($this))
      - trace($o.setAttr(x, 5))
      - $s: new(Shadow)
      - trace($s.getAttr(anything))
      - Try:
          - $.fail()
        Catch:
          - As: e
            Do:
              - Try:
                  - trace($e.toString())
                Catch:
                  - As: e2
                    Do:
                      - trace([$e2.name, $e2.message])
  fail:
    Body:
      - Throw: oops
        Message: broken
---
Name: Other
Methods:
  readBack:
    Arguments:
      - k: {Contract: $.class(Keeper)}
    Body:
      - Return:
          - $k.getAttr(k)
          - $k.getAttr(k, null, Keeper)
---
Name: Shadow
Methods:
  getAttr:
    Arguments:
      - name: {Contract: $}
    Body:
      - Return: shadowed
"#;

#[test]
fn principal_classes_have_their_native_methods() {
    // `setAttr`/`getAttr` are methods of `io.murano.Object` (listed by
    // `typeinfo()`, keyed by the calling class unless `owner` says, and
    // overridable), `str()` of a version is its text, and
    // `io.murano.Exception.toString()` fails as Murano's does.
    let (engine, traces) = engine(NATIVES);
    let root = load(&engine, "Keeper", vec![]).unwrap();
    call(&engine, &root, "run", vec![]).unwrap();
    assert_eq!(
        taken(&traces),
        "[['fail', 'getAttr', 'run', 'setAttr'], '0.0.0', 'io.murano.Object', (1, 2, 'dflt'), \
         [2, 1], None, 'shadowed', \
         ('AttributeError', \"'DslException' object has no attribute 'get_property'\")]"
    );
}

const PARTS: &str = r#"Name: Outsider
Methods:
  probe:
    Scope: Public
    Body:
      - $c: new(Child, base => b1, own => o1)
      - $p: $c.cast(Base)
      - trace([type($p), typeinfo($p).name, $p is Child, $p is Base, id($p) = id($c)])
      - trace($c.own)
      - Try:
          - trace($p.own)
        Catch:
          - As: e
            Do:
              - trace([$e.name, $e.message])
      - trace($p.base)
      - trace($c.fromChild())
      - trace($c.fromBase())
---
Name: Base
Properties:
  base: {Contract: $.string(), Usage: InOut}
Methods:
  fromBase:
    Body:
      - $.note: 'base note'
      - Return: [$.note, $this.cast(Child).base]
---
Name: Child
Extends: Base
Properties:
  own: {Contract: $.string(), Usage: InOut}
Methods:
  fromChild:
    Body:
      - $.note: 'child note'
      - $p: $this.cast(Base)
      - Try:
          - trace($p.own)
        Catch:
          - As: e
            Do:
              - trace([$e.name, $e.message])
      - Try:
          - $p.base: b2
          - trace([wrote, $.base])
        Catch:
          - As: e
            Do:
              - trace([$e.name, $e.message])
      - Try:
          - $.base: b3
          - trace([wrote, $.base])
        Catch:
          - As: e
            Do:
              - trace([$e.name, $e.message])
      - Try:
          - trace($p.note)
        Catch:
          - As: e
            Do:
              - trace([$e.name, $e.message])
      - Return: $.note
"#;

#[test]
fn a_cast_is_the_part_of_its_class() {
    // `$obj.cast(Base)` is the object's `Base` part: `type()`,
    // `typeinfo()` and `is` answer `Base`; reads through it see what
    // `Base` sees (not `Child`'s properties, not the caller's undeclared
    // ones), and a write legal as `$.base` from a `Child` method is a
    // `NoWriteAccessError` through the part (the caller is not compatible
    // with it). Ids, the store and `Base`'s own reads are shared.
    let (engine, traces) = engine(PARTS);
    let root = load(&engine, "Outsider", vec![]).unwrap();
    call(&engine, &root, "probe", vec![]).unwrap();
    assert_eq!(
        taken(&traces),
        r#"[('Base', 'Base', False, True, True), 'o1', ('murano.dsl.exceptions.PropertyReadError', 'Property "own" in class "Base" cannot be read'), 'b1', ('murano.dsl.exceptions.PropertyReadError', 'Property "own" in class "Base" cannot be read'), ('murano.dsl.exceptions.NoWriteAccessError', 'Property "base" is immutable to the caller'), ('wrote', 'b3'), ('murano.dsl.exceptions.PropertyReadError', 'Property "note" in class "Base" cannot be read'), 'child note', ['base note', 'b3']]"#
    );
}

const TWICE: &str = r#"Name: Maker
Methods:
  make:
    Scope: Public
    Body:
      - $a: new(Gauge, level => '5')
      - trace($a.level)
      - Try:
          - new(Gauge, level => 12)
        Catch:
          - As: e
            Do:
              - trace($e.name)
      - trace($a.setLevel(3))
      - Try:
          - $a.setLevel(20)
        Catch:
          - As: e
            Do:
              - trace([$e.name, $a.level])
---
Name: Meter
Properties:
  level:
    Contract: $.int().check($ < 10)
    Usage: InOut
---
Name: Gauge
Extends: Meter
Properties:
  level:
    Contract: $.int()
    Usage: InOut
Methods:
  setLevel:
    Arguments:
      - v: {Contract: $}
    Body:
      - $.level: $v
      - Return: $.level
"#;

#[test]
fn every_declaration_of_a_property_checks_its_values() {
    // A property declared by a class and its parent: the child's
    // declaration transforms a value, the parent's validates the result,
    // at load and on every write.
    let (engine, traces) = engine(TWICE);
    let root = load(&engine, "Maker", vec![]).unwrap();
    call(&engine, &root, "make", vec![]).unwrap();
    assert_eq!(
        taken(&traces),
        r#"[5, 'murano.dsl.exceptions.ContractViolationException', 3, ('murano.dsl.exceptions.ContractViolationException', 3)]"#
    );
}

const TEMPLATE_TWICE: &str = r#"Name: Planner
Methods:
  plan:
    Scope: Public
    Body:
      - $d: new(Drafting, sketch => {size => 3})
      - trace($d.sketch.keys().orderBy($).toList())
      - trace($d.sketch.get(size))
      - Try:
          - new(Drafting, sketch => {size => 30})
        Catch:
          - As: e
            Do:
              - trace($e.name)
---
Name: Desk
Properties:
  sketch:
    Contract: $.template('io.murano.Object')
---
Name: Drafting
Extends: Desk
Properties:
  sketch:
    Contract: $.template(Sheet, excludeProperties => [serial])
---
Name: Sheet
Properties:
  serial: {Contract: $.int().notNull()}
  size: {Contract: $.int().check($ < 10)}
"#;

#[test]
fn a_template_property_declared_twice_is_finalized_once() {
    // The child's `template()` loads the object without making its model
    // yet, the parent's `template()` validates that object, then the
    // child's finalizes it into the model.
    let (engine, traces) = engine(TEMPLATE_TWICE);
    let root = load(&engine, "Planner", vec![]).unwrap();
    call(&engine, &root, "plan", vec![]).unwrap();
    assert_eq!(
        taken(&traces),
        r#"[['?', 'size'], 3, 'murano.dsl.exceptions.ContractViolationException']"#
    );
}

const INIT_PARTS: &str = r#"Name: Animal
Properties:
  legs: {Contract: $.int()}
  pet: {Contract: $.class(Animal)}
Methods:
  viaNew:
    Scope: Public
    Body:
      - $cat: new(Cat, legs => 4, whiskers => long)
      - trace($cat.describe())
      - trace($cat.whiskers)
      - trace(dump($cat, Inline).values().where($ != null).where($ != id($cat)).first())
  viaOtherClass:
    Scope: Public
    Body:
      - $m:
          '?': {type: Cat, id: x1}
          legs: 3
          whiskers: short
      - $h: new(Holder, pet => $m)
      - trace($h.pet.describe())
  viaOwnContract:
    Scope: Public
    Body:
      - $m:
          '?': {type: Cat, id: x2}
          legs: 2
          whiskers: mid
      - $a: new(Animal, pet => $m)
      - trace($a.pet.describe())
---
Name: Cat
Extends: Animal
Properties:
  whiskers: {Contract: $.string()}
Methods:
  describe:
    Body:
      - Try:
          - Return: [$.legs, $.whiskers]
        Catch:
          - As: e
            Do:
              - Return: [$.legs, $e.name]
  make:
    Scope: Public
    Body:
      - trace(new(Cat, legs => 1, whiskers => own).describe())
---
Name: Holder
Properties:
  pet: {Contract: $.class(Animal)}
"#;

#[test]
fn model_values_reach_each_part_as_the_loading_class() {
    // Murano sets each property of a new object through the part of its
    // declaring class, as the class whose code loads the model: from a
    // method (`new()`) or a property contract of `Cat`'s parent `Animal`,
    // `whiskers` (which `Animal` does not see) becomes an undeclared
    // property of the `Animal` part, and `Cat` finds its own unset; from
    // an unrelated class (`Holder`) the value goes where it belongs.
    let (engine, traces) = engine(INIT_PARTS);
    let root = load(&engine, "Animal", vec![]).unwrap();
    let mut out = Vec::new();
    for m in ["viaNew", "viaOtherClass", "viaOwnContract"] {
        call(&engine, &root, m, vec![]).unwrap();
        out.push(taken(&traces));
    }
    assert_eq!(
        out,
        [
            "[[4, 'murano.dsl.exceptions.UninitializedPropertyAccessError'], 'long', \
             {'legs': 4, 'pet': None}]",
            "[[3, 'short']]",
            "[[2, 'murano.dsl.exceptions.UninitializedPropertyAccessError']]",
        ]
    );
}

const PARTS_PASSED: &str = r#"Name: Outsider
Methods:
  probe:
    Scope: Public
    Body:
      - $c: new(Child, base => b1, own => o1)
      - $p: $c.cast(Base)
      - trace([$p = $c, id($p) = id($c)])
      - Try:
          - $p.cast(Child)
        Catch:
          - As: e
            Do:
              - trace([$e.name, $e.message])
      - Try:
          - trace($.takeChild($p))
        Catch:
          - As: e
            Do:
              - trace($e.name)
      - trace($.takeBase($p))
      - $h: new(Holder, item => $p)
      - trace([type($h.item), $h.item = $c])
      - trace($p.who())
  takeChild:
    Arguments:
      - x: {Contract: $.class(Child)}
    Body:
      - Return: type($x)
  takeBase:
    Arguments:
      - x: {Contract: $.class(Base)}
    Body:
      - Return: type($x)
---
Name: Holder
Properties:
  item: {Contract: $.class(Base)}
---
Name: Base
Properties:
  base: {Contract: $.string()}
Methods:
  who:
    Body:
      - Return: [base, type($this), type($)]
---
Name: Child
Extends: Base
Properties:
  own: {Contract: $.string()}
Methods:
  who:
    Body:
      - Return: [child, type($this)]
"#;

#[test]
fn a_part_is_what_contracts_calls_and_casts_see() {
    // A part is not its object (`=`), shares its id, cannot be cast to a
    // class its own class does not inherit from, fails a contract asking
    // for the object's class, is stored as the part, and resolves methods
    // from its class while `$this` is the whole object.
    let (engine, traces) = engine(PARTS_PASSED);
    let root = load(&engine, "Outsider", vec![]).unwrap();
    call(&engine, &root, "probe", vec![]).unwrap();
    assert_eq!(
        taken(&traces),
        r#"[(False, True), ('murano.dsl.exceptions.NoClassFound', 'Class "Child" is not found in '), 'murano.dsl.exceptions.ContractViolationException', 'Base', ('Base', False), ['base', 'Child', 'Child']]"#
    );
}

const PART_HELD: &str = r#"Name: Outsider
Methods:
  probe:
    Scope: Public
    Body:
      - $h: new(Holder)
      - $c: new(Child, $h, base => b1, own => o1)
      - $h.keep($c.cast(Base))
      - $d: dump($h, Serializable)
      - trace($d.item.get('?').type)
      - trace($d.item.keys().orderBy($).toList())
---
Name: Holder
Properties:
  item: {Contract: $.class(Base), Usage: InOut}
Methods:
  keep:
    Arguments:
      - x: {Contract: $}
    Body:
      - $.item: $x
---
Name: Base
Properties:
  base: {Contract: $.string()}
---
Name: Child
Extends: Base
Properties:
  own: {Contract: $.string()}
"#;

#[test]
fn a_part_held_in_a_property_serialises_as_that_part() {
    // A property holding `$c.cast(Base)` holds the part: a dump writes
    // `Base`'s type and the properties `Base` sees.
    let (engine, traces) = engine(PART_HELD);
    let root = load(&engine, "Outsider", vec![]).unwrap();
    call(&engine, &root, "probe", vec![]).unwrap();
    assert_eq!(taken(&traces), "['Base/0.0.0@tests', ['?', 'base']]");
}

const CONFIGS: &str = r#"Name: Probe
Methods:
  run:
    Scope: Public
    Body:
      - $k: new(Kid)
      - trace([$k.readKid(), $k.readDad()])
---
Name: Dad
Properties:
  level: {Contract: $.string(), Usage: Config}
  mood: {Contract: $.string(), Default: calm}
Methods:
  readDad:
    Body:
      - Return: [$.level, $.mood]
---
Name: Kid
Extends: Dad
Properties:
  toy: {Contract: $.string(), Usage: Config}
  color: {Contract: $.string(), Default: red}
Methods:
  readKid:
    Body:
      - Return: [$.toy, $.color]
"#;

#[test]
fn each_part_reads_its_own_class_configuration() {
    // A class configuration applies to the properties its class declares
    // (`Config` values, replaced defaults); the parent's properties read
    // the parent's configuration.
    let mut out = Vec::new();
    for configs in [
        vec![(
            "Kid",
            vec![
                ("level", "kidcfg"),
                ("toy", "ball"),
                ("mood", "happy"),
                ("color", "blue"),
            ],
        )],
        vec![
            ("Dad", vec![("level", "dadcfg"), ("mood", "grumpy")]),
            ("Kid", vec![("toy", "car")]),
        ],
    ] {
        let (engine, traces) = engine(CONFIGS);
        for (class, props) in configs {
            let mut d = Dict::default();
            for (k, v) in props {
                d.insert(Value::str(k), Value::str(v));
            }
            engine.set_class_config(class, d);
        }
        let root = load(&engine, "Probe", vec![]).unwrap();
        call(&engine, &root, "run", vec![]).unwrap();
        out.push(taken(&traces));
    }
    assert_eq!(
        out,
        [
            "[(['ball', 'blue'], [None, 'calm'])]",
            "[(['car', 'red'], ['dadcfg', 'grumpy'])]"
        ]
    );
}

const PART_CALLS: &str = r#"Name: Outsider
Methods:
  probe:
    Scope: Public
    Body:
      - $c: new(Child, base => b1)
      - $p: $c.cast(Base)
      - trace($p.shared())
      - trace($c.shared())
      - trace($p.callsVirtual())
      - trace(:Base.counter)
      - trace($p.counter)
---
Name: Base
Properties:
  base: {Contract: $.string()}
  counter: {Contract: $.int(), Usage: Static, Default: 7}
Methods:
  shared:
    Body:
      - Return: base
  callsVirtual:
    Body:
      - Return: $.shared()
---
Name: Child
Extends: Base
Methods:
  onlyChild:
    Body:
      - Return: child
  shared:
    Body:
      - Return: child
"#;

#[test]
fn a_part_resolves_methods_from_its_class_and_this_stays_whole() {
    // `$c.cast(Base).shared()` runs `Base`'s method; inside it `$` is the
    // whole object, so its own calls are virtual again; a static
    // property reads the same through the part.
    let (engine, traces) = engine(PART_CALLS);
    let root = load(&engine, "Outsider", vec![]).unwrap();
    call(&engine, &root, "probe", vec![]).unwrap();
    assert_eq!(taken(&traces), r#"['base', 'child', 'child', 7, 7]"#);
}

const UNKNOWN_METHODS: &str = r#"Name: Outsider
Methods:
  probe:
    Scope: Public
    Body:
      - $c: new(Child)
      - Try:
          - trace($c.onlyOther())
        Catch:
          - As: e
            Do:
              - trace($e.name)
      - Try:
          - trace('abc'.onlyOther())
        Catch:
          - As: e
            Do:
              - trace($e.name)
      - Try:
          - trace($c.keys())
        Catch:
          - As: e
            Do:
              - trace($e.name)
      - Try:
          - trace($c.join(x))
        Catch:
          - As: e
            Do:
              - trace($e.name)
      - trace(list(a, b).join(x))
      - Try:
          - trace($c.mine())
        Catch:
          - As: e
            Do:
              - trace($e.name)
      - Try:
          - trace(onlyOther())
        Catch:
          - As: e
            Do:
              - trace($e.name)
  mine:
    Body:
      - Return: mine
---
Name: Child
---
Name: Other
Methods:
  onlyOther:
    Body:
      - Return: other
  join:
    Arguments:
      - s: {Contract: $}
    Body:
      - Return: other
"#;

#[test]
fn a_method_only_other_classes_declare_is_not_registered() {
    // Murano registers a class's methods in its own type context: calling
    // a name that neither the receiver's class, nor the calling class,
    // nor YAQL knows is `NoMethodRegisteredException` (or
    // `NoFunctionRegisteredException`); a known name that does not apply
    // is `NoMatchingMethodException`.
    let (engine, traces) = engine(UNKNOWN_METHODS);
    let root = load(&engine, "Outsider", vec![]).unwrap();
    call(&engine, &root, "probe", vec![]).unwrap();
    assert_eq!(
        taken(&traces),
        r#"['yaql.language.exceptions.NoMethodRegisteredException', 'yaql.language.exceptions.NoMethodRegisteredException', 'yaql.language.exceptions.NoMatchingMethodException', 'yaql.language.exceptions.NoMatchingMethodException', 'axb', 'yaql.language.exceptions.NoMatchingMethodException', 'yaql.language.exceptions.NoFunctionRegisteredException']"#
    );
}
