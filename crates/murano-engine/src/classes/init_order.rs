//! The order Murano runs an object's `.init` methods in.
//!
//! `MuranoObject.initialize` is a generator over the object's class parts:
//! a part yields the initialisers of its parents (in `Extends` order,
//! recursively) and then its own. Parts are shared: a class reached along
//! two inheritance paths (a diamond, such as `Configurable` under both
//! `MultiServerApplicationWithScaling` and `OpenStackSecurityConfigurable`)
//! is one part, but it is visited once per path, and since no `.init` has
//! run while the generator is consumed, its `.init` is queued (and runs)
//! once per path. Properties are set on the first visit only (the shared
//! `used_names`), so the later visits call `.init` without arguments.

use murano_dsl::registry::{ClassId, ClassRegistry};

use crate::error::EngineError;

/// Most `.init` calls one object's hierarchy may queue: inheritance paths
/// multiply through stacked diamonds, so the walk is bounded.
pub(crate) const MAX_INIT_CALLS: usize = 4096;

/// The classes of `class`'s hierarchy in the order their `.init` runs
/// (each parent's subtree first, in `Extends` order, then the class),
/// with repetitions for classes reached along several paths; the flag
/// tells a class's first occurrence.
pub(crate) fn init_sequence(
    registry: &ClassRegistry,
    class: ClassId,
) -> Result<Vec<(ClassId, bool)>, EngineError> {
    let mut out: Vec<(ClassId, bool)> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    // Explicit stack: (class, index of the next parent to visit).
    let mut stack: Vec<(ClassId, usize)> = vec![(class, 0)];
    while let Some((c, next)) = stack.pop() {
        let parents = registry.parents(c);
        if let Some(&p) = parents.get(next) {
            stack.push((c, next + 1));
            if stack.len() > MAX_INIT_CALLS {
                return Err(too_many());
            }
            stack.push((p, 0));
            continue;
        }
        let first = seen.insert(c);
        out.push((c, first));
        if out.len() > MAX_INIT_CALLS {
            return Err(too_many());
        }
    }
    Ok(out)
}

fn too_many() -> EngineError {
    EngineError::not_supported(format!(
        "a class hierarchy queuing more than {MAX_INIT_CALLS} .init calls"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ClassSetBuilder;
    use murano_dsl::version::Version;

    fn registry(text: &str) -> crate::classes::ClassSet {
        let mut b = ClassSetBuilder::new();
        let pkg = b.add_package("t", Version::new(0, 0, 0)).unwrap();
        for def in ClassSetBuilder::parse_file(text.as_bytes(), "c.yaml").unwrap() {
            b.add_class(pkg, "c.yaml", def).unwrap();
        }
        b.build()
    }

    fn names(set: &crate::classes::ClassSet, class: &str) -> Vec<String> {
        let id = set.find(class).unwrap();
        init_sequence(set.registry(), id)
            .unwrap()
            .into_iter()
            .map(|(c, first)| format!("{}{}", set.name(c), if first { "" } else { "*" }))
            .collect()
    }

    #[test]
    fn parents_first_in_extends_order_and_diamonds_twice() {
        let set = registry(
            "Name: Base\n---\nName: Left\nExtends: Base\n---\nName: Right\nExtends: Base\n\
             ---\nName: Other\n---\nName: Leaf\nExtends: [Left, Other, Right]\n",
        );
        assert_eq!(
            names(&set, "Leaf"),
            ["Base", "Left", "Other", "Base*", "Right", "Leaf"]
        );
        assert_eq!(names(&set, "Base"), ["Base"]);
    }

    #[test]
    fn stacked_diamonds_are_bounded() {
        // Each level doubles the paths to the bottom class.
        let mut text = String::from("Name: C0\n");
        for i in 1..40 {
            let p = i - 1;
            text.push_str(&format!(
                "---\nName: A{i}\nExtends: C{p}\n---\nName: B{i}\nExtends: C{p}\n---\nName: C{i}\nExtends: [A{i}, B{i}]\n"
            ));
        }
        let set = registry(&text);
        let e = init_sequence(set.registry(), set.find("C39").unwrap()).unwrap_err();
        assert_eq!(e.kind, crate::ErrorKind::NotSupported);
    }
}
