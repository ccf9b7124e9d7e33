//! Property: the PyYAML-exact emitter and the PyYAML-compatible loader
//! agree. The emitter has no public entry point of its own; it is reached
//! the way Murano reaches it, through a Heat.HOT package: a generated tree
//! is the `default` of a template parameter, which the generated UI
//! definition copies as the field's `initial` value and `ui()` prints.
//!
//! For generated YAML-representable trees (mappings with scalar keys,
//! lists, tricky strings, integers of any size, floats, booleans, null,
//! dates and timestamps):
//!
//! 1. the emitted text loads (as the dashboard loads it: the text has
//!    `!yaql` scalars, which `Flavor::Plain` rejects as unknown tags; every
//!    other scalar is quoted or tagged, so no YAQL detection applies) and
//!    the `initial` value equals the generated tree, types included;
//! 2. emitting the loaded value again gives the same text.

use murano_packages::source::FileMap;
use murano_packages::PluginRegistry;
use murano_yaml::{load_single, Flavor, Int, LoadOptions, Node, Value};
use proptest::prelude::*;

/// A YAML-representable tree, as Python's `yaml.safe_load` builds it.
#[derive(Debug, Clone)]
enum Tree {
    Null,
    Bool(bool),
    /// Decimal digits with an optional `-` (any size).
    Int(String),
    Float(f64),
    Str(String),
    Date(u16, u8, u8),
    /// Date, hour, minute, second, microsecond, UTC offset in minutes.
    Stamp((u16, u8, u8), u8, u8, u8, u32, Option<i32>),
    Seq(Vec<Tree>),
    Map(Vec<(Tree, Tree)>),
}

/// Strings a YAML writer or reader can get wrong.
const TRICKY: &[&str] = &[
    "",
    "yes",
    "No",
    "on",
    "OFF",
    "y",
    "n",
    "true",
    "null",
    "~",
    "1.0",
    "1",
    "-1",
    "0x1F",
    "0o17",
    "017",
    "1_000",
    "1:20",
    "190:20:30",
    ".inf",
    "-.Inf",
    ".NaN",
    "1e3",
    "2001-12-14",
    "2001-12-14t21:59:43.10-05:00",
    ":",
    "a: b",
    "- x",
    "-",
    "?",
    "? x",
    "#",
    "a #b",
    "&a",
    "*a",
    "!yaql",
    "!!str",
    "%YAML",
    "@",
    "`",
    "'",
    "\"",
    "''",
    "\\",
    "\\n",
    "{}",
    "[]",
    "{a: 1}",
    "---",
    "...",
    " ",
    "  lead",
    "trail  ",
    "\t",
    "\n",
    "a\nb",
    "a\n\nb",
    "line\n",
    "\r\n",
    "\0",
    "\x07",
    "\x7f",
    "é",
    "日本語",
    "🎉",
    "\u{85}",
    "\u{a0}",
    "\u{2028}",
    "\u{2029}",
    "\u{feff}",
    "\u{fffd}",
    "$.name",
    "$.int().notNull()",
    "Hello-World",
];

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(TRICKY).prop_map(str::to_owned),
        3 => "[a-zA-Z0-9 :#'\"\\-]{0,12}",
        1 => any::<String>().prop_map(|s| s.chars().take(12).collect()),
        // Long enough to be folded (or, as a key, written as `? ` key).
        1 => prop::collection::vec("[a-z]{1,12}", 10..30).prop_map(|w| w.join(" ")),
        1 => prop::collection::vec("[a-z]{1,12}", 10..30).prop_map(|w| w.join("  ")),
        1 => "[a-z]{130,140}",
    ]
}

fn float() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(0.0),
        Just(-0.0),
        Just(1.0),
        Just(0.1),
        Just(1e16),
        Just(1e-5),
        Just(1.5e300),
        Just(f64::MAX),
        Just(f64::MIN_POSITIVE),
        Just(5e-324),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(f64::NAN),
        any::<f64>(),
        -1e9f64..1e9,
    ]
}

fn int() -> impl Strategy<Value = String> {
    prop_oneof![
        (-1000i64..1000).prop_map(|n| n.to_string()),
        any::<i64>().prop_map(|n| n.to_string()),
        Just(i64::MIN.to_string()),
        Just("9223372036854775808".to_owned()),
        Just("-9223372036854775809".to_owned()),
        "[1-9][0-9]{19,40}",
        "-[1-9][0-9]{19,40}",
    ]
}

fn date() -> impl Strategy<Value = (u16, u8, u8)> {
    (1u16..=9999, 1u8..=12, 1u8..=28)
}

fn scalar() -> impl Strategy<Value = Tree> {
    prop_oneof![
        1 => Just(Tree::Null),
        1 => any::<bool>().prop_map(Tree::Bool),
        2 => int().prop_map(Tree::Int),
        2 => float().prop_map(Tree::Float),
        6 => text().prop_map(Tree::Str),
        1 => date().prop_map(|(y, m, d)| Tree::Date(y, m, d)),
        1 => (
            date(),
            0u8..24,
            0u8..60,
            0u8..60,
            prop_oneof![Just(0u32), 0u32..1_000_000],
            prop_oneof![Just(None), (-56i32..=56).prop_map(|q| Some(q * 15))],
        )
            .prop_map(|(d, h, mi, s, us, tz)| Tree::Stamp(d, h, mi, s, us, tz)),
    ]
}

/// Keys: hashable scalars (no NaN, which is never equal to itself).
fn key() -> impl Strategy<Value = Tree> {
    prop_oneof![
        6 => text().prop_map(Tree::Str),
        1 => Just(Tree::Null),
        1 => any::<bool>().prop_map(Tree::Bool),
        2 => int().prop_map(Tree::Int),
        1 => float()
            .prop_filter("NaN keys", |x| !x.is_nan())
            .prop_map(Tree::Float),
    ]
}

/// Python's equality class of a key (`1`, `1.0` and `True` are one key).
fn key_class(key: &Tree) -> String {
    match key {
        Tree::Null => "None".into(),
        Tree::Bool(b) => format!("n:{}", u8::from(*b)),
        Tree::Int(digits) => format!("n:{digits}"),
        Tree::Float(x) if x.fract() == 0.0 && x.abs() < 1e300 => {
            format!("n:{}", *x as i128)
        }
        Tree::Float(x) => format!("f:{}", x.to_bits()),
        Tree::Str(s) => format!("s:{s}"),
        other => format!("{other:?}"),
    }
}

fn tree() -> impl Strategy<Value = Tree> {
    scalar().prop_recursive(4, 40, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Tree::Seq),
            prop::collection::vec((key(), inner), 0..6).prop_map(|pairs| {
                let mut seen = std::collections::HashSet::new();
                Tree::Map(
                    pairs
                        .into_iter()
                        .filter(|(k, _)| seen.insert(key_class(k)))
                        .collect(),
                )
            }),
        ]
    })
}

/// A float as a plain YAML 1.1 float scalar (which needs a `.`, and a sign
/// in the exponent, as Python's `repr` writes it).
fn float_scalar(x: f64) -> String {
    if x.is_nan() {
        return ".nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { ".inf" } else { "-.inf" }.into();
    }
    let text = murano_yaql::python_float_repr(x);
    if text.contains('.') {
        text
    } else if let Some(i) = text.find('e') {
        format!("{}.0{}", &text[..i], &text[i..])
    } else {
        format!("{text}.0")
    }
}

/// A double-quoted YAML scalar: printable ASCII as is, everything else
/// escaped.
fn quoted(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            ' '..='~' => out.push(c),
            c if (c as u32) <= 0xff => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if (c as u32) <= 0xffff => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    out.push('"');
    out
}

/// The tree in flow style, as input for the loader (not the emitter under
/// test).
fn flow(tree: &Tree) -> String {
    match tree {
        Tree::Null => "null".into(),
        Tree::Bool(b) => if *b { "true" } else { "false" }.into(),
        Tree::Int(digits) => digits.clone(),
        Tree::Float(x) => float_scalar(*x),
        Tree::Str(s) => quoted(s),
        Tree::Date(y, m, d) => format!("{y:04}-{m:02}-{d:02}"),
        Tree::Stamp((y, mo, d), h, mi, s, us, tz) => {
            let mut out = format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}");
            if *us != 0 {
                out.push_str(&format!(".{us:06}"));
            }
            if let Some(offset) = tz {
                let sign = if *offset < 0 { '-' } else { '+' };
                let a = offset.abs();
                out.push_str(&format!("{sign}{:02}:{:02}", a / 60, a % 60));
            }
            out
        }
        Tree::Seq(items) => format!(
            "[{}]",
            items.iter().map(flow).collect::<Vec<_>>().join(", ")
        ),
        Tree::Map(pairs) => format!(
            "{{{}}}",
            pairs
                .iter()
                .map(|(k, v)| format!("{}: {}", flow(k), flow(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

const MANIFEST: &str = "Format: Heat.HOT/1.0\nType: Application\n\
FullName: com.example.RoundTrip\nName: Round trip\nDescription: A property test.\n";

/// The UI text the HOT package prints with `tree` as the parameter's
/// default.
fn emit(tree: &Tree) -> Result<String, String> {
    let template = format!(
        "heat_template_version: 2015-04-30\nresources: {{}}\nparameters:\n  p:\n    type: string\n    default: {}\n",
        flow(tree)
    );
    let mut files = FileMap::new();
    files
        .insert("manifest.yaml", MANIFEST.as_bytes().to_vec())
        .map_err(|e| e.to_string())?;
    files
        .insert("template.yaml", template.clone().into_bytes())
        .map_err(|e| e.to_string())?;
    let package = PluginRegistry::with_builtins()
        .load(files)
        .map_err(|e| e.to_string())?;
    let ui = package
        .ui()
        .map_err(|e| format!("{e} (template {template:?})"))?
        .ok_or("no UI")?;
    String::from_utf8(ui).map_err(|e| e.to_string())
}

fn entry<'a>(node: &'a Node, key: &str) -> Result<&'a Node, String> {
    node.value
        .get(key)
        .ok_or_else(|| format!("no {key:?} in {:?}", node.value))
}

fn item(node: &Node, index: usize) -> Result<&Node, String> {
    match &node.value {
        Value::Seq(items) => items.get(index).ok_or_else(|| format!("no item {index}")),
        other => Err(format!("not a sequence: {other:?}")),
    }
}

/// The `initial` value of the parameter's field in the emitted UI text.
fn load_initial(text: &str) -> Result<Node, String> {
    let root = load_single(text.as_bytes(), Flavor::Dashboard, &LoadOptions::default())
        .map_err(|e| format!("the emitted text does not load: {e}"))?
        .ok_or("the emitted text is empty")?;
    let forms = entry(&root, "Forms")?;
    let group = entry(item(forms, 1)?, "group1")?;
    let field = item(entry(group, "fields")?, 0)?;
    Ok(entry(field, "initial")?.clone())
}

/// Strict equality of a loaded node and a tree: same types, same values,
/// mappings equal as Python dicts (order aside), NaN equal to NaN.
fn same(node: &Node, tree: &Tree) -> bool {
    match (&node.value, tree) {
        (Value::Null, Tree::Null) => true,
        (Value::Bool(a), Tree::Bool(b)) => a == b,
        (Value::Int(Int::Small(n)), Tree::Int(digits)) => n.to_string() == *digits,
        (Value::Int(Int::Big(a)), Tree::Int(digits)) => a == digits,
        (Value::Float(a), Tree::Float(b)) => a == b || (a.is_nan() && b.is_nan()),
        (Value::Str(a), Tree::Str(b)) => a == b,
        (Value::Date(d), Tree::Date(y, m, dd)) => (d.year, d.month, d.day) == (*y, *m, *dd),
        (Value::Timestamp(t), Tree::Stamp((y, mo, d), h, mi, s, us, tz)) => {
            (t.date.year, t.date.month, t.date.day) == (*y, *mo, *d)
                && (t.hour, t.minute, t.second, t.microsecond) == (*h, *mi, *s, *us)
                && t.offset_minutes == *tz
        }
        (Value::Seq(items), Tree::Seq(trees)) => {
            items.len() == trees.len() && items.iter().zip(trees).all(|(n, t)| same(n, t))
        }
        (Value::Map(pairs), Tree::Map(trees)) => {
            pairs.len() == trees.len()
                && trees
                    .iter()
                    .all(|(k, v)| pairs.iter().any(|(nk, nv)| same(nk, k) && same(nv, v)))
        }
        _ => false,
    }
}

/// A loaded node as a tree (for emitting it again).
fn to_tree(node: &Node) -> Result<Tree, String> {
    Ok(match &node.value {
        Value::Null => Tree::Null,
        Value::Bool(b) => Tree::Bool(*b),
        Value::Int(i) => Tree::Int(i.to_string()),
        Value::Float(x) => Tree::Float(*x),
        Value::Str(s) => Tree::Str(s.clone()),
        Value::Date(d) => Tree::Date(d.year, d.month, d.day),
        Value::Timestamp(t) => Tree::Stamp(
            (t.date.year, t.date.month, t.date.day),
            t.hour,
            t.minute,
            t.second,
            t.microsecond,
            t.offset_minutes,
        ),
        Value::Seq(items) => Tree::Seq(items.iter().map(to_tree).collect::<Result<_, _>>()?),
        Value::Map(pairs) => Tree::Map(
            pairs
                .iter()
                .map(|(k, v)| Ok((to_tree(k)?, to_tree(v)?)))
                .collect::<Result<_, String>>()?,
        ),
        other => return Err(format!("unexpected loaded value {other:?}")),
    })
}

/// The whole property for one tree.
fn round_trip(tree: &Tree) -> Result<(), String> {
    let first = emit(tree)?;
    let loaded = load_initial(&first).map_err(|e| format!("{e}\n--- text ---\n{first}"))?;
    if !same(&loaded, tree) {
        return Err(format!("loaded {:?}\n--- text ---\n{first}", loaded.value));
    }
    let second = emit(&to_tree(&loaded)?)?;
    if second != first {
        return Err(format!(
            "emitted differently the second time\n--- first ---\n{first}--- second ---\n{second}"
        ));
    }
    Ok(())
}

proptest! {
    #![proptest_config(murano_testkit::proptest_config(2000))]

    #[test]
    fn emitted_yaml_loads_back_and_emits_the_same(tree in tree()) {
        if let Err(e) = round_trip(&tree) {
            prop_assert!(false, "tree {:?}:\n{}", tree, e);
        }
    }
}

/// The tricky strings one by one, as values and as keys, and a few fixed
/// trees, so that each is seen whatever the generator picks.
#[test]
fn tricky_scalars_round_trip() {
    let mut trees: Vec<Tree> = TRICKY.iter().map(|s| Tree::Str((*s).to_owned())).collect();
    trees.push(Tree::Map(
        TRICKY
            .iter()
            .map(|s| (Tree::Str((*s).to_owned()), Tree::Str((*s).to_owned())))
            .collect(),
    ));
    trees.push(Tree::Map(vec![
        (Tree::Int("1".into()), Tree::Null),
        (Tree::Str("1".into()), Tree::Bool(false)),
        (Tree::Null, Tree::Float(f64::NAN)),
        (Tree::Float(2.5), Tree::Seq(vec![])),
        (Tree::Bool(false), Tree::Map(vec![])),
    ]));
    trees.push(Tree::Seq(vec![
        Tree::Float(1e16),
        Tree::Float(-0.0),
        Tree::Float(f64::NEG_INFINITY),
        Tree::Int("123456789012345678901234567890".into()),
        Tree::Date(2001, 12, 14),
        Tree::Stamp((2001, 12, 14), 21, 59, 43, 100_000, Some(-300)),
        Tree::Stamp((2001, 12, 14), 21, 59, 43, 0, None),
    ]));
    trees.push(Tree::Str(["word"; 40].join(" ")));
    trees.push(Tree::Map(vec![(
        Tree::Str("k".repeat(200)),
        Tree::Int("1".into()),
    )]));
    for tree in &trees {
        if let Err(e) = round_trip(tree) {
            panic!("tree {tree:?}:\n{e}");
        }
    }
    // The property compares with what was generated: a loaded `initial`
    // that dropped the value would not pass.
    let text = emit(&Tree::Str("yes".into())).expect("emits");
    assert!(text.contains("\"initial\": \"yes\""), "{text}");
}
