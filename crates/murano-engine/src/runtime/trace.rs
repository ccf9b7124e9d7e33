//! MuranoPL stack traces: the frames an error records when it first
//! leaves a MuranoPL instruction (Murano's `stack_trace.create_stack_trace`
//! over the caller contexts).
//!
//! The trace is the whole call chain at the point of the error,
//! innermost first, down to the chain's root: a native method (a host
//! body, or the engine's own `io.murano.system.GC`) that called back into
//! MuranoPL starts a new chain, which Murano prints as a root frame with
//! no location (`File <unknown> in method None`); the frames below the
//! native call are not part of the trace.

use crate::engine::{Core, Frame};
use crate::error::StackFrame;
use crate::object::lock;

/// The frames of the running call chain, innermost first, ending with
/// [`StackFrame::unknown`] when the chain was started by a native method.
pub(crate) fn capture(core: &Core) -> Vec<StackFrame> {
    let stack: Vec<Frame> = lock(&core.state).stack.clone();
    let mut out = Vec::new();
    for f in stack.iter().rev() {
        if is_native(core, f) {
            if !out.is_empty() {
                out.push(StackFrame::unknown());
            }
            break;
        }
        out.push(core.frame_record(f));
    }
    out
}

/// Whether a frame runs a host body rather than MuranoPL instructions.
fn is_native(core: &Core, f: &Frame) -> bool {
    core.natives
        .get(&(f.class, f.method.clone()))
        .is_some_and(|n| n.host_frame)
}
