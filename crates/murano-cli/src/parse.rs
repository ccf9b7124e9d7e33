//! `murano parse`: parse YAQL and print yaql's canonical tree.

use std::io::{Read, Write};
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use murano_yaql::{Grammar, ParseOptions};

/// Parse YAQL expressions and print each tree in yaql's canonical notation.
///
/// Examples:
///
///   murano parse '$.where($ > 3)'
///
///   murano parse --grammar murano -f expressions.txt
///
/// With -f, every line of the file that is not empty and does not start
/// with '#' is one expression. The exit status is 0 when everything parsed,
/// 1 when something did not, 2 on a usage or I/O error.
#[derive(Args)]
#[command(verbatim_doc_comment)]
pub(crate) struct ParseArgs {
    /// The expression to parse.
    #[arg(required_unless_present = "file", conflicts_with = "file")]
    expression: Option<String>,
    /// Read expressions from FILE, one per line ('-' for standard input).
    #[arg(short, long, value_name = "FILE")]
    file: Option<String>,
    /// Which grammar: yaql's standard one, Murano's engine grammar (class
    /// files), or yaql's legacy grammar.
    #[arg(short, long, value_enum, default_value_t = GrammarName::Standard)]
    grammar: GrammarName,
    /// Allow calling any value, as in `$f(1)`.
    #[arg(long)]
    delegates: bool,
    /// Print each tree back as yaql source instead of the canonical form.
    #[arg(long)]
    source: bool,
    /// Deepest nesting accepted (at most 50000: parsing runs on a thread
    /// whose stack is sized for the depth asked for).
    #[arg(
        long,
        default_value_t = ParseOptions::default().max_depth,
        value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_DEPTH_CAP))
    )]
    max_depth: u32,
}

/// The largest `--max-depth`: deeper nesting would need a stack of
/// hundreds of megabytes.
const MAX_DEPTH_CAP: u32 = 50_000;

/// Stack reserved per level of nesting for parsing, printing and dropping
/// a tree: about 3 KiB is used in debug builds, 0.7 KiB in release builds
/// (see the `stack_depth` example of murano-yaql), so this leaves room.
const STACK_PER_LEVEL: usize = 8 * 1024;

#[derive(Clone, Copy, ValueEnum)]
enum GrammarName {
    Standard,
    Murano,
    Legacy,
}

pub(crate) fn run(args: &ParseArgs) -> ExitCode {
    // Deep trees recurse: give the work a stack sized for the depth.
    let stack = (1 << 20) + args.max_depth as usize * STACK_PER_LEVEL;
    crate::big_stack::run_with_stack(stack, "parser", || run_on_this_thread(args))
}

fn run_on_this_thread(args: &ParseArgs) -> ExitCode {
    let table = match args.grammar {
        GrammarName::Standard => murano_yaql::OperatorTable::standard(),
        GrammarName::Murano => murano_yaql::OperatorTable::murano(),
        GrammarName::Legacy => murano_yaql::OperatorTable::legacy(),
    };
    let grammar = match Grammar::new(&table, args.delegates) {
        Ok(grammar) => grammar,
        Err(e) => {
            eprintln!("murano: {e}");
            return ExitCode::from(2);
        }
    };
    let options = ParseOptions::default().with_max_depth(args.max_depth);
    let (origin, expressions) = match (&args.expression, &args.file) {
        (Some(expression), _) => ("<argument>".to_owned(), vec![(1, expression.clone())]),
        (None, Some(path)) => match read_lines(path) {
            Ok(lines) => (path.clone(), lines),
            Err(e) => {
                eprintln!("murano: cannot read {path}: {e}");
                return ExitCode::from(2);
            }
        },
        (None, None) => unreachable!("clap requires one of them"),
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut failed = 0usize;
    for (line, text) in &expressions {
        match grammar.parse_with(text, &options) {
            Ok(tree) => {
                let printed = if args.source {
                    tree.root().to_source()
                } else {
                    tree.to_string()
                };
                let _ = writeln!(out, "{printed}");
            }
            Err(e) => {
                failed += 1;
                let at = e.line_col(text);
                eprintln!(
                    "error[{}]: {origin}:{}:{}\n{}",
                    e.class().python_name(),
                    line + at.line - 1,
                    at.column,
                    e.render(text)
                );
            }
        }
    }
    if failed > 0 {
        eprintln!(
            "{failed} of {} expressions did not parse",
            expressions.len()
        );
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn read_lines(path: &str) -> std::io::Result<Vec<(usize, String)>> {
    let mut text = String::new();
    if path == "-" {
        std::io::stdin().read_to_string(&mut text)?;
    } else {
        text = std::fs::read_to_string(path)?;
    }
    Ok(text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .map(|(i, l)| (i + 1, l.to_owned()))
        .collect())
}
