//! Character classes shared by the lexer and the grammar builder. This
//! module sits below both, so that neither has to import the other for
//! them.

/// Python's `\w` for `str` patterns: letters, digits and numerics of any
/// script, and `_`.
pub(crate) fn is_word(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

/// Python's `\d` restricted to ASCII (see COMPATIBILITY.md).
pub(crate) fn is_digit(c: char) -> bool {
    c.is_ascii_digit()
}

/// The characters yaql's lexer skips between tokens.
pub(crate) fn is_ignored(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes() {
        assert!(is_word('_') && is_word('é') && is_word('٣') && !is_word('-'));
        assert!(is_digit('7') && !is_digit('٣'));
        assert!(is_ignored('\t') && !is_ignored('\u{a0}'));
    }
}
