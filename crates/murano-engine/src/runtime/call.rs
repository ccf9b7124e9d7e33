//! How a call from outside the engine is made.

/// How [`crate::Engine::call_with`] calls a method.
///
/// The default is what [`crate::Engine::call`] does: only public methods
/// (and actions) can be called from outside, as Murano's API calls them.
/// A test runner or a debugging tool calls any method, as Murano's
/// executor runs tests ([`CallOptions::any_scope`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CallOptions {
    /// Call methods whatever their scope (no `MethodNotExposed` for a
    /// private method).
    pub ignore_scope: bool,
    /// Return the result as MuranoPL holds it (lists frozen as tuples),
    /// as Murano's executor gives it to its test runner, instead of the
    /// mutable value Murano's object interface gives other callers.
    pub frozen_result: bool,
}

impl CallOptions {
    /// Options that call any method, public or not.
    pub fn any_scope() -> CallOptions {
        CallOptions {
            ignore_scope: true,
            frozen_result: false,
        }
    }

    /// How Murano's test runner calls (`executor.run`): any method, the
    /// result as MuranoPL holds it.
    pub fn test_runner() -> CallOptions {
        CallOptions {
            ignore_scope: true,
            frozen_result: true,
        }
    }
}
