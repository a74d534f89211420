//! The nightly card: when the nightly job last ran and runs next, and the buttons that run it,
//! or only the promotion rules, now.

use elnor_types::{NightlyReportRow, NightlyStatus};
use leptos::prelude::*;

use super::state::Review;
use crate::api;
use crate::components::{Loaded, short_time};

/// What the nightly card's buttons ask for.
#[derive(Debug, Clone, Copy)]
pub(super) enum NightlyJob {
    /// The whole nightly job, now.
    Run,
    /// Only the promotion rules.
    Evaluate,
}

/// The nightly job: when it last ran and runs next, and buttons to run it, or only the rules, now.
#[component]
pub(super) fn NightlyCard(review: Review) -> impl IntoView {
    let pending = review.pending;
    let generation = RwSignal::new(0u32);
    let status = LocalResource::new(move || {
        generation.track();
        api::nightly_get()
    });
    // Either button's job: `pending` disables both, the value is the note under them.
    let job = Action::new_local(move |job: &NightlyJob| {
        let job = *job;
        async move {
            let note = match job {
                NightlyJob::Run => {
                    let result = api::nightly_run().await;
                    generation.update(|g| *g += 1);
                    pending.refresh();
                    result.map(|r| report_text(&r))
                }
                NightlyJob::Evaluate => api::review_evaluate().await.map(|e| {
                    pending.0.set(Some(e.pending));
                    format!(
                        "Rules evaluated: {} new proposal(s), {} of them renewed after new \
                         evidence; {} already known.",
                        e.proposed, e.renewed, e.already_known
                    )
                }),
            };
            review.generation.update(|g| *g += 1);
            note.map_err(|e| e.message)
        }
    });
    let working = job.pending();
    let note = job.value();
    // The last note goes as the next job starts.
    let start = move |which: NightlyJob| {
        job.clear();
        job.dispatch_local(which);
    };
    let run_now = move |_| start(NightlyJob::Run);
    let evaluate = move |_| start(NightlyJob::Evaluate);
    view! {
        <div class="card nightly" id="nightly-card">
            <div class="nightly-row">
                <Loaded resource=status loading="Reading the nightly job…" inline=true let:value>
                    {nightly_view(value)}
                </Loaded>
                <span class="nightly-buttons">
                    <button class="small" id="review-evaluate" disabled=move || working.get() on:click=evaluate>
                        "Evaluate rules now"
                    </button>
                    <button class="primary" id="nightly-run" disabled=move || working.get() on:click=run_now>
                        {move || if working.get() { "Running…" } else { "Run nightly now" }}
                    </button>
                </span>
            </div>
            {move || {
                note.get()
                    .map(|n| match n {
                        Ok(text) => view! { <p class="hint" id="nightly-note">{text}</p> }.into_any(),
                        Err(e) => view! { <div class="error" id="nightly-note" role="alert">{e}</div> }.into_any(),
                    })
            }}
        </div>
    }
}

pub(super) fn nightly_view(s: NightlyStatus) -> impl IntoView {
    let last = match &s.last_run {
        Some(t) => short_time(t),
        None => "never on this store".to_owned(),
    };
    let next = if s.running {
        "running now".to_owned()
    } else if s.due {
        "due: within a minute".to_owned()
    } else {
        s.next_run
            .as_deref()
            .map(short_time)
            .unwrap_or_else(|| "unknown".to_owned())
    };
    view! {
        <span class="nightly-times">
            <span>"Nightly job: last ran "</span>
            <strong id="nightly-last-run">{last}</strong>
            <span>" · next "</span>
            <strong id="nightly-next-run">{next}</strong>
            {s.nightly_hour.map(|h| view! { <span class="meta">{format!(" (daily after {h:02}:00, your time)")}</span> })}
        </span>
        {s.research.and_then(|u| {
            u.useful_pct.map(|pct| view! {
                <p class="hint" id="research-utility">
                    {format!(
                        "Research captures: {} tracked, {pct}% of later use ({} restated, {} shown \
                         in a brief, {} promoted). The research gate multiplier is in Settings.",
                        u.captures, u.referenced, u.briefed, u.promoted
                    )}
                </p>
            })
        })}
        {s.last_error.map(|e| view! { <div class="error" id="nightly-error" role="alert">{format!("The last run failed: {e}")}</div> })}
    }
}

pub(super) fn report_text(r: &NightlyReportRow) -> String {
    let mut text = format!(
        "Nightly job done: {} session(s) captured, {} new proposal(s) ({} renewed), {} node(s) \
         moved down the warrant ladder, {} view(s) rebuilt, recent activity with {} work \
         context(s).",
        r.captured, r.proposed, r.renewed, r.degraded, r.views_rebuilt, r.rollup_segments
    );
    for f in r.capture_failures.iter().take(3) {
        text.push_str(&format!(" Capture failed: {f}."));
    }
    text
}
