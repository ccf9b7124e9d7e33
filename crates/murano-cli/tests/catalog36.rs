//! `murano catalog list`: packages and classes from folders, zips and
//! repositories, as a table, JSON and DOT.

mod pkg36_common;

use pkg36_common::*;

fn list(args: &[&dyn AsRef<std::ffi::OsStr>]) -> (String, String) {
    let mut cmd = murano();
    cmd.args(["catalog", "list"]);
    for a in args {
        cmd.arg(a);
    }
    let out = cmd.output().unwrap();
    let texts = texts(&out);
    assert!(out.status.success(), "{texts:?}");
    texts
}

#[test]
fn folders_zips_and_repositories_list_the_same_packages() {
    let s = Scratch::new("catalog-sources");
    let zip = s.join("greetings.zip");
    let out = murano()
        .arg("package")
        .arg(examples().join("greetings"))
        .arg("-o")
        .arg(&zip)
        .output()
        .unwrap();
    assert!(out.status.success());
    let repo = s.join("repo");
    let out = murano()
        .args(["repo", "build"])
        .arg(examples())
        .arg("-o")
        .arg(&repo)
        .output()
        .unwrap();
    assert!(out.status.success(), "{:?}", texts(&out));

    let json = |args: &[&dyn AsRef<std::ffi::OsStr>]| -> serde_json::Value {
        let mut all: Vec<&dyn AsRef<std::ffi::OsStr>> = args.to_vec();
        all.push(&"--format");
        all.push(&"json");
        serde_json::from_str(&list(&all).0).unwrap()
    };
    let from_folders = json(&[&examples()]);
    // The repository publishes each package under several names: listed once.
    let from_repo = json(&[&repo]);
    assert_eq!(from_folders, from_repo);
    let names: Vec<&str> = from_folders["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "com.example.Blog",
            "com.example.Greetings",
            "com.example.HelloHot",
            "com.example.Notes",
            "com.example.NotesDb",
            "com.example.Shop"
        ]
    );
    let shop = &from_folders["packages"][5];
    assert_eq!(
        shop["requires"],
        serde_json::json!([{"name": "com.example.Greetings", "version": "1", "served": true}])
    );
    let classes: Vec<&str> = from_folders["classes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["class"].as_str().unwrap())
        .collect();
    assert!(classes.contains(&"com.example.Database"), "{classes:?}");

    // A zip alone; its requirement-free package is served.
    let from_zip = json(&[&zip]);
    assert_eq!(from_zip["packages"][0]["name"], "com.example.Greetings");
    assert_eq!(from_zip["packages"][0]["version"], "1.2.0");
}

#[test]
fn the_table_marks_requirements_not_served() {
    let (table, err) = list(&[&examples().join("shop")]);
    let header = table.lines().next().unwrap();
    assert!(header.starts_with("PACKAGE"), "{table}");
    assert!(
        table.contains("!com.example.Greetings 1"),
        "the missing library is marked: {table}"
    );
    assert!(table.contains("CLASS"), "{table}");
    assert!(table.contains("com.example.Database"), "{table}");
    assert!(err.contains("not in the repository"), "{err}");
}

#[test]
fn the_graph_is_dot_with_an_edge_per_requirement() {
    let (dot, _) = list(&[&examples(), &"--graph"]);
    assert!(dot.starts_with("digraph packages {"), "{dot}");
    assert!(dot.trim_end().ends_with('}'), "{dot}");
    assert!(
        dot.contains("\"com.example.Shop\" -> \"com.example.Greetings\" [label=\"1\"];"),
        "{dot}"
    );
    assert!(
        dot.contains("com.example.Greetings\\n1.2.0 Library"),
        "{dot}"
    );
    // Missing requirements are dashed.
    let (alone, _) = list(&[&examples().join("shop"), &"--graph"]);
    assert!(alone.contains("style=dashed"), "{alone}");
}

#[test]
fn a_missing_source_is_an_error() {
    let out = murano()
        .args(["catalog", "list", "/nonexistent/murano-catalog"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(texts(&out).1.contains("no such file or folder"));
}

#[test]
fn the_size_limits_are_options() {
    let out = murano()
        .args(["catalog", "list"])
        .arg(examples().join("shop"))
        .args(["--max-file-size", "100"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        texts(&out).1.contains("--max-file-size"),
        "{:?}",
        texts(&out)
    );
}
