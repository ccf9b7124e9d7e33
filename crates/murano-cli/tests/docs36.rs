//! `murano docs`: pages rendered from the bundled examples, compared with
//! snapshots (insta; review changes with `cargo insta review`).

mod pkg36_common;

use pkg36_common::*;

fn render(format: &str, s: &Scratch) -> Vec<(String, String)> {
    let out_dir = s.join(format);
    let out = murano()
        .arg("docs")
        .arg(examples().join("shop"))
        .arg(examples().join("greetings"))
        .arg(examples().join("hello-hot"))
        .args(["--format", format, "-o"])
        .arg(&out_dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{:?}", texts(&out));
    let mut pages: Vec<(String, String)> = std::fs::read_dir(&out_dir)
        .unwrap()
        .flatten()
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read_to_string(e.path()).unwrap(),
            )
        })
        .collect();
    pages.sort();
    pages
}

#[test]
fn markdown_pages_match_their_snapshots() {
    let s = Scratch::new("docs-md");
    let pages = render("markdown", &s);
    let names: Vec<&str> = pages.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "com.example.Database.md",
            "com.example.Greeter.md",
            "com.example.GreeterTests.md",
            "com.example.HelloHot.md",
            "com.example.Shop.md",
            "index.md",
        ]
    );
    for (name, text) in &pages {
        insta::assert_snapshot!(format!("docs36_{name}"), text);
    }
    // Links cross packages: the shop's page links the library's class.
    let shop = &pages[4].1;
    assert!(
        shop.contains("[`com.example.Greeter`](com.example.Greeter.md)"),
        "{shop}"
    );
    assert!(shop.contains("static action, model builder"), "{shop}");
}

#[test]
fn html_pages_match_their_snapshots() {
    let s = Scratch::new("docs-html");
    let pages = render("html", &s);
    for (name, text) in &pages {
        if name == "index.html" || name == "com.example.Shop.html" {
            insta::assert_snapshot!(format!("docs36_{name}"), text);
        }
        assert!(text.starts_with("<!DOCTYPE html>"), "{name}");
    }
}

#[test]
fn without_an_output_folder_the_pages_are_printed() {
    let out = murano()
        .arg("docs")
        .arg(examples().join("greetings"))
        .output()
        .unwrap();
    let (stdout, stderr) = texts(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.starts_with("# Packages\n"), "{stdout}");
    assert!(stdout.contains("# `com.example.Greeter`"), "{stdout}");
    assert!(
        stdout.contains("| `times` | integer, where `$ >= 1` | `1` |"),
        "{stdout}"
    );
}
