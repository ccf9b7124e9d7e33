//! `murano test`: runs a package's MuranoPL tests as Murano's
//! `murano-test-runner` does, offline.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use murano_engine::testing::{render_trace, select, Outcome, RunOptions, Runner, TestResult};
use murano_engine::EngineError;

use crate::engine_packages::{frame_json, load_packages, Sources};
use crate::output::{cut, line, message, trace};

/// Run the MuranoPL tests of packages, without a cloud.
///
/// Examples:
///
///   murano test path/to/package --catalog path/to/io.murano.zip
///   murano test app.zip --filter testDeploy --filter com.example.AppTests
///   murano test app --format junit > report.xml
///
/// Test classes are the package's classes that extend
/// io.murano.test.TestFixture; their tests are the methods each declares
/// whose name starts with "test" (not followed by a lower-case letter).
/// Each test gets a fresh engine and a new test object; setUp runs
/// before it and tearDown after it. The fixture's inject()/withOriginal()
/// mocks and assertEqual/assertTrue/assertFalse/assertIn/assertNotIn work
/// as in Murano. Calls that need a cloud (Heat, Neutron, the agent) fail
/// unless the test mocks them.
///
/// --filter takes Murano's forms: a method name (in every test class), a
/// class name, or Class.method. Unlike Murano's runner, a test whose setUp
/// fails is reported as failed and the run goes on.
///
/// Exit status: 0 when every test passed, 1 when one failed or none was
/// found, 2 on a usage or load error.
#[derive(Args)]
#[command(verbatim_doc_comment)]
pub(crate) struct TestArgs {
    /// Package directories or .zip archives; the tests of each run, and
    /// each can use the others' classes.
    #[arg(required = true)]
    packages: Vec<PathBuf>,
    /// Which tests to run (repeatable): METHOD, CLASS or CLASS.METHOD.
    #[arg(long, value_name = "PATTERN")]
    filter: Vec<String>,
    /// Packages (folders searched recursively, or .zip files) the tests may
    /// use, e.g. Murano's core library; then MURANO_CATALOG, then
    /// /usr/share/murano-common.
    #[arg(long, value_name = "DIR")]
    catalog: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    #[command(flatten)]
    output: crate::output::OutputArgs,
    #[command(flatten)]
    limits: crate::limits::LimitArgs,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// cargo-test-like lines and failure traces.
    Text,
    /// One JSON document.
    Json,
    /// JUnit XML, for CI systems.
    Junit,
}

/// The results of one package.
struct PackageRun {
    package: String,
    results: Vec<TestResult>,
}

/// `Name: message`, one line, the message cut to `max` bytes.
fn error_text(e: &EngineError, max: usize) -> String {
    let names = e.murano_names();
    let name = if names.len() == 1 {
        names[0].clone()
    } else {
        format!("[{}]", names.join(", "))
    };
    format!("{}: {}", line(&name), message(&e.message, max))
}

/// The error, its trace and its causes' (package text escaped).
fn trace_text(runner: &Runner, sources: &Sources, e: &EngineError, max: usize) -> String {
    let mut out = format!("{}\n", error_text(e, max));
    out.push_str(&trace(
        &render_trace(&e.frames, &|c| runner.package_of(c), &|p, f| {
            sources.get(p, f)
        }),
        max,
    ));
    let mut cause = e.cause.as_deref();
    while let Some(c) = cause {
        out.push_str(&format!("caused by: {}\n", error_text(c, max)));
        out.push_str(&trace(
            &render_trace(&c.frames, &|x| runner.package_of(x), &|p, f| {
                sources.get(p, f)
            }),
            max,
        ));
        cause = c.cause.as_deref();
    }
    out
}

pub(crate) fn run(args: &TestArgs) -> ExitCode {
    crate::output::set_limit(args.output.max_output);
    let max = args.output.max_message;
    for path in args.packages.iter().chain(&args.catalog) {
        if !path.exists() {
            eprintln!("murano: {}: no such file or folder", path.display());
            return ExitCode::from(2);
        }
    }
    let packages = match load_packages(&args.packages, &args.catalog) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("murano: {e}");
            return ExitCode::from(2);
        }
    };
    let sources = Sources::new(&packages);
    let mut runs = Vec::new();
    let mut total_passed = 0;
    let mut total_failed = 0;
    let mut any_selected = false;
    // Which filters selected a test in some package.
    let mut matched = vec![false; args.filter.len()];
    for index in 0..args.packages.len().min(packages.len()) {
        // The package under test first, then the others in order.
        let mut ordered = packages.clone();
        let under_test = ordered.remove(index);
        let name = under_test.name.clone();
        ordered.insert(0, under_test);
        let options = RunOptions {
            limits: args.limits.limits(),
            ..RunOptions::default()
        };
        let runner = match Runner::new(&ordered, options) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("murano: {e}");
                return ExitCode::from(2);
            }
        };
        for (i, filter) in args.filter.iter().enumerate() {
            let found = select(runner.discovery(), std::slice::from_ref(filter))
                .is_some_and(|set| set.iter().any(|(_, m)| !m.is_empty()));
            matched[i] |= found;
        }
        let Some(run_set) = select(runner.discovery(), &args.filter) else {
            continue;
        };
        let count: usize = run_set.iter().map(|(_, m)| m.len()).sum();
        // A filter that keeps a test class but none of its methods selects
        // nothing either (Murano's runner would run 0 tests).
        if count == 0 {
            continue;
        }
        any_selected = true;
        if args.format == Format::Text {
            let noun = if count == 1 { "test" } else { "tests" };
            outln!("running {count} {noun} of {}", line(&name));
        }
        let (results, _) = runner.run(&run_set, |r| {
            // Errors Murano mutes (a `.destroy` that raised): the test's
            // outcome stays as Murano's.
            for w in &r.warnings {
                eprintln!(
                    "murano: warning: {}: {}",
                    line(&r.name()),
                    trace(w, args.output.max_message)
                );
            }
            if args.format == Format::Text {
                let status = match r.outcome {
                    Outcome::Ok => "ok",
                    Outcome::Failed => "FAILED",
                };
                outln!("test {} ... {status}", line(&r.name()));
            }
        });
        let failed = results
            .iter()
            .filter(|r| r.outcome == Outcome::Failed)
            .count();
        total_failed += failed;
        total_passed += results.len() - failed;
        if args.format == Format::Text && failed > 0 {
            outln!("\nfailures:");
            for r in &results {
                let Some((phase, e)) = &r.failure else {
                    continue;
                };
                outln!("\n---- {} ({}) ----", line(&r.name()), phase.as_str());
                for l in &r.log {
                    outln!(
                        "log {} {}: {}",
                        line(&l.level),
                        line(&l.logger),
                        message(&l.message, max)
                    );
                }
                outln!("{}", trace_text(&runner, &sources, e, max).trim_end());
            }
            outln!();
        }
        runs.push((
            runner,
            PackageRun {
                package: name,
                results,
            },
        ));
    }
    let unmatched: Vec<&str> = args
        .filter
        .iter()
        .zip(&matched)
        .filter(|(_, m)| !**m)
        .map(|(f, _)| f.as_str())
        .collect();
    if !any_selected {
        if unmatched.is_empty() {
            eprintln!("murano: no tests found for execution");
        } else {
            eprintln!(
                "murano: no tests found for execution: --filter {} matched no test method (a test method, a test class, or Class.method)",
                unmatched.join(", --filter ")
            );
        }
        return ExitCode::from(1);
    }
    for filter in unmatched {
        eprintln!("murano: warning: --filter {filter} matched no test method");
    }
    match args.format {
        Format::Text => outln!("{total_passed} passed, {total_failed} failed"),
        Format::Json => {
            let doc = json_report(&runs, total_passed, total_failed, max);
            if let Err(e) = crate::output::print_json(&doc) {
                eprintln!("murano: cannot print the report: {e}");
                return ExitCode::from(1);
            }
        }
        Format::Junit => outln!("{}", junit_report(&runs, &sources, max)),
    }
    if total_failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// The JSON report (messages cut to `max` bytes).
fn json_report(
    runs: &[(Runner, PackageRun)],
    passed: usize,
    failed: usize,
    max: usize,
) -> serde_json::Value {
    let packages: Vec<serde_json::Value> = runs
        .iter()
        .map(|(runner, run)| {
            let tests: Vec<serde_json::Value> = run
                .results
                .iter()
                .map(|r| {
                    let failure = r.failure.as_ref().map(|(phase, e)| {
                        serde_json::json!({
                            "phase": phase.as_str(),
                            "names": e.murano_names(),
                            "message": cut(&e.message, max),
                            "frames": e.frames.iter().rev()
                                .map(|f| frame_json(f, runner.package_of(&f.class)))
                                .collect::<Vec<_>>(),
                        })
                    });
                    serde_json::json!({
                        "name": r.name(),
                        "class": r.class,
                        "method": r.method,
                        "outcome": match r.outcome { Outcome::Ok => "ok", Outcome::Failed => "failed" },
                        "calls": r.calls,
                        "failure": failure,
                        "log": r.log.iter().map(|l| serde_json::json!({
                            "logger": l.logger, "level": l.level, "message": cut(&l.message, max),
                        })).collect::<Vec<_>>(),
                    })
                })
                .collect();
            serde_json::json!({"package": run.package, "tests": tests})
        })
        .collect();
    serde_json::json!({
        "packages": packages,
        "passed": passed,
        "failed": failed,
    })
}

/// XML attribute escaping: [`xml`] with line breaks kept as references
/// (a parser turns literal ones into spaces).
fn xml_attr(text: &str) -> String {
    xml(text)
        .replace('\n', "&#10;")
        .replace('\r', "&#13;")
        .replace('\t', "&#9;")
}

/// Whether XML 1.0 holds `c` as it is: its `Char` production (tab, line
/// breaks, U+0020-U+D7FF, U+E000-U+FFFD, U+10000-U+10FFFF), less what
/// it discourages (other controls, noncharacters).
fn xml_char(c: char) -> bool {
    let n = c as u32;
    match c {
        '\t' | '\n' | '\r' => true,
        _ if n < 0x20 || (0x7F..=0x9F).contains(&n) => false,
        _ if (0xFDD0..=0xFDEF).contains(&n) => false,
        // U+FFFE and U+FFFF of every plane (surrogates are no chars).
        _ => n & 0xFFFE != 0xFFFE,
    }
}

/// XML text escaping; characters XML cannot hold as `\uXXXX` text.
fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if !xml_char(c) => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out
}

fn junit_report(runs: &[(Runner, PackageRun)], sources: &Sources, max: usize) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n");
    for (runner, run) in runs {
        let failures = run
            .results
            .iter()
            .filter(|r| r.outcome == Outcome::Failed)
            .count();
        out.push_str(&format!(
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\" errors=\"0\">\n",
            xml_attr(&run.package),
            run.results.len()
        ));
        for r in &run.results {
            out.push_str(&format!(
                "    <testcase classname=\"{}\" name=\"{}\"",
                xml_attr(&r.class),
                xml_attr(&r.method)
            ));
            match &r.failure {
                None => out.push_str("/>\n"),
                Some((phase, e)) => {
                    out.push_str(">\n");
                    out.push_str(&format!(
                        "      <failure type=\"{}\" message=\"{}\">{}</failure>\n",
                        xml_attr(&e.murano_names().join(", ")),
                        xml_attr(&format!("{} (in {})", cut(&e.message, max), phase.as_str())),
                        xml(&trace_text(runner, sources, e, max))
                    ));
                    if !r.log.is_empty() {
                        let log: Vec<String> = r
                            .log
                            .iter()
                            .map(|l| format!("{} {}: {}", l.level, l.logger, cut(&l.message, max)))
                            .collect();
                        out.push_str(&format!(
                            "      <system-out>{}</system-out>\n",
                            xml(&log.join("\n"))
                        ));
                    }
                    out.push_str("    </testcase>\n");
                }
            }
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>");
    out
}
