//! The multilingual model's tokenizer: XLM-RoBERTa's SentencePiece unigram model, as
//! multilingual-e5-small was trained with it, read from the tables its model file carries.
//!
//! Three steps, in the order SentencePiece runs them:
//! - normalising: each code point through the model's own replacement table (its precompiled
//!   NFKC map: full-width forms to ASCII, ligatures split, …), then runs of spaces to one;
//! - the metaspace: a space marks where a word begins, so one is put before the text and every
//!   space becomes `▁` (U+2581), which the pieces carry;
//! - segmenting: the most probable split of the whole string into vocabulary pieces (Viterbi
//!   over the pieces' log-probabilities), a character no piece covers becoming `<unk>`.
//!
//! Unlike WordPiece there is no lower-casing and no word list per language: one vocabulary of
//! 250,000 pieces covers about a hundred languages, scripts without spaces included, which is
//! what lets Chinese or Japanese history be searched by meaning.

use std::collections::HashMap;

/// The SentencePiece metaspace, which stands for a space (a word's start) inside pieces.
const METASPACE: char = '\u{2581}';

/// A unigram vocabulary with its scores, special ids and normalisation table.
pub(super) struct Unigram {
    /// Each piece's id by its UTF-8 bytes.
    pieces: HashMap<Box<str>, u32>,
    /// Each piece's log-probability, by id.
    scores: Vec<f32>,
    /// What a code point is replaced by before segmenting (absent: itself).
    normal: HashMap<char, Box<str>>,
    /// The longest piece, in bytes: no split needs to look further ahead.
    longest: usize,
    /// The score of a character no piece covers: below every piece's, so `<unk>` is the last
    /// resort (SentencePiece's own choice: the lowest score minus 10).
    unknown_score: f32,
    pub(super) bos: u32,
    pub(super) eos: u32,
    pub(super) unk: u32,
}

impl Unigram {
    /// A tokenizer from the model file's tables: the pieces in id order with their scores, the
    /// normalisation pairs, and the special ids.
    pub(super) fn new(
        pieces: Vec<String>,
        scores: Vec<f32>,
        normal: HashMap<char, Box<str>>,
        [bos, eos, unk]: [u32; 3],
    ) -> Unigram {
        let longest = pieces.iter().map(String::len).max().unwrap_or(1);
        let unknown_score = scores.iter().copied().fold(f32::INFINITY, f32::min) - 10.0;
        let pieces = pieces
            .into_iter()
            .enumerate()
            // An empty piece could never be chosen (a split moves forward), and the first of two
            // equal pieces keeps its id, as a lookup from the start of the table would find it.
            .filter(|(_, p)| !p.is_empty())
            .fold(HashMap::new(), |mut map, (id, piece)| {
                map.entry(piece.into_boxed_str()).or_insert(id as u32);
                map
            });
        Unigram {
            pieces,
            scores,
            normal,
            longest,
            unknown_score,
            bos,
            eos,
            unk,
        }
    }

    /// The number of ids the vocabulary uses: every id it produces is below it.
    pub(super) fn id_bound(&self) -> usize {
        self.scores
            .len()
            .max(self.bos.max(self.eos).max(self.unk) as usize + 1)
    }

    /// The model's input for `text`: `<s>`, at most `max_tokens - 2` pieces, `</s>`.
    pub(super) fn encode(&self, text: &str, max_tokens: usize) -> Vec<u32> {
        let mut ids = Vec::with_capacity(text.len() / 3 + 2);
        ids.push(self.bos);
        ids.extend(
            self.pieces_of(&self.normalised(text))
                .into_iter()
                .take(max_tokens.saturating_sub(2)),
        );
        ids.push(self.eos);
        ids
    }

    /// The text after normalising and the metaspace step: what the pieces are matched against.
    fn normalised(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len() + 3);
        let mut last_space = false;
        let mut push = |c: char, out: &mut String| {
            // Runs of spaces count once; a space (the text's first one included) becomes the
            // metaspace, and a text that does not start with one gets one put before it.
            if c == ' ' {
                if !last_space {
                    out.push(METASPACE);
                }
                last_space = true;
            } else {
                if out.is_empty() {
                    out.push(METASPACE);
                }
                out.push(c);
                last_space = false;
            }
        };
        for c in text.chars() {
            match self.normal.get(&c) {
                Some(replacement) => replacement.chars().for_each(|r| push(r, &mut out)),
                None => push(c, &mut out),
            }
        }
        if out.is_empty() {
            out.push(METASPACE);
        }
        out
    }

    /// The most probable split of `text` into pieces (Viterbi): for each character boundary, the
    /// best score of a split reaching it and the piece that ends there. Ties go to the split
    /// found first, a piece starting earlier, as SentencePiece's own search breaks them.
    fn pieces_of(&self, text: &str) -> Vec<u32> {
        let bounds: Vec<usize> = text
            .char_indices()
            .map(|(at, _)| at)
            .chain([text.len()])
            .collect();
        let n = bounds.len() - 1;
        // best[e]: the score of the best split of the first e characters, with its last piece
        // (None: an unknown character) and where that piece starts.
        let mut best: Vec<(f32, Option<u32>, usize)> = vec![(f32::NEG_INFINITY, None, 0); n + 1];
        best[0].0 = 0.0;
        for start in 0..n {
            let here = best[start].0;
            if here == f32::NEG_INFINITY {
                continue;
            }
            for end in start + 1..=n {
                let piece = &text[bounds[start]..bounds[end]];
                if piece.len() > self.longest {
                    break;
                }
                if let Some(&id) = self.pieces.get(piece).filter(|&&id| id != self.unk) {
                    let score = here + self.scores[id as usize];
                    if score > best[end].0 {
                        best[end] = (score, Some(id), start);
                    }
                }
            }
            let unknown = here + self.unknown_score;
            if unknown > best[start + 1].0 {
                best[start + 1] = (unknown, None, start);
            }
        }
        let mut ids = Vec::new();
        let mut end = n;
        while end > 0 {
            let (_, id, start) = best[end];
            ids.push(id.unwrap_or(self.unk));
            end = start;
        }
        ids.reverse();
        ids
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small vocabulary: where a longer piece is more probable than its parts, it wins.
    fn small() -> Unigram {
        let pieces = [
            "<s>", "<pad>", "</s>", "<unk>", "▁", "▁hello", "▁he", "llo", "l", "o", "▁w", "or",
            "ld", "▁wo", "rld",
        ];
        let scores = [
            0.0, 0.0, 0.0, 0.0, -5.0, -3.0, -4.0, -4.0, -6.0, -6.0, -5.0, -5.0, -5.0, -4.0, -4.0,
        ];
        let normal = HashMap::from([('Ｈ', "h".into()), ('ﬁ', "fi".into())]);
        Unigram::new(
            pieces.iter().map(|p| p.to_string()).collect(),
            scores.to_vec(),
            normal,
            [0, 2, 3],
        )
    }

    #[test]
    fn the_most_probable_split_wins_and_special_tokens_frame_it() {
        let t = small();
        // "▁hello" (−3) beats "▁he"+"llo" (−8); "▁wo"+"rld" (−8) beats "▁w"+"or"+"ld" (−15).
        assert_eq!(t.encode("hello world", 512), vec![0, 5, 13, 14, 2]);
    }

    #[test]
    fn spaces_collapse_and_the_metaspace_leads() {
        let t = small();
        assert_eq!(t.normalised("hello   world"), "▁hello▁world");
        assert_eq!(t.normalised(" hello"), "▁hello");
        assert_eq!(t.normalised(""), "▁");
        // The replacement table applies before the metaspace: a full-width H is an h.
        assert_eq!(t.normalised("Ｈi ﬁ"), "▁hi▁fi");
    }

    #[test]
    fn what_no_piece_covers_is_unknown_one_character_at_a_time() {
        let t = small();
        // "▁" then "x" and "y" unknown, each on its own.
        assert_eq!(t.encode("xy", 512), vec![0, 4, 3, 3, 2]);
    }

    #[test]
    fn a_long_text_is_cut_to_the_limit_with_both_specials_kept() {
        let t = small();
        let ids = t.encode(&"hello ".repeat(100), 10);
        assert_eq!(ids.len(), 10);
        assert_eq!((ids[0], ids[9]), (0, 2));
    }
}
