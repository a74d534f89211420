//! What kind of session each one is: a person at work (`primary`), a sub-agent another session's
//! agent started (`subagent`), or the harness talking to itself (`internal`: compaction and
//! warm-up runs, title generators, heartbeat or cron runs with no person in them).
//!
//! Only primary sessions make work contexts and continuity items; a sub-agent belongs to its
//! parent's context. The kind is decided after each ingest for the sessions that received
//! records, from what is stored: the parent link, the harness's own session metadata, and
//! whether any user message holds words a person typed once injected context is taken out.

use std::collections::{BTreeMap, BTreeSet};

use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;

use crate::inputs::transcripts::clean;

/// The kind of a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SessionKind {
    Primary,
    Subagent,
    Internal,
}

impl SessionKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SessionKind::Primary => "primary",
            SessionKind::Subagent => "subagent",
            SessionKind::Internal => "internal",
        }
    }

    pub fn parse(s: &str) -> Option<SessionKind> {
        [
            SessionKind::Primary,
            SessionKind::Subagent,
            SessionKind::Internal,
        ]
        .into_iter()
        .find(|k| k.as_str() == s)
    }
}

/// Decides one session's kind and the reason shown beside it.
pub(crate) fn classify(
    conn: &Connection,
    session_id: &str,
) -> rusqlite::Result<(SessionKind, Option<String>)> {
    let row: Option<(Option<String>, String, String)> = conn
        .query_row(
            "SELECT parent_session_id, source_path, harness FROM transcript_sessions
             WHERE session_id = ?1",
            [session_id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()?;
    let Some((parent, source_path, harness)) = row else {
        return Ok((SessionKind::Primary, None));
    };
    let file = std::path::Path::new(&source_path)
        .file_name()
        .map(|n| n.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    // A Claude Code file under `<session>/subagents/` names its parent session; an OpenClaw
    // session's parent is the one it was branched from, which is the person continuing, not a
    // sub-agent.
    if parent.is_some() && harness == "claude_code" {
        // Claude Code names its compaction and warm-up helpers' files after what they do.
        if file.contains("compact") || file.contains("warmup") {
            return Ok((
                SessionKind::Internal,
                Some("the harness's compaction or warm-up helper".into()),
            ));
        }
        return Ok((
            SessionKind::Subagent,
            Some("started by another session's agent".into()),
        ));
    }
    if harness == "codex" {
        let meta: Option<String> = conn
            .query_row(
                "SELECT raw FROM turns WHERE session_id = ?1 AND record_type = 'session_meta'
                 ORDER BY seq LIMIT 1",
                [session_id],
                |r| r.get(0),
            )
            .optional()?;
        let source = meta
            .and_then(|m| serde_json::from_str::<serde_json::Value>(&m).ok())
            .and_then(|v| {
                v.pointer("/payload/source")
                    .and_then(|s| s.as_str())
                    .map(str::to_owned)
            });
        if source.as_deref() == Some("exec") {
            return Ok((
                SessionKind::Internal,
                Some("a non-interactive `codex exec` run".into()),
            ));
        }
    }
    let sidechain_only: bool = conn.query_row(
        "SELECT count(*) > 0 AND sum(is_sidechain = 0) = 0 FROM turns
         WHERE session_id = ?1 AND kind = 'message'",
        [session_id],
        |r| r.get::<_, Option<bool>>(0).map(|b| b.unwrap_or(false)),
    )?;
    if sidechain_only {
        return Ok((
            SessionKind::Subagent,
            Some("every message is a sub-agent's (sidechain)".into()),
        ));
    }
    // A session whose every user message is injected (scheduled prompts, program-written role
    // prompts, instruction files) had no person in it. A slash command, an expanded command
    // template or an interruption is a person at the keyboard, even with nothing else typed.
    // Messages are read one at a time and each cleaned once; the first sign of a person ends the
    // read, so a person's session costs one message however long it grows.
    let mut stmt = conn.prepare_cached(
        "SELECT text FROM turns WHERE session_id = ?1 AND role = 'user' AND kind = 'message'
           AND is_sidechain = 0 ORDER BY seq",
    )?;
    let mut rows = stmt.query([session_id])?;
    let mut injected: std::collections::BTreeSet<&'static str> = Default::default();
    let mut any = false;
    while let Some(row) = rows.next()? {
        any = true;
        let c = clean::person_text(&row.get::<_, String>(0)?);
        let person = !c.text.trim().is_empty()
            || c.skipped.contains_key(&clean::Injected::CommandWrapper)
            || c.skipped.contains_key(&clean::Injected::PromptTemplate)
            || c.skipped.contains_key(&clean::Injected::Marker);
        if person {
            return Ok((SessionKind::Primary, None));
        }
        injected.extend(c.skipped.into_keys().map(clean::Injected::as_str));
    }
    if any {
        return Ok((
            SessionKind::Internal,
            Some(format!(
                "no person in it: every user message is injected ({})",
                injected.into_iter().collect::<Vec<_>>().join(", ")
            )),
        ));
    }
    Ok((SessionKind::Primary, None))
}

/// Classifies the sessions that received records and stores their kinds.
pub(crate) fn classify_touched<'a>(
    conn: &Connection,
    sessions: impl IntoIterator<Item = &'a String>,
) -> rusqlite::Result<()> {
    for id in sessions {
        let (kind, reason) = classify(conn, id)?;
        conn.execute(
            "UPDATE transcript_sessions SET session_kind = ?2, kind_reason = ?3
             WHERE session_id = ?1",
            params![id, kind.as_str(), reason],
        )?;
    }
    Ok(())
}

/// How many of a session's user messages are read looking for the person's first request: a
/// session whose first fifty messages hold none has no request worth a title.
const REQUEST_SCAN: usize = 50;

/// The longest title taken from a request, in characters; a longer first line is cut at a word.
const REQUEST_TITLE_CHARS: usize = 90;

/// Whether a request line says what the work is: words, not a bare slash command. Scripts
/// written without spaces make a request of one "word", so their characters count instead.
fn says_something(line: &str) -> bool {
    !line.starts_with('/') && (content_words(line) >= 2 || unspaced_chars(line) >= 4)
}

/// Words of a line other than the `@name`s it addresses: a mention says who is asked, not what.
fn content_words(line: &str) -> usize {
    line.split_whitespace()
        .filter(|w| !w.starts_with('@'))
        .count()
}

/// Characters of scripts written without spaces (CJK and the like).
fn unspaced_chars(line: &str) -> usize {
    line.chars().filter(|c| *c > '\u{3000}').count()
}

/// How many words make a line an opener rather than a request of its own: "Hello Jarvis." and
/// "thanks!" say no work. In scripts without spaces a line of four characters already says
/// something ("报告一下", "report on it"), as [`says_something`] counts.
const OPENER_WORDS: usize = 2;
/// How many of the next lines are read for the request an opener leads to.
const OPENER_LOOKAHEAD: usize = 2;

/// Whether a line is too short to name any work ("Hello Jarvis.", "Gracias", "@bot hi").
fn opener(line: &str) -> bool {
    content_words(line) <= OPENER_WORDS && unspaced_chars(line) < 4
}

/// Whether a line names work at some length: what an opener is passed over for.
fn worded_request(line: &str) -> bool {
    says_something(line)
        && (content_words(line) > 2 * OPENER_WORDS || unspaced_chars(line) >= 4 * OPENER_WORDS)
}

/// What a session's first user messages hold: the title lines of what the person typed, in
/// order, one line each, and whether a schedule's prompt (a heartbeat, a cron job) was among them.
struct Requests {
    lines: Vec<String>,
    scheduled: bool,
}

fn request_lines(conn: &Connection, session_id: &str) -> rusqlite::Result<Requests> {
    let mut stmt = conn.prepare_cached(
        "SELECT text FROM turns WHERE session_id = ?1 AND role = 'user' AND kind = 'message'
           AND is_sidechain = 0 ORDER BY seq LIMIT ?2",
    )?;
    let rows = stmt.query_map(params![session_id, REQUEST_SCAN as i64], |r| {
        r.get::<_, String>(0)
    })?;
    let mut out = Requests {
        lines: Vec::new(),
        scheduled: false,
    };
    for text in rows {
        let person = clean::person_text(&text?);
        out.scheduled |= person.skipped.contains_key(&clean::Injected::Scheduled);
        if let Some(line) = title_line(&person.text) {
            out.lines.push(line);
        }
    }
    Ok(out)
}

/// How many of a session's last assistant messages are read for the lead of its report.
const REPORT_SCAN: i64 = 20;

/// What a session with no request did, as a title: the first line with words of its agent's
/// last message that has prose (its report), after "Scheduled job: " when a schedule's prompt
/// started it (`scheduled`: a heartbeat, a cron job). `None` when the agent said nothing either.
fn what_it_did(
    conn: &Connection,
    session_id: &str,
    scheduled: bool,
) -> rusqlite::Result<Option<String>> {
    let mut stmt = conn.prepare_cached(
        "SELECT text FROM turns WHERE session_id = ?1 AND role = 'assistant' AND kind = 'message'
           AND is_sidechain = 0 ORDER BY seq DESC LIMIT ?2",
    )?;
    let mut report = None;
    for text in stmt.query_map(params![session_id, REPORT_SCAN], |r| r.get::<_, String>(0))? {
        let prose = clean::assistant_prose(&text?).text;
        // A bare acknowledgement to a scheduler ("HEARTBEAT_OK", "NO_REPLY") reports nothing.
        let worded = prose.split_whitespace().count() >= 2;
        // A report's heading is still its lead, without the markup ("**Summary — …**").
        let lead = title_line(&prose).map(|l| l.trim_matches(['*', '#', '_', ' ']).to_owned());
        if let Some(line) = lead.filter(|l| worded && !l.is_empty()) {
            report = Some(line);
            break;
        }
    }
    Ok(report.map(|r| {
        if scheduled {
            format!("Scheduled job: {r}")
        } else {
            r
        }
    }))
}

/// The request a title is made of: the first line that says something and is not one of
/// `shared` (openings several sessions share word for word), else the first line typed. A line
/// too short to name work (a greeting, a thank-you) gives way to a worded request right after it.
pub(super) fn pick_request(lines: &[String], shared: &BTreeSet<String>) -> Option<String> {
    let first = lines
        .iter()
        .position(|l| says_something(l) && !shared.contains(l))
        .or_else(|| lines.iter().position(|l| says_something(l)));
    let Some(at) = first else {
        return lines.first().cloned();
    };
    if opener(&lines[at]) {
        let after = lines.iter().skip(at + 1).take(OPENER_LOOKAHEAD);
        if let Some(request) = after
            .filter(|l| !shared.contains(*l))
            .find(|l| worded_request(l))
        {
            return Some(request.clone());
        }
    }
    Some(lines[at].clone())
}

/// `line` without a greeting that opens it ("Hi! Where should my dotfiles go…"): the
/// sentence a title is made of comes after. A line that is only a greeting stays as it is.
fn past_opener(line: &str) -> &str {
    let Some(end) = line.find(['!', '.', '?', ',']) else {
        return line;
    };
    let (head, rest) = line.split_at(end + 1);
    // A stop inside a word ("wttr.in", "e.g.") ends no sentence.
    let Some(rest) = rest.strip_prefix(' ') else {
        return line;
    };
    if opener(head) && worded_request(rest) {
        rest
    } else {
        line
    }
}

/// The first line of `text` with words in it, whitespace collapsed, cut to
/// [`REQUEST_TITLE_CHARS`] at a word boundary.
pub(crate) fn title_line(text: &str) -> Option<String> {
    let line = text
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .find(|l| l.chars().any(char::is_alphanumeric))?;
    let line = past_opener(&line).to_owned();
    if line.chars().count() <= REQUEST_TITLE_CHARS {
        return Some(line);
    }
    let cut: String = line.chars().take(REQUEST_TITLE_CHARS).collect();
    let cut = match cut.rfind(' ') {
        Some(at) if at > REQUEST_TITLE_CHARS / 2 => cut[..at].to_owned(),
        _ => cut,
    };
    Some(format!(
        "{}…",
        cut.trim_end_matches([',', ';', ':', '.', ' '])
    ))
}

/// Reads the request title of the sessions that received records and have none yet, and of
/// every session whose title was never read (a store made before titles existed): an empty
/// string records "no request in it so far".
///
/// A session's opening (its first request, as typed) is kept beside its title. An opening that
/// several sessions share word for word is a prompt a tool expands ("You must fully embody this
/// agent's persona…"), a harness's automatic first message or a stock "continue": no title of
/// any one session. Those sessions are titled by their first other request.
pub(crate) fn title_touched<'a>(
    conn: &Connection,
    sessions: impl IntoIterator<Item = &'a String>,
) -> rusqlite::Result<()> {
    // A session's first request does not change once read, so a touched session is read again
    // only while it has none that says what the work is (its first records may all have been
    // injected text, or a bare command): what it did is read again as it grows.
    let mut open = conn.prepare_cached(
        "SELECT 1 FROM transcript_sessions WHERE session_id = ?1
           AND (request IS NULL OR request = '' OR request LIKE '/%'
                OR instr(trim(request), ' ') = 0)",
    )?;
    let mut ids = BTreeSet::new();
    for id in sessions {
        if open.exists([id])? {
            ids.insert(id.clone());
        }
    }
    let mut stmt =
        conn.prepare_cached("SELECT session_id FROM transcript_sessions WHERE request IS NULL")?;
    ids.extend(stmt.query_map([], |r| r.get::<_, String>(0))?.flatten());
    let mut read = BTreeSet::new();
    for id in &ids {
        let requests = request_lines(conn, id)?;
        let opening = pick_request(&requests.lines, &BTreeSet::new()).unwrap_or_default();
        // A session the person asked nothing in (or only ran a bare command in: `/resume
        // <id>`) is named by what it did instead.
        let did = if !says_something(&opening) {
            what_it_did(conn, id, requests.scheduled)?
        } else {
            None
        };
        conn.execute(
            "UPDATE transcript_sessions SET request = ?2, opening = ?2, did = ?3
             WHERE session_id = ?1",
            params![id, opening, did],
        )?;
        if !opening.is_empty() {
            read.insert(opening);
        }
    }
    retitle_shared_openings(conn, &read)
}

/// Titles the sessions whose opening others share by their first other request, unless
/// sessions that share the opening also share that request: then they are one piece of work
/// replayed (a resumed or forked session copies the requests it began with), and the opening
/// is what the person asked. Only the groups of the openings just `read` can change: the
/// others are as titled before.
fn retitle_shared_openings(conn: &Connection, read: &BTreeSet<String>) -> rusqlite::Result<()> {
    if read.is_empty() {
        return Ok(());
    }
    let mut stmt = conn.prepare_cached(
        "SELECT opening FROM transcript_sessions WHERE opening <> ''
         GROUP BY opening HAVING count(*) >= 2",
    )?;
    let shared: BTreeSet<String> = stmt
        .query_map([], |r| r.get::<_, String>(0))?
        .collect::<rusqlite::Result<_>>()?;
    // Every session of a group just joined is read: whether its next request is its own
    // depends on the others'.
    let mut stmt = conn
        .prepare_cached("SELECT session_id, request FROM transcript_sessions WHERE opening = ?1")?;
    let mut sessions: Vec<(String, String, Option<String>)> = Vec::new();
    for opening in shared.intersection(read) {
        for row in stmt.query_map([opening], |r| Ok((r.get(0)?, r.get(1)?)))? {
            let (id, request) = row?;
            sessions.push((id, opening.clone(), request));
        }
    }
    let mut next: Vec<(String, String, Option<String>, Option<String>)> = Vec::new();
    for (id, opening, request) in sessions {
        let lines = request_lines(conn, &id)?.lines;
        let other = pick_request(&lines, &shared).filter(|r| *r != opening);
        next.push((id, opening, request, other));
    }
    let mut replayed: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for (_, opening, _, other) in &next {
        if let Some(other) = other {
            *replayed.entry((opening, other)).or_default() += 1;
        }
    }
    for (id, opening, request, other) in &next {
        let title = match other {
            Some(o) if replayed[&(opening.as_str(), o.as_str())] < 2 => o,
            _ => opening,
        };
        if request.as_deref() != Some(title.as_str()) {
            conn.execute(
                "UPDATE transcript_sessions SET request = ?2 WHERE session_id = ?1",
                params![id, title],
            )?;
        }
    }
    Ok(())
}

/// Whether a harness's title is a generated slug ("effervescent-napping-tide") rather than
/// words about the work: lower-case words joined by hyphens, no spaces.
pub(crate) fn is_slug(title: &str) -> bool {
    title.contains('-')
        && title
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// The title a list shows for a session: the person's first request, as they would name it;
/// else the harness's own title when it says something (a slash command alone says less);
/// else what the session did, when the person asked nothing that says what the work is; else
/// the request as it is; else the harness's slug; `None`
/// when there is none of them.
pub fn display_title(
    title: Option<&str>,
    request: Option<&str>,
    did: Option<&str>,
) -> Option<String> {
    let title = title.map(str::trim).filter(|t| !t.is_empty());
    let request = request.map(str::trim).filter(|r| !r.is_empty());
    let did = did.map(str::trim).filter(|d| !d.is_empty());
    let worded = says_something;
    match (title, request, did) {
        (_, Some(r), _) if worded(r) => Some(r.to_owned()),
        (Some(t), _, _) if !is_slug(t) => Some(t.to_owned()),
        (_, _, Some(d)) => Some(d.to_owned()),
        (_, Some(r), _) => Some(r.to_owned()),
        (Some(t), None, None) => Some(t.to_owned()),
        (None, None, None) => None,
    }
}
