//! What Murano takes from its host environment, made deterministic: the
//! configuration `config()` reads (oslo.config's `CONF` in Murano) and the
//! names `randomName()` draws.

use murano_yaql::eval::{Dict, Error as YaqlError, ErrorKind as YaqlErrorKind, Value};

use crate::engine::{host_exception, Core, Engine};
use crate::object::lock;

/// The clock `randomName()` reads, in milliseconds (fixed: names depend
/// only on how many were drawn; the conformance oracles use this value).
const RANDOM_NAME_CLOCK_MS: u64 = 1_500_000_000_000;

/// The package whose classes see `config()` (Murano links its restricted
/// context into this package only).
const CONFIG_PACKAGE: &str = "io.murano";

impl Engine {
    /// Sets the configuration `config()` reads: `{group: {setting:
    /// value}}`, and settings outside groups (`config(setting)`) at the
    /// top level. Murano reads its service configuration there; without
    /// one every lookup is oslo.config's `NoSuchOptError`.
    pub fn set_config(&self, config: Dict) {
        lock(&self.core().state).config = config;
    }
}

impl Core {
    /// Murano's `randomName()`: five lowercase letters, the clock in
    /// base 36 (8 digits at most) and a counter in base 36 cycling through
    /// 1..=1295. Deterministic: the letters run through `a`..`z`
    /// cyclically from `a` and the clock is fixed, so the n-th name of an
    /// engine is always the same (Murano draws the letters at random and
    /// reads the time). A host wanting random names registers its own
    /// `randomName` function.
    pub(crate) fn random_name(&self) -> String {
        let n = {
            let mut st = lock(&self.state);
            st.random_names += 1;
            st.random_names - 1
        };
        let letters: String = (0..5)
            .map(|i| char::from(b'a' + ((n * 5 + i) % 26) as u8))
            .collect();
        murano_dsl::functions::random_name(&letters, RANDOM_NAME_CLOCK_MS, n % 1295 + 1)
    }

    /// `config()` is known only to classes of io.murano.
    pub(crate) fn config_visible(&self) -> Result<(), YaqlError> {
        let visible = self.current_frame().is_some_and(|f| {
            let registry = self.classes.registry();
            registry
                .package_of(f.class)
                .and_then(|p| registry.package(p))
                .is_some_and(|p| p.name == CONFIG_PACKAGE)
        });
        if visible {
            Ok(())
        } else {
            Err(YaqlError::new(
                YaqlErrorKind::NoFunctionRegistered,
                "Unknown function \"config\"",
            ))
        }
    }

    /// A configuration value: `group.setting`, or a top-level `setting`.
    pub(crate) fn config_value(
        &self,
        group: Option<&str>,
        setting: &str,
    ) -> Result<Value, YaqlError> {
        let st = lock(&self.state);
        let missing = |name: &str, group: &str| {
            host_exception(
                "NoSuchOptError",
                "oslo_config.cfg",
                &format!("no such option {name} in group [{group}]"),
            )
        };
        let top = |name: &str| st.config.get(&Value::str(name)).cloned();
        match group {
            None => top(setting).ok_or_else(|| missing(setting, "DEFAULT")),
            Some(g) => match top(g) {
                Some(Value::Dict(d)) => d
                    .get(&Value::str(setting))
                    .cloned()
                    .ok_or_else(|| missing(setting, g)),
                _ => Err(missing(g, "DEFAULT")),
            },
        }
    }
}
