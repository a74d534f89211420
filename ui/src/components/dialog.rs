//! [`Modal`]: a dialog over the page, the way every form dialog of the app behaves. The backdrop
//! dims the page; Esc (wherever the keyboard is, even after a click on the backdrop) and a click
//! beside the dialog close it; `role="dialog"` and `aria-modal` tell the keyboard layer and
//! assistive technology that it owns the keys while it is open.

use leptos::prelude::*;

/// A modal dialog: `open` is set to false to close it.
#[component]
pub fn Modal(
    open: RwSignal<bool>,
    /// The dialog element's id, which the tests and the page's own styles name.
    id: &'static str,
    /// What the dialog is, for assistive technology.
    label: &'static str,
    /// Classes beside `dialog card`, for the page's own styles.
    #[prop(optional)]
    class: &'static str,
    /// Key presses inside the dialog, for a form's own shortcut (such as Ctrl+Enter to submit).
    #[prop(optional, into)]
    on_key: Option<Callback<web_sys::KeyboardEvent>>,
    children: Children,
) -> impl IntoView {
    let escape = window_event_listener(leptos::ev::keydown, move |ev| {
        if ev.key() == "Escape" {
            ev.prevent_default();
            open.set(false);
        }
    });
    on_cleanup(move || escape.remove());
    view! {
        <div
            class="dialog-backdrop"
            on:click=move |ev| {
                // Only a click on the backdrop itself: clicks inside the dialog bubble up here too.
                if ev.target() == ev.current_target() {
                    open.set(false);
                }
            }
        >
            <div
                class=format!("dialog card {class}")
                id=id
                role="dialog"
                aria-modal="true"
                aria-label=label
                on:keydown=move |ev| {
                    if let Some(on_key) = on_key {
                        on_key.run(ev);
                    }
                }
            >
                {children()}
            </div>
        </div>
    }
}
