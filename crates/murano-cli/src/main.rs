//! `murano`: the command line face of the murano crates. This is the only
//! crate of the workspace that reads files or writes to a terminal.

#![forbid(unsafe_code)]
// The doc comments of the argument types are clap's help texts, written for a
// terminal (`[mykey]`, `<CamelCasedFileName>`), not rustdoc markup.
#![allow(rustdoc::broken_intra_doc_links, rustdoc::invalid_html_tags)]

/// `println!` for results, within the output budget (`--max-output`, see
/// `output`): when stdout is closed (`murano … | head`), stop quietly with
/// status 0, as a pipeline expects, instead of panicking.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if writeln!($crate::output::Stdout, $($arg)*).is_err() {
            std::process::exit(0);
        }
    }};
}

mod api_serve;
mod big_stack;
mod catalog_cmd;
mod catalog_store;
mod check;
mod cloud_file;
mod core_library;
mod dashboard_open;
mod deploy;
mod docs_cmd;
mod engine_packages;
mod env_cmd;
mod files;
mod forms;
mod hot;
mod init_cmd;
mod inspect;
mod limits;
mod lsp;
mod output;
mod package_cmd;
mod parse;
mod pkg_source;
mod repo_cmd;
mod run_cmd;
mod schema;
mod serve;
mod suggest;
mod test_cmd;
mod ui;
mod yaql;

use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

/// The libraries allocate many small strings and nodes; mimalloc serves them
/// faster than the system allocator (loading the corpus class files: 88 ->
/// 73 ms). The libraries themselves leave the choice to their users.
/// mimalloc v3 (no 32 MiB segment per thread, as v2 has) overriding
/// `malloc` too (so glibc makes no 64 MiB arena per thread for its own
/// allocations): a green thread waiting in a `Parallel` then costs little
/// more than its stack.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Tools for OpenStack Murano packages and YAQL.
#[derive(Parser)]
#[command(name = "murano", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    Check(check::CheckArgs),
    Inspect(inspect::InspectArgs),
    Hot(hot::HotArgs),
    Yaql(yaql::YaqlArgs),
    Ui(ui::UiArgs),
    Schema(schema::SchemaArgs),
    Forms(forms::FormsArgs),
    Parse(parse::ParseArgs),
    Lsp(lsp::LspArgs),
    Deploy(deploy::DeployArgs),
    Test(test_cmd::TestArgs),
    Run(run_cmd::RunArgs),
    Package(package_cmd::PackageArgs),
    Init(init_cmd::InitArgs),
    Repo(repo_cmd::RepoArgs),
    Catalog(catalog_cmd::CatalogArgs),
    Docs(docs_cmd::DocsArgs),
    Env(env_cmd::EnvArgs),
    StaticAction(env_cmd::StaticActionArgs),
    Serve(api_serve::ServeArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    ///
    /// Example: murano completions bash > /etc/bash_completion.d/murano
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Check(args) => check::run(&args),
        Command::Inspect(args) => inspect::run(&args),
        Command::Hot(args) => hot::run(&args),
        Command::Yaql(args) => yaql::run(&args),
        Command::Ui(args) => ui::run(&args),
        Command::Schema(args) => schema::run(&args),
        Command::Forms(args) => forms::run(&args),
        Command::Parse(args) => parse::run(&args),
        Command::Lsp(args) => lsp::run(&args),
        Command::Deploy(args) => deploy::run(&args),
        Command::Test(args) => test_cmd::run(&args),
        Command::Run(args) => run_cmd::run(&args),
        Command::Package(args) => package_cmd::run(&args),
        Command::Init(args) => init_cmd::run(&args),
        Command::Repo(args) => repo_cmd::run(&args),
        Command::Catalog(args) => catalog_cmd::run(&args),
        Command::Docs(args) => docs_cmd::run(&args),
        Command::Env(args) => env_cmd::run(&args),
        Command::StaticAction(args) => env_cmd::run_static(&args),
        Command::Serve(args) => api_serve::run(&args),
        Command::Completions { shell } => {
            clap_complete::generate(shell, &mut Cli::command(), "murano", &mut std::io::stdout());
            ExitCode::SUCCESS
        }
    }
}
