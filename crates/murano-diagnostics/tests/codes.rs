//! The code table against the workspace: every code of the table is
//! documented in `docs/diagnostics.md` with the table's severity, layer
//! and summary, every documented code is in the table, and every code
//! literal in the sources of the workspace's crates is in the table.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use murano_diagnostics::{code_info, CODES};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Whether `text` has the shape of a diagnostic code: one or two capital
/// letters, then three digits.
fn is_code(text: &str) -> bool {
    let letters = text.bytes().take_while(u8::is_ascii_uppercase).count();
    (1..=2).contains(&letters)
        && text.len() == letters + 3
        && text.bytes().skip(letters).all(|b| b.is_ascii_digit())
}

#[test]
fn the_table_is_sorted_and_well_formed() {
    assert!(CODES.windows(2).all(|w| w[0].code < w[1].code));
    for info in CODES {
        assert!(is_code(info.code), "{}", info.code);
        assert!(!info.summary.is_empty(), "{}", info.code);
        assert_eq!(code_info(info.code), Some(info));
    }
    assert_eq!(code_info("X999"), None);
}

/// `| CODE | severity | origin | meaning |` rows of the documentation.
fn documented(docs: &str) -> BTreeMap<String, Vec<String>> {
    let mut rows = BTreeMap::new();
    for line in docs.lines() {
        let cells: Vec<String> = line
            .trim()
            .trim_matches('|')
            .split('|')
            .map(|c| c.trim().to_owned())
            .collect();
        if line.starts_with('|') && cells.len() >= 4 && is_code(&cells[0]) {
            let previous = rows.insert(cells[0].clone(), cells);
            assert!(previous.is_none(), "{line}: documented twice");
        }
    }
    rows
}

#[test]
fn every_code_is_documented_and_every_documented_code_is_in_the_table() {
    let path = workspace().join("docs/diagnostics.md");
    let Ok(docs) = std::fs::read_to_string(&path) else {
        // The crate is built outside its workspace (e.g. `cargo package`).
        assert!(
            !workspace().join("Cargo.lock").exists(),
            "no docs/diagnostics.md"
        );
        return;
    };
    let rows = documented(&docs);
    let mut failures = Vec::new();
    for info in CODES {
        match rows.get(info.code) {
            None => failures.push(format!("{} is not in docs/diagnostics.md", info.code)),
            Some(cells) => {
                let expected = [info.severity.as_str(), info.layer.as_str(), info.summary];
                if cells[1..4] != expected {
                    failures.push(format!(
                        "{}: documented as {:?}, the table says {expected:?}",
                        info.code,
                        &cells[1..4]
                    ));
                }
            }
        }
    }
    for code in rows.keys() {
        if code_info(code).is_none() {
            failures.push(format!("{code} is documented but not in the table"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The string literals of `source` that look like codes.
fn code_literals(source: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let mut rest = source;
    while let Some(i) = rest.find('"') {
        rest = &rest[i + 1..];
        let Some(end) = rest.find('"') else { break };
        if is_code(&rest[..end]) {
            found.push(&rest[..end]);
            rest = &rest[end + 1..];
        }
    }
    found
}

#[test]
fn every_code_in_the_sources_is_in_the_table() {
    let crates = workspace().join("crates");
    let mut files = Vec::new();
    for entry in std::fs::read_dir(&crates).into_iter().flatten().flatten() {
        rust_files(&entry.path().join("src"), &mut files);
    }
    if files.is_empty() {
        assert!(!workspace().join("Cargo.lock").exists(), "no sources found");
        return; // built outside the workspace
    }
    let mut unknown = Vec::new();
    let mut seen = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        for code in code_literals(&text) {
            seen += 1;
            if code_info(code).is_none() {
                unknown.push(format!("{code} in {}", file.display()));
            }
        }
    }
    assert!(
        unknown.is_empty(),
        "codes not in the table:\n{}",
        unknown.join("\n")
    );
    // Every code of the table is emitted somewhere (the sources name it).
    let all: String = files
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap_or_default())
        .filter(|t| !t.contains("pub const CODES"))
        .collect();
    let silent: Vec<&str> = CODES
        .iter()
        .map(|i| i.code)
        .filter(|code| !all.contains(&format!("\"{code}\"")))
        .collect();
    assert!(silent.is_empty(), "codes no source emits: {silent:?}");
    assert!(seen > CODES.len(), "{seen} code literals found");
}

#[test]
fn code_literals_are_found() {
    assert_eq!(
        code_literals(r#"x("E047", "no"); y = "OM101"; "R1000" "m1" "W202""#),
        ["E047", "OM101", "W202"]
    );
    assert!(is_code("OM303") && is_code("E000"));
    assert!(!is_code("ABC123") && !is_code("E12") && !is_code("e047"));
}
