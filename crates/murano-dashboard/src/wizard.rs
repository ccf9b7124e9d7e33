//! Adding an application through its Dynamic UI wizard, one page per
//! form, cleaned and validated by murano-ui as the dashboard does.
//!
//! Application-typed fields are the seed's pair of controls: a select of
//! the environment's applications of that type, and a "create new" button
//! per package of that type, which opens that package's own wizard (a
//! child draft) and returns to this step with the new application
//! selected. Finishing posts the object model through the API's services
//! controller in the user's configuration session.
//!
//! What was typed lives in a draft (by form name) on the server, bounded
//! by [`MAX_DRAFTS`]; each page replays the earlier steps with it.

use std::collections::BTreeMap;
use std::sync::Arc;

use murano_api::context::RequestContext;
use murano_api::handlers::{self, services};
use murano_ui::clean::{py_str, FieldError};
use murano_ui::definition::{
    pretty_name, Definition, FieldDef, FieldKind, FieldValidator, FormDef, WF_MANAGEMENT,
};
use murano_ui::host::{ExistingApp, SystemEntropy};
use murano_ui::wizard::{Package, StepOutcome, Wizard};
use serde_json::Value;

use crate::calls::{api_req, existing_session, json_of, message, open_session, visible_packages};
use crate::catalog::{archive_version, text};
use crate::cloud::WizardHost;
use crate::html::{error_page, escape, escape_lines, page, url_encode, Section};
use crate::{Dashboard, Page, PageRequest};

/// Most wizards in progress at once (the oldest is dropped beyond).
pub const MAX_DRAFTS: usize = 256;

/// The posted name of the wizard's buttons (no field has it).
pub const ACTION: &str = "__action";

/// Where a child wizard returns: the parent draft's step and field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parent {
    /// The parent draft.
    pub draft: String,
    /// Its step.
    pub step: usize,
    /// The form of that step.
    pub form: String,
    /// The application-typed field that gets the new application.
    pub field: String,
}

/// One wizard in progress.
#[derive(Debug, Clone)]
pub struct Draft {
    /// The environment the application goes to.
    pub env_id: String,
    /// The package whose wizard it is.
    pub package_id: String,
    /// The tenant that started it (nobody else sees it).
    pub tenant: Option<String>,
    /// What was typed, by form name.
    pub typed: BTreeMap<String, BTreeMap<String, String>>,
    /// Where it returns, for a "create new" wizard.
    pub parent: Option<Parent>,
    seq: u64,
}

/// The drafts in progress.
#[derive(Debug, Default)]
pub struct Drafts {
    map: BTreeMap<String, Draft>,
    next: u64,
}

impl Drafts {
    /// Keep `draft`; its id.
    pub fn insert(&mut self, mut draft: Draft) -> String {
        while self.map.len() >= MAX_DRAFTS {
            let oldest = self
                .map
                .iter()
                .min_by_key(|(_, d)| d.seq)
                .map(|(k, _)| k.clone());
            match oldest {
                Some(k) => self.map.remove(&k),
                None => break,
            };
        }
        self.next += 1;
        draft.seq = self.next;
        let id = murano_api::clock::new_id();
        self.map.insert(id.clone(), draft);
        id
    }

    /// The draft `id`.
    pub fn get(&self, id: &str) -> Option<&Draft> {
        self.map.get(id)
    }

    /// How many drafts there are.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

fn drafts(d: &Dashboard) -> std::sync::MutexGuard<'_, Drafts> {
    d.drafts.lock().unwrap_or_else(|e| e.into_inner())
}

/// The draft `did` if it is the context's tenant's.
fn draft_of(d: &Dashboard, ctx: &RequestContext, did: &str) -> Option<Draft> {
    drafts(d)
        .get(did)
        .filter(|x| x.tenant == ctx.tenant)
        .cloned()
}

/// A package's UI definition and identity.
struct Loaded {
    definition: Definition,
    info: Package,
}

fn load(d: &Dashboard, ctx: &RequestContext, pid: &str) -> Result<Loaded, String> {
    let row = crate::calls::package_row(&d.app, ctx, pid).map_err(|e| message(&e))?;
    let ui = row["ui_definition"]
        .as_str()
        .ok_or("the package has no UI definition")?;
    let definition = Definition::load(ui.as_bytes()).map_err(|e| format!("UI definition: {e}"))?;
    let info = Package {
        fqn: text(&row["fully_qualified_name"]),
        name: text(&row["name"]),
        id: pid.to_owned(),
        version: archive_version(&row["archive"]).unwrap_or_else(|| "0.0.0".into()),
    };
    Ok(Loaded { definition, info })
}

/// The applications of the environment as the user's session has them.
fn environment_apps(d: &Dashboard, ctx: &RequestContext, eid: &str) -> Vec<ExistingApp> {
    let sid = existing_session(&d.app, ctx, eid).ok().flatten();
    let db = d.app.db();
    let list = handlers::services(&db, eid, sid.as_deref()).unwrap_or(Value::Null);
    list.as_array()
        .map(|a| {
            a.iter()
                .map(|s| ExistingApp {
                    id: text(&s["?"]["id"]),
                    type_name: text(&s["?"]["type"]),
                    name: {
                        let n = text(&s["?"]["name"]);
                        if n.is_empty() {
                            text(&s["name"])
                        } else {
                            n
                        }
                    },
                })
                .collect()
        })
        .unwrap_or_default()
}

fn new_wizard(
    d: &Dashboard,
    ctx: &RequestContext,
    loaded: &Loaded,
    eid: &str,
) -> Result<Wizard, String> {
    let host = WizardHost {
        cloud: d.cloud.clone(),
        apps: environment_apps(d, ctx, eid),
        packages: visible_packages(&d.app, ctx)
            .map_err(|e| message(&e))?
            .iter()
            .map(|p| text(&p["fqn"]))
            .collect(),
    };
    Wizard::new(
        Arc::new(loaded.definition.clone()),
        loaded.info.clone(),
        Some(eid.to_owned()),
        Some(Arc::new(host)),
        Box::new(SystemEntropy::default()),
    )
    .map_err(|e| e.to_string())
}

/// What a browser posts for untouched fields: constant initials, and the
/// last part of the package name for the management form's
/// `application_name`; unchecked boxes post nothing.
pub fn browser_defaults(form: &FormDef, fqn: &str) -> BTreeMap<String, String> {
    use murano_yaml::Value as Y;
    let mut posted = BTreeMap::new();
    for field in &form.fields {
        let initial = match &field.initial {
            Some(node) => match &node.value {
                Y::Map(_) | Y::Seq(_) | Y::Null | Y::Bool(false) => continue,
                Y::Bool(true) => "on".to_owned(),
                other => other.python_str(),
            },
            None if form.name == WF_MANAGEMENT && field.name == "application_name" => {
                fqn.rsplit('.').next().unwrap_or(fqn).to_owned()
            }
            None => continue,
        };
        posted.insert(field.name.clone(), initial);
    }
    posted
}

fn posted(draft: &Draft, loaded: &Loaded, index: usize) -> BTreeMap<String, String> {
    let form = &loaded.definition.forms[index];
    draft
        .typed
        .get(&form.name)
        .cloned()
        .unwrap_or_else(|| browser_defaults(form, &loaded.info.fqn))
}

/// Submits a step as posted; a flavor the cloud lacks is the field's
/// error (the dashboard itself fails on it).
fn submit_step(
    wizard: &mut Wizard,
    index: usize,
    posted: &BTreeMap<String, String>,
) -> Result<StepOutcome, murano_ui::Error> {
    match wizard.submit(index, posted) {
        Err(murano_ui::Error::ResourceUsages(_)) => Ok(StepOutcome::Invalid(vec![(
            "flavor".into(),
            vec![FieldError {
                message: "Select a valid choice.".into(),
                code: Some("invalid_choice".into()),
            }],
        )])),
        other => other,
    }
}

enum Replayed {
    Ready(Box<(Loaded, Wizard)>),
    Invalid(usize),
}

fn failure(message: &str) -> Page {
    Page::Html(
        500,
        error_page("The wizard fails", Section::Environments, message),
    )
}

fn replay(
    d: &Dashboard,
    ctx: &RequestContext,
    draft: &Draft,
    upto: usize,
) -> Result<Replayed, Page> {
    let loaded = load(d, ctx, &draft.package_id).map_err(|m| failure(&m))?;
    let mut wizard = new_wizard(d, ctx, &loaded, &draft.env_id).map_err(|m| failure(&m))?;
    let upto = upto.min(loaded.definition.forms.len());
    for index in 0..upto {
        match submit_step(&mut wizard, index, &posted(draft, &loaded, index)) {
            Ok(StepOutcome::Valid(_)) => {}
            Ok(StepOutcome::Invalid(_)) => return Ok(Replayed::Invalid(index)),
            Err(e) => {
                let form = &loaded.definition.forms[index].name;
                return Err(failure(&format!("form {form:?}: {e}")));
            }
        }
    }
    Ok(Replayed::Ready(Box::new((loaded, wizard))))
}

/// `GET /environments/{id}/add`: the applications that can be added.
pub fn choose(d: &Dashboard, req: &PageRequest, eid: &str) -> Page {
    let env = match json_of(handlers::environments::show(
        &d.app,
        &api_req(&req.ctx, None, &[], None),
        eid,
    )) {
        Ok(e) => e,
        Err(e) => {
            return Page::Html(
                e.status,
                error_page("No such environment", Section::Environments, &message(&e)),
            )
        }
    };
    let pkgs = visible_packages(&d.app, &req.ctx).unwrap_or_default();
    let mut body = format!(
        "<p><a href=\"/environments/{}\">Back to {}</a></p>\n<h1>Add an application to {}</h1>\n<ul class=\"packages\" id=\"choices\">\n",
        url_encode(eid),
        escape(&text(&env["name"])),
        escape(&text(&env["name"]))
    );
    for p in pkgs
        .iter()
        .filter(|p| p["type"] == "Application" && p["enabled"] != false)
    {
        let pid = text(&p["id"]);
        body.push_str(&format!(
            "<li data-fqn=\"{}\"><img class=\"logo\" src=\"/catalog/{}/logo\" alt=\"\"><div><strong>{}</strong><br><span class=\"muted\">{}</span>\n\
             <form method=\"post\" action=\"/environments/{}/add/{}\"><button type=\"submit\" class=\"primary\" aria-label=\"Add {}\">Add</button></form></div></li>\n",
            escape(&text(&p["fqn"])),
            url_encode(&pid),
            escape(&text(&p["name"])),
            escape(&text(&p["fqn"])),
            url_encode(eid),
            url_encode(&pid),
            escape(&text(&p["name"])),
        ));
    }
    body.push_str("</ul>\n");
    Page::Html(
        200,
        page("Add an application", Section::Environments, &body),
    )
}

/// `POST /environments/{id}/add/{package}`: start its wizard.
pub fn start(d: &Dashboard, req: &PageRequest, eid: &str, pid: &str) -> Page {
    {
        let db = d.app.db();
        let r = api_req(&req.ctx, None, &[], None);
        if let Err(e) = handlers::check_env(&db, &r, eid) {
            return Page::Html(
                e.status,
                error_page("No such environment", Section::Environments, &message(&e)),
            );
        }
    }
    // A package without a UI definition is added through its class's form.
    if let Ok(row) = crate::calls::package_row(&d.app, &req.ctx, pid) {
        if !row["ui_definition"].is_string() {
            return Page::Redirect(format!(
                "/environments/{}/form/{}",
                url_encode(eid),
                url_encode(pid)
            ));
        }
    }
    if let Err(m) = load(d, &req.ctx, pid) {
        return Page::Html(
            404,
            error_page("The package cannot be added", Section::Environments, &m),
        );
    }
    let id = drafts(d).insert(Draft {
        env_id: eid.to_owned(),
        package_id: pid.to_owned(),
        tenant: req.ctx.tenant.clone(),
        typed: BTreeMap::new(),
        parent: None,
        seq: 0,
    });
    Page::Redirect(format!("/drafts/{}/step/0", url_encode(&id)))
}

/// A package that can create an application of an application-typed
/// field: (package id, display name).
pub type Creator = (String, String);

/// Everything one step page shows.
#[derive(Debug)]
pub struct StepView<'a> {
    /// The draft id (the form posts to it).
    pub draft: &'a str,
    /// The application's display name.
    pub app_name: &'a str,
    /// The environment's name.
    pub env_name: &'a str,
    /// The field of the parent wizard this one fills, if a child.
    pub parent_field: Option<&'a str>,
    /// Every step's title.
    pub titles: Vec<String>,
    /// The step shown.
    pub index: usize,
    /// Its form.
    pub form: &'a FormDef,
    /// The values shown, by field name.
    pub values: &'a BTreeMap<String, String>,
    /// The options of select fields, by field name.
    pub choices: &'a BTreeMap<String, Vec<(String, String)>>,
    /// The packages that can create each application-typed field's value.
    pub creators: &'a BTreeMap<String, Vec<Creator>>,
    /// The errors of the last submission (field name or `__all__`).
    pub errors: &'a [(String, Vec<FieldError>)],
}

/// The label text of a field as a person reads it (Django's pretty name
/// when it has no label).
pub fn label_text(field: &FieldDef) -> String {
    if field.password_clone {
        return "Confirm password".into();
    }
    match &field.label {
        Some(l) if !l.is_empty() => l.clone(),
        _ => pretty_name(&field.name),
    }
}

/// The help text of a field, with the dashboard's defaults for
/// passwords.
pub fn help_text(field: &FieldDef) -> Option<String> {
    if field.kind == FieldKind::Password {
        if field.password_clone {
            return Some("Retype your password".into());
        }
        if field.help_text.as_deref().is_some_and(|h| !h.is_empty()) {
            return field.help_text.clone();
        }
        let default_rule = matches!(
            field.validators.as_slice(),
            [FieldValidator::Regex { message, .. }] if message.starts_with("The password must contain")
        );
        return Some(if default_rule {
            "Enter a complex password with at least one letter, one number and one special character".into()
        } else {
            "Enter a password".into()
        });
    }
    field.help_text.clone().filter(|h| !h.is_empty())
}

/// Whether a field is shown as a checkbox.
pub fn is_checkbox(field: &FieldDef) -> bool {
    matches!(field.kind, FieldKind::Boolean | FieldKind::FloatingIp)
}

fn checked(value: &str) -> bool {
    !matches!(value, "" | "False" | "false" | "0" | "off" | "None")
}

fn render_input(
    field: &FieldDef,
    value: &str,
    choices: Option<&Vec<(String, String)>>,
    described: &str,
) -> String {
    let id = escape(&format!("id_{}", field.name));
    let name = escape(&field.name);
    let v = escape(value);
    if field.hidden {
        return format!("<input type=\"hidden\" name=\"{name}\" id=\"{id}\" value=\"{v}\">\n");
    }
    let required = if field.required {
        " aria-required=\"true\""
    } else {
        ""
    };
    match &field.kind {
        FieldKind::Text => format!(
            "<textarea name=\"{name}\" id=\"{id}\" rows=\"4\"{required}{described}>{v}</textarea>\n"
        ),
        FieldKind::Boolean | FieldKind::FloatingIp => format!(
            "<input type=\"checkbox\" name=\"{name}\" id=\"{id}\"{}{described}>\n",
            if checked(value) { " checked" } else { "" }
        ),
        FieldKind::Password => format!(
            "<input type=\"password\" name=\"{name}\" id=\"{id}\" value=\"{v}\" autocomplete=\"new-password\"{required}{described}>\n"
        ),
        FieldKind::Integer => {
            let mut bounds = String::new();
            if let Some(min) = field.min_value {
                bounds.push_str(&format!(" min=\"{min}\""));
            }
            if let Some(max) = field.max_value {
                bounds.push_str(&format!(" max=\"{max}\""));
            }
            format!("<input type=\"number\" name=\"{name}\" id=\"{id}\" value=\"{v}\"{bounds}{required}{described}>\n")
        }
        k if k.is_select() => {
            let mut out = format!("<select name=\"{name}\" id=\"{id}\"{required}{described}>\n");
            for (ov, label) in choices.map(Vec::as_slice).unwrap_or(&[]) {
                let sel = if ov == value { " selected" } else { "" };
                out.push_str(&format!(
                    "<option value=\"{}\"{sel}>{}</option>\n",
                    escape(ov),
                    escape(label)
                ));
            }
            out.push_str("</select>\n");
            out
        }
        _ => format!("<input type=\"text\" name=\"{name}\" id=\"{id}\" value=\"{v}\"{required}{described}>\n"),
    }
}

fn render_field(view: &StepView<'_>, field: &FieldDef) -> String {
    let value = view
        .values
        .get(&field.name)
        .map(String::as_str)
        .unwrap_or("");
    let choices = view.choices.get(&field.name);
    if field.hidden {
        return render_input(field, value, choices, "");
    }
    let errors: Vec<&FieldError> = view
        .errors
        .iter()
        .filter(|(n, _)| *n == field.name)
        .flat_map(|(_, e)| e)
        .collect();
    let help = help_text(field);
    let mut ids = Vec::new();
    if !errors.is_empty() {
        ids.push(format!("err_{}", field.name));
    }
    if help.is_some() {
        ids.push(format!("help_{}", field.name));
    }
    let creators = view.creators.get(&field.name).filter(|c| !c.is_empty());
    if creators.is_some() {
        ids.push(format!("new_{}", field.name));
    }
    let mut described = if ids.is_empty() {
        String::new()
    } else {
        format!(" aria-describedby=\"{}\"", escape(&ids.join(" ")))
    };
    if !errors.is_empty() {
        described.push_str(" aria-invalid=\"true\"");
    }
    let mut class = String::from("field");
    if is_checkbox(field) {
        class.push_str(" checkbox");
    }
    if !errors.is_empty() {
        class.push_str(" error");
    }
    let mark = if field.required {
        "<span class=\"required\" title=\"required\">*</span>"
    } else {
        ""
    };
    let label = format!(
        "<label for=\"{}\">{}{mark}</label>\n",
        escape(&format!("id_{}", field.name)),
        escape(&label_text(field))
    );
    let input = render_input(field, value, choices, &described);
    let mut out = format!(
        "<div class=\"{class}\" data-field=\"{}\">\n",
        escape(&field.name)
    );
    if is_checkbox(field) {
        out.push_str(&input);
        out.push_str(&label);
    } else {
        out.push_str(&label);
    }
    if !errors.is_empty() {
        out.push_str(&format!(
            "<ul class=\"errors\" id=\"err_{}\">\n",
            escape(&field.name)
        ));
        for e in &errors {
            out.push_str(&format!("<li>{}</li>\n", escape(&e.message)));
        }
        out.push_str("</ul>\n");
    }
    if let Some(help) = help {
        out.push_str(&format!(
            "<p class=\"help\" id=\"help_{}\">{}</p>\n",
            escape(&field.name),
            escape(&help)
        ));
    }
    if !is_checkbox(field) {
        out.push_str(&input);
    }
    if let Some(creators) = creators {
        out.push_str(&format!(
            "<p class=\"help\" id=\"new_{}\">Pick an application of this environment, or create a new one: its own wizard opens and comes back here with it selected.</p>\n<div class=\"buttons\">\n",
            escape(&field.name)
        ));
        for (pid, name) in creators {
            out.push_str(&format!(
                "<button type=\"submit\" name=\"{ACTION}\" value=\"new:{}:{}\" class=\"create-new\" formnovalidate>Create new {}</button>\n",
                escape(&field.name),
                escape(pid),
                escape(name)
            ));
        }
        out.push_str("</div>\n");
    }
    out.push_str("</div>\n");
    out
}

/// The HTML page of one step.
pub fn render_step(view: &StepView<'_>) -> String {
    let mut body = format!(
        "<h1>Add {} to {}</h1>\n",
        escape(view.app_name),
        escape(view.env_name)
    );
    if let Some(f) = view.parent_field {
        body.push_str(&format!(
            "<p class=\"notice\" id=\"child-notice\">A new application for the field “{}” of the wizard you came from: when you finish, it is added to the environment and selected there.</p>\n",
            escape(f)
        ));
    }
    body.push_str("<nav aria-label=\"Steps\">\n<ol class=\"steps\">\n");
    for (i, title) in view.titles.iter().enumerate() {
        let (class, current) = match i.cmp(&view.index) {
            std::cmp::Ordering::Equal => (" class=\"active\"", " aria-current=\"step\""),
            std::cmp::Ordering::Less => (" class=\"done\"", ""),
            std::cmp::Ordering::Greater => ("", ""),
        };
        body.push_str(&format!("<li{class}{current}>{}</li>\n", escape(title)));
    }
    body.push_str("</ol>\n</nav>\n");
    for field in view.form.fields.iter().filter(|f| f.hidden) {
        if let Some(d) = field.description.as_deref().filter(|d| !d.is_empty()) {
            body.push_str(&format!("<p class=\"extended\">{}</p>\n", escape_lines(d)));
        }
    }
    body.push_str(&format!(
        "<form method=\"post\" action=\"/drafts/{}/step/{}\" data-form=\"{}\" novalidate>\n<div class=\"columns\">\n<div class=\"left\">\n",
        url_encode(view.draft),
        view.index,
        escape(&view.form.name)
    ));
    // The default button first, so that Enter in a text field goes on.
    let next = if view.index + 1 == view.titles.len() {
        "Create"
    } else {
        "Next"
    };
    body.push_str(&format!(
        "<button type=\"submit\" name=\"{ACTION}\" value=\"next\" hidden tabindex=\"-1\" aria-hidden=\"true\">{next}</button>\n"
    ));
    let general: Vec<&FieldError> = view
        .errors
        .iter()
        .filter(|(n, _)| {
            n == "__all__" || !view.form.fields.iter().any(|f| f.name == *n && !f.hidden)
        })
        .flat_map(|(_, e)| e)
        .collect();
    if !general.is_empty() {
        body.push_str("<div class=\"alert\" id=\"form-errors\" role=\"alert\">\n<ul>\n");
        for e in general {
            body.push_str(&format!("<li>{}</li>\n", escape(&e.message)));
        }
        body.push_str("</ul>\n</div>\n");
    }
    for field in view.form.fields.iter().filter(|f| f.hidden) {
        body.push_str(&render_field(view, field));
    }
    for field in view.form.fields.iter().filter(|f| !f.hidden) {
        body.push_str(&render_field(view, field));
    }
    body.push_str("</div>\n<div class=\"right\">\n");
    for field in view.form.fields.iter().filter(|f| !f.hidden) {
        let Some(d) = field.description.as_deref().filter(|d| !d.is_empty()) else {
            continue;
        };
        let title = field
            .description_title
            .clone()
            .filter(|t| !t.is_empty())
            .or_else(|| field.label.clone())
            .unwrap_or_default();
        body.push_str("<p>");
        if !title.is_empty() {
            body.push_str(&format!("<strong>{}:</strong><br>\n", escape(&title)));
        }
        body.push_str(&format!("{}</p>\n", escape_lines(d)));
    }
    body.push_str("</div>\n</div>\n<div class=\"buttons\">\n");
    if view.index > 0 {
        body.push_str(&format!(
            "<button type=\"submit\" name=\"{ACTION}\" value=\"back\" id=\"back\" formnovalidate>Back</button>\n"
        ));
    }
    body.push_str(&format!(
        "<button type=\"submit\" class=\"primary\" name=\"{ACTION}\" value=\"next\" id=\"next\">{next}</button>\n\
         <button type=\"submit\" name=\"{ACTION}\" value=\"cancel\" id=\"cancel\" formnovalidate>Cancel</button>\n"
    ));
    body.push_str("</div>\n</form>\n");
    let title = format!(
        "{} — {}",
        view.app_name,
        view.titles
            .get(view.index)
            .map(String::as_str)
            .unwrap_or("")
    );
    page(&title, Section::Environments, &body)
}

fn env_name(d: &Dashboard, eid: &str) -> String {
    d.app
        .db()
        .get("environment", eid)
        .ok()
        .flatten()
        .map(|e| text(&e["name"]))
        .unwrap_or_default()
}

/// `GET /drafts/{id}/step/{n}` (and a step shown again with its errors).
pub fn show_step(d: &Dashboard, req: &PageRequest, did: &str, index: usize) -> Page {
    show_with(d, req, did, index, &[])
}

fn show_with(
    d: &Dashboard,
    req: &PageRequest,
    did: &str,
    index: usize,
    errors: &[(String, Vec<FieldError>)],
) -> Page {
    let Some(draft) = draft_of(d, &req.ctx, did) else {
        return crate::not_found();
    };
    let (loaded, wizard) = match replay(d, &req.ctx, &draft, index) {
        Ok(Replayed::Ready(r)) => *r,
        Ok(Replayed::Invalid(k)) => {
            return Page::Redirect(format!("/drafts/{}/step/{k}", url_encode(did)))
        }
        Err(p) => return p,
    };
    let Some(form) = loaded.definition.forms.get(index) else {
        return crate::not_found();
    };
    let values = posted(&draft, &loaded, index);
    let mut choices = BTreeMap::new();
    let mut creators = BTreeMap::new();
    let pkgs = visible_packages(&d.app, &req.ctx).unwrap_or_default();
    for field in form.fields.iter().filter(|f| f.kind.is_select()) {
        match wizard.options(field) {
            Ok(opts) => {
                choices.insert(
                    field.name.clone(),
                    opts.iter()
                        .map(|(v, l)| (py_str(v), l.clone()))
                        .collect::<Vec<_>>(),
                );
            }
            Err(e) => return failure(&format!("field {:?}: {e}", field.name)),
        }
        if let FieldKind::AppRef(types) = &field.kind {
            let c: Vec<Creator> = pkgs
                .iter()
                .filter(|p| {
                    p["has_ui"] == true && types.iter().any(|t| p["fqn"].as_str() == Some(t))
                })
                .map(|p| (text(&p["id"]), text(&p["name"])))
                .collect();
            creators.insert(field.name.clone(), c);
        }
    }
    let titles = loaded
        .definition
        .forms
        .iter()
        .map(|f| f.title.clone())
        .collect();
    let env = env_name(d, &draft.env_id);
    let view = StepView {
        draft: did,
        app_name: &loaded.info.name,
        env_name: &env,
        parent_field: draft.parent.as_ref().map(|p| p.field.as_str()),
        titles,
        index,
        form,
        values: &values,
        choices: &choices,
        creators: &creators,
        errors,
    };
    Page::Html(
        if errors.is_empty() { 200 } else { 422 },
        render_step(&view),
    )
}

fn return_to(draft: &Draft) -> String {
    match &draft.parent {
        Some(p) => format!("/drafts/{}/step/{}", url_encode(&p.draft), p.step),
        None => format!("/environments/{}", url_encode(&draft.env_id)),
    }
}

/// `POST /drafts/{id}/step/{n}`: next, back, cancel, or create a new
/// application for an application-typed field.
pub fn submit(d: &Dashboard, req: &PageRequest, did: &str, index: usize) -> Page {
    let Some(draft) = draft_of(d, &req.ctx, did) else {
        return crate::not_found();
    };
    let action = req.field(ACTION).unwrap_or("next").to_owned();
    if action == "cancel" {
        drafts(d).map.remove(did);
        return Page::Redirect(return_to(&draft));
    }
    let loaded = match load(d, &req.ctx, &draft.package_id) {
        Ok(l) => l,
        Err(m) => return failure(&m),
    };
    let Some(form) = loaded.definition.forms.get(index) else {
        return crate::not_found();
    };
    let typed: BTreeMap<String, String> = req
        .form
        .iter()
        .filter(|(k, _)| form.fields.iter().any(|f| f.name == *k))
        .cloned()
        .collect();
    let form_name = form.name.clone();
    if let Some(x) = drafts(d).map.get_mut(did) {
        x.typed.insert(form_name.clone(), typed.clone());
    }
    if action == "back" {
        return Page::Redirect(format!(
            "/drafts/{}/step/{}",
            url_encode(did),
            index.saturating_sub(1)
        ));
    }
    if let Some(rest) = action.strip_prefix("new:") {
        let Some((field, pid)) = rest.split_once(':') else {
            return crate::not_found();
        };
        if !form
            .fields
            .iter()
            .any(|f| f.name == field && matches!(f.kind, FieldKind::AppRef(_)))
        {
            return crate::not_found();
        }
        if let Err(m) = load(d, &req.ctx, pid) {
            return Page::Html(
                404,
                error_page("The package cannot be added", Section::Environments, &m),
            );
        }
        let child = drafts(d).insert(Draft {
            env_id: draft.env_id.clone(),
            package_id: pid.to_owned(),
            tenant: req.ctx.tenant.clone(),
            typed: BTreeMap::new(),
            parent: Some(Parent {
                draft: did.to_owned(),
                step: index,
                form: form_name,
                field: field.to_owned(),
            }),
            seq: 0,
        });
        return Page::Redirect(format!("/drafts/{}/step/0", url_encode(&child)));
    }
    let mut draft = draft;
    draft.typed.insert(form_name, typed.clone());
    let (_, mut wizard) = match replay(d, &req.ctx, &draft, index) {
        Ok(Replayed::Ready(r)) => *r,
        Ok(Replayed::Invalid(k)) => {
            return Page::Redirect(format!("/drafts/{}/step/{k}", url_encode(did)))
        }
        Err(p) => return p,
    };
    match submit_step(&mut wizard, index, &typed) {
        Ok(StepOutcome::Valid(_)) if index + 1 == loaded.definition.forms.len() => {
            finish(d, req, did, &draft, &mut wizard)
        }
        Ok(StepOutcome::Valid(_)) => {
            Page::Redirect(format!("/drafts/{}/step/{}", url_encode(did), index + 1))
        }
        Ok(StepOutcome::Invalid(errors)) => show_with(d, req, did, index, &errors),
        Err(e) => failure(&format!("form {:?}: {e}", form.name)),
    }
}

/// The wizard's object model added to the environment (the services
/// POST in the user's session); back to the parent wizard with the new
/// application selected, or to the environment.
fn finish(d: &Dashboard, req: &PageRequest, did: &str, draft: &Draft, wizard: &mut Wizard) -> Page {
    let model = match wizard.finish() {
        Ok(m) => m,
        Err(e) => return failure(&format!("Application: {e}")),
    };
    let add = || {
        let sid = open_session(&d.app, &req.ctx, &draft.env_id)?;
        json_of(services::post(
            &d.app,
            &api_req(&req.ctx, Some(&sid), &[], Some(&model)),
            &draft.env_id,
            None,
        ))
    };
    if let Err(e) = add() {
        return Page::Html(
            e.status,
            error_page(
                "The application was not added",
                Section::Environments,
                &message(&e),
            ),
        );
    }
    let mut all = drafts(d);
    all.map.remove(did);
    if let Some(p) = &draft.parent {
        if let Some(parent) = all.map.get_mut(&p.draft) {
            parent
                .typed
                .entry(p.form.clone())
                .or_default()
                .insert(p.field.clone(), text(&model["?"]["id"]));
        }
    }
    Page::Redirect(return_to(draft))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drafts_are_bounded_oldest_first() {
        let mut all = Drafts::default();
        let draft = Draft {
            env_id: "e".into(),
            package_id: "p".into(),
            tenant: None,
            typed: BTreeMap::new(),
            parent: None,
            seq: 0,
        };
        let first = all.insert(draft.clone());
        for _ in 1..MAX_DRAFTS {
            all.insert(draft.clone());
        }
        assert_eq!(all.len(), MAX_DRAFTS);
        assert!(all.get(&first).is_some());
        all.insert(draft);
        assert_eq!(all.len(), MAX_DRAFTS);
        assert!(all.get(&first).is_none(), "the oldest draft goes first");
    }
}
