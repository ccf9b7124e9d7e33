//! The rendering of package diagnostics, pinned with snapshots: each
//! class file under `tests/render/classes` is checked as the class of a
//! small clean package, each folder under `tests/render/packages` as a
//! package of its own; every diagnostic is rendered with the source of its
//! file (the renderer the command line tool uses), and the renderings are
//! compared with `tests/snapshots`. A change of wording or layout fails
//! these tests (with `CI=true` insta writes nothing); review it and update
//! the snapshot files with it.

use std::path::Path;

use murano_packages::check::{check_package, CheckOptions, Diagnostic};
use murano_packages::source::{FileMap, PackageSource};

const MANIFEST: &str = "Format: MuranoPL/1.4\nFullName: com.example\nType: Library\n\
Description: demo\nClasses:\n  com.example.App: App.yaml\n";

fn render(files: &FileMap, report: &[Diagnostic]) -> String {
    let rendered: Vec<String> = report
        .iter()
        .map(|d| {
            let source = d
                .file
                .as_deref()
                .and_then(|f| files.read(f))
                .map(String::from_utf8_lossy);
            d.render(source.as_deref())
        })
        .collect();
    rendered.join("\n\n")
}

fn add_tree(files: &mut FileMap, root: &Path, dir: &Path) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("readable folder")
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            add_tree(files, root, &path);
        } else {
            let relative = path.strip_prefix(root).expect("inside the root");
            let name = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/");
            let bytes = std::fs::read(&path).expect("readable file");
            files.insert(&name, bytes).expect("valid path");
        }
    }
}

#[test]
fn class_files() {
    insta::glob!("render/classes/*.yaml", |path| {
        let mut files = FileMap::new();
        files
            .insert("manifest.yaml", MANIFEST.as_bytes().to_vec())
            .unwrap();
        files.insert("LICENSE", b"Apache-2.0".to_vec()).unwrap();
        files
            .insert("Classes/App.yaml", std::fs::read(path).unwrap())
            .unwrap();
        let report = check_package(&files, &CheckOptions::default());
        assert!(!report.is_empty(), "{}: no finding", path.display());
        insta::assert_snapshot!(render(&files, &report));
    });
}

#[test]
fn package_trees() {
    insta::glob!("render/packages/*/manifest.yaml", |path| {
        let root = path.parent().expect("a package folder");
        let mut files = FileMap::new();
        add_tree(&mut files, root, root);
        let report = check_package(&files, &CheckOptions::default());
        assert!(!report.is_empty(), "{}: no finding", root.display());
        insta::assert_snapshot!(render(&files, &report));
    });
}
