//! The queue: the toolbar with the batch buttons, the proposal rows, and what an empty queue
//! says.

use std::collections::BTreeSet;

use elnor_types::{ProposalRow, ProposalRule, ProposalStatus, ReviewQueue};
use leptos::prelude::*;

use super::decide::RejectForm;
use super::proposal::ProposalPane;
use super::state::{Form, Review};
use crate::components::short_time;

#[component]
pub(super) fn Queue(queue: ReviewQueue, review: Review) -> impl IntoView {
    let counts = format!(
        "{} pending · {} deferred{}",
        queue.pending,
        queue.deferred,
        if review.show_all.get_untracked() {
            format!(" · {} in all", queue.proposals.len())
        } else {
            String::new()
        }
    );
    let show_all = view! {
        <label class="check">
            <input
                id="review-show-all"
                type="checkbox"
                prop:checked=move || review.show_all.get()
                on:change=move |ev| review.show_all.set(event_target_checked(&ev))
            />
            "Show decided proposals too"
        </label>
    };
    if queue.proposals.is_empty() {
        return view! {
            <div class="review-toolbar">{show_all}</div>
            <EmptyQueue queue />
        }
        .into_any();
    }
    let open: Vec<i64> = queue
        .proposals
        .iter()
        .filter(|p| p.status.is_open())
        .map(|p| p.proposal_id)
        .collect();
    let all_open = open.clone();
    let all_ticked = move || {
        !all_open.is_empty()
            && review
                .checked
                .with(|c| all_open.iter().all(|id| c.contains(id)))
    };
    let tick_all = move |ev| {
        let on = event_target_checked(&ev);
        review.checked.update(|c| {
            if on {
                c.extend(open.iter().copied());
            } else {
                c.clear();
            }
        });
    };
    let n_checked = move || review.checked.with(BTreeSet::len);
    let busy = move || review.busy();
    view! {
        <div class="review-toolbar" id="review-batch">
            <label class="check">
                <input id="review-select-all" type="checkbox" prop:checked=all_ticked on:change=tick_all />
                "All"
            </label>
            <span class="meta" id="review-counts">{counts}</span>
            <span class="meta" id="review-checked-count">
                {move || match n_checked() {
                    0 => String::new(),
                    n => format!("{n} ticked"),
                }}
            </span>
            <span class="batch-actions">
                <button
                    class="small"
                    id="batch-approve"
                    disabled=move || n_checked() == 0 || busy()
                    on:click=move |_| review.approve()
                >
                    "Approve ticked"
                </button>
                <button
                    class="small"
                    id="batch-reject"
                    disabled=move || n_checked() == 0 || busy()
                    on:click=move |_| review.start_reject()
                >
                    "Reject ticked…"
                </button>
                <button
                    class="small"
                    id="batch-defer"
                    disabled=move || n_checked() == 0 || busy()
                    on:click=move |_| review.defer()
                >
                    "Defer ticked"
                </button>
            </span>
            {show_all}
        </div>
        {move || match review.form.get() {
            Form::Reject { ids, batch: true } => view! { <RejectForm ids review /> }.into_any(),
            _ => ().into_any(),
        }}
        <p class="hint" id="review-shortcuts">
            "Keys: " <kbd>"j"</kbd> "/" <kbd>"k"</kbd> " or " <kbd>"↓"</kbd> "/" <kbd>"↑"</kbd>
            " move · " <kbd>"x"</kbd> " tick · " <kbd>"a"</kbd> " approve · " <kbd>"e"</kbd>
            " edit and approve · " <kbd>"r"</kbd> " reject · " <kbd>"d"</kbd> " defer · "
            <kbd>"Esc"</kbd> " cancel. Approve, reject and defer act on the ticked proposals when "
            "any are ticked, else on the selected one; not while you type in a field."
        </p>
        <div class="review-layout">
            <ul class="proposal-list" id="review-list">
                {queue.proposals.into_iter().map(|p| proposal_row(p, review)).collect_view()}
            </ul>
            <ProposalPane review />
        </div>
    }
    .into_any()
}

pub(super) fn rule_label(rule: ProposalRule) -> &'static str {
    match rule {
        ProposalRule::UnresolvedQuestion => "obligation",
        ProposalRule::ReferencedDecision => "memory directive",
    }
}

pub(super) fn proposal_row(p: ProposalRow, review: Review) -> impl IntoView {
    let id = p.proposal_id;
    let open = p.status.is_open();
    let context = p
        .work_context_name
        .clone()
        .unwrap_or_else(|| p.work_context_id.clone());
    let sessions = p.evidence.sessions.len();
    let mut meta = vec![
        context,
        format!("{sessions} session{}", if sessions == 1 { "" } else { "s" }),
    ];
    if let Some(deadline) = &p.evidence.deadline {
        meta.push(format!("due {}", deadline.get(..10).unwrap_or(deadline)));
    }
    meta.push(format!("proposed {}", short_time(&p.created_at)));
    view! {
        <li
            class="proposal-row"
            class:active=move || review.selected.get() == Some(id)
            class:ticked=move || review.checked.with(|c| c.contains(&id))
            data-proposal-id=id
            data-status=p.status.as_str()
            data-rule=p.rule.as_str()
            on:click=move |_| review.select(id)
        >
            <input
                type="checkbox"
                class="proposal-check"
                title="tick for a batch decision (x)"
                disabled=!open
                prop:checked=move || review.checked.with(|c| c.contains(&id))
                // Ticking is not choosing: the click stays on the box.
                on:click=|ev| ev.stop_propagation()
                on:change=move |_| review.toggle_checked(id)
            />
            <div class="proposal-summary">
                <span class="badges">
                    <span class=format!("badge kind-{}", p.node_kind)>{rule_label(p.rule)}</span>
                    {(p.status != ProposalStatus::Pending)
                        .then(|| {
                            view! {
                                <span class=format!("badge status-{}", p.status.as_str())>
                                    {p.status.as_str()}
                                </span>
                            }
                        })}
                    {p.renews.map(|r| view! { <span class="badge renews">{format!("renews #{r}")}</span> })}
                </span>
                <span class="proposal-text">{p.text.clone()}</span>
                <span class="meta">{meta.join(" · ")}</span>
            </div>
        </li>
    }
}

#[component]
pub(super) fn EmptyQueue(queue: ReviewQueue) -> impl IntoView {
    let rules = match queue.rules {
        Some(r) => view! {
            <ul id="review-rules">
                <li>
                    "An open question unresolved for " <strong>{format!("{} days", r.question_days)}</strong>
                    " or more, and linked to an entity with a deadline, is proposed as an "
                    <em>"obligation"</em> "."
                </li>
                <li>
                    "A key decision stated in " <strong>{format!("{} sessions", r.decision_sessions)}</strong>
                    " or more is proposed as a " <em>"memory directive"</em>
                    ", which then goes into every brief's living memory."
                </li>
            </ul>
            <p class="hint">
                {format!(
                    "The nightly job checks these rules every day after {:02}:00 (your time), or now \
                     with the buttons above. The thresholds are in Settings.",
                    r.nightly_hour,
                )}
            </p>
        }
        .into_any(),
        None => view! {
            <p class="error" role="alert">
                "The rules' thresholds are unknown because the config cannot be read: "
                {queue.config_error.clone().unwrap_or_default()}
            </p>
        }
        .into_any(),
    };
    view! {
        <div class="card empty" id="review-empty">
            <p>
                <strong>"Nothing to review."</strong>
                " Proposals appear here when the nightly job finds knowledge in the continuity logs "
                "that looks durable. Nothing enters the graph until you approve it."
            </p>
            {rules}
        </div>
    }
}
