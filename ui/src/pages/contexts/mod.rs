//! Work contexts: the list (most recently active first, with a filter box that hides rows in
//! place so hundreds of contexts stay fast; name, origin, local-only, sessions, last activity,
//! rules), a form that creates a
//! named context with its link rules, and the selected context's rules, entities and continuity
//! log, grouped by what the entries say: current phase, open questions, key decisions, session
//! summaries and cross-conversation updates. Below them, every entity of the graph, with a form
//! to add one by hand.
//!
//! Between the context and its log sits its constellation view (CSA §4): where the work stands as
//! the brief sees it (phase, session history, open questions, decisions, updates, what the view
//! left out) and the Tier 1 card a fresh session in this context would get now.
//!
//! Questions and decisions captured without the model came from the heuristic detectors; they
//! carry a "heuristic · reduced confidence" badge so nobody mistakes them for the model's reading.

mod constellation;
mod detail;
mod entities;
mod list;

use leptos::prelude::*;

use crate::api;
use crate::components::Loaded;
use crate::nav::use_nav;
use detail::ContextDetail;
use entities::EntitiesCard;
use list::{CreateContextCard, context_rows};

#[component]
pub fn ContextsPage() -> impl IntoView {
    // Bumped after every change so the list and the open context reload.
    let generation = RwSignal::new(0u32);
    // A link elsewhere (a Timeline item) may name the context to open; it is taken once, so coming
    // back later starts from the list.
    let nav = use_nav();
    let selected = RwSignal::new(nav.take_work_context());
    let contexts = LocalResource::new(move || {
        generation.track();
        api::work_contexts_list()
    });
    let filter = RwSignal::new(String::new());
    view! {
        <h2>"Work contexts"</h2>
        <CreateContextCard generation selected />
        <div class="contexts-layout">
            <div class="context-list">
                <input
                    id="context-filter"
                    class="context-filter"
                    type="search"
                    placeholder="Filter by name, folder or id"
                    prop:value=move || filter.get()
                    on:input=move |ev| filter.set(event_target_value(&ev))
                />
                <Loaded resource=contexts loading="Loading work contexts…" let:rows>
                    {context_rows(rows, selected, filter)}
                </Loaded>
            </div>
            <div class="context-view">
                {move || match selected.get() {
                    Some(id) => view! { <ContextDetail id generation /> }.into_any(),
                    None => {
                        view! {
                            <p class="hint">"Pick a work context to see its rules and its log."</p>
                        }
                            .into_any()
                    }
                }}
            </div>
        </div>
        <EntitiesCard generation />
    }
}
