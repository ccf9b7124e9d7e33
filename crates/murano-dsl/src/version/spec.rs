//! [`VersionSpec`]: semantic-version 2.10's `Spec` (the "simple" syntax)
//! and Murano's `parse_version_spec` normalization on top of it.

use std::collections::HashSet;
use std::fmt;

use super::number::VersionNumber;
use super::{Version, VersionError, YamlScalar};
use murano_yaml::py_text as pychar;

/// The comparison operator of a [`SpecItem`] (the library's `Range`
/// operators).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Operator {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl Operator {
    /// The operator's text, e.g. `>=`.
    pub fn as_str(self) -> &'static str {
        match self {
            Operator::Eq => "==",
            Operator::Ne => "!=",
            Operator::Lt => "<",
            Operator::Le => "<=",
            Operator::Gt => ">",
            Operator::Ge => ">=",
        }
    }
}

impl fmt::Display for Operator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One part of a spec: an operator and a full version, e.g. `>=1.2.0`
/// (the library's `SpecItem`, as `Spec.specs` lists them).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SpecItem {
    /// The operator.
    pub operator: Operator,
    /// The version it compares with.
    pub version: Version,
}

impl fmt::Display for SpecItem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.operator, self.version)
    }
}

/// The library's `Range`: one comparison with its policies.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Range {
    operator: Operator,
    target: Version,
    /// `prerelease_policy='always'` (from a bare trailing `-`, as in
    /// `<1.2.3-`); otherwise `natural`.
    prerelease_always: bool,
    /// `build_policy='strict'`: explicit (a bare trailing `+`) or because
    /// the target has build metadata.
    build_strict: bool,
}

impl Range {
    fn new(operator: Operator, target: Version) -> Range {
        let build_strict = !target.build().is_empty();
        Range {
            operator,
            target,
            prerelease_always: false,
            build_strict,
        }
    }

    fn prerelease_always(mut self) -> Range {
        self.prerelease_always = true;
        self
    }

    fn build_strict(mut self) -> Range {
        self.build_strict = true;
        self
    }

    /// `Range.match`.
    fn matches(&self, version: &Version) -> bool {
        let version = if self.build_strict {
            version.clone()
        } else {
            version.without_build()
        };
        let target = &self.target;
        // `<X` and `!=X` (X a release) leave out the prereleases of X.
        let excluded_prerelease = || {
            version.is_prerelease()
                && !self.prerelease_always
                && version.release_part() == target.release_part()
                && !target.is_prerelease()
        };
        let strict_equal = || {
            target.without_build() == version.without_build() && version.build() == target.build()
        };
        match self.operator {
            Operator::Eq if self.build_strict => strict_equal(),
            Operator::Eq => version == *target,
            Operator::Gt => version.cmp_precedence(target).is_gt(),
            Operator::Ge => version.cmp_precedence(target).is_ge(),
            Operator::Lt => !excluded_prerelease() && version.cmp_precedence(target).is_lt(),
            Operator::Le => version.cmp_precedence(target).is_le(),
            Operator::Ne if self.build_strict => !strict_equal(),
            Operator::Ne => !excluded_prerelease() && version != *target,
        }
    }

    fn item(&self) -> SpecItem {
        SpecItem {
            operator: self.operator,
            version: self.target.clone(),
        }
    }
}

/// The library's clause tree, as the simple syntax builds it: a range, an
/// OR of ranges (from `!=` on a partial version) or an AND of those.
#[derive(Debug, Clone)]
enum Clause {
    Range(Range),
    AnyOf(Vec<Range>),
    AllOf(Vec<Clause>),
}

impl Clause {
    fn matches(&self, version: &Version) -> bool {
        match self {
            Clause::Range(range) => range.matches(version),
            Clause::AnyOf(ranges) => ranges.iter().any(|r| r.matches(version)),
            Clause::AllOf(clauses) => clauses.iter().all(|c| c.matches(version)),
        }
    }

    /// `low & high` for two ranges with different operators (never equal,
    /// so both stay).
    fn and_ranges(low: Range, high: Range) -> Clause {
        Clause::AllOf(vec![Clause::Range(low), Clause::Range(high)])
    }

    /// What the library's set operations compare a member of an AND by
    /// (`Range.__eq__` ignores the build policy; an OR is a set).
    fn key(&self) -> ClauseKey {
        match self {
            Clause::Range(range) => ClauseKey::Range(range.key()),
            Clause::AnyOf(ranges) => {
                let mut keys: Vec<RangeKey> = ranges.iter().map(Range::key).collect();
                keys.sort();
                keys.dedup();
                ClauseKey::AnyOf(keys)
            }
            Clause::AllOf(clauses) => ClauseKey::AllOf(clauses.iter().map(Clause::key).collect()),
        }
    }

    /// The library's `&` over the blocks of a spec: one block stays as it
    /// is; several make one AND whose members are all the blocks' members
    /// (ANDs are flattened, ORs kept whole), equal members collapsing into
    /// the first one.
    fn and_all(blocks: Vec<Clause>) -> Clause {
        if blocks.len() == 1 {
            if let Some(single) = blocks.into_iter().next() {
                return single;
            }
            return Clause::AllOf(Vec::new());
        }
        let mut seen = HashSet::new();
        let mut members = Vec::new();
        for block in blocks {
            let parts = match block {
                Clause::AllOf(inner) => inner,
                single => vec![single],
            };
            for part in parts {
                if seen.insert(part.key()) {
                    members.push(part);
                }
            }
        }
        Clause::AllOf(members)
    }
}

/// [`Range`] equality as the library's sets see it.
type RangeKey = (Operator, Version, bool);

impl Range {
    /// The library's `Range.__eq__` / `__hash__`: operator, target and
    /// prerelease policy (not the build policy).
    fn key(&self) -> RangeKey {
        (self.operator, self.target.clone(), self.prerelease_always)
    }
}

#[derive(PartialEq, Eq, Hash)]
enum ClauseKey {
    Range(RangeKey),
    AnyOf(Vec<RangeKey>),
    AllOf(Vec<ClauseKey>),
}

/// A version spec: semantic-version 2.10's `Spec` in its "simple" syntax,
/// as Murano uses it for `Require` entries and package requirements.
///
/// [`VersionSpec::parse`] is the plain library `Spec(text)`;
/// [`parse_version_spec`] is Murano's normalization (partial versions
/// widened, the result rebuilt from full-version parts).
///
/// ```
/// use murano_dsl::version::{parse_version_spec, Version, VersionSpec, YamlScalar};
///
/// let spec = parse_version_spec(&YamlScalar::from("1.2"))?;
/// assert_eq!(spec.normalized(), "<1.3.0,>=1.2.0");
/// assert!(spec.matches(&Version::parse("1.2.7")?));
/// assert!(!spec.matches(&Version::parse("1.3.0")?));
///
/// let plain = VersionSpec::parse("==1")?;
/// assert_eq!(plain.normalized(), "==1"); // the text stays as given
/// assert_eq!(plain.items()?.len(), 2); // >=1.0.0 and <2.0.0
/// assert!(!plain.matches(&Version::parse("2.0.0-rc.1")?));
/// # Ok::<(), murano_dsl::version::VersionError>(())
/// ```
#[derive(Debug, Clone)]
pub struct VersionSpec {
    expression: String,
    clause: Clause,
}

impl VersionSpec {
    /// The library's `Spec(text)` (simple syntax, no Murano normalization):
    /// comma-separated blocks `[op]MAJOR[.MINOR[.PATCH]][-pre][+build]`,
    /// `op` one of `< <= = == >= > != ^ ~ ~=` or none, numbers `0` or
    /// without leading zero, `*` as a wildcard. Blocks are AND-ed.
    ///
    /// ```
    /// use murano_dsl::version::{PythonException, Version, VersionSpec};
    ///
    /// let spec = VersionSpec::parse("~1.2.3")?;
    /// assert!(spec.matches(&Version::parse("1.2.9")?));
    /// assert!(!spec.matches(&Version::parse("1.3.0")?));
    /// let err = VersionSpec::parse("=>1").unwrap_err();
    /// assert_eq!(err.to_string(), "Invalid simple block '=>1'");
    /// assert_eq!(err.python_exception(), PythonException::ValueError);
    /// # Ok::<(), murano_dsl::version::VersionError>(())
    /// ```
    pub fn parse(expression: &str) -> Result<VersionSpec, VersionError> {
        let blocks = expression
            .split(',')
            .map(parse_block)
            .collect::<Result<Vec<Clause>, VersionError>>()?;
        let clause = Clause::and_all(blocks);
        Ok(VersionSpec {
            expression: expression.to_owned(),
            clause,
        })
    }

    /// The spec's text, as Python's `str()` gives it. For a spec from
    /// [`parse_version_spec`] the parts are in sorted order (Python's order
    /// depends on its hash seed).
    pub fn expression(&self) -> &str {
        &self.expression
    }

    /// The text with its comma-separated parts sorted (the oracle's
    /// `normalized`). Duplicate parts are kept.
    pub fn normalized(&self) -> String {
        let mut parts: Vec<&str> = self.expression.split(',').collect();
        parts.sort_unstable();
        parts.join(",")
    }

    /// The parts as the library lists them (`Spec.specs`), sorted by text.
    ///
    /// A `!=` on a partial version is an OR of two ranges: alone it lists
    /// as those two ranges; next to other blocks it cannot be listed, which
    /// is an error ([`VersionError::UnlistableAlternative`], Python's
    /// `AttributeError` in Murano).
    pub fn items(&self) -> Result<Vec<SpecItem>, VersionError> {
        let mut items = match &self.clause {
            Clause::Range(range) => vec![range.item()],
            Clause::AnyOf(ranges) => ranges.iter().map(Range::item).collect(),
            Clause::AllOf(clauses) => {
                let mut items = Vec::with_capacity(clauses.len());
                for clause in clauses {
                    match clause {
                        Clause::Range(range) => items.push(range.item()),
                        _ => {
                            return Err(VersionError::UnlistableAlternative(
                                self.expression.clone(),
                            ))
                        }
                    }
                }
                items
            }
        };
        items.sort_by_cached_key(|item| (item.operator.as_str(), item.version.to_string()));
        Ok(items)
    }

    /// Whether `version` satisfies the spec (semantic-version 2.10's
    /// `Range` rules):
    ///
    /// * build metadata of `version` is ignored unless the part's version
    ///   has build metadata (then `==`/`!=` compare it exactly);
    /// * `<X` and `!=X`, X a release, reject the prereleases of X itself;
    /// * otherwise semver precedence decides.
    ///
    /// ```
    /// use murano_dsl::version::{Version, VersionSpec};
    ///
    /// let v = |s| Version::parse(s).unwrap();
    /// let below_two = VersionSpec::parse("<2.0.0")?;
    /// assert!(below_two.matches(&v("1.9.9-rc.1")));
    /// assert!(!below_two.matches(&v("2.0.0-rc.1")));
    /// assert!(VersionSpec::parse(">=1.0.0")?.matches(&v("1.1.0-beta")));
    /// assert!(VersionSpec::parse("==1.0.0")?.matches(&v("1.0.0+build.1")));
    /// assert!(!VersionSpec::parse("==1.0.0+b")?.matches(&v("1.0.0+c")));
    /// # Ok::<(), murano_dsl::version::VersionError>(())
    /// ```
    pub fn matches(&self, version: &Version) -> bool {
        self.clause.matches(version)
    }
}

impl std::str::FromStr for VersionSpec {
    type Err = VersionError;

    /// The plain library parse, as [`VersionSpec::parse`].
    fn from_str(text: &str) -> Result<VersionSpec, VersionError> {
        VersionSpec::parse(text)
    }
}

impl fmt::Display for VersionSpec {
    /// The [`normalized`](VersionSpec::normalized) text.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.normalized())
    }
}

/// Murano's `helpers.parse_version_spec` on a YAML value.
///
/// 1. A false value (null, `""`, `0`, `false`) means `"0"`; anything else
///    goes through Python's `str()`.
/// 2. All whitespace is removed; nothing left is an error (Python's
///    `IndexError`).
/// 3. A leading single `=` before a digit becomes `==`; a leading digit
///    gets `==` in front.
/// 4. The library parses the text ([`VersionSpec::parse`]); Murano then
///    rebuilds the spec from the parsed parts, AND-ing them.
///
/// Partial versions therefore widen (`1` → `>=1.0.0,<2.0.0`, `>1.2` →
/// `>=1.3.0`), and a few quirks of the reference are kept: `!=1` becomes
/// `<1.0.0,>=2.0.0` and matches nothing, a `!=` on a partial version next
/// to other parts fails, and policies set by a bare `-` or `+` are lost
/// (`<1.0.0-` becomes `<1.0.0`).
///
/// ```
/// use murano_dsl::version::{parse_version_spec, PythonException, YamlScalar};
///
/// let norm = |v: YamlScalar| parse_version_spec(&v).map(|s| s.normalized());
/// assert_eq!(norm(YamlScalar::Null)?, "<1.0.0,>=0.0.0");
/// assert_eq!(norm(" >= 1 , < 2 ".into())?, "<2.0.0,>=1.0.0");
/// assert_eq!(norm(YamlScalar::Float(1.5))?, "<1.6.0,>=1.5.0");
/// assert_eq!(norm("1.2.3-beta".into())?, "==1.2.3-beta");
/// assert_eq!(norm("!=1".into())?, "<1.0.0,>=2.0.0");
/// assert_eq!(norm(">1,<2".into())?, "<2.0.0,>=2.0.0");
/// let err = parse_version_spec(&">=1.0,<2.0,!=1.5".into()).unwrap_err();
/// assert_eq!(err.python_exception(), PythonException::AttributeError);
/// let err = parse_version_spec(&"  ".into()).unwrap_err();
/// assert_eq!(err.python_exception(), PythonException::IndexError);
/// # Ok::<(), murano_dsl::version::VersionError>(())
/// ```
pub fn parse_version_spec(value: &YamlScalar) -> Result<VersionSpec, VersionError> {
    let text = if value.is_truthy() {
        value.python_str()
    } else {
        "0".to_owned()
    };
    let mut spec: String = text.chars().filter(|c| !pychar::is_space(*c)).collect();
    if let Some(rest) = spec.strip_prefix('=') {
        if rest
            .chars()
            .next()
            .is_some_and(|c| pychar::decimal_value(c).is_some())
        {
            spec.insert(0, '=');
        }
    }
    let first = spec.chars().next().ok_or(VersionError::EmptySpec)?;
    if pychar::is_digit(first) {
        spec.insert_str(0, "==");
    }
    let parsed = VersionSpec::parse(&spec)?;
    normalize(&parsed)
}

/// Murano's `normalize_version_spec`: every part of the library spec (all
/// have full versions in semantic-version 2.10) printed and parsed again
/// as one AND.
fn normalize(spec: &VersionSpec) -> Result<VersionSpec, VersionError> {
    let parts: Vec<String> = spec.items()?.iter().map(SpecItem::to_string).collect();
    if parts.is_empty() {
        return VersionSpec::parse("*");
    }
    VersionSpec::parse(&parts.join(","))
}

/// The pieces of a block that matches the library's `NAIVE_SPEC`.
struct BlockShape<'a> {
    prefix: &'a str,
    /// `None` for `*`.
    major: Option<VersionNumber>,
    /// `None` when absent or `*`.
    minor: Option<VersionNumber>,
    /// `None` when absent or `*`.
    patch: Option<VersionNumber>,
    prerelease: Option<&'a str>,
    build: Option<&'a str>,
}

/// Matches a block against
/// `^(<|<=||=|==|>=|>|!=|\^|~|~=)(N)(\.(N)(\.(N))?)?(-[a-zA-Z0-9.-]*)?(\+[a-zA-Z0-9.-]*)?$`
/// with `N = \*|0|[1-9][0-9]*` (`$` also before a final newline).
fn block_shape(block: &str) -> Option<BlockShape<'_>> {
    let body = block.strip_suffix('\n').unwrap_or(block);
    let number_start = body.find(|c: char| c.is_ascii_digit() || c == '*')?;
    let prefix = &body[..number_start];
    if !matches!(
        prefix,
        "<" | "<=" | "" | "=" | "==" | ">=" | ">" | "!=" | "^" | "~" | "~="
    ) {
        return None;
    }
    let mut rest = &body[number_start..];
    let mut numbers: Vec<Option<VersionNumber>> = Vec::with_capacity(3);
    loop {
        let (number, after) = take_number(rest)?;
        numbers.push(number);
        rest = after;
        if numbers.len() == 3 {
            break;
        }
        match rest.strip_prefix('.') {
            Some(after_dot) => rest = after_dot,
            None => break,
        }
    }
    let identifier_run = |s: &str| {
        s.find(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '-'))
            .unwrap_or(s.len())
    };
    let mut prerelease = None;
    if let Some(after) = rest.strip_prefix('-') {
        let run = identifier_run(after);
        prerelease = Some(&after[..run]);
        rest = &after[run..];
    }
    let mut build = None;
    if let Some(after) = rest.strip_prefix('+') {
        let run = identifier_run(after);
        build = Some(&after[..run]);
        rest = &after[run..];
    }
    if !rest.is_empty() {
        return None;
    }
    let mut numbers = numbers.into_iter();
    let major = numbers.next()?;
    Some(BlockShape {
        prefix,
        major,
        minor: numbers.next().flatten(),
        patch: numbers.next().flatten(),
        prerelease,
        build,
    })
}

/// `\*|0|[1-9][0-9]*` at the start of `text`: the number (`None` for `*`)
/// and what follows. A digit right after the number can never match the
/// rest of the pattern, so it fails here.
fn take_number(text: &str) -> Option<(Option<VersionNumber>, &str)> {
    if let Some(rest) = text.strip_prefix('*') {
        return Some((None, rest));
    }
    let run = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    if run == 0 || (run > 1 && text.starts_with('0')) {
        return None;
    }
    let number = VersionNumber::from_python_digits(&text[..run])?;
    Some((Some(number), &text[run..]))
}

/// The library's `SimpleSpec.Parser.parse_block`.
fn parse_block(block: &str) -> Result<Clause, VersionError> {
    let shape = block_shape(block).ok_or_else(|| VersionError::InvalidSimpleBlock(block.into()))?;
    let invalid = || VersionError::InvalidSimpleSpec(block.to_owned());
    let prefix = match shape.prefix {
        "" | "=" => "==",
        other => other,
    };
    let zero = VersionNumber::zero;
    let target = match (&shape.major, &shape.minor, &shape.patch) {
        (None, _, _) => {
            if prefix != "==" && prefix != ">=" {
                return Err(invalid());
            }
            Version::release(zero(), zero(), zero())
        }
        (Some(major), None, _) => Version::release(major.clone(), zero(), zero()),
        (Some(major), Some(minor), None) => Version::release(major.clone(), minor.clone(), zero()),
        (Some(major), Some(minor), Some(patch)) => Version::from_parts(
            major.clone(),
            minor.clone(),
            patch.clone(),
            shape.prerelease.unwrap_or(""),
            shape.build.unwrap_or(""),
        )?,
    };
    let partial = shape.major.is_none() || shape.minor.is_none() || shape.patch.is_none();
    let has_extra = shape.prerelease.is_some_and(|p| !p.is_empty())
        || shape.build.is_some_and(|b| !b.is_empty());
    if partial && has_extra {
        return Err(invalid());
    }
    if shape.build.is_some() && prefix != "==" && prefix != "!=" {
        return Err(invalid());
    }
    // How many numbers the block gave: 1 (major only), 2, or 3 (full).
    let has_minor = shape.minor.is_some();
    let has_patch = shape.patch.is_some();
    let range = |operator, target: Version| Clause::Range(Range::new(operator, target));
    let clause = match prefix {
        "^" => {
            let high = if !target.major().is_zero() {
                target.next_major()
            } else if !target.minor().is_zero() {
                target.next_minor()
            } else {
                target.next_patch()
            };
            Clause::and_ranges(
                Range::new(Operator::Ge, target),
                Range::new(Operator::Lt, high),
            )
        }
        "~" => {
            let high = if has_minor {
                target.next_minor()
            } else {
                target.next_major()
            };
            Clause::and_ranges(
                Range::new(Operator::Ge, target),
                Range::new(Operator::Lt, high),
            )
        }
        "~=" => {
            let high = if has_minor && has_patch {
                target.next_minor()
            } else {
                target.next_major()
            };
            Clause::and_ranges(
                Range::new(Operator::Ge, target),
                Range::new(Operator::Lt, high),
            )
        }
        "==" => {
            if shape.major.is_none() {
                range(Operator::Ge, target)
            } else if !has_minor {
                let high = target.next_major();
                Clause::and_ranges(
                    Range::new(Operator::Ge, target),
                    Range::new(Operator::Lt, high),
                )
            } else if !has_patch {
                let high = target.next_minor();
                Clause::and_ranges(
                    Range::new(Operator::Ge, target),
                    Range::new(Operator::Lt, high),
                )
            } else if shape.build == Some("") {
                Clause::Range(Range::new(Operator::Eq, target).build_strict())
            } else {
                range(Operator::Eq, target)
            }
        }
        "!=" => {
            if !has_minor || !has_patch {
                // `!=1` is `<1.0.0 OR >=2.0.0`.
                let high = if has_minor {
                    target.next_minor()
                } else {
                    target.next_major()
                };
                Clause::AnyOf(vec![
                    Range::new(Operator::Lt, target),
                    Range::new(Operator::Ge, high),
                ])
            } else if shape.prerelease == Some("") {
                Clause::Range(Range::new(Operator::Ne, target).prerelease_always())
            } else if shape.build == Some("") {
                Clause::Range(Range::new(Operator::Ne, target).build_strict())
            } else {
                range(Operator::Ne, target)
            }
        }
        ">" => {
            if !has_minor {
                range(Operator::Ge, target.next_major())
            } else if !has_patch {
                range(Operator::Ge, target.next_minor())
            } else {
                range(Operator::Gt, target)
            }
        }
        ">=" => range(Operator::Ge, target),
        "<" => {
            if shape.prerelease == Some("") {
                Clause::Range(Range::new(Operator::Lt, target).prerelease_always())
            } else {
                range(Operator::Lt, target)
            }
        }
        "<=" => {
            if !has_minor {
                range(Operator::Lt, target.next_major())
            } else if !has_patch {
                range(Operator::Lt, target.next_minor())
            } else {
                range(Operator::Le, target)
            }
        }
        _ => return Err(VersionError::InvalidSimpleBlock(block.to_owned())),
    };
    Ok(clause)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(text: &str) -> Result<String, VersionError> {
        parse_version_spec(&YamlScalar::from(text)).map(|s| s.normalized())
    }

    fn v(text: &str) -> Version {
        Version::parse(text).expect("valid version")
    }

    #[test]
    fn widening_table() {
        for (input, want) in [
            ("==1", "<2.0.0,>=1.0.0"),
            ("==1.2", "<1.3.0,>=1.2.0"),
            (">1", ">=2.0.0"),
            (">1.2", ">=1.3.0"),
            ("<=1", "<2.0.0"),
            ("<=1.2", "<1.3.0"),
            ("<1", "<1.0.0"),
            ("~1.2", "<1.3.0,>=1.2.0"),
            ("~1.2.3", "<1.3.0,>=1.2.3"),
            ("~=1.2", "<2.0.0,>=1.2.0"),
            ("^1.2.3", "<2.0.0,>=1.2.3"),
            ("^0.2", "<0.3.0,>=0.2.0"),
            ("^0.0.3", "<0.0.4,>=0.0.3"),
            ("^0", "<0.0.1,>=0.0.0"),
            ("^1.0.0-beta", "<1.0.0,>=1.0.0-beta"),
            ("*", ">=0.0.0"),
            ("==*", ">=0.0.0"),
            (">=*", ">=0.0.0"),
            ("=0", "<1.0.0,>=0.0.0"),
            ("1.*", "<2.0.0,>=1.0.0"),
            ("*.5", ">=0.0.0"),
            ("1.*.3", "<2.0.0,>=1.0.0"),
            ("1-", "<2.0.0,>=1.0.0"),
        ] {
            assert_eq!(norm(input).as_deref(), Ok(want), "{input}");
        }
    }

    #[test]
    fn quirks_of_the_reference() {
        assert_eq!(norm("!=1").unwrap(), "<1.0.0,>=2.0.0");
        assert_eq!(norm("!=1.2").unwrap(), "<1.2.0,>=1.3.0");
        assert_eq!(norm(">1,<2").unwrap(), "<2.0.0,>=2.0.0");
        assert_eq!(norm("<1.0.0-").unwrap(), "<1.0.0");
        assert_eq!(norm("==1.0.0+").unwrap(), "==1.0.0");
        // Distinct ranges that print the same keep both texts.
        assert_eq!(norm("<1.0.0-,<1").unwrap(), "<1.0.0,<1.0.0");
        let spec = parse_version_spec(&"<1.0.0-,<1".into()).unwrap();
        assert_eq!(spec.items().unwrap().len(), 1);
        for input in [">=1.0,<2.0,!=1.5", "!=1.5,>=1", "!=1,!=2", "!=1,!=1"] {
            assert!(
                matches!(
                    parse_version_spec(&input.into()),
                    Err(VersionError::UnlistableAlternative(_))
                ),
                "{input}"
            );
        }
        for spec in ["!=1", ">1,<2"] {
            let spec = parse_version_spec(&spec.into()).unwrap();
            for version in ["0.5.0", "1.0.0", "1.5.0", "2.0.0", "3.0.0"] {
                assert!(!spec.matches(&v(version)));
            }
        }
    }

    #[test]
    fn falsy_values_and_str() {
        for value in [
            YamlScalar::Null,
            YamlScalar::Bool(false),
            YamlScalar::from(""),
            YamlScalar::from(0i64),
            YamlScalar::Float(0.0),
        ] {
            let spec = parse_version_spec(&value).unwrap();
            assert_eq!(spec.normalized(), "<1.0.0,>=0.0.0", "{value:?}");
        }
        assert!(matches!(
            parse_version_spec(&YamlScalar::Bool(true)),
            Err(VersionError::InvalidSimpleBlock(b)) if b == "True"
        ));
        assert_eq!(
            parse_version_spec(&YamlScalar::from(10i64))
                .unwrap()
                .normalized(),
            "<11.0.0,>=10.0.0"
        );
        assert!(matches!(
            parse_version_spec(&" \t\u{3000}".into()),
            Err(VersionError::EmptySpec)
        ));
        // Python's isdigit() is true for '²' (prefix added), and `\d` for
        // Arabic-Indic digits, but the spec syntax wants ASCII digits.
        assert!(matches!(
            parse_version_spec(&"\u{b2}".into()),
            Err(VersionError::InvalidSimpleBlock(b)) if b == "==\u{b2}"
        ));
        assert!(matches!(
            parse_version_spec(&"=\u{663}".into()),
            Err(VersionError::InvalidSimpleBlock(b)) if b == "==\u{663}"
        ));
    }

    #[test]
    fn invalid_blocks() {
        for (input, block) in [
            ("1.x", "==1.x"),
            ("1.2.3.4", "==1.2.3.4"),
            ("01", "==01"),
            ("1.01", "==1.01"),
            (",", ""),
            ("=>1", "=>1"),
            (">>1", ">>1"),
            ("x", "x"),
            ("1.", "==1."),
            ("1+a+b", "==1+a+b"),
        ] {
            assert_eq!(
                norm(input),
                Err(VersionError::InvalidSimpleBlock(block.to_owned())),
                "{input}"
            );
        }
        for input in [">=1.0.0+b", "~1.2.3+", "<*", "1-beta", "1.2+b", "!=*"] {
            assert!(
                matches!(norm(input), Err(VersionError::InvalidSimpleSpec(_))),
                "{input}"
            );
        }
        assert!(matches!(
            norm("1.2.3-01"),
            Err(VersionError::LeadingZeroInIdentifier(_))
        ));
        assert!(matches!(
            norm("1.2.3-a..b"),
            Err(VersionError::EmptyIdentifier { .. })
        ));
    }

    #[test]
    fn matching_rules() {
        let spec = |s: &str| VersionSpec::parse(s).unwrap();
        // `<X` rejects prereleases of X only when X is a release.
        assert!(!spec("<1.2.3").matches(&v("1.2.3-beta")));
        assert!(spec("<1.2.3").matches(&v("1.2.2-beta")));
        assert!(spec("<1.2.3-rc").matches(&v("1.2.3-beta")));
        // ... unless the block ended with a bare `-` (policy 'always').
        assert!(spec("<1.2.3-").matches(&v("1.2.3-beta")));
        // `!=` has the same exclusion.
        assert!(!spec("!=1.2.3").matches(&v("1.2.3-beta")));
        assert!(spec("!=1.2.3-").matches(&v("1.2.3-beta")));
        assert!(!spec("!=1.2.3").matches(&v("1.2.3+b")));
        assert!(spec("!=1.2.3+").matches(&v("1.2.3+b")));
        assert!(spec("!=1.2.3+a").matches(&v("1.2.3+b")));
        assert!(!spec("!=1.2.3+a").matches(&v("1.2.3+a")));
        // Build metadata: ignored unless the spec names some.
        assert!(spec("==1.0.0").matches(&v("1.0.0+build.1")));
        assert!(!spec("==1.0.0+").matches(&v("1.0.0+build.1")));
        assert!(spec("==1.0.0+build.1").matches(&v("1.0.0+build.1")));
        assert!(spec(">=1.0.0").matches(&v("1.1.0-beta")));
        assert!(spec(">=1.2.3-beta").matches(&v("1.2.3-beta")));
        assert!(spec(">1.2.3").matches(&v("1.2.4-0")));
        // The plain `==1` of a package's own requirements.
        let own = spec("==1");
        assert!(own.matches(&v("1.99.99")));
        assert!(!own.matches(&v("1.0.0-0")));
        assert!(!own.matches(&v("2.0.0-0")));
        // A plain `!=1` is an OR in the library.
        assert!(spec("!=1").matches(&v("0.5.0")));
        assert!(spec("!=1").matches(&v("2.0.0")));
        assert!(!spec("!=1").matches(&v("1.5.0")));
    }

    #[test]
    fn set_semantics_of_and() {
        // The first of two equal ranges stays; the build policy is not
        // part of equality.
        let strict_first = VersionSpec::parse("==1.0.0+,==1.0.0").unwrap();
        assert!(!strict_first.matches(&v("1.0.0+b")));
        let implicit_first = VersionSpec::parse("==1.0.0,==1.0.0+").unwrap();
        assert!(implicit_first.matches(&v("1.0.0+b")));
        assert_eq!(implicit_first.items().unwrap().len(), 1);
        assert_eq!(implicit_first.normalized(), "==1.0.0,==1.0.0+");
    }

    #[test]
    fn trailing_newline_in_plain_specs() {
        let spec = VersionSpec::parse("==1\n").unwrap();
        assert!(spec.matches(&v("1.2.0")));
        assert_eq!(spec.expression(), "==1\n");
        assert!(VersionSpec::parse("==1\n\n").is_err());
    }

    #[test]
    fn huge_numbers() {
        assert_eq!(
            norm("99999999999999999999").unwrap(),
            "<100000000000000000000.0.0,>=99999999999999999999.0.0"
        );
    }
}
