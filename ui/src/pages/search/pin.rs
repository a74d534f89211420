//! "Pin to Topic…" on a search hit: a select of the existing Topics that pins the hit's document
//! into the one chosen (`topic_member_pin`), then says "Pinned to <Topic>" beside it, or the
//! engine's refusal. A pinned member stays in the Topic's lens under Pinned whatever its rules
//! match. The Ctrl+K box (`crate::search_box`) shows it on the hit it marks.

use elnor_types::{CommandError, TopicListRow};
use leptos::prelude::*;

use crate::api;

/// The Topics a hit can be pinned into, read once per page.
pub(crate) type TopicChoices = LocalResource<Result<Vec<TopicListRow>, CommandError>>;

/// The select's value while no Topic is chosen: its "Pin to Topic…" line.
const NONE: &str = "";

#[component]
pub(crate) fn PinToTopic(doc_id: String, topics: TopicChoices) -> impl IntoView {
    // The Topic chosen, shown while the pin is under way; back to none once it replies, so the
    // select reads "Pin to Topic…" again and the same hit can go into a second Topic.
    let choice = RwSignal::new(NONE.to_owned());
    let pin = Action::new_local(move |(topic_id, name): &(String, String)| {
        let (topic_id, name, doc_id) = (topic_id.clone(), name.clone(), doc_id.clone());
        async move {
            let reply = api::topic_member_pin(topic_id, doc_id).await;
            choice.set(NONE.to_owned());
            reply.map(|_| name).map_err(|e| e.message)
        }
    });
    let busy = pin.pending();
    let rows = move || topics.get().and_then(Result::ok).unwrap_or_default();
    let chosen = move |topic_id: String| {
        if topic_id == NONE {
            return;
        }
        choice.set(topic_id.clone());
        let name = rows()
            .into_iter()
            .find(|r| r.topic.topic_id == topic_id)
            .map(|r| r.topic.name)
            .unwrap_or_else(|| topic_id.clone());
        pin.dispatch_local((topic_id, name));
    };
    let options = move || {
        rows()
            .into_iter()
            .map(|r| {
                let id = r.topic.topic_id;
                let on = id.clone();
                view! {
                    <option value=id prop:selected=move || choice.with(|c| *c == on)>
                        {r.topic.name}
                    </option>
                }
            })
            .collect_view()
    };
    // Without a Topic there is nothing to pin into; the select says where to make one.
    let none = move || rows().is_empty();
    let said = move || {
        pin.value().get().map(|reply| match reply {
            Ok(name) => view! {
                <span class="saved-mark hit-pinned">{format!("Pinned to {name}")}</span>
            }
            .into_any(),
            Err(e) => {
                view! { <span class="error hit-pin-error" role="alert">{e}</span> }.into_any()
            }
        })
    };
    view! {
        <span class="hit-pin">
            <select
                class="hit-pin-topic"
                aria-label="Pin to Topic"
                title="Pin this hit's document into a Topic"
                disabled=move || busy.get() || none()
                on:change=move |ev| chosen(event_target_value(&ev))
            >
                <option value=NONE prop:selected=move || choice.with(|c| c == NONE)>
                    {move || if none() { "No Topics to pin to" } else { "Pin to Topic…" }}
                </option>
                {options}
            </select>
            {said}
        </span>
    }
}
