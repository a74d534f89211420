//! `reconstruct_start` (issue 19): the engine's reconstruct run as a job of the app's job runner
//! (`jobs.rs`), because replaying every recorded capture window into a scratch store takes
//! seconds on a big store. This owns the conversion of the engine's report into the wire's
//! [`elnor_types::ReconstructReport`], which the finished job carries as its result, and the
//! summary in words the job's status shows.
//!
//! Comparing and applying are the same command: the Reconstruct page compares first and applies
//! only after the person confirms, with the mode and work context of the comparison it showed.

use std::sync::Arc;

use elnor_engine::{
    OsKeyring, ReconstructChange as EngineChange, ReconstructRequest, Store, WorkContextId,
};
use elnor_types::commands as cmd;
use elnor_types::{
    JobKind, JobResult, ReconstructApplied, ReconstructChange, ReconstructContextRow,
    ReconstructCounts, ReconstructItem, ReconstructMode, ReconstructReport, ReplyOf, RequestOf,
};
use tauri::State;

use crate::jobs::{Jobs, Outcome};
use crate::state::{AppState, to_command_error};

/// A count for the wire.
fn count(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

fn counts(c: &elnor_engine::ReconstructCounts) -> ReconstructCounts {
    ReconstructCounts {
        same: count(c.same),
        added: count(c.added),
        removed: count(c.removed),
        changed: count(c.changed),
        kept: count(c.kept),
    }
}

fn change(c: EngineChange) -> ReconstructChange {
    match c {
        EngineChange::Added => ReconstructChange::Added,
        EngineChange::Removed => ReconstructChange::Removed,
        EngineChange::Changed => ReconstructChange::Changed,
        EngineChange::Kept => ReconstructChange::Kept,
    }
}

fn engine_mode(m: ReconstructMode) -> elnor_engine::ReconstructMode {
    match m {
        ReconstructMode::Deterministic => elnor_engine::ReconstructMode::Deterministic,
        ReconstructMode::Model => elnor_engine::ReconstructMode::Model,
    }
}

fn wire_mode(m: elnor_engine::ReconstructMode) -> ReconstructMode {
    match m {
        elnor_engine::ReconstructMode::Deterministic => ReconstructMode::Deterministic,
        elnor_engine::ReconstructMode::Model => ReconstructMode::Model,
    }
}

/// The engine's report on the wire. Work contexts are named from the graph where it knows them;
/// a context only a log file names (one capture made and nothing else refers to) keeps its id.
pub(crate) fn report(
    store: &Store,
    r: &elnor_engine::ReconstructReport,
    work_context: Option<&WorkContextId>,
) -> ReconstructReport {
    let contexts = r
        .contexts
        .iter()
        .map(|c| ReconstructContextRow {
            work_context_id: c.work_context_id.to_string(),
            name: store
                .graph()
                .work_context(c.work_context_id.as_str())
                .ok()
                .map(|w| w.name),
            counts: counts(&c.counts),
            items: c
                .items
                .iter()
                .map(|i| ReconstructItem {
                    change: change(i.change),
                    kind: i.kind.to_owned(),
                    text: i.text.clone(),
                    session_id: i.session_id.clone(),
                    line: i.line(),
                })
                .collect(),
        })
        .collect();
    ReconstructReport {
        mode: wire_mode(r.mode),
        work_context_id: work_context.map(ToString::to_string),
        windows: count(r.windows),
        sessions: count(r.sessions),
        windows_empty: count(r.windows_empty),
        fallbacks: count(r.fallbacks),
        fallback_reason: r.fallback_reason.clone(),
        totals: counts(&r.totals),
        contexts,
        applied: r.applied.as_ref().map(|a| ReconstructApplied {
            entries_added: count(a.entries_added),
            entries_removed: count(a.entries_removed),
            entries_changed: count(a.entries_changed),
            kept: count(a.kept),
            summaries_written: count(a.summaries_written),
            summaries_removed: count(a.summaries_removed),
            sessions_moved: count(a.sessions_moved),
            backups: a.backups.iter().map(|p| p.display().to_string()).collect(),
        }),
    }
}

/// What the job did, in one sentence for its status line.
fn summary(r: &ReconstructReport) -> String {
    let replayed = format!(
        "Replayed {} capture windows of {} sessions",
        r.windows, r.sessions
    );
    match &r.applied {
        Some(a) => format!(
            "{replayed} and applied: {} entries added, {} removed, {} changed, {} kept; {} \
             summaries written, {} removed.",
            a.entries_added,
            a.entries_removed,
            a.entries_changed,
            a.kept,
            a.summaries_written,
            a.summaries_removed
        ),
        None => {
            let contexts = r
                .contexts
                .iter()
                .filter(|c| c.counts.differences() > 0)
                .count();
            format!(
                "{replayed}: {} differences in {contexts} work contexts.",
                r.totals.differences()
            )
        }
    }
}

/// Starts a reconstruction on `jobs`: a comparison, or with `apply` a comparison applied.
pub(crate) fn start_reconstruct(
    jobs: &Jobs,
    store: Arc<Store>,
    request: RequestOf<cmd::ReconstructStart>,
) -> ReplyOf<cmd::ReconstructStart> {
    // A malformed id is refused before any work starts; an unknown one fails the job, in the
    // engine's words.
    let work_context = request
        .work_context_id
        .map(WorkContextId::new)
        .transpose()
        .map_err(|e| to_command_error(&e))?;
    let req = ReconstructRequest {
        mode: engine_mode(request.mode),
        work_context,
        apply: request.apply,
    };
    jobs.start(JobKind::Reconstruct, move |_| {
        let r = elnor_engine::reconstruct(&store, &req, &OsKeyring::new(), elnor_engine::now())
            .map_err(|e| e.to_string())?;
        let wire = report(&store, &r, req.work_context.as_ref());
        Ok(Outcome {
            cancelled: false,
            summary: summary(&wire),
            progress: None,
            result: Some(JobResult::Reconstruct(wire)),
        })
    })
}

#[tauri::command]
pub fn reconstruct_start(
    state: State<'_, AppState>,
    request: RequestOf<cmd::ReconstructStart>,
) -> ReplyOf<cmd::ReconstructStart> {
    start_reconstruct(state.jobs(), state.store()?, request)
}

#[cfg(test)]
mod tests {
    use elnor_types::{JobState, ReconstructStartRequest};

    use super::*;
    use crate::jobs::tests::settled;

    /// A store with nothing captured compares to no differences, and the finished job carries
    /// the report; a malformed work context id is refused before the job starts.
    #[test]
    fn an_empty_store_compares_to_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(Store::open(dir.path()).unwrap());
        let jobs = Jobs::default();
        let request = ReconstructStartRequest {
            mode: ReconstructMode::Deterministic,
            work_context_id: None,
            apply: false,
        };
        start_reconstruct(&jobs, store.clone(), request.clone()).unwrap();
        let done = settled(&jobs, JobKind::Reconstruct);
        assert_eq!(done.state, JobState::Finished, "{done:?}");
        assert_eq!(
            done.summary.as_deref(),
            Some("Replayed 0 capture windows of 0 sessions: 0 differences in 0 work contexts.")
        );
        let Some(JobResult::Reconstruct(r)) = done.result else {
            panic!("no report: {done:?}");
        };
        assert_eq!(r.mode, ReconstructMode::Deterministic);
        assert!(r.contexts.is_empty() && r.applied.is_none());
        let bad = ReconstructStartRequest {
            work_context_id: Some("not an id!".into()),
            ..request
        };
        assert!(start_reconstruct(&jobs, store, bad).is_err());
    }
}
