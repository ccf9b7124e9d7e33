//! The native part of `io.murano.test.TestFixture`
//! (`murano/engine/system/test_fixture.py`): `load`, `startEnv`,
//! `finishEnv` and the assertion methods, which Murano takes from
//! `testtools.TestCase`.

use murano_yaql::eval::Value;

use crate::error::{EngineError, ErrorKind};
use crate::NativeMethod;

/// The test base class.
pub const FIXTURE_CLASS: &str = "io.murano.test.TestFixture";

/// The MuranoPL declarations of the native methods (merged into the
/// class of the core library).
pub(crate) const FIXTURE_DECLARATIONS: &str = "
Name: io.murano.test.TestFixture
Methods:
  load:
    Arguments: [{model: {Contract: $}}]
  startEnv:
  finishEnv:
  assertEqual:
    Arguments: [{expected: {Contract: $}}, {observed: {Contract: $}}, {message: {Contract: $, Default: null}}]
  assertTrue:
    Arguments: [{expr: {Contract: $}}, {message: {Contract: $, Default: null}}]
  assertFalse:
    Arguments: [{expr: {Contract: $}}, {message: {Contract: $, Default: null}}]
  assertIn:
    Arguments: [{needle: {Contract: $}}, {haystack: {Contract: $}}, {message: {Contract: $, Default: null}}]
  assertNotIn:
    Arguments: [{needle: {Contract: $}}, {haystack: {Contract: $}}, {message: {Contract: $, Default: null}}]
";

fn host_error(type_name: &str, module: &str, message: &str) -> EngineError {
    EngineError::new(
        ErrorKind::Host {
            type_name: type_name.into(),
            module: module.into(),
        },
        message,
    )
}

/// testtools' failure (`MismatchError`), with the optional message.
fn mismatch(text: String, message: Option<&Value>) -> EngineError {
    let text = match message.filter(|m| !m.is_null()) {
        Some(m) => format!("{text}: {}", m.py_str()),
        None => text,
    };
    host_error("MismatchError", "testtools.matchers._impl", &text)
}

/// unittest's failure (`AssertionError`), with the optional message.
fn assertion(text: String, message: Option<&Value>) -> EngineError {
    let text = match message.filter(|m| !m.is_null()) {
        Some(m) => format!("{text} : {}", m.py_str()),
        None => text,
    };
    host_error("AssertionError", "builtins", &text)
}

/// Python's `in`: a key of a dict, an item of a collection, a substring.
fn contains(haystack: &Value, needle: &Value) -> Result<bool, EngineError> {
    Ok(match haystack {
        Value::Dict(d) => d.contains_key(needle),
        Value::Str(h) => match needle {
            Value::Str(n) => h.contains(&**n),
            _ => {
                return Err(host_error(
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
                    return Err(host_error(
                        "TypeError",
                        "builtins",
                        &format!("argument of type '{}' is not iterable", other.type_name()),
                    ))
                }
            },
        },
    })
}

fn native(
    method: &str,
    body: impl Fn(&crate::NativeCall<'_>) -> Result<Value, EngineError> + Send + Sync + 'static,
) -> NativeMethod {
    NativeMethod {
        class: FIXTURE_CLASS.to_owned(),
        method: method.to_owned(),
        body: std::sync::Arc::new(body),
    }
}

/// The bodies of the native methods of an engine.
pub(crate) fn natives() -> Vec<NativeMethod> {
    vec![
        native("load", |call| {
            let model = call.arg("model").cloned().unwrap_or_default();
            Ok(call.engine.load_model(&model)?.unwrap_or_default())
        }),
        native("startEnv", |_| Ok(Value::Null)),
        native("finishEnv", |_| Ok(Value::Null)),
        native("assertEqual", |call| {
            let expected = call.arg("expected").cloned().unwrap_or_default();
            let observed = call.arg("observed").cloned().unwrap_or_default();
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
        }),
        native("assertTrue", |call| {
            let v = call.arg("expr").cloned().unwrap_or_default();
            if v.truthy() {
                return Ok(Value::Null);
            }
            Err(assertion(
                format!("{} is not true", v.repr()),
                call.arg("message"),
            ))
        }),
        native("assertFalse", |call| {
            let v = call.arg("expr").cloned().unwrap_or_default();
            if !v.truthy() {
                return Ok(Value::Null);
            }
            Err(assertion(
                format!("{} is not false", v.repr()),
                call.arg("message"),
            ))
        }),
        native("assertIn", |call| {
            let needle = call.arg("needle").cloned().unwrap_or_default();
            let haystack = call.arg("haystack").cloned().unwrap_or_default();
            if contains(&haystack, &needle)? {
                return Ok(Value::Null);
            }
            Err(mismatch(
                format!("{} not in {}", needle.repr(), haystack.repr()),
                call.arg("message"),
            ))
        }),
        native("assertNotIn", |call| {
            let needle = call.arg("needle").cloned().unwrap_or_default();
            let haystack = call.arg("haystack").cloned().unwrap_or_default();
            if !contains(&haystack, &needle)? {
                return Ok(Value::Null);
            }
            Err(mismatch(
                format!("{} matches Contains({})", haystack.repr(), needle.repr()),
                call.arg("message"),
            ))
        }),
    ]
}

/// Adds the test fixture's natives, the mock functions (`inject`,
/// `withOriginal`) and a new, empty mock table (the runner's interceptor)
/// to an engine being built, as the runner's engines have them.
pub fn install(builder: crate::EngineBuilder) -> crate::EngineBuilder {
    builder
        .method_mocks(std::sync::Arc::new(super::mock::MethodMocks::new()))
        .functions(super::mock::functions())
        .natives(natives())
}
