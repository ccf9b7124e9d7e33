//! `murano ui serve` and `murano forms serve` (without `--preview`):
//! shortcuts into the dashboard of `murano serve` for one package. A
//! server over an in-memory store starts with the package imported (and
//! the engine's system packages from --catalog), an environment is
//! created for it, and the address of its Dynamic UI wizard (or the
//! MuranoPL form of a class) in that environment is printed. Nothing
//! is written to disk; the store is gone when the server stops.
//!
//! The pages are served by the previews' own hardened server
//! ([`crate::serve`]): loopback only, the Host header checked (421
//! otherwise), posts from other origins refused, bounded connections,
//! timeouts and bodies (`--max-connections` and the timeout options).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use murano_api::engine_catalog::EngineCatalog;
use murano_api::policy::Policy;
use murano_api::store::Db;
use murano_api::worker::{WorkerEngine, WorkerOptions};
use murano_api::{App, Limits};
use murano_dashboard::calls::{api_req, json_of, message};
use murano_dashboard::{local_context, Dashboard, Method, Page, PageRequest};

use crate::serve::{Reply, Request};

/// Which page of the package the shortcut opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Opens {
    /// The add-application wizard (its Dynamic UI).
    Wizard,
    /// The MuranoPL form of its class.
    Form,
}

/// What to serve.
#[derive(Debug)]
pub(crate) struct Shortcut<'a> {
    /// The command, for messages (`murano ui serve`).
    pub(crate) command: &'a str,
    /// The package folder or zip.
    pub(crate) package: &'a Path,
    /// Folders of system packages (Murano's core library).
    pub(crate) catalog: &'a [PathBuf],
    /// The port on 127.0.0.1 (0: any free one).
    pub(crate) port: u16,
    /// The server's connection, timeout limits.
    pub(crate) limits: &'a crate::serve::ServeOptions,
    /// The page to open.
    pub(crate) opens: Opens,
    /// The class whose form opens (`forms serve CLASS`); none: the
    /// package's main class.
    pub(crate) class: Option<&'a str>,
    /// The cloud resources the forms list, when given (`--cloud`).
    pub(crate) cloud: Option<murano_dashboard::cloud::CloudResources>,
}

/// Serve `s` until the process ends.
pub(crate) fn run(s: Shortcut<'_>) -> ExitCode {
    match serve(s) {
        Ok(code) => code,
        Err((command, e)) => {
            eprintln!("{command}: {e}");
            ExitCode::FAILURE
        }
    }
}

fn serve(s: Shortcut<'_>) -> Result<ExitCode, (String, String)> {
    let command = s.command.to_owned();
    let fail = |e: String| (command.clone(), e);
    let (system, warnings) = crate::api_serve::system_packages(s.catalog);
    let engine = Arc::new(
        WorkerEngine::start(&WorkerOptions::default(), EngineCatalog::new(system))
            .map_err(&fail)?,
    );
    let db = Db::in_memory().map_err(|e| fail(e.to_string()))?;
    let app = Arc::new(App::new(
        db,
        Policy::default(),
        engine.clone(),
        Limits::default(),
    ));
    engine.attach(&app);
    let mut dashboard = Dashboard::new(app.clone());
    if let Some(cloud) = s.cloud {
        dashboard.cloud = cloud;
    }
    let (pid, name) = import(&app, s.package).map_err(&fail)?;
    // The --catalog packages join the store's catalog too, so that object
    // fields offer their classes and application fields their wizards.
    // One that cannot be imported (a name already there, the served
    // package's among them) is left out: the engine still has it.
    for root in s.catalog {
        for path in crate::files::find_packages(root) {
            let _ = import(&app, &path);
        }
    }
    let eid = match dashboard.dispatch(&PageRequest::post("/environments", &[("name", &name)])) {
        Page::Redirect(to) => to.rsplit('/').next().unwrap_or("").to_owned(),
        _ => return Err(fail("cannot create an environment for the package".into())),
    };
    let mut home = match s.opens {
        Opens::Wizard => format!("/environments/{eid}/add/{pid}"),
        Opens::Form => format!("/environments/{eid}/form/{pid}"),
    };
    if let Some(class) = s.class {
        home.push_str("?class=");
        home.push_str(&murano_dashboard::html::url_encode(class));
    }
    for w in &warnings {
        eprintln!("{w}");
    }
    let what = match s.opens {
        Opens::Wizard => "the wizard",
        Opens::Form => "the form",
    };
    let what = format!("{what} of {} in the dashboard", s.package.display());
    let mut pages = Pages { dashboard, home };
    let code = crate::serve::serve(s.port, s.limits, &what, &mut pages);
    // The engine's threads end with the process.
    drop(engine);
    Ok(code)
}

/// The dashboard's pages as an app of the previews' server, all asked
/// by the local tenant.
struct Pages {
    dashboard: Dashboard,
    home: String,
}

impl crate::serve::App for Pages {
    fn handle(&mut self, request: &Request) -> Reply {
        self.handle_with_query(request, "")
    }

    fn handle_with_query(&mut self, request: &Request, query: &str) -> Reply {
        let req = PageRequest {
            method: match request.method {
                crate::serve::Method::Get => Method::Get,
                crate::serve::Method::Post => Method::Post,
                crate::serve::Method::Other => Method::Other,
            },
            path: request.path.clone(),
            query: murano_api::server::parse_query(query),
            form: request.form.clone(),
            ctx: local_context(),
        };
        match self.dashboard.dispatch(&req) {
            Page::Html(status, body) => Reply::Html(status, body),
            Page::Redirect(to) => Reply::Redirect(to),
            Page::Bytes(content_type, body) => Reply::Bytes(content_type, body),
        }
    }

    fn stylesheet(&self) -> &'static str {
        murano_dashboard::html::STYLESHEET
    }

    fn home(&self) -> String {
        self.home.clone()
    }
}

/// Import the package at `path` as the local tenant through the API's
/// upload: its id and name.
fn import(app: &App, path: &Path) -> Result<(String, String), String> {
    let files = crate::files::read_package_or_message(path)?.files;
    let zip = murano_packages::pack::write_zip(&files).map_err(|e| e.to_string())?;
    let mut body = b"--murano\r\nContent-Disposition: form-data; name=\"file\"; filename=\"package.zip\"\r\nContent-Type: application/zip\r\n\r\n".to_vec();
    body.extend_from_slice(&zip);
    body.extend_from_slice(b"\r\n--murano--\r\n");
    let mut req = api_req(&local_context(), None, &[], None);
    req.body = body;
    req.content_type = Some("multipart/form-data; boundary=murano".into());
    let p = json_of(murano_api::handlers::packages::upload(app, &req))
        .map_err(|e| format!("{}: {}", path.display(), message(&e)))?;
    let text = |k: &str| p[k].as_str().unwrap_or("").to_owned();
    Ok((text("id"), text("name")))
}
