//! The Search page's results: the low-trust banner, the fallback notice with how far the
//! embeddings reach, and the hits, each with its attribution, excerpt, "why this rank" and
//! "Pin to Topic…"; above the hits, the model's answer when one was asked for (`answer.rs`).

use std::collections::HashMap;

use elnor_types::{CommandError, EmbedCoverage, SearchResults, WorkContextRow};
use leptos::prelude::*;

use super::answer::{answer_view, hit_element_id};
use super::hit::{self, TRUST_BANNER};
use super::pin::{PinToTopic, TopicChoices};
use crate::nav::Nav;

type Contexts = LocalResource<Result<Vec<WorkContextRow>, CommandError>>;
type Coverage = LocalResource<Result<EmbedCoverage, CommandError>>;

/// The work contexts' names by id, once the list is read (ids stand in until then).
fn context_names(contexts: Contexts) -> HashMap<String, String> {
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
            r.fallback_reason.clone().unwrap_or_default()
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
    let answer = answer_view(&r, cited);
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
    let hits = r
        .hits
        .into_iter()
        .enumerate()
        .map(|(i, h)| {
            let target = hit::target(&h);
            let kind = h.kind.as_str();
            let label = hit::kind_label(&h);
            let why = hit::why_line(&h.why);
            let relevance = format!("{:.0}%", h.relevance_score * 100.0);
            let excerpt = h.excerpt.clone();
            let row = h.clone();
            let doc_id = h.doc_id.clone();
            let is_cited = {
                let doc_id = h.doc_id.clone();
                move || cited.with(|c| c.as_deref() == Some(doc_id.as_str()))
            };
            let where_from = move || hit::attribution(&row, &context_names(contexts));
            let body = match target {
                Some(t) => view! {
                    <a
                        href="#"
                        class="hit-open excerpt"
                        on:click=move |ev| {
                            ev.prevent_default();
                            hit::open(nav, t.clone());
                        }
                    >
                        {excerpt}
                    </a>
                }
                .into_any(),
                None => view! { <p class="excerpt">{excerpt}</p> }.into_any(),
            };
            view! {
                <li
                    class="search-hit"
                    id=hit_element_id(i)
                    class:cited=is_cited
                    data-kind=kind
                    data-session-id=h.session_id.clone()
                    data-turn-id=h.turn_id.clone()
                    data-doc-id=h.doc_id.clone()
                >
                    <div class="hit-head">
                        <span class=format!("badge hit-kind-{kind}")>{label}</span>
                        <span class="meta hit-where">{where_from}</span>
                        <span class="meta" title="relevance, relative to the best hit">{relevance}</span>
                        <PinToTopic doc_id topics />
                    </div>
                    {body}
                    <details class="search-why">
                        <summary>"Why this rank"</summary>
                        <p class="why-line">{why}</p>
                    </details>
                </li>
            }
        })
        .collect_view();
    view! {
        <div class="trust-banner" id="search-trust" role="note" data-trust=r.trust_banner>
            {TRUST_BANNER}
        </div>
        {fallback}
        {partial}
        {answer}
        <p class="meta" id="search-summary">{summary}</p>
        <ol class="search-hits" id="search-hits">{hits}</ol>
    }
}
