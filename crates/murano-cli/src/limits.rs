//! The engine limits `run`, `test` and `deploy` take as options.

use clap::Args;
use murano_engine::{Limits, DEFAULT_MAX_MEMORY};

/// Options for the limits of the engine running untrusted packages.
#[derive(Args, Clone, Debug)]
pub(crate) struct LimitArgs {
    /// Most bytes of strings and collections a run may hold (its
    /// variables, properties and what running expressions built); beyond,
    /// the run stops with a LimitExceeded error.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_MEMORY)]
    pub(crate) max_memory: u64,
}

impl LimitArgs {
    /// The engine's default limits with these options.
    pub(crate) fn limits(&self) -> Limits {
        Limits {
            max_memory: self.max_memory,
            ..Limits::default()
        }
    }
}
