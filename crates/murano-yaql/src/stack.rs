//! A guard against running out of native stack.
//!
//! Depth limits count levels, but what a level costs on the native stack
//! varies: a MuranoPL method whose body is a 190-deep expression that
//! calls the method again costs as much as 190 plain levels, and debug
//! builds take several times the stack of release builds. So besides
//! counting, the evaluator and the engine ask [`exhausted`] before they
//! recurse, against a budget of bytes a caller set with [`budget`] for
//! the current thread.
//!
//! The position is read from the address of a local variable (safe
//! code); stacks are assumed to grow downwards, as on every platform
//! Rust supports tier 1. Where no budget is set, [`exhausted`] is never
//! true and the depth limits alone apply.
//!
//! ```
//! use murano_yaql::stack;
//!
//! let _guard = stack::budget(1 << 20);
//! assert!(!stack::exhausted());
//! ```

use std::cell::Cell;

thread_local! {
    /// The lowest stack address this thread may reach (0: no budget).
    static FLOOR: Cell<usize> = const { Cell::new(0) };
}

/// Where this thread's stack is now (the address of a local).
#[inline(always)]
fn here() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

/// Lets the current thread use `bytes` more stack below this point
/// until the guard drops. A budget set while another one holds keeps the
/// stricter floor of the two, so re-entering code cannot extend it.
pub fn budget(bytes: usize) -> StackBudget {
    let floor = here().saturating_sub(bytes);
    let previous = FLOOR.with(|f| {
        let previous = f.get();
        f.set(if previous == 0 {
            floor
        } else {
            previous.max(floor)
        });
        previous
    });
    StackBudget { previous }
}

/// Whether the current thread has used up the budget [`budget`] set.
#[inline]
pub fn exhausted() -> bool {
    let floor = FLOOR.with(Cell::get);
    floor != 0 && here() < floor
}

/// Restores the budget that held before [`budget`] when dropped.
#[must_use = "the budget holds only while the guard lives"]
#[derive(Debug)]
pub struct StackBudget {
    previous: usize,
}

impl Drop for StackBudget {
    fn drop(&mut self) {
        let previous = self.previous;
        FLOOR.with(|f| f.set(previous));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[inline(never)]
    fn deepest(level: usize) -> usize {
        let pad = std::hint::black_box([0u8; 512]);
        if exhausted() {
            return level + usize::from(pad[0]);
        }
        deepest(level + 1)
    }

    #[test]
    fn recursion_stops_within_the_budget() {
        let _guard = budget(256 << 10);
        let reached = deepest(0);
        // Each level holds at least its 512-byte pad: the recursion
        // stopped after at most 256 KiB of them, and went somewhere.
        assert!(reached > 0 && reached <= 512, "{reached}");
    }

    #[test]
    fn no_budget_is_never_exhausted_and_guards_restore() {
        assert!(!exhausted());
        {
            let _outer = budget(1 << 20);
            let before = FLOOR.with(Cell::get);
            {
                let _inner = budget(64 << 20);
                // The stricter floor (the outer one) stays.
                assert_eq!(FLOOR.with(Cell::get), before);
            }
            assert_eq!(FLOOR.with(Cell::get), before);
        }
        assert_eq!(FLOOR.with(Cell::get), 0);
    }
}
