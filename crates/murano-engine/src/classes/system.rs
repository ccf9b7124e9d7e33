//! The declarations of the classes the engine itself implements
//! (Murano's Python classes with engine-side bodies), as data the class
//! set builder adds.

/// The full name of the garbage collector class.
pub(crate) const GC_CLASS_NAME: &str = "io.murano.system.GC";

/// The MuranoPL declaration of `io.murano.system.GC` (static methods whose
/// bodies the engine implements): add it to the `io.murano` package with
/// [`crate::ClassSetBuilder::add_system_classes`].
pub(crate) const GC_CLASS: &str = "Name: io.murano.system.GC
Methods:
  collect:
    Usage: Static
    Scope: Public
  isDestroyed:
    Usage: Static
    Scope: Public
    Arguments:
      - object: {Contract: $}
  isDoomed:
    Usage: Static
    Scope: Public
    Arguments:
      - object: {Contract: $}
  subscribeDestruction:
    Usage: Static
    Scope: Public
    Arguments:
      - publisher: {Contract: $}
      - subscriber: {Contract: $}
      - handler: {Contract: $.string(), Default: null}
  unsubscribeDestruction:
    Usage: Static
    Scope: Public
    Arguments:
      - publisher: {Contract: $}
      - subscriber: {Contract: $}
      - handler: {Contract: $.string(), Default: null}
";
