//! Work contexts, in two panes: on the left the list, grouped under Projects, Named and Automatic
//! and most recently active first, with a filter box that hides rows in place so hundreds of
//! contexts stay fast; on the right the selected context: its name, flag, link rules and entities
//! (as chips, picked by name), then its constellation view, then the rest of its continuity log.
//! A "New work context" button in the header opens the dialog that creates a named context with
//! its link rules. Below the panes, every entity of the graph, with forms to add, rename and merge
//! them.
//!
//! The constellation view (CSA §4) is where the work stands as the brief sees it (phase, session
//! history, open questions, decisions, updates, what the view left out) and the Tier 1 card a
//! fresh session in this context would get now. The log below it shows only what the view does
//! not (session summaries, resolved entries), so nothing is read twice.
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
use list::{NewContextDialog, context_rows};

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
    // With nothing asked for, the most recently active context opens: the page answers "where
    // was I" without a click.
    Effect::new(move |_| {
        if selected.get_untracked().is_some() {
            return;
        }
        if let Some(Ok(rows)) = contexts.get() {
            let newest = rows
                .iter()
                .max_by(|a, b| a.last_active_at.cmp(&b.last_active_at));
            if let Some(wc) = newest.filter(|wc| wc.last_active_at.is_some()) {
                selected.set(Some(wc.work_context_id.clone()));
            }
        }
    });
    let creating = RwSignal::new(false);
    // What the last creation made, said under the header once its dialog has closed.
    let created = RwSignal::new(None::<String>);
    view! {
        <div class="page-head">
            <h2>"Work contexts"</h2>
            {move || created.get().map(|c| view! { <span class="saved" id="wc-created">{c}</span> })}
            <div class="page-actions">
                <button
                    id="wc-new"
                    class="primary"
                    on:click=move |_| {
                        created.set(None);
                        creating.set(true);
                    }
                >
                    "New work context"
                </button>
            </div>
        </div>
        <Show when=move || creating.get()>
            <NewContextDialog open=creating generation selected created />
        </Show>
        <div class="contexts-layout">
            <div class="context-list">
                <input
                    id="context-filter"
                    class="context-filter"
                    type="search"
                    placeholder="Filter by name or folder  ( / )"
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
                            <p class="hint">"Pick a work context to see where its work stands."</p>
                        }
                            .into_any()
                    }
                }}
            </div>
        </div>
        <EntitiesCard generation />
    }
}
