//! `murano serve`: OpenStack Murano's v1 REST API (murano-api's
//! `murano/api/v1`) over a local SQLite store whose tables follow
//! Murano's database (`schema`), so that Murano's clients work against a
//! local Murano.
//!
//! Layers: `server` (axum routes, token gate, body limit, the blocking pool
//! the controllers run on), `handlers` (the controllers), `store` and
//! `schema` (the database), `context` and `policy` (who asks, what they may
//! do), `fault` (webob's error bodies), `engine` (the engine interface
//! tasks are handed to), `worker` (the engine that runs them: a bounded
//! pool of threads over `murano-env`) and `engine_catalog` (the packages
//! it resolves classes from).

#![forbid(unsafe_code)]

pub mod app;
pub mod clock;
pub mod context;
pub mod engine;
pub mod engine_catalog;
pub mod fault;
pub mod handlers;
pub mod identity;
pub mod model_patch;
pub mod patch;
pub mod policy;
pub mod schema;
pub mod server;
pub mod stats;
pub mod store;
pub mod upload;
pub mod upload_schema;
pub mod worker;

pub use app::{App, Limits};
pub use server::{
    bind, check_listen, router, serve, serve_blocking, ServeConfig, ServeError, Shared,
};
