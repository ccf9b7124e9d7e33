//! Conformance of the version rules with Murano (semantic-version 2.10),
//! on the shared oracle data `corpus/packages-oracle/version/`:
//!
//! * every case of `specs.json`: `parse_version_spec` (Murano's
//!   normalization) or a plain `semantic_version.Spec`, checking the
//!   normalized text, the items and the match table;
//! * every case of `versions.json`: `parse_version` and the manifest
//!   `version` property.
//!
//! One suite, `versions`; a case passes when every one of its sub-results
//! matches. Errors are compared by Python class (their messages are Python
//! or library wording).

use std::path::Path;

use murano_dsl::version::{
    manifest_version, parse_version, parse_version_spec, Version, VersionError, VersionSpec,
};
use murano_testkit::oracle::yaml_scalar;
use murano_testkit::{conclude, read_json, Suite};
use serde_json::Value;

fn main() {
    let Some((root, known)) = murano_testkit::conformance_setup(
        env!("CARGO_MANIFEST_DIR"),
        "known-failures-versions.txt",
    ) else {
        return;
    };
    let dir = root.join("corpus/packages-oracle/version");
    let mut suite = Suite::new("versions", &known);
    run_specs(&dir.join("specs.json"), &mut suite);
    run_versions(&dir.join("versions.json"), &mut suite);
    conclude(vec![suite.finish()]);
}

/// Compares an error with the oracle's `{"class": …}` (class only).
fn check_error(got: &VersionError, want: &Value) -> Result<(), String> {
    let want_class = want["class"].as_str().unwrap_or("?");
    let got_class = got.python_exception().qualified_name();
    if got_class == want_class {
        Ok(())
    } else {
        Err(format!("got {got_class} ({got}), want {want_class}"))
    }
}

/// Compares a textual result with `{"value": text}` or `{"error": E}`.
fn check_text(what: &str, got: Result<String, VersionError>, want: &Value) -> Result<(), String> {
    let outcome = match (&got, want.get("value"), want.get("error")) {
        (Ok(text), Some(Value::String(expected)), _) if text == expected => Ok(()),
        (Ok(text), Some(expected), _) => Err(format!("got {text:?}, want {expected}")),
        (Ok(text), None, Some(error)) => Err(format!("got {text:?}, want error {error}")),
        (Err(e), _, Some(error)) => check_error(e, error),
        (Err(e), Some(expected), _) => Err(format!("got error {e}, want {expected}")),
        _ => Err(format!("unreadable expectation {want}")),
    };
    outcome.map_err(|why| format!("{what}: {why}"))
}

fn run_specs(path: &Path, suite: &mut Suite) {
    let doc = read_json(path).unwrap_or_else(|e| panic!("{e}"));
    let versions: Vec<(String, Option<Version>)> = doc["match_versions"]
        .as_array()
        .map(|list| {
            list.iter()
                .filter_map(Value::as_str)
                .map(|s| (s.to_owned(), Version::parse(s).ok()))
                .collect()
        })
        .unwrap_or_default();
    for case in doc["cases"].as_array().into_iter().flatten() {
        let id = case["id"].as_str().unwrap_or("?");
        suite.record(id, check_spec_case(case, &versions));
    }
}

fn check_spec_case(case: &Value, versions: &[(String, Option<Version>)]) -> Result<(), String> {
    let input = yaml_scalar(&case["input"])?;
    let parsed = match case["mode"].as_str() {
        Some("parse_version_spec") => parse_version_spec(&input),
        // The library's Spec takes text; the cases give it as a string.
        Some("semantic_version.Spec") => VersionSpec::parse(&input.python_str()),
        other => return Err(format!("unknown mode {other:?}")),
    };
    let expected = &case["expected"];
    let spec = match (parsed, expected.get("error")) {
        (Err(e), Some(error)) => return check_error(&e, error),
        (Err(e), None) => return Err(format!("got error {e}, want {expected}")),
        (Ok(spec), Some(error)) => {
            return Err(format!("got {}, want error {error}", spec.normalized()))
        }
        (Ok(spec), None) => spec,
    };
    let mut problems = Vec::new();
    let normalized = spec.normalized();
    if expected["normalized"].as_str() != Some(normalized.as_str()) {
        problems.push(format!(
            "normalized: got {normalized:?}, want {}",
            expected["normalized"]
        ));
    }
    match spec.items() {
        Ok(items) => {
            let mut got: Vec<(String, String)> = items
                .iter()
                .map(|item| (item.operator.to_string(), item.version.to_string()))
                .collect();
            let mut want: Vec<(String, String)> = expected["items"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|pair| {
                    (
                        pair[0].as_str().unwrap_or("?").to_owned(),
                        pair[1].as_str().unwrap_or("?").to_owned(),
                    )
                })
                .collect();
            got.sort();
            want.sort();
            if got != want {
                problems.push(format!("items: got {got:?}, want {want:?}"));
            }
        }
        Err(e) => problems.push(format!("items: got error {e}, want {}", expected["items"])),
    }
    let matches = expected["matches"].as_object();
    for (text, version) in versions {
        let Some(want) = matches.and_then(|m| m.get(text)).and_then(Value::as_bool) else {
            problems.push(format!("matches: no expectation for {text}"));
            continue;
        };
        let Some(version) = version else {
            problems.push(format!("matches: {text} does not parse"));
            continue;
        };
        let got = spec.matches(version);
        if got != want {
            problems.push(format!("matches {text}: got {got}, want {want}"));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}

fn run_versions(path: &Path, suite: &mut Suite) {
    let doc = read_json(path).unwrap_or_else(|e| panic!("{e}"));
    for case in doc["cases"].as_array().into_iter().flatten() {
        let id = case["id"].as_str().unwrap_or("?");
        suite.record(id, check_version_case(case));
    }
}

fn check_version_case(case: &Value) -> Result<(), String> {
    let input = yaml_scalar(&case["input"])?;
    let expected = &case["expected"];
    let mut problems = Vec::new();
    let subresults = [
        (
            "parse_version",
            parse_version(&input).map(|v| v.to_string()),
        ),
        (
            "manifest_version",
            manifest_version(Some(&input)).map(|v| v.to_string()),
        ),
    ];
    for (name, got) in subresults {
        match expected.get(name) {
            Some(want) => {
                if let Err(why) = check_text(name, got, want) {
                    problems.push(why);
                }
            }
            None => problems.push(format!("{name}: no expectation")),
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}
