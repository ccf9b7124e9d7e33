//! eventlet's `GreenPool.imap`, the way Murano's `parallel_select` runs
//! `Parallel` branches and `pselect` items, as a state machine over the
//! scheduler's run queue.
//!
//! `list(pool.imap(f, items))` does not start the items itself: it spawns
//! a mapper green thread (`_do_map`) and waits on a `GreenMap` (a queue of
//! green threads, as long as the pool). The mapper, when it runs, spawns
//! one green thread per item through the pool's semaphore (waiting for a
//! free slot when `limit` are running), puts each in the queue, and ends
//! with a thread returning `StopIteration` (which takes a slot too). The
//! caller takes the threads from the queue in order and waits for each to
//! end; a put into the queue while the caller waits for one schedules an
//! "unlock" that hands it the item; a thread's end schedules the wake-up
//! of whoever waits on it, then frees its slot (scheduling the mapper's
//! wake-up when it waits for one). Every scheduling goes to the back of
//! the run queue. So even an empty `pselect` lets the other threads run
//! (twice over), and items start only after what was runnable when the
//! caller reached the `pselect`.

use std::collections::VecDeque;

use crate::sched::ThreadId;

/// A pool's scheduled happenings (entries of the run queue besides
/// green threads).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum PoolEvent {
    /// The mapper runs (first run, or woken with a free slot or room in
    /// the queue).
    Mapper,
    /// The queue's unlock: hands items to the waiting caller, lets a
    /// waiting mapper put.
    Unlock,
    /// The `StopIteration` thread runs (and ends at once).
    StopRuns,
    /// The caller wakes up from waiting on the thread it took.
    CallerWakes,
}

/// What a pool asks of the run queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Effect {
    /// Queue this green thread at the back.
    Start(ThreadId),
    /// Queue this happening at the back.
    Schedule(PoolEvent),
    /// The caller has all results: it runs now.
    Resume(ThreadId),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Item {
    Branch(usize),
    Stop,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mapper {
    /// About to spawn item `i` (`n`: the stop thread).
    Spawn(usize),
    /// Waiting for a free slot before spawning item `i`.
    WaitsSlot(usize),
    /// Waiting for room in the queue to put this.
    WaitsPut(Item),
    Done,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Caller {
    /// Waiting for an item of the queue.
    Gets,
    /// Waiting for this thread to end.
    WaitsOn(Item),
    Resumed,
}

/// One `imap` call.
#[derive(Debug)]
pub(crate) struct Pool {
    caller: ThreadId,
    n: usize,
    limit: usize,
    /// Green thread of each item, once its OS thread exists (`Some(None)`:
    /// it could not be made; the item counts as ended at once).
    threads: Vec<Option<Option<ThreadId>>>,
    done: Vec<bool>,
    stop_done: bool,
    free: usize,
    items: VecDeque<Item>,
    unlock_scheduled: bool,
    mapper_wake_scheduled: bool,
    mapper: Mapper,
    state: Caller,
}

impl Pool {
    /// The pool of a caller that is about to wait for `n` items run at
    /// most `limit` at a time; the mapper's first run must be scheduled
    /// ([`PoolEvent::Mapper`]).
    pub(crate) fn new(caller: ThreadId, n: usize, limit: usize) -> Pool {
        Pool {
            caller,
            n,
            limit: limit.max(1),
            threads: vec![None; n],
            done: vec![false; n],
            stop_done: false,
            free: limit.max(1),
            items: VecDeque::new(),
            unlock_scheduled: false,
            mapper_wake_scheduled: false,
            mapper: Mapper::Spawn(0),
            state: Caller::Gets,
        }
    }

    /// The green thread of item `index` exists (or could not be made).
    pub(crate) fn thread_made(&mut self, index: usize, id: Option<ThreadId>) {
        if let Some(slot) = self.threads.get_mut(index) {
            *slot = Some(id);
        }
    }

    /// Item `index`'s thread ended.
    pub(crate) fn ended(&mut self, index: usize, out: &mut Vec<Effect>) {
        if let Some(d) = self.done.get_mut(index) {
            *d = true;
        }
        self.thread_ended(Item::Branch(index), out);
    }

    fn thread_ended(&mut self, item: Item, out: &mut Vec<Effect>) {
        // The exit event wakes the waiter, then the link frees the slot.
        if self.state == Caller::WaitsOn(item) {
            out.push(Effect::Schedule(PoolEvent::CallerWakes));
        }
        self.free += 1;
        if matches!(self.mapper, Mapper::WaitsSlot(_)) && !self.mapper_wake_scheduled {
            self.mapper_wake_scheduled = true;
            out.push(Effect::Schedule(PoolEvent::Mapper));
        }
    }

    fn schedule_unlock(&mut self, out: &mut Vec<Effect>) {
        if !self.unlock_scheduled {
            self.unlock_scheduled = true;
            out.push(Effect::Schedule(PoolEvent::Unlock));
        }
    }

    /// A scheduled happening runs.
    pub(crate) fn on(&mut self, event: PoolEvent, out: &mut Vec<Effect>) {
        match event {
            PoolEvent::Mapper => {
                self.mapper_wake_scheduled = false;
                if let Mapper::WaitsSlot(i) = self.mapper {
                    self.mapper = Mapper::Spawn(i);
                }
                self.run_mapper(out);
            }
            PoolEvent::StopRuns => {
                self.stop_done = true;
                self.thread_ended(Item::Stop, out);
            }
            PoolEvent::CallerWakes => {
                if let Caller::WaitsOn(item) = self.state {
                    self.caller_has(item, out);
                }
            }
            PoolEvent::Unlock => {
                self.unlock_scheduled = false;
                loop {
                    if self.state == Caller::Gets && !self.items.is_empty() {
                        let item = self.items.pop_front().unwrap_or(Item::Stop);
                        self.caller_has(item, out);
                    } else if let Mapper::WaitsPut(item) = self.mapper {
                        if self.state == Caller::Gets || self.items.len() < self.limit {
                            self.items.push_back(item);
                            self.mapper = self.after_put(item);
                            self.run_mapper(out);
                        } else {
                            break;
                        }
                    } else {
                        break;
                    }
                    if self.state == Caller::Resumed {
                        break;
                    }
                }
            }
        }
    }

    fn after_put(&self, item: Item) -> Mapper {
        match item {
            Item::Branch(i) => Mapper::Spawn(i + 1),
            Item::Stop => Mapper::Done,
        }
    }

    fn run_mapper(&mut self, out: &mut Vec<Effect>) {
        loop {
            match self.mapper {
                Mapper::Spawn(i) => {
                    if self.free == 0 {
                        self.mapper = Mapper::WaitsSlot(i);
                        return;
                    }
                    self.free -= 1;
                    let item = if i < self.n {
                        match self.threads[i] {
                            Some(Some(id)) => out.push(Effect::Start(id)),
                            // No thread: the item ends at once (its
                            // error is recorded by the caller).
                            _ => {
                                self.done[i] = true;
                                self.free += 1;
                            }
                        }
                        Item::Branch(i)
                    } else {
                        out.push(Effect::Schedule(PoolEvent::StopRuns));
                        Item::Stop
                    };
                    self.mapper = Mapper::WaitsPut(item);
                }
                Mapper::WaitsPut(item) => {
                    if self.items.len() >= self.limit {
                        if self.state == Caller::Gets {
                            self.schedule_unlock(out);
                        }
                        return;
                    }
                    self.items.push_back(item);
                    if self.state == Caller::Gets {
                        self.schedule_unlock(out);
                    }
                    self.mapper = self.after_put(item);
                }
                Mapper::WaitsSlot(_) | Mapper::Done => return,
            }
        }
    }

    /// The caller holds `item` (a thread it waits on), then goes on taking
    /// items while the threads have ended.
    fn caller_has(&mut self, mut item: Item, out: &mut Vec<Effect>) {
        loop {
            let ended = match item {
                Item::Branch(i) => self.done[i],
                Item::Stop => self.stop_done,
            };
            if !ended {
                self.state = Caller::WaitsOn(item);
                return;
            }
            if item == Item::Stop {
                self.state = Caller::Resumed;
                out.push(Effect::Resume(self.caller));
                return;
            }
            let waiting_putter = matches!(self.mapper, Mapper::WaitsPut(_));
            match self.items.pop_front() {
                Some(next) => {
                    if waiting_putter {
                        self.schedule_unlock(out);
                    }
                    item = next;
                }
                None => {
                    self.state = Caller::Gets;
                    if waiting_putter {
                        self.schedule_unlock(out);
                    }
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs a pool on a FIFO of entries; branches end on their first run
    /// unless listed in `blocking` (those end when run a second time, and
    /// are queued again after their first run). Returns the run order.
    fn simulate(n: usize, limit: usize, others: &[&str]) -> Vec<String> {
        #[derive(Clone)]
        enum E {
            T(ThreadId),
            P(PoolEvent),
            Other(String),
        }
        let caller = 100;
        let mut pool = Pool::new(caller, n, limit);
        for i in 0..n {
            pool.thread_made(i, Some(i as ThreadId + 1));
        }
        let mut q: VecDeque<E> = others.iter().map(|s| E::Other((*s).to_owned())).collect();
        q.push_back(E::P(PoolEvent::Mapper));
        let mut log = Vec::new();
        while let Some(e) = q.pop_front() {
            let mut out = Vec::new();
            match e {
                E::T(id) => {
                    log.push(format!("b{}", id - 1));
                    pool.ended(id as usize - 1, &mut out);
                }
                E::P(ev) => pool.on(ev, &mut out),
                E::Other(s) => log.push(s),
            }
            for eff in out {
                match eff {
                    Effect::Start(id) => q.push_back(E::T(id)),
                    Effect::Schedule(ev) => q.push_back(E::P(ev)),
                    Effect::Resume(_) => {
                        log.push("caller".into());
                        let rest: Vec<String> = q
                            .iter()
                            .filter_map(|e| match e {
                                E::Other(s) => Some(s.clone()),
                                E::T(_) => Some("thread".into()),
                                E::P(_) => None,
                            })
                            .collect();
                        log.extend(rest);
                        return log;
                    }
                }
            }
        }
        log
    }

    #[test]
    fn items_start_after_what_was_runnable_and_the_caller_resumes_after_them() {
        assert_eq!(simulate(2, 1000, &["x"]), ["x", "b0", "b1", "caller"]);
    }

    #[test]
    fn an_empty_map_still_lets_others_run() {
        assert_eq!(simulate(0, 1000, &["x"]), ["x", "caller"]);
    }

    #[test]
    fn a_limit_runs_items_one_slot_at_a_time() {
        assert_eq!(simulate(3, 1, &[]), ["b0", "b1", "b2", "caller"]);
    }
}
