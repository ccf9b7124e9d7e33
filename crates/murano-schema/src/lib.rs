//! JSON schema for MuranoPL classes and their model builders (the
//! "MuranoPL forms" design).
//!
//! Nothing is implemented yet: the crate exists so that the workspace has
//! its final shape. The plan is in the workspace README.

#![forbid(unsafe_code)]
