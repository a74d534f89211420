//! One head on the Heads page: its title, a meter of its size against its cap, and its sections
//! of lines, each line followed by chips for what it cites.
//!
//! A chip opens where the line came from: a session summary (`ss_…`) or a continuity entry
//! (`ce_…`) opens its node of the lineage DAG on the Lineage page ([`Nav::open_lineage_of`]),
//! from which the turns behind it open in the transcript, and a durable node (`ob_…`, `md_…`)
//! opens the node on the Knowledge page ([`Nav::open_node`]).

use elnor_types::{HeadSection, LineageRequest};
use leptos::prelude::*;

use super::thousands;
use crate::components::short_id;
use crate::nav::{Nav, use_nav};

#[component]
pub(super) fn HeadCard(
    title: String,
    sections: Vec<HeadSection>,
    tokens: u32,
    cap: u32,
    file: String,
    work_context_id: Option<String>,
) -> impl IntoView {
    let lines: usize = sections.iter().map(|s| s.lines.len()).sum();
    let sections = sections
        .into_iter()
        .map(|s| {
            let lines = s
                .lines
                .into_iter()
                .map(|l| {
                    let chips = l
                        .citations
                        .into_iter()
                        .map(
                            |c| view! { <CiteChip id=c work_context_id=work_context_id.clone() /> },
                        )
                        .collect_view();
                    view! {
                        <li class="head-line" data-source=l.source>
                            <span class="head-line-text">{l.text}</span>
                            " "
                            <span class="head-cites">{chips}</span>
                        </li>
                    }
                })
                .collect_view();
            view! {
                <section class="head-section" data-kind=s.kind>
                    <h4>{s.heading}</h4>
                    <ul class="head-lines">{lines}</ul>
                </section>
            }
        })
        .collect_view();
    let over = tokens > cap;
    let scope = work_context_id
        .clone()
        .unwrap_or_else(|| "global".to_owned());
    view! {
        <section class="card head" id="head" data-lines=lines data-scope=scope>
            <h3 id="head-title">{title}</h3>
            <div class="head-meter" id="head-meter" title=format!("Written to {file}")>
                <progress max=cap value=tokens.min(cap)></progress>
                <span class:over=over>
                    {format!("{} of {} tokens", thousands(u64::from(tokens)), thousands(u64::from(cap)))}
                </span>
            </div>
            {(lines == 0).then(|| view! { <p class="hint">"Nothing to say yet: no active work context has anything captured."</p> })}
            {sections}
        </section>
    }
}

/// What opening a citation does, by the kind of id it is.
enum Target {
    /// Its node in the lineage DAG.
    Lineage(LineageRequest),
    /// A durable node on the Knowledge page.
    Node(String),
    /// An id the page cannot open; shown, not linked.
    None,
}

fn target(id: &str, work_context_id: Option<String>) -> Target {
    if id.starts_with("ss_") {
        Target::Lineage(LineageRequest::Summary {
            summary_id: id.to_owned(),
        })
    } else if id.starts_with("ce_") {
        // Naming the thread's context saves the engine reading every log to find the entry; on
        // the global head the context is not known here, and the engine looks.
        Target::Lineage(LineageRequest::Entry {
            entry_id: id.to_owned(),
            work_context_id,
        })
    } else if id.starts_with("ob_") || id.starts_with("md_") {
        Target::Node(id.to_owned())
    } else {
        Target::None
    }
}

fn open(nav: Nav, target: Target) {
    match target {
        Target::Node(id) => nav.open_node(id),
        // The Lineage page says so itself when a source has no node.
        Target::Lineage(request) => nav.open_lineage_of(request),
        Target::None => {}
    }
}

/// One citation: the id's start (the whole of it on hover), a link where it can be opened.
#[component]
pub(super) fn CiteChip(id: String, work_context_id: Option<String>) -> impl IntoView {
    let nav = use_nav();
    let label = short_id(&id);
    let kind = match target(&id, None) {
        Target::Lineage(_) => "lineage",
        Target::Node(_) => "node",
        Target::None => "plain",
    };
    let title = match kind {
        "lineage" => format!("{id}: open its lineage, down to the turns it came from"),
        "node" => format!("{id}: open it in Knowledge"),
        _ => id.clone(),
    };
    let link = (kind != "plain").then(|| {
        let id = id.clone();
        view! {
            <a
                href="#"
                class="cite-chip"
                data-cite=id.clone()
                data-opens=kind
                title=title.clone()
                on:click=move |ev| {
                    ev.prevent_default();
                    open(nav, target(&id, work_context_id.clone()));
                }
            >
                {label.clone()}
            </a>
        }
    });
    view! {
        {link}
        {(kind == "plain").then(|| view! { <span class="cite-chip plain" data-cite=id.clone() title=title.clone()>{label.clone()}</span> })}
    }
}
