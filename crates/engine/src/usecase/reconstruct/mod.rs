//! Reconstruct (spec §8.7, issue 19): capture the stored raw turns again, with today's detectors
//! or with the synthesis model, into a scratch copy of the store, and say what would change in
//! the live store; on request, make the live store's capture-made data match.
//!
//! The live store's captures ran incrementally: a session was captured several times, each
//! capture reading the turns since the one before (`capture_windows`). Capturing whole sessions
//! at once would differ from that for no reason worth reporting, so the scratch replays every
//! recorded window, in the order the captures ran and at the time each ran, through the same
//! capture code. Sessions with turns after their last window are left as they are: reconstruct
//! compares what exists, it does not capture what is new.
//!
//! What capture made is cleared in the scratch before the replay (its state, summaries, windows,
//! runs, references, mentions, the entities it created that the person never touched, and the
//! log entries whose source is a captured session); what the person made stays (work contexts,
//! rules, entities, pushes, observations, entries from anything but a captured session).
//!
//! The comparison is per work context and ignores what differs on every run (entry ids, capture
//! times): an entry is known by its type, its text and its source session. `docs/RECONSTRUCT.md`
//! says what apply keeps.

mod apply;
mod compare;
mod scratch;

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Utc};
use rusqlite::params;
use serde::Serialize;

use crate::base::config::ContinuityMode;
use crate::base::error::{Error, Result};
use crate::base::ids::{SessionId, WorkContextId};
use crate::base::secrets::SecretStore;
use crate::graph::entities::parse_ts;
use crate::graph::store::Store;
use crate::inputs::agent::Trigger;
use crate::inputs::capture::{self, CaptureRequest, CaptureStatus};

pub use compare::{ContextDiff, DiffCounts, DiffItem, ItemChange};

/// Which algorithms the replay runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReconstructMode {
    /// The heuristic detectors and the templated summary, as in `deterministic` mode.
    Deterministic,
    /// The configured synthesis model, as in `full` mode (a window the model fails on falls back
    /// to the detectors, as capture always does, and the report counts it).
    Model,
}

impl ReconstructMode {
    /// Parses `deterministic` or `model`.
    pub fn parse(s: &str) -> Result<ReconstructMode> {
        match s {
            "deterministic" => Ok(ReconstructMode::Deterministic),
            "model" => Ok(ReconstructMode::Model),
            other => Err(Error::InvalidInput(format!(
                "there is no reconstruct mode {other:?}; use deterministic or model"
            ))),
        }
    }
}

/// What to reconstruct.
#[derive(Debug, Clone)]
pub struct ReconstructRequest {
    pub mode: ReconstructMode,
    /// Report (and apply) only this work context. The replay still covers every window, because
    /// one capture's entities and updates reach other contexts.
    pub work_context: Option<WorkContextId>,
    /// Make the live store match the scratch for capture-made data (see [`Applied`]). Without
    /// it, reconstruct only reports.
    pub apply: bool,
}

/// What reconstruct found, and what apply did when it was asked to.
#[derive(Debug, Clone, Serialize)]
pub struct ReconstructReport {
    pub mode: ReconstructMode,
    /// Recorded capture windows replayed.
    pub windows: usize,
    /// Sessions those windows belong to.
    pub sessions: usize,
    /// Windows whose replay captured nothing (a session now taken for a sub-agent's, say); their
    /// live items then show as removed.
    pub windows_empty: usize,
    /// In model mode, windows where the model failed and the detectors stood in, and the first
    /// reason.
    pub fallbacks: usize,
    pub fallback_reason: Option<String>,
    /// Every work context with capture-made items on either side, sorted by id.
    pub contexts: Vec<ContextDiff>,
    pub totals: DiffCounts,
    pub applied: Option<Applied>,
}

impl ReconstructReport {
    /// Items that would be added, removed or changed (kept items are not differences: apply
    /// leaves them, by design).
    pub fn differences(&self) -> usize {
        self.totals.differences()
    }
}

/// What apply changed in the live store.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Applied {
    pub entries_added: usize,
    pub entries_removed: usize,
    pub entries_changed: usize,
    /// Live items left because a decision of the person's rests on them.
    pub kept: usize,
    pub summaries_written: usize,
    pub summaries_removed: usize,
    /// Sessions moved to the work context the replay placed them in.
    pub sessions_moved: usize,
    /// Copies of every log and summary apply rewrote, as they were before.
    pub backups: Vec<std::path::PathBuf>,
}

/// One recorded capture window, as replayed.
#[derive(Debug, Clone)]
pub(crate) struct Window {
    pub summary_id: String,
    pub session_id: String,
    pub after_seq: i64,
    pub through_seq: i64,
    pub at: DateTime<Utc>,
    pub trigger: Trigger,
}

/// Re-runs capture over the stored raw turns into a scratch store, compares it with the live
/// store per work context, and with `req.apply` makes the live store's capture-made data match
/// (keeping the person's reviewed decisions), then refreshes the views it touched. The scratch is
/// removed afterwards, whatever happened.
pub fn reconstruct(
    store: &Store,
    req: &ReconstructRequest,
    secrets: &dyn SecretStore,
    now: DateTime<Utc>,
) -> Result<ReconstructReport> {
    let config = store.config()?;
    if config.mode == ContinuityMode::Off && req.apply {
        return Err(Error::InvalidInput(
            "continuity is off: turn capture on before applying a reconstruction".into(),
        ));
    }
    if let Some(wc) = &req.work_context {
        let known =
            store.graph().work_context(wc.as_str()).is_ok() || store.log(wc).path().exists();
        if !known {
            return Err(Error::NotFound {
                what: "work context",
                id: wc.to_string(),
            });
        }
    }
    let windows = windows(store)?;
    let captured = captured_sessions(store)?;
    let scratch = scratch::Scratch::create(store, req.mode, &captured, now)?;

    let mut report = ReconstructReport {
        mode: req.mode,
        windows: windows.len(),
        sessions: windows
            .iter()
            .map(|w| w.session_id.as_str())
            .collect::<BTreeSet<_>>()
            .len(),
        windows_empty: 0,
        fallbacks: 0,
        fallback_reason: None,
        contexts: Vec::new(),
        totals: DiffCounts::default(),
        applied: None,
    };
    for w in &windows {
        scratch.prepare_window(w)?;
        let outcome = capture::capture_through(
            scratch.store(),
            secrets,
            &CaptureRequest {
                session_id: SessionId::new(w.session_id.clone())?,
                trigger: w.trigger,
                now: w.at,
            },
            Some(w.through_seq),
        )
        .map_err(|e| {
            Error::InvalidInput(format!(
                "replaying capture window {} (session {} through turn {}): {e}",
                w.summary_id, w.session_id, w.through_seq
            ))
        })?;
        if outcome.status != CaptureStatus::Captured {
            report.windows_empty += 1;
        }
        if let Some(reason) = outcome.fallback_reason {
            report.fallbacks += 1;
            report.fallback_reason.get_or_insert(reason);
        }
    }

    let live = compare::Side::read(store, &captured)?;
    let replayed = compare::Side::read(scratch.store(), &captured)?;
    let protected = protected_entries(store)?;
    let diffs = compare::compare(&live, &replayed, &protected, req.work_context.as_ref());
    for d in &diffs {
        report.totals.add(&d.counts);
    }
    report.contexts = diffs;
    if req.apply {
        let applied = apply::apply(store, &scratch, &live, &report.contexts, now)?;
        report.applied = Some(applied);
    }
    Ok(report)
}

/// Every recorded window, in the order its capture ran: by the capture run it belongs to (runs
/// are numbered as they are written), then by its summary's time. A window's run is the run of
/// its session at the summary's time, which capture writes in the same transaction.
fn windows(store: &Store) -> Result<Vec<Window>> {
    type Row = (String, String, Option<i64>, i64, Option<String>);
    let (rows, runs) = store.graph().with_conn_result(|c| {
        let mut stmt = c.prepare(
            "SELECT w.summary_id, w.session_id, w.after_seq, w.through_seq, s.generated_at
             FROM capture_windows w
             LEFT JOIN session_summaries s ON s.doc73_session_summary_id = w.summary_id
             ORDER BY w.session_id, w.through_seq",
        )?;
        let rows = stmt
            .query_map([], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
            })?
            .collect::<rusqlite::Result<Vec<Row>>>()?;
        let mut stmt = c.prepare(
            "SELECT run_id, session_id, captured_at, trigger FROM capture_runs ORDER BY run_id",
        )?;
        let runs = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                ))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok((rows, runs))
    })?;
    let mut by_key: BTreeMap<(String, String), Vec<(i64, String)>> = BTreeMap::new();
    for (run, session, at, trigger) in runs {
        by_key
            .entry((session, at))
            .or_default()
            .push((run, trigger));
    }
    let mut out: Vec<(i64, Window)> = Vec::new();
    for (summary_id, session_id, after, through, generated) in rows {
        let run = generated
            .as_ref()
            .and_then(|g| by_key.get_mut(&(session_id.clone(), g.clone())))
            .and_then(|v| (!v.is_empty()).then(|| v.remove(0)));
        let Some(at) = parse_ts(generated) else {
            // A window without its summary has no time to replay at; the migration that made
            // windows from summaries never writes one, and capture writes both together.
            tracing::warn!(%summary_id, "capture window without a summary: not replayed");
            continue;
        };
        let trigger = run
            .as_ref()
            .and_then(|(_, t)| trigger_of(t))
            .unwrap_or(Trigger::ManualRequest);
        out.push((
            run.map_or(i64::MAX, |(id, _)| id),
            Window {
                summary_id,
                session_id,
                after_seq: after.unwrap_or(0),
                through_seq: through,
                at,
                trigger,
            },
        ));
    }
    out.sort_by(|a, b| {
        (a.1.at, a.0, &a.1.session_id, a.1.through_seq).cmp(&(
            b.1.at,
            b.0,
            &b.1.session_id,
            b.1.through_seq,
        ))
    });
    Ok(out.into_iter().map(|(_, w)| w).collect())
}

fn trigger_of(name: &str) -> Option<Trigger> {
    [
        Trigger::IdleTimeout,
        Trigger::DebouncedDefocus,
        Trigger::PreCompaction,
        Trigger::NightlySweep,
        Trigger::ManualRequest,
    ]
    .into_iter()
    .find(|t| capture::trigger_name(*t) == name)
}

/// The sessions capture has read: the entries whose source is one of them are capture's, all
/// other entries (pushes, observations, the person's own) are not.
fn captured_sessions(store: &Store) -> Result<BTreeSet<String>> {
    store.graph().with_conn_result(|c| {
        let mut stmt = c.prepare(
            "SELECT session_id FROM capture_windows UNION SELECT session_id FROM session_captures
             UNION SELECT session_id FROM capture_runs",
        )?;
        stmt.query_map([], |r| r.get(0))?.collect()
    })
}

/// Entries a decision of the person's rests on: a proposal made from them that they approved,
/// rejected or deferred, or a promotion to a durable node. Apply never removes or rewrites them.
fn protected_entries(store: &Store) -> Result<BTreeSet<String>> {
    store.graph().with_conn_result(|c| {
        let mut stmt = c.prepare(
            "SELECT entry_id FROM promotion_proposals WHERE status <> 'pending'
             UNION SELECT entry_id FROM entry_promotions",
        )?;
        stmt.query_map(params![], |r| r.get(0))?.collect()
    })
}

#[cfg(test)]
mod tests;
