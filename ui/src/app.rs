//! The app frame: a sidebar of views and the current view, and [`Nav`], the navigation state the
//! pages share so one of them can open another at a given item.

use leptos::prelude::*;

use crate::pages::{
    contexts::ContextsPage, home::Home, inspector::InspectorPage, sessions::SessionsPage,
    settings::SettingsPage,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Page {
    Home,
    Sessions,
    Contexts,
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
}

/// The navigation state provided by [`App`].
pub fn use_nav() -> Nav {
    expect_context::<Nav>()
}

#[component]
pub fn App() -> impl IntoView {
    let nav = Nav {
        page: RwSignal::new(Page::Home),
        session: RwSignal::new(None),
        assembly: RwSignal::new(None),
    };
    provide_context(nav);
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
                {button("nav-inspector", "Inspector", Page::Inspector)}
                {button("nav-settings", "Settings", Page::Settings)}
            </nav>
            <main>
                {move || match page.get() {
                    Page::Home => view! { <Home /> }.into_any(),
                    Page::Sessions => view! { <SessionsPage /> }.into_any(),
                    Page::Contexts => view! { <ContextsPage /> }.into_any(),
                    Page::Inspector => view! { <InspectorPage /> }.into_any(),
                    Page::Settings => view! { <SettingsPage /> }.into_any(),
                }}
            </main>
        </div>
    }
}
