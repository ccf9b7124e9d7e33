//! Murano environments without I/O.
//!
//! An environment in Murano is where applications from the catalog are
//! composed, deployed, changed and deployed again, acted on and finally
//! deleted. murano-api keeps its object model (the *description*), opens
//! sessions to change it, and sends the engine *tasks* built from it;
//! the engine returns the finalised model, which the API stores. This
//! crate does what murano-api does between the tasks, following
//! `murano/api/v1/`, `murano/db/services/` and `murano/services/` of
//! the reference, and runs the tasks through `murano-engine` against a
//! stateful offline cloud.
//!
//! | module | job |
//! |---|---|
//! | [`model`] | descriptions and task models, redeploy edits, `_actions` look-up, deletion and static tasks, the API's reaction to a result |
//! | [`session`] | environments and their sessions: statuses, configure → deploy, one deployment at a time, applications added, patched, removed |
//! | [`cloud`] | the offline cloud whose Heat stacks and counters persist between tasks |
//! | [`run`] | engine and static tasks run against that cloud |

#![forbid(unsafe_code)]

pub mod cloud;
pub mod model;
pub mod patch;
pub mod run;
pub mod session;

pub use cloud::{CloudState, StatefulCloud};
pub use model::{ApiReaction, ModelError, NewEnvironment};
pub use run::{run_static_task, run_task, run_task_observed, TaskRecord};
pub use session::{Environment, EnvironmentStatus, Session, SessionError, SessionState};
