//! `murano env …` and `murano static-action`: environments kept in the
//! store (`--db`), composed of catalog applications, deployed, acted on
//! and deleted against the stateful offline cloud (`murano-env`).

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use clap::{Args, Subcommand, ValueEnum};
use murano_engine::deploy::{DeployOptions, PackageFiles};
use murano_engine::host::OfflineOptions;
use murano_env::model::{self, ApiReaction, NewEnvironment};
use murano_env::{run_static_task, CloudState};
use murano_store::{EnvTask, Store, StoredEnvironment};
use serde_json::{json, Map, Value as Json};

/// Output formats.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    /// Lines for people.
    Text,
    /// One JSON document.
    Json,
}

/// The store's default place: `$XDG_DATA_HOME/murano/murano.db`, else
/// `~/.local/share/murano/murano.db`; `MURANO_DB` overrides both.
pub(crate) fn default_db() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os("MURANO_DB").filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(p));
    }
    let base = std::env::var_os("XDG_DATA_HOME")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))
        .ok_or("no --db given and neither XDG_DATA_HOME nor HOME is set")?;
    Ok(base.join("murano").join("murano.db"))
}

/// Opens the store (`--db` or the default), creating its folder.
pub(crate) fn open_store(db: Option<&Path>) -> Result<Store, String> {
    let path = match db {
        Some(p) => p.to_owned(),
        None => default_db()?,
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    Store::open(&path).map_err(|e| e.to_string())
}

/// A fresh id: 32 hex digits from the clock, the process and a counter
/// (unique enough for one user's store; no randomness source needed).
fn new_id() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let low = (u64::from(std::process::id()) << 32) ^ n.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    format!("{nanos:016x}{low:016x}")
}

/// Manage environments: compose, deploy, act on and delete them.
///
/// Example: murano env create shop && murano env add shop io.murano.apps.MySql --set name=db
#[derive(Args)]
pub(crate) struct EnvArgs {
    #[command(subcommand)]
    command: EnvCommand,
    /// The store (default: `$XDG_DATA_HOME/murano/murano.db`, or
    /// `~/.local/share/murano/murano.db`; also `MURANO_DB`).
    #[arg(long, global = true)]
    db: Option<PathBuf>,
    /// The cloud description (YAML, shared with `murano ui --cloud`): its
    /// `host` mapping sets the offline host's answers (`fixed_ip`,
    /// `floating_ip`, `router`, `external_network`, `project_id`,
    /// `user_id`).
    #[arg(long, global = true)]
    cloud: Option<PathBuf>,
    /// Output format.
    #[arg(long, global = true, value_enum, default_value_t = Format::Text)]
    format: Format,
}

#[derive(Subcommand)]
enum EnvCommand {
    /// Create an environment (with its default network).
    Create {
        /// Its name.
        name: String,
    },
    /// List the environments.
    List,
    /// Show an environment: status, applications, pending changes.
    Show {
        /// Name or id.
        env: String,
    },
    /// Add an application: a class and property values, or an object model.
    Add {
        /// Name or id of the environment.
        env: String,
        /// The application's class (omit with --model).
        class: Option<String>,
        /// A property: `key=value` (JSON, else a string); `key=@name`
        /// points at the application of the environment with that name or
        /// id.
        #[arg(long = "set")]
        set: Vec<String>,
        /// An object model (JSON file) to add as it is.
        #[arg(long)]
        model: Option<PathBuf>,
        /// The application's name (`?.name`; default: its `name`
        /// property), by which `@name` and the other commands find it.
        #[arg(long)]
        name: Option<String>,
        /// A model builder (`CLASS.METHOD`, `Usage: Static` with the
        /// `io.murano.metadata.ModelBuilder` meta) whose result is the
        /// application; it gets the environment's object model as `model`
        /// and the `--arg` values.
        #[arg(long)]
        builder: Option<String>,
        /// An argument of the model builder: `key=value` (JSON, else a
        /// string).
        #[arg(long = "arg")]
        builder_args: Vec<String>,
        /// A package whose Dynamic UI forms make the application: a
        /// folder or .zip, or the name of a package imported into the
        /// catalog (`murano catalog import`), as the dashboard adds from
        /// the catalog; filled with the values of --values (as `murano ui
        /// --values` takes them). An application field takes the name or
        /// id of an application of the environment.
        #[arg(long, requires = "values", conflicts_with_all = ["class", "model", "builder"])]
        package: Option<String>,
        /// The forms' values for --package (YAML or JSON).
        #[arg(long, value_name = "FILE", requires = "package")]
        values: Option<PathBuf>,
    },
    /// Edit an application with a JSON patch (RFC 6902), as
    /// `environment-apps-edit`.
    Edit {
        /// Name or id of the environment.
        env: String,
        /// The application's name or id.
        app: String,
        /// The patch: JSON text, or @FILE.
        patch: String,
    },
    /// Remove an application (its objects are destroyed at the next deploy).
    Remove {
        /// Name or id of the environment.
        env: String,
        /// The application's name or id.
        app: String,
    },
    /// Deploy the environment's changes.
    Deploy {
        /// Name or id.
        env: String,
    },
    /// List the environment's deployments.
    Deployments {
        /// Name or id.
        env: String,
    },
    /// Show the reports and log lines of a deployment (the last by default).
    Log {
        /// Name or id.
        env: String,
        /// The deployment number.
        deployment: Option<i64>,
    },
    /// List the actions the deployed objects offer.
    Actions {
        /// Name or id.
        env: String,
    },
    /// Run an action (`<object id>_<method>` as `env actions` lists it).
    Action {
        /// Name or id.
        env: String,
        /// The action id.
        action: String,
        /// An argument: `key=value` (JSON, else a string).
        #[arg(long = "arg")]
        args: Vec<String>,
    },
    /// Delete the environment (its objects are destroyed, its stacks deleted).
    Delete {
        /// Name or id.
        env: String,
    },
}

/// Call a static method of a catalog class (`POST /v1/actions`), e.g. a
/// model builder.
///
/// Example: murano static-action io.example.Tools greet --arg name=world
#[derive(Args)]
pub(crate) struct StaticActionArgs {
    /// The class.
    class: String,
    /// The method (`Usage: Static`, `Scope: Public`).
    method: String,
    /// The package holding the class.
    #[arg(long)]
    package: Option<String>,
    /// An argument: `key=value` (JSON, else a string); `key=@ENV` passes
    /// that environment's object model (for model builders).
    #[arg(long = "arg")]
    args: Vec<String>,
    /// The store.
    #[arg(long)]
    db: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

fn parse_value(text: &str) -> Json {
    serde_json::from_str(text).unwrap_or_else(|_| Json::String(text.to_owned()))
}

fn split_pair(pair: &str) -> Result<(&str, &str), String> {
    pair.split_once('=')
        .filter(|(k, _)| !k.is_empty())
        .ok_or_else(|| format!("{pair:?}: expected key=value"))
}

/// The applications of a description (`services`).
fn services(description: &Json) -> Vec<Json> {
    description["Objects"]["services"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// The id of the application named (or with id) `name`.
fn app_id(description: &Json, name: &str) -> Result<String, String> {
    services(description)
        .iter()
        .find(|a| a["?"]["id"] == name || a["?"]["name"] == name || a["name"] == name)
        .and_then(|a| a["?"]["id"].as_str().map(str::to_owned))
        .ok_or_else(|| format!("no application {name} in the environment"))
}

/// The application the Dynamic UI forms of `package` make from the
/// values file `values`, for the environment `env_id` described by
/// `desc` (its applications are those application fields may name).
fn from_forms(
    store: &Store,
    env_id: &str,
    desc: &Json,
    package: &str,
    values: &Path,
    cloud: Option<&Path>,
) -> Result<Json, String> {
    let apps = services(desc)
        .iter()
        .filter_map(|a| {
            let h = &a["?"];
            Some(murano_ui::host::ExistingApp {
                id: h["id"].as_str()?.to_owned(),
                type_name: h["type"].as_str().unwrap_or("").to_owned(),
                name: h["name"]
                    .as_str()
                    .or(a["name"].as_str())
                    .unwrap_or("")
                    .to_owned(),
            })
        })
        .collect();
    let catalog = store
        .packages()
        .map_err(|e| e.to_string())?
        .into_iter()
        .map(|p| p.name)
        .collect();
    let package = forms_package(store, package)?;
    crate::ui::application_from_values(&package, values, cloud, env_id, apps, catalog)
}

/// The package `--package` names: a folder or zip when that path exists,
/// else a package of the catalog by name.
fn forms_package<'a>(store: &Store, package: &'a str) -> Result<crate::ui::UiPackage<'a>, String> {
    let path = Path::new(package);
    if path.exists() {
        return Ok(crate::ui::UiPackage::Path(path));
    }
    let Some(files) = store.package_files_of(package).map_err(|e| e.to_string())? else {
        return Err(format!(
            "{package}: no such file or folder, and no package of that name in the catalog (murano catalog import)"
        ));
    };
    let mut map = murano_packages::source::FileMap::default();
    for (name, bytes) in files {
        map.insert(&name, bytes.to_vec())
            .map_err(|e| format!("{package}: {e}"))?;
    }
    Ok(crate::ui::UiPackage::Files {
        label: package.to_owned(),
        files: map,
    })
}

fn working(env: &StoredEnvironment) -> Json {
    env.pending
        .clone()
        .unwrap_or_else(|| env.description.clone())
}

/// Packages for the engine: the store's catalog, then Murano's core
/// library from the catalog paths when the store has none.
fn engine_packages(store: &Store) -> Result<Vec<PackageFiles>, String> {
    let mut out = Vec::new();
    for (name, files) in store.package_files().map_err(|e| e.to_string())? {
        let mut p = murano_store::engine_package(&name, files).map_err(|e| e.to_string())?;
        p.root = p.name.clone();
        out.push(p);
    }
    if !out
        .iter()
        .any(|p| p.name == crate::core_library::CORE_PACKAGE)
    {
        for p in crate::deploy::packages(&[])? {
            if !out.iter().any(|q| q.name == p.name) {
                out.push(p);
            }
        }
    }
    Ok(out)
}

pub(crate) fn run(args: &EnvArgs) -> ExitCode {
    match go(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("murano: {e}");
            ExitCode::from(2)
        }
    }
}

fn env_json(e: &StoredEnvironment) -> Json {
    let apps: Vec<Json> = services(&working(e))
        .iter()
        .map(|a| json!({"id": a["?"]["id"], "type": a["?"]["type"], "name": a["name"]}))
        .collect();
    json!({"id": e.id, "name": e.name, "status": e.status, "status_text": e.status_text,
           "applications": apps, "pending": e.pending.is_some()})
}

fn go(args: &EnvArgs) -> Result<ExitCode, String> {
    let mut store = open_store(args.db.as_deref())?;
    let json_out = args.format == Format::Json;
    let find = |store: &Store, env: &str| store.environment(env).map_err(|e| e.to_string());
    match &args.command {
        EnvCommand::Create { name } => {
            let o = crate::cloud_file::offline(args.cloud.as_deref())?;
            let new = NewEnvironment {
                id: new_id(),
                name: name.clone(),
                network_id: new_id(),
                project_id: o.project_id.clone(),
                user_id: o.user_id.clone(),
            };
            let e = murano_env::Environment::new(&new);
            let stored = StoredEnvironment {
                id: e.id.clone(),
                name: e.name.clone(),
                status: e.status.as_str().into(),
                status_text: String::new(),
                description: e.description,
                pending: None,
                cloud: CloudState::default().to_json(),
            };
            store
                .create_environment(&stored)
                .map_err(|e| e.to_string())?;
            if json_out {
                outln!("{}", env_json(&stored));
            } else {
                outln!("created environment {} ({})", stored.name, stored.id);
            }
        }
        EnvCommand::List => {
            let list = store.environments().map_err(|e| e.to_string())?;
            if json_out {
                outln!("{}", Json::Array(list.iter().map(env_json).collect()));
            } else {
                for e in list {
                    outln!("{}\t{}\t{}", e.name, e.status, e.id);
                }
            }
        }
        EnvCommand::Show { env } => {
            let e = find(&store, env)?;
            if json_out {
                outln!("{}", env_json(&e));
            } else {
                outln!("{} ({})", e.name, e.id);
                outln!(
                    "status: {}{}",
                    e.status,
                    if e.status_text.is_empty() {
                        String::new()
                    } else {
                        format!(" ({})", e.status_text)
                    }
                );
                for a in services(&working(&e)) {
                    outln!(
                        "  {} {} {}",
                        a["?"]["id"].as_str().unwrap_or("?"),
                        a["?"]["type"].as_str().unwrap_or("?"),
                        a["name"].as_str().unwrap_or("")
                    );
                }
                if e.pending.is_some() {
                    outln!(
                        "changes not deployed yet: run `murano env deploy {}`",
                        e.name
                    );
                }
            }
        }
        EnvCommand::Add {
            env,
            class,
            set,
            model,
            name,
            builder,
            builder_args,
            package,
            values,
        } => {
            let e = find(&store, env)?;
            let mut desc = working(&e);
            let mut app = match (model, class, builder) {
                _ if package.is_some() => {
                    let (Some(package), Some(values)) = (package, values) else {
                        return Err("--package needs --values".into());
                    };
                    from_forms(&store, &e.id, &desc, package, values, args.cloud.as_deref())?
                }
                (_, _, Some(builder)) => build_application(&store, &desc, builder, builder_args)?,
                (Some(path), _, None) => {
                    let text = std::fs::read_to_string(path)
                        .map_err(|err| format!("{}: {err}", path.display()))?;
                    serde_json::from_str::<Json>(&text)
                        .map_err(|err| format!("{}: {err}", path.display()))?
                }
                (None, Some(class), None) => json!({"?": {"type": class}}),
                (None, None, None) => return Err("give a class, --model or --builder".into()),
            };
            let obj = app
                .as_object_mut()
                .ok_or("an application model must be a JSON object")?;
            for pair in set {
                let (k, v) = split_pair(pair)?;
                let value = match v.strip_prefix('@') {
                    Some(name) => Json::String(app_id(&desc, name)?),
                    None => parse_value(v),
                };
                obj.insert(k.to_owned(), value);
            }
            let header = obj
                .entry("?")
                .or_insert_with(|| json!({}))
                .as_object_mut()
                .ok_or("the application's ? header must be a mapping")?;
            let shown = name.clone().or_else(|| {
                set.iter()
                    .find_map(|p| p.strip_prefix("name=").map(str::to_owned))
            });
            if let Some(n) = shown {
                header.insert("name".into(), json!(n));
            }
            if header.get("type").and_then(Json::as_str).is_none() {
                return Err("the application has no ?.type".into());
            }
            let id = match header.get("id").and_then(Json::as_str) {
                Some(id) => id.to_owned(),
                None => {
                    let id = new_id();
                    header.insert("id".into(), json!(id));
                    id
                }
            };
            let objects = desc["Objects"]
                .as_object_mut()
                .ok_or("the environment has no object model")?;
            let shown_app = app.clone();
            match objects.entry("services").or_insert_with(|| json!([])) {
                Json::Array(a) => a.push(app),
                _ => return Err("the environment's services are not a list".into()),
            }
            store
                .set_pending(&e.id, Some(&desc))
                .map_err(|e| e.to_string())?;
            if json_out {
                outln!("{}", json!({"added": id, "application": shown_app}));
            } else {
                outln!("added application {id}");
            }
        }
        EnvCommand::Edit { env, app, patch } => {
            let e = find(&store, env)?;
            let text = match patch.strip_prefix('@') {
                Some(file) => {
                    std::fs::read_to_string(file).map_err(|err| format!("{file}: {err}"))?
                }
                None => patch.clone(),
            };
            let patch: Json = serde_json::from_str(&text).map_err(|err| format!("patch: {err}"))?;
            let mut desc = working(&e);
            let id = app_id(&desc, app)?;
            let apps = desc["Objects"]["services"]
                .as_array_mut()
                .ok_or("no applications")?;
            let target = apps
                .iter_mut()
                .find(|a| a["?"]["id"] == id.as_str())
                .ok_or("no application")?;
            let mut edited = target.clone();
            murano_env::patch::apply(&mut edited, &patch).map_err(|e| e.to_string())?;
            *target = edited;
            store
                .set_pending(&e.id, Some(&desc))
                .map_err(|e| e.to_string())?;
            if json_out {
                outln!("{}", json!({"edited": id}));
            } else {
                outln!("edited application {id}");
            }
        }
        EnvCommand::Remove { env, app } => {
            let e = find(&store, env)?;
            let mut desc = working(&e);
            let id = app_id(&desc, app)?;
            if let Some(a) = desc["Objects"]["services"].as_array_mut() {
                a.retain(|x| x["?"]["id"] != id.as_str());
            }
            store
                .set_pending(&e.id, Some(&desc))
                .map_err(|e| e.to_string())?;
            if json_out {
                outln!("{}", json!({"removed": id}));
            } else {
                outln!("removed application {id}");
            }
        }
        EnvCommand::Deploy { env } => {
            let e = find(&store, env)?;
            return execute(&mut store, args, &e, EnvTask::deploy(&e));
        }
        EnvCommand::Action {
            env,
            action,
            args: pairs,
        } => {
            let e = find(&store, env)?;
            let mut kwargs = Map::new();
            for pair in pairs {
                let (k, v) = split_pair(pair)?;
                kwargs.insert(k.to_owned(), parse_value(v));
            }
            let task =
                EnvTask::action(&e, action, Json::Object(kwargs)).map_err(|e| e.to_string())?;
            return execute(&mut store, args, &e, task);
        }
        EnvCommand::Delete { env } => {
            let e = find(&store, env)?;
            match EnvTask::delete(&e) {
                None => {
                    store.remove_environment(&e.id).map_err(|e| e.to_string())?;
                    if json_out {
                        outln!("{}", json!({"environment": "removed"}));
                    } else {
                        outln!("environment {} removed (it was never deployed)", e.name);
                    }
                }
                Some(task) => return execute(&mut store, args, &e, task),
            }
        }
        EnvCommand::Deployments { env } => {
            let e = find(&store, env)?;
            let list = store.deployments(&e.id).map_err(|e| e.to_string())?;
            if json_out {
                let items: Vec<Json> = list
                    .iter()
                    .map(|d| {
                        json!({"id": d.id, "kind": d.kind, "action": d.action,
                                    "state": d.state, "outcome": d.outcome})
                    })
                    .collect();
                outln!("{}", Json::Array(items));
            } else {
                for d in list {
                    let method = d.action["method"].as_str().unwrap_or("");
                    outln!("{}\t{}\t{}\t{}", d.id, d.kind, method, d.state);
                }
            }
        }
        EnvCommand::Log { env, deployment } => {
            let e = find(&store, env)?;
            let list = store.deployments(&e.id).map_err(|e| e.to_string())?;
            let d = match deployment {
                Some(n) => list.iter().find(|d| d.id == *n),
                None => list.last(),
            }
            .ok_or("no such deployment")?;
            let log = store.records(&d.task, "log").map_err(|e| e.to_string())?;
            if json_out {
                outln!(
                    "{}",
                    json!({"id": d.id, "reports": d.reports, "log": log, "outcome": d.outcome})
                );
            } else {
                for r in &d.reports {
                    outln!(
                        "[{}] {}",
                        r["level"].as_str().unwrap_or("info"),
                        r["text"].as_str().unwrap_or("")
                    );
                }
                for l in &log {
                    outln!(
                        "{} {}: {}",
                        l["level"].as_str().unwrap_or(""),
                        l["logger"].as_str().unwrap_or(""),
                        l["message"].as_str().unwrap_or("")
                    );
                }
            }
        }
        EnvCommand::Actions { env } => {
            let e = find(&store, env)?;
            let actions = model::list_actions(&e.description);
            if json_out {
                let items: Vec<Json> = actions
                    .iter()
                    .map(|(id, obj, a)| {
                        json!({"id": id, "object": obj, "name": a["name"],
                                               "title": a["title"], "enabled": a["enabled"]})
                    })
                    .collect();
                outln!("{}", Json::Array(items));
            } else {
                for (id, _, a) in actions {
                    let enabled = if a["enabled"] == json!(false) {
                        " (disabled)"
                    } else {
                        ""
                    };
                    outln!("{id}\t{}{enabled}", a["title"].as_str().unwrap_or(""));
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs an engine task for `env` through the store: committed as running,
/// run with a progress line per status report, stored with its records.
fn execute(
    store: &mut Store,
    args: &EnvArgs,
    env: &StoredEnvironment,
    task: EnvTask,
) -> Result<ExitCode, String> {
    let json_out = args.format == Format::Json;
    let packages = engine_packages(store)?;
    let options = crate::cloud_file::offline(args.cloud.as_deref())?;
    let progress = !json_out && std::io::stdout().is_terminal();
    let observer: Option<murano_env::cloud::ReportObserver> = (!json_out).then(|| {
        Arc::new(move |r: &murano_yaql::eval::Value| {
            let j = murano_engine::deploy::value_to_json(r);
            let text = j["text"].as_str().map(str::to_owned).unwrap_or_else(|| {
                format!(
                    "{} {}",
                    j["event"].as_str().unwrap_or(""),
                    j["payload"]["instance"].as_str().unwrap_or("")
                )
            });
            let level = j["level"].as_str().unwrap_or("info");
            if progress {
                outln!("\u{2026} [{level}] {text}");
            } else {
                outln!("[{level}] {text}");
            }
        }) as murano_env::cloud::ReportObserver
    });
    let kind = task.kind.clone();
    let run = store
        .run_env_task(env, &task, &packages, &options, observer)
        .map_err(|e| e.to_string())?;
    let summary = match &run.reaction {
        ApiReaction::Stored { status_text, .. } => status_text.clone(),
        ApiReaction::Removed => "Deletion finished; environment removed".to_owned(),
    };
    let record = &run.record;
    if json_out {
        outln!(
            "{}",
            json!({"deployment": run.deployment, "outcome": record.outcome,
                   "reports": record.recording.reports, "status": summary,
                   "api": run.reaction.to_json()})
        );
    } else {
        if let Some(r) = record.outcome.get("raised") {
            outln!(
                "error at {}: {}",
                r["stage"].as_str().unwrap_or("?"),
                r["message"].as_str().unwrap_or("")
            );
        } else if kind == "action" {
            outln!("result: {}", record.outcome["result"]);
        }
        outln!("{summary} (deployment {})", run.deployment);
    }
    Ok(if run.failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Runs a model builder (a static action given the environment's object
/// model as `model`) and returns the application model it built.
fn build_application(
    store: &Store,
    description: &Json,
    builder: &str,
    pairs: &[String],
) -> Result<Json, String> {
    let (class, method) = builder
        .rsplit_once('.')
        .ok_or_else(|| format!("{builder}: expected CLASS.METHOD"))?;
    let mut others = Map::new();
    for pair in pairs {
        let (k, v) = split_pair(pair)?;
        others.insert(k.to_owned(), parse_value(v));
    }
    let args = model::model_builder_args(description, "model", &Json::Object(others));
    let task = model::static_task(class, method, None, "=0", &args, "", "");
    let packages = engine_packages(store)?;
    let r = run_static_task(
        &packages,
        &CloudState::default(),
        &OfflineOptions::default(),
        &task,
        &DeployOptions::default(),
    );
    match r.outcome.get("raised") {
        Some(e) => Err(format!(
            "model builder {builder}: {}",
            e["message"].as_str().unwrap_or("failed")
        )),
        None => Ok(r.outcome["result"].clone()),
    }
}

pub(crate) fn run_static(args: &StaticActionArgs) -> ExitCode {
    let go = || -> Result<ExitCode, String> {
        let store = open_store(args.db.as_deref())?;
        let packages = engine_packages(&store)?;
        let mut kwargs = Map::new();
        for pair in &args.args {
            let (k, v) = split_pair(pair)?;
            let value = match v.strip_prefix('@') {
                Some(env) => {
                    let e = store.environment(env).map_err(|e| e.to_string())?;
                    working(&e)["Objects"].clone()
                }
                None => parse_value(v),
            };
            kwargs.insert(k.to_owned(), value);
        }
        let task = model::static_task(
            &args.class,
            &args.method,
            args.package.as_deref(),
            "=0",
            &Json::Object(kwargs),
            "",
            "",
        );
        let r = run_static_task(
            &packages,
            &CloudState::default(),
            &OfflineOptions::default(),
            &task,
            &DeployOptions::default(),
        );
        let status = model::static_http_status(&r.outcome);
        if args.format == Format::Json {
            outln!(
                "{}",
                json!({"outcome": r.outcome, "http_status": status, "log": r.log})
            );
        } else if let Some(e) = r.outcome.get("raised") {
            outln!(
                "error: {} ({})",
                e["message"].as_str().unwrap_or(""),
                e["type"].as_str().unwrap_or("")
            );
        } else {
            outln!(
                "{}",
                serde_json::to_string_pretty(&r.outcome["result"]).unwrap_or_default()
            );
        }
        Ok(if status == 200 {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        })
    };
    match go() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("murano: {e}");
            ExitCode::from(2)
        }
    }
}
