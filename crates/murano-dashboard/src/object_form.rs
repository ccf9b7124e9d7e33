//! Applications without a Dynamic UI definition, added and edited
//! through the MuranoPL form of their class (the MuranoPL forms design):
//! the class's JSON schema (the API's `GET /schemas/{class}`) as fields;
//! a `muranoObject` property as a choice among the catalog's classes that
//! inherit its `muranoType` (and, unless it is `owned`, the environment's
//! existing objects of that type), the chosen class's form nested below
//! it (the page is posted back to show it: no script needed); the class's
//! model builders with their argument forms, run by the engine as static
//! actions, their returned model filled back into the form.
//!
//! Field names are paths: a nested object's fields are prefixed with its
//! property's name and a dot (`store.path`), its chosen class is the
//! property's own value (`new:<class>` or `ref:<object id>`) and its id
//! rides along as `<property>.?id`; a builder's arguments are prefixed
//! with `@<builder>.`.

use std::collections::BTreeMap;

use murano_api::engine_catalog::EngineCatalog;
use murano_api::handlers::{actions, schemas, services};
use murano_api::App;
use serde_json::{json, Map, Value as Json};

use crate::calls::{api_req, existing_session, json_of, message, open_session, package_row};
use crate::catalog::{archive_version, text};
use crate::html::{error_page, escape, page, url_encode, Section};
use crate::schema_form::clean::{parse_field, validate, Posted};
use crate::schema_form::fields::{nullable, sections, shown, types_of, widget, FormField, Widget};
use crate::{Dashboard, Page, PageRequest};

/// How deep objects may nest in one form (deeper ones are refused).
pub const MAX_NESTING: usize = 8;

/// A class of the catalog and the names of all its ancestors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassInfo {
    /// The class's full name.
    pub name: String,
    /// Its ancestors' names, nearest first (unresolved ones as written).
    pub ancestors: Vec<String>,
}

impl ClassInfo {
    /// Whether the class is `type_name` or inherits it.
    pub fn is_a(&self, type_name: &str) -> bool {
        self.name == type_name || self.ancestors.iter().any(|a| a == type_name)
    }
}

/// The classes a tenant's catalog holds, for `muranoObject` choices.
pub trait ClassCatalog: Send + Sync {
    /// Every class tenant `tenant` may use, with its ancestors.
    fn classes(&self, app: &App, tenant: Option<&str>) -> Result<Vec<ClassInfo>, String>;
}

/// The classes of the store's packages (the tenant's and public ones),
/// linked as the schema generator links them.
#[derive(Debug, Default)]
pub struct StoreClasses(EngineCatalog);

impl ClassCatalog for StoreClasses {
    fn classes(&self, app: &App, tenant: Option<&str>) -> Result<Vec<ClassInfo>, String> {
        let catalog = self.0.schema_catalog(&self.0.for_tenant(app, tenant)?);
        let registry = catalog.registry();
        let limit = registry.class_count() + 1;
        let mut out = Vec::new();
        for class in registry.classes() {
            let Some(name) = registry.class_name(class) else {
                continue;
            };
            let mut ancestors: Vec<String> = Vec::new();
            let mut queue = vec![class];
            // Bounded: each class is expanded at most once.
            let mut expanded = 0;
            while let Some(c) = queue.pop() {
                expanded += 1;
                if expanded > limit {
                    break;
                }
                for link in registry.parent_links(c) {
                    match &link.target {
                        Ok(p) => {
                            if let Some(n) = registry.class_name(*p) {
                                if !ancestors.iter().any(|a| a == n) {
                                    ancestors.push(n.to_owned());
                                    queue.push(*p);
                                }
                            }
                        }
                        Err(_) => {
                            if let Some(w) = &link.written {
                                if !ancestors.contains(w) {
                                    ancestors.push(w.clone());
                                }
                            }
                        }
                    }
                }
            }
            out.push(ClassInfo {
                name: name.to_owned(),
                ancestors,
            });
        }
        Ok(out)
    }
}

/// An object of the environment a not-owned property may point at.
#[derive(Debug, Clone)]
struct Existing {
    id: String,
    type_name: String,
    label: String,
}

/// Where the form posts and what it makes.
#[derive(Debug, Clone)]
enum Target {
    /// A new application from package `pid`.
    Add { pid: String },
    /// Application `aid` of the environment, edited.
    Edit { aid: String },
}

/// Everything one form page works with.
struct Form<'a> {
    d: &'a Dashboard,
    req: &'a PageRequest,
    eid: &'a str,
    target: Target,
    /// The application's class and its package (name, version).
    class: String,
    package: String,
    version: String,
    classes: Vec<ClassInfo>,
    existing: Vec<Existing>,
    /// The edited application's `?` (kept on save, with its name).
    header: Option<Json>,
    /// Schema maps by class, fetched once per page.
    schemas: std::cell::RefCell<BTreeMap<String, Json>>,
}

pub(crate) fn fail(status: u16, title: &str, m: &str) -> Page {
    Page::Html(status, error_page(title, Section::Environments, m))
}

impl<'a> Form<'a> {
    fn new(
        d: &'a Dashboard,
        req: &'a PageRequest,
        eid: &'a str,
        target: Target,
        class: String,
        package: String,
        version: String,
    ) -> Result<Form<'a>, Page> {
        {
            let db = d.app.db();
            let r = api_req(&req.ctx, None, &[], None);
            murano_api::handlers::check_env(&db, &r, eid)
                .map_err(|e| fail(e.status, "No such environment", &message(&e)))?;
        }
        let classes = d
            .classes
            .classes(&d.app, req.ctx.tenant.as_deref())
            .map_err(|e| fail(500, "The catalog does not load", &e))?;
        let sid = existing_session(&d.app, &req.ctx, eid).ok().flatten();
        let list = json_of(services::get(
            &d.app,
            &api_req(&req.ctx, sid.as_deref(), &[], None),
            eid,
            None,
        ))
        .unwrap_or(Json::Null);
        let existing = list
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|s| {
                        let name = match text(&s["?"]["name"]) {
                            n if n.is_empty() => text(&s["name"]),
                            n => n,
                        };
                        Existing {
                            id: text(&s["?"]["id"]),
                            type_name: split_type(&text(&s["?"]["type"])).0.to_owned(),
                            label: format!("{name} ({})", text(&s["?"]["type"])),
                        }
                    })
                    .collect()
            })
            .unwrap_or_default();
        Ok(Form {
            d,
            req,
            eid,
            target,
            class,
            package,
            version,
            classes,
            existing,
            header: None,
            schemas: std::cell::RefCell::new(BTreeMap::new()),
        })
    }

    /// The schema map of `class` (`""` for the class, one per builder).
    fn schema_map(&self, class: &str) -> Result<Json, String> {
        if let Some(s) = self.schemas.borrow().get(class) {
            return Ok(s.clone());
        }
        let s = json_of(schemas::get_schema(
            &self.d.app,
            &api_req(&self.req.ctx, None, &[], None),
            class,
            None,
        ))
        .map_err(|e| format!("no form for {class}: {}", message(&e)))?;
        self.schemas
            .borrow_mut()
            .insert(class.to_owned(), s.clone());
        Ok(s)
    }

    fn class_schema(&self, class: &str) -> Result<Json, String> {
        Ok(self
            .schema_map(class)?
            .get("")
            .cloned()
            .unwrap_or(Json::Null))
    }

    /// The catalog's classes that are `type_name` or inherit it.
    fn inheritors(&self, type_name: &str) -> Vec<&str> {
        let mut v: Vec<&str> = self
            .classes
            .iter()
            .filter(|c| c.is_a(type_name))
            .map(|c| c.name.as_str())
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    fn is_a(&self, class: &str, type_name: &str) -> bool {
        self.classes
            .iter()
            .any(|c| c.name == class && c.is_a(type_name))
    }

    /// The choices of a `muranoObject` field: (value, label).
    fn object_choices(&self, schema: &Json) -> Vec<(String, String)> {
        let t = schema
            .get("muranoType")
            .and_then(Json::as_str)
            .unwrap_or("");
        let mut out: Vec<(String, String)> = self
            .inheritors(t)
            .into_iter()
            .map(|c| (format!("new:{c}"), format!("New {c}")))
            .collect();
        if schema.get("owned") != Some(&Json::Bool(true)) {
            for e in &self.existing {
                if self.is_a(&e.type_name, t) {
                    out.push((format!("ref:{}", e.id), format!("Existing: {}", e.label)));
                }
            }
        }
        out
    }

    /// The value a `muranoObject` field shows: the posted one, else the
    /// first choice when it is required.
    fn chosen(&self, f: &FormField, full: &str, posted: &Posted) -> String {
        if let Some(v) = posted.get(full).and_then(|v| v.first()) {
            return v.clone();
        }
        if nullable(&f.schema) {
            return String::new();
        }
        self.object_choices(&f.schema)
            .into_iter()
            .next()
            .map(|(v, _)| v)
            .unwrap_or_default()
    }

    /// The fields of `schema` with names under `prefix`.
    fn render_fields(
        &self,
        schema: &Json,
        prefix: &str,
        posted: &Posted,
        errors: &[(String, String)],
        depth: usize,
        out: &mut String,
    ) {
        if depth > MAX_NESTING {
            out.push_str(
                "<p class=\"alert\" role=\"alert\">Objects nest too deeply to show.</p>\n",
            );
            return;
        }
        for section in sections(schema) {
            if let Some(t) = &section.title {
                out.push_str(&format!("<fieldset><legend>{}</legend>\n", escape(t)));
            }
            for f in &section.fields {
                let full = format!("{prefix}{}", f.name);
                let error = errors
                    .iter()
                    .find(|(n, _)| *n == full)
                    .map(|(_, m)| m.as_str());
                if is_object(&f.schema) {
                    self.render_object(f, &full, posted, errors, error, depth, out);
                } else {
                    let values = posted.get(&full).cloned().unwrap_or_default();
                    out.push_str(&render_scalar(f, &full, &values, error));
                }
            }
            if section.title.is_some() {
                out.push_str("</fieldset>\n");
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn render_object(
        &self,
        f: &FormField,
        full: &str,
        posted: &Posted,
        errors: &[(String, String)],
        error: Option<&str>,
        depth: usize,
        out: &mut String,
    ) {
        let id = escape(&format!("id_{full}"));
        let name = escape(full);
        let chosen = self.chosen(f, full, posted);
        let described = if error.is_some() {
            format!(" aria-describedby=\"err_{name}\" aria-invalid=\"true\"")
        } else {
            String::new()
        };
        out.push_str(&format!(
            "<div class=\"field object{}\" data-field=\"{name}\">\n<label for=\"{id}\">{}{}</label>\n",
            if error.is_some() { " error" } else { "" },
            escape(&f.title),
            if nullable(&f.schema) { "" } else { "<span class=\"required\" aria-hidden=\"true\">*</span>" },
        ));
        if let Some(d) = f.schema.get("description").and_then(Json::as_str) {
            out.push_str(&format!("<p class=\"help\">{}</p>\n", escape(d)));
        }
        if let Some(m) = error {
            out.push_str(&format!(
                "<ul class=\"errors\" id=\"err_{name}\"><li>{}</li></ul>\n",
                escape(m)
            ));
        }
        out.push_str(&format!(
            "<select name=\"{name}\" id=\"{id}\"{described}>\n"
        ));
        if nullable(&f.schema) {
            out.push_str("<option value=\"\">(none)</option>\n");
        }
        for (v, label) in self.object_choices(&f.schema) {
            let sel = if v == chosen { " selected" } else { "" };
            out.push_str(&format!(
                "<option value=\"{}\"{sel}>{}</option>\n",
                escape(&v),
                escape(&label)
            ));
        }
        out.push_str(&format!(
            "</select>\n<button type=\"submit\" name=\"__do\" value=\"refresh\" class=\"choose\" \
             aria-label=\"Show the form of the class chosen for {}\">Show its form</button>\n",
            escape(&f.title)
        ));
        if let Some(class) = chosen.strip_prefix("new:") {
            let oid = format!("{full}.?id");
            let ckey = format!("{full}.?class");
            // Were the nested fields posted for this class (else: just chosen)?
            let same = posted
                .get(&ckey)
                .and_then(|v| v.first())
                .map(String::as_str)
                == Some(class);
            out.push_str(&format!(
                "<input type=\"hidden\" name=\"{}\" value=\"{}\">\n",
                escape(&ckey),
                escape(class)
            ));
            if let Some(v) = posted.get(&oid).and_then(|v| v.first()).filter(|_| same) {
                out.push_str(&format!(
                    "<input type=\"hidden\" name=\"{}\" value=\"{}\">\n",
                    escape(&oid),
                    escape(v)
                ));
            }
            out.push_str(&format!(
                "<fieldset class=\"nested\" data-class=\"{}\"><legend>{}</legend>\n",
                escape(class),
                escape(class)
            ));
            let nested = format!("{full}.");
            match self.class_schema(class) {
                // A class just chosen shows its defaults.
                Ok(s) if !same => {
                    let mut with = posted.clone();
                    with.retain(|k, _| !k.starts_with(&nested));
                    self.defaults(&s, &nested, &mut with);
                    self.render_fields(&s, &nested, &with, errors, depth + 1, out)
                }
                Ok(s) => self.render_fields(&s, &nested, posted, errors, depth + 1, out),
                Err(m) => out.push_str(&format!("<p class=\"alert\">{}</p>\n", escape(&m))),
            }
            out.push_str("</fieldset>\n");
        }
        out.push_str("</div>\n");
    }

    /// The values of `schema`'s fields under `prefix` as an object model's
    /// properties; problems go to `errors` by field name.
    fn collect(
        &self,
        schema: &Json,
        prefix: &str,
        posted: &Posted,
        errors: &mut Vec<(String, String)>,
        depth: usize,
    ) -> Map<String, Json> {
        let mut values = Map::new();
        if depth > MAX_NESTING {
            errors.push((prefix.to_owned(), "Objects nest too deeply.".into()));
            return values;
        }
        for section in sections(schema) {
            for f in section.fields {
                let full = format!("{prefix}{}", f.name);
                let value = if is_object(&f.schema) {
                    self.collect_object(&f, &full, posted, errors, depth)
                } else {
                    let raw = posted.get(&full).cloned().unwrap_or_default();
                    match parse_field(&raw, &f.schema)
                        .and_then(|v| validate(&v, &f.schema, 0).map(|()| v))
                    {
                        Ok(v) => v,
                        Err(e) => {
                            errors.push((full, e));
                            continue;
                        }
                    }
                };
                values.insert(f.name.clone(), value);
            }
        }
        values
    }

    fn collect_object(
        &self,
        f: &FormField,
        full: &str,
        posted: &Posted,
        errors: &mut Vec<(String, String)>,
        depth: usize,
    ) -> Json {
        let chosen = self.chosen(f, full, posted);
        let allowed = self.object_choices(&f.schema);
        if chosen.is_empty() {
            if !nullable(&f.schema) {
                errors.push((full.to_owned(), "This field is required.".into()));
            }
            return Json::Null;
        }
        if !allowed.iter().any(|(v, _)| *v == chosen) {
            errors.push((full.to_owned(), "Select a valid choice.".into()));
            return Json::Null;
        }
        if let Some(id) = chosen.strip_prefix("ref:") {
            return Json::String(id.to_owned());
        }
        let class = chosen.strip_prefix("new:").unwrap_or("");
        let schema = match self.class_schema(class) {
            Ok(s) => s,
            Err(m) => {
                errors.push((full.to_owned(), m));
                return Json::Null;
            }
        };
        // An id belongs to the class it was posted for.
        let was = posted
            .get(&format!("{full}.?class"))
            .and_then(|v| v.first());
        let id = posted
            .get(&format!("{full}.?id"))
            .filter(|_| was.is_none_or(|w| w == class))
            .and_then(|v| v.first())
            .filter(|v| !v.is_empty())
            .cloned()
            .unwrap_or_else(murano_api::clock::new_uuid);
        let mut model = Map::new();
        model.insert("?".into(), json!({"type": class, "id": id}));
        model.extend(self.collect(&schema, &format!("{full}."), posted, errors, depth + 1));
        Json::Object(model)
    }

    /// The posted form of an object model's values (the reverse of
    /// [`Form::collect`]).
    fn fill(&self, schema: &Json, prefix: &str, model: &Json, posted: &mut Posted, depth: usize) {
        if depth > MAX_NESTING {
            return;
        }
        for section in sections(schema) {
            for f in section.fields {
                let full = format!("{prefix}{}", f.name);
                let v = model.get(&f.name).unwrap_or(&Json::Null);
                if is_object(&f.schema) {
                    match v {
                        Json::Object(_) => {
                            let class = split_type(&text(&v["?"]["type"])).0.to_owned();
                            posted.insert(full.clone(), vec![format!("new:{class}")]);
                            posted.insert(format!("{full}.?id"), vec![text(&v["?"]["id"])]);
                            posted.insert(format!("{full}.?class"), vec![class.clone()]);
                            if let Ok(s) = self.class_schema(&class) {
                                self.fill(&s, &format!("{full}."), v, posted, depth + 1);
                            }
                        }
                        Json::String(id) => {
                            posted.insert(full, vec![format!("ref:{id}")]);
                        }
                        _ => {
                            posted.insert(full, vec![String::new()]);
                        }
                    }
                    continue;
                }
                let w = widget(&f.schema);
                let values = match (w, v) {
                    (Widget::MultiSelect, Json::Array(items)) => {
                        items.iter().map(|i| shown(i, Widget::Text)).collect()
                    }
                    _ => vec![shown(v, w)],
                };
                posted.insert(full, values);
            }
        }
    }

    /// The defaults of a schema's fields (nested objects' too, once chosen).
    fn defaults(&self, schema: &Json, prefix: &str, posted: &mut Posted) {
        for (name, values) in crate::schema_form::fields::defaults(schema) {
            posted.insert(format!("{prefix}{name}"), values);
        }
    }

    fn action(&self) -> String {
        match &self.target {
            Target::Add { pid } => format!(
                "/environments/{}/form/{}?class={}",
                url_encode(self.eid),
                url_encode(pid),
                url_encode(&self.class)
            ),
            Target::Edit { aid } => format!(
                "/environments/{}/apps/{}/form",
                url_encode(self.eid),
                url_encode(aid)
            ),
        }
    }

    /// The whole page; `result` is a builder's returned model to show.
    fn render(
        &self,
        posted: &Posted,
        errors: &[(String, String)],
        result: Option<&Json>,
    ) -> Result<String, String> {
        let map = self.schema_map(&self.class)?;
        let schema = map.get("").cloned().unwrap_or(Json::Null);
        let editing = matches!(self.target, Target::Edit { .. });
        let mut body = format!(
            "<p><a href=\"/environments/{}\">Back to the environment</a></p>\n<h1>{} {}</h1>\n\
             <p class=\"muted\">The form of <code>{}</code>, generated from its class.</p>\n",
            url_encode(self.eid),
            if editing { "Edit" } else { "Add" },
            escape(
                schema
                    .get("title")
                    .and_then(Json::as_str)
                    .unwrap_or(&self.class)
            ),
            escape(&self.class),
        );
        if !errors.is_empty() {
            body.push_str("<div class=\"alert\" role=\"alert\" id=\"error\"><p>Some values are not valid: see the fields marked below.</p></div>\n");
        }
        if let Some(r) = result {
            body.push_str(&format!(
                "<div class=\"notice\" role=\"status\"><p>The model builder returned this model; it fills the form below.</p>\
                 <pre id=\"built-model\" tabindex=\"0\">{}</pre></div>\n",
                escape(&serde_json::to_string_pretty(r).unwrap_or_default())
            ));
        }
        body.push_str(&format!(
            "<form method=\"post\" action=\"{}\" novalidate id=\"object-form\">\n",
            self.action()
        ));
        if let Some(v) = posted.get("?id").and_then(|v| v.first()) {
            body.push_str(&format!(
                "<input type=\"hidden\" name=\"?id\" value=\"{}\">\n",
                escape(v)
            ));
        }
        self.render_fields(&schema, "", posted, errors, 0, &mut body);
        body.push_str(&format!(
            "<div class=\"buttons\"><button type=\"submit\" name=\"__do\" value=\"save\" class=\"primary\" id=\"save\">{}</button></div>\n",
            if editing { "Save" } else { "Add to the environment" }
        ));
        let builders: Vec<(&String, &Json)> = map
            .as_object()
            .map(|m| m.iter().filter(|(k, _)| !k.is_empty()).collect())
            .unwrap_or_default();
        if !builders.is_empty() {
            body.push_str("<h2 id=\"builders\">Model builders</h2>\n<p class=\"muted\">A model builder fills the form above from a few values (it is given the model as the form has it now).</p>\n");
        }
        for (name, bschema) in builders {
            body.push_str(&format!(
                "<fieldset class=\"builder\" data-builder=\"{}\"><legend>{}</legend>\n",
                escape(name),
                escape(bschema.get("title").and_then(Json::as_str).unwrap_or(name))
            ));
            self.render_fields(
                &builder_arguments(bschema),
                &format!("@{name}."),
                posted,
                errors,
                0,
                &mut body,
            );
            body.push_str(&format!(
                "<button type=\"submit\" name=\"__do\" value=\"build:{}\" id=\"run_{}\">Run {}</button>\n</fieldset>\n",
                escape(name),
                escape(name),
                escape(name)
            ));
        }
        body.push_str("</form>\n");
        Ok(page(
            &format!("{} {}", if editing { "Edit" } else { "Add" }, self.class),
            Section::Environments,
            &body,
        ))
    }

    /// The page with `posted` shown (a re-render, or errors).
    fn show(
        &self,
        status: u16,
        posted: &Posted,
        errors: &[(String, String)],
        result: Option<&Json>,
    ) -> Page {
        match self.render(posted, errors, result) {
            Ok(h) => Page::Html(status, h),
            Err(m) => fail(404, "No form for this application", &m),
        }
    }

    /// A post: re-render, save, or run a model builder.
    fn post(&self) -> Page {
        let mut posted = Posted::new();
        for (k, v) in &self.req.form {
            if k != "__do" {
                posted.entry(k.clone()).or_default().push(v.clone());
            }
        }
        let schema = match self.class_schema(&self.class) {
            Ok(s) => s,
            Err(m) => return fail(404, "No form for this application", &m),
        };
        match self.req.field("__do").unwrap_or("save") {
            "refresh" => self.show(200, &posted, &[], None),
            d if d.starts_with("build:") => self.build(&d["build:".len()..], &schema, posted),
            _ => {
                let mut errors = Vec::new();
                let model = self.model(&schema, &posted, &mut errors);
                if !errors.is_empty() {
                    return self.show(422, &posted, &errors, None);
                }
                self.save(&model)
            }
        }
    }

    /// The application's object model from the form.
    fn model(&self, schema: &Json, posted: &Posted, errors: &mut Vec<(String, String)>) -> Json {
        let id = posted
            .get("?id")
            .and_then(|v| v.first())
            .filter(|v| !v.is_empty())
            .cloned()
            .unwrap_or_else(murano_api::clock::new_uuid);
        let mut model = Map::new();
        model.insert("?".into(), json!({"type": self.class, "id": id}));
        model.extend(self.collect(schema, "", posted, errors, 0));
        Json::Object(model)
    }

    /// Runs model builder `name` on the form's model; the form filled
    /// with what it returns.
    fn build(&self, name: &str, schema: &Json, posted: Posted) -> Page {
        let map = match self.schema_map(&self.class) {
            Ok(m) => m,
            Err(m) => return fail(404, "No form for this application", &m),
        };
        let Some(bschema) = map.get(name).filter(|_| !name.is_empty()) else {
            return crate::not_found();
        };
        // The form may be incomplete: the builder is there to complete it.
        let model = self.model(schema, &posted, &mut Vec::new());
        let mut errors = Vec::new();
        let mut args = self.collect(
            &builder_arguments(bschema),
            &format!("@{name}."),
            &posted,
            &mut errors,
            0,
        );
        if !errors.is_empty() {
            return self.show(422, &posted, &errors, None);
        }
        if let Some(first) = model_argument(bschema) {
            let mut with_model = Map::new();
            with_model.insert(first, model);
            with_model.append(&mut args);
            args = with_model;
        }
        let body = json!({
            "className": self.class, "methodName": name, "packageName": self.package,
            "classVersion": if self.version.is_empty() { "*" } else { self.version.as_str() },
            "parameters": Json::Object(args),
        });
        let built = match json_of(actions::static_action(
            &self.d.app,
            &api_req(&self.req.ctx, None, &[], Some(&body)),
        )) {
            Ok(v) => v,
            Err(e) => {
                let errors = vec![(format!("@{name}"), message(&e))];
                let mut page = self.show(422, &posted, &errors, None);
                if let Page::Html(_, h) = &mut page {
                    *h = h.replacen(
                        "<form method",
                        &format!(
                            "<div class=\"alert\" role=\"alert\" id=\"builder-error\"><p>The model builder failed: {}</p></div>\n<form method",
                            escape(&message(&e))
                        ),
                        1,
                    );
                }
                return page;
            }
        };
        let mut refilled = Posted::new();
        for (k, v) in &posted {
            if k.starts_with('@') {
                refilled.insert(k.clone(), v.clone());
            }
        }
        if let Some(id) = built["?"]["id"].as_str() {
            refilled.insert("?id".into(), vec![id.to_owned()]);
        } else if let Some(id) = posted.get("?id") {
            refilled.insert("?id".into(), id.clone());
        }
        self.fill(schema, "", &built, &mut refilled, 0);
        self.show(200, &refilled, &[], Some(&built))
    }

    /// Adds (or replaces) the application in the user's session.
    fn save(&self, model: &Json) -> Page {
        let aid = match &self.target {
            Target::Add { .. } => None,
            Target::Edit { aid } => Some(aid.as_str()),
        };
        let mut model = model.clone();
        if let (Some(aid), Some(Json::Object(header))) = (aid, &self.header) {
            let mut h = header.clone();
            h.insert("id".into(), Json::String(aid.to_owned()));
            model["?"] = Json::Object(h);
        }
        let call = || {
            let sid = open_session(&self.d.app, &self.req.ctx, self.eid)?;
            let r = api_req(&self.req.ctx, Some(&sid), &[], Some(&model));
            match aid {
                None => json_of(services::post(&self.d.app, &r, self.eid, None)),
                Some(a) => json_of(services::replace(&self.d.app, &r, self.eid, a)),
            }
        };
        match call() {
            Ok(_) => Page::Redirect(format!("/environments/{}", url_encode(self.eid))),
            Err(e) => fail(e.status, "The application was not saved", &message(&e)),
        }
    }
}

/// The class of an object model's `?/type`: `name`, or the
/// `name/version@package` form a deployed model has; (name, version,
/// package).
pub fn split_type(t: &str) -> (&str, &str, &str) {
    let (name, rest) = t.split_once('/').unwrap_or((t, ""));
    let (version, package) = rest.split_once('@').unwrap_or((rest, ""));
    (name, version, package)
}

/// Whether a field holds a Murano object.
fn is_object(schema: &Json) -> bool {
    types_of(schema).contains(&"muranoObject")
}

/// A model builder's first argument: the object model it is given.
fn model_argument(bschema: &Json) -> Option<String> {
    bschema
        .get("properties")
        .and_then(Json::as_object)
        .and_then(|p| p.keys().next().cloned())
}

/// A builder's schema without its model argument (the form fills it).
fn builder_arguments(bschema: &Json) -> Json {
    let mut s = bschema.clone();
    if let (Some(first), Some(Json::Object(p))) = (model_argument(bschema), s.get_mut("properties"))
    {
        p.shift_remove(&first);
    }
    s
}

/// One scalar field: label, help, errors and its input.
pub(crate) fn render_scalar(
    f: &FormField,
    full: &str,
    values: &[String],
    error: Option<&str>,
) -> String {
    let w = widget(&f.schema);
    let id = escape(&format!("id_{full}"));
    let name = escape(full);
    let first = values.first().map(String::as_str).unwrap_or("");
    if !f.visible {
        return format!(
            "<input type=\"hidden\" name=\"{name}\" id=\"{id}\" value=\"{}\">\n",
            escape(first)
        );
    }
    let required = !nullable(&f.schema)
        && !matches!(w, Widget::Checkbox | Widget::MultiSelect | Widget::Lines);
    let help = f
        .schema
        .get("helpText")
        .or_else(|| f.schema.get("description"))
        .and_then(Json::as_str)
        .filter(|h| !h.is_empty());
    let mut described = Vec::new();
    if error.is_some() {
        described.push(format!("err_{full}"));
    }
    if help.is_some() {
        described.push(format!("help_{full}"));
    }
    let mut attrs = String::new();
    if !described.is_empty() {
        attrs.push_str(&format!(
            " aria-describedby=\"{}\"",
            escape(&described.join(" "))
        ));
    }
    if error.is_some() {
        attrs.push_str(" aria-invalid=\"true\"");
    }
    if required {
        attrs.push_str(" aria-required=\"true\"");
    }
    let options = |items: &Json, selected: &dyn Fn(&str) -> bool| {
        let mut s = String::new();
        if let Some(Json::Array(all)) = items.get("enum") {
            for v in all {
                let t = shown(v, Widget::Text);
                let sel = if selected(&t) { " selected" } else { "" };
                s.push_str(&format!(
                    "<option value=\"{}\"{sel}>{}</option>\n",
                    escape(&t),
                    escape(&t)
                ));
            }
        }
        s
    };
    let input = match w {
        Widget::Checkbox => format!(
            "<input type=\"checkbox\" name=\"{name}\" id=\"{id}\"{}{attrs}>\n",
            if first.is_empty() { "" } else { " checked" }
        ),
        Widget::Number => format!(
            "<input type=\"number\" step=\"any\" name=\"{name}\" id=\"{id}\" value=\"{}\"{attrs}>\n",
            escape(first)
        ),
        Widget::Text => format!(
            "<input type=\"text\" name=\"{name}\" id=\"{id}\" value=\"{}\"{attrs}>\n",
            escape(first)
        ),
        Widget::Select => format!(
            "<select name=\"{name}\" id=\"{id}\"{attrs}>\n{}{}</select>\n",
            if required { "" } else { "<option value=\"\">(none)</option>\n" },
            options(&f.schema, &|t| t == first)
        ),
        Widget::MultiSelect => format!(
            "<select multiple name=\"{name}\" id=\"{id}\"{attrs}>\n{}</select>\n",
            options(
                f.schema.get("items").unwrap_or(&Json::Null),
                &|t| values.iter().any(|v| v == t)
            )
        ),
        Widget::Lines | Widget::Json => format!(
            "<textarea name=\"{name}\" id=\"{id}\" rows=\"4\"{attrs}>{}</textarea>\n",
            escape(first)
        ),
    };
    let label = format!(
        "<label for=\"{id}\">{}{}</label>\n",
        escape(&f.title),
        if required {
            "<span class=\"required\" aria-hidden=\"true\">*</span>"
        } else {
            ""
        }
    );
    let help = help
        .map(|h| format!("<p class=\"help\" id=\"help_{name}\">{}</p>\n", escape(h)))
        .unwrap_or_default();
    let err = error
        .map(|m| {
            format!(
                "<ul class=\"errors\" id=\"err_{name}\"><li>{}</li></ul>\n",
                escape(m)
            )
        })
        .unwrap_or_default();
    let class = if w == Widget::Checkbox {
        "field checkbox"
    } else {
        "field"
    };
    let class = if error.is_some() {
        format!("{class} error")
    } else {
        class.to_owned()
    };
    if w == Widget::Checkbox {
        format!("<div class=\"{class}\" data-field=\"{name}\">\n{input}{label}{help}{err}</div>\n")
    } else {
        format!("<div class=\"{class}\" data-field=\"{name}\">\n{label}{help}{err}{input}</div>\n")
    }
}

/// The class an application package's form is of: the class named as the
/// package, else its first class.
fn main_class(fqn: String, classes: Vec<String>) -> Option<String> {
    if classes.is_empty() || classes.contains(&fqn) {
        Some(fqn).filter(|f| !f.is_empty())
    } else {
        classes.into_iter().next()
    }
}

/// The classes of package `pid` (its `class_definition` rows).
fn package_classes(d: &Dashboard, pid: &str) -> Vec<String> {
    let db = d.app.db();
    db.select(
        "class_definition",
        &murano_api::store::key("package_id", pid),
        "",
    )
    .unwrap_or_default()
    .into_iter()
    .map(|c| text(&c["name"]))
    .collect()
}

fn add_form<'a>(
    d: &'a Dashboard,
    req: &'a PageRequest,
    eid: &'a str,
    pid: &str,
) -> Result<Form<'a>, Page> {
    let row = package_row(&d.app, &req.ctx, pid)
        .map_err(|e| fail(e.status, "No such package", &message(&e)))?;
    let classes = package_classes(d, pid);
    // `?class=` picks another class of the package (`murano forms serve
    // CLASS`); by default the package's main class.
    let class = match req.param("class").filter(|c| !c.is_empty()) {
        Some(c) if classes.iter().any(|x| x == c) => c.to_owned(),
        Some(c) => {
            return Err(fail(
                404,
                "No such class",
                &format!("the package has no class {c}"),
            ))
        }
        None => main_class(text(&row["fully_qualified_name"]), classes)
            .ok_or_else(|| fail(404, "No form", "the package has no class"))?,
    };
    Form::new(
        d,
        req,
        eid,
        Target::Add {
            pid: pid.to_owned(),
        },
        class,
        text(&row["fully_qualified_name"]),
        archive_version(&row["archive"]).unwrap_or_default(),
    )
}

/// `GET /environments/{id}/form/{package}`: the MuranoPL form of the
/// package's class, with its defaults.
pub fn show_add(d: &Dashboard, req: &PageRequest, eid: &str, pid: &str) -> Page {
    let form = match add_form(d, req, eid, pid) {
        Ok(f) => f,
        Err(p) => return p,
    };
    let schema = match form.class_schema(&form.class) {
        Ok(s) => s,
        Err(m) => return fail(404, "No form for this application", &m),
    };
    let mut posted = Posted::new();
    form.defaults(&schema, "", &mut posted);
    if let Ok(map) = form.schema_map(&form.class) {
        if let Some(m) = map.as_object() {
            for (name, b) in m.iter().filter(|(k, _)| !k.is_empty()) {
                form.defaults(&builder_arguments(b), &format!("@{name}."), &mut posted);
            }
        }
    }
    form.show(200, &posted, &[], None)
}

/// `POST /environments/{id}/form/{package}`.
pub fn post_add(d: &Dashboard, req: &PageRequest, eid: &str, pid: &str) -> Page {
    match add_form(d, req, eid, pid) {
        Ok(f) => f.post(),
        Err(p) => p,
    }
}

fn edit_form<'a>(
    d: &'a Dashboard,
    req: &'a PageRequest,
    eid: &'a str,
    aid: &str,
) -> Result<(Form<'a>, Json), Page> {
    let sid = existing_session(&d.app, &req.ctx, eid)
        .map_err(|e| fail(e.status, "No such environment", &message(&e)))?;
    let list = json_of(services::get(
        &d.app,
        &api_req(&req.ctx, sid.as_deref(), &[], None),
        eid,
        None,
    ))
    .map_err(|e| fail(e.status, "No such environment", &message(&e)))?;
    let app = list
        .as_array()
        .and_then(|a| a.iter().find(|s| s["?"]["id"].as_str() == Some(aid)))
        .cloned()
        .ok_or_else(crate::not_found)?;
    let full_type = text(&app["?"]["type"]);
    let (class, version, package) = split_type(&full_type);
    let mut form = Form::new(
        d,
        req,
        eid,
        Target::Edit {
            aid: aid.to_owned(),
        },
        class.to_owned(),
        package.to_owned(),
        version.to_owned(),
    )?;
    form.header = Some(app["?"].clone());
    Ok((form, app))
}

/// `GET /environments/{id}/apps/{app}/form`: the application's class
/// form filled with its current values.
pub fn show_edit(d: &Dashboard, req: &PageRequest, eid: &str, aid: &str) -> Page {
    let (form, app) = match edit_form(d, req, eid, aid) {
        Ok(x) => x,
        Err(p) => return p,
    };
    let schema = match form.class_schema(&form.class) {
        Ok(s) => s,
        Err(m) => return fail(404, "No form for this application", &m),
    };
    let mut posted = Posted::new();
    posted.insert("?id".into(), vec![aid.to_owned()]);
    form.fill(&schema, "", &app, &mut posted, 0);
    form.show(200, &posted, &[], None)
}

/// `POST /environments/{id}/apps/{app}/form`.
pub fn post_edit(d: &Dashboard, req: &PageRequest, eid: &str, aid: &str) -> Page {
    match edit_form(d, req, eid, aid) {
        Ok((f, _)) => f.post(),
        Err(p) => p,
    }
}
