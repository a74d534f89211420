//! The list of durable nodes with their kind and state badges.

use elnor_types::{CommandError, KnowledgeList, NodeDetail, NodeKind, NodeRow};
use leptos::prelude::*;

use super::node::NodePane;
use super::state::Knowledge;
use crate::components::short_time;
use crate::nav::{Page, Route};

/// The open node's reading, shared by the page and its pane.
pub(super) type Detail = LocalResource<Result<Option<NodeDetail>, CommandError>>;

#[component]
pub(super) fn NodeList(list: KnowledgeList, detail: Detail, k: Knowledge) -> impl IntoView {
    let retired = list.total - list.live;
    let counts = format!("{} live · {retired} retired or superseded", list.live);
    let toolbar = view! {
        <div class="review-toolbar" id="knowledge-toolbar">
            <span class="meta" id="knowledge-counts">{counts}</span>
            <label class="check" for="knowledge-kind">
                "Kind"
                <select
                    id="knowledge-kind"
                    on:change=move |ev| {
                        let v = event_target_value(&ev);
                        k.kind.set(NodeKind::ALL.iter().copied().find(|x| x.as_str() == v));
                    }
                >
                    // Each option says whether it is chosen: a value set on the select would be set
                    // before its options exist.
                    <option value="" prop:selected=move || k.kind.get().is_none()>"both kinds"</option>
                    {NodeKind::ALL
                        .iter()
                        .map(|&x| {
                            view! {
                                <option value=x.as_str() prop:selected=move || k.kind.get() == Some(x)>
                                    {format!("{}s", x.label())}
                                </option>
                            }
                        })
                        .collect_view()}
                </select>
            </label>
            <button
                class="small"
                id="knowledge-reload"
                title="read the graph again (the CLI or the nightly job may have changed it)"
                on:click=move |_| k.generation.update(|g| *g += 1)
            >
                "Reload"
            </button>
            <label class="check">
                <input
                    id="knowledge-show-all"
                    type="checkbox"
                    prop:checked=move || k.show_all.get()
                    on:change=move |ev| k.show_all.set(event_target_checked(&ev))
                />
                "Show retired and superseded too"
            </label>
        </div>
    };
    if list.total == 0 {
        return view! {
            {toolbar}
            <div class="card empty" id="knowledge-empty">
                <p>
                    <strong>"No durable knowledge yet."</strong>
                    " Nodes come from approving proposals in Review: an open question that stayed "
                    "unresolved near a deadline becomes an obligation, a decision stated in several "
                    "sessions becomes a memory directive. Nothing enters the graph until you approve it."
                </p>
                <button class="small" id="knowledge-open-review" on:click=move |_| k.nav.go(Route::of(Page::Review))>
                    "Open Review"
                </button>
            </div>
        }
        .into_any();
    }
    let nodes = StoredValue::new(list.nodes);
    let shown = move || {
        let kind = k.kind.get();
        nodes.with_value(|n| {
            n.iter()
                .filter(|n| kind.is_none_or(|x| n.kind == x))
                .cloned()
                .collect::<Vec<_>>()
        })
    };
    view! {
        {toolbar}
        <div class="review-layout knowledge-layout">
            <div>
                {move || {
                    let rows = shown();
                    if rows.is_empty() {
                        let what = match k.kind.get() {
                            Some(x) => format!("No live {}s.", x.label()),
                            None => "No live nodes.".to_owned(),
                        };
                        return view! {
                            <p class="hint" id="knowledge-none-shown">
                                {what}
                                " Retired and superseded ones are kept: tick “Show retired and superseded too”."
                            </p>
                        }
                        .into_any();
                    }
                    view! {
                        <ul class="proposal-list node-list" id="knowledge-list">
                            {rows.into_iter().map(|n| node_row(n, k)).collect_view()}
                        </ul>
                    }
                    .into_any()
                }}
            </div>
            <NodePane detail k />
        </div>
    }
    .into_any()
}

pub(super) fn kind_badge(kind: NodeKind) -> impl IntoView {
    view! { <span class=format!("badge kind-{}", kind.as_str())>{kind.label()}</span> }
}

pub(super) fn state_badges(n: &NodeRow) -> impl IntoView + use<> {
    let w = n.warrant;
    view! {
        <span class=format!("badge lifecycle lifecycle-{}", n.lifecycle.as_str()) title="lifecycle state">
            {n.lifecycle.label()}
        </span>
        <span class=format!("badge warrant warrant-{}", w.as_str()) title=format!("use warrant: {}", w.explanation())>
            {w.label()}
        </span>
        <span class=format!("badge staleness staleness-{}", n.staleness.as_str()) title="staleness">
            {n.staleness.label()}
        </span>
    }
}

pub(super) fn node_row(n: NodeRow, k: Knowledge) -> impl IntoView {
    let id = n.node_id.clone();
    let (selected_id, clicked) = (id.clone(), id.clone());
    let mut meta = Vec::new();
    if let Some(context) = n.work_context_name.clone().or(n.work_context_id.clone()) {
        meta.push(context);
    }
    if let Some(due) = &n.due_at {
        meta.push(format!("due {}", due.get(..10).unwrap_or(due)));
    }
    meta.push(format!("changed {}", short_time(&n.updated_at)));
    view! {
        <li
            class="proposal-row node-row"
            class:active=move || k.selected.with(|s| s.as_deref() == Some(selected_id.as_str()))
            class:retired-row=!n.live
            data-node-id=id
            data-kind=n.kind.as_str()
            data-lifecycle=n.lifecycle.as_str()
            data-warrant=n.warrant.as_str()
            data-key-item=""
            tabindex="-1"
            on:click=move |_| k.select(clicked.clone())
        >
            <div class="proposal-summary">
                <span class="badges">{kind_badge(n.kind)} {state_badges(&n)}</span>
                <span class="proposal-text node-text">{n.text.clone()}</span>
                <span class="meta">{meta.join(" · ")}</span>
            </div>
        </li>
    }
}
