//! A language server for MuranoPL packages, on rust-analyzer's
//! synchronous `lsp-server` (no async runtime; messages are handled in
//! order, so diagnostics of a change go out before the answer to the
//! next request).
//!
//! The workspace is every package under the client's folders (checked,
//! as `murano check` checks them) plus the catalog paths of
//! [`ServerOptions`] (indexed, for navigation and the checker's catalog).
//! Features: diagnostics with `murano check`'s codes, hover, definition,
//! references, rename, completion, document symbols, semantic tokens
//! for YAQL, quick fixes and a code lens running test methods.
//!
//! [`run`] serves one [`lsp_server::Connection`]; it does no I/O of its
//! own beyond reading the workspace's files, so tests drive it over
//! `Connection::memory()` and `murano lsp` over stdio.

#![forbid(unsafe_code)]

mod actions;
mod analysis;
mod diagnostics;
mod docs;
mod features;
mod fs;
mod index;
mod lens;
mod options;
mod server;
mod text;
mod tokens;
mod workspace;

pub use options::{ServerOptions, DEFAULT_MAX_FILE_SIZE};
pub use server::{run, ServerError};
pub use workspace::Workspace;
