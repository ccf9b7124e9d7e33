//! Loads every class file under a directory and prints the model issues
//! found, by code.
//!
//! ```text
//! cargo run -p murano-dsl --example model_stats -- ../shared/corpus/class
//! ```

use std::collections::BTreeMap;

use murano_dsl::model::ClassDefinition;
use murano_dsl::yaml::{load_class_file, LoadOptions};

fn main() {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "../shared/corpus/class".into());
    let mut counts: BTreeMap<&str, (usize, Vec<String>)> = BTreeMap::new();
    let (mut files, mut classes) = (0, 0);
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .expect("a directory")
        .flatten()
        .collect();
    entries.sort_by_key(|e| e.path());
    for entry in entries {
        let path = entry.path();
        if path.extension().and_then(|e| e.to_str()) != Some("yaml") {
            continue;
        }
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let Ok(file) = load_class_file(&bytes, &LoadOptions::default()) else {
            continue;
        };
        files += 1;
        for class in ClassDefinition::from_documents(&file.documents, None) {
            classes += 1;
            for issue in class.issues() {
                let slot = counts.entry(issue.code).or_default();
                slot.0 += 1;
                if slot.1.len() < 3 {
                    slot.1.push(format!(
                        "{}:{}: {}",
                        path.file_name().unwrap_or_default().to_string_lossy(),
                        issue.start.map_or(0, |p| p.line),
                        issue.message
                    ));
                }
            }
        }
    }
    println!("{files} files, {classes} classes");
    for (code, (n, examples)) in counts {
        println!("{code}: {n}");
        for e in examples {
            println!("    {e}");
        }
    }
}
