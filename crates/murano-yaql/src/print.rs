//! Printing trees: yaql's canonical form (`Display`) and source text
//! ([`Expr::to_source`]).

use std::fmt::{self, Write as _};

use crate::ast::{Constant, Expr, ExprKind, Expression, Number};

impl fmt::Display for Expr {
    /// yaql's canonical tree notation: every call-like node as
    /// `name(arg, …)` with yaql's internal function names, strings quoted as
    /// JSON, floats as Python's `repr`, `(x)` as `#wrap(x)`, keyword
    /// arguments as `#mapping_rule(k, v)` and skipped ones as `#no_value`.
    ///
    /// ```
    /// let e = murano_yaql::Grammar::standard().parse("f(, 'x', k => 1.50)")?;
    /// assert_eq!(e.to_string(), r#"f(#no_value, "x", #mapping_rule(k, 1.5))"#);
    /// # Ok::<(), murano_yaql::ParseError>(())
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ExprKind::Constant(c) => write_constant(f, c),
            ExprKind::Keyword(name) | ExprKind::Variable(name) => f.write_str(name),
            ExprKind::Call { name, args } => call(f, name, None, args),
            ExprKind::CallValue { callee, args } => call(f, "#call", Some(callee), args),
            ExprKind::Binary { op, operands } => call(f, op.function(), None, &operands[..]),
            ExprKind::Unary { op, operand, .. } => call(f, op.function(), Some(operand), &[]),
            ExprKind::Index { target, args } => call(f, "#indexer", Some(target), args),
            ExprKind::List(args) => call(f, "#list", None, args),
            ExprKind::Map(args) => call(f, "#map", None, args),
            ExprKind::Wrap(inner) => call(f, "#wrap", Some(inner), &[]),
            ExprKind::MappingRule {
                source,
                destination,
            } => write!(f, "#mapping_rule({source}, {destination})"),
            ExprKind::NoValue => f.write_str("#no_value"),
        }
    }
}

impl fmt::Display for Expression {
    /// The root in yaql's canonical notation.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.root.fmt(f)
    }
}

fn call(f: &mut fmt::Formatter<'_>, name: &str, head: Option<&Expr>, args: &[Expr]) -> fmt::Result {
    f.write_str(name)?;
    f.write_char('(')?;
    let mut first = true;
    for arg in head.into_iter().chain(args) {
        if !first {
            f.write_str(", ")?;
        }
        first = false;
        write!(f, "{arg}")?;
    }
    f.write_char(')')
}

fn write_constant(f: &mut fmt::Formatter<'_>, c: &Constant) -> fmt::Result {
    match c {
        Constant::Null => f.write_str("null"),
        Constant::Bool(true) => f.write_str("true"),
        Constant::Bool(false) => f.write_str("false"),
        Constant::Number(Number::Int(n)) => write!(f, "{n}"),
        Constant::Number(Number::BigInt(digits)) => {
            f.write_str(if digits.is_empty() { "0" } else { digits })
        }
        Constant::Number(Number::Float(x)) => f.write_str(&python_float_repr(*x)),
        Constant::String(s) => write_json_string(f, s),
    }
}

/// A string as Python's `json.dumps(s, ensure_ascii=False)` writes it.
pub(crate) fn write_json_string(out: &mut impl fmt::Write, s: &str) -> fmt::Result {
    out.write_char('"')?;
    for c in s.chars() {
        match c {
            '"' => out.write_str("\\\"")?,
            '\\' => out.write_str("\\\\")?,
            '\n' => out.write_str("\\n")?,
            '\r' => out.write_str("\\r")?,
            '\t' => out.write_str("\\t")?,
            '\u{8}' => out.write_str("\\b")?,
            '\u{c}' => out.write_str("\\f")?,
            c if (c as u32) < 0x20 => write!(out, "\\u{:04x}", c as u32)?,
            c => out.write_char(c)?,
        }
    }
    out.write_char('"')
}

/// Python's `repr()` of a float: the shortest digits that read back to
/// the same value, in positional form for exponents -4 to 15 (with a
/// trailing `.0` when integral) and `1.5e+16` form otherwise.
pub fn python_float_repr(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    // `{:e}` gives the shortest round-trip digits: "-1.2345e-7".
    let sci = format!("{x:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let mut out = String::from(sign);
    if (-4..16).contains(&exp) {
        if exp >= 0 {
            let int_len = exp as usize + 1;
            if digits.len() <= int_len {
                out.push_str(&digits);
                out.extend(std::iter::repeat_n('0', int_len - digits.len()));
                out.push_str(".0");
            } else {
                out.push_str(&digits[..int_len]);
                out.push('.');
                out.push_str(&digits[int_len..]);
            }
        } else {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-exp - 1) as usize));
            out.push_str(&digits);
        }
    } else {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let _ = write!(out, "e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs());
    }
    out
}

impl Expr {
    /// yaql source text that parses back to this tree (spans aside), given
    /// the grammar that produced it. Parentheses appear only where the
    /// tree has [`ExprKind::Wrap`] nodes, so a tree built by hand may need
    /// them to read back the same.
    ///
    /// ```
    /// use murano_yaql::Grammar;
    ///
    /// let g = Grammar::standard();
    /// let tree = g.parse("$.where($ > 3)")?;
    /// let again = g.parse(&tree.root().to_source())?;
    /// assert!(again.root().same_tree(tree.root()));
    /// # Ok::<(), murano_yaql::ParseError>(())
    /// ```
    pub fn to_source(&self) -> String {
        let mut out = String::new();
        self.write_source(&mut out);
        out
    }

    fn write_source(&self, out: &mut String) {
        match &self.kind {
            ExprKind::Constant(Constant::String(s)) => {
                out.push('\'');
                for c in s.chars() {
                    if c == '\\' || c == '\'' {
                        out.push('\\');
                    }
                    out.push(c);
                }
                out.push('\'');
            }
            ExprKind::Constant(Constant::Number(Number::Float(x))) if x.is_infinite() => {
                // A literal too large for a float reads as infinity (as
                // Python's `float()` does); print one that reads back so.
                if *x < 0.0 {
                    out.push('-');
                }
                out.push('1');
                out.extend(std::iter::repeat_n('0', 309));
                out.push_str(".0");
            }
            ExprKind::Constant(Constant::Number(Number::Float(x))) => {
                // yaql numbers have no exponent form; `{}` never uses one.
                let text = format!("{x}");
                out.push_str(&text);
                if !text.contains('.') {
                    out.push_str(".0");
                }
            }
            ExprKind::Constant(c) => {
                let _ = write!(out, "{}", DisplayConstant(c));
            }
            ExprKind::Keyword(name) | ExprKind::Variable(name) => out.push_str(name),
            ExprKind::Call { name, args } => {
                out.push_str(name);
                out.push('(');
                write_args(out, args);
                out.push(')');
            }
            ExprKind::CallValue { callee, args } => {
                callee.write_source(out);
                // The space keeps `foo (1)` from reading as `foo(1)`.
                out.push_str(" (");
                write_args(out, args);
                out.push(')');
            }
            ExprKind::Binary { op, operands } => {
                operands[0].write_source(out);
                out.push(' ');
                out.push_str(op.symbol());
                out.push(' ');
                operands[1].write_source(out);
            }
            ExprKind::Unary {
                op,
                suffix,
                operand,
            } => {
                if *suffix {
                    operand.write_source(out);
                    out.push(' ');
                    out.push_str(op.symbol());
                } else {
                    out.push_str(op.symbol());
                    out.push(' ');
                    operand.write_source(out);
                }
            }
            ExprKind::Index { target, args } => {
                target.write_source(out);
                out.push('[');
                write_args(out, args);
                out.push(']');
            }
            ExprKind::List(args) => {
                out.push('[');
                write_args(out, args);
                out.push(']');
            }
            ExprKind::Map(args) => {
                out.push('{');
                write_args(out, args);
                out.push('}');
            }
            ExprKind::Wrap(inner) => {
                out.push('(');
                inner.write_source(out);
                out.push(')');
            }
            ExprKind::MappingRule {
                source,
                destination,
            } => {
                source.write_source(out);
                out.push_str(" => ");
                destination.write_source(out);
            }
            ExprKind::NoValue => {}
        }
    }
}

fn write_args(out: &mut String, args: &[Expr]) {
    for (i, arg) in args.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        arg.write_source(out);
    }
}

struct DisplayConstant<'a>(&'a Constant);

impl fmt::Display for DisplayConstant<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_constant(f, self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_repr_matches_python() {
        let cases = [
            (5.0, "5.0"),
            (12.4, "12.4"),
            (0.1, "0.1"),
            (1e16, "1e+16"),
            (1.5e16, "1.5e+16"),
            (123456789012345.6, "123456789012345.6"),
            (1234567890123456.7, "1234567890123456.8"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (12345678901234567890.5, "1.2345678901234567e+19"),
            (0.0, "0.0"),
            (-2.5, "-2.5"),
        ];
        for (x, want) in cases {
            assert_eq!(python_float_repr(x), want, "{x}");
        }
    }

    #[test]
    fn overflowing_float_literals_print_as_source_that_reads_back() {
        // Found by the yaql_parse fuzz target: a literal beyond f64::MAX
        // is infinity, and printed as `inf.0` it no longer parsed.
        let grammar = crate::Grammar::standard();
        let source = format!("1 = {}9.5", "9".repeat(400));
        let tree = grammar.parse(&source).unwrap();
        let printed = tree.root().to_source();
        let again = grammar.parse(&printed).unwrap();
        assert!(again.root().same_tree(tree.root()), "{printed}");
    }

    #[test]
    fn json_strings_match_python() {
        let mut s = String::new();
        write_json_string(&mut s, "a\"b\\c\n\u{1}é\u{7f}").unwrap();
        assert_eq!(s, "\"a\\\"b\\\\c\\n\\u0001é\u{7f}\"");
    }
}
