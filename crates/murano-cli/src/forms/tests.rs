//! The forms from schema to page and back.

use std::collections::BTreeMap;

use serde_json::{json, Value as Json};

use super::render::{render_form, render_result};
use murano_dashboard::schema_form::clean::{clean, parse_field, validate, Posted, MAX_JSON_DEPTH};
use murano_dashboard::schema_form::fields::{defaults, sections, Section};

fn schema() -> Json {
    json!({
        "type": "object",
        "properties": {
            "zeta": {"type": "string"},
            "alpha": {"type": ["string", "null"], "title": "Alpha"},
            "port": {"type": "integer", "minimum": 0, "exclusiveMinimum": true,
                     "maximum": 10, "exclusiveMaximum": false, "default": 8,
                     "formSection": "net", "formIndex": 2, "helpText": "The port"},
            "host": {"type": "string", "pattern": "^[a-z]+$", "formSection": "net",
                     "formIndex": 1, "description": "Host\nname"},
            "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]},
                     "default": ["b"], "formSection": "extra"},
            "names": {"type": "array", "items": {"type": "string"}},
            "flag": {"type": "boolean", "default": true},
            "secret": {"type": "string", "visible": false, "default": "s"},
            "obj": {"type": ["muranoObject", "null"], "muranoType": "a.B"},
            "ghost": {"type": "string", "formSection": "nowhere"},
        },
        "formSections": {
            "extra": {"title": "Extra", "index": 5},
            "net": {"title": "Network", "index": 1},
        },
    })
}

fn names(s: &Section) -> Vec<&str> {
    s.fields.iter().map(|f| f.name.as_str()).collect()
}

#[test]
fn fields_are_grouped_by_section_and_ordered_by_index() {
    let sections = sections(&schema());
    let titles: Vec<Option<&str>> = sections.iter().map(|s| s.title.as_deref()).collect();
    assert_eq!(titles, [None, Some("Network"), Some("Extra")]);
    // No position: by title (the name when there is none).
    assert_eq!(
        names(&sections[0]),
        ["alpha", "flag", "ghost", "names", "obj", "secret", "zeta"]
    );
    assert_eq!(names(&sections[1]), ["host", "port"]);
    assert_eq!(names(&sections[2]), ["tags"]);
}

fn posted(pairs: &[(&str, &str)]) -> Posted {
    let mut out = Posted::new();
    for (k, v) in pairs {
        out.entry((*k).to_owned())
            .or_default()
            .push((*v).to_owned());
    }
    out
}

#[test]
fn submitted_values_are_checked_against_the_schema() {
    let s = schema();
    let errors = clean(
        &s,
        &posted(&[
            ("port", "0"),
            ("host", "Bad"),
            ("zeta", ""),
            ("tags", "c"),
            ("obj", "[1"),
        ]),
    )
    .unwrap_err();
    let by_name: BTreeMap<&str, &str> = errors
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert_eq!(by_name["port"], "Ensure this value is greater than 0.");
    assert_eq!(by_name["host"], "Enter a value matching ^[a-z]+$.");
    assert_eq!(by_name["zeta"], "This field is required.");
    assert_eq!(
        by_name["tags"],
        "Item 1: Select a valid choice. c is not one of the available choices."
    );
    assert!(
        by_name["obj"].starts_with("Enter JSON: "),
        "{}",
        by_name["obj"]
    );
    assert_eq!(by_name["ghost"], "This field is required.");

    let values = clean(
        &s,
        &posted(&[
            ("port", "10"),
            ("host", "web"),
            ("zeta", "z"),
            ("ghost", "g"),
            ("tags", "a"),
            ("tags", "b"),
            ("names", "x\n\n y \n"),
            ("secret", "s"),
            ("obj", "{\"?\": {\"type\": \"a.B\"}}"),
        ]),
    )
    .unwrap();
    assert_eq!(
        Json::Object(values),
        json!({"alpha": null, "flag": false, "ghost": "g", "names": ["x", "y"],
               "obj": {"?": {"type": "a.B"}}, "secret": "s", "zeta": "z",
               "host": "web", "port": 10, "tags": ["a", "b"]})
    );
    let errors = clean(&s, &posted(&[("port", "x")])).unwrap_err();
    assert!(
        errors.contains(&("port".to_owned(), "Enter a whole number.".to_owned())),
        "{errors:?}"
    );
}

#[test]
fn validation_is_bounded_in_depth() {
    let mut deep = json!(1);
    for _ in 0..(MAX_JSON_DEPTH + 2) {
        deep = json!([deep]);
    }
    let nested = json!({"type": "array", "items": {"type": "array"}});
    assert!(validate(&deep, &nested, 0).is_ok());
    let mut schema = json!({"type": "array"});
    for _ in 0..(MAX_JSON_DEPTH + 2) {
        schema = json!({"type": "array", "items": schema});
    }
    assert!(validate(&deep, &schema, 0)
        .unwrap_err()
        .contains("Nested deeper"));
    let text = format!(
        "{}1{}",
        "[".repeat(MAX_JSON_DEPTH + 1),
        "]".repeat(MAX_JSON_DEPTH + 1)
    );
    let any = json!({});
    assert!(parse_field(&[text], &any)
        .unwrap_err()
        .contains("Nested deeper"));
}

#[test]
fn a_form_renders_with_sections_defaults_and_errors() {
    let s = schema();
    let mut schemas = BTreeMap::new();
    schemas.insert(String::new(), s.clone());
    schemas.insert(
        "build".to_owned(),
        json!({"type": "object", "properties": {}, "title": "Builder"}),
    );
    let errors = vec![(
        "port".to_owned(),
        "Ensure this value is greater than 0.".to_owned(),
    )];
    let html = render_form("com.example.App", &schemas, "", &defaults(&s), &errors);
    insta::assert_snapshot!("forms_class_form", html);
    let result = render_result("com.example.App", "build", &json!({"methodName": "build"}));
    assert!(
        result.contains("The call of the model builder build"),
        "{result}"
    );
    assert!(result.contains("href=\"/method/build\""), "{result}");
}
