//! The living-memory card: the person's stable facts (Tier 3), in brief order, with the changes
//! to them sent through one action.

use elnor_types::{EditFactRequest, LivingFactRow, LivingFacts};
use leptos::prelude::*;

use crate::api;
use crate::components::Loaded;

/// Tier 3: the person's facts and preferences, in the order the brief takes them.
/// A change to the living-memory facts.
#[derive(Debug, Clone)]
pub(super) enum FactChange {
    Add(String),
    Edit(EditFactRequest),
    Remove(i64),
}

/// The living-memory card's action: its value is the last change's error, if it failed.
pub(super) type FactAction = Action<FactChange, Result<(), String>>;

/// Sends a change to the facts; the last error goes as the next change starts.
pub(super) fn send_fact(action: FactAction, change: FactChange) {
    action.clear();
    action.dispatch_local(change);
}

#[component]
pub(super) fn LivingMemoryCard() -> impl IntoView {
    // Bumped after every change, so the list shows the engine's order and counts.
    let generation = RwSignal::new(0u32);
    let facts = LocalResource::new(move || {
        generation.track();
        api::living_facts_list()
    });
    let new_fact = RwSignal::new(String::new());
    // Adding, editing, moving and removing facts share one action: one error line under the
    // card, and every success reloads the list in the engine's order.
    let change: FactAction = Action::new_local(move |change: &FactChange| {
        let change = change.clone();
        async move {
            match change {
                FactChange::Add(text) => {
                    api::living_facts_add(text).await.map_err(|e| e.message)?;
                    new_fact.set(String::new());
                }
                FactChange::Edit(request) => {
                    api::living_facts_edit(request)
                        .await
                        .map_err(|e| e.message)?;
                }
                FactChange::Remove(id) => {
                    api::living_facts_remove(id).await.map_err(|e| e.message)?;
                }
            }
            generation.update(|g| *g += 1);
            Ok(())
        }
    });
    let error = move || change.value().get().and_then(Result::err);
    let add = move |_| send_fact(change, FactChange::Add(new_fact.get_untracked()));
    view! {
        <div class="card" id="living-memory">
            <h3>"Living memory"</h3>
            <p class="hint">
                "Your stable facts and preferences. Every brief ends with them (Tier 3), in this "
                "order; Tier 3 has 100 tokens, so facts that do not fit after the ones above them "
                "are left out. The Inspector shows which."
            </p>
            <Loaded resource=facts loading="Reading living memory…" let:f>
                {fact_list(f, change)}
            </Loaded>
            <div class="inline-form">
                <input
                    id="fact-new"
                    type="text"
                    placeholder="e.g. I prefer British spelling."
                    prop:value=move || new_fact.get()
                    on:input=move |ev| new_fact.set(event_target_value(&ev))
                />
                <button class="small" id="fact-add" on:click=add>
                    "Add fact"
                </button>
            </div>
            {move || error().map(|e| view! { <div class="error" id="facts-error" role="alert">{e}</div> })}
        </div>
    }
}

pub(super) fn fact_list(facts: LivingFacts, change: FactAction) -> AnyView {
    if facts.facts.is_empty() {
        return view! {
            <p class="hint" id="facts-empty">
                "No facts yet: Tier 3 is empty. Add what every agent should know about you, such as "
                "how you like answers or which tools you use."
            </p>
        }
        .into_any();
    }
    let used: u32 = facts.facts.iter().map(|f| f.tokens).sum();
    let cap = facts.tier3_cap;
    let last = facts.facts.len() as i64;
    view! {
        <p class="meta" id="facts-total">
            {format!("{used} tokens in all; Tier 3 has {cap}.")}
            {(used > cap).then_some(" The last facts do not fit and are left out of briefs.")}
        </p>
        <ol class="facts-list" id="facts-list">
            {facts
                .facts
                .into_iter()
                .map(|f| fact_item(f, last, change))
                .collect_view()}
        </ol>
    }
    .into_any()
}

pub(super) fn fact_item(f: LivingFactRow, last: i64, change: FactAction) -> impl IntoView {
    let id = f.fact_id;
    let text = RwSignal::new(f.text.clone());
    let edit = move |text: Option<String>, position: Option<i64>| {
        let request = EditFactRequest {
            fact_id: id,
            text,
            position,
        };
        send_fact(change, FactChange::Edit(request));
    };
    let remove = move |_| send_fact(change, FactChange::Remove(id));
    let position = f.position;
    view! {
        <li class="fact" data-fact-id=id>
            <input
                class="fact-text"
                type="text"
                prop:value=move || text.get()
                on:input=move |ev| text.set(event_target_value(&ev))
            />
            <span class="meta fact-tokens">{format!("{} tokens", f.tokens)}</span>
            <button class="small fact-save" on:click=move |_| edit(Some(text.get_untracked()), None)>
                "Save"
            </button>
            <button
                class="small fact-up"
                title="Move up: earlier facts are kept first when Tier 3 is full"
                prop:disabled={position <= 1}
                on:click=move |_| edit(None, Some(position - 1))
            >
                "↑"
            </button>
            <button
                class="small fact-down"
                title="Move down"
                prop:disabled={position >= last}
                on:click=move |_| edit(None, Some(position + 1))
            >
                "↓"
            </button>
            <button class="small fact-remove" on:click=remove>
                "Remove"
            </button>
        </li>
    }
}
