//! Health: whether ELNOR is still hearing from every agent the person uses. One card per agent
//! with a transcript folder or recorded sessions: how much it recorded lately and its usual
//! rhythm, a silence called out when it has been quiet far longer than usual, the sessions that
//! ended without being captured, and under it each of its folders with what was read there and
//! what could not be. Agents with neither are named once at the end, with the way to add them.
//!
//! Everything here is one read of the engine's health report (`elnor doctor` prints the same);
//! "Check again" reads it anew. Today's capture alerts link here.

mod agent;
mod words;

use elnor_types::CaptureHealth;
use leptos::prelude::*;

use crate::api;
use crate::components::{Loaded, harness_name, short_time};
use crate::nav::{Page, Route, use_nav};
use agent::AgentCard;
use words::count;

#[component]
pub fn HealthPage() -> impl IntoView {
    // Bumped by "Check again": the report is cheap (a few indexed queries), so reading it anew is
    // how the person sees what a capture or an ingest since changed.
    let generation = RwSignal::new(0u32);
    let health = LocalResource::new(move || {
        generation.track();
        api::health_get()
    });
    view! {
        <div class="page-head">
            <h2>"Health"</h2>
            <div class="page-actions">
                <button class="small" id="health-reload" on:click=move |_| generation.update(|g| *g += 1)>
                    "Check again"
                </button>
            </div>
        </div>
        <p class="hint">
            "Whether ELNOR is still hearing from every agent you use: what it read from each "
            "transcript folder, what it could not read, and how often each agent records a session."
        </p>
        <Loaded resource=health loading="Reading capture health…" let:h>
            <HealthReport health=h />
        </Loaded>
    }
}

/// The report: a one-line verdict, a card per agent in use, then the agents not set up.
///
/// The engine's report will also carry the agents' hooks and OpenClaw's Dreaming (`hooks` and
/// `dreaming` on its `Health`); each gets a section of its own after the agents' cards.
#[component]
fn HealthReport(health: CaptureHealth) -> impl IntoView {
    let nav = use_nav();
    let (mut in_use, unused): (Vec<_>, Vec<_>) = health.harnesses.into_iter().partition(|a| {
        a.last_session.is_some() || health.sources.iter().any(|s| s.harness == a.harness)
    });
    // A silent agent first, where the eye lands, then the agents with sessions, each group in
    // the engine's order.
    in_use.sort_by_key(|a| (!a.silent, a.last_session.is_none()));
    let silent = in_use.iter().filter(|a| a.silent).count() as u64;
    let problems: u64 = health.sources.iter().map(|s| s.problems).sum();
    let missing = health
        .sources
        .iter()
        .filter(|s| s.enabled && !s.exists)
        .count() as u64;
    let trouble = silent + problems + missing > 0;
    let verdict = if in_use.is_empty() {
        "ELNOR reads no agent's transcripts yet.".to_owned()
    } else if !trouble {
        "Every agent you use is still being heard from, and everything was readable.".to_owned()
    } else {
        let mut parts = Vec::new();
        if silent > 0 {
            parts.push(format!(
                "{} quiet for far longer than usual",
                count(silent, "agent")
            ));
        }
        if missing > 0 {
            parts.push(format!("{} not on this machine", count(missing, "folder")));
        }
        if problems > 0 {
            parts.push(count(problems, "unreadable line"));
        }
        format!("Needs a look: {}.", parts.join("; "))
    };
    let cards = in_use
        .into_iter()
        .map(|agent| {
            let sources = health
                .sources
                .iter()
                .filter(|s| s.harness == agent.harness)
                .cloned()
                .collect();
            view! { <AgentCard agent sources /> }
        })
        .collect_view();
    let not_set_up = (!unused.is_empty()).then(|| {
        let names = unused
            .iter()
            .map(|a| harness_name(&a.harness).to_owned())
            .collect::<Vec<_>>()
            .join(", ");
        view! {
            <p class="hint" id="health-unused">
                {format!("Not set up: {names}. ELNOR reads no folder of theirs and has no sessions from them; ")}
                <a
                    href="#"
                    on:click=move |ev| {
                        ev.prevent_default();
                        nav.go(Route::of(Page::Settings));
                    }
                >
                    "add a folder in Settings"
                </a>
                " if you use them."
            </p>
        }
    });
    view! {
        <p
            class="health-verdict"
            class:trouble=trouble
            id="health-verdict"
            title=format!("Checked {}", short_time(&health.checked_at))
        >
            {verdict}
        </p>
        {cards}
        {not_set_up}
    }
}
