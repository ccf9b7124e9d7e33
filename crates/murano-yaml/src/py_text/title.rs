//! Python's `str.title()`, exactly: full titlecase mappings (ligatures such
//! as `ﬁ` become `Fi`, `ß` becomes `Ss`, digraphs such as `ǆ` their title
//! form `ǅ`), full lowercase mappings after a cased character, and the
//! final-sigma rule of Python's lowercasing. The Unicode data is generated
//! by `tools/gen_py_title.py` (in this crate) from Python's own database
//! (`title_tables.rs`).

#[rustfmt::skip]
mod tables {
    include!("title_tables.rs");
}

fn mapping(table: &'static [(u32, &'static str)], c: char) -> Option<&'static str> {
    table
        .binary_search_by_key(&u32::from(c), |(cp, _)| *cp)
        .ok()
        .map(|i| table[i].1)
}

fn in_ranges(table: &[(u32, u32)], c: char) -> bool {
    let cp = u32::from(c);
    let i = table.partition_point(|(_, hi)| *hi < cp);
    table.get(i).is_some_and(|(lo, _)| *lo <= cp)
}

fn is_cased(c: char) -> bool {
    in_ranges(tables::CASED, c)
}

fn is_case_ignorable(c: char) -> bool {
    in_ranges(tables::CASE_IGNORABLE, c)
}

/// CPython's `handle_capital_sigma`: `Σ` lowercases to `ς` at the end of a
/// word (a cased letter before it, none after it, case-ignorable
/// characters skipped both ways).
fn final_sigma(chars: &[char], i: usize) -> bool {
    let before = chars[..i]
        .iter()
        .rev()
        .find(|c| !is_case_ignorable(**c))
        .is_some_and(|c| is_cased(*c));
    before
        && !chars[i + 1..]
            .iter()
            .find(|c| !is_case_ignorable(**c))
            .is_some_and(|c| is_cased(*c))
}

/// Python's `str.title()`.
///
/// ```
/// use murano_yaml::py_text::title;
/// assert_eq!(title("ﬁle ǆ straße ΑΣ"), "File ǅ Straße Ας");
/// ```
pub fn title(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut previous_cased = false;
    for (i, &c) in chars.iter().enumerate() {
        if previous_cased {
            if c == '\u{3a3}' {
                out.push(if final_sigma(&chars, i) { 'ς' } else { 'σ' });
            } else {
                match mapping(tables::LOWER, c) {
                    Some(m) => out.push_str(m),
                    None => out.push(c),
                }
            }
        } else {
            match mapping(tables::TITLE, c) {
                Some(m) => out.push_str(m),
                None => out.push(c),
            }
        }
        previous_cased = is_cased(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_sorted() {
        assert!(tables::TITLE.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(tables::LOWER.windows(2).all(|w| w[0].0 < w[1].0));
        for t in [tables::CASED, tables::CASE_IGNORABLE] {
            assert!(t.windows(2).all(|w| w[0].1 < w[1].0));
        }
    }

    #[test]
    fn matches_python() {
        // Expected values printed by Python 3.11's str.title().
        let cases = [
            ("hello world", "Hello World"),
            ("ǆemal ǉubljana ǌ", "ǅemal ǈubljana ǋ"),
            ("ﬁne ﬂow ﬃx", "Fine Flow Ffix"),
            ("straße ß", "Straße Ss"),
            ("ΑΣ ΑΣ.Β ΣΑΣ", "Ας Ασ.Β Σας"),
            ("ŉ ǰ \u{390}", "ʼN J\u{30c} \u{399}\u{308}\u{301}"),
            ("ᾳ ᾀ ῳ", "ᾼ ᾈ ῼ"),
            ("they're bill's", "They'Re Bill'S"),
            ("3rd 42nd", "3Rd 42Nd"),
            ("ǅ", "ǅ"),
            ("ⓐⓑ ⓒ", "Ⓐⓑ Ⓒ"),
            ("ﬓ և", "Մն Եւ"),
            ("İstanbul", "İstanbul"),
            ("ʰello", "ʰello"),
            ("a\u{345}b", "A\u{345}b"),
            ("ǲ", "ǲ"),
            ("x_y-z", "X_Y-Z"),
            ("ДОБРО пожаловать", "Добро Пожаловать"),
            ("ᲐᲑᲒ აბგ", "Აბგ აბგ"),
            ("ﬅ ﬆ", "St St"),
            ("", ""),
        ];
        for (input, want) in cases {
            assert_eq!(title(input), want, "{input:?}");
        }
    }
}
