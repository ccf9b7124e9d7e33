//! math module: arithmetic on Python numbers.

use crate::eval::context::Library;
use crate::eval::error::{Error, ErrorKind};
use crate::eval::func::{Call, FunctionDef};
use crate::eval::value::Value;

pub(crate) fn overflow() -> Error {
    Error::new(
        ErrorKind::Overflow,
        "integer result does not fit in 64 bits",
    )
}

fn zero_div(msg: &str) -> Error {
    Error::new(ErrorKind::ZeroDivision, msg)
}

fn f(v: &Value) -> f64 {
    match v {
        Value::Int(n) => *n as f64,
        Value::Float(x) => *x,
        Value::Bool(b) => f64::from(u8::from(*b)),
        _ => 0.0,
    }
}

/// Python float `%`.
pub(crate) fn py_fmod(a: f64, b: f64) -> f64 {
    let mut r = a % b;
    if r != 0.0 && ((r < 0.0) != (b < 0.0)) {
        r += b;
    } else if r == 0.0 {
        r = 0.0f64.copysign(b);
    }
    r
}

/// Python int `//`.
pub(crate) fn floor_div(a: i64, b: i64) -> Result<i64, Error> {
    if b == 0 {
        return Err(zero_div("integer division or modulo by zero"));
    }
    let q = a.checked_div(b).ok_or_else(overflow)?;
    if (a % b != 0) && ((a < 0) != (b < 0)) {
        Ok(q - 1)
    } else {
        Ok(q)
    }
}

/// Python int `%`.
pub(crate) fn py_mod(a: i64, b: i64) -> Result<i64, Error> {
    if b == 0 {
        return Err(zero_div("integer division or modulo by zero"));
    }
    let r = a.checked_rem(b).unwrap_or(0);
    Ok(if r != 0 && ((r < 0) != (b < 0)) {
        r + b
    } else {
        r
    })
}

fn arith(op: &str, a: &Value, b: &Value) -> Result<Value, Error> {
    if let (Value::Int(x), Value::Int(y)) = (a, b) {
        let (x, y) = (*x, *y);
        return Ok(Value::Int(match op {
            "+" => x.checked_add(y).ok_or_else(overflow)?,
            "-" => x.checked_sub(y).ok_or_else(overflow)?,
            "*" => x.checked_mul(y).ok_or_else(overflow)?,
            "/" => floor_div(x, y)?,
            _ => py_mod(x, y)?,
        }));
    }
    let (x, y) = (f(a), f(b));
    Ok(Value::Float(match op {
        "+" => x + y,
        "-" => x - y,
        "*" => x * y,
        "/" => {
            if y == 0.0 {
                return Err(zero_div("float division by zero"));
            }
            x / y
        }
        _ => {
            if y == 0.0 {
                return Err(zero_div("float modulo"));
            }
            py_fmod(x, y)
        }
    }))
}

fn binary(name: &str, op: &'static str) -> FunctionDef {
    FunctionDef::native(name, "left, right", move |c| {
        let (a, b) = (c.number(0)?, c.number(1)?);
        arith(op, a, b)
    })
}

fn ints(c: &Call<'_>) -> Result<(i64, i64), Error> {
    Ok((c.int(0)?, c.int(1)?))
}

/// Python's `round(x, n)` for floats: round half to even on the exact
/// decimal value.
pub(crate) fn py_round(x: f64, nd: i64) -> f64 {
    if !x.is_finite() {
        return x;
    }
    if nd >= 0 {
        let nd = nd.min(300) as usize;
        format!("{x:.nd$}").parse().unwrap_or(x)
    } else {
        let p = 10f64.powi((-nd).min(300) as i32);
        let y = x / p;
        let r = y.round();
        let r = if (y - y.trunc()).abs() == 0.5 && r % 2.0 != 0.0 {
            r - y.signum()
        } else {
            r
        };
        r * p
    }
}

pub(crate) fn parse_py_int(s: &str) -> Result<i64, Error> {
    crate::pyint::parse(s).map_err(|e| match e {
        crate::pyint::IntError::Invalid => Error::new(
            ErrorKind::ValueError,
            format!(
                "invalid literal for int() with base 10: {}",
                Value::str(s).repr()
            ),
        ),
        crate::pyint::IntError::Overflow => Error::new(
            ErrorKind::Overflow,
            format!("int() of {} does not fit in 64 bits", Value::str(s).repr()),
        ),
        crate::pyint::IntError::TooManyDigits(digits) => Error::new(
            ErrorKind::ValueError,
            crate::pyint::too_many_digits_message(digits),
        ),
    })
}

pub(crate) fn parse_py_float(s: &str) -> Result<f64, Error> {
    let t = s.trim().to_ascii_lowercase();
    let r = match t.as_str() {
        "inf" | "+inf" | "infinity" | "+infinity" => Some(f64::INFINITY),
        "-inf" | "-infinity" => Some(f64::NEG_INFINITY),
        "nan" | "+nan" | "-nan" => Some(f64::NAN),
        _ => t.parse::<f64>().ok(),
    };
    r.ok_or_else(|| {
        Error::new(
            ErrorKind::ValueError,
            format!(
                "could not convert string to float: {}",
                Value::str(s).repr()
            ),
        )
    })
}

/// Registers the math functions.
pub(crate) fn register(lib: &mut Library) {
    lib.register(binary("#operator_+", "+"));
    lib.register(binary("#operator_-", "-"));
    lib.register(binary("#operator_*", "*"));
    lib.register(binary("#operator_/", "/"));
    lib.register(binary("#operator_mod", "%"));
    lib.register(FunctionDef::native("#unary_operator_+", "op", |c| {
        Ok(c.number(0)?.clone())
    }));
    lib.register(FunctionDef::native("#unary_operator_-", "op", |c| {
        Ok(match c.number(0)? {
            Value::Int(n) => Value::Int(n.checked_neg().ok_or_else(overflow)?),
            v => Value::Float(-f(v)),
        })
    }));
    lib.register(FunctionDef::native("abs", "op", |c| {
        Ok(match c.number(0)? {
            Value::Int(n) => Value::Int(n.checked_abs().ok_or_else(overflow)?),
            v => Value::Float(f(v).abs()),
        })
    }));
    lib.register(FunctionDef::native("int", "value", |c| {
        Ok(Value::Int(match c.opt(0)?.unwrap_or(&Value::Null) {
            Value::Null => 0,
            Value::Int(n) => *n,
            Value::Bool(b) => i64::from(*b),
            Value::Float(x) => {
                if !x.is_finite() {
                    return Err(Error::new(
                        if x.is_nan() { ErrorKind::ValueError } else { ErrorKind::Overflow },
                        "cannot convert float to integer",
                    ));
                }
                let t = x.trunc();
                if t.abs() >= 9.2e18 {
                    return Err(overflow());
                }
                t as i64
            }
            Value::Str(s) => parse_py_int(s)?,
            v => {
                return Err(Error::new(
                    ErrorKind::TypeError,
                    format!(
                        "int() argument must be a string, a bytes-like object or a real number, not '{}'",
                        v.type_name()
                    ),
                ))
            }
        }))
    }));
    lib.register(FunctionDef::native("float", "value", |c| {
        Ok(Value::Float(match c.opt(0)?.unwrap_or(&Value::Null) {
            Value::Null => 0.0,
            Value::Str(s) => parse_py_float(s)?,
            v @ (Value::Int(_) | Value::Float(_) | Value::Bool(_)) => f(v),
            v => {
                return Err(Error::new(
                    ErrorKind::TypeError,
                    format!(
                        "float() argument must be a string or a real number, not '{}'",
                        v.type_name()
                    ),
                ))
            }
        }))
    }));
    lib.register(FunctionDef::native("random", "", |_| {
        Ok(Value::Float(pseudo_random()))
    }));
    lib.register(FunctionDef::native("random", "from, to", |c| {
        let (a, b) = ints(c)?;
        if b < a {
            return Err(Error::new(
                ErrorKind::ValueError,
                "empty range for randrange()",
            ));
        }
        let span = (b - a) as f64 + 1.0;
        Ok(Value::Int(a + (pseudo_random() * span) as i64))
    }));
    lib.register(FunctionDef::native("bitwiseAnd", "left, right", |c| {
        let (a, b) = ints(c)?;
        Ok(Value::Int(a & b))
    }));
    lib.register(FunctionDef::native("bitwiseOr", "left, right", |c| {
        let (a, b) = ints(c)?;
        Ok(Value::Int(a | b))
    }));
    lib.register(FunctionDef::native("bitwiseXor", "left, right", |c| {
        let (a, b) = ints(c)?;
        Ok(Value::Int(a ^ b))
    }));
    lib.register(FunctionDef::native("bitwiseNot", "arg", |c| {
        Ok(Value::Int(!c.int(0)?))
    }));
    lib.register(FunctionDef::native(
        "shiftBitsRight",
        "value, bitsNumber",
        |c| {
            let (a, b) = ints(c)?;
            if b < 0 {
                return Err(Error::new(ErrorKind::ValueError, "negative shift count"));
            }
            Ok(Value::Int(if b >= 64 {
                if a < 0 {
                    -1
                } else {
                    0
                }
            } else {
                a >> b
            }))
        },
    ));
    lib.register(FunctionDef::native(
        "shiftBitsLeft",
        "value, bitsNumber",
        |c| {
            let (a, b) = ints(c)?;
            if b < 0 {
                return Err(Error::new(ErrorKind::ValueError, "negative shift count"));
            }
            if a == 0 {
                return Ok(Value::Int(0));
            }
            if b >= 63 || (a.unsigned_abs().leading_zeros() as i64) <= b {
                return Err(overflow());
            }
            Ok(Value::Int(a << b))
        },
    ));
    lib.register(FunctionDef::native("max", "a, b", |c| {
        let (a, b) = (
            c.opt(0)?.unwrap_or(&Value::Null),
            c.opt(1)?.unwrap_or(&Value::Null),
        );
        let gt = c.call_function("#operator_>", vec![b.clone(), a.clone()])?;
        Ok(if gt.truthy() { b.clone() } else { a.clone() })
    }));
    lib.register(FunctionDef::native("min", "a, b", |c| {
        let (a, b) = (c.value(0)?, c.value(1)?);
        let gt = c.call_function("#operator_>", vec![b.clone(), a.clone()])?;
        Ok(if gt.truthy() { a.clone() } else { b.clone() })
    }));
    lib.register(FunctionDef::native("pow", "a, b, c=", |c| {
        let (a, b) = (c.number(0)?, c.number(1)?);
        let m = match c.opt(2)? {
            None | Some(Value::Null) => None,
            Some(v) if v.is_number() => Some(v),
            Some(_) => return Err(Error::mismatch()),
        };
        match (a, b, m) {
            (Value::Int(x), Value::Int(y), Some(Value::Int(m))) => {
                if *m == 0 {
                    return Err(Error::new(
                        ErrorKind::ValueError,
                        "pow() 3rd argument cannot be 0",
                    ));
                }
                if *y < 0 {
                    return Err(Error::new(
                        ErrorKind::ValueError,
                        "base is not invertible for the given modulus",
                    ));
                }
                let m128 = i128::from(*m);
                let mut base = i128::from(*x).rem_euclid(m128);
                let mut e = *y;
                let mut acc: i128 = 1 % m128;
                while e > 0 {
                    if e & 1 == 1 {
                        acc = (acc * base).rem_euclid(m128);
                    }
                    base = (base * base).rem_euclid(m128);
                    e >>= 1;
                }
                let mut r = acc;
                if r != 0 && (r < 0) != (m128 < 0) {
                    r += m128;
                }
                Ok(Value::Int(r as i64))
            }
            (_, _, Some(_)) => Err(Error::new(
                ErrorKind::TypeError,
                "pow() 3rd argument not allowed unless all arguments are integers",
            )),
            (Value::Int(x), Value::Int(y), None) if *y >= 0 => {
                let e = u32::try_from(*y).map_err(|_| overflow())?;
                Ok(Value::Int(x.checked_pow(e).ok_or_else(overflow)?))
            }
            (Value::Int(x), Value::Int(y), None) => {
                if *x == 0 {
                    return Err(zero_div("0.0 cannot be raised to a negative power"));
                }
                Ok(Value::Float((*x as f64).powf(*y as f64)))
            }
            (a, b, None) => {
                let (x, y) = (f(a), f(b));
                if x == 0.0 && y < 0.0 {
                    return Err(zero_div("0.0 cannot be raised to a negative power"));
                }
                Ok(Value::Float(x.powf(y)))
            }
        }
    }));
    lib.register(FunctionDef::native("sign", "num", |c| {
        let x = f(c.number(0)?);
        Ok(Value::Int(if x > 0.0 {
            1
        } else if x < 0.0 {
            -1
        } else {
            0
        }))
    }));
    lib.register(FunctionDef::native("round", "number, ndigits=", |c| {
        let n = c.number(0)?;
        let nd = c.int_or(1, 0)?;
        Ok(match n {
            Value::Int(x) => {
                if nd >= 0 {
                    Value::Int(*x)
                } else {
                    let p = 10i64.checked_pow((-nd) as u32).unwrap_or(i64::MAX);
                    let q = floor_div(*x, p)?;
                    let r = x - q * p;
                    let twice = r * 2;
                    let q = if twice > p || (twice == p && q % 2 != 0) {
                        q + 1
                    } else {
                        q
                    };
                    Value::Int(q.checked_mul(p).ok_or_else(overflow)?)
                }
            }
            v => Value::Float(py_round(f(v), nd)),
        })
    }));
    lib.register(FunctionDef::native("isInteger", "value", |c| {
        Ok(Value::Bool(matches!(c.opt(0)?, Some(Value::Int(_)))))
    }));
    lib.register(FunctionDef::native("isNumber", "value", |c| {
        Ok(Value::Bool(c.opt(0)?.is_some_and(Value::is_number)))
    }));
}

/// A pseudo-random float in `[0, 1)`, seeded from the clock.
fn pseudo_random() -> f64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static STATE: AtomicU64 = AtomicU64::new(0);
    let mut s = STATE.load(Ordering::Relaxed);
    if s == 0 {
        s = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0x1234_5678)
            | 1;
    }
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    STATE.store(s, Ordering::Relaxed);
    (s >> 11) as f64 / (1u64 << 53) as f64
}
