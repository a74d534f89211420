//! Topics (concept model §7): lenses over what ELNOR holds. The list of Topics with their counts
//! sits beside the open Topic's lens: its members grouped by why they are there (pinned by the
//! person, approved from its collection directive's proposals, or matching its rules now), each
//! saying why, where it came from, and opening where it lives. The pane turns the directive on or
//! off, takes members out, edits the Topic (name, description, rules), deletes it after asking
//! again, and links to the proposals waiting in Review. The "New topic" button in the header opens
//! the dialog that creates one from a name, query words, kinds and a time window (`create.rs`).
//! Search hits are pinned into a Topic from the Search page.
//!
//! A Topic owns no document: deleting one loses nothing but the lens and its memberships.

mod create;
mod edit;
mod fields;
mod list;
mod topic;

use leptos::prelude::*;

use crate::api;
use crate::app::{PendingReviews, use_pending_reviews};
use crate::components::Loaded;
use crate::nav::{Nav, use_nav};
use create::NewTopicDialog;
use list::{NoTopics, TopicList};
use topic::TopicPane;

/// A change to the open Topic.
#[derive(Debug, Clone)]
pub(super) enum Change {
    /// Turns its collection directive on or off.
    Collect(String, bool),
    /// Takes a pinned or approved member (by its document id) out.
    Remove(String, String),
    Delete(String),
}

/// The page's state; every field is a signal, so handlers share it by copy.
#[derive(Clone, Copy)]
pub(super) struct Topics {
    pub(super) selected: RwSignal<Option<String>>,
    /// Bumped after every change, so the list and the open lens read again.
    pub(super) generation: RwSignal<u32>,
    pub(super) creating: RwSignal<bool>,
    /// What the last change did, or the engine's refusal.
    pub(super) note: RwSignal<Option<Result<String, String>>>,
    pub(super) change: Action<Change, Result<String, String>>,
    pub(super) pending: PendingReviews,
    pub(super) nav: Nav,
}

impl Topics {
    fn new() -> Topics {
        let nav = use_nav();
        Topics {
            selected: RwSignal::new(nav.take_topic()),
            generation: RwSignal::new(0),
            creating: RwSignal::new(false),
            note: RwSignal::new(None),
            change: Action::new_local(|c: &Change| run(c.clone())),
            pending: use_pending_reviews(),
            nav,
        }
    }

    /// After a change or a creation: read everything again, the Review badge included (a
    /// directive turned on proposes at once).
    pub(super) fn changed(self, note: Result<String, String>) {
        self.note.set(Some(note));
        self.generation.update(|g| *g += 1);
        self.pending.refresh();
    }
}

/// Sends one change and says what it did.
async fn run(c: Change) -> Result<String, String> {
    let said = match c {
        Change::Collect(topic_id, on) => {
            let request = elnor_types::EditTopicRequest {
                topic_id,
                collecting: Some(on),
                ..Default::default()
            };
            let r = api::topic_edit(request).await.map_err(|e| e.message)?;
            if on {
                format!(
                    "The collection directive is on: {} new proposal(s) in Review.",
                    r.proposed
                )
            } else {
                "The collection directive is off: nothing new is proposed.".to_owned()
            }
        }
        Change::Remove(topic_id, doc_id) => {
            api::topic_member_unpin(topic_id, doc_id)
                .await
                .map_err(|e| e.message)?;
            "Taken out; the directive will not propose it again.".to_owned()
        }
        Change::Delete(topic_id) => {
            api::topic_delete(topic_id).await.map_err(|e| e.message)?;
            "Topic deleted; its documents are where they were.".to_owned()
        }
    };
    Ok(said)
}

#[component]
pub fn TopicsPage() -> impl IntoView {
    let t = Topics::new();
    // Each change's reply, once: the value changes only when a reply lands.
    Effect::new(move |_| {
        if let Some(reply) = t.change.value().get() {
            t.changed(reply);
        }
    });
    let list = LocalResource::new(move || {
        t.generation.track();
        api::topics_list()
    });
    let detail = LocalResource::new(move || {
        t.generation.track();
        let id = t.selected.get();
        async move {
            match id {
                Some(id) => api::topic_get(id).await.map(Some),
                None => Ok(None),
            }
        }
    });
    // With no Topic at all, the page is one card that says how to make one: an empty list beside
    // an empty pane would say it twice. A memo, so the panes are not redrawn on every read.
    let none = Memo::new(move |_| matches!(list.get(), Some(Ok(rows)) if rows.is_empty()));
    // Keeps a valid selection: the chosen Topic while it exists, else the first.
    Effect::new(move |_| {
        let Some(Ok(rows)) = list.get() else {
            return;
        };
        let current = t.selected.get_untracked();
        if !current
            .as_deref()
            .is_some_and(|id| rows.iter().any(|r| r.topic.topic_id == id))
        {
            t.selected
                .set(rows.first().map(|r| r.topic.topic_id.clone()));
        }
    });
    view! {
        <div class="page-head">
            <h2>"Topics"</h2>
            <div class="page-actions">
                <button class="primary" id="topic-new" on:click=move |_| t.creating.set(true)>
                    "New topic"
                </button>
            </div>
        </div>
        <p class="hint">
            "A Topic is a lens: what you pinned into it, what you approved from its proposals, and "
            "whatever its words match now. With its collection directive on, new matching work is "
            "proposed into Review after every ingest."
        </p>
        <Show when=move || t.creating.get()>
            <NewTopicDialog t />
        </Show>
        {move || {
            t.note
                .get()
                .map(|n| match n {
                    Ok(text) => view! { <p class="saved" id="topics-note">{text}</p> }.into_any(),
                    Err(e) => view! { <div class="error" id="topics-note" role="alert">{e}</div> }.into_any(),
                })
        }}
        <Show when=move || !none.get() fallback=move || view! { <NoTopics t /> }>
            <div class="review-layout topics-layout">
                <div>
                    <Loaded resource=list loading="Reading the Topics…" let:rows>
                        <TopicList rows t />
                    </Loaded>
                </div>
                <TopicPane detail t />
            </div>
        </Show>
    }
}
