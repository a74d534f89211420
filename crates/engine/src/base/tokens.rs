//! Token counting with a real BPE tokenizer (OpenAI's `cl100k_base`, embedded in the binary by
//! `tiktoken-rs`), so budgets mean what a model would count, not a character estimate.
//!
//! Loading the tokenizer costs about 45 ms of CPU per process, which is the whole budget of an
//! `elnor brief` run on an agent's start path. So brief text is assembled from [`Line`]s that carry
//! their count, computed where the derived data they come from is built (constellation views, the
//! rollup, living-memory facts), and the brief's capped cards never load the tokenizer (the last
//! session's card, which quotes a transcript as it is now, reads its counts from those the
//! capture kept, `brief/counts.rs`, and counts here only what it misses). Counting a line
//! together with its newline keeps the counts additive:
//! cl100k's pre-tokenizer never joins a newline with the start of the next line, so the count of
//! joined lines is the sum of theirs (a property the brief's tests check against the real
//! tokenizer).

use serde::{Deserialize, Serialize};

/// The number of tokens in `text`.
pub fn count(text: &str) -> usize {
    tiktoken_rs::cl100k_base_singleton()
        .encode_ordinary(text)
        .len()
}

/// One line of brief text and the BPE token count of that line followed by a newline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Line {
    pub text: String,
    pub tokens: u32,
}

impl Line {
    /// Counts `text` (made a single line first) with the tokenizer.
    pub fn new(text: impl AsRef<str>) -> Line {
        let text = one_line(text.as_ref());
        let tokens = count_u32(&format!("{text}\n"));
        Line { text, tokens }
    }

    /// A line whose count is already known (a constant checked by a test, or a stored count).
    pub(crate) fn counted(text: impl Into<String>, tokens: u32) -> Line {
        Line {
            text: text.into(),
            tokens,
        }
    }
}

/// The count as stored: saturating, since no real line comes near `u32::MAX` tokens.
pub(crate) fn count_u32(text: &str) -> u32 {
    u32::try_from(count(text)).unwrap_or(u32::MAX)
}

/// `text` on one line: runs of whitespace (newlines included) become one space, control
/// characters go, and the ends are trimmed.
pub fn one_line(text: &str) -> String {
    text.split(|c: char| c.is_whitespace() || c.is_control())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// `text` on one line and at most `max_chars` characters, cut at a word boundary when one is near,
/// with an ellipsis when anything was cut.
pub fn condense(text: &str, max_chars: usize) -> String {
    let flat = one_line(text);
    if flat.chars().count() <= max_chars {
        return flat;
    }
    let n = max_chars.saturating_sub(1);
    let cut: String = flat.chars().take(n).collect();
    // Prefer ending at a word boundary within the last fifth, so words are not split mid-way.
    let at_boundary = flat.chars().nth(n) == Some(' ');
    let keep = match cut.rfind(' ') {
        _ if at_boundary => cut.as_str(),
        Some(i) if i >= cut.len() * 4 / 5 => &cut[..i],
        _ => cut.as_str(),
    };
    format!("{}…", keep.trim_end_matches([' ', ',', ';', ':']))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_bpe_not_characters() {
        assert_eq!(count(""), 0);
        assert_eq!(count("hello world"), 2);
        // Long words split into several tokens; a character estimate would say 1 per 4 chars.
        assert!(count("antidisestablishmentarianism") > 3);
    }

    #[test]
    fn lines_count_their_newline_and_are_single_lines() {
        let line = Line::new("  Open:\n  check the\tdata  ");
        assert_eq!(line.text, "Open: check the data");
        assert_eq!(line.tokens as usize, count("Open: check the data\n"));
    }

    #[test]
    fn condense_cuts_at_words_with_an_ellipsis() {
        assert_eq!(condense("short", 10), "short");
        assert_eq!(
            condense("the quick brown fox jumps over the lazy dog", 20),
            "the quick brown fox…"
        );
        assert_eq!(condense("abcdefghijklmnopqrstuvwxyz", 10), "abcdefghi…");
    }
}
