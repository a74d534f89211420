//! The node card: what the node says and everything ELNOR knows about it, in words — its kind and
//! level, its work context and agent, the session and turns it covers, when, how it was made, how
//! sure its coverage is, and how much it condenses.

use elnor_types::LineageNodeInfo;
use leptos::prelude::*;

use super::words::{agent_words, count, coverage_words, kind_attr, kind_words, method_words, when};
use crate::components::{context_link, copy_id, session_link};

#[component]
pub(super) fn NodeCard(
    node: LineageNodeInfo,
    /// How many nodes it covers, for a condensation's kind.
    covers: usize,
) -> impl IntoView {
    let kind = kind_words(node.kind, node.level, covers);
    let (coverage, coverage_said) = coverage_words(node.confidence);
    let context_name = node
        .work_context_name
        .clone()
        .unwrap_or_else(|| node.work_context_id.clone());
    let window = node.session_id.clone().map(|session| {
        let turns = match (node.after_seq, node.through_seq) {
            (Some(after), Some(through)) => format!("turns {} to {through}", after + 1),
            (None, Some(through)) => format!("its turns up to turn {through}"),
            _ => "its turns".to_owned(),
        };
        view! {
            <dt>"Session"</dt>
            <dd id="lineage-node-session">
                {session_link(session.clone(), node.through_seq)}
                {format!(" · {turns}")}
            </dd>
        }
    });
    let span = match (node.earliest_at.as_deref(), node.latest_at.as_deref()) {
        (Some(first), Some(last)) if first != last => {
            format!("from {} to {}", when(first), when(last))
        }
        (_, Some(last)) => when(last),
        (Some(first), None) => when(first),
        (None, None) => "no time recorded".to_owned(),
    };
    let condensed = if node.covered_tokens > 0 {
        format!(
            "{} of text standing for {} of what it covers{}",
            count(node.tokens, "token"),
            count(node.covered_tokens, "token"),
            if node.trivial {
                " (its children were already terse, so it could not be shorter)"
            } else {
                ""
            }
        )
    } else {
        count(node.tokens, "token")
    };
    view! {
        <div
            class="card lineage-node"
            id="lineage-node"
            data-node-id=node.node_id.clone()
            data-kind=kind_attr(node.kind)
            data-level=node.level
            data-coverage=coverage
        >
            <h3 id="lineage-node-kind">{kind}</h3>
            <p class="lineage-node-text" id="lineage-node-text">{node.text.clone()}</p>
            <dl class="facts lineage-facts">
                <dt>"Work context"</dt>
                <dd id="lineage-node-context">
                    {context_link(node.work_context_id.clone(), context_name)}
                </dd>
                <dt>"Agent"</dt>
                <dd id="lineage-node-agent">{agent_words(&node.agent_scope)}</dd>
                {window}
                <dt>"When"</dt>
                <dd id="lineage-node-when">{span}</dd>
                <dt>"Covers"</dt>
                <dd id="lineage-node-covers">
                    {format!("{} in all", count(node.turn_count, "raw turn"))}
                </dd>
                <dt>"Made"</dt>
                <dd id="lineage-node-method">
                    {method_words(&node.method, node.model.as_deref())}
                </dd>
                <dt>"Coverage"</dt>
                <dd id="lineage-node-coverage">{coverage_said}</dd>
                <dt>"Size"</dt>
                <dd id="lineage-node-size">{condensed}</dd>
                <dt>"Id"</dt>
                <dd>{copy_id(node.node_id.clone())}</dd>
            </dl>
        </div>
    }
}
