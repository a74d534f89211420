//! The session capabilities of CSA §8: `session.list`, `session.read_transcript` and
//! `session.summarize`, over the turns ingest stored.
//!
//! All three are read-only and attributed (session id, started_at, agent id). They read the store,
//! never the harness files, so a caller's session id can never name a path: ids are validated
//! (no separators, no `..`, no control characters) and then only looked up. Text leaves through
//! [`crate::base::redact`], and transcript reads are bounded per turn and in total, counted in BPE
//! tokens ([`crate::base::tokens`]).

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, Utc};
use rusqlite::{OptionalExtension, params};

use serde::Serialize;

use crate::base::error::{Error, Result};
use crate::base::ids::{AgentId, EntityId, SessionId, WorkContextId};
use crate::base::redact::redact;
use crate::base::tokens;
use crate::graph::Graph;
use crate::inputs::ingest::format_ts;
use crate::inputs::transcripts::clean;
use crate::inputs::transcripts::{Harness, Role, TurnKind, excerpt};

/// Default and cap of `session.list`'s `limit` (CSA §8.3).
pub const LIST_DEFAULT: u32 = 20;
pub const LIST_CAP: u32 = 100;
/// Default total budget of one transcript read, in tokens (CSA §8.4).
pub const READ_TOKEN_CAP: usize = 4_000;
/// Default bound of one turn's content in a transcript read, in characters.
pub const TURN_EXCERPT_CHARS: usize = 2_000;

/// Checks a session id given by a caller. Session ids are database keys, never paths, but a
/// value that looks like a path is refused outright so no layer can ever be tempted to use it.
pub fn validate_session_id(id: &str) -> Result<&str> {
    let reason = if id.is_empty() {
        "must not be empty"
    } else if id.len() > 200 {
        "longer than 200 bytes"
    } else if id.chars().any(char::is_control) {
        "contains control characters"
    } else if id.contains('/') || id.contains('\\') {
        "must not contain path separators"
    } else if id.contains("..") {
        "must not contain '..'"
    } else {
        return Ok(id);
    };
    Err(Error::InvalidId {
        what: "session id",
        value: id.chars().take(200).collect(),
        reason,
    })
}

/// Filters of `session.list`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListQuery {
    pub work_context_id: Option<WorkContextId>,
    pub time_window_hours: Option<u32>,
    pub agent_id: Option<AgentId>,
    pub harness: Option<Harness>,
    /// Matches the title, working directory or id (case-insensitive substring).
    pub text: Option<String>,
    pub limit: Option<u32>,
    pub offset: Option<u32>,
    /// Exactly this session.
    pub session_id: Option<SessionId>,
}

/// One row of `session.list` (CSA §8.3 fields plus what the Sessions view shows).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SessionInfo {
    pub session_id: SessionId,
    #[serde(serialize_with = "Harness::serialize_name")]
    pub harness: Harness,
    pub agent_id: Option<AgentId>,
    pub started_at: Option<String>,
    pub last_activity_at: Option<String>,
    pub work_context_id: Option<WorkContextId>,
    pub turn_count: u64,
    pub record_count: u64,
    pub compaction_count: u64,
    pub has_doc73_summary: bool,
    /// Top entities by mention count; filled once entity resolution runs on sessions.
    pub primary_entity_ids: Vec<EntityId>,
    pub title: Option<String>,
    pub cwd: Option<String>,
    pub parent_session_id: Option<SessionId>,
    pub source_path: String,
    /// A person at work, a sub-agent, or the harness's own run (issue 14).
    pub session_kind: crate::inputs::ingest::kinds::SessionKind,
    /// Why a session is not `primary`.
    pub kind_reason: Option<String>,
    /// The person's first request, one line (empty when there was none; `None` before the
    /// ingest that reads it).
    pub request: Option<String>,
    /// What the session did, when the person asked nothing in it: the lead of its agent's
    /// last report (see `ingest::kinds`).
    pub did: Option<String>,
    /// The branch the harness last recorded the session on, when it records one.
    pub git_branch: Option<String>,
    /// The session's repository, `owner/name`, when its harness records the remote.
    pub git_repo: Option<String>,
}

impl SessionInfo {
    /// What a list calls this session: the person's first request when it says something, else
    /// the harness's title, else what the session did when the person asked nothing, else the
    /// harness's slug (`None` when there is none of them).
    pub fn display_title(&self) -> Option<String> {
        crate::inputs::ingest::kinds::display_title(
            self.title.as_deref(),
            self.request.as_deref(),
            self.did.as_deref(),
        )
    }
}

/// `session.list`: newest activity first.
pub fn list(graph: &Graph, q: &ListQuery, now: DateTime<Utc>) -> Result<Vec<SessionInfo>> {
    let limit = q.limit.unwrap_or(LIST_DEFAULT).clamp(1, LIST_CAP);
    let since = q
        .time_window_hours
        // More hours than a date can reach back is every session rather than an overflow.
        .and_then(|h| now.checked_sub_signed(Duration::hours(i64::from(h))))
        .map(format_ts);
    let text = q
        .text
        .as_deref()
        .filter(|t| !t.trim().is_empty())
        .map(|t| format!("%{}%", t.trim().replace('%', "\\%").replace('_', "\\_")));
    // One session is looked up by its key: an `(?8 IS NULL OR …)` beside the other filters
    // would make SQLite walk every session in `last_turn_at` order, and each capture asks for
    // its session, so a first run's sweep grew with the square of the history.
    let exactly = if q.session_id.is_some() {
        "s.session_id = ?8"
    } else {
        "?8 IS NULL"
    };
    graph.with_conn_result(|c| {
        let mut stmt = c.prepare_cached(&format!(
            "SELECT s.session_id, s.harness, s.agent_id, s.started_at, s.last_turn_at,
                    s.work_context_id, s.turn_count, s.record_count, s.compaction_count,
                    EXISTS (SELECT 1 FROM session_summaries x WHERE x.session_id = s.session_id),
                    s.title, s.cwd, s.parent_session_id, s.source_path, s.session_kind,
                    s.kind_reason, s.request, s.did, s.git_branch, s.git_repo
             FROM transcript_sessions s
             WHERE {exactly}
               AND (?1 IS NULL OR s.work_context_id = ?1)
               AND (?2 IS NULL OR s.last_turn_at >= ?2)
               AND (?3 IS NULL OR s.agent_id = ?3)
               AND (?4 IS NULL OR s.harness = ?4)
               AND (?5 IS NULL OR s.title LIKE ?5 ESCAPE '\\' OR s.cwd LIKE ?5 ESCAPE '\\'
                    OR s.request LIKE ?5 ESCAPE '\\' OR s.did LIKE ?5 ESCAPE '\\'
                    OR s.session_id LIKE ?5 ESCAPE '\\')
             ORDER BY s.last_turn_at DESC NULLS LAST, s.session_id
             LIMIT ?6 OFFSET ?7"
        ))?;
        let rows = stmt.query_map(
            params![
                q.work_context_id,
                since,
                q.agent_id,
                q.harness.map(Harness::as_str),
                text,
                limit,
                q.offset.unwrap_or(0),
                q.session_id,
            ],
            |r| {
                Ok(SessionInfo {
                    session_id: r.get(0)?,
                    harness: harness_at(r, 1)?,
                    agent_id: r.get(2)?,
                    started_at: r.get(3)?,
                    last_activity_at: r.get(4)?,
                    work_context_id: r.get(5)?,
                    turn_count: r.get::<_, i64>(6)?.max(0) as u64,
                    record_count: r.get::<_, i64>(7)?.max(0) as u64,
                    compaction_count: r.get::<_, i64>(8)?.max(0) as u64,
                    has_doc73_summary: r.get(9)?,
                    primary_entity_ids: Vec::new(),
                    title: r.get(10)?,
                    cwd: r.get(11)?,
                    parent_session_id: r.get(12)?,
                    source_path: r.get(13)?,
                    session_kind: crate::inputs::ingest::kinds::SessionKind::parse(
                        &r.get::<_, String>(14)?,
                    )
                    .unwrap_or(crate::inputs::ingest::kinds::SessionKind::Primary),
                    kind_reason: r.get(15)?,
                    request: r.get(16)?,
                    did: r.get(17)?,
                    git_branch: r.get(18)?,
                    git_repo: r.get(19)?,
                })
            },
        )?;
        rows.collect()
    })
}

/// The harness named in column `at`; a name this build does not know is a conversion error,
/// as an id that fails its check is.
fn harness_at(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<Harness> {
    let name: String = r.get(at)?;
    Harness::parse(&name).ok_or_else(|| {
        rusqlite::Error::FromSqlConversionFailure(
            at,
            rusqlite::types::Type::Text,
            format!("unknown harness {name:?}").into(),
        )
    })
}

/// The session row for a caller's id, or a clear error.
pub fn get(graph: &Graph, session_id: &str) -> Result<SessionInfo> {
    let id = validate_session_id(session_id)?;
    let query = ListQuery {
        session_id: Some(SessionId::new(id)?),
        ..ListQuery::default()
    };
    list(graph, &query, crate::base::clock::now())?
        .pop()
        .ok_or_else(|| Error::NotFound {
            what: "session",
            id: id.to_owned(),
        })
}

/// Options of `session.read_transcript`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadQuery {
    pub session_id: String,
    /// At most this many turns, newest last. `None`: as many as the budget allows.
    pub last_n_turns: Option<u32>,
    /// Continue a truncated read: only turns before this `seq`.
    pub before_seq: Option<i64>,
    /// Only turns after this `seq`: the lower end of a window, such as the turns one capture
    /// read (a lineage expansion).
    pub after_seq: Option<i64>,
    /// Total budget in tokens.
    pub max_tokens: usize,
    /// Bound of one turn's content, in characters.
    pub turn_chars: usize,
    /// Include injected context and known non-conversation events (off for agents, on for the
    /// transcript viewer).
    pub include_events: bool,
}

impl ReadQuery {
    pub fn new(session_id: impl Into<String>) -> ReadQuery {
        ReadQuery {
            session_id: session_id.into(),
            last_n_turns: None,
            before_seq: None,
            after_seq: None,
            max_tokens: READ_TOKEN_CAP,
            turn_chars: TURN_EXCERPT_CHARS,
            include_events: false,
        }
    }
}

/// One turn of a transcript read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TranscriptTurn {
    pub seq: i64,
    pub turn_id: String,
    pub role: Role,
    pub kind: TurnKind,
    /// Redacted, bounded excerpt.
    pub content: String,
    pub tool_calls: Vec<String>,
    pub timestamp: Option<String>,
    pub is_sidechain: bool,
    pub tokens_before: Option<u64>,
    pub tokens: usize,
}

/// The result of `session.read_transcript`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Transcript {
    pub session_id: SessionId,
    pub started_at: Option<String>,
    pub agent_id: Option<AgentId>,
    #[serde(serialize_with = "Harness::serialize_name")]
    pub harness: Harness,
    pub turns: Vec<TranscriptTurn>,
    pub total_tokens: usize,
    /// Older turns were left out for the budget, or a turn's content was cut.
    pub truncated: bool,
    /// Where to continue, when older turns were left out.
    pub next_before_seq: Option<i64>,
    pub continuation_hint: Option<String>,
}

/// `session.read_transcript`: the newest turns that fit the budget, in order.
pub fn read_transcript(graph: &Graph, q: &ReadQuery) -> Result<Transcript> {
    let session = get(graph, &q.session_id)?;
    let kinds_json = kinds_json(q.include_events);
    let max_rows = q.last_n_turns.map(i64::from).unwrap_or(i64::MAX);
    let mut turns = Vec::new();
    let mut total = 0usize;
    let mut truncated = false;
    let mut budget_cut = false;
    graph.with_conn_result(|c| {
        let mut stmt = c.prepare_cached(
            "SELECT seq, turn_id, role, kind, text, tool_calls, timestamp, is_sidechain,
                    tokens_before
             FROM turns
             WHERE session_id = ?1 AND seq < ?2 AND seq > ?4
               AND kind IN (SELECT value FROM json_each(?3))
             ORDER BY seq DESC",
        )?;
        let mut rows = stmt.query(params![
            session.session_id,
            q.before_seq.unwrap_or(i64::MAX),
            kinds_json,
            q.after_seq.unwrap_or(i64::MIN),
        ])?;
        while let Some(r) = rows.next()? {
            if turns.len() as i64 >= max_rows {
                break;
            }
            let (mut turn, cut) = turn_from_row(r, q.turn_chars)?;
            let mut cost = turn_tokens(&turn);
            let mut cut = cut;
            if total + cost > q.max_tokens {
                if !turns.is_empty() {
                    budget_cut = true;
                    break;
                }
                // The newest turn alone is over the budget: shorten it to fit rather than return
                // nothing, so every read makes progress and its continuation moves on.
                let full = std::mem::take(&mut turn.content);
                let mut keep = full.chars().count();
                while keep > 0 {
                    keep /= 2;
                    turn.content = if keep == 0 {
                        String::new()
                    } else {
                        full.chars().take(keep).collect::<String>() + " […]"
                    };
                    cost = turn_tokens(&turn);
                    if cost <= q.max_tokens {
                        break;
                    }
                }
                turn.tool_calls.retain(|_| cost <= q.max_tokens);
                cost = turn_tokens(&turn);
                cut = true;
            }
            total += cost;
            truncated |= cut;
            turn.tokens = cost;
            turns.push(turn);
        }
        Ok(())
    })?;
    turns.reverse();
    let next_before_seq = budget_cut.then(|| turns.first().map(|t| t.seq)).flatten();
    Ok(Transcript {
        session_id: session.session_id.clone(),
        started_at: session.started_at,
        agent_id: session.agent_id,
        harness: session.harness,
        truncated: truncated || budget_cut,
        continuation_hint: next_before_seq.map(|seq| {
            format!(
                "older turns were left out to stay within {} tokens; read again with before_seq={seq}",
                q.max_tokens
            )
        }),
        next_before_seq,
        turns,
        total_tokens: total,
    })
}

/// Kinds shown to agents and in the default transcript view.
const CONVERSATION_KINDS: &[&str] = &[
    "message",
    "tool_call",
    "tool_result",
    "compaction",
    "compaction_summary",
    "branch_summary",
];

/// A window of a session's turns by position, for a virtualised viewer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TurnPage {
    pub session_id: SessionId,
    /// Turns in the session (of the kinds shown).
    pub total: u64,
    pub offset: u64,
    pub turns: Vec<TranscriptTurn>,
    /// Positions of the compaction points in the whole session (on the first page only).
    pub compactions: Vec<CompactionMark>,
}

/// Where a compaction happened in a session's turn list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CompactionMark {
    pub position: u64,
    pub tokens_before: Option<u64>,
}

/// The most turns one page returns.
pub const PAGE_CAP: u32 = 500;

/// Turns `offset..offset + limit` of a session in order, redacted and bounded per turn. Cost is
/// one indexed range scan, so a 10,000-turn session pages as fast as a short one.
pub fn turn_page(
    graph: &Graph,
    session_id: &str,
    offset: u64,
    limit: u32,
    include_events: bool,
    turn_chars: usize,
) -> Result<TurnPage> {
    let session = get(graph, session_id)?;
    let kinds = kinds_json(include_events);
    let limit = limit.clamp(1, PAGE_CAP);
    graph.with_conn_result(|c| {
        let total: i64 = c.query_row(
            "SELECT count(*) FROM turns WHERE session_id = ?1
             AND kind IN (SELECT value FROM json_each(?2))",
            params![session.session_id, kinds],
            |r| r.get(0),
        )?;
        let mut stmt = c.prepare_cached(
            "SELECT seq, turn_id, role, kind, text, tool_calls, timestamp, is_sidechain,
                    tokens_before
             FROM turns WHERE session_id = ?1 AND kind IN (SELECT value FROM json_each(?2))
             ORDER BY seq LIMIT ?3 OFFSET ?4",
        )?;
        let turns = stmt
            .query_map(
                params![session.session_id, kinds, limit, offset as i64],
                |r| turn_from_row(r, turn_chars).map(|(turn, _)| turn),
            )?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let compactions = if offset == 0 {
            let mut stmt = c.prepare_cached(
                "SELECT pos, tokens_before FROM (
                     SELECT kind, tokens_before, row_number() OVER (ORDER BY seq) - 1 AS pos
                     FROM turns WHERE session_id = ?1
                     AND kind IN (SELECT value FROM json_each(?2)))
                 WHERE kind = 'compaction' ORDER BY pos",
            )?;
            stmt.query_map(params![session.session_id, kinds], |r| {
                Ok(CompactionMark {
                    position: r.get::<_, i64>(0)?.max(0) as u64,
                    tokens_before: r.get::<_, Option<i64>>(1)?.map(|t| t.max(0) as u64),
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?
        } else {
            Vec::new()
        };
        Ok(TurnPage {
            session_id: session.session_id.clone(),
            total: total.max(0) as u64,
            offset,
            turns,
            compactions,
        })
    })
}

/// Tokens a turn costs in a read: its content and its tool-call lines.
fn turn_tokens(turn: &TranscriptTurn) -> usize {
    tokens::count(&turn.content)
        + turn
            .tool_calls
            .iter()
            .map(|c| tokens::count(c))
            .sum::<usize>()
}

/// Where a turn sits in its session's default transcript view (0-based, counting the turns of
/// [`CONVERSATION_KINDS`] before it), so a link can open the viewer at that row directly; `None`
/// when the turn is not stored.
pub fn turn_position(graph: &Graph, turn_id: &str) -> Result<Option<u64>> {
    let kinds = kinds_json(false);
    graph.with_conn_result(|c| {
        // Cached: a search asks this for each of its hits, and compiling the statement each
        // time cost more than running it.
        c.prepare_cached(
            "SELECT (SELECT count(*) FROM turns b
                      WHERE b.session_id = t.session_id AND b.seq < t.seq
                        AND b.kind IN (SELECT value FROM json_each(?2)))
               FROM turns t WHERE t.turn_id = ?1",
        )?
        .query_row(params![turn_id, kinds], |r| r.get::<_, i64>(0))
        .optional()
        .map(|n| n.map(|n| n as u64))
    })
}

/// A window of a session's turns (`after_seq` exclusive, `through_seq` inclusive, `None` leaving
/// that end open) as the default transcript view shows it: how many of its turns the view has,
/// their first and last rows there, and the last one's id and time.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ViewWindow {
    pub turns: u64,
    pub first_position: Option<u64>,
    pub last_position: Option<u64>,
    pub last_turn_id: Option<String>,
    pub last_at: Option<String>,
}

/// Where the turns `after_seq < seq <= through_seq` of a session sit in its default transcript
/// view, so a viewer that pages by row can open at them and mark them. One scan of the session's
/// turns, numbered as [`turn_page`] numbers them.
pub fn view_window(
    graph: &Graph,
    session_id: &str,
    after_seq: Option<i64>,
    through_seq: Option<i64>,
) -> Result<ViewWindow> {
    let kinds = kinds_json(false);
    graph.with_conn_result(|c| {
        let mut window: ViewWindow = c.query_row(
            "WITH shown AS (
                 SELECT seq, row_number() OVER (ORDER BY seq) - 1 AS pos
                 FROM turns WHERE session_id = ?1
                 AND kind IN (SELECT value FROM json_each(?2)))
             SELECT count(*), min(pos), max(pos) FROM shown
              WHERE (?3 IS NULL OR seq > ?3) AND (?4 IS NULL OR seq <= ?4)",
            params![session_id, kinds, after_seq, through_seq],
            |r| {
                Ok(ViewWindow {
                    turns: r.get::<_, i64>(0)?.max(0) as u64,
                    first_position: r.get::<_, Option<i64>>(1)?.map(|p| p.max(0) as u64),
                    last_position: r.get::<_, Option<i64>>(2)?.map(|p| p.max(0) as u64),
                    ..ViewWindow::default()
                })
            },
        )?;
        if let Some((id, at)) = c
            .query_row(
                "SELECT turn_id, timestamp FROM turns WHERE session_id = ?1
                   AND kind IN (SELECT value FROM json_each(?2))
                   AND (?3 IS NULL OR seq > ?3) AND (?4 IS NULL OR seq <= ?4)
                 ORDER BY seq DESC LIMIT 1",
                params![session_id, kinds, after_seq, through_seq],
                |r| Ok((r.get::<_, String>(0)?, r.get::<_, Option<String>>(1)?)),
            )
            .optional()?
        {
            window.last_turn_id = Some(id);
            window.last_at = at;
        }
        Ok(window)
    })
}

/// The kinds a read returns, as a JSON array for `json_each`.
fn kinds_json(include_events: bool) -> String {
    let extra: &[&str] = if include_events {
        &["context", "event", "unknown"]
    } else {
        &[]
    };
    serde_json::to_string(&[CONVERSATION_KINDS, extra].concat()).unwrap_or_default()
}

/// A transcript turn from a row of `SELECT seq, turn_id, role, kind, text, tool_calls,
/// timestamp, is_sidechain, tokens_before`, its content bounded and redacted; also whether the
/// content was cut.
fn turn_from_row(
    r: &rusqlite::Row<'_>,
    turn_chars: usize,
) -> rusqlite::Result<(TranscriptTurn, bool)> {
    let text: String = r.get(4)?;
    let calls: Vec<String> = serde_json::from_str(&r.get::<_, String>(5)?).unwrap_or_default();
    let cut = text.chars().count() > turn_chars;
    let turn = TranscriptTurn {
        seq: r.get(0)?,
        turn_id: r.get(1)?,
        role: {
            let name: String = r.get(2)?;
            Role::parse(&name).ok_or_else(|| {
                rusqlite::Error::FromSqlConversionFailure(
                    2,
                    rusqlite::types::Type::Text,
                    format!("unknown role {name:?}").into(),
                )
            })?
        },
        kind: TurnKind::parse(&r.get::<_, String>(3)?),
        content: redact(&bounded(&text, turn_chars)).into_owned(),
        tool_calls: calls.iter().map(|c| redact(c).into_owned()).collect(),
        timestamp: r.get(6)?,
        is_sidechain: r.get(7)?,
        tokens_before: r.get::<_, Option<i64>>(8)?.map(|t| t.max(0) as u64),
        tokens: 0,
    };
    Ok((turn, cut))
}

fn bounded(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        text.to_owned()
    } else {
        let mut cut: String = text.chars().take(max_chars).collect();
        cut.push_str(" […]");
        cut
    }
}

/// The result of `session.summarize`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SessionSummary {
    pub session_id: SessionId,
    pub started_at: Option<String>,
    pub agent_id: Option<AgentId>,
    pub summary: String,
    pub generated_at: String,
    /// `doc73_existing` or `on_demand_generated` (CSA §8.3).
    pub source: String,
    /// `deterministic` or `llm`.
    pub generator: String,
    pub doc73_session_summary_id: Option<String>,
}

/// `session.summarize`: the stored summary when there is one, else a deterministic summary made
/// now from the turns (not stored: this capability is read-only).
pub fn summarize(graph: &Graph, session_id: &str, now: DateTime<Utc>) -> Result<SessionSummary> {
    let session = get(graph, session_id)?;
    let existing = graph.with_conn_result(|c| {
        c.query_row(
            "SELECT doc73_session_summary_id, text, generated_at, source FROM session_summaries
             WHERE session_id = ?1 ORDER BY generated_at DESC LIMIT 1",
            [&session.session_id],
            |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                ))
            },
        )
        .optional()
    })?;
    if let Some((id, text, at, source)) = existing {
        return Ok(SessionSummary {
            session_id: session.session_id,
            started_at: session.started_at,
            agent_id: session.agent_id,
            summary: redact(&text).into_owned(),
            generated_at: at,
            source: "doc73_existing".into(),
            generator: source,
            doc73_session_summary_id: Some(id),
        });
    }
    let summary = deterministic_summary(graph, &session)?;
    Ok(SessionSummary {
        session_id: session.session_id,
        started_at: session.started_at,
        agent_id: session.agent_id,
        summary: redact(&summary).into_owned(),
        generated_at: format_ts(now),
        source: "on_demand_generated".into(),
        generator: "deterministic".into(),
        doc73_session_summary_id: None,
    })
}

/// How many of a session's messages from one side are read for its own words.
const OWN_WORDS_SCAN: i64 = 50;

/// A session's first [`OWN_WORDS_SCAN`] messages from `role`, in `order` of `seq` (`ASC` or
/// `DESC`), read one by one as `take` asks for them; `take` returns `true` to stop.
fn read_messages(
    c: &rusqlite::Connection,
    session_id: &str,
    role: &str,
    order: &str,
    mut take: impl FnMut(&str) -> bool,
) -> rusqlite::Result<()> {
    let mut stmt = c.prepare_cached(&format!(
        "SELECT text FROM turns WHERE session_id = ?1 AND role = ?2 AND kind = 'message'
           AND trim(text) != '' ORDER BY seq {order} LIMIT ?3"
    ))?;
    for text in stmt.query_map(params![session_id, role, OWN_WORDS_SCAN], |r| {
        r.get::<_, String>(0)
    })? {
        if take(&text?) {
            break;
        }
    }
    Ok(())
}

/// The person's first request in their own words (a bare command passed over), and whether a
/// schedule's prompt came before it, from one read of the session's first user messages.
fn first_request(
    c: &rusqlite::Connection,
    session_id: &str,
) -> rusqlite::Result<(Option<String>, bool)> {
    let (mut request, mut scheduled) = (None, false);
    read_messages(c, session_id, "user", "ASC", |text| {
        let person = clean::person_text(text);
        scheduled |= person.skipped.contains_key(&clean::Injected::Scheduled);
        let own = !person.text.trim().is_empty() && !clean::bare_command(&person.text);
        if own {
            request = Some(person.text);
        }
        own
    })?;
    Ok((request, scheduled))
}

/// The agent's last prose in a session: reasoning, code, reply directives and protocol tokens
/// taken out.
fn last_prose(c: &rusqlite::Connection, session_id: &str) -> rusqlite::Result<Option<String>> {
    let mut prose = None;
    read_messages(c, session_id, "assistant", "DESC", |text| {
        let own = clean::assistant_prose(text).text;
        let found = !own.trim().is_empty();
        if found {
            prose = Some(own);
        }
        found
    })?;
    Ok(prose)
}

/// A templated summary: who, when, how much, which tools, what was asked first, where it ended,
/// and the latest compaction summary when the harness wrote one. The request and the reply are
/// the person's and the agent's own words: a schedule's prompt, a program's banner or a reply
/// directive is never quoted as either.
fn deterministic_summary(graph: &Graph, s: &SessionInfo) -> Result<String> {
    let (users, assistants, tools, (first_user, scheduled), last_assistant, compaction, tool_names) =
        graph.with_conn_result(|c| {
            let count = |role: &str| -> rusqlite::Result<i64> {
                c.query_row(
                    "SELECT count(*) FROM turns WHERE session_id = ?1 AND role = ?2
                     AND kind IN ('message', 'tool_call', 'tool_result')",
                    params![s.session_id, role],
                    |r| r.get(0),
                )
            };
            let text = |sql: &str| -> rusqlite::Result<Option<String>> {
                c.query_row(sql, [&s.session_id], |r| r.get(0)).optional()
            };
            let mut names: BTreeMap<String, u64> = BTreeMap::new();
            let mut stmt = c.prepare_cached(
                "SELECT tool_calls FROM turns WHERE session_id = ?1 AND role = 'assistant'
                 AND tool_calls != '[]'",
            )?;
            for calls in stmt.query_map([&s.session_id], |r| r.get::<_, String>(0))? {
                let calls: Vec<String> = serde_json::from_str(&calls?).unwrap_or_default();
                for call in calls {
                    let name = call.split(':').next().unwrap_or("").trim().to_owned();
                    *names.entry(name).or_default() += 1;
                }
            }
            Ok((
                count("user")?,
                count("assistant")?,
                count("tool")?,
                first_request(c, &s.session_id)?,
                last_prose(c, &s.session_id)?,
                text(
                    "SELECT text FROM turns WHERE session_id = ?1
                     AND kind IN ('compaction_summary', 'compaction') AND length(text) > 40
                     ORDER BY seq DESC LIMIT 1",
                )?,
                names,
            ))
        })?;
    let mut top: Vec<(String, u64)> = tool_names.into_iter().collect();
    top.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let top: Vec<String> = top
        .iter()
        .take(5)
        .map(|(n, k)| format!("{n} ×{k}"))
        .collect();
    let mut out = format!(
        "{} session{} by {} from {} to {}: {users} user messages, {assistants} assistant \
         messages, {tools} tool results",
        s.harness,
        s.title
            .as_deref()
            .map(|t| format!(" \"{t}\""))
            .unwrap_or_default(),
        s.agent_id.as_deref().unwrap_or("an unknown agent"),
        s.started_at.as_deref().unwrap_or("?"),
        s.last_activity_at.as_deref().unwrap_or("?"),
    );
    if !top.is_empty() {
        out.push_str(&format!(" (tools: {})", top.join(", ")));
    }
    out.push('.');
    if s.compaction_count > 0 {
        out.push_str(&format!(" Compacted {} time(s).", s.compaction_count));
    }
    if let Some(first) = &first_user {
        out.push_str(&format!(" First request: \"{}\".", excerpt(first, 200)));
    }
    if let Some(last) = last_assistant {
        // Nobody asked in a session a schedule started: the agent's last words are the job's
        // findings for the person, shown as its report rather than as a reply to anyone.
        let label = if first_user.is_none() && scheduled {
            "Report of the scheduled job"
        } else {
            "Last reply"
        };
        out.push_str(&format!(" {label}: \"{}\".", excerpt(&last, 200)));
    }
    if let Some(summary) = compaction {
        out.push_str(&format!(
            " Latest compaction summary: \"{}\".",
            excerpt(&summary, 400)
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
