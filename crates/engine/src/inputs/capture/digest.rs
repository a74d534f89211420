//! What a capture needs to know of its work context's log, kept up to date by reading only what
//! was appended since the last capture into that context.
//!
//! A capture asks its context's log which questions and decisions are already recorded (so a
//! session stating them again references the first record rather than repeating it), whether
//! this window's summary is there (a repeated capture), and the last phase. Read whole, that is
//! the size of the log for every session, and a heavy project's log holds megabytes: a first
//! run's sweep spent a quarter of its time parsing the same lines again. The process keeps one
//! digest per log and folds in the new lines only ([`ContinuityLog::read_since`]); a log another
//! writer rewrote (an eviction, a merge) is read whole again.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use crate::base::error::Result;
use crate::base::ids::{EntryId, SessionId};
use crate::continuity::{ContinuityLog, EntryContent, LogMark, WorkPhase};

/// A log's questions and decisions, summaries and phase, as of its mark.
#[derive(Debug, Default, Clone)]
pub(crate) struct LogDigest {
    /// Every open question and key decision, lower case.
    pub(crate) known_texts: BTreeSet<String>,
    /// Each decision's first record and the session that made it, by its lower-case text.
    pub(crate) decisions: BTreeMap<String, (EntryId, SessionId)>,
    /// The session summaries the entries link.
    pub(crate) summaries: HashSet<String>,
    /// The phase the newest phase change set.
    pub(crate) last_phase: Option<WorkPhase>,
}

impl LogDigest {
    fn fold(&mut self, entries: &[crate::continuity::ContinuityEntry]) {
        for e in entries {
            match &e.content {
                EntryContent::OpenQuestion(q) => {
                    self.known_texts.insert(q.question.to_lowercase());
                }
                EntryContent::KeyDecision(d) => {
                    let text = d.decision.to_lowercase();
                    self.decisions
                        .entry(text.clone())
                        .or_insert_with(|| (e.entry_id.clone(), e.source_session_id.clone()));
                    self.known_texts.insert(text);
                }
                EntryContent::WorkPhaseChange(p) => self.last_phase = Some(p.new_phase),
                _ => {}
            }
            if let Some(id) = &e.linked_doc73_session_summary_id {
                self.summaries.insert(id.clone());
            }
        }
    }
}

type Digests = Mutex<HashMap<PathBuf, (LogMark, Arc<LogDigest>)>>;

fn digests() -> &'static Digests {
    static DIGESTS: OnceLock<Digests> = OnceLock::new();
    DIGESTS.get_or_init(Default::default)
}

/// The digest of `log` as it is now.
pub(crate) fn of(log: &ContinuityLog) -> Result<Arc<LogDigest>> {
    let path = log.path().to_owned();
    // Taken out while the log is read, so other logs' captures are not held up; a capture of the
    // same log meanwhile reads it whole, which is correct, only slower.
    let cached = digests()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .remove(&path);
    let missed = cached.is_none();
    let (mark, mut digest) = cached.unwrap_or_default();
    let since = log.read_since(&mark)?;
    if since.restarted {
        digest = Arc::default();
    }
    if !since.read.entries.is_empty() {
        Arc::make_mut(&mut digest).fold(&since.read.entries);
    }
    let mut cache = digests().lock().unwrap_or_else(|p| p.into_inner());
    let new_folder = missed && !cache.keys().any(|cached| cached.parent() == path.parent());
    if new_folder {
        // The first log read from a store's continuity folder is the moment to let go of the
        // digests of stores that are gone (deleted or moved), so that a process which opens
        // store after store (the tests, the fuzzer, the app switching stores) does not keep
        // every one of them. One stat per folder, and only then: a first run's sweep misses
        // once for each of thousands of logs, all in one folder.
        let folders: HashSet<PathBuf> = cache
            .keys()
            .filter_map(|cached| cached.parent().map(PathBuf::from))
            .collect();
        let gone: HashSet<PathBuf> = folders.into_iter().filter(|f| !f.is_dir()).collect();
        if !gone.is_empty() {
            cache.retain(|cached, _| cached.parent().is_none_or(|f| !gone.contains(f)));
        }
    }
    cache.insert(path, (since.mark, digest.clone()));
    Ok(digest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::ids::WorkContextId;

    /// A process that opens store after store keeps no digest of a log whose store is gone:
    /// the next capture into a log it has not read lets go of it.
    #[test]
    fn a_digest_whose_log_was_deleted_is_let_go() {
        let gone = tempfile::tempdir().unwrap();
        let kept = tempfile::tempdir().unwrap();
        let log = |dir: &tempfile::TempDir| {
            let log = ContinuityLog::new(dir.path(), WorkContextId::new("ledger").unwrap());
            std::fs::write(log.path(), "").unwrap();
            log
        };
        let first = log(&gone);
        of(&first).unwrap();
        let cached = |log: &ContinuityLog| {
            digests()
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .contains_key(log.path())
        };
        assert!(cached(&first), "a log that is there keeps its digest");
        let first_path = first.path().to_owned();
        drop(gone);
        assert!(!first_path.exists());
        of(&log(&kept)).unwrap();
        assert!(!cached(&first), "the deleted log's digest is let go");
    }
}
