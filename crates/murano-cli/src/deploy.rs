//! `murano deploy --dry-run`: deploys an environment's object model as
//! Murano's engine does, against the engine's offline host (no cloud), and
//! prints the plan: Heat templates pushed, agent execution plans, status
//! reports, log lines and the final object model.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use murano_engine::deploy::{
    dry_run_task, wrap_applications, DeployOptions, DeployPlan, PackageFiles,
};
use murano_engine::host::{OfflineHost, OfflineOptions};
use murano_packages::source::PackageSource;
use serde_json::Value as Json;

use crate::core_library;
use crate::files::{find_packages, read_capped, read_package_or_message, DEFAULT_MAX_FILE_SIZE};

/// Output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Format {
    /// Readable text: templates and plans as YAML.
    Human,
    /// One JSON object (`outcome`, `host_calls`, `heat`, `agent_plans`,
    /// `reports`, `log`, `final_model`).
    Json,
}

/// Deploy an environment without a cloud and print what it would do.
///
/// MODEL is an environment's object model as murano-api sends it
/// (`{"Objects": ..., "Attributes": [...]}`), or one application's object
/// model (what `murano ui` produces), or a list of them: applications are
/// wrapped in a new environment with the default Neutron network.
///
/// Example: murano deploy --dry-run app.json --catalog ./packages
#[derive(clap::Args)]
pub(crate) struct DeployArgs {
    /// Run against the offline host (the only mode: nothing reaches a
    /// cloud).
    #[arg(long)]
    dry_run: bool,
    /// The object model (JSON; `-` for standard input).
    model: PathBuf,
    /// A folder of packages (folders or .zip files), or a package itself;
    /// repeatable. MURANO_CATALOG and Debian's murano-common are searched
    /// too for Murano's core library.
    #[arg(long)]
    catalog: Vec<PathBuf>,
    /// JSON list of agent replies, consumed in order by plans sent with
    /// `call` (each as murano-agent sends it, e.g. `{"FormatVersion":
    /// "2.0.0", "ErrorCode": 0, "Body": ...}`); afterwards, and by default,
    /// agents reply null.
    #[arg(long)]
    agent_results: Option<PathBuf>,
    /// JSON object changing the offline host's answers: `fixed_ip`,
    /// `floating_ip`, `router`, `external_network`, `dns` (list),
    /// `project_id`, `user_id`.
    #[arg(long)]
    host: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
}

fn read_json(path: &Path) -> Result<Json, String> {
    let bytes = if path.as_os_str() == "-" {
        let mut buf = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut buf)
            .map_err(|e| format!("standard input: {e}"))?;
        buf
    } else {
        read_capped(path, DEFAULT_MAX_FILE_SIZE)
            .map_err(|e| format!("{}: {e}", path.display()))?
            .ok_or_else(|| format!("{}: larger than 64 MiB", path.display()))?
    };
    serde_json::from_slice(&bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// The task model: an environment model as given, applications wrapped.
fn task_model(model: Json) -> Json {
    match model {
        Json::Object(ref m) if m.contains_key("Objects") => model,
        Json::Array(apps) => wrap_applications(apps),
        other => wrap_applications(vec![other]),
    }
}

fn load_package(path: &Path) -> Result<PackageFiles, String> {
    let loaded = read_package_or_message(path)?;
    let mut files = BTreeMap::new();
    for p in loaded.files.paths() {
        if let Some(bytes) = loaded.files.read(p) {
            files.insert(p.to_owned(), Arc::new(bytes.to_vec()));
        }
    }
    let label = path
        .file_name()
        .map(|n| n.to_string_lossy().trim_end_matches(".zip").to_owned())
        .unwrap_or_default();
    PackageFiles::from_files(&label, files).map_err(|e| format!("{}: {e}", path.display()))
}

/// Every package of the catalogs (the first of a name wins), then the
/// core library from the system catalog when still missing.
fn packages(catalog: &[PathBuf]) -> Result<Vec<PackageFiles>, String> {
    let mut out: Vec<PackageFiles> = Vec::new();
    let add_all = |root: &Path, out: &mut Vec<PackageFiles>| {
        for path in find_packages(root) {
            match load_package(&path) {
                Ok(p) if out.iter().any(|q| q.name == p.name) => {}
                Ok(mut p) => {
                    // Frames name the core libraries by their names.
                    if p.name.starts_with("io.murano") {
                        p.root = p.name.clone();
                    }
                    out.push(p);
                }
                Err(e) => eprintln!("murano: catalog: {e}"),
            }
        }
    };
    for root in core_library::catalog_paths(catalog) {
        add_all(&root, &mut out);
    }
    if !out.iter().any(|p| p.name == core_library::CORE_PACKAGE) {
        if let Some(root) = core_library::system_catalog() {
            add_all(&root, &mut out);
        }
    }
    if !out.iter().any(|p| p.name == core_library::CORE_PACKAGE) {
        return Err(core_library::missing_hint());
    }
    Ok(out)
}

fn host_options(args: &DeployArgs) -> Result<OfflineOptions, String> {
    let mut o = OfflineOptions::default();
    if let Some(path) = &args.host {
        let j = read_json(path)?;
        let Json::Object(m) = j else {
            return Err(format!("{}: expected a JSON object", path.display()));
        };
        for (k, v) in m {
            let text = || {
                v.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| format!("{}: {k} must be a string", path.display()))
            };
            match k.as_str() {
                "fixed_ip" => o.fixed_ip = text()?,
                "floating_ip" => o.floating_ip = text()?,
                "router" => o.router = text()?,
                "external_network" => o.external_network = text()?,
                "project_id" => o.project_id = text()?,
                "user_id" => o.user_id = text()?,
                "dns" => {
                    o.dns = v
                        .as_array()
                        .map(|a| {
                            a.iter()
                                .filter_map(|x| x.as_str().map(str::to_owned))
                                .collect()
                        })
                        .ok_or_else(|| format!("{}: dns must be a list", path.display()))?
                }
                other => return Err(format!("{}: unknown setting {other}", path.display())),
            }
        }
    }
    if let Some(path) = &args.agent_results {
        match read_json(path)? {
            Json::Array(items) => {
                o.agent_results = items.iter().map(murano_engine::host::decode).collect();
            }
            _ => return Err(format!("{}: expected a JSON list", path.display())),
        }
    }
    Ok(o)
}

/// A dry-run deploy of an object model (as `murano ui` makes it) against
/// the default offline host, with the packages of `catalog` (plus the
/// system catalog for the core library): whether it succeeded, and the
/// plan as `murano deploy --dry-run` prints it.
pub(crate) fn dry_run_text(model: Json, catalog: &[PathBuf]) -> Result<(bool, String), String> {
    let packages = packages(catalog)?;
    let plan = dry_run_task(
        &packages,
        Arc::new(OfflineHost::new(OfflineOptions::default())),
        &task_model(model),
        None,
        "deploy",
        &DeployOptions::default(),
    );
    Ok((plan.succeeded(), human(&plan)))
}

pub(crate) fn run(args: &DeployArgs) -> ExitCode {
    if !args.dry_run {
        eprintln!("murano: deploy: only --dry-run is supported (nothing reaches a cloud)");
        return ExitCode::from(2);
    }
    let prepared = (|| -> Result<_, String> {
        let model = task_model(read_json(&args.model)?);
        let options = host_options(args)?;
        let packages = packages(&args.catalog)?;
        Ok((model, options, packages))
    })();
    let (model, options, packages) = match prepared {
        Ok(p) => p,
        Err(e) => {
            eprintln!("murano: {e}");
            return ExitCode::from(2);
        }
    };
    let plan = dry_run_task(
        &packages,
        Arc::new(OfflineHost::new(options)),
        &model,
        None,
        "deploy",
        &DeployOptions::default(),
    );
    // Errors Murano mutes (a `.destroy` that raised): the outcome stays.
    for w in &plan.warnings {
        eprintln!("murano: warning: {w}");
    }
    match args.format {
        Format::Json => outln!(
            "{}",
            serde_json::to_string_pretty(&plan.to_json()).unwrap_or_default()
        ),
        Format::Human => outln!("{}", human(&plan)),
    }
    if plan.succeeded() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// A YAML rendering of JSON for reading (block style; strings quoted when
/// plain YAML would read them differently).
fn yaml(value: &Json, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    match value {
        Json::Object(m) if !m.is_empty() => {
            for (k, v) in m {
                out.push_str(&format!("{pad}{}:", scalar_text(k)));
                block_or_inline(v, indent, out);
            }
        }
        Json::Array(a) if !a.is_empty() => {
            for v in a {
                if v.as_object().is_some_and(|m| !m.is_empty()) {
                    // `- key: value` with the other keys under it.
                    let mut item = String::new();
                    yaml(v, indent + 2, &mut item);
                    out.push_str(&format!("{pad}- {}", &item[indent + 2..]));
                    continue;
                }
                out.push_str(&format!("{pad}-"));
                block_or_inline(v, indent, out);
            }
        }
        other => out.push_str(&format!("{pad}{}\n", inline(other))),
    }
}

fn block_or_inline(v: &Json, indent: usize, out: &mut String) {
    match v {
        Json::Object(m) if !m.is_empty() => {
            out.push('\n');
            yaml(v, indent + 2, out);
        }
        Json::Array(a) if !a.is_empty() => {
            out.push('\n');
            yaml(v, indent + 2, out);
        }
        Json::String(s) if s.contains('\n') => {
            out.push_str(" |\n");
            for line in s.lines() {
                out.push_str(&format!("{}{line}\n", " ".repeat(indent + 2)));
            }
        }
        other => out.push_str(&format!(" {}\n", inline(other))),
    }
}

fn inline(v: &Json) -> String {
    match v {
        Json::String(s) => scalar_text(s),
        Json::Object(_) => "{}".into(),
        Json::Array(_) => "[]".into(),
        other => other.to_string(),
    }
}

fn scalar_text(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_alphanumeric() || "-_./@".contains(c))
        && !s.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '.' || c == '@')
        && !matches!(
            s.to_ascii_lowercase().as_str(),
            "null" | "true" | "false" | "yes" | "no" | "on" | "off" | "y" | "n" | "~"
        );
    if plain {
        s.to_owned()
    } else {
        Json::String(s.to_owned()).to_string()
    }
}

fn human(plan: &DeployPlan) -> String {
    let mut out = String::new();
    match plan.outcome.get("raised") {
        None => out.push_str("Deployment: ok\n"),
        Some(r) => {
            out.push_str(&format!(
                "Deployment failed at {}: {}: {}\n",
                r["stage"].as_str().unwrap_or("?"),
                r["type"].as_str().unwrap_or("?"),
                r["message"].as_str().unwrap_or("")
            ));
            if let Some(frames) = r["frames"].as_array() {
                out.push_str("Traceback (most recent call last):\n");
                for f in frames {
                    out.push_str(&format!(
                        "  File \"{}\", line {}:{} in method {} of type {}\n",
                        f["file"].as_str().unwrap_or("?"),
                        f["line"],
                        f["column"],
                        f["method"].as_str().unwrap_or("?"),
                        f["class"].as_str().unwrap_or("?")
                    ));
                }
            }
        }
    }
    let rec = &plan.recording;
    out.push_str(&format!("\nHeat operations ({}):\n", rec.heat.len()));
    for (i, h) in rec.heat.iter().enumerate() {
        out.push_str(&format!(
            "[{}] {} stack {} (region {})\n",
            i + 1,
            h["op"].as_str().unwrap_or("?"),
            h["stack"].as_str().unwrap_or("?"),
            inline(&h["region"])
        ));
        if let Some(t) = h.get("template") {
            out.push_str("  template:\n");
            yaml(t, 4, &mut out);
        }
        for key in ["parameters", "files", "environment"] {
            if h.get(key)
                .is_some_and(|v| v.as_object().is_some_and(|m| !m.is_empty()))
            {
                out.push_str(&format!("  {key}:\n"));
                yaml(&h[key], 4, &mut out);
            }
        }
    }
    out.push_str(&format!(
        "\nAgent execution plans ({}):\n",
        rec.agent_plans.len()
    ));
    for (i, p) in rec.agent_plans.iter().enumerate() {
        let plan = &p["plan"];
        let scripts: Vec<String> = match &plan["Scripts"] {
            Json::Object(m) => m.keys().cloned().collect(),
            Json::Array(a) => vec![format!("{} script(s)", a.len())],
            _ => Vec::new(),
        };
        out.push_str(&format!(
            "[{}] to {} (instance {}, {}): {}\n",
            i + 1,
            p["queue"].as_str().unwrap_or("?"),
            p["host"].as_str().unwrap_or("?"),
            if p["wait_results"].as_bool() == Some(true) {
                "call"
            } else {
                "send"
            },
            plan["Name"]
                .as_str()
                .and_then(|n| n.lines().next())
                .unwrap_or("")
        ));
        if !scripts.is_empty() {
            out.push_str(&format!("  scripts: {}\n", scripts.join(", ")));
        }
        if plan.get("Parameters").is_some() {
            out.push_str("  parameters:\n");
            yaml(&plan["Parameters"], 4, &mut out);
        }
        out.push_str("  plan:\n");
        yaml(plan, 4, &mut out);
    }
    out.push_str(&format!("\nStatus reports ({}):\n", rec.reports.len()));
    for r in &rec.reports {
        match r["kind"].as_str() {
            Some("status") => out.push_str(&format!(
                "  {:<5} {}: {}\n",
                r["level"].as_str().unwrap_or("?"),
                r["id"].as_str().unwrap_or("?"),
                r["text"]
                    .as_str()
                    .map_or_else(|| r["text"].to_string(), str::to_owned)
            )),
            _ => out.push_str(&format!(
                "  {} {}\n",
                r["event"].as_str().unwrap_or("?"),
                r["payload"]
            )),
        }
    }
    if !plan.log.is_empty() {
        out.push_str(&format!("\nLog ({}):\n", plan.log.len()));
        for l in &plan.log {
            out.push_str(&format!(
                "  {} {}: {}\n",
                l["level"].as_str().unwrap_or("?"),
                l["logger"].as_str().unwrap_or("?"),
                l["message"].as_str().unwrap_or("")
            ));
        }
    }
    out.push_str("\nFinal object model:\n");
    out.push_str(&serde_json::to_string_pretty(&plan.final_model).unwrap_or_default());
    out
}
