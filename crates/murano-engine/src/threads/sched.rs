//! Green threads for `Parallel` and `pselect`.
//!
//! Murano runs parallel branches as eventlet green threads: one runs at a
//! time, and control moves only where a thread waits (`sleep()`, a host's
//! `yield()`, a method lock, the end of its branches). Observable results
//! depend on that interleaving, so we reproduce it: each green thread runs
//! on an OS thread (its own stack, which a tree-walking interpreter needs
//! to suspend mid-expression), made only when the green thread first gets
//! the baton and handed on to the next unstarted green thread of the same
//! `Parallel` when it ends (an OS thread costs a stack and, under
//! mimalloc, a 32 MiB segment of address space: only green threads that
//! wait hold one each), but a single baton passes between them, so
//! exactly one runs at any time and the order is eventlet's, every time: a
//! run queue ordered by wake-up time then by arrival, as eventlet's timers
//! are. Time is virtual: `sleep(5)` moves a clock, no one waits for real.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::{Condvar, Mutex};

use crate::base::sync::lock;
use crate::greenpool::{Effect, Pool, PoolEvent};

/// A green thread's number (0: the thread that called into the engine).
pub(crate) type ThreadId = u64;

/// Why a thread waits (see [`Scheduler::wait`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WaitKind {
    /// On a method lock another thread holds.
    Lock,
    /// On the branches it started.
    Join,
}

/// Every thread waits on another (Murano hangs forever here).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Deadlock;

/// An entry of the run queue: a green thread, or a happening of a pool
/// (see `crate::greenpool`), which runs inside the hand-over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Entry {
    Thread(ThreadId),
    Pool(u64, PoolEvent),
}

/// A pool's number.
pub(crate) type PoolId = u64;

#[derive(Default)]
struct Queue {
    /// The thread holding the baton.
    current: ThreadId,
    /// Virtual time, in microseconds.
    clock: u64,
    /// Arrival counter: ties in wake-up time run first come, first served.
    arrivals: u64,
    /// Runnable threads and due happenings: (wake-up time, arrival, entry).
    ready: BinaryHeap<Reverse<(u64, u64, Entry)>>,
    /// The `Parallel`/`pselect` pools being waited for.
    pools: HashMap<PoolId, Pool>,
    last_pool: PoolId,
    /// Waiting threads, in the order they began waiting.
    blocked: Vec<(ThreadId, WaitKind)>,
    /// A thread given the baton to fail with [`Deadlock`].
    deadlocked: Option<ThreadId>,
    last_id: ThreadId,
    /// Green threads alive besides thread 0.
    live: usize,
    /// Registered threads that have no OS thread yet, with the thread
    /// that makes it (the pool's caller) when they first get the baton.
    unstarted: HashMap<ThreadId, ThreadId>,
}

impl Queue {
    /// The current thread, when it has no OS thread yet and `maker` is
    /// the one to give it one (it is then taken off the list).
    fn take_unstarted(&mut self, maker: ThreadId) -> Option<ThreadId> {
        let id = self.current;
        if self.unstarted.get(&id) == Some(&maker) {
            self.unstarted.remove(&id);
            return Some(id);
        }
        None
    }

    fn push(&mut self, id: ThreadId, delay: u64) {
        self.push_entry(Entry::Thread(id), delay);
    }

    fn push_entry(&mut self, entry: Entry, delay: u64) {
        self.arrivals += 1;
        let at = self.clock.saturating_add(delay);
        self.ready.push(Reverse((at, self.arrivals, entry)));
    }

    /// Queues what a pool asked for; the thread to run now, if any.
    fn apply(&mut self, pool: PoolId, effects: Vec<Effect>) -> Option<ThreadId> {
        let mut resume = None;
        for e in effects {
            match e {
                Effect::Start(id) => self.push(id, 0),
                Effect::Schedule(ev) => self.push_entry(Entry::Pool(pool, ev), 0),
                Effect::Resume(id) => resume = Some(id),
            }
        }
        resume
    }

    /// Gives the baton to the next runnable thread; with none, to the
    /// thread that last began waiting on a lock, which then fails with
    /// [`Deadlock`] (threads waiting on their branches wait on threads
    /// that, down the line, wait on a lock). False: nobody can run.
    fn hand_over(&mut self) -> bool {
        while let Some(Reverse((at, _, entry))) = self.ready.pop() {
            self.clock = self.clock.max(at);
            match entry {
                Entry::Thread(id) => {
                    self.current = id;
                    return true;
                }
                Entry::Pool(pid, ev) => {
                    let mut out = Vec::new();
                    if let Some(pool) = self.pools.get_mut(&pid) {
                        pool.on(ev, &mut out);
                    }
                    if let Some(id) = self.apply(pid, out) {
                        self.blocked.retain(|(b, _)| *b != id);
                        self.current = id;
                        return true;
                    }
                }
            }
        }
        let victim = self
            .blocked
            .iter()
            .rposition(|(_, kind)| *kind == WaitKind::Lock);
        match victim {
            Some(i) => {
                let (id, _) = self.blocked.remove(i);
                self.deadlocked = Some(id);
                self.current = id;
                true
            }
            None => false,
        }
    }
}

/// The baton and the run queue of one engine's green threads.
#[derive(Default)]
pub(crate) struct Scheduler {
    queue: Mutex<Queue>,
    turn: Condvar,
}

impl Scheduler {
    /// The thread running now.
    pub(crate) fn current(&self) -> ThreadId {
        lock(&self.queue).current
    }

    /// Green threads alive besides the engine's caller.
    pub(crate) fn live(&self) -> usize {
        lock(&self.queue).live
    }

    /// A new thread's number; it runs once [`Scheduler::start`]ed.
    #[cfg(test)]
    pub(crate) fn register(&self) -> ThreadId {
        let mut q = lock(&self.queue);
        q.last_id += 1;
        q.live += 1;
        q.last_id
    }

    /// A new thread's number, as [`Scheduler::register`], whose OS thread
    /// is made only when it first gets the baton: by `maker` (waiting in
    /// [`Scheduler::wait_making`]) or by a thread of the same maker that
    /// ends just then ([`Scheduler::exit_and_take`]). So branches that
    /// never wait hold no OS thread (a stack, allocator arenas) before
    /// their turn, and one OS thread can run many of them in turn.
    pub(crate) fn register_unstarted(&self, maker: ThreadId) -> ThreadId {
        let mut q = lock(&self.queue);
        q.last_id += 1;
        q.live += 1;
        let id = q.last_id;
        q.unstarted.insert(id, maker);
        id
    }

    /// Queues a registered thread to run.
    #[cfg(test)]
    pub(crate) fn start(&self, id: ThreadId) {
        lock(&self.queue).push(id, 0);
    }

    /// Blocks the calling OS thread until green thread `me` has the baton.
    pub(crate) fn wait_turn(&self, me: ThreadId) {
        let mut q = lock(&self.queue);
        while q.current != me {
            q = match self.turn.wait(q) {
                Ok(g) => g,
                Err(p) => p.into_inner(),
            };
        }
    }

    /// `me` lets the others run and comes back after `delay` microseconds
    /// of virtual time (eventlet's `sleep`).
    pub(crate) fn sleep(&self, me: ThreadId, delay: u64) {
        {
            let mut q = lock(&self.queue);
            q.push(me, delay);
            q.hand_over();
        }
        self.turn.notify_all();
        self.wait_turn(me);
    }

    /// `me` waits until [`Scheduler::wake`]; `Err` when that can never
    /// happen.
    pub(crate) fn wait(&self, me: ThreadId, kind: WaitKind) -> Result<(), Deadlock> {
        self.wait_making(me, kind, |_| {})
    }

    /// [`Scheduler::wait`], and meanwhile, whenever a thread registered
    /// with `me` as its maker ([`Scheduler::register_unstarted`]) gets the
    /// baton, `make(id)` gives it an OS thread (or, failing that, ends it
    /// with [`Scheduler::exit`]).
    pub(crate) fn wait_making(
        &self,
        me: ThreadId,
        kind: WaitKind,
        mut make: impl FnMut(ThreadId),
    ) -> Result<(), Deadlock> {
        {
            let mut q = lock(&self.queue);
            q.blocked.push((me, kind));
            if !q.hand_over() {
                q.blocked.retain(|(id, _)| *id != me);
                return Err(Deadlock);
            }
        }
        self.turn.notify_all();
        loop {
            let started = {
                let mut q = lock(&self.queue);
                loop {
                    if q.current == me {
                        break None;
                    }
                    if let Some(id) = q.take_unstarted(me) {
                        break Some(id);
                    }
                    q = match self.turn.wait(q) {
                        Ok(g) => g,
                        Err(p) => p.into_inner(),
                    };
                }
            };
            match started {
                Some(id) => make(id),
                None => break,
            }
        }
        let mut q = lock(&self.queue);
        if q.deadlocked == Some(me) {
            q.deadlocked = None;
            return Err(Deadlock);
        }
        Ok(())
    }

    /// Makes a waiting thread runnable again (a no-op for one that is not
    /// waiting, so waking twice cannot run a thread twice).
    pub(crate) fn wake(&self, id: ThreadId) {
        let mut q = lock(&self.queue);
        if let Some(i) = q.blocked.iter().position(|(b, _)| *b == id) {
            q.blocked.remove(i);
            q.push(id, 0);
        }
    }

    /// `caller` is about to wait for `n` items run at most `limit` at a
    /// time as eventlet's `GreenPool.imap` runs them (`crate::greenpool`):
    /// the pool's mapper is queued. The caller then [`Scheduler::wait`]s
    /// until the pool resumes it.
    pub(crate) fn open_pool(&self, caller: ThreadId, n: usize, limit: usize) -> PoolId {
        let mut q = lock(&self.queue);
        q.last_pool += 1;
        let pid = q.last_pool;
        q.pools.insert(pid, Pool::new(caller, n, limit));
        q.push_entry(Entry::Pool(pid, PoolEvent::Mapper), 0);
        pid
    }

    /// The green thread of a pool's item `index` (registered, not
    /// started: the pool's mapper starts it), or `None` when it could not
    /// be made.
    pub(crate) fn pool_thread(&self, pool: PoolId, index: usize, id: Option<ThreadId>) {
        if let Some(p) = lock(&self.queue).pools.get_mut(&pool) {
            p.thread_made(index, id);
        }
    }

    /// A pool's item `index` ended (before its thread [`Scheduler::exit`]s).
    pub(crate) fn pool_item_ended(&self, pool: PoolId, index: usize) {
        let mut q = lock(&self.queue);
        let mut out = Vec::new();
        if let Some(p) = q.pools.get_mut(&pool) {
            p.ended(index, &mut out);
        }
        // Ending never resumes the caller directly (its wake-up is queued).
        let _ = q.apply(pool, out);
    }

    /// Forgets a pool whose caller has resumed.
    pub(crate) fn close_pool(&self, pool: PoolId) {
        lock(&self.queue).pools.remove(&pool);
    }

    /// `me` ends as [`Scheduler::exit`]; when the baton goes to a thread
    /// of `maker` that has no OS thread yet, the caller's OS thread takes
    /// it over (it has the baton): its number is returned.
    pub(crate) fn exit_and_take(&self, me: ThreadId, maker: ThreadId) -> Option<ThreadId> {
        {
            let mut q = lock(&self.queue);
            q.live = q.live.saturating_sub(1);
            if q.current == me {
                q.hand_over();
                if let Some(id) = q.take_unstarted(maker) {
                    return Some(id);
                }
            }
        }
        self.turn.notify_all();
        None
    }

    /// `me` ends: the baton goes to the next thread.
    pub(crate) fn exit(&self, me: ThreadId) {
        {
            let mut q = lock(&self.queue);
            q.live = q.live.saturating_sub(1);
            if q.current == me {
                q.hand_over();
            }
        }
        self.turn.notify_all();
    }
}

/// Microseconds of virtual time for `sleep(seconds)` (negative and NaN:
/// none; huge: saturates).
pub(crate) fn delay_of(seconds: f64) -> u64 {
    if seconds.is_nan() || seconds <= 0.0 {
        0
    } else {
        let us = seconds * 1e6;
        if us >= u64::MAX as f64 {
            u64::MAX
        } else {
            us as u64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn threads_take_turns_in_arrival_order() {
        let s = Arc::new(Scheduler::default());
        let log = Arc::new(Mutex::new(Vec::new()));
        let ids: Vec<_> = (0..3).map(|_| s.register()).collect();
        std::thread::scope(|scope| {
            for &id in &ids {
                let (t, log) = (s.clone(), log.clone());
                scope.spawn(move || {
                    let s = t;
                    s.wait_turn(id);
                    lock(&log).push(format!("{id}-a"));
                    s.sleep(id, 0);
                    lock(&log).push(format!("{id}-b"));
                    if id == 3 {
                        s.wake(0);
                    }
                    s.exit(id);
                });
                s.start(id);
            }
            assert_eq!(s.wait(0, WaitKind::Join), Ok(()));
        });
        assert_eq!(
            *lock(&log),
            ["1-a", "2-a", "3-a", "1-b", "2-b", "3-b"].map(String::from)
        );
    }

    #[test]
    fn longer_sleeps_wake_later() {
        let s = Scheduler::default();
        s.sleep(0, 5_000_000);
        assert_eq!(lock(&s.queue).clock, 5_000_000);
        assert_eq!(s.current(), 0);
    }

    #[test]
    fn waiting_with_nobody_to_run_is_a_deadlock() {
        let s = Scheduler::default();
        assert_eq!(s.wait(0, WaitKind::Lock), Err(Deadlock));
        assert_eq!(s.current(), 0);
    }

    #[test]
    fn delays_are_clamped() {
        assert_eq!(delay_of(-1.0), 0);
        assert_eq!(delay_of(f64::NAN), 0);
        assert_eq!(delay_of(1e300), u64::MAX);
        assert_eq!(delay_of(0.5), 500_000);
    }
}
