//! Generates the schema of a small MuranoPL class and validates object
//! model data with it, using the `jsonschema` crate (draft 4, the
//! dialect the schemas declare). Murano's extra keys (`formSection`,
//! `formIndex`, `formSections`, `helpText`, `visible`) are ignored by
//! standard validators. Schemas with `class()` contracts use Murano's
//! own `muranoObject` type, which a standard validator does not know; the
//! class here has none.
//!
//! Run with `cargo run -p murano-schema --example validate`.

use murano_packages::{source::FileMap, PluginRegistry};
use murano_schema::{generate, CatalogBuilder, SchemaRequest};
use serde_json::json;

const CLASS: &str = "
Namespaces:
  =: com.example
  m: io.murano.metadata
  mf: io.murano.metadata.forms
Name: Server
Meta:
  - mf:Section: {name: general, title: General, index: 0}
Properties:
  name:
    Contract: $.string().notNull().check($.matches('^[a-z][a-z0-9-]*$'))
    Meta:
      - m:Title: {text: Server name}
      - mf:Position: {section: general, index: 0}
  port:
    Contract: $.int().notNull().check($ > 0 and $ < 65536)
    Default: 8080
  flavor:
    Contract: $.string().check($ in [small, medium, large])
  tags:
    Contract: [$.string().notNull()]
  limits:
    Contract:
      cpu: $.int()
      $.string(): $.int().notNull()
Methods:
  withDefaults:
    Usage: Static
    Scope: Public
    Meta: [m:ModelBuilder]
    Arguments:
      - size:
          Contract: $.int().notNull().check($ in [1, 2, 4])
";

const META: &[(&str, &str)] = &[
    ("Title", "Name: io.murano.metadata.Title\nUsage: Meta\nInherited: true\nProperties: {text: {Contract: $.string().notNull()}}"),
    ("ModelBuilder", "Name: io.murano.metadata.ModelBuilder\nUsage: Meta\nApplies: Method\nInherited: true\nProperties: {enabled: {Contract: $.bool().notNull(), Default: true}}"),
    ("Position", "Name: io.murano.metadata.forms.Position\nUsage: Meta\nApplies: [Property, Argument]\nInherited: true\nProperties: {index: {Contract: $.int(), Default: null}, section: {Contract: $.string(), Default: null}}"),
    ("Section", "Name: io.murano.metadata.forms.Section\nUsage: Meta\nCardinality: Many\nApplies: [Type, Method]\nInherited: true\nProperties: {name: {Contract: $.string().notNull()}, title: {Contract: $.string(), Default: $.name}, index: {Contract: $.int(), Default: null}}"),
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // A core library with the meta classes the schema uses, and the app.
    let mut core = FileMap::new();
    let mut manifest = String::from(
        "Format: MuranoPL/1.4\nFullName: io.murano\nType: Library\nClasses:\n  io.murano.Object: Object.yaml\n",
    );
    core.insert("Classes/Object.yaml", b"Name: io.murano.Object\n".to_vec())?;
    for (name, text) in META {
        let full = text
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("Name: "))
            .unwrap_or_default();
        manifest.push_str(&format!("  {full}: {name}.yaml\n"));
        core.insert(&format!("Classes/{name}.yaml"), text.as_bytes().to_vec())?;
    }
    core.insert("manifest.yaml", manifest.into_bytes())?;
    let mut app = FileMap::new();
    app.insert(
        "manifest.yaml",
        b"Format: MuranoPL/1.4\nFullName: com.example\nType: Application\nClasses:\n  com.example.Server: Server.yaml\n".to_vec(),
    )?;
    app.insert("Classes/Server.yaml", CLASS.as_bytes().to_vec())?;

    let plugins = PluginRegistry::with_builtins();
    let mut builder = CatalogBuilder::new();
    let skipped = builder.add_package(plugins.load(core)?.as_ref())?;
    assert!(skipped.is_empty(), "{skipped:?}");
    let skipped = builder.add_package(plugins.load(app)?.as_ref())?;
    assert!(skipped.is_empty(), "{skipped:?}");
    let catalog = builder.build();

    let schemas = generate(&catalog, &SchemaRequest::new("com.example.Server"))?;
    println!("{}", serde_json::to_string_pretty(&schemas)?);

    let class = jsonschema::draft4::new(&schemas[""])?;
    let good = json!({
        "name": "web-1", "port": 443, "flavor": "small",
        "tags": ["a", "b"], "limits": {"cpu": 2, "ram": 4096},
    });
    let bad = json!({
        "name": "Web 1", "port": 0, "flavor": "huge",
        "tags": [null], "limits": {"ram": "lots"}, "unknown": true,
    });
    assert!(class.is_valid(&good), "the good model must validate");
    assert!(!class.is_valid(&bad));
    println!("valid model accepted; invalid model rejected:");
    for error in class.iter_errors(&bad) {
        println!("  {}: {error}", error.instance_path);
    }

    let builder_schema = jsonschema::draft4::new(&schemas["withDefaults"])?;
    assert!(builder_schema.is_valid(&json!({"size": 2})));
    assert!(!builder_schema.is_valid(&json!({"size": 3})));
    println!("model builder arguments validated");
    Ok(())
}
