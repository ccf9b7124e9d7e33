//! Murano packages for Rust: manifests, format identifiers, package-type
//! plug-ins (MuranoPL and Heat.HOT), in-memory package sources and a
//! catalog.
//!
//! Nothing is implemented yet: the crate exists so that the workspace has
//! its final shape. The plan is in the workspace README.

#![forbid(unsafe_code)]

pub mod format;
