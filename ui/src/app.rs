//! The app frame: a sidebar of views and the view the route names (navigation itself is in
//! `nav.rs`). The sidebar's Review button carries the number of pending proposals
//! ([`PendingReviews`]).
//!
//! The push box ("I just did X") is reachable from every page: the sidebar's "I just did…" button
//! and the keyboard shortcut Ctrl+Shift+P (⌘⇧P) open it as a dialog over the current view. Each
//! push bumps [`Activity`], so the lists that show observations read them again.
//!
//! The search box is reachable the same way: Ctrl+K (⌘K) opens it over the current view.
//!
//! The frame also installs the app-wide keys (`keys.rs`: `g` then a letter, `/`, `j`/`k`, `?`)
//! and the colour theme (`theme.rs`), whose switch sits at the foot of the sidebar.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::api;
use crate::keys::{self, KeysHelp, go_key};
use crate::nav::{Nav, Page, Route};
use crate::pages::{
    contexts::ContextsPage, heads::HeadsPage, health::HealthPage, home::Home,
    inspector::InspectorPage, knowledge::KnowledgePage, library::LibraryPage, lineage::LineagePage,
    reconstruct::ReconstructPage, review::ReviewPage, search::SearchPage, sessions::SessionsPage,
    settings::SettingsPage, timeline::TimelinePage, topics::TopicsPage,
};
use crate::push::{PushDialog, is_push_shortcut};
use crate::search_box::{SearchDialog, is_search_shortcut};
use crate::theme::{ThemeChoice, ThemeSwitch};

/// How often the badge asks for the pending count: the scheduler may add proposals while the
/// app stays open overnight, and the count is one cheap query.
const PENDING_POLL_MS: i32 = 60_000;

/// Pending proposals, as last counted: `None` until the first count (or when it failed). The
/// Review page sets it from every decision's reply, so the badge follows at once.
#[derive(Debug, Clone, Copy)]
pub struct PendingReviews(pub RwSignal<Option<u32>>);

impl PendingReviews {
    /// Counts again now.
    pub fn refresh(self) {
        spawn_local(async move {
            self.0
                .set(api::review_count().await.ok().map(|c| c.pending));
        });
    }
}

/// The pending count provided by [`App`].
pub fn use_pending_reviews() -> PendingReviews {
    expect_context::<PendingReviews>()
}

/// Bumped after every push, so Home's recent observations and the Timeline read again: a push
/// made in the dialog lands on a page that did not make it.
#[derive(Debug, Clone, Copy)]
pub struct Activity(pub RwSignal<u32>);

impl Activity {
    pub fn bump(self) {
        self.0.update(|g| *g += 1);
    }
}

/// The push counter provided by [`App`].
pub fn use_activity() -> Activity {
    expect_context::<Activity>()
}

/// Bumped to make the sidebar's sync light read again: by a timer, and by Settings → Sync after
/// a sync it ran.
#[derive(Debug, Clone, Copy)]
pub struct SyncBeat(RwSignal<u32>);

impl SyncBeat {
    pub fn bump(self) {
        self.0.update(|g| *g += 1);
    }
}

/// The sync beat provided by [`App`].
pub fn use_sync_beat() -> SyncBeat {
    expect_context::<SyncBeat>()
}

/// The sidebar's sync light: off, synced, waiting to send (or offline), running or failed, read
/// every [`PENDING_POLL_MS`] and after Settings ran a sync; a click opens Settings.
#[component]
fn SyncLight() -> impl IntoView {
    let nav = crate::nav::use_nav();
    let beat = use_sync_beat();
    let light = LocalResource::new(move || {
        beat.0.track();
        api::sync_get()
    });
    let said = move || {
        light.with(|v| match v.as_ref().and_then(|r| r.as_ref().ok()) {
            None => ("off", "Sync: reading…".to_owned()),
            Some(v) => {
                let text = match v.light.as_str() {
                    "off" => "Sync is off: set a remote in Settings".to_owned(),
                    "running" => "Syncing now".to_owned(),
                    "failed" => format!(
                        "The last sync failed: {}",
                        v.problem.clone().unwrap_or_default()
                    ),
                    "waiting" => match &v.problem {
                        Some(p) => format!("Waiting to send ({p})"),
                        None => format!(
                            "{} entries and {} changes wait for the next sync",
                            v.unsent_entries, v.unsent_changes
                        ),
                    },
                    _ => format!(
                        "Synced {}",
                        v.last_sync_at
                            .as_deref()
                            .map(crate::components::short_time)
                            .unwrap_or_default()
                    ),
                };
                (
                    match v.light.as_str() {
                        "synced" => "synced",
                        "waiting" => "waiting",
                        "running" => "running",
                        "failed" => "failed",
                        _ => "off",
                    },
                    text,
                )
            }
        })
    };
    view! {
        <button
            id="sync-light"
            class="sync-light"
            data-light=move || said().0
            title=move || said().1
            on:click=move |_| nav.go(Route::of(Page::Settings))
        >
            <span class="dot" aria-hidden="true"></span>
            {move || match said().0 {
                "synced" => "Synced",
                "waiting" => "Sync waiting",
                "running" => "Syncing…",
                "failed" => "Sync failed",
                _ => "Sync off",
            }}
        </button>
    }
}

#[component]
pub fn App() -> impl IntoView {
    let nav = Nav::provide();
    ThemeChoice::provide();
    // Whether the keyboard help is shown. The app-wide keys are installed before any page
    // mounts, so their listener runs before the pages' own (see `keys.rs`).
    let help = RwSignal::new(false);
    keys::install(nav, help);
    let pending = PendingReviews(RwSignal::new(None));
    provide_context(pending);
    provide_context(Activity(RwSignal::new(0)));
    let sync_beat = SyncBeat(RwSignal::new(0));
    provide_context(sync_beat);
    // Whether the push dialog is open. The shortcut works from any page and inside text fields
    // too: Ctrl+Shift+P types nothing, and none of the pages' own keys (the Review page's plain
    // letters and arrows) carries a modifier, so it clashes with none of them.
    let pushing = RwSignal::new(false);
    // Whether the search box is open. Ctrl+K is free the same way (no page uses it), and works
    // inside text fields for the same reason. One dialog at a time: each shortcut closes the
    // other's box.
    let searching = RwSignal::new(false);
    let keys = window_event_listener(leptos::ev::keydown, move |ev| {
        if is_push_shortcut(&ev) {
            ev.prevent_default();
            searching.set(false);
            pushing.set(true);
        } else if is_search_shortcut(&ev) {
            ev.prevent_default();
            pushing.set(false);
            searching.set(true);
        }
    });
    on_cleanup(move || keys.remove());
    // The app lives as long as its window, so this loop needs no stopping.
    spawn_local(async move {
        loop {
            pending
                .0
                .set(api::review_count().await.ok().map(|c| c.pending));
            api::sleep(PENDING_POLL_MS).await;
            sync_beat.bump();
        }
    });
    let button = move |id: &'static str, label: &'static str, target: Page| {
        view! {
            <button
                id=id
                class:active=move || nav.page() == target
                title=format!("{label} (g then {})", go_key(target))
                on:click=move |_| nav.go(Route::of(target))
            >
                {label}
                <span class="nav-key" aria-hidden="true">{format!("g {}", go_key(target))}</span>
            </button>
        }
    };
    view! {
        <div class="shell">
            <nav class="sidebar">
                <h1>"ELNOR"</h1>
                {button("nav-home", "Today", Page::Home)}
                {button("nav-sessions", "Sessions", Page::Sessions)}
                {button("nav-contexts", "Work contexts", Page::Contexts)}
                <button
                    id="nav-review"
                    class:active=move || nav.page() == Page::Review
                    title="Review (g then r)"
                    on:click=move |_| nav.go(Route::of(Page::Review))
                >
                    "Review"
                    {move || {
                        pending
                            .0
                            .get()
                            .map(|n| {
                                view! {
                                    <span
                                        class="nav-count"
                                        class:zero=n == 0
                                        id="nav-review-count"
                                        title="proposals waiting for your review"
                                    >
                                        {n}
                                    </span>
                                }
                            })
                    }}
                </button>
                {button("nav-knowledge", "Knowledge", Page::Knowledge)}
                {button("nav-heads", "Heads", Page::Heads)}
                {button("nav-timeline", "Timeline", Page::Timeline)}
                {button("nav-search", "Search", Page::Search)}
                {button("nav-library", "Library", Page::Library)}
                {button("nav-topics", "Topics", Page::Topics)}
                {button("nav-inspector", "Inspector", Page::Inspector)}
                {button("nav-health", "Health", Page::Health)}
                {button("nav-reconstruct", "Reconstruct", Page::Reconstruct)}
                {button("nav-settings", "Settings", Page::Settings)}
                <button
                    id="nav-push"
                    class="nav-push"
                    title="Tell ELNOR what you just did (Ctrl+Shift+P)"
                    on:click=move |_| pushing.set(true)
                >
                    "I just did…"
                    <kbd>"Ctrl+Shift+P"</kbd>
                </button>
                <div class="sidebar-foot">
                    <SyncLight />
                    <ThemeSwitch />
                    <button
                        id="nav-keys"
                        class="keys-help"
                        title="Keyboard shortcuts (?)"
                        on:click=move |_| help.set(true)
                    >
                        "Keyboard shortcuts "
                        <kbd>"?"</kbd>
                    </button>
                </div>
            </nav>
            <main>
                {move || match nav.page() {
                    Page::Home => view! { <Home /> }.into_any(),
                    Page::Sessions => view! { <SessionsPage /> }.into_any(),
                    Page::Contexts => view! { <ContextsPage /> }.into_any(),
                    Page::Review => view! { <ReviewPage /> }.into_any(),
                    Page::Knowledge => view! { <KnowledgePage /> }.into_any(),
                    Page::Heads => view! { <HeadsPage /> }.into_any(),
                    Page::Timeline => view! { <TimelinePage /> }.into_any(),
                    Page::Search => view! { <SearchPage /> }.into_any(),
                    Page::Library => view! { <LibraryPage /> }.into_any(),
                    Page::Topics => view! { <TopicsPage /> }.into_any(),
                    Page::Inspector => view! { <InspectorPage /> }.into_any(),
                    Page::Health => view! { <HealthPage /> }.into_any(),
                    Page::Reconstruct => view! { <ReconstructPage /> }.into_any(),
                    Page::Settings => view! { <SettingsPage /> }.into_any(),
                    Page::Lineage => view! { <LineagePage /> }.into_any(),
                }}
            </main>
            <Show when=move || pushing.get()>
                <PushDialog open=pushing />
            </Show>
            <Show when=move || searching.get()>
                <SearchDialog open=searching />
            </Show>
            <Show when=move || help.get()>
                <KeysHelp open=help />
            </Show>
        </div>
    }
}
