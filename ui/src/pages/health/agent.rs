//! One agent's card on the Health page: its recent sessions and usual rhythm, a silence called out
//! in a sentence a person can act on, the sessions that ended without a capture, and each of its
//! transcript folders with what was read there and what could not be.

use elnor_types::{Age, HarnessHealthRow, SourceHealthRow};
use leptos::prelude::*;

use super::words::{ago, count, every, span};
use crate::components::{harness_name, short_time};
use crate::nav::{Page, Route, use_nav};

/// An agent's card, with its own folders.
#[component]
pub(super) fn AgentCard(agent: HarnessHealthRow, sources: Vec<SourceHealthRow>) -> impl IntoView {
    let name = harness_name(&agent.harness).to_owned();
    let id = format!("health-{}", agent.harness.replace('_', "-"));
    // Whether any folder of this agent's is there to be read: the silence's advice differs when
    // none is (the agent may write somewhere ELNOR does not look).
    let readable = sources.iter().any(|s| s.enabled && s.exists);
    let silence = agent
        .silent
        .then(|| silence_callout(&name, &agent, readable));
    let uncaptured = (agent.uncaptured > 0).then(|| {
        view! {
            <p class="health-uncaptured" data-count=agent.uncaptured>
                {format!(
                    "{} you worked in ended without being captured; the nightly run catches up on {}.",
                    count(agent.uncaptured, "session"),
                    if agent.uncaptured == 1 { "it" } else { "them" },
                )}
            </p>
        }
    });
    let folders = if sources.is_empty() {
        view! {
            <p class="hint">
                "ELNOR reads no folder of this agent's any more; the sessions above were read before."
            </p>
        }
        .into_any()
    } else {
        view! {
            <ul class="health-sources">
                {sources.into_iter().map(source_row).collect_view()}
            </ul>
        }
        .into_any()
    };
    view! {
        <section
            class="card health-agent"
            class:silent=agent.silent
            id=id
            data-harness=agent.harness.clone()
            data-silent=agent.silent.to_string()
        >
            <h3>{name}</h3>
            <p class="health-activity">{activity(&agent)}</p>
            {silence}
            {uncaptured}
            {folders}
        </section>
    }
}

/// What the agent recorded lately, in one line: "12 sessions this week, 3 in the last day · last
/// session 3 hours ago · usually a new session every ~9 hours".
fn activity(agent: &HarnessHealthRow) -> String {
    let Some(last) = &agent.last_session else {
        return "No sessions recorded yet.".to_owned();
    };
    let mut parts = vec![
        if agent.sessions_week == 0 {
            "No sessions this week".to_owned()
        } else {
            format!(
                "{} this week, {} in the last day",
                count(agent.sessions_week, "session"),
                agent.sessions_day,
            )
        },
        format!("last session {}", ago(last.minutes_ago)),
    ];
    if let Some(hours) = agent.usual_gap_hours {
        parts.push(format!("usually a new session {}", every(hours)));
    }
    parts.join(" · ")
}

/// The callout for an agent quiet far longer than usual: how long, what is usual, the question
/// the person should answer, and where to look: the folder below when ELNOR can read one, else
/// Settings, to add the folder the agent writes to now.
fn silence_callout(name: &str, agent: &HarnessHealthRow, readable: bool) -> impl IntoView + use<> {
    let nav = use_nav();
    let quiet = agent
        .last_session
        .as_ref()
        .map_or_else(String::new, |last| {
            format!(" for {}", span(last.minutes_ago))
        });
    let usual = match agent.usual_gap_hours {
        Some(hours) => format!("it usually records one {}", every(hours)),
        None => "it recorded only a few before".to_owned(),
    };
    let advice = if readable {
        view! { {format!(" If you still use {name}, check that it still writes to the folder below.")} }
            .into_any()
    } else {
        view! {
            {format!(" ELNOR has no folder of {name}'s to read on this machine; if you still use it, ")}
            <a
                href="#"
                on:click=move |ev| {
                    ev.prevent_default();
                    nav.go(Route::of(Page::Settings));
                }
            >
                "add the folder it writes to in Settings"
            </a>
            "."
        }
            .into_any()
    };
    view! {
        <p class="health-silent" role="status">
            <span class="alert-mark" aria-hidden="true">"!"</span>
            <span>
                {format!("No new {name} sessions{quiet}; {usual}. Is it still being captured?")}
                {advice}
            </span>
        </p>
    }
}

/// One transcript folder: how much was read there and when, and what could not be.
fn source_row(source: SourceHealthRow) -> impl IntoView {
    let when = |label: &str, age: &Option<Age>| {
        age.as_ref().map(|a| {
            view! { <span title=short_time(&a.at)>{format!("{label} {}", ago(a.minutes_ago))}</span> }
        })
    };
    let state = if !source.enabled {
        Some("Turned off in Settings, so it is not read.")
    } else if !source.exists {
        Some("This folder is not on this machine.")
    } else {
        None
    };
    let problems = (source.problems > 0).then(|| {
        view! {
            <p class="health-problem">
                {format!(
                    "{} could not be read (cut off or garbled); the rest of each file was read.",
                    count(source.problems, "line"),
                )}
            </p>
        }
    });
    // What became of the records read: the census. Records skipped on purpose are said plainly,
    // not as a problem; records not understood name their type and a line that holds one.
    let census = (source.records > 0).then(|| {
        let skipped: u64 = source.skipped.iter().map(|t| t.count).sum();
        let kinds = source
            .skipped
            .iter()
            .take(4)
            .map(|t| t.record_type.clone())
            .collect::<Vec<_>>()
            .join(", ");
        view! {
            <p class="meta health-census">
                {format!(
                    "{} read: {} of conversation, {} kept aside on purpose ({kinds}{}).",
                    count(source.records, "record"),
                    count(source.turns, "turn"),
                    skipped,
                    if source.skipped.len() > 4 { ", …" } else { "" },
                )}
            </p>
        }
    });
    let unknown = (!source.not_understood.is_empty()).then(|| {
        let items = source
            .not_understood
            .iter()
            .map(|t| {
                let at = match (&t.sample_path, t.sample_line) {
                    (Some(p), Some(l)) => format!(" (e.g. {p}, line {l})"),
                    (Some(p), None) => format!(" (e.g. {p})"),
                    _ => String::new(),
                };
                view! { <li>{format!("{} × \"{}\"{at}", t.count, t.record_type)}</li> }
            })
            .collect_view();
        view! {
            <div class="health-problem health-not-understood">
                {format!(
                    "{} of a kind ELNOR does not know yet, kept as they are:",
                    count(source.unknown_records.max(source.not_understood.iter().map(|t| t.count).sum()), "record"),
                )}
                <ul>{items}</ul>
            </div>
        }
    });
    view! {
        <li
            class="health-source"
            class:off=!source.enabled
            data-root=source.root.clone()
            data-problems=source.problems
        >
            <span class="path">{source.root.clone()}</span>
            // A folder that is not there has nothing to count; what was read from it before
            // still counts.
            {(source.exists || source.files > 0)
                .then(|| {
                    view! {
                        <span class="meta health-reads">
                            {count(source.files, "file")}
                            {when(" · last file change", &source.last_file_change)}
                            {when(" · last read", &source.last_read)}
                        </span>
                    }
                })}
            {state.map(|s| view! { <p class="health-problem">{s}</p> })}
            {problems}
            {census}
            {unknown}
        </li>
    }
}
