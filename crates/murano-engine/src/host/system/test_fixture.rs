//! `io.murano.test.TestFixture` (`murano/engine/system/test_fixture.py`,
//! which Murano registers with the other system classes): `load`,
//! `startEnv`, `finishEnv` and the assertion methods, which Murano takes
//! from `testtools.TestCase`. Declared by the no-cloud host (the test
//! runner's and `murano run`'s); its mocks (`inject`, `withOriginal`) are
//! the test runner's.

use super::declare::{arg, class, method, opt, HostProfile, SystemClass};
use super::*;

/// The MuranoPL declaration of the class's native methods.
pub(super) const CLASS: SystemClass = class(
    "io.murano.test.TestFixture",
    &[
        method("load", &[arg("model")]),
        method("startEnv", &[]),
        method("finishEnv", &[]),
        method(
            "assertEqual",
            &[arg("expected"), arg("observed"), opt("message", "null")],
        ),
        method("assertTrue", &[arg("expr"), opt("message", "null")]),
        method("assertFalse", &[arg("expr"), opt("message", "null")]),
        method(
            "assertIn",
            &[arg("needle"), arg("haystack"), opt("message", "null")],
        ),
        method(
            "assertNotIn",
            &[arg("needle"), arg("haystack"), opt("message", "null")],
        ),
    ],
)
.only(HostProfile::NoCloud);

fn fixture_error(type_name: &str, module: &str, message: &str) -> EngineError {
    host_error(HostError::new(type_name, module, message))
}

/// testtools' failure (`MismatchError`), with the optional message.
fn mismatch(text: String, message: Option<&Value>) -> EngineError {
    let text = match message.filter(|m| !m.is_null()) {
        Some(m) => format!("{text}: {}", m.py_str()),
        None => text,
    };
    fixture_error("MismatchError", "testtools.matchers._impl", &text)
}

/// unittest's failure (`AssertionError`), with the optional message.
fn assertion(text: String, message: Option<&Value>) -> EngineError {
    let text = match message.filter(|m| !m.is_null()) {
        Some(m) => format!("{text} : {}", m.py_str()),
        None => text,
    };
    fixture_error("AssertionError", "builtins", &text)
}

/// Python's `in`: a key of a dict, an item of a collection, a substring.
fn contains(haystack: &Value, needle: &Value) -> Result<bool, EngineError> {
    Ok(match haystack {
        Value::Dict(d) => d.contains_key(needle),
        Value::Str(h) => match needle {
            Value::Str(n) => h.contains(&**n),
            _ => {
                return Err(fixture_error(
                    "TypeError",
                    "builtins",
                    "'in <string>' requires string as left operand",
                ))
            }
        },
        other => match other.as_slice() {
            Some(items) => items.contains(needle),
            None => match other {
                Value::Set(s) => s.contains(needle),
                _ => {
                    return Err(fixture_error(
                        "TypeError",
                        "builtins",
                        &format!("argument of type '{}' is not iterable", other.type_name()),
                    ))
                }
            },
        },
    })
}

fn arg_of(call: &NativeCall<'_>, name: &str) -> Value {
    call.arg(name).cloned().unwrap_or_default()
}

/// The native methods.
pub(super) static SPECS: &[Spec] = &[
    Spec {
        class: "io.murano.test.TestFixture",
        method: "load",
        kwargs: &[],
        body: |_, engine, call| {
            Ok(engine
                .load_model(&arg_of(call, "model"))?
                .unwrap_or_default())
        },
    },
    Spec {
        class: "io.murano.test.TestFixture",
        method: "startEnv",
        kwargs: &[],
        body: unit,
    },
    Spec {
        class: "io.murano.test.TestFixture",
        method: "finishEnv",
        kwargs: &[],
        body: unit,
    },
    Spec {
        class: "io.murano.test.TestFixture",
        method: "assertEqual",
        kwargs: &[],
        body: |_, _, call| {
            let expected = arg_of(call, "expected");
            let observed = arg_of(call, "observed");
            if expected == observed {
                return Ok(Value::Null);
            }
            Err(mismatch(
                format!(
                    "!=:\nreference = {}\nactual    = {}",
                    expected.repr(),
                    observed.repr()
                ),
                call.arg("message"),
            ))
        },
    },
    Spec {
        class: "io.murano.test.TestFixture",
        method: "assertTrue",
        kwargs: &[],
        body: |_, _, call| {
            let v = arg_of(call, "expr");
            if v.truthy() {
                return Ok(Value::Null);
            }
            Err(assertion(
                format!("{} is not true", v.repr()),
                call.arg("message"),
            ))
        },
    },
    Spec {
        class: "io.murano.test.TestFixture",
        method: "assertFalse",
        kwargs: &[],
        body: |_, _, call| {
            let v = arg_of(call, "expr");
            if !v.truthy() {
                return Ok(Value::Null);
            }
            Err(assertion(
                format!("{} is not false", v.repr()),
                call.arg("message"),
            ))
        },
    },
    Spec {
        class: "io.murano.test.TestFixture",
        method: "assertIn",
        kwargs: &[],
        body: |_, _, call| {
            let needle = arg_of(call, "needle");
            let haystack = arg_of(call, "haystack");
            if contains(&haystack, &needle)? {
                return Ok(Value::Null);
            }
            Err(mismatch(
                format!("{} not in {}", needle.repr(), haystack.repr()),
                call.arg("message"),
            ))
        },
    },
    Spec {
        class: "io.murano.test.TestFixture",
        method: "assertNotIn",
        kwargs: &[],
        body: |_, _, call| {
            let needle = arg_of(call, "needle");
            let haystack = arg_of(call, "haystack");
            if !contains(&haystack, &needle)? {
                return Ok(Value::Null);
            }
            Err(mismatch(
                format!("{} matches Contains({})", haystack.repr(), needle.repr()),
                call.arg("message"),
            ))
        },
    },
];
