//! The list of Topics, each with its counts and whether its directive collects, and the page's
//! card for when there is none.

use elnor_types::TopicListRow;
use leptos::prelude::*;

use super::Topics;

/// The page when there is no Topic yet: what one is for, and the button that makes one.
#[component]
pub(super) fn NoTopics(t: Topics) -> impl IntoView {
    view! {
        <div class="card empty" id="topics-empty">
            <p>
                <strong>"No Topics yet."</strong>
                " Make one with “New topic”: give it a name and the words its documents share."
            </p>
            <button class="primary" id="topic-new-empty" on:click=move |_| t.creating.set(true)>
                "New topic"
            </button>
        </div>
    }
}

#[component]
pub(super) fn TopicList(rows: Vec<TopicListRow>, t: Topics) -> impl IntoView {
    let items = rows
        .into_iter()
        .map(|r| {
            let id = r.topic.topic_id.clone();
            let (active, clicked) = (id.clone(), id.clone());
            let counts = format!(
                "{} pinned · {} approved · {} pending",
                r.pinned, r.approved, r.pending
            );
            let collecting = r
                .topic
                .collecting
                .then(|| view! { <span class="badge stored" title="new matches are proposed into Review">"collecting"</span> });
            view! {
                <li
                    class="proposal-row topic-row"
                    class:active=move || t.selected.with(|s| s.as_deref() == Some(active.as_str()))
                    data-topic-id=id
                    data-key-item=""
                    tabindex="-1"
                    on:click=move |_| t.selected.set(Some(clicked.clone()))
                >
                    <div class="proposal-summary">
                        <span class="row-title topic-name">{r.topic.name.clone()}</span>
                        <span class="badges">{collecting}</span>
                        <span class="meta">{counts}</span>
                    </div>
                </li>
            }
        })
        .collect_view();
    view! { <ul class="proposal-list topic-list" id="topics-list">{items}</ul> }.into_any()
}
