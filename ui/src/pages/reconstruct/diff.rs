//! The Reconstruct page's report: what was replayed, the totals, then per work context the
//! counts and the engine's readable diff lines (`+` would add, `-` would remove, `~` changed,
//! `!` kept because the person reviewed it), collapsible, the first [`LINES_PER_CONTEXT`] shown
//! and the rest counted. An unchanged store says so in one sentence.
//!
//! Below the diff sits the apply step: a button, then a confirmation that says what applying
//! rewrites and what it keeps, and after apply what it changed and where the backups are.

use elnor_types::{
    ReconstructChange, ReconstructContextRow, ReconstructCounts, ReconstructMode,
    ReconstructReport, ReconstructStartRequest,
};
use leptos::prelude::*;

use super::ReconstructJob;
use crate::components::Modal;

/// The first this many diff lines of each work context are shown; the rest are counted, as the
/// CLI does, so a store whose detectors changed a lot stays readable.
const LINES_PER_CONTEXT: usize = 50;

/// Contexts opened at first: the first few with differences; the rest start folded.
const OPEN_CONTEXTS: usize = 3;

/// `1 entry`, `2 entries`.
fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The counts as chips, each with the class its colour comes from; in the past tense once they
/// were applied.
fn count_chips(
    c: &ReconstructCounts,
    id: Option<&'static str>,
    applied: bool,
) -> impl IntoView + use<> {
    let (added, removed) = if applied {
        ("added", "removed")
    } else {
        ("would add", "would remove")
    };
    let chip = |class: &'static str, n: u64, words: &'static str| {
        view! {
            <span class=format!("diff-count {class}") data-count=class>
                <strong>{n}</strong>
                " "
                {words}
            </span>
        }
    };
    view! {
        <div class="diff-counts" id=id>
            {chip("same", c.same, "same")}
            {chip("added", c.added, added)}
            {chip("removed", c.removed, removed)}
            {chip("changed", c.changed, "changed")}
            {chip("kept", c.kept, "kept because you reviewed it")}
        </div>
    }
}

/// What was replayed, in a sentence, with the windows that captured nothing and the model's
/// failures when there were any.
fn replayed_line(r: &ReconstructReport) -> String {
    let mut line = format!(
        "Replayed {} of {} with {}.",
        plural(r.windows, "capture window", "capture windows"),
        plural(r.sessions, "session", "sessions"),
        r.mode.label()
    );
    if r.windows_empty > 0 {
        line.push_str(&format!(
            " {} captured nothing on replay.",
            plural(r.windows_empty, "window", "windows")
        ));
    }
    if r.fallbacks > 0 {
        line.push_str(&format!(
            " The model failed on {}, and the detectors stood in ({}).",
            plural(r.fallbacks, "window", "windows"),
            r.fallback_reason.as_deref().unwrap_or("no reason given")
        ));
    }
    line
}

/// A context's name for the person: its name, or its id when the graph does not know it.
fn context_name(c: &ReconstructContextRow) -> String {
    c.name.clone().unwrap_or_else(|| c.work_context_id.clone())
}

fn change_class(c: ReconstructChange) -> &'static str {
    c.as_str()
}

/// One work context's counts and lines, folded or not.
fn context_view(c: ReconstructContextRow, open: bool, applied: bool) -> impl IntoView {
    let name = context_name(&c);
    let more = c.items.len().saturating_sub(LINES_PER_CONTEXT);
    let lines = c
        .items
        .into_iter()
        .take(LINES_PER_CONTEXT)
        .map(|i| {
            view! {
                <li
                    class=format!("diff-line {}", change_class(i.change))
                    data-change=i.change.as_str()
                    title=i.change.label()
                >
                    {i.line}
                </li>
            }
        })
        .collect_view();
    view! {
        <details
            class="card reconstruct-context"
            data-context=c.work_context_id.clone()
            open=open
        >
            <summary>
                <span class="reconstruct-context-name">{name}</span>
                {count_chips(&c.counts, None, applied)}
            </summary>
            <ul class="diff-lines">
                {lines}
                {(more > 0)
                    .then(|| view! { <li class="diff-more">{format!("… {more} more")}</li> })}
            </ul>
        </details>
    }
}

/// The report of the last finished job: a comparison, or an apply.
#[component]
pub(super) fn ReconstructResult(report: ReconstructReport, job: ReconstructJob) -> impl IntoView {
    let differences = report.totals.differences();
    let (shown, unchanged): (Vec<_>, Vec<_>) = report
        .contexts
        .iter()
        .cloned()
        .partition(|c| !c.items.is_empty());
    let scope = report
        .work_context_id
        .as_ref()
        .map(|id| {
            let name = shown
                .iter()
                .chain(&unchanged)
                .find(|c| &c.work_context_id == id)
                .map_or_else(|| id.clone(), context_name);
            format!("Only the work context {name}. ")
        })
        .unwrap_or_default();
    let verdict = if report.applied.is_some() {
        None
    } else if differences == 0 {
        Some(
            view! {
                <p class="reconstruct-none" id="reconstruct-none">
                    "No differences: capture today would write exactly what the store holds."
                </p>
            }
            .into_any(),
        )
    } else {
        Some(
            view! {
                <p class="reconstruct-some" id="reconstruct-some">
                    {format!(
                        "{} in {}.",
                        plural(differences, "difference", "differences"),
                        plural(
                            shown.iter().filter(|c| c.counts.differences() > 0).count() as u64,
                            "work context",
                            "work contexts",
                        )
                    )}
                </p>
            }
            .into_any(),
        )
    };
    let quiet = (!unchanged.is_empty()).then(|| {
        view! {
            <p class="hint" id="reconstruct-unchanged">
                {format!(
                    "{} the same as the store holds.",
                    plural(
                        unchanged.len() as u64,
                        "other work context is",
                        "other work contexts are"
                    )
                )}
            </p>
        }
    });
    let apply = (report.applied.is_none() && differences > 0).then(|| {
        view! { <ApplyStep report=report.clone() contexts=shown.clone() job /> }
    });
    let applied = report.applied.clone().map(|a| {
        let backups = a
            .backups
            .iter()
            .map(|b| view! { <li><code>{b.clone()}</code></li> })
            .collect_view();
        view! {
            <div class="card reconstruct-applied" id="reconstruct-applied">
                <h3>"Applied"</h3>
                <p>
                    {format!(
                        "{} added, {} removed and {} changed; {} kept because you reviewed \
                         them. {} written, {} removed; {} moved to another work context.",
                        plural(a.entries_added, "entry", "entries"),
                        a.entries_removed,
                        a.entries_changed,
                        a.kept,
                        plural(a.summaries_written, "session summary", "session summaries"),
                        a.summaries_removed,
                        plural(a.sessions_moved, "session", "sessions"),
                    )}
                </p>
                <p class="hint">"The store as it was before, kept under continuity/backup/:"</p>
                <ul class="reconstruct-backups">{backups}</ul>
                <p class="hint">"Compare again to check that nothing is left to change."</p>
            </div>
        }
    });
    let contexts = shown
        .into_iter()
        .enumerate()
        .map(|(n, c)| context_view(c, n < OPEN_CONTEXTS, report.applied.is_some()))
        .collect_view();
    view! {
        <section class="reconstruct-result" id="reconstruct-result" data-mode=report.mode.as_str()>
            <h3>{if report.applied.is_some() { "What was applied" } else { "What would change" }}</h3>
            <p class="hint" id="reconstruct-replayed">{scope}{replayed_line(&report)}</p>
            {verdict}
            {count_chips(&report.totals, Some("reconstruct-totals"), report.applied.is_some())}
            {applied}
            {contexts}
            {quiet}
            {apply}
        </section>
    }
}

/// "Apply these changes" and its confirmation.
#[component]
fn ApplyStep(
    report: ReconstructReport,
    contexts: Vec<ReconstructContextRow>,
    job: ReconstructJob,
) -> impl IntoView {
    let confirming = RwSignal::new(false);
    let t = report.totals;
    let names = contexts
        .iter()
        .filter(|c| c.counts.differences() > 0)
        .map(context_name)
        .collect::<Vec<_>>();
    let what = format!(
        "This rewrites the capture-made entries and session summaries of {} ({}) to match the \
         replay: {} added, {} removed, {} changed.",
        plural(names.len() as u64, "work context", "work contexts"),
        names.join(", "),
        plural(t.added, "entry", "entries"),
        t.removed,
        t.changed
    );
    let kept = format!(
        "Items you reviewed stay as they are ({} kept), and so does everything you wrote or \
         pushed yourself. A copy of every log and summary it rewrites is kept under \
         continuity/backup/ first.",
        t.kept
    );
    let model = report.mode == ReconstructMode::Model;
    let request = ReconstructStartRequest {
        mode: report.mode,
        work_context_id: report.work_context_id.clone(),
        apply: true,
    };
    let apply = move || {
        confirming.set(false);
        job.start(request.clone());
    };
    view! {
        <div class="reconstruct-apply">
            <button
                class="primary"
                id="reconstruct-apply"
                prop:disabled=move || job.running()
                on:click=move |_| confirming.set(true)
            >
                "Apply these changes"
            </button>
            {move || {
                confirming
                    .get()
                    .then(|| {
                        // Each opening gets its own copies: the dialog's parts are moved into it.
                        let (what, kept, apply) = (what.clone(), kept.clone(), apply.clone());
                        view! {
                <Modal open=confirming id="reconstruct-confirm" label="Apply the reconstruction">
                    <h3>"Apply these changes?"</h3>
                    <p id="reconstruct-confirm-what">{what}</p>
                    <p id="reconstruct-confirm-kept">{kept}</p>
                    {model
                        .then(|| {
                            view! {
                                <p class="warning">
                                    "Applying replays through the model again: once more a call "
                                    "for every capture window, counted against your spending "
                                    "limit."
                                </p>
                            }
                        })}
                    <p class="hint">
                        "It applies what a comparison finds at that moment: this one, unless a "
                        "capture changed the store since."
                    </p>
                    <div class="dialog-buttons">
                        <button
                            class="small"
                            id="reconstruct-confirm-cancel"
                            on:click=move |_| confirming.set(false)
                        >
                            "Cancel"
                        </button>
                        <button
                            class="primary"
                            id="reconstruct-confirm-apply"
                            on:click=move |_| apply()
                        >
                            "Apply these changes"
                        </button>
                    </div>
                </Modal>
                        }
                    })
            }}
        </div>
    }
}
