//! The model's answer over a search's hits (CSA §7.5), shown above them when "Ask for an answer"
//! was ticked: marked low trust, since it is a model's reading of the hits, with each citation a
//! link that scrolls to the hit it cites, highlights it and shows its detail. Citations of
//! results the model was not given were dropped by the engine, and are said here with their
//! count; so are the hits of local-only work contexts that were withheld from a model off this
//! machine. When no answer came, the reason is shown in its place, never nothing.

use std::collections::HashMap;

use elnor_types::SearchResults;
use leptos::prelude::*;

/// The element id of the hit at `index` in the results list, which a citation scrolls to.
pub(super) fn hit_element_id(index: usize) -> String {
    format!("search-hit-{index}")
}

/// The answer box, or the reason there is none; nothing when no answer was asked for.
/// `cited` is the doc id of the hit a citation last pointed at, which the list highlights; the
/// citation also selects that hit (`selected`, its index), so its detail opens beside the list.
pub(super) fn answer_view(
    r: &SearchResults,
    cited: RwSignal<Option<String>>,
    selected: RwSignal<Option<usize>>,
) -> Option<AnyView> {
    if let Some(why) = &r.synthesis_fallback {
        return Some(
            view! {
                <div class="notice" id="search-answer-fallback" role="note">
                    {format!("No answer from the model: {why}")}
                </div>
            }
            .into_any(),
        );
    }
    let s = r.synthesis.clone()?;
    let index: HashMap<String, usize> = r
        .hits
        .iter()
        .enumerate()
        .map(|(i, h)| (h.doc_id.clone(), i))
        .collect();
    // An answer that cites nothing is still shown, but says so: there is nothing to check it by.
    let cites_nothing = s.citations.is_empty().then(|| {
        view! { <p class="meta" id="search-answer-uncited">"It cites none of the results."</p> }
    });
    let citations = s
        .citations
        .into_iter()
        .map(|c| {
            let at = index.get(&c.doc_id).copied();
            let label = match at {
                Some(i) => format!("Result {}", i + 1),
                None => c.doc_id.clone(),
            };
            let doc = c.doc_id.clone();
            view! {
                <li>
                    <a
                        href="#"
                        class="answer-cite"
                        data-doc-id=c.doc_id.clone()
                        on:click=move |ev| {
                            ev.prevent_default();
                            cited.set(Some(doc.clone()));
                            if at.is_some() {
                                selected.set(at);
                            }
                            let el = at
                                .and_then(|i| document().get_element_by_id(&hit_element_id(i)));
                            if let Some(el) = el {
                                el.scroll_into_view();
                            }
                        }
                    >
                        {label}
                    </a>
                    {(!c.snippet.is_empty()).then(|| format!(": “{}”", c.snippet))}
                </li>
            }
        })
        .collect_view();
    let dropped = (!s.dropped.is_empty()).then(|| {
        view! {
            <p class="meta" id="search-answer-dropped" title=s.dropped.join(", ")>
                {format!(
                    "The model cited {} result(s) it was not given; they were dropped.",
                    s.dropped.len(),
                )}
            </p>
        }
    });
    let withheld = (s.withheld > 0).then(|| {
        view! {
            <p class="meta" id="search-answer-withheld">
                {format!(
                    "{} result(s) from local-only work contexts were not sent to the model.",
                    s.withheld,
                )}
            </p>
        }
    });
    Some(
        view! {
            <div class="search-answer" id="search-answer" data-trust="low_trust" role="note">
                <p class="trust-banner small">
                    "A model's answer over these results — check its sources."
                </p>
                <p class="answer-text" id="search-answer-text">{s.answer}</p>
                {cites_nothing}
                <ol class="answer-citations" id="search-answer-citations">{citations}</ol>
                {dropped}
                {withheld}
            </div>
        }
        .into_any(),
    )
}
