//! Long ids shown short: the first characters with an ellipsis, the whole id on hover, and a
//! button that copies it, for pasting into a terminal or a bug report.

use leptos::prelude::*;

use super::copy::copy_to_clipboard;

/// How many characters of an id stay visible: enough to tell ids apart at a glance.
const SHOWN: usize = 8;

/// `id` cut to its first characters, with an ellipsis when anything was cut.
pub fn short_id(id: &str) -> String {
    if id.chars().count() <= SHOWN + 1 {
        return id.to_owned();
    }
    format!("{}…", id.chars().take(SHOWN).collect::<String>())
}

/// An id shown short, in full on hover, with a copy button.
pub fn copy_id(id: String) -> impl IntoView {
    let copied = RwSignal::new(false);
    let full = id.clone();
    view! {
        <span class="short-id" title=id.clone()>
            {short_id(&id)}
            <button
                class="copy"
                title="Copy the whole id"
                aria-label="Copy the whole id"
                on:click=move |ev| {
                    ev.stop_propagation();
                    ev.prevent_default();
                    // The clipboard may be refused (no permission); the id stays in the title.
                    copy_to_clipboard(&full);
                    copied.set(true);
                }
            >
                {move || if copied.get() { "copied" } else { "copy" }}
            </button>
        </span>
    }
}
