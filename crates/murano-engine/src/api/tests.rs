use std::io::Write;

use super::*;
use crate::{from_json, host::OfflineHost, CallOptions, EngineBuilder, PackageFiles, Receiver};

fn example(name: &str) -> String {
    format!(
        "{}/../../examples/embedding/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn counter(packages: &[PackageFiles]) -> (crate::Engine, Receiver) {
    let engine = EngineBuilder::from_packages(packages)
        .unwrap()
        .host(OfflineHost::default())
        .build();
    let model = serde_json::json!({"Objects": {"?": {"id": "c1", "type": "com.example.Counter"}, "start": 10}});
    let root = engine.load_json(&model).unwrap().unwrap();
    (engine, Receiver::Object(root))
}

#[test]
fn a_private_method_is_called_with_any_scope_only() {
    let packages = PackageFiles::read_all([example("counter"), example("core-stub")]).unwrap();
    let (engine, this) = counter(&packages);
    let e = engine
        .call(&this, "check", vec![1.into()], vec![])
        .unwrap_err();
    assert_eq!(e.python_type(), "MethodNotExposed");
    let out = engine
        .call_with(
            &this,
            "check",
            vec![1.into()],
            vec![],
            &CallOptions::any_scope(),
        )
        .unwrap();
    assert_eq!(json::to_json(&out), serde_json::json!(1));
}

#[test]
fn a_stack_trace_shows_the_source_line_under_its_frame() {
    let packages = PackageFiles::read_all([example("counter"), example("core-stub")]).unwrap();
    let (engine, this) = counter(&packages);
    let e = engine
        .call_with(
            &this,
            "check",
            vec![40.into()],
            vec![],
            &CallOptions::any_scope(),
        )
        .unwrap_err();
    let text = trace::stack_trace(&e, &packages);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0], "[com.example.TooBig]: 40 is more than 10",
        "{text}"
    );
    let at = lines
        .iter()
        .position(|l| {
            l.starts_with("  at counter/Classes/Counter.yaml:") && l.contains("method check")
        })
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        lines[at + 1].trim_start().starts_with("- Throw: TooBig"),
        "{text}"
    );
    assert!(lines[at + 2].trim_start().starts_with('^'), "{text}");
}

#[test]
fn a_package_reads_from_a_zip_as_from_its_folder() {
    let folder = PackageFiles::read(example("counter")).unwrap();
    let mut bytes = Vec::new();
    {
        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(&mut bytes));
        for (path, data) in &folder.files {
            zip.start_file(path.as_str(), zip::write::SimpleFileOptions::default())
                .unwrap();
            zip.write_all(data).unwrap();
        }
        zip.finish().unwrap();
    }
    let dir = std::env::temp_dir().join(format!("murano-engine-api-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("counter.zip");
    std::fs::write(&path, &bytes).unwrap();
    let zipped = PackageFiles::read(&path);
    let _ = std::fs::remove_dir_all(&dir);
    let zipped = zipped.unwrap();
    assert_eq!(zipped.root, "counter");
    assert_eq!(zipped.name, folder.name);
    assert_eq!(zipped.files, folder.files);
}

#[test]
fn a_missing_package_is_an_error_naming_it() {
    let e = PackageFiles::read(example("no-such-package")).unwrap_err();
    assert_eq!(e.root, "no-such-package");
}

#[test]
fn an_object_model_goes_to_and_from_json() {
    let packages = PackageFiles::read_all([example("counter"), example("core-stub")]).unwrap();
    let (engine, _) = counter(&packages);
    let model = engine.serialized_model_json();
    assert_eq!(model["Objects"]["start"], serde_json::json!(10));
    assert_eq!(model["Objects"]["?"]["id"], serde_json::json!("c1"));
    assert!(engine.load_json_text("{not json").is_err());
}

#[test]
fn the_readme_shows_the_trace_the_example_prints() {
    let readme = include_str!("../../README.md");
    let start = readme.find("```text\n").expect("a text block") + "```text\n".len();
    let shown = &readme[start..start + readme[start..].find("```").expect("its end")];
    let packages = PackageFiles::read_all([example("counter"), example("core-stub")]).unwrap();
    let (engine, this) = counter(&packages);
    let e = engine
        .call_with(
            &this,
            "check",
            vec![40.into()],
            vec![],
            &CallOptions::any_scope(),
        )
        .unwrap_err();
    assert_eq!(trace::stack_trace(&e, &packages), shown);
}

/// The program a reader sees (hidden `# ` lines left out) in the first
/// code block after `heading` of a Markdown text.
fn shown_example(markdown: &str, heading: &str) -> Vec<String> {
    let after = &markdown[markdown.find(heading).expect("the heading")..];
    let start = after.find("```").expect("a code block");
    let body = &after[start..];
    let body = &body[body.find('\n').expect("its first line") + 1..];
    let body = &body[..body.find("```").expect("its end")];
    body.lines()
        .filter(|l| !l.starts_with("# ") && *l != "#")
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_readme_and_the_crate_docs_show_the_same_embedding_program() {
    let readme = shown_example(include_str!("../../README.md"), "## Embedding");
    let lib: String = include_str!("../lib.rs")
        .lines()
        .filter_map(|l| l.strip_prefix("//!"))
        .map(|l| l.strip_prefix(' ').unwrap_or(l))
        .map(|l| format!("{l}\n"))
        .collect();
    let docs = shown_example(&lib, "# Embedding");
    assert_eq!(readme, docs);
    // The issue's bar: at most 15 lines of program.
    assert!(readme.len() <= 15, "{} lines", readme.len());
    assert!(readme.iter().any(|l| l.contains("stack_trace")));
}

#[test]
fn a_host_asks_the_engine_about_objects_through_its_handle() {
    let packages = PackageFiles::read_all([example("counter"), example("core-stub")]).unwrap();
    let (engine, this) = counter(&packages);
    let Receiver::Object(root) = this else {
        unreachable!()
    };
    assert_eq!(engine.object_id(&root).as_deref(), Some("c1"));
    assert!(engine.owner(&root).is_none());
    assert!(engine.is_instance_of(&root, "com.example.Counter"));
    assert!(engine.is_instance_of(&root, "io.murano.Object"));
    assert!(!engine.is_instance_of(&root, "io.murano.Nothing"));
    let class = engine.class_of(&root).unwrap();
    assert_eq!(
        engine.package_of(class).as_deref(),
        Some("com.example.Counter")
    );
    assert!(engine.type_class(&root).is_none());
    assert!(engine.frame_class(0).is_none(), "no call under way");
    let model = from_json(
        &serde_json::json!({"?": {"id": "c2", "type": "com.example.Counter"}, "start": 1}),
    );
    let other = engine.load_object(&model).unwrap();
    // As `new()`, the load gives the object an id of its own.
    assert!(engine.object_id(&other).is_some_and(|id| id != "c1"));
    assert!(engine.is_instance_of(&other, "com.example.Counter"));
}
