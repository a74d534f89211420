//! The identifier analyser's tokenizer: runs of word characters joined by `. / \ : @ # - _`,
//! starting and ending on a word character, so paths, versions, e-mail-like and dotted names are
//! kept whole.
//!
//! It finds the same tokens as tantivy's `RegexTokenizer` over the same expression, but shares one
//! compiled `Regex` between every text it tokenises. tantivy's clones its `Regex` for each text,
//! and a cloned `Regex` starts with an empty cache, so every field of every turn rebuilt the lazy
//! DFA's states from nothing: about half of ingest's and reindex's CPU (BENCHMARKS.md). Shared,
//! the states built once serve every later text.

use std::sync::Arc;

use regex::Regex;
use tantivy::tokenizer::{Token, TokenStream, Tokenizer};

/// What an identifier token is: a word character, then any run of word characters and joiners
/// that ends on a word character.
pub(crate) const PATTERN: &str = r"[\p{L}\p{N}_](?:[\p{L}\p{N}_./\\:@#-]*[\p{L}\p{N}_])?";

/// The tokenizer; clones share its compiled expression and the expression's cache pool.
#[derive(Clone)]
pub(crate) struct IdentTokenizer {
    regex: Arc<Regex>,
    token: Token,
}

impl IdentTokenizer {
    pub(crate) fn new() -> Result<IdentTokenizer, regex::Error> {
        Ok(IdentTokenizer {
            regex: Arc::new(Regex::new(PATTERN)?),
            token: Token::default(),
        })
    }
}

impl Tokenizer for IdentTokenizer {
    type TokenStream<'a> = IdentTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> IdentTokenStream<'a> {
        self.token.reset();
        IdentTokenStream {
            matches: self.regex.find_iter(text),
            token: &mut self.token,
        }
    }
}

/// The tokens of one text, in order, numbered from 0 as tantivy numbers them.
pub(crate) struct IdentTokenStream<'a> {
    matches: regex::Matches<'a, 'a>,
    token: &'a mut Token,
}

impl TokenStream for IdentTokenStream<'_> {
    fn advance(&mut self) -> bool {
        // The expression cannot match the empty string, so every match is a token.
        let Some(m) = self.matches.next() else {
            return false;
        };
        self.token.text.clear();
        self.token.text.push_str(m.as_str());
        self.token.offset_from = m.start();
        self.token.offset_to = m.end();
        self.token.position = self.token.position.wrapping_add(1);
        true
    }

    fn token(&self) -> &Token {
        self.token
    }

    fn token_mut(&mut self) -> &mut Token {
        self.token
    }
}

#[cfg(test)]
mod tests {
    use tantivy::tokenizer::{RegexTokenizer, TextAnalyzer, Token};

    use super::*;

    fn tokens(analyzer: &mut TextAnalyzer, text: &str) -> Vec<Token> {
        let mut out = Vec::new();
        let mut stream = analyzer.token_stream(text);
        while stream.advance() {
            out.push(stream.token().clone());
        }
        out
    }

    /// The same tokens, offsets and positions as tantivy's `RegexTokenizer` over the same
    /// expression, on the project's own transcripts (every line of every sample) and on edge
    /// cases of the character class: the index a new build writes is the one an old build wrote.
    #[test]
    fn finds_what_the_regex_tokenizer_finds() {
        let mut ours = TextAnalyzer::from(IdentTokenizer::new().unwrap());
        let mut theirs = TextAnalyzer::from(RegexTokenizer::new(PATTERN).unwrap());
        let mut texts: Vec<String> = [
            "",
            "   ",
            "-",
            "a",
            "src/views/search/mod.rs:217 and v1.2.3-rc1",
            "dana@example.com #42 C:\\Users\\x\\file.txt -- _private_ __init__",
            "trailing joiners... end-. /root/ @at# ---",
            "日本語のテキスト café naïve e\u{301}t\u{e9} ١٢٣ ½",
            "a.b.c/d\\e:f@g#h-i_j",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        // The samples always, and the shared corpus of real history when it is beside the
        // checkout (its first lines of each file: real text in many scripts, paths and code).
        for entry in walk(&elnor_fixtures::samples()) {
            if let Ok(text) = std::fs::read_to_string(&entry) {
                texts.extend(text.lines().map(str::to_owned));
            }
        }
        assert!(texts.len() > 50, "the samples were read");
        for entry in elnor_fixtures::real().map(|r| walk(&r)).unwrap_or_default() {
            if let Ok(text) = std::fs::read_to_string(&entry) {
                texts.extend(text.lines().take(300).map(str::to_owned));
            }
        }
        let mut total = 0;
        for text in &texts {
            let a = tokens(&mut ours, text);
            let b = tokens(&mut theirs, text);
            assert_eq!(a, b, "{text}");
            total += a.len();
        }
        assert!(total > 1_000, "the texts hold tokens");
    }

    fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
        let mut out = Vec::new();
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(walk(&p));
            } else {
                out.push(p);
            }
        }
        out
    }
}
