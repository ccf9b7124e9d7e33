//! `murano lsp`: the language server of `murano-lsp` over stdin and
//! stdout.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use murano_lsp::ServerOptions;

use crate::core_library;

/// Run the MuranoPL language server on stdin and stdout (LSP).
///
/// An editor starts it; the workspace is every package under the
/// editor's folders, checked as `murano check --catalog` checks them,
/// plus the catalog: the --catalog paths, the MURANO_CATALOG paths and,
/// when they hold no io.murano, Debian's murano-common package.
///
/// Example (Neovim, Helix, VS Code: see the README): murano lsp --catalog ~/murano-apps
#[derive(Args)]
#[command(verbatim_doc_comment)]
pub(crate) struct LspArgs {
    /// Packages (folders searched for packages, or .zip files) the
    /// workspace may use: indexed for navigation, not checked.
    #[arg(long, value_name = "DIR")]
    catalog: Vec<PathBuf>,
    /// Largest file read, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = murano_lsp::DEFAULT_MAX_FILE_SIZE)]
    max_file_size: u64,
    /// Most packages indexed.
    #[arg(long, value_name = "N", default_value_t = ServerOptions::default().max_packages)]
    max_packages: usize,
}

pub(crate) fn run(args: &LspArgs) -> ExitCode {
    let mut options = ServerOptions::default();
    options.catalog = core_library::catalog_paths(&args.catalog);
    let has_core = options.catalog.iter().any(|p| {
        p.file_stem()
            .is_some_and(|s| s == core_library::CORE_PACKAGE)
            || p.join(core_library::CORE_PACKAGE).exists()
            || p.join(format!("{}.zip", core_library::CORE_PACKAGE))
                .exists()
    });
    if !has_core {
        if let Some(system) = core_library::system_catalog() {
            options.catalog.push(system);
        }
    }
    options.max_file_size = args.max_file_size;
    options.max_packages = args.max_packages;
    let (connection, io_threads) = lsp_server::Connection::stdio();
    let outcome = murano_lsp::run(connection, options);
    let joined = io_threads.join();
    match (outcome, joined) {
        (Ok(()), Ok(())) => ExitCode::SUCCESS,
        (Err(e), _) => {
            eprintln!("murano lsp: {e}");
            ExitCode::from(1)
        }
        (_, Err(e)) => {
            eprintln!("murano lsp: {e}");
            ExitCode::from(1)
        }
    }
}
