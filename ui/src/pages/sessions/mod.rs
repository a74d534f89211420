//! Sessions: transcript sources and ingest (with progress), a filtered list of sessions, and a
//! virtualised transcript viewer that pages turns by position, folds tool calls and marks
//! compaction points with their summaries.

mod browser;
mod ingest;
mod transcript;

use elnor_types::SessionRow;
use leptos::prelude::*;

use crate::nav::use_nav;
use browser::SessionBrowser;
pub use ingest::IngestCard;

#[component]
pub fn SessionsPage() -> impl IntoView {
    // Bumped after each finished ingest so the lists reload.
    let generation = RwSignal::new(0u32);
    let selected = RwSignal::new(None::<SessionRow>);
    // A link elsewhere (the Inspector, a work context) may name a session to open; it is taken
    // once, so coming back to Sessions later starts from the whole list.
    let nav = use_nav();
    let target = nav.take_session();
    // A search hit names the turn too: the transcript opens scrolled to it, with it selected.
    let turn = nav.take_turn();
    view! {
        <h2>"Sessions"</h2>
        <IngestCard generation />
        <SessionBrowser generation selected target turn />
    }
}
