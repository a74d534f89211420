//! Capture health: whether ELNOR is still hearing from every agent the person uses. Per transcript
//! source, what ingest has seen of it (files, the newest change, the last read, parse problems);
//! per harness, how much it recorded lately, its usual gap between sessions and whether it has
//! been silent for longer than that, and the sessions that ended without ever being captured;
//! per harness hook, whether the harness's settings install it and when it last fired; and
//! whether OpenClaw's Dreaming runs beside ELNOR; and, from the record census ([`census`]), what
//! ingest made of every source's records and which files lost turns. `elnor doctor` prints it; Today turns its
//! silences, its hooks that never fire and a running Dreaming into alerts.
//!
//! Everything is read from what ingest and capture already store (`ingest_files`,
//! `transcript_sessions`, `capture_runs`) and from the sources file; nothing here walks the
//! transcripts again, so the report costs a few indexed queries however large the history is,
//! plus a read of each harness's small settings file.

use std::path::PathBuf;

use chrono::{DateTime, Duration, Utc};
use rusqlite::params;
use serde::Serialize;

use crate::base::error::Result;
use crate::graph::entities::{parse_ts, ts};
use crate::graph::store::Store;
use crate::inputs::transcripts::Harness;
use crate::usecase::harness::HarnessPaths;
use crate::usecase::harness::dreaming::{DreamingStatus, dreaming_status};
use crate::usecase::harness::hooks::{HookStatus, hook_status};

pub mod census;

use census::{FileCensus, TypeCount};

/// How many of a harness's newest sessions its usual gap is measured over.
pub const GAP_SESSIONS: usize = 30;

/// A harness is silent when it has recorded nothing for this many times its usual gap …
pub const SILENT_GAPS: i32 = 3;

/// … and for at least this long: a person who uses an agent every hour may still take a weekend.
pub const SILENT_AT_LEAST: Duration = Duration::days(3);

/// The gap assumed for a harness with too few sessions to have a usual one.
pub const ASSUMED_GAP: Duration = Duration::days(7);

/// One transcript source, as ingest has seen it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SourceHealth {
    pub harness: Harness,
    pub root: PathBuf,
    pub enabled: bool,
    /// Whether the folder (or database) is there now.
    pub exists: bool,
    /// Transcript files ingest has read under it.
    pub files: u64,
    /// The newest modification time of those files, as last read.
    pub last_file_change: Option<DateTime<Utc>>,
    /// When ingest last read one of them.
    pub last_read: Option<DateTime<Utc>>,
    /// Lines ingest could not parse: malformed JSON, invalid UTF-8, oversized lines.
    pub problems: u64,
    /// Records of a type ingest does not know (kept raw and counted).
    pub unknown_records: u64,
    /// Records read from its files, and the conversation turns they made.
    pub records: u64,
    pub turns: u64,
    /// Records understood and kept out of the conversation on purpose, by type.
    pub skipped: Vec<TypeCount>,
    /// Records not understood, by type, each with a file and line holding one.
    pub not_understood: Vec<TypeCount>,
}

/// One harness: how much it recorded lately and whether it went quiet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HarnessHealth {
    pub harness: Harness,
    /// Sessions with a turn in the last day and week, and their turns.
    pub sessions_day: u64,
    pub sessions_week: u64,
    pub turns_day: u64,
    pub turns_week: u64,
    /// When its newest session's last turn happened.
    pub last_session_at: Option<DateTime<Utc>>,
    /// The median time between the starts of its newest sessions (`None` with fewer than three).
    pub usual_gap_hours: Option<i64>,
    /// Silent for longer than its usual gap allows (see [`SILENT_GAPS`]; [`ASSUMED_GAP`] when it
    /// has too few sessions to have a usual gap).
    pub silent: bool,
    /// Sessions a person worked in that ended (quiet past the idle trigger) without a capture,
    /// though they said enough in it to be worth one (`min_dirty_turns` messages of their own).
    pub uncaptured: u64,
}

/// The whole report.
#[derive(Debug, Clone, Serialize)]
pub struct Health {
    pub checked_at: DateTime<Utc>,
    pub sources: Vec<SourceHealth>,
    pub harnesses: Vec<HarnessHealth>,
    /// Every hook ELNOR installs (and any other that fired): installed or not, fired or not.
    pub hooks: Vec<HookStatus>,
    /// Whether OpenClaw's Dreaming runs beside ELNOR (CSA §10).
    pub dreaming: DreamingStatus,
    /// Transcript files that lost turns to records not understood (see [`census`]).
    pub lost_files: Vec<FileCensus>,
}

/// Capture health at `now`, with the harnesses' settings where `paths` says they are.
pub fn health(store: &Store, now: DateTime<Utc>, paths: &HarnessPaths) -> Result<Health> {
    let graph = store.graph();
    let config = store.config().ok();
    let idle = Duration::minutes(i64::from(
        config.as_ref().map_or(15, |c| c.idle_trigger_minutes),
    ));
    let min_turns = i64::from(config.as_ref().map_or(3, |c| c.min_dirty_turns));
    let mut sources = Vec::new();
    for s in store.sources().load()? {
        let prefix = format!("{}%", s.root.to_string_lossy().replace('%', "\\%"));
        let (files, newest_ns, last_read, problems, unknown) = graph.with_conn_result(|c| {
            c.query_row(
                "SELECT count(*), max(mtime_ns), max(updated_at),
                        coalesce(sum(malformed + invalid_utf8 + oversized), 0),
                        coalesce(sum(unknown), 0)
                 FROM ingest_files WHERE harness = ?1 AND source_key LIKE ?2 ESCAPE '\\'",
                params![s.harness.as_str(), prefix],
                |r| {
                    Ok((
                        r.get::<_, i64>(0)?,
                        r.get::<_, Option<i64>>(1)?,
                        r.get::<_, Option<String>>(2)?,
                        r.get::<_, i64>(3)?,
                        r.get::<_, i64>(4)?,
                    ))
                },
            )
        })?;
        let files_census = census::census(store, &s.root.to_string_lossy())?;
        let (skipped, not_understood) = census::by_type(&files_census);
        sources.push(SourceHealth {
            records: files_census.iter().map(|f| f.records).sum(),
            turns: files_census.iter().map(|f| f.turns).sum(),
            skipped,
            not_understood,
            harness: s.harness,
            exists: s.root.exists(),
            root: s.root,
            enabled: s.enabled,
            files: files.max(0) as u64,
            last_file_change: newest_ns.map(DateTime::from_timestamp_nanos),
            last_read: parse_ts(last_read),
            problems: problems.max(0) as u64,
            unknown_records: unknown.max(0) as u64,
        });
    }
    let mut harnesses = Vec::new();
    for harness in Harness::ALL {
        let recent = |since: DateTime<Utc>| {
            graph.with_conn_result(|c| {
                c.query_row(
                    "SELECT count(*), coalesce(sum(turn_count), 0) FROM transcript_sessions
                     WHERE harness = ?1 AND last_turn_at >= ?2",
                    params![harness.as_str(), ts(since)],
                    |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)),
                )
            })
        };
        let (sessions_day, turns_day) = recent(now - Duration::days(1))?;
        let (sessions_week, turns_week) = recent(now - Duration::days(7))?;
        let Silence {
            last_session_at,
            usual_gap,
            silent,
        } = silence(graph, harness, now)?;
        // Ended sessions with no capture at all, then only those the person said enough in to
        // be worth one: the agent's own rule, counting what the person typed (injected text
        // does not count), read message by message and only until the count is reached.
        let candidates: Vec<String> = graph.with_conn_result(|c| {
            let mut stmt = c.prepare_cached(
                "SELECT s.session_id FROM transcript_sessions s
                 WHERE s.harness = ?1 AND s.session_kind = 'primary' AND s.last_turn_at < ?2
                   AND NOT EXISTS (SELECT 1 FROM capture_runs r WHERE r.session_id = s.session_id)",
            )?;
            stmt.query_map(params![harness.as_str(), ts(now - idle)], |r| r.get(0))?
                .collect()
        })?;
        let mut uncaptured = 0u64;
        for session in candidates {
            let worth = graph.with_conn_result(|c| {
                let mut stmt = c.prepare_cached(
                    "SELECT text FROM turns WHERE session_id = ?1 AND role = 'user'
                       AND kind = 'message' ORDER BY seq",
                )?;
                let mut rows = stmt.query([&session])?;
                let mut said = 0;
                while let Some(r) = rows.next()? {
                    if crate::inputs::capture::is_person_text(&r.get::<_, String>(0)?) {
                        said += 1;
                        if said >= min_turns {
                            return Ok(true);
                        }
                    }
                }
                Ok(false)
            })?;
            uncaptured += u64::from(worth);
        }
        harnesses.push(HarnessHealth {
            harness,
            sessions_day: sessions_day.max(0) as u64,
            sessions_week: sessions_week.max(0) as u64,
            turns_day: turns_day.max(0) as u64,
            turns_week: turns_week.max(0) as u64,
            last_session_at,
            usual_gap_hours: usual_gap.map(|g| g.num_hours()),
            silent,
            uncaptured,
        });
    }
    Ok(Health {
        checked_at: now,
        sources,
        harnesses,
        hooks: hook_status(store, paths)?,
        dreaming: dreaming_status(paths),
        lost_files: census::files_that_lost_turns(store, true)?,
    })
}

/// Whether a harness went silent: its newest primary session, its usual gap and the verdict.
pub(crate) struct Silence {
    pub(crate) last_session_at: Option<DateTime<Utc>>,
    pub(crate) usual_gap: Option<Duration>,
    pub(crate) silent: bool,
}

/// Whether `harness` has been silent past its usual gap at `now`: two indexed queries, cheap
/// enough for Today to ask on every visit without the rest of the health report.
pub(crate) fn silence(
    graph: &crate::graph::Graph,
    harness: Harness,
    now: DateTime<Utc>,
) -> Result<Silence> {
    // Primary sessions only: a sub-agent's or the harness's own run says nothing about whether
    // the person still uses this agent.
    let starts: Vec<String> = graph.with_conn_result(|c| {
        let mut stmt = c.prepare_cached(
            "SELECT coalesce(started_at, last_turn_at) FROM transcript_sessions
             WHERE harness = ?1 AND session_kind = 'primary'
               AND coalesce(started_at, last_turn_at) IS NOT NULL
             ORDER BY 1 DESC LIMIT ?2",
        )?;
        stmt.query_map(params![harness.as_str(), GAP_SESSIONS as i64], |r| r.get(0))?
            .collect()
    })?;
    let last: Option<String> = graph.with_conn_result(|c| {
        c.query_row(
            "SELECT max(last_turn_at) FROM transcript_sessions
             WHERE harness = ?1 AND session_kind = 'primary'",
            [harness.as_str()],
            |r| r.get(0),
        )
    })?;
    let last_session_at = parse_ts(last);
    let starts: Vec<DateTime<Utc>> = starts
        .into_iter()
        .filter_map(|s| parse_ts(Some(s)))
        .collect();
    let usual_gap = usual_gap(&starts);
    let silent = last_session_at.is_some_and(|last| {
        now - last > (usual_gap.unwrap_or(ASSUMED_GAP) * SILENT_GAPS).max(SILENT_AT_LEAST)
    });
    Ok(Silence {
        last_session_at,
        usual_gap,
        silent,
    })
}

/// The median gap between consecutive session starts, newest first in `starts`; `None` with
/// fewer than three sessions, too few to say what is usual.
fn usual_gap(starts: &[DateTime<Utc>]) -> Option<Duration> {
    if starts.len() < 3 {
        return None;
    }
    let mut gaps: Vec<Duration> = starts.windows(2).map(|w| (w[0] - w[1]).abs()).collect();
    gaps.sort();
    Some(gaps[gaps.len() / 2])
}

#[cfg(test)]
mod tests;
