//! `murano`: the command line face of the murano crates. This is the only
//! crate of the workspace that reads files or writes to a terminal.

#![forbid(unsafe_code)]

mod parse;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Tools for OpenStack Murano packages and YAQL.
#[derive(Parser)]
#[command(name = "murano", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    Parse(parse::ParseArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Parse(args) => parse::run(&args),
    }
}
