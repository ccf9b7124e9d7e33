//! Running a command's work on a thread whose stack fits the depth the
//! user allowed: the parser and the evaluator recurse once per nesting
//! level, and the main thread's stack is fixed by the platform.

use std::process::ExitCode;

/// Runs `work` on a scoped thread with `stack` bytes of stack. A thread
/// that cannot start is reported as `cannot start the <what> thread` and
/// exit code 2, as is a panic inside `work` (its message is already on
/// stderr).
pub(crate) fn run_with_stack(
    stack: usize,
    what: &str,
    work: impl FnOnce() -> ExitCode + Send,
) -> ExitCode {
    let worker = std::thread::scope(|scope| {
        std::thread::Builder::new()
            .stack_size(stack)
            .spawn_scoped(scope, work)
            .map(|handle| handle.join())
    });
    match worker {
        Ok(Ok(code)) => code,
        Ok(Err(_)) => ExitCode::from(2),
        Err(e) => {
            eprintln!("murano: cannot start the {what} thread: {e}");
            ExitCode::from(2)
        }
    }
}
