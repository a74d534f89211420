//! Token counting with a real BPE tokenizer (OpenAI's `cl100k_base`, embedded in the binary by
//! `tiktoken-rs`), so budgets mean what a model would count, not a character estimate.

/// The number of tokens in `text`.
pub fn count(text: &str) -> usize {
    tiktoken_rs::cl100k_base_singleton()
        .encode_ordinary(text)
        .len()
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_are_bpe_not_characters() {
        assert_eq!(super::count(""), 0);
        assert_eq!(super::count("hello world"), 2);
        // Long words split into several tokens; a character estimate would say 1 per 4 chars.
        assert!(super::count("antidisestablishmentarianism") > 3);
    }
}
