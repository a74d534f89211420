//! The "New topic" form: a name, a description, the words every member must hold, the kinds of
//! document it takes in, a time window (`fields.rs`), and whether its collection directive
//! proposes new matches into Review.

use elnor_types::{CreateTopicRequest, TopicChanged};
use leptos::prelude::*;

use super::Topics;
use super::fields::{Fields, fields_view};
use crate::api;

/// What a creation or an edit did, in words: the Topic, the proposals its directive made at once
/// when it collects, and a warning when its words match too much to review one by one.
pub(super) fn outcome(verb: &str, c: &TopicChanged) -> String {
    let mut said = format!("{verb} “{}”.", c.topic.name);
    if c.topic.collecting {
        said.push_str(&format!(" {} proposal(s) in Review.", c.proposed));
    }
    if let Some(n) = c.too_broad {
        said.push_str(&format!(
            " Its words match {n} documents, too many to review one by one: narrow them."
        ));
    }
    said
}

#[component]
pub(super) fn CreateForm(t: Topics) -> impl IntoView {
    let fields = Fields::empty();
    let collecting = RwSignal::new(false);
    let create = Action::new_local(|request: &CreateTopicRequest| {
        let request = request.clone();
        async move { api::topic_create(request).await.map_err(|e| e.message) }
    });
    Effect::new(move |_| {
        if let Some(reply) = create.value().get() {
            match reply {
                Ok(c) => {
                    let said = outcome("Created", &c);
                    t.selected.set(Some(c.topic.topic_id));
                    t.creating.set(false);
                    t.changed(Ok(said));
                }
                Err(e) => t.note.set(Some(Err(e))),
            }
        }
    });
    let submit = move || {
        let request = CreateTopicRequest {
            name: fields.name.get_untracked(),
            description: fields.description.get_untracked(),
            rules: fields.rules(Default::default()),
            collecting: collecting.get_untracked(),
        };
        create.dispatch_local(request);
    };
    let busy = create.pending();
    view! {
        <div class="card topic-form" id="topic-form">
            <h3>"New topic"</h3>
            {fields_view(fields, "topic")}
            <div class="filters">
                <label class="check">
                    <input
                        type="checkbox"
                        id="topic-collecting"
                        prop:checked=move || collecting.get()
                        on:change=move |ev| collecting.set(event_target_checked(&ev))
                    />
                    "Collect new matches for review"
                </label>
                <button
                    class="primary"
                    id="topic-create"
                    disabled=move || busy.get() || !fields.ready()
                    on:click=move |_| submit()
                >
                    "Create"
                </button>
            </div>
        </div>
    }
}
