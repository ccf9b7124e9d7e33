//! Dry-run deployments: an environment's object model deployed as
//! Murano's engine deploys it (`murano/common/engine.py`,
//! `TaskExecutor`), against a [`Host`] (by default the deterministic
//! [`OfflineHost`]), with everything the system classes did recorded.
//!
//! The steps are Murano's: load the model (`Objects`, then `Attributes`),
//! collect the objects unreachable from the root, call the action's
//! method (`deploy`) on its object, then finalise (serialise) the model.
//! An exception ends the task at its stage (`<load>`, `<GC>`, or the
//! method name) and the task's reporter sends `report_error(root,
//! str(exception))`; after an exception in the method the model is still
//! finalised.
//!
//! Packages come as their files ([`PackageFiles`]): the library does no
//! I/O.

use std::sync::Arc;

use murano_yaql::eval::Value;
use serde_json::{json, Map, Value as Json};

pub use crate::api::package::{PackageError, PackageFiles, MAX_FILE_BYTES, MAX_PACKAGE_FILES};
use crate::host::{Host, OfflineHost, Recording, SystemClasses};
use crate::{ClassSet, ClassSetOptions, Engine, EngineBuilder, EngineError, Limits, Receiver};

/// The class set of `packages` (in lookup order): each package's classes
/// as its manifest lists them; `io.murano` also gets the engine's and the
/// offline host's system classes.
pub fn class_set(packages: &[PackageFiles]) -> Result<ClassSet, EngineError> {
    crate::class_set_with(packages, &ClassSetOptions::default())
        .map(|(set, _)| set)
        .map_err(|e| *e.error)
}

/// The project id of the environment wrapper ([`wrap_applications`]).
pub const WRAPPER_PROJECT: &str = "b3b1a1a0c0d94f7e8a5e0d2f4c6a8e01";
/// The user id of the environment wrapper.
pub const WRAPPER_USER: &str = "u0000000000000000000000000000001";
/// The environment id of the environment wrapper.
pub const WRAPPER_ENVIRONMENT: &str = "e0000000000000000000000000000001";

/// Options of [`dry_run`].
#[derive(Debug, Clone)]
pub struct DeployOptions {
    /// The engine's limits.
    pub limits: Limits,
    /// Longest final model, as the length of its text: a model that
    /// shares one big string or list is small in memory and can be
    /// exponentially long when written out, so a longer one ends the
    /// deployment at `<finalize>` instead of being expanded. Default
    /// [`DEFAULT_MAX_MODEL_TEXT`].
    pub max_model_text: usize,
}

/// The [`DeployOptions::max_model_text`] default: 16 MiB.
pub const DEFAULT_MAX_MODEL_TEXT: usize = 16 << 20;

impl Default for DeployOptions {
    fn default() -> Self {
        DeployOptions {
            limits: Limits::default(),
            max_model_text: DEFAULT_MAX_MODEL_TEXT,
        }
    }
}

/// What a dry-run deployment did.
#[derive(Debug, Clone, PartialEq)]
pub struct DeployPlan {
    /// `{"ok": true, "result": ...}` or `{"raised": {stage, type,
    /// message, murano_names?, murano_message?, frames?}}`.
    pub outcome: Json,
    /// Host calls, Heat operations, agent plans and reports.
    pub recording: Recording,
    /// Logger lines `{logger, level, message}`.
    pub log: Vec<Json>,
    /// Errors Murano's executor mutes and logs as warnings (a `.destroy`
    /// that raised; see [`Engine::take_warnings`]): not in the oracle's
    /// JSON, which has Murano's application log only.
    pub warnings: Vec<String>,
    /// The finalised model (`Objects`, `ObjectsCopy`, `Attributes`), null
    /// when the load failed.
    pub final_model: Json,
}

impl DeployPlan {
    /// The plan as one JSON object (the deploy oracle's field names).
    pub fn to_json(&self) -> Json {
        json!({
            "outcome": self.outcome,
            "host_calls": self.recording.host_calls,
            "heat": self.recording.heat,
            "agent_plans": self.recording.agent_plans,
            "reports": self.recording.reports,
            "log": self.log,
            "final_model": self.final_model,
        })
    }

    /// Whether the deployment ended without an exception.
    pub fn succeeded(&self) -> bool {
        self.outcome.get("ok").is_some()
    }
}

/// Applications wrapped in an environment as murano-api wraps them for a
/// deployment (a new environment with the Neutron driver: its default
/// network, the project and user ids of [`WRAPPER_PROJECT`] and
/// [`WRAPPER_USER`]), named `oracle-env` as the deploy oracle names it
/// (the conformance suites compare with it; see
/// [`wrap_applications_named`]).
pub fn wrap_applications(applications: Vec<Json>) -> Json {
    wrap_applications_named(applications, "oracle-env")
}

/// [`wrap_applications`] with the environment named `name` (its network
/// `<name>-network`).
pub fn wrap_applications_named(applications: Vec<Json>, name: &str) -> Json {
    json!({
        "Objects": {
            "?": {"id": WRAPPER_ENVIRONMENT, "type": "io.murano.Environment", "metadata": {}},
            "name": name,
            "defaultNetworks": {
                "environment": {
                    "?": {"id": "e0000000000000000000000000000002",
                          "type": "io.murano.resources.NeutronNetwork"},
                    "name": format!("{name}-network")
                },
                "flat": null
            },
            "applications": applications
        },
        "Attributes": [],
        "project_id": WRAPPER_PROJECT,
        "user_id": WRAPPER_USER
    })
}

fn frames_json(e: &EngineError) -> Json {
    Json::Array(
        e.frames
            .iter()
            .rev()
            .map(|f| {
                json!({
                    "file": f.file,
                    "line": f.line,
                    "column": f.column,
                    "method": f.method,
                    "class": f.class,
                })
            })
            .collect(),
    )
}

/// `str(exception)` as the task's reporter sends it.
fn exception_text(e: &EngineError, wrapped: bool) -> String {
    if wrapped {
        let names = e.murano_names();
        format!("[{}]: {}", names.join(", "), e.message)
    } else {
        e.message.clone()
    }
}

fn raised(stage: &str, e: &EngineError) -> Json {
    let wrapped = stage != "<load>" && stage != "<GC>";
    let mut m = Map::new();
    m.insert("stage".into(), json!(stage));
    if wrapped {
        m.insert("type".into(), json!("MuranoPlException"));
        m.insert("murano_names".into(), json!(e.murano_names()));
        m.insert("murano_message".into(), json!(e.message));
        m.insert("message".into(), json!(exception_text(e, true)));
        m.insert("frames".into(), frames_json(e));
    } else {
        m.insert("type".into(), json!(e.python_type()));
        m.insert("message".into(), json!(e.message));
        if !e.frames.is_empty() {
            m.insert("frames".into(), frames_json(e));
        }
    }
    json!({ "raised": m })
}

/// Deploys `model` (the task's model: `Objects`, `Attributes`, ...) over
/// `packages` against `host`, running `method` (usually `deploy`) of the
/// object `object_id` (the model root when `None`).
pub fn dry_run_task(
    packages: &[PackageFiles],
    host: Arc<dyn Host>,
    model: &Json,
    object_id: Option<&str>,
    method: &str,
    options: &DeployOptions,
) -> DeployPlan {
    let resources = crate::api::package::resources_of(packages);
    let system = SystemClasses::new(host, resources);
    let env_id = object_id
        .map(str::to_owned)
        .or_else(|| {
            model
                .pointer("/Objects/?/id")
                .and_then(Json::as_str)
                .map(str::to_owned)
        })
        .unwrap_or_default();
    system.set_environment(&env_id);
    let fail = |stage: &str, e: &EngineError, system: &SystemClasses| {
        system.report(
            None,
            &exception_text(e, stage != "<load>" && stage != "<GC>"),
            "error",
        );
    };
    let builder = match EngineBuilder::from_packages(packages) {
        Ok(b) => b,
        Err(e) => {
            fail("<load>", &e, &system);
            return DeployPlan {
                outcome: raised("<load>", &e),
                recording: system.recording(),
                log: Vec::new(),
                warnings: Vec::new(),
                final_model: Json::Null,
            };
        }
    };
    let engine = system
        .install(builder.limits(options.limits.clone()))
        .build();
    run_task(
        &engine,
        &system,
        model,
        &env_id,
        method,
        options.max_model_text,
    )
}

/// Murano's package loader picks the package of an object's class by the
/// header's `classVersion` (`load_class_package(type, spec)`): a class
/// whose package version does not fit is `NoPackageForClassFound`, before
/// anything of the model is loaded.
pub(crate) fn check_class_versions(
    engine: &Engine,
    value: &Json,
    depth: usize,
) -> Result<(), EngineError> {
    if depth > 256 {
        return Ok(());
    }
    match value {
        Json::Object(m) => {
            if let Some(Json::Object(h)) = m.get("?") {
                let version = h.get("classVersion").filter(|v| !v.is_null());
                let type_name = h.get("type").and_then(Json::as_str);
                if let (Some(v), Some(t)) = (version, type_name) {
                    let name = t.split('/').next().unwrap_or(t);
                    let text = match v {
                        Json::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    let classes = engine.classes();
                    if let Some(class) = classes.find(name) {
                        let scalar = murano_dsl::version::YamlScalar::from(text);
                        let fits = murano_dsl::version::parse_version_spec(&scalar)
                            .ok()
                            .zip(classes.registry().class_version(class))
                            .is_none_or(|(spec, version)| spec.matches(version));
                        if !fits {
                            return Err(EngineError::dsl(
                                "NoPackageForClassFound",
                                format!("Package for class \"{name}\" is not found"),
                            ));
                        }
                    }
                }
            }
            for v in m.values() {
                check_class_versions(engine, v, depth + 1)?;
            }
            Ok(())
        }
        Json::Array(items) => {
            for v in items {
                check_class_versions(engine, v, depth + 1)?;
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// The model a task returns when it could not load it: its `Objects` and
/// `Attributes` as given.
fn unloaded(model: &Json) -> Json {
    json!({
        "Objects": model.get("Objects").cloned().unwrap_or(Json::Null),
        "Attributes": model.get("Attributes").cloned().unwrap_or_else(|| json!([])),
    })
}

fn run_task(
    engine: &Engine,
    system: &SystemClasses,
    model: &Json,
    env_id: &str,
    method: &str,
    max_model_text: usize,
) -> DeployPlan {
    let take_log = |engine: &Engine| -> Vec<Json> {
        engine
            .take_log()
            .into_iter()
            .map(|r| {
                json!({
                    "logger": format!("applications.{}", r.logger),
                    "level": r.level,
                    "message": r.message,
                })
            })
            .collect()
    };
    let finish = |outcome: Json, final_model: Json, engine: &Engine| DeployPlan {
        outcome,
        recording: system.recording(),
        log: take_log(engine),
        warnings: engine.take_warnings(),
        final_model,
    };
    // Attributes: [[object, class, key, value], ...]
    if let Some(attrs) = model.get("Attributes").and_then(Json::as_array) {
        for a in attrs {
            if let Some(items) = a.as_array() {
                if let (Some(o), Some(c), Some(k)) = (
                    items.first().and_then(Json::as_str),
                    items.get(1).and_then(Json::as_str),
                    items.get(2).and_then(Json::as_str),
                ) {
                    let v = items.get(3).map(crate::host::decode).unwrap_or_default();
                    engine.add_attribute(o, c, k, v);
                }
            }
        }
    }
    let objects = model.get("Objects").cloned().unwrap_or(Json::Null);
    if let Err(e) = check_class_versions(engine, &objects, 0) {
        system.report(None, &exception_text(&e, false), "error");
        return finish(raised("<load>", &e), unloaded(model), engine);
    }
    let load_model = json!({ "Objects": objects });
    let root = match engine.load_model(&crate::host::decode(&load_model)) {
        Ok(r) => r,
        Err(e) => {
            system.report(None, &exception_text(&e, false), "error");
            return finish(raised("<load>", &e), unloaded(model), engine);
        }
    };
    if let Err(e) = engine.collect_garbage() {
        system.report(None, &exception_text(&e, false), "error");
        return finish(raised("<GC>", &e), unloaded(model), engine);
    }
    let target = engine.object(env_id).or(root);
    let outcome = match target {
        None => {
            let e = EngineError::dsl(
                "NoObjectFoundError",
                format!("Object \"{env_id}\" is not found in object store"),
            );
            system.report(None, &exception_text(&e, false), "error");
            return finish(raised("<load>", &e), unloaded(model), engine);
        }
        Some(obj) => match engine.call(&Receiver::Object(obj), method, vec![], vec![]) {
            Ok(v) => json!({"ok": true, "result": crate::host::encode(engine, &v)}),
            Err(e) => {
                system.report(None, &exception_text(&e, true), "error");
                raised(method, &e)
            }
        },
    };
    // Murano's executor.finalize: objects the model does not hold are
    // destroyed first, then the model is serialised.
    if let Err(e) = engine.prepare_finalize() {
        return finish(raised("<finalize>", &e), Json::Null, engine);
    }
    let final_model = match engine.finalize().and_then(|v| {
        // Measured first (each shared part once): expanding is what costs.
        v.check_printed_len(max_model_text)
            .map_err(|e| EngineError::from_yaql(&e))?;
        Ok(v)
    }) {
        Ok(v) => murano_dsl::yaml::convert::to_json(&v, &Default::default()),
        Err(e) => {
            return finish(raised("<finalize>", &e), Json::Null, engine);
        }
    };
    finish(outcome, final_model, engine)
}

/// [`dry_run_task`] of the environment's `deploy` against the
/// [`OfflineHost`] with its defaults.
pub fn dry_run(packages: &[PackageFiles], model: &Json) -> DeployPlan {
    dry_run_task(
        packages,
        Arc::new(OfflineHost::default()),
        model,
        None,
        "deploy",
        &DeployOptions::default(),
    )
}

/// Values as JSON for a caller that has only the plan (the object model
/// encoding of [`murano_dsl::yaml::convert::to_json`]).
pub fn value_to_json(value: &Value) -> Json {
    murano_dsl::yaml::convert::to_json(value, &Default::default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn files(list: &[(&str, &str)]) -> BTreeMap<String, Arc<Vec<u8>>> {
        list.iter()
            .map(|(p, t)| ((*p).to_owned(), Arc::new(t.as_bytes().to_vec())))
            .collect()
    }

    /// A tiny core library (the classes the demo needs) and a demo
    /// application that pushes a stack, calls an agent and reports.
    fn packages() -> Vec<PackageFiles> {
        let core = PackageFiles::from_files(
            "io.murano",
            files(&[
                (
                    "manifest.yaml",
                    "Format: 1.4\nFullName: io.murano\nClasses:\n  io.murano.Object: Object.yaml\n  \
                     io.murano.system.HeatStack: HeatStack.yaml\n  io.murano.system.Agent: Agent.yaml\n  \
                     io.murano.system.Resources: Resources.yaml\n  io.murano.system.StatusReporter: Reporter.yaml\n",
                ),
                ("Classes/Object.yaml", "Name: io.murano.Object\n"),
                ("Classes/HeatStack.yaml", "Name: io.murano.system.HeatStack\n"),
                ("Classes/Agent.yaml", "Name: io.murano.system.Agent\n"),
                ("Classes/Resources.yaml", "Name: io.murano.system.Resources\n"),
                ("Classes/Reporter.yaml", "Name: io.murano.system.StatusReporter\n"),
            ]),
        )
        .unwrap();
        let demo = PackageFiles::from_files(
            "demo",
            files(&[
                (
                    "manifest.yaml",
                    "Format: 1.4\nFullName: demo\nVersion: 1.2.3\nClasses:\n  demo.App: App.yaml\n",
                ),
                (
                    "Classes/App.yaml",
                    "Namespaces:\n  =: demo\n  sys: io.murano.system\nName: App\nMethods:\n  deploy:\n    Scope: Public\n    Body:\n      \
                     - $stack: new(sys:HeatStack, name => randomName(), description => demo)\n      \
                     - $stack.updateTemplate({resources => {a => {type => 'OS::Heat::None'}}})\n      \
                     - $stack.updateTemplate({resources => {b => {type => 'OS::Heat::None'}}})\n      \
                     - $stack.push()\n      \
                     - $reporter: new(sys:StatusReporter, environment => $this)\n      \
                     - $reporter.report($this, 'pushed')\n      \
                     - $agent: new(sys:Agent, host => $this)\n      \
                     - $resources: new(sys:Resources)\n      \
                     - Return: $agent.call({FormatVersion => '2.0.0', Scripts => {run => {Type => Application, EntryPoint => 'run.sh'}}}, $resources)\n",
                ),
                ("Resources/scripts/run.sh", "echo hi\n"),
            ]),
        )
        .unwrap();
        vec![demo, core]
    }

    fn model() -> Json {
        json!({"Objects": {"?": {"id": "app1", "type": "demo.App"}}, "Attributes": []})
    }

    #[test]
    fn a_deployment_records_heat_agents_and_reports() {
        let plan = dry_run(&packages(), &model());
        assert!(plan.succeeded(), "{}", plan.outcome);
        let heat = &plan.recording.heat;
        assert_eq!(heat.len(), 1);
        assert_eq!(heat[0]["op"], "create");
        assert_eq!(heat[0]["stack"], "abcdej5399reo1");
        // Both updates merged, version and description added.
        let t = &heat[0]["template"];
        assert_eq!(t["heat_template_version"], "2013-05-23");
        assert_eq!(t["description"], "demo");
        assert!(t["resources"]["a"].is_object() && t["resources"]["b"].is_object());
        let plans = &plan.recording.agent_plans;
        assert_eq!(plans.len(), 1);
        assert_eq!(plans[0]["queue"], "eapp1-happ1");
        let p = &plans[0]["plan"];
        let file = p["Scripts"]["run"]["EntryPoint"].as_str().unwrap();
        assert_eq!(p["Files"][file]["Body"], "echo hi\n");
        assert_eq!(p["Files"][file]["BodyType"], "Text");
        assert_eq!(p["Stamp"], 1);
        assert_eq!(plan.recording.reports[0]["text"], "pushed");
        let methods: Vec<&str> = plan
            .recording
            .host_calls
            .iter()
            .filter_map(|c| c["method"].as_str())
            .collect();
        assert_eq!(
            methods,
            [
                "__init__",
                "updateTemplate",
                "updateTemplate",
                "push",
                "__init__",
                "report",
                "__init__",
                "__init__",
                "call",
                "string"
            ]
        );
        assert_eq!(
            plan.final_model["Objects"]["?"]["type"],
            "demo.App/1.2.3@demo"
        );
    }

    #[test]
    fn a_failed_load_returns_the_model_and_reports_the_error() {
        let model =
            json!({"Objects": {"?": {"id": "x", "type": "demo.Missing"}}, "Attributes": []});
        let plan = dry_run(&packages(), &model);
        assert_eq!(plan.outcome["raised"]["stage"], "<load>");
        assert_eq!(plan.outcome["raised"]["type"], "NoClassFound");
        assert_eq!(plan.final_model["Objects"], model["Objects"]);
        assert_eq!(plan.recording.reports[0]["level"], "error");
    }

    #[test]
    fn runaway_deployments_stop_at_the_fuel_limit() {
        let mut p = packages();
        p[0].files.insert(
            "Classes/App.yaml".into(),
            Arc::new(b"Name: demo.App\nMethods:\n  deploy:\n    Scope: Public\n    Body:\n      - While: 1 = 1\n        Do: []\n".to_vec()),
        );
        let options = DeployOptions {
            limits: Limits {
                fuel: Some(1000),
                ..Limits::default()
            },
            ..DeployOptions::default()
        };
        let plan = dry_run_task(
            &p,
            Arc::new(OfflineHost::default()),
            &model(),
            None,
            "deploy",
            &options,
        );
        assert_eq!(
            plan.outcome["raised"]["murano_names"][0],
            "murano_engine.LimitExceeded"
        );
    }

    #[test]
    fn applications_are_wrapped_in_an_environment() {
        let env = wrap_applications(vec![json!({"?": {"id": "a", "type": "demo.App"}})]);
        assert_eq!(env["Objects"]["applications"][0]["?"]["id"], "a");
        assert_eq!(env["Objects"]["?"]["type"], "io.murano.Environment");
        assert_eq!(env["project_id"], WRAPPER_PROJECT);
    }
}
