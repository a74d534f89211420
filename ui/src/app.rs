//! The app frame: a sidebar of views and the current view.

use leptos::prelude::*;

use crate::pages::{
    contexts::ContextsPage, home::Home, sessions::SessionsPage, settings::SettingsPage,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Page {
    Home,
    Sessions,
    Contexts,
    Settings,
}

#[component]
pub fn App() -> impl IntoView {
    let (page, set_page) = signal(Page::Home);
    let nav = move |id: &'static str, label: &'static str, target: Page| {
        view! {
            <button
                id=id
                class:active=move || page.get() == target
                on:click=move |_| set_page.set(target)
            >
                {label}
            </button>
        }
    };
    view! {
        <div class="shell">
            <nav class="sidebar">
                <h1>"ELNOR"</h1>
                {nav("nav-home", "Home", Page::Home)}
                {nav("nav-sessions", "Sessions", Page::Sessions)}
                {nav("nav-contexts", "Work contexts", Page::Contexts)}
                {nav("nav-settings", "Settings", Page::Settings)}
            </nav>
            <main>
                {move || match page.get() {
                    Page::Home => view! { <Home /> }.into_any(),
                    Page::Sessions => view! { <SessionsPage /> }.into_any(),
                    Page::Contexts => view! { <ContextsPage /> }.into_any(),
                    Page::Settings => view! { <SettingsPage /> }.into_any(),
                }}
            </main>
        </div>
    }
}
