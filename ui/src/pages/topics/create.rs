//! The "New topic" dialog, opened by the button in the page's header: a name, a description, the
//! words every member must hold, the kinds of document it takes in, a time window (`fields.rs`),
//! and whether its collection directive proposes new matches into Review. On creation the dialog
//! closes, the new Topic is selected and the page's note says what the creation did; a refusal
//! (a name another Topic has, say) stays in the dialog with what the person typed.

use elnor_types::{CreateTopicRequest, TopicChanged};
use leptos::prelude::*;

use super::Topics;
use super::fields::{Fields, fields_view};
use crate::api;
use crate::components::Modal;

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
pub(super) fn NewTopicDialog(t: Topics) -> impl IntoView {
    let fields = Fields::empty();
    let collecting = RwSignal::new(false);
    let close = move || t.creating.set(false);
    // The creation on its way: its refusal stays in the dialog, its success closes it.
    let create = Action::new_local(move |request: &CreateTopicRequest| {
        let request = request.clone();
        async move {
            let c = api::topic_create(request).await.map_err(|e| e.message)?;
            let said = outcome("Created", &c);
            t.selected.set(Some(c.topic.topic_id));
            t.creating.set(false);
            t.changed(Ok(said));
            Ok::<_, String>(())
        }
    });
    let error = move || create.value().get().and_then(Result::err);
    let busy = create.pending();
    let submit = move || {
        if busy.get_untracked() || !fields.ready() {
            return;
        }
        let request = CreateTopicRequest {
            name: fields.name.get_untracked(),
            description: fields.description.get_untracked(),
            rules: fields.rules(Default::default()),
            collecting: collecting.get_untracked(),
        };
        create.clear();
        create.dispatch_local(request);
    };
    // The name takes the keyboard as the dialog opens.
    Effect::new(move |_| {
        if let Some(input) = document().get_element_by_id("topic-name") {
            use wasm_bindgen::JsCast;
            if let Ok(input) = input.dyn_into::<web_sys::HtmlElement>() {
                let _ = input.focus();
            }
        }
    });
    view! {
        <Modal
            open=t.creating
            id="topic-form"
            label="New topic"
            class="topic-form topic-dialog"
            on_key=move |ev: web_sys::KeyboardEvent| {
                if ev.key() == "Enter" && (ev.ctrl_key() || ev.meta_key()) {
                    submit();
                }
            }
        >
                <h3>"New topic"</h3>
                {fields_view(fields, "topic")}
                <label class="check">
                    <input
                        type="checkbox"
                        id="topic-collecting"
                        prop:checked=move || collecting.get()
                        on:change=move |ev| collecting.set(event_target_checked(&ev))
                    />
                    "Collect new matches for review"
                </label>
                <p class="hint">
                    "With collection on, new work its words match is proposed into Review after "
                    "every ingest."
                </p>
                {move || error().map(|e| view! { <div class="error" id="topic-create-error" role="alert">{e}</div> })}
                <div class="dialog-buttons">
                    <button class="small" id="topic-new-cancel" on:click=move |_| close()>
                        "Close"
                    </button>
                    <button
                        class="primary"
                        id="topic-create"
                        disabled=move || busy.get() || !fields.ready()
                        on:click=move |_| submit()
                    >
                        "Create"
                    </button>
                </div>
        </Modal>
    }
}
