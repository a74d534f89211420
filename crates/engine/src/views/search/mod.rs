//! The search index: a tantivy index over what the agents and the person said, so that "what did
//! we say about X" has an answer across every session (CSA §7; [Search](../../../../docs/GLOSSARY.md)).
//!
//! It is derived data under `index/search/`: deleting the folder loses nothing, and
//! [`SearchIndex::sync`] (or `elnor reindex`, which starts from nothing) builds it again from the
//! canonical stores. Each sync indexes only what is new since the last one: transcript turns
//! after the last `turns.seq` it saw, session summaries after the last row, and each continuity
//! log's entries after the count it already holds. A log that is gone (its context merged away)
//! takes its entries out of the index.
//!
//! Documents, one per:
//! - transcript turn: what the person typed (`person_text`) or the assistant's prose
//!   (`assistant_parts`) in the `text` field, tool output and what an assistant's message shows
//!   beside its prose (code, tables, a reply given as JSON) in the lower-weighted `tool` field, and
//!   the whole exchange (its own words with the two messages before it in its session) in
//!   `exchange`, so a question answered across turns is found at each, and the message after
//!   it in `next`, at a lower weight, so a question is found by its answer too (a session's
//!   last message is indexed again when its successor arrives in a later sync); a message also
//!   stores the id of the other side's latest message before it (`answers`), so a question the
//!   query matches can lift its answer;
//! - continuity entry: open questions with their context, key decisions with their rationale,
//!   cross-conversation updates;
//! - session summary.
//!
//! Two analysers: `prose` (words, lower case, NLTK's English stop words out, stemmed) for the text
//! fields, and `ident` (identifiers, file paths, versions and e-mail-like names kept whole, lower
//! case) over the same text, so `src/main.rs` and `main` both find the turn that names the file.

mod documents;
pub mod embed;
mod fast;
mod ident;
mod query;
mod vectors;
mod when;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use tantivy::schema::{
    FAST, Field, INDEXED, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing,
    TextOptions, Value,
};
use tantivy::tokenizer::{
    Language, LowerCaser, RemoveLongFilter, SimpleTokenizer, Stemmer, StopWordFilter, TextAnalyzer,
};
use tantivy::{Index, IndexWriter, TantivyDocument, Term};

use crate::base::error::{Error, Result};
use crate::base::fsutil::atomic_write;
use crate::continuity::EntryContent;
use crate::graph::store::Store;
use crate::inputs::transcripts::clean::{assistant_parts, assistant_prose, person_text};

use documents::marks;

pub(crate) use query::Scope;
pub use query::{
    Caller, Citation, DocKind, Hit, Permission, SearchRequest, SearchResult, Strategy, Synthesis,
    Why,
};
pub use vectors::EmbedReport;
pub(crate) use vectors::LocalOnly;

/// Bumped when the schema or the analysers change: an index of another version is rebuilt.
const INDEX_VERSION: u32 = 10;

/// The longest text a document field keeps (characters); tool output is cut harder.
const MAX_TEXT_CHARS: usize = 8_000;
const MAX_TOOL_CHARS: usize = 2_000;
/// Turns read from the store per page of a sync; small in the unit tests, so that the samples
/// take several pages and the paging is what the tests check.
const TURNS_PAGE: i64 = if cfg!(test) { 7 } else { 2_000 };
/// How much of the previous turn goes into a turn's `exchange` field.
const MAX_CONTEXT_CHARS: usize = 1_000;

/// The largest segment a sync into a built index merges: larger ones come from builds, and
/// merging them would make a capture or a push wait seconds.
const SMALL_SEGMENT_DOCS: usize = 20_000;

/// Threads one query's segments are searched on. Two, as for the vector scan: a query is short,
/// and the person's other work keeps the rest of the machine.
const SEARCH_THREADS: usize = 2;

/// What one sync added.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SyncReport {
    pub turns: u64,
    pub entries: u64,
    pub summaries: u64,
    /// Logs whose entries left the index (their context was merged away).
    pub logs_removed: u64,
    /// Library documents indexed (new or changed), and those that left (deleted or untracked).
    pub library: u64,
    pub library_removed: u64,
    pub observations: u64,
    /// Durable nodes indexed (new or changed since the last sync).
    pub nodes: u64,
    /// Documents in the index after the sync.
    pub documents: u64,
}

/// The file beside the index that holds its [`SyncState`].
const STATE_FILE: &str = "state.json";

/// Where the sync stopped last time, beside the index.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
struct SyncState {
    version: u32,
    /// The last `turns.seq` indexed.
    turns_seq: i64,
    /// The last `session_summaries` rowid indexed.
    summaries_rowid: i64,
    /// Per continuity log: the entries indexed (in log order) and the file's size then, so an
    /// unchanged log is not read again.
    logs: BTreeMap<String, LogMark>,
    /// Per Library document (by path): the content hash indexed.
    library: BTreeMap<String, String>,
    /// What `tracked_files` looked like at the last sync (a count and mtimes), so an unchanged
    /// Library costs one SQL aggregate to confirm.
    library_mark: String,
    /// The last `observations.observation_id` indexed.
    observations_id: i64,
    /// Per durable node: the `updated_at` indexed, and the whole table's mark as for the Library.
    nodes: BTreeMap<String, String>,
    nodes_mark: String,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
struct LogMark {
    entries: usize,
    bytes: u64,
}

/// The fields of a document.
#[derive(Debug, Clone, Copy)]
struct Fields {
    /// `turn:{seq}`, `entry:{entry_id}`, `summary:{id}`, `doc:{path}`, `obs:{id}` or
    /// `node:{id}`: the key a rebuild keeps stable.
    doc_id: Field,
    kind: Field,
    /// For entry documents, the log they came from, so a log merged away can leave.
    log: Field,
    session_id: Field,
    turn_id: Field,
    record: Field,
    entry_id: Field,
    entry_type: Field,
    work_context_id: Field,
    harness: Field,
    role: Field,
    /// A Library document's or an observed file's path.
    path: Field,
    /// A document's or an observed file's title.
    title: Field,
    node_id: Field,
    node_kind: Field,
    observation_id: Field,
    /// The entities a document, an observation or a node mentions (entity ids).
    entities: Field,
    /// When the work happened, in seconds since the epoch (0 when unknown).
    at: Field,
    /// When the document entered the index, in seconds since the epoch: what a Topic's
    /// collection directive counts as new.
    indexed: Field,
    /// The 64-bit key of `doc_id` (see `vectors::key_of`), a fast field: how a filter's
    /// documents find their vectors.
    key: Field,
    text: Field,
    ident: Field,
    /// The document's own words and, for a message, the two messages before it (each side's
    /// latest), scored as one text: what finds a query's candidates (see
    /// `query::IDENT_PLAIN_BOOST`).
    exchange: Field,
    /// For a turn, the words of the message that followed it in its session: a question is
    /// found by its answer too, at a lower weight (`query::NEXT_BOOST`).
    next: Field,
    /// For a message, the doc id of the other side's latest message before it (what it
    /// answers): a question's match lifts its answer (`query::ANSWER_SHARE`).
    answers: Field,
    tool: Field,
}

fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    // Frequencies without positions: no query of ours matches phrases, and the positions made
    // the index 40% larger (35 MB against 25 MB for the `medium` history, BENCHMARKS.md).
    let analysed = |tokenizer: &str, stored: bool| {
        let options = TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(tokenizer)
                .set_index_option(IndexRecordOption::WithFreqs),
        );
        if stored {
            options.set_stored()
        } else {
            options
        }
    };
    let fields = Fields {
        doc_id: b.add_text_field("doc_id", STRING | STORED),
        kind: b.add_text_field("kind", STRING | STORED),
        log: b.add_text_field("log", STRING),
        session_id: b.add_text_field("session_id", STRING | STORED),
        turn_id: b.add_text_field("turn_id", STRING | STORED),
        record: b.add_text_field("record", STORED),
        entry_id: b.add_text_field("entry_id", STRING | STORED),
        entry_type: b.add_text_field("entry_type", STRING | STORED),
        work_context_id: b.add_text_field("work_context_id", STRING | STORED),
        harness: b.add_text_field("harness", STRING | STORED),
        role: b.add_text_field("role", STRING | STORED),
        path: b.add_text_field("path", STRING | STORED),
        title: b.add_text_field("title", STORED),
        node_id: b.add_text_field("node_id", STRING | STORED),
        node_kind: b.add_text_field("node_kind", STORED),
        observation_id: b.add_text_field("observation_id", STRING | STORED),
        entities: b.add_text_field("entities", STRING),
        at: b.add_i64_field("at", INDEXED | FAST | STORED),
        indexed: b.add_i64_field("indexed", INDEXED | FAST),
        key: b.add_u64_field("key", FAST),
        text: b.add_text_field("text", analysed(PROSE, true)),
        ident: b.add_text_field("ident", analysed(IDENT, false)),
        exchange: b.add_text_field("exchange", analysed(PROSE, false)),
        next: b.add_text_field("next", analysed(PROSE, false)),
        answers: b.add_text_field("answers", STORED),
        tool: b.add_text_field("tool", analysed(PROSE, true)),
    };
    (b.build(), fields)
}

const PROSE: &str = "elnor_prose";
const IDENT: &str = "elnor_ident";

fn register_analysers(index: &Index) -> Result<()> {
    let prose = TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(RemoveLongFilter::limit(40))
        .filter(LowerCaser)
        .filter(StopWordFilter::remove(english_stop_words()))
        .filter(Stemmer::new(Language::English))
        .build();
    // Identifiers, paths, versions, e-mail-like and dotted names, kept whole (`ident.rs`).
    let ident = ident::IdentTokenizer::new()
        .map_err(|e| Error::InvalidInput(format!("identifier analyser: {e}")))?;
    let ident = TextAnalyzer::builder(ident)
        .filter(RemoveLongFilter::limit(120))
        .filter(LowerCaser)
        .build();
    index.tokenizers().register(PROSE, prose);
    index.tokenizers().register(IDENT, ident);
    Ok(())
}

/// The prose analyser's stop words: NLTK's English list, as the tokenizer leaves its words. A
/// contraction ("don't") is split at its apostrophe, and both halves ("don", "t") are on the list
/// already, so only the apostrophe-free words are kept.
fn english_stop_words() -> impl Iterator<Item = String> {
    stop_words::get("en")
        .iter()
        .filter(|w| w.chars().all(char::is_alphanumeric))
        .map(|w| w.to_string())
}

/// An open search index.
pub struct SearchIndex {
    dir: PathBuf,
    index: Index,
    fields: Fields,
    /// One reader for the life of the open index, reloaded when the index has a new commit: a
    /// query then costs the search, not opening every segment again.
    reader: tantivy::IndexReader,
    /// What `meta.json` looked like when the reader was last reloaded (see [`FileStamp`]).
    reloaded: std::sync::Mutex<Option<FileStamp>>,
    /// The sync state as this process last read or wrote it, with the stamp of its file then:
    /// at 2,000 logs and 10,000 Library documents it is a megabyte of JSON, which every sync
    /// (every push, every capture) and every check for new work would otherwise parse again.
    state: std::sync::Mutex<Option<(FileStamp, SyncState)>>,
    /// When this process last compared the store with the index (see
    /// [`SearchIndex::is_behind_throttled`]).
    checked: std::sync::Mutex<Option<std::time::Instant>>,
    /// The vectors as last loaded, with their embedder and the size of their data file then: a
    /// query reuses them until a backfill appends more.
    vectors: std::sync::Mutex<Option<(String, u64, std::sync::Arc<vectors::Vectors>)>>,
}

/// Which file a path holds. tantivy writes a commit's `meta.json` to a new file and renames it
/// into place, and the sync state is written the same way ([`atomic_write`]), so a new commit or
/// state is a new file: another inode than the file it replaces, which is still in place while
/// the new one is written. A stamp could come back only if the file were replaced twice, the
/// second time on a freed inode, with the same length, within one tick of the file system's
/// clock: each state is a whole sync, longer than a tick, and a `meta.json` missed that way would
/// only keep the previous commit in view until the next one. Where there are no
/// inodes (Windows) there is no stamp, and the reader is reloaded before every query and the
/// state read before every sync, as they always were.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileStamp {
    inode: u64,
    len: u64,
    modified: std::time::SystemTime,
}

impl FileStamp {
    #[cfg(unix)]
    fn of(path: &Path) -> Option<FileStamp> {
        use std::os::unix::fs::MetadataExt;
        let meta = fs::metadata(path).ok()?;
        Some(FileStamp {
            inode: meta.ino(),
            len: meta.len(),
            modified: meta.modified().ok()?,
        })
    }

    #[cfg(not(unix))]
    fn of(_path: &Path) -> Option<FileStamp> {
        None
    }
}

/// The indexes this process has open, by folder. The app and the MCP server answer many queries
/// in one process; each would otherwise open the index, its segments and its analysers anew.
fn open_indexes() -> &'static std::sync::Mutex<HashMap<PathBuf, std::sync::Arc<SearchIndex>>> {
    static OPEN: std::sync::OnceLock<
        std::sync::Mutex<HashMap<PathBuf, std::sync::Arc<SearchIndex>>>,
    > = std::sync::OnceLock::new();
    OPEN.get_or_init(Default::default)
}

/// How often a query may compare the store with the index. Every write in this process brings
/// the index up to date before it returns; the comparison is the safety net for a write another
/// process made while it could not update the index (two writers at once), and once a second is
/// soon enough for that (the bar is two).
const BEHIND_CHECK_EVERY: std::time::Duration = std::time::Duration::from_secs(1);

/// How long an index trailing an ingest waits when it has caught up with it.
const TRAILING_POLL: std::time::Duration = std::time::Duration::from_millis(25);

impl SearchIndex {
    /// The folder of a store's search index.
    pub fn dir(store: &Store) -> PathBuf {
        store.root().join("index").join("search")
    }

    /// The store's index, open: the one this process opened before while its folder is still
    /// there, else opened now (see [`SearchIndex::open_uncached`]).
    pub fn open(store: &Store) -> Result<std::sync::Arc<SearchIndex>> {
        let dir = Self::dir(store);
        let mut open = open_indexes()
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(index) = open.get(&dir)
            && dir.join("meta.json").is_file()
        {
            return Ok(index.clone());
        }
        // A miss is the moment to let go of the indexes whose folders are gone (a store that
        // was deleted or moved): each holds its segments' files mapped, so a process that opens
        // store after store (the tests, the fuzzer, a person switching stores) would otherwise
        // keep every one of them in memory, and on a memory file system their disk space too.
        open.retain(|folder, _| folder.join("meta.json").is_file());
        let index = std::sync::Arc::new(Self::open_uncached(store)?);
        open.insert(dir, index.clone());
        Ok(index)
    }

    /// Opens the store's index, creating it when it is missing, of another version, or
    /// unreadable (it is derived: a new one is built by the next sync).
    fn open_uncached(store: &Store) -> Result<SearchIndex> {
        let dir = Self::dir(store);
        let (schema, fields) = schema();
        let state = read_state(&dir);
        let mut index = match (state.version == INDEX_VERSION)
            .then(|| Index::open_in_dir(&dir).ok())
            .flatten()
        {
            Some(index) => index,
            None => {
                remove_dir(&dir)?;
                fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
                let index = Index::create_in_dir(&dir, schema).map_err(|e| index_err(&dir, e))?;
                // The new index's state at once: another process opening it during this
                // process's first sync then finds its version and opens it, rather than taking
                // it for a stale index and deleting it.
                write_state(
                    &dir,
                    &SyncState {
                        version: INDEX_VERSION,
                        ..SyncState::default()
                    },
                )?;
                index
            }
        };
        register_analysers(&index)?;
        // A query walks each segment's postings on its own; two threads take the segments
        // between them, so a query over years of history answers in about half the time.
        index
            .set_multithread_executor(SEARCH_THREADS)
            .map_err(|e| index_err(&dir, e))?;
        let reader = index
            .reader_builder()
            .reload_policy(tantivy::ReloadPolicy::Manual)
            .try_into()
            .map_err(|e| index_err(&dir, e))?;
        Ok(SearchIndex {
            dir,
            index,
            fields,
            reader,
            reloaded: std::sync::Mutex::new(None),
            state: std::sync::Mutex::new(None),
            checked: std::sync::Mutex::new(None),
            vectors: std::sync::Mutex::new(None),
        })
    }

    /// Deletes the index and builds it again from the canonical stores.
    pub fn rebuild(store: &Store) -> Result<SyncReport> {
        let dir = Self::dir(store);
        open_indexes()
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .remove(&dir);
        remove_dir(&dir)?;
        Self::open(store)?.sync(store)
    }

    /// [`is_behind`](Self::is_behind), asked at most once per [`BEHIND_CHECK_EVERY`] by this
    /// process: `false` in between.
    pub fn is_behind_throttled(&self, store: &Store) -> Result<bool> {
        let now = std::time::Instant::now();
        {
            let mut checked = self
                .checked
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            if checked.is_some_and(|at| now.duration_since(at) < BEHIND_CHECK_EVERY) {
                return Ok(false);
            }
            *checked = Some(now);
        }
        self.is_behind(store)
    }

    /// Indexes what is new in the store since the last sync (see the module docs).
    pub fn sync(&self, store: &Store) -> Result<SyncReport> {
        match self.sync_if_free(store)? {
            Some(report) => Ok(report),
            None => Err(index_err(
                &self.dir,
                "another process or thread is updating the index right now",
            )),
        }
    }

    /// Like [`Self::sync`], but `None` when another writer holds the index (tantivy allows
    /// one): with the app, the CLI and the MCP server on one store that is ordinary, not a
    /// failure, and the writer that holds it, or the next sync, indexes what is new.
    pub fn sync_if_free(&self, store: &Store) -> Result<Option<SyncReport>> {
        self.sync_trailing(store, None)
    }

    /// Like [`Self::sync_if_free`], started while another thread is still ingesting: until
    /// `ingesting` turns false, turns are indexed as the ingest commits them, and then the rest
    /// is synced and committed once. A first run's ingest and its index then share the two cores
    /// rather than taking turns (BENCHMARKS.md, "First run"). Turn documents carry nothing an
    /// ingest decides after it has stored the turn, so indexing them early changes no document.
    pub fn sync_trailing_ingest(
        &self,
        store: &Store,
        ingesting: &AtomicBool,
    ) -> Result<Option<SyncReport>> {
        self.sync_trailing(store, Some(ingesting))
    }

    fn sync_trailing(
        &self,
        store: &Store,
        ingesting: Option<&AtomicBool>,
    ) -> Result<Option<SyncReport>> {
        let mut writer: IndexWriter<TantivyDocument> =
            match self.index.writer_with_num_threads(1, 40_000_000) {
                Ok(writer) => writer,
                Err(tantivy::TantivyError::LockFailure(
                    tantivy::directory::error::LockError::LockBusy,
                    _,
                )) => return Ok(None),
                Err(e) => return Err(index_err(&self.dir, e)),
            };
        // The watermarks are read only once this sync holds the writer: read before, they could
        // be a writer that just finished behind, and its documents would be added twice.
        let mut state = self.take_state();
        if state.version != INDEX_VERSION {
            state = SyncState {
                version: INDEX_VERSION,
                ..SyncState::default()
            };
        }
        // A sync that adds to an index already built merges only small segments (what its own
        // commits and other small syncs made), so the merges it waits for below stay cheap; a
        // build from nothing keeps tantivy's policy, which folds its many segments into few.
        let building = state.turns_seq == 0 || ingesting.is_some();
        if !building {
            let mut small_only = tantivy::indexer::LogMergePolicy::default();
            small_only.set_max_docs_before_merge(SMALL_SEGMENT_DOCS);
            writer.set_merge_policy(Box::new(small_only));
        }
        let mut report = SyncReport::default();
        if let Some(ingesting) = ingesting {
            // Each pass takes the turns of the transactions committed so far; a pass that found
            // none waits a moment rather than asking SQLite again at once.
            while ingesting.load(Ordering::Acquire) {
                let before = report.turns;
                self.sync_turns(store, &mut writer, &mut state, &mut report)?;
                if report.turns == before {
                    std::thread::sleep(TRAILING_POLL);
                }
            }
        }
        self.sync_turns(store, &mut writer, &mut state, &mut report)?;
        self.sync_summaries(store, &mut writer, &mut state, &mut report)?;
        self.sync_entries(store, &mut writer, &mut state, &mut report)?;
        self.sync_library(store, &mut writer, &mut state, &mut report)?;
        self.sync_observations(store, &mut writer, &mut state, &mut report)?;
        self.sync_nodes(store, &mut writer, &mut state, &mut report)?;
        writer.commit().map_err(|e| index_err(&self.dir, e))?;
        if ingesting.is_some() {
            // A first run's index is useful as it stands; the merges its build started are
            // given up rather than keep the person waiting, and later syncs merge again.
            drop(writer);
        } else {
            // Every sync commits a segment, and a dropped writer gives up the merges its commit
            // started. Left so, a day of captures and pushes leaves hundreds of one-document
            // segments that every query then visits one by one; waiting lets the merge policy
            // fold them together (small segments with small ones, in milliseconds).
            writer
                .wait_merging_threads()
                .map_err(|e| index_err(&self.dir, e))?;
        }
        self.keep_state(state)?;
        // The index now holds what the store held: a throttled check right after need not
        // compare them again.
        *self
            .checked
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(std::time::Instant::now());
        report.documents = self.reader()?.searcher().num_docs();
        Ok(Some(report))
    }

    /// Whether the store holds something the index does not: new turns or summaries, or a log
    /// that changed size or appeared or went. Costs two SQL maxima and a stat per log.
    pub fn is_behind(&self, store: &Store) -> Result<bool> {
        self.with_state(|state| behind(store, state))
    }

    /// Calls `f` with the sync state: the one this process last read or wrote while `state.json`
    /// is still that file, else the file's (then kept for the next call).
    fn with_state<R>(&self, f: impl FnOnce(&SyncState) -> R) -> R {
        // Stamped before it is read: a state written in between is read now and stamped as the
        // one before it, so the next call reads it again rather than keep a stale one.
        let stamp = FileStamp::of(&self.dir.join(STATE_FILE));
        let mut cached = self
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match (stamp, cached.as_ref()) {
            (Some(now), Some((then, state))) if now == *then => f(state),
            (Some(now), _) => {
                let state = read_state(&self.dir);
                let out = f(&state);
                *cached = Some((now, state));
                out
            }
            (None, _) => f(&read_state(&self.dir)),
        }
    }

    /// The sync state for a sync to change, taken out of the cache (see [`Self::with_state`]);
    /// a sync that fails before [`Self::keep_state`] leaves the next one to read the file.
    fn take_state(&self) -> SyncState {
        let stamp = FileStamp::of(&self.dir.join(STATE_FILE));
        let taken = self
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        match taken {
            Some((then, state)) if Some(then) == stamp => state,
            _ => read_state(&self.dir),
        }
    }

    /// Writes the sync state and keeps it as the cached one. Every writer of the state holds the
    /// index's writer lock, as the sync calling this does, so the file stamped right after the
    /// write is this write's.
    fn keep_state(&self, state: SyncState) -> Result<()> {
        write_state(&self.dir, &state)?;
        if let Some(stamp) = FileStamp::of(&self.dir.join(STATE_FILE)) {
            *self
                .state
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) = Some((stamp, state));
        }
        Ok(())
    }

    /// The reader, brought to the index's last commit (by this process or another). Reloading
    /// reads and parses `meta.json` and builds a new searcher, a quarter of a millisecond that a
    /// query over millions of turns notices; it is done only when `meta.json` is not the file
    /// the last reload saw. The stamp is taken before the reload, so a commit landing between
    /// the two is reloaded again next time rather than missed.
    fn reader(&self) -> Result<tantivy::IndexReader> {
        let stamp = FileStamp::of(&self.dir.join("meta.json"));
        let mut reloaded = self
            .reloaded
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if stamp.is_none() || *reloaded != stamp {
            self.reader.reload().map_err(|e| index_err(&self.dir, e))?;
            *reloaded = stamp;
        }
        Ok(self.reader.clone())
    }

    fn sync_turns(
        &self,
        store: &Store,
        writer: &mut IndexWriter<TantivyDocument>,
        state: &mut SyncState,
        report: &mut SyncReport,
    ) -> Result<()> {
        let f = self.fields;
        let graph = store.graph();
        // A page at a time, so a first sync of years of history holds one page in memory.
        let page = |after: i64| -> Result<Vec<TurnRow>> {
            graph.with_conn_result(|c| {
                let mut stmt = c.prepare_cached(
                    "SELECT seq, turn_id, session_id, harness, role, kind, text, timestamp,
                        source_path, source_offset
                 FROM turns WHERE seq > ?1 AND kind IN ('message', 'tool_result')
                 ORDER BY seq LIMIT ?2",
                )?;
                stmt.query_map(rusqlite::params![after, TURNS_PAGE], TurnRow::read)?
                    .collect()
            })
        };
        let max_seq: Option<i64> = graph
            .with_conn_result(|c| c.query_row("SELECT max(seq) FROM turns", [], |r| r.get(0)))?;
        let mut lines = LineNumbers::default();
        // Each session's latest words of the person and of the assistant, and the message that
        // said them, carried across the batch; a session first seen in this batch starts from
        // its turns already indexed.
        let mut latest: HashMap<(String, &'static str), Latest> = HashMap::new();
        // Each session's latest message turn, held back until the session's next message gives
        // it its `next` field, or the batch ends.
        let mut waiting: HashMap<String, (i64, TantivyDocument)> = HashMap::new();
        // Turns up to here were indexed by earlier syncs; the store is asked only about them
        // (what this sync has read is in `latest` and `waiting`), and not at all on a first
        // build, which has none.
        let indexed_through = state.turns_seq;
        let mut after = state.turns_seq;
        loop {
            let rows = page(after)?;
            let Some(last) = rows.last() else {
                break;
            };
            after = last.seq;
            for row in &rows {
                let Some(said) = Said::of(row) else {
                    continue;
                };
                let (text, aside) = match said {
                    Said::Message(text, aside) => (text, aside),
                    // Tool output is no side of an exchange: it carries none, which keeps the
                    // exchange (and every query's walk of it) to the conversation, tool calls
                    // outnumbering messages in real history.
                    Said::Tool(tool) => {
                        let mut doc = self.turn_doc(row, "", &mut lines);
                        self.add_aside(&mut doc, &tool);
                        self.add(writer, doc)?;
                        report.turns += 1;
                        continue;
                    }
                };
                let before = self.turns_before(store, row, indexed_through, &mut latest)?;
                // The session's message before this one now has what followed it.
                match waiting.remove(&row.session_id) {
                    Some((_, mut doc)) => {
                        doc.add_text(f.next, bounded(&text, MAX_CONTEXT_CHARS));
                        self.add(writer, doc)?;
                    }
                    None => self.reindex_with_next(
                        store,
                        writer,
                        row,
                        (indexed_through, &text),
                        &mut lines,
                    )?,
                }
                let mut doc = self.turn_doc(row, &text, &mut lines);
                self.add_aside(&mut doc, &aside);
                self.add_before(&mut doc, &before);
                waiting.insert(row.session_id.clone(), (row.seq, doc));
                report.turns += 1;
                // Only its start is ever used, as a later turn's neighbourhood.
                latest.insert(
                    (row.session_id.clone(), role_of(row)),
                    Latest {
                        text: bounded(&text, MAX_CONTEXT_CHARS),
                        seq: Some(row.seq),
                    },
                );
            }
        }
        // What no later message followed in this batch goes in as it is, in the order it was
        // said; the next batch's first message of its session indexes it again with its `next`.
        let mut rest: Vec<(i64, TantivyDocument)> = waiting.into_values().collect();
        rest.sort_by_key(|(seq, _)| *seq);
        for (_, doc) in rest {
            self.add(writer, doc)?;
        }
        state.turns_seq = max_seq.unwrap_or(0).max(after);
        Ok(())
    }

    fn sync_summaries(
        &self,
        store: &Store,
        writer: &mut IndexWriter<TantivyDocument>,
        state: &mut SyncState,
        report: &mut SyncReport,
    ) -> Result<()> {
        let f = self.fields;
        let rows: Vec<(i64, String, String, String, String)> =
            store.graph().with_conn_result(|c| {
                let mut stmt = c.prepare(
                    "SELECT rowid, doc73_session_summary_id, session_id, text, generated_at
                     FROM session_summaries WHERE rowid > ?1 ORDER BY rowid",
                )?;
                stmt.query_map([state.summaries_rowid], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
                })?
                .collect()
            })?;
        for (rowid, id, session, text, at) in rows {
            let mut doc = self.new_doc(format!("summary:{id}"), DocKind::Summary);
            doc.add_text(f.session_id, &session);
            doc.add_i64(f.at, seconds(Some(&at)));
            self.add_body(&mut doc, &text);
            self.add(writer, doc)?;
            state.summaries_rowid = rowid;
            report.summaries += 1;
        }
        Ok(())
    }

    fn sync_entries(
        &self,
        store: &Store,
        writer: &mut IndexWriter<TantivyDocument>,
        state: &mut SyncState,
        report: &mut SyncReport,
    ) -> Result<()> {
        let f = self.fields;
        let ids = store.log_ids()?;
        // A set: at 2,000 logs, asking a list whether it holds each of them cost every sync,
        // every push and every capture, four million comparisons.
        let live: BTreeSet<&str> = ids.iter().map(|id| id.as_str()).collect();
        let gone: Vec<String> = state
            .logs
            .keys()
            .filter(|wc| !live.contains(&wc[..]))
            .cloned()
            .collect();
        for wc in gone {
            writer.delete_term(Term::from_field_text(f.log, &wc));
            state.logs.remove(&wc);
            report.logs_removed += 1;
        }
        for id in &ids {
            let log = store.log(id);
            let bytes = fs::metadata(log.path()).map(|m| m.len()).unwrap_or(0);
            let mark = state.logs.get(id.as_str()).copied().unwrap_or_default();
            if mark.bytes == bytes && bytes > 0 {
                continue;
            }
            let read = log.read()?;
            let done = mark.entries;
            if read.entries.len() < done {
                // A log that shrank was rewritten behind the engine's back: index it anew.
                writer.delete_term(Term::from_field_text(f.log, id.as_str()));
            }
            let start = if read.entries.len() < done { 0 } else { done };
            for entry in &read.entries[start..] {
                let (text, extra) = match &entry.content {
                    EntryContent::OpenQuestion(q) => (q.question.clone(), q.context.clone()),
                    EntryContent::KeyDecision(d) => {
                        (d.decision.clone(), d.rationale.clone().unwrap_or_default())
                    }
                    EntryContent::CrossConversationUpdate(u) => (u.summary.clone(), String::new()),
                    EntryContent::SessionSummaryRef(_) | EntryContent::WorkPhaseChange(_) => {
                        continue;
                    }
                };
                let mut doc = self.new_doc(format!("entry:{}", entry.entry_id), DocKind::Entry);
                doc.add_text(f.log, id.as_str());
                doc.add_text(f.entry_id, entry.entry_id.as_str());
                doc.add_text(f.entry_type, entry.entry_type().as_str());
                doc.add_text(f.work_context_id, id.as_str());
                doc.add_text(f.session_id, entry.source_session_id.as_str());
                doc.add_i64(f.at, entry.happened_at().timestamp());
                let body = if extra.trim().is_empty() {
                    text
                } else {
                    format!("{text}\n{extra}")
                };
                self.add_body(&mut doc, &body);
                self.add(writer, doc)?;
                report.entries += 1;
            }
            state.logs.insert(
                id.to_string(),
                LogMark {
                    entries: read.entries.len(),
                    bytes,
                },
            );
        }
        Ok(())
    }

    /// A new document with its stable id and kind.
    fn new_doc(&self, doc_id: impl AsRef<str>, kind: DocKind) -> TantivyDocument {
        let mut doc = TantivyDocument::default();
        doc.add_text(self.fields.doc_id, doc_id.as_ref());
        doc.add_text(self.fields.kind, kind.as_str());
        doc
    }

    /// A document's own words, bounded, searched both as prose and as whole identifiers.
    fn add_body(&self, doc: &mut TantivyDocument, body: &str) {
        let body = bounded(body, MAX_TEXT_CHARS);
        doc.add_text(self.fields.text, &body);
        doc.add_text(self.fields.ident, &body);
        doc.add_text(self.fields.exchange, &body);
    }

    /// A transcript turn's document: where it was said and, for a message, its words.
    fn turn_doc(&self, row: &TurnRow, text: &str, lines: &mut LineNumbers) -> TantivyDocument {
        let f = self.fields;
        let mut doc = self.new_doc(format!("turn:{}", row.seq), DocKind::Turn);
        doc.add_text(f.session_id, &row.session_id);
        doc.add_text(f.turn_id, &row.turn_id);
        if let Some(record) = record_of(row, lines) {
            doc.add_text(f.record, record);
        }
        doc.add_text(f.harness, &row.harness);
        doc.add_text(f.role, &row.role);
        doc.add_i64(f.at, seconds(row.timestamp.as_deref()));
        self.add_body(&mut doc, text);
        doc
    }

    /// A message's neighbourhood before it, from the session's latest words of each side
    /// (`latest`, filled from the turns earlier syncs indexed, up to `indexed_through`, for a
    /// session first seen in this batch).
    fn turns_before(
        &self,
        store: &Store,
        row: &TurnRow,
        indexed_through: i64,
        latest: &mut HashMap<(String, &'static str), Latest>,
    ) -> Result<Before> {
        let bound = row.seq.min(indexed_through.saturating_add(1));
        let own = role_of(row);
        let other = if own == "user" { "assistant" } else { "user" };
        let mut said = |role: &'static str| -> Result<Latest> {
            let key = (row.session_id.clone(), role);
            if !latest.contains_key(&key) {
                let before = last_text_before(store, &row.session_id, role, bound)?;
                latest.insert(key.clone(), before);
            }
            Ok(latest.get(&key).cloned().unwrap_or_default())
        };
        let (other, own) = (said(other)?, said(own)?);
        Ok(Before {
            other: other.text,
            own: own.text,
            other_seq: other.seq,
        })
    }

    /// Tool output, or what a message showed beside its words: in `tool`, weighted below the
    /// words, and in `ident`, where its paths and identifiers are kept whole.
    fn add_aside(&self, doc: &mut TantivyDocument, aside: &str) {
        if !aside.is_empty() {
            doc.add_text(self.fields.tool, aside);
            doc.add_text(self.fields.ident, aside);
        }
    }

    /// Puts a message's neighbourhood before it into its exchange: the other side's latest
    /// words (the question a reply answers, the options a short "yes" chose from) and its own
    /// side's words before those, so an answer given over three turns is found at each.
    fn add_before(&self, doc: &mut TantivyDocument, before: &Before) {
        for said in [&before.own, &before.other] {
            if !said.is_empty() {
                doc.add_text(self.fields.exchange, bounded(said, MAX_CONTEXT_CHARS));
            }
        }
        if let Some(seq) = before.other_seq {
            doc.add_text(self.fields.answers, format!("turn:{seq}"));
        }
    }

    /// Indexes again, now with `next` as what followed it, the session's message before `row`
    /// that an earlier batch indexed without one (a session's last message waits for its
    /// successor only within a batch). Looks back over the session's last few messages with
    /// words (a harness stores a block of tool calls as a message without any): one that cleans
    /// to nothing (injected context) is no turn of the conversation. The document keeps the
    /// time it first entered the index, which a Topic's collection counts new documents by.
    /// Only turns earlier syncs indexed (through `indexed_through`) can be that message: a
    /// first build has none and asks the store nothing.
    fn reindex_with_next(
        &self,
        store: &Store,
        writer: &mut IndexWriter<TantivyDocument>,
        row: &TurnRow,
        (indexed_through, next): (i64, &str),
        lines: &mut LineNumbers,
    ) -> Result<()> {
        if indexed_through == 0 {
            return Ok(());
        }
        let bound = row.seq.min(indexed_through.saturating_add(1));
        let rows: Vec<TurnRow> = store.graph().with_conn_result(|c| {
            let mut stmt = c.prepare_cached(
                "SELECT seq, turn_id, session_id, harness, role, kind, text, timestamp,
                        source_path, source_offset
                 FROM turns WHERE session_id = ?1 AND seq < ?2 AND kind = 'message'
                   AND text <> ''
                 ORDER BY seq DESC LIMIT 8",
            )?;
            stmt.query_map(rusqlite::params![row.session_id, bound], TurnRow::read)?
                .collect()
        })?;
        let Some((previous, text, aside)) = rows.iter().find_map(|r| match Said::of(r) {
            Some(Said::Message(text, aside)) => Some((r, text, aside)),
            _ => None,
        }) else {
            return Ok(());
        };
        let before = self.turns_before(store, previous, indexed_through, &mut HashMap::new())?;
        let mut doc = self.turn_doc(previous, &text, lines);
        self.add_aside(&mut doc, &aside);
        self.add_before(&mut doc, &before);
        doc.add_text(self.fields.next, bounded(next, MAX_CONTEXT_CHARS));
        let doc_id = format!("turn:{}", previous.seq);
        let first_indexed = self.indexed_at(&doc_id)?;
        writer.delete_term(Term::from_field_text(self.fields.doc_id, &doc_id));
        self.add_indexed(writer, doc, first_indexed)
    }

    /// When the committed document `doc_id` entered the index (`None` when no commit holds it:
    /// it was added moments ago, in this sync).
    fn indexed_at(&self, doc_id: &str) -> Result<Option<i64>> {
        let searcher = self.reader()?.searcher();
        let query = tantivy::query::TermQuery::new(
            Term::from_field_text(self.fields.doc_id, doc_id),
            IndexRecordOption::Basic,
        );
        let top = searcher
            .search(
                &query,
                &tantivy::collector::TopDocs::with_limit(1).order_by_score(),
            )
            .map_err(|e| index_err(&self.dir, e))?;
        let Some((_, addr)) = top.first() else {
            return Ok(None);
        };
        let column = searcher
            .segment_reader(addr.segment_ord)
            .fast_fields()
            .i64("indexed")
            .map_err(|e| index_err(&self.dir, e))?;
        Ok(column.first(addr.doc_id))
    }

    /// Adds a document, stamped with the time it entered the index.
    fn add(&self, writer: &mut IndexWriter<TantivyDocument>, doc: TantivyDocument) -> Result<()> {
        self.add_indexed(writer, doc, None)
    }

    /// Adds a document, stamped with `indexed` (the time an earlier version of it entered the
    /// index), else now.
    fn add_indexed(
        &self,
        writer: &mut IndexWriter<TantivyDocument>,
        mut doc: TantivyDocument,
        indexed: Option<i64>,
    ) -> Result<()> {
        let indexed = indexed.unwrap_or_else(|| crate::base::clock::now().timestamp());
        doc.add_i64(self.fields.indexed, indexed);
        let key = doc
            .get_first(self.fields.doc_id)
            .and_then(|v| v.as_str())
            .map(vectors::key_of)
            .unwrap_or_default();
        doc.add_u64(self.fields.key, key);
        writer
            .add_document(doc)
            .map_err(|e| index_err(&self.dir, e))?;
        Ok(())
    }

    /// A stored text field of a document, or empty.
    fn text_of(&self, doc: &TantivyDocument, field: Field) -> String {
        doc.get_first(field)
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_owned()
    }
}

/// One transcript turn as the sync reads it.
struct TurnRow {
    seq: i64,
    turn_id: String,
    session_id: String,
    harness: String,
    role: String,
    kind: String,
    text: String,
    timestamp: Option<String>,
    source_path: String,
    source_offset: i64,
}

impl TurnRow {
    /// A row of `SELECT seq, turn_id, session_id, harness, role, kind, text, timestamp,
    /// source_path, source_offset`.
    fn read(r: &rusqlite::Row<'_>) -> rusqlite::Result<TurnRow> {
        Ok(TurnRow {
            seq: r.get(0)?,
            turn_id: r.get(1)?,
            session_id: r.get(2)?,
            harness: r.get(3)?,
            role: r.get(4)?,
            kind: r.get(5)?,
            text: r.get(6)?,
            timestamp: r.get(7)?,
            source_path: r.get(8)?,
            source_offset: r.get(9)?,
        })
    }
}

/// What a turn says, as the index reads it: the person's or the assistant's words, cleaned of
/// what the harness injected, or a tool's output, bounded (an assistant's message that shows
/// only code or a table is read as one).
enum Said {
    /// Words of a side of the conversation, and what an assistant's message showed beside
    /// them (code, tables, quoted lines), indexed as tool output is.
    Message(String, String),
    Tool(String),
}

impl Said {
    /// `None` for a turn that says nothing once cleaned, and for any other kind of record.
    fn of(row: &TurnRow) -> Option<Said> {
        let said = match (row.role.as_str(), row.kind.as_str()) {
            ("user", "message") => Said::Message(person_text(&row.text).text, String::new()),
            ("assistant", "message") => {
                let (prose, aside) = assistant_parts(&row.text);
                // A message that shows only code or a table has no words of its own: it is
                // found by what it shows, as a tool's output is.
                if prose.text.trim().is_empty() {
                    Said::Tool(bounded(&aside, MAX_TOOL_CHARS))
                } else {
                    Said::Message(prose.text, bounded(&aside, MAX_TOOL_CHARS))
                }
            }
            (_, "tool_result") => Said::Tool(bounded(&row.text, MAX_TOOL_CHARS)),
            _ => return None,
        };
        match &said {
            Said::Message(t, _) | Said::Tool(t) if t.trim().is_empty() => None,
            _ => Some(said),
        }
    }
}

/// A message's neighbourhood before it in its session (see [`SearchIndex::add_before`]).
struct Before {
    /// The other side's latest words.
    other: String,
    /// The same side's latest words before this message.
    own: String,
    /// The other side's latest message (its turn's `seq`): what this message answers, when it
    /// asked something.
    other_seq: Option<i64>,
}

/// Which side said a message: `user` or `assistant`.
fn role_of(row: &TurnRow) -> &'static str {
    if row.role == "user" {
        "user"
    } else {
        "assistant"
    }
}

/// The turn's own id in the harness's file, which a person can look up there: Claude Code's
/// `uuid` and OpenClaw's entry `id` (the tail of our turn id); else the record's line number,
/// counted in the file when it is still on disk: Codex records carry no id of their own, nor do
/// the entries of pi's first session format.
fn record_of(row: &TurnRow, lines: &mut LineNumbers) -> Option<String> {
    native_record(row).or_else(|| {
        lines
            .line_at(Path::new(&row.source_path), row.source_offset)
            .map(|n| format!("line:{n}"))
    })
}

/// The harness's own id of the turn's record, when it wrote one.
fn native_record(row: &TurnRow) -> Option<String> {
    if row.harness == "codex" {
        return None;
    }
    let prefix = format!(":{}:", row.session_id);
    let at = row.turn_id.find(&prefix)?;
    let native = &row.turn_id[at + prefix.len()..];
    // A turn without a native id has a content hash (`h…`) instead: no record to point at.
    let hashed = native.starts_with('h') && native.len() == 21;
    (!native.is_empty() && !hashed).then(|| native.to_owned())
}

/// Line numbers of byte offsets in source files, each file read once per sync.
#[derive(Default)]
struct LineNumbers {
    starts: HashMap<PathBuf, Option<Vec<u64>>>,
}

impl LineNumbers {
    fn line_at(&mut self, path: &Path, offset: i64) -> Option<u64> {
        let starts = self.starts.entry(path.to_owned()).or_insert_with(|| {
            let bytes = fs::read(path).ok()?;
            let mut starts = vec![0u64];
            starts.extend(
                bytes
                    .iter()
                    .enumerate()
                    .filter(|(_, b)| **b == b'\n')
                    .map(|(i, _)| i as u64 + 1),
            );
            Some(starts)
        });
        let starts = starts.as_ref()?;
        let offset = u64::try_from(offset).ok()?;
        // The record starts at `offset`: its line is the number of line starts at or before it.
        Some(starts.partition_point(|s| *s <= offset) as u64)
    }
}

/// The latest words of `role` (`user` or `assistant`) in the session before `seq`, cleaned as
/// the sync cleans them, for the `exchange` field of a session's first turns in a batch. Messages
/// that clean to nothing (injected context, tool chatter) are passed over.
fn last_text_before(store: &Store, session: &str, role: &str, seq: i64) -> Result<Latest> {
    if seq <= 1 {
        // Nothing comes before the store's first turn (a first build asks nothing).
        return Ok(Latest::default());
    }
    let texts: Vec<(i64, String)> = store.graph().with_conn_result(|c| {
        let mut stmt = c.prepare_cached(
            "SELECT seq, text FROM turns
             WHERE session_id = ?1 AND seq < ?2 AND kind = 'message' AND role = ?3
               AND text <> ''
             ORDER BY seq DESC LIMIT 8",
        )?;
        stmt.query_map(rusqlite::params![session, seq, role], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?
        .collect()
    })?;
    Ok(texts
        .iter()
        .map(|(seq, t)| {
            let text = if role == "user" {
                person_text(t).text
            } else {
                assistant_prose(t).text
            };
            Latest {
                text,
                seq: Some(*seq),
            }
        })
        .find(|l| !l.text.trim().is_empty())
        .unwrap_or_default())
}

/// A side's latest words in a session, and the message (`seq`) that said them.
#[derive(Debug, Clone, Default)]
struct Latest {
    text: String,
    seq: Option<i64>,
}

fn seconds(timestamp: Option<&str>) -> i64 {
    timestamp
        .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
        .map(|t| t.with_timezone(&Utc).timestamp())
        .unwrap_or(0)
}

fn bounded(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => text[..at].to_owned(),
        None => text.to_owned(),
    }
}

/// Whether the store holds something the index does not, by the sync state `state` (see
/// [`SearchIndex::is_behind`]).
fn behind(store: &Store, state: &SyncState) -> Result<bool> {
    if state.version != INDEX_VERSION {
        return Ok(true);
    }
    let (turns, summaries): (Option<i64>, Option<i64>) = store.graph().with_conn_result(|c| {
        c.query_row(
            "SELECT (SELECT max(seq) FROM turns), (SELECT max(rowid) FROM session_summaries)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
    })?;
    if turns.unwrap_or(0) > state.turns_seq || summaries.unwrap_or(0) > state.summaries_rowid {
        return Ok(true);
    }
    let (library, observations, nodes) = marks(store)?;
    if library != state.library_mark
        || observations > state.observations_id
        || nodes != state.nodes_mark
    {
        return Ok(true);
    }
    let ids = store.log_ids()?;
    if ids.len() != state.logs.len() {
        return Ok(true);
    }
    for id in &ids {
        let bytes = fs::metadata(store.log(id).path())
            .map(|m| m.len())
            .unwrap_or(0);
        match state.logs.get(id.as_str()) {
            Some(mark) if mark.bytes == bytes => {}
            _ => return Ok(true),
        }
    }
    Ok(false)
}

fn write_state(dir: &Path, state: &SyncState) -> Result<()> {
    // Compact: every sync writes it, and at the spec's scale it holds 12,000 marks.
    let bytes = serde_json::to_vec(state)
        .map_err(|e| Error::InvalidEntry(format!("search index state: {e}")))?;
    atomic_write(&dir.join(STATE_FILE), &bytes)
}

fn read_state(dir: &Path) -> SyncState {
    fs::read(dir.join(STATE_FILE))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

fn remove_dir(dir: &Path) -> Result<()> {
    match fs::remove_dir_all(dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io(dir, e)),
    }
}

fn index_err(dir: &Path, e: impl std::fmt::Display) -> Error {
    Error::Index {
        path: dir.to_owned(),
        problem: e.to_string(),
    }
}

#[cfg(test)]
mod tests;
