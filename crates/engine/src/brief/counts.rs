//! Token counts of the text the last session's card quotes, kept between processes.
//!
//! The card fits a transcript's words to its room by counting candidate lines with the
//! tokenizer, and loading the tokenizer costs about 45 ms a process: the whole budget of an
//! `elnor brief` on an agent's start path. A line's count is a function of its text alone, so
//! counts are kept in a small file per work context (or folder), keyed by a digest of the text:
//! a kept count is never wrong, only unused. The capture that follows a session counts the card's
//! candidate lines for every room the card can have ([`super::warm_last_session`]), so the brief
//! at the next session's start finds them all and never loads the tokenizer. A file is a cache,
//! not derived data: deleting it costs time, never a different brief.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use sha2::{Digest, Sha256};

use crate::base::tokens::{Line, one_line};
use crate::graph::store::Store;

/// The folder of the count files, in the store.
const DIR: &str = "cache/card_counts";

/// Counts known for one place's card, and those counted in this process.
pub(super) struct CountMemo {
    path: PathBuf,
    /// What the card quotes from (the latest session and how far it was read): a file about an
    /// earlier latest session is not read, so a file holds the counts of one session's card.
    generation: String,
    known: HashMap<String, u32>,
    counted: RefCell<BTreeMap<String, u32>>,
}

impl CountMemo {
    /// The counts kept for `place` (a work context's id, or a folder) at `generation`; none
    /// when the file is missing, unreadable, or about another generation.
    pub(super) fn open(store: &Store, place: &str, generation: &str) -> CountMemo {
        let path = store
            .root()
            .join(DIR)
            .join(format!("{}.tsv", digest(place)));
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let mut lines = text.lines();
        let known = if lines.next() == Some(generation) {
            lines
                .filter_map(|l| {
                    let (key, tokens) = l.split_once('\t')?;
                    Some((key.to_owned(), tokens.parse().ok()?))
                })
                .collect()
        } else {
            HashMap::new()
        };
        CountMemo {
            path,
            generation: generation.to_owned(),
            known,
            counted: RefCell::new(BTreeMap::new()),
        }
    }

    /// `text` as one line with its count: kept, or counted now (which loads the tokenizer).
    pub(super) fn line(&self, text: impl AsRef<str>) -> Line {
        let text = one_line(text.as_ref());
        let key = digest(&text);
        if let Some(&tokens) = self.known.get(&key) {
            return Line::counted(text, tokens);
        }
        if let Some(&tokens) = self.counted.borrow().get(&key) {
            return Line::counted(text, tokens);
        }
        let line = Line::new(&text);
        self.counted.borrow_mut().insert(key, line.tokens);
        line
    }

    /// How many lines this process counted with the tokenizer.
    pub(super) fn counted(&self) -> usize {
        self.counted.borrow().len()
    }

    /// Keeps what was counted here beside what was known, when anything was. A failure is
    /// logged: the next brief counts again.
    pub(super) fn save(&self) {
        let counted = self.counted.borrow();
        if counted.is_empty() {
            return;
        }
        let mut all: BTreeMap<&str, u32> =
            self.known.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        all.extend(counted.iter().map(|(k, v)| (k.as_str(), *v)));
        let mut text = format!("{}\n", self.generation);
        for (key, tokens) in all {
            text.push_str(&format!("{key}\t{tokens}\n"));
        }
        let written = self
            .path
            .parent()
            .map_or(Ok(()), |dir| {
                std::fs::create_dir_all(dir).map_err(|e| crate::base::error::Error::io(dir, e))
            })
            .and_then(|()| crate::base::fsutil::atomic_write(&self.path, text.as_bytes()));
        if let Err(e) = written {
            tracing::debug!(error = %e, "card counts not kept");
        }
    }
}

/// A short digest of `text`: 96 bits, so two lines never share one in practice.
fn digest(text: &str) -> String {
    Sha256::digest(text.as_bytes())[..12]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
