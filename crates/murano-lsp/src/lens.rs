//! A code lens over each test method (`test…` of a class extending
//! `io.murano.test.TestFixture`) that runs it with `murano test`'s
//! runner; the result comes back as a message.

use lsp_types::{CodeLens, Command, Uri};
use murano_engine::testing::{is_test_name, Outcome, RunOptions, Runner, TEST_FIXTURE_CLASS};

use crate::analysis::Doc;
use crate::workspace::Workspace;

/// The command the lens runs: arguments file URI, class, method.
pub(crate) const RUN_TEST: &str = "murano.runTest";

/// The lenses of a class file.
pub(crate) fn code_lenses(ws: &Workspace, uri: &Uri, doc: &Doc) -> Vec<CodeLens> {
    let mut out = Vec::new();
    for class in doc.classes(ws) {
        if !ws
            .hierarchy(&class.name)
            .iter()
            .any(|c| c == TEST_FIXTURE_CLASS)
        {
            continue;
        }
        for m in class.methods.iter().filter(|m| is_test_name(&m.name)) {
            out.push(CodeLens {
                range: doc.lines.range(&doc.text, m.span.0, m.span.1),
                command: Some(Command::new(
                    format!("▶ Run {}", m.name),
                    RUN_TEST.to_owned(),
                    Some(vec![
                        serde_json::json!(uri.as_str()),
                        serde_json::json!(class.name),
                        serde_json::json!(m.name),
                    ]),
                )),
                data: None,
            });
        }
    }
    out
}

/// Runs one test of package `package`, with the packages it requires
/// (and Murano's core library, when indexed) for class lookup. `Ok`
/// when it passed, `Err` when it failed or could not run; both with the
/// text to show.
pub(crate) fn run_test(
    ws: &Workspace,
    package: usize,
    class: &str,
    method: &str,
) -> Result<String, String> {
    let own = &ws.packages[package];
    let mut names: Vec<String> = own.manifest.requires.clone();
    names.push("io.murano".to_owned());
    let mut packages = vec![murano_engine::PackageFiles::from_source(own.files.clone())
        .map_err(|e| format!("cannot load the package: {e}"))?];
    for (i, p) in ws.packages.iter().enumerate() {
        let wanted = p
            .manifest
            .full_name
            .as_ref()
            .is_some_and(|n| names.contains(n));
        if i != package && wanted {
            if let Ok(tp) = murano_engine::PackageFiles::from_source(p.files.clone()) {
                packages.push(tp);
            }
        }
    }
    let runner = Runner::new(&packages, RunOptions::default())
        .map_err(|e| format!("cannot load the classes: {e}"))?;
    let result = runner.run_test(class, method);
    match (result.outcome, &result.failure) {
        (Outcome::Ok, _) => Ok(format!("{class}.{method}: passed")),
        (Outcome::Failed, Some((phase, error))) => Err(format!(
            "{class}.{method}: failed in {}: {error}",
            phase.as_str()
        )),
        (Outcome::Failed, None) => Err(format!("{class}.{method}: failed")),
    }
}
