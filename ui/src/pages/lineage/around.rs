//! The nodes around the one shown: its parents (what covers it), its children (what it covers)
//! and its siblings (its parents' other children, or its neighbours in its thread), each a row
//! that opens that node on the Lineage page, so the DAG can be walked up, down and across.

use elnor_types::LineageNodeRow;
use leptos::prelude::*;

use super::words::{kind_attr, kind_short, when};
use crate::nav::use_nav;

#[component]
pub(super) fn Around(
    parents: Vec<LineageNodeRow>,
    children: Vec<LineageNodeRow>,
    siblings: Vec<LineageNodeRow>,
) -> impl IntoView {
    view! {
        <div class="card lineage-around" id="lineage-around">
            <h3>"Around it"</h3>
            {group(
                "Covered by",
                "lineage-parents",
                "Nothing covers it yet: it is among its thread's most recent summaries, which are kept as they are.",
                parents,
            )}
            {group(
                "Covers",
                "lineage-children",
                "It covers no other summary: it stands directly over the turns of a session.",
                children,
            )}
            {group("Beside it", "lineage-siblings", "Nothing beside it in its thread.", siblings)}
        </div>
    }
}

fn group(
    title: &'static str,
    id: &'static str,
    none: &'static str,
    rows: Vec<LineageNodeRow>,
) -> AnyView {
    let count = rows.len();
    view! {
        <h4>{format!("{title} ({count})")}</h4>
        {if rows.is_empty() {
            view! { <p class="hint" id=format!("{id}-none")>{none}</p> }.into_any()
        } else {
            view! { <ul class="lineage-rows" id=id>{rows.into_iter().map(row).collect_view()}</ul> }
                .into_any()
        }}
    }
    .into_any()
}

fn row(n: LineageNodeRow) -> impl IntoView {
    let nav = use_nav();
    let target = n.node_id.clone();
    let level = (n.level > 0).then(|| format!(" · level {}", n.level));
    view! {
        <li data-node-id=n.node_id.clone() data-kind=kind_attr(n.kind)>
            <button
                class="lineage-row"
                data-key-item=""
                title=format!("Open {} in Lineage", n.node_id)
                on:click=move |_| nav.open_lineage_node(target.clone())
            >
                <span class="lineage-row-kind">{kind_short(n.kind)} {level}</span>
                <span class="lineage-row-text">{n.first_line.clone()}</span>
                <span class="meta">{n.latest_at.as_deref().map(when)}</span>
            </button>
        </li>
    }
}
