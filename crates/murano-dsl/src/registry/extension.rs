//! Extension methods: methods with `Usage: Extension`, callable on values
//! of other types from the class that declares or inherits them and from
//! classes that `Import` it.

use crate::model::{Argument, Method, MethodUsage};

use super::{ClassId, ClassRegistry, MemberRef, QueryError};

/// Where an extension method candidate comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExtensionSource {
    /// The calling class itself (declared or inherited).
    Own,
    /// A class of the calling class's `Import`.
    Import {
        /// Position among the resolved imports.
        position: usize,
        /// The imported class.
        class: ClassId,
    },
}

/// An extension method that a call `$receiver.name(...)` may reach from
/// a class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExtensionCandidate<'a> {
    /// Where it comes from.
    pub source: ExtensionSource,
    /// The method.
    pub method: MemberRef<'a, Method>,
}

impl<'a> ExtensionCandidate<'a> {
    /// The receiver argument (the first one), whose contract decides which
    /// values the method extends; `None` for a method without arguments
    /// (Murano cannot call it as an extension).
    pub fn receiver(&self) -> Option<&'a Argument> {
        self.method.member.arguments.first()
    }
}

impl ClassRegistry {
    /// The extension methods a class exports to classes that import it:
    /// every method name of its hierarchy that resolves to exactly one
    /// declaration (see [`find_method`](ClassRegistry::find_method)) with
    /// `Usage: Extension`.
    pub fn exported_extension_methods(
        &self,
        class: ClassId,
    ) -> Result<Vec<MemberRef<'_, Method>>, QueryError> {
        let mut out = Vec::new();
        for name in self.all_method_names(class)? {
            if let Some(method) = self.unique_extension(class, name) {
                out.push(method);
            }
        }
        Ok(out)
    }

    /// The extension methods named `name` that code of `class` can call on
    /// another value, in the order Murano tries them: the class's own
    /// (declared or inherited, when it resolves to one `Usage: Extension`
    /// method), then each imported class's in `Import` order. Whether a
    /// candidate applies to a given receiver depends on its first
    /// argument's contract ([`ExtensionCandidate::receiver`]); a method of
    /// the receiver's own class is tried before all of them.
    ///
    /// ```
    /// # use murano_dsl::model::ClassDefinition;
    /// # use murano_dsl::registry::{ExtensionSource, PackageInfo, RegistryBuilder};
    /// # use murano_dsl::version::Version;
    /// # use murano_dsl::yaml::{load_class_file, LoadOptions};
    /// # let classes = |text: &str| {
    /// #     let file = load_class_file(text.as_bytes(), &LoadOptions::default()).unwrap();
    /// #     ClassDefinition::from_documents(&file.documents, None)
    /// # };
    /// # let mut builder = RegistryBuilder::new();
    /// # let core = builder.add_package(PackageInfo::new("io.murano", Version::new(0, 0, 0)))?;
    /// # builder.add_class(core, classes("Name: io.murano.Object").remove(0))?;
    /// let text = "
    /// Namespaces: {=: ext}
    /// Name: Strings
    /// Methods:
    ///   shout:
    ///     Usage: Extension
    ///     Arguments:
    ///       - text: {Contract: $.string().notNull()}
    ///     Body:
    ///       - Return: $text.toUpper()
    /// ---
    /// Name: User
    /// Import: Strings
    /// ";
    /// for class in classes(text) {
    ///     builder.add_class(core, class)?;
    /// }
    /// let registry = builder.build();
    /// let user = registry.find_class("ext.User", None).unwrap();
    /// let found = registry.find_extension_method(user, "shout")?;
    /// assert_eq!(found.len(), 1);
    /// assert!(matches!(found[0].source, ExtensionSource::Import { position: 0, .. }));
    /// assert_eq!(found[0].receiver().map(|a| a.name.as_str()), Some("text"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn find_extension_method(
        &self,
        class: ClassId,
        name: &str,
    ) -> Result<Vec<ExtensionCandidate<'_>>, QueryError> {
        self.check(class)?;
        let mut out = Vec::new();
        if let Some(method) = self.unique_extension(class, name) {
            out.push(ExtensionCandidate {
                source: ExtensionSource::Own,
                method,
            });
        }
        for (position, &import) in self.imports(class).iter().enumerate() {
            if let Some(method) = self.unique_extension(import, name) {
                out.push(ExtensionCandidate {
                    source: ExtensionSource::Import {
                        position,
                        class: import,
                    },
                    method,
                });
            }
        }
        Ok(out)
    }

    /// The single declaration `name` resolves to in `class`, if it is an
    /// extension method (an ambiguous name exports nothing callable).
    fn unique_extension(&self, class: ClassId, name: &str) -> Option<MemberRef<'_, Method>> {
        let found = self.find_single_method(class, name).ok()?;
        (found.member.usage == MethodUsage::Extension).then_some(found)
    }
}
