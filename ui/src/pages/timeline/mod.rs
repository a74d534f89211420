//! Timeline: what happened, newest first, across everything ELNOR sees: agent sessions, their
//! captures, changes to files in tracked folders, the person's pushes ("I just did X") and
//! promotions to durable knowledge. Filters narrow it by work context, kind and harness over a
//! window of 7, 30 or 90 days.
//!
//! Above the list, a chart of activity per day, stacked by work context, with a legend; the engine
//! sends every day of the window, empty ones too, so a quiet week reads as a gap rather than
//! disappearing. Each item goes where its `target` says: a session opens on the Sessions page, a
//! proposal in Review, a node in Knowledge, a work context on its page, and an observation in a
//! detail pane here (path, old path, title, text, entities and the updates it wrote).

mod chart;
mod items;
mod observation;

use std::collections::BTreeSet;

use elnor_types::{TIMELINE_ALL_DAYS, TimelineKind, TimelineRequest};
use leptos::prelude::*;

use crate::api;
use crate::app::use_activity;
use crate::components::Loaded;
use crate::nav::use_nav;
use items::timeline_view;
use observation::ObservationPane;

/// How the filter names each kind.
fn kind_label(k: TimelineKind) -> &'static str {
    match k {
        TimelineKind::Session => "Sessions",
        TimelineKind::Capture => "Captures",
        TimelineKind::Observation => "File changes",
        TimelineKind::Push => "Pushes",
        TimelineKind::Promotion => "Promotions",
    }
}

/// The windows offered: days, and their labels. The last asks for all of history.
const WINDOWS: &[(u32, &str)] = &[
    (7, "7 days"),
    (30, "30 days"),
    (90, "90 days"),
    (365, "1 year"),
    (TIMELINE_ALL_DAYS, "All"),
];

/// The window a fresh page shows: the engine's default.
const DEFAULT_WINDOW: u32 = 30;

#[component]
pub fn TimelinePage() -> impl IntoView {
    let nav = use_nav();
    let activity = use_activity();
    // A link elsewhere (Home's recent observations, a push's outcome) may name an observation to
    // show; it is taken once, like the other pages' targets.
    let selected = RwSignal::new(nav.take_observation());
    // The push dialog can open over this very page and link back to it; the page is not mounted
    // again then (see `Nav::open_observation`), so a target set while it is shown is taken here.
    Effect::new(move |_| {
        if let Some(id) = nav.take_observation() {
            selected.set(Some(id));
        }
    });
    let context = RwSignal::new(String::new());
    let kinds = RwSignal::new(TimelineKind::ALL.into_iter().collect::<BTreeSet<_>>());
    let harness = RwSignal::new(String::new());
    let days = RwSignal::new(DEFAULT_WINDOW);
    // Bumped by "Refresh": file changes arrive from the watcher while the page is open.
    let generation = RwSignal::new(0u32);
    let contexts = LocalResource::new(api::work_contexts_list);
    let timeline = LocalResource::new(move || {
        // A push made in the dialog lands here at once.
        activity.0.track();
        generation.track();
        let kinds = kinds.get();
        let request = TimelineRequest {
            work_context_id: Some(context.get()).filter(|c| !c.is_empty()),
            // Every kind ticked is the same as none named, and lets the engine add kinds later.
            kinds: if kinds.len() == TimelineKind::ALL.len() {
                Vec::new()
            } else {
                kinds.iter().copied().collect()
            },
            harness: Some(harness.get()).filter(|h| !h.is_empty()),
            days: days.get(),
            limit: 0,
        };
        async move {
            // No kind ticked: nothing to ask for (an empty list would mean every kind).
            if kinds.is_empty() {
                Ok(None)
            } else {
                api::timeline_get(request).await.map(Some)
            }
        }
    });
    view! {
        <h2>"Timeline"</h2>
        <p class="hint">
            "Everything ELNOR saw, newest first: agent sessions and their captures, changes in your "
            "tracked folders, what you pushed, and proposals approved into durable knowledge."
        </p>
        <div class="filters timeline-filters">
            <Loaded resource=contexts loading="Loading work contexts…" inline=true let:list>
                {view! {
                    <select
                        id="timeline-context"
                        on:change=move |ev| context.set(event_target_value(&ev))
                        prop:value=move || context.get()
                    >
                        <option value="">"All work contexts"</option>
                        {list
                            .into_iter()
                            .map(|wc| {
                                view! {
                                    <option value=wc.work_context_id.clone()>{wc.name.clone()}</option>
                                }
                            })
                            .collect_view()}
                    </select>
                }}
            </Loaded>
            <select
                id="timeline-harness"
                title="Sessions and captures of one harness"
                on:change=move |ev| harness.set(event_target_value(&ev))
            >
                <option value="">"All harnesses"</option>
                <option value="claude_code">"Claude Code"</option>
                <option value="codex">"Codex"</option>
                <option value="openclaw">"OpenClaw / pi"</option>
            </select>
            <span class="segmented" role="group" aria-label="Window">
                {WINDOWS
                    .iter()
                    .map(|&(d, label)| {
                        let id = if d == TIMELINE_ALL_DAYS {
                            "timeline-days-all".to_owned()
                        } else {
                            format!("timeline-days-{d}")
                        };
                        view! {
                            <button
                                class="small"
                                id=id
                                class:active=move || days.get() == d
                                on:click=move |_| days.set(d)
                            >
                                {label}
                            </button>
                        }
                    })
                    .collect_view()}
            </span>
            <button class="small" id="timeline-refresh" on:click=move |_| generation.update(|g| *g += 1)>
                "Refresh"
            </button>
        </div>
        <div class="chips" id="timeline-kinds" role="group" aria-label="Kinds">
            {TimelineKind::ALL
                .into_iter()
                .map(|kind| {
                    let label = kind_label(kind);
                    let name = kind.as_str();
                    view! {
                        <label class="chip" class:on=move || kinds.with(|k| k.contains(&kind))>
                            <input
                                type="checkbox"
                                id=format!("timeline-kind-{name}")
                                prop:checked=move || kinds.with(|k| k.contains(&kind))
                                on:change=move |ev| {
                                    let on = event_target_checked(&ev);
                                    kinds
                                        .update(|k| {
                                            if on {
                                                k.insert(kind);
                                            } else {
                                                k.remove(&kind);
                                            }
                                        });
                                }
                            />
                            {label}
                        </label>
                    }
                })
                .collect_view()}
        </div>
        <div class="timeline-layout" class:with-detail=move || selected.with(Option::is_some)>
            <div class="timeline-main">
                <Loaded resource=timeline loading="Reading the timeline…" let:t>
                    {match t {
                        Some(t) => timeline_view(t, days.get_untracked(), selected, nav).into_any(),
                        None => {
                            view! {
                                <p class="hint" id="timeline-no-kinds">
                                    "Tick at least one kind above to see what happened."
                                </p>
                            }
                                .into_any()
                        }
                    }}
                </Loaded>
            </div>
            {move || selected.get().map(|id| view! { <ObservationPane id selected nav /> })}
        </div>
    }
}
