//! The plain fast path (`plain::load_plain`), each of its halves alone,
//! against the general loader (`load_single` with `Flavor::Plain`):
//! whenever a half builds a document, the general loader builds the same
//! one; on hand-written cases, on every YAML file of the shared data, and
//! on mutants of them.

use std::path::{Path, PathBuf};

use murano_testkit::plain_fast_path::{check, Built};
use murano_yaml::LoadOptions;

#[test]
fn hand_written_cases() {
    let options = LoadOptions::default();
    // Plain documents: the token builder takes each, and the line reader
    // each but those in `beyond_lines` (every result is also checked
    // against the general loader).
    let built = [
        "a: 1\nb: [x, 'y', \"z\"]\nc: {d: e, f}\n",
        "heat_template_version: 2013-05-23\nx: 2001-12-14t21:59:43.10-05:00\n",
        "a: 1\na: 2\nb: 3\n",
        "---\na: b\n...\n",
        "---\na: b\n",
        "---\n",
        "",
        "# only a comment\n",
        "- a\n-\n- - b\n  - c\n",
        "a:\n- 1\n- 2\nb:\n",
        "a: |\n  x\n   y\n\nb: >-\n  folded\n  text\n",
        "a: >\n  one\n  two\n\n  three\n    more\n  last\n",
        "a: |+\n  kept\n\n\nb: |-\n  cut\n\n",
        "- |\n x\n- >\n y\n",
        "a: |\n  no final break",
        "a: yes\nb: No\nc: ~\nd: 0x1F\ne: 1_000\nf: .inf\ng: 1:30\nh: 0o7\n",
        "a: plain\n  continued\n\n  more\n",
        "{a: [1, 2,], b: {}}",
        "a: b #c\n'q': \"\\u00e9\\n\"\n",
        "a: b #c\n'q': \"\\u00e9\\n\\x41\\\"\"\n",
        "a: [1,\n  2, # two\n  3]\nb: {c: d,\n e}\n",
        "- a: 1\n  b:\n    - x\n    -\n  c: 'it''s'\n- ~\n",
        "key with spaces  : value with:colon and a#hash #c\nurl: http://x:80/a#b\n",
        "  indented: root\n  again: 1\n",
        "a: \"caf\u{e9}\"\nb: \u{e9}t\u{e9}\n",
    ];
    let beyond_lines = ["---\na: b\n...\n", "a: plain\n  continued\n\n  more\n"];
    for text in built {
        let by = check(text, &options);
        assert!(by.tokens, "not built: {text:?}");
        assert!(
            by.lines || beyond_lines.contains(&text),
            "not read by lines: {text:?}"
        );
    }
    // Each of these either needs the general loader or builds the same.
    let others = [
        "a: b: c\n",
        "a:\n  b: 1\n c: 2\n",
        "[a: b]\n",
        "? [a]\n: b\n",
        "...\n",
        "a: 1\n---\nb: 2\n",
        "a: &x 1\nb: *x\n",
        "<<: {a: 1}\n",
        "=: 1\n",
        "1: a\n",
        "~: a\n",
        "a: !!str 1\n",
        "%YAML 1.1\n---\na: 1\n",
        "a:\t1\n",
        "a: 2001-02-30\n",
        "a: 2001-01-01\n  b\n",
        "key: [a, b\n",
        "- a\nb: c\n",
        "a: 'x\n",
        "{a: 1, a: 2}",
        "a: 0b102\n",
        "a: \u{1}\n",
        "\u{feff}a: 1\n",
        // Edges of the line reader: block scalars, lines going on,
        // markers, escapes, flow collections that span lines.
        "a: |\n  x\n b: 1\n",
        "a: |\n\n     \n  x\n",
        "a: |\n  x\n  \n  y\n",
        "a: >\n\n  x\n\n\n  y\n  \n",
        "a: |2\n   x\n",
        "a: |-  # c\n  x\n",
        "a: |x\n",
        "a: |",
        "a: >+\n",
        "- |\n- b\n",
        "a: [x, y]: z\n",
        "a: {x: y} # c\nb: 1\n",
        "a: {x: y}#c\n",
        "{a: b}\n# c\n",
        "'a'\n",
        "a\n",
        "a\nb\n",
        "a: b\n  c\n",
        "a: b\n# c\n  d: e\n",
        "a: 'x'y\n",
        "a: \"x\\\ny\"\n",
        "a: 'x\n  y'\n",
        "{a\n: b}\n",
        "[a\n, b]\n",
        "[a\n b]\n",
        "[a,\n---\n]\n",
        "a: -1\nb: - 1\n",
        "- - - a\n",
        "-\n  - a\n",
        "a: b:c\n",
        "a: b : c\n",
        "a:b\n",
        "a: ?b\n",
        ":a: 1\n",
        "-a: 1\n",
        "- -a\n",
        "--- a\n",
        "--- # c\na: 1\n",
        "----\n",
        "a: [b, c]x\n",
        "a: \"\\u00\"\n",
        "a: \"\\uD800\"\n",
        "a: \"\\q\"\n",
        "a: 1\n...\n",
        "a: x #c\n  #d\nb: 1\n",
        "a:\n  - x\n  b: 1\n",
        "- a: 1\n  - x\n",
        "a:\n- x\n  y\n",
        "  a: 1\nb: 2\n",
        "[-, a, -b, :c, ?d]\n",
        "{? a}\n",
        "{a: b: c}\n",
        "{\"a\":1, 'b':[2]}\n",
        "a: [b, {c: d}, [e]]\n",
        "a: \u{85}\n",
        "a: b\u{2028}c\n",
        "a: \u{7f}\n",
        "a: \r\n",
    ];
    for text in others {
        check(text, &options);
    }
}

#[test]
fn limits_leave_the_errors_to_the_general_loader() {
    let options = LoadOptions::default().with_max_depth(3).with_max_nodes(5);
    for text in [
        "a: [[[1]]]\n",
        "[1, 2, 3, 4, 5, 6]\n",
        "a:\n- [[x]]\n",
        "- - - - a\n",
    ] {
        assert_eq!(
            check(text, &options),
            Built {
                lines: false,
                tokens: false
            },
            "{text:?}"
        );
    }
    assert_eq!(
        check("[1, 2, 3]\n", &options),
        Built {
            lines: true,
            tokens: true
        }
    );
}

fn shared_root() -> Option<PathBuf> {
    let root = std::env::var_os("MURANO_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared"));
    root.is_dir().then_some(root)
}

fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            yaml_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
            out.push(path);
        }
    }
}

/// Every YAML file of the shared data, and a few mutants of each (a
/// character that matters to YAML inserted, deleted or replaced).
#[test]
fn shared_data_and_mutants() {
    let Some(root) = shared_root() else {
        eprintln!("no shared data: skipped");
        return;
    };
    let mut files = Vec::new();
    yaml_files(&root, &mut files);
    let options = LoadOptions::default();
    let (mut texts, mut built, mut lines, mut mutants, mut mutants_built, mut mutants_lines) =
        (0, 0, 0, 0, 0, 0);
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n.max(1) as u64) as usize
    };
    const MARKS: [&str; 22] = [
        ":", "-", " ", "\n", "[", "]", "{", "}", ",", "#", "?", "'", "\"", "  ", ": ", "- ", "|",
        ">", "|-", "\n\n", "\\", "---\n",
    ];
    for path in files {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        texts += 1;
        let b = check(&text, &options);
        built += usize::from(b.any());
        lines += usize::from(b.lines);
        for _ in 0..4 {
            let mut at = next(text.len() + 1);
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            let mut mutant = text.clone();
            match next(3) {
                0 => mutant.insert_str(at, MARKS[next(MARKS.len())]),
                1 => {
                    if let Some(c) = mutant[at..].chars().next() {
                        mutant.replace_range(at..at + c.len_utf8(), "");
                    }
                }
                _ => {
                    if let Some(c) = mutant[at..].chars().next() {
                        mutant.replace_range(at..at + c.len_utf8(), MARKS[next(MARKS.len())]);
                    }
                }
            }
            mutants += 1;
            let b = check(&mutant, &options);
            mutants_built += usize::from(b.any());
            mutants_lines += usize::from(b.lines);
        }
    }
    eprintln!(
        "plain fast path: {built}/{texts} files ({lines} by lines), \
         {mutants_built}/{mutants} mutants ({mutants_lines} by lines)"
    );
    assert!(texts > 0 && built > texts / 2, "{built}/{texts}");
    assert!(lines > texts / 2, "{lines}/{texts} by lines");
    assert!(mutants_built > 0 && mutants_lines > 0);
}
