//! Formatting and links shared by the lists: times at the precision they need, and the links that
//! open a session's transcript, a work context or the lineage of a line or an entry from wherever
//! one is named.

use elnor_types::LineageRequest;
use leptos::prelude::*;

use super::short_id;
use crate::nav::use_nav;

/// An RFC 3339 time as `YYYY-MM-DD HH:MM`, the precision the lists need.
pub fn short_time(rfc3339: &str) -> String {
    rfc3339.get(..16).unwrap_or(rfc3339).replace('T', " ")
}

/// A harness as people call it.
pub fn harness_name(harness: &str) -> &str {
    match harness {
        "claude_code" => "Claude Code",
        "codex" => "Codex",
        "openclaw" => "OpenClaw",
        other => other,
    }
}

/// A link that opens a session's transcript on the Sessions page.
pub fn session_link(session_id: String, turn_seq: Option<i64>) -> impl IntoView {
    let nav = use_nav();
    // The id is long and means nothing to read: its start tells sessions apart, the whole of
    // it is on hover.
    let label = match turn_seq {
        Some(seq) => format!("session {} · turn {seq}", short_id(&session_id)),
        None => format!("session {}", short_id(&session_id)),
    };
    let full = format!("Open session {session_id}");
    let target = session_id.clone();
    view! {
        <a
            href="#"
            class="session-link"
            title=full
            data-session-id=session_id
            on:click=move |ev| {
                ev.prevent_default();
                nav.open_session(target.clone());
            }
        >
            {label}
        </a>
    }
}

/// A link that opens a work context on its page, showing `label`.
pub fn context_link(work_context_id: String, label: impl IntoView + 'static) -> impl IntoView {
    let nav = use_nav();
    view! {
        <a
            href="#"
            on:click=move |ev| {
                ev.prevent_default();
                nav.open_work_context(work_context_id.clone());
            }
        >
            {label}
        </a>
    }
}

/// "Open lineage": shows the node of the lineage DAG that `source` (a brief line, an entry, a
/// node id) sits in on the Lineage page, where the page's read resolves it.
pub fn lineage_link(source: LineageRequest) -> impl IntoView {
    let nav = use_nav();
    view! {
        <a
            href="#"
            class="lineage-link"
            title="Open the summary this came from, what covers it and the turns below it"
            on:click=move |ev| {
                ev.prevent_default();
                nav.open_lineage_of(source.clone());
            }
        >
            "Open lineage"
        </a>
    }
}
