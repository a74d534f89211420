//! The Search page's results: the low-trust banner, the fallback notice with how far the
//! embeddings reach, the model's answer when one was asked for (`answer.rs`), then two panes: on
//! the left the hits, compact (what, where, how relevant, one line of the excerpt), on the right
//! the selected hit in full (`detail.rs`). A click or `j`/`k` selects a hit; `Enter`, a double
//! click or the detail's "Open" button opens it where it lives. The best hit is selected first.

use std::collections::HashMap;

use elnor_types::{
    CommandError, EmbedCoverage, SearchHitRow, SearchResults, SearchStrategy, WorkContextRow,
};
use leptos::prelude::*;

use super::answer::{answer_view, hit_element_id};
use super::detail::HitDetail;
use super::hit::{self, TRUST_BANNER};
use super::pin::TopicChoices;
use crate::nav::Nav;

pub(super) type Contexts = LocalResource<Result<Vec<WorkContextRow>, CommandError>>;
type Coverage = LocalResource<Result<EmbedCoverage, CommandError>>;

/// The work contexts' names by id, once the list is read.
pub(super) fn context_names(contexts: Contexts) -> HashMap<String, String> {
    contexts
        .get()
        .and_then(Result::ok)
        .unwrap_or_default()
        .into_iter()
        .map(|wc| (wc.work_context_id, wc.name))
        .collect()
}

/// "n of m documents embedded", from the query when embeddings took part, else the vectors the
/// coverage read counts, out of the documents the query saw (its index was brought up to date
/// first, so its count is the one the person just searched).
fn coverage_line(r: &SearchResults, coverage: Coverage) -> Option<String> {
    let covered = match r.embedded {
        Some(embedded) => embedded,
        None => coverage.get()?.ok()?.covered,
    };
    Some(format!(
        "{} of {} documents embedded.",
        covered.min(r.documents),
        r.documents
    ))
}

/// The engine's reason with its strategies' wire names ("lexical_only") in words, as the form
/// names them.
fn readable_reason(reason: &str) -> String {
    SearchStrategy::ALL
        .iter()
        .fold(reason.to_owned(), |text, s| {
            text.replace(s.as_str(), s.label())
        })
}

pub(super) fn results_view(
    r: SearchResults,
    hours: u32,
    contexts: Contexts,
    coverage: Coverage,
    topics: TopicChoices,
    nav: Nav,
) -> impl IntoView {
    let fallback = r.fallback_mode.map(|mode| {
        let said = format!(
            "Ran {} instead of {}: {}",
            mode.label(),
            r.strategy.label(),
            readable_reason(r.fallback_reason.as_deref().unwrap_or_default())
        );
        let results = r.clone();
        view! {
            <div class="notice" id="search-fallback" data-mode=mode.as_str()>
                <p>{said}</p>
                <p class="meta" id="search-coverage">
                    {move || coverage_line(&results, coverage)}
                </p>
            </div>
        }
    });
    // A partial backfill is said even when the strategy ran: meaning reached only part of the
    // history.
    let partial = (r.fallback_mode.is_none())
        .then_some(r.embedded)
        .flatten()
        .filter(|e| *e < r.documents)
        .map(|e| {
            view! {
                <p class="meta" id="search-coverage">
                    {format!(
                        "{e} of {} documents embedded: meaning reaches only those so far (elnor embed adds the rest).",
                        r.documents,
                    )}
                </p>
            }
        });
    // The hit a citation of the answer last pointed at, highlighted in the list.
    let cited = RwSignal::new(None::<String>);
    // The hit shown in the detail pane, by its index: the best one until another is chosen.
    let selected = RwSignal::new((!r.hits.is_empty()).then_some(0usize));
    let answer = answer_view(&r, cited, selected);
    let n = r.hits.len();
    let summary = if n == 0 {
        let window = if hours == 0 {
            String::new()
        } else {
            " in this time window; All time searches everything".to_owned()
        };
        format!("Nothing found among {} documents{window}.", r.documents)
    } else {
        format!(
            "{n} result{} from {} documents, best first.",
            if n == 1 { "" } else { "s" },
            r.documents
        )
    };
    let panes = (n > 0).then(|| {
        let rows = r
            .hits
            .iter()
            .enumerate()
            .map(|(i, h)| hit_row(i, h.clone(), selected, cited, contexts, nav))
            .collect_view();
        let hits = r.hits.clone();
        let detail = move || {
            selected.get().and_then(|i| hits.get(i).cloned()).map(|h| {
                view! { <HitDetail hit=h contexts topics nav /> }
            })
        };
        view! {
            <div class="search-layout">
                <ol class="search-hits hit-list" id="search-hits">{rows}</ol>
                <div class="search-detail-pane">{detail}</div>
            </div>
        }
    });
    view! {
        <div class="trust-banner" id="search-trust" role="note" data-trust=r.trust_banner>
            {TRUST_BANNER}
        </div>
        {fallback}
        {partial}
        {answer}
        <p class="meta" id="search-summary">{summary}</p>
        {panes}
    }
}

/// One hit in the list: its kind, where it came from and its relevance on the first line, the
/// excerpt's start on the second (each cut with an ellipsis, in full on hover).
fn hit_row(
    i: usize,
    h: SearchHitRow,
    selected: RwSignal<Option<usize>>,
    cited: RwSignal<Option<String>>,
    contexts: Contexts,
    nav: Nav,
) -> impl IntoView {
    let target = hit::target(&h);
    let kind = h.kind.as_str();
    let label = hit::kind_label(&h);
    let relevance = format!("{:.0}%", h.relevance_score * 100.0);
    // One line: the excerpt's own line breaks would only be cut off.
    let line = h.excerpt.split_whitespace().collect::<Vec<_>>().join(" ");
    let is_cited = {
        let doc_id = h.doc_id.clone();
        move || cited.with(|c| c.as_deref() == Some(doc_id.as_str()))
    };
    let row = h.clone();
    let where_from = move || hit::attribution(&row, &context_names(contexts));
    // Stored, so the double click and the Enter key share the target by copy.
    let target = StoredValue::new(target);
    let open = move || {
        if let Some(t) = target.get_value() {
            hit::open(nav, t);
        }
    };
    view! {
        <li
            class="search-hit hit-row"
            id=hit_element_id(i)
            class:active=move || selected.get() == Some(i)
            class:cited=is_cited
            data-kind=kind
            data-session-id=h.session_id.clone()
            data-turn-id=h.turn_id.clone()
            data-doc-id=h.doc_id.clone()
            data-key-item=""
            tabindex="-1"
            on:click=move |_| selected.set(Some(i))
            // The keys' j and k move the focus; the detail follows it.
            on:focus=move |_| selected.set(Some(i))
            on:dblclick=move |_| open()
            // Enter opens rather than selects (the app-wide keys would click the row, which only
            // selects): handled on the row itself, which hears it before the window does (the UI
            // builds without event delegation, so handlers sit on their elements).
            on:keydown=move |ev| {
                if ev.key() == "Enter" && !ev.ctrl_key() && !ev.meta_key() && !ev.alt_key() {
                    ev.prevent_default();
                    ev.stop_propagation();
                    open();
                }
            }
        >
            <div class="hit-head">
                <span class=format!("badge hit-kind-{kind}") title=label.clone()>{label.clone()}</span>
                <span class="meta hit-where" title=where_from.clone()>{where_from.clone()}</span>
                <span class="meta hit-score" title="relevance, relative to the best hit">{relevance}</span>
            </div>
            <span class="excerpt" title=h.excerpt.clone()>{line}</span>
        </li>
    }
}
