//! `Meta` sections: reading and checking them as Murano's `MetaData` does,
//! and aggregating them over the hierarchy as `merge_providers` does.

use std::collections::{BTreeSet, HashMap, HashSet};

use crate::model::{Cardinality, ClassUsage, MetaTarget, Namespaces};
use crate::yaml::{Mark, Node, Value};

use super::{
    codes, ClassId, ClassRegistry, Finding, LinkContext, LookupError, PackageId, QueryError,
};

/// Deepest hierarchy meta aggregation follows.
const MAX_DEPTH: usize = 512;
/// Most merge steps one aggregation may take.
const MAX_STEPS: usize = 200_000;

/// One entry of a `Meta` section that passed Murano's checks: an instance
/// of a meta class with the properties written for it.
#[derive(Debug, Clone, PartialEq)]
pub struct MetaAttachment {
    /// The meta class.
    pub meta_class: ClassId,
    /// The class name as written.
    pub written: String,
    /// The properties given, when there are any (Murano uses `{}` for a
    /// missing or false value).
    pub properties: Option<Node>,
    /// Where the entry starts.
    pub start: Mark,
    /// Where it ends.
    pub end: Mark,
}

/// The meta a class declares, section by section. Each vector is aligned
/// with the corresponding vector of the class's
/// [`ClassDefinition`](crate::model::ClassDefinition).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DeclaredMeta {
    /// The class's own `Meta` (target `Type`).
    pub class: Vec<MetaAttachment>,
    /// Per property.
    pub properties: Vec<Vec<MetaAttachment>>,
    /// Per method.
    pub methods: Vec<Vec<MetaAttachment>>,
    /// Per method, per argument.
    pub arguments: Vec<Vec<Vec<MetaAttachment>>>,
}

/// A meta instance that applies to a target after aggregation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MetaInstance<'a> {
    /// The entry.
    pub attachment: &'a MetaAttachment,
    /// The class whose declaration carries it (the target's class itself,
    /// or an ancestor for inherited meta).
    pub declared_by: ClassId,
}

/// An entry of a `Meta` section, before checking.
enum Entry<'a> {
    Node(&'a Node),
    /// An item of a `!!omap` / `!!pairs` (a Python tuple).
    Pair(&'a Node, &'a Node),
}

fn shorten(text: String) -> String {
    if text.chars().count() > 80 {
        let mut short: String = text.chars().take(77).collect();
        short.push_str("...");
        short
    } else {
        text
    }
}

impl ClassRegistry {
    /// The meta a class declares (checked entries only).
    pub fn declared_meta(&self, class: ClassId) -> Option<&DeclaredMeta> {
        self.links.get(class.0).map(|l| &l.meta)
    }

    /// A package's meta (the manifest's `Meta`, target `Package`). Names
    /// resolve without namespaces (full names), from the package.
    pub fn package_meta(&self, package: PackageId) -> &[MetaAttachment] {
        self.package_meta.get(package.0).map_or(&[], Vec::as_slice)
    }

    /// The meta of a class (Murano's `typeinfo(...).meta`): its own meta,
    /// and from its ancestors the meta of classes with `Inherited: true`,
    /// except a `Cardinality: One` meta class that a nearer class on the
    /// path already has. Inherited `One` meta reaching the class from two
    /// different classes is [`QueryError::MetaConflict`].
    ///
    /// ```
    /// # use murano_dsl::model::ClassDefinition;
    /// # use murano_dsl::registry::{PackageInfo, RegistryBuilder};
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
    /// Namespaces: {=: a}
    /// Name: Tag
    /// Usage: Meta
    /// Inherited: true
    /// Properties: {text: {Contract: $.string()}}
    /// ---
    /// Name: Note
    /// Usage: Meta
    /// ---
    /// Name: Base
    /// Meta:
    ///   - Tag: {text: base}
    ///   - Note
    /// ---
    /// Name: Child
    /// Extends: Base
    /// ";
    /// for class in classes(text) {
    ///     builder.add_class(core, class)?;
    /// }
    /// let registry = builder.build();
    /// let child = registry.find_class("a.Child", None).unwrap();
    /// let meta = registry.class_meta(child)?;
    /// // Tag is inherited, Note is not.
    /// assert_eq!(meta.len(), 1);
    /// assert_eq!(registry.class_name(meta[0].attachment.meta_class), Some("a.Tag"));
    /// assert_eq!(registry.class_name(meta[0].declared_by), Some("a.Base"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn class_meta(&self, class: ClassId) -> Result<Vec<MetaInstance<'_>>, QueryError> {
        self.merge_meta(class, &|c| {
            self.links
                .get(c.0)
                .map_or(&[][..], |l| l.meta.class.as_slice())
        })
    }

    /// The meta of a property as the class sees it: the property is found
    /// with [`find_single_property`](ClassRegistry::find_single_property),
    /// then meta is aggregated from its declaring class over the
    /// properties of the same name up the hierarchy (the
    /// [`class_meta`](ClassRegistry::class_meta) rule).
    pub fn property_meta(
        &self,
        class: ClassId,
        name: &str,
    ) -> Result<Vec<MetaInstance<'_>>, QueryError> {
        let declaring = self.find_single_property(class, name)?.class;
        self.merge_meta(declaring, &|c| self.property_attachments(c, name))
    }

    /// The meta of a method as the class sees it: as
    /// [`property_meta`](ClassRegistry::property_meta), over the methods
    /// of the same name (overridden methods).
    pub fn method_meta(
        &self,
        class: ClassId,
        name: &str,
    ) -> Result<Vec<MetaInstance<'_>>, QueryError> {
        let declaring = self.find_single_method(class, name)?.class;
        self.merge_meta(declaring, &|c| self.method_attachments(c, name))
    }

    /// The meta of an argument of a method as the class sees it. Argument
    /// meta is not inherited: only the declaring method's entries count.
    pub fn argument_meta(
        &self,
        class: ClassId,
        method: &str,
        argument: &str,
    ) -> Result<Vec<MetaInstance<'_>>, QueryError> {
        let found = self.find_single_method(class, method)?;
        let Some(position) = found
            .member
            .arguments
            .iter()
            .rposition(|a| a.name == argument)
        else {
            return Err(QueryError::NoArgumentFound {
                method: method.to_owned(),
                argument: argument.to_owned(),
            });
        };
        let attachments = self
            .links
            .get(found.class.0)
            .and_then(|l| l.meta.arguments.get(found.index))
            .and_then(|a| a.get(position))
            .map_or(&[][..], Vec::as_slice);
        Ok(attachments
            .iter()
            .map(|attachment| MetaInstance {
                attachment,
                declared_by: found.class,
            })
            .collect())
    }

    fn property_attachments(&self, class: ClassId, name: &str) -> &[MetaAttachment] {
        let Some(index) = self.members_of(class).and_then(|m| m.property(name)) else {
            return &[];
        };
        self.links
            .get(class.0)
            .and_then(|l| l.meta.properties.get(index))
            .map_or(&[], Vec::as_slice)
    }

    fn method_attachments(&self, class: ClassId, name: &str) -> &[MetaAttachment] {
        let Some(index) = self.members_of(class).and_then(|m| m.method(name)) else {
            return &[];
        };
        self.links
            .get(class.0)
            .and_then(|l| l.meta.methods.get(index))
            .map_or(&[], Vec::as_slice)
    }

    /// `Cardinality` and `Inherited` of a meta class (Murano's defaults
    /// when the class is not one).
    fn meta_rules(&self, meta_class: ClassId) -> (Cardinality, bool) {
        self.meta_class_info(meta_class)
            .map_or((Cardinality::One, false), |i| (i.cardinality, i.inherited))
    }

    /// Murano's `merge_providers` from `initial`.
    fn merge_meta<'r>(
        &'r self,
        initial: ClassId,
        provider: &dyn Fn(ClassId) -> &'r [MetaAttachment],
    ) -> Result<Vec<MetaInstance<'r>>, QueryError> {
        self.check(initial)?;
        let mut merger = Merger {
            registry: self,
            initial: self.key(initial),
            initial_name: self.name_of(initial),
            provider,
            memo: HashMap::new(),
            steps: 0,
        };
        let items = merger.merge(&[initial], &BTreeSet::new(), 0)?;
        Ok(items
            .into_iter()
            .filter_map(|(c, i)| {
                provider(c).get(i).map(|attachment| MetaInstance {
                    attachment,
                    declared_by: c,
                })
            })
            .collect())
    }

    /// Reads every `Meta` section of a class.
    pub(super) fn read_class_meta(
        &self,
        class: ClassId,
        diagnostics: &mut Vec<Finding>,
    ) -> DeclaredMeta {
        let (Some(def), Some(package), Some(namespaces)) = (
            self.definition(class),
            self.package_of(class),
            self.namespaces_of(class),
        ) else {
            return DeclaredMeta::default();
        };
        let ctx = LinkContext {
            package,
            class: Some(class),
        };
        let mut read = |node: Option<&Node>, target| {
            self.read_meta_section(node, target, &ctx, namespaces, diagnostics)
        };
        let class_meta = read(def.meta.as_ref(), MetaTarget::Type);
        let properties = def
            .properties
            .iter()
            .map(|p| read(p.meta.as_ref(), MetaTarget::Property))
            .collect();
        let mut methods = Vec::with_capacity(def.methods.len());
        let mut arguments = Vec::with_capacity(def.methods.len());
        for m in &def.methods {
            methods.push(read(m.meta.as_ref(), MetaTarget::Method));
            arguments.push(
                m.arguments
                    .iter()
                    .map(|a| read(a.meta.as_ref(), MetaTarget::Argument))
                    .collect(),
            );
        }
        DeclaredMeta {
            class: class_meta,
            properties,
            methods,
            arguments,
        }
    }

    /// Reads a package's `Meta` (names resolve without namespaces).
    pub(super) fn read_package_meta(
        &self,
        package: PackageId,
        diagnostics: &mut Vec<Finding>,
    ) -> Vec<MetaAttachment> {
        let Some(info) = self.package(package) else {
            return Vec::new();
        };
        let ctx = LinkContext {
            package,
            class: None,
        };
        self.read_meta_section(
            info.meta.as_ref(),
            MetaTarget::Package,
            &ctx,
            &Namespaces::default(),
            diagnostics,
        )
    }

    /// Murano's `MetaData`: a list of entries (or one entry), each
    /// `{ClassName: {properties}}` or `ClassName`; the class must be a
    /// meta class that applies to `target`, and a `Cardinality: One` class
    /// may appear once. Failing entries become diagnostics and are left
    /// out.
    fn read_meta_section(
        &self,
        node: Option<&Node>,
        target: MetaTarget,
        ctx: &LinkContext,
        namespaces: &Namespaces,
        diagnostics: &mut Vec<Finding>,
    ) -> Vec<MetaAttachment> {
        let entries: Vec<Entry<'_>> = match node.map(|n| &n.value) {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Seq(items)) => items.iter().map(Entry::Node).collect(),
            Some(Value::Pairs(pairs)) => pairs.iter().map(|(k, v)| Entry::Pair(k, v)).collect(),
            Some(_) => node.map(Entry::Node).into_iter().collect(),
        };
        let mut out: Vec<MetaAttachment> = Vec::new();
        let mut used: Vec<usize> = Vec::new();
        for entry in entries {
            let (name_node, properties, span) = match entry {
                Entry::Pair(k, v) => {
                    let text = format!("({}, {})", k.value.python_repr(), v.value.python_repr());
                    let err = LookupError::InvalidName(crate::model::NameError::InvalidTypeName(
                        shorten(text),
                    ));
                    diagnostics.push(ctx.diagnostic(
                        codes::META_UNRESOLVED,
                        err.to_string(),
                        err.python_exception(),
                        (k.start, v.end),
                    ));
                    continue;
                }
                Entry::Node(d) => match &d.value {
                    Value::Map(pairs) => {
                        let [(k, v)] = pairs.as_slice() else {
                            diagnostics.push(ctx.diagnostic(
                                codes::META_FORMAT,
                                format!(
                                    "a Meta entry must be a mapping with one key (the meta \
                                     class), not {} keys",
                                    pairs.len()
                                ),
                                "ValueError",
                                (d.start, d.end),
                            ));
                            continue;
                        };
                        let properties = v.value.is_truthy().then(|| v.clone());
                        (k, properties, (d.start, d.end))
                    }
                    _ => (d, None, (d.start, d.end)),
                },
            };
            if name_node.value == Value::Null {
                diagnostics.push(ctx.diagnostic(
                    codes::META_UNRESOLVED,
                    "a Meta entry names no class (null)".to_owned(),
                    "AttributeError",
                    span,
                ));
                continue;
            }
            let written = name_node.value.python_str();
            let resolved = namespaces.resolve(&written).map_err(|e| match e {
                crate::model::NameError::InvalidTypeName(text) => {
                    crate::model::NameError::InvalidTypeName(shorten(text))
                }
                other => other,
            });
            let Ok(meta_class) =
                self.link_name(ctx, &resolved, codes::META_UNRESOLVED, span, diagnostics)
            else {
                continue;
            };
            let meta_name = self.name_of(meta_class);
            if self.definition(meta_class).map(|d| d.usage) != Some(ClassUsage::Meta) {
                diagnostics.push(ctx.diagnostic(
                    codes::META_NOT_META_CLASS,
                    format!("{meta_name} is not a meta class (Usage: Meta); only meta classes can be attached"),
                    "ValueError",
                    span,
                ));
                continue;
            }
            let applies = self
                .meta_class_info(meta_class)
                .is_none_or(|i| i.applies.contains(&target));
            if !applies {
                diagnostics.push(ctx.diagnostic(
                    codes::META_NOT_APPLICABLE,
                    format!(
                        "meta class {meta_name} does not apply to {} (Applies)",
                        target.as_str()
                    ),
                    "ValueError",
                    span,
                ));
                continue;
            }
            let key = self.key(meta_class);
            if used.contains(&key) && self.meta_rules(meta_class).0 != Cardinality::Many {
                diagnostics.push(ctx.diagnostic(
                    codes::META_CARDINALITY,
                    format!(
                        "meta class {meta_name} has Cardinality One and is attached more than once"
                    ),
                    "ValueError",
                    span,
                ));
                continue;
            }
            used.push(key);
            out.push(MetaAttachment {
                meta_class,
                written,
                properties,
                start: span.0,
                end: span.1,
            });
        }
        out
    }

    /// The meta-inheritance conflicts of a class, its properties and its
    /// methods (what Murano raises when their meta is read).
    pub(super) fn check_meta_inheritance(&self, class: ClassId) -> Vec<Finding> {
        let mut out = Vec::new();
        if self.check(class).is_err() {
            return out;
        }
        let (Some(def), Some(members), Some(package)) = (
            self.definition(class),
            self.members_of(class),
            self.package_of(class),
        ) else {
            return out;
        };
        let ctx = LinkContext {
            package,
            class: Some(class),
        };
        let mut report = |result: Result<Vec<MetaInstance<'_>>, QueryError>, what: String, span| {
            if let Err(err @ QueryError::MetaConflict { .. }) = result {
                out.push(ctx.diagnostic(
                    codes::META_INHERITANCE_CONFLICT,
                    format!("{what}: {err}"),
                    "ValueError",
                    span,
                ));
            }
        };
        report(
            self.class_meta(class),
            format!("meta of class {}", self.name_of(class)),
            (def.start, def.end),
        );
        for &i in members.properties() {
            let Some(p) = def.properties.get(i) else {
                continue;
            };
            report(
                self.merge_meta(class, &|c| self.property_attachments(c, &p.name)),
                format!("meta of property {}", p.name),
                (p.start, p.end),
            );
        }
        for &i in members.methods() {
            let Some(m) = def.methods.get(i) else {
                continue;
            };
            report(
                self.merge_meta(class, &|c| self.method_attachments(c, &m.name)),
                format!("meta of method {}", m.written_name),
                (m.start, m.end),
            );
        }
        out
    }
}

/// An attachment: the class and its position in the provider's list.
type Item = (ClassId, usize);

/// One aggregation (Murano's `merger`, memoized on class and skip set).
struct Merger<'r, 'p> {
    registry: &'r ClassRegistry,
    initial: usize,
    initial_name: String,
    provider: &'p dyn Fn(ClassId) -> &'r [MetaAttachment],
    memo: HashMap<(ClassId, Vec<usize>), Vec<Item>>,
    steps: usize,
}

impl Merger<'_, '_> {
    fn merge(
        &mut self,
        classes: &[ClassId],
        skip: &BTreeSet<usize>,
        depth: usize,
    ) -> Result<Vec<Item>, QueryError> {
        self.steps += 1;
        if depth > MAX_DEPTH || self.steps > MAX_STEPS {
            return Err(QueryError::TooComplex(self.initial_name.clone()));
        }
        let registry = self.registry;
        let mut all: Vec<Item> = Vec::new();
        for &class in classes {
            let mut class_skip = skip.clone();
            let is_initial = registry.key(class) == self.initial;
            for (i, attachment) in (self.provider)(class).iter().enumerate() {
                let (cardinality, inherited) = registry.meta_rules(attachment.meta_class);
                let meta_key = registry.key(attachment.meta_class);
                if !is_initial && (!inherited || skip.contains(&meta_key)) {
                    continue;
                }
                if cardinality == Cardinality::One {
                    class_skip.insert(meta_key);
                }
                all.push((class, i));
            }
            let memo_key = (class, class_skip.iter().copied().collect::<Vec<_>>());
            let inherited = match self.memo.get(&memo_key) {
                Some(done) => done.clone(),
                None => {
                    let done = self.merge(registry.parents(class), &class_skip, depth + 1)?;
                    self.memo.insert(memo_key, done.clone());
                    done
                }
            };
            all.extend(inherited);
        }
        let mut one_from: HashMap<usize, ClassId> = HashMap::new();
        let mut seen: HashSet<Item> = HashSet::new();
        let mut result = Vec::new();
        for (class, i) in all {
            let Some(attachment) = (self.provider)(class).get(i) else {
                continue;
            };
            let meta_key = registry.key(attachment.meta_class);
            if let Some(&first) = one_from.get(&meta_key) {
                if registry.key(first) != registry.key(class) {
                    return Err(QueryError::MetaConflict {
                        meta_class: registry.name_of(attachment.meta_class),
                        first: registry.name_of(first),
                        second: registry.name_of(class),
                    });
                }
                continue;
            }
            if registry.meta_rules(attachment.meta_class).0 == Cardinality::One {
                one_from.insert(meta_key, class);
            }
            if seen.insert((class, i)) {
                result.push((class, i));
            }
        }
        Ok(result)
    }
}
