//! `murano run`: calls one method of a class offline and prints what it
//! returns.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;
use murano_engine::host::NoCloudHost;
use murano_engine::{render_trace, CallOptions, Engine, EngineBuilder, EngineError, Receiver};
use murano_yaml::convert::{self, ToJson, ToYaql};
use murano_yaml::{load_single, Flavor, LoadOptions};
use murano_yaql::eval::{Dict, Value};

use crate::engine_packages::{load_packages, Sources};

/// Call a method of a MuranoPL class and print its result as JSON.
///
/// Examples:
///
///   murano run path/to/package com.example.App.describe --catalog path/to/io.murano.zip
///   murano run app com.example.App.deploy --model model.json
///   murano run lib com.example.Math.add --arg a=1 --arg b=2
///
/// Without --model the object is created with its properties' defaults
/// (its .init runs); with --model (an object model in JSON or YAML, as
/// Murano's API keeps environments: {"Objects": {...}}) the method is
/// called on the model's object of that class. --arg passes a keyword
/// argument; its value is read as YAML (1, true, [a, b], text). The
/// method is called whatever its scope. Logger output goes to stderr; an
/// uncaught MuranoPL exception prints its stack trace to stderr.
///
/// Exit status: 0 when the method returned, 1 when it raised, 2 on a
/// usage or load error.
#[derive(Args)]
#[command(verbatim_doc_comment)]
pub(crate) struct RunArgs {
    /// A package directory or .zip archive.
    package: PathBuf,
    /// The class and method: com.example.App.method.
    target: String,
    /// An object model to load (JSON or YAML).
    #[arg(long, value_name = "FILE")]
    model: Option<PathBuf>,
    /// A keyword argument NAME=VALUE (repeatable); VALUE is read as YAML.
    #[arg(long = "arg", value_name = "NAME=VALUE")]
    args: Vec<String>,
    /// Packages (folders searched recursively, or .zip files) the class may
    /// use, e.g. Murano's core library; then MURANO_CATALOG, then
    /// /usr/share/murano-common.
    #[arg(long, value_name = "DIR")]
    catalog: Vec<PathBuf>,
    #[command(flatten)]
    output: crate::output::OutputArgs,
    #[command(flatten)]
    limits: crate::limits::LimitArgs,
}

/// YAML text (JSON is YAML) as plain data.
fn read_data(bytes: &[u8], what: &str) -> Result<Value, String> {
    let node = load_single(bytes, Flavor::Plain, &LoadOptions::default())
        .map_err(|e| format!("{what}: {e}"))?;
    match node {
        None => Ok(Value::Null),
        Some(n) => {
            convert::to_yaql(&n, &ToYaql::contracts()).map_err(|e| format!("{what}: {}", e.what))
        }
    }
}

/// Prints the result as JSON, written as it is walked within the output
/// budget: objects as their model header, dictionary keys as their
/// `str()`, other values as [`convert::to_json`] writes them.
fn print_result(engine: &Engine, v: &Value) -> Result<(), String> {
    let header = |v: &Value| {
        engine
            .object_view(v)
            .map(|view| serde_json::json!({"?": {"type": view.class, "id": view.id}}))
    };
    let key = |k: &Value| match k {
        Value::Str(s) => s.to_string(),
        other => other.py_str(),
    };
    let style = crate::output::JsonStyle {
        scalars: ToJson::default(),
        key: &key,
        replace: &header,
    };
    crate::output::print_json(&crate::output::JsonValue::new(v, &style))
        .map_err(|e| format!("murano: cannot print the result: {e}"))
}

/// Logger lines on stderr, each one line, its message cut to `max`
/// bytes.
fn print_log(engine: &Engine, max: usize) {
    use crate::output::{line, message};
    for l in engine.take_log() {
        eprintln!(
            "{} {}: {}",
            line(&l.level),
            line(&l.logger),
            message(&l.message, max)
        );
    }
    // Murano logs these and goes on: so does the run, with its result.
    for w in engine.take_warnings() {
        eprintln!("murano: warning: {}", crate::output::trace(&w, max));
    }
}

fn print_error(engine: &Engine, sources: &Sources, e: &EngineError, max: usize) {
    use crate::output::{line, message, trace};
    let names = e.murano_names();
    eprintln!(
        "murano: uncaught exception {}: {}",
        line(&names.join(", ")),
        message(&e.message, max)
    );
    eprint!(
        "{}",
        trace(
            &render_trace(&e.frames, &|c| package_of(engine, c), &|p, f| sources
                .get(p, f)),
            max
        )
    );
}

pub(crate) fn run(args: &RunArgs) -> ExitCode {
    crate::output::set_limit(args.output.max_output);
    let Some((class, method)) = args.target.rsplit_once('.') else {
        eprintln!("murano: {}: expected CLASS.METHOD", args.target);
        return ExitCode::from(2);
    };
    let mut kwargs = Vec::new();
    for a in &args.args {
        let Some((k, v)) = a.split_once('=') else {
            eprintln!("murano: --arg {a}: expected NAME=VALUE");
            return ExitCode::from(2);
        };
        match read_data(v.as_bytes(), &format!("--arg {k}")) {
            Ok(v) => kwargs.push((k.to_owned(), v)),
            Err(e) => {
                eprintln!("murano: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let model = match &args.model {
        None => None,
        Some(path) => {
            let read = crate::files::read_capped(path, crate::files::DEFAULT_MAX_FILE_SIZE);
            match read {
                Ok(Some(bytes)) => match read_data(&bytes, &path.display().to_string()) {
                    Ok(v) => Some(v),
                    Err(e) => {
                        eprintln!("murano: {e}");
                        return ExitCode::from(2);
                    }
                },
                Ok(None) => {
                    eprintln!("murano: {}: too large", path.display());
                    return ExitCode::from(2);
                }
                Err(e) => {
                    eprintln!("murano: cannot read {}: {e}", path.display());
                    return ExitCode::from(2);
                }
            }
        }
    };
    for path in std::iter::once(&args.package).chain(&args.catalog) {
        if !path.exists() {
            eprintln!("murano: {}: no such file or folder", path.display());
            return ExitCode::from(2);
        }
    }
    let packages = match load_packages(std::slice::from_ref(&args.package), &args.catalog) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("murano: {e}");
            return ExitCode::from(2);
        }
    };
    let sources = Sources::new(&packages);
    // Murano's system classes without a cloud (the test fixture's
    // assertions among them): the no-cloud host's classes and engine.
    let (classes, resources) = match NoCloudHost::class_set(&packages) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("murano: {e}");
            return ExitCode::from(2);
        }
    };
    if classes.find(class).is_none() {
        eprintln!("murano: class {class} not found");
        return ExitCode::from(2);
    }
    let builder = EngineBuilder::new(Arc::new(classes)).limits(args.limits.limits());
    let engine = NoCloudHost::new()
        .install(builder, Arc::new(resources))
        .build();
    let object = match &model {
        None => new_object(&engine, class),
        Some(model) => load_model_object(&engine, model, class),
    };
    // Any method whatever its scope, its result as MuranoPL holds it, as
    // Murano's executor calls (`executor.run`).
    let result = object.and_then(|o| {
        let receiver = Receiver::Object(o);
        let options = CallOptions::test_runner();
        engine.call_with(&receiver, method, Vec::new(), kwargs, &options)
    });
    let max_message = args.output.max_message;
    print_log(&engine, max_message);
    match result {
        Ok(v) => match print_result(&engine, &v) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("{e}");
                ExitCode::from(1)
            }
        },
        Err(e) => {
            print_error(&engine, &sources, &e, max_message);
            ExitCode::from(1)
        }
    }
}

/// A new object of `class` with its properties' defaults (its `.init`
/// runs): a model of that one object, as Murano's runner makes it
/// (`object_store.load({}, None, default_type=class)`).
fn new_object(engine: &Engine, class: &str) -> Result<Value, EngineError> {
    let mut header = Dict::default();
    header.insert(Value::str("type"), Value::str(class));
    header.insert(Value::str("id"), Value::str(&engine.generate_id()));
    let mut object = Dict::default();
    object.insert(Value::str("?"), Value::Dict(Arc::new(header)));
    load_model_object(engine, &Value::Dict(Arc::new(object)), class)
}

/// Loads the model and finds its object of `class` (the root first).
fn load_model_object(engine: &Engine, model: &Value, class: &str) -> Result<Value, EngineError> {
    let model = match model {
        // A bare object (no "Objects" key) is the root object.
        Value::Dict(d) if !d.contains_key(&Value::str("Objects")) => {
            let mut m = Dict::default();
            m.insert(Value::str("Objects"), Value::Dict(d.clone()));
            Value::Dict(Arc::new(m))
        }
        other => other.clone(),
    };
    let root = engine.load_model(&model)?;
    let is_class = |v: &Value| {
        engine
            .object_view(v)
            .is_some_and(|view| view.class == class)
    };
    if let Some(r) = root.filter(|r| is_class(r)) {
        return Ok(r);
    }
    // Any object of that class the model holds.
    let model_json = engine.serialized_model();
    if let Value::Dict(d) = &model_json {
        if let Some(Value::Dict(objects)) = d.get(&Value::str("Objects")) {
            if let Some(found) = find_of_class(engine, &Value::Dict(objects.clone()), class) {
                return Ok(found);
            }
        }
    }
    Err(EngineError::dsl(
        "NoObjectFoundError",
        format!("the model has no object of class {class}"),
    ))
}

fn find_of_class(engine: &Engine, v: &Value, class: &str) -> Option<Value> {
    match v {
        Value::Dict(d) => {
            if let Some(Value::Dict(h)) = d.get(&Value::str("?")) {
                let ty = h
                    .get(&Value::str("type"))
                    .and_then(Value::as_str)
                    .unwrap_or("");
                if ty.split('/').next() == Some(class) {
                    if let Some(id) = h.get(&Value::str("id")).and_then(Value::as_str) {
                        if let Some(o) = engine.object(id) {
                            return Some(o);
                        }
                    }
                }
            }
            d.values().find_map(|x| find_of_class(engine, x, class))
        }
        Value::List(items) | Value::Tuple(items) => {
            items.iter().find_map(|x| find_of_class(engine, x, class))
        }
        _ => None,
    }
}

/// The package a class belongs to (frames name it).
fn package_of(engine: &Engine, class: &str) -> Option<String> {
    let classes = engine.classes();
    let id = classes.find(class)?;
    let registry = classes.registry();
    registry
        .package_of(id)
        .and_then(|p| registry.package(p))
        .map(|p| p.name.clone())
}
