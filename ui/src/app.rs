//! The app frame: a sidebar of views and the current view, and [`Nav`], the navigation state the
//! pages share so one of them can open another at a given item. The sidebar's Review button
//! carries the number of pending proposals ([`PendingReviews`]).
//!
//! The push box ("I just did X") is reachable from every page: the sidebar's "I just did…" button
//! and the keyboard shortcut Ctrl+Shift+P (⌘⇧P) open it as a dialog over the current view. Each
//! push bumps [`Activity`], so the lists that show observations read them again.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::api;
use crate::pages::{
    contexts::ContextsPage, home::Home, inspector::InspectorPage, knowledge::KnowledgePage,
    review::ReviewPage, sessions::SessionsPage, settings::SettingsPage, timeline::TimelinePage,
};
use crate::push::{PushDialog, is_push_shortcut};

/// How often the badge asks for the pending count: the scheduler may add proposals while the
/// app stays open overnight, and the count is one cheap query.
const PENDING_POLL_MS: i32 = 60_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Page {
    Home,
    Sessions,
    Contexts,
    Review,
    Knowledge,
    Timeline,
    Inspector,
    Settings,
}

/// Which view is shown and which item a link asked it to open. The app has no router (a desktop
/// window has no address bar to deep-link from), so a link sets the target here and switches the
/// page; the page takes the target when it mounts.
#[derive(Debug, Clone, Copy)]
pub struct Nav {
    pub page: RwSignal<Page>,
    /// The session the Sessions page should open.
    pub session: RwSignal<Option<String>>,
    /// The assembly the Inspector should open.
    pub assembly: RwSignal<Option<i64>>,
    /// The durable node the Knowledge page should open.
    pub node: RwSignal<Option<String>>,
    /// The proposal the Review page should open, decided or not.
    pub proposal: RwSignal<Option<i64>>,
    /// The work context the Work contexts page should open.
    pub work_context: RwSignal<Option<String>>,
    /// The observation the Timeline should show in its detail pane.
    pub observation: RwSignal<Option<i64>>,
}

impl Nav {
    /// Shows a session's transcript on the Sessions page.
    pub fn open_session(self, session_id: String) {
        self.session.set(Some(session_id));
        self.page.set(Page::Sessions);
    }

    /// Shows one brief assembly in the Inspector.
    pub fn open_assembly(self, assembly_id: i64) {
        self.assembly.set(Some(assembly_id));
        self.page.set(Page::Inspector);
    }

    /// Shows one durable node on the Knowledge page, retired or not.
    pub fn open_node(self, node_id: String) {
        self.node.set(Some(node_id));
        self.page.set(Page::Knowledge);
    }

    /// Shows one proposal, with its evidence and decision, on the Review page.
    pub fn open_proposal(self, proposal_id: i64) {
        self.proposal.set(Some(proposal_id));
        self.page.set(Page::Review);
    }

    /// Shows one work context, its rules and its log, on the Work contexts page.
    pub fn open_work_context(self, work_context_id: String) {
        self.work_context.set(Some(work_context_id));
        self.page.set(Page::Contexts);
    }

    /// Shows one observation (a file change or a push) in the Timeline's detail pane. The push
    /// dialog links here from over any page, the Timeline included; an open Timeline takes the
    /// target as it stands rather than being mounted again, which would dispose its state while
    /// its rows still answer the change.
    pub fn open_observation(self, observation_id: i64) {
        self.observation.set(Some(observation_id));
        if self.page.get_untracked() != Page::Timeline {
            self.page.set(Page::Timeline);
        }
    }
}

/// The navigation state provided by [`App`].
pub fn use_nav() -> Nav {
    expect_context::<Nav>()
}

/// Pending proposals, as last counted: `None` until the first count (or when it failed). The
/// Review page sets it from every decision's reply, so the badge follows at once.
#[derive(Debug, Clone, Copy)]
pub struct PendingReviews(pub RwSignal<Option<u32>>);

impl PendingReviews {
    /// Counts again now.
    pub fn refresh(self) {
        spawn_local(async move {
            self.0
                .set(api::review_pending_count().await.ok().map(|c| c.pending));
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

#[component]
pub fn App() -> impl IntoView {
    let nav = Nav {
        page: RwSignal::new(Page::Home),
        session: RwSignal::new(None),
        assembly: RwSignal::new(None),
        node: RwSignal::new(None),
        proposal: RwSignal::new(None),
        work_context: RwSignal::new(None),
        observation: RwSignal::new(None),
    };
    provide_context(nav);
    let pending = PendingReviews(RwSignal::new(None));
    provide_context(pending);
    provide_context(Activity(RwSignal::new(0)));
    // Whether the push dialog is open. The shortcut works from any page and inside text fields
    // too: Ctrl+Shift+P types nothing, and none of the pages' own keys (the Review page's plain
    // letters and arrows) carries a modifier, so it clashes with none of them.
    let pushing = RwSignal::new(false);
    let keys = window_event_listener(leptos::ev::keydown, move |ev| {
        if is_push_shortcut(&ev) {
            ev.prevent_default();
            pushing.set(true);
        }
    });
    on_cleanup(move || keys.remove());
    // The app lives as long as its window, so this loop needs no stopping.
    spawn_local(async move {
        loop {
            pending
                .0
                .set(api::review_pending_count().await.ok().map(|c| c.pending));
            api::sleep(PENDING_POLL_MS).await;
        }
    });
    let page = nav.page;
    let button = move |id: &'static str, label: &'static str, target: Page| {
        view! {
            <button
                id=id
                class:active=move || page.get() == target
                on:click=move |_| page.set(target)
            >
                {label}
            </button>
        }
    };
    view! {
        <div class="shell">
            <nav class="sidebar">
                <h1>"ELNOR"</h1>
                {button("nav-home", "Home", Page::Home)}
                {button("nav-sessions", "Sessions", Page::Sessions)}
                {button("nav-contexts", "Work contexts", Page::Contexts)}
                <button
                    id="nav-review"
                    class:active=move || page.get() == Page::Review
                    on:click=move |_| page.set(Page::Review)
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
                {button("nav-timeline", "Timeline", Page::Timeline)}
                {button("nav-inspector", "Inspector", Page::Inspector)}
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
            </nav>
            <main>
                {move || match page.get() {
                    Page::Home => view! { <Home /> }.into_any(),
                    Page::Sessions => view! { <SessionsPage /> }.into_any(),
                    Page::Contexts => view! { <ContextsPage /> }.into_any(),
                    Page::Review => view! { <ReviewPage /> }.into_any(),
                    Page::Knowledge => view! { <KnowledgePage /> }.into_any(),
                    Page::Timeline => view! { <TimelinePage /> }.into_any(),
                    Page::Inspector => view! { <InspectorPage /> }.into_any(),
                    Page::Settings => view! { <SettingsPage /> }.into_any(),
                }}
            </main>
            <Show when=move || pushing.get()>
                <PushDialog open=pushing />
            </Show>
        </div>
    }
}
