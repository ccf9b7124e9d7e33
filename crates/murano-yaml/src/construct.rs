//! Values from nodes: PyYAML's safe constructor, Murano's `!yaql`, and
//! Python's dict semantics for keys.

use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use crate::compose::{RawKind, RawNode, Span, Tag};
use crate::error::{Mark, YamlError, YamlErrorClass};
use crate::py_text;
use crate::value::{Date, Int, Node, Timestamp, Value, YaqlScalar};
use crate::Flavor;

pub(crate) struct Constructor<'a> {
    nodes: &'a mut Vec<RawNode>,
    items: &'a [usize],
    pairs: &'a mut Vec<(usize, usize)>,
    flavor: Flavor,
    in_progress: Vec<bool>,
    budget: usize,
    max_nodes: usize,
    /// Keys written twice in one mapping (Python keeps the last value):
    /// the key's text, where the first one is and where the second one is.
    pub(crate) duplicates: Vec<(String, Mark, Mark)>,
}

type KResult<T> = Result<T, YamlError>;

fn constructor_error(context: Option<(&str, Mark)>, problem: String, mark: Mark) -> YamlError {
    let err = YamlError::new(YamlErrorClass::Constructor, problem, Some(mark));
    match context {
        Some((c, m)) => err.with_context(c, Some(m)),
        None => err,
    }
}

fn kind_id(kind: &RawKind) -> &'static str {
    match kind {
        RawKind::Scalar(_) | RawKind::Expression => "scalar",
        RawKind::Seq(_) => "sequence",
        RawKind::Map(_) => "mapping",
    }
}

impl<'a> Constructor<'a> {
    pub(crate) fn new(
        (nodes, items, pairs): (
            &'a mut Vec<RawNode>,
            &'a [usize],
            &'a mut Vec<(usize, usize)>,
        ),
        flavor: Flavor,
        max_nodes: usize,
    ) -> Self {
        let count = nodes.len();
        Constructor {
            nodes,
            items,
            pairs,
            flavor,
            in_progress: vec![false; count],
            budget: max_nodes,
            max_nodes,
            duplicates: Vec::new(),
        }
    }

    fn spend(&mut self, mark: Mark) -> KResult<()> {
        if self.budget == 0 {
            return Err(YamlError::new(
                YamlErrorClass::Limit,
                format!(
                    "document expands to more than {} values (aliases)",
                    self.max_nodes
                ),
                Some(mark),
            ));
        }
        self.budget -= 1;
        Ok(())
    }

    pub(crate) fn construct(&mut self, id: usize) -> KResult<Node> {
        let (start, end) = (self.nodes[id].start, self.nodes[id].end);
        self.spend(start)?;
        if self.in_progress[id] {
            return Ok(Node {
                value: Value::Recursive,
                start,
                end,
            });
        }
        let tag = self.nodes[id].tag.clone();
        let value = match &tag {
            Tag::Seq => self.collection(id, |c, id| c.sequence(id))?,
            Tag::Map => self.collection(id, |c, id| Ok(Value::Map(c.mapping(id)?)))?,
            Tag::Yaql if self.flavor.has_yaql() => self.yaql(id)?,
            Tag::Str => Value::Str(self.scalar(id)?),
            Tag::Null => {
                self.scalar(id)?;
                Value::Null
            }
            Tag::Bool => {
                let text = self.scalar(id)?;
                match text.to_lowercase().as_str() {
                    "yes" | "true" | "on" => Value::Bool(true),
                    "no" | "false" | "off" => Value::Bool(false),
                    _ => {
                        return Err(YamlError::new(
                            YamlErrorClass::Value,
                            format!("KeyError: {}", py_text::repr(&text.to_lowercase())),
                            Some(start),
                        ))
                    }
                }
            }
            Tag::Int => Value::Int(construct_int(&self.scalar(id)?, start)?),
            Tag::Float => Value::Float(construct_float(&self.scalar(id)?, start)?),
            Tag::Timestamp => construct_timestamp(&self.scalar(id)?, start)?,
            Tag::Other(name) if name == "tag:yaml.org,2002:set" => {
                self.collection(id, |c, id| {
                    Ok(Value::Set(
                        c.mapping(id)?.into_iter().map(|(k, _)| k).collect(),
                    ))
                })?
            }
            Tag::Other(name)
                if name == "tag:yaml.org,2002:omap" || name == "tag:yaml.org,2002:pairs" =>
            {
                self.collection(id, |c, id| c.pairs(id))?
            }
            Tag::Other(name) if name == "tag:yaml.org,2002:binary" => {
                Value::Binary(construct_binary(&self.scalar(id)?, start)?)
            }
            _ => {
                return Err(constructor_error(
                    None,
                    format!(
                        "could not determine a constructor for the tag {}",
                        py_text::repr(tag.as_str())
                    ),
                    start,
                ))
            }
        };
        Ok(Node { value, start, end })
    }

    fn collection(
        &mut self,
        id: usize,
        build: impl FnOnce(&mut Self, usize) -> KResult<Value>,
    ) -> KResult<Value> {
        self.in_progress[id] = true;
        let result = build(self, id);
        self.in_progress[id] = false;
        result
    }

    /// The text of a scalar node; for a mapping, the value of its `=` key
    /// (PyYAML's `construct_scalar` in the safe constructor). The text of a
    /// node no alias can reach again is moved out, not copied.
    fn scalar(&mut self, id: usize) -> KResult<String> {
        let shared = self.nodes[id].shared;
        let span = match &mut self.nodes[id].kind {
            RawKind::Scalar(text) if shared => return Ok(text.clone()),
            RawKind::Scalar(text) => return Ok(std::mem::take(text)),
            // `parsed` is only ever taken by `yaql`, from a node nothing
            // reads again.
            RawKind::Expression => {
                return Ok(self.nodes[id]
                    .parsed
                    .as_ref()
                    .map_or_else(String::new, |e| e.source().to_owned()))
            }
            RawKind::Seq(_) => return Err(self.expected(id, "a scalar")),
            RawKind::Map(span) => *span,
        };
        match self
            .pairs_of(span)
            .iter()
            .find(|(k, _)| self.nodes[*k].tag == Tag::Value)
            .map(|(_, v)| *v)
        {
            Some(v) => self.scalar(v),
            None => Err(self.expected(id, "a scalar")),
        }
    }

    fn expected(&self, id: usize, what: &str) -> YamlError {
        let node = &self.nodes[id];
        constructor_error(
            None,
            format!("expected {what} node, but found {}", kind_id(&node.kind)),
            node.start,
        )
    }

    fn yaql(&mut self, id: usize) -> KResult<Value> {
        let parsed = if self.nodes[id].shared {
            self.nodes[id].parsed.clone()
        } else {
            self.nodes[id].parsed.take()
        };
        let expression = match parsed {
            Some(parsed) => parsed,
            None => Arc::new(self.flavor.parse_expression(&self.scalar(id)?)?),
        };
        Ok(Value::Yaql(YaqlScalar {
            expression,
            node_id: id,
        }))
    }

    fn items_of(&self, span: Span) -> &[usize] {
        self.items.get(span.range()).unwrap_or(&[])
    }

    fn pairs_of(&self, span: Span) -> &[(usize, usize)] {
        self.pairs.get(span.range()).unwrap_or(&[])
    }

    fn sequence(&mut self, id: usize) -> KResult<Value> {
        let RawKind::Seq(span) = self.nodes[id].kind else {
            return Err(self.expected(id, "a sequence"));
        };
        let mut out = Vec::with_capacity(span.len);
        // A sequence's items never change.
        for i in 0..span.len {
            let Some(&item) = self.items_of(span).get(i) else {
                break;
            };
            out.push(self.construct(item)?);
        }
        Ok(Value::Seq(out))
    }

    fn map_pair(&self, id: usize, i: usize) -> Option<(usize, usize)> {
        match self.nodes[id].kind {
            RawKind::Map(span) => self.pairs_of(span).get(i).copied(),
            _ => None,
        }
    }

    fn pairs(&mut self, id: usize) -> KResult<Value> {
        let start = self.nodes[id].start;
        let context = "while constructing an ordered map";
        let RawKind::Seq(items) = self.nodes[id].kind else {
            return Err(constructor_error(
                Some((context, start)),
                format!(
                    "expected a sequence, but found {}",
                    kind_id(&self.nodes[id].kind)
                ),
                start,
            ));
        };
        let mut out = Vec::new();
        for i in 0..items.len {
            let Some(&item) = self.items_of(items).get(i) else {
                break;
            };
            let item_start = self.nodes[item].start;
            let RawKind::Map(pairs) = self.nodes[item].kind else {
                return Err(constructor_error(
                    Some((context, start)),
                    format!(
                        "expected a mapping of length 1, but found {}",
                        kind_id(&self.nodes[item].kind)
                    ),
                    item_start,
                ));
            };
            let (k, v) = match self.pairs_of(pairs) {
                &[pair] => pair,
                other => {
                    return Err(constructor_error(
                        Some((context, start)),
                        format!(
                            "expected a single mapping item, but found {} items",
                            other.len()
                        ),
                        item_start,
                    ))
                }
            };
            let key = self.construct(k)?;
            let value = self.construct(v)?;
            out.push((key, value));
        }
        Ok(Value::Pairs(out))
    }

    /// A mapping with merge keys flattened and keys made unique the way a
    /// Python dict makes them.
    fn mapping(&mut self, id: usize) -> KResult<Vec<(Node, Node)>> {
        if !matches!(self.nodes[id].kind, RawKind::Map(_)) {
            return Err(self.expected(id, "a mapping"));
        }
        self.flatten(id, 0)?;
        let RawKind::Map(span) = self.nodes[id].kind else {
            return Err(self.expected(id, "a mapping"));
        };
        let start = self.nodes[id].start;
        let mut out: Vec<(Node, Node)> = Vec::with_capacity(span.len);
        let mut index: HashMap<u64, Vec<usize>> = HashMap::new();
        // By index: constructing a value may flatten this node again (a
        // merge of an alias to it), which leaves its pairs as they are.
        let mut i = 0;
        while let Some((k, v)) = self.map_pair(id, i) {
            i += 1;
            let key = self.construct(k)?;
            if !is_hashable(&key.value) {
                return Err(constructor_error(
                    Some(("while constructing a mapping", start)),
                    "found unhashable key".into(),
                    key.start,
                ));
            }
            let value = self.construct(v)?;
            // Python keeps the first key and the last value. Small maps
            // scan; large ones look candidates up by a hash that agrees
            // with `same_key`, so loading stays linear.
            let existing = if out.len() < LINEAR_KEY_SCAN {
                out.iter()
                    .position(|(existing, _)| same_key(&existing.value, &key.value))
            } else {
                if index.is_empty() {
                    for (n, (k, _)) in out.iter().enumerate() {
                        index.entry(key_hash(&k.value)).or_default().push(n);
                    }
                }
                index.get(&key_hash(&key.value)).and_then(|candidates| {
                    candidates
                        .iter()
                        .copied()
                        .find(|&n| same_key(&out[n].0.value, &key.value))
                })
            };
            match existing {
                Some(n) => {
                    // Pairs merged in with `<<` come from an anchor written
                    // before this mapping; only keys written here twice
                    // are duplicates.
                    if out[n].0.start.index >= start.index && key.start.index >= start.index {
                        self.duplicates
                            .push((key.value.python_str(), out[n].0.start, key.start));
                    }
                    out[n].1 = value
                }
                None => {
                    if !index.is_empty() {
                        index
                            .entry(key_hash(&key.value))
                            .or_default()
                            .push(out.len());
                    }
                    out.push((key, value));
                }
            }
        }
        Ok(out)
    }

    /// PyYAML's `flatten_mapping`: `<<` entries are replaced by the merged
    /// mappings' entries (in front), and `=` keys become strings. Like
    /// PyYAML it rewrites the node itself (its new pairs go to the end of
    /// the pair arena).
    fn flatten(&mut self, id: usize, depth: u32) -> KResult<()> {
        if depth > 64 {
            return Err(YamlError::new(
                YamlErrorClass::Limit,
                "merge keys nested too deeply",
                Some(self.nodes[id].start),
            ));
        }
        let RawKind::Map(span) = self.nodes[id].kind else {
            return Ok(());
        };
        if !self
            .pairs_of(span)
            .iter()
            .any(|&(k, _)| matches!(self.nodes[k].tag, Tag::Merge | Tag::Value))
        {
            return Ok(());
        }
        let pairs = self.pairs_of(span).to_vec();
        let start = self.nodes[id].start;
        let context = "while constructing a mapping";
        let mut merge: Vec<(usize, usize)> = Vec::new();
        let mut kept = Vec::with_capacity(pairs.len());
        for (k, v) in pairs {
            if self.nodes[k].tag == Tag::Merge {
                match self.nodes[v].kind {
                    RawKind::Map(_) => {
                        self.flatten(v, depth + 1)?;
                        if let RawKind::Map(sub) = self.nodes[v].kind {
                            merge.extend_from_slice(self.pairs_of(sub));
                        }
                    }
                    RawKind::Seq(items) => {
                        let mut submerge = Vec::new();
                        for i in 0..items.len {
                            let Some(&sub) = self.items_of(items).get(i) else {
                                break;
                            };
                            if !matches!(self.nodes[sub].kind, RawKind::Map(_)) {
                                return Err(constructor_error(
                                    Some((context, start)),
                                    format!(
                                        "expected a mapping for merging, but found {}",
                                        kind_id(&self.nodes[sub].kind)
                                    ),
                                    self.nodes[sub].start,
                                ));
                            }
                            self.flatten(sub, depth + 1)?;
                            if let RawKind::Map(p) = self.nodes[sub].kind {
                                submerge.push(self.pairs_of(p).to_vec());
                            }
                        }
                        for p in submerge.into_iter().rev() {
                            merge.extend(p);
                        }
                    }
                    RawKind::Scalar(_) | RawKind::Expression => {
                        return Err(constructor_error(
                            Some((context, start)),
                            "expected a mapping or list of mappings for merging, but found scalar"
                                .into(),
                            self.nodes[v].start,
                        ))
                    }
                }
            } else {
                if self.nodes[k].tag == Tag::Value {
                    self.nodes[k].tag = Tag::Str;
                }
                kept.push((k, v));
            }
        }
        if !merge.is_empty() {
            merge.extend(kept);
            kept = merge;
        }
        let first = self.pairs.len();
        self.pairs.extend(kept);
        self.nodes[id].kind = RawKind::Map(Span {
            start: first,
            len: self.pairs.len() - first,
        });
        Ok(())
    }
}

/// Whether Python can use the value as a dict key.
fn is_hashable(value: &Value) -> bool {
    !matches!(
        value,
        Value::Seq(_) | Value::Map(_) | Value::Set(_) | Value::Pairs(_) | Value::Recursive
    )
}

/// Up to this many keys, duplicates are found by scanning.
const LINEAR_KEY_SCAN: usize = 16;

/// A hash of a hashable key such that keys [`same_key`] calls equal hash
/// the same (numbers by their `f64` value, timestamps with an offset by
/// their instant).
fn key_hash(value: &Value) -> u64 {
    let mut h = DefaultHasher::new();
    match value {
        Value::Null => 0u8.hash(&mut h),
        Value::Str(s) => (1u8, s).hash(&mut h),
        Value::Bool(_) | Value::Int(Int::Small(_)) | Value::Float(_) => {
            let x = match value {
                Value::Bool(b) => f64::from(u8::from(*b)),
                Value::Int(Int::Small(n)) => *n as f64,
                Value::Float(x) => *x,
                _ => 0.0,
            };
            // -0.0 == 0.0; NaN equals nothing, so any hash will do.
            let x = if x == 0.0 { 0.0 } else { x };
            (2u8, x.to_bits()).hash(&mut h)
        }
        Value::Int(Int::Big(digits)) => (3u8, digits).hash(&mut h),
        Value::Date(d) => (4u8, d.year, d.month, d.day).hash(&mut h),
        Value::Timestamp(t) => (5u8, t.offset_minutes.is_some(), utc_micros(t)).hash(&mut h),
        Value::Binary(b) => (6u8, b).hash(&mut h),
        Value::Yaql(y) => (7u8, y.node_id).hash(&mut h),
        _ => 8u8.hash(&mut h),
    }
    h.finish()
}

/// Python's `==` between two hashable keys.
pub(crate) fn same_key(a: &Value, b: &Value) -> bool {
    fn number(v: &Value) -> Option<f64> {
        match v {
            Value::Bool(b) => Some(f64::from(u8::from(*b))),
            Value::Int(Int::Small(n)) => Some(*n as f64),
            Value::Float(x) => Some(*x),
            _ => None,
        }
    }
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::Int(Int::Big(x)), Value::Int(Int::Big(y))) => x == y,
        (Value::Int(Int::Small(x)), Value::Int(Int::Small(y))) => x == y,
        (Value::Bool(x), Value::Int(Int::Small(y)))
        | (Value::Int(Int::Small(y)), Value::Bool(x)) => i64::from(*x) == *y,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Date(x), Value::Date(y)) => x == y,
        (Value::Timestamp(x), Value::Timestamp(y)) => same_instant(x, y),
        (Value::Binary(x), Value::Binary(y)) => x == y,
        (Value::Yaql(x), Value::Yaql(y)) => x.node_id == y.node_id,
        _ => match (number(a), number(b)) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        },
    }
}

fn same_instant(a: &Timestamp, b: &Timestamp) -> bool {
    match (a.offset_minutes, b.offset_minutes) {
        (None, None) => a == b,
        (Some(_), Some(_)) => utc_micros(a) == utc_micros(b),
        _ => false,
    }
}

fn utc_micros(t: &Timestamp) -> i128 {
    let days = days_from_civil(i64::from(t.date.year), t.date.month, t.date.day);
    let seconds =
        days * 86_400 + i64::from(t.hour) * 3600 + i64::from(t.minute) * 60 + i64::from(t.second)
            - i64::from(t.offset_minutes.unwrap_or(0)) * 60;
    i128::from(seconds) * 1_000_000 + i128::from(t.microsecond)
}

fn days_from_civil(y: i64, m: u8, d: u8) -> i64 {
    let (m, d) = (i64::from(m), i64::from(d));
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn value_error(message: String, mark: Mark) -> YamlError {
    YamlError::new(YamlErrorClass::Value, message, Some(mark))
}

/// Python's default limit on decimal digits (see
/// [`murano_yaql::pyint::MAX_STR_DIGITS`]).
const MAX_STR_DIGITS: usize = murano_yaql::pyint::MAX_STR_DIGITS;

/// An integer that Python would hold but refuse to print: more than
/// [`MAX_STR_DIGITS`] decimal digits, from binary, octal, hexadecimal or
/// base-60 text. Python raises this `ValueError` only when the number is
/// printed (as Murano does when it writes the object model); it is
/// raised here, at load time, so that no conversion grows without bound.
fn too_long_to_print(mark: Mark) -> YamlError {
    value_error(murano_yaql::pyint::too_long_to_print_message(), mark)
}

/// PyYAML's int constructor: underscores dropped, sign, `0b`, `0x`, a
/// leading `0` for octal, `:` for base 60. Python ints are unbounded, but
/// Python's `int()` refuses decimal text of more than [`MAX_STR_DIGITS`]
/// digits; every path here takes time linear in the text.
pub(crate) fn construct_int(text: &str, mark: Mark) -> KResult<Int> {
    if let Some(n) = small_decimal(text) {
        return Ok(Int::Small(n));
    }
    let cleaned: String = text.chars().filter(|&c| c != '_').collect();
    let (negative, body) = match cleaned.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, cleaned.strip_prefix('+').unwrap_or(&cleaned)),
    };
    let invalid = || {
        value_error(
            format!("invalid literal for int(): {}", py_text::repr(text)),
            mark,
        )
    };
    if cleaned.is_empty() {
        return Err(value_error(
            "IndexError: string index out of range".into(),
            mark,
        ));
    }
    let magnitude = if body == "0" {
        BigUint::zero()
    } else if let Some(bits) = body.strip_prefix("0b") {
        BigUint::parse_binary(bits, 2, mark).ok_or_else(invalid)??
    } else if let Some(hex) = body.strip_prefix("0x") {
        BigUint::parse_binary(hex, 16, mark).ok_or_else(invalid)??
    } else if body.starts_with('0') {
        BigUint::parse_binary(body, 8, mark).ok_or_else(invalid)??
    } else if body.contains(':') {
        let mut total = BigUint::zero();
        for part in body.split(':') {
            let digit = BigUint::parse_decimal(part.trim(), mark).ok_or_else(invalid)??;
            total = total.mul_small(60).add(&digit);
            if total.decimal_digits() > MAX_STR_DIGITS {
                return Err(too_long_to_print(mark));
            }
        }
        total
    } else {
        BigUint::parse_decimal(body.trim(), mark).ok_or_else(invalid)??
    };
    if magnitude.decimal_digits() > MAX_STR_DIGITS {
        return Err(too_long_to_print(mark));
    }
    Ok(magnitude.into_int(negative))
}

/// The common case, plain decimal digits with an optional sign and no
/// leading zero, read without the general path's copies; `None` sends
/// anything else (octal, `_`, base 60, long numbers) down that path.
fn small_decimal(text: &str) -> Option<i64> {
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text).as_bytes();
    let plain = matches!(digits, [b'0'] | [b'1'..=b'9', ..])
        && digits.len() <= 18
        && digits.iter().all(u8::is_ascii_digit);
    if !plain {
        return None;
    }
    let magnitude = digits
        .iter()
        .fold(0i64, |n, d| n * 10 + i64::from(d - b'0'));
    Some(if text.starts_with('-') {
        -magnitude
    } else {
        magnitude
    })
}

/// PyYAML's float constructor.
pub(crate) fn construct_float(text: &str, mark: Mark) -> KResult<f64> {
    let cleaned: String = text
        .chars()
        .filter(|&c| c != '_')
        .collect::<String>()
        .to_lowercase();
    let (sign, body) = match cleaned.strip_prefix('-') {
        Some(rest) => (-1.0, rest),
        None => (1.0, cleaned.strip_prefix('+').unwrap_or(&cleaned)),
    };
    let invalid = || {
        value_error(
            format!("could not convert string to float: {}", py_text::repr(text)),
            mark,
        )
    };
    if cleaned.is_empty() {
        return Err(value_error(
            "IndexError: string index out of range".into(),
            mark,
        ));
    }
    if body == ".inf" {
        return Ok(sign * f64::INFINITY);
    }
    if body == ".nan" {
        return Ok(f64::NAN);
    }
    if body.contains(':') {
        let mut total = 0.0;
        for part in body.split(':') {
            total = total * 60.0 + part.trim().parse::<f64>().map_err(|_| invalid())?;
        }
        return Ok(sign * total);
    }
    let trimmed = body.trim();
    if trimmed.is_empty() || trimmed.contains(|c: char| c.is_ascii_alphabetic() && c != 'e') {
        return Err(invalid());
    }
    trimmed
        .parse::<f64>()
        .map(|x| sign * x)
        .map_err(|_| invalid())
}

pub(crate) fn construct_timestamp(text: &str, mark: Mark) -> KResult<Value> {
    let bad = || value_error(format!("invalid timestamp {}", py_text::repr(text)), mark);
    let t = text.trim_end_matches('\n');
    let (year, month, day, rest) = if let Some((year, month, day)) = ymd(t) {
        (year, month, day, None)
    } else {
        let (date_part, rest) = match t.find(['T', 't', ' ', '\t']) {
            Some(i) => (&t[..i], Some(&t[i..])),
            None => (t, None),
        };
        let mut fields = date_part.split('-');
        let year: u16 = fields.next().and_then(|s| s.parse().ok()).ok_or_else(bad)?;
        let month: u8 = fields.next().and_then(|s| s.parse().ok()).ok_or_else(bad)?;
        let day: u8 = fields.next().and_then(|s| s.parse().ok()).ok_or_else(bad)?;
        (year, month, day, rest)
    };
    if year == 0 || !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
        return Err(value_error(
            "ValueError: day is out of range for month".into(),
            mark,
        ));
    }
    let date = Date { year, month, day };
    let Some(rest) = rest else {
        return Ok(Value::Date(date));
    };
    let rest = rest.trim_start_matches(['T', 't', ' ', '\t']);
    let time_end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == ':' || c == '.'))
        .unwrap_or(rest.len());
    let (time, zone) = rest.split_at(time_end);
    let (hms, fraction) = match time.split_once('.') {
        Some((hms, f)) => (hms, f),
        None => (time, ""),
    };
    let mut hms = hms.split(':').map(|s| s.parse::<u8>().ok());
    let hour = hms.next().flatten().ok_or_else(bad)?;
    let minute = hms.next().flatten().ok_or_else(bad)?;
    let second = hms.next().flatten().ok_or_else(bad)?;
    if hour > 23 || minute > 59 || second > 59 {
        return Err(value_error(
            "ValueError: time field out of range".into(),
            mark,
        ));
    }
    let mut micro: String = fraction.chars().take(6).collect();
    while micro.len() < 6 {
        micro.push('0');
    }
    let microsecond: u32 = micro.parse().unwrap_or(0);
    let zone = zone.trim_start_matches([' ', '\t']);
    let offset_minutes = if zone.is_empty() {
        None
    } else if zone == "Z" {
        Some(0)
    } else {
        let sign = if zone.starts_with('-') { -1 } else { 1 };
        let body = &zone[1..];
        let (h, m) = body.split_once(':').unwrap_or((body, "0"));
        let h: i32 = h.parse().map_err(|_| bad())?;
        let m: i32 = m.parse().map_err(|_| bad())?;
        let total = h * 60 + m;
        if total >= 24 * 60 {
            return Err(value_error(
                "ValueError: offset must be a timedelta strictly between -timedelta(hours=24) and timedelta(hours=24)".into(),
                mark,
            ));
        }
        Some(sign * total)
    };
    Ok(Value::Timestamp(Timestamp {
        date,
        hour,
        minute,
        second,
        microsecond,
        offset_minutes,
    }))
}

/// Year, month and day of a timestamp of exactly the form `YYYY-MM-DD`
/// (Heat's version dates, and most timestamps), read without the general
/// parse.
pub(crate) fn ymd(text: &str) -> Option<(u16, u8, u8)> {
    let b = text.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let digit = |i: usize| b[i].is_ascii_digit().then(|| b[i] - b'0');
    let year = [0, 1, 2, 3]
        .into_iter()
        .try_fold(0u16, |n, i| Some(n * 10 + u16::from(digit(i)?)))?;
    let month = digit(5)? * 10 + digit(6)?;
    let day = digit(8)? * 10 + digit(9)?;
    Some((year, month, day))
}

fn days_in_month(year: u16, month: u8) -> u8 {
    match month {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Python's lenient `base64.decodebytes` ([`crate::base64::decode`]).
fn construct_binary(text: &str, mark: Mark) -> KResult<Vec<u8>> {
    crate::base64::decode(text).map_err(|e| {
        let message = match e {
            crate::base64::DecodeError::NotAscii => {
                "failed to convert base64 data into ascii".into()
            }
            _ => format!("failed to decode base64 data: {e}"),
        };
        constructor_error(None, message, mark)
    })
}

/// Just enough unbounded unsigned arithmetic for YAML integers: base
/// 2/8/10/16 digits and base-60 groups, kept as base-1e9 limbs.
struct BigUint(Vec<u32>);

impl BigUint {
    fn zero() -> BigUint {
        BigUint(Vec::new())
    }

    /// Base-10 digits as Python's `int()` reads them: `None` when they are
    /// not digits, the `ValueError` of Python's limit when there are more
    /// than [`MAX_STR_DIGITS`] of them (Python counts the leading run of
    /// digits, and refuses it before it looks at what follows).
    fn parse_decimal(digits: &str, mark: Mark) -> Option<KResult<BigUint>> {
        let run = digits.bytes().take_while(u8::is_ascii_digit).count();
        if run > MAX_STR_DIGITS {
            let message = murano_yaql::pyint::too_many_digits_message(run);
            return Some(Err(value_error(message, mark)));
        }
        if digits.is_empty() || run != digits.len() {
            return None;
        }
        Some(Ok(BigUint::from_chunks(digits, 10)))
    }

    /// Digits in a base that is a power of two, which Python converts in
    /// linear time and without a limit: `None` when they are not digits,
    /// the `ValueError` of [`too_long_to_print`] when the number has more
    /// than [`MAX_STR_DIGITS`] decimal digits.
    fn parse_binary(digits: &str, radix: u32, mark: Mark) -> Option<KResult<BigUint>> {
        if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
            return None;
        }
        let significant = digits.trim_start_matches('0');
        let bits_per_digit = radix.trailing_zeros() as usize;
        // 2^14297 has 4304 decimal digits: more significant bits than
        // that cannot be printed, fewer are converted and measured.
        if significant.len().saturating_mul(bits_per_digit) > 14_300 {
            return Some(Err(too_long_to_print(mark)));
        }
        Some(Ok(BigUint::from_chunks(significant, radix)))
    }

    /// Valid ASCII digits of `radix` (at most 16), read a few at a time:
    /// quadratic in the length, which the callers bound.
    fn from_chunks(digits: &str, radix: u32) -> BigUint {
        let mut per_chunk = 1;
        while u64::from(radix).pow(per_chunk + 1) <= 1_000_000_000 {
            per_chunk += 1;
        }
        let mut n = BigUint::zero();
        for chunk in digits.as_bytes().chunks(per_chunk as usize) {
            let mut value = 0u32;
            for &b in chunk {
                value = value * radix + char::from(b).to_digit(radix).unwrap_or(0);
            }
            n = n
                .mul_small(radix.pow(chunk.len() as u32))
                .add(&BigUint(vec![value]));
        }
        n
    }

    /// How many decimal digits the number has (1 for zero).
    fn decimal_digits(&self) -> usize {
        match self.0.iter().rposition(|&limb| limb != 0) {
            None => 1,
            Some(top) => top * 9 + self.0[top].to_string().len(),
        }
    }

    fn mul_small(mut self, m: u32) -> BigUint {
        let mut carry: u64 = 0;
        for limb in &mut self.0 {
            let v = u64::from(*limb) * u64::from(m) + carry;
            *limb = (v % 1_000_000_000) as u32;
            carry = v / 1_000_000_000;
        }
        while carry > 0 {
            self.0.push((carry % 1_000_000_000) as u32);
            carry /= 1_000_000_000;
        }
        self
    }

    fn add(mut self, other: &BigUint) -> BigUint {
        let mut carry = 0u64;
        for i in 0..self.0.len().max(other.0.len()) {
            if i == self.0.len() {
                self.0.push(0);
            }
            let v = u64::from(self.0[i]) + u64::from(other.0.get(i).copied().unwrap_or(0)) + carry;
            self.0[i] = (v % 1_000_000_000) as u32;
            carry = v / 1_000_000_000;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
        self
    }

    fn into_int(self, negative: bool) -> Int {
        let mut text = String::new();
        for (i, limb) in self.0.iter().rev().enumerate() {
            if i == 0 {
                text.push_str(&limb.to_string());
            } else {
                text.push_str(&format!("{limb:09}"));
            }
        }
        if text.is_empty() {
            text.push('0');
        }
        let signed = if negative && text != "0" {
            format!("-{text}")
        } else {
            text
        };
        match signed.parse::<i64>() {
            Ok(n) => Int::Small(n),
            Err(_) => Int::Big(signed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(s: &str) -> Int {
        construct_int(s, Mark::default()).unwrap()
    }

    #[test]
    fn yaml_11_integers() {
        assert_eq!(int("0x1F"), Int::Small(31));
        assert_eq!(int("0b101"), Int::Small(5));
        assert_eq!(int("017"), Int::Small(15));
        assert_eq!(int("1_000"), Int::Small(1000));
        assert_eq!(int("12:30"), Int::Small(750));
        assert_eq!(int("-0"), Int::Small(0));
        assert_eq!(int("+12"), Int::Small(12));
        assert_eq!(int("-42"), Int::Small(-42));
        assert_eq!(
            int("999999999999999999"),
            Int::Small(999_999_999_999_999_999)
        );
        assert_eq!(int("9223372036854775807"), Int::Small(i64::MAX));
        assert_eq!(int("-9223372036854775808"), Int::Small(i64::MIN));
        assert_eq!(
            int("9223372036854775808"),
            Int::Big("9223372036854775808".into())
        );
        assert_eq!(
            int("123456789012345678901234567890"),
            Int::Big("123456789012345678901234567890".into())
        );
        assert_eq!(
            int("-0x10000000000000000"),
            Int::Big("-18446744073709551616".into())
        );
    }

    /// Python's `int()` refuses more than 4300 decimal digits with a
    /// `ValueError`; the other bases are refused when the number could
    /// not be printed. Every path is linear: a million digits end at once.
    #[test]
    fn integers_past_pythons_digit_limit_are_value_errors() {
        let limit = MAX_STR_DIGITS;
        let err = |s: &str| construct_int(s, Mark::default()).unwrap_err();
        let nines = "9".repeat(limit);
        assert_eq!(int(&nines), Int::Big(nines.clone()));
        assert_eq!(int(&format!("-{nines}")), Int::Big(format!("-{nines}")));
        let e = err(&format!("{nines}9"));
        assert_eq!(e.class(), YamlErrorClass::Value);
        assert!(e.problem().contains("value has 4301 digits"), "{e}");
        // Underscores do not count; junk after a long run does not save it.
        assert!(matches!(
            int(&format!("{nines}_9").replacen("9", "", 1)),
            Int::Big(_)
        ));
        assert!(err(&format!("{nines}9x"))
            .problem()
            .contains("value has 4301"));
        assert!(err(&"1".repeat(1_000_000))
            .problem()
            .contains("1000000 digits"));
        // Base 60: each part is an int(); the total is bounded as well.
        assert!(err(&format!("1:{nines}9"))
            .problem()
            .contains("4301 digits"));
        let sexagesimal = format!("1{}", ":59".repeat(1_000_000));
        assert!(err(&sexagesimal)
            .problem()
            .contains("integer string conversion;"));
        // Power-of-two bases have no digit limit in Python, but the number
        // must still fit the decimal text it will be printed as.
        let hex = format!("0x{}1", "0".repeat(1_000_000));
        assert_eq!(int(&hex), Int::Small(1));
        assert!(err(&format!("0x{}", "f".repeat(1_000_000)))
            .problem()
            .contains("integer string conversion;"));
        assert!(err(&format!("0b1{}", "0".repeat(14_299)))
            .problem()
            .contains("conversion;"));
        let fits = int(&format!("0b1{}", "0".repeat(14_000)));
        let Int::Big(digits) = fits else { panic!() };
        assert_eq!(digits.len(), 4215);
        assert!(digits.starts_with("2629"));
        assert!(matches!(
            int(&format!("0{}", "7".repeat(4000))),
            Int::Big(_)
        ));
        assert!(err(&format!("0{}", "7".repeat(4800)))
            .problem()
            .contains("conversion;"));
    }

    /// Keys written twice in one mapping are recorded; keys merged in with
    /// `<<` and overridden are not duplicates.
    #[test]
    fn duplicate_keys_are_recorded_but_merges_are_not() {
        let text = b"base: &b {a: 1, b: 2}\nm:\n  <<: *b\n  a: 3\nn: {x: 1, x: 2, 1: a, 1.0: b}\nbase: again\n";
        let found = crate::duplicate_keys(text, crate::Flavor::Plain, &Default::default()).unwrap();
        let keys: Vec<(&str, u32)> = found.iter().map(|(k, m)| (k.as_str(), m.line)).collect();
        assert_eq!(keys, [("x", 4), ("1.0", 4), ("base", 5)]);
    }

    /// Past the scan threshold keys are found by hash: the same Python
    /// merging (`1`, `1.0`, `true` are one key; first key, last value).
    #[test]
    fn large_maps_merge_keys_as_python() {
        let mut text = String::new();
        for i in 0..40 {
            text.push_str(&format!("k{i}: {i}\n"));
        }
        text.push_str("1: a\nk3: again\n1.0: b\ntrue: c\n-0.0: z\n0: zero\n2015-01-02: d\n");
        text.push_str("2001-12-14t21:59:43.10-05:00: e\n2001-12-15 2:59:43.10: f\n");
        let node = crate::load_single(
            text.as_bytes(),
            crate::Flavor::Plain,
            &crate::LoadOptions::default(),
        )
        .unwrap()
        .unwrap();
        let Value::Map(pairs) = &node.value else {
            panic!("not a map: {node:?}");
        };
        let get = |k: &Value| {
            pairs
                .iter()
                .find(|(key, _)| same_key(&key.value, k))
                .map(|(key, v)| (key.value.clone(), v.value.python_str()))
        };
        assert_eq!(pairs.len(), 40 + 5);
        assert_eq!(get(&Value::Str("k3".into())).unwrap().1, "again");
        let one = get(&Value::Int(Int::Small(1))).unwrap();
        assert_eq!(one, (Value::Int(Int::Small(1)), "c".into()));
        let zero = get(&Value::Float(0.0)).unwrap();
        assert_eq!(zero, (Value::Float(-0.0), "zero".into()));
    }

    #[test]
    fn base64_is_lenient_about_white_space() {
        assert_eq!(
            construct_binary("aGVs\nbG8=", Mark::default()).unwrap(),
            b"hello"
        );
        assert!(construct_binary("aGVsb", Mark::default()).is_err());
    }
}
