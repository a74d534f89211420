//! The selected proposal's pane: its evidence (the entry as captured, the sessions that recorded
//! or restated it, the deadline, an earlier rejection) and, once decided, the decision.

use elnor_types::{
    ContinuityEntryRow, EvidenceSessionRow, ProposalDetail, ProposalRow, ProposalStatus,
};
use leptos::prelude::*;

use super::decide::Actions;
use super::queue::rule_label;
use super::state::Review;
use crate::api;
use crate::components::{Loaded, session_link, short_time};
use crate::nav::use_nav;

#[component]
pub(super) fn ProposalPane(review: Review) -> impl IntoView {
    let detail = LocalResource::new(move || {
        review.generation.track();
        let id = review.selected.get();
        async move {
            match id {
                Some(id) => api::review_get(id).await.map(Some),
                None => Ok(None),
            }
        }
    });
    view! {
        <div class="proposal-pane">
            <Loaded resource=detail loading="Reading the proposal…" let:d>
                {match d {
                    Some(d) => view! { <ProposalView detail=d review /> }.into_any(),
                    None => view! { <p class="hint">"Pick a proposal to see its evidence."</p> }.into_any(),
                }}
            </Loaded>
        </div>
    }
}

#[component]
pub(super) fn ProposalView(detail: ProposalDetail, review: Review) -> impl IntoView {
    let p = detail.proposal;
    let id = p.proposal_id;
    let open = p.status.is_open();
    let e = p.evidence.clone();
    let context = match &p.work_context_name {
        Some(name) => format!("{name} ({})", p.work_context_id),
        None => p.work_context_id.clone(),
    };
    let deadline = e.deadline.as_ref().map(|d| {
        let date = d.get(..10).unwrap_or(d).to_owned();
        match &e.entity_name {
            Some(entity) => format!("{date}, from {entity}"),
            None => date,
        }
    });
    view! {
        <div class="card proposal-detail" id="review-detail" data-proposal-id=id data-status=p.status.as_str()>
            <p class="badges">
                <span class=format!("badge kind-{}", p.node_kind)>{rule_label(p.rule)}</span>
                <span class=format!("badge status-{}", p.status.as_str())>{p.status.as_str()}</span>
                <span class="meta">{format!("#{id} · proposed {}", short_time(&p.created_at))}</span>
            </p>
            <p class="proposal-text" id="review-text">{p.text.clone()}</p>
            <p class="because" id="review-because">
                {format!("Proposed because it was {}.", e.because)}
            </p>
            {p.renews
                .map(|r| {
                    let earlier = detail.renewed.clone();
                    let why = earlier
                        .as_ref()
                        .map(|x| {
                            let when = x.decided_at.as_deref().map(short_time).unwrap_or_default();
                            match &x.decision_note {
                                Some(reason) => format!(" It was rejected {when}: “{reason}”."),
                                None => format!(" It was rejected {when} without a reason."),
                            }
                        })
                        .unwrap_or_default();
                    view! {
                        <p class="renewal" id="review-renews">
                            <span class="badge renews">{format!("renews #{r}")}</span>
                            {format!("Proposed again because new evidence arrived after #{r} was rejected.{why}")}
                        </p>
                    }
                })}
            {decision_view(&p)}
            {open.then(|| view! { <Actions id text=p.text.clone() review /> })}
            <h4>"Evidence"</h4>
            <dl class="facts evidence">
                <dt>"Work context"</dt>
                <dd>{context}</dd>
                <dt>"First captured"</dt>
                <dd id="review-captured">
                    {format!("{} ({} days before the proposal)", short_time(&e.captured_at), e.age_days)}
                </dd>
                <dt>"Sessions"</dt>
                <dd id="review-session-count">{e.sessions.len()}</dd>
                {deadline.map(|d| view! {
                    <dt>"Deadline"</dt>
                    <dd id="review-deadline">{d}</dd>
                })}
            </dl>
            <h4>"The entry as captured"</h4>
            {match detail.entry {
                Some(entry) => entry_view(entry).into_any(),
                None => view! {
                    <p class="hint" id="review-entry-missing">
                        "The work context's log no longer holds this entry (it decayed or the log "
                        "was compacted); the proposal keeps its text."
                    </p>
                }
                    .into_any(),
            }}
            <h4>"Sessions that stated it"</h4>
            <ul class="evidence-sessions" id="review-sessions">
                {detail.sessions.into_iter().map(session_row).collect_view()}
            </ul>
        </div>
    }
}

pub(super) fn decision_view(p: &ProposalRow) -> Option<AnyView> {
    if p.status == ProposalStatus::Pending {
        return None;
    }
    let when = p.decided_at.as_deref().map(short_time).unwrap_or_default();
    let what = match p.status {
        ProposalStatus::Approved => format!(
            "Approved {when}{}.",
            p.node_id
                .as_ref()
                .map(|n| format!("; written to the graph as {n}"))
                .unwrap_or_default()
        ),
        ProposalStatus::Rejected => format!("Rejected {when}."),
        ProposalStatus::Deferred => {
            format!("Deferred {when}; it stays in the queue, after the pending proposals.")
        }
        ProposalStatus::Pending => String::new(),
    };
    // The node an approval wrote, on the Knowledge page (it may have been changed since).
    let node = p
        .node_id
        .clone()
        .filter(|_| p.status == ProposalStatus::Approved)
        .map(|node| {
            let nav = use_nav();
            let target = node.clone();
            view! {
                <a
                    href="#"
                    class="node-link"
                    id="review-open-node"
                    data-node-id=node
                    on:click=move |ev| {
                        ev.prevent_default();
                        nav.open_node(target.clone());
                    }
                >
                    "Open in Knowledge"
                </a>
            }
        });
    Some(view! {
        <p class="decision" id="review-decision">
            {what}
            {p.decision_note.clone().map(|n| view! { <span class="meta" id="review-decision-note">{format!(" Note: {n}")}</span> })}
            {node.map(|a| view! { " " {a} })}
        </p>
    }
    .into_any())
}

pub(super) fn entry_view(e: ContinuityEntryRow) -> impl IntoView {
    let kind = e.entry_type.replace('_', " ");
    view! {
        <div class="evidence-entry" id="review-entry" data-entry-id=e.entry_id.clone()>
            <p>
                <span class="badge">{kind}</span>
                {e.reduced_confidence
                    .then(|| {
                        view! {
                            <span
                                class="badge heuristic"
                                title="Found by the heuristic detectors, not the model: read it with care."
                            >
                                "heuristic · reduced confidence"
                            </span>
                        }
                    })}
                {e.resolved.then(|| view! { <span class="badge resolved">"resolved"</span> })}
                <span class="headline">{e.headline.clone()}</span>
            </p>
            {e.detail.clone().map(|d| view! { <p class="detail snippet">{d}</p> })}
            <p class="meta">
                {format!("captured {} from ", short_time(&e.captured_at))}
                {session_link(e.source_session_id.clone(), None)}
            </p>
        </div>
    }
}

pub(super) fn session_row(s: EvidenceSessionRow) -> impl IntoView {
    let role = if s.recorded {
        "recorded it"
    } else {
        "stated it again"
    };
    let when = s
        .started_at
        .as_deref()
        .map(|t| format!("started {}", short_time(t)))
        .unwrap_or_default();
    let about = if s.ingested {
        let mut parts = vec![role.to_owned()];
        parts.extend(s.harness.clone());
        if !when.is_empty() {
            parts.push(when);
        }
        parts.join(" · ")
    } else {
        format!("{role} · transcript not in the store")
    };
    view! {
        <li data-session-id=s.session_id.clone()>
            {if s.ingested {
                session_link(s.session_id.clone(), None).into_any()
            } else {
                view! { <span class="session-id">{format!("session {}", s.session_id)}</span> }.into_any()
            }}
            <span class="meta">{format!(" {about}")}</span>
            {s.title.map(|t| view! { <span class="snippet">{t}</span> })}
        </li>
    }
}
