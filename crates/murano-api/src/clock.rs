//! Times and ids as Murano makes them: naive UTC times with microseconds,
//! ids from `uuid4().hex`.

use std::time::{SystemTime, UNIX_EPOCH};

/// Now, as `YYYY-MM-DDTHH:MM:SS.ffffff` (UTC).
pub fn now() -> String {
    let d = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    format_unix(d.as_secs(), d.subsec_micros())
}

/// `secs` after the Unix epoch (plus `micros`) as `YYYY-MM-DDTHH:MM:SS.ffffff`.
pub fn format_unix(secs: u64, micros: u32) -> String {
    let days = secs / 86_400;
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days as i64);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{micros:06}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Howard Hinnant's days-to-civil conversion.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// A stored time as JSON responses render it (microseconds dropped).
pub fn render(stored: &str) -> String {
    stored.get(..19).unwrap_or(stored).to_owned()
}

/// A fresh id: 32 lower-case hex digits.
pub fn new_id() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

/// A fresh id in the dashed form.
pub fn new_uuid() -> String {
    uuid::Uuid::new_v4().hyphenated().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_dates() {
        assert_eq!(format_unix(0, 0), "1970-01-01T00:00:00.000000");
        assert_eq!(
            format_unix(1_577_836_801, 500_000),
            "2020-01-01T00:00:01.500000"
        );
        assert_eq!(render("2020-01-01T00:00:01.500000"), "2020-01-01T00:00:01");
        assert_eq!(new_id().len(), 32);
    }
}
