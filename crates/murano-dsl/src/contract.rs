//! MuranoPL data contracts: the `Contract:` of a property or a method
//! argument, as a typed tree, and its application to data the way
//! Murano's engine does it (`transform`, `validate`, `check_type`).
//!
//! * [`ContractSpec`]: the tree. YAQL contracts keep their parsed
//!   expression and, when they are a chain of contract methods
//!   (`$.int().notNull().check($ > 0)`), the chain as [`ChainCall`]s with
//!   their arguments as YAQL trees. Lists ([`ListContract`]) keep their
//!   item contracts and counts, dictionaries ([`DictContract`]) their
//!   fixed and expression keys.
//! * [`Contract`]: applies a tree in a [`Scope`] (a [`Runtime`]: yaql's
//!   legacy library for runtime 1.0/1.1, the standard one after; the
//!   caller's YAQL context; an [`ObjectHost`] for objects and classes).
//!   Coercions follow Python: `int()` accepts what Python's `int()`
//!   accepts, `string()` of `true` is `"True"`, `bool()` is truthiness.
//! * [`ContractError`]: the Python exception Murano raises, its message
//!   and the path to the offending element.
//! * [`MemoryHost`]: an in-memory object store for tests.
//!
//! ```
//! use std::sync::Arc;
//! use murano_dsl::contract::{Contract, MemoryHost, Runtime, Scope};
//! use murano_yaql::eval::Value;
//!
//! let scope = Scope::new(Arc::new(Runtime::new(1, 4)), Arc::new(MemoryHost::new()));
//! let contract = Contract::parse_yaml("- $.int().check($ > 0)\n- 1\n- 3")?;
//!
//! let data = Value::List(Arc::new(vec![Value::str(" 12 "), Value::Bool(true)]));
//! let out = contract.transform(&scope, Some(&data), None)?;
//! assert_eq!(out.value, Value::tuple(vec![Value::Int(12), Value::Int(1)]));
//!
//! let err = contract.transform(&scope, Some(&Value::str("2.5")), None).unwrap_err();
//! assert_eq!(err.message, "Value '2.5' violates int() contract");
//! assert_eq!(err.path, "[0]");
//!
//! // validate() does not coerce.
//! assert!(contract.validate(&scope, Some(&data), None).is_err());
//! # Ok::<(), murano_dsl::contract::ContractError>(())
//! ```

mod apply;
mod error;
mod host;
mod passkey;
mod python;
mod shared;
mod spec;
#[cfg(test)]
mod tests;

pub use apply::{Contract, Runtime, Scope, Transformed};
pub use error::{ContractError, ContractErrorKind};
pub use host::{MemoryHost, MemoryObject, ObjectHost, ObjectInfo};
pub use passkey::{is_passkey, passkey, ContractPasskey};
pub use spec::{
    class_name_of, ChainCall, ContractSpec, DictContract, DictKey, ExprContract, ListContract,
};
