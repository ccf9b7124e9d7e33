//! The `serde` feature: the model types serialize to JSON a tool can read.
//!
//! Run with `cargo test -p murano-dsl --features serde --test serde_model`.

#![cfg(feature = "serde")]

use murano_dsl::contract::ContractSpec;
use murano_dsl::model::ClassDefinition;
use murano_dsl::object_model::ObjectModel;
use murano_dsl::version::{parse_version, parse_version_spec, Version, VersionSpec, YamlScalar};
use murano_dsl::yaml::{load_class_file, load_single, Flavor, LoadOptions};
use serde_json::{json, Value};

const CLASS: &[u8] = br#"
Namespaces:
  =: com.example
  std: io.murano
Name: Demo
Extends: std:Application
Properties:
  port:
    Contract: $.int().notNull()
    Default: 80
Methods:
  deploy:
    Usage: Action
    Arguments:
      - force:
          Contract: $.bool()
    Body:
      - $.port: 8080
      - If: $.port > 1024
        Then:
          - Return: true
      - $.reporter.report($this, 'done')
"#;

fn class_json() -> Value {
    let file = load_class_file(CLASS, &LoadOptions::default()).unwrap();
    let classes = ClassDefinition::from_documents(&file.documents, None);
    assert_eq!(classes.len(), 1);
    serde_json::to_value(&classes[0]).unwrap()
}

#[test]
fn class_definition_serializes() {
    let class = class_json();
    assert_eq!(class["name"], "Demo");
    assert_eq!(class["full_name"], "com.example.Demo");
    assert_eq!(
        class["namespaces"],
        json!({"=": "com.example", "std": "io.murano"})
    );
    assert_eq!(class["usage"], "Class");
    assert_eq!(class["meta_class"], Value::Null);
    assert_eq!(class["extends"][0]["written"], "std:Application");
    assert_eq!(
        class["extends"][0]["resolved"],
        json!({"Ok": "io.murano.Application"})
    );
    assert_eq!(class["class_issues"], json!([]));
    assert_eq!(class["start"], json!({"index": 1, "line": 1, "column": 0}));

    let port = &class["properties"][0];
    assert_eq!(port["name"], "port");
    assert_eq!(port["usage"], "In");
    assert_eq!(
        port["contract"]["value"],
        json!({"Yaql": "$.int().notNull()"})
    );
    assert_eq!(port["default"]["value"], json!({"Int": 80}));
    assert_eq!(port["start"]["line"], 7);

    let deploy = &class["methods"][0];
    assert_eq!(deploy["name"], "deploy");
    assert_eq!(deploy["usage"], "Action");
    assert_eq!(deploy["scope"], "Public");
    assert_eq!(deploy["arguments"][0]["name"], "force");
    assert_eq!(deploy["arguments"][0]["usage"], "Standard");
    assert_eq!(deploy["issues"], json!([]));

    let body = deploy["body"].as_array().unwrap();
    assert_eq!(body.len(), 3);
    let assignment = &body[0]["kind"]["Assignment"];
    assert_eq!(assignment["target"]["expression"], "$.port");
    assert_eq!(assignment["target"]["root"], json!({"Variable": "$"}));
    assert_eq!(assignment["target"]["path"], json!([{"Attribute": "port"}]));
    assert_eq!(assignment["value"]["value"], json!({"Int": 8080}));
    let branch = &body[1]["kind"]["If"];
    assert_eq!(
        branch["condition"]["value"],
        json!({"Yaql": "$.port > 1024"})
    );
    assert_eq!(
        branch["then"][0]["kind"]["Return"]["value"],
        json!({"Bool": true})
    );
    assert_eq!(branch["otherwise"], Value::Null);
    // An expression statement is its text.
    assert_eq!(
        body[2]["kind"],
        json!({"Expression": "$.reporter.report($this, 'done')"})
    );
    assert_eq!(body[2]["start"]["line"], 21);
}

#[test]
fn versions_serialize_as_text_and_read_back() {
    let version = parse_version(&YamlScalar::Float(1.5)).unwrap();
    assert_eq!(serde_json::to_value(&version).unwrap(), json!("1.5.0"));
    let pre = Version::parse("2.0.0-rc.1+build.5").unwrap();
    assert_eq!(
        serde_json::to_string(&pre).unwrap(),
        r#""2.0.0-rc.1+build.5""#
    );
    let back: Version = serde_json::from_str(r#""2.0.0-rc.1+build.5""#).unwrap();
    assert_eq!(back, pre);
    assert!(serde_json::from_str::<Version>(r#""1.2""#).is_err());

    let spec = parse_version_spec(&YamlScalar::from("1")).unwrap();
    let text = serde_json::to_value(&spec).unwrap();
    assert_eq!(text, json!("<2.0.0,>=1.0.0"));
    let back: VersionSpec = serde_json::from_value(text).unwrap();
    assert_eq!(back.normalized(), spec.normalized());
    assert!(back.matches(&version));
    assert_eq!(
        serde_json::to_value(spec.items().unwrap()).unwrap(),
        json!(["<2.0.0", ">=1.0.0"])
    );
    assert_eq!(
        serde_json::to_value(YamlScalar::Int("12".into())).unwrap(),
        json!({"Int": "12"})
    );
}

#[test]
fn yaml_values_serialize() {
    let node = load_single(
        b"{when: 2015-01-02, at: 2001-12-14t21:59:43.10-05:00, big: 123456789012345678901234567890, \
          'quoted $': '$.x', expr: $.x + 1, set: !!set {a}}",
        Flavor::Engine,
        &LoadOptions::default(),
    )
    .unwrap()
    .unwrap();
    let value = serde_json::to_value(&node).unwrap();
    let entries = value["value"]["Map"].as_array().unwrap();
    let values: Vec<&Value> = entries.iter().map(|pair| &pair[1]["value"]).collect();
    assert_eq!(entries[0][0]["value"], json!({"Str": "when"}));
    assert_eq!(values[0], &json!({"Date": "2015-01-02"}));
    assert_eq!(
        values[1],
        &json!({"Timestamp": "2001-12-14T21:59:43.100000-05:00"})
    );
    assert_eq!(values[2], &json!({"Int": "123456789012345678901234567890"}));
    assert_eq!(values[3], &json!({"Str": "$.x"}));
    assert_eq!(values[4], &json!({"Yaql": "$.x + 1"}));
    assert_eq!(values[5]["Set"][0]["value"], json!({"Str": "a"}));
    assert_eq!(value["start"], json!({"index": 0, "line": 0, "column": 0}));
}

#[test]
fn contract_specs_serialize() {
    let spec = ContractSpec::parse_yaml("- $.int().check($ > 0)\n- 1\n- 3").unwrap();
    assert_eq!(
        serde_json::to_value(&spec).unwrap(),
        json!({"List": {
            "items": [
                {"Expression": {
                    "text": "$.int().check($ > 0)",
                    "chain": ["Int", {"Check": {"predicate": "$ > 0", "message": null}}],
                }},
                {"Scalar": 1},
                {"Scalar": 3},
            ],
            "min_length": 1,
            "max_length": 3,
        }})
    );
    let dict = ContractSpec::parse_yaml("{name: $.string(), 1: [a, 2.5], $.string(): $}").unwrap();
    assert_eq!(
        serde_json::to_value(&dict).unwrap(),
        json!({"Dict": {"entries": [
            [{"Fixed": "name"}, {"Expression": {"text": "$.string()", "chain": ["String"]}}],
            [{"Fixed": 1}, {"List": {
                "items": [{"Scalar": "a"}, {"Scalar": 2.5}],
                "min_length": 0,
                "max_length": null,
            }}],
            [{"Expression": {"text": "$.string()", "chain": ["String"]}},
             {"Expression": {"text": "$", "chain": []}}],
        ]}})
    );
    let other = ContractSpec::parse_yaml("$.int() or 5").unwrap();
    assert_eq!(
        serde_json::to_value(&other).unwrap(),
        json!({"Expression": {"text": "$.int() or 5", "chain": null}})
    );
}

#[test]
fn object_models_serialize_as_their_json() {
    let text = r#"{"Objects": {"?": {"id": "e1", "type": "io.murano.Environment"},
        "applications": [{"?": {"id": "a1", "type": "com.example.App/1.0@pkg"}, "port": 80},
                         {"?": {"id": "a1", "type": "com.example.App"}, "big": 123456789012345678901234567890}]},
        "Attributes": []}"#;
    let model = ObjectModel::from_json(text).unwrap();
    let value = serde_json::to_value(&model).unwrap();
    assert_eq!(value["kind"], "Deployment");
    let mut expected: Value = serde_json::from_str(&text.replace(
        "123456789012345678901234567890",
        "\"123456789012345678901234567890\"",
    ))
    .unwrap();
    assert_eq!(value["root"], expected);
    assert_eq!(
        value["diagnostics"],
        json!([{
            "code": "OM101",
            "severity": "Warning",
            "message": "duplicate object id \"a1\" (first at /Objects/applications/0)",
            "file": null,
            "start": null,
            "end": null,
            "subject": "/Objects/applications/1/?/id",
            "python_exception": null,
        }])
    );
    let app = model.object("a1").unwrap();
    assert_eq!(
        serde_json::to_value(app.object.system()).unwrap(),
        expected["Objects"]["applications"][0]["?"].take()
    );
    assert_eq!(
        serde_json::to_value(app.object.type_ref()).unwrap(),
        json!("com.example.App/1.0@pkg")
    );
    assert_eq!(
        serde_json::to_value(app.object.system().class_request()).unwrap(),
        json!({"name": "com.example.App", "version_spec": "<1.1.0,>=1.0.0", "package": "pkg"})
    );
}
