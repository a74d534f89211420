//! The Reconstruct page's controls: which algorithms the replay runs (today's detectors, or the
//! configured model with a warning of what that costs), which work context to report (all by
//! default), the Compare button, and the line that says how long the running job has run.
//!
//! There is no Cancel: the engine's replay does not check the job's cancel flag, and a
//! comparison changes nothing, so letting it finish costs only the wait.

use elnor_types::{ReconstructMode, ReconstructStartRequest};
use leptos::prelude::*;

use super::ReconstructJob;
use crate::api;
use crate::components::Loaded;

#[component]
pub(super) fn RunControls(job: ReconstructJob) -> impl IntoView {
    let mode = RwSignal::new(ReconstructMode::Deterministic);
    // The work context's id, or empty for all.
    let context = RwSignal::new(String::new());
    let contexts = LocalResource::new(api::work_contexts_list);
    let compare = move || {
        let id = context.get_untracked();
        job.start(ReconstructStartRequest {
            mode: mode.get_untracked(),
            work_context_id: (!id.is_empty()).then_some(id),
            apply: false,
        });
    };
    let option = move |m: ReconstructMode, explanation: &'static str| {
        view! {
            <label class="reconstruct-mode" data-mode=m.as_str()>
                <input
                    type="radio"
                    name="reconstruct-mode"
                    id=format!("reconstruct-mode-{}", m.as_str())
                    prop:checked=move || mode.get() == m
                    on:change=move |_| mode.set(m)
                />
                <span>
                    <strong>{capitalised(m.label())}</strong>
                    <span class="hint">{explanation}</span>
                </span>
            </label>
        }
    };
    view! {
        <div class="card" id="reconstruct-controls">
            <fieldset class="reconstruct-modes">
                <legend>"Capture again with"</legend>
                {option(
                    ReconstructMode::Deterministic,
                    "The heuristic detectors and templated summaries, as deterministic mode \
                     captures today. Free, offline, and on an unchanged store it finds nothing.",
                )}
                {option(
                    ReconstructMode::Model,
                    "The synthesis model configured in Settings, as full mode captures.",
                )}
            </fieldset>
            {move || {
                (mode.get() == ReconstructMode::Model)
                    .then(|| {
                        view! {
                            <p class="warning" id="reconstruct-model-warning" role="note">
                                "This calls the model once for every recorded capture window, "
                                "which on a long history is many calls, each counted against "
                                "your spending limit like any other."
                            </p>
                        }
                    })
            }}
            <div class="form-grid">
                <label for="reconstruct-context">"Work context"</label>
                <Loaded resource=contexts loading="Reading the work contexts…" inline=true let:rows>
                    <select
                        id="reconstruct-context"
                        on:change=move |ev| context.set(event_target_value(&ev))
                    >
                        <option value="" selected=move || context.get().is_empty()>
                            "All work contexts"
                        </option>
                        {rows
                            .into_iter()
                            .map(|r| {
                                let id = r.work_context_id.clone();
                                let chosen = id.clone();
                                view! {
                                    <option value=id selected=move || context.get() == chosen>
                                        {r.name}
                                    </option>
                                }
                            })
                            .collect_view()}
                    </select>
                </Loaded>
            </div>
            <p class="hint">
                "One work context only narrows the report; the replay still covers every capture, "
                "since one capture can reach other work contexts."
            </p>
            <div class="job">
                <button
                    class="primary"
                    id="reconstruct-compare"
                    prop:disabled=move || job.running()
                    on:click=move |_| compare()
                >
                    {move || if job.running() { "Comparing…" } else { "Compare" }}
                </button>
                {move || {
                    job.running()
                        .then(|| {
                            view! {
                                <progress id="reconstruct-progress"></progress>
                                <p class="hint job-status" id="reconstruct-running">
                                    {move || {
                                        format!(
                                            "Replaying every recorded capture window into a \
                                             scratch copy of the store… {} s",
                                            job.elapsed_ms.get() / 1000,
                                        )
                                    }}
                                </p>
                            }
                        })
                }}
            </div>
        </div>
    }
}

/// `today's detectors` → `Today's detectors`.
fn capitalised(label: &str) -> String {
    let mut chars = label.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}
