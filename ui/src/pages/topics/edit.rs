//! A Topic's Edit form: its name, description and rules' words, kinds and time window, filled in
//! from the Topic and saved through `topic_edit`. The reply's note says what the edit did: with
//! the collection directive on, changed rules may propose new matches into Review at once.
//!
//! The form sends its own request rather than the page's change action: a refusal (a name
//! another Topic has, say) leaves the form open with what the person typed, where a change's
//! reply reads the Topic again and would redraw the pane.

use elnor_types::{EditTopicRequest, TopicRow};
use leptos::prelude::*;

use super::Topics;
use super::create::outcome;
use super::fields::{Fields, fields_view};
use crate::api;

#[component]
pub(super) fn EditForm(topic: TopicRow, editing: RwSignal<bool>, t: Topics) -> impl IntoView {
    let fields = Fields::of(&topic);
    let save = Action::new_local(|request: &EditTopicRequest| {
        let request = request.clone();
        async move { api::topic_edit(request).await.map_err(|e| e.message) }
    });
    Effect::new(move |_| {
        if let Some(reply) = save.value().get() {
            match reply {
                Ok(c) => {
                    editing.set(false);
                    t.changed(Ok(outcome("Saved", &c)));
                }
                Err(e) => t.note.set(Some(Err(e))),
            }
        }
    });
    let id = topic.topic_id.clone();
    let base = topic.rules.clone();
    let submit = move || {
        let request = EditTopicRequest {
            topic_id: id.clone(),
            name: Some(fields.name.get_untracked()),
            description: Some(fields.description.get_untracked()),
            rules: Some(fields.rules(base.clone())),
            // The directive has its own switch in the pane; the form leaves it as it is.
            collecting: None,
        };
        save.dispatch_local(request);
    };
    let busy = save.pending();
    view! {
        <div class="topic-form topic-edit" id="topic-edit-form">
            {fields_view(fields, "topic-edit")}
            <div class="filters">
                <button
                    class="primary"
                    id="topic-edit-save"
                    disabled=move || busy.get() || !fields.ready()
                    on:click=move |_| submit()
                >
                    "Save"
                </button>
                <button id="topic-edit-cancel" disabled=move || busy.get() on:click=move |_| editing.set(false)>
                    "Cancel"
                </button>
            </div>
        </div>
    }
}
