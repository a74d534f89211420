//! The turns under a node over raw turns (a session summary or a harness compaction): the window's
//! newest turns as the bounded, redacted transcript read gives them, how the window was found, and
//! "Open in the transcript", which shows the whole window marked in the session's transcript on
//! the Sessions page. A node over other nodes says to open one of its children instead.

use elnor_types::{LineageNodeKind, LineageRequest, LineageTurnRow, LineageTurns};
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::words::count;
use crate::api;
use crate::nav::use_nav;

#[component]
pub(super) fn Turns(
    node_id: String,
    kind: LineageNodeKind,
    turns: Option<LineageTurns>,
) -> impl IntoView {
    let Some(t) = turns.filter(|_| kind.covers_turns()) else {
        return view! {
            <div class="card lineage-turns" id="lineage-turns">
                <h3>"Turns"</h3>
                <p class="hint" id="lineage-turns-none">
                    "This node stands over other summaries, not over turns: open one of the nodes it "
                    "covers to reach the turns."
                </p>
            </div>
        }
        .into_any();
    };
    let shown = t.turns.len() as u64;
    let said = if t.truncated {
        format!(
            "The newest {} of its window; older ones are in the transcript.",
            count(shown, "turn")
        )
    } else {
        format!("All {} of its window.", count(shown, "turn"))
    };
    view! {
        <div
            class="card lineage-turns"
            id="lineage-turns"
            data-session-id=t.session_id.clone()
            data-exact=t.exact.to_string()
        >
            <div class="lineage-turns-head">
                <h3>"Turns"</h3>
                <OpenInTranscript node_id />
            </div>
            <p class="lineage-how" id="lineage-turns-how">{t.how.clone()}</p>
            <p class="meta">{said}</p>
            <ol class="lineage-turn-list" id="lineage-turn-list">
                {t.turns.into_iter().map(turn).collect_view()}
            </ol>
        </div>
    }
    .into_any()
}

fn turn(t: LineageTurnRow) -> impl IntoView {
    view! {
        <li class=format!("lineage-turn role-{}", t.role) data-seq=t.seq data-turn-id=t.turn_id.clone()>
            <span class="meta">{format!("turn {} · {}", t.seq, t.role)}</span>
            <p class="lineage-turn-text">{t.text.clone()}</p>
        </li>
    }
}

/// "Open in the transcript": locates the node's window in the session's transcript view and shows
/// it there, marked, as the Inspector's "Show where this came from" does.
#[component]
fn OpenInTranscript(node_id: String) -> impl IntoView {
    let nav = use_nav();
    let refused = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);
    let open = move |_| {
        busy.set(true);
        let node_id = node_id.clone();
        spawn_local(async move {
            match api::lineage_expand(LineageRequest::Node { node_id }).await {
                Ok(window) => nav.open_lineage(window),
                Err(e) => {
                    refused.set(Some(e.message));
                    busy.set(false);
                }
            }
        });
    };
    view! {
        <button
            class="small"
            id="lineage-open-transcript"
            title="Show these turns marked in the session's full transcript"
            prop:disabled=move || busy.get()
            on:click=open
        >
            "Open in the transcript"
        </button>
        {move || refused.get().map(|why| view! { <p class="hint lineage-refused" role="status">{why}</p> })}
    }
}
