//! Constellation views (CSA §4): the derived, per-work-context picture of where the work stands,
//! built from the continuity log and the graph by the rules of CSA §4.2 and written to
//! `mirror/work_context/{wc_id}.json`.
//!
//! A view is derived data: deleting it loses nothing, and rebuilding it from the same canonical
//! data on the same day yields the same bytes. Its reference time is the start of the UTC day it
//! was built on (so the dynamic window and decay are evaluated per day, and a view from an earlier
//! day counts as stale); anything that decays later that day is still in the view, and the brief
//! re-checks `decay_at` against the exact time.
//!
//! Staleness is a fingerprint: the log file's length and mtime, the work context's generation
//! (bumped in the same transaction as every graph change the view depends on, see
//! [`crate::graph::touch_in`]) and the reference day. [`view`] serves a stale view with `stale: true` and leaves
//! the rebuild to its caller, so the request that found it never waits for one (CSA §4.3).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::PathBuf;

use chrono::{DateTime, Duration, NaiveDate, Utc};
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};

use crate::base::config::ContinuityConfig;
use crate::base::error::{Error, Result};
use crate::base::fsutil::atomic_write;
use crate::base::ids::{EntryId, SessionId, WorkContextId};
use crate::base::tokens::{Line, condense};
use crate::continuity::{CaptureMode, ContinuityEntry, EntryContent, WorkPhase};
use crate::graph::nodes::{BriefForm, Lifecycle, Warrant, brief_form};
use crate::graph::store::Store;

/// The view file's own schema version (4: the latest session says Last and Now on lines of
/// their own).
pub const VIEW_SCHEMA_VERSION: u32 = 4;
/// CSA §4.2 step 3: at most this many unresolved open questions.
pub const MAX_OPEN_QUESTIONS: usize = 10;
/// CSA §4.2 step 4: at most this many non-superseded key decisions.
pub const MAX_KEY_DECISIONS: usize = 5;
/// Undelivered updates kept; CSA gives no cap, but a context nobody opened for months must not
/// grow an unbounded view.
pub const MAX_UPDATES: usize = 10;
/// Baseline graph nodes (linked entities, goals, obligations) kept per kind.
pub const MAX_NODES: usize = 10;
/// Build-time exclusions kept per reason, for the inspector's "excluded" rows.
pub const MAX_EXCLUDED_PER_REASON: usize = 20;
/// How long a delivered update is still shown as "excluded: delivered" (CSA §4.2, "On delivery").
pub const DELIVERED_KEPT_DAYS: i64 = 7;
/// Characters of a session summary shown on a card line.
const SUMMARY_CHARS: usize = 130;
/// The latest session's lines say what was done (*Last*: the request, the gist of the agent's
/// report, the files changed) and where it stands (*Now*): given most of the card. On the
/// handoff benchmark's dev projects 420 / 100 covered 16.4% of the facts against 14.7% for
/// 300 / 75 when the line was the summary's first 420 characters; with the report's gist and
/// the Now line apart, the card covers 20.2% (the peer at its budget 17.2%).
const LATEST_SUMMARY_CHARS: usize = 420;
/// … and at most this many of the card's 120 tokens.
const LATEST_SUMMARY_TOKENS: u32 = 100;
/// The resume card's room for lines: Tier 1's cap of 120 tokens less the card's wrapper (14);
/// the brief's tests check both. The latest session's line is cut to what this leaves beside
/// the header, or the card would drop it whole and say only the context's name.
pub const CARD_LINES_ROOM: u32 = 106;
/// Characters of the latest session's *Now* line.
const NOW_CHARS: usize = 160;
/// Characters of a question, decision or update shown on a card line.
const ITEM_CHARS: usize = 200;

/// One `session_history` item (CSA §4.1) with what the brief needs to render and explain it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionHistoryItem {
    pub entry_id: EntryId,
    pub doc73_session_summary_id: String,
    pub captured_at: DateTime<Utc>,
    pub source_session_id: SessionId,
    pub turn_count: u32,
    pub capture_mode: CaptureMode,
    /// The session's last turn when known, else the capture time: the "latest session entry"
    /// time of the 30-minute injection rule.
    pub last_activity_at: DateTime<Utc>,
    /// The last turn the capture saw (from the summary id), for links to the transcript.
    pub turn_seq: Option<i64>,
    pub decay_at: DateTime<Utc>,
    /// The summary text, fetched by id; empty when the summary record is missing.
    pub summary: String,
    /// The card line when this is the latest session (*Last*), and when it is an earlier one.
    pub line_latest: Line,
    pub line: Line,
    /// Where the latest session left the work (*Now*), when its summary says.
    #[serde(default)]
    pub line_now: Option<Line>,
}

/// One open question (CSA §4.1 `open_questions`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuestionItem {
    pub entry_id: EntryId,
    pub question: String,
    pub context: String,
    pub captured_at: DateTime<Utc>,
    pub source_session_id: SessionId,
    pub resolved: bool,
    pub reduced_confidence: bool,
    pub turn_seq: Option<i64>,
    pub decay_at: DateTime<Utc>,
    pub line: Line,
}

/// One key decision (CSA §4.1 `key_decisions`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecisionItem {
    pub entry_id: EntryId,
    pub decision: String,
    pub rationale: Option<String>,
    pub captured_at: DateTime<Utc>,
    pub source_session_id: SessionId,
    pub superseded_by: Option<EntryId>,
    pub reduced_confidence: bool,
    pub turn_seq: Option<i64>,
    pub decay_at: DateTime<Utc>,
    pub line: Line,
}

/// One undelivered cross-conversation update (CSA §4.1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UpdateItem {
    pub entry_id: EntryId,
    pub summary: String,
    pub source_session_id: SessionId,
    pub captured_at: DateTime<Utc>,
    pub delivered: bool,
    pub line: Line,
}

/// A baseline graph node linked to the work context (CSA §4.2 input 1 and step 7).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeItem {
    pub node_id: String,
    /// `entity`, `goal` or `obligation`.
    pub kind: String,
    pub text: String,
    pub due_at: Option<String>,
    /// The card line for goals and obligations; entities are context, not card lines.
    pub line: Option<Line>,
    /// An obligation's use warrant and why it has it; the line is hedged to match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warrant: Option<(String, String)>,
    /// Why an obligation is in the view but may not be shown (its warrant, or it was retired or
    /// superseded lately); `line` is then `None`. `(retired, detail)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub excluded: Option<(bool, String)>,
}

/// Why the builder left a log entry out of the view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Exclusion {
    Decayed,
    Resolved,
    Superseded,
    Delivered,
    /// Beyond a cap of CSA §4.2 (10 questions, 5 decisions).
    OverCap,
    /// A session summary beyond the dynamic window (CSA §3.4).
    OutsideWindow,
}

impl Exclusion {
    pub fn as_str(self) -> &'static str {
        match self {
            Exclusion::Decayed => "decayed",
            Exclusion::Resolved => "resolved",
            Exclusion::Superseded => "superseded",
            Exclusion::Delivered => "delivered",
            Exclusion::OverCap => "over_cap",
            Exclusion::OutsideWindow => "outside_window",
        }
    }
}

/// A log entry the builder excluded, kept so the inspector can say why it is not in a brief.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExcludedItem {
    pub entry_id: EntryId,
    /// The entry type.
    pub kind: String,
    pub source_session_id: SessionId,
    pub captured_at: DateTime<Utc>,
    pub text: String,
    pub reason: Exclusion,
    pub detail: String,
}

/// A work context's constellation view (CSA §4.1 `ContinuityEnrichmentSchema` plus the baseline).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Constellation {
    pub schema_version: u32,
    pub work_context_id: WorkContextId,
    pub work_context_name: String,
    pub local_only: bool,
    /// The UTC day the view was built for.
    pub as_of: NaiveDate,
    pub fingerprint: String,
    pub sessions_in_last_30_days: u32,
    /// `min(max_session_history_window, sessions_in_last_30_days + 2)` (CSA §3.4).
    pub effective_window: u32,
    pub active_work_phase: WorkPhase,
    pub phase_entry_id: Option<EntryId>,
    /// The header line: name and phase.
    pub header: Line,
    pub session_history: Vec<SessionHistoryItem>,
    pub open_questions: Vec<QuestionItem>,
    pub key_decisions: Vec<DecisionItem>,
    pub cross_conversation_updates: Vec<UpdateItem>,
    pub entities: Vec<NodeItem>,
    pub goals: Vec<NodeItem>,
    pub obligations: Vec<NodeItem>,
    pub excluded: Vec<ExcludedItem>,
    /// Log lines that could not be read (counted, never fatal).
    pub skipped_lines: u32,
}

impl Constellation {
    /// Whether the view has any continuity data (CSA §6.1 injection rule 1).
    pub fn has_continuity_data(&self) -> bool {
        !self.session_history.is_empty()
            || !self.open_questions.is_empty()
            || !self.key_decisions.is_empty()
            || !self.cross_conversation_updates.is_empty()
            || self.phase_entry_id.is_some()
    }
}

/// A view as read for a request.
#[derive(Debug, Clone)]
pub struct ViewRead {
    pub constellation: Constellation,
    /// The view no longer matches the canonical data; a rebuild is due (CSA §4.3).
    pub stale: bool,
}

/// Where a work context's view lives.
pub fn view_path(store: &Store, wc: &WorkContextId) -> PathBuf {
    store
        .root()
        .join("mirror")
        .join("work_context")
        .join(format!("{}.json", wc.as_str()))
}

/// The start of `now`'s UTC day: the reference time of views built at `now`.
fn day_start(now: DateTime<Utc>) -> (NaiveDate, DateTime<Utc>) {
    let day = now.date_naive();
    (day, day.and_time(chrono::NaiveTime::MIN).and_utc())
}

/// The fingerprint of the canonical data a view of `wc` built at `now` would come from.
pub fn fingerprint(store: &Store, wc: &WorkContextId, now: DateTime<Utc>) -> Result<String> {
    let log = store.log(wc);
    let (len, mtime) = match fs::metadata(log.path()) {
        Ok(m) => (
            m.len(),
            m.modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos()),
        ),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (0, 0),
        Err(e) => return Err(Error::io(log.path(), e)),
    };
    let generation: i64 = store.graph().with_conn_result(|c| {
        c.query_row(
            "SELECT generation FROM constellation_generations WHERE work_context_id = ?1",
            [wc.as_str()],
            |r| r.get(0),
        )
        .optional()
        .map(Option::unwrap_or_default)
    })?;
    Ok(format!(
        "log={len}@{mtime};generation={generation};day={}",
        day_start(now).0
    ))
}

/// The view of `wc`, built (and written) now if there is none or it cannot be read; an existing
/// view whose fingerprint no longer matches is returned as is, with `stale: true`.
pub fn view(store: &Store, wc: &WorkContextId, now: DateTime<Utc>) -> Result<ViewRead> {
    let path = view_path(store, wc);
    let current = fingerprint(store, wc, now)?;
    match fs::read(&path) {
        Ok(bytes) => match serde_json::from_slice::<Constellation>(&bytes) {
            // A view built for a later day than the request (a replay of an earlier moment with
            // `ELNOR_NOW`) shows work that had not happened yet: it is rebuilt, never served. An
            // earlier day's view is served marked stale, as any stale view is, and rebuilt off
            // the request path.
            Ok(c) if c.schema_version == VIEW_SCHEMA_VERSION && c.as_of > day_start(now).0 => {}
            Ok(c) if c.schema_version == VIEW_SCHEMA_VERSION => {
                let stale = c.fingerprint != current;
                return Ok(ViewRead {
                    constellation: c,
                    stale,
                });
            }
            // An unreadable or older view is derived data: rebuild it rather than fail.
            _ => {
                tracing::warn!(path = %path.display(), "unreadable constellation view; rebuilding")
            }
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(Error::io(&path, e)),
    }
    Ok(ViewRead {
        constellation: rebuild(store, wc, now)?,
        stale: false,
    })
}

/// Builds the view of `wc` and writes it atomically.
pub fn rebuild(store: &Store, wc: &WorkContextId, now: DateTime<Utc>) -> Result<Constellation> {
    // The fingerprint is taken before reading, so a change racing with the build leaves a view
    // that is (correctly) seen as stale next time rather than one that hides the change.
    let fingerprint = fingerprint(store, wc, now)?;
    let config = store.config()?;
    let path = view_path(store, wc);
    let counter = fs::read(&path)
        .ok()
        .and_then(|b| serde_json::from_slice::<Constellation>(&b).ok())
        .map(|old| Counter::from_view(&old))
        .unwrap_or_default();
    let c = build(store, wc, &config, now, fingerprint, counter)?;
    let dir = path.parent().unwrap_or(store.root());
    fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let mut bytes =
        serde_json::to_vec_pretty(&c).map_err(|e| Error::InvalidEntry(e.to_string()))?;
    bytes.push(b'\n');
    atomic_write(&path, &bytes)?;
    Ok(c)
}

/// Rebuilds every work context's view (those with a log or a graph row). Returns how many.
pub fn rebuild_all(store: &Store, now: DateTime<Utc>) -> Result<usize> {
    let mut ids: BTreeSet<WorkContextId> = store.log_ids()?.into_iter().collect();
    for id in store.graph().work_context_ids()? {
        if let Ok(id) = WorkContextId::new(id) {
            ids.insert(id);
        }
    }
    for id in &ids {
        rebuild(store, id, now)?;
    }
    Ok(ids.len())
}

/// Rebuilds the views of `contexts` after a trigger (CSA §4.3). Views are derived data, so a
/// failed rebuild is logged, not raised: the next brief finds the view stale and serves it marked.
pub fn refresh<'a>(
    store: &Store,
    contexts: impl IntoIterator<Item = &'a WorkContextId>,
    now: DateTime<Utc>,
) {
    for wc in contexts {
        if let Err(e) = rebuild(store, wc, now) {
            tracing::warn!(work_context = %wc, error = %e, "constellation rebuild failed");
        }
    }
}

/// Rebuilds the views that show `node`: its own work context's and those of the contexts linked
/// to its entity.
pub fn refresh_for_node(
    store: &Store,
    node: &crate::graph::nodes::Node,
    now: DateTime<Utc>,
) -> Result<()> {
    let ids: Vec<String> = store.graph().with_conn_result(|c| {
        let mut stmt = c.prepare_cached(
            "SELECT ?1 WHERE ?1 IS NOT NULL
             UNION SELECT work_context_id FROM work_context_entities WHERE entity_id = ?2",
        )?;
        stmt.query_map(
            rusqlite::params![node.work_context_id, node.entity_id],
            |r| r.get(0),
        )?
        .collect()
    })?;
    let ids: Vec<WorkContextId> = ids
        .into_iter()
        .filter_map(|id| WorkContextId::new(id).ok())
        .collect();
    refresh(store, &ids, now);
    Ok(())
}

/// Removes a work context's view (after a merge absorbed the context).
pub fn remove_view(store: &Store, wc: &WorkContextId) -> Result<()> {
    let path = view_path(store, wc);
    match fs::remove_file(&path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io(&path, e)),
    }
}

/// Counts card lines, remembering the counts of the view being replaced: a rebuild after a
/// delivery or a decay changes which items are in the view, not their text, so it needs no
/// tokenizer at all (loading it costs ~45 ms, and such rebuilds run in the brief's own process).
/// A remembered count is the count the tokenizer gave for the same text, so the bytes written
/// are the same as a rebuild from nothing.
#[derive(Default)]
struct Counter {
    known: std::collections::HashMap<String, u32>,
}

impl Counter {
    fn from_view(c: &Constellation) -> Counter {
        let mut known = std::collections::HashMap::new();
        let mut add = |l: &Line| {
            known.insert(l.text.clone(), l.tokens);
        };
        add(&c.header);
        for s in &c.session_history {
            add(&s.line_latest);
            add(&s.line);
            if let Some(l) = &s.line_now {
                add(l);
            }
        }
        c.open_questions.iter().for_each(|q| add(&q.line));
        c.key_decisions.iter().for_each(|d| add(&d.line));
        c.cross_conversation_updates
            .iter()
            .for_each(|u| add(&u.line));
        for n in c.goals.iter().chain(&c.obligations) {
            if let Some(l) = &n.line {
                add(l);
            }
        }
        Counter { known }
    }

    fn line(&mut self, text: String) -> Line {
        let text = crate::base::tokens::one_line(&text);
        match self.known.get(&text) {
            Some(tokens) => Line::counted(text, *tokens),
            None => {
                let line = Line::new(&text);
                self.known.insert(line.text.clone(), line.tokens);
                line
            }
        }
    }
}

/// The last turn a capture saw, from its summary id `ss_{hash}_{last_seq}`.
pub(crate) fn turn_seq_of(summary_id: Option<&str>) -> Option<i64> {
    summary_id?.rsplit_once('_')?.1.parse().ok()
}

fn phase_words(phase: WorkPhase) -> Option<&'static str> {
    match phase {
        WorkPhase::Research => Some("research phase"),
        WorkPhase::Drafting => Some("drafting phase"),
        WorkPhase::Review => Some("review phase"),
        WorkPhase::Revision => Some("revision phase"),
        WorkPhase::WaitingForExternal => Some("waiting on someone else"),
        WorkPhase::Completed => Some("completed"),
        WorkPhase::Paused => Some("paused"),
        WorkPhase::Unknown => None,
    }
}

/// A summary's *Last* and *Now*: a templated summary's first line and the line it labels so
/// (the rest is its record); a summary a model wrote is all *Last*, however many lines it has.
pub(crate) fn summary_lines(summary: &str, mode: CaptureMode) -> (&str, Option<&str>) {
    if mode != CaptureMode::Deterministic {
        return (summary, None);
    }
    let mut lines = summary.lines();
    let last = lines.next().unwrap_or("");
    let now = lines.find_map(|l| l.strip_prefix(crate::inputs::capture::SUMMARY_NOW));
    (last, now)
}

/// The latest session's *Last* line and its *Now* line, within `room` tokens: what the card says
/// of what was done last and where it stands, from that session's summary.
fn latest_lines(
    counter: &mut dyn FnMut(String) -> Line,
    room: u32,
    (summary, mode): (&str, CaptureMode),
    day: &str,
    turn_count: u32,
) -> (Line, Option<Line>) {
    let (last, now) = summary_lines(summary, mode);
    // Now takes at most a third of the room, so Last always has the most of it.
    let line_now = now.map(|now| {
        fitted_line(counter, room / 3, NOW_CHARS, |chars| {
            format!("Now: {}", condense(now, chars))
        })
    });
    let last_room = room.saturating_sub(line_now.as_ref().map_or(0, |l| l.tokens));
    let line_latest = fitted_line(counter, last_room, LATEST_SUMMARY_CHARS, |chars| {
        if last.is_empty() {
            format!("Last ({day}): {turn_count} turn(s), summary not available")
        } else {
            format!("Last ({day}): {}", condense(last, chars))
        }
    });
    (line_latest, line_now)
}

/// The *Last* and *Now* lines of a session outside any work context (a folder none claims), cut
/// as a card's are beside a header of `header_tokens`, each counted by `count` (the brief's kept
/// counts, so that the brief loads no tokenizer): the brief's card for such a folder says what
/// was done there last in the same words a context's card would. `summary` is not empty.
pub(crate) fn session_card_lines(
    (summary, mode): (&str, CaptureMode),
    ended: DateTime<Utc>,
    header_tokens: u32,
    count: &mut dyn FnMut(String) -> Line,
) -> (Line, Option<Line>) {
    let room = LATEST_SUMMARY_TOKENS.min(CARD_LINES_ROOM.saturating_sub(header_tokens));
    let day = ended.format("%a %b %-d").to_string();
    // The turn count only says something when the summary is empty, which it is not here.
    latest_lines(count, room, (summary, mode), &day, 0)
}

/// The line `make(chars)` gives, starting from `chars` characters, cut to `room` tokens, not
/// only characters: in a language the tokenizer splits finely (Chinese, Japanese), 300
/// characters would be a card of their own and the line would be dropped whole. A proportional cut, recounted, converges in a step or two.
fn fitted_line(
    counter: &mut dyn FnMut(String) -> Line,
    room: u32,
    mut chars: usize,
    make: impl Fn(usize) -> String,
) -> Line {
    let mut line = counter(make(chars));
    for _ in 0..3 {
        if line.tokens <= room {
            break;
        }
        chars = chars * room as usize * 9 / (line.tokens as usize * 10);
        line = counter(make(chars));
    }
    line
}

/// Lowercased, whitespace-normalised text: two entries with the same key are one item.
fn item_key(text: &str) -> String {
    crate::base::tokens::one_line(text).to_lowercase()
}

struct Excluder {
    items: Vec<ExcludedItem>,
    per_reason: BTreeMap<Exclusion, usize>,
}

impl Excluder {
    fn push(&mut self, e: &ContinuityEntry, reason: Exclusion, detail: String) {
        let n = self.per_reason.entry(reason).or_default();
        if *n >= MAX_EXCLUDED_PER_REASON {
            return;
        }
        *n += 1;
        self.items.push(ExcludedItem {
            entry_id: e.entry_id.clone(),
            kind: e.entry_type().as_str().to_owned(),
            source_session_id: e.source_session_id.clone(),
            captured_at: e.captured_at,
            text: condense(&e.content.headline(), ITEM_CHARS),
            reason,
            detail,
        });
    }
}

/// CSA §4.2 build procedure over the log and the graph, with `now`'s day as reference time.
fn build(
    store: &Store,
    wc: &WorkContextId,
    config: &ContinuityConfig,
    now: DateTime<Utc>,
    fingerprint: String,
    mut counter: Counter,
) -> Result<Constellation> {
    let (as_of, reference) = day_start(now);
    let read = store.log(wc).read()?;
    let graph = store.graph();
    let (name, local_only) =
        graph.with_conn_result(|c| crate::graph::contexts::name_and_local_only_in(c, wc))?;
    let delivered = graph.update_deliveries(wc.as_str())?;

    let mut excluder = Excluder {
        items: Vec::new(),
        per_reason: BTreeMap::new(),
    };
    // Newest first: every cap and window keeps the most recent items. Ties (one capture writes
    // several entries at one instant) keep log order.
    let mut entries: Vec<&ContinuityEntry> = read.entries.iter().collect();
    entries.reverse();
    entries.sort_by_key(|e| std::cmp::Reverse(e.happened_at()));

    // Step 1: non-expired entries. Undelivered updates do not decay: their TTL runs from
    // delivery (CSA §3.3), and a context nobody opened for weeks is exactly where they matter.
    let mut live: Vec<&ContinuityEntry> = Vec::new();
    for e in entries {
        let is_update = matches!(e.content, EntryContent::CrossConversationUpdate(_));
        let delivered_at = delivered
            .get(e.entry_id.as_str())
            .copied()
            .or(e.delivered.then_some(e.captured_at));
        if is_update {
            if let Some(at) = delivered_at {
                if at + Duration::days(DELIVERED_KEPT_DAYS) > reference {
                    excluder.push(
                        e,
                        Exclusion::Delivered,
                        format!(
                            "delivered by a brief on {}",
                            at.format("%Y-%m-%d %H:%M UTC")
                        ),
                    );
                }
                continue;
            }
        } else if e.decay_at <= reference {
            excluder.push(
                e,
                Exclusion::Decayed,
                format!("decayed on {}", e.decay_at.format("%Y-%m-%d")),
            );
            continue;
        }
        live.push(e);
    }

    // Step 2: session summaries within the dynamic window, their text fetched by id.
    let summaries: Vec<&ContinuityEntry> = live
        .iter()
        .copied()
        .filter(|e| matches!(e.content, EntryContent::SessionSummaryRef(_)))
        .collect();
    let month_ago = reference - Duration::days(30);
    let recent_sessions: BTreeSet<&str> = summaries
        .iter()
        .filter(|e| e.happened_at() >= month_ago)
        .map(|e| e.source_session_id.as_str())
        .collect();
    let sessions_in_last_30_days = recent_sessions.len() as u32;
    let effective_window = config
        .max_session_history_window
        .min(sessions_in_last_30_days + 2);
    // The longest header this context can have (its name and the longest phase words) bounds
    // the latest session's line, whatever phase the entries below set.
    let longest_header = counter.line(format!(
        "{} — waiting on someone else.",
        condense(&name, 80)
    ));
    let latest_room =
        LATEST_SUMMARY_TOKENS.min(CARD_LINES_ROOM.saturating_sub(longest_header.tokens));
    let mut session_history = Vec::new();
    for (i, e) in summaries.iter().enumerate() {
        let EntryContent::SessionSummaryRef(s) = &e.content else {
            continue;
        };
        if i >= effective_window as usize {
            excluder.push(
                e,
                Exclusion::OutsideWindow,
                format!(
                    "beyond the dynamic window of {effective_window} session(s) \
                     (min({}, {sessions_in_last_30_days} sessions in 30 days + 2))",
                    config.max_session_history_window
                ),
            );
            continue;
        }
        let (text, last_turn): (Option<String>, Option<String>) = graph.with_conn_result(|c| {
            let text = c
                .query_row(
                    "SELECT text FROM session_summaries WHERE doc73_session_summary_id = ?1",
                    [&s.doc73_session_summary_id],
                    |r| r.get(0),
                )
                .optional()?;
            let last = c
                .query_row(
                    "SELECT last_turn_at FROM transcript_sessions WHERE session_id = ?1",
                    [e.source_session_id.as_str()],
                    |r| r.get::<_, Option<String>>(0),
                )
                .optional()?
                .flatten();
            Ok((text, last))
        })?;
        let last_activity_at = last_turn
            .and_then(|t| DateTime::parse_from_rfc3339(&t).ok())
            .map(|t| t.with_timezone(&Utc))
            .filter(|t| *t <= e.happened_at())
            .unwrap_or(e.happened_at());
        let summary = text.unwrap_or_default();
        let day = last_activity_at.format("%a %b %-d");
        let (line_latest, line_now) = latest_lines(
            &mut |text| counter.line(text),
            latest_room,
            (&summary, e.capture_mode),
            &day.to_string(),
            s.turn_count,
        );
        let shown = |chars: usize| {
            if summary.is_empty() {
                format!("{} turn(s), summary not available", s.turn_count)
            } else {
                condense(&summary, chars)
            }
        };
        let line = counter.line(format!("Earlier session ({day}): {}", shown(SUMMARY_CHARS)));
        session_history.push(SessionHistoryItem {
            entry_id: e.entry_id.clone(),
            doc73_session_summary_id: s.doc73_session_summary_id.clone(),
            captured_at: e.captured_at,
            source_session_id: e.source_session_id.clone(),
            turn_count: s.turn_count,
            capture_mode: e.capture_mode,
            last_activity_at,
            turn_seq: turn_seq_of(Some(&s.doc73_session_summary_id)),
            decay_at: e.decay_at,
            summary,
            line_latest,
            line,
            line_now,
        });
    }

    // Step 3: open questions, latest record per question; resolved ones out; cap 10.
    let mut seen_questions = BTreeSet::new();
    let mut open_questions = Vec::new();
    // Step 4: key decisions, latest record per decision; superseded ones out; cap 5.
    let mut seen_decisions = BTreeSet::new();
    let mut key_decisions = Vec::new();
    // Step 5: undelivered updates.
    let mut cross_conversation_updates = Vec::new();
    // Step 6: the latest phase.
    let mut phase: Option<(WorkPhase, EntryId)> = None;
    for e in &live {
        let turn_seq = turn_seq_of(e.linked_doc73_session_summary_id.as_deref());
        match &e.content {
            EntryContent::OpenQuestion(q) => {
                if !seen_questions.insert(item_key(&q.question)) {
                    continue;
                }
                if q.resolved {
                    let when = q
                        .resolved_at
                        .map(|t| format!(" on {}", t.format("%Y-%m-%d")))
                        .unwrap_or_default();
                    excluder.push(e, Exclusion::Resolved, format!("marked resolved{when}"));
                } else if open_questions.len() >= MAX_OPEN_QUESTIONS {
                    excluder.push(
                        e,
                        Exclusion::OverCap,
                        format!("beyond the {MAX_OPEN_QUESTIONS} most recent open questions"),
                    );
                } else {
                    let reduced = e.is_reduced_confidence();
                    open_questions.push(QuestionItem {
                        entry_id: e.entry_id.clone(),
                        question: q.question.clone(),
                        context: q.context.clone(),
                        captured_at: e.captured_at,
                        source_session_id: e.source_session_id.clone(),
                        resolved: false,
                        reduced_confidence: reduced,
                        turn_seq,
                        decay_at: e.decay_at,
                        line: counter.line(format!("Next: {}", condense(&q.question, ITEM_CHARS))),
                    });
                }
            }
            EntryContent::KeyDecision(d) => {
                if !seen_decisions.insert(item_key(&d.decision)) {
                    continue;
                }
                if let Some(by) = &d.superseded_by {
                    excluder.push(e, Exclusion::Superseded, format!("superseded by {by}"));
                } else if key_decisions.len() >= MAX_KEY_DECISIONS {
                    excluder.push(
                        e,
                        Exclusion::OverCap,
                        format!("beyond the {MAX_KEY_DECISIONS} most recent key decisions"),
                    );
                } else {
                    let reduced = e.is_reduced_confidence();
                    key_decisions.push(DecisionItem {
                        entry_id: e.entry_id.clone(),
                        decision: d.decision.clone(),
                        rationale: d.rationale.clone(),
                        captured_at: e.captured_at,
                        source_session_id: e.source_session_id.clone(),
                        superseded_by: None,
                        reduced_confidence: reduced,
                        turn_seq,
                        decay_at: e.decay_at,
                        line: counter
                            .line(format!("Decided: {}", condense(&d.decision, ITEM_CHARS))),
                    });
                }
            }
            EntryContent::CrossConversationUpdate(u) => {
                if cross_conversation_updates.len() >= MAX_UPDATES {
                    excluder.push(
                        e,
                        Exclusion::OverCap,
                        format!("beyond the {MAX_UPDATES} most recent undelivered updates"),
                    );
                    continue;
                }
                cross_conversation_updates.push(UpdateItem {
                    entry_id: e.entry_id.clone(),
                    summary: u.summary.clone(),
                    source_session_id: u.source_session_id.clone(),
                    captured_at: e.captured_at,
                    delivered: false,
                    line: counter.line(format!(
                        "Since last session: {}",
                        condense(&u.summary, ITEM_CHARS)
                    )),
                });
            }
            EntryContent::WorkPhaseChange(p) => {
                if phase.is_none() {
                    phase = Some((p.new_phase, e.entry_id.clone()));
                }
            }
            EntryContent::SessionSummaryRef(_) => {}
        }
    }
    let (active_work_phase, phase_entry_id) = match phase {
        Some((p, id)) => (p, Some(id)),
        None => (WorkPhase::Unknown, None),
    };
    let header = counter.line(match phase_words(active_work_phase) {
        Some(words) => format!("{} — {words}.", condense(&name, 80)),
        None => format!("{}.", condense(&name, 80)),
    });

    // Step 7: the graph baseline.
    let (entities, goals, obligations) =
        graph.with_conn_result(|c| baseline_in(c, wc, reference, &mut counter))?;

    Ok(Constellation {
        schema_version: VIEW_SCHEMA_VERSION,
        work_context_id: wc.clone(),
        work_context_name: name,
        local_only,
        as_of,
        fingerprint,
        sessions_in_last_30_days,
        effective_window,
        active_work_phase,
        phase_entry_id,
        header,
        session_history,
        open_questions,
        key_decisions,
        cross_conversation_updates,
        entities,
        goals,
        obligations,
        excluded: excluder.items,
        skipped_lines: read.skipped.len() as u32,
    })
}

type Baseline = (Vec<NodeItem>, Vec<NodeItem>, Vec<NodeItem>);

/// Linked entities, the context's active goals, and active obligations: on its entities, or
/// promoted from its own entries.
fn baseline_in(
    c: &Connection,
    wc: &WorkContextId,
    now: DateTime<Utc>,
    counter: &mut Counter,
) -> rusqlite::Result<Baseline> {
    let mut stmt = c.prepare(
        "SELECT e.entity_id, e.canonical_name, e.deadline FROM work_context_entities w
         JOIN entities e ON e.entity_id = w.entity_id
         WHERE w.work_context_id = ?1 ORDER BY e.canonical_name, e.entity_id LIMIT ?2",
    )?;
    let entities = stmt
        .query_map(params![wc.as_str(), MAX_NODES as i64], |r| {
            Ok(NodeItem {
                node_id: r.get(0)?,
                kind: "entity".to_owned(),
                text: r.get(1)?,
                due_at: r.get(2)?,
                line: None,
                warrant: None,
                excluded: None,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut stmt = c.prepare(
        "SELECT goal_id, text FROM goals WHERE work_context_id = ?1 AND status = 'active'
         ORDER BY created_at DESC, goal_id LIMIT ?2",
    )?;
    let goals = stmt
        .query_map(params![wc.as_str(), MAX_NODES as i64], |r| {
            let text: String = r.get(1)?;
            Ok(NodeItem {
                node_id: r.get(0)?,
                kind: "goal".to_owned(),
                line: Some(counter.line(format!("Goal: {}", condense(&text, ITEM_CHARS)))),
                text,
                due_at: None,
                warrant: None,
                excluded: None,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    // Live obligations on the context's entities or promoted from its own entries, and those
    // retired or superseded lately, so the brief can say why they left.
    let since =
        crate::graph::entities::ts(now - Duration::days(crate::graph::nodes::EXCLUDED_TRACE_DAYS));
    let mut stmt = c.prepare(
        "SELECT o.obligation_id, o.text, o.due_at, o.lifecycle_state, o.use_warrant,
                o.warrant_reason, o.updated_at
           FROM obligations o
          WHERE (o.lifecycle_state IN ('provisional', 'active', 'confirmed', 'contested')
                 OR o.updated_at >= ?3)
            AND (o.entity_id IN (SELECT entity_id FROM work_context_entities
                                  WHERE work_context_id = ?1)
                 OR o.work_context_id = ?1)
          ORDER BY o.due_at IS NULL, o.due_at, o.obligation_id LIMIT ?2",
    )?;
    let rows = stmt
        .query_map(params![wc.as_str(), MAX_NODES as i64, since], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, Option<String>>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, Option<String>>(4)?,
                r.get::<_, Option<String>>(5)?,
                r.get::<_, String>(6)?,
            ))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut obligations = Vec::new();
    for (node_id, text, due, lifecycle, warrant, reason, updated_at) in rows {
        let lifecycle: Lifecycle = lifecycle.parse().unwrap_or(Lifecycle::AuditOnly);
        let warrant: Warrant = warrant
            .as_deref()
            .unwrap_or("assert")
            .parse()
            .unwrap_or(Warrant::VerifyBeforeUse);
        let reason = reason.unwrap_or_default();
        let base = match &due {
            Some(d) => format!(
                "Due {}: {}",
                d.get(..10).unwrap_or(d),
                condense(&text, ITEM_CHARS)
            ),
            None => format!("Obligation: {}", condense(&text, ITEM_CHARS)),
        };
        let (line, excluded) = match brief_form(lifecycle, warrant, &reason, &updated_at, &base) {
            BriefForm::Shown(l) => (Some(counter.line(l)), None),
            BriefForm::Excluded { retired, detail } => (None, Some((retired, detail))),
        };
        obligations.push(NodeItem {
            node_id,
            kind: "obligation".to_owned(),
            text,
            due_at: due,
            line,
            warrant: Some((warrant.as_str().to_owned(), reason)),
            excluded,
        });
    }
    Ok((entities, goals, obligations))
}

#[cfg(test)]
mod tests;
