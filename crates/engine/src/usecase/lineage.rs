//! Lineage: from anything ELNOR showed an agent or the person back to the transcript turns it
//! came from. A brief line (a trace item), a continuity entry, a session summary or a single turn
//! expands to the window of its session's turns that produced it, read through the same bounded,
//! redacted transcript read agents get (`session.read_transcript`, CSA §8.4).
//!
//! Raw turns are never dropped, so every window can be read again. An entry and a session summary
//! expand through their capture's window (`capture_windows`: the turns that capture read, a
//! coverage edge from the summary, and every entry linking it, down to raw turns), which is exact
//! for every capture since the window was recorded; a turn is exact by itself. What has no window
//! (an entry written before summaries were linked, a trace line of an old brief) is found by time:
//! the session's turns after its previous capture and up to when the work happened. `exact` says
//! which, and `how` says it in words, so a caller never mistakes an estimate for a record.

use chrono::{DateTime, Utc};
use rusqlite::{OptionalExtension, params};
use serde::Serialize;

use crate::base::error::{Error, Result};
use crate::base::ids::{EntryId, SessionId, WorkContextId};
use crate::continuity::ContinuityEntry;
use crate::graph::store::Store;
use crate::inputs::ingest::format_ts;
use crate::inputs::sessions::{self, ReadQuery, Transcript};

/// What to expand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineageSource {
    /// A continuity entry; naming its work context saves reading every log to find it.
    Entry {
        entry_id: EntryId,
        work_context_id: Option<WorkContextId>,
    },
    /// One line of a delivered or previewed brief: its assembly (trace id) and its position in
    /// the trace (`TraceRow::ordinal`).
    TraceItem { assembly_id: i64, ordinal: i64 },
    /// A session summary (`doc73_session_summary_id`).
    Summary { summary_id: String },
    /// One turn of a session, by its `seq` (a search hit's or a transcript read's turn).
    Turn { session_id: SessionId, seq: i64 },
}

/// Where a source came from: its session and the window of that session's turns.
#[derive(Debug, Clone, Serialize)]
pub struct LineageSpan {
    /// What was expanded, in words ("key decision entry … in work context …").
    pub source: String,
    pub session_id: SessionId,
    pub work_context_id: Option<WorkContextId>,
    /// The window's bounds: turns after `after_seq`, up to and including `through_seq`.
    pub after_seq: Option<i64>,
    pub through_seq: Option<i64>,
    /// The bounds were recorded (true) or found by time (false).
    pub exact: bool,
    /// How the window was found, in words.
    pub how: String,
}

/// A source expanded to its turns.
#[derive(Debug, Clone, Serialize)]
pub struct Lineage {
    #[serde(flatten)]
    pub span: LineageSpan,
    /// The window's turns, newest that fit the budget, with a continuation when older ones were
    /// left out.
    pub transcript: Transcript,
}

/// Expands `source` to the turns it came from, reading at most `max_tokens` of them (newest
/// first, as every transcript read). `before_seq` continues a truncated expansion.
pub fn expand_lineage(
    store: &Store,
    source: &LineageSource,
    max_tokens: usize,
    before_seq: Option<i64>,
) -> Result<Lineage> {
    let window = window(store, source)?;
    let mut q = ReadQuery::new(window.session_id.as_str());
    q.max_tokens = max_tokens.clamp(1, sessions::READ_TOKEN_CAP * 4);
    q.after_seq = window.after_seq;
    q.before_seq = match (window.through_seq, before_seq) {
        (Some(through), Some(before)) => Some(before.min(through + 1)),
        (Some(through), None) => Some(through + 1),
        (None, before) => before,
    };
    let transcript = sessions::read_transcript(store.graph(), &q)?;
    Ok(Lineage {
        span: window,
        transcript,
    })
}

/// A source's window located in its session's transcript view, without reading its turns: for a
/// viewer that pages the transcript itself and marks the window in it (the app's "Show where this
/// came from"). The bounds are those [`expand_lineage`] reads.
#[derive(Debug, Clone, Serialize)]
pub struct LineageWindow {
    #[serde(flatten)]
    pub span: LineageSpan,
    /// Where the window's turns sit in the session's default transcript view.
    pub view: sessions::ViewWindow,
}

/// Locates the turns `source` came from in its session's transcript view: the window
/// [`expand_lineage`] would read, with its rows there instead of its text.
pub fn locate_lineage(store: &Store, source: &LineageSource) -> Result<LineageWindow> {
    let w = window(store, source)?;
    let view = sessions::view_window(
        store.graph(),
        w.session_id.as_str(),
        w.after_seq,
        w.through_seq,
    )?;
    Ok(LineageWindow { span: w, view })
}

fn window(store: &Store, source: &LineageSource) -> Result<LineageSpan> {
    match source {
        LineageSource::Turn { session_id, seq } => {
            let session = sessions::get(store.graph(), session_id.as_str())?;
            let found: Option<i64> = store.graph().with_conn_result(|c| {
                c.query_row(
                    "SELECT seq FROM turns WHERE session_id = ?1 AND seq = ?2",
                    params![session_id, seq],
                    |r| r.get(0),
                )
                .optional()
            })?;
            if found.is_none() {
                return Err(Error::NotFound {
                    what: "turn",
                    id: format!("{session_id} seq {seq}"),
                });
            }
            Ok(LineageSpan {
                source: format!("turn {seq} of session {session_id}"),
                session_id: session.session_id,
                work_context_id: session.work_context_id,
                after_seq: None,
                through_seq: Some(*seq),
                exact: true,
                how: "the turn itself, with the turns before it as context".into(),
            })
        }
        LineageSource::Entry {
            entry_id,
            work_context_id,
        } => {
            let (wc, entry, log) = find_entry(store, entry_id, work_context_id.as_ref())?;
            entry_window(store, &wc, &entry, &log)
        }
        LineageSource::Summary { summary_id } => summary_window(store, summary_id),
        LineageSource::TraceItem {
            assembly_id,
            ordinal,
        } => {
            let detail = store.graph().assembly(*assembly_id)?;
            let Some(item) = detail.items.iter().find(|i| i.ordinal == *ordinal) else {
                return Err(Error::NotFound {
                    what: "trace item",
                    id: format!("{assembly_id}/{ordinal}"),
                });
            };
            let wc = item
                .work_context_id
                .as_deref()
                .and_then(|w| WorkContextId::new(w).ok());
            // An entry or a summary has a window of its own; prefer it to the trace's single
            // turn, which bounds only its upper end.
            match (item.kind.as_str(), item.source_id.as_deref()) {
                ("entry" | "update", Some(id)) if EntryId::new(id).is_ok() => {
                    let entry_id = EntryId::new(id)?;
                    if let Ok((wc, entry, log)) = find_entry(store, &entry_id, wc.as_ref()) {
                        let mut w = entry_window(store, &wc, &entry, &log)?;
                        w.source =
                            format!("brief line {ordinal} of trace {assembly_id}: {}", w.source);
                        return Ok(w);
                    }
                }
                ("summary", Some(id)) => {
                    if let Ok(mut w) = summary_window(store, id) {
                        w.source =
                            format!("brief line {ordinal} of trace {assembly_id}: {}", w.source);
                        return Ok(w);
                    }
                }
                _ => {}
            }
            let Some(session) = item.session_id.as_deref() else {
                return Err(Error::InvalidInput(format!(
                    "brief line {ordinal} of trace {assembly_id} is a {} line{}; it came from no \
                     transcript of its own, so it has no turns to expand to",
                    item.kind,
                    item.source_id
                        .as_deref()
                        .map(|s| format!(" (from {s})"))
                        .unwrap_or_default()
                )));
            };
            let session = sessions::get(store.graph(), session)?;
            Ok(LineageSpan {
                source: format!(
                    "brief line {ordinal} of trace {assembly_id} ({} line)",
                    item.kind
                ),
                session_id: session.session_id,
                work_context_id: wc.or(session.work_context_id),
                after_seq: None,
                through_seq: item.turn_seq,
                exact: item.turn_seq.is_some(),
                how: match item.turn_seq {
                    Some(seq) => {
                        format!("the turns up to turn {seq}, the last its capture had seen")
                    }
                    None => "the whole session (the trace recorded no turn)".into(),
                },
            })
        }
    }
}

/// Finds an entry in its work context's log, or in every log when none is named.
fn find_entry(
    store: &Store,
    entry_id: &EntryId,
    wc: Option<&WorkContextId>,
) -> Result<(WorkContextId, ContinuityEntry, Vec<ContinuityEntry>)> {
    let candidates = match wc {
        Some(wc) => vec![wc.clone()],
        None => store.log_ids()?,
    };
    for wc in candidates {
        let entries = store.log(&wc).read()?.entries;
        if let Some(entry) = entries.iter().find(|e| &e.entry_id == entry_id).cloned() {
            return Ok((wc, entry, entries));
        }
    }
    Err(Error::NotFound {
        what: "continuity entry",
        id: entry_id.to_string(),
    })
}

/// An entry's window: its session's turns after the capture before it, up to when the work it
/// records happened.
fn entry_window(
    store: &Store,
    wc: &WorkContextId,
    entry: &ContinuityEntry,
    log: &[ContinuityEntry],
) -> Result<LineageSpan> {
    let session = sessions::get(store.graph(), entry.source_session_id.as_str()).map_err(|_| {
        Error::InvalidInput(format!(
            "entry {} came from {}, which is not a stored transcript session (a push or a \
             hand-written entry), so it has no turns to expand to",
            entry.entry_id, entry.source_session_id
        ))
    })?;
    if let Some(summary) = entry.linked_doc73_session_summary_id.as_deref()
        && let Some(w) = capture_window(store, summary)?
    {
        return Ok(LineageSpan {
            source: format!(
                "{} entry {} in work context {wc}",
                entry.entry_type().as_str(),
                entry.entry_id
            ),
            session_id: session.session_id,
            work_context_id: Some(wc.clone()),
            after_seq: w.after_seq,
            through_seq: Some(w.through_seq),
            exact: w.recorded,
            how: w.how(),
        });
    }
    let upper = entry.happened_at();
    let previous = log
        .iter()
        .filter(|e| e.source_session_id == entry.source_session_id)
        .map(ContinuityEntry::happened_at)
        .filter(|t| *t < upper)
        .max();
    let (after_seq, through_seq) = seq_bounds(store, &entry.source_session_id, previous, upper)?;
    Ok(LineageSpan {
        source: format!(
            "{} entry {} in work context {wc}",
            entry.entry_type().as_str(),
            entry.entry_id
        ),
        session_id: session.session_id,
        work_context_id: Some(wc.clone()),
        after_seq,
        through_seq,
        exact: false,
        how: match previous {
            Some(p) => format!(
                "by time: the session's turns after its previous capture ({}) up to {}",
                in_words(p),
                in_words(upper)
            ),
            None => format!("by time: the session's turns up to {}", in_words(upper)),
        },
    })
}

fn summary_window(store: &Store, summary_id: &str) -> Result<LineageSpan> {
    if summary_id.is_empty() || summary_id.len() > 200 || summary_id.chars().any(char::is_control) {
        return Err(Error::InvalidInput(
            "a summary id is a short printable id".into(),
        ));
    }
    let row: Option<(String, String)> = store.graph().with_conn_result(|c| {
        c.query_row(
            "SELECT session_id, generated_at FROM session_summaries
              WHERE doc73_session_summary_id = ?1",
            [summary_id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()
    })?;
    let Some((session_id, generated_at)) = row else {
        return Err(Error::NotFound {
            what: "session summary",
            id: summary_id.to_owned(),
        });
    };
    let session = sessions::get(store.graph(), &session_id)?;
    if let Some(w) = capture_window(store, summary_id)? {
        return Ok(LineageSpan {
            source: format!("session summary {summary_id}"),
            session_id: session.session_id,
            work_context_id: session.work_context_id,
            after_seq: w.after_seq,
            through_seq: Some(w.through_seq),
            exact: w.recorded,
            how: w.how(),
        });
    }
    let upper = crate::base::clock::parse(&generated_at)?;
    let previous: Option<String> = store.graph().with_conn_result(|c| {
        c.query_row(
            "SELECT max(generated_at) FROM session_summaries
              WHERE session_id = ?1 AND julianday(generated_at) < julianday(?2)",
            params![session_id, generated_at],
            |r| r.get(0),
        )
    })?;
    let previous = previous
        .as_deref()
        .map(crate::base::clock::parse)
        .transpose()?;
    let (after_seq, through_seq) = seq_bounds(store, &session.session_id, previous, upper)?;
    Ok(LineageSpan {
        source: format!("session summary {summary_id}"),
        session_id: session.session_id,
        work_context_id: session.work_context_id,
        after_seq,
        through_seq,
        exact: false,
        how: match previous {
            Some(p) => format!(
                "by time: the turns after the session's previous summary ({}) up to this one",
                in_words(p)
            ),
            None => "by time: the session's turns up to when the summary was made".into(),
        },
    })
}

/// A moment as `how` says it to a person or an agent: to the minute, in UTC, not RFC 3339.
fn in_words(at: DateTime<Utc>) -> String {
    at.format("%Y-%m-%d %H:%M UTC").to_string()
}

/// The turns one capture read, as it recorded them (or as the migration worked them out for
/// summaries stored before captures recorded their windows).
struct CaptureWindow {
    after_seq: Option<i64>,
    through_seq: i64,
    recorded: bool,
}

impl CaptureWindow {
    fn how(&self) -> String {
        let span = match self.after_seq {
            Some(after) => format!(
                "the turns after turn {after} up to turn {}",
                self.through_seq
            ),
            None => format!("the session's turns up to turn {}", self.through_seq),
        };
        if self.recorded {
            format!("exactly what its capture read: {span}")
        } else {
            format!(
                "{span}, as worked out from the session's earlier summaries (captured before \
                 captures recorded what they read)"
            )
        }
    }
}

fn capture_window(store: &Store, summary_id: &str) -> Result<Option<CaptureWindow>> {
    store.graph().with_conn_result(|c| {
        c.query_row(
            "SELECT after_seq, through_seq, recorded FROM capture_windows WHERE summary_id = ?1",
            [summary_id],
            |r| {
                Ok(CaptureWindow {
                    after_seq: r.get(0)?,
                    through_seq: r.get(1)?,
                    recorded: r.get::<_, i64>(2)? == 1,
                })
            },
        )
        .optional()
    })
}

/// The `seq` bounds of a session's turns after `from` (exclusive) and up to `to`: the last turn
/// before the window and the last turn in it. Turns without a timestamp sit by their position.
fn seq_bounds(
    store: &Store,
    session: &SessionId,
    from: Option<DateTime<Utc>>,
    to: DateTime<Utc>,
) -> Result<(Option<i64>, Option<i64>)> {
    store.graph().with_conn_result(|c| {
        let bound = |at: DateTime<Utc>| -> rusqlite::Result<Option<i64>> {
            c.query_row(
                "SELECT max(seq) FROM turns WHERE session_id = ?1
                   AND timestamp IS NOT NULL AND julianday(timestamp) <= julianday(?2)",
                params![session, format_ts(at)],
                |r| r.get(0),
            )
        };
        let through = bound(to)?;
        let after = match from {
            Some(f) => bound(f)?,
            None => None,
        };
        Ok((after, through))
    })
}

#[cfg(test)]
#[path = "tests/lineage.rs"]
mod tests;
