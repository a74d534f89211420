//! The search box: Ctrl+K (⌘K on a Mac) opens it over any page. Enter searches and lists the
//! first hits; the arrow keys move between them and "See all results", Enter opens the one
//! marked (a turn in its transcript, an entry in its work context, or the Search page with the
//! query), and Escape closes the box. The hits are the Search page's, with its defaults. The
//! marked hit shows the Search page's "Pin to Topic…" choice, which Tab reaches from the words.

use std::collections::HashMap;

use elnor_types::{SearchQueryRequest, SearchResults};
use leptos::prelude::*;

use crate::api;
use crate::nav::use_nav;
use crate::pages::search::hit::{self, TRUST_BANNER};
use crate::pages::search::pin::PinToTopic;

/// Hits the box lists; the rest are a "See all results" away.
const BOX_RESULTS: u32 = 8;

/// Whether a key press is the search shortcut, Ctrl+K or ⌘K. `code` names the physical key, so
/// the shortcut works on any keyboard layout; `key` is the fallback for an event without a code.
/// Shift and Alt must be up: Ctrl+Shift+K is not this shortcut.
pub fn is_search_shortcut(ev: &web_sys::KeyboardEvent) -> bool {
    (ev.ctrl_key() || ev.meta_key())
        && !ev.shift_key()
        && !ev.alt_key()
        && (ev.code() == "KeyK" || ev.key().eq_ignore_ascii_case("k"))
}

/// The search box over the current page. Esc, the Close button or a click beside it closes it.
#[component]
pub fn SearchDialog(open: RwSignal<bool>) -> impl IntoView {
    let nav = use_nav();
    let query = RwSignal::new(String::new());
    // The marked line: a hit's index, or the number of hits for "See all results".
    let marked = RwSignal::new(0usize);
    let search = Action::new_local(move |request: &SearchQueryRequest| {
        let request = request.clone();
        async move {
            let reply = api::search_query(request.clone()).await;
            marked.set(0);
            reply.map(|r| (request.query, r)).map_err(|e| e.message)
        }
    });
    let contexts = LocalResource::new(api::work_contexts_list);
    // Read once per opening of the box: the Topics a hit can be pinned into.
    let topics = LocalResource::new(api::topics_list);
    let names = move || -> HashMap<String, String> {
        contexts
            .get()
            .and_then(Result::ok)
            .unwrap_or_default()
            .into_iter()
            .map(|wc| (wc.work_context_id, wc.name))
            .collect()
    };
    let keys = window_event_listener(leptos::ev::keydown, move |ev| {
        if ev.key() == "Escape" {
            ev.prevent_default();
            open.set(false);
        }
    });
    on_cleanup(move || keys.remove());
    let input = NodeRef::<leptos::html::Input>::new();
    Effect::new(move |_| {
        if let Some(el) = input.get() {
            let _ = el.focus();
        }
    });
    // The results shown now, for the query they answer.
    let shown = move || -> Option<(String, SearchResults)> { search.value().get()?.ok() };
    let see_all = move || {
        let q = query.get_untracked().trim().to_owned();
        open.set(false);
        nav.open_search(q);
    };
    let activate = move |i: usize| {
        let Some((_, r)) = shown() else { return };
        match r.hits.get(i) {
            Some(h) => {
                if let Some(t) = hit::target(h) {
                    open.set(false);
                    hit::open(nav, t);
                }
            }
            None => see_all(),
        }
    };
    let on_key = move |ev: web_sys::KeyboardEvent| {
        let lines = shown().map(|(_, r)| r.hits.len() + 1).unwrap_or(0);
        match ev.key().as_str() {
            "Enter" => {
                ev.prevent_default();
                let q = query.get_untracked().trim().to_owned();
                if q.is_empty() {
                    return;
                }
                // Enter on the words just searched opens the marked line; on new words, searches.
                match shown() {
                    Some((asked, _)) if asked == q && !search.pending().get_untracked() => {
                        activate(marked.get_untracked());
                    }
                    _ => {
                        search.dispatch_local(hit::request(q, BOX_RESULTS));
                    }
                }
            }
            "ArrowDown" if lines > 0 => {
                ev.prevent_default();
                marked.update(|m| *m = (*m + 1).min(lines - 1));
            }
            "ArrowUp" if lines > 0 => {
                ev.prevent_default();
                marked.update(|m| *m = m.saturating_sub(1));
            }
            _ => {}
        }
    };
    let results = move || {
        search.value().get().map(|reply| match reply {
            Err(e) => view! { <div class="error" id="search-box-error" role="alert">{e}</div> }.into_any(),
            Ok((_, r)) => {
                let n = r.hits.len();
                let names = names();
                let fallback = r.fallback_reason.clone().map(|reason| {
                    view! { <p class="meta" id="search-box-fallback">{format!("Words only: {reason}")}</p> }
                });
                let rows = r
                    .hits
                    .into_iter()
                    .enumerate()
                    .map(|(i, h)| {
                        let label = hit::kind_label(&h);
                        let from = hit::attribution(&h, &names);
                        let doc_id = h.doc_id.clone();
                        view! {
                            <li
                                class="search-box-hit"
                                class:marked=move || marked.get() == i
                                data-kind=h.kind.as_str()
                                data-turn-id=h.turn_id.clone()
                                on:click=move |_| activate(i)
                                on:mouseenter=move |_| marked.set(i)
                            >
                                <span class="meta">{format!("{label} · {from}")}</span>
                                <span class="excerpt">{h.excerpt.clone()}</span>
                                // Shown on the marked hit only (style.css), so Tab from the words
                                // reaches the marked hit's Topic choice next. A click on it must
                                // not also open the hit, which a click on the row does.
                                <span class="search-box-pin" on:click=|ev| ev.stop_propagation()>
                                    <PinToTopic doc_id topics />
                                </span>
                            </li>
                        }
                    })
                    .collect_view();
                view! {
                    <p class="trust-banner small" id="search-box-trust">{TRUST_BANNER}</p>
                    {fallback}
                    {(n == 0).then(|| view! {
                        <p class="hint" id="search-box-empty">"Nothing found in the last 30 days."</p>
                    })}
                    <ul class="search-box-hits" id="search-box-hits">
                        {rows}
                        <li
                            class="search-box-hit see-all"
                            id="search-box-all"
                            class:marked=move || marked.get() == n
                            on:click=move |_| see_all()
                            on:mouseenter=move |_| marked.set(n)
                        >
                            "See all results"
                        </li>
                    </ul>
                }
                .into_any()
            }
        })
    };
    view! {
        <div
            class="dialog-backdrop"
            on:click=move |ev| {
                // Only a click on the backdrop itself: clicks inside the dialog bubble up here too.
                if ev.target() == ev.current_target() {
                    open.set(false);
                }
            }
        >
            <div class="dialog card search-box" id="search-dialog" role="dialog" aria-modal="true" aria-label="Search">
                <input
                    id="search-box-query"
                    type="search"
                    placeholder="Search everything said and written…"
                    node_ref=input
                    prop:value=move || query.get()
                    on:input=move |ev| query.set(event_target_value(&ev))
                    on:keydown=on_key
                />
                {move || search.pending().get().then(|| view! { <p class="hint">"Searching…"</p> })}
                {results}
                <div class="dialog-buttons">
                    <span class="hint">"Enter searches, then opens; ↑ ↓ choose; Tab reaches Pin to Topic; Esc closes."</span>
                    <button class="small" id="search-box-close" on:click=move |_| open.set(false)>
                        "Close"
                    </button>
                </div>
            </div>
        </div>
    }
}
