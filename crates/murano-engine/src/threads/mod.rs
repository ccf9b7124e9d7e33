//! Green threads: the scheduler's run queue and eventlet's `GreenPool`
//! as a state machine. Knows nothing of MuranoPL.

pub(crate) mod greenpool;
pub(crate) mod sched;
