//! The model's tokenizer: BERT's uncased WordPiece, as all-MiniLM-L6-v2 was trained with it.
//!
//! It owns the three steps the Hugging Face `tokenizers` crate runs for this model, written out so
//! that the engine needs neither that crate nor its `tokenizer.json`:
//! - normalising (`BertNormalizer`): control characters out, whitespace to spaces, CJK ideographs
//!   set apart by spaces, accents stripped, lower case;
//! - pre-tokenising (`BertPreTokenizer`): words split on whitespace, each punctuation mark a word
//!   of its own;
//! - WordPiece: each word as the longest vocabulary pieces from the left (`##` marks a piece that
//!   continues a word), or `[UNK]` when no split exists.
//!
//! The output is the model's input: `[CLS]`, the pieces, `[SEP]`, at most [`MAX_TOKENS`] ids.

use std::collections::HashMap;
use std::path::Path;

use unicode_categories::UnicodeCategories;
use unicode_normalization_alignments::UnicodeNormalization;

use crate::base::error::{Error, Result};

/// The longest input the model takes, `[CLS]` and `[SEP]` included. The model has position
/// embeddings for 512, but sentence-transformers trained and runs it at 256, and its outputs are
/// only the published ones when the text is cut at the same place.
pub(super) const MAX_TOKENS: usize = 256;

/// A word longer than this (in characters) becomes `[UNK]` without being split, as in BERT.
const MAX_WORD_CHARS: usize = 100;

/// A vocabulary and the ids of the special tokens the encoding needs.
pub(super) struct WordPiece {
    vocab: HashMap<String, u32>,
    unk: u32,
    cls: u32,
    sep: u32,
}

impl WordPiece {
    /// Reads `vocab.txt` (one token a line, the line number its id); `path` only names the file
    /// in errors.
    pub(super) fn from_vocab(text: &str, path: &Path) -> Result<WordPiece> {
        let mut vocab = HashMap::new();
        for (id, line) in text.lines().enumerate() {
            let id = u32::try_from(id).map_err(|_| {
                Error::InvalidInput(format!(
                    "vocabulary {} has more lines than token ids can number",
                    path.display()
                ))
            })?;
            // The reference tokenizer trims the line's end too, so a file saved with CRLF line
            // ends or trailing spaces still maps each token to the same id.
            vocab.insert(line.trim_end().to_owned(), id);
        }
        let special = |token: &str| {
            vocab.get(token).copied().ok_or_else(|| {
                Error::InvalidInput(format!(
                    "vocabulary {} has no {token} token: it is not the all-MiniLM-L6-v2 vocab.txt",
                    path.display()
                ))
            })
        };
        let (unk, cls, sep) = (special("[UNK]")?, special("[CLS]")?, special("[SEP]")?);
        Ok(WordPiece {
            vocab,
            unk,
            cls,
            sep,
        })
    }

    /// One more than the highest id this vocabulary can produce, so the model can check that its
    /// embedding table has a row for every id.
    pub(super) fn id_bound(&self) -> usize {
        self.vocab.values().max().map_or(0, |&id| id as usize + 1)
    }

    /// The model's input for `text`: `[CLS]`, the word pieces (cut so that the whole fits in
    /// [`MAX_TOKENS`]), `[SEP]`.
    pub(super) fn encode(&self, text: &str) -> Vec<u32> {
        let mut ids = vec![self.cls];
        for word in pre_tokenize(&normalize(text)) {
            self.push_pieces(&word, &mut ids);
            if ids.len() >= MAX_TOKENS - 1 {
                break;
            }
        }
        ids.truncate(MAX_TOKENS - 1);
        ids.push(self.sep);
        ids
    }

    /// Appends the pieces of one word: greedily the longest vocabulary entry from the left, then
    /// from where it ended (as a `##` continuation), or a single `[UNK]` for the whole word when
    /// some part matches nothing.
    fn push_pieces(&self, word: &str, ids: &mut Vec<u32>) {
        // The byte offset of each character, and the word's end, so pieces are sliced on
        // character boundaries.
        let bounds: Vec<usize> = word
            .char_indices()
            .map(|(i, _)| i)
            .chain(std::iter::once(word.len()))
            .collect();
        let chars = bounds.len() - 1;
        if chars > MAX_WORD_CHARS {
            ids.push(self.unk);
            return;
        }
        let mut pieces = Vec::new();
        let mut key = String::new();
        let mut start = 0;
        while start < chars {
            let mut end = chars;
            let mut found = None;
            while start < end {
                key.clear();
                if start > 0 {
                    key.push_str("##");
                }
                key.push_str(&word[bounds[start]..bounds[end]]);
                if let Some(&id) = self.vocab.get(&key) {
                    found = Some(id);
                    break;
                }
                end -= 1;
            }
            match found {
                Some(id) => {
                    pieces.push(id);
                    start = end;
                }
                None => {
                    ids.push(self.unk);
                    return;
                }
            }
        }
        ids.extend(pieces);
    }
}

/// BERT's normaliser for the uncased model: drops NUL, U+FFFD and control characters, turns
/// whitespace into spaces, puts spaces around CJK ideographs (so each is a word of its own),
/// strips accents (NFD, then no non-spacing marks) and lower-cases.
fn normalize(text: &str) -> String {
    let mut cleaned = String::with_capacity(text.len());
    for c in text.chars() {
        if c == '\0' || c == '\u{fffd}' || is_control(c) {
            continue;
        }
        if c.is_whitespace() {
            cleaned.push(' ');
        } else if is_cjk(c) {
            cleaned.push(' ');
            cleaned.push(c);
            cleaned.push(' ');
        } else {
            cleaned.push(c);
        }
    }
    cleaned
        .nfd()
        .map(|(c, _)| c)
        .filter(|c| !c.is_mark_nonspacing())
        .flat_map(char::to_lowercase)
        .collect()
}

/// BERT's pre-tokeniser: words split on whitespace, and each punctuation character a word of its
/// own (so `don't` is `don`, `'`, `t`).
fn pre_tokenize(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    for c in text.chars() {
        if c.is_whitespace() || is_punctuation(c) {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            if !c.is_whitespace() {
                words.push(c.to_string());
            }
        } else {
            current.push(c);
        }
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

/// Control, format and private-use characters (Cc, Cf, Co), which the normaliser drops; tab and
/// the line ends are whitespace instead. Unassigned code points (Cn) are kept, as the reference
/// tokenizer keeps them.
fn is_control(c: char) -> bool {
    !matches!(c, '\t' | '\n' | '\r')
        && (c.is_other_control() || c.is_other_format() || c.is_other_private_use())
}

/// ASCII punctuation (which includes symbols such as `$`, `+` and `^`) and every Unicode
/// punctuation category.
fn is_punctuation(c: char) -> bool {
    c.is_ascii_punctuation() || c.is_punctuation()
}

/// The CJK ideograph blocks BERT sets apart. Extension D's start is 0x2B920 rather than Unicode's
/// 0x2B820, because the reference `tokenizers` crate has it so and the model's outputs follow it.
fn is_cjk(c: char) -> bool {
    matches!(
        c as u32,
        0x4E00..=0x9FFF
            | 0x3400..=0x4DBF
            | 0x20000..=0x2A6DF
            | 0x2A700..=0x2B73F
            | 0x2B740..=0x2B81F
            | 0x2B920..=0x2CEAF
            | 0xF900..=0xFAFF
            | 0x2F800..=0x2FA1F
    )
}
