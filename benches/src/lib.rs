//! Fixtures for the benchmarks: the project's own example expressions
//! always, and the expressions of the shared corpora (`$MURANO_SHARED`,
//! default `../shared` beside the workspace) when they are present.

use std::path::{Path, PathBuf};

use std::sync::Arc;

use murano_yaql::eval::{convert_input, Context, Engine, Error, Library, Options, Query, Value};
use murano_yaql::Grammar;

/// Which grammar an expression is parsed with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GrammarKind {
    /// Murano's engine grammar (class files).
    Murano,
    /// yaql's standard grammar without delegates (UI files).
    Standard,
    /// yaql's standard grammar with delegates (yaql's own tests).
    StandardDelegates,
    /// yaql's legacy grammar.
    Legacy,
}

impl GrammarKind {
    /// The grammar.
    pub fn grammar(self) -> Grammar {
        match self {
            GrammarKind::Murano => Grammar::murano(),
            GrammarKind::Standard => Grammar::standard(),
            GrammarKind::StandardDelegates => Grammar::standard_with_delegates(),
            GrammarKind::Legacy => Grammar::legacy(),
        }
    }
}

/// A named set of expressions that share a grammar.
#[derive(Debug, Clone)]
pub struct ExpressionSet {
    /// Short name for reports.
    pub name: &'static str,
    /// The grammar they are parsed with.
    pub grammar: GrammarKind,
    /// The expressions.
    pub expressions: Vec<String>,
}

impl ExpressionSet {
    /// Total size of the expressions in bytes.
    pub fn bytes(&self) -> usize {
        self.expressions.iter().map(String::len).sum()
    }
}

fn workspace() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// The shared data root, if present.
pub fn shared_root() -> Option<PathBuf> {
    let root = std::env::var_os("MURANO_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("../shared"));
    root.is_dir().then_some(root)
}

/// The examples bundled with the project (`examples/expressions/*.yaql`).
pub fn example_expressions() -> ExpressionSet {
    let text = std::fs::read_to_string(workspace().join("examples/expressions/murano.yaql"))
        .unwrap_or_default();
    ExpressionSet {
        name: "examples",
        grammar: GrammarKind::Murano,
        expressions: text
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .map(str::to_owned)
            .collect(),
    }
}

/// The files of `dir` whose names end with `suffix`, sorted (the order
/// both sides of the comparison use).
pub fn sorted_files(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| {
        p.to_string_lossy().ends_with(suffix) && !p.to_string_lossy().ends_with(".expected.json")
    });
    files.sort();
    files
}

/// Every expression of `corpus/class` (Murano grammar) or `corpus/ui`
/// (standard grammar), in file order.
pub fn corpus_expressions(root: &Path, kind: &str) -> ExpressionSet {
    let (name, grammar) = match kind {
        "class" => ("corpus-class", GrammarKind::Murano),
        _ => ("corpus-ui", GrammarKind::Standard),
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(root.join("corpus").join(kind))
        .map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.to_string_lossy().ends_with(".expected.json"));
    files.sort();
    let mut expressions = Vec::new();
    for file in files {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        let Ok(doc) = serde_json::from_str::<serde_json::Value>(&text) else {
            continue;
        };
        collect(&doc, &mut expressions);
    }
    ExpressionSet {
        name,
        grammar,
        expressions,
    }
}

/// The expressions of yaql's own test suite that parse in `grammar`
/// (`standard` or `legacy`), from `conformance/yaql/parse.jsonl`.
pub fn yaql_suite_expressions(root: &Path, grammar: &str) -> ExpressionSet {
    let text =
        std::fs::read_to_string(root.join("conformance/yaql/parse.jsonl")).unwrap_or_default();
    let expressions = text
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|row| row["grammar"] == grammar && row["ok"] == true)
        .filter_map(|row| row["expr"].as_str().map(str::to_owned))
        .collect();
    let (name, kind) = if grammar == "legacy" {
        ("yaql-tests-legacy", GrammarKind::Legacy)
    } else {
        ("yaql-tests", GrammarKind::StandardDelegates)
    };
    ExpressionSet {
        name,
        grammar: kind,
        expressions,
    }
}

fn collect(value: &serde_json::Value, out: &mut Vec<String>) {
    match value {
        serde_json::Value::Object(map) => {
            if let Some(serde_json::Value::String(text)) = map.get("$yaql") {
                out.push(text.clone());
                return;
            }
            map.values().for_each(|v| collect(v, out));
        }
        serde_json::Value::Array(items) => items.iter().for_each(|v| collect(v, out)),
        _ => {}
    }
}

/// Every expression set available here: the examples, and the corpora
/// when the shared data is present.
pub fn all_expression_sets() -> Vec<ExpressionSet> {
    let mut sets = vec![example_expressions()];
    if let Some(root) = shared_root() {
        sets.push(corpus_expressions(&root, "class"));
        sets.push(corpus_expressions(&root, "ui"));
        sets.push(yaql_suite_expressions(&root, "standard"));
    }
    sets.retain(|s| !s.expressions.is_empty());
    sets
}

/// True for data without the oracle's special encodings (as compare.py).
fn plain_json(value: &serde_json::Value) -> bool {
    match value {
        serde_json::Value::Object(map) => map
            .iter()
            .all(|(k, v)| !k.starts_with('$') && plain_json(v)),
        serde_json::Value::Array(items) => items.iter().all(plain_json),
        _ => true,
    }
}

/// JSON data as a YAQL value (integers stay integers).
pub fn json_to_value(value: &serde_json::Value) -> Value {
    match value {
        serde_json::Value::Null => Value::Null,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => match n.as_i64() {
            Some(i) => Value::Int(i),
            None => Value::Float(n.as_f64().unwrap_or(0.0)),
        },
        serde_json::Value::String(s) => Value::str(s),
        serde_json::Value::Array(items) => {
            Value::List(Arc::new(items.iter().map(json_to_value).collect()))
        }
        serde_json::Value::Object(map) => {
            Value::dict(map.iter().map(|(k, v)| (Value::str(k), json_to_value(v))))
        }
    }
}

/// The cases of yaql's own suite that both sides of the comparison
/// evaluate (the selection compare.py makes): standard mode, plain JSON
/// data, a value expected, no custom context.
pub fn yaql_eval_cases(shared: &Path) -> Vec<serde_json::Value> {
    let text =
        std::fs::read_to_string(shared.join("conformance/yaql/cases.jsonl")).unwrap_or_default();
    text.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|c| {
            c["mode"] == "standard"
                && c.get("unsupported").is_none_or(serde_json::Value::is_null)
                && c["custom_context"] != true
                && c["nondeterministic"] != true
                && c["outcome"] == "value"
                && plain_json(&c["data"])
        })
        .collect()
}

/// yaql's test expressions made ready the way the comparison evaluates
/// them (`yaql.eval` style): the engine with the suite's options, a root
/// context over the standard library, and every case that compiles with
/// its input data.
pub struct YaqlEvalSuite {
    /// The engine, with the options the suite's cases name.
    pub engine: Engine,
    /// The expression texts, compiling or not.
    pub texts: Vec<String>,
    /// The cases that compile, with their `$` data.
    pub compiled: Vec<(Query, Option<Value>)>,
    root: Context,
}

impl YaqlEvalSuite {
    /// The cases of [`yaql_eval_cases`], compiled.
    pub fn load(shared: &Path) -> YaqlEvalSuite {
        let cases = yaql_eval_cases(shared);
        let mut options = Options::default();
        if let Some(map) = cases
            .first()
            .and_then(|c| c["engine"]["options"].as_object())
        {
            for (name, value) in map {
                options.set_yaql_option(name, &json_to_value(value));
            }
        }
        let engine = Engine::new(Grammar::standard_with_delegates(), options);
        let texts = cases
            .iter()
            .filter_map(|c| c["expr"].as_str().map(str::to_owned))
            .collect();
        let compiled = cases
            .iter()
            .filter_map(|c| {
                let query = engine.compile(c["expr"].as_str()?).ok()?;
                let data = c
                    .get("data")
                    .filter(|d| !d.is_null())
                    .map(|d| convert_input(json_to_value(d)));
                Some((query, data))
            })
            .collect();
        YaqlEvalSuite {
            engine,
            texts,
            compiled,
            root: Context::new(Arc::new(Library::standard(true))),
        }
    }

    /// Evaluates one compiled case in a fresh child context, binding its
    /// data to `$`.
    pub fn evaluate(&self, query: &Query, data: Option<&Value>) -> Result<Value, Error> {
        let mut ctx = self.root.child();
        if let Some(data) = data {
            ctx = ctx.with("$", data.clone());
        }
        query.evaluate(&ctx)
    }
}

/// The bundled example packages (`examples/packages/*`), sorted by name.
pub fn example_packages() -> Vec<(String, murano_packages::source::FileMap)> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(workspace().join("examples/packages"))
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    dirs.sort();
    dirs.iter()
        .map(|d| {
            let name = d.file_name().map(|n| n.to_string_lossy().into_owned());
            (
                name.unwrap_or_default(),
                murano_testkit::read_package_dir(d).unwrap_or_default(),
            )
        })
        .collect()
}

/// Every package tree of `corpus/packages` (folders holding a
/// `manifest.yaml`), sorted.
pub fn corpus_packages(root: &Path) -> Vec<murano_packages::source::FileMap> {
    let mut found = Vec::new();
    let mut stack = vec![root.join("corpus/packages")];
    while let Some(dir) = stack.pop() {
        if dir.join("manifest.yaml").is_file() {
            found.push(dir);
            continue;
        }
        if let Ok(entries) = std::fs::read_dir(&dir) {
            stack.extend(entries.flatten().map(|e| e.path()).filter(|p| p.is_dir()));
        }
    }
    found.sort();
    found
        .iter()
        .filter_map(|d| murano_testkit::read_package_dir(d).ok())
        .collect()
}

/// The HOT conformance templates (`conformance/hot/cases.jsonl` order), as
/// text: the inputs of the `hot-validate` workload on both sides.
pub fn hot_templates(shared: &Path) -> Vec<String> {
    let dir = shared.join("conformance/hot");
    let Ok(text) = std::fs::read_to_string(dir.join("cases.jsonl")) else {
        return Vec::new();
    };
    text.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|c| c["template"].as_str().map(|t| dir.join(t)))
        .filter_map(|p| std::fs::read(p).ok())
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .collect()
}

/// What `hot-validate` does with one template: load it, pick its
/// version and run `heat template-validate`'s checks with generic
/// resources; true when it is a valid HOT template (CFN templates stop
/// after the version, as on the Python side).
pub fn hot_validate(text: &str, limits: &murano_hot::Limits) -> bool {
    murano_hot::Template::load(text, limits)
        .and_then(|t| {
            if !t.version.is_hot() {
                return Ok(false);
            }
            t.validate(&[]).map(|()| true)
        })
        .unwrap_or(false)
}

/// The engine conformance tests both sides of `compare/` replay: the
/// public tests of category `pure` (no Python callbacks, mocks or class
/// configuration), in name order, each with its steps in order (the
/// Python side, `compare/engine.py`, selects the same).
pub struct EngineSuite {
    /// Classes of the suite's `meta/` (test packages and core library).
    pub classes: std::sync::Arc<murano_engine::ClassSet>,
    /// Each test's label and its steps.
    pub tests: Vec<(serde_json::Value, Vec<serde_json::Value>)>,
}

impl EngineSuite {
    /// Reads the suite under `shared` (`quick`: a quarter of the tests).
    pub fn load(shared: &Path, quick: bool) -> Result<EngineSuite, String> {
        Self::load_with(shared, quick, true)
    }

    /// Every public test, Python callbacks and class configuration
    /// included (what the conformance test runs).
    pub fn load_all(shared: &Path) -> Result<EngineSuite, String> {
        Self::load_with(shared, false, false)
    }

    fn load_with(shared: &Path, quick: bool, pure_only: bool) -> Result<EngineSuite, String> {
        let dir = shared.join("conformance/engine");
        let classes = murano_testkit::engine_replay::load_classes(&dir.join("meta"))?;
        let mut tests: Vec<serde_json::Value> =
            murano_testkit::read_jsonl(&dir.join("tests.jsonl"))?
                .into_iter()
                .filter(|t| {
                    t["split"] == "public"
                        && (!pure_only
                            || (t["category"] == "pure"
                                && t["class_configs"].as_object().is_none_or(|m| m.is_empty())))
                })
                .collect();
        tests.sort_by(|a, b| a["test"].as_str().cmp(&b["test"].as_str()));
        let cases = murano_testkit::read_jsonl(&dir.join("cases.jsonl"))?;
        let mut by_test: std::collections::HashMap<String, Vec<serde_json::Value>> =
            std::collections::HashMap::new();
        for c in cases {
            by_test
                .entry(c["test"].as_str().unwrap_or("").to_owned())
                .or_default()
                .push(c);
        }
        let mut out: Vec<_> = tests
            .into_iter()
            .map(|t| {
                let mut steps = by_test
                    .remove(t["test"].as_str().unwrap_or(""))
                    .unwrap_or_default();
                steps.sort_by_key(|s| s["step"].as_u64().unwrap_or(0));
                (t, steps)
            })
            .collect();
        if quick {
            out.truncate(out.len() / 4);
        }
        Ok(EngineSuite {
            classes: std::sync::Arc::new(classes),
            tests: out,
        })
    }

    /// Replays every test (fresh engines, outcomes not compared); the
    /// number of steps replayed.
    pub fn replay(&self) -> usize {
        self.tests
            .iter()
            .filter(|(t, steps)| {
                murano_testkit::engine_replay::replay_test(&self.classes, t, steps).is_ok()
            })
            .map(|(_, steps)| steps.len())
            .sum()
    }
}
