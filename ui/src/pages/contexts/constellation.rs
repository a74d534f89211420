//! The constellation view of a work context: the read model a brief's Tier 1 card is cut from.
//! Every session, question, decision and update in it links to its lineage ("Open lineage").

use elnor_types::{CommandError, ConstellationItemRow, ConstellationView, LineageRequest};
use leptos::prelude::*;

use super::detail::heuristic_badge;
use crate::components::{Loaded, lineage_link, session_link, short_time};
use crate::nav::use_nav;

/// The work context's constellation view and its Tier 1 card. Reading it assembles a preview
/// brief (recorded for the Inspector), so the card shown is exactly what a session would get.
#[component]
pub(super) fn ConstellationCard(
    /// The view, read once by the context's detail and shared with its log, which leaves out what
    /// the view shows.
    view_read: LocalResource<Result<ConstellationView, CommandError>>,
) -> impl IntoView {
    view! {
        <div class="card" id="wc-constellation">
            <h3>"Constellation"</h3>
            <Loaded resource=view_read loading="Reading the constellation view…" let:c>
                <ConstellationBody c />
            </Loaded>
        </div>
    }
}

#[component]
pub(super) fn ConstellationBody(c: ConstellationView) -> impl IntoView {
    let nav = use_nav();
    let assembly = c.tier1_assembly_id;
    let excluded = c.excluded.len();
    let wc = c.work_context_id.clone();
    view! {
        <p class="meta" id="constellation-meta">
            {format!(
                "View as of {} · window of {} session(s), {} in the last 30 days",
                c.as_of,
                c.effective_window,
                c.sessions_in_last_30_days,
            )}
            {c
                .stale
                .then(|| {
                    view! {
                        <span
                            class="badge stale"
                            id="constellation-stale"
                            title="The log changed since this view was built; it is shown as is and rebuilt now. Reopen the context to see the new one."
                        >
                            "stale"
                        </span>
                    }
                })}
            {c.local_only.then(|| view! { <span class="badge local-only">"local only"</span> })}
        </p>
        <h4>"Phase"</h4>
        <p id="constellation-phase">{c.active_work_phase.clone()}</p>

        <h4>{format!("Session history ({})", c.session_history.len())}</h4>
        {if c.session_history.is_empty() {
            view! { <p class="hint">"No captured sessions in the window."</p> }.into_any()
        } else {
            view! {
                <ul class="entries" id="constellation-sessions">
                    {c
                        .session_history
                        .iter()
                        .map(|s| {
                            let lineage = lineage_link(LineageRequest::Entry {
                                entry_id: s.entry_id.clone(),
                                work_context_id: Some(wc.clone()),
                            });
                            view! {
                                <li class="entry" data-entry-id=s.entry_id.clone()>
                                    <span class="date">{short_time(&s.last_activity_at)}</span>
                                    " "
                                    <span class="headline">{s.line.clone()}</span>
                                    <span class="meta">
                                        {session_link(s.source_session_id.clone(), s.turn_seq)}
                                        {format!(" · {} tokens · ", s.tokens)}
                                        {lineage}
                                    </span>
                                </li>
                            }
                        })
                        .collect_view()}
                </ul>
            }
                .into_any()
        }}
        {constellation_group("Open questions", "constellation-questions", c.open_questions.clone(), &c.work_context_id)}
        {constellation_group("Key decisions", "constellation-decisions", c.key_decisions.clone(), &c.work_context_id)}
        {constellation_group(
            "Cross-conversation updates",
            "constellation-updates",
            c.cross_conversation_updates.clone(),
            &c.work_context_id,
        )}
        {(!c.goals.is_empty() || !c.obligations.is_empty())
            .then(|| {
                view! {
                    <h4>"Goals and obligations"</h4>
                    <ul class="entries" id="constellation-nodes">
                        {c
                            .goals
                            .iter()
                            .chain(&c.obligations)
                            .map(|n| {
                                view! {
                                    <li class="entry">
                                        <span class="headline">{n.text.clone()}</span>
                                        <span class="meta">
                                            {n.kind.clone()}
                                            {n.due_at.clone().map(|d| format!(" · due {d}"))}
                                        </span>
                                    </li>
                                }
                            })
                            .collect_view()}
                    </ul>
                }
            })}
        <h4 id="constellation-excluded-count">{format!("Left out of the view ({excluded})")}</h4>
        {(excluded > 0)
            .then(|| {
                view! {
                    <details id="constellation-excluded">
                        <summary>"Why each was left out"</summary>
                        <ul class="entries">
                            {c
                                .excluded
                                .iter()
                                .map(|x| {
                                    view! {
                                        <li class="entry" data-reason=x.reason.clone()>
                                            <span class="headline">{x.text.clone()}</span>
                                            <code>{x.reason.clone()}</code>
                                            <p class="detail">{x.detail.clone()}</p>
                                        </li>
                                    }
                                })
                                .collect_view()}
                        </ul>
                    </details>
                }
            })}

        <h4>"What a new session here would be told first"</h4>
        {match c.tier1.clone() {
            Some(card) => {
                view! {
                    <div id="constellation-tier1" data-tokens=card.tokens>
                        <p class="meta" id="constellation-tier1-tokens">
                            {format!("{} of {} tokens", card.tokens, c.tier1_cap)}
                        </p>
                        <pre class="brief-text">
                            {card.lines.iter().map(|l| format!("{}\n", l.text)).collect::<String>()}
                        </pre>
                    </div>
                }
                    .into_any()
            }
            None => {
                view! {
                    <p class="hint" id="constellation-tier1-absent">
                        {format!(
                            "Nothing to tell a new session here yet: {}.",
                            c.tier1_absent_reason.clone().unwrap_or_default(),
                        )}
                    </p>
                }
                    .into_any()
            }
        }}
        <p>
            <a
                href="#"
                id="constellation-why"
                on:click=move |ev| {
                    ev.prevent_default();
                    nav.open_assembly(assembly);
                }
            >
                "Why?"
            </a>
            <span class="meta">{format!(" Preview assembly #{assembly} in the Inspector.")}</span>
        </p>
    }
}

pub(super) fn constellation_group(
    title: &'static str,
    id: &'static str,
    items: Vec<ConstellationItemRow>,
    work_context_id: &str,
) -> AnyView {
    let count = items.len();
    view! {
        <h4>{format!("{title} ({count})")}</h4>
        {if items.is_empty() {
            view! { <p class="hint">"None."</p> }.into_any()
        } else {
            view! {
                <ul class="entries" id=id>
                    {items
                        .into_iter()
                        .map(|i| {
                            let lineage = lineage_link(LineageRequest::Entry {
                                entry_id: i.entry_id.clone(),
                                work_context_id: Some(work_context_id.to_owned()),
                            });
                            view! {
                                <li class="entry" data-entry-id=i.entry_id.clone()>
                                    <span class="headline">{i.text.clone()}</span>
                                    {i.reduced_confidence.then(heuristic_badge)}
                                    {i.detail.clone().map(|d| view! { <p class="detail">{d}</p> })}
                                    <span class="meta">
                                        {format!("{} · ", short_time(&i.captured_at))}
                                        {session_link(i.source_session_id.clone(), i.turn_seq)}
                                        {format!(" · {} tokens · ", i.tokens)}
                                        {lineage}
                                    </span>
                                </li>
                            }
                        })
                        .collect_view()}
                </ul>
            }
                .into_any()
        }}
    }
    .into_any()
}
