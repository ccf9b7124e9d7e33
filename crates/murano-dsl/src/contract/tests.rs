//! Unit tests: objects through the host, Murano's quirks, defaults.

use std::sync::Arc;

use murano_yaql::eval::{Dict, Value};

use super::*;
use crate::yaml::{load_single, Flavor, LoadOptions};

fn host() -> MemoryHost {
    let mut host = MemoryHost::new();
    host.add_class("io.murano.Object", &[]);
    host.add_class("com.example.Base", &["io.murano.Object"]);
    host.add_class("com.example.Server", &["com.example.Base"]);
    host.add_class("com.example.Other", &["io.murano.Object"]);
    host.add_alias("Server", "com.example.Server");
    host.add_alias("ex:Base", "com.example.Base");
    host
}

fn scope_with(host: MemoryHost, major: u32, minor: u32) -> (Scope, Arc<MemoryHost>) {
    let host = Arc::new(host);
    let scope = Scope::new(Arc::new(Runtime::new(major, minor)), host.clone());
    (scope, host)
}

fn s(text: &str) -> Value {
    Value::str(text)
}

fn list(items: Vec<Value>) -> Value {
    Value::List(Arc::new(items))
}

fn transform(scope: &Scope, contract: &str, data: &Value) -> Result<Value, ContractError> {
    Contract::parse_yaml(contract)?
        .transform(scope, Some(data), None)
        .map(|t| t.value)
}

#[test]
fn class_contracts_find_load_and_check_objects() {
    let host = host();
    let server = host.add_object("s1", "com.example.Server", None);
    let other = host.add_object("o1", "com.example.Other", None);
    let (scope, _) = scope_with(host, 1, 4);

    assert_eq!(
        transform(&scope, "$.class(ex:Base)", &s("s1")).unwrap(),
        server
    );
    assert_eq!(
        transform(&scope, "$.class(Server)", &server).unwrap(),
        server
    );
    assert_eq!(
        transform(&scope, "$.class(Server)", &Value::Null).unwrap(),
        Value::Null
    );
    let e = transform(&scope, "$.class(Server)", &other).unwrap_err();
    assert_eq!(
        e.message,
        "Object of type com.example.Other is not compatible with requested type com.example.Server"
    );
    let e = transform(&scope, "$.class(Server)", &Value::Int(3)).unwrap_err();
    assert_eq!(
        e.message,
        "Value 3 cannot be represented as class com.example.Server"
    );
    let e = transform(&scope, "$.class(Nope)", &Value::Null).unwrap_err();
    assert_eq!(e.python_type(), "NoClassFound");

    // A model dictionary becomes an object of the default class.
    let model = Value::dict([(s("name"), s("x"))]);
    let created = transform(&scope, "$.class(ex:Base, Server)", &model).unwrap();
    let info = scope.host.object_info(&created).unwrap();
    assert_eq!(info.class, "com.example.Server");

    // validate() does not look objects up.
    let c = Contract::parse_yaml("$.class(Server)").unwrap();
    let e = c.validate(&scope, Some(&s("s1")), None).unwrap_err();
    assert_eq!(e.message, "Value is not an object");
    assert!(!c.check_type(&scope, Some(&s("s1")), None).unwrap());
    assert!(c.check_type(&scope, Some(&server), None).unwrap());

    // string() of an object is its id.
    assert_eq!(transform(&scope, "$.string()", &server).unwrap(), s("s1"));
}

#[test]
fn owned_and_template() {
    let host = host();
    let env = host.add_object("env", "com.example.Other", None);
    let mine = host.add_object("m1", "com.example.Server", Some("env"));
    let theirs = host.add_object("t1", "com.example.Server", None);
    let (scope, _) = scope_with(host, 1, 4);
    let scope = scope.with_this(env);

    assert_eq!(
        transform(&scope, "$.class(Server).owned()", &mine).unwrap(),
        mine
    );
    let e = transform(&scope, "$.class(Server).owned()", &theirs).unwrap_err();
    assert!(e.message.ends_with("violates owned() contract"), "{e}");
    assert_eq!(transform(&scope, "$.notOwned()", &theirs).unwrap(), theirs);
    let e = transform(&scope, "$.owned()", &s("x")).unwrap_err();
    assert_eq!(e.message, "Value x is not an object");

    let model = Value::dict([
        (s("?"), Value::dict([(s("type"), s("Server"))])),
        (s("name"), s("web")),
        (s("secret"), s("x")),
    ]);
    let out = transform(
        &scope,
        "$.template(ex:Base, excludeProperties => [secret])",
        &model,
    )
    .unwrap();
    let Value::Dict(d) = &out else {
        panic!("{out:?}")
    };
    assert_eq!(d.get(&s("name")), Some(&s("web")));
    assert!(d.get(&s("secret")).is_none());
    // check_type() of a template accepts any mapping.
    let c = Contract::parse_yaml("$.template(Server)").unwrap();
    assert!(c
        .check_type(&scope, Some(&Value::dict([(s("a"), s("b"))])), None)
        .unwrap());
}

#[test]
fn murano_quirks() {
    let (scope, _) = scope_with(host(), 1, 4);
    // Only integers: IndexError on a non-empty list.
    let e = transform(&scope, "[1, 2]", &list(vec![Value::Int(1)])).unwrap_err();
    assert_eq!(e.python_type(), "IndexError");
    // A trailing boolean counts as an integer (minimum 1).
    let e = transform(&scope, "[$.int(), true]", &list(vec![])).unwrap_err();
    assert_eq!(e.message, "Array length 0 must not be less than 1");
    // Two expression keys: only when applied to a mapping.
    let c = "{$.string(): $.int(), $.int(): $.string()}";
    let e = transform(&scope, c, &Value::Null).unwrap_err();
    assert_eq!(e.python_type(), "DslContractSyntaxError");
    let e = transform(&scope, c, &s("x")).unwrap_err();
    assert_eq!(e.message, "Value 'x' is not of a dictionary type");
    // Coerced keys collide; the later value wins.
    let data = Value::dict([(s("+1"), s("a")), (s("1"), s("b"))]);
    let out = transform(&scope, "{$.int(): $.string()}", &data).unwrap();
    assert_eq!(out, Value::dict([(Value::Int(1), s("b"))]));
    // Scalars compare as Python does.
    assert_eq!(
        transform(&scope, "1", &Value::Bool(true)).unwrap(),
        Value::Bool(true)
    );
    let e = transform(&scope, "'fixed'", &Value::Null).unwrap_err();
    assert_eq!(e.message, "Value None is not equal to fixed");
    // validate() failures of the basic methods have no message.
    let c = Contract::parse_yaml("$.int()").unwrap();
    assert_eq!(
        c.validate(&scope, Some(&s("3")), None).unwrap_err().message,
        ""
    );
    // check() with an empty message uses the default one.
    let e = transform(&scope, "$.check($ > 1, '')", &Value::Int(0)).unwrap_err();
    assert_eq!(e.message, "Value 0 doesn't match predicate");
    // Paths: only errors raised by an expression get one.
    let e = transform(&scope, "[[$.int(), 1]]", &list(vec![list(vec![])])).unwrap_err();
    assert_eq!(
        (e.path.as_str(), e.message.as_str()),
        ("", "Array length 0 must not be less than 1")
    );
    let e = transform(
        &scope,
        "{a: [$.int()]}",
        &Value::dict([(s("a"), list(vec![s("x")]))]),
    )
    .unwrap_err();
    assert_eq!(e.path, "['a'][0]");
}

#[test]
fn defaults_apply_to_missing_values_only() {
    let (scope, _) = scope_with(host(), 1, 4);
    let ctx = scope.runtime.root_context().with("$base", Value::Int(40));
    let scope = scope.with_context(ctx);
    let default = load_single(b"$base + 2", Flavor::Engine, &LoadOptions::default())
        .unwrap()
        .unwrap();
    let c = Contract::parse_yaml("$.int()").unwrap();
    let t = c.transform(&scope, None, Some(&default)).unwrap();
    assert_eq!(t.value, Value::Int(42));
    let t = c
        .transform(&scope, Some(&Value::Null), Some(&default))
        .unwrap();
    assert_eq!(t.value, Value::Null);
    let default = load_single(b"[a, 1]", Flavor::Engine, &LoadOptions::default())
        .unwrap()
        .unwrap();
    let t = Contract::parse_yaml("[$.string()]")
        .unwrap()
        .transform(&scope, None, Some(&default))
        .unwrap();
    assert_eq!(t.value, Value::tuple(vec![s("a"), s("1")]));
}

#[test]
fn runtimes_differ_in_their_function_sets() {
    let c = "$.string().check($ in {a => 1})";
    let (legacy, _) = scope_with(host(), 1, 0);
    let (modern, _) = scope_with(host(), 1, 4);
    assert_eq!(transform(&legacy, c, &s("a")).unwrap(), s("a"));
    let e = transform(&modern, c, &s("a")).unwrap_err();
    assert_eq!(e.python_type(), "NoMatchingFunctionException");
    assert_eq!(e.python_module(), "yaql.language.exceptions");
}

#[test]
fn hostile_inputs_do_not_panic() {
    let (scope, _) = scope_with(host(), 1, 4);
    for contract in [
        "$.class()",
        "$.check()",
        "$.int(1, 2)",
        "$.template(1)",
        "[]",
        "[0, 0]",
        "[$, -5, -1]",
        "{}",
        "$.check($.len() > 0, 5)",
        "$.class(Server, versionSpec => 3)",
    ] {
        let c = Contract::parse_yaml(contract).unwrap();
        for data in [
            Value::Null,
            s(""),
            Value::Float(f64::NAN),
            Value::Float(1e300),
            list(vec![Value::Null; 3]),
            Value::Dict(Arc::new(Dict::default())),
        ] {
            let _ = c.transform(&scope, Some(&data), None);
            let _ = c.validate(&scope, Some(&data), None);
            let _ = c.check_type(&scope, Some(&data), None);
        }
    }
}

#[test]
fn contract_failures_travel_as_the_evaluation_errors_cause() {
    let host = host();
    host.add_object("s1", "com.example.Server", None);
    let (scope, _) = scope_with(host, 1, 4);
    // A failure raised by a contract function inside the expression keeps
    // its structured kind: it comes back from the YAQL error's cause.
    let e = transform(&scope, "$.class(Server)", &s("missing")).unwrap_err();
    assert_eq!(e.kind, ContractErrorKind::NoObjectFound);
    assert_eq!(e.message, "Object \"missing\" is not found in object store");
    let e = transform(&scope, "$.class('com.example.Nope')", &s("s1")).unwrap_err();
    assert_eq!(e.kind, ContractErrorKind::NoClassFound, "{e}");
    // Violations get the path of the element where they were raised.
    let e = transform(&scope, "{port: $.int().notNull()}", &Value::dict(vec![])).unwrap_err();
    assert_eq!(e.kind, ContractErrorKind::Violation);
    assert_eq!(
        e.to_string(),
        "['port']: null value violates notNull() contract"
    );
    // An error of YAQL itself has no contract cause and keeps its class.
    let e = transform(&scope, "$.nope()", &s("x")).unwrap_err();
    assert_eq!(
        e.kind,
        ContractErrorKind::Yaql(murano_yaql::eval::ErrorKind::NoMethodRegistered)
    );
}

#[test]
fn contract_application_has_no_side_slot_for_errors() {
    let source = include_str!("apply.rs");
    for gone in ["Mutex", "failure:", "slot("] {
        assert!(!source.contains(gone), "apply.rs mentions {gone:?} again");
    }
}

#[test]
fn contracts_see_murano_engine_functions() {
    // Murano's engine context: extension forms of string functions up to
    // runtime 1.1, `substr`, `firstOrDefault`, `base64encode`, `pselect`.
    let (old, _) = scope_with(host(), 1, 0);
    for c in [
        "$.string().check(matches($, '^a+$'))",
        "$.string().check(toUpper($) = 'AA')",
        "$.string().check(startsWith($, a))",
        "$.string().check(substr($, 1) = 'a')",
        "$.string().check($.substr(0, 1) = 'a')",
        "$.string().check(firstOrDefault([], 7) = 7)",
        "$.string().check(base64encode($) = 'YWE=')",
        "$.string().check($.base64encode().base64decode() = $)",
        "$.string().check(pselect([1, 2], $ * 2).sum() = 6)",
        "$.string().check(regex('^a').matches($))",
    ] {
        assert_eq!(transform(&old, c, &s("aa")).ok(), Some(s("aa")), "{c}");
    }
    let (new, _) = scope_with(host(), 1, 4);
    assert!(transform(&new, "$.string().check(base64encode($) = 'YWE=')", &s("aa")).is_ok());
    assert!(transform(&new, "$.string().check(matches($, '^a+$'))", &s("aa")).is_err());
    assert!(transform(&new, "$.string().check(substr($, 1) = 'a')", &s("aa")).is_err());
    assert!(transform(&new, "$.check(bind('$a', {a => 2}) = 2)", &s("aa")).is_ok());
    // base64decode raises Python's exceptions, as inside the engine.
    let e = transform(&new, "$.check(base64decode($) = '')", &s("abc")).unwrap_err();
    assert_eq!((e.python_type(), e.python_module()), ("Error", "binascii"));
    assert_eq!(e.message, "Incorrect padding");
}
