//! "Did you mean" hints: the known name closest to a mistyped one.

/// The closest of `names` to `name` (edit distance at most a third of
/// the length, at least 2), for "did you mean" hints.
pub(crate) fn close_match<'a>(
    name: &str,
    names: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let distance = |a: &str, b: &str| {
        let b: Vec<char> = b.chars().collect();
        let mut row: Vec<usize> = (0..=b.len()).collect();
        for (i, ca) in a.chars().enumerate() {
            let mut previous = row[0];
            row[0] = i + 1;
            for j in 0..b.len() {
                let cost = usize::from(ca != b[j]);
                let next = (row[j + 1] + 1).min(row[j] + 1).min(previous + cost);
                previous = row[j + 1];
                row[j + 1] = next;
            }
        }
        row[b.len()]
    };
    let limit = (name.chars().count() / 3).max(2);
    names
        .into_iter()
        .map(|n| (distance(name, n), n))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, n)| n)
}
