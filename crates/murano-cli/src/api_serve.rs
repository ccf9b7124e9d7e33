//! `murano serve`: Murano's v1 REST API (`murano-api`) for the clients that
//! speak it (python-muranoclient's `murano`, the dashboard, scripts).

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;
use murano_api::engine_catalog::EngineCatalog;
use murano_api::policy::Policy;
use murano_api::worker::{WorkerEngine, WorkerOptions};
use murano_api::{App, Limits, ServeConfig};

/// Serve Murano's v1 REST API at http://LISTEN/v1.
///
/// The request context comes from the headers keystone's middleware sets
/// (X-Auth-Token, X-Project-Id or X-Tenant-Id, X-User-Id, X-Roles);
/// Murano's default policy applies (admin role for all-tenant listings).
/// Listening anywhere but loopback requires --token (or MURANO_API_TOKEN),
/// and every request must then carry it as X-Auth-Token.
///
/// Deployments, actions and deletions run in the background on a pool of
/// engine threads (--workers, --queue) against each environment's
/// stateful offline cloud (--cloud: the cloud description `murano env`
/// reads); classes resolve from the API's catalog, then from Murano's core
/// library (--catalog, MURANO_CATALOG, /usr/share/murano-common).
///
/// The same port serves the dashboard at http://LISTEN/: the catalog,
/// environments, application wizards, deployments and actions as pages
/// (a browser without context headers works as the tenant "local"; with
/// a token, the browser signs in once at /login).
///
/// Example: murano serve --db ./api.db --listen 127.0.0.1:8082
#[derive(Args)]
pub(crate) struct ServeArgs {
    /// The store (SQLite, Murano's tables), shared with `murano env` and
    /// `murano catalog`; default: MURANO_API_DB, else their default
    /// (MURANO_DB, else murano/murano.db under XDG_DATA_HOME or
    /// ~/.local/share).
    #[arg(long)]
    db: Option<PathBuf>,
    /// Address and port to listen on.
    #[arg(long, default_value = "127.0.0.1:8082")]
    listen: SocketAddr,
    /// Token every request must carry as X-Auth-Token (default:
    /// MURANO_API_TOKEN); required when not listening on loopback.
    #[arg(long)]
    token: Option<String>,
    /// The project (tenant) of requests that name none, as keystone would
    /// give a token's project (muranoclient with --os-no-client-auth
    /// sends only its token); default: MURANO_API_PROJECT, else none.
    #[arg(long)]
    project: Option<String>,
    /// The user of requests that name no project and no user (with
    /// --project).
    #[arg(long, default_value = "local-user")]
    user: String,
    /// Largest request body in bytes (Murano's package_size_limit: 5 MiB).
    #[arg(long, default_value_t = 5 * 1024 * 1024)]
    max_body: usize,
    /// The cloud description (YAML, as `murano env --cloud`): what the
    /// offline cloud behind deployments answers.
    #[arg(long)]
    cloud: Option<PathBuf>,
    /// Engine threads running deployments and actions at once.
    #[arg(long, default_value_t = 2)]
    workers: usize,
    /// Tasks waiting for an engine thread; beyond, a deployment fails at
    /// once with a "queue is full" report.
    #[arg(long, default_value_t = 64)]
    queue: usize,
    /// Packages (folders searched recursively, or .zip files) holding
    /// Murano's core library (io.murano) and other system packages; then
    /// MURANO_CATALOG, then /usr/share/murano-common.
    #[arg(long, value_name = "DIR")]
    catalog: Vec<PathBuf>,
    /// Units of fuel one engine task may burn (instructions, loop
    /// iterations, calls): a runaway package ends its own deployment.
    #[arg(long, default_value_t = murano_engine::DEFAULT_FUEL)]
    max_fuel: u64,
}

/// Murano's core library and the other system packages of the catalog
/// paths (the first package of a name wins); a warning when the core
/// library is missing (deployments then fail with NoClassFound). The
/// warnings are printed after the address line clients wait for.
pub(crate) fn system_packages(
    catalog: &[PathBuf],
) -> (Vec<murano_api::engine_catalog::LoadedPackage>, Vec<String>) {
    use murano_api::engine_catalog::LoadedPackage;
    let mut out: Vec<LoadedPackage> = Vec::new();
    let mut warnings = Vec::new();
    let read = |path: &std::path::Path| {
        let label = path
            .file_name()
            .map(|n| n.to_string_lossy().trim_end_matches(".zip").to_owned())
            .unwrap_or_default();
        crate::files::read_package_or_message(path)
            .and_then(|l| LoadedPackage::from_source(&label, l.files))
    };
    let mut skip = |e: String| warnings.push(format!("murano serve: catalog: {e}"));
    if !crate::core_library::read_catalog(&mut out, catalog, read, |p| &p.name, &mut skip) {
        warnings.push(format!(
            "murano serve: warning: {} (deployments will fail)",
            crate::core_library::missing_hint()
        ));
    }
    (out, warnings)
}

/// `MURANO_API_DB`, else the store `murano env` uses by default
/// (`MURANO_DB`, else murano/murano.db under XDG_DATA_HOME or
/// ~/.local/share): one file for both.
fn default_db() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os("MURANO_API_DB").filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(p));
    }
    crate::env_cmd::default_db()
}

pub(crate) fn run(args: &ServeArgs) -> ExitCode {
    match serve(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("murano serve: {e}");
            ExitCode::FAILURE
        }
    }
}

fn serve(args: &ServeArgs) -> Result<(), String> {
    let token = args
        .token
        .clone()
        .or_else(|| std::env::var("MURANO_API_TOKEN").ok())
        .filter(|t| !t.is_empty());
    // Refuse a public address without a token before touching any file.
    murano_api::check_listen(args.listen, token.as_deref()).map_err(|e| e.to_string())?;
    // And a pool that cannot be made.
    WorkerOptions {
        workers: args.workers,
        queue: args.queue,
        ..WorkerOptions::default()
    }
    .validate()?;
    let path = match &args.db {
        Some(p) => p.clone(),
        None => default_db()?,
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    // The store `murano env` and `murano catalog` use too, refused when
    // it is not one (untouched).
    let db = murano_store::open_db(&path).map_err(|e| e.to_string())?;
    // Tasks a previous process left running can no longer finish.
    let interrupted =
        murano_api::handlers::recovery::fail_interrupted(&db).map_err(|e| e.body())?;
    if interrupted > 0 {
        eprintln!("murano serve: {interrupted} task(s) interrupted by the last stop marked failed");
    }
    let limits = Limits {
        max_body: args.max_body,
        ..Limits::default()
    };
    let mut deploy = murano_engine::deploy::DeployOptions::default();
    deploy.limits.fuel = Some(args.max_fuel);
    let options = WorkerOptions {
        workers: args.workers,
        queue: args.queue,
        offline: crate::cloud_file::offline(args.cloud.as_deref())?,
        deploy,
        ..WorkerOptions::default()
    };
    let (system, warnings) = system_packages(&args.catalog);
    let catalog = EngineCatalog::new(system);
    let engine = Arc::new(WorkerEngine::start(&options, catalog)?);
    let app = Arc::new(App::new(
        db,
        Policy::default(),
        engine.clone(),
        limits.clone(),
    ));
    engine.attach(&app);
    let project = args
        .project
        .clone()
        .or_else(|| std::env::var("MURANO_API_PROJECT").ok())
        .filter(|p| !p.is_empty());
    if let Some(p) = project {
        let _ = app.identity.set(murano_api::identity::LocalIdentity::new(
            p,
            args.user.clone(),
        ));
    }
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    let cfg = ServeConfig {
        listen: args.listen,
        token,
        limits,
        workers,
    };
    // The dashboard's pages share the port (issue 34).
    murano_api::server::serve_blocking_with(app, cfg, murano_dashboard::router, |addr| {
        eprintln!("murano serve: listening on http://{addr}/v1");
        let _ = writeln!(
            std::io::stderr(),
            "murano serve: dashboard at http://{addr}/"
        );
        // Whoever started the server may have stopped reading after the
        // address line: a warning that cannot be written is dropped.
        for w in &warnings {
            let _ = writeln!(std::io::stderr(), "{w}");
        }
    })
    .map_err(|e| e.to_string())
}
