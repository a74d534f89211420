//! The first-run overview: the projects (work contexts) found in a person's history, newest work
//! first, each with where it stood when its last session ended.
//!
//! This is what Home and the CLI tour show after a first ingest of months of history. It reads
//! the logs as they are, not the constellation views: a view leaves out what has decayed, while
//! "where it stood" is the last thing recorded however long ago that was. The time shown is when
//! the work happened (the newest session's last turn), never when ELNOR read it.

use std::collections::BTreeSet;

use rusqlite::OptionalExtension;
use serde::Serialize;

use crate::base::error::Result;
use crate::base::ids::WorkContextId;
use crate::continuity::{EntryContent, WorkPhase};
use crate::graph::contexts::Origin;
use crate::graph::store::Store;

/// How many open questions an overview row carries.
const OPEN_QUESTIONS: usize = 3;

/// One project (work context) in the overview.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProjectOverview {
    pub work_context_id: WorkContextId,
    pub name: String,
    /// `project`, `named` or `auto`.
    pub origin: Origin,
    pub session_count: u64,
    /// When the newest session's last turn happened (RFC 3339).
    pub last_active_at: Option<String>,
    /// The latest recorded phase.
    pub phase: Option<WorkPhase>,
    /// The latest session summary's text.
    pub latest_summary: Option<String>,
    /// Open questions still unresolved, newest first (at most three).
    pub open_questions: Vec<String>,
    /// Of those, how many came from the heuristic detectors (reduced confidence).
    pub heuristic_questions: usize,
}

/// The `limit` most recently active work contexts with sessions, newest first.
pub fn projects(store: &Store, limit: usize) -> Result<Vec<ProjectOverview>> {
    let graph = store.graph();
    let mut out = Vec::new();
    // Ordered by when the work happened; contexts with no session (made by hand, not used yet)
    // are not projects found in the history. Only the rows shown are read.
    for wc in graph.active_work_contexts(limit)? {
        let mut phase = None;
        let mut summary_id = None;
        let mut open: Vec<(String, bool)> = Vec::new();
        let mut seen = BTreeSet::new();
        let read = store.log(&wc.work_context_id).read()?;
        // Newest work first: a first ingest captures sessions in no particular order, so the
        // log's append order is not the order the work happened in.
        let mut entries: Vec<_> = read.entries.iter().rev().collect();
        entries.sort_by_key(|e| std::cmp::Reverse(e.happened_at()));
        for e in entries {
            match &e.content {
                EntryContent::WorkPhaseChange(p) if phase.is_none() => phase = Some(p.new_phase),
                EntryContent::SessionSummaryRef(s) if summary_id.is_none() => {
                    summary_id = Some(s.doc73_session_summary_id.clone());
                }
                EntryContent::OpenQuestion(q)
                    if !q.resolved
                        && open.len() < OPEN_QUESTIONS
                        && seen.insert(q.question.to_lowercase()) =>
                {
                    open.push((q.question.clone(), e.is_reduced_confidence()));
                }
                _ => {}
            }
        }
        let latest_summary = match summary_id {
            Some(id) => graph.with_conn_result(|c| {
                c.query_row(
                    "SELECT text FROM session_summaries WHERE doc73_session_summary_id = ?1",
                    [&id],
                    |r| r.get::<_, String>(0),
                )
                .optional()
            })?,
            None => None,
        };
        out.push(ProjectOverview {
            work_context_id: wc.work_context_id,
            name: wc.name,
            origin: wc.origin,
            session_count: wc.session_count,
            last_active_at: wc.last_active_at,
            phase,
            latest_summary,
            heuristic_questions: open.iter().filter(|(_, h)| *h).count(),
            open_questions: open.into_iter().map(|(q, _)| q).collect(),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
