//! The forms server: the package and its catalog read on every page,
//! forms shown, posts cleaned and answered with the object model.

use std::collections::BTreeMap;
use std::path::PathBuf;

use murano_ui::host::{Entropy, SystemEntropy};
use serde_json::{Map, Value as Json};

use super::render::{render_form, render_result};
use crate::schema::load_catalog;
use crate::serve::html::{error_page, page};
use crate::serve::{App, Method, Reply, Request};
use murano_dashboard::schema_form::clean::{clean, Posted};
use murano_dashboard::schema_form::fields::defaults;

/// The forms server.
pub(super) struct FormsApp {
    pub(super) package: PathBuf,
    pub(super) class: String,
    pub(super) catalog: Vec<PathBuf>,
    /// What was typed, by form ("" for the class).
    pub(super) typed: BTreeMap<String, Posted>,
    pub(super) entropy: SystemEntropy,
}

struct Loaded {
    schemas: BTreeMap<String, Json>,
    package: String,
    version: String,
}

impl FormsApp {
    fn load(&self) -> Result<Loaded, Reply> {
        let mut ignore = |_: String| {};
        let (catalog, name) = load_catalog(&self.package, &self.catalog, &mut ignore)
            .map_err(|e| Reply::Html(500, error_page("The package does not load", &e)))?;
        let request = murano_schema::SchemaRequest::new(self.class.clone()).package(name.clone());
        let schemas = murano_schema::generate(&catalog, &request).map_err(|e| {
            Reply::Html(
                500,
                error_page(&format!("No form for {}", self.class), &e.to_string()),
            )
        })?;
        let version = crate::files::read_package_or_message(&self.package)
            .ok()
            .and_then(|l| {
                murano_packages::PluginRegistry::with_builtins()
                    .load(l.files)
                    .ok()
            })
            .map(|p| p.version().to_string())
            .unwrap_or_default();
        Ok(Loaded {
            schemas,
            package: name,
            version,
        })
    }

    fn show(&self, method: &str, errors: &[(String, String)]) -> Reply {
        let loaded = match self.load() {
            Ok(l) => l,
            Err(reply) => return reply,
        };
        let Some(schema) = loaded.schemas.get(method) else {
            return not_found();
        };
        let values = self
            .typed
            .get(method)
            .cloned()
            .unwrap_or_else(|| defaults(schema));
        let status = if errors.is_empty() { 200 } else { 422 };
        Reply::Html(
            status,
            render_form(&self.class, &loaded.schemas, method, &values, errors),
        )
    }

    fn submit(&mut self, method: &str, request: &Request) -> Reply {
        let loaded = match self.load() {
            Ok(l) => l,
            Err(reply) => return reply,
        };
        let Some(schema) = loaded.schemas.get(method) else {
            return not_found();
        };
        let mut posted = Posted::new();
        for (k, v) in &request.form {
            posted.entry(k.clone()).or_default().push(v.clone());
        }
        self.typed.insert(method.to_owned(), posted.clone());
        match clean(schema, &posted) {
            Err(errors) => self.show(method, &errors),
            Ok(values) => {
                let model = if method.is_empty() {
                    let mut model = Map::new();
                    model.insert(
                        "?".into(),
                        serde_json::json!({"type": self.class, "id": self.entropy.uuid4()}),
                    );
                    model.extend(values);
                    Json::Object(model)
                } else {
                    serde_json::json!({
                        "className": self.class,
                        "methodName": method,
                        "packageName": loaded.package,
                        "classVersion": if loaded.version.is_empty() { "*".to_owned() } else { loaded.version.clone() },
                        "parameters": Json::Object(values),
                    })
                };
                Reply::Html(200, render_result(&self.class, method, &model))
            }
        }
    }
}

fn not_found() -> Reply {
    Reply::Html(
        404,
        page(
            "Not found",
            "<h1>Not found</h1>\n<p><a href=\"/\">The form</a></p>\n",
        ),
    )
}

impl App for FormsApp {
    fn handle(&mut self, request: &Request) -> Reply {
        let method = if request.path == "/" {
            Some("")
        } else {
            request
                .path
                .strip_prefix("/method/")
                .filter(|m| !m.is_empty())
        };
        let Some(method) = method else {
            return not_found();
        };
        let method = crate::serve::url_decode(method);
        match request.method {
            Method::Get => self.show(&method, &[]),
            Method::Post => self.submit(&method, request),
            Method::Other => not_found(),
        }
    }
}
