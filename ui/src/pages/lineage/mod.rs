//! Lineage: one node of the lineage DAG (a session summary, a harness's compaction summary, a
//! condensation of older summaries, approved knowledge) with everything around it, so a person
//! can walk from anything ELNOR said back down to the turns it came from.
//!
//! The page is a drill-down target, not a sidebar view: a brief line in the Inspector and an entry
//! of a work context open it ("Open lineage"), and so can anything that knows a node id
//! (`Nav::open_lineage_node`). The route names the node or what sits in it; one `lineage_node`
//! read resolves it and answers the node ([`node`]), the nodes above, below and beside it
//! ([`around`], each a link to that node), the entries and brief lines it stands behind
//! ([`memory`]) and, for a node over raw turns, those turns with the way into the full transcript
//! ([`turns`]). The sentences the parts share (kinds, times, coverage) are in [`words`].

mod around;
mod memory;
mod node;
mod turns;
mod words;

use elnor_types::{LineageNodeDetail, LineageRequest};
use leptos::prelude::*;

use self::around::Around;
use self::memory::Memory;
use self::node::NodeCard;
use self::turns::Turns;
use crate::api;
use crate::components::Loaded;
use crate::nav::use_nav;

#[component]
pub fn LineagePage() -> impl IntoView {
    let nav = use_nav();
    // The target is taken once, as every page takes its own: walking to another node goes
    // through the route again and mounts the page afresh.
    let Some(source) = nav.take_lineage_node() else {
        return view! {
            <div class="page-head">
                <h2>"Lineage"</h2>
            </div>
            <p class="hint" id="lineage-none">
                "Open the lineage of a brief line from the Inspector, or of an entry from its work "
                "context, to see where it came from."
            </p>
        }
        .into_any();
    };
    let asked = source.clone();
    let detail = LocalResource::new(move || api::lineage_node(asked.clone(), None));
    view! {
        <div class="page-head">
            <h2>"Lineage"</h2>
        </div>
        <p class="hint">
            "Where this came from: the summary it sits in, what covers that summary and what it "
            "covers, down to the turns of the session."
        </p>
        <p class="meta" id="lineage-asked">{asked_for(&source)}</p>
        <Loaded resource=detail loading="Reading the lineage…" let:d>
            <LineageView detail=d />
        </Loaded>
    }
    .into_any()
}

/// What the link asked for, in words, so a resolved node is never mistaken for the thing itself.
fn asked_for(source: &LineageRequest) -> String {
    match source {
        LineageRequest::TraceLine {
            assembly_id,
            ordinal,
        } => format!("Opened from line {ordinal} of brief #{assembly_id}."),
        LineageRequest::Entry { entry_id, .. } => format!("Opened from entry {entry_id}."),
        LineageRequest::Summary { summary_id } => format!("Opened from summary {summary_id}."),
        LineageRequest::Turn { session_id, seq } => {
            format!("Opened from turn {seq} of session {session_id}.")
        }
        LineageRequest::Node { node_id } => format!("Node {node_id}."),
    }
}

#[component]
fn LineageView(detail: LineageNodeDetail) -> impl IntoView {
    let LineageNodeDetail {
        node,
        parents,
        children,
        siblings,
        entries,
        brief_lines,
        turns,
    } = detail;
    let node_id = node.node_id.clone();
    let page_node = node_id.clone();
    let kind = node.kind;
    let children_count = children.len();
    view! {
        <div class="lineage-layout" id="lineage-page" data-node-id=page_node>
            <NodeCard node covers=children_count />
            <Around parents children siblings />
            <Memory entries brief_lines />
            <Turns node_id kind turns />
        </div>
    }
}
