//! Decoding the oracle's canonical JSON for YAML values: the packages
//! oracle records what Murano's YAML loader handed to a function as
//! plain JSON scalars, `{"$float": "nan"|"inf"|"-inf"}`, `{"$date": …}`
//! and `{"$datetime": iso}`.

use murano_dsl::version::YamlScalar;
use serde_json::Value;

/// A case's `input` as the YAML scalar Murano received.
///
/// ```
/// use murano_dsl::version::YamlScalar;
/// use murano_testkit::oracle::yaml_scalar;
///
/// let input = serde_json::json!({"$datetime": "2016-10-14T10:00:00"});
/// assert_eq!(yaml_scalar(&input), Ok(YamlScalar::Date("2016-10-14 10:00:00".into())));
/// assert!(yaml_scalar(&serde_json::json!([1])).is_err());
/// ```
pub fn yaml_scalar(input: &Value) -> Result<YamlScalar, String> {
    Ok(match input {
        Value::Null => YamlScalar::Null,
        Value::Bool(b) => YamlScalar::Bool(*b),
        Value::Number(n) if n.is_i64() || n.is_u64() => YamlScalar::Int(n.to_string()),
        Value::Number(n) => YamlScalar::Float(n.as_f64().ok_or("number out of range")?),
        Value::String(s) => YamlScalar::Str(s.clone()),
        Value::Object(map) => match map.iter().next() {
            Some((key, Value::String(text))) if map.len() == 1 => match key.as_str() {
                "$float" => YamlScalar::Float(match text.as_str() {
                    "nan" => f64::NAN,
                    "inf" => f64::INFINITY,
                    "-inf" => f64::NEG_INFINITY,
                    other => return Err(format!("unknown $float {other}")),
                }),
                "$date" => YamlScalar::Date(text.clone()),
                // Python's str() of a datetime puts a space between date
                // and time where isoformat() puts a `T`.
                "$datetime" => YamlScalar::Date(text.replacen('T', " ", 1)),
                other => return Err(format!("unsupported input encoding {other}")),
            },
            _ => return Err(format!("unsupported input {input}")),
        },
        Value::Array(_) => return Err(format!("unsupported input {input}")),
    })
}
