//! The class hierarchy: Murano's traversal, symbol resolution, type
//! weights, cycle detection and the version-remapping check.

use std::collections::{HashMap, HashSet, VecDeque};

use crate::model::{ClassDefinition, Method, Property, PropertyUsage};

use super::{codes, ClassId, ClassRegistry, Finding, PackageId, QueryError};

/// Beyond this many inheritance paths, symbol resolution stops
/// enumerating Murano's chains and uses the equivalent closed form.
const CHAIN_LIMIT: u64 = 1024;

/// A method or property found in a class: which class declares it, its
/// position in the class definition, and the declaration.
#[derive(Debug)]
pub struct MemberRef<'a, T> {
    /// The declaring class.
    pub class: ClassId,
    /// The position of the member in the declaring class's
    /// `methods` / `properties`.
    pub index: usize,
    /// The declaration.
    pub member: &'a T,
}

impl<T> Clone for MemberRef<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for MemberRef<'_, T> {}

impl<T> PartialEq for MemberRef<'_, T> {
    fn eq(&self, other: &Self) -> bool {
        self.class == other.class && self.index == other.index
    }
}

impl<T> Eq for MemberRef<'_, T> {}

/// Class name → distance from the class weighed: Murano's
/// `weigh_type_hierarchy`, in the order Murano's dictionary has them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TypeWeights {
    entries: Vec<(String, usize)>,
}

impl TypeWeights {
    /// The weight of a class name.
    pub fn get(&self, name: &str) -> Option<usize> {
        self.entries
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, w)| *w)
    }

    /// How many names (the schema generator's `N`).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are none (never, for a weighed class).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The names and weights in Murano's order (breadth first).
    pub fn iter(&self) -> impl Iterator<Item = (&str, usize)> {
        self.entries.iter().map(|(n, w)| (n.as_str(), *w))
    }
}

/// A class's methods and properties as Murano's dictionaries hold them:
/// in first-declaration order, a later declaration of the same name
/// replacing the earlier one.
#[derive(Debug, Clone, Default)]
pub(super) struct Members {
    methods: Vec<usize>,
    method_index: HashMap<String, usize>,
    properties: Vec<usize>,
    property_index: HashMap<String, usize>,
}

impl Members {
    pub(super) fn new(def: &ClassDefinition) -> Members {
        let mut m = Members::default();
        for (i, method) in def.methods.iter().enumerate() {
            match m.method_index.get(&method.name) {
                Some(&slot) => m.methods[slot] = i,
                None => {
                    m.method_index.insert(method.name.clone(), m.methods.len());
                    m.methods.push(i);
                }
            }
        }
        for (i, property) in def.properties.iter().enumerate() {
            match m.property_index.get(&property.name) {
                Some(&slot) => m.properties[slot] = i,
                None => {
                    m.property_index
                        .insert(property.name.clone(), m.properties.len());
                    m.properties.push(i);
                }
            }
        }
        m
    }

    pub(super) fn method(&self, name: &str) -> Option<usize> {
        self.method_index
            .get(name)
            .and_then(|&slot| self.methods.get(slot).copied())
    }

    pub(super) fn property(&self, name: &str) -> Option<usize> {
        self.property_index
            .get(name)
            .and_then(|&slot| self.properties.get(slot).copied())
    }

    pub(super) fn methods(&self) -> &[usize] {
        &self.methods
    }

    pub(super) fn properties(&self) -> &[usize] {
        &self.properties
    }
}

impl ClassRegistry {
    /// Ok when the class exists and its hierarchy is acyclic.
    pub(super) fn check(&self, class: ClassId) -> Result<(), QueryError> {
        if class.0 >= self.classes.len() {
            return Err(QueryError::UnknownClass(class));
        }
        if let Some(cycle) = self.cycle(class) {
            return Err(QueryError::Cycle {
                class: self.name_of(class),
                cycle: cycle.iter().map(|c| self.name_of(*c)).collect(),
            });
        }
        Ok(())
    }

    /// Murano's `ancestors()`: every class the class inherits from,
    /// breadth first in `Extends` order, each once (classes are the same
    /// when name and version are), the class itself excluded.
    pub fn ancestors(&self, class: ClassId) -> Result<Vec<ClassId>, QueryError> {
        self.check(class)?;
        Ok(self.traverse(class).skip(1).collect())
    }

    /// The class followed by its [`ancestors`](ClassRegistry::ancestors):
    /// the order in which Murano walks a hierarchy (`find_methods`,
    /// `find_properties`, `is_compatible`, reflection). Murano has no C3
    /// linearization; which declaration of a name wins is decided by
    /// [`find_method`](ClassRegistry::find_method).
    pub fn mro(&self, class: ClassId) -> Result<Vec<ClassId>, QueryError> {
        self.check(class)?;
        Ok(self.traverse(class).collect())
    }

    /// Breadth-first traversal from `class` (included), each class key
    /// once. The caller has checked the class.
    fn traverse(&self, class: ClassId) -> impl Iterator<Item = ClassId> + '_ {
        let mut seen = HashSet::new();
        let mut queue = VecDeque::new();
        seen.insert(self.key(class));
        queue.push_back(class);
        std::iter::from_fn(move || {
            let next = queue.pop_front()?;
            for &p in self.parents(next) {
                if seen.insert(self.key(p)) {
                    queue.push_back(p);
                }
            }
            Some(next)
        })
    }

    /// Murano's `is_compatible`: whether `class` is `ancestor` or inherits
    /// from it (same name and version).
    pub fn is_subclass(&self, class: ClassId, ancestor: ClassId) -> Result<bool, QueryError> {
        self.check(class)?;
        let key = self.key(ancestor);
        Ok(self.traverse(class).any(|c| self.key(c) == key))
    }

    /// Murano's `find_method`: the declarations of a method that the class
    /// sees. Along every inheritance path the most derived declaration
    /// hides those above it; declarations no path hides are all returned
    /// (more than one is an ambiguity), in Murano's order.
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
    /// Name: a.Left
    /// Methods: {run: {Body: []}}
    /// ---
    /// Name: a.Right
    /// Methods: {run: {Body: []}}
    /// ---
    /// Name: a.Both
    /// Extends: [a.Left, a.Right]
    /// ";
    /// for class in classes(text) {
    ///     builder.add_class(core, class)?;
    /// }
    /// let registry = builder.build();
    /// let both = registry.find_class("a.Both", None).unwrap();
    /// assert_eq!(registry.find_method(both, "run")?.len(), 2);
    /// let err = registry.find_single_method(both, "run").unwrap_err();
    /// assert_eq!(err.to_string(), "Found more than one method \"run\"");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn find_method(
        &self,
        class: ClassId,
        name: &str,
    ) -> Result<Vec<MemberRef<'_, Method>>, QueryError> {
        self.check(class)?;
        let found = self.choose_symbol(class, &|c| {
            self.members.get(c.0).and_then(|m| m.method(name))
        });
        Ok(found
            .into_iter()
            .filter_map(|(c, i)| self.method_ref(c, i))
            .collect())
    }

    /// Murano's `find_single_method`: the one declaration, or
    /// `NoMethodFound` / `AmbiguousMethodName`.
    pub fn find_single_method(
        &self,
        class: ClassId,
        name: &str,
    ) -> Result<MemberRef<'_, Method>, QueryError> {
        let mut found = self.find_method(class, name)?;
        match found.len() {
            0 => Err(QueryError::NoMethodFound(name.to_owned())),
            1 => Ok(found.remove(0)),
            _ => Err(QueryError::AmbiguousMethodName(name.to_owned())),
        }
    }

    /// Murano's `find_property`: as [`find_method`](ClassRegistry::find_method)
    /// for properties.
    pub fn find_property(
        &self,
        class: ClassId,
        name: &str,
    ) -> Result<Vec<MemberRef<'_, Property>>, QueryError> {
        self.check(class)?;
        let found = self.choose_symbol(class, &|c| {
            self.members.get(c.0).and_then(|m| m.property(name))
        });
        Ok(found
            .into_iter()
            .filter_map(|(c, i)| self.property_ref(c, i))
            .collect())
    }

    /// Murano's `find_single_property`: the one declaration, or
    /// `NoPropertyFound` / `AmbiguousPropertyNameError`.
    pub fn find_single_property(
        &self,
        class: ClassId,
        name: &str,
    ) -> Result<MemberRef<'_, Property>, QueryError> {
        let mut found = self.find_property(class, name)?;
        match found.len() {
            0 => Err(QueryError::NoPropertyFound(name.to_owned())),
            1 => Ok(found.remove(0)),
            _ => Err(QueryError::AmbiguousPropertyName(name.to_owned())),
        }
    }

    /// Murano's `find_static_property`: as
    /// [`find_single_property`](ClassRegistry::find_single_property), only
    /// declarations with `Usage: Static` counting (a non-static
    /// redeclaration does not hide a static one).
    pub fn find_static_property(
        &self,
        class: ClassId,
        name: &str,
    ) -> Result<MemberRef<'_, Property>, QueryError> {
        self.check(class)?;
        let mut found: Vec<_> = self
            .choose_symbol(class, &|c| {
                let i = self.members.get(c.0)?.property(name)?;
                let p = self.definition(c)?.properties.get(i)?;
                (p.usage == PropertyUsage::Static).then_some(i)
            })
            .into_iter()
            .filter_map(|(c, i)| self.property_ref(c, i))
            .collect();
        match found.len() {
            0 => Err(QueryError::NoPropertyFound(name.to_owned())),
            1 => Ok(found.remove(0)),
            _ => Err(QueryError::AmbiguousPropertyName(name.to_owned())),
        }
    }

    /// Murano's `find_methods`: every method of the class and its
    /// ancestors (in [`mro`](ClassRegistry::mro) order, each class's
    /// methods in declaration order) that `predicate` accepts, overridden
    /// ones included.
    pub fn find_methods(
        &self,
        class: ClassId,
        mut predicate: impl FnMut(&Method) -> bool,
    ) -> Result<Vec<MemberRef<'_, Method>>, QueryError> {
        let mut out = Vec::new();
        for c in self.mro(class)? {
            let Some(members) = self.members.get(c.0) else {
                continue;
            };
            for &i in members.methods() {
                if let Some(m) = self.method_ref(c, i) {
                    if predicate(m.member) {
                        out.push(m);
                    }
                }
            }
        }
        Ok(out)
    }

    /// Murano's `find_properties`: as
    /// [`find_methods`](ClassRegistry::find_methods) for properties.
    pub fn find_properties(
        &self,
        class: ClassId,
        mut predicate: impl FnMut(&Property) -> bool,
    ) -> Result<Vec<MemberRef<'_, Property>>, QueryError> {
        let mut out = Vec::new();
        for c in self.mro(class)? {
            let Some(members) = self.members.get(c.0) else {
                continue;
            };
            for &i in members.properties() {
                if let Some(p) = self.property_ref(c, i) {
                    if predicate(p.member) {
                        out.push(p);
                    }
                }
            }
        }
        Ok(out)
    }

    /// Murano's `all_method_names`: every method name of the class and its
    /// ancestors, each once, in [`mro`](ClassRegistry::mro) order (Murano
    /// returns a set).
    pub fn all_method_names(&self, class: ClassId) -> Result<Vec<&str>, QueryError> {
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        for m in self.find_methods(class, |_| true)? {
            if seen.insert(m.member.name.as_str()) {
                out.push(m.member.name.as_str());
            }
        }
        Ok(out)
    }

    /// Murano's `all_property_names`: as
    /// [`all_method_names`](ClassRegistry::all_method_names) for
    /// properties.
    pub fn all_property_names(&self, class: ClassId) -> Result<Vec<&str>, QueryError> {
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        for p in self.find_properties(class, |_| true)? {
            if seen.insert(p.member.name.as_str()) {
                out.push(p.member.name.as_str());
            }
        }
        Ok(out)
    }

    /// Murano's `weigh_type_hierarchy`: each class name of the hierarchy
    /// (the class itself at 0, `io.murano.Object` included) with its
    /// breadth-first distance from the class; a class reachable along
    /// several paths gets the shortest distance, and versions of one class
    /// share their name's entry.
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
    /// Name: a.Base
    /// ---
    /// Name: a.Mid
    /// Extends: a.Base
    /// ---
    /// Name: a.Leaf
    /// Extends: [a.Mid, a.Base]
    /// ";
    /// for class in classes(text) {
    ///     builder.add_class(core, class)?;
    /// }
    /// let registry = builder.build();
    /// let leaf = registry.find_class("a.Leaf", None).unwrap();
    /// let weights = registry.type_weights(leaf)?;
    /// let pairs: Vec<_> = weights.iter().collect();
    /// assert_eq!(
    ///     pairs,
    ///     [("a.Leaf", 0), ("a.Mid", 1), ("a.Base", 1), ("io.murano.Object", 2)]
    /// );
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn type_weights(&self, class: ClassId) -> Result<TypeWeights, QueryError> {
        self.check(class)?;
        let mut seen: HashSet<(usize, usize)> = HashSet::new();
        let mut names: HashSet<&str> = HashSet::new();
        let mut entries = Vec::new();
        let mut queue = VecDeque::new();
        seen.insert((self.key(class), 0));
        queue.push_back((class, 0usize));
        while let Some((c, w)) = queue.pop_front() {
            let name = self.class_name(c).unwrap_or("?");
            if names.insert(name) {
                entries.push((name.to_owned(), w));
            }
            for &p in self.parents(c) {
                if seen.insert((self.key(p), w + 1)) {
                    queue.push_back((p, w + 1));
                }
            }
        }
        Ok(TypeWeights { entries })
    }

    pub(super) fn method_ref(&self, class: ClassId, index: usize) -> Option<MemberRef<'_, Method>> {
        let member = self.definition(class)?.methods.get(index)?;
        Some(MemberRef {
            class,
            index,
            member,
        })
    }

    pub(super) fn property_ref(
        &self,
        class: ClassId,
        index: usize,
    ) -> Option<MemberRef<'_, Property>> {
        let member = self.definition(class)?.properties.get(index)?;
        Some(MemberRef {
            class,
            index,
            member,
        })
    }

    pub(super) fn members_of(&self, class: ClassId) -> Option<&Members> {
        self.members.get(class.0)
    }

    /// Murano's `_choose_symbol` over `_find_symbol_chains`. The caller
    /// has checked the class.
    fn choose_symbol(
        &self,
        class: ClassId,
        pick: &dyn Fn(ClassId) -> Option<usize>,
    ) -> Vec<(ClassId, usize)> {
        if self.leaf_paths(class) <= CHAIN_LIMIT {
            choose_from_chains(self.symbol_chains(class, pick))
        } else {
            self.choose_symbol_closed_form(class, pick)
        }
    }

    /// How many paths lead from the class to a class without parents
    /// (saturating just above [`CHAIN_LIMIT`]).
    fn leaf_paths(&self, class: ClassId) -> u64 {
        let mut memo: HashMap<ClassId, u64> = HashMap::new();
        let mut stack = vec![(class, false)];
        while let Some((c, expanded)) = stack.pop() {
            if memo.contains_key(&c) {
                continue;
            }
            let parents = self.parents(c);
            if expanded {
                let count = if parents.is_empty() {
                    1
                } else {
                    parents
                        .iter()
                        .map(|p| memo.get(p).copied().unwrap_or(0))
                        .fold(0u64, |a, b| a.saturating_add(b))
                        .min(CHAIN_LIMIT + 1)
                };
                memo.insert(c, count);
            } else {
                stack.push((c, true));
                stack.extend(
                    parents
                        .iter()
                        .filter(|p| !memo.contains_key(p))
                        .map(|&p| (p, false)),
                );
            }
        }
        memo.get(&class).copied().unwrap_or(0)
    }

    /// Murano's `_find_symbol_chains`: for every path from the class to a
    /// class without parents (breadth first, paths not merged), the
    /// symbols found along it.
    pub(super) fn symbol_chains(
        &self,
        class: ClassId,
        pick: &dyn Fn(ClassId) -> Option<usize>,
    ) -> Vec<Vec<(ClassId, usize)>> {
        let mut chains = Vec::new();
        let mut queue: VecDeque<(ClassId, Vec<(ClassId, usize)>)> = VecDeque::new();
        queue.push_back((class, Vec::new()));
        while let Some((c, mut path)) = queue.pop_front() {
            if let Some(i) = pick(c) {
                path.push((c, i));
            }
            let parents = self.parents(c);
            if parents.is_empty() {
                if !path.is_empty() {
                    chains.push(path);
                }
            } else {
                for &p in parents {
                    queue.push_back((p, path.clone()));
                }
            }
        }
        chains
    }

    /// What [`choose_from_chains`] returns, without enumerating paths: the
    /// declarations no other declaration of the hierarchy inherits from
    /// (a chain is dropped exactly when a longer chain ends with it, that
    /// is when some path reaches its first declaration through another
    /// one). Ordered by the traversal.
    pub(super) fn choose_symbol_closed_form(
        &self,
        class: ClassId,
        pick: &dyn Fn(ClassId) -> Option<usize>,
    ) -> Vec<(ClassId, usize)> {
        let mut reachable = Vec::new();
        let mut seen = HashSet::new();
        let mut queue = VecDeque::from([class]);
        seen.insert(class);
        while let Some(c) = queue.pop_front() {
            reachable.push(c);
            for &p in self.parents(c) {
                if seen.insert(p) {
                    queue.push_back(p);
                }
            }
        }
        let definers: Vec<(ClassId, usize)> = reachable
            .iter()
            .filter_map(|&c| pick(c).map(|i| (c, i)))
            .collect();
        let mut hidden: HashSet<ClassId> = HashSet::new();
        for &(d, _) in &definers {
            let mut queue: VecDeque<ClassId> = self.parents(d).iter().copied().collect();
            let mut visited: HashSet<ClassId> = queue.iter().copied().collect();
            while let Some(c) = queue.pop_front() {
                hidden.insert(c);
                for &p in self.parents(c) {
                    if visited.insert(p) {
                        queue.push_back(p);
                    }
                }
            }
        }
        definers
            .into_iter()
            .filter(|(c, _)| !hidden.contains(c))
            .collect()
    }
}

/// Murano's `_choose_symbol`: chains sorted by length (stably); the first
/// symbol of a chain is kept unless it is already kept or the chain is the
/// end of a later (not shorter) chain.
pub(super) fn choose_from_chains(mut chains: Vec<Vec<(ClassId, usize)>>) -> Vec<(ClassId, usize)> {
    chains.sort_by_key(Vec::len);
    let mut result: Vec<(ClassId, usize)> = Vec::new();
    for (i, chain) in chains.iter().enumerate() {
        let Some(&first) = chain.first() else {
            continue;
        };
        if result.contains(&first) {
            continue;
        }
        if chains[i + 1..].iter().any(|later| later.ends_with(chain)) {
            continue;
        }
        result.push(first);
    }
    result
}

/// Finds classes whose `Extends` leads back to themselves, records the
/// cycles in the registry, and returns their diagnostics.
pub(super) fn detect_cycles(registry: &mut ClassRegistry) -> Vec<Finding> {
    let n = registry.classes.len();
    let sccs = strongly_connected(n, |v| registry.parents(ClassId(v)));
    let mut cycle_of: Vec<Option<usize>> = vec![None; n];
    let mut member: Vec<bool> = vec![false; n];
    let mut cycles: Vec<Vec<ClassId>> = Vec::new();
    // Components come parents first.
    for scc in &sccs {
        let Some(&first) = scc.first() else { continue };
        let cyclic = scc.len() > 1 || registry.parents(ClassId(first)).contains(&ClassId(first));
        if cyclic {
            let id = cycles.len();
            cycles.push(cycle_path(registry, first, scc));
            for &v in scc {
                cycle_of[v] = Some(id);
                member[v] = true;
            }
        } else {
            cycle_of[first] = registry
                .parents(ClassId(first))
                .iter()
                .find_map(|p| cycle_of.get(p.0).copied().flatten());
        }
    }
    let mut diagnostics = Vec::new();
    for v in 0..n {
        let Some(id) = cycle_of[v] else { continue };
        let class = ClassId(v);
        let path = cycles
            .get(id)
            .map(|c| {
                c.iter()
                    .map(|c| registry.name_of(*c))
                    .collect::<Vec<_>>()
                    .join(" -> ")
            })
            .unwrap_or_default();
        let link = registry.parent_links(class).iter().find(|l| {
            l.target
                .as_ref()
                .is_ok_and(|t| cycle_of.get(t.0).copied().flatten() == Some(id))
        });
        let Some(link) = link else { continue };
        let message = if member[v] {
            format!("{} extends itself through {path}", registry.name_of(class))
        } else {
            format!(
                "{} extends a class whose hierarchy is cyclic ({path})",
                registry.name_of(class)
            )
        };
        diagnostics.push(Finding {
            code: codes::CYCLE,
            message,
            python_exception: "NoClassFound",
            package: registry.package_of(class).unwrap_or(PackageId(0)),
            class: Some(class),
            start: link.start,
            end: link.end,
        });
    }
    for (v, id) in cycle_of.into_iter().enumerate() {
        if let Some(links) = registry.links.get_mut(v) {
            links.cycle = id;
        }
    }
    registry.cycles = cycles;
    diagnostics
}

/// A cycle through `start` inside its component, `start` repeated at the
/// end.
fn cycle_path(registry: &ClassRegistry, start: usize, scc: &[usize]) -> Vec<ClassId> {
    let inside: HashSet<usize> = scc.iter().copied().collect();
    let mut previous: HashMap<usize, usize> = HashMap::new();
    let mut queue = VecDeque::from([start]);
    let mut end = None;
    'search: while let Some(v) = queue.pop_front() {
        for p in registry.parents(ClassId(v)) {
            if p.0 == start {
                end = Some(v);
                break 'search;
            }
            if inside.contains(&p.0) && !previous.contains_key(&p.0) {
                previous.insert(p.0, v);
                queue.push_back(p.0);
            }
        }
    }
    let mut path = vec![ClassId(start)];
    if let Some(mut v) = end {
        let mut back = Vec::new();
        while v != start {
            back.push(ClassId(v));
            match previous.get(&v) {
                Some(&u) => v = u,
                None => break,
            }
        }
        back.reverse();
        path.extend(back);
    }
    path.push(ClassId(start));
    path
}

/// Tarjan's algorithm without recursion. Components are returned so that
/// every component comes after the components it has edges to.
fn strongly_connected<'a>(n: usize, edges: impl Fn(usize) -> &'a [ClassId]) -> Vec<Vec<usize>> {
    let mut index: Vec<Option<usize>> = vec![None; n];
    let mut low: Vec<usize> = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<usize> = Vec::new();
    let mut next = 0;
    let mut out = Vec::new();
    for root in 0..n {
        if index[root].is_some() {
            continue;
        }
        let mut calls: Vec<(usize, usize)> = vec![(root, 0)];
        index[root] = Some(next);
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut position)) = calls.last_mut() {
            let targets = edges(v);
            if let Some(w) = targets.get(*position).map(|c| c.0) {
                *position += 1;
                if w >= n {
                    continue;
                }
                match index[w] {
                    None => {
                        index[w] = Some(next);
                        low[w] = next;
                        next += 1;
                        stack.push(w);
                        on_stack[w] = true;
                        calls.push((w, 0));
                    }
                    Some(iw) if on_stack[w] => low[v] = low[v].min(iw),
                    Some(_) => {}
                }
            } else {
                calls.pop();
                if let Some(&(u, _)) = calls.last() {
                    low[u] = low[u].min(low[v]);
                }
                if Some(low[v]) == index[v] {
                    let mut component = Vec::new();
                    while let Some(w) = stack.pop() {
                        on_stack[w] = false;
                        component.push(w);
                        if w == v {
                            break;
                        }
                    }
                    component.reverse();
                    out.push(component);
                }
            }
        }
    }
    out
}

/// Murano's `_build_parent_remappings` for `class`: when two packages of
/// the hierarchy reach one package name through different requirements
/// (or two versions of it are reached), Murano computes a version
/// remapping and then fails to apply it (`package.classes` is a set).
pub(super) fn check_remapping(
    registry: &ClassRegistry,
    class: ClassId,
    diagnostics: &mut Vec<Finding>,
) {
    if registry.check(class).is_err() {
        return;
    }
    let Some(own) = registry.package_of(class) else {
        return;
    };
    let Some(own_info) = registry.package(own) else {
        return;
    };
    // package name -> (package, requirement text), insertion ordered.
    let mut aggregation: Vec<(String, Vec<(PackageId, String)>)> = vec![(
        own_info.name.clone(),
        vec![(own, format!("=={}", own_info.version))],
    )];
    let mut specs: HashMap<(PackageId, String), crate::version::VersionSpec> = HashMap::new();
    if let Ok(spec) = crate::version::VersionSpec::parse(&format!("=={}", own_info.version)) {
        specs.insert((own, format!("=={}", own_info.version)), spec);
    }
    let mut seen_edges: HashSet<(ClassId, ClassId)> = HashSet::new();
    let mut queue: VecDeque<(ClassId, ClassId)> = registry
        .parents(class)
        .iter()
        .map(|&p| (class, p))
        .collect();
    while let Some((c, parent)) = queue.pop_front() {
        if !seen_edges.insert((c, parent)) {
            continue;
        }
        for &a in registry.parents(parent) {
            queue.push_back((parent, a));
        }
        let (Some(cp), Some(pp)) = (registry.package_of(c), registry.package_of(parent)) else {
            continue;
        };
        if cp == pp {
            continue;
        }
        let Some(parent_name) = registry.package(pp).map(|p| p.name.clone()) else {
            continue;
        };
        let Some((_, spec)) = registry
            .requirements
            .get(cp.0)
            .and_then(|r| r.iter().find(|(n, _)| *n == parent_name))
        else {
            // Murano: KeyError; only reachable through lenient resolution.
            continue;
        };
        let text = spec.normalized();
        specs
            .entry((pp, text.clone()))
            .or_insert_with(|| spec.clone());
        let group = match aggregation.iter_mut().find(|(n, _)| *n == parent_name) {
            Some(group) => group,
            None => {
                aggregation.push((parent_name, Vec::new()));
                match aggregation.last_mut() {
                    Some(g) => g,
                    None => continue,
                }
            }
        };
        if !group.1.contains(&(pp, text.clone())) {
            group.1.push((pp, text));
        }
    }
    let mut bindings: HashMap<PackageId, PackageId> = HashMap::new();
    for (_, versions) in &aggregation {
        remap_package(registry, versions, &specs, &mut bindings);
    }
    if bindings.is_empty() {
        return;
    }
    let Ok(ancestors) = registry.ancestors(class) else {
        return;
    };
    let Some(hit) = ancestors.iter().find(|a| {
        registry
            .package_of(**a)
            .is_some_and(|p| bindings.contains_key(&p))
    }) else {
        return;
    };
    let (Some(from), Some(to)) = (
        registry.package_of(*hit),
        registry
            .package_of(*hit)
            .and_then(|p| bindings.get(&p).copied()),
    ) else {
        return;
    };
    let describe = |p: PackageId| {
        registry
            .package(p)
            .map(|i| format!("{}/{}", i.name, i.version))
            .unwrap_or_default()
    };
    let (start, end) = registry
        .definition(class)
        .map(|d| (d.start, d.end))
        .unwrap_or_default();
    diagnostics.push(Finding {
        code: codes::VERSION_REMAP,
        message: format!(
            "the hierarchy of {} reaches package {} through different requirements; \
             Murano remaps it to {} and fails (TypeError: 'set' object is not subscriptable)",
            registry.name_of(class),
            describe(from),
            describe(to),
        ),
        python_exception: "TypeError",
        package: own,
        class: Some(class),
        start,
        end,
    });
}

/// Murano's `_remap_package` for the (package, requirement) pairs of one
/// package name.
fn remap_package(
    registry: &ClassRegistry,
    versions: &[(PackageId, String)],
    specs: &HashMap<(PackageId, String), crate::version::VersionSpec>,
    result: &mut HashMap<PackageId, PackageId>,
) {
    let version = |p: PackageId| registry.package(p).map(|i| &i.version);
    let mut list: Vec<(PackageId, String)> = versions.to_vec();
    list.sort_by(|a, b| version(a.0).cmp(&version(b.0)));
    let mut reverse: HashMap<PackageId, Vec<PackageId>> = HashMap::new();
    let mut i = 0;
    while i < list.len() {
        let (p1, ref r1) = list[i];
        let spec = specs.get(&(p1, r1.clone()));
        let mut dst: Option<PackageId> = None;
        for (j, (p2, _)) in list.iter().enumerate() {
            if i == j {
                continue;
            }
            let matches = match (spec, version(*p2)) {
                (Some(s), Some(v)) => s.matches(v),
                _ => false,
            };
            if matches && dst.is_none_or(|d| version(d) < version(*p2)) {
                dst = Some(*p2);
            }
        }
        if let Some(d) = dst {
            result.insert(p1, d);
            reverse.entry(d).or_default().push(p1);
            if let Some(mapped) = reverse.get(&p1).cloned() {
                for p in mapped {
                    result.insert(p, d);
                }
            }
            list.remove(i);
        } else {
            i += 1;
        }
    }
}
