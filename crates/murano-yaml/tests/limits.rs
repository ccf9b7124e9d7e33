//! Hostile YAML: every limit of `LoadOptions` holds, and nothing panics,
//! overflows the stack or allocates without bound.

use murano_yaml::{load_class_file, load_manifest, load_ui_file, LoadOptions, YamlErrorClass};

fn class_of(bytes: &[u8], options: &LoadOptions) -> Option<YamlErrorClass> {
    load_class_file(bytes, options).err().map(|e| e.class())
}

/// Nine levels of nine aliases: 9^9 (387 million) values once expanded.
#[test]
fn billion_laughs_stop_at_the_node_budget() {
    let mut text = String::from("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for i in 1..10 {
        let refs = vec![format!("*a{}", i - 1); 9].join(", ");
        text.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
    }
    let started = std::time::Instant::now();
    assert_eq!(
        class_of(text.as_bytes(), &LoadOptions::default()),
        Some(YamlErrorClass::Limit)
    );
    assert!(started.elapsed().as_secs() < 10);
    assert!(load_ui_file(text.as_bytes(), &LoadOptions::default()).is_err());
    assert!(load_manifest(&text, &LoadOptions::default()).is_err());
}

#[test]
fn deep_flow_nesting_is_refused() {
    for depth in [300, 100_000] {
        let text = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
        assert_eq!(
            class_of(text.as_bytes(), &LoadOptions::default()),
            Some(YamlErrorClass::Limit),
            "{depth}"
        );
        let text = format!("{}1{}", "{a: ".repeat(depth), "}".repeat(depth));
        assert_eq!(
            class_of(text.as_bytes(), &LoadOptions::default()),
            Some(YamlErrorClass::Limit),
            "{depth}"
        );
    }
}

#[test]
fn deep_block_nesting_is_refused() {
    let mut text = String::new();
    for i in 0..2_000 {
        text.push_str(&" ".repeat(i));
        text.push_str("a:\n");
    }
    assert_eq!(
        class_of(text.as_bytes(), &LoadOptions::default()),
        Some(YamlErrorClass::Limit)
    );
    let text: String = (0..5_000)
        .map(|i| format!("{}- \n", " ".repeat(i * 2)))
        .collect();
    assert!(load_class_file(text.as_bytes(), &LoadOptions::default()).is_err());
}

#[test]
fn within_the_limits_loads() {
    let text = format!("{}1{}", "[".repeat(200), "]".repeat(200));
    assert!(load_class_file(text.as_bytes(), &LoadOptions::default()).is_ok());
}

#[test]
fn input_size_limit() {
    let options = LoadOptions::default().with_max_len(1024);
    let text = format!("a: {}\n", "x".repeat(2048));
    assert_eq!(
        class_of(text.as_bytes(), &options),
        Some(YamlErrorClass::Limit)
    );
}

#[test]
fn huge_scalars_load_within_the_size_limit() {
    let text = format!("a: {}\n", "x".repeat(4 << 20));
    let file = load_class_file(text.as_bytes(), &LoadOptions::default()).expect("4 MiB is allowed");
    assert_eq!(file.documents.len(), 1);
}

#[test]
fn arbitrary_bytes_never_panic() {
    // A deterministic walk over byte soup built from YAML's indicators.
    let pieces: [&[u8]; 16] = [
        b"- ", b": ", b"? ", b"&a ", b"*a ", b"!yaql ", b"[", b"]", b"{", b"}", b"'", b"\"",
        b"\n  ", b"#", b"\t", b"\xff",
    ];
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    for _ in 0..2_000 {
        let mut input = Vec::new();
        for _ in 0..24 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            input.extend_from_slice(pieces[(seed % 16) as usize]);
            input.extend_from_slice(b"x");
        }
        let _ = load_class_file(&input, &LoadOptions::default());
        let _ = load_ui_file(&input, &LoadOptions::default());
    }
}
