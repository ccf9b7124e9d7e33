//! datetime module: aware datetimes and timespans.

use crate::eval::context::Library;
use crate::eval::error::{Error, ErrorKind};
use crate::eval::func::FunctionDef;
use crate::eval::value::calendar::{civil_from_days, days_from_civil, fields};
use crate::eval::value::{DateTime, Value};

#[allow(clippy::too_many_arguments)]
fn dt_of(
    y: i64,
    mo: u32,
    d: u32,
    h: i64,
    mi: i64,
    s: i64,
    us: i64,
    offset: i32,
) -> Result<DateTime, Error> {
    let bad = |what: &str| Error::new(ErrorKind::ValueError, format!("{what} is out of range"));
    if !(1..=9999).contains(&y) {
        return Err(bad("year"));
    }
    if !(1..=12).contains(&mo) {
        return Err(Error::new(ErrorKind::ValueError, "month must be in 1..12"));
    }
    let dim = days_from_civil(
        if mo == 12 { y + 1 } else { y },
        if mo == 12 { 1 } else { mo + 1 },
        1,
    ) - days_from_civil(y, mo, 1);
    if d < 1 || i64::from(d) > dim {
        return Err(Error::new(
            ErrorKind::ValueError,
            "day is out of range for month",
        ));
    }
    if !(0..24).contains(&h)
        || !(0..60).contains(&mi)
        || !(0..60).contains(&s)
        || !(0..1_000_000).contains(&us)
    {
        return Err(bad("time field"));
    }
    let local = ((days_from_civil(y, mo, d) * 24 + h) * 60 + mi) * 60 + s;
    Ok(DateTime {
        micros: (local - i64::from(offset)) * 1_000_000 + us,
        offset,
    })
}

const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];
const DAYS: [&str; 7] = [
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];

fn parse_err(s: &str) -> Error {
    Error::new(ErrorKind::ValueError, format!("Unknown string format: {s}"))
}

/// A lenient ISO 8601 reader (dates like `2015-8-29` or `20080903`, an
/// optional time with fraction, `Z` or an offset); naive results are UTC.
pub(crate) fn parse_iso(s: &str) -> Result<DateTime, Error> {
    let t = s.trim();
    let (date, time) = match t.find(['T', ' ']) {
        Some(i) => (&t[..i], Some(&t[i + 1..])),
        None => (t, None),
    };
    let nums: Vec<&str> = date.split('-').collect();
    let (y, mo, d) = if nums.len() == 3 {
        (
            nums[0].parse::<i64>().ok(),
            nums[1].parse::<u32>().ok(),
            nums[2].parse::<u32>().ok(),
        )
    } else if date.len() == 8 && date.bytes().all(|b| b.is_ascii_digit()) {
        (
            date[0..4].parse().ok(),
            date[4..6].parse().ok(),
            date[6..8].parse().ok(),
        )
    } else {
        (None, None, None)
    };
    let (Some(y), Some(mo), Some(d)) = (y, mo, d) else {
        return Err(parse_err(s));
    };
    let (mut h, mut mi, mut sec, mut us, mut offset) = (0, 0, 0, 0, 0i32);
    if let Some(time) = time {
        let (clock, tz) = match time.find(['Z', 'z', '+', '-']) {
            Some(i) => (&time[..i], Some(&time[i..])),
            None => (time, None),
        };
        let (hms, frac) = match clock.split_once('.') {
            Some((a, b)) => (a, Some(b)),
            None => (clock, None),
        };
        let parts: Vec<i64> = hms
            .split(':')
            .map(|p| p.parse::<i64>().map_err(|_| parse_err(s)))
            .collect::<Result<_, _>>()?;
        h = *parts.first().unwrap_or(&0);
        mi = *parts.get(1).unwrap_or(&0);
        sec = *parts.get(2).unwrap_or(&0);
        if let Some(f) = frac {
            let digits: String = f.chars().take(6).collect();
            us = format!("{digits:0<6}")
                .parse::<i64>()
                .map_err(|_| parse_err(s))?;
        }
        if let Some(tz) = tz {
            if !tz.eq_ignore_ascii_case("z") {
                let sign = if tz.starts_with('-') { -1 } else { 1 };
                let body = tz[1..].replace(':', "");
                let oh: i32 = body
                    .get(0..2)
                    .and_then(|x| x.parse().ok())
                    .ok_or_else(|| parse_err(s))?;
                let om: i32 = body.get(2..4).and_then(|x| x.parse().ok()).unwrap_or(0);
                offset = sign * (oh * 3600 + om * 60);
            }
        }
    }
    dt_of(y, mo, d, h, mi, sec, us, offset)
}

/// A subset of Python's `strptime` directives.
pub(crate) fn strptime(s: &str, fmt: &str) -> Result<DateTime, Error> {
    let err = || {
        Error::new(
            ErrorKind::ValueError,
            format!("time data {s:?} does not match format {fmt:?}"),
        )
    };
    let (mut y, mut mo, mut d, mut h, mut mi, mut sec, mut us, mut pm, mut offset) =
        (1900i64, 1u32, 1u32, 0i64, 0i64, 0i64, 0i64, None, 0i32);
    let src: Vec<char> = s.chars().collect();
    let mut i = 0;
    let mut f = fmt.chars();
    let num = |i: &mut usize, max: usize| -> Result<i64, Error> {
        let start = *i;
        while *i < src.len() && *i - start < max && src[*i].is_ascii_digit() {
            *i += 1;
        }
        src[start..*i]
            .iter()
            .collect::<String>()
            .parse()
            .map_err(|_| err())
    };
    let word = |i: &mut usize, names: &[&str]| -> Result<usize, Error> {
        let rest: String = src[*i..].iter().collect::<String>().to_lowercase();
        for (n, name) in names.iter().enumerate() {
            for cand in [*name, &name[..3]] {
                if rest.starts_with(cand) {
                    *i += cand.chars().count();
                    return Ok(n);
                }
            }
        }
        Err(err())
    };
    while let Some(c) = f.next() {
        if c != '%' {
            if src.get(i) != Some(&c) {
                if c.is_whitespace() {
                    while src.get(i).is_some_and(|x| x.is_whitespace()) {
                        i += 1;
                    }
                    continue;
                }
                return Err(err());
            }
            i += 1;
            continue;
        }
        match f.next().ok_or_else(err)? {
            'Y' => y = num(&mut i, 4)?,
            'y' => {
                let v = num(&mut i, 2)?;
                y = if v < 69 { 2000 + v } else { 1900 + v };
            }
            'm' => mo = num(&mut i, 2)? as u32,
            'd' => d = num(&mut i, 2)? as u32,
            'H' | 'I' => h = num(&mut i, 2)?,
            'M' => mi = num(&mut i, 2)?,
            'S' => sec = num(&mut i, 2)?,
            'f' => {
                let start = i;
                let v = num(&mut i, 6)?;
                us = v * 10i64.pow(6 - (i - start) as u32);
            }
            'p' => {
                let rest: String = src[i..].iter().take(2).collect::<String>().to_lowercase();
                pm = Some(rest == "pm");
                if rest != "am" && rest != "pm" {
                    return Err(err());
                }
                i += 2;
            }
            'B' | 'b' => mo = word(&mut i, &MONTHS)? as u32 + 1,
            'A' | 'a' => {
                word(&mut i, &DAYS)?;
            }
            'z' => {
                let sign = match src.get(i) {
                    Some('-') => -1,
                    Some('+') => 1,
                    _ => return Err(err()),
                };
                i += 1;
                let hh = num(&mut i, 2)? as i32;
                if src.get(i) == Some(&':') {
                    i += 1;
                }
                let mm = num(&mut i, 2)? as i32;
                offset = sign * (hh * 3600 + mm * 60);
            }
            '%' => {
                if src.get(i) != Some(&'%') {
                    return Err(err());
                }
                i += 1;
            }
            _ => return Err(err()),
        }
    }
    if i != src.len() {
        return Err(err());
    }
    if let Some(pm) = pm {
        h %= 12;
        if pm {
            h += 12;
        }
    }
    dt_of(y, mo, d, h, mi, sec, us, offset)
}

fn ts_arg(v: &Value) -> Result<i64, Error> {
    match v {
        Value::TimeSpan(t) => Ok(*t),
        _ => Err(Error::mismatch()),
    }
}

fn dt_arg(v: &Value) -> Result<DateTime, Error> {
    match v {
        Value::DateTime(d) => Ok(*d),
        _ => Err(Error::mismatch()),
    }
}

fn round_half_even(x: f64) -> f64 {
    let r = x.round();
    if (x - x.trunc()).abs() == 0.5 && r % 2.0 != 0.0 {
        r - x.signum()
    } else {
        r
    }
}

fn micros_of(x: f64) -> Result<Value, Error> {
    if !x.is_finite() || x.abs() > 8.64e19 {
        return Err(Error::new(ErrorKind::Overflow, "timedelta out of range"));
    }
    Ok(Value::TimeSpan(round_half_even(x) as i64))
}

fn now_micros() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_micros() as i64)
        .unwrap_or(0)
}

/// Registers the datetime functions.
pub(crate) fn register(lib: &mut Library) {
    lib.register(FunctionDef::native(
        "datetime",
        "year, month, day, hour=, minute=, second=, microsecond=, offset=",
        |c| {
            let g = |i: usize, d: i64| c.opt(i).map(|v| v.and_then(Value::as_int).unwrap_or(d));
            let (y, mo, d) = (c.int(0)?, c.int(1)?, c.int(2)?);
            let offset = match c.opt(7)? {
                None | Some(Value::Null) => 0,
                Some(v) => (ts_arg(v)? / 1_000_000) as i32,
            };
            dt_of(
                y,
                mo.clamp(0, 99) as u32,
                d.clamp(0, 99) as u32,
                g(3, 0)?,
                g(4, 0)?,
                g(5, 0)?,
                g(6, 0)?,
                offset,
            )
            .map(Value::DateTime)
        },
    ));
    lib.register(FunctionDef::native("datetime", "string, format=", |c| {
        let s = c.string(0)?;
        // yaql: `if not format__`: an empty format also means dateutil.
        match c.opt_string(1)?.filter(|f| !f.is_empty()) {
            // dateutil raises every failure to read or build the date as
            // its `ParserError`, the message followed by the input.
            None => parse_iso(s).map(Value::DateTime).map_err(|e| {
                if e.kind() == ErrorKind::ValueError {
                    let msg = e.message();
                    let msg = if msg.starts_with("Unknown string format") {
                        msg.to_owned()
                    } else {
                        format!("{msg}: {s}")
                    };
                    Error::new(ErrorKind::ParserError, msg)
                } else {
                    e
                }
            }),
            Some(f) => strptime(s, f).map(Value::DateTime),
        }
    }));
    lib.register(FunctionDef::native("datetime", "timestamp, offset=", |c| {
        let t = c.number(0)?;
        let secs = match t {
            Value::Int(n) => *n as f64,
            Value::Float(x) => *x,
            _ => return Err(Error::mismatch()),
        };
        let offset = match c.opt(1)? {
            None => 0,
            Some(v) => (ts_arg(v)? / 1_000_000) as i32,
        };
        Ok(Value::DateTime(DateTime {
            micros: round_half_even(secs * 1e6) as i64,
            offset,
        }))
    }));
    lib.register(FunctionDef::native(
        "timespan",
        "days=, hours=, minutes=, seconds=, milliseconds=, microseconds=",
        |c| {
            const SCALE: [f64; 6] = [86_400e6, 3_600e6, 60e6, 1e6, 1e3, 1.0];
            let mut total = 0f64;
            let mut exact = 0i128;
            for (i, k) in SCALE.iter().enumerate() {
                match c.opt(i)? {
                    None => {}
                    Some(Value::Int(n)) => exact += i128::from(*n) * (*k as i128),
                    Some(Value::Float(x)) => total += x * k,
                    Some(_) => return Err(Error::mismatch()),
                }
            }
            let v = exact as f64 + total;
            if total == 0.0 {
                i64::try_from(exact)
                    .map(Value::TimeSpan)
                    .map_err(|_| Error::new(ErrorKind::Overflow, "timedelta out of range"))
            } else {
                micros_of(v)
            }
        },
    ));
    lib.register(FunctionDef::native("now", "offset=", |c| {
        let offset = match c.opt(0)? {
            None | Some(Value::Null) => 0,
            Some(v) => (ts_arg(v)? / 1_000_000) as i32,
        };
        Ok(Value::DateTime(DateTime {
            micros: now_micros(),
            offset,
        }))
    }));
    lib.register(FunctionDef::native("localtz", "", |_| {
        Ok(Value::TimeSpan(0))
    }));
    lib.register(FunctionDef::native("utctz", "", |_| Ok(Value::TimeSpan(0))));
    lib.register(FunctionDef::native("isDatetime", "value", |c| {
        Ok(Value::Bool(matches!(c.opt(0)?, Some(Value::DateTime(_)))))
    }));
    lib.register(FunctionDef::native("isTimespan", "value", |c| {
        Ok(Value::Bool(matches!(c.opt(0)?, Some(Value::TimeSpan(_)))))
    }));
    // Operators: one overload per signature of yaql's `date_time` module,
    // with its parameter names.
    fn ovf() -> Error {
        Error::new(ErrorKind::Overflow, "date value out of range")
    }
    // Python's datetime holds years 1 to 9999 (of its local time):
    // arithmetic that leaves them is OverflowError.
    fn shift(d: DateTime, t: i64, sign: i64) -> Result<Value, Error> {
        let t = t.checked_mul(sign).ok_or_else(ovf)?;
        let micros = d.micros.checked_add(t).ok_or_else(ovf)?;
        let local = micros
            .checked_add(i64::from(d.offset) * 1_000_000)
            .ok_or_else(ovf)?;
        let (year, _, _) = civil_from_days(local.div_euclid(86_400_000_000));
        if !(1..=9999).contains(&year) {
            return Err(ovf());
        }
        Ok(Value::DateTime(DateTime {
            micros,
            offset: d.offset,
        }))
    }
    lib.register(FunctionDef::native("#operator_+", "dt, ts", |c| {
        shift(dt_arg(c.value(0)?)?, ts_arg(c.value(1)?)?, 1)
    }));
    lib.register(FunctionDef::native("#operator_+", "ts, dt", |c| {
        shift(dt_arg(c.value(1)?)?, ts_arg(c.value(0)?)?, 1)
    }));
    lib.register(FunctionDef::native("#operator_+", "ts1, ts2", |c| {
        let (a, b) = (ts_arg(c.value(0)?)?, ts_arg(c.value(1)?)?);
        Ok(Value::TimeSpan(a.checked_add(b).ok_or_else(ovf)?))
    }));
    lib.register(FunctionDef::native("#operator_-", "dt, ts", |c| {
        shift(dt_arg(c.value(0)?)?, ts_arg(c.value(1)?)?, -1)
    }));
    lib.register(FunctionDef::native("#operator_-", "dt1, dt2", |c| {
        let (a, b) = (dt_arg(c.value(0)?)?, dt_arg(c.value(1)?)?);
        Ok(Value::TimeSpan(a.micros - b.micros))
    }));
    lib.register(FunctionDef::native("#operator_-", "ts1, ts2", |c| {
        let (a, b) = (ts_arg(c.value(0)?)?, ts_arg(c.value(1)?)?);
        Ok(Value::TimeSpan(a.checked_sub(b).ok_or_else(ovf)?))
    }));
    fn scale(t: i64, n: &Value) -> Result<Value, Error> {
        match n {
            Value::Int(k) => t
                .checked_mul(*k)
                .map(Value::TimeSpan)
                .ok_or_else(|| Error::new(ErrorKind::Overflow, "timedelta out of range")),
            Value::Float(x) => micros_of(t as f64 * x),
            _ => Err(Error::mismatch()),
        }
    }
    lib.register(FunctionDef::native("#operator_*", "ts, n", |c| {
        scale(ts_arg(c.value(0)?)?, c.number(1)?)
    }));
    lib.register(FunctionDef::native("#operator_*", "n, ts", |c| {
        scale(ts_arg(c.value(1)?)?, c.number(0)?)
    }));
    lib.register(FunctionDef::native("#operator_/", "ts1, ts2", |c| {
        let (a, b) = (ts_arg(c.value(0)?)?, ts_arg(c.value(1)?)?);
        if b == 0 {
            return Err(Error::new(
                ErrorKind::ZeroDivision,
                "float division by zero",
            ));
        }
        Ok(Value::Float(a as f64 / b as f64))
    }));
    lib.register(FunctionDef::native("#operator_/", "ts, n", |c| {
        let a = ts_arg(c.value(0)?)?;
        match c.number(1)? {
            Value::Int(n) => {
                if *n == 0 {
                    return Err(Error::new(ErrorKind::ZeroDivision, "division by zero"));
                }
                micros_of(a as f64 / *n as f64)
            }
            Value::Float(x) => {
                if *x == 0.0 {
                    return Err(Error::new(ErrorKind::ZeroDivision, "division by zero"));
                }
                micros_of(a as f64 / x)
            }
            _ => Err(Error::mismatch()),
        }
    }));
    // Comparisons of two datetimes or two timespans (yaql registers them
    // beside the generic ones; the result is the same ordering).
    for name in ["#operator_<", "#operator_<=", "#operator_>", "#operator_>="] {
        let cmp = move |o: std::cmp::Ordering| match name {
            "#operator_<" => o.is_lt(),
            "#operator_<=" => o.is_le(),
            "#operator_>" => o.is_gt(),
            _ => o.is_ge(),
        };
        lib.register(FunctionDef::native(name, "dt1, dt2", move |c| {
            let (a, b) = (dt_arg(c.value(0)?)?, dt_arg(c.value(1)?)?);
            Ok(Value::Bool(cmp(a.micros.cmp(&b.micros))))
        }));
        lib.register(FunctionDef::native(name, "ts1, ts2", move |c| {
            let (a, b) = (ts_arg(c.value(0)?)?, ts_arg(c.value(1)?)?);
            Ok(Value::Bool(cmp(a.cmp(&b))))
        }));
    }
    lib.register(FunctionDef::native("#unary_operator_-", "ts", |c| {
        Ok(Value::TimeSpan(-ts_arg(c.value(0)?)?))
    }));
    lib.register(FunctionDef::native("#unary_operator_+", "ts", |c| {
        Ok(Value::TimeSpan(ts_arg(c.value(0)?)?))
    }));
    type DtProp = fn(DateTime) -> Value;
    let dt_props: [(&str, DtProp); 13] = [
        ("year", |d| Value::Int(fields(d).0)),
        ("month", |d| Value::Int(i64::from(fields(d).1))),
        ("day", |d| Value::Int(i64::from(fields(d).2))),
        ("hour", |d| Value::Int(i64::from(fields(d).3))),
        ("minute", |d| Value::Int(i64::from(fields(d).4))),
        ("second", |d| Value::Int(i64::from(fields(d).5))),
        ("microsecond", |d| Value::Int(i64::from(fields(d).6))),
        ("weekday", |d| {
            let local = d.micros + i64::from(d.offset) * 1_000_000;
            Value::Int((local.div_euclid(86_400_000_000) + 3).rem_euclid(7))
        }),
        ("utc", |d| {
            Value::DateTime(DateTime {
                micros: d.micros,
                offset: 0,
            })
        }),
        ("offset", |d| {
            Value::TimeSpan(i64::from(d.offset) * 1_000_000)
        }),
        ("timestamp", |d| Value::Float(d.micros as f64 / 1e6)),
        ("date", |d| {
            let local = d.micros + i64::from(d.offset) * 1_000_000;
            let day = local.div_euclid(86_400_000_000) * 86_400_000_000;
            Value::DateTime(DateTime {
                micros: day - i64::from(d.offset) * 1_000_000,
                offset: d.offset,
            })
        }),
        ("time", |d| {
            let local = d.micros + i64::from(d.offset) * 1_000_000;
            Value::TimeSpan(local.rem_euclid(86_400_000_000))
        }),
    ];
    for (name, f) in dt_props {
        lib.register(FunctionDef::native(
            &format!("#property#{name}"),
            "obj",
            move |c| Ok(f(dt_arg(c.value(0)?)?)),
        ));
    }
    let ts_props: [(&str, f64); 5] = [
        ("days", 86_400e6),
        ("hours", 3_600e6),
        ("minutes", 60e6),
        ("seconds", 1e6),
        ("milliseconds", 1e3),
    ];
    for (name, k) in ts_props {
        lib.register(FunctionDef::native(
            &format!("#property#{name}"),
            "obj",
            move |c| Ok(Value::Float(ts_arg(c.value(0)?)? as f64 / k)),
        ));
    }
    lib.register(FunctionDef::native("#property#microseconds", "obj", |c| {
        Ok(Value::TimeSpan(0)).and(Ok(Value::Int(ts_arg(c.value(0)?)?)))
    }));
    lib.register(
        FunctionDef::native(
            "replace",
            "dt, year=, month=, day=, hour=, minute=, second=, microsecond=, offset=",
            |c| {
                let d = dt_arg(c.value(0)?)?;
                let (y, mo, da, h, mi, s, us) = fields(d);
                let g = |i: usize, cur: i64| -> Result<i64, Error> {
                    match c.opt(i)? {
                        None | Some(Value::Null) => Ok(cur),
                        Some(Value::Int(n)) => Ok(*n),
                        Some(_) => Err(Error::mismatch()),
                    }
                };
                let offset = match c.opt(8)? {
                    None | Some(Value::Null) => d.offset,
                    Some(v) => (ts_arg(v)? / 1_000_000) as i32,
                };
                dt_of(
                    g(1, y)?,
                    g(2, i64::from(mo))?.clamp(0, 99) as u32,
                    g(3, i64::from(da))?.clamp(0, 99) as u32,
                    g(4, i64::from(h))?,
                    g(5, i64::from(mi))?,
                    g(6, i64::from(s))?,
                    g(7, i64::from(us))?,
                    offset,
                )
                .map(Value::DateTime)
            },
        )
        .method(),
    );
    lib.register(
        FunctionDef::native("format", "dt, format", |c| {
            let d = dt_arg(c.value(0)?)?;
            let f = c.string(1)?;
            let (y, mo, da, h, mi, s, us) = fields(d);
            let mut out = String::new();
            let mut it = f.chars();
            while let Some(ch) = it.next() {
                if ch != '%' {
                    out.push(ch);
                    continue;
                }
                match it.next() {
                    Some('Y') => out.push_str(&format!("{y:04}")),
                    Some('m') => out.push_str(&format!("{mo:02}")),
                    Some('d') => out.push_str(&format!("{da:02}")),
                    Some('H') => out.push_str(&format!("{h:02}")),
                    Some('M') => out.push_str(&format!("{mi:02}")),
                    Some('S') => out.push_str(&format!("{s:02}")),
                    Some('f') => out.push_str(&format!("{us:06}")),
                    Some('y') => out.push_str(&format!("{:02}", y % 100)),
                    Some('%') => out.push('%'),
                    Some(o) => {
                        out.push('%');
                        out.push(o);
                    }
                    None => out.push('%'),
                }
            }
            Ok(Value::from(out))
        })
        .method(),
    );
}

#[cfg(test)]
mod tests {
    use crate::eval::{Context, Engine, ErrorKind, Library};
    use std::sync::Arc;

    fn error_of(expr: &str) -> crate::eval::Error {
        let ctx = Context::new(Arc::new(Library::standard(false)));
        Engine::standard()
            .compile(expr)
            .unwrap()
            .evaluate(&ctx)
            .unwrap_err()
    }

    #[test]
    fn unreadable_dates_raise_dateutils_parser_error() {
        for expr in [
            r#"datetime("not a date")"#,
            r#"datetime("2015-02-30")"#,
            r#"datetime("2015-02-30", "")"#,
        ] {
            let e = error_of(expr);
            assert_eq!(e.kind(), ErrorKind::ParserError, "{expr}");
            assert_eq!(e.python_name(), "ParserError");
            assert_eq!(e.kind().python_bases()[0], "ValueError");
        }
        assert!(error_of(r#"datetime("2015-02-30")"#)
            .message()
            .ends_with(": 2015-02-30"));
        // strptime failures stay Python's ValueError.
        assert_eq!(
            error_of(r#"datetime("x", "%Y")"#).kind(),
            ErrorKind::ValueError
        );
    }
}
