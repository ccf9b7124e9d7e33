//! The calendar under [`Value`](super::Value): aware datetimes, civil
//! date arithmetic and Python's text forms of `datetime` and `timedelta`.
//! It imports nothing from the evaluator, so both the value layer (which
//! prints dates) and the standard library's datetime functions stand on it.

/// A date and time with a fixed UTC offset (Python's aware `datetime`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DateTime {
    /// Microseconds since 1970-01-01T00:00:00 UTC.
    pub micros: i64,
    /// Offset from UTC in seconds.
    pub offset: i32,
}

/// Days since 1970-01-01 to (year, month, day).
pub(crate) fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// (year, month, day) to days since 1970-01-01.
pub(crate) fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Local fields of a datetime: (year, month, day, hour, minute, second, micro).
pub(crate) fn fields(dt: DateTime) -> (i64, u32, u32, u32, u32, u32, u32) {
    let local = dt.micros + i64::from(dt.offset) * 1_000_000;
    let days = local.div_euclid(86_400_000_000);
    let rem = local.rem_euclid(86_400_000_000);
    let (y, m, d) = civil_from_days(days);
    let secs = rem / 1_000_000;
    (
        y,
        m,
        d,
        (secs / 3600) as u32,
        (secs / 60 % 60) as u32,
        (secs % 60) as u32,
        (rem % 1_000_000) as u32,
    )
}

fn offset_text(offset: i32) -> String {
    let sign = if offset < 0 { '-' } else { '+' };
    let o = offset.unsigned_abs();
    let mut s = format!("{sign}{:02}:{:02}", o / 3600, o / 60 % 60);
    if o % 60 != 0 {
        s.push_str(&format!(":{:02}", o % 60));
    }
    s
}

/// Python `isoformat(sep)` of an aware datetime.
pub(crate) fn format_datetime(dt: DateTime, sep: char) -> String {
    let (y, mo, d, h, mi, s, us) = fields(dt);
    let mut out = format!("{y:04}-{mo:02}-{d:02}{sep}{h:02}:{mi:02}:{s:02}");
    if us != 0 {
        out.push_str(&format!(".{us:06}"));
    }
    out.push_str(&offset_text(dt.offset));
    out
}

/// Python `str(timedelta)`.
pub(crate) fn format_timespan(t: i64) -> String {
    let days = t.div_euclid(86_400_000_000);
    let rem = t.rem_euclid(86_400_000_000);
    let secs = rem / 1_000_000;
    let us = rem % 1_000_000;
    let mut out = String::new();
    if days != 0 {
        out.push_str(&format!(
            "{days} day{}, ",
            if days.abs() == 1 { "" } else { "s" }
        ));
    }
    out.push_str(&format!(
        "{}:{:02}:{:02}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    ));
    if us != 0 {
        out.push_str(&format!(".{us:06}"));
    }
    out
}
