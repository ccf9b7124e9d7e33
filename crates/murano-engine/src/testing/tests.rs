//! Unit tests of the test runner on small in-memory packages.

use super::mock::MethodMocks;
use super::*;
use crate::ErrorKind;

const CORE: &str = "
Name: io.murano.Object
---
Name: io.murano.system.Logger
---
Name: io.murano.Exception
Properties:
  name: {Contract: $, Usage: Runtime}
  message: {Contract: $, Usage: Runtime}
  cause: {Contract: $, Usage: Runtime}
---
Namespaces: {=: io.murano.test}
Name: TestFixture
Methods:
  setUp:
    Body:
  tearDown:
    Body:
";

const APP: &str = r#"
Namespaces: {=: demo, tst: io.murano.test}
Name: Greeter
Properties:
  name: {Contract: $.string(), Default: world}
Methods:
  greet:
    Body:
      - Return: format('Hello, {0}!', $this.name)
  shout:
    Arguments: [{text: {Contract: $.string()}}]
    Body:
      - Return: $text.toUpper()
---
Namespaces: {=: demo, tst: io.murano.test}
Name: GreeterTests
Extends: tst:TestFixture
Properties:
  calls: {Contract: $.int(), Usage: Runtime, Default: 0}
Methods:
  setUp:
    Body:
      - $this.greeter: new(Greeter)
  fake:
    Arguments: [{text: {Contract: $}}]
    Body:
      - $this.calls: $this.calls + 1
      - Return: mocked
  testGreet:
    Body:
      - $.assertEqual('Hello, world!', $this.greeter.greet())
  testFails:
    Body:
      - $.assertEqual(1, 2)
  testMockWithMethod:
    Body:
      - inject(Greeter, shout, $this, fake)
      - $.assertEqual(mocked, $this.greeter.shout(x))
      - $.assertEqual(1, $this.calls)
  testMockWithExpression:
    Body:
      - inject($this.greeter, greet, 'hi')
      - $.assertEqual(hi, $this.greeter.greet())
  testMockCallsOriginal:
    Body:
      - inject(Greeter, shout, originalMethod() + '?')
      - $.assertEqual('AB?', $this.greeter.shout(ab))
  testWithOriginal:
    Body:
      # withOriginal reads the variables of the mocked call's caller.
      - $word: ab
      - inject(Greeter, shout, withOriginal(t => $word) -> $t + $t)
      - $.assertEqual('abab', $this.greeter.shout($word))
  testMockCallingItself:
    Body:
      - inject(Greeter, greet, $.greeter.greet())
      - $this.greeter.greet()
  testMockOfMissingMethod:
    Body:
      - inject(Greeter, nope, '')
  testForever:
    Body:
      - While: $this.calls = 0
        Do:
          - $x: 1
  testAssertions:
    Body:
      - $.assertTrue(true)
      - $.assertFalse(false)
      - $.assertIn(a, [a, b])
      - $.assertNotIn(c, [a, b])
      - $.assertIn(k, {k => 1})
  helper:
    Body:
  tests:
    Body:
---
Namespaces: {=: demo, tst: io.murano.test}
Name: BrokenSetUp
Extends: tst:TestFixture
Methods:
  setUp:
    Body:
      - Throw: SetUpError
        Message: broken
  test1:
    Body:
  test_two:
    Body:
"#;

/// A package through the runner's reader from a manifest and one class
/// file.
fn package(manifest: &str, file: &str, text: &str) -> PackageFiles {
    let mut files = murano_packages::source::FileMap::new();
    files
        .insert("manifest.yaml", manifest.as_bytes().to_vec())
        .unwrap();
    files
        .insert(&format!("Classes/{file}"), text.as_bytes().to_vec())
        .unwrap();
    PackageFiles::from_source(files).unwrap()
}

fn packages() -> Vec<PackageFiles> {
    vec![
        package(
            "FullName: demo\nVersion: 1.0.0\nFormat: MuranoPL/1.4\nType: Library\n\
             Classes: {demo.Greeter: demo.yaml, demo.GreeterTests: demo.yaml, demo.BrokenSetUp: demo.yaml}\n",
            "demo.yaml",
            APP,
        ),
        package(
            "FullName: io.murano\nFormat: MuranoPL/1.4\nType: Library\n\
             Classes: {io.murano.Object: core.yaml}\n",
            "core.yaml",
            CORE,
        ),
    ]
}

fn runner(options: RunOptions) -> Runner {
    Runner::new(&packages(), options).unwrap()
}

#[test]
fn test_names_follow_murano_regex() {
    for name in ["test", "testFoo", "test_foo", "test1", "testX"] {
        assert!(is_test_name(name), "{name}");
    }
    for name in ["tests", "testing", "setUp", "Test", "atest"] {
        assert!(!is_test_name(name), "{name}");
    }
}

#[test]
fn discovery_lists_declared_test_methods_in_order() {
    let r = runner(RunOptions::default());
    let d = r.discovery();
    assert_eq!(d.non_fixture_classes, ["demo.Greeter"]);
    let names: Vec<&str> = d.fixture_classes.iter().map(|(c, _)| c.as_str()).collect();
    assert_eq!(names, ["demo.BrokenSetUp", "demo.GreeterTests"]);
    assert_eq!(
        d.tests_of("demo.BrokenSetUp").unwrap(),
        ["test1", "test_two"]
    );
    let tests = d.tests_of("demo.GreeterTests").unwrap();
    assert_eq!(tests.first().map(String::as_str), Some("testGreet"));
    assert!(!tests.iter().any(|t| t == "tests" || t == "helper"));
}

#[test]
fn filters_are_murano_s() {
    let r = runner(RunOptions::default());
    let d = r.discovery();
    let s = |f: &[&str]| select(d, &f.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    // A method name: every test class, the last name wins.
    let rs = s(&["testGreet", "test1"]).unwrap();
    assert_eq!(
        rs,
        vec![
            ("demo.BrokenSetUp".to_string(), vec!["test1".to_string()]),
            ("demo.GreeterTests".to_string(), vec![]),
        ]
    );
    // Class.method, then the class itself replaces it in place.
    let rs = s(&["demo.GreeterTests.testFails", "demo.BrokenSetUp"]).unwrap();
    assert_eq!(
        rs[0],
        (
            "demo.GreeterTests".to_string(),
            vec!["testFails".to_string()]
        )
    );
    assert_eq!(rs[1].1.len(), 2);
    // Unknown classes are ignored; nothing selected at all is None.
    assert!(s(&["demo.Nope.testX"]).is_none());
    assert!(s(&["demo.Greeter"]).is_none());
    assert!(s(&[]).is_some());
}

#[test]
fn a_passing_test_calls_set_up_test_and_tear_down() {
    let r = runner(RunOptions::default());
    let t = r.run_test("demo.GreeterTests", "testGreet");
    assert_eq!(t.outcome, Outcome::Ok, "{:?}", t.failure);
    assert_eq!(t.calls, ["setUp", "testGreet", "tearDown"]);
}

#[test]
fn a_failed_assertion_is_a_failure_with_frames() {
    let r = runner(RunOptions::default());
    let t = r.run_test("demo.GreeterTests", "testFails");
    assert_eq!(t.outcome, Outcome::Failed);
    let (phase, e) = t.failure.unwrap();
    assert_eq!(phase, Phase::Test);
    assert_eq!(e.python_type(), "MismatchError");
    assert!(e.message.contains("reference = 1"), "{}", e.message);
    assert_eq!(e.frames.len(), 1);
    assert_eq!(e.frames[0].method, "testFails");
    assert_eq!(e.frames[0].file.as_deref(), Some("Classes/demo.yaml"));
    assert_eq!(t.calls, ["setUp", "testFails"]);
}

#[test]
fn mocks_replace_methods_and_never_leak() {
    let r = runner(RunOptions::default());
    for test in [
        "testMockWithMethod",
        "testMockWithExpression",
        "testMockCallsOriginal",
        "testWithOriginal",
        "testAssertions",
    ] {
        let t = r.run_test("demo.GreeterTests", test);
        assert_eq!(t.outcome, Outcome::Ok, "{test}: {:?}", t.failure);
    }
    // A fresh engine per test: the mock of greet is gone.
    let t = r.run_test("demo.GreeterTests", "testGreet");
    assert_eq!(t.outcome, Outcome::Ok, "{:?}", t.failure);
}

#[test]
fn mocking_a_missing_method_is_no_method_found() {
    let r = runner(RunOptions::default());
    let t = r.run_test("demo.GreeterTests", "testMockOfMissingMethod");
    let (_, e) = t.failure.unwrap();
    assert_eq!(e.murano_names(), ["murano.dsl.exceptions.NoMethodFound"]);
    assert_eq!(e.message, "Method \"nope\" is not found");
}

#[test]
fn a_set_up_error_fails_that_test_and_the_run_goes_on() {
    let r = runner(RunOptions::default());
    let rs = select(r.discovery(), &[]).unwrap();
    let (results, stopped) = r.run(&rs, |_| {});
    assert!(!stopped);
    let broken: Vec<&TestResult> = results
        .iter()
        .filter(|t| t.class == "demo.BrokenSetUp")
        .collect();
    assert_eq!(broken.len(), 2);
    for t in broken {
        assert!(matches!(t.failure, Some((Phase::SetUp, _))));
        assert!(!t.started());
    }
    assert!(results.iter().any(|t| t.class == "demo.GreeterTests"));
}

#[test]
fn murano_mode_stops_at_the_first_set_up_error() {
    let r = runner(RunOptions {
        stop_on_setup_error: true,
        ..RunOptions::default()
    });
    let rs = select(r.discovery(), &[]).unwrap();
    let (results, stopped) = r.run(&rs, |_| {});
    assert!(stopped);
    assert_eq!(results.len(), 1);
    let (_, e) = results[0].failure.as_ref().unwrap();
    assert_eq!(e.murano_names(), ["demo.SetUpError"]);
}

#[test]
fn a_runaway_test_is_stopped_by_the_fuel_limit() {
    let r = runner(RunOptions {
        limits: crate::Limits {
            fuel: Some(5_000),
            ..crate::Limits::default()
        },
        ..RunOptions::default()
    });
    let t = r.run_test("demo.GreeterTests", "testForever");
    let (_, e) = t.failure.unwrap();
    assert!(matches!(e.kind, ErrorKind::Limit(_)), "{e}");
}

#[test]
fn broken_class_files_are_load_errors() {
    let mut p = packages();
    p[0].files.insert(
        "Classes/demo.yaml".into(),
        Arc::new(b"Name: [unclosed".to_vec()),
    );
    let e = Runner::new(&p, RunOptions::default()).unwrap_err();
    assert_eq!(e.package, "demo");
    assert_eq!(e.file.as_deref(), Some("Classes/demo.yaml"));
}

#[test]
fn traces_render_outermost_first_with_source_lines() {
    let r = runner(RunOptions::default());
    let t = r.run_test("demo.GreeterTests", "testFails");
    let (_, e) = t.failure.unwrap();
    let text = render_trace(&e.frames, &|c| r.package_of(c), &|_, _| {
        Some(APP.to_owned())
    });
    assert!(text.contains("demo/Classes/demo.yaml:"), "{text}");
    assert!(text.contains("$.assertEqual(1, 2)"), "{text}");
}

#[test]
fn a_mock_calling_itself_hits_the_call_depth_limit() {
    let r = runner(RunOptions::default());
    let t = r.run_test("demo.GreeterTests", "testMockCallingItself");
    let (_, e) = t.failure.unwrap();
    assert!(matches!(e.kind, ErrorKind::Limit(_)), "{e}");
}

#[test]
fn mocks_are_the_runners_mock_table_not_the_engines() {
    let r = runner(RunOptions::default());
    // The runner's engines consult a mock table the builder gave them.
    assert!(r.engine().interceptor::<MethodMocks>().is_some());
    // An engine built with the mock functions but no table runs every
    // method as it is and refuses `inject` with a typed error.
    let builder = EngineBuilder::new(r.classes.clone()).functions(super::mock::functions());
    let engine = NoCloudHost::new().install(builder, Arc::default()).build();
    assert!(engine.interceptor::<MethodMocks>().is_none());
    let object = create_object(&engine, "demo.GreeterTests").unwrap();
    call_test_method(&engine, &object, "setUp", vec![], vec![]).unwrap();
    let e =
        call_test_method(&engine, &object, "testMockWithExpression", vec![], vec![]).unwrap_err();
    assert!(
        e.message
            .contains("method mocks are for engines built with a mock table"),
        "{e:?}"
    );
}
