//! Search: everything said and written (transcript turns, continuity entries, session
//! summaries), by words, by meaning, or both fused. The form narrows by kind, time window and
//! work context; the results carry a low-trust banner, say so when the strategy asked for could
//! not run (no embeddings yet) and how far the embeddings reach. The hits are a compact list
//! beside the selected hit's detail (`results.rs`, `detail.rs`): its whole excerpt, where it came
//! from, why it ranked where it did, and "Open": a turn opens in its transcript at that turn, an
//! entry or a summary in its work context, a document in the Library. The detail's "Pin to
//! Topic…" pins its document into one of the Topics (`pin.rs`). "Ask for an answer" adds the
//! synthesis model's answer over the hits above them, marked low trust, with its citations
//! linked to the hits they cite (`answer.rs`).
//!
//! The Ctrl+K search box (`crate::search_box`) shows the first hits over any page, and its "See
//! all results" comes here with the query, which runs as the page opens.

mod answer;
mod detail;
mod form;
pub(crate) mod hit;
pub(crate) mod pin;
mod results;

use std::collections::BTreeSet;

use elnor_types::{SearchKind, SearchQueryRequest, SearchStrategy};
use leptos::prelude::*;

use crate::api;
use crate::nav::use_nav;
use form::SearchForm;
use results::results_view;

/// Hits the page asks for: the engine's most.
const PAGE_RESULTS: u32 = 20;

/// The form's choices, shared by the form and the page that runs them.
#[derive(Debug, Clone, Copy)]
struct Choices {
    query: RwSignal<String>,
    strategy: RwSignal<SearchStrategy>,
    kinds: RwSignal<BTreeSet<SearchKind>>,
    hours: RwSignal<u32>,
    context: RwSignal<String>,
    /// Whether to ask the synthesis model for an answer over the hits.
    synthesis: RwSignal<bool>,
}

impl Choices {
    /// The request the choices make, or `None` when there is nothing to search for (no words,
    /// or no kind ticked: an empty list would mean every kind).
    fn request(self) -> Option<SearchQueryRequest> {
        let query = self.query.get_untracked().trim().to_owned();
        let kinds = self.kinds.get_untracked();
        if query.is_empty() || kinds.is_empty() {
            return None;
        }
        let mut request = hit::request(query, PAGE_RESULTS);
        request.strategy = self.strategy.get_untracked();
        // Every kind ticked is the same as none named, and lets the engine add kinds later.
        request.kinds = if kinds.len() == SearchKind::ALL.len() {
            Vec::new()
        } else {
            kinds.into_iter().collect()
        };
        request.hours = self.hours.get_untracked();
        request.work_context_id = Some(self.context.get_untracked()).filter(|c| !c.is_empty());
        request.synthesis = self.synthesis.get_untracked();
        Some(request)
    }
}

#[component]
pub fn SearchPage() -> impl IntoView {
    let nav = use_nav();
    // The search box's "See all results" names a query; it is taken once, like other targets.
    let initial = nav.take_query();
    let choices = Choices {
        query: RwSignal::new(initial.clone().unwrap_or_default()),
        strategy: RwSignal::new(SearchStrategy::Hybrid),
        kinds: RwSignal::new(SearchKind::ALL.iter().copied().collect()),
        hours: RwSignal::new(hit::DEFAULT_HOURS),
        context: RwSignal::new(String::new()),
        synthesis: RwSignal::new(false),
    };
    let contexts = LocalResource::new(api::work_contexts_list);
    // Read once: the Topics a hit can be pinned into change on the Topics page, not here.
    let topics = LocalResource::new(api::topics_list);
    let search = Action::new_local(|request: &SearchQueryRequest| {
        let request = request.clone();
        async move {
            let hours = request.hours;
            api::search_query(request)
                .await
                .map(|r| (r, hours))
                .map_err(|e| e.message)
        }
    });
    // Read again after each search: the search brings the index up to date first, so the count of
    // documents read before it may be behind.
    let coverage = LocalResource::new(move || {
        search.version().track();
        api::embeddings_get()
    });
    let run = move || {
        if let Some(request) = choices.request() {
            search.dispatch_local(request);
        }
    };
    if initial.is_some() {
        run();
    }
    let busy = search.pending();
    view! {
        <h2>"Search"</h2>
        <p class="hint">
            "Everything your agents and you said and wrote: transcript turns, the continuity "
            "entries captured from them, and session summaries. Ctrl+K searches from any page."
        </p>
        <SearchForm choices contexts busy run />
        {move || busy.get().then(|| view! { <p class="hint" id="search-busy">"Searching…"</p> })}
        {move || {
            search
                .value()
                .get()
                .map(|reply| match reply {
                    Ok((r, hours)) => results_view(r, hours, contexts, coverage, topics, nav).into_any(),
                    Err(e) => view! { <div class="error" id="search-error" role="alert">{e}</div> }.into_any(),
                })
        }}
    }
}
