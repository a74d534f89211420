//! The Tier 2 rollup (CSA §6.2, SPEC §2 "DOC73 §6.4 Mechanism 4"): per-work-context segments of
//! recent activity over a window (default 14 days), written to `rollup/recent_activity.md`.
//!
//! The file is derived and deterministic: generated from the continuity logs and the graph with
//! the start of the current UTC day as reference time, so regenerating it on the same day gives
//! the same bytes. It is Markdown a person can read, with one machine-readable comment before each
//! segment (work context, last activity, local-only flag, token count), because the brief renders
//! it per segment: it drops the current work context's segment (CSA §6.2 rule 2) and never has to
//! tokenize at request time.
//!
//! Generated here deterministically; the continuity agent refreshes it after each run that
//! captured something, `elnor rollup` on demand, and the nightly job (a later issue) on schedule.

use std::collections::BTreeSet;
use std::fs;
use std::path::PathBuf;

use chrono::{DateTime, Duration, NaiveDate, Utc};
use rusqlite::OptionalExtension;
use serde::Serialize;

use crate::base::error::{Error, Result};
use crate::base::fsutil::atomic_write;
use crate::base::ids::WorkContextId;
use crate::base::tokens::{Line, condense};
use crate::continuity::{EntryContent, WorkPhase};
use crate::graph::store::Store;

/// The rollup is skipped by the brief when it is older than this (CSA §6.2 rule 3).
pub const STALE_AFTER_DAYS: i64 = 7;
/// Characters of the latest session summary quoted in a segment.
const SUMMARY_CHARS: usize = 110;

/// One work context's segment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Segment {
    pub work_context_id: WorkContextId,
    pub last_activity: DateTime<Utc>,
    pub local_only: bool,
    pub line: Line,
}

/// The rollup as written and read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rollup {
    pub as_of: NaiveDate,
    pub window_days: u32,
    /// Most recent activity first.
    pub segments: Vec<Segment>,
}

impl Rollup {
    /// Whether the brief must skip it at `today` (older than 7 days).
    pub fn is_stale(&self, today: NaiveDate) -> bool {
        // A rollup from after `today` (a replay of an earlier moment) tells of work that had
        // not happened yet.
        today - self.as_of > Duration::days(STALE_AFTER_DAYS) || self.as_of > today
    }

    /// The file's text.
    pub fn to_markdown(&self) -> String {
        let mut out = format!(
            "<!-- elnor:rollup as_of={} window_days={} -->\n# Recent activity, past {} days (as of {})\n",
            self.as_of, self.window_days, self.window_days, self.as_of
        );
        for s in &self.segments {
            out.push_str(&format!(
                "\n<!-- elnor:segment work_context={} last_activity={} local_only={} tokens={} -->\n{}\n",
                s.work_context_id,
                s.last_activity.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                s.local_only,
                s.line.tokens,
                s.line.text
            ));
        }
        out
    }

    /// Parses a file written by [`Rollup::to_markdown`]. Segments whose comment cannot be read
    /// are skipped: a hand-edited file degrades, it does not fail the brief.
    pub fn parse(text: &str) -> Option<Rollup> {
        let mut lines = text.lines();
        let head = lines.next()?.strip_prefix("<!-- elnor:rollup ")?;
        let as_of = attr(head, "as_of")?.parse().ok()?;
        let window_days = attr(head, "window_days")?.parse().ok()?;
        let mut segments = Vec::new();
        while let Some(line) = lines.next() {
            let Some(meta) = line.strip_prefix("<!-- elnor:segment ") else {
                continue;
            };
            let Some(body) = lines.next() else { break };
            let parsed = (|| {
                Some(Segment {
                    work_context_id: WorkContextId::new(attr(meta, "work_context")?).ok()?,
                    last_activity: DateTime::parse_from_rfc3339(attr(meta, "last_activity")?)
                        .ok()?
                        .with_timezone(&Utc),
                    local_only: attr(meta, "local_only")? == "true",
                    line: Line::counted(body, attr(meta, "tokens")?.parse().ok()?),
                })
            })();
            segments.extend(parsed);
        }
        Some(Rollup {
            as_of,
            window_days,
            segments,
        })
    }
}

fn attr<'a>(meta: &'a str, key: &str) -> Option<&'a str> {
    meta.split_whitespace()
        .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
}

/// Where the rollup lives.
pub fn path(store: &Store) -> PathBuf {
    store.root().join("rollup").join("recent_activity.md")
}

/// Reads the rollup; `None` when there is none yet or it is unreadable.
pub fn read(store: &Store) -> Result<Option<Rollup>> {
    let path = path(store);
    match fs::read_to_string(&path) {
        Ok(text) => Ok(Rollup::parse(&text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) if e.kind() == std::io::ErrorKind::InvalidData => Ok(None),
        Err(e) => Err(Error::io(&path, e)),
    }
}

/// Generates the rollup for `now`'s day and writes it atomically.
pub fn generate(store: &Store, now: DateTime<Utc>) -> Result<Rollup> {
    let config = store.config()?;
    let as_of = now.date_naive();
    let reference = as_of.and_time(chrono::NaiveTime::MIN).and_utc();
    let since = reference - Duration::days(i64::from(config.rollup_window_days));
    let graph = store.graph();
    let mut segments = Vec::new();
    for wc in store.log_ids()? {
        // The catch-all of unrelated sessions has no story to tell.
        if wc.is_unlinked() {
            continue;
        }
        let log = store.log(&wc);
        // A log untouched since the window began has nothing in it; one stat skips it, which
        // keeps generation proportional to recent activity, not to the store's size.
        let modified = fs::metadata(log.path())
            .and_then(|m| m.modified())
            .map_err(|e| Error::io(log.path(), e))?;
        if DateTime::<Utc>::from(modified) < since {
            continue;
        }
        let entries: Vec<_> = log
            .read()?
            .entries
            .into_iter()
            .filter(|e| e.happened_at() >= since)
            .collect();
        let Some(last_activity) = entries.iter().map(|e| e.happened_at()).max() else {
            continue;
        };
        let mut sessions = BTreeSet::new();
        let mut latest_summary: Option<(DateTime<Utc>, String)> = None;
        let mut phase = None;
        let mut open = BTreeSet::new();
        let mut decisions = 0usize;
        for e in &entries {
            match &e.content {
                EntryContent::SessionSummaryRef(s) => {
                    sessions.insert(e.source_session_id.as_str().to_owned());
                    if latest_summary
                        .as_ref()
                        .is_none_or(|(t, _)| e.happened_at() >= *t)
                    {
                        latest_summary =
                            Some((e.happened_at(), s.doc73_session_summary_id.clone()));
                    }
                }
                EntryContent::WorkPhaseChange(p) => phase = Some(p.new_phase),
                EntryContent::OpenQuestion(q) if !q.resolved => {
                    open.insert(q.question.to_lowercase());
                }
                EntryContent::KeyDecision(_) => decisions += 1,
                _ => {}
            }
        }
        let (name, local_only) =
            graph.with_conn_result(|c| crate::graph::contexts::name_and_local_only_in(c, &wc))?;
        let summary = match &latest_summary {
            Some((_, id)) => graph.with_conn_result(|c| {
                c.query_row(
                    "SELECT text FROM session_summaries WHERE doc73_session_summary_id = ?1",
                    [id],
                    |r| r.get::<_, String>(0),
                )
                .optional()
            })?,
            None => None,
        };
        let mut text = format!("- {}", condense(&name, 60));
        if let Some(p) = phase.filter(|p| *p != WorkPhase::Unknown) {
            text.push_str(&format!(" ({})", phase_name(p)));
        }
        text.push(':');
        let mut parts = Vec::new();
        if !sessions.is_empty() {
            parts.push(format!("{} session(s)", sessions.len()));
        }
        if !open.is_empty() {
            parts.push(format!("{} open question(s)", open.len()));
        }
        if decisions > 0 {
            parts.push(format!("{decisions} decision(s)"));
        }
        parts.push(format!("last {}", last_activity.format("%b %-d")));
        text.push_str(&format!(" {}", parts.join(", ")));
        if let Some(s) = summary.filter(|s| !s.trim().is_empty()) {
            text.push_str(&format!(" — {}", condense(&s, SUMMARY_CHARS)));
        }
        segments.push(Segment {
            work_context_id: wc,
            last_activity,
            local_only,
            line: Line::new(text),
        });
    }
    segments.sort_by(|a, b| {
        b.last_activity
            .cmp(&a.last_activity)
            .then_with(|| a.work_context_id.cmp(&b.work_context_id))
    });
    let rollup = Rollup {
        as_of,
        window_days: config.rollup_window_days,
        segments,
    };
    let path = path(store);
    let dir = path.parent().unwrap_or(store.root());
    fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    atomic_write(&path, rollup.to_markdown().as_bytes())?;
    Ok(rollup)
}

fn phase_name(p: WorkPhase) -> &'static str {
    match p {
        WorkPhase::Research => "research",
        WorkPhase::Drafting => "drafting",
        WorkPhase::Review => "review",
        WorkPhase::Revision => "revision",
        WorkPhase::WaitingForExternal => "waiting",
        WorkPhase::Completed => "completed",
        WorkPhase::Paused => "paused",
        WorkPhase::Unknown => "unknown",
    }
}

#[cfg(test)]
mod tests;
