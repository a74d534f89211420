//! Health: whether ELNOR is still hearing from every agent the person uses. One card per agent
//! with a transcript folder or recorded sessions: how much it recorded lately and its usual
//! rhythm, a silence called out when it has been quiet far longer than usual, the sessions that
//! ended without being captured, and under it each of its folders with what was read there and
//! what could not be. Agents with neither are named once at the end, with the way to add them.
//! Then the agents' hooks (set up or not, run or never run) and OpenClaw's Dreaming, with a button
//! that turns it off.
//!
//! Everything here is one read of the engine's health report (`elnor doctor` prints the same);
//! "Check again" reads it anew. Today's capture, hook and Dreaming alerts link here.

mod agent;
mod dreaming;
mod hooks;
mod words;

use elnor_types::{CaptureHealth, DreamingChanged};
use leptos::prelude::*;

use crate::api;
use crate::components::{Loaded, harness_name, short_time};
use crate::nav::{Page, Route, use_nav};
use agent::AgentCard;
use dreaming::DreamingSection;
use hooks::HooksCard;
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
    // What the last "Turn Dreaming off" changed: kept here, above the report, so the backup's
    // path stays on screen after the report is read again.
    let dreaming_outcome = RwSignal::new(None::<DreamingChanged>);
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
            <HealthReport health=h generation dreaming_outcome />
        </Loaded>
    }
}

/// The report: a one-line verdict, a card per agent in use, the agents not set up, then the hooks
/// of the agents in use (or with a hook set up) and OpenClaw's Dreaming.
#[component]
fn HealthReport(
    health: CaptureHealth,
    generation: RwSignal<u32>,
    dreaming_outcome: RwSignal<Option<DreamingChanged>>,
) -> impl IntoView {
    let nav = use_nav();
    let (mut in_use, unused): (Vec<_>, Vec<_>) = health.harnesses.into_iter().partition(|a| {
        a.last_session.is_some() || health.sources.iter().any(|s| s.harness == a.harness)
    });
    // A silent agent first, where the eye lands, then the agents with sessions, each group in
    // the engine's order.
    in_use.sort_by_key(|a| (!a.silent, a.last_session.is_none()));
    // The agents whose hooks are worth a line: those in use, in the cards' order, and any other
    // whose hooks are set up or have run, since a hook there means the person meant to use it.
    let mut hook_agents: Vec<String> = in_use.iter().map(|a| a.harness.clone()).collect();
    for h in &health.hooks {
        if (h.installed || h.times_fired > 0) && !hook_agents.contains(&h.harness) {
            hook_agents.push(h.harness.clone());
        }
    }
    hook_agents.retain(|a| health.hooks.iter().any(|h| &h.harness == a));
    let never_run = health
        .hooks
        .iter()
        .filter(|h| h.installed && h.times_fired == 0)
        .count() as u64;
    let dreaming_on = health.dreaming.state == "on";
    let silent = in_use.iter().filter(|a| a.silent).count() as u64;
    let problems: u64 = health.sources.iter().map(|s| s.problems).sum();
    let missing = health
        .sources
        .iter()
        .filter(|s| s.enabled && !s.exists)
        .count() as u64;
    let lost = health.lost_files.len() as u64;
    let trouble = silent + problems + missing + never_run + lost > 0 || dreaming_on;
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
        if lost > 0 {
            parts.push(format!(
                "{} whose turns ELNOR could not read",
                count(lost, "file")
            ));
        }
        if never_run > 0 {
            parts.push(format!("{} set up but never run", count(never_run, "hook")));
        }
        if dreaming_on {
            parts.push("OpenClaw's Dreaming is on".to_owned());
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
        <LostFiles files=health.lost_files />
        {cards}
        {not_set_up}
        {(!hook_agents.is_empty()).then(|| view! { <HooksCard hooks=health.hooks harnesses=hook_agents /> })}
        <DreamingSection dreaming=health.dreaming outcome=dreaming_outcome generation />
    }
}

/// The transcript files that lost turns, each with the record types ELNOR could not read and a
/// line that holds one, so the person can tell which harness version wrote them.
#[component]
fn LostFiles(files: Vec<elnor_types::LostFileRow>) -> impl IntoView {
    (!files.is_empty()).then(|| {
        let rows = files
            .into_iter()
            .map(|f| {
                let types = f
                    .not_understood
                    .iter()
                    .map(|t| match t.sample_line {
                        Some(line) => {
                            format!("{} × \"{}\" (first at line {line})", t.count, t.record_type)
                        }
                        None => format!("{} × \"{}\"", t.count, t.record_type),
                    })
                    .collect::<Vec<_>>()
                    .join("; ");
                view! {
                    <li class="health-lost-file" data-path=f.path.clone()>
                        <span class="path">{f.path.clone()}</span>
                        <span class="meta">
                            {format!(
                                " {} read, {} of conversation; not understood: {types}",
                                count(f.records, "record"),
                                count(f.turns, "turn"),
                            )}
                        </span>
                    </li>
                }
            })
            .collect_view();
        view! {
            <section class="card health-lost" id="health-lost-files">
                <h2>"Files whose turns ELNOR could not read"</h2>
                <p class="hint">
                    "These records are kept exactly as written. An ELNOR that reads their format \
                     picks their turns up on its next ingest, without duplicating anything."
                </p>
                <ul>{rows}</ul>
            </section>
        }
    })
}
