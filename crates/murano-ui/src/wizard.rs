//! The wizard: posted steps in, cleaned data or errors out, then the object
//! model the dashboard would send.
//!
//! ```
//! use std::collections::BTreeMap;
//! use std::sync::Arc;
//! use murano_ui::definition::Definition;
//! use murano_ui::host::SequentialEntropy;
//! use murano_ui::wizard::{Package, StepOutcome, Wizard};
//!
//! let text = "Version: 2.2\nApplication:\n  ?:\n    type: io.Foo\n  size: $.f1.size\nForms:\n  - f1:\n      fields:\n        - name: size\n          type: integer\n          maxValue: 9\n";
//! let def = Arc::new(Definition::load(text.as_bytes())?);
//! let package = Package { fqn: "io.Foo".into(), name: "Foo".into(), id: "p".into(), version: "1.0".into() };
//! let mut w = Wizard::new(def, package, Some("env".into()), None, Box::new(SequentialEntropy::default()))?;
//! let bad = w.submit(0, &BTreeMap::from([("size".to_string(), "12".to_string())]))?;
//! assert!(matches!(bad, StepOutcome::Invalid(_)));
//! w.submit(0, &BTreeMap::from([("size".to_string(), "3".to_string())]))?;
//! w.submit(1, &BTreeMap::from([("application_name".to_string(), "foo".to_string())]))?;
//! let model = w.finish()?;
//! assert_eq!(model["size"], 3);
//! assert_eq!(model["?"]["name"], "foo");
//! # Ok::<(), murano_ui::Error>(())
//! ```

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use murano_yaql::eval::{Context, Dict, Value};

use crate::clean::{clean_field, py_str, CleanFailure, FieldError, Options};
use crate::definition::{Definition, FieldDef, FieldKind, WF_MANAGEMENT};
use crate::evaluate::{from_json, insert_hidden_ids, template_value, to_json, Session, Walker};
use crate::host::{Entropy, Host};
use crate::pyre::PyRegex;
use crate::{Error, ErrorClass};

/// The package the UI belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Package {
    /// FullName.
    pub fqn: String,
    /// Display name.
    pub name: String,
    /// Package id.
    pub id: String,
    /// Version text.
    pub version: String,
}

/// The result of one step.
#[derive(Debug, Clone, PartialEq)]
pub enum StepOutcome {
    /// Accepted: the cleaned values in field order.
    Valid(Vec<(String, Value)>),
    /// Rejected: field name (or `__all__`) → errors, in report order.
    Invalid(Vec<(String, Vec<FieldError>)>),
}

/// A wizard over one definition.
pub struct Wizard {
    def: Arc<Definition>,
    package: Package,
    environment_id: Option<String>,
    host: Option<Arc<dyn Host + Send + Sync>>,
    session: Arc<Mutex<Session>>,
    parameters: Vec<(String, Value)>,
    cleaned: Vec<(String, Dict)>,
    usages: BTreeMap<usize, (i64, i64, i64)>,
    static_call: Option<serde_json::Value>,
}

impl std::fmt::Debug for Wizard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Wizard")
            .field("package", &self.package)
            .finish()
    }
}

fn eval_err(e: &murano_yaql::eval::Error) -> Error {
    Error::Evaluation {
        exception: ErrorClass::Yaql(e.kind()),
        message: e.message().to_owned(),
    }
}

/// A validation failure raised by a YAQL evaluation (its text is the
/// error's full text, class included).
fn eval_validation(e: &murano_yaql::eval::Error) -> Error {
    Error::Validation {
        exception: Some(ErrorClass::Yaql(e.kind())),
        message: e.to_string(),
    }
}

/// A validation failure of this crate's own, with no Python class.
fn validation(message: impl Into<String>) -> Error {
    Error::Validation {
        exception: None,
        message: message.into(),
    }
}

impl Wizard {
    /// Builds the service: evaluates `Parameters` (after merging the
    /// `ParametersSource` result).
    pub fn new(
        def: Arc<Definition>,
        package: Package,
        environment_id: Option<String>,
        host: Option<Arc<dyn Host + Send + Sync>>,
        entropy: Box<dyn Entropy + Send>,
    ) -> Result<Wizard, Error> {
        let templates = def
            .templates
            .iter()
            .map(|(n, t)| (n.clone(), template_value(t)))
            .collect();
        let session = Arc::new(Mutex::new(Session {
            host: host.clone(),
            entropy,
            counter: 1,
            refs: Default::default(),
            templates,
        }));
        let mut w = Wizard {
            def,
            package,
            environment_id,
            host,
            session,
            parameters: Vec::new(),
            cleaned: Vec::new(),
            usages: BTreeMap::new(),
            static_call: None,
        };
        w.build_parameters()?;
        Ok(w)
    }

    fn build_parameters(&mut self) -> Result<(), Error> {
        let mut raw: Vec<(String, Value)> = self
            .def
            .parameters
            .iter()
            .map(|(k, v)| (k.clone(), template_value(v)))
            .collect();
        if let Some(source) = &self.def.parameters_source {
            let (class, method) = match source.rsplit_once('.') {
                Some((c, m)) => (c.to_owned(), m.to_owned()),
                None => {
                    let app_type = self
                        .def
                        .application
                        .value
                        .get("?")
                        .and_then(|s| s.value.get("type"))
                        .map(|t| t.value.python_str());
                    (
                        app_type.unwrap_or_else(|| self.package.fqn.clone()),
                        source.clone(),
                    )
                }
            };
            let body = serde_json::json!({
                "className": class,
                "methodName": method,
                "packageName": self.package.fqn,
                "classVersion": if self.package.version.is_empty() { "*".to_owned() } else { self.package.version.clone() },
                "parameters": {},
            });
            self.static_call = Some(body.clone());
            if let Some(host) = &self.host {
                if let Ok(serde_json::Value::Object(m)) = host.call_static_action(&body) {
                    for (k, v) in m {
                        let v = from_json(&v);
                        if let Some(slot) = raw.iter_mut().find(|(n, _)| *n == k) {
                            slot.1 = v;
                        } else {
                            raw.push((k, v));
                        }
                    }
                }
            }
        }
        let walker = Walker::dashboard(self.session.clone(), true);
        for (k, v) in raw {
            if !k.chars().next().is_some_and(char::is_alphabetic) {
                continue;
            }
            let mut ctx = walker.context();
            for (n, p) in &self.parameters {
                ctx.set(n, p.clone());
            }
            let value = walker.walk(&v, &ctx).map_err(|e| eval_err(&e))?;
            self.parameters.push((k, value));
        }
        Ok(())
    }

    /// The body of the `ParametersSource` static call, if one was made.
    pub fn static_action_call(&self) -> Option<&serde_json::Value> {
        self.static_call.as_ref()
    }

    /// The definition.
    pub fn definition(&self) -> &Definition {
        &self.def
    }

    fn cleaned_value(&self) -> Value {
        Value::Dict(Arc::new(
            self.cleaned
                .iter()
                .map(|(n, d)| (Value::str(n), Value::Dict(Arc::new(d.clone()))))
                .collect(),
        ))
    }

    fn service_context(&self, walker: &Walker, templates: bool) -> Context {
        let mut ctx = walker.context();
        for (n, p) in &self.parameters {
            ctx.set(n, p.clone());
        }
        if templates {
            if let Ok(st) = self.session.lock() {
                for (n, t) in &st.templates {
                    ctx.set(n, t.clone());
                }
            }
        }
        let data = self.cleaned_value();
        ctx.set("forms", data.clone());
        ctx.set("$", data);
        ctx
    }

    fn set_form(&mut self, form: &str, data: Dict) {
        if let Some(slot) = self.cleaned.iter_mut().find(|(n, _)| n == form) {
            slot.1 = data;
        } else {
            self.cleaned.push((form.to_owned(), data));
        }
    }

    /// The options of a select-like field.
    pub fn options(&self, field: &FieldDef) -> Result<Options, Error> {
        let Some(host) = &self.host else {
            return Ok(field.choices.clone());
        };
        let s = |x: &str| Value::str(x);
        let mut out: Options = Vec::new();
        match &field.kind {
            FieldKind::Choice => {
                if let Some(expr) = field.lazy_attr("choices") {
                    let walker = Walker::dashboard(self.session.clone(), true);
                    let ctx = self.service_context(&walker, false);
                    let v = walker
                        .eval_text(expr.text(), &ctx)
                        .map_err(|e| eval_validation(&e))?;
                    match v {
                        Value::Dict(d) => {
                            for (k, l) in d.iter() {
                                out.push((k.clone(), py_str(l)));
                            }
                        }
                        Value::List(items) | Value::Tuple(items) => {
                            for it in items.iter() {
                                if let Some([k, l]) = it.as_slice() {
                                    out.push((k.clone(), py_str(l)));
                                }
                            }
                        }
                        _ => {}
                    }
                } else {
                    out = field.choices.clone();
                }
            }
            FieldKind::Flavor => {
                let mut fl: Vec<_> = host
                    .flavors()
                    .into_iter()
                    .filter(|f| {
                        field.requirements.iter().all(|(k, v)| match k.as_str() {
                            "min_vcpus" => f.vcpus >= *v,
                            "min_disk" => f.disk >= *v,
                            "min_memory_mb" => f.ram >= *v,
                            "max_vcpus" => f.vcpus <= *v,
                            "max_disk" => f.disk <= *v,
                            "max_memory_mb" => f.ram <= *v,
                            _ => true,
                        })
                    })
                    .collect();
                fl.sort_by(|a, b| a.name.cmp(&b.name));
                out = fl.into_iter().map(|f| (s(&f.id), f.name)).collect();
            }
            FieldKind::Image => {
                let mut imgs = Vec::new();
                for im in host.images() {
                    if im.snapshot {
                        continue;
                    }
                    let Some(info) = im.info else { continue };
                    if let Some(t) = &field.image_type {
                        if t.is_empty() {
                            continue;
                        }
                        let Some(it) = &info.image_type else {
                            return Err(validation("image metadata without type"));
                        };
                        if it != t && !it.starts_with(&format!("{t}.")) {
                            continue;
                        }
                    }
                    let title = info.title.unwrap_or(im.name);
                    imgs.push((s(&im.id), title));
                }
                imgs.sort_by(|a, b| a.1.cmp(&b.1));
                if imgs.len() > 1 {
                    out.push((s(""), "Select Image".into()));
                } else if imgs.is_empty() {
                    out.push((s(""), "No images available".into()));
                }
                out.extend(imgs);
            }
            FieldKind::KeyPair => {
                out.push((s(""), "No keypair".into()));
                let mut k = host.keypairs();
                k.sort();
                out.extend(k.into_iter().map(|n| (s(&n), n)));
            }
            FieldKind::AZone => {
                let mut z: Vec<_> = host
                    .availability_zones()
                    .into_iter()
                    .filter(|z| z.available)
                    .map(|z| z.name)
                    .collect();
                z.sort();
                out.extend(z.into_iter().map(|n| (s(&n), n)));
            }
            FieldKind::Network => {
                if field.allow_auto {
                    out.push((Value::tuple(vec![Value::Null, Value::Null]), "Auto".into()));
                }
                let filter = match &field.filter {
                    Some(f) => Some(PyRegex::new(f, 0).map_err(|message| Error::Validation {
                        exception: Some(ErrorClass::RegexError),
                        message,
                    })?),
                    None => None,
                };
                let envs = host.environments();
                for net in host.networks() {
                    if net.external {
                        continue;
                    }
                    if let Some(re) = &filter {
                        if !re.match_start(&net.name) {
                            continue;
                        }
                    }
                    let env_net = field.murano_networks.is_some()
                        && net.subnets.len() == 1
                        && envs
                            .iter()
                            .any(|e| net.name.starts_with(&format!("{e}-network")));
                    if env_net && field.murano_networks.as_deref() == Some("exclude") {
                        continue;
                    }
                    for sn in &net.subnets {
                        out.push((
                            Value::tuple(vec![s(&net.id), s(&sn.id)]),
                            format!("{}: {} {}", net.name, sn.cidr, sn.name),
                        ));
                    }
                    out.push((
                        Value::tuple(vec![s(&net.id), Value::Null]),
                        format!("{}: random subnet", net.name),
                    ));
                }
            }
            FieldKind::SecurityGroup => {
                out.push((s(""), "Application default security group".into()));
                let mut g: Vec<_> = host
                    .security_groups()
                    .into_iter()
                    .filter(|g| !g.starts_with("murano--"))
                    .collect();
                g.sort();
                out.extend(g.into_iter().map(|n| (s(&n), n)));
            }
            FieldKind::Volume => {
                let mut v = Vec::new();
                if field.include_volumes {
                    v.extend(host.volumes());
                }
                if field.include_snapshots {
                    v.extend(host.volume_snapshots());
                }
                v.sort_by(|a, b| a.name.cmp(&b.name));
                out.push((s(""), "Select volume".into()));
                out.extend(v.into_iter().map(|n| (s(&n.id), n.name)));
            }
            FieldKind::Zone => {
                out.push((s(""), "No DNS zone".into()));
                let mut z = host.dns_zones();
                z.sort();
                out.extend(z.into_iter().map(|n| (s(&n), n)));
            }
            FieldKind::AppRef(_) | FieldKind::Domain => {
                let fqns = match &field.kind {
                    FieldKind::AppRef(f) => f.clone(),
                    _ => vec!["io.murano.windows.ActiveDirectory".to_owned()],
                };
                out.push((
                    s(""),
                    field
                        .empty_value_message
                        .clone()
                        .unwrap_or_else(|| "Select Application".into()),
                ));
                let known: Vec<&String> = fqns.iter().filter(|f| host.package_exists(f)).collect();
                for app in host.environment_services(self.environment_id.as_deref()) {
                    let t = app.type_name.split('/').next().unwrap_or("");
                    if known.iter().any(|k| k.as_str() == t) {
                        out.push((s(&app.id), app.name));
                    }
                }
            }
            _ => out = field.choices.clone(),
        }
        Ok(out)
    }

    /// Cleans and validates step `index` with the posted raw strings.
    /// A crash of the dashboard is an `Err`.
    pub fn submit(
        &mut self,
        index: usize,
        posted: &BTreeMap<String, String>,
    ) -> Result<StepOutcome, Error> {
        let def = self.def.clone();
        let Some(form) = def.forms.get(index) else {
            return Err(validation(format!("no step {index}")));
        };
        let plain = Walker::plain();
        let service_walker = Walker::dashboard(self.session.clone(), true);
        let mut partial = Dict::default();
        let mut errors: Vec<(String, Vec<FieldError>)> = Vec::new();
        self.set_form(&form.name, Dict::default());
        for field in &form.fields {
            let raw = posted.get(&field.name).map(String::as_str);
            let enabled = match field.lazy_attr("enabled") {
                Some(expr) => {
                    self.set_form(&form.name, partial.clone());
                    let ctx = self.service_context(&service_walker, false);
                    service_walker
                        .eval_text(expr.text(), &ctx)
                        .map_err(|e| eval_validation(&e))?
                        .truthy()
                }
                None => true,
            };
            if !enabled {
                partial.insert(
                    Value::str(&field.name),
                    raw.map(Value::str).unwrap_or(Value::Null),
                );
                continue;
            }
            let options = if field.kind.is_select() {
                self.set_form(&form.name, partial.clone());
                self.options(field)?
            } else {
                Vec::new()
            };
            match clean_field(field, raw, &options, &plain) {
                Ok(v) => {
                    partial.insert(Value::str(&field.name), v);
                }
                Err(CleanFailure::Invalid(e)) => errors.push((field.name.clone(), e)),
                Err(CleanFailure::Crash { exception, message }) => {
                    return Err(Error::Validation {
                        exception: Some(exception),
                        message,
                    })
                }
            }
        }
        if !errors.is_empty() {
            return Ok(StepOutcome::Invalid(errors));
        }
        self.set_form(&form.name, partial.clone());
        // form validators
        let form_walker = Walker::dashboard(self.session.clone(), false);
        let mut messages = Vec::new();
        for v in &form.validators {
            let Some(expr) = &v.expr else {
                return Err(validation("form validator expr is not an expression"));
            };
            let mut ctx = form_walker.context();
            ctx.set("$", self.cleaned_value());
            let r = form_walker
                .eval_text(expr.text(), &ctx)
                .map_err(|e| eval_validation(&e))?;
            if !r.truthy() {
                messages.push(FieldError {
                    message: v
                        .message
                        .clone()
                        .unwrap_or_else(|| "Validation Error occurred".into()),
                    code: None,
                });
            }
        }
        if !messages.is_empty() {
            return Ok(StepOutcome::Invalid(vec![("__all__".into(), messages)]));
        }
        for field in &form.fields {
            if field.kind != FieldKind::Password
                || field.password_clone
                || !field.confirm_input
                || !field.required
                || field.lazy_attr("enabled").is_some() && {
                    let ctx = self.service_context(&service_walker, false);
                    !service_walker
                        .eval_text(
                            &field
                                .lazy_attr("enabled")
                                .map(|e| e.text().to_owned())
                                .unwrap_or_default(),
                            &ctx,
                        )
                        .map(|v| v.truthy())
                        .unwrap_or(true)
                }
            {
                continue;
            }
            let a = partial.get(&Value::str(&field.name));
            let b = partial.get(&Value::str(&format!("{}-clone", field.name)));
            if a != b {
                return Ok(StepOutcome::Invalid(vec![(
                    "__all__".into(),
                    vec![FieldError {
                        message: format!("{}s don't match", field.display_label()),
                        code: None,
                    }],
                )]));
            }
        }
        // resource usages
        let mut usage = (0, 0, 0);
        if let Some(flavor) = partial.get(&Value::str("flavor")) {
            if form.fields.iter().any(|f| f.name == "flavor") {
                let name = py_str(flavor);
                let found = self
                    .host
                    .as_ref()
                    .and_then(|h| h.flavors().into_iter().find(|f| f.name == name));
                match found {
                    Some(f) => usage = (f.ram, f.vcpus, 1),
                    None => return Err(Error::ResourceUsages(format!("no flavor named '{name}'"))),
                }
            }
        }
        self.usages.insert(index, usage);
        Ok(StepOutcome::Valid(
            partial
                .iter()
                .map(|(k, v)| (py_str(k), v.clone()))
                .collect(),
        ))
    }

    /// The cleaned data (form name → cleaned dict) as JSON, or an
    /// evaluation error when it would pass the engine's string limit
    /// (values that share structure); tuples are
    /// written `{"tuple": [...]}` when `tag_tuples`.
    pub fn cleaned_data(&self, tag_tuples: bool) -> Result<serde_json::Value, Error> {
        let value = self.cleaned_value();
        value
            .check_printed_len(walker_string_limit())
            .map_err(|e| eval_err(&e))?;
        Ok(to_json(&value, tag_tuples))
    }

    /// Evaluates `Application` and returns the body the dashboard posts.
    pub fn finish(&mut self) -> Result<serde_json::Value, Error> {
        let mut app = template_value(&self.def.application);
        if self.def.version.has_application_name {
            let name = self
                .cleaned
                .iter()
                .find(|(n, _)| n == WF_MANAGEMENT)
                .and_then(|(_, d)| d.get(&Value::str("application_name")).cloned())
                .unwrap_or(Value::Null);
            let Value::Dict(d) = &app else {
                return Err(Error::Evaluation {
                    exception: ErrorClass::TypeError,
                    message: "Application is not a mapping".into(),
                });
            };
            let mut d = (**d).clone();
            let Some(Value::Dict(sys)) = d.get(&Value::str("?")) else {
                return Err(Error::Evaluation {
                    exception: ErrorClass::KeyError,
                    message: "'?'".into(),
                });
            };
            let mut sys = (**sys).clone();
            sys.insert(Value::str("name"), name);
            d.insert(Value::str("?"), Value::Dict(Arc::new(sys)));
            app = Value::Dict(Arc::new(d));
        }
        let walker = Walker::dashboard(self.session.clone(), true);
        let ctx = self.service_context(&walker, true);
        let result = walker.walk(&app, &ctx).map_err(|e| eval_err(&e))?;
        let result = {
            let mut st = self
                .session
                .lock()
                .map_err(|_| Error::Finalize("session poisoned".into()))?;
            insert_hidden_ids(&result, st.entropy.as_mut())
        };
        // Values that share structure can be exponentially long as JSON:
        // measure first, within the engine's string limit.
        result
            .check_printed_len(walker_string_limit())
            .map_err(|e| eval_err(&e))?;
        let mut json = to_json(&result, false);
        let region = self.host.as_ref().map(|h| h.region()).unwrap_or_default();
        let (ram, vcpus, instances) = self
            .usages
            .values()
            .fold((0, 0, 0), |a, u| (a.0 + u.0, a.1 + u.1, a.2 + u.2));
        let Some(obj) = json.as_object_mut() else {
            return Err(Error::Finalize("the application is not a mapping".into()));
        };
        let sys = obj
            .entry("?")
            .or_insert_with(|| serde_json::Value::Object(Default::default()));
        let Some(sys) = sys.as_object_mut() else {
            return Err(Error::Finalize("'?' is not a mapping".into()));
        };
        sys.insert(
            "_26411a1861294160833743e45d0eaad9".into(),
            serde_json::json!({"name": self.package.name}),
        );
        sys.insert(
            "resourceUsages".into(),
            serde_json::json!({region: {"ram": ram, "vcpus": vcpus, "instances": instances}}),
        );
        Ok(json)
    }
}

/// The longest text a dashboard evaluation may print to.
fn walker_string_limit() -> usize {
    crate::evaluate::dashboard_engine().options().max_string_len
}
