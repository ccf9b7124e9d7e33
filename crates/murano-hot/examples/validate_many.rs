//! Validates each template of a JSON list of template texts (as `heat
//! template-validate` with generic resources would) and prints a JSON list
//! of results: `null` when valid, else `[class, message, path]`. Used to
//! compare with Heat's own engine on ad-hoc templates.

use murano_hot::{Limits, Template};

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: validate_many TEMPLATES.json");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let texts: Vec<String> = serde_json::from_str(&text).unwrap_or_default();
    let limits = Limits::default();
    let out: Vec<serde_json::Value> = texts
        .iter()
        .map(|t| {
            let r = Template::load(t, &limits).and_then(|t| t.validate(&[]));
            match r {
                Ok(()) => serde_json::Value::Null,
                Err(e) => serde_json::json!([
                    e.class.python_name(),
                    e.message(),
                    if e.class == murano_hot::ErrorClass::StackValidationFailed {
                        serde_json::json!(e.path)
                    } else {
                        serde_json::Value::Null
                    }
                ]),
            }
        })
        .collect();
    println!("{}", serde_json::Value::Array(out));
}
