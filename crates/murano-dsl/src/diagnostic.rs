//! The diagnostics of this crate's layers (class model `M1xx`–`M3xx`,
//! registry `R1xx`, object models `OM1xx`–`OM3xx`) are
//! [`murano_diagnostics::Diagnostic`]s, re-exported here with their
//! [`Severity`] and [`Position`]; the codes are in
//! [`murano_diagnostics::CODES`].

pub use murano_diagnostics::{code_info, CodeInfo, Diagnostic, Layer, Position, Severity, CODES};

use crate::yaml::Mark;

/// The [`Position`] of a YAML mark (0-based line, column and character
/// index become 1-based line and column and a 0-based offset).
///
/// ```
/// use murano_dsl::diagnostic::{position, Position};
/// use murano_dsl::yaml::Mark;
///
/// let mark = Mark { index: 12, line: 2, column: 4 };
/// assert_eq!(position(mark), Position::new(3, 5, 12));
/// ```
pub fn position(mark: Mark) -> Position {
    Position::from_zero_based(mark.line, mark.column, mark.index)
}
