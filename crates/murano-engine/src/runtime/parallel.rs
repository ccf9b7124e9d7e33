//! `Parallel` branches and `pselect` items as green threads, as Murano's
//! `parallel_select` runs them on an eventlet `GreenPool` (`imap`): at
//! most `limit` at a time, started by the pool's mapper when it runs (see
//! `crate::greenpool` for the order); the caller waits for all of them,
//! then gets the results in order or the first error in order.

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;
use std::thread::{Builder, Scope};

use crate::engine::{Core, Frame, ThreadState};
use crate::error::{EngineError, LimitKind};
use crate::object::lock;
use crate::sched::{PoolId, ThreadId, WaitKind};

/// Stack of a branch's OS thread: 2.5 MiB, above the 2 MiB the default
/// call depth is sized for ([`crate::DEFAULT_MAX_CALL_DEPTH`]). A green
/// thread waiting in `sleep()` or on a lock keeps its OS thread (its stack
/// holds where it stopped), and every stack counts whole against an
/// address-space limit: 256 waiting branches take 640 MiB here, where 8
/// MiB stacks took 2 GiB.
const BRANCH_STACK: usize = 5 << 19;

/// A branch body: given the branch index, runs it on the calling thread.
type Branch<'a, T> = dyn Fn(usize) -> Result<T, EngineError> + Sync + 'a;

/// The branches of one `Parallel`/`pselect` call.
struct Group<'a, T> {
    core: &'a Core,
    pool: PoolId,
    /// The thread waiting for the branches (it makes their OS threads).
    parent: ThreadId,
    parent_stack: Vec<Frame>,
    branch: &'a Branch<'a, T>,
    n: usize,
    progress: Mutex<Progress<T>>,
}

struct Progress<T> {
    /// Items whose green thread was registered.
    made: usize,
    /// The item of each registered green thread not yet ended.
    index_of: HashMap<ThreadId, usize>,
    results: Vec<Option<Result<T, EngineError>>>,
}

impl Core {
    /// Runs `n` branches as green threads, at most `limit` at a time (and
    /// no more than [`crate::Limits::max_threads`] alive in the engine,
    /// nested ones included: with none left, a limit error):
    /// every branch runs even when an earlier one failed; then the first
    /// error in branch order is raised, as Murano's `parallel_select`
    /// does, or the results are returned in order.
    pub(crate) fn run_branches<T: Send>(
        &self,
        n: usize,
        limit: usize,
        branch: &Branch<'_, T>,
    ) -> Result<Vec<T>, EngineError> {
        // Every live green thread of the run counts, those of enclosing
        // `Parallel`s and `pselect`s too: a nested one finding no room
        // fails (its parent holds its thread while it waits, so waiting
        // for a free one could wait forever).
        let room = self.limits.max_threads.saturating_sub(self.sched.live());
        if room == 0 && n > 0 {
            return Err(EngineError::limit(
                LimitKind::Threads,
                format!(
                    "more than {} green threads alive at once",
                    self.limits.max_threads
                ),
            ));
        }
        let limit = limit.min(room).max(1);
        let parent = self.sched.current();
        // Even with no items the pool's mapper and stop thread run before
        // the caller goes on: an empty `pselect` lets the others run.
        let pool = self.sched.open_pool(parent, n, limit);
        let group = Group {
            core: self,
            pool,
            parent,
            parent_stack: lock(&self.state).stack.clone(),
            branch,
            n,
            progress: Mutex::new(Progress {
                made: 0,
                index_of: HashMap::new(),
                results: (0..n).map(|_| None).collect(),
            }),
        };
        std::thread::scope(|s| {
            for _ in 0..limit.min(n) {
                group.make_next();
            }
            // Cannot fail: the pool's mapper is queued, and a waiting
            // parent is never the one a deadlock is reported to.
            let _ = self.switch_thread(|sc| {
                sc.wait_making(parent, WaitKind::Join, |id| group.start(s, id))
            });
        });
        self.sched.close_pool(pool);
        let progress = group
            .progress
            .into_inner()
            .unwrap_or_else(|p| p.into_inner());
        let mut out = Vec::with_capacity(n);
        let mut first_error = None;
        for r in progress.results {
            match r {
                Some(Ok(v)) => out.push(v),
                Some(Err(e)) => {
                    // Limits stop everything: they win over earlier errors.
                    if !e.catchable() {
                        return Err(e);
                    }
                    first_error.get_or_insert(e);
                }
                None => {
                    first_error.get_or_insert_with(|| {
                        EngineError::limit(LimitKind::Threads, "a branch never ran")
                    });
                }
            }
        }
        match first_error {
            Some(e) => Err(e),
            None => Ok(out),
        }
    }
}

impl<'a, T: Send> Group<'a, T> {
    /// Registers the green thread of the next item, if any; it gets an OS
    /// thread only when it first runs (see [`Group::start`]).
    fn make_next(&self) {
        let index = {
            let mut p = lock(&self.progress);
            if p.made >= self.n {
                return;
            }
            p.made += 1;
            p.made - 1
        };
        let id = self.core.sched.register_unstarted(self.parent);
        lock(&self.progress).index_of.insert(id, index);
        self.core.sched.pool_thread(self.pool, index, Some(id));
    }

    /// Gives green thread `id`, which holds the baton, an OS thread; when
    /// the system refuses one, its item fails and the thread ends.
    fn start<'scope>(&'scope self, s: &'scope Scope<'scope, '_>, id: ThreadId)
    where
        'a: 'scope,
    {
        let Some(index) = lock(&self.progress).index_of.get(&id).copied() else {
            return;
        };
        let spawned = Builder::new()
            .name(format!("murano-green-{id}"))
            .stack_size(BRANCH_STACK)
            .spawn_scoped(s, move || self.run(id, index));
        if let Err(e) = spawned {
            let error = EngineError::limit(
                LimitKind::Threads,
                format!("cannot start a green thread: {e}"),
            );
            self.end(id, index, Err(error));
            self.core.sched.exit(id);
        }
    }

    /// Records item `index`'s result, its thread `id` ending.
    fn end(&self, id: ThreadId, index: usize, result: Result<T, EngineError>) {
        self.make_next();
        {
            let mut p = lock(&self.progress);
            p.results[index] = Some(result);
            p.index_of.remove(&id);
        }
        self.core.sched.pool_item_ended(self.pool, index);
    }

    /// The body of a branch's OS thread: runs its item, then the items of
    /// this group that get the baton as it ends and have no OS thread yet.
    fn run(&self, mut id: ThreadId, mut index: usize) {
        let core = self.core;
        core.sched.wait_turn(id);
        loop {
            core.put_thread_state(ThreadState::branch_of(self.parent_stack.clone()));
            let result =
                catch_unwind(AssertUnwindSafe(|| (self.branch)(index))).unwrap_or_else(|_| {
                    Err(EngineError::not_supported(
                        "internal error: a Parallel branch panicked",
                    ))
                });
            drop(core.take_thread_state());
            self.end(id, index, result);
            let Some(next) = core.sched.exit_and_take(id, self.parent) else {
                return;
            };
            let Some(i) = lock(&self.progress).index_of.get(&next).copied() else {
                // Not an item of this group (cannot happen: the maker
                // owns them); end it rather than leave it without a thread.
                core.sched.exit(next);
                return;
            };
            (id, index) = (next, i);
        }
    }
}
