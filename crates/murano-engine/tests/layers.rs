//! The crate's layers import only downwards (see the `# Design` section
//! of `src/lib.rs`): `base/` → `classes/` → `threads/` → `runtime/` →
//! `builtins/` → `api/` → clients (`host/`, `testing/`, `deploy.rs`,
//! `task.rs`). This test reads the crate's sources and fails on a path
//! (`crate::...`, `super::super::...`) from a file of one layer into a
//! later layer. Test code (`#[cfg(test)]` items and the files of
//! `#[cfg(test)] mod`s) may reach any layer: it tests through the front
//! door.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The layers in order, by the crate's top-level module.
const LAYERS: &[(&str, usize)] = &[
    ("base", 0),
    ("classes", 1),
    ("threads", 2),
    ("runtime", 3),
    ("builtins", 4),
    ("api", 5),
    ("host", 6),
    ("testing", 6),
    ("deploy", 6),
    ("task", 6),
];

/// The layer of each item `lib.rs` defines itself (re-exports are
/// followed to their module): a new item there must be placed here.
const ROOT_ITEMS: &[(&str, usize)] = &[
    ("Limits", 0),
    ("DEFAULT_FUEL", 0),
    ("DEFAULT_MAX_CALL_DEPTH", 0),
    ("DEFAULT_MAX_STACK", 0),
    ("DEFAULT_MAX_THREADS", 0),
    ("DEFAULT_MAX_OBJECTS", 0),
    ("DEFAULT_MAX_MEMORY", 0),
    ("LogRecord", 0),
    // A native's call holds the engine running it.
    ("NativeBody", 3),
    ("NativeMethod", 3),
    ("NativeCall", 3),
    ("yaql_library", 4),
    ("ReadmeDoctests", 6),
];

/// Imports allowed to go upwards (empty: none does).
const ALLOWED: &[(&str, &str)] = &[];

fn layer_names() -> Vec<&'static str> {
    let mut names: Vec<&str> = LAYERS.iter().map(|(n, _)| *n).collect();
    names.dedup();
    names
}

/// Rust source with comments, strings and character literals blanked
/// (kept as spaces, so that offsets and lines stay).
fn strip(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            let end = src[i..].find('\n').map_or(b.len(), |n| i + n);
            blank(&mut out, i, end);
            i = end;
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let mut depth = 0;
            let start = i;
            while i < b.len() {
                if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            blank(&mut out, start, i);
        } else if c == b'r'
            && (b.get(i + 1) == Some(&b'#') || b.get(i + 1) == Some(&b'"'))
            && (i == 0
                || !is_ident(b[i - 1])
                || (b[i - 1] == b'b' && (i < 2 || !is_ident(b[i - 2]))))
        {
            // A raw string: r"...", r#"..."#.
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&b'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&b'"') {
                i += 1;
                continue;
            }
            let close = format!("\"{}", "#".repeat(hashes));
            let end = src[j + 1..]
                .find(&close)
                .map_or(b.len(), |n| j + 1 + n + close.len());
            blank(&mut out, i, end);
            i = end;
        } else if c == b'"' {
            let start = i;
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            blank(&mut out, start, i.min(b.len()));
        } else if c == b'\'' {
            // A character literal ('a', '\n', '\u{1F600}'), not a lifetime.
            let rest = &src[i + 1..];
            let len = if rest.starts_with('\\') {
                rest.find('\'').map(|n| n + 1)
            } else {
                rest.chars()
                    .next()
                    .filter(|ch| rest[ch.len_utf8()..].starts_with('\''))
                    .map(|ch| ch.len_utf8() + 1)
            };
            match len {
                Some(n) => {
                    blank(&mut out, i, i + 1 + n);
                    i += 1 + n;
                }
                None => i += 1,
            }
        } else {
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Punct(char),
    /// `::`
    Path,
}

/// Tokens with their lines.
fn tokens(text: &str) -> Vec<(Tok, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            line += 1;
            i += 1;
        } else if c.is_ascii_whitespace() {
            i += 1;
        } else if is_ident(c) {
            let start = i;
            while i < b.len() && is_ident(b[i]) {
                i += 1;
            }
            out.push((Tok::Ident(text[start..i].to_owned()), line));
        } else if c == b':' && b.get(i + 1) == Some(&b':') {
            out.push((Tok::Path, line));
            i += 2;
        } else {
            let ch = text[i..].chars().next().unwrap_or(' ');
            out.push((Tok::Punct(ch), line));
            i += ch.len_utf8();
        }
    }
    out
}

/// The item starting at `toks[start]` (after an attribute) ends at: a
/// `use` at its `;`, others at a `;` or a closing brace at their depth.
fn item_end(toks: &[(Tok, usize)], start: usize) -> usize {
    let mut i = start;
    // Further attributes of the same item.
    while toks.get(i).map(|t| &t.0) == Some(&Tok::Punct('#')) {
        let mut depth = 0;
        i += 1;
        while i < toks.len() {
            match toks[i].0 {
                Tok::Punct('[') => depth += 1,
                Tok::Punct(']') => {
                    depth -= 1;
                    if depth == 0 {
                        i += 1;
                        break;
                    }
                }
                _ => {}
            }
            i += 1;
        }
    }
    // `pub`, `pub(crate)` before the keyword.
    let mut k = i;
    if toks.get(k).map(|t| &t.0) == Some(&Tok::Ident("pub".into())) {
        k += 1;
        if toks.get(k).map(|t| &t.0) == Some(&Tok::Punct('(')) {
            while toks.get(k).is_some_and(|t| t.0 != Tok::Punct(')')) {
                k += 1;
            }
            k += 1;
        }
    }
    let is_use = toks.get(k).map(|t| &t.0) == Some(&Tok::Ident("use".into()));
    let mut depth = 0i32;
    while i < toks.len() {
        match toks[i].0 {
            Tok::Punct('{') | Tok::Punct('(') | Tok::Punct('[') => depth += 1,
            Tok::Punct('}') | Tok::Punct(')') | Tok::Punct(']') => {
                depth -= 1;
                if depth == 0 && !is_use && toks[i].0 == Tok::Punct('}') {
                    return i + 1;
                }
            }
            Tok::Punct(';') if depth == 0 => return i + 1,
            _ => {}
        }
        i += 1;
    }
    i
}

/// The names a path tree names after its prefix: `a` for `a::b`, `a` and
/// `c` for `{a::b, c}`.
fn tree_heads(toks: &[(Tok, usize)], mut i: usize, out: &mut Vec<(String, usize)>) {
    match toks.get(i) {
        Some((Tok::Ident(name), line)) => out.push((name.clone(), *line)),
        Some((Tok::Punct('{'), _)) => {
            i += 1;
            let mut depth = 0;
            let mut expect = true;
            while let Some((t, line)) = toks.get(i) {
                match t {
                    Tok::Punct('{') => depth += 1,
                    Tok::Punct('}') if depth == 0 => return,
                    Tok::Punct('}') => depth -= 1,
                    Tok::Punct(',') if depth == 0 => {
                        expect = true;
                        i += 1;
                        continue;
                    }
                    Tok::Ident(name) if expect && depth == 0 => {
                        out.push((name.clone(), *line));
                    }
                    _ => {}
                }
                expect = false;
                i += 1;
            }
        }
        _ => {}
    }
}

/// A source file of the crate: its module path and whether it is test
/// code.
struct File {
    path: PathBuf,
    module: Vec<String>,
    test_only: bool,
}

/// The crate's files, from `lib.rs` down through `mod` declarations.
fn files(src: &Path) -> Vec<File> {
    let mut out = Vec::new();
    let mut todo = vec![(src.join("lib.rs"), Vec::<String>::new(), false)];
    while let Some((path, module, test_only)) = todo.pop() {
        let text = strip(&std::fs::read_to_string(&path).expect("a source file"));
        let toks = tokens(&text);
        // Where this file's child modules live.
        let dir = if path.ends_with("lib.rs") || path.ends_with("mod.rs") {
            path.parent().unwrap().to_path_buf()
        } else {
            path.with_extension("")
        };
        let mut cfg_test = false;
        for (i, (t, _)) in toks.iter().enumerate() {
            if is_cfg_test(&toks, i) {
                cfg_test = true;
            }
            if *t == Tok::Ident("mod".into()) {
                if let (Some((Tok::Ident(name), _)), Some((Tok::Punct(';'), _))) =
                    (toks.get(i + 1), toks.get(i + 2))
                {
                    let file = dir.join(format!("{name}.rs"));
                    let file = if file.exists() {
                        file
                    } else {
                        dir.join(name).join("mod.rs")
                    };
                    let mut m = module.clone();
                    m.push(name.clone());
                    todo.push((file, m, test_only || cfg_test));
                }
            }
            if matches!(t, Tok::Punct(';') | Tok::Punct('}')) {
                cfg_test = false;
            }
        }
        out.push(File {
            path,
            module,
            test_only,
        });
    }
    out
}

/// Whether `#[cfg(test)]` starts at `toks[i]`.
fn is_cfg_test(toks: &[(Tok, usize)], i: usize) -> bool {
    let want = [
        Tok::Punct('#'),
        Tok::Punct('['),
        Tok::Ident("cfg".into()),
        Tok::Punct('('),
        Tok::Ident("test".into()),
        Tok::Punct(')'),
        Tok::Punct(']'),
    ];
    toks.len() >= i + want.len() && toks[i..i + want.len()].iter().map(|t| &t.0).eq(&want)
}

/// Names defined at the crate root and re-exported there, by layer.
fn root_layers(src: &Path) -> HashMap<String, usize> {
    let mut out: HashMap<String, usize> = ROOT_ITEMS
        .iter()
        .map(|(n, l)| ((*n).to_owned(), *l))
        .collect();
    for (n, l) in LAYERS {
        out.insert((*n).to_owned(), *l);
    }
    let text = strip(&std::fs::read_to_string(src.join("lib.rs")).unwrap());
    let toks = tokens(&text);
    // `use module::...::{names}`: every name after a module of a known
    // layer has its layer (re-exports of re-exports: until none is new).
    let mut uses = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        if toks[i].0 == Tok::Ident("use".into()) {
            let end = item_end(&toks, i);
            if let Some((Tok::Ident(module), _)) = toks.get(i + 1) {
                let names: Vec<String> = toks[i + 2..end]
                    .iter()
                    .filter_map(|(t, _)| match t {
                        Tok::Ident(n) => Some(n.clone()),
                        _ => None,
                    })
                    .collect();
                uses.push((module.clone(), names));
            }
            i = end;
        } else {
            i += 1;
        }
    }
    loop {
        let before = out.len();
        for (module, names) in &uses {
            if let Some(&layer) = out.get(module) {
                for n in names {
                    out.entry(n.clone()).or_insert(layer);
                }
            }
        }
        if out.len() == before {
            break;
        }
    }
    out
}

#[test]
fn no_layer_imports_a_later_layer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let roots = root_layers(&src);
    let layer_of: HashMap<&str, usize> = LAYERS.iter().copied().collect();
    let mut offences = Vec::new();
    let mut unknown = Vec::new();
    let mut checked = 0;
    for file in files(&src) {
        let Some(top) = file.module.first() else {
            continue; // lib.rs: the facade over every layer
        };
        let Some(&own) = layer_of.get(top.as_str()) else {
            continue; // root test modules
        };
        if file.test_only {
            continue;
        }
        checked += 1;
        let text = strip(&std::fs::read_to_string(&file.path).unwrap());
        let toks = tokens(&text);
        // Inline modules open here: (module name, brace depth inside).
        let mut inline: Vec<(String, i32)> = Vec::new();
        let mut depth = 0i32;
        let mut i = 0;
        while i < toks.len() {
            if is_cfg_test(&toks, i) {
                i = item_end(&toks, i + 7);
                continue;
            }
            match &toks[i].0 {
                Tok::Punct('{') => depth += 1,
                Tok::Punct('}') => {
                    depth -= 1;
                    if inline.last().is_some_and(|(_, d)| *d > depth) {
                        inline.pop();
                    }
                }
                Tok::Ident(kw) if kw == "mod" => {
                    if let (Some((Tok::Ident(name), _)), Some((Tok::Punct('{'), _))) =
                        (toks.get(i + 1), toks.get(i + 2))
                    {
                        inline.push((name.clone(), depth + 1));
                    }
                }
                Tok::Ident(kw)
                    if (kw == "crate" || kw == "super")
                        && toks.get(i + 1).map(|t| &t.0) == Some(&Tok::Path)
                        && (i == 0 || toks[i - 1].0 != Tok::Punct('$'))
                        && (i == 0 || toks[i - 1].0 != Tok::Path || kw == "super") =>
                {
                    // The module the path starts from.
                    let mut module: Vec<String> = file.module.clone();
                    module.extend(inline.iter().map(|(n, _)| n.clone()));
                    let mut j = i;
                    if kw == "crate" {
                        module.clear();
                        j += 2;
                    } else {
                        while toks.get(j).map(|t| &t.0) == Some(&Tok::Ident("super".into()))
                            && toks.get(j + 1).map(|t| &t.0) == Some(&Tok::Path)
                        {
                            module.pop();
                            j += 2;
                        }
                    }
                    let mut heads = Vec::new();
                    if module.is_empty() {
                        tree_heads(&toks, j, &mut heads);
                    } else {
                        heads.push((module[0].clone(), toks[i].1));
                    }
                    for (head, line) in heads {
                        if head == "self" {
                            continue;
                        }
                        let Some(&layer) = roots.get(&head) else {
                            unknown.push(format!("{}:{line}: crate::{head}", file.path.display()));
                            continue;
                        };
                        let rel = file.path.strip_prefix(&src).unwrap().display().to_string();
                        if layer > own && !ALLOWED.contains(&(rel.as_str(), head.as_str())) {
                            offences.push(format!(
                                "{rel}:{line}: `{head}` (layer {layer}) from layer {own}"
                            ));
                        }
                    }
                    i = j;
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
    }
    assert!(
        checked > 50,
        "only {checked} files read: the walk is broken"
    );
    assert!(
        unknown.is_empty(),
        "crate-root names of no known layer (add them to ROOT_ITEMS):\n{}",
        unknown.join("\n")
    );
    assert!(
        offences.is_empty(),
        "imports into a later layer ({:?}):\n{}",
        layer_names(),
        offences.join("\n")
    );
}

#[test]
fn the_checker_sees_an_upward_import() {
    // The parts of the check on a made-up file: a path into a later
    // layer is seen, in a `use` tree and in an expression, and comments
    // and strings are not read.
    let text = strip(
        "use crate::{error::X, functions};\n// crate::host\nlet s = \"crate::api\";\nlet c = '{';\ncrate::mock::invoke();\n",
    );
    let toks = tokens(&text);
    let mut heads = Vec::new();
    for (i, (t, _)) in toks.iter().enumerate() {
        if *t == Tok::Ident("crate".into()) {
            tree_heads(&toks, i + 2, &mut heads);
        }
    }
    let names: Vec<&str> = heads.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["error", "functions", "mock"]);
    assert_eq!(heads[2].1, 5);
}
