//! Sessions, in two panes: the filtered list of sessions on the left and, on the right, a
//! virtualised transcript viewer that pages turns by position, folds tool calls and marks
//! compaction points with their summaries. Each pane scrolls on its own.
//!
//! Transcript sources and the ingest button live in Settings (the card is `ingest.rs`, kept here
//! because it reads sessions); the header links there.

mod browser;
mod ingest;
mod transcript;

use elnor_types::SessionRow;
use leptos::prelude::*;

use crate::nav::{Page, Route, use_nav};
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
    // "Show where this came from" (the Inspector) names the window of turns to mark.
    let lineage = nav.take_lineage();
    view! {
        <div class="page-head">
            <h2>"Sessions"</h2>
            <div class="page-actions">
                <button
                    class="small"
                    id="sessions-sources"
                    title="Transcript sources and Ingest now are in Settings"
                    on:click=move |_| nav.go(Route::of(Page::Settings))
                >
                    "Transcript sources…"
                </button>
            </div>
        </div>
        <SessionBrowser generation selected target turn lineage />
    }
}
