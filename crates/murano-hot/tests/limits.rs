//! Each limit of [`murano_hot::Limits`] stops a hostile template with a
//! typed `Limit` error (or Heat's own `RequestLimitExceeded` for the
//! template size), never a panic, a stack overflow or unbounded work.

use murano_hot::error::ErrorClass;
use murano_hot::resolve::{resolve_template, Resolved};
use murano_hot::{Limits, Template, Value};

fn limits() -> Limits {
    Limits::default()
}

#[test]
fn template_size() {
    let mut l = limits();
    l.max_template_size = 100;
    let text = format!(
        "heat_template_version: 2013-05-23\ndescription: {}\n",
        "x".repeat(200)
    );
    let e = Template::load(&text, &l).unwrap_err();
    assert_eq!(e.class, ErrorClass::RequestLimitExceeded);
    assert!(
        e.message()
            .ends_with("exceeds maximum allowed size (100 bytes)."),
        "{}",
        e.message()
    );
}

#[test]
fn yaml_depth() {
    let mut l = limits();
    l.max_depth = 16;
    let text = format!(
        "heat_template_version: 2013-05-23\ndescription: {}x{}\n",
        "[".repeat(40),
        "]".repeat(40)
    );
    assert_eq!(
        Template::load(&text, &l).unwrap_err().class,
        ErrorClass::Limit
    );
    // The default refuses a very deep document without overflowing.
    let deep = format!(
        "heat_template_version: 2013-05-23\ndescription: {}x{}\n",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    assert_eq!(
        Template::load(&deep, &limits()).unwrap_err().class,
        ErrorClass::Limit
    );
}

#[test]
fn json_depth() {
    let deep = format!(
        "{{\"heat_template_version\": \"2013-05-23\", \"description\": {}1{}}}",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    assert_eq!(
        Template::load(&deep, &limits()).unwrap_err().class,
        ErrorClass::Limit
    );
}

#[test]
fn alias_expansion() {
    let mut l = limits();
    l.max_nodes = 10_000;
    let mut text =
        String::from("heat_template_version: 2013-05-23\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..8 {
        text.push_str(&format!(
            "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n",
            p = i - 1
        ));
    }
    assert_eq!(
        Template::load(&text, &l).unwrap_err().class,
        ErrorClass::Limit
    );
}

fn nested_joins(n: usize) -> String {
    let mut v = String::from("x");
    for _ in 0..n {
        v = format!("{{list_join: ['-', [{v}]]}}");
    }
    format!("heat_template_version: 2015-10-15\noutputs:\n  o: {{value: {v}}}\n")
}

#[test]
fn function_nesting() {
    let mut l = limits();
    l.max_function_depth = 5;
    let t = Template::load(&nested_joins(4), &l).unwrap();
    t.validate(&[]).unwrap();
    let t = Template::load(&nested_joins(6), &l).unwrap();
    let e = t.validate(&[]).unwrap_err();
    assert_eq!(e.class, ErrorClass::Limit, "{e}");
}

#[test]
fn constraints_count() {
    let mut l = limits();
    l.max_constraints = 3;
    let text = "heat_template_version: 2013-05-23\nparameters:\n  p:\n    type: string\n    constraints: [{length: {min: 1}}, {length: {min: 1}}, {length: {min: 1}}, {length: {min: 1}}]\n";
    let t = Template::load(text, &l).unwrap();
    assert_eq!(t.schemas().unwrap_err().class, ErrorClass::Limit);
}

#[test]
fn pattern_length() {
    let mut l = limits();
    l.max_pattern_len = 10;
    let text = "heat_template_version: 2013-05-23\nparameters:\n  p:\n    type: string\n    constraints: [{allowed_pattern: '[a-z]+[a-z]+[a-z]+'}]\n";
    let t = Template::load(text, &l).unwrap();
    assert_eq!(t.schemas().unwrap_err().class, ErrorClass::Limit);
}

#[test]
fn regex_backtracking() {
    let mut l = limits();
    l.regex_backtrack_limit = 10_000;
    // A backreference forces the backtracking engine.
    let text = "heat_template_version: 2013-05-23\nparameters:\n  p:\n    type: string\n    constraints: [{allowed_pattern: '((a+)+)\\1b'}]\n";
    let t = Template::load(text, &l).unwrap();
    let value = Value::Str(format!("{}c", "a".repeat(40)));
    let e = t.parameter_values(&[("p".into(), value)]).unwrap_err();
    assert_eq!(e.class, ErrorClass::Limit, "{e}");
}

#[test]
fn result_size() {
    let mut l = limits();
    l.max_result_size = 1_000;
    let text = "heat_template_version: 2015-04-30\noutputs:\n  o:\n    value:\n      repeat:\n        template: x\n        for_each: {a: [1,2,3,4,5,6,7,8,9,10], b: [1,2,3,4,5,6,7,8,9,10], c: [1,2,3,4,5,6,7,8,9,10], d: [1,2,3,4,5,6,7,8,9,10]}\n";
    let t = Template::load(text, &l).unwrap();
    let r = resolve_template(&t, &[]).unwrap();
    match &r.outputs[0].1 {
        Resolved::Error(e) => assert_eq!(e.class, ErrorClass::Limit),
        other => panic!("{other:?}"),
    }
}

/// A `yaql` result that shares one list is small in memory and
/// exponentially long expanded: its text is measured first and must fit
/// the result limit.
#[test]
fn shared_yaql_results() {
    let output = |expression: &str, max: usize| {
        let mut l = limits();
        l.max_result_size = max;
        let text = format!(
            "heat_template_version: 2016-10-14\noutputs:\n  o:\n    value:\n      yaql:\n        expression: {expression}\n        data: {{}}\n"
        );
        let t = Template::load(&text, &l).unwrap();
        resolve_template(&t, &[]).unwrap().outputs.remove(0).1
    };
    match output("range(40).aggregate([$1, $1], 1)", 1_000_000) {
        Resolved::Error(e) => {
            assert_eq!(e.class, ErrorClass::Limit);
            assert!(
                e.message().contains("larger than 1000000"),
                "{}",
                e.message()
            );
        }
        other => panic!("{other:?}"),
    }
    // "[[1, 1], [1, 1]]" is 16 characters.
    assert!(matches!(
        output("range(2).aggregate([$1, $1], 1)", 16),
        Resolved::Value(_)
    ));
    assert!(matches!(
        output("range(2).aggregate([$1, $1], 1)", 15),
        Resolved::Error(_)
    ));
}
