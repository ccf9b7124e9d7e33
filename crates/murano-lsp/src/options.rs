//! The server's limits and inputs, each with a safe default.

use std::path::PathBuf;

/// What the server reads and how much of it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ServerOptions {
    /// Packages (folders searched for packages, or `.zip` files) whose
    /// classes the workspace may use, Murano's core library among them:
    /// they are indexed for navigation and the checker's catalog, never
    /// checked themselves.
    pub catalog: Vec<PathBuf>,
    /// Largest file read, in bytes; a larger one is skipped (and an open
    /// document larger than this is not analysed).
    pub max_file_size: u64,
    /// Most files read from one package folder.
    pub max_files_per_package: usize,
    /// Most packages indexed (workspace and catalog together).
    pub max_packages: usize,
    /// Deepest folder level searched for packages under a root.
    pub max_walk_depth: usize,
    /// Most folder entries looked at while searching for packages.
    pub max_walk_entries: usize,
    /// Deepest YAML nesting loaded (default: the loader's, as `murano
    /// check` loads).
    pub max_yaml_depth: u32,
    /// Most results of a references or rename request.
    pub max_results: usize,
}

/// Default [`ServerOptions::max_file_size`]: 4 MiB, a class file far
/// larger than any real one.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 4 << 20;

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            catalog: Vec::new(),
            max_file_size: DEFAULT_MAX_FILE_SIZE,
            max_files_per_package: 2_000,
            max_packages: 5_000,
            max_walk_depth: 12,
            max_walk_entries: 200_000,
            max_yaml_depth: murano_yaml::LoadOptions::default().max_depth,
            max_results: 10_000,
        }
    }
}
