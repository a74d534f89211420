//! The colour theme: [`Theme`] (System, Light or Dark), the sidebar's [`ThemeSwitch`] that picks
//! it, and the one place that applies it.
//!
//! Every colour in `style.css` goes through CSS variables, and the dark values apply when `<html>`
//! carries `data-theme="dark"`. So applying a theme is setting that attribute: to the OS's choice
//! (`prefers-color-scheme`) under System, which is followed live when the OS switches at dusk, or
//! to the person's choice. The choice is remembered in `localStorage`, so the app opens the next
//! morning as it was left.

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

/// Where the choice is remembered.
const STORAGE_KEY: &str = "elnor.theme";

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = localStorage, js_name = getItem, catch)]
    fn storage_get(key: &str) -> Result<Option<String>, JsValue>;
    #[wasm_bindgen(js_namespace = localStorage, js_name = setItem, catch)]
    fn storage_set(key: &str, value: &str) -> Result<(), JsValue>;

    /// The browser's `MediaQueryList`, bound here because the crate's `web-sys` features do not
    /// include it.
    type MediaQuery;
    #[wasm_bindgen(js_name = matchMedia)]
    fn match_media(query: &str) -> MediaQuery;
    #[wasm_bindgen(method, getter)]
    fn matches(this: &MediaQuery) -> bool;
    #[wasm_bindgen(method, js_name = addEventListener)]
    fn add_listener(this: &MediaQuery, kind: &str, listener: &js_sys::Function);
}

/// The person's choice of colours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Theme {
    /// Whatever the OS says (`prefers-color-scheme`), followed as it changes.
    System,
    Light,
    Dark,
}

impl Theme {
    const ALL: [Theme; 3] = [Theme::System, Theme::Light, Theme::Dark];

    fn key(self) -> &'static str {
        match self {
            Theme::System => "system",
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Theme::System => "System",
            Theme::Light => "Light",
            Theme::Dark => "Dark",
        }
    }

    /// The remembered choice; System when none was made or storage is unavailable.
    fn stored() -> Theme {
        let saved = storage_get(STORAGE_KEY).ok().flatten().unwrap_or_default();
        Theme::ALL
            .into_iter()
            .find(|t| t.key() == saved)
            .unwrap_or(Theme::System)
    }
}

/// Whether the OS asks for dark colours now.
fn os_prefers_dark() -> bool {
    match_media("(prefers-color-scheme: dark)").matches()
}

/// Sets `data-theme` on `<html>` to the colours `theme` means now.
fn apply(theme: Theme) {
    let dark = match theme {
        Theme::System => os_prefers_dark(),
        Theme::Light => false,
        Theme::Dark => true,
    };
    if let Some(root) = document().document_element() {
        let _ = root.set_attribute("data-theme", if dark { "dark" } else { "light" });
        let _ = root.set_attribute("data-theme-choice", theme.key());
    }
}

/// The theme in force, provided by the app frame.
#[derive(Debug, Clone, Copy)]
pub struct ThemeChoice(RwSignal<Theme>);

impl ThemeChoice {
    /// Applies the remembered theme, follows the OS while the choice is System, and provides the
    /// choice to the switch.
    pub fn provide() -> ThemeChoice {
        let choice = ThemeChoice(RwSignal::new(Theme::stored()));
        apply(choice.0.get_untracked());
        // The window lives as long as the app, so the listener is never removed.
        let follow = Closure::<dyn Fn()>::new(move || {
            if choice.0.get_untracked() == Theme::System {
                apply(Theme::System);
            }
        });
        match_media("(prefers-color-scheme: dark)")
            .add_listener("change", follow.as_ref().unchecked_ref());
        follow.forget();
        provide_context(choice);
        choice
    }

    fn set(self, theme: Theme) {
        self.0.set(theme);
        let _ = storage_set(STORAGE_KEY, theme.key());
        apply(theme);
    }
}

/// The sidebar's three-way switch: System, Light, Dark.
#[component]
pub fn ThemeSwitch() -> impl IntoView {
    let choice = expect_context::<ThemeChoice>();
    view! {
        <div class="theme-switch" id="theme-switch" role="group" aria-label="Colour theme">
            {Theme::ALL
                .into_iter()
                .map(|t| {
                    view! {
                        <button
                            id=format!("theme-{}", t.key())
                            class:active=move || choice.0.get() == t
                            aria-pressed=move || (choice.0.get() == t).to_string()
                            title=format!("{} colours", t.label())
                            on:click=move |_| choice.set(t)
                        >
                            {t.label()}
                        </button>
                    }
                })
                .collect_view()}
        </div>
    }
}
