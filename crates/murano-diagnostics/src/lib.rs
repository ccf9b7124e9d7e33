//! Diagnostics of the murano crates: one [`Diagnostic`] type, one
//! [`Severity`], one vocabulary of text positions ([`Position`]), the
//! table of every code any layer emits ([`CODES`]), and the one renderer
//! of "message, file:line:column, source line, carets" ([`Snippet`]).
//!
//! This crate is the bottom of the stack: it depends on no other crate of
//! the workspace, so every layer (YAQL, the class model, the registry,
//! object models, package checks, the command line tool) reports through
//! the same type and renders through the same code.
//!
//! ```
//! use murano_diagnostics::{code_info, Diagnostic, Position, Severity};
//!
//! let source = "Name: App\nProperties:\n  port:\n    Default: 80\n";
//! let d = Diagnostic::new("E047", "property \"port\" has no Contract")
//!     .with_file("Classes/App.yaml")
//!     .with_start(Position::new(3, 3, 24));
//! assert_eq!(d.severity, Severity::Error); // from the code table
//! assert_eq!(code_info("E047").unwrap().summary, "property without Contract");
//! assert_eq!(
//!     d.render(Some(source)),
//!     "error[E047]: property \"port\" has no Contract\n  --> Classes/App.yaml:3:3\n  |\n\
//!      3 |   port:\n  |   ^"
//! );
//! ```

mod codes;
mod diagnostic;
mod position;
mod render;

pub use codes::{code_info, CodeInfo, Layer, CODES};
pub use diagnostic::{Diagnostic, Severity};
pub use position::Position;
pub use render::{nth_line, Snippet, DEFAULT_MAX_WIDTH};
