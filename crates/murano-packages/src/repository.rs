//! Package repositories, without I/O: what a repository index says of each
//! package ([`PackageSummary`]) and the check that every package's
//! `Require` closure can be served from the repository
//! ([`check_closures`]): each requirement present, one version of each
//! package satisfying every spec on it, no cycle.
//!
//! The layout is the one muranoclient reads (`apps/<FullName>.zip`,
//! `apps/<FullName>.<version>.zip`, `bundles/<name>.bundle`, `images/`);
//! writing it is the caller's job.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use murano_dsl::version::{parse_version_spec, Version, VersionSpec};
use murano_yaml::{Node, Value};

use crate::error::PackageError;
use crate::package::Package;

/// What an index and a catalog listing say of one package.
#[derive(Debug, Clone, PartialEq)]
pub struct PackageSummary {
    /// `FullName`.
    pub name: String,
    /// `Version`.
    pub version: Version,
    /// `Version` as written in the manifest (muranoclient asks for
    /// `apps/<name>.<written version>.zip`).
    pub written_version: Option<String>,
    /// `Application` or `Library`.
    pub package_type: String,
    /// `MuranoPL` or `Heat.HOT`.
    pub format: String,
    /// `Name`, as text.
    pub display_name: String,
    /// `Description`, as text (empty when absent).
    pub description: String,
    /// `Author`, as text (empty when absent).
    pub author: String,
    /// `Tags`.
    pub tags: Vec<String>,
    /// `Categories` (muranoclient's import option, kept when a manifest
    /// lists them).
    pub categories: Vec<String>,
    /// The classes it defines.
    pub classes: Vec<String>,
    /// `Require`: package name and the spec as written (empty for none).
    pub requires: Vec<(String, String)>,
    /// The images `images.lst` names.
    pub images: Vec<String>,
    /// `Require` entries whose spec is written as a number, not a string
    /// (muranoclient 2.8.0 fails to fetch them from a repository).
    pub unquoted_requires: Vec<String>,
}

fn text(node: &Node) -> String {
    match &node.value {
        Value::Null => String::new(),
        other => other.python_str(),
    }
}

fn string_list(node: Option<&Node>) -> Vec<String> {
    match node.map(|n| &n.value) {
        Some(Value::Seq(items)) => items.iter().map(text).collect(),
        Some(Value::Str(s)) if !s.is_empty() => vec![s.clone()],
        _ => Vec::new(),
    }
}

impl PackageSummary {
    /// The summary of a loaded package; `manifest` is its parsed
    /// `manifest.yaml` and `images_lst` the bytes of its `images.lst`.
    pub fn from_package(
        package: &dyn Package,
        manifest: &Node,
        images_lst: Option<&[u8]>,
    ) -> Result<PackageSummary, PackageError> {
        let unquoted_requires = match &package.requirements().value {
            Value::Map(pairs) => pairs
                .iter()
                .filter(|(_, v)| !matches!(v.value, Value::Str(_) | Value::Null))
                .map(|(k, _)| k.value.python_str())
                .collect(),
            _ => Vec::new(),
        };
        let requires = match &package.requirements().value {
            Value::Map(pairs) => pairs
                .iter()
                .map(|(k, v)| (k.value.python_str(), text(v)))
                .collect(),
            _ => Vec::new(),
        };
        let images = images_lst
            .and_then(|b| {
                murano_yaml::load_manifest(
                    &String::from_utf8_lossy(b),
                    &murano_yaml::LoadOptions::default(),
                )
                .ok()
                .flatten()
            })
            .and_then(|n| match n.value.get("Images").map(|i| &i.value) {
                Some(Value::Seq(items)) => Some(
                    items
                        .iter()
                        .filter_map(|i| i.value.get("Name").map(text))
                        .filter(|n| !n.is_empty())
                        .collect(),
                ),
                _ => None,
            })
            .unwrap_or_default();
        Ok(PackageSummary {
            name: package.full_name().to_owned(),
            version: package.version().clone(),
            written_version: manifest
                .value
                .get("Version")
                .map(text)
                .filter(|v| !v.is_empty()),
            package_type: package.package_type().as_str().to_owned(),
            format: package.format_name().to_owned(),
            display_name: text(&package.display_name()),
            description: text(&package.description()),
            author: text(&package.author()),
            tags: package.tags()?.iter().map(text).collect(),
            categories: string_list(manifest.value.get("Categories")),
            classes: package.classes()?,
            requires,
            images,
            unquoted_requires,
        })
    }
}

/// A `Require` closure the repository cannot serve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClosureProblem {
    /// No package of that name is in the repository.
    Missing {
        /// The package whose closure it is.
        root: String,
        /// The package requiring it.
        by: String,
        /// The package required.
        name: String,
    },
    /// A spec no version in the repository satisfies, or specs on one
    /// package that no single version satisfies together.
    Conflict {
        /// The package whose closure it is.
        root: String,
        /// The package required.
        name: String,
        /// Who asks for what (`package: spec`).
        specs: Vec<String>,
        /// The versions the repository has.
        available: Vec<String>,
    },
    /// A spec that is no version spec.
    BadSpec {
        /// The package requiring.
        by: String,
        /// The package required.
        name: String,
        /// Why.
        reason: String,
    },
    /// Packages that require each other.
    Cycle {
        /// The packages in the cycle, the first one repeated at the end.
        path: Vec<String>,
    },
}

impl fmt::Display for ClosureProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClosureProblem::Missing { root, by, name } => write!(
                f,
                "{root}: {by} requires {name}, which is not in the repository"
            ),
            ClosureProblem::Conflict {
                root,
                name,
                specs,
                available,
            } => write!(
                f,
                "{root}: no version of {name} satisfies every requirement ({}); available: {}",
                specs.join(", "),
                if available.is_empty() {
                    "none".to_owned()
                } else {
                    available.join(", ")
                }
            ),
            ClosureProblem::BadSpec { by, name, reason } => {
                write!(f, "{by}: Require {name}: {reason}")
            }
            ClosureProblem::Cycle { path } => {
                write!(f, "Require cycle: {}", path.join(" -> "))
            }
        }
    }
}

/// The spec of a `Require` value as Murano reads it (an empty value is
/// null: version 0.x, as in Murano).
fn spec_of(written: &str) -> Result<VersionSpec, String> {
    let scalar = if written.is_empty() {
        murano_dsl::version::YamlScalar::Null
    } else {
        murano_dsl::version::YamlScalar::from(written)
    };
    parse_version_spec(&scalar).map_err(|e| e.to_string())
}

/// Checks each package's `Require` closure against the repository's
/// packages: for every package, the newest version of each package
/// reached that satisfies every spec met so far is chosen, and a
/// requirement with no such version is a problem. Cycles between package
/// names are reported once each. The work is bounded by the number of
/// packages times the number of requirements.
pub fn check_closures(packages: &[PackageSummary]) -> Vec<ClosureProblem> {
    let mut problems = Vec::new();
    let mut by_name: BTreeMap<&str, Vec<&PackageSummary>> = BTreeMap::new();
    for p in packages {
        by_name.entry(&p.name).or_default().push(p);
    }
    for list in by_name.values_mut() {
        list.sort_by(|a, b| b.version.cmp(&a.version));
    }
    let mut specs: BTreeMap<(&str, &str), VersionSpec> = BTreeMap::new();
    for p in packages {
        for (name, written) in &p.requires {
            match spec_of(written) {
                Ok(spec) => {
                    specs.insert((&p.name, name), spec);
                }
                Err(reason) => problems.push(ClosureProblem::BadSpec {
                    by: p.name.clone(),
                    name: name.clone(),
                    reason,
                }),
            }
        }
    }
    let mut reported_missing = BTreeSet::new();
    for root in packages {
        // Chosen version per name; the root is fixed.
        let mut chosen: BTreeMap<&str, &PackageSummary> = BTreeMap::new();
        let mut asked: BTreeMap<&str, Vec<(&str, &VersionSpec)>> = BTreeMap::new();
        chosen.insert(&root.name, root);
        let mut queue = vec![root];
        let mut failed = BTreeSet::new();
        while let Some(p) = queue.pop() {
            for (name, _) in &p.requires {
                let Some(spec) = specs.get(&(p.name.as_str(), name.as_str())) else {
                    continue;
                };
                asked
                    .entry(name.as_str())
                    .or_default()
                    .push((p.name.as_str(), spec));
                let Some(candidates) = by_name.get(name.as_str()) else {
                    if reported_missing.insert((root.name.clone(), name.clone())) {
                        problems.push(ClosureProblem::Missing {
                            root: root.name.clone(),
                            by: p.name.clone(),
                            name: name.clone(),
                        });
                    }
                    continue;
                };
                let wanted = &asked[name.as_str()];
                let fits = |c: &PackageSummary| wanted.iter().all(|(_, s)| s.matches(&c.version));
                if chosen.get(name.as_str()).is_some_and(|c| fits(c)) {
                    continue;
                }
                if name == &root.name {
                    // The root's own version is the one in use.
                    if !failed.insert(name.as_str()) {
                        continue;
                    }
                } else if let Some(next) = candidates.iter().find(|c| fits(c)) {
                    chosen.insert(name.as_str(), next);
                    queue.push(next);
                    continue;
                } else if !failed.insert(name.as_str()) {
                    continue;
                }
                let available = if name == &root.name {
                    vec![root.version.to_string()]
                } else {
                    candidates.iter().map(|c| c.version.to_string()).collect()
                };
                problems.push(ClosureProblem::Conflict {
                    root: root.name.clone(),
                    name: name.clone(),
                    specs: wanted
                        .iter()
                        .map(|(by, s)| format!("{by}: {}", s.normalized()))
                        .collect(),
                    available,
                });
            }
        }
    }
    problems.extend(cycles(packages));
    problems
}

/// Cycles in the graph of package names (edges: `Require`), each reported
/// once, found by an iterative depth-first search.
fn cycles(packages: &[PackageSummary]) -> Vec<ClosureProblem> {
    let mut edges: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for p in packages {
        let out = edges.entry(&p.name).or_default();
        for (name, _) in &p.requires {
            if name != &p.name {
                out.insert(name);
            }
        }
    }
    let mut found = Vec::new();
    let mut seen_cycles = BTreeSet::new();
    // 0: unvisited, 1: on the stack, 2: done.
    let mut state: BTreeMap<&str, u8> = BTreeMap::new();
    for &start in edges.keys() {
        if state.get(start).copied().unwrap_or(0) != 0 {
            continue;
        }
        let mut path: Vec<&str> = vec![start];
        let mut iters: Vec<Vec<&str>> = vec![edges
            .get(start)
            .map(|s| s.iter().copied().collect())
            .unwrap_or_default()];
        state.insert(start, 1);
        while let Some(top) = iters.last_mut() {
            let Some(next) = top.pop() else {
                // Every edge of the node on top is explored.
                iters.pop();
                if let Some(done) = path.pop() {
                    state.insert(done, 2);
                }
                continue;
            };
            match state.get(next).copied().unwrap_or(0) {
                0 => {
                    state.insert(next, 1);
                    path.push(next);
                    iters.push(
                        edges
                            .get(next)
                            .map(|s| s.iter().copied().collect())
                            .unwrap_or_default(),
                    );
                }
                1 => {
                    let at = path.iter().position(|n| *n == next).unwrap_or(0);
                    let mut cycle: Vec<String> = path[at..].iter().map(|s| s.to_string()).collect();
                    let mut key = cycle.clone();
                    key.sort();
                    if seen_cycles.insert(key) {
                        cycle.push(next.to_owned());
                        found.push(ClosureProblem::Cycle { path: cycle });
                    }
                }
                _ => {}
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkg(name: &str, version: &str, requires: &[(&str, &str)]) -> PackageSummary {
        PackageSummary {
            name: name.into(),
            version: Version::coerce(version).unwrap(),
            written_version: Some(version.into()),
            package_type: "Library".into(),
            format: "MuranoPL".into(),
            display_name: name.into(),
            description: String::new(),
            author: String::new(),
            tags: vec![],
            categories: vec![],
            classes: vec![],
            requires: requires
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect(),
            images: vec![],
            unquoted_requires: vec![],
        }
    }

    #[test]
    fn a_served_closure_has_no_problem() {
        let repo = [
            pkg("a", "1.0.0", &[("b", "1")]),
            pkg("b", "1.2.0", &[("c", "")]),
            pkg("c", "0.1.0", &[]),
        ];
        assert_eq!(check_closures(&repo), vec![]);
    }

    #[test]
    fn a_missing_requirement_is_named_with_who_asks() {
        let repo = [
            pkg("a", "1.0.0", &[("b", "1")]),
            pkg("b", "1.0.0", &[("x", "")]),
        ];
        let problems = check_closures(&repo);
        assert!(problems.contains(&ClosureProblem::Missing {
            root: "a".into(),
            by: "b".into(),
            name: "x".into()
        }));
        assert!(problems[0].to_string().contains("not in the repository"));
    }

    #[test]
    fn conflicting_specs_are_one_problem() {
        let repo = [
            pkg("a", "1.0.0", &[("b", "1"), ("c", "1")]),
            pkg("b", "1.0.0", &[("c", "2")]),
            pkg("c", "1.0.0", &[]),
            pkg("c", "2.0.0", &[]),
        ];
        let problems = check_closures(&repo);
        assert_eq!(problems.len(), 1, "{problems:?}");
        let text = problems[0].to_string();
        assert!(text.contains("no version of c"), "{text}");
        assert!(
            text.contains("1.0.0, 2.0.0") || text.contains("2.0.0, 1.0.0"),
            "{text}"
        );
    }

    #[test]
    fn a_dependency_listed_first_is_no_cycle() {
        // "a-lib" sorts before "b-app": the search starts at the leaf.
        let repo = [
            pkg("b-app", "1.0.0", &[("a-lib", "1")]),
            pkg("a-lib", "1.0.0", &[]),
        ];
        assert_eq!(check_closures(&repo), vec![]);
    }

    #[test]
    fn a_cycle_is_reported_once() {
        let repo = [
            pkg("a", "1.0.0", &[("b", "1")]),
            pkg("b", "1.0.0", &[("c", "1")]),
            pkg("c", "1.0.0", &[("a", "1")]),
        ];
        let problems = check_closures(&repo);
        let cycles: Vec<_> = problems
            .iter()
            .filter(|p| matches!(p, ClosureProblem::Cycle { .. }))
            .collect();
        assert_eq!(cycles.len(), 1, "{problems:?}");
        assert_eq!(cycles[0].to_string(), "Require cycle: a -> b -> c -> a");
    }
}
