//! The review queue's Topic memberships: what the Topics' collection directives proposed (a
//! document that matches a Topic's words), each with its Topic, label, kind and the directive's
//! reason, to approve into the Topic or reject (a rejection sticks: it is never proposed again).
//! Each decision reads the list again and updates the Review badge, which counts these too.

use elnor_types::MembershipProposalRow;
use leptos::prelude::*;

use crate::api;
use crate::app::use_pending_reviews;
use crate::components::{Loaded, short_time};
use crate::nav::use_nav;

#[component]
pub(super) fn Memberships() -> impl IntoView {
    let pending = use_pending_reviews();
    let generation = RwSignal::new(0u32);
    let note = RwSignal::new(None::<Result<String, String>>);
    let decide = Action::new_local(|(ids, approve): &(Vec<i64>, bool)| {
        let (ids, approve) = (ids.clone(), *approve);
        async move {
            let outcome = api::memberships_decide(ids, approve)
                .await
                .map_err(|e| e.message)?;
            if let Some(f) = outcome.failed.first() {
                return Err(f.message.clone());
            }
            let n = outcome.decided.len();
            Ok(match approve {
                true => format!("Approved {n} membership(s): the Topic shows them now."),
                false => format!("Rejected {n} membership(s); they will not be proposed again."),
            })
        }
    });
    // Each reply, once: the value changes only when a reply lands.
    Effect::new(move |_| {
        if let Some(reply) = decide.value().get() {
            note.set(Some(reply));
            generation.update(|g| *g += 1);
            pending.refresh();
        }
    });
    let list = LocalResource::new(move || {
        generation.track();
        api::memberships_list()
    });
    let busy = decide.pending();
    view! {
        <div class="card" id="review-memberships">
            <h3>"Topic memberships"</h3>
            {move || {
                note.get()
                    .map(|n| match n {
                        Ok(text) => view! { <p class="saved" id="memberships-note">{text}</p> }.into_any(),
                        Err(e) => view! { <div class="error" id="memberships-note" role="alert">{e}</div> }.into_any(),
                    })
            }}
            <Loaded resource=list loading="Reading the membership proposals…" let:rows>
                {if rows.is_empty() {
                    view! {
                        <p class="hint" id="memberships-empty">
                            "No membership proposals. A Topic whose directive collects proposes "
                            "new matching documents here after every ingest."
                        </p>
                    }
                    .into_any()
                } else {
                    view! {
                        <ul class="proposal-list membership-list" id="memberships-list">
                            {rows.into_iter().map(|p| row(p, decide, busy)).collect_view()}
                        </ul>
                    }
                    .into_any()
                }}
            </Loaded>
        </div>
    }
}

fn row(
    p: MembershipProposalRow,
    decide: Action<(Vec<i64>, bool), Result<String, String>>,
    busy: Memo<bool>,
) -> impl IntoView {
    let nav = use_nav();
    let m = p.membership;
    let id = m.membership_id;
    let topic = m.topic_id.clone();
    let mut meta = vec![m.kind.replace('_', " ")];
    if let Some(at) = &m.at {
        meta.push(short_time(at));
    }
    view! {
        <li class="proposal-row membership-row" data-membership-id=id.to_string() data-topic-id=m.topic_id.clone()>
            <div class="proposal-summary">
                <span class="badges">
                    <a
                        href="#"
                        class="badge stored membership-topic"
                        title="open the Topic"
                        on:click=move |ev| {
                            ev.prevent_default();
                            nav.open_topic(topic.clone());
                        }
                    >
                        {p.topic_name}
                    </a>
                </span>
                <span class="row-title membership-label">{m.label}</span>
                <span class="meta">{meta.join(" · ")}</span>
                <span class="meta membership-reason">{m.reason.unwrap_or_default()}</span>
            </div>
            <div class="membership-actions">
                <button
                    class="small membership-approve"
                    disabled=move || busy.get()
                    on:click=move |_| {
                        decide.dispatch_local((vec![id], true));
                    }
                >
                    "Approve"
                </button>
                <button
                    class="small danger membership-reject"
                    disabled=move || busy.get()
                    on:click=move |_| {
                        decide.dispatch_local((vec![id], false));
                    }
                >
                    "Reject"
                </button>
            </div>
        </li>
    }
}
