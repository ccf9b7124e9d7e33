//! The environment's object model as murano-api keeps it and turns it
//! into engine tasks (`murano/db/services/environments.py`,
//! `murano/services/actions.py`, `murano/common/server.py`): the stored
//! description (applications under `services`), the task model
//! (applications under `applications`), edits of a redeploy, action
//! look-up in `_actions`, deletion tasks and the API's reaction to a
//! task's result.

use serde_json::{json, Map, Value as Json};

/// The class of an environment.
pub const ENVIRONMENT_CLASS: &str = "io.murano.Environment";
/// The class of the default network murano-api gives a new environment
/// (the Neutron driver).
pub const DEFAULT_NETWORK_CLASS: &str = "io.murano.resources.NeutronNetwork";
/// The token murano-api puts in the tasks it sends (none is needed
/// offline).
pub const TASK_TOKEN: &str = "oracle-token";

/// What a new environment is made of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewEnvironment {
    /// The environment id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// The id of its default network object.
    pub network_id: String,
    /// The owner project.
    pub project_id: String,
    /// The owner user.
    pub user_id: String,
}

/// Why a model could not be changed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelError {
    /// A path that leads nowhere (`path` as JSON-pointer-like text).
    #[error("no value at {0}")]
    NoPath(String),
    /// An edit of unknown kind or shape.
    #[error("invalid edit: {0}")]
    BadEdit(String),
    /// No application with this id.
    #[error("no application {0} in the environment")]
    NoApplication(String),
    /// No action with this id.
    #[error("action {0} is not found")]
    NoAction(String),
    /// The action exists but is disabled.
    #[error("cannot execute disabled action {0}")]
    DisabledAction(String),
}

/// The task model of a new environment's first deployment (murano-api's
/// environment template: the environment object, its name and default
/// network; `applications` as given).
pub fn initial_model(env: &NewEnvironment, applications: Vec<Json>) -> Json {
    json!({
        "Objects": {
            "?": {"id": env.id, "type": ENVIRONMENT_CLASS, "metadata": {}},
            "name": env.name,
            "defaultNetworks": {
                "environment": {
                    "?": {"id": env.network_id, "type": DEFAULT_NETWORK_CLASS},
                    "name": format!("{}-network", env.name)
                },
                "flat": null
            },
            "applications": applications
        },
        "Attributes": [],
        "project_id": env.project_id,
        "user_id": env.user_id
    })
}

/// `Objects` with the key `from` renamed `to` (kept in place).
fn rename_key(objects: &mut Json, from: &str, to: &str) {
    if let Json::Object(m) = objects {
        if !m.contains_key(from) {
            return;
        }
        let old = std::mem::take(m);
        for (k, v) in old {
            if k == from {
                m.insert(to.to_owned(), v);
            } else {
                m.insert(k, v);
            }
        }
    }
}

/// The model a task returned as murano-api stores it: applications under
/// `services`.
pub fn to_description(model: &Json) -> Json {
    let mut d = model.clone();
    if let Some(o) = d.get_mut("Objects") {
        rename_key(o, "applications", "services");
    }
    d
}

/// The task model of a stored description (`ActionServices
/// .create_action_task`): `Objects.?.id` is the environment id and the
/// services are `applications` again.
pub fn task_model(description: &Json, environment_id: &str) -> Json {
    let mut m = description.clone();
    if let Some(o) = m.get_mut("Objects").filter(|o| o.is_object()) {
        rename_key(o, "services", "applications");
        if let Some(Json::Object(h)) = o.get_mut("?") {
            h.insert("id".into(), json!(environment_id));
        }
    }
    m
}

fn path_text(path: &[Json]) -> String {
    path.iter()
        .map(|p| match p {
            Json::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect::<Vec<_>>()
        .join("/")
}

fn step<'a>(v: &'a mut Json, key: &Json) -> Option<&'a mut Json> {
    match (v, key) {
        (Json::Object(m), Json::String(k)) => m.get_mut(k),
        (Json::Array(a), Json::Number(n)) => n.as_u64().and_then(|i| a.get_mut(i as usize)),
        _ => None,
    }
}

/// Applies one edit of a redeploy (`{op: set|remove|append, path, value}`,
/// the lifecycle oracle's form: `path` from the model root).
pub fn apply_edit(model: &mut Json, edit: &Json) -> Result<(), ModelError> {
    let bad = || ModelError::BadEdit(edit.to_string());
    let path = edit.get("path").and_then(Json::as_array).ok_or_else(bad)?;
    let (last, parent_path) = path.split_last().ok_or_else(bad)?;
    let op = edit.get("op").and_then(Json::as_str).ok_or_else(bad)?;
    let mut cur = &mut *model;
    let target_path = if op == "append" {
        path.as_slice()
    } else {
        parent_path
    };
    for key in target_path {
        cur = step(cur, key).ok_or_else(|| ModelError::NoPath(path_text(path)))?;
    }
    let value = edit.get("value").cloned().unwrap_or(Json::Null);
    match op {
        "set" => match (cur, last) {
            (Json::Object(m), Json::String(k)) => {
                m.insert(k.clone(), value);
                Ok(())
            }
            (Json::Array(a), Json::Number(n)) => {
                let slot = n
                    .as_u64()
                    .and_then(|i| a.get_mut(i as usize))
                    .ok_or_else(|| ModelError::NoPath(path_text(path)))?;
                *slot = value;
                Ok(())
            }
            _ => Err(ModelError::NoPath(path_text(path))),
        },
        "remove" => match (cur, last) {
            (Json::Array(a), Json::Number(n)) => {
                let i = n
                    .as_u64()
                    .map(|i| i as usize)
                    .filter(|i| *i < a.len())
                    .ok_or_else(|| ModelError::NoPath(path_text(path)))?;
                a.remove(i);
                Ok(())
            }
            (Json::Object(m), Json::String(k)) => m
                .shift_remove(k)
                .map(|_| ())
                .ok_or_else(|| ModelError::NoPath(path_text(path))),
            _ => Err(ModelError::NoPath(path_text(path))),
        },
        "append" => match cur {
            Json::Array(a) => {
                a.push(value);
                Ok(())
            }
            _ => Err(ModelError::NoPath(path_text(path))),
        },
        _ => Err(bad()),
    }
}

/// An action found in a description.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundAction {
    /// The object that exposes it.
    pub object_id: String,
    /// The method name.
    pub method: String,
}

/// `ActionServices.find_action`: the first object (document order,
/// `Objects` then `ObjectsCopy`) whose `?._actions` has `action_id`;
/// disabled actions are refused.
pub fn find_action(description: &Json, action_id: &str) -> Result<FoundAction, ModelError> {
    fn walk(v: &Json, id: &str, depth: usize) -> Option<(String, Json)> {
        if depth > 512 {
            return None;
        }
        match v {
            Json::Object(m) => {
                if let Some(h) = m.get("?") {
                    if let Some(a) = h.get("_actions").and_then(|a| a.get(id)) {
                        let oid = h.get("id").and_then(Json::as_str).unwrap_or("");
                        return Some((oid.to_owned(), a.clone()));
                    }
                }
                m.values().find_map(|x| walk(x, id, depth + 1))
            }
            Json::Array(a) => a.iter().find_map(|x| walk(x, id, depth + 1)),
            _ => None,
        }
    }
    let found = ["Objects", "ObjectsCopy"]
        .iter()
        .filter_map(|k| description.get(*k))
        .find_map(|t| walk(t, action_id, 0));
    let Some((object_id, action)) = found else {
        return Err(ModelError::NoAction(action_id.to_owned()));
    };
    if action.get("enabled") == Some(&Json::Bool(false)) {
        return Err(ModelError::DisabledAction(action_id.to_owned()));
    }
    let method = action
        .get("name")
        .and_then(Json::as_str)
        .map(str::to_owned)
        .or_else(|| action_id.rsplit_once('_').map(|(_, m)| m.to_owned()))
        .unwrap_or_default();
    Ok(FoundAction { object_id, method })
}

/// Every action a description offers: (action id, object id, action).
pub fn list_actions(description: &Json) -> Vec<(String, String, Json)> {
    fn walk(v: &Json, out: &mut Vec<(String, String, Json)>, depth: usize) {
        if depth > 512 {
            return;
        }
        match v {
            Json::Object(m) => {
                if let Some(h) = m.get("?") {
                    if let Some(Json::Object(acts)) = h.get("_actions") {
                        let oid = h.get("id").and_then(Json::as_str).unwrap_or("");
                        for (k, a) in acts {
                            if !out.iter().any(|(id, _, _)| id == k) {
                                out.push((k.clone(), oid.to_owned(), a.clone()));
                            }
                        }
                    }
                }
                for x in m.values() {
                    walk(x, out, depth + 1);
                }
            }
            Json::Array(a) => {
                for x in a {
                    walk(x, out, depth + 1);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    if let Some(o) = description.get("Objects") {
        walk(o, &mut out, 0);
    }
    out
}

/// The model of a deletion task (`Objects := null`), or `None` when the
/// description has no `ObjectsCopy` (never loaded by the engine): then
/// murano-api removes the environment without a task.
pub fn deletion_model(description: &Json, environment_id: &str) -> Option<Json> {
    // Never loaded by the engine: no task.
    description.get("ObjectsCopy")?;
    let mut m = task_model(description, environment_id);
    if let Json::Object(o) = &mut m {
        o.insert("Objects".into(), Json::Null);
    }
    Some(m)
}

/// The task murano-api sends for a model and an action (`None`: a
/// deletion).
pub fn engine_task(
    model: Json,
    action: Option<(&str, &str, &Json)>,
    environment_id: &str,
    project_id: &str,
    user_id: &str,
) -> Json {
    let action = match action {
        Some((object_id, method, args)) => {
            json!({"object_id": object_id, "method": method, "args": args})
        }
        None => Json::Null,
    };
    json!({
        "action": action,
        "model": model,
        "token": TASK_TOKEN,
        "project_id": project_id,
        "user_id": user_id,
        "id": environment_id,
    })
}

/// The task of a static action (`POST /v1/actions`).
pub fn static_task(
    class_name: &str,
    method: &str,
    package: Option<&str>,
    class_version: &str,
    args: &Json,
    project_id: &str,
    user_id: &str,
) -> Json {
    json!({
        "action": {
            "method": method,
            "args": args,
            "class_name": class_name,
            "pkg_name": package,
            "class_version": class_version,
        },
        "token": TASK_TOKEN,
        "project_id": project_id,
        "user_id": user_id,
        "id": "a0000000000000000000000000000001",
    })
}

/// The arguments of a model builder: `model_arg` is the stored `Objects`
/// (applications under `services`), then the others.
pub fn model_builder_args(description: &Json, model_arg: &str, others: &Json) -> Json {
    let mut m = Map::new();
    m.insert(
        model_arg.to_owned(),
        description.get("Objects").cloned().unwrap_or(Json::Null),
    );
    if let Json::Object(o) = others {
        for (k, v) in o {
            if k != model_arg {
                m.insert(k.clone(), v.clone());
            }
        }
    }
    Json::Object(m)
}

/// The HTTP status murano-api answers a static action with: 200, 404 for
/// a missing class, method or package, 400 for a contract violation, 503
/// otherwise.
pub fn static_http_status(outcome: &Json) -> u16 {
    let Some(r) = outcome.get("raised") else {
        return 200;
    };
    match r.get("type").and_then(Json::as_str).unwrap_or("") {
        "NoClassFound"
        | "NoMethodFound"
        | "NoPackageFound"
        | "NoPackageForClassFound"
        | "MethodNotExposed"
        | "NoMatchingMethodException" => 404,
        "ContractViolationException" => 400,
        _ => 503,
    }
}

/// How murano-api reacts to a finished engine task
/// (`ResultEndpoint.process_result`).
#[derive(Debug, Clone, PartialEq)]
pub enum ApiReaction {
    /// The environment is gone (a deletion that returned no objects).
    Removed,
    /// The model is stored.
    Stored {
        /// The new description (API form).
        description: Json,
        /// `deployed`, `deploy failure` or `delete failure`.
        session_state: String,
        /// `ready`, `deploy failure` or `delete failure`.
        environment_status: String,
        /// `Deployment finished`, `Deletion finished`, with ` with
        /// errors` or ` with warnings`.
        status_text: String,
    },
}

impl ApiReaction {
    /// The reaction as the lifecycle oracle writes it (`api`).
    pub fn to_json(&self) -> Json {
        match self {
            ApiReaction::Removed => json!({"environment": "removed"}),
            ApiReaction::Stored {
                session_state,
                environment_status,
                status_text,
                ..
            } => json!({
                "environment": "stored",
                "session_state": session_state,
                "environment_status": environment_status,
                "status_text": status_text,
            }),
        }
    }
}

/// murano-api's reaction to `final_model`, given whether the task raised
/// and the levels of its status reports.
pub fn process_result<'a>(
    final_model: &Json,
    raised: bool,
    report_levels: impl IntoIterator<Item = &'a str>,
) -> ApiReaction {
    let objects_null = final_model.get("Objects").is_none_or(Json::is_null);
    let copy_null = final_model.get("ObjectsCopy").is_none_or(Json::is_null);
    if objects_null && copy_null {
        return ApiReaction::Removed;
    }
    let (mut errors, mut warnings) = (raised, false);
    for l in report_levels {
        match l {
            "error" => errors = true,
            "warning" => warnings = true,
            _ => {}
        }
    }
    let (failure, text) = if objects_null {
        ("delete failure", "Deletion finished")
    } else {
        ("deploy failure", "Deployment finished")
    };
    let suffix = if errors {
        " with errors"
    } else if warnings {
        " with warnings"
    } else {
        ""
    };
    let (session, status) = if errors {
        (failure, failure)
    } else {
        ("deployed", "ready")
    };
    ApiReaction::Stored {
        description: to_description(final_model),
        session_state: session.into(),
        environment_status: status.into(),
        status_text: format!("{text}{suffix}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env() -> NewEnvironment {
        NewEnvironment {
            id: "e1".into(),
            name: "shop".into(),
            network_id: "n1".into(),
            project_id: "p".into(),
            user_id: "u".into(),
        }
    }

    #[test]
    fn descriptions_and_task_models_rename_applications() {
        let m = initial_model(&env(), vec![json!({"?": {"id": "a"}})]);
        let d = to_description(&m);
        assert!(d["Objects"]["services"].is_array());
        assert!(d["Objects"].get("applications").is_none());
        let t = task_model(&d, "e1");
        assert_eq!(t["Objects"]["applications"][0]["?"]["id"], "a");
    }

    #[test]
    fn edits_set_remove_and_append() {
        let mut m = initial_model(&env(), vec![json!({"?": {"id": "a"}, "n": 1})]);
        apply_edit(
            &mut m,
            &json!({"op": "set", "path": ["Objects", "applications", 0, "n"], "value": 2}),
        )
        .unwrap();
        assert_eq!(m["Objects"]["applications"][0]["n"], 2);
        apply_edit(
            &mut m,
            &json!({"op": "append", "path": ["Objects", "applications"], "value": {"x": 1}}),
        )
        .unwrap();
        apply_edit(
            &mut m,
            &json!({"op": "remove", "path": ["Objects", "applications", 0]}),
        )
        .unwrap();
        assert_eq!(m["Objects"]["applications"], json!([{"x": 1}]));
        assert!(apply_edit(
            &mut m,
            &json!({"op": "remove", "path": ["Objects", "applications", 5]})
        )
        .is_err());
        assert!(apply_edit(&mut m, &json!({"op": "frob", "path": ["Objects"]})).is_err());
    }

    #[test]
    fn actions_are_found_and_disabled_ones_refused() {
        let d = json!({"Objects": {"?": {"id": "e", "_actions": {"e_deploy": {"enabled": true, "name": "deploy"}}},
                                   "services": [{"?": {"id": "a", "_actions": {"a_stop": {"enabled": false, "name": "stop"}}}}]},
                       "ObjectsCopy": {"?": {"id": "old", "_actions": {"old_go": {"enabled": true, "name": "go"}}}}});
        assert_eq!(find_action(&d, "e_deploy").unwrap().object_id, "e");
        assert_eq!(find_action(&d, "old_go").unwrap().method, "go");
        assert_eq!(
            find_action(&d, "a_stop"),
            Err(ModelError::DisabledAction("a_stop".into()))
        );
        assert!(find_action(&d, "nope").is_err());
        assert_eq!(list_actions(&d).len(), 2);
    }

    #[test]
    fn results_are_stored_or_remove_the_environment() {
        let m = json!({"Objects": {"?": {"id": "e"}, "applications": []}, "ObjectsCopy": {}});
        let r = process_result(&m, false, ["info"]);
        assert_eq!(r.to_json()["status_text"], "Deployment finished");
        let r = process_result(&m, false, ["warning"]);
        assert_eq!(
            r.to_json()["status_text"],
            "Deployment finished with warnings"
        );
        let r = process_result(&m, true, []);
        assert_eq!(r.to_json()["session_state"], "deploy failure");
        let gone = json!({"Objects": null, "ObjectsCopy": null});
        assert_eq!(process_result(&gone, false, []), ApiReaction::Removed);
        let failed_delete = json!({"Objects": null, "ObjectsCopy": {"?": {"id": "e"}}});
        assert_eq!(
            process_result(&failed_delete, true, []).to_json()["environment_status"],
            "delete failure"
        );
    }

    #[test]
    fn a_never_loaded_environment_is_deleted_without_a_task() {
        let m = to_description(&initial_model(&env(), vec![]));
        assert!(deletion_model(&m, "e1").is_none());
        let mut loaded = m.clone();
        loaded["ObjectsCopy"] = json!({});
        assert!(deletion_model(&loaded, "e1").unwrap()["Objects"].is_null());
    }
}
