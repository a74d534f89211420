//! Word boundaries in text: everything that finds a name or a phrase in prose counts a match
//! only where it stands as whole words, so that "Henderson" is not found in "Hendersonville".

/// Whether `b` belongs to a word: an ASCII letter or digit, or `_`.
pub(crate) fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Whether `text[start..end]` stands as whole words.
pub(crate) fn on_word_boundary(text: &[u8], start: usize, end: usize) -> bool {
    (start == 0 || !is_word_byte(text[start - 1]))
        && (end >= text.len() || !is_word_byte(text[end]))
}
