//! `murano yaql`: evaluate YAQL against data, or interactively.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args, ValueEnum};
use murano_yaml::convert::{self, NonFinite, ToJson, ToYaql};
use murano_yaml::{load_single, Flavor, LoadOptions, Node};
use murano_yaql::eval::{Context, Engine, Library, Options, Value};
use murano_yaql::{Grammar, ParseErrorKind};

/// Evaluate a YAQL expression against JSON or YAML data.
///
/// Examples:
///
///   murano yaql '$.where($.age > 30).select($.name)' --data people.json
///
///   echo '{"a": [1, 2, 3]}' | murano yaql '$.a.sum()' --data -
///
///   murano yaql            # an interactive prompt (history; an unfinished
///                          # expression continues on the next line)
///
/// The result is printed as JSON. Limits are on by default and can be
/// raised: --fuel, --limit-iterators, --max-depth.
#[derive(Args)]
#[command(verbatim_doc_comment)]
pub(crate) struct YaqlArgs {
    /// The expression (omit it for the interactive prompt).
    #[arg(conflicts_with = "file")]
    expression: Option<String>,
    /// Read the expression from FILE ('-' for standard input).
    #[arg(short, long, value_name = "FILE")]
    file: Option<String>,
    /// JSON or YAML data bound to `$` ('-' for standard input).
    #[arg(short, long, value_name = "FILE")]
    data: Option<PathBuf>,
    /// Which grammar and library: yaql's standard one (with delegates),
    /// Murano's engine (format 1.2+ options, with the engine's functions
    /// that need no object model: format, base64encode, substr, ...), or
    /// yaql's legacy mode.
    #[arg(short, long, value_enum, default_value_t = GrammarName::Standard)]
    grammar: GrammarName,
    /// Evaluation steps allowed.
    #[arg(long, default_value_t = murano_yaql::eval::DEFAULT_FUEL)]
    fuel: u64,
    /// Longest collection an iteration may visit (yaql.limitIterators).
    #[arg(long, default_value_t = murano_yaql::eval::DEFAULT_LIMIT_ITERATORS)]
    limit_iterators: usize,
    /// Memory quota in bytes (yaql.memoryQuota).
    #[arg(long)]
    memory_quota: Option<usize>,
    /// Deepest nesting of calls (at most 10000: evaluation runs on a
    /// thread whose stack is sized for the depth asked for).
    #[arg(
        long,
        default_value_t = 200,
        value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_DEPTH_CAP))
    )]
    max_depth: u32,
    #[command(flatten)]
    output: crate::output::OutputArgs,
}

/// The largest `--max-depth`.
const MAX_DEPTH_CAP: u32 = 10_000;

/// Stack reserved per level of call nesting: a level takes about 4 KiB in
/// debug builds when a function calls itself; this leaves room for
/// deeper shapes (methods, lambdas, operators).
const STACK_PER_LEVEL: usize = 32 * 1024;

#[derive(Clone, Copy, ValueEnum)]
enum GrammarName {
    Standard,
    Murano,
    Legacy,
}

fn engine(args: &YaqlArgs) -> (Engine, Library) {
    let (mut engine, library) = match args.grammar {
        GrammarName::Standard => (Engine::standard(), Library::standard(true)),
        GrammarName::Murano => (Engine::murano(true), murano_engine::yaql_library()),
        GrammarName::Legacy => (Engine::legacy(), Library::legacy()),
    };
    let options: &mut Options = engine.options_mut();
    options.fuel = Some(args.fuel);
    options.limit_iterators = Some(args.limit_iterators);
    options.memory_quota = args.memory_quota.or(options.memory_quota);
    options.max_depth = args.max_depth as usize;
    (engine, library)
}

/// A loaded YAML/JSON node as a YAQL value (as yaql's input conversion
/// sees Python data; ordered pairs stay a list of pairs).
fn to_value(node: &Node) -> Value {
    // `data()` refuses nothing, so the error arm is never taken.
    convert::to_yaql(node, &ToYaql::data()).unwrap_or(Value::Null)
}

/// A dictionary key as Python's `json.dumps` writes it (as
/// [`convert::to_json`] does): strings as they are, `null`,
/// `true`/`false`, numbers as their `repr()`, others as their `str()`.
fn json_key(key: &Value) -> String {
    match key {
        Value::Str(s) => s.to_string(),
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Int(n) => n.to_string(),
        Value::Float(f) => murano_yaql::python_float_repr(*f),
        other => other.py_str(),
    }
}

/// Prints a value as JSON (infinities and NaN as their text), written as
/// it is walked within the output budget.
fn print_value(value: &Value) -> Result<(), String> {
    let style = crate::output::JsonStyle {
        scalars: ToJson::default().with_non_finite(NonFinite::Text),
        key: &json_key,
        replace: &|_| None,
    };
    crate::output::print_json(&crate::output::JsonValue::new(value, &style))
        .map_err(|e| format!("murano: cannot print the result: {e}"))
}

fn read_text(path: &str) -> std::io::Result<String> {
    if path == "-" {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text)?;
        Ok(text)
    } else {
        std::fs::read_to_string(path)
    }
}

/// Largest data file read (the YAML loader's input limit).
const MAX_DATA_SIZE: u64 = 16 << 20;

fn load_data(path: &std::path::Path) -> Result<Value, String> {
    let cannot = |e: &dyn std::fmt::Display| format!("cannot read {}: {e}", path.display());
    let bytes = if path.as_os_str() == "-" {
        let mut bytes = Vec::new();
        std::io::stdin()
            .take(MAX_DATA_SIZE + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| cannot(&e))?;
        (bytes.len() as u64 <= MAX_DATA_SIZE).then_some(bytes)
    } else {
        crate::files::read_capped(path, MAX_DATA_SIZE).map_err(|e| cannot(&e))?
    };
    let bytes =
        bytes.ok_or_else(|| format!("{}: larger than {MAX_DATA_SIZE} bytes", path.display()))?;
    // JSON is YAML too; the plain loader reads both (and says where a
    // byte is not UTF-8 or a character is not allowed).
    let doc = load_single(&bytes, Flavor::Plain, &LoadOptions::default())
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(doc.as_ref().map_or(Value::Null, to_value))
}

fn evaluate(engine: &Engine, context: &Context, source: &str) -> Result<Value, String> {
    let query = engine.compile(source).map_err(|e| e.render(source))?;
    let value = query.evaluate(context).map_err(|e| e.render(source))?;
    // A value that shares structure is small in memory but can be
    // exponentially long as JSON: measure it first, within the limit.
    value
        .check_printed_len(engine.options().max_string_len)
        .map_err(|e| e.render(source))?;
    Ok(value)
}

pub(crate) fn run(args: &YaqlArgs) -> ExitCode {
    // Evaluation recurses: give it a stack sized for the depth allowed.
    let stack = (8 << 20) + args.max_depth as usize * STACK_PER_LEVEL;
    crate::big_stack::run_with_stack(stack, "evaluation", || run_on_this_thread(args))
}

fn run_on_this_thread(args: &YaqlArgs) -> ExitCode {
    crate::output::set_limit(args.output.max_output);
    let (engine, library) = engine(args);
    let mut context = Context::new(Arc::new(library));
    if let Some(path) = &args.data {
        match load_data(path) {
            Ok(data) => context = context.with("$", data),
            Err(e) => {
                eprintln!("murano: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let source = match (&args.expression, &args.file) {
        (Some(e), _) => e.clone(),
        (None, Some(f)) => match read_text(f) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("murano: cannot read {f}: {e}");
                return ExitCode::from(2);
            }
        },
        (None, None) => return interactive(&engine, &context, args.output.max_output),
    };
    match evaluate(&engine, &context, &source).and_then(|v| print_value(&v)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::from(1)
        }
    }
}

/// Most lines kept in the history file.
const HISTORY_LINES: usize = 1000;

/// Where the prompt's history lives between sessions: `$MURANO_HISTORY`,
/// else `$XDG_STATE_HOME/murano/yaql_history`, else
/// `~/.local/state/murano/yaql_history`; `None` when there is no home.
fn history_path() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("MURANO_HISTORY") {
        return (!path.is_empty()).then(|| PathBuf::from(path));
    }
    let state = std::env::var_os("XDG_STATE_HOME")
        .filter(|s| !s.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|h| !h.is_empty())
                .map(|h| PathBuf::from(h).join(".local/state"))
        })?;
    Some(state.join("murano/yaql_history"))
}

/// The saved history, one entry per line (line breaks inside an entry
/// are saved as `\u{2028}`), at most [`HISTORY_LINES`].
fn load_history(path: &std::path::Path) -> Vec<String> {
    let Ok(Some(bytes)) = crate::files::read_capped(path, 1 << 20) else {
        return Vec::new();
    };
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<String> = text
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| l.replace('\u{2028}', "\n"))
        .collect();
    let skip = lines.len().saturating_sub(HISTORY_LINES);
    lines.into_iter().skip(skip).collect()
}

/// Writes the history back (the last [`HISTORY_LINES`] entries); a
/// history that cannot be saved is not worth an error.
fn save_history(path: &std::path::Path, entries: &[String]) {
    if let Some(parent) = path.parent() {
        let _ = std::fs::create_dir_all(parent);
    }
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return;
    }
    let skip = entries.len().saturating_sub(HISTORY_LINES);
    let mut text = String::new();
    for entry in &entries[skip..] {
        text.push_str(&entry.replace(['\n', '\r'], "\u{2028}"));
        text.push('\n');
    }
    let _ = std::fs::write(path, text);
}

/// Whether to colour the prompt's output: on a terminal, unless
/// `NO_COLOR` is set (<https://no-color.org>).
fn use_colour() -> bool {
    use std::io::IsTerminal;
    std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && std::io::stderr().is_terminal()
}

const HELP: &str = "Type a YAQL expression and press Enter; `$` is the --data document.
An unfinished expression continues on the next line.
  help         this text
  exit, quit   leave (Ctrl-D too); Ctrl-C drops the line being typed
History is kept between sessions (MURANO_HISTORY names the file).";

/// A prompt with history; input continues on the next line while the
/// expression is unfinished. `exit`, `quit` or Ctrl-D end.
fn interactive(engine: &Engine, context: &Context, max_output: u64) -> ExitCode {
    // An answer too long to print is an error of that answer.
    crate::output::keep_going_on_cut();
    use std::io::IsTerminal;
    let Ok(mut editor) = rustyline::DefaultEditor::new() else {
        eprintln!("murano: no terminal for the interactive prompt");
        return ExitCode::from(2);
    };
    let colour = use_colour();
    let paint = |code: &str, text: &str| {
        if colour {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    };
    if std::io::stdin().is_terminal() {
        eprintln!(
            "murano yaql {}: type an expression, `help` for help, `exit` or Ctrl-D to leave",
            env!("CARGO_PKG_VERSION")
        );
    }
    let history_file = history_path();
    let mut history = history_file
        .as_deref()
        .map(load_history)
        .unwrap_or_default();
    for entry in &history {
        let _ = editor.add_history_entry(entry.as_str());
    }
    let grammar: &Grammar = engine.grammar();
    let mut pending = String::new();
    loop {
        let prompt = if pending.is_empty() {
            "yaql> "
        } else {
            "...   "
        };
        match editor.readline(prompt) {
            Ok(line) => {
                if pending.is_empty() {
                    match line.trim() {
                        "exit" | "quit" => break,
                        "help" => {
                            eprintln!("{HELP}");
                            continue;
                        }
                        _ => {}
                    }
                }
                if !pending.is_empty() {
                    pending.push('\n');
                }
                pending.push_str(&line);
                if pending.trim().is_empty() {
                    pending.clear();
                    continue;
                }
                if let Err(e) = grammar.parse(&pending) {
                    if matches!(e.kind(), ParseErrorKind::UnexpectedEnd) {
                        continue;
                    }
                }
                let _ = editor.add_history_entry(pending.as_str());
                history.push(pending.clone());
                // Each answer has the whole output budget.
                crate::output::set_limit(max_output);
                if let Err(e) = evaluate(engine, context, &pending).and_then(|v| print_value(&v)) {
                    eprintln!("{}", paint("31", &e));
                }
                pending.clear();
            }
            Err(rustyline::error::ReadlineError::Interrupted) => pending.clear(),
            Err(_) => break,
        }
    }
    if let Some(path) = &history_file {
        save_history(path, &history);
    }
    ExitCode::SUCCESS
}
