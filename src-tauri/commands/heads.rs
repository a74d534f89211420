//! The Heads page's commands: `heads_get` (one head as a refresh would write it now, with what
//! did not fit, the edits kept from its blocks, its deferred writes, and the list of thread
//! heads), `heads_refresh` (rewrite every head under `heads/` now) and `head_write_to` (write a
//! head into a marked block of a file the person names).
//!
//! Each converts its request, makes one engine call and converts the answer; the leases, the
//! deferrals and the kept edits are the engine's (`elnor heads …` makes the same calls).

use chrono::{DateTime, Utc};
use elnor_engine::{
    DeferredWrite, HeadKeptEdit, HeadLineKind, HeadScope, HeadWriteStatus, LeaseRecord,
    WorkContextId,
};
use elnor_types::commands as cmd;
use elnor_types::{
    CommandError, DeferredWriteRow, HeadLineRow, HeadSection, HeadWriteOutcome, HeadsRefreshed,
    HeadsView, KeptEditRow, LeaseHolder, LeftOutRow, ThreadHeadRow,
};
use elnor_types::{ReplyOf, RequestOf};
use tauri::State;

use crate::state::{AppState, blocking, to_command_error};

fn err(e: elnor_engine::Error) -> CommandError {
    to_command_error(&e)
}

/// The scope a request names; a malformed work context id is refused before the store is read.
fn scope(work_context_id: Option<String>) -> Result<HeadScope, CommandError> {
    Ok(match work_context_id {
        Some(wc) => HeadScope::Thread(WorkContextId::new(wc).map_err(err)?),
        None => HeadScope::Global,
    })
}

// Exhaustive: a kind the engine adds fails the build here instead of reaching the page unnamed.
fn kind(k: HeadLineKind) -> &'static str {
    match k {
        HeadLineKind::Status => "status",
        HeadLineKind::NextAction => "next_action",
        HeadLineKind::Commitment => "commitment",
        HeadLineKind::OpenLoop => "open_loop",
        HeadLineKind::Decision => "decision",
        HeadLineKind::Constraint => "constraint",
        HeadLineKind::Update => "update",
        HeadLineKind::Context => "context",
        HeadLineKind::Lineage => "lineage",
    }
}

fn time(t: DateTime<Utc>) -> String {
    t.to_rfc3339()
}

fn holder(l: &LeaseRecord) -> LeaseHolder {
    LeaseHolder {
        owner: l.owner.clone(),
        pid: l.pid,
        host: l.host.clone(),
        expires_at: time(l.expires_at),
    }
}

fn kept_row(k: HeadKeptEdit) -> KeptEditRow {
    KeptEditRow {
        target: k.proposal.target.display().to_string(),
        detected_at: time(k.proposal.detected_at),
        text: k.text,
        saved_at: k.proposal.body_path.display().to_string(),
    }
}

fn deferred_row(d: DeferredWrite) -> DeferredWriteRow {
    DeferredWriteRow {
        target: d.file.map(|f| f.display().to_string()),
        replace_edits: d.replace_edits,
        deferred_at: time(d.deferred_at),
        held_by: holder(&d.held_by),
    }
}

#[tauri::command]
pub async fn heads_get(
    state: State<'_, AppState>,
    request: RequestOf<cmd::HeadsGet>,
) -> ReplyOf<cmd::HeadsGet> {
    let store = state.store()?;
    blocking(move || {
        let scope = scope(request.work_context_id)?;
        let o = elnor_engine::heads_overview(&store, &scope, elnor_engine::now()).map_err(err)?;
        let head = o.head;
        // The engine's lines are already in section order; consecutive lines of one kind make
        // one section.
        let mut sections: Vec<HeadSection> = Vec::new();
        for line in head.lines {
            let k = kind(line.kind);
            if sections.last().is_none_or(|s| s.kind != k) {
                sections.push(HeadSection {
                    kind: k.to_owned(),
                    heading: line.kind.heading().trim_start_matches("## ").to_owned(),
                    lines: Vec::new(),
                });
            }
            if let Some(section) = sections.last_mut() {
                section.lines.push(HeadLineRow {
                    kind: k.to_owned(),
                    text: line.text,
                    citations: line.citations,
                    source: line.source,
                });
            }
        }
        Ok(HeadsView {
            work_context_id: match &scope {
                HeadScope::Global => None,
                HeadScope::Thread(wc) => Some(wc.to_string()),
            },
            title: head.title.trim_start_matches("# ").to_owned(),
            sections,
            tokens: head.tokens,
            cap: head.cap,
            left_out: head
                .left_out
                .into_iter()
                .map(|l| LeftOutRow {
                    kind: kind(l.kind).to_owned(),
                    name: l.kind.name().to_owned(),
                    count: l.count as u64,
                    ids: l.ids,
                })
                .collect(),
            text: head.text,
            file: elnor_engine::head_path(&store, &scope)
                .display()
                .to_string(),
            kept_edits: o.kept.into_iter().map(kept_row).collect(),
            deferred: o.deferred.into_iter().map(deferred_row).collect(),
            threads: o
                .threads
                .into_iter()
                .map(|t| ThreadHeadRow {
                    work_context_id: t.work_context_id.to_string(),
                    name: t.name,
                    tokens: t.tokens,
                    cap: t.cap,
                })
                .collect(),
        })
    })
    .await
}

/// Rewrites every thread head and the global head under `heads/`, then retries the deferred
/// writes. The page reads the head again afterwards, so the reply only counts what happened.
#[tauri::command]
pub async fn heads_refresh(state: State<'_, AppState>) -> ReplyOf<cmd::HeadsRefresh> {
    let store = state.store()?;
    blocking(move || {
        let r = elnor_engine::refresh_heads(&store, elnor_engine::now()).map_err(err)?;
        let count = |status: HeadWriteStatus| {
            r.reports.iter().filter(|w| w.status == status).count() as u64
        };
        Ok(HeadsRefreshed {
            written: count(HeadWriteStatus::Written),
            unchanged: count(HeadWriteStatus::Unchanged),
            deferred: count(HeadWriteStatus::Deferred),
            edits_kept: count(HeadWriteStatus::EditsKept),
            failures: r
                .failures
                .iter()
                .map(|f| format!("the {} head: {}", f.scope.key(), f.error))
                .collect(),
        })
    })
    .await
}

/// Writes a head into a marked block of the file the person named. A write that did not happen
/// is an answer, not an error: the outcome says whether the file was busy (and who holds it) or
/// whether the block holds the person's edit (and what it says).
#[tauri::command]
pub async fn head_write_to(
    state: State<'_, AppState>,
    request: RequestOf<cmd::HeadWriteTo>,
) -> ReplyOf<cmd::HeadWriteTo> {
    let store = state.store()?;
    blocking(move || {
        let scope = scope(request.work_context_id)?;
        let path = std::path::PathBuf::from(request.path.trim());
        let r = elnor_engine::write_head(
            &store,
            &scope,
            &path,
            request.replace_edits,
            elnor_engine::now(),
        )
        .map_err(err)?;
        let status = match r.status {
            HeadWriteStatus::Written => "written",
            HeadWriteStatus::Unchanged => "unchanged",
            HeadWriteStatus::Deferred => "deferred",
            HeadWriteStatus::EditsKept => "edits_kept",
        };
        // The proposal names the file the person's text was saved to; reading it back is part of
        // converting the answer, so the page can show their words beside the choice.
        let kept = r
            .proposal
            .map(HeadKeptEdit::read)
            .transpose()
            .map_err(err)?
            .map(kept_row);
        Ok(HeadWriteOutcome {
            status: status.to_owned(),
            path: r.path.display().to_string(),
            held_by: r.held_by.as_ref().map(holder),
            kept,
            tokens: r.tokens,
        })
    })
    .await
}
