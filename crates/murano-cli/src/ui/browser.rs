//! `murano ui serve`: a package's Dynamic UI as the dashboard's wizard,
//! one page per form, cleaned and validated by `murano-ui` exactly as
//! `murano ui --values` does, ending with the object model.
//!
//! The server keeps what was typed in each form (by form name) in memory.
//! Each page load reads the package again and replays the earlier steps
//! with what was typed, so an edited `ui.yaml` shows on the next reload.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use murano_ui::clean::{py_str, FieldError};
use murano_ui::definition::{FieldDef, FieldKind, FormDef};
use murano_ui::wizard::{StepOutcome, Wizard};

use murano_dashboard::wizard::{help_text, is_checkbox, label_text};

use super::cloud::load_cloud;
use super::wizard::{browser_defaults, load_ui, new_wizard, submit_step, LoadedUi};
use crate::serve::html::{error_page, escape, escape_lines, page};
use crate::serve::{App, Method, Reply, Request};

/// Open a package's Dynamic UI wizard in the dashboard, in a browser.
///
/// Example:
///
///   murano ui serve path/to/package --cloud cloud.yaml --catalog path/to/core-library
///   Serving the wizard of path/to/package in the dashboard at http://127.0.0.1:38427/environments/…/add/… (Ctrl-C to stop)
///
/// A local server runs the dashboard of `murano serve` over an in-memory
/// store: the package imported (the --catalog packages become the
/// engine's system packages), an environment made for it, and the
/// address printed opens the package's wizard there. Each step shows the
/// form's fields with their labels, help texts, descriptions and required
/// marks; "Next" cleans and validates the step as `murano ui --values`
/// does and shows the errors next to their fields; "Back" keeps what was
/// typed; the last step adds the application to the environment, whose
/// page shows its object model (the same JSON as `murano ui --values`)
/// and deploys it on the offline engine, with its reports, Heat
/// templates and actions. The cloud file (format of `murano ui --cloud`)
/// gives what the forms list. Nothing is written to disk.
///
/// With --preview, the older single-package preview is served instead:
/// it reads the package again on every page load (edit ui.yaml and
/// reload), shows a definition's load error with file:line:column, and
/// ends with the object model and a dry-run deploy of it.
///
/// Either server listens on 127.0.0.1 only and never writes a file. It
/// answers only requests naming it (Host 127.0.0.1:PORT or
/// localhost:PORT; others get 421) and takes posts from its own pages
/// only (another origin gets 403), so that a web page elsewhere can
/// neither read nor drive it. It serves --max-connections connections
/// at once (when all are taken, the one idle the longest is closed) and
/// closes a connection idle for --idle-timeout seconds, a request that
/// takes more than --read-timeout seconds to arrive, and a client that
/// does not read its answer for --write-timeout seconds.
#[derive(Args)]
#[command(verbatim_doc_comment)]
pub(crate) struct ServeArgs {
    /// A package directory or .zip archive.
    package: PathBuf,
    /// The cloud resources the forms may list (YAML or JSON).
    #[arg(long, value_name = "FILE")]
    cloud: Option<PathBuf>,
    /// The port to listen on (127.0.0.1 only); 0 picks a free one.
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// Packages the dry-run deploy of the last page may use (folders of
    /// packages, .zip files or packages); repeatable. The served package
    /// is always one; Murano's core library is also looked for in
    /// MURANO_CATALOG and /usr/share/murano-common.
    #[arg(long, value_name = "DIR")]
    catalog: Vec<PathBuf>,
    #[command(flatten)]
    limits: crate::serve::ServeOptions,
    /// Serve the older single-package preview instead of the dashboard:
    /// it reads the package again on every page load (edits show on
    /// reload, a definition that no longer loads shows its error with
    /// file:line:column) and ends with the object model and a dry-run
    /// deploy of it.
    #[arg(long)]
    preview: bool,
    /// The default (kept for scripts written when it was an option).
    #[arg(long, hide = true, conflicts_with = "preview")]
    dashboard: bool,
}

/// The posted name of the navigation buttons (no field has it: field
/// names are cleaned-data keys and the dashboard's own start with a
/// letter).
pub(crate) const ACTION: &str = "__action";

/// The wizard server.
pub(crate) struct WizardApp {
    package: PathBuf,
    cloud: Option<PathBuf>,
    /// Packages for the dry-run deploy, the served one first.
    catalog: Vec<PathBuf>,
    /// What was typed, by form name.
    typed: BTreeMap<String, BTreeMap<String, String>>,
}

/// The select options of a field as (posted value, label).
type Choices = Vec<(String, String)>;

/// Everything one step page shows.
pub(crate) struct StepView<'a> {
    /// The application's display name.
    pub(crate) app_name: &'a str,
    /// Every step's title, in order.
    pub(crate) titles: Vec<String>,
    /// The step shown.
    pub(crate) index: usize,
    /// Its form.
    pub(crate) form: &'a FormDef,
    /// The values to show, by field name.
    pub(crate) values: &'a BTreeMap<String, String>,
    /// The options of its select fields, by field name.
    pub(crate) choices: &'a BTreeMap<String, Choices>,
    /// The errors of the last submission (field name or `__all__`).
    pub(crate) errors: &'a [(String, Vec<FieldError>)],
}

fn field_id(name: &str) -> String {
    format!("id_{name}")
}

fn render_input(
    field: &FieldDef,
    value: &str,
    choices: Option<&Choices>,
    described: &str,
) -> String {
    let id = escape(&field_id(&field.name));
    let name = escape(&field.name);
    let value_attr = escape(value);
    let required = if field.required && !field.hidden {
        " aria-required=\"true\""
    } else {
        ""
    };
    if field.hidden {
        return format!(
            "<input type=\"hidden\" name=\"{name}\" id=\"{id}\" value=\"{value_attr}\">\n"
        );
    }
    let kind = match &field.kind {
        FieldKind::Text => {
            return format!(
                "<textarea name=\"{name}\" id=\"{id}\" rows=\"4\"{required}{described}>{value_attr}</textarea>\n"
            )
        }
        FieldKind::Boolean | FieldKind::FloatingIp => {
            let checked = if truthy_checkbox(value) { " checked" } else { "" };
            return format!("<input type=\"checkbox\" name=\"{name}\" id=\"{id}\"{checked}{described}>\n");
        }
        FieldKind::Password => "password",
        FieldKind::Integer => {
            let mut bounds = String::new();
            if let Some(min) = field.min_value {
                bounds.push_str(&format!(" min=\"{min}\""));
            }
            if let Some(max) = field.max_value {
                bounds.push_str(&format!(" max=\"{max}\""));
            }
            return format!(
                "<input type=\"number\" name=\"{name}\" id=\"{id}\" value=\"{value_attr}\"{bounds}{required}{described}>\n"
            );
        }
        k if k.is_select() => {
            let mut out = format!("<select name=\"{name}\" id=\"{id}\"{required}{described}>\n");
            for (v, label) in choices.map(Vec::as_slice).unwrap_or(&[]) {
                let selected = if v == value { " selected" } else { "" };
                out.push_str(&format!(
                    "<option value=\"{}\"{selected}>{}</option>\n",
                    escape(v),
                    escape(label)
                ));
            }
            out.push_str("</select>\n");
            return out;
        }
        _ => "text",
    };
    format!("<input type=\"{kind}\" name=\"{name}\" id=\"{id}\" value=\"{value_attr}\"{required}{described}>\n")
}

/// A checkbox is checked when its value is what a browser posts for a
/// checked box, or a true constant.
fn truthy_checkbox(value: &str) -> bool {
    !matches!(value, "" | "False" | "false" | "0" | "off" | "None")
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
    let id = escape(&field_id(&field.name));
    let errors: Vec<&FieldError> = view
        .errors
        .iter()
        .filter(|(n, _)| *n == field.name)
        .flat_map(|(_, e)| e)
        .collect();
    let help = help_text(field);
    let mut described = Vec::new();
    if !errors.is_empty() {
        described.push(format!("err_{}", field.name));
    }
    if help.is_some() {
        described.push(format!("help_{}", field.name));
    }
    let described = if described.is_empty() {
        String::new()
    } else {
        format!(" aria-describedby=\"{}\"", escape(&described.join(" ")))
    };
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
        "<label for=\"{id}\">{}{mark}</label>\n",
        escape(&label_text(field))
    );
    let mut out = format!(
        "<div class=\"{class}\" data-field=\"{}\">\n",
        escape(&field.name)
    );
    let input = render_input(field, value, choices, &described);
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
    out.push_str("</div>\n");
    out
}

/// The HTML page of one step.
pub(crate) fn render_step(view: &StepView<'_>) -> String {
    let mut body = format!(
        "<h1>Configure Application: {}</h1>\n<nav aria-label=\"Steps\">\n<ol class=\"steps\">\n",
        escape(view.app_name)
    );
    for (i, title) in view.titles.iter().enumerate() {
        let (class, current) = match i.cmp(&view.index) {
            std::cmp::Ordering::Equal => (" class=\"active\"", " aria-current=\"step\""),
            std::cmp::Ordering::Less => (" class=\"done\"", ""),
            std::cmp::Ordering::Greater => ("", ""),
        };
        body.push_str(&format!("<li{class}{current}>{}</li>\n", escape(title)));
    }
    body.push_str("</ol>\n</nav>\n");
    // The descriptions of hidden fields stand above the form.
    for field in view.form.fields.iter().filter(|f| f.hidden) {
        if let Some(d) = field.description.as_deref().filter(|d| !d.is_empty()) {
            body.push_str(&format!("<p class=\"extended\">{}</p>\n", escape_lines(d)));
        }
    }
    body.push_str(&format!(
        "<form method=\"post\" action=\"/step/{}\" data-form=\"{}\" novalidate>\n<div class=\"columns\">\n<div class=\"left\">\n",
        view.index,
        escape(&view.form.name)
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
        body.push_str("<div class=\"form-errors\" id=\"form-errors\" role=\"alert\">\n<ul>\n");
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
            body.push_str(&format!(
                "<strong data-field-name=\"{}\">{}:</strong><br>\n",
                escape(&field.name),
                escape(&title)
            ));
        }
        body.push_str(&format!("{}</p>\n", escape_lines(d)));
    }
    body.push_str("</div>\n</div>\n<div class=\"buttons\">\n");
    let next = if view.index + 1 == view.titles.len() {
        "Create"
    } else {
        "Next"
    };
    body.push_str(&format!(
        "<button type=\"submit\" class=\"primary\" name=\"{ACTION}\" value=\"next\" id=\"next\">{next}</button>\n"
    ));
    if view.index > 0 {
        body.push_str(&format!(
            "<button type=\"submit\" name=\"{ACTION}\" value=\"back\" id=\"back\">Back</button>\n"
        ));
    }
    body.push_str("</div>\n</form>\n");
    page(
        &format!(
            "{} — {}",
            view.app_name,
            view.titles
                .get(view.index)
                .map(String::as_str)
                .unwrap_or("")
        ),
        &body,
    )
}

/// The last page: the object model the dashboard would send.
pub(crate) fn render_model(app_name: &str, titles: &[String], model: &serde_json::Value) -> String {
    let mut body = format!(
        "<h1>Configure Application: {}</h1>\n<nav aria-label=\"Steps\">\n<ol class=\"steps\">\n",
        escape(app_name)
    );
    for title in titles {
        body.push_str(&format!("<li class=\"done\">{}</li>\n", escape(title)));
    }
    body.push_str("</ol>\n</nav>\n<h2 id=\"model-title\">Object model</h2>\n");
    body.push_str(
        "<p>What the dashboard would send for these values (the same JSON as <code>murano ui --values</code>; the ids are new on every run):</p>\n",
    );
    body.push_str(&format!(
        "<pre class=\"model\" id=\"object-model\" aria-labelledby=\"model-title\" tabindex=\"0\">{}</pre>\n",
        escape(&serde_json::to_string_pretty(model).unwrap_or_default())
    ));
    let last = titles.len().saturating_sub(1);
    body.push_str(&format!(
        "<form method=\"post\" action=\"/step/{last}\">\n<div class=\"buttons\">\n\
         <button type=\"submit\" name=\"{ACTION}\" value=\"restart\" id=\"restart\">Start over</button>\n\
         <button type=\"submit\" name=\"{ACTION}\" value=\"edit\" id=\"edit\">Back</button>\n</div>\n</form>\n"
    ));
    // A post: running MuranoPL is never what following a link does.
    body.push_str(
        "<form method=\"post\" action=\"/deploy\">\n<p><button type=\"submit\" id=\"dry-run\">Dry-run deploy</button> what deploying this model would do (<code>murano deploy --dry-run</code> against an offline cloud).</p>\n</form>\n",
    );
    page(&format!("{app_name} — object model"), &body)
}

/// The options of a select field as posted values and labels.
fn choices_of(wizard: &Wizard, field: &FieldDef) -> Result<Choices, murano_ui::Error> {
    Ok(wizard
        .options(field)?
        .iter()
        .map(|(v, label)| (py_str(v), label.clone()))
        .collect())
}

/// A step that cannot be shown: why, as a page.
fn failure_page(loaded: Option<&LoadedUi>, message: &str) -> Reply {
    let title = match loaded {
        Some(l) => format!("{}: the wizard fails", l.info.name),
        None => "The package does not load".to_owned(),
    };
    Reply::Html(500, error_page(&title, message))
}

enum Replayed {
    /// Every step before the requested one is valid.
    Ready(Box<(LoadedUi, Wizard)>),
    /// Step `k` (before the requested one) is not valid any more.
    Invalid(usize),
}

impl WizardApp {
    /// A server for the package at `package` with the cloud file `cloud`.
    #[cfg(test)]
    pub(crate) fn new(package: PathBuf, cloud: Option<PathBuf>) -> WizardApp {
        WizardApp::with_catalog(package, cloud, Vec::new())
    }

    /// [`WizardApp::new`] with packages for the dry-run deploy.
    pub(crate) fn with_catalog(
        package: PathBuf,
        cloud: Option<PathBuf>,
        catalog: Vec<PathBuf>,
    ) -> WizardApp {
        let mut all = vec![package.clone()];
        all.extend(catalog);
        WizardApp {
            package,
            cloud,
            catalog: all,
            typed: BTreeMap::new(),
        }
    }

    /// What is posted for step `index`: what was typed, or the values a
    /// browser shows first.
    fn posted(&self, loaded: &LoadedUi, index: usize) -> BTreeMap<String, String> {
        let form = &loaded.definition.forms[index];
        self.typed
            .get(&form.name)
            .cloned()
            .unwrap_or_else(|| browser_defaults(form, &loaded.info.fqn))
    }

    /// Loads the package and replays the steps before `upto`.
    fn replay(&self, upto: usize) -> Result<Replayed, Reply> {
        let loaded = load_ui(&self.package).map_err(|e| failure_page(None, e.message()))?;
        let cloud =
            load_cloud(self.cloud.as_deref()).map_err(|e| failure_page(None, e.message()))?;
        let mut wizard = new_wizard(&loaded, cloud, None)
            .map_err(|e| failure_page(Some(&loaded), e.message()))?;
        let upto = upto.min(loaded.definition.forms.len());
        for index in 0..upto {
            let posted = self.posted(&loaded, index);
            match submit_step(&mut wizard, index, &posted) {
                Ok(StepOutcome::Valid(_)) => {}
                Ok(StepOutcome::Invalid(_)) => return Ok(Replayed::Invalid(index)),
                Err(e) => {
                    let name = &loaded.definition.forms[index].name;
                    let message = format!("{}: form {name:?}: {e}", loaded.ui_file);
                    return Err(failure_page(Some(&loaded), &message));
                }
            }
        }
        Ok(Replayed::Ready(Box::new((loaded, wizard))))
    }

    fn show_step(&self, index: usize, errors: &[(String, Vec<FieldError>)]) -> Reply {
        let (loaded, wizard) = match self.replay(index) {
            Ok(Replayed::Ready(ready)) => *ready,
            Ok(Replayed::Invalid(k)) => return Reply::Redirect(format!("/step/{k}")),
            Err(reply) => return reply,
        };
        let Some(form) = loaded.definition.forms.get(index) else {
            return Reply::Redirect("/done".into());
        };
        let values = self.posted(&loaded, index);
        let mut choices = BTreeMap::new();
        for field in form.fields.iter().filter(|f| f.kind.is_select()) {
            match choices_of(&wizard, field) {
                Ok(c) => {
                    choices.insert(field.name.clone(), c);
                }
                Err(e) => {
                    let message = format!("{}: field {:?}: {e}", loaded.ui_file, field.name);
                    return failure_page(Some(&loaded), &message);
                }
            }
        }
        // A select shows its first option when nothing was chosen: that
        // is what the browser posts.
        let titles = loaded
            .definition
            .forms
            .iter()
            .map(|f| f.title.clone())
            .collect();
        let view = StepView {
            app_name: &loaded.info.name,
            titles,
            index,
            form,
            values: &values,
            choices: &choices,
            errors,
        };
        Reply::Html(
            if errors.is_empty() { 200 } else { 422 },
            render_step(&view),
        )
    }

    fn submit(&mut self, index: usize, request: &Request) -> Reply {
        let action = request.field(ACTION).unwrap_or("next").to_owned();
        if action == "restart" {
            self.typed.clear();
            return Reply::Redirect("/step/0".into());
        }
        if action == "edit" {
            return Reply::Redirect(format!("/step/{index}"));
        }
        let loaded = match load_ui(&self.package) {
            Ok(l) => l,
            Err(e) => return failure_page(None, e.message()),
        };
        let Some(form) = loaded.definition.forms.get(index) else {
            return Reply::Redirect("/step/0".into());
        };
        // Keep what was typed in this form's fields, whatever the button.
        let posted: BTreeMap<String, String> = request
            .form
            .iter()
            .filter(|(k, _)| form.fields.iter().any(|f| f.name == *k))
            .cloned()
            .collect();
        self.typed.insert(form.name.clone(), posted.clone());
        if action == "back" {
            return Reply::Redirect(format!("/step/{}", index.saturating_sub(1)));
        }
        let (_, mut wizard) = match self.replay(index) {
            Ok(Replayed::Ready(ready)) => *ready,
            Ok(Replayed::Invalid(k)) => return Reply::Redirect(format!("/step/{k}")),
            Err(reply) => return reply,
        };
        match submit_step(&mut wizard, index, &posted) {
            Ok(StepOutcome::Valid(_)) if index + 1 == loaded.definition.forms.len() => {
                Reply::Redirect("/done".into())
            }
            Ok(StepOutcome::Valid(_)) => Reply::Redirect(format!("/step/{}", index + 1)),
            Ok(StepOutcome::Invalid(errors)) => self.show_step(index, &errors),
            Err(e) => {
                let message = format!("{}: form {:?}: {e}", loaded.ui_file, form.name);
                failure_page(Some(&loaded), &message)
            }
        }
    }

    /// The finished wizard: its display name, step titles and object
    /// model, or the page to show instead.
    fn finished(&self) -> Result<(String, Vec<String>, serde_json::Value), Reply> {
        let count = match load_ui(&self.package) {
            Ok(l) => l.definition.forms.len(),
            Err(e) => return Err(failure_page(None, e.message())),
        };
        let (loaded, mut wizard) = match self.replay(count) {
            Ok(Replayed::Ready(ready)) => *ready,
            Ok(Replayed::Invalid(k)) => return Err(Reply::Redirect(format!("/step/{k}"))),
            Err(reply) => return Err(reply),
        };
        match wizard.finish() {
            Ok(model) => {
                let titles: Vec<String> = loaded
                    .definition
                    .forms
                    .iter()
                    .map(|f| f.title.clone())
                    .collect();
                Ok((loaded.info.name.clone(), titles, model))
            }
            Err(e) => Err(failure_page(
                Some(&loaded),
                &format!("{}: Application: {e}", loaded.ui_file),
            )),
        }
    }

    fn done(&self) -> Reply {
        match self.finished() {
            Ok((name, titles, model)) => Reply::Html(200, render_model(&name, &titles, &model)),
            Err(reply) => reply,
        }
    }

    /// The dry-run deploy of the finished wizard's model.
    fn deploy(&self) -> Reply {
        let (name, _, model) = match self.finished() {
            Ok(f) => f,
            Err(reply) => return reply,
        };
        let outcome = crate::deploy::dry_run_text(model, &self.catalog);
        Reply::Html(200, render_deploy(&name, outcome))
    }
}

/// The dry-run deploy page: the plan, or why there is none.
pub(crate) fn render_deploy(app_name: &str, outcome: Result<(bool, String), String>) -> String {
    let mut body = format!(
        "<h1>Dry-run deploy: {}</h1>\n<p>Against an offline cloud: Heat stacks, agents and networks answer as <code>murano deploy --dry-run</code> describes; nothing is created.</p>\n",
        escape(app_name)
    );
    match outcome {
        Ok((ok, text)) => {
            body.push_str(&format!(
                "<p id=\"deploy-status\">{}</p>\n<pre class=\"model\" id=\"deploy-plan\" tabindex=\"0\">{}</pre>\n",
                if ok { "The deployment succeeded." } else { "The deployment failed (see the plan's end)." },
                escape(&text)
            ));
        }
        Err(e) => body.push_str(&format!(
            "<p class=\"error\" id=\"deploy-status\">No deployment: {}</p>\n",
            escape(&e)
        )),
    }
    body.push_str("<p><a href=\"/done\">Back to the object model</a></p>\n");
    page(&format!("{app_name} — dry-run deploy"), &body)
}

fn step_index(path: &str) -> Option<usize> {
    path.strip_prefix("/step/")?.parse().ok()
}

impl App for WizardApp {
    fn handle(&mut self, request: &Request) -> Reply {
        match (request.method, request.path.as_str()) {
            (Method::Get, "/") => Reply::Redirect("/step/0".into()),
            (Method::Get, "/done") => self.done(),
            // The deploy runs on a post; a load of its address shows
            // the page with the button.
            (Method::Get, "/deploy") => Reply::Redirect("/done".into()),
            (Method::Post, "/deploy") => self.deploy(),
            (Method::Get, path) if step_index(path).is_some() => {
                self.show_step(step_index(path).unwrap_or(0), &[])
            }
            (Method::Post, path) if step_index(path).is_some() => {
                self.submit(step_index(path).unwrap_or(0), request)
            }
            _ => Reply::Html(
                404,
                page(
                    "Not found",
                    "<h1>Not found</h1>\n<p><a href=\"/\">The wizard</a></p>\n",
                ),
            ),
        }
    }
}

pub(crate) fn run(args: &ServeArgs) -> ExitCode {
    if !args.package.exists() {
        eprintln!("murano: {}: no such file or folder", args.package.display());
        return ExitCode::from(2);
    }
    if let Some(cloud) = &args.cloud {
        if let Err(e) = load_cloud(Some(cloud)) {
            eprintln!("murano: {}", e.message());
            return ExitCode::from(2);
        }
    }
    if !args.preview {
        let cloud = match super::cloud::load_resources(args.cloud.as_deref()) {
            Ok(c) => args.cloud.as_ref().map(|_| c),
            Err(e) => {
                eprintln!("murano: {}", e.message());
                return ExitCode::from(2);
            }
        };
        return crate::dashboard_open::run(crate::dashboard_open::Shortcut {
            command: "murano ui serve",
            package: &args.package,
            catalog: &args.catalog,
            port: args.port,
            limits: &args.limits,
            opens: crate::dashboard_open::Opens::Wizard,
            class: None,
            cloud,
        });
    }
    let mut app = WizardApp::with_catalog(
        args.package.clone(),
        args.cloud.clone(),
        args.catalog.clone(),
    );
    crate::serve::serve(
        args.port,
        &args.limits,
        &format!("the wizard of {}", args.package.display()),
        &mut app,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use murano_ui::definition::Definition;

    const UI: &str = "\
Version: 2.4
Application:
  ?:
    type: com.example.App
  name: $.settings.name
Forms:
  - settings:
      fields:
        - name: intro
          type: string
          hidden: true
          required: false
          description: Configure <the> app.
        - name: name
          type: string
          label: App & name
          description: |-
            The name.
            Letters only.
          helpText: Shown in lists
        - name: size
          type: integer
          minValue: 1
          maxValue: 9
          initial: 3
        - name: notes
          type: text
          required: false
        - name: secret
          type: password
          label: Password
        - name: debug
          type: boolean
          initial: true
        - name: color
          type: choice
          choices: [[r, Red], [g, Green]]
          descriptionTitle: Colour
          description: Pick one
  - second:
      region: Second page
      fields:
        - {name: x, type: string, required: false}
";

    fn render(
        index: usize,
        values: &[(&str, &str)],
        errors: &[(String, Vec<FieldError>)],
    ) -> String {
        let def = Definition::load(UI.as_bytes()).unwrap();
        let form = &def.forms[index];
        let values: BTreeMap<String, String> = values
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        let mut choices = BTreeMap::new();
        choices.insert(
            "color".to_owned(),
            vec![
                ("r".to_owned(), "Red".to_owned()),
                ("g".to_owned(), "Green".to_owned()),
            ],
        );
        render_step(&StepView {
            app_name: "Example <App>",
            titles: def.forms.iter().map(|f| f.title.clone()).collect(),
            index,
            form,
            values: &values,
            choices: &choices,
            errors,
        })
    }

    fn error(message: &str) -> Vec<FieldError> {
        vec![FieldError {
            message: message.into(),
            code: None,
        }]
    }

    #[test]
    fn a_step_renders_as_the_dashboard_lays_it_out() {
        let errors = vec![
            ("name".to_owned(), error("This field is required.")),
            ("__all__".to_owned(), error("Passwords don't match")),
        ];
        let html = render(
            0,
            &[
                ("intro", "hi"),
                ("size", "12"),
                ("debug", "on"),
                ("color", "g"),
                ("secret", "p\"w"),
            ],
            &errors,
        );
        insta::assert_snapshot!("wizard_first_step", html);
    }

    #[test]
    fn the_last_step_creates_and_can_go_back() {
        let html = render(2, &[("application_name", "App")], &[]);
        assert!(html.contains(">Create</button>"), "{html}");
        assert!(html.contains("id=\"back\""), "{html}");
        assert!(
            html.contains("<li class=\"done\">Second page</li>"),
            "{html}"
        );
        assert!(
            html.contains("<li class=\"active\" aria-current=\"step\">Step 3</li>"),
            "{html}"
        );
        // The first step has no Back.
        let first = render(0, &[], &[]);
        assert!(!first.contains("id=\"back\""), "{first}");
        assert!(first.contains(">Next</button>"), "{first}");
    }

    #[test]
    fn every_visible_input_has_a_bound_label() {
        let html = render(0, &[], &[]);
        for id in [
            "name",
            "size",
            "notes",
            "secret",
            "secret-clone",
            "debug",
            "color",
        ] {
            assert!(
                html.contains(&format!("<label for=\"id_{id}\">")),
                "{id}: {html}"
            );
            assert!(html.contains(&format!("id=\"id_{id}\"")), "{id}: {html}");
        }
        assert!(!html.contains("<label for=\"id_intro\">"), "hidden: {html}");
        assert!(html.contains("Enter a complex password"), "{html}");
        assert!(html.contains("Retype your password"), "{html}");
    }

    #[test]
    fn the_object_model_page_shows_the_json_escaped() {
        let model = serde_json::json!({"?": {"type": "a.B"}, "html": "<b>"});
        let html = render_model("App", &["Step 1".into(), "Step 2".into()], &model);
        insta::assert_snapshot!("wizard_object_model", html);
    }

    #[test]
    fn unknown_paths_and_methods_are_not_found() {
        let mut app = WizardApp::new(PathBuf::from("no/such/package"), None);
        let get = |path: &str| Request {
            method: Method::Get,
            path: path.into(),
            form: Vec::new(),
        };
        assert_eq!(app.handle(&get("/")), Reply::Redirect("/step/0".into()));
        assert!(matches!(app.handle(&get("/nothing")), Reply::Html(404, _)));
        assert!(matches!(app.handle(&get("/step/x")), Reply::Html(404, _)));
        let other = Request {
            method: Method::Other,
            path: "/step/0".into(),
            form: Vec::new(),
        };
        assert!(matches!(app.handle(&other), Reply::Html(404, _)));
        // A package that does not load: its error instead of a form.
        match app.handle(&get("/step/0")) {
            Reply::Html(500, page) => {
                assert!(page.contains("id=\"load-error\""), "{page}");
                assert!(
                    page.contains("no/such/package: no such file or folder"),
                    "{page}"
                );
            }
            other => panic!("{other:?}"),
        }
    }
}
