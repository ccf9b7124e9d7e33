//! `murano ui serve --dashboard` and `murano forms serve --dashboard`:
//! shortcuts into the dashboard of `murano serve` for one package. A
//! server over an in-memory store starts with the package imported (and
//! the engine's system packages from --catalog), an environment is
//! created for it, and the address of its Dynamic UI wizard (or the
//! MuranoPL form of its class) in that environment is printed. Nothing
//! is written to disk; the store is gone when the server stops.

use std::io::Write;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use murano_api::engine_catalog::EngineCatalog;
use murano_api::policy::Policy;
use murano_api::store::Db;
use murano_api::worker::{WorkerEngine, WorkerOptions};
use murano_api::{App, Limits, ServeConfig};
use murano_dashboard::calls::{api_req, json_of, message};
use murano_dashboard::{local_context, Dashboard, Page, PageRequest};

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
    /// The page to open.
    pub(crate) opens: Opens,
    /// The cloud resources the forms list, when given (`--cloud`).
    pub(crate) cloud: Option<murano_dashboard::cloud::CloudResources>,
}

/// Serve `s` until the process ends.
pub(crate) fn run(s: Shortcut<'_>) -> ExitCode {
    match serve(s) {
        Ok(()) => ExitCode::SUCCESS,
        Err((command, e)) => {
            eprintln!("{command}: {e}");
            ExitCode::FAILURE
        }
    }
}

fn serve(s: Shortcut<'_>) -> Result<(), (String, String)> {
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
    let eid = match dashboard.dispatch(&PageRequest::post("/environments", &[("name", &name)])) {
        Page::Redirect(to) => to.rsplit('/').next().unwrap_or("").to_owned(),
        _ => return Err(fail("cannot create an environment for the package".into())),
    };
    let path = match s.opens {
        Opens::Wizard => format!("/environments/{eid}/add/{pid}"),
        Opens::Form => format!("/environments/{eid}/form/{pid}"),
    };
    let dashboard = Arc::new(dashboard);
    let cfg = ServeConfig {
        listen: SocketAddr::from((Ipv4Addr::LOCALHOST, s.port)),
        token: None,
        limits: Limits::default(),
        workers: 2,
    };
    let what = match s.opens {
        Opens::Wizard => "the wizard",
        Opens::Form => "the form",
    };
    let label = s.package.display().to_string();
    murano_api::server::serve_blocking_with(
        app,
        cfg,
        move |shared| murano_dashboard::router_for(dashboard, shared.token),
        |addr| {
            // On stdout, as the previews print theirs.
            let _ = writeln!(
                std::io::stdout(),
                "Serving {what} of {label} in the dashboard at http://{addr}{path} (Ctrl-C to stop)"
            );
            for w in &warnings {
                let _ = writeln!(std::io::stderr(), "{w}");
            }
        },
    )
    .map_err(|e| fail(e.to_string()))
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
