//! The Search page's form: the words, the strategy, the kinds, the time window and the work
//! context, and whether to ask the synthesis model for an answer. Enter in the words, or the
//! button, runs it.

use elnor_types::{CommandError, SearchKind, SearchStrategy, WorkContextRow};
use leptos::prelude::*;

use super::Choices;
use super::hit::{WINDOWS, kind_filter_label};
use crate::components::Loaded;

#[component]
pub(super) fn SearchForm(
    choices: Choices,
    contexts: LocalResource<Result<Vec<WorkContextRow>, CommandError>>,
    busy: Memo<bool>,
    run: impl Fn() + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let box_ref = NodeRef::<leptos::html::Input>::new();
    // The cursor starts in the words, as in the search box.
    Effect::new(move |_| {
        if let Some(el) = box_ref.get() {
            let _ = el.focus();
        }
    });
    view! {
        <div class="filters search-form">
            <input
                id="search-query"
                type="search"
                placeholder="What are you looking for? (words, names, paths)"
                node_ref=box_ref
                prop:value=move || choices.query.get()
                on:input=move |ev| choices.query.set(event_target_value(&ev))
                on:keydown=move |ev| {
                    if ev.key() == "Enter" {
                        ev.prevent_default();
                        run();
                    }
                }
            />
            <button
                class="primary"
                id="search-submit"
                disabled=move || busy.get() || choices.query.with(|q| q.trim().is_empty())
                on:click=move |_| run()
            >
                "Search"
            </button>
        </div>
        <div class="filters">
            <select
                id="search-strategy"
                title="How to look: by the words, by meaning (embeddings), or both fused"
                on:change=move |ev| {
                    let name = event_target_value(&ev);
                    if let Some(s) = SearchStrategy::ALL.iter().find(|s| s.as_str() == name) {
                        choices.strategy.set(*s);
                    }
                }
                prop:value=move || choices.strategy.get().as_str()
            >
                {SearchStrategy::ALL
                    .iter()
                    .map(|s| view! { <option value=s.as_str()>{s.label()}</option> })
                    .collect_view()}
            </select>
            <select
                id="search-hours"
                on:change=move |ev| {
                    if let Ok(h) = event_target_value(&ev).parse() {
                        choices.hours.set(h);
                    }
                }
                prop:value=move || choices.hours.get().to_string()
            >
                {WINDOWS
                    .iter()
                    .map(|(h, label)| view! { <option value=h.to_string()>{*label}</option> })
                    .collect_view()}
            </select>
            <Loaded resource=contexts loading="Loading work contexts…" inline=true let:list>
                {view! {
                    <select
                        id="search-context"
                        on:change=move |ev| choices.context.set(event_target_value(&ev))
                        prop:value=move || choices.context.get()
                    >
                        <option value="">"All work contexts"</option>
                        {list
                            .into_iter()
                            .map(|wc| {
                                view! {
                                    <option value=wc.work_context_id.clone()>{wc.name.clone()}</option>
                                }
                            })
                            .collect_view()}
                    </select>
                }}
            </Loaded>
        </div>
        <div class="chips" id="search-kinds" role="group" aria-label="Kinds">
            {SearchKind::ALL
                .iter()
                .map(|&kind| {
                    let name = kind.as_str();
                    view! {
                        <label class="chip" class:on=move || choices.kinds.with(|k| k.contains(&kind))>
                            <input
                                type="checkbox"
                                id=format!("search-kind-{name}")
                                prop:checked=move || choices.kinds.with(|k| k.contains(&kind))
                                on:change=move |ev| {
                                    let on = event_target_checked(&ev);
                                    choices
                                        .kinds
                                        .update(|k| {
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
            <label
                class="chip"
                class:on=move || choices.synthesis.get()
                title="The configured synthesis model answers from the hits, citing them (Settings names the model)"
            >
                <input
                    type="checkbox"
                    id="search-synthesis"
                    prop:checked=move || choices.synthesis.get()
                    on:change=move |ev| choices.synthesis.set(event_target_checked(&ev))
                />
                "Ask for an answer"
            </label>
        </div>
    }
}
