//! The selected search hit in full, beside the list: its kind and relevance, the whole excerpt,
//! where it came from (harness, work context, session and turn, entry, document, node,
//! observation, time: whatever the hit carries), why it ranked where it did, "Pin to Topic…",
//! and "Open", which goes where a click on a hit used to: the transcript scrolled to the turn,
//! the work context, the document, the node, the observation.

use elnor_types::{SearchHitRow, SearchKind};
use leptos::prelude::*;

use super::hit::{self, Target};
use super::pin::{PinToTopic, TopicChoices};
use super::results::{Contexts, context_names};
use crate::components::{harness_name, short_id, short_time};
use crate::nav::Nav;

/// What "Open" says it opens, so the button is never vague.
fn open_label(t: &Target) -> &'static str {
    match t {
        Target::Turn { .. } => "Open the turn",
        Target::Session(_) => "Open the session",
        Target::WorkContext(_) => "Open the work context",
        Target::Observation(_) => "Open on the Timeline",
        Target::Node(_) => "Open in Knowledge",
        Target::Document(_) => "Open the document",
    }
}

/// The hit's heading: a document's or observed file's title when it has one, else its kind
/// ("User turn", "Open question").
fn heading(h: &SearchHitRow) -> String {
    match (&h.title, h.kind) {
        (Some(title), SearchKind::Document | SearchKind::Observation) if !title.is_empty() => {
            title.clone()
        }
        _ => {
            let label = hit::kind_label(h);
            let mut chars = label.chars();
            chars
                .next()
                .map(|c| c.to_uppercase().chain(chars).collect())
                .unwrap_or(label)
        }
    }
}

/// The attribution as label and value pairs, as far as the hit says. Ids are shown short (their
/// whole text on hover); a work context is named once the list of names is read. The values wrap
/// rather than being cut: the detail is where the hit is read in full.
fn facts(h: &SearchHitRow, contexts: Contexts) -> Vec<(&'static str, String, Option<String>)> {
    let mut out = Vec::new();
    if let Some(harness) = &h.harness {
        out.push(("Harness", harness_name(harness).to_owned(), None));
    }
    if let Some(name) = h
        .work_context_id
        .as_ref()
        .and_then(|wc| context_names(contexts).remove(wc))
    {
        out.push(("Work context", name, None));
    }
    if let Some(session) = &h.session_id {
        out.push(("Session", short_id(session), Some(session.clone())));
    }
    if h.kind == SearchKind::Turn {
        let role = h.role.clone().unwrap_or_else(|| "turn".to_owned());
        let at = match h.position {
            Some(p) => format!("{role}, row {} of the transcript", p + 1),
            None => role,
        };
        out.push(("Turn", at, h.record.clone()));
    }
    if let Some(kind) = &h.entry_type {
        out.push(("Entry", kind.replace('_', " "), h.entry_id.clone()));
    }
    if let Some(path) = &h.path {
        out.push(("Document", path.clone(), Some(path.clone())));
    }
    if let Some(node) = &h.node_id {
        let kind = h
            .node_kind
            .as_deref()
            .map(|k| k.replace('_', " "))
            .unwrap_or_else(|| "durable node".to_owned());
        out.push((
            "Node",
            format!("{kind} {}", short_id(node)),
            Some(node.clone()),
        ));
    }
    if let Some(id) = h.observation_id {
        out.push(("Observation", format!("number {id}"), None));
    }
    out.push((
        "When",
        h.at.as_deref()
            .map(short_time)
            .unwrap_or_else(|| "unknown".to_owned()),
        h.at.clone(),
    ));
    out
}

#[component]
pub(super) fn HitDetail(
    hit: SearchHitRow,
    contexts: Contexts,
    topics: TopicChoices,
    nav: Nav,
) -> impl IntoView {
    let target = hit::target(&hit);
    let kind = hit.kind.as_str();
    let relevance = format!("{:.0}% relevance", hit.relevance_score * 100.0);
    let why = hit::why_line(&hit.why);
    let title = heading(&hit);
    let row = hit.clone();
    let facts = move || {
        facts(&row, contexts)
            .into_iter()
            .map(|(label, value, full)| {
                let full = full.unwrap_or_else(|| value.clone());
                view! {
                    <dt>{label}</dt>
                    <dd title=full>{value}</dd>
                }
            })
            .collect_view()
    };
    let open = match target {
        Some(t) => {
            let label = open_label(&t);
            view! {
                <button class="primary" id="search-open" on:click=move |_| hit::open(nav, t.clone())>
                    {label}
                </button>
            }
            .into_any()
        }
        None => view! { <span class="hint" id="search-open-none">"This hit names nothing to open."</span> }
            .into_any(),
    };
    view! {
        <div
            class="card search-detail"
            id="search-detail"
            data-kind=kind
            data-doc-id=hit.doc_id.clone()
            data-turn-id=hit.turn_id.clone()
        >
            <div class="detail-head">
                <h3 class="search-detail-title">{title}</h3>
                <span class="meta">{relevance}</span>
            </div>
            <div class="search-detail-actions">
                {open}
                <PinToTopic doc_id=hit.doc_id.clone() topics />
            </div>
            <p class="snippet search-detail-excerpt" id="search-detail-excerpt">{hit.excerpt.clone()}</p>
            <dl class="facts search-detail-facts" id="search-detail-where">{facts}</dl>
            <div class="search-why" id="search-detail-why">
                <h4>"Why this rank"</h4>
                <p class="why-line">{why}</p>
            </div>
        </div>
    }
}
