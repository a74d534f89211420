//! The selected node's pane: its text, state and warrant, its provenance and its history.

use elnor_types::{NodeDetail, NodeHistoryRow, NodeSourceRow};
use leptos::prelude::*;

use super::change::Actions;
use super::list::{Detail, kind_badge, state_badges};
use super::state::Knowledge;
use crate::components::{Loaded, session_link, short_time};

#[component]
pub(super) fn NodePane(detail: Detail, k: Knowledge) -> impl IntoView {
    view! {
        <div class="proposal-pane">
            <Loaded resource=detail loading="Reading the node…" let:d>
                {match d {
                    Some(d) => view! { <NodeView detail=d k /> }.into_any(),
                    None => view! { <p class="hint">"Pick a node to see where it came from and its history."</p> }.into_any(),
                }}
            </Loaded>
        </div>
    }
}

/// A link to another node on this page.
pub(super) fn node_link(id: String, k: Knowledge) -> impl IntoView {
    let (target, label) = (id.clone(), id.clone());
    view! {
        <a
            href="#"
            class="node-link"
            data-node-id=id
            on:click=move |ev| {
                ev.prevent_default();
                k.open(target.clone());
            }
        >
            {label}
        </a>
    }
}

#[component]
pub(super) fn NodeView(detail: NodeDetail, k: Knowledge) -> impl IntoView {
    let n = detail.node;
    let context = match (&n.work_context_name, &n.work_context_id) {
        (Some(name), Some(id)) => Some(format!("{name} ({id})")),
        (None, Some(id)) => Some(id.clone()),
        _ => None,
    };
    let entity = n.entity_name.clone().or(n.entity_id.clone()).map(|e| {
        match (&n.entity_name, &n.entity_id) {
            (Some(_), Some(id)) => format!("{e} ({id})"),
            _ => e,
        }
    });
    let due = n
        .due_at
        .as_ref()
        .map(|d| d.get(..10).unwrap_or(d).to_owned());
    let frozen = (!n.live).then(|| {
        let why = match &n.superseded_by {
            Some(_) => "superseded",
            None => n.lifecycle.label(),
        };
        view! {
            <p class="hint" id="knowledge-frozen">
                {format!(
                    "This node is {why}. It no longer goes into briefs (for a while the Inspector's \
                     traces still list it, saying why it left) and stays here, with its history, as \
                     it is."
                )}
            </p>
        }
    });
    let actions = n.live.then(|| view! { <Actions node=n.clone() k /> });
    view! {
        <div
            class="card proposal-detail node-detail"
            id="knowledge-detail"
            data-node-id=n.node_id.clone()
            data-lifecycle=n.lifecycle.as_str()
            data-warrant=n.warrant.as_str()
        >
            <p class="badges">
                {kind_badge(n.kind)}
                {state_badges(&n)}
                <span class="meta">{n.node_id.clone()}</span>
            </p>
            <p class="proposal-text" id="knowledge-text">{n.text.clone()}</p>
            {frozen}
            {actions}
            <dl class="facts evidence">
                <dt>"Warrant"</dt>
                <dd id="knowledge-warrant">
                    <strong>{n.warrant.label()}</strong>
                    {format!(": {}", n.warrant.explanation())}
                    {n.warrant_reason.clone().map(|r| view! { <span class="snippet" id="knowledge-warrant-reason">{r}</span> })}
                </dd>
                <dt>"Lifecycle"</dt>
                <dd id="knowledge-lifecycle">
                    {n.lifecycle.label()}
                    {n.superseded_by.clone().map(|s| view! { " by " {node_link(s, k)} })}
                </dd>
                <dt>"Staleness"</dt>
                <dd id="knowledge-staleness">{n.staleness.label()}</dd>
                {due.map(|d| view! { <dt>"Due"</dt> <dd id="knowledge-due">{d}</dd> })}
                {entity.map(|e| view! { <dt>"About"</dt> <dd id="knowledge-entity">{e}</dd> })}
                {context.map(|c| view! { <dt>"Work context"</dt> <dd id="knowledge-context">{c}</dd> })}
                <dt>"Created"</dt>
                <dd>{short_time(&n.created_at)}</dd>
                <dt>"Last changed"</dt>
                <dd>{short_time(&n.updated_at)}</dd>
            </dl>
            <h4>"Where it came from"</h4>
            <ul class="evidence-sessions" id="knowledge-provenance">
                {detail.provenance.into_iter().map(|s| source_row(s, k)).collect_view()}
            </ul>
            <h4>"History"</h4>
            <ol class="node-history" id="knowledge-history">
                {detail.history.into_iter().map(history_row).collect_view()}
            </ol>
        </div>
    }
}

pub(super) fn source_row(s: NodeSourceRow, k: Knowledge) -> impl IntoView {
    // Every source is linked when the node is written, so the time is mostly the node's own
    // creation; it is there on hover rather than repeated on every line.
    let when = format!("linked to this node {}", short_time(&s.recorded_at));
    let body = match s.source_kind.as_str() {
        "continuity_entry" => match s.entry {
            Some(e) => view! {
                <span class="source-kind">"Entry "</span>
                <span class="badge">{e.entry_type.replace('_', " ")}</span>
                {e.reduced_confidence.then(|| view! {
                    <span class="badge heuristic" title="Found by the heuristic detectors, not the model.">
                        "heuristic · reduced confidence"
                    </span>
                })}
                <span class="snippet">{e.headline.clone()}</span>
                <span class="meta">{format!("{} · captured {} from ", e.entry_id, short_time(&e.captured_at))}</span>
                {session_link(e.source_session_id.clone(), None)}
            }
            .into_any(),
            None => view! {
                <span class="source-kind">"Entry "</span>
                <span class="meta">{format!("{} (no longer in its continuity log)", s.source_ref)}</span>
            }
            .into_any(),
        },
        "session" => {
            let session = s.session.clone();
            let (ingested, role, title) = match &session {
                Some(x) => (
                    x.ingested,
                    if x.recorded { "recorded it" } else { "stated it again" },
                    x.title.clone(),
                ),
                None => (false, "stated it", None),
            };
            view! {
                <span class="source-kind">"Session "</span>
                {if ingested {
                    session_link(s.source_ref.clone(), None).into_any()
                } else {
                    view! { <span class="session-id">{format!("session {} (transcript not in the store)", s.source_ref)}</span> }.into_any()
                }}
                <span class="meta">{format!(" {role}")}</span>
                {title.map(|t| view! { <span class="snippet">{t}</span> })}
            }
            .into_any()
        }
        "review" => match s.proposal_id {
            Some(p) => {
                let nav = k.nav;
                view! {
                    <span class="source-kind">"Approved in review: "</span>
                    <a
                        href="#"
                        class="proposal-link"
                        data-proposal-id=p
                        on:click=move |ev| {
                            ev.prevent_default();
                            nav.open_proposal(p);
                        }
                    >
                        {format!("proposal #{p}")}
                    </a>
                }
                .into_any()
            }
            None => view! { <span class="source-kind">{format!("Review: {}", s.source_ref)}</span> }.into_any(),
        },
        "supersedes" => view! {
            <span class="source-kind">"Replaces "</span>
            {node_link(s.source_ref.clone(), k)}
        }
        .into_any(),
        other => view! { <span class="source-kind">{format!("{other}: {}", s.source_ref)}</span> }.into_any(),
    };
    view! {
        <li data-source-kind=s.source_kind.clone() data-source-ref=s.source_ref.clone() title=when>
            {body}
        </li>
    }
}

pub(super) fn history_row(h: NodeHistoryRow) -> impl IntoView {
    view! {
        <li data-action=h.action.clone()>
            <span class="meta history-at">{short_time(&h.at)}</span>
            <span class=format!("badge history-action action-{}", h.action)>{h.action.clone()}</span>
            {h.state.map(|s| view! { <span class="meta history-state">{format!("→ {}", s.replace('_', " "))}</span> })}
            {h.text.map(|t| view! { <span class="snippet history-text">{t}</span> })}
            {h.note.map(|n| view! { <span class="history-note">{n}</span> })}
        </li>
    }
}
