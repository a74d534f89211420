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
use crate::views::lineage::{self, LineageNode, LineageNodeKind};

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
    /// A node of the lineage DAG over raw turns (a session summary or a harness compaction);
    /// higher nodes are walked with [`drill_down`].
    Node { node_id: String },
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
        LineageSource::Node { node_id } => node_window(store, node_id),
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

/// The window of a DAG node over raw turns.
fn node_window(store: &Store, node_id: &str) -> Result<LineageSpan> {
    let node = find_node(store, node_id, None)?;
    if node.kind == LineageNodeKind::SessionSummary {
        return summary_window(store, node_id);
    }
    let Some(session_id) = node.session_id.clone().filter(|_| node.kind.covers_turns()) else {
        return Err(Error::InvalidInput(format!(
            "{node_id} is a {} over other nodes, not over turns; drill down into one of its \
             children (`elnor lineage show {node_id}`)",
            node.kind.as_str().replace('_', " ")
        )));
    };
    let span = match node.after_seq {
        Some(after) => format!(
            "after turn {after} up to turn {}",
            node.through_seq.unwrap_or(after)
        ),
        None => format!("up to turn {}", node.through_seq.unwrap_or_default()),
    };
    Ok(LineageSpan {
        source: format!("compaction summary {node_id}"),
        session_id,
        work_context_id: Some(node.work_context_id.clone()),
        after_seq: node.after_seq,
        through_seq: node.through_seq,
        exact: true,
        how: format!(
            "exactly the turns the harness compacted into this summary: the session's turns {span}"
        ),
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

/// Builds the whole lineage DAG again from the canonical data (`elnor lineage rebuild`): the
/// rows come back the same, so this is safe at any time.
pub fn rebuild_lineage(store: &Store) -> Result<lineage::BuildReport> {
    lineage::rebuild(store)
}

/// Builds again the lineage of `contexts` (after a change the use cases do not see, such as a
/// bulk import); captures and approvals refresh their own contexts.
pub fn refresh_lineage<'a>(
    store: &Store,
    contexts: impl IntoIterator<Item = &'a WorkContextId>,
) -> Result<lineage::BuildReport> {
    lineage::refresh(store, contexts)
}

/// Most rows of each list a drill-down returns; the node's own lists are small, but a knowledge
/// node's entry may have been cited by hundreds of briefs.
const DRILL_LIST_CAP: usize = 24;

/// A brief line that cited a node, through one of its entries or itself.
#[derive(Debug, Clone, Serialize)]
pub struct CitingLine {
    pub assembly_id: i64,
    pub ordinal: i64,
    pub assembled_at: String,
    pub session_id: Option<SessionId>,
    pub decision: String,
    pub text: String,
}

/// One node of the lineage DAG with everything around it (CLOSURE §1, temporal drill-down).
#[derive(Debug, Clone, Serialize)]
pub struct Drill {
    pub node: LineageNode,
    /// The nodes that cover it: condensations and approved knowledge.
    pub parents: Vec<LineageNode>,
    /// The nodes it covers (none for a node over raw turns: see `transcript`).
    pub children: Vec<LineageNode>,
    /// Its parents' other children; for a node nothing covers yet, the nodes just before and
    /// after it in its thread.
    pub siblings: Vec<LineageNode>,
    /// Continuity entries linked to it: those its capture wrote (a session summary), the entry
    /// a knowledge node was promoted from.
    pub entries: Vec<ContinuityEntry>,
    /// Brief lines that cited it or one of those entries, newest first.
    pub brief_lines: Vec<CitingLine>,
    /// The turns of a node over raw turns: its window, newest that fit the budget first.
    pub transcript: Option<Lineage>,
}

/// The node of the DAG a source sits in: an entry's or a brief line's capture summary, a
/// summary itself, the node over a turn (a session summary before a compaction), a node id as is.
pub fn lineage_node_of(store: &Store, source: &LineageSource) -> Result<String> {
    lineage::ensure_built(store)?;
    let summary = match source {
        LineageSource::Node { node_id } => return Ok(find_node(store, node_id, None)?.node_id),
        LineageSource::Summary { summary_id } => Some(summary_id.clone()),
        LineageSource::Entry {
            entry_id,
            work_context_id,
        } => {
            let (_, entry, _) = find_entry(store, entry_id, work_context_id.as_ref())?;
            entry.linked_doc73_session_summary_id
        }
        LineageSource::TraceItem {
            assembly_id,
            ordinal,
        } => {
            let detail = store.graph().assembly(*assembly_id)?;
            let item = detail
                .items
                .iter()
                .find(|i| i.ordinal == *ordinal)
                .ok_or_else(|| Error::NotFound {
                    what: "trace item",
                    id: format!("{assembly_id}/{ordinal}"),
                })?;
            match (item.kind.as_str(), item.source_id.as_deref()) {
                ("summary", Some(id)) => Some(id.to_owned()),
                (_, Some(id)) if lineage::node(store, id)?.is_some() => Some(id.to_owned()),
                (_, Some(id)) if EntryId::new(id).is_ok() => {
                    let wc = item.work_context_id.clone();
                    find_entry(store, &EntryId::new(id)?, wc.as_ref())
                        .ok()
                        .and_then(|(_, e, _)| e.linked_doc73_session_summary_id)
                }
                _ => None,
            }
        }
        LineageSource::Turn { .. } => None,
    };
    if let Some(id) = summary
        && lineage::node(store, &id)?.is_some()
    {
        return Ok(id);
    }
    // Anything else is found through the turns its window ends at.
    let span = window(store, source)?;
    let Some(through) = span.through_seq else {
        return Err(Error::NotFound {
            what: "lineage node for",
            id: span.source,
        });
    };
    lineage::covering_turn(store, span.session_id.as_str(), through)?
        .into_iter()
        .min_by_key(|n| (n.kind != LineageNodeKind::SessionSummary, n.node_id.clone()))
        .map(|n| n.node_id)
        .ok_or_else(|| Error::NotFound {
            what: "lineage node for",
            id: span.source,
        })
}

/// A node of the DAG with its parents, children, siblings, linked entries, the brief lines that
/// cited it and, for a node over raw turns, the turns themselves (at most `max_tokens` of them).
/// `agent_scope` (`harness` or `harness:agent`) confines the answer to one agent's lineage: a
/// node of another agent is not found, as if it were not there.
pub fn drill_down(
    store: &Store,
    node_id: &str,
    agent_scope: Option<&str>,
    max_tokens: usize,
) -> Result<Drill> {
    lineage::ensure_built(store)?;
    let node = find_node(store, node_id, agent_scope)?;
    let in_scope = |n: &LineageNode| agent_scope.is_none_or(|a| n.agent_scope == a);
    let mut parents = lineage::parents(store, &node.node_id)?;
    parents.retain(|n| in_scope(n));
    let mut children = lineage::children(store, &node.node_id)?;
    children.retain(|n| in_scope(n));
    let mut siblings = Vec::new();
    for p in &parents {
        for s in lineage::children(store, &p.node_id)? {
            if s.node_id != node.node_id && in_scope(&s) && !siblings.contains(&s) {
                siblings.push(s);
            }
        }
    }
    if parents.is_empty() {
        siblings = lineage::neighbours(store, &node)?;
    }
    siblings.truncate(DRILL_LIST_CAP);

    let entries = linked_entries(store, &node)?;
    let mut cited: Vec<String> = entries.iter().map(|e| e.entry_id.to_string()).collect();
    cited.push(node.node_id.clone());
    let brief_lines = citing_lines(store, &cited)?;
    let transcript = if node.kind.covers_turns() {
        Some(expand_lineage(
            store,
            &LineageSource::Node {
                node_id: node.node_id.clone(),
            },
            max_tokens,
            None,
        )?)
    } else {
        None
    };
    Ok(Drill {
        node,
        parents,
        children,
        siblings,
        entries,
        brief_lines,
        transcript,
    })
}

/// A drill-down reached from anything that sits in the DAG, with the name of the node's work
/// context, so a viewer can say where the node belongs without reading the contexts again.
#[derive(Debug, Clone, Serialize)]
pub struct SourceDrill {
    #[serde(flatten)]
    pub drill: Drill,
    /// The node's work context by name; `None` when the context is gone from the graph.
    pub work_context_name: Option<String>,
}

/// [`drill_down`] on the node `source` sits in ([`lineage_node_of`]): a brief line, an entry, a
/// summary, a turn or a node id, in one call, for the app's Lineage page. The source is resolved
/// before the agent scope is applied, so a source of another agent is refused as not found.
pub fn drill_down_from(
    store: &Store,
    source: &LineageSource,
    agent_scope: Option<&str>,
    max_tokens: usize,
) -> Result<SourceDrill> {
    let node_id = lineage_node_of(store, source)?;
    let drill = drill_down(store, &node_id, agent_scope, max_tokens)?;
    let work_context_name = store
        .graph()
        .work_context(drill.node.work_context_id.as_str())
        .ok()
        .map(|wc| wc.name);
    Ok(SourceDrill {
        drill,
        work_context_name,
    })
}

fn find_node(store: &Store, node_id: &str, agent_scope: Option<&str>) -> Result<LineageNode> {
    // Node ids are made of ASCII letters, digits, `_` and `-`; anything else (a path, a quote,
    // a control character) is refused before any lookup.
    if node_id.is_empty()
        || node_id.len() > 200
        || !node_id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return Err(Error::InvalidInput(
            "a lineage node id is made of letters, digits, `_` and `-` (ss_…, cx_…, cd_…, ob_…, \
             md_…)"
                .into(),
        ));
    }
    lineage::ensure_built(store)?;
    lineage::node(store, node_id)?
        .filter(|n| agent_scope.is_none_or(|a| n.agent_scope == a))
        .ok_or_else(|| Error::NotFound {
            what: "lineage node",
            id: node_id.to_owned(),
        })
}

/// The entries a node links: those its capture wrote for a session summary, the promoted entry
/// for knowledge.
fn linked_entries(store: &Store, node: &LineageNode) -> Result<Vec<ContinuityEntry>> {
    let wanted: Box<dyn Fn(&ContinuityEntry) -> bool> = match node.kind {
        LineageNodeKind::SessionSummary => {
            let id = node.node_id.clone();
            Box::new(move |e| e.linked_doc73_session_summary_id.as_deref() == Some(id.as_str()))
        }
        LineageNodeKind::Knowledge => {
            let promoted: Vec<String> = store.graph().with_conn_result(|c| {
                c.prepare_cached("SELECT entry_id FROM entry_promotions WHERE node_id = ?1")?
                    .query_map([&node.node_id], |r| r.get(0))?
                    .collect()
            })?;
            Box::new(move |e| promoted.iter().any(|p| p == e.entry_id.as_str()))
        }
        LineageNodeKind::CompactionSummary | LineageNodeKind::Condensation => {
            return Ok(Vec::new());
        }
    };
    let mut entries: Vec<ContinuityEntry> = store
        .log(&node.work_context_id)
        .read()?
        .entries
        .into_iter()
        .filter(|e| wanted(e))
        .collect();
    entries.truncate(DRILL_LIST_CAP);
    Ok(entries)
}

/// Brief lines whose source is one of `ids`, newest first.
fn citing_lines(store: &Store, ids: &[String]) -> Result<Vec<CitingLine>> {
    store.graph().with_conn_result(|c| {
        let mut stmt = c.prepare_cached(
            "SELECT t.assembly_id, t.ordinal, a.created_at, a.session_id, t.decision, t.text
               FROM brief_trace_items t JOIN brief_assemblies a USING (assembly_id)
              WHERE t.source_id = ?1
              ORDER BY t.assembly_id DESC, t.ordinal LIMIT ?2",
        )?;
        let mut out = Vec::new();
        for id in ids {
            let rows = stmt.query_map(params![id, DRILL_LIST_CAP as i64], |r| {
                Ok(CitingLine {
                    assembly_id: r.get(0)?,
                    ordinal: r.get(1)?,
                    assembled_at: r.get(2)?,
                    session_id: r
                        .get::<_, Option<String>>(3)?
                        .and_then(|s| SessionId::new(s).ok()),
                    decision: r.get(4)?,
                    text: r.get(5)?,
                })
            })?;
            for row in rows {
                out.push(row?);
            }
        }
        out.sort_by(|a, b| (b.assembly_id, a.ordinal).cmp(&(a.assembly_id, b.ordinal)));
        out.truncate(DRILL_LIST_CAP);
        Ok(out)
    })
}

#[cfg(test)]
#[path = "tests/lineage.rs"]
mod tests;
