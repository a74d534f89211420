//! The latest session in its own words (issue 37): what the person asked, in order, and the
//! agent's last report, in the room the other cards leave of the brief's budget.
//!
//! The resume card says where the work stands in one line per item; a fresh agent resuming it
//! also needs the asks that shaped the session and what the agent said it did, which the card
//! can only start. Both are read from the transcript as capture reads it (injected text left
//! out), so each line is explained by the session it quotes.

use chrono::{DateTime, Duration, SecondsFormat, Utc};
use rusqlite::{OptionalExtension, params};

use super::{
    BriefRequest, Cand, Decision, Draft, MIN_MINUTES_SINCE_SESSION, Reason, TraceItem, render, set,
    trace_item,
};
use crate::base::error::Result;
use crate::base::ids::SessionId;
use crate::base::tokens::{Line, condense, one_line};
use crate::graph::store::Store;
use crate::inputs::transcripts::clean::{assistant_prose, person_text};
use crate::views::constellation::Constellation;

/// The share of the card's room the report may take when there are requests beside it.
const REPORT_SHARE: u32 = 75;

/// The longest a single request is quoted, in characters: the ask, not a pasted document.
const REQUEST_CHARS: usize = 160;

/// The card of the latest session of `view`, within `room` tokens (its wrapper included); empty
/// when there is no live latest session, no room, or nothing said in it.
pub(super) fn draft(
    store: &Store,
    view: &Constellation,
    req: &BriefRequest,
    room: u32,
) -> Result<Draft> {
    let mut d = Draft::last_session();
    let Some(latest) = latest_session(store, view, req)? else {
        return Ok(d);
    };
    let lines_room = room.saturating_sub(render::card_wrapper_tokens("last_session"));
    if lines_room == 0 {
        return Ok(d);
    }
    let (requests, report) = what_was_said(store, &latest)?;
    let report_room = if requests.is_empty() {
        lines_room
    } else {
        lines_room * REPORT_SHARE / 100
    };
    let report_line = report.as_deref().and_then(|r| {
        fitted(
            |chars| format!("Last report: {}", condense(r, chars)),
            report_room,
        )
    });
    let used = report_line.as_ref().map_or(0, |l| l.tokens);
    let asked_line = asked(&requests, lines_room.saturating_sub(used));
    for (line, what) in [
        (
            asked_line,
            "the person's requests in the latest session, in order",
        ),
        (report_line, "the agent's last report in the latest session"),
    ] {
        let Some(line) = line else { continue };
        // A captured session is explained by its summary; one no capture has seen yet (too
        // short to be due) by the session itself.
        let mut item = match &latest.summary_id {
            Some(id) => {
                let mut item = trace_item(1, "summary", &line);
                item.source_id = Some(id.clone());
                item
            }
            None => {
                let mut item = trace_item(1, "session", &line);
                item.source_id = Some(latest.session_id.to_string());
                item
            }
        };
        item.session_id = Some(latest.session_id.clone());
        item.turn_seq = latest.through;
        item.work_context_id = Some(view.work_context_id.clone());
        include(&mut item, what);
        d.cands.push(Cand {
            item,
            line: Some(line),
            rank: 0,
            fixed: false,
        });
    }
    d.trim(
        room,
        Reason::TierCap,
        "over the room the other cards leave of the budget",
    );
    Ok(d)
}

/// The session the card quotes: the context's latest, captured or not.
struct Latest {
    session_id: SessionId,
    /// The capture's summary, when a capture has seen the session.
    summary_id: Option<String>,
    /// The last turn to quote: the capture's, or the session's end when no capture saw it.
    through: Option<i64>,
}

/// The latest session of the work context: the latest the card's history shows, or a later one
/// placed in the context that no capture has seen (a short exchange is never due, and is still
/// the last thing done). Not the asking session itself, and not one active in the last
/// [`MIN_MINUTES_SINCE_SESSION`] minutes: the same injection rules as the card's.
fn latest_session(
    store: &Store,
    view: &Constellation,
    req: &BriefRequest,
) -> Result<Option<Latest>> {
    let captured = view.session_history.iter().find(|s| s.decay_at > req.now);
    let placed: Option<(String, String)> = store.graph().with_conn_result(|c| {
        c.query_row(
            "SELECT session_id, last_turn_at FROM transcript_sessions
             WHERE work_context_id = ?1 AND session_kind = 'primary' AND last_turn_at <= ?2
             ORDER BY last_turn_at DESC LIMIT 1",
            params![
                view.work_context_id.as_str(),
                req.now.to_rfc3339_opts(SecondsFormat::Millis, true)
            ],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()
    })?;
    // A session no capture has seen decays as its summary would have: old work is not "what
    // you did last".
    let ttl = Duration::days(i64::from(store.config()?.session_summary_ttl_days));
    let placed = placed.and_then(|(id, at)| {
        let at = DateTime::parse_from_rfc3339(&at).ok()?.with_timezone(&Utc);
        (req.now - at < ttl).then_some(())?;
        Some((SessionId::new(id).ok()?, at))
    });
    let latest = match (captured, placed) {
        (Some(c), Some((id, at))) if at > c.last_activity_at && id != c.source_session_id => (
            Latest {
                session_id: id,
                summary_id: None,
                through: None,
            },
            at,
        ),
        (Some(c), _) => (
            Latest {
                session_id: c.source_session_id.clone(),
                summary_id: Some(c.doc73_session_summary_id.clone()),
                through: c.turn_seq,
            },
            c.last_activity_at,
        ),
        (None, Some((id, at))) => (
            Latest {
                session_id: id,
                summary_id: None,
                through: None,
            },
            at,
        ),
        (None, None) => return Ok(None),
    };
    let (latest, at) = latest;
    if req.session_id.as_deref() == Some(latest.session_id.as_str())
        || req.now - at < Duration::minutes(MIN_MINUTES_SINCE_SESSION)
    {
        return Ok(None);
    }
    Ok(Some(latest))
}

/// How many of a session's requests, and of its last replies, are read at most: a brief is on
/// every session's start path, and a session of thousands of turns must cost what a short one
/// does. The card quotes fewer requests than this anyway.
const REQUESTS_READ: i64 = 40;
const REPLIES_READ: i64 = 20;

/// The person's requests (each once, in order) and the agent's last words, cleaned as capture
/// cleans them (injected text left out).
fn what_was_said(store: &Store, latest: &Latest) -> Result<(Vec<String>, Option<String>)> {
    let id = latest.session_id.as_str();
    let through = latest.through.unwrap_or(i64::MAX);
    store.graph().with_conn_result(|c| {
        let mut stmt = c.prepare_cached(
            "SELECT text FROM turns WHERE session_id = ?1 AND seq <= ?2 AND role = 'user'
               AND kind = 'message' AND is_sidechain = 0 ORDER BY seq LIMIT ?3",
        )?;
        let mut requests: Vec<String> = Vec::new();
        for text in stmt.query_map(params![id, through, REQUESTS_READ], |r| {
            r.get::<_, String>(0)
        })? {
            let text = one_line(&person_text(&text?).text);
            if !text.is_empty() && !requests.contains(&text) {
                requests.push(text);
            }
        }
        let mut stmt = c.prepare_cached(
            "SELECT text FROM turns WHERE session_id = ?1 AND seq <= ?2 AND role = 'assistant'
               AND kind = 'message' AND is_sidechain = 0 ORDER BY seq DESC LIMIT ?3",
        )?;
        let mut report = None;
        for text in stmt.query_map(params![id, through, REPLIES_READ], |r| {
            r.get::<_, String>(0)
        })? {
            let prose = assistant_prose(&text?).text;
            if !prose.trim().is_empty() {
                report = Some(prose);
                break;
            }
        }
        Ok((requests, report))
    })
}

/// The requests quoted in order, as many as fit `room` tokens.
fn asked(requests: &[String], room: u32) -> Option<Line> {
    let mut best = None;
    let mut quoted: Vec<String> = Vec::new();
    for r in requests {
        quoted.push(format!("\"{}\"", condense(r, REQUEST_CHARS)));
        let line = Line::new(format!("Asked, in order: {}", quoted.join("; ")));
        if line.tokens > room {
            break;
        }
        best = Some(line);
    }
    best
}

/// The longest line `make(chars)` gives within `room` tokens: a proportional cut, recounted, in
/// a step or three (a script the tokenizer splits finely spends several tokens a character).
fn fitted(make: impl Fn(usize) -> String, room: u32) -> Option<Line> {
    let mut chars = room as usize * 4;
    for _ in 0..4 {
        let line = Line::new(make(chars));
        if line.tokens <= room {
            return Some(line);
        }
        chars = chars * room as usize * 9 / (line.tokens as usize * 10);
        if chars < 20 {
            return None;
        }
    }
    None
}

fn include(item: &mut TraceItem, what: &str) {
    set(
        item,
        Decision::Included,
        Reason::WithinBudget,
        &format!("{what}, in the room the other cards leave of the budget"),
    );
}
