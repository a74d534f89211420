//! Knowledge: the durable nodes (obligations and memory directives) that approved proposals wrote,
//! with their lifecycle state, staleness and use warrant (concept model §4.2–4.5). The list,
//! filtered to live nodes or all of them and by kind, sits beside the selected node: its warrant
//! and why, due date, work context, where it came from (the continuity entry, the sessions, the
//! review proposal, the node it replaced) and its whole history.
//!
//! The person's changes happen here: correct the text, confirm it still holds, move it on the
//! warrant ladder with a reason, retire it with a reason, or supersede it by a new node. Each
//! reply carries the node's new history, and the engine has already rebuilt the views that show
//! it, so the next brief (Home's preview) reflects the change. Retired and superseded nodes stay
//! readable but cannot be changed; the engine refuses, and its message is shown.
//!
//! Warrants are told apart by colour as well as by name: `assert` plain, the hedged rungs amber,
//! the rungs that keep a node out of briefs muted; retired and superseded rows are muted too.

mod change;
mod list;
mod node;
mod state;

use elnor_types::NodeRow;
use leptos::prelude::*;

use crate::api;
use crate::components::Loaded;
use list::NodeList;
use state::{Form, Knowledge};

#[component]
pub fn KnowledgePage() -> impl IntoView {
    let k = Knowledge::new();
    // A link from Review names the node to open; it is taken once, like the Inspector's target.
    if let Some(id) = k.nav.take_node() {
        k.open(id);
    }
    // Each change's reply, once: the value changes only when a reply lands.
    Effect::new(move |_| {
        if let Some(changed) = k.change.value().get() {
            k.answered(changed);
        }
    });
    let list = LocalResource::new(move || {
        k.generation.track();
        api::knowledge_list(k.show_all.get())
    });
    // The open node lives here, not in the pane: the pane is rebuilt whenever the list reloads,
    // and a resource of its own would fetch again each time, replacing what the person is looking
    // at (or acting on) with a newer reading they did not ask for.
    let detail = LocalResource::new(move || {
        k.generation.track();
        let id = k.selected.get();
        async move {
            match id {
                Some(id) => api::knowledge_get(id).await.map(Some),
                None => Ok(None),
            }
        }
    });
    // Keeps a valid selection: the chosen node while the filters show it, else the first shown.
    Effect::new(move |_| {
        let Some(Ok(l)) = list.get() else {
            return;
        };
        let kind = k.kind.get();
        let shown: Vec<&NodeRow> = l
            .nodes
            .iter()
            .filter(|n| kind.is_none_or(|x| n.kind == x))
            .collect();
        let current = k.selected.get_untracked();
        if !current
            .as_deref()
            .is_some_and(|id| shown.iter().any(|n| n.node_id == id))
        {
            k.form.set(Form::None);
            k.selected.set(shown.first().map(|n| n.node_id.clone()));
        }
    });
    view! {
        <h2>"Knowledge"</h2>
        <p class="hint">
            "The obligations and memory directives you approved in Review. Each carries a use "
            "warrant that decides how briefs state it; the nightly job moves it down the ladder "
            "when its sources decay or are contradicted, and only you move it back up."
        </p>
        {move || {
            k.note
                .get()
                .map(|n| match n {
                    Ok(text) => view! { <p class="saved" id="knowledge-note">{text}</p> }.into_any(),
                    Err(e) => view! { <div class="error" id="knowledge-note" role="alert">{e}</div> }.into_any(),
                })
        }}
        <Loaded resource=list loading="Reading the graph…" let:l>
            <NodeList list=l detail k />
        </Loaded>
    }
}
