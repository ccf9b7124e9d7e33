//! Hostile and everyday inputs from the second hardening round (issue 21):
//! each ends with the exit code of the convention (0 clean, 1 findings or
//! a failed evaluation, 2 usage or I/O error), a typed message, no panic
//! or abort, and nothing written outside the output path.

use std::path::Path;

mod common;
use common::{copy_dir, examples, murano, run, s, Scratch};

/// Item 1: integers past Python's 4300 digits are a ValueError at once,
/// in data files and in expressions, instead of a quadratic conversion.
#[test]
fn huge_integer_literals_end_at_once() {
    let dir = Scratch::new("bigint");
    let yaml = dir.write("data.yaml", format!("n: {}\n", "7".repeat(1_000_000)));
    let (code, _, err) = run(&["yaql", "$.n", "--data", s(&yaml)]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("Exceeds the limit (4300 digits)"), "{err}");
    let json = dir.write("data.json", format!("[{}]", "7".repeat(1_000_000)));
    let (code, _, err) = run(&["yaql", "$", "--data", s(&json)]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("Exceeds the limit (4300 digits)"), "{err}");
    let (code, _, err) = run(&["yaql", &format!("1 + {}", "7".repeat(5000))]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("Exceeds the limit (4300 digits)"), "{err}");
    let (code, out, _) = run(&["yaql", "$.n", "--data", s(&dir.write("ok.yaml", "n: 12\n"))]);
    assert_eq!((code, out.trim()), (0, "12"));
}

/// Item 2: values that share structure are small in memory and
/// exponential as text: printing them ends with a typed error.
#[test]
fn shared_structure_values_do_not_abort() {
    for expr in [
        "range(40).aggregate([$1, $1], 1)",
        "str(range(40).aggregate([$1, $1], 1))",
        "range(40).aggregate([$1, $1], 1).join('')",
        "range(1000000).select('x' * 1000).join('')",
    ] {
        let (code, out, err) = run(&["yaql", expr]);
        assert_eq!(code, 1, "{expr}: {err}");
        assert!(out.is_empty());
        assert!(err.contains("MemoryQuotaExceeded"), "{expr}: {err}");
    }
    // Values nested by folding stop at Python's recursion limit instead
    // of overflowing the stack when printed or dropped.
    for expr in [
        "range(1000000).aggregate([$1], 1).len()",
        "range(100000).aggregate($1.concat([$2]), [])",
        "range(100000).aggregate({a => $1}, 1).len()",
    ] {
        let (code, _, err) = run(&["yaql", expr]);
        assert_eq!(code, 1, "{expr}: {err}");
        assert!(err.contains("RecursionError"), "{expr}: {err}");
    }
}

/// Item 3: a depth option cannot exceed what the stack holds.
#[test]
fn depth_options_are_capped_and_fit_the_stack() {
    let (code, _, err) = run(&["parse", "--max-depth", "4000000000", "1"]);
    assert_eq!(code, 2, "{err}");
    let dir = Scratch::new("deep");
    let deep = dir.write(
        "deep.txt",
        format!("{}1{}\n", "[".repeat(40_000), "]".repeat(40_000)),
    );
    let (code, out, err) = run(&["parse", "--max-depth", "50000", "-f", s(&deep)]);
    assert_eq!(code, 0, "{err}");
    assert!(out.len() > 80_000, "{}", out.len());
    let too_deep = dir.write(
        "too-deep.txt",
        format!("{}1{}\n", "(".repeat(60_000), ")".repeat(60_000)),
    );
    let (code, _, err) = run(&["parse", "--max-depth", "50000", "-f", s(&too_deep)]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("nested deeper than the limit of 50000"),
        "{err}"
    );
    let (code, _, err) = run(&["yaql", "--max-depth", "1000000", "1"]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = run(&[
        "yaql",
        "--max-depth",
        "10000",
        "--fuel",
        "100000000",
        "def(g, [g($ + 1)]) -> g(0)",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("RecursionError"), "{err}");
}

#[cfg(unix)]
fn symlink(target: &Path, link: &Path) {
    std::os::unix::fs::symlink(target, link).unwrap();
}

/// Item 4: `hot --files` skips symbolic links (and says so): a loop ends,
/// a link to a file outside is not copied.
#[cfg(unix)]
#[test]
fn hot_files_skips_symbolic_links() {
    let dir = Scratch::new("hotfiles");
    let files = dir.path("files");
    dir.write("files/a.txt", "a");
    dir.write("files/sub/b.txt", "b");
    symlink(&files, &files.join("sub/loop"));
    let secret = dir.write("secret.txt", "SECRET");
    symlink(&secret, &files.join("passwd"));
    let out = dir.path("out.zip");
    let template = examples().join("packages/hello-hot/template.yaml");
    let (code, _, err) = run(&["hot", s(&template), "-o", s(&out), "--files", s(&files)]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("skipping symbolic link"), "{err}");
    let bytes = std::fs::read(&out).unwrap();
    let zip = zip_names(&bytes);
    assert!(
        zip.contains(&"Resources/HotFiles/a.txt".to_owned()),
        "{zip:?}"
    );
    assert!(
        zip.contains(&"Resources/HotFiles/sub/b.txt".to_owned()),
        "{zip:?}"
    );
    assert!(
        !zip.iter()
            .any(|n| n.contains("passwd") || n.contains("loop")),
        "{zip:?}"
    );
    assert!(!bytes.windows(6).any(|w| w == b"SECRET"));
}

fn zip_names(bytes: &[u8]) -> Vec<String> {
    // Central directory file headers: signature, then the name at 46.
    let mut names = Vec::new();
    let mut i = 0;
    while i + 46 <= bytes.len() {
        if bytes[i..i + 4] == [0x50, 0x4b, 0x01, 0x02] {
            let len = usize::from(u16::from_le_bytes([bytes[i + 28], bytes[i + 29]]));
            names.push(String::from_utf8_lossy(&bytes[i + 46..i + 46 + len]).into_owned());
            i += 46 + len;
        } else {
            i += 1;
        }
    }
    names
}

/// Item 5: `hot -o DIR` never writes through a link already in DIR.
#[cfg(unix)]
#[test]
fn hot_output_refuses_symbolic_links() {
    let dir = Scratch::new("hotout");
    let outside = dir.path("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let out = dir.path("out");
    std::fs::create_dir_all(&out).unwrap();
    symlink(&outside.join("manifest.yaml"), &out.join("manifest.yaml"));
    let template = examples().join("packages/hello-hot/template.yaml");
    let (code, _, err) = run(&["hot", s(&template), "-o", s(&out)]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("symbolic link"), "{err}");
    assert!(!outside.join("manifest.yaml").exists());
    // A linked folder inside the output, and a linked .zip.
    std::fs::remove_file(out.join("manifest.yaml")).unwrap();
    symlink(&outside, &out.join("Resources"));
    let files = dir.path("files");
    dir.write("files/x.txt", "x");
    let (code, _, err) = run(&["hot", s(&template), "-o", s(&out), "--files", s(&files)]);
    assert_eq!(code, 2, "{err}");
    assert!(std::fs::read_dir(&outside).unwrap().next().is_none());
    let zip = dir.path("link.zip");
    symlink(&outside.join("x.zip"), &zip);
    let (code, _, _) = run(&["hot", s(&template), "-o", s(&zip)]);
    assert_eq!(code, 2);
    assert!(!outside.join("x.zip").exists());
}

/// Item 6: file and package sizes are capped (options), an oversized
/// file is a diagnostic, and special files are never read.
#[test]
fn check_caps_file_and_package_sizes() {
    let dir = Scratch::new("sizes");
    let pkg = dir.path("shop");
    copy_dir(&examples().join("packages/shop"), &pkg);
    dir.write("shop/Resources/big.bin", vec![b'x'; 5000]);
    let (code, out, err) = run(&["check", s(&pkg), "--max-file-size", "4096"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("error[M002]"), "{out}");
    assert!(out.contains("Resources/big.bin"), "{out}");
    let (code, out, _) = run(&["check", s(&pkg), "--max-package-size", "1000"]);
    assert_eq!(code, 1);
    assert!(out.contains("--max-package-size"), "{out}");
    let (code, out, err) = run(&["check", s(&pkg)]);
    assert_eq!(code, 0, "{out}{err}");
    #[cfg(unix)]
    {
        // A device in a package folder is skipped; as a package it is
        // read only up to the package size.
        symlink(Path::new("/dev/zero"), &pkg.join("Resources/zero"));
        let (code, out, _) = run(&["check", s(&pkg)]);
        assert_eq!(code, 0, "{out}");
        let (code, out, err) = run(&["check", "/dev/zero", "--max-package-size", "100000"]);
        assert_eq!(code, 1, "{out}{err}");
        assert!(out.contains("M002"), "{out}");
    }
}

/// Item 7: a folder or archive without a manifest is an error, with a
/// hint at --recursive when the folder holds packages.
#[test]
fn check_without_a_manifest_is_an_error() {
    let dir = Scratch::new("nomanifest");
    std::fs::create_dir_all(dir.path("empty")).unwrap();
    let (code, out, _) = run(&["check", s(&dir.path("empty"))]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("error[M003]"), "{out}");
    let (code, out, _) = run(&["check", s(&examples().join("packages"))]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("did you mean --recursive?"), "{out}");
    let (code, _, err) = run(&["check", "--recursive", s(&dir.path("empty"))]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("no package"), "{err}");
    // An empty zip, and a package zipped inside a zip.
    let empty = dir.write(
        "empty.zip",
        b"PK\x05\x06\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0",
    );
    let (code, out, err) = run(&["check", s(&empty)]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("M003"), "{out}");
    // A manifest given instead of its folder.
    let (code, out, _) = run(&["check", s(&examples().join("packages/shop/manifest.yaml"))]);
    assert_eq!(code, 1);
    assert!(out.contains("did you mean the folder"), "{out}");
}

/// Item 9: one unreadable package is a diagnostic of that package; the
/// run goes on and still prints JSON and SARIF.
#[test]
fn an_unreadable_package_does_not_end_the_run() {
    let dir = Scratch::new("corrupt");
    copy_dir(&examples().join("packages/shop"), &dir.path("apps/shop"));
    dir.write("apps/broken.zip", b"PK\x03\x04 this is not a zip");
    for format in ["text", "json", "sarif"] {
        let (code, out, err) = run(&[
            "check",
            "--recursive",
            s(&dir.path("apps")),
            "--format",
            format,
        ]);
        assert_eq!(code, 1, "{format}: {err}");
        assert!(out.contains("M001"), "{format}: {out}");
        assert!(err.contains("checked 2 packages"), "{err}");
        if format != "text" {
            serde_json::from_str::<serde_json::Value>(&out).unwrap();
        }
    }
}

/// Item 11: a --catalog that does not exist is a usage error.
#[test]
fn a_missing_catalog_is_a_usage_error() {
    let shop = examples().join("packages/shop");
    let (code, _, err) = run(&["check", s(&shop), "--catalog", "/no/such/catalog"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no such file"), "{err}");
}

/// Item 13: a diagnostic on a very long line prints a window around the
/// column, not the whole line (nor a caret line as long).
#[test]
fn snippets_are_bounded() {
    let dir = Scratch::new("longline");
    let pkg = dir.path("shop");
    copy_dir(&examples().join("packages/shop"), &pkg);
    let manifest = std::fs::read_to_string(pkg.join("manifest.yaml")).unwrap();
    let long = format!("Author: {} x: y\n", "d".repeat(2_000_000));
    let manifest: String = manifest
        .lines()
        .filter(|l| !l.starts_with("Author:"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(pkg.join("manifest.yaml"), manifest + &long).unwrap();
    let (code, out, err) = run(&["check", s(&pkg)]);
    assert_eq!(code, 1, "{err}");
    assert!(out.len() < 20_000, "{} bytes of output", out.len());
    assert!(out.contains("…ddd"), "{out}");
    let caret = out.lines().find(|l| l.trim_end().ends_with('^')).unwrap();
    assert!(caret.len() < 200, "{caret}");
}

/// Item 15: SARIF locations are URI references relative to a base id,
/// percent-encoded.
#[test]
fn sarif_uris_are_relative_and_encoded() {
    let dir = Scratch::new("sarif");
    let pkg = dir.path("my shop%");
    copy_dir(&examples().join("packages/shop"), &pkg);
    std::fs::remove_file(pkg.join("LICENSE")).unwrap();
    let out = murano()
        .current_dir(&dir.0)
        .args(["check", "my shop%", "--format", "sarif"])
        .output()
        .unwrap();
    let sarif: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let location =
        &sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"];
    assert_eq!(location["uri"], "my%20shop%25");
    assert_eq!(location["uriBaseId"], "CHECKED_ROOT");
    let base = sarif["runs"][0]["originalUriBaseIds"]["CHECKED_ROOT"]["uri"]
        .as_str()
        .unwrap();
    assert!(
        base.starts_with("file:///") && base.ends_with('/'),
        "{base}"
    );
}

/// Papercut: `ui --values` naming a form or field the definition does
/// not have is an error naming it, with a close match.
#[test]
fn ui_values_with_unknown_names_are_refused() {
    let dir = Scratch::new("uivalues");
    let values = dir.write("values.yaml", "settings:\n  nmae: x\n");
    let shop = examples().join("packages/shop");
    let (code, _, err) = run(&["ui", s(&shop), "--values", s(&values)]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("no field \"nmae\" (did you mean \"name\"?)"),
        "{err}"
    );
    let values = dir.write("forms.yaml", "setings:\n  name: x\n");
    let (code, _, err) = run(&["ui", s(&shop), "--values", s(&values)]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("no form \"setings\" (did you mean \"settings\"?)"),
        "{err}"
    );
}

/// Item 12: every subcommand follows one convention: 0 clean, 1 findings
/// or a failed evaluation, 2 usage or I/O error.
#[test]
fn every_subcommand_follows_the_exit_code_convention() {
    let dir = Scratch::new("exit");
    let ex = examples();
    let shop = ex.join("packages/shop");
    let template = ex.join("packages/hello-hot/template.yaml");
    // A package with a class that does not load, and a tiny core library
    // for `schema`.
    let broken = dir.path("broken");
    copy_dir(&ex.join("packages/greetings"), &broken);
    std::fs::write(broken.join("Classes/Greeter.yaml"), "Name: [unclosed\n").unwrap();
    let core = dir.path("core");
    dir.write(
        "core/manifest.yaml",
        "Format: MuranoPL/1.4\nType: Library\nFullName: io.murano\nName: Core\nClasses:\n  io.murano.Object: Object.yaml\n",
    );
    dir.write(
        "core/Classes/Object.yaml",
        "Namespaces:\n  =: io.murano\nName: Object\n",
    );
    let lib = dir.path("lib");
    dir.write(
        "lib/manifest.yaml",
        "Format: MuranoPL/1.4\nType: Library\nFullName: com.t\nName: T\nClasses:\n  com.t.A: A.yaml\n",
    );
    dir.write(
        "lib/Classes/A.yaml",
        "Namespaces:\n  =: com.t\nName: A\nProperties:\n  x:\n    Contract: $.string()\n",
    );
    let bad_template = dir.write("bad.yaml", "heat_template_version: [\n");
    let invalid_values = dir.write("invalid.yaml", "settings:\n  port: not-a-port\n");
    let values = ex.join("ui/shop-values.yaml");
    let cloud = ex.join("ui/cloud.yaml");
    let deep = dir.write("exprs.txt", "$.a\n$.b +\n");
    let missing = dir.path("missing");
    let out_zip = dir.path("out.zip");
    let cases: Vec<(Vec<&str>, i32)> = vec![
        (vec!["check", s(&shop)], 0),
        (vec!["check", s(&broken)], 1),
        (vec!["check", s(&missing)], 2),
        (vec!["check", s(&shop), "--format", "nope"], 2),
        (vec!["inspect", s(&shop)], 0),
        (vec!["inspect", s(&broken)], 1),
        (vec!["inspect", s(&missing)], 2),
        (vec!["hot", s(&template), "-o", s(&out_zip)], 0),
        (vec!["hot", s(&bad_template), "-o", s(&out_zip)], 1),
        (vec!["hot", s(&missing), "-o", s(&out_zip)], 2),
        (vec!["yaql", "1 + 1"], 0),
        (vec!["yaql", "1 / 0"], 1),
        (vec!["yaql", "$", "--data", s(&missing)], 2),
        (
            vec!["ui", s(&shop), "--values", s(&values), "--cloud", s(&cloud)],
            0,
        ),
        (
            vec![
                "ui",
                s(&shop),
                "--values",
                s(&invalid_values),
                "--cloud",
                s(&cloud),
            ],
            1,
        ),
        (vec!["ui", s(&broken), "--values", s(&values)], 1),
        (vec!["ui", s(&shop), "--values", s(&missing)], 2),
        (vec!["schema", s(&lib), "com.t.A", "--catalog", s(&core)], 0),
        (vec!["schema", s(&lib), "com.t.A"], 1),
        (vec!["schema", s(&missing), "com.t.A"], 2),
        (vec!["parse", "$.a"], 0),
        (vec!["parse", "-f", s(&deep)], 1),
        (vec!["parse", "-f", s(&missing)], 2),
        (vec!["completions", "bash"], 0),
        (vec!["completions", "nosuchshell"], 2),
        (vec!["nosuchcommand"], 2),
    ];
    for (args, want) in cases {
        let (code, out, err) = run(&args);
        assert_eq!(code, want, "murano {}:\n{out}\n{err}", args.join(" "));
    }
}

/// Item 16: invalid UTF-8 and NUL in YAML say file, line and column.
#[test]
fn reader_errors_have_positions() {
    let dir = Scratch::new("reader");
    let bad = dir.write("bad.yaml", b"Name: ok\nDescription: \"a\xffb\"\n");
    let (code, _, err) = run(&["yaql", "$", "--data", s(&bad)]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("bad.yaml") && err.contains("line 2, column 16"),
        "{err}"
    );
    let nul = dir.write("nul.yaml", b"Name: ok\nDescription: a\0b\n");
    let (code, _, err) = run(&["yaql", "$", "--data", s(&nul)]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("line 2, column 15"), "{err}");
    let pkg = dir.path("shop");
    copy_dir(&examples().join("packages/shop"), &pkg);
    std::fs::write(pkg.join("Classes/Shop.yaml"), b"Name: ok\nx: \"\xff\"\n").unwrap();
    let (code, out, _) = run(&["check", s(&pkg)]);
    assert_eq!(code, 1);
    assert!(out.contains("Classes/Shop.yaml:2:5"), "{out}");
}

/// Items 8 and 10: cyclic Extends is an error with the cycle spelled out;
/// duplicate keys in a manifest or class file are warnings.
#[test]
fn check_reports_cycles_and_duplicate_keys() {
    let dir = Scratch::new("cycles");
    let pkg = dir.path("shop");
    copy_dir(&examples().join("packages/shop"), &pkg);
    let class = std::fs::read_to_string(pkg.join("Classes/Shop.yaml")).unwrap();
    let class = class.replace("Extends: std:Application", "Extends: Shop");
    assert!(class.contains("Extends: Shop"));
    std::fs::write(pkg.join("Classes/Shop.yaml"), class).unwrap();
    let manifest = std::fs::read_to_string(pkg.join("manifest.yaml")).unwrap();
    std::fs::write(
        pkg.join("manifest.yaml"),
        format!("{manifest}Author: twice\n"),
    )
    .unwrap();
    let (code, out, _) = run(&["check", s(&pkg)]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("error[M407]"), "{out}");
    assert!(
        out.contains("com.example.Shop extends com.example.Shop"),
        "{out}"
    );
    assert!(out.contains("warning[M408]"), "{out}");
    assert!(out.contains("\"Author\""), "{out}");
}

/// Papercut: the prompt's `exit`/`quit` leave, `help` helps, history is
/// kept between sessions, and no colour when not on a terminal.
#[test]
fn the_prompt_exits_helps_and_keeps_history() {
    use std::io::Write;
    let dir = Scratch::new("repl");
    let history = dir.path("history");
    let session = |input: &str| {
        let mut child = murano()
            .arg("yaql")
            .env("MURANO_HISTORY", &history)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, out, err) = session("1 + 1\nhelp\n1 / 0\nexit\n40 + 2\n");
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains('2') && !out.contains("42"), "{out}");
    assert!(err.contains("exit, quit"), "{err}");
    assert!(
        err.contains("ZeroDivisionError") && !err.contains("\x1b["),
        "{err}"
    );
    let (code, _, _) = session("quit\n");
    assert_eq!(code, Some(0));
    let saved = std::fs::read_to_string(&history).unwrap();
    assert_eq!(saved, "1 + 1\n1 / 0\n");
}

/// Zips `files` (path, content) in this order, then renames in the bytes
/// each `from` to `to` (same length), since the zip writer refuses to
/// write a name twice.
fn zip_with_renames(files: &[(String, Vec<u8>)], renames: &[(&str, &str)]) -> Vec<u8> {
    use std::io::Write;
    let mut bytes = Vec::new();
    {
        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(&mut bytes));
        for (name, data) in files {
            zip.start_file(name.as_str(), zip::write::SimpleFileOptions::default())
                .unwrap();
            zip.write_all(data).unwrap();
        }
        zip.finish().unwrap();
    }
    for (from, to) in renames {
        assert_eq!(from.len(), to.len());
        let mut at = 0;
        while let Some(found) = bytes[at..]
            .windows(from.len())
            .position(|w| w == from.as_bytes())
        {
            bytes[at + found..at + found + to.len()].copy_from_slice(to.as_bytes());
            at += found + to.len();
        }
    }
    bytes
}

/// The files of a package folder, as (relative path, content).
fn package_files(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    let mut stack = vec![root.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            if entry.path().is_dir() {
                stack.push(entry.path());
            } else {
                let rel = entry.path().strip_prefix(root).unwrap().to_owned();
                let rel = rel.to_str().unwrap().replace('\\', "/");
                files.push((rel, std::fs::read(entry.path()).unwrap()));
            }
        }
    }
    files.sort();
    files
}

/// Item 10: a zip naming a file twice is read as Murano extracts it (the
/// last entry wins) and each such file is a warning, not an unreadable
/// package.
#[test]
fn duplicate_zip_entries_are_warnings_and_the_last_one_wins() {
    let dir = Scratch::new("zipdupes");
    let shop = examples().join("packages/shop");
    let mut files = package_files(&shop);
    let manifest = files
        .iter()
        .position(|(name, _)| name == "manifest.yaml")
        .unwrap();
    // A broken manifest first; the real one, last, is the one read.
    files.insert(
        manifest,
        ("./manifest.yaml".to_owned(), b"[broken".to_vec()),
    );
    // The same name exactly: `manifest.yamk` is renamed in the bytes.
    files.insert(0, ("manifest.yamk".to_owned(), b"FullName: [".to_vec()));
    let zip = dir.write(
        "shop.zip",
        zip_with_renames(&files, &[("manifest.yamk", "manifest.yaml")]),
    );
    for format in ["text", "json"] {
        let (code, out, err) = run(&["check", s(&zip), "--format", format]);
        assert_ne!(code, 2, "{format}: {out}{err}");
        assert!(out.contains("M005"), "{format}: {out}");
        assert!(!out.contains("M001"), "{format}: {out}");
        assert_eq!(out.matches("M005").count(), 1, "{format}: {out}");
        assert!(out.contains("manifest.yaml"), "{format}: {out}");
    }
    let (_, out, _) = run(&["check", s(&zip)]);
    assert!(out.contains("warning[M005]"), "{out}");
    // Only the warning: the manifest read is the last, valid one.
    assert_eq!(
        out.matches("[M").count() + out.matches("[E").count(),
        1,
        "{out}"
    );
    // The folder itself is clean.
    let (code, out, err) = run(&["check", s(&shop)]);
    assert_eq!(code, 0, "{out}{err}");
}

/// Item 16: `ui` definition errors name the file, the line and column,
/// and the field.
#[test]
fn ui_definition_errors_name_the_file_and_the_field() {
    let dir = Scratch::new("uifield");
    let values = examples().join("ui/shop-values.yaml");
    let pkg = dir.path("shop");
    copy_dir(&examples().join("packages/shop"), &pkg);
    let ui = std::fs::read_to_string(pkg.join("UI/ui.yaml")).unwrap();
    let line_of = |text: &str, needle: &str| {
        1 + text
            .lines()
            .position(|l| l.trim_start() == needle)
            .unwrap_or_else(|| panic!("{needle} not in ui.yaml"))
    };
    // A keyword an integer field does not take.
    let bad = ui.replacen("          minValue: 1\n", "          minLength: 1\n", 1);
    assert_ne!(bad, ui);
    std::fs::write(pkg.join("UI/ui.yaml"), &bad).unwrap();
    let (code, _, err) = run(&["ui", s(&pkg), "--values", s(&values)]);
    assert_eq!(code, 1, "{err}");
    let line = line_of(&bad, "minLength: 1");
    assert!(
        err.contains(&format!("UI/ui.yaml:{line}:11: field \"port\": ")),
        "{err}"
    );
    assert!(
        err.contains("unexpected keyword argument 'min_length'"),
        "{err}"
    );
    // A regular expression that does not compile.
    let bad = ui.replacen("'^[A-Z]{3}(,[A-Z]{3})*$'", "'^[A-Z'", 1);
    assert_ne!(bad, ui);
    std::fs::write(pkg.join("UI/ui.yaml"), &bad).unwrap();
    let (code, _, err) = run(&["ui", s(&pkg), "--values", s(&values)]);
    assert_eq!(code, 1, "{err}");
    let line = line_of(&bad, "regexpValidator: '^[A-Z'");
    assert!(
        err.contains(&format!("UI/ui.yaml:{line}:28: field \"currencies\": ")),
        "{err}"
    );
}
