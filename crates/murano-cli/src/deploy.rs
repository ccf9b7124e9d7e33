//! `murano deploy --dry-run`: deploys an environment's object model as
//! Murano's engine does, against the engine's offline host (no cloud), and
//! prints the plan: Heat templates pushed, agent execution plans, status
//! reports, log lines and the final object model.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use murano_engine::deploy::{
    dry_run_task, wrap_applications, wrap_applications_named, DeployOptions, DeployPlan,
    PackageFiles,
};
use murano_engine::host::{OfflineHost, OfflineOptions};
use serde_json::Value as Json;

use crate::files::{read_capped, read_package_or_message, DEFAULT_MAX_FILE_SIZE};
use crate::output::Capped;

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
    /// agents reply null (a failed deployment says how many calls got
    /// null).
    #[arg(long)]
    agent_results: Option<PathBuf>,
    /// JSON object changing the offline host's answers: `fixed_ip`,
    /// `floating_ip`, `router`, `external_network`, `dns` (list),
    /// `project_id`, `user_id`.
    #[arg(long, conflicts_with = "cloud")]
    host: Option<PathBuf>,
    /// The cloud description (YAML or JSON) that `murano ui --cloud` and
    /// `murano env --cloud` read: its `host` mapping sets the offline
    /// host's answers (`project_id`, `user_id`, `fixed_ip`, `floating_ip`,
    /// `router`, `external_network`, `dns`); see examples/ui/cloud.yaml.
    #[arg(long, value_name = "FILE")]
    cloud: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// Name the environment, ids and random names as the deploy oracle
    /// does (`oracle-env`, `feed0000…`, `abcdej5399reo1`), to compare with
    /// its recordings; by default they are made from the application's
    /// name (or the file's).
    #[arg(long)]
    oracle_names: bool,
    #[command(flatten)]
    output: crate::output::OutputArgs,
    #[command(flatten)]
    limits: crate::limits::LimitArgs,
}

/// The plan as `DeployPlan::to_json` lays it out, borrowed (written as it
/// is walked, within the output budget, not copied first).
#[derive(serde::Serialize)]
struct PlanJson<'a> {
    outcome: &'a Json,
    host_calls: &'a [Json],
    heat: &'a [Json],
    agent_plans: &'a [Json],
    reports: &'a [Json],
    log: &'a [Json],
    final_model: &'a Json,
}

impl<'a> PlanJson<'a> {
    fn new(plan: &'a DeployPlan) -> PlanJson<'a> {
        let rec = &plan.recording;
        PlanJson {
            outcome: &plan.outcome,
            host_calls: &rec.host_calls,
            heat: &rec.heat,
            agent_plans: &rec.agent_plans,
            reports: &rec.reports,
            log: &plan.log,
            final_model: &plan.final_model,
        }
    }
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

/// The task model: an environment model as given, applications wrapped
/// (in an environment named `name`, or the oracle's without one).
fn task_model(model: Json, name: Option<&str>) -> Json {
    let wrap = |apps: Vec<Json>| match name {
        Some(name) => wrap_applications_named(apps, name),
        None => wrap_applications(apps),
    };
    match model {
        Json::Object(ref m) if m.contains_key("Objects") => model,
        Json::Array(apps) => wrap(apps),
        other => wrap(vec![other]),
    }
}

/// The word output is named after: the environment's or first
/// application's `name`, else the last part of its type, else the file's
/// name; lower case letters, digits and dashes (at most 24), `app` when
/// nothing is left.
fn naming_word(model: &Json, file: &Path) -> String {
    let first = match model {
        Json::Object(m) => m.get("Objects").unwrap_or(model),
        Json::Array(apps) => apps.first().unwrap_or(&Json::Null),
        other => other,
    };
    let stem = file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .filter(|s| s != "-");
    let candidate = first["name"]
        .as_str()
        .map(str::to_owned)
        .or_else(|| {
            first["?"]["type"]
                .as_str()
                .and_then(|t| t.split('/').next())
                .and_then(|t| t.rsplit('.').next())
                .map(str::to_owned)
        })
        .or(stem)
        .unwrap_or_default();
    let mut word = String::new();
    for c in candidate.chars().flat_map(char::to_lowercase) {
        let c = if c.is_ascii_alphanumeric() { c } else { '-' };
        if !(c == '-' && (word.is_empty() || word.ends_with('-'))) {
            word.push(c);
        }
        if word.len() >= 24 {
            break;
        }
    }
    let word = word.trim_end_matches('-');
    if word.is_empty() {
        "app".to_owned()
    } else {
        word.to_owned()
    }
}

fn load_package(path: &Path) -> Result<PackageFiles, String> {
    let loaded = read_package_or_message(path)?;
    let label = path
        .file_name()
        .map(|n| n.to_string_lossy().trim_end_matches(".zip").to_owned())
        .unwrap_or_default();
    let mut package = PackageFiles::from_file_map(&label, &loaded.files)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    package
        .add_generated_classes(loaded.files)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(package)
}

/// Where the model holds no object Murano would load (a mapping with a
/// `?: {type: …}` header): the whole model, or an application of a list.
fn untyped_parts(model: &Json) -> Vec<String> {
    let typed = |v: &Json| v.pointer("/?/type").is_some_and(Json::is_string);
    match model {
        Json::Object(m) if m.contains_key("Objects") => {
            if typed(&m["Objects"]) {
                Vec::new()
            } else {
                vec!["the model's Objects".to_owned()]
            }
        }
        Json::Array(apps) if apps.iter().all(|a| !typed(a)) => vec!["the model".to_owned()],
        Json::Array(apps) => apps
            .iter()
            .enumerate()
            .filter(|(_, a)| !typed(a))
            .map(|(i, _)| format!("item {i} of the model"))
            .collect(),
        other if typed(other) => Vec::new(),
        _ => vec!["the model".to_owned()],
    }
}

/// Every package of the catalogs (the first of a name wins), then the
/// core library from the system catalog when still missing (the engine
/// commands' one loader, [`crate::engine_packages::load_catalog`]).
pub(crate) fn packages(catalog: &[PathBuf]) -> Result<Vec<PackageFiles>, String> {
    let read = |path: &Path| {
        load_package(path).map(|mut p| {
            // Frames name packages by their names, as `test` and `run`
            // do, not by their folders (often `package`).
            p.root = p.name.clone();
            p
        })
    };
    crate::engine_packages::load_catalog(&[], catalog, read, |p| &p.name)
}

fn host_options(args: &DeployArgs) -> Result<OfflineOptions, String> {
    let mut o = crate::cloud_file::offline(args.cloud.as_deref())?;
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
    let word = naming_word(&model, Path::new("model"));
    let plan = dry_run_task(
        &packages,
        Arc::new(OfflineHost::new(OfflineOptions {
            naming: Some(word.clone()),
            ..OfflineOptions::default()
        })),
        &task_model(model, Some(&word)),
        None,
        "deploy",
        &DeployOptions::default(),
    );
    let (text, _) = human(&plan, &packages, 0, &crate::output::OutputArgs::default());
    Ok((plan.succeeded(), text))
}

pub(crate) fn run(args: &DeployArgs) -> ExitCode {
    crate::output::set_limit(args.output.max_output);
    if !args.dry_run {
        eprintln!("murano: deploy: only --dry-run is supported (nothing reaches a cloud)");
        return ExitCode::from(2);
    }
    let prepared = (|| -> Result<_, String> {
        let model = read_json(&args.model)?;
        for part in untyped_parts(&model) {
            eprintln!(
                "murano: warning: {}: {part} has no typed object (no `?: {{type: CLASS, id: ID}}` header): Murano deploys nothing of it",
                args.model.display()
            );
        }
        let word = (!args.oracle_names).then(|| naming_word(&model, &args.model));
        let model = task_model(model, word.as_deref());
        let mut options = host_options(args)?;
        options.naming = word;
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
    let replies = options.agent_results.len();
    let plan = dry_run_task(
        &packages,
        Arc::new(OfflineHost::new(options)),
        &model,
        None,
        "deploy",
        &DeployOptions {
            limits: args.limits.limits(),
            ..DeployOptions::default()
        },
    );
    // Errors Murano mutes (a `.destroy` that raised): the outcome stays.
    for w in &plan.warnings {
        eprintln!(
            "murano: warning: {}",
            crate::output::trace(w, args.output.max_message)
        );
    }
    match args.format {
        Format::Json => {
            if let Err(e) = crate::output::print_json(&PlanJson::new(&plan)) {
                eprintln!("murano: cannot print the plan: {e}");
                return ExitCode::from(1);
            }
        }
        Format::Human => {
            let (text, cut) = human(&plan, &packages, replies, &args.output);
            outln!("{text}");
            if cut {
                return ExitCode::from(1);
            }
        }
    }
    if plan.succeeded() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// A YAML rendering of JSON for reading (block style; strings quoted when
/// plain YAML would read them differently).
fn yaml(value: &Json, indent: usize, out: &mut Capped) {
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
                    // The first key goes after the dash (its indent
                    // replaced by it): rendered alone, it is short.
                    let mut rest = m_items(v);
                    if let Some((k, first)) = rest.next() {
                        out.push_str(&format!("{pad}- {}:", scalar_text(k)));
                        block_or_inline(first, indent + 2, out);
                    }
                    for (k, x) in rest {
                        out.push_str(&format!("{pad}  {}:", scalar_text(k)));
                        block_or_inline(x, indent + 2, out);
                    }
                    continue;
                }
                out.push_str(&format!("{pad}-"));
                block_or_inline(v, indent, out);
            }
        }
        other => out.push_str(&format!("{pad}{}\n", inline(other))),
    }
}

/// The entries of an object (none for other values).
fn m_items(v: &Json) -> impl Iterator<Item = (&String, &Json)> {
    v.as_object().into_iter().flatten()
}

fn block_or_inline(v: &Json, indent: usize, out: &mut Capped) {
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
            for text in s.lines() {
                let text = crate::output::line(text);
                out.push_str(&format!("{}{text}\n", " ".repeat(indent + 2)));
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
        // JSON escapes C0 controls; the rest a terminal acts on too.
        crate::output::line(&Json::String(s.to_owned()).to_string()).into_owned()
    }
}

/// The source line a frame points at (`root/path`, line, column), with a
/// caret under the column, indented under the frame; nothing when the
/// file is not one of `packages`. The line is escaped and cut to `max`
/// bytes as messages are (a source line can be a whole file).
fn frame_source(
    packages: &[PackageFiles],
    file: &str,
    line: u64,
    column: u64,
    max: usize,
) -> String {
    let text = packages.iter().find_map(|p| {
        let path = file.strip_prefix(p.root.as_str())?.strip_prefix('/')?;
        p.files.get(path)
    });
    let Some(text) = text else {
        return String::new();
    };
    let text = String::from_utf8_lossy(text);
    let Some(source) = line
        .checked_sub(1)
        .and_then(|n| text.lines().nth(usize::try_from(n).ok()?))
    else {
        return String::new();
    };
    let source = source.trim_end();
    let indent = source.len() - source.trim_start().len();
    let column = usize::try_from(column.saturating_sub(1)).unwrap_or(0);
    let caret = source
        .get(indent..column.max(indent))
        .map_or(0, |s| s.chars().count());
    format!(
        "      {}\n      {}^\n",
        crate::output::message(&source[indent..], max),
        " ".repeat(caret)
    )
}

/// The plan as readable text, at most `output.max_output` bytes (and
/// whether it was cut); package text in messages escaped and cut to
/// `output.max_message` bytes. `replies` is how many agent replies were
/// given (`--agent-results`), to say when a failure may come from the
/// null the offline agents answer beyond them.
fn human(
    plan: &DeployPlan,
    packages: &[PackageFiles],
    replies: usize,
    output: &crate::output::OutputArgs,
) -> (String, bool) {
    use crate::output::{line, message};
    let max = output.max_message;
    let mut out = Capped::new(output.max_output);
    match plan.outcome.get("raised") {
        None => out.push_str("Deployment: ok\n"),
        Some(r) => {
            let names = r["murano_names"].as_array().cloned().unwrap_or_default();
            let empty = r["murano_message"].as_str().is_some_and(str::is_empty);
            // yaql's first(), single() and the like raise StopIteration
            // without a word.
            let hint = if empty && names.iter().any(|n| n == "StopIteration") {
                " (nothing found: first(), single() or a lookup met an empty collection)"
            } else {
                ""
            };
            out.push_str(&format!(
                "Deployment failed at {}: {}: {}{hint}\n",
                line(r["stage"].as_str().unwrap_or("?")),
                line(r["type"].as_str().unwrap_or("?")),
                message(r["message"].as_str().unwrap_or(""), max)
            ));
            let calls = plan
                .recording
                .agent_plans
                .iter()
                .filter(|p| p["wait_results"].as_bool() == Some(true))
                .count();
            if calls > replies {
                let defaulted = calls - replies;
                out.push_str(&format!(
                    "note: {defaulted} of {calls} agent call{} got null, the offline agents' default \
                     reply; if the value that failed came from an agent, give its replies with \
                     --agent-results FILE (a JSON list, in the order of the calls)\n",
                    if calls == 1 { "" } else { "s" }
                ));
            }
            if let Some(frames) = r["frames"].as_array() {
                out.push_str("Traceback (most recent call last):\n");
                for f in frames {
                    out.push_str(&format!(
                        "  File \"{}\", line {}:{} in method {} of type {}\n",
                        line(f["file"].as_str().unwrap_or("?")),
                        f["line"],
                        f["column"],
                        line(f["method"].as_str().unwrap_or("?")),
                        line(f["class"].as_str().unwrap_or("?"))
                    ));
                    out.push_str(&frame_source(
                        packages,
                        f["file"].as_str().unwrap_or(""),
                        f["line"].as_u64().unwrap_or(0),
                        f["column"].as_u64().unwrap_or(0),
                        max,
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
            line(h["op"].as_str().unwrap_or("?")),
            line(h["stack"].as_str().unwrap_or("?")),
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
            line(p["queue"].as_str().unwrap_or("?")),
            line(p["host"].as_str().unwrap_or("?")),
            if p["wait_results"].as_bool() == Some(true) {
                "call"
            } else {
                "send"
            },
            message(
                plan["Name"]
                    .as_str()
                    .and_then(|n| n.lines().next())
                    .unwrap_or(""),
                max
            )
        ));
        if !scripts.is_empty() {
            out.push_str(&format!("  scripts: {}\n", line(&scripts.join(", "))));
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
                line(r["level"].as_str().unwrap_or("?")),
                line(r["id"].as_str().unwrap_or("?")),
                message(
                    &r["text"]
                        .as_str()
                        .map_or_else(|| r["text"].to_string(), str::to_owned),
                    max
                )
            )),
            _ => out.push_str(&format!(
                "  {} {}\n",
                line(r["event"].as_str().unwrap_or("?")),
                message(&r["payload"].to_string(), max)
            )),
        }
    }
    if !plan.log.is_empty() {
        out.push_str(&format!("\nLog ({}):\n", plan.log.len()));
        for l in &plan.log {
            out.push_str(&format!(
                "  {} {}: {}\n",
                line(l["level"].as_str().unwrap_or("?")),
                line(l["logger"].as_str().unwrap_or("?")),
                message(l["message"].as_str().unwrap_or(""), max)
            ));
        }
    }
    out.push_str("\nFinal object model:\n");
    // Stops where the text reaches its limit.
    let _ = crate::output::write_json(&mut out, &plan.final_model);
    out.finish()
}
