//! Settings, in sections with a table of contents beside them: Capture (the continuity mode and
//! when sessions are captured), Models & keys (the synthesis model, its API key and a connection
//! test), Brief (what briefs keep, and living memory: the person's own facts and preferences,
//! Tier 3 of every brief), Review & nightly, Search (the embedder, its jobs, its settings),
//! Folders & sources (the transcript sources, managed only here, and the tracked folders whose
//! file changes become observations), Sync (the git remote the person's devices share), and
//! Privacy (what agents may read and search).
//!
//! Every field's label, help and refusal come from the engine in plain words. Saving goes
//! through the shell to the engine, which validates and writes the config atomically.
//!
//! The API key is typed here and handed to the shell, which stores it in the OS keyring. It is
//! never read back: the page only learns whether a key is stored, and only asks when the person
//! reaches for the key.

mod continuity;
mod folders;
mod living_memory;
mod search;
mod sync;

use elnor_types::ContinuitySettings;
use leptos::prelude::*;

use crate::api;
use crate::components::Loaded;
use crate::pages::sessions::IngestCard;
use continuity::{ContinuitySection, section_fields};
use folders::TrackedFoldersCard;
use living_memory::LivingMemoryCard;
use search::SearchCard;
use sync::SyncCard;

#[component]
pub fn SettingsPage() -> impl IntoView {
    let continuity = LocalResource::new(api::continuity_get);
    view! {
        <h2>"Settings"</h2>
        <Loaded resource=continuity loading="Reading the settings…" let:s>
            <SettingsSections settings=s />
        </Loaded>
    }
}

/// The table of contents and the sections.
#[component]
fn SettingsSections(settings: ContinuitySettings) -> impl IntoView {
    let sections = settings.config.sections.clone();
    let fields = settings.config.fields;
    let toc = sections
        .iter()
        .map(|s| {
            let id = format!("settings-{}", s.id);
            let target = id.clone();
            view! {
                <a
                    href="#"
                    data-section=s.id.clone()
                    on:click=move |ev| {
                        ev.prevent_default();
                        if let Some(el) = document().get_element_by_id(&target) {
                            el.scroll_into_view();
                        }
                    }
                >
                    {s.title.clone()}
                </a>
            }
        })
        .collect_view();
    let body = sections
        .into_iter()
        .map(|s| {
            let extra = match s.id.as_str() {
                "capture" => {
                    let mode = LocalResource::new(api::settings_get);
                    view! {
                        <Loaded resource=mode loading="Reading the mode…" let:m>
                            <ContinuitySection initial=m />
                        </Loaded>
                    }
                    .into_any()
                }
                "brief" => view! { <LivingMemoryCard /> }.into_any(),
                "search" => view! { <SearchCard /> }.into_any(),
                "sync" => view! { <SyncCard /> }.into_any(),
                "sources" => {
                    let generation = RwSignal::new(0u32);
                    view! {
                        <IngestCard generation />
                        <TrackedFoldersCard />
                    }
                    .into_any()
                }
                _ => ().into_any(),
            };
            view! {
                <section class="settings-section card" id=format!("settings-{}", s.id)>
                    <h3>{s.title.clone()}</h3>
                    {extra}
                    {section_fields(&fields, &s.id)}
                </section>
            }
        })
        .collect_view();
    view! {
        <div class="settings-layout">
            <nav class="settings-toc" id="settings-toc" aria-label="Settings sections">
                {toc}
            </nav>
            <div class="settings-sections">{body}</div>
        </div>
    }
}
