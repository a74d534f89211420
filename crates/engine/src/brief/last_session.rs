//! The latest session in its own words (issue 37): what the person asked, in order, and the
//! agent's last report, in the room the other cards leave of the brief's budget.
//!
//! The resume card says where the work stands in one line per item; a fresh agent resuming it
//! also needs the asks that shaped the session and what the agent said it did, which the card
//! can only start. Both are read from the transcript as capture reads it (injected text left
//! out), so each line is explained by the session it quotes.

use super::{Cand, Draft, TraceItem, set, trace_item};
use crate::base::error::Result;
use crate::base::tokens::{Line, condense, one_line};
use crate::graph::store::Store;
use crate::inputs::capture::heuristics::Speaker;
use crate::inputs::capture::load_window;
use crate::views::constellation::{Constellation, SessionHistoryItem};

use super::{BriefRequest, Decision, Reason, render};

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
    let Some(latest) = latest_session(view, req) else {
        return Ok(d);
    };
    let lines_room = room.saturating_sub(render::card_wrapper_tokens("last_session"));
    if lines_room == 0 {
        return Ok(d);
    }
    let (requests, report) = what_was_said(store, latest)?;
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
        let mut item = trace_item(1, "summary", &line);
        item.source_id = Some(latest.doc73_session_summary_id.clone());
        item.session_id = Some(latest.source_session_id.clone());
        item.turn_seq = latest.turn_seq;
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

/// The latest session the card shows, unless it is the asking session itself.
fn latest_session<'v>(
    view: &'v Constellation,
    req: &BriefRequest,
) -> Option<&'v SessionHistoryItem> {
    view.session_history
        .iter()
        .find(|s| s.decay_at > req.now)
        .filter(|s| req.session_id.as_deref() != Some(s.source_session_id.as_str()))
}

/// The person's requests (each once, in order) and the agent's last words, as capture reads them.
fn what_was_said(
    store: &Store,
    latest: &SessionHistoryItem,
) -> Result<(Vec<String>, Option<String>)> {
    let (window, _) = load_window(store, latest.source_session_id.as_str(), 0, latest.turn_seq)?;
    let mut requests: Vec<String> = Vec::new();
    for t in window.iter().filter(|t| t.speaker == Some(Speaker::User)) {
        let text = one_line(&t.text);
        if !text.is_empty() && !requests.contains(&text) {
            requests.push(text);
        }
    }
    let report = window
        .iter()
        .rev()
        .find(|t| t.speaker == Some(Speaker::Assistant) && !t.text.trim().is_empty())
        .map(|t| t.text.clone());
    Ok((requests, report))
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
