//! The latest session in its own words (issue 37): what the person asked, in order, what the
//! agent said (its last report, and the replies before it), what it ran after its last report
//! when the session ended mid-work, and the files it changed, in the room the other cards leave
//! of the brief's budget.
//!
//! The resume card says where the work stands in one line per item; a fresh agent resuming it
//! also needs the asks that shaped the session and what the agent said and did, which name the
//! files, commands and errors it acts on. All of it is read from the transcript as capture
//! reads it (injected text left out), so each line is explained by the session it quotes. A
//! folder no work context claims (a home folder) still gets its latest session: a person who
//! starts every agent there expects it to know what was done last.

use std::collections::BTreeSet;

use chrono::{DateTime, Duration, SecondsFormat, Utc};
use rusqlite::{OptionalExtension, params};

use super::counts::CountMemo;
use super::{
    BriefRequest, Cand, Decision, Draft, MIN_MINUTES_SINCE_SESSION, Reason, TraceItem, render, set,
    trace_item,
};
use crate::base::error::Result;
use crate::base::ids::{SessionId, WorkContextId};
use crate::base::tokens::{Line, condense, one_line};
use crate::continuity::CaptureMode;
use crate::graph::store::Store;
use crate::inputs::capture::changed_file;
use crate::inputs::transcripts::clean::{assistant_report, person_text};
use crate::inputs::transcripts::{Gist, gist};
use crate::views::constellation::{Constellation, SessionHistoryItem};

/// The shares of the card's room the report, the steps after it, the files changed and the
/// requests may take, in that order, each with what the ones before left unused; earlier
/// replies fill what is left. The report is most of it: what the agent said it did and what is
/// next. Chosen on the handoff benchmark's dev projects (`crates/cli/tests/handoff.rs`).
const REPORT_SHARE: u32 = 65;
const STEPS_SHARE: u32 = 10;
const CHANGED_SHARE: u32 = 8;
const ASKED_SHARE: u32 = 20;
/// The share the replies before the report may take of what is left; the sessions before the
/// latest take the rest, at most [`SESSIONS_BEFORE`] of them.
const REPLIES_SHARE: u32 = 60;
const SESSIONS_BEFORE: usize = 3;

/// The longest a single request is quoted, in characters: the ask, not a pasted document.
const REQUEST_CHARS: usize = 160;
/// The longest a single earlier reply (its gist) is quoted, in characters. On the handoff benchmark's dev projects the brief covered 46.6% of the facts
/// with gists of 300 characters, 47.5% with 200 (more replies fit), 46.6% with 140.
const REPLY_CHARS: usize = 200;
/// The longest a step's call or its result is quoted, in characters.
const STEP_CHARS: usize = 90;
/// How many steps after the report, and files changed, are named at most.
const STEPS_SHOWN: usize = 3;
const CHANGED_SHOWN: usize = 8;

/// What the resume card above shows: the card quotes none of it again.
#[derive(Debug, Default)]
pub(super) struct Shown {
    /// The sessions it sums up.
    pub(super) sessions: BTreeSet<String>,
    /// Its lines, one per line.
    pub(super) text: String,
}

impl Shown {
    /// Whether the card already quotes `request`: a quotation opening with its first words is
    /// on it (a short request's words inside another sentence are not its quote).
    fn quotes(&self, request: &str) -> bool {
        let opening: String = request.chars().take(OPENING_CHARS).collect();
        let opening = opening.trim();
        !opening.is_empty() && self.text.contains(&format!("\"{opening}"))
    }
}

/// How many of a request's first characters say it is the one the resume card quotes.
const OPENING_CHARS: usize = 40;

/// Where the latest session is looked for.
pub(super) enum Place<'a> {
    /// A work context: its latest session, captured or not.
    Context(&'a Constellation),
    /// A folder no work context claims (a home folder, a scratch folder): the latest session
    /// started there, so a fresh session in the same folder still learns what was done last.
    Folder(&'a str),
}

impl Place<'_> {
    fn work_context_id(&self) -> Option<WorkContextId> {
        match self {
            Place::Context(view) => Some(view.work_context_id.clone()),
            Place::Folder(_) => None,
        }
    }
}

/// The card of the latest session of `place`, within `room` tokens (its wrapper included);
/// empty when there is no live latest session, no room, or nothing said in it.
pub(super) fn draft(
    store: &Store,
    place: Place,
    req: &BriefRequest,
    room: u32,
    shown: &Shown,
) -> Result<Draft> {
    let mut d = Draft::last_session();
    // The room in steps of ROOM_STEP, so the lines a capture counted ahead for each step are the
    // ones asked for here.
    let lines_room = room.saturating_sub(render::card_wrapper_tokens("last_session"));
    let lines_room = lines_room / ROOM_STEP * ROOM_STEP;
    if lines_room == 0 {
        return Ok(d);
    }
    let Some(q) = Quoted::read(store, &place, req, shown)? else {
        return Ok(d);
    };
    let memo = q.memo(store, &place);
    let lines = compose(&place, &q, lines_room, &memo);
    memo.save();
    let latest = &q.latest;
    for (line, what, earlier) in lines {
        // A captured session is explained by its summary; one no capture has seen yet (not
        // yet due) by the session itself.
        let mut item = match (earlier, &latest.summary_id) {
            (Some(s), _) => {
                let mut item = trace_item(1, "summary", &line);
                item.source_id = Some(s.summary_id.clone());
                item.session_id = Some(s.session_id.clone());
                item.turn_seq = s.turn_seq;
                item
            }
            (None, Some(id)) => {
                let mut item = trace_item(1, "summary", &line);
                item.source_id = Some(id.clone());
                item
            }
            (None, None) => {
                let mut item = trace_item(1, "session", &line);
                item.source_id = Some(latest.session_id.to_string());
                item
            }
        };
        if earlier.is_none() {
            item.session_id = Some(latest.session_id.clone());
            item.turn_seq = latest.through;
        }
        item.work_context_id = place.work_context_id();
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

/// The card's room is used in steps of this many tokens.
const ROOM_STEP: u32 = 4;

/// What the card quotes: the latest session of its place, what was said in it, and the
/// sessions before it the resume card does not show.
struct Quoted {
    latest: Latest,
    said: Said,
    before: Vec<Before>,
    /// Whether the resume card sums the latest session up (a folder's card does): then its
    /// date and place are said there.
    on_card: bool,
}

/// A session before the latest, as its capture summed it up.
struct Before {
    session_id: SessionId,
    summary_id: String,
    turn_seq: Option<i64>,
    ended: DateTime<Utc>,
    /// What it did: its summary's *Last* and *Now*.
    did: String,
}

impl Before {
    fn of(s: &SessionHistoryItem) -> Before {
        Before {
            session_id: s.source_session_id.clone(),
            summary_id: s.doc73_session_summary_id.clone(),
            turn_seq: s.turn_seq,
            ended: s.last_activity_at,
            did: what_it_did(&s.summary, s.capture_mode),
        }
    }
}

impl Quoted {
    /// `None` when there is no live latest session.
    fn read(
        store: &Store,
        place: &Place,
        req: &BriefRequest,
        shown: &Shown,
    ) -> Result<Option<Quoted>> {
        let Some(latest) = latest_session(store, place, req)? else {
            return Ok(None);
        };
        let said = what_was_said(store, &latest, shown)?;
        let before = sessions_before(store, place, &latest, req)?
            .into_iter()
            .filter(|s| !shown.sessions.contains(s.session_id.as_str()))
            .take(SESSIONS_BEFORE)
            .collect();
        let on_card = shown.sessions.contains(latest.session_id.as_str());
        Ok(Some(Quoted {
            latest,
            said,
            before,
            on_card,
        }))
    }

    /// The counts kept for this place's card while its latest session stays as read.
    fn memo(&self, store: &Store, place: &Place) -> CountMemo {
        count_memo(store, place, &self.latest)
    }
}

/// The counts kept for the cards of `place` while its latest session stays as `latest` was read:
/// the `last_session` card's, and a folder's resume card's.
pub(super) fn count_memo(store: &Store, place: &Place, latest: &Latest) -> CountMemo {
    let key = match place {
        Place::Context(view) => view.work_context_id.to_string(),
        Place::Folder(cwd) => format!("folder {cwd}"),
    };
    let generation = format!(
        "{} {} {}",
        latest.session_id,
        latest.through.unwrap_or(-1),
        latest.ended.timestamp_millis()
    );
    CountMemo::open(store, &key, &generation)
}

/// Whether `place` has a latest session the card would quote for `req`: one query, before the
/// work of a card.
pub(super) fn has_latest(store: &Store, place: &Place, req: &BriefRequest) -> Result<bool> {
    Ok(latest_session(store, place, req)?.is_some())
}

/// Counts the card's candidate lines for every room it can have, as [`draft`] would quote
/// them for `req`, and keeps the counts for the briefs to come. Returns how many lines were
/// counted.
pub(super) fn warm(
    store: &Store,
    place: Place,
    req: &BriefRequest,
    shown: &Shown,
) -> Result<usize> {
    let Some(q) = Quoted::read(store, &place, req, shown)? else {
        return Ok(0);
    };
    let memo = q.memo(store, &place);
    for room in (1..=super::MAX_BUDGET / ROOM_STEP).map(|n| n * ROOM_STEP) {
        compose(&place, &q, room, &memo);
    }
    memo.save();
    Ok(memo.counted())
}

/// The card's lines within `room` tokens, in reading order, each with what it quotes. Fitted in
/// order of what a fresh agent acts on: the report, the steps after it, the files changed, the
/// requests, each up to its share of the room plus what the ones before left of theirs; earlier
/// replies and the sessions before take what is left, and what is left after them goes back to
/// a report and replies cut short.
fn compose<'q>(
    place: &Place,
    q: &'q Quoted,
    room: u32,
    memo: &CountMemo,
) -> Vec<(Line, &'static str, Option<&'q Before>)> {
    let (latest, said) = (&q.latest, &q.said);
    let mut fit = Fitter {
        room,
        left: room,
        carry: 0,
    };
    let header = match place {
        Place::Folder(_) if q.on_card => None,
        Place::Folder(cwd) => fit.take(Some(memo.line(format!(
            "No work context claims {cwd}; the latest session there ({}):",
            latest.ended.format("%a %b %-d")
        )))),
        Place::Context(_) => None,
    };
    let git_line = fit.take(said.git.as_ref().map(|g| memo.line(g.clone())));
    let report_line = |room: u32| {
        said.report.as_ref().and_then(|r| {
            fitted(
                |chars| format!("Last report: {}", r.within(chars)),
                room,
                memo,
            )
        })
    };
    let mut report = fit.share(REPORT_SHARE, report_line);
    let steps_line = fit.share(STEPS_SHARE, |cap| {
        listed(
            "At the end, it ran:",
            &said.steps_after,
            STEPS_SHOWN,
            false,
            cap,
            memo,
        )
    });
    let changed_line = fit.share(CHANGED_SHARE, |cap| {
        listed(
            "Files changed:",
            &said.changed,
            CHANGED_SHOWN,
            false,
            cap,
            memo,
        )
    });
    let asked_line = fit.share(ASKED_SHARE, |cap| asked(&said.requests, cap, memo));
    // The replies nearest the report are kept first and read in the order they were written.
    let earlier_make = |cap: u32| {
        listed(
            "Before it, the agent said:",
            &said.earlier,
            usize::MAX,
            true,
            cap,
            memo,
        )
    };
    let mut earlier_line = fit.share(REPLIES_SHARE, earlier_make);
    // Then the sessions before it, newest first, as their captures summed them up: what the
    // work is and what was settled, which the resume card had no room for.
    let mut before_lines = Vec::new();
    for s in &q.before {
        let made = fit.share(100, |cap| {
            fitted(
                |chars| {
                    format!(
                        "Session before ({}): {}",
                        s.ended.format("%a %b %-d"),
                        condense(&s.did, chars)
                    )
                },
                cap,
                memo,
            )
        });
        match made {
            Some(line) => before_lines.push((line, s)),
            None => break,
        }
    }
    // Room no share used goes back to the lines cut short, in the order they were fitted: the
    // report first, then the replies before it. A card that stops short of its room while the
    // report it quotes was cut says less than it could.
    report = fit.regrow(report, report_line);
    earlier_line = fit.regrow(earlier_line, earlier_make);
    let mut out: Vec<(Line, &'static str, Option<&'q Before>)> = [
        (
            header,
            "where the latest session ran, when no work context claims the folder",
        ),
        (
            git_line,
            "the branch and repository the latest session worked on, as its harness recorded them",
        ),
        (
            asked_line,
            "the person's requests in the latest session, in order",
        ),
        (
            earlier_line,
            "the agent's replies before its last report in the latest session",
        ),
        (report, "the agent's last report in the latest session"),
        (
            steps_line,
            "what the agent ran after its last reply, with what came back",
        ),
        (changed_line, "the files the latest session's edits changed"),
    ]
    .into_iter()
    .filter_map(|(line, what)| line.map(|l| (l, what, None)))
    .collect();
    out.extend(before_lines.into_iter().map(|(line, s)| {
        (
            line,
            "a session before the latest, as its capture summed it up",
            Some(s),
        )
    }));
    out
}

/// What a session before the latest did, from its summary: a templated one's *Last* and *Now*
/// lines, without its record (counts of requests, tools, where it ran), which the room is
/// better spent on than on the next session's words; a model's summary whole.
fn what_it_did(summary: &str, mode: CaptureMode) -> String {
    let (last, now) = crate::views::constellation::summary_lines(summary, mode);
    match now {
        Some(now) => format!("{last} {}{now}", crate::inputs::capture::SUMMARY_NOW),
        None => last.to_owned(),
    }
}

/// The captured sessions before the latest, newest first: a work context's still live, or
/// those started in the same folder no context claims.
fn sessions_before(
    store: &Store,
    place: &Place,
    latest: &Latest,
    req: &BriefRequest,
) -> Result<Vec<Before>> {
    match place {
        Place::Context(view) => Ok(view
            .session_history
            .iter()
            .filter(|s| s.decay_at > req.now && s.source_session_id != latest.session_id)
            .filter(|s| s.last_activity_at <= latest.ended && !s.summary.is_empty())
            .map(Before::of)
            .collect()),
        Place::Folder(cwd) => folder_sessions_before(store, cwd, latest, req),
    }
}

/// The sessions started in `cwd` before the latest that a capture summed up (in the unlinked
/// bucket, as no context claims the folder), newest first, each by its latest summary; no
/// older than a summary lives.
fn folder_sessions_before(
    store: &Store,
    cwd: &str,
    latest: &Latest,
    req: &BriefRequest,
) -> Result<Vec<Before>> {
    let ttl = Duration::days(i64::from(store.config()?.session_summary_ttl_days));
    let since = (req.now - ttl).to_rfc3339_opts(SecondsFormat::Millis, true);
    let until = latest.ended.to_rfc3339_opts(SecondsFormat::Millis, true);
    store.graph().with_conn_result(|c| {
        let mut stmt = c.prepare_cached(
            "SELECT s.session_id, s.last_turn_at, m.doc73_session_summary_id, m.text, m.source
               FROM transcript_sessions s
               JOIN session_summaries m ON m.session_id = s.session_id
              WHERE (s.work_context_id = ?1 OR s.work_context_id IS NULL) AND s.cwd = ?2
                AND s.session_kind = 'primary' AND s.session_id <> ?3
                AND s.last_turn_at > ?4 AND s.last_turn_at <= ?5
              ORDER BY s.last_turn_at DESC, m.generated_at DESC",
        )?;
        let mut rows = stmt.query(params![
            WorkContextId::UNLINKED,
            cwd,
            latest.session_id.as_str(),
            since,
            until
        ])?;
        // Read row by row, newest first, until enough sessions are found: a home folder may
        // hold hundreds of them.
        let mut out: Vec<Before> = Vec::new();
        while out.len() < SESSIONS_BEFORE
            && let Some(row) = rows.next()?
        {
            let (session, at, summary_id, text, source): (String, String, String, String, String) =
                (row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?, row.get(4)?);
            // Each session once, by its latest summary.
            if out.iter().any(|b| b.session_id.as_str() == session) || text.is_empty() {
                continue;
            }
            let (Ok(session_id), Ok(ended)) =
                (SessionId::new(session), DateTime::parse_from_rfc3339(&at))
            else {
                continue;
            };
            let mode = if source == "llm" {
                CaptureMode::LlmEnriched
            } else {
                CaptureMode::Deterministic
            };
            out.push(Before {
                session_id,
                turn_seq: crate::views::constellation::turn_seq_of(Some(&summary_id)),
                summary_id,
                ended: ended.with_timezone(&Utc),
                did: what_it_did(&text, mode),
            });
        }
        Ok(out)
    })
}

/// Hands out a card's room: each line gets its share and what the lines before it left unused.
struct Fitter {
    room: u32,
    left: u32,
    carry: u32,
}

impl Fitter {
    /// Counts a line made without a cap (a header) against the room.
    fn take(&mut self, line: Option<Line>) -> Option<Line> {
        if let Some(l) = &line {
            self.left = self.left.saturating_sub(l.tokens);
        }
        line
    }

    /// `line` made again with the room left beside its own, when that gives a longer line
    /// (a cut report told more of, more replies listed); the room it takes is counted.
    fn regrow(
        &mut self,
        line: Option<Line>,
        make: impl FnOnce(u32) -> Option<Line>,
    ) -> Option<Line> {
        if self.left == 0 {
            return line;
        }
        let had = line.as_ref().map_or(0, |l| l.tokens);
        match make(had + self.left) {
            Some(longer) if longer.tokens > had => {
                self.left -= longer.tokens - had;
                Some(longer)
            }
            _ => line,
        }
    }

    /// The line `make(cap)` gives within `pct` percent of the room plus the carried rest.
    fn share(&mut self, pct: u32, make: impl FnOnce(u32) -> Option<Line>) -> Option<Line> {
        let cap = (self.room * pct / 100 + self.carry).min(self.left);
        let line = make(cap);
        let used = line.as_ref().map_or(0, |l| l.tokens);
        self.carry = cap.saturating_sub(used);
        self.take(line)
    }
}

/// `label` and as many of `items` (at most `max`, the first ones) as fit `room` tokens, joined
/// by "; ", in their order or, `reversed`, the other way round.
fn listed(
    label: &str,
    items: &[String],
    max: usize,
    reversed: bool,
    room: u32,
    memo: &CountMemo,
) -> Option<Line> {
    let mut best = None;
    let mut shown: Vec<&str> = Vec::new();
    for item in items.iter().take(max) {
        if reversed {
            shown.insert(0, item);
        } else {
            shown.push(item);
        }
        let line = memo.line(format!("{label} {}", shown.join("; ")));
        if line.tokens > room {
            break;
        }
        best = Some(line);
    }
    best
}

/// The session the card quotes: the context's latest, captured or not.
pub(super) struct Latest {
    /// The session.
    pub(super) session_id: SessionId,
    /// The capture's summary, when a capture has seen the session.
    summary_id: Option<String>,
    /// The last turn to quote: the capture's, or the session's end when no capture saw it.
    through: Option<i64>,
    /// When its last turn was.
    pub(super) ended: DateTime<Utc>,
}

/// The latest session of `place`: in a work context, the latest the card's history shows, or a
/// later one placed in the context that no capture has seen yet (one still within its debounce
/// is still the last thing done); in a folder no context claims, the latest primary session
/// started there. Not the asking session itself, and not one active in the last
/// [`MIN_MINUTES_SINCE_SESSION`] minutes: the same injection rules as the card's.
pub(super) fn latest_session(
    store: &Store,
    place: &Place,
    req: &BriefRequest,
) -> Result<Option<Latest>> {
    let now = req.now.to_rfc3339_opts(SecondsFormat::Millis, true);
    let (captured, placed): (_, Option<(String, String)>) = match place {
        Place::Context(view) => (
            view.session_history.iter().find(|s| s.decay_at > req.now),
            store.graph().with_conn_result(|c| {
                c.query_row(
                    "SELECT session_id, last_turn_at FROM transcript_sessions
                     WHERE work_context_id = ?1 AND session_kind = 'primary' AND last_turn_at <= ?2
                     ORDER BY last_turn_at DESC LIMIT 1",
                    params![view.work_context_id.as_str(), now],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .optional()
            })?,
        ),
        // Sessions no context claims are placed in the unlinked bucket when captured, and in
        // none before (one not yet due): both by their index, then the folder,
        // so the lookup reads only those.
        Place::Folder(cwd) => (
            None,
            store.graph().with_conn_result(|c| {
                c.query_row(
                    "SELECT session_id, last_turn_at FROM transcript_sessions
                     WHERE (work_context_id = ?1 OR work_context_id IS NULL) AND cwd = ?2
                       AND session_kind = 'primary'
                       AND last_turn_at <= ?3
                     ORDER BY last_turn_at DESC LIMIT 1",
                    params![WorkContextId::UNLINKED, cwd, now],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .optional()
            })?,
        ),
    };
    // A session no capture has seen decays as its summary would have: old work is not "what
    // you did last".
    let ttl = Duration::days(i64::from(store.config()?.session_summary_ttl_days));
    let placed = placed.and_then(|(id, at)| {
        let at = DateTime::parse_from_rfc3339(&at).ok()?.with_timezone(&Utc);
        (req.now - at < ttl).then_some(())?;
        Some((SessionId::new(id).ok()?, at))
    });
    let latest = match (captured, placed) {
        (Some(c), Some((id, at))) if at > c.last_activity_at && id != c.source_session_id => {
            Latest {
                session_id: id,
                summary_id: None,
                through: None,
                ended: at,
            }
        }
        (Some(c), _) => Latest {
            session_id: c.source_session_id.clone(),
            summary_id: Some(c.doc73_session_summary_id.clone()),
            through: c.turn_seq,
            ended: c.last_activity_at,
        },
        (None, Some((id, at))) => Latest {
            session_id: id,
            summary_id: None,
            through: None,
            ended: at,
        },
        (None, None) => return Ok(None),
    };
    if req.session_id.as_deref() == Some(latest.session_id.as_str())
        || req.now - latest.ended < Duration::minutes(MIN_MINUTES_SINCE_SESSION)
    {
        return Ok(None);
    }
    Ok(Some(latest))
}

/// How many of a session's requests, and of its last turns, are read at most: a brief is on
/// every session's start path, and a session of thousands of turns must cost what a short one
/// does. The card quotes fewer than this anyway.
const REQUESTS_READ: i64 = 40;
const TURNS_READ: i64 = 300;
/// How many of the agent's last replies are kept to quote, of how many messages read.
const REPLIES_KEPT: usize = 8;
const REPLIES_READ: i64 = 40;
/// How much of a tool's result is read: its first line says whether it worked.
const RESULT_CHARS: i64 = 400;

/// What the latest session said and did, cleaned as capture cleans it (injected text left out).
#[derive(Debug, Default)]
struct Said {
    /// The person's requests, each once, in order.
    requests: Vec<String>,
    /// The agent's replies with prose, newest first: the first is its last report.
    replies: Vec<String>,
    /// The last report, read into its units once for every room it is fitted to.
    report: Option<Gist>,
    /// The gists of the replies before it, newest first, quoted.
    earlier: Vec<String>,
    /// The tool calls after the last reply (the session ended while working), oldest first,
    /// each with the first line of its result.
    steps_after: Vec<String>,
    /// Files the session's edit, write and patch calls changed, latest change first.
    changed: Vec<String>,
    /// The branch and repository the session worked on, when its harness recorded them.
    git: Option<String>,
}

fn what_was_said(store: &Store, latest: &Latest, shown: &Shown) -> Result<Said> {
    let id = latest.session_id.as_str();
    let through = latest.through.unwrap_or(i64::MAX);
    store.graph().with_conn_result(|c| {
        let mut said = Said {
            git: git_place(c, id)?,
            ..Said::default()
        };
        let mut stmt = c.prepare_cached(
            "SELECT text FROM turns WHERE session_id = ?1 AND seq <= ?2 AND role = 'user'
               AND kind = 'message' AND is_sidechain = 0 ORDER BY seq LIMIT ?3",
        )?;
        for text in stmt.query_map(params![id, through, REQUESTS_READ], |r| {
            r.get::<_, String>(0)
        })? {
            let text = quoted(&person_text(&text?).text);
            // The request the resume card quotes is not asked again.
            if !text.is_empty() && !said.requests.contains(&text) && !shown.quotes(&text) {
                said.requests.push(text);
            }
        }
        // The last turns, newest first: the files changed, and the calls and results after the
        // last reply.
        let mut stmt = c.prepare_cached(
            "SELECT role, kind, tool_calls,
                    CASE WHEN kind = 'tool_result' THEN substr(text, 1, ?4) ELSE text END
               FROM turns WHERE session_id = ?1 AND seq <= ?2 AND is_sidechain = 0
                 AND kind IN ('message', 'tool_call', 'tool_result')
               ORDER BY seq DESC LIMIT ?3",
        )?;
        let rows = stmt.query_map(params![id, through, TURNS_READ, RESULT_CHARS], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
            ))
        })?;
        // A result comes after its call: newest first, it is seen just before the call.
        let mut result: Option<String> = None;
        let mut replied = false;
        for row in rows {
            let (role, kind, calls, text) = row?;
            if kind == "tool_result" {
                result = Some(text);
                continue;
            }
            if role != "assistant" {
                continue;
            }
            // A message may carry calls beside its prose (Claude Code), or be calls only.
            let calls: Vec<String> = serde_json::from_str(&calls).unwrap_or_default();
            for f in calls.iter().filter_map(|c| changed_file(c)) {
                // A file the resume card names is not listed again.
                if !said.changed.contains(&f) && !shown.text.contains(f.as_str()) {
                    said.changed.push(f);
                }
            }
            // Read as the replies below are, so the report they choose is a reply here too.
            let prose = if kind == "message" {
                quoted(&assistant_report(&text).text)
            } else {
                String::new()
            };
            if prose.is_empty() {
                if !replied && let Some(call) = calls.first() {
                    said.steps_after.insert(0, step(call, result.as_deref()));
                }
            } else {
                replied = true;
            }
            result = None;
        }
        // The replies, however far back: a session that ended in a long run of tool calls
        // still has its last words before them.
        let mut stmt = c.prepare_cached(
            "SELECT text FROM turns WHERE session_id = ?1 AND seq <= ?2 AND role = 'assistant'
               AND kind = 'message' AND is_sidechain = 0 ORDER BY seq DESC LIMIT ?3",
        )?;
        for text in stmt.query_map(params![id, through, REPLIES_READ], |r| {
            r.get::<_, String>(0)
        })? {
            // Kept in lines: the report's gist reads its lists and headings.
            let prose =
                crate::base::redact::redact(assistant_report(&text?).text.trim()).into_owned();
            if !prose.is_empty() && !said.replies.contains(&prose) {
                said.replies.push(prose);
                if said.replies.len() == REPLIES_KEPT {
                    break;
                }
            }
        }
        // What the resume card already quotes of the report is not quoted again.
        said.report = said
            .replies
            .first()
            .and_then(|r| Gist::of(r).beside(&shown.text));
        said.earlier = said
            .replies
            .iter()
            .skip(1)
            .map(|r| format!("\"{}\"", gist(r, REPLY_CHARS)))
            .collect();
        // Only the last few steps are named: what the agent was doing when the session ended.
        let from = said.steps_after.len().saturating_sub(STEPS_SHOWN);
        said.steps_after.drain(..from);
        Ok(said)
    })
}

/// "Latest session on branch `b` (owner/name).", from what the session's harness recorded:
/// which branch the work was on is the first thing an agent resuming it checks out.
fn git_place(c: &rusqlite::Connection, session: &str) -> rusqlite::Result<Option<String>> {
    let (branch, repo): (Option<String>, Option<String>) = c
        .query_row(
            "SELECT git_branch, git_repo FROM transcript_sessions WHERE session_id = ?1",
            params![session],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?
        .unwrap_or_default();
    let (branch, repo) = (branch.map(|b| quoted(&b)), repo.map(|r| quoted(&r)));
    Ok(match (branch, repo) {
        (Some(b), Some(r)) => Some(format!("Latest session on branch `{b}` ({r}).")),
        (Some(b), None) => Some(format!("Latest session on branch `{b}`.")),
        (None, Some(r)) => Some(format!("Latest session in {r}.")),
        (None, None) => None,
    })
}

/// Transcript text as the card quotes it: on one line, with secret-looking strings and private
/// spans masked, as capture masks a summary. The brief goes into an agent's context and its
/// trace is stored, and a command or a pasted config can hold a token.
fn quoted(text: &str) -> String {
    one_line(&crate::base::redact::redact(text))
}

/// A tool call and the first line of what came back: `` `call` → result ``, masked as
/// [`quoted`] masks.
fn step(call: &str, result: Option<&str>) -> String {
    let masked = |t: &str| crate::base::redact::redact(t).into_owned();
    // A shell call is named by the script it ran, without the shell it was handed to or the
    // folder it was run in: that is what a fresh agent would run again.
    let call = match crate::inputs::capture::shell_command(call) {
        Some(script) => masked(&script),
        None => masked(call),
    };
    let result = result.map(masked);
    let (call, result) = (call.as_str(), result.as_deref());
    let call = format!("`{}`", condense(call, STEP_CHARS));
    match result.map(result_gist).filter(|r| !r.is_empty()) {
        Some(r) => format!("{call} → {}", condense(&r, STEP_CHARS)),
        None => call,
    }
}

/// The first non-empty line of a tool's result, with a failing exit code said: harnesses that
/// wrap the output (`{"output": …, "metadata": {"exit_code": …}}`) are unwrapped.
fn result_gist(text: &str) -> String {
    let (output, exit) = match serde_json::from_str::<serde_json::Value>(text) {
        Ok(v) if v.get("output").is_some() => (
            v["output"].as_str().unwrap_or("").to_owned(),
            v.pointer("/metadata/exit_code").and_then(|e| e.as_i64()),
        ),
        _ => (text.to_owned(), None),
    };
    let first = output
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("")
        .to_owned();
    match exit {
        Some(code) if code != 0 => format!("exit {code}: {first}"),
        _ => first,
    }
}

/// The requests quoted in order, as many as fit `room` tokens.
fn asked(requests: &[String], room: u32, memo: &CountMemo) -> Option<Line> {
    let mut best = None;
    let mut quoted: Vec<String> = Vec::new();
    for r in requests {
        quoted.push(format!("\"{}\"", gist(r, REQUEST_CHARS)));
        let line = memo.line(format!("Asked, in order: {}", quoted.join("; ")));
        if line.tokens > room {
            break;
        }
        best = Some(line);
    }
    best
}

/// The longest line `make(chars)` gives within `room` tokens: a proportional cut, recounted, in
/// a step or three (a script the tokenizer splits finely spends several tokens a character).
fn fitted(make: impl Fn(usize) -> String, room: u32, memo: &CountMemo) -> Option<Line> {
    let mut chars = room as usize * 4;
    for _ in 0..4 {
        let line = memo.line(make(chars));
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A maker of lines of at most `longest` tokens, each fitted to the `cap` it is given.
    fn upto(longest: u32) -> impl Fn(u32) -> Option<Line> {
        move |cap: u32| Some(Line::counted("x", cap.min(longest)))
    }

    #[test]
    fn room_no_share_used_goes_back_to_a_line_cut_short_and_is_counted() {
        let mut fit = Fitter {
            room: 100,
            left: 30,
            carry: 0,
        };
        // A report cut at 20 tokens that would say 45: it takes 25 of the 30 left.
        let report = fit.regrow(Some(Line::counted("x", 20)), upto(45));
        assert_eq!(report.map(|l| l.tokens), Some(45));
        assert_eq!(fit.left, 5);
        // A line already whole keeps its length and the room stays.
        let whole = fit.regrow(Some(Line::counted("x", 10)), upto(10));
        assert_eq!(whole.map(|l| l.tokens), Some(10));
        assert_eq!(fit.left, 5);
        // A line that had no room at all gets what is left, never more.
        let replies = fit.regrow(None, upto(40));
        assert_eq!(replies.map(|l| l.tokens), Some(5));
        assert_eq!(fit.left, 0);
        // With nothing left, nothing is made again.
        let after = fit.regrow(Some(Line::counted("x", 3)), |_| {
            unreachable!("no room to give")
        });
        assert_eq!(after.map(|l| l.tokens), Some(3));
    }
}
