//! The contract passkey: what `template(..., excludeProperties => [...])`
//! puts in place of the properties it leaves out while its object loads
//! (Murano's `TL_CONTRACT_PASSKEY` marker). Every contract lets the
//! passkey through unchecked (and `check_type` says no), so an excluded
//! property neither fails its contract nor takes its default; the
//! template's model drops it again.

use std::any::Any;
use std::sync::Arc;

use murano_yaql::eval::{HostObject, Value};

/// The passkey marker (see the module docs).
#[derive(Debug)]
pub struct ContractPasskey;

impl HostObject for ContractPasskey {
    fn type_name(&self) -> &str {
        "<Contract Passkey>"
    }

    fn as_any(&self) -> Option<&dyn Any> {
        Some(self)
    }
}

/// A passkey value.
///
/// ```
/// use murano_dsl::contract::{is_passkey, passkey};
/// assert!(is_passkey(&passkey()));
/// assert!(!is_passkey(&murano_yaql::eval::Value::Null));
/// ```
pub fn passkey() -> Value {
    Value::Object(Arc::new(ContractPasskey))
}

/// Whether a value is a passkey.
pub fn is_passkey(v: &Value) -> bool {
    match v {
        Value::Object(o) => o.as_any().is_some_and(|a| a.is::<ContractPasskey>()),
        _ => false,
    }
}
