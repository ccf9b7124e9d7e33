//! Conformance of the `Format` rules with Murano, on the shared oracle
//! data `corpus/packages-oracle/version/formats.json`: for every case, the
//! (format name, runtime version, handler) that `load_from_dir` reached, or
//! its error (class compared; message too for Murano's own exceptions).
//!
//! A case without an `input` key stands for a manifest without `Format`.

use murano_packages::format::{parse_format, FormatError, PackageFormat};
use murano_testkit::oracle::yaml_scalar;
use murano_testkit::{conclude, read_json, Suite};
use serde_json::Value;

fn main() {
    let Some((root, known)) =
        murano_testkit::conformance_setup(env!("CARGO_MANIFEST_DIR"), "known-failures-formats.txt")
    else {
        return;
    };
    let path = root.join("corpus/packages-oracle/version/formats.json");
    let doc = read_json(&path).unwrap_or_else(|e| panic!("{e}"));
    let mut suite = Suite::new("formats", &known);
    for case in doc["cases"].as_array().into_iter().flatten() {
        let id = case["id"].as_str().unwrap_or("?");
        suite.record(id, check_case(case));
    }
    conclude(vec![suite.finish()]);
}

fn check_case(case: &Value) -> Result<(), String> {
    let input = case.get("input").map(yaml_scalar).transpose()?;
    let got = parse_format(input.as_ref());
    let expected = &case["expected"];
    match (got, expected.get("value"), expected.get("error")) {
        (Ok(format), Some(want), _) => check_value(&format, want),
        (Ok(format), None, Some(error)) => Err(format!(
            "got {}/{} ({}), want error {error}",
            format.name, format.runtime_version, format.handler
        )),
        (Err(e), _, Some(error)) => check_error(&e, error),
        (Err(e), Some(want), _) => Err(format!("got {} ({e}), want {want}", e.python_class())),
        _ => Err(format!("unreadable expectation {expected}")),
    }
}

fn check_value(format: &PackageFormat, want: &Value) -> Result<(), String> {
    let runtime_version = format.runtime_version.to_string();
    let got = [
        ("format_name", format.name.as_str()),
        ("runtime_version", runtime_version.as_str()),
        ("handler", format.handler.class_name()),
    ];
    let problems: Vec<String> = got
        .iter()
        .filter(|(key, value)| want[*key].as_str() != Some(*value))
        .map(|(key, value)| format!("{key}: got {value:?}, want {}", want[*key]))
        .collect();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}

/// Class always; message too for Murano's own exceptions.
fn check_error(got: &FormatError, want: &Value) -> Result<(), String> {
    let want_class = want["class"].as_str().unwrap_or("?");
    if got.python_class() != want_class {
        return Err(format!(
            "got {} ({got}), want {want_class} ({})",
            got.python_class(),
            want["message"]
        ));
    }
    if want_class.starts_with("murano.") {
        let message = got.to_string();
        if want["message"].as_str() != Some(message.as_str()) {
            return Err(format!(
                "message: got {message:?}, want {}",
                want["message"]
            ));
        }
    }
    Ok(())
}
