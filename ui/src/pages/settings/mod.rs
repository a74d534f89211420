//! Settings: the continuity mode toggle with CSA §5.1's explanatory text, then every other
//! continuity field (synthesis model, API key, spend guard, triggers, TTLs, the significance gate
//! and the model's temporal profile). Saving goes through the shell to the engine, which validates
//! and writes the config atomically; its error text is shown beside the field as it is.
//!
//! The API key is typed here and handed to the shell, which stores it in the OS keyring. It is
//! never read back: the page only learns whether a key is stored.
//!
//! Living memory is the person's own facts and preferences, Tier 3 of every brief: listed in the
//! order the brief considers them, each with its token count, to add, edit, move and remove.
//!
//! Tracked folders are the folders whose file changes become observations: listed with a
//! "missing" badge for one that is gone, to add and remove, with the person's ignore patterns (one
//! per line), the built-in ones, and the file watcher's status line, its problem (such as an
//! exhausted inotify watch limit, with the fix) shown prominently.
//!
//! Search shows the embedder and how many documents it has embedded, with the long jobs that
//! change that: downloading the built-in model, building the embeddings and rebuilding the index,
//! each with its progress (polled while it runs) and, where the engine can stop, Cancel.

mod continuity;
mod folders;
mod living_memory;
mod search;

use leptos::prelude::*;

use crate::api;
use crate::components::Loaded;
use crate::pages::sessions::IngestCard;
use continuity::{ContinuityConfigCards, ContinuitySection};
use folders::TrackedFoldersCard;
use living_memory::LivingMemoryCard;
use search::SearchCard;

#[component]
pub fn SettingsPage() -> impl IntoView {
    let settings = LocalResource::new(api::settings_get);
    let continuity = LocalResource::new(api::continuity_get);
    let generation = RwSignal::new(0u32);
    view! {
        <h2>"Settings"</h2>
        <Loaded resource=settings loading="Reading settings…" let:s>
            <ContinuitySection initial=s />
        </Loaded>
        <Loaded resource=continuity loading="Reading the continuity config…" let:s>
            <ContinuityConfigCards initial=s />
        </Loaded>
        <SearchCard />
        <LivingMemoryCard />
        <TrackedFoldersCard />
        <IngestCard generation />
    }
}
