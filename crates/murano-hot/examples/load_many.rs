//! Loads each text of a JSON list as Heat's template loader would and
//! prints a JSON list of `{"ok": <data>}` or `{"err": [class, message]}`.
//! Used to compare with Heat's own loader.

use murano_hot::Limits;

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: load_many TEXTS.json");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let texts: Vec<String> = serde_json::from_str(&text).unwrap_or_default();
    let limits = Limits::default();
    let out: Vec<serde_json::Value> = texts
        .iter()
        .map(|t| match murano_hot::load::parse(t, &limits) {
            Ok(v) => serde_json::json!({"ok": v.to_json()}),
            Err(e) => serde_json::json!({"err": [e.class.python_name(), e.message()]}),
        })
        .collect();
    println!("{}", serde_json::Value::Array(out));
}
