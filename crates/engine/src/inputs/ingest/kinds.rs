//! What kind of session each one is: a person at work (`primary`), a sub-agent another session's
//! agent started (`subagent`), or the harness talking to itself (`internal`: compaction and
//! warm-up runs, title generators, heartbeat or cron runs with no person in them).
//!
//! Only primary sessions make work contexts and continuity items; a sub-agent belongs to its
//! parent's context. The kind is decided after each ingest for the sessions that received
//! records, from what is stored: the parent link, the harness's own session metadata, and
//! whether any user message holds words a person typed once injected context is taken out.

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
