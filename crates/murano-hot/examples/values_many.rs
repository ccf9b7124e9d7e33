//! Checks parameter values against templates' parameters: reads a JSON
//! list of `{"template": text, "values": [{name: value}, ...]}` and prints,
//! per template, per value set, `{"ok": {name: value}}` or `{"err":
//! [class, message]}`. Used to compare with Heat's own engine.

use murano_hot::{Limits, Template, Value};

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: values_many CASES.json");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let cases: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap_or_default();
    let limits = Limits::default();
    let mut out = Vec::new();
    for case in &cases {
        let t = Template::load(case["template"].as_str().unwrap_or(""), &limits);
        let mut results = Vec::new();
        for vals in case["values"].as_array().into_iter().flatten() {
            let params: Vec<(String, Value)> = vals
                .as_object()
                .map(|o| {
                    o.iter()
                        .map(|(k, v)| (k.clone(), Value::from_json(v)))
                        .collect()
                })
                .unwrap_or_default();
            let r = t
                .as_ref()
                .map_err(Clone::clone)
                .and_then(|t| t.parameter_values(&params));
            results.push(match r {
                Ok(v) => serde_json::json!({"ok": serde_json::Value::Object(
                    v.iter().map(|(k, v)| (k.clone(), v.to_json())).collect()
                )}),
                Err(e) => serde_json::json!({"err": [e.class.python_name(), e.message()]}),
            });
        }
        out.push(serde_json::Value::Array(results));
    }
    println!("{}", serde_json::Value::Array(out));
}
