//! The "New topic" form: a name, a description, the words every member must hold, the kinds of
//! document it takes in, a time window, and whether its collection directive proposes new matches
//! into Review.

use std::collections::BTreeSet;

use elnor_types::{CreateTopicRequest, SearchKind, TopicRulesRow};
use leptos::prelude::*;

use super::Topics;
use crate::api;
use crate::pages::search::hit::{WINDOWS, kind_filter_label};

#[component]
pub(super) fn CreateForm(t: Topics) -> impl IntoView {
    let name = RwSignal::new(String::new());
    let description = RwSignal::new(String::new());
    let query = RwSignal::new(String::new());
    let kinds = RwSignal::new(SearchKind::ALL.iter().copied().collect::<BTreeSet<_>>());
    // All time: a Topic is about a subject, not a period, unless the person says so.
    let hours = RwSignal::new(0u32);
    let collecting = RwSignal::new(false);
    let create = Action::new_local(|request: &CreateTopicRequest| {
        let request = request.clone();
        async move { api::topic_create(request).await.map_err(|e| e.message) }
    });
    Effect::new(move |_| {
        if let Some(reply) = create.value().get() {
            match reply {
                Ok(c) => {
                    let mut said = format!("Created “{}”.", c.topic.name);
                    if c.topic.collecting {
                        said.push_str(&format!(" {} proposal(s) in Review.", c.proposed));
                    }
                    if let Some(n) = c.too_broad {
                        said.push_str(&format!(
                            " Its words match {n} documents, too many to review one by one: \
                             narrow them."
                        ));
                    }
                    t.selected.set(Some(c.topic.topic_id));
                    t.creating.set(false);
                    t.changed(Ok(said));
                }
                Err(e) => t.note.set(Some(Err(e))),
            }
        }
    });
    let submit = move || {
        let chosen = kinds.get_untracked();
        let request = CreateTopicRequest {
            name: name.get_untracked(),
            description: description.get_untracked(),
            rules: TopicRulesRow {
                query: query.get_untracked(),
                // Every kind ticked is the same as none named, and takes in kinds added later.
                kinds: if chosen.len() == SearchKind::ALL.len() {
                    Vec::new()
                } else {
                    chosen.into_iter().collect()
                },
                hours: hours.get_untracked(),
                ..Default::default()
            },
            collecting: collecting.get_untracked(),
        };
        create.dispatch_local(request);
    };
    let busy = create.pending();
    let text = move |id: &'static str,
                     label: &'static str,
                     hint: &'static str,
                     value: RwSignal<String>| {
        view! {
            <div class="field">
                <label class="field-label" for=id>{label}</label>
                <div>
                    <input
                        type="text"
                        id=id
                        prop:value=move || value.get()
                        on:input=move |ev| value.set(event_target_value(&ev))
                    />
                    <p class="hint">{hint}</p>
                </div>
            </div>
        }
    };
    view! {
        <div class="card topic-form" id="topic-form">
            <h3>"New topic"</h3>
            {text("topic-name", "Name", "Unique, such as “Ledger sync”.", name)}
            {text("topic-description", "Description", "What the Topic is about, for you.", description)}
            {text("topic-query", "Words", "A document is a member when it holds every one of these words.", query)}
            <div class="chips" id="topic-kinds" role="group" aria-label="Kinds">
                {SearchKind::ALL
                    .iter()
                    .map(|&kind| {
                        view! {
                            <label class="chip" class:on=move || kinds.with(|k| k.contains(&kind))>
                                <input
                                    type="checkbox"
                                    id=format!("topic-kind-{}", kind.as_str())
                                    prop:checked=move || kinds.with(|k| k.contains(&kind))
                                    on:change=move |ev| {
                                        let on = event_target_checked(&ev);
                                        kinds.update(|k| {
                                            if on {
                                                k.insert(kind);
                                            } else {
                                                k.remove(&kind);
                                            }
                                        });
                                    }
                                />
                                {kind_filter_label(kind)}
                            </label>
                        }
                    })
                    .collect_view()}
            </div>
            <div class="filters">
                <select
                    id="topic-hours"
                    on:change=move |ev| {
                        if let Ok(h) = event_target_value(&ev).parse() {
                            hours.set(h);
                        }
                    }
                >
                    {WINDOWS
                        .iter()
                        .map(|&(h, label)| {
                            view! { <option value=h.to_string() prop:selected=move || hours.get() == h>{label}</option> }
                        })
                        .collect_view()}
                </select>
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
                    disabled=move || busy.get() || name.with(|n| n.trim().is_empty()) || kinds.with(BTreeSet::is_empty)
                    on:click=move |_| submit()
                >
                    "Create"
                </button>
            </div>
        </div>
    }
}
