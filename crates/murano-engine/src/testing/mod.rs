//! Running a package's MuranoPL tests as Murano's `murano-test-runner`
//! does (`murano/cmd/test_runner.py`), without a cloud.
//!
//! * **Discovery** ([`discover`]): the test classes are the classes the
//!   package's manifest lists that are `io.murano.test.TestFixture` or
//!   inherit from it; their tests are the methods each declares itself
//!   (inherited ones are not looked at) whose name matches
//!   `^test(?![a-z])`, in declaration order.
//! * **Selection** ([`select`]): Murano's filters, applied in order: a
//!   name without a dot is a method name (for every test class, replacing
//!   what was selected: with several, the last counts), a class of the
//!   package selects its tests, `Class.method` one test of a class of the
//!   package; anything else is ignored. Unfiltered runs go class by class
//!   in name order (Murano's order is a Python set's, unspecified).
//! * **Running** ([`Runner::run_test`]): each test gets a fresh engine
//!   (mocks never leak), a new test object from an empty model, `setUp`,
//!   the test method, then `tearDown` if it returned; methods are called
//!   whatever their scope. The fixture's `inject`/`withOriginal` mocks and
//!   assertion methods are Murano's (`crate::mock`, [`fixture`]'s natives).
//! * **The host** has no cloud: system classes work locally where they can
//!   (templates in memory, package resources), and every call that needs a
//!   cloud service raises a host error (`CloudUnavailable`); `config()`
//!   answers Murano's option defaults.
//!
//! The one deliberate difference from Murano: an error in `setUp` (or in
//! creating the test object) fails that test alone
//! ([`Phase::SetUp`], [`Phase::Init`]); Murano stops the whole run there.
//! [`RunOptions::stop_on_setup_error`] gives Murano's behaviour.
//!
//! No I/O: the caller reads the packages ([`PackageFiles::from_source`],
//! the engine's one package type, as Murano's runner reads them) and prints
//! the results.

pub mod fixture;
pub(crate) mod mock;
use crate::host;
use crate::host::NoCloudHost;

use std::sync::Arc;

use murano_yaql::eval::{Dict, Value};

use crate::classes::{ClassSet, ClassSetBuilder};
use crate::error::EngineError;
use crate::{CallOptions, Engine, EngineBuilder, Limits, LogRecord, PackageFiles, Receiver};

pub use fixture::FIXTURE_CLASS as TEST_FIXTURE_CLASS;

pub use crate::api::package::LoadError;
pub use crate::api::trace::render_trace;

/// What discovery found in a package.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Discovery {
    /// The classes the manifest lists, sorted.
    pub package_classes: Vec<String>,
    /// Test classes with their test methods (declaration order), sorted by
    /// class name.
    pub fixture_classes: Vec<(String, Vec<String>)>,
    /// The other classes, sorted.
    pub non_fixture_classes: Vec<String>,
}

impl Discovery {
    /// The test methods of a test class, `None` for another class.
    pub fn tests_of(&self, class: &str) -> Option<&[String]> {
        self.fixture_classes
            .iter()
            .find(|(c, _)| c == class)
            .map(|(_, m)| m.as_slice())
    }
}

/// What to run: `(class, methods)` in execution order.
pub type RunSet = Vec<(String, Vec<String>)>;

/// Whether a method name is a test name (`^test(?![a-z])`).
pub fn is_test_name(name: &str) -> bool {
    name.strip_prefix("test")
        .is_some_and(|rest| !rest.starts_with(|c: char| c.is_ascii_lowercase()))
}

/// Murano's filters applied to the discovered tests. `None`: nothing at
/// all was selected (Murano's "No tests found for execution"); a run set
/// whose lists are all empty is a run of 0 tests.
pub fn select(discovery: &Discovery, filters: &[String]) -> Option<RunSet> {
    if filters.is_empty() {
        return (!discovery.fixture_classes.is_empty()).then(|| discovery.fixture_classes.clone());
    }
    let mut out: RunSet = Vec::new();
    let put = |out: &mut RunSet, class: &str, methods: Vec<String>| match out
        .iter_mut()
        .find(|(c, _)| c == class)
    {
        Some(entry) => entry.1 = methods,
        None => out.push((class.to_owned(), methods)),
    };
    for item in filters {
        if !item.contains('.') {
            for (class, methods) in &discovery.fixture_classes {
                let chosen = methods.iter().filter(|m| *m == item).cloned().collect();
                put(&mut out, class, chosen);
            }
            continue;
        }
        if discovery.package_classes.contains(item) {
            if let Some(methods) = discovery.tests_of(item) {
                put(&mut out, item, methods.to_vec());
            }
            continue;
        }
        if let Some((class, method)) = item.rsplit_once('.') {
            if discovery.package_classes.iter().any(|c| c == class) {
                // A class of the package that is not a test class has no
                // tests to pick from (Murano crashes with a KeyError).
                let chosen = discovery
                    .tests_of(class)
                    .unwrap_or(&[])
                    .iter()
                    .filter(|m| *m == method)
                    .cloned()
                    .collect();
                put(&mut out, class, chosen);
            }
        }
    }
    (!out.is_empty()).then_some(out)
}

/// How a test ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The test method and `tearDown` returned.
    Ok,
    /// Something raised.
    Failed,
}

/// Where a test failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Creating the test object (its `.init`).
    Init,
    /// `setUp`.
    SetUp,
    /// The test method.
    Test,
    /// `tearDown`.
    TearDown,
}

impl Phase {
    /// `init`, `setUp`, `test`, `tearDown`.
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Init => "init",
            Phase::SetUp => "setUp",
            Phase::Test => "test",
            Phase::TearDown => "tearDown",
        }
    }
}

/// The result of one test.
#[derive(Debug, Clone, PartialEq)]
pub struct TestResult {
    /// The test class.
    pub class: String,
    /// The test method.
    pub method: String,
    /// How it ended.
    pub outcome: Outcome,
    /// Where it failed, with the error.
    pub failure: Option<(Phase, EngineError)>,
    /// The methods called, in order (`setUp`, the test, `tearDown`).
    pub calls: Vec<String>,
    /// What the test logged through `io.murano.system.Logger`.
    pub log: Vec<LogRecord>,
    /// Errors Murano mutes and logs as warnings ([`Engine::take_warnings`]).
    pub warnings: Vec<String>,
}

impl TestResult {
    /// `class.method`.
    pub fn name(&self) -> String {
        format!("{}.{}", self.class, self.method)
    }

    /// Whether the test method was started (Murano counts those).
    pub fn started(&self) -> bool {
        !matches!(self.failure, Some((Phase::Init | Phase::SetUp, _)))
    }
}

/// Options of a test run.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Limits of each test's engine.
    pub limits: Limits,
    /// Murano's behaviour: an error creating the test object or in `setUp`
    /// stops the whole run (default: that test fails and the run goes on).
    pub stop_on_setup_error: bool,
}

/// Runs the tests of one package against a class set built from it and
/// the packages it uses.
#[derive(Debug)]
pub struct Runner {
    classes: Arc<ClassSet>,
    resources: Arc<host::PackageResources>,
    discovery: Discovery,
    options: RunOptions,
}

/// The test classes among `package`'s and their tests.
pub fn discover(classes: &ClassSet, package: &PackageFiles) -> Discovery {
    let fixture = classes.find(fixture::FIXTURE_CLASS);
    let is_test = |name: &str| match (classes.find(name), fixture) {
        (Some(c), Some(f)) => classes.is_subclass(c, f),
        _ => false,
    };
    let mut names = package.class_names();
    names.sort();
    names.dedup();
    let mut out = Discovery {
        package_classes: names.clone(),
        ..Discovery::default()
    };
    // Loading the candidates loads every class of their files: those that
    // are not test classes are reported too.
    let mut others: Vec<String> = declared_classes(package)
        .into_iter()
        .chain(names.iter().cloned())
        .filter(|n| !is_test(n))
        .collect();
    others.sort();
    others.dedup();
    out.non_fixture_classes = others;
    for name in names {
        let class = classes.find(&name);
        if !is_test(&name) {
            continue;
        }
        let tests = class
            .and_then(|c| classes.definition(c))
            .map(|d| {
                d.methods
                    .iter()
                    .filter(|m| is_test_name(&m.name))
                    .map(|m| m.name.clone())
                    .collect()
            })
            .unwrap_or_default();
        out.fixture_classes.push((name, tests));
    }
    out
}

/// The names of the classes a package's files declare.
fn declared_classes(package: &PackageFiles) -> Vec<String> {
    let mut out = Vec::new();
    for (path, bytes) in package.class_files() {
        if let Ok(defs) = ClassSetBuilder::parse_file(&bytes, &path) {
            out.extend(defs.into_iter().filter_map(|d| d.full_name));
        }
    }
    out
}

/// The classes of `packages` (in lookup order; a package name seen before
/// is skipped) as the runner loads them, every class of every class file
/// with the [`NoCloudHost`]'s native declarations merged (the fixture's
/// among them), and their resources for [`NoCloudHost::install`]: the
/// host's [`NoCloudHost::class_set`].
pub fn load_classes(
    packages: &[PackageFiles],
) -> Result<(ClassSet, host::PackageResources), LoadError> {
    NoCloudHost::class_set(packages)
}

/// Calls a method of an object whatever its scope, as the runner calls
/// tests (Murano's `executor.run`): resolved from the object's class.
pub fn call_test_method(
    engine: &Engine,
    object: &Value,
    method: &str,
    args: Vec<Value>,
    kwargs: Vec<(String, Value)>,
) -> Result<Value, EngineError> {
    if !engine.is_object(object) {
        return Err(EngineError::dsl(
            "NoObjectFoundError",
            "the receiver is not an object",
        ));
    }
    engine.call_with(
        &Receiver::Object(object.clone()),
        method,
        args,
        kwargs,
        &CallOptions::test_runner(),
    )
}

/// A new object of `class` from an empty model (Murano's
/// `object_store.load({}, None, default_type=class)`): its properties
/// take their defaults, its `.init` runs.
pub fn create_object(engine: &Engine, class: &str) -> Result<Value, EngineError> {
    let mut header = Dict::default();
    header.insert(Value::str("type"), Value::str(class));
    header.insert(Value::str("id"), Value::str(&engine.generate_id()));
    let mut object = Dict::default();
    object.insert(Value::str("?"), Value::Dict(Arc::new(header)));
    let mut model = Dict::default();
    model.insert(Value::str("Objects"), Value::Dict(Arc::new(object)));
    engine
        .load_model(&Value::Dict(Arc::new(model)))?
        .ok_or_else(|| EngineError::dsl("NoClassFound", class.to_owned()))
}

impl Runner {
    /// A runner for the tests of `packages[0]`; the other packages (Murano's
    /// core library `io.murano` among them) come after it in class lookup.
    pub fn new(packages: &[PackageFiles], options: RunOptions) -> Result<Runner, LoadError> {
        let (classes, resources) = load_classes(packages)?;
        let discovery = match packages.first() {
            Some(p) => discover(&classes, p),
            None => Discovery::default(),
        };
        Ok(Runner {
            classes: Arc::new(classes),
            resources: Arc::new(resources),
            discovery,
            options,
        })
    }

    /// What discovery found in the package under test.
    pub fn discovery(&self) -> &Discovery {
        &self.discovery
    }

    /// The classes (to map frames to packages and files).
    pub fn classes(&self) -> &ClassSet {
        &self.classes
    }

    /// The package a class belongs to.
    pub fn package_of(&self, class: &str) -> Option<String> {
        let id = self.classes.find(class)?;
        let registry = self.classes.registry();
        registry
            .package_of(id)
            .and_then(|p| registry.package(p))
            .map(|p| p.name.clone())
    }

    /// The run options.
    pub fn options(&self) -> &RunOptions {
        &self.options
    }

    /// A fresh engine with the fixture's natives, the mock functions and
    /// the [`NoCloudHost`].
    pub fn engine(&self) -> Engine {
        let builder = fixture::install(
            EngineBuilder::new(self.classes.clone()).limits(self.options.limits.clone()),
        );
        NoCloudHost::new()
            .install(builder, self.resources.clone())
            .build()
    }

    /// Runs one test: a fresh engine, a new test object, `setUp`, the
    /// test, `tearDown`.
    pub fn run_test(&self, class: &str, method: &str) -> TestResult {
        let engine = self.engine();
        let mut result = TestResult {
            class: class.to_owned(),
            method: method.to_owned(),
            outcome: Outcome::Ok,
            failure: None,
            calls: Vec::new(),
            log: Vec::new(),
            warnings: Vec::new(),
        };
        let fail = |mut r: TestResult, phase: Phase, e: EngineError, engine: &Engine| {
            r.outcome = Outcome::Failed;
            r.failure = Some((phase, e));
            r.log = engine.take_log();
            r.warnings = engine.take_warnings();
            r
        };
        let object = match self.create(&engine, class) {
            Ok(o) => o,
            Err(e) => return fail(result, Phase::Init, e, &engine),
        };
        for (phase, name) in [
            (Phase::SetUp, "setUp"),
            (Phase::Test, method),
            (Phase::TearDown, "tearDown"),
        ] {
            if !engine.is_object(&object) {
                break;
            }
            if phase != Phase::Test && !engine.has_method(&object, name) {
                continue;
            }
            result.calls.push(name.to_owned());
            if let Err(e) = self.call(&engine, &object, name, Vec::new(), Vec::new()) {
                return fail(result, phase, e, &engine);
            }
        }
        result.log = engine.take_log();
        result.warnings = engine.take_warnings();
        result
    }

    /// Calls a method of an object whatever its scope, as the runner calls
    /// tests: [`call_test_method`].
    pub fn call(
        &self,
        engine: &Engine,
        object: &Value,
        method: &str,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> Result<Value, EngineError> {
        call_test_method(engine, object, method, args, kwargs)
    }

    /// A new object of `class` from an empty model: [`create_object`].
    pub fn create(&self, engine: &Engine, class: &str) -> Result<Value, EngineError> {
        create_object(engine, class)
    }

    /// Runs a run set in order: every test, or with
    /// [`RunOptions::stop_on_setup_error`] up to the first that fails
    /// creating its object or in `setUp` (the last result; `true` when the
    /// run stopped there).
    pub fn run(
        &self,
        run_set: &RunSet,
        mut each: impl FnMut(&TestResult),
    ) -> (Vec<TestResult>, bool) {
        let mut out = Vec::new();
        for (class, methods) in run_set {
            for method in methods {
                let r = self.run_test(class, method);
                each(&r);
                let stop = self.options.stop_on_setup_error && !r.started();
                out.push(r);
                if stop {
                    return (out, true);
                }
            }
        }
        (out, false)
    }
}

#[cfg(test)]
mod tests;
