//! The session list with its filters, and the selected session's transcript beside it.

use elnor_types::{LineageWindow, SessionListRequest, SessionRow};
use leptos::prelude::*;

use super::transcript::TranscriptViewer;
use crate::api;
use crate::components::{Loaded, harness_name, short_time};
use crate::nav::TurnLink;

#[component]
pub(super) fn SessionBrowser(
    generation: RwSignal<u32>,
    selected: RwSignal<Option<SessionRow>>,
    /// A session to open as soon as the list has it.
    target: Option<String>,
    /// A turn of the target session to scroll to and select once its transcript opens.
    turn: Option<TurnLink>,
    /// The window of the target session's turns a brief line came from, to mark once its
    /// transcript opens.
    lineage: Option<LineageWindow>,
) -> impl IntoView {
    // Handed to the first transcript that opens (the target's), which takes them.
    let focus = RwSignal::new(turn);
    let lineage = RwSignal::new(lineage);
    let harness = RwSignal::new(String::new());
    let agent = RwSignal::new(String::new());
    // The target's id goes into the text filter, which matches ids, so the list shows it even
    // when it is older than the newest hundred.
    let text = RwSignal::new(target.clone().unwrap_or_default());
    let pending = RwSignal::new(target);
    let missing = RwSignal::new(None::<String>);
    let hours = RwSignal::new(None::<u32>);
    let sessions = LocalResource::new(move || {
        generation.track();
        let request = SessionListRequest {
            harness: Some(harness.get()).filter(|h| !h.is_empty()),
            agent_id: Some(agent.get()).filter(|a| !a.is_empty()),
            time_window_hours: hours.get(),
            text: Some(text.get()).filter(|t| !t.is_empty()),
            limit: Some(100),
        };
        api::sessions_list(request)
    });
    Effect::new(move |_| {
        let Some(Ok(rows)) = sessions.get() else {
            return;
        };
        if let Some(id) = pending.get_untracked() {
            match rows.into_iter().find(|r| r.session_id == id) {
                Some(row) => selected.set(Some(row)),
                None => {
                    // The turn belongs to the session that is not there; no other transcript
                    // may take it.
                    focus.set(None);
                    lineage.set(None);
                    missing.set(Some(format!(
                    "Session {id} is not among the ingested sessions: its entries may have been \
                     written by hand, or its transcript is no longer in a source."
                    )));
                }
            }
            pending.set(None);
        }
    });
    // Whether any filter narrows the list, so an empty list can say why it is empty.
    let filtered = move || {
        !harness.get_untracked().is_empty()
            || !agent.get_untracked().is_empty()
            || !text.get_untracked().is_empty()
            || hours.get_untracked().is_some()
    };
    view! {
        {move || missing.get().map(|m| view! { <p class="hint" id="session-missing">{m}</p> })}
        <div class="filters">
            <select id="filter-harness" on:change=move |ev| harness.set(event_target_value(&ev))>
                <option value="">"All harnesses"</option>
                <option value="claude_code">"Claude Code"</option>
                <option value="codex">"Codex"</option>
                <option value="openclaw">"OpenClaw / pi"</option>
            </select>
            <select
                id="filter-time"
                on:change=move |ev| hours.set(event_target_value(&ev).parse().ok())
            >
                <option value="">"Any time"</option>
                <option value="24">"Last 24 hours"</option>
                <option value="168">"Last 7 days"</option>
                <option value="720">"Last 30 days"</option>
            </select>
            <input
                id="filter-agent"
                type="search"
                placeholder="Agent id"
                on:input=move |ev| agent.set(event_target_value(&ev))
            />
            <input
                id="filter-text"
                type="search"
                placeholder="Filter by title or folder  ( / )"
                data-key-filter=""
                prop:value=move || text.get()
                on:input=move |ev| text.set(event_target_value(&ev))
            />
        </div>
        <div class="sessions-layout">
            <div class="session-list">
                <Loaded resource=sessions loading="Loading sessions…" let:rows>
                    {session_rows(rows, selected, filtered())}
                </Loaded>
            </div>
            <div class="session-view">
                {move || match selected.get() {
                    Some(s) => view! { <TranscriptViewer session=s focus lineage /> }.into_any(),
                    None => {
                        view! { <p class="hint">"Pick a session to read its transcript."</p> }
                            .into_any()
                    }
                }}
            </div>
        </div>
    }
}

pub(super) fn session_rows(
    rows: Vec<SessionRow>,
    selected: RwSignal<Option<SessionRow>>,
    filtered: bool,
) -> AnyView {
    if rows.is_empty() && filtered {
        return view! {
            <div class="empty" id="sessions-empty">
                <p>"No sessions match these filters."</p>
                <p class="hint">"Clear the filters (Esc in the filter box) to see every session."</p>
            </div>
        }
        .into_any();
    }
    if rows.is_empty() {
        return view! {
            <div class="empty" id="sessions-empty">
                <p>"No sessions yet."</p>
                <p class="hint">
                    "Transcript sources are set in Settings: the usual places were looked for on "
                    "this machine. If your agents keep transcripts elsewhere, add that folder "
                    "there, then press Ingest now. Nothing is ever written to the harnesses' files."
                </p>
            </div>
        }
        .into_any();
    }
    rows.into_iter()
        .map(|s| {
            let id = s.session_id.clone();
            let pick = s.clone();
            // A session with no title and no request of a person in it is named by the start of
            // its id, said to be untitled rather than shown as a bare id.
            let title = s.title.clone().unwrap_or_else(|| {
                format!("Untitled session {}", s.session_id.chars().take(8).collect::<String>())
            });
            let title = match (&s.parent_session_id, s.agent_id.as_deref()) {
                (Some(_), Some(agent)) => format!("↳ {agent} (sub-agent of {title})"),
                _ => title,
            };
            let full = title.clone();
            view! {
                <button
                    class="session-row"
                    class:active=move || selected.with(|x| x.as_ref().is_some_and(|x| x.session_id == id))
                    data-session-id=s.session_id.clone()
                    data-key-item=""
                    on:click=move |_| selected.set(Some(pick.clone()))
                >
                    <strong class="session-name" title=full>{title}</strong>
                    {(s.session_kind != "primary").then(|| view! {
                        <span
                            class=format!("badge kind-{}", s.session_kind)
                            title=s.kind_reason.clone().unwrap_or_default()
                        >
                            {s.session_kind.clone()}
                        </span>
                    })}
                    <span class="meta">
                        {format!(
                            "{} · {} · {} turns{}{}",
                            harness_name(&s.harness),
                            s.last_activity_at.as_deref().map(short_time).unwrap_or_else(|| "-".to_owned()),
                            s.turn_count,
                            if s.compaction_count > 0 {
                                format!(" · {} compaction(s)", s.compaction_count)
                            } else {
                                String::new()
                            },
                            s.git_branch.as_deref().map(|b| format!(" · branch {b}")).unwrap_or_default(),
                        )}
                    </span>
                </button>
            }
        })
        .collect_view()
        .into_any()
}
