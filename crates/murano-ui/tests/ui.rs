//! Dynamic UI conformance (suite `ui` and one suite per case kind): every
//! case of `conformance/ui/cases` walked through this crate and compared
//! with what the dashboard did.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use murano_testkit::{conclude, files_ending, read_json, Suite};
use murano_ui::definition::Definition;
use murano_ui::evaluate::to_json;
use murano_ui::host::{
    AvailabilityZone, ExistingApp, Flavor, Host, Image, ImageInfo, Named, Network,
    SequentialEntropy, Subnet,
};
use murano_ui::wizard::{Package, StepOutcome, Wizard};
use serde_json::{json, Value as J};

struct JsonHost(J);

fn s(v: &J, k: &str) -> String {
    v.get(k).and_then(J::as_str).unwrap_or("").to_owned()
}

fn arr<'a>(v: &'a J, k: &str) -> Vec<&'a J> {
    v.get(k)
        .and_then(J::as_array)
        .map(|a| a.iter().collect())
        .unwrap_or_default()
}

impl Host for JsonHost {
    fn region(&self) -> String {
        s(&self.0, "region")
    }
    fn flavors(&self) -> Vec<Flavor> {
        arr(&self.0, "flavors")
            .into_iter()
            .map(|f| Flavor {
                id: s(f, "id"),
                name: s(f, "name"),
                ram: f["ram"].as_i64().unwrap_or(0),
                vcpus: f["vcpus"].as_i64().unwrap_or(0),
                disk: f["disk"].as_i64().unwrap_or(0),
            })
            .collect()
    }
    fn images(&self) -> Vec<Image> {
        arr(&self.0, "images")
            .into_iter()
            .map(|i| Image {
                id: s(i, "id"),
                name: s(i, "name"),
                status: s(i, "status"),
                snapshot: i
                    .get("properties")
                    .and_then(|p| p.get("image_type"))
                    .and_then(J::as_str)
                    == Some("snapshot"),
                info: i
                    .get("murano_image_info")
                    .and_then(J::as_str)
                    .filter(|t| !t.is_empty())
                    .and_then(|t| serde_json::from_str::<J>(t).ok())
                    .map(|m| ImageInfo {
                        title: m.get("title").and_then(J::as_str).map(str::to_owned),
                        image_type: m.get("type").and_then(J::as_str).map(str::to_owned),
                    }),
            })
            .collect()
    }
    fn keypairs(&self) -> Vec<String> {
        arr(&self.0, "keypairs")
            .into_iter()
            .filter_map(|k| k.as_str().map(str::to_owned))
            .collect()
    }
    fn availability_zones(&self) -> Vec<AvailabilityZone> {
        arr(&self.0, "availability_zones")
            .into_iter()
            .map(|z| AvailabilityZone {
                name: s(z, "name"),
                available: z["available"].as_bool().unwrap_or(false),
            })
            .collect()
    }
    fn networks(&self) -> Vec<Network> {
        arr(&self.0, "networks")
            .into_iter()
            .map(|n| Network {
                id: s(n, "id"),
                name: s(n, "name"),
                external: n["external"].as_bool().unwrap_or(false),
                subnets: arr(n, "subnets")
                    .into_iter()
                    .map(|x| Subnet {
                        id: s(x, "id"),
                        cidr: s(x, "cidr"),
                        name: s(x, "name"),
                    })
                    .collect(),
            })
            .collect()
    }
    fn environments(&self) -> Vec<String> {
        arr(&self.0, "environments")
            .into_iter()
            .filter_map(|k| k.as_str().map(str::to_owned))
            .collect()
    }
    fn security_groups(&self) -> Vec<String> {
        arr(&self.0, "security_groups")
            .into_iter()
            .filter_map(|k| k.as_str().map(str::to_owned))
            .collect()
    }
    fn volumes(&self) -> Vec<Named> {
        arr(&self.0, "volumes")
            .into_iter()
            .map(|v| Named {
                id: s(v, "id"),
                name: s(v, "name"),
            })
            .collect()
    }
    fn volume_snapshots(&self) -> Vec<Named> {
        arr(&self.0, "volume_snapshots")
            .into_iter()
            .map(|v| Named {
                id: s(v, "id"),
                name: s(v, "name"),
            })
            .collect()
    }
    fn dns_zones(&self) -> Vec<String> {
        arr(&self.0, "dns_zones")
            .into_iter()
            .filter_map(|k| k.as_str().map(str::to_owned))
            .collect()
    }
    fn package_exists(&self, fqn: &str) -> bool {
        arr(&self.0, "packages")
            .into_iter()
            .any(|p| p["fqn"].as_str() == Some(fqn))
    }
    fn environment_services(&self, environment_id: Option<&str>) -> Vec<ExistingApp> {
        if environment_id.is_none() {
            return Vec::new();
        }
        arr(&self.0, "environment_services")
            .into_iter()
            .map(|a| ExistingApp {
                id: s(&a["?"], "id"),
                type_name: s(&a["?"], "type"),
                name: s(&a["?"], "name"),
            })
            .collect()
    }
    fn encrypt_data(&self, data: &str) -> Result<String, String> {
        Ok(format!("{}{data}", s(&self.0, "key_manager_prefix")))
    }
    fn call_static_action(&self, _body: &J) -> Result<J, String> {
        Ok(self
            .0
            .get("static_action_result")
            .cloned()
            .unwrap_or(J::Null))
    }
}

fn is_uuid(t: &str) -> bool {
    let b = t.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_digit() || (b'a'..=b'f').contains(c),
        })
}

fn canon(v: &J, ids: &mut Vec<String>) -> J {
    let name = |t: &str, ids: &mut Vec<String>| -> String {
        if !is_uuid(t) {
            return t.to_owned();
        }
        let n = match ids.iter().position(|x| x == t) {
            Some(p) => p + 1,
            None => {
                ids.push(t.to_owned());
                ids.len()
            }
        };
        format!("<id:{n}>")
    };
    match v {
        J::String(t) => J::String(name(t, ids)),
        J::Array(a) => J::Array(a.iter().map(|x| canon(x, ids)).collect()),
        J::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let mut out = serde_json::Map::new();
            for k in keys {
                let nk = name(k, ids);
                out.insert(nk, canon(&m[k], ids));
            }
            J::Object(out)
        }
        other => other.clone(),
    }
}

fn errors_json(errors: &[(String, Vec<murano_ui::clean::FieldError>)]) -> J {
    let mut m = serde_json::Map::new();
    for (k, es) in errors {
        m.insert(
            k.clone(),
            J::Array(
                es.iter()
                    .map(|e| json!({"message": e.message, "code": e.code}))
                    .collect(),
            ),
        );
    }
    J::Object(m)
}

fn strip_sources(v: &J) -> J {
    let mut m = serde_json::Map::new();
    if let Some(o) = v.as_object() {
        for (k, es) in o {
            let list = es
                .as_array()
                .map(|a| {
                    a.iter()
                        .map(|e| json!({"message": e["message"], "code": e["code"]}))
                        .collect()
                })
                .unwrap_or_default();
            m.insert(k.clone(), J::Array(list));
        }
    }
    J::Object(m)
}

fn run_case(root: &Path, case: &J, default_host: &J) -> Result<(), String> {
    let kind = case["kind"].as_str().unwrap_or("");
    let expected = &case["expected"];
    if kind == "yaql_detect" {
        for sc in expected["scalars"].as_array().into_iter().flatten() {
            let text = sc["scalar"].as_str().unwrap_or("");
            let got = murano_ui::resolve_plain_scalar(text);
            if Some(got) != sc["resolves_to"].as_str() {
                return Err(format!(
                    "{text:?}: got {got}, expected {}",
                    sc["resolves_to"]
                ));
            }
        }
        return Ok(());
    }
    let def_path = root
        .join("conformance/ui")
        .join(case["definition"].as_str().unwrap_or(""));
    let bytes = std::fs::read(&def_path).map_err(|e| e.to_string())?;
    let def = match Definition::load(&bytes) {
        Ok(d) => d,
        Err(e) => {
            return if expected.get("definition_error").is_some() {
                Ok(())
            } else {
                Err(format!("unexpected definition error: {e}"))
            };
        }
    };
    if expected.get("definition_error").is_some() {
        return Err("definition accepted, expected an error".into());
    }
    if expected["spec_version"].as_str() != Some(def.version.text.as_str()) {
        return Err(format!(
            "spec_version {} vs {}",
            def.version.text, expected["spec_version"]
        ));
    }
    let names: Vec<J> = def.form_names().into_iter().map(J::String).collect();
    if expected["form_names"] != J::Array(names.clone()) {
        return Err(format!(
            "form_names {names:?} vs {}",
            expected["form_names"]
        ));
    }
    if kind == "definition" {
        if let Some(forms) = expected.get("forms").and_then(J::as_array) {
            for (ef, f) in forms.iter().zip(&def.forms) {
                if ef["step_title"].as_str() != Some(f.title.as_str()) {
                    return Err(format!("{}: step title {}", f.name, f.title));
                }
                let Some(fields) = ef.get("fields").and_then(J::as_array) else {
                    continue;
                };
                let got: Vec<(String, &str, bool)> = f
                    .fields
                    .iter()
                    .map(|x| (x.name.clone(), x.kind.class_name(), x.required))
                    .collect();
                let want: Vec<(String, &str, bool)> = fields
                    .iter()
                    .map(|x| {
                        (
                            x["name"].as_str().unwrap_or("").to_owned(),
                            x["class"].as_str().unwrap_or(""),
                            x["required"].as_bool().unwrap_or(false),
                        )
                    })
                    .collect();
                if got != want {
                    return Err(format!("{}: fields {got:?} vs {want:?}", f.name));
                }
            }
        }
        return Ok(());
    }
    let host_json = match &case["host"] {
        J::Object(_) => case["host"].clone(),
        _ => default_host.clone(),
    };
    let p = &case["package"];
    let package = Package {
        fqn: s(p, "fqn"),
        name: s(p, "name"),
        id: s(p, "id"),
        version: s(p, "version"),
    };
    let env = case["environment_id"].as_str().map(str::to_owned);
    let host: Arc<dyn Host + Send + Sync> = Arc::new(JsonHost(host_json));
    let mut wizard = Wizard::new(
        Arc::new(def),
        package,
        env,
        Some(host),
        Box::new(SequentialEntropy::default()),
    )
    .map_err(|e| format!("service: {e}"))?;
    if let Some(calls) = expected.get("static_action_calls") {
        let got = wizard.static_action_call().cloned().unwrap_or(J::Null);
        let want = calls.as_array().and_then(|a| a.first()).unwrap_or(calls);
        if &got != want {
            return Err(format!("static call {got} vs {want}"));
        }
    }
    let steps = case["steps"].as_array().cloned().unwrap_or_default();
    let exp_steps = expected["steps"].as_array().cloned().unwrap_or_default();
    for (i, es) in exp_steps.iter().enumerate() {
        let posted: BTreeMap<String, String> = steps
            .get(i)
            .and_then(J::as_object)
            .map(|m| {
                m.iter()
                    .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_owned()))
                    .collect()
            })
            .unwrap_or_default();
        let out = wizard.submit(i, &posted);
        if es.get("crash").is_some() {
            return match out {
                Err(_) => Ok(()),
                Ok(o) => Err(format!("step {i}: expected a crash, got {o:?}")),
            };
        }
        match out.map_err(|e| format!("step {i}: {e}"))? {
            StepOutcome::Valid(cleaned) => {
                if es["valid"] != J::Bool(true) {
                    return Err(format!(
                        "step {i}: accepted, expected errors {}",
                        strip_sources(&es["errors"])
                    ));
                }
                let mut m = serde_json::Map::new();
                for (k, v) in cleaned {
                    m.insert(k, to_json(&v, true));
                }
                if J::Object(m.clone()) != es["cleaned"] {
                    return Err(format!(
                        "step {i}: cleaned {} vs {}",
                        J::Object(m),
                        es["cleaned"]
                    ));
                }
            }
            StepOutcome::Invalid(errors) => {
                let got = errors_json(&errors);
                let want = strip_sources(&es["errors"]);
                if es["valid"] != J::Bool(false) || got != want {
                    return Err(format!("step {i}: errors {got} vs {want}"));
                }
                return Ok(());
            }
        }
    }
    if kind == "validation" || expected.get("incomplete").is_some() {
        return Ok(());
    }
    if let Some(cd) = expected.get("cleaned_data") {
        let got = wizard
            .cleaned_data(true)
            .map_err(|e| format!("cleaned_data: {e}"))?;
        if &got != cd {
            return Err(format!("cleaned_data {got} vs {cd}"));
        }
    }
    let result = wizard.finish();
    if let Some(crash) = expected.get("crash") {
        return match result {
            Err(e) if Some(e.stage()) == crash["stage"].as_str() => Ok(()),
            Err(e) => Err(format!("crash at {} ({e}), expected {}", e.stage(), crash)),
            Ok(_) => Err(format!("no crash, expected {crash}")),
        };
    }
    let model = result.map_err(|e| e.to_string())?;
    if let Some(want) = expected.get("object_model") {
        let got = canon(&model, &mut Vec::new());
        let want = canon(want, &mut Vec::new());
        if got != want {
            return Err(format!("object model\n got {got}\nwant {want}"));
        }
    }
    Ok(())
}

fn main() {
    let Some((root, known)) =
        murano_testkit::conformance_setup(env!("CARGO_MANIFEST_DIR"), "known-failures.txt")
    else {
        return;
    };
    let default_host =
        read_json(&root.join("conformance/ui/hosts/default.json")).unwrap_or(J::Null);
    let mut total = Suite::new("ui", &known);
    let mut kinds = Vec::new();
    for (kind, suite_name) in [
        ("definition", "ui-definition"),
        ("yaql_detect", "ui-yaql-detect"),
        ("validation", "ui-validation"),
        ("object_model", "ui-object-model"),
    ] {
        let mut suite = Suite::new(suite_name, &known);
        for path in files_ending(&root.join("conformance/ui/cases").join(kind), ".json") {
            let case = match read_json(&path) {
                Ok(c) => c,
                Err(e) => {
                    suite.record(&path.display().to_string(), Err(e.clone()));
                    total.record(&path.display().to_string(), Err(e));
                    continue;
                }
            };
            let id = case["id"].as_str().unwrap_or("?").to_owned();
            let result = std::panic::catch_unwind(|| run_case(&root, &case, &default_host))
                .unwrap_or_else(|_| Err("panicked".into()));
            suite.record(&id, result.clone());
            total.record(&id, result);
        }
        kinds.push(suite.finish());
    }
    let mut all = vec![total.finish()];
    all.extend(kinds);
    conclude(all);
}
