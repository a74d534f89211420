//! What the node stands behind: the continuity entries linked to it (those its capture wrote, or
//! the entry approved knowledge was promoted from) and the brief lines that cited it or one of
//! those entries, each opening its brief in the Inspector.

use elnor_types::{CitingLineRow, LineageEntryRow};
use leptos::prelude::*;

use super::words::when;
use crate::nav::use_nav;

#[component]
pub(super) fn Memory(
    entries: Vec<LineageEntryRow>,
    brief_lines: Vec<CitingLineRow>,
) -> impl IntoView {
    let entry_count = entries.len();
    let line_count = brief_lines.len();
    view! {
        <div class="card lineage-memory" id="lineage-memory">
            <h3>{format!("Entries it wrote ({entry_count})")}</h3>
            {if entries.is_empty() {
                view! {
                    <p class="hint" id="lineage-entries-none">
                        "No continuity entry links this node."
                    </p>
                }
                    .into_any()
            } else {
                view! {
                    <ul class="entries" id="lineage-entries">
                        {entries.into_iter().map(entry).collect_view()}
                    </ul>
                }
                    .into_any()
            }}
            <h3>{format!("Brief lines that cited it ({line_count})")}</h3>
            {if brief_lines.is_empty() {
                view! {
                    <p class="hint" id="lineage-lines-none">
                        "No recorded brief has cited it or its entries yet."
                    </p>
                }
                    .into_any()
            } else {
                view! {
                    <ul class="entries" id="lineage-lines">
                        {brief_lines.into_iter().map(line).collect_view()}
                    </ul>
                }
                    .into_any()
            }}
        </div>
    }
}

/// An entry's type as the work context page names its groups.
fn entry_type_words(t: &str) -> String {
    match t {
        "session_summary_ref" => "session summary".to_owned(),
        "open_question" => "open question".to_owned(),
        "key_decision" => "key decision".to_owned(),
        "cross_conversation_update" => "cross-conversation update".to_owned(),
        "work_phase_change" => "work phase change".to_owned(),
        other => other.replace('_', " "),
    }
}

fn entry(e: LineageEntryRow) -> impl IntoView {
    view! {
        <li class="entry" data-entry-id=e.entry_id.clone() data-entry-type=e.entry_type.clone()>
            <span class="badge">{entry_type_words(&e.entry_type)}</span>
            " "
            <span class="headline">{e.text.clone()}</span>
            <span class="meta">{when(&e.captured_at)}</span>
        </li>
    }
}

fn line(l: CitingLineRow) -> impl IntoView {
    let nav = use_nav();
    let assembly = l.assembly_id;
    view! {
        <li
            class=format!("entry decision-{}", l.decision)
            data-assembly-id=l.assembly_id
            data-ordinal=l.ordinal
            data-decision=l.decision.clone()
        >
            <span class="headline">{l.text.clone()}</span>
            <span class="meta">
                <span class=format!("decision decision-{}", l.decision)>{l.decision.clone()}</span>
                {format!(" · {} · ", when(&l.assembled_at))}
                <a
                    href="#"
                    class="lineage-brief-link"
                    on:click=move |ev| {
                        ev.prevent_default();
                        nav.open_assembly(assembly);
                    }
                >
                    {format!("brief #{} line {}", l.assembly_id, l.ordinal)}
                </a>
            </span>
        </li>
    }
}
