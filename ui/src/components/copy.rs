//! Text a person takes elsewhere, such as a command for a terminal or a line for a settings file:
//! shown as code, with a button that copies it.

use leptos::prelude::*;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// `navigator.clipboard.writeText`, bound here because the crate's `web-sys` features do not
    /// include the clipboard.
    #[wasm_bindgen(js_namespace = ["navigator", "clipboard"], js_name = writeText, catch)]
    fn clipboard_write(text: &str) -> Result<js_sys::Promise, JsValue>;
}

/// Puts `text` on the clipboard. The clipboard may be refused (no permission); the text stays on
/// screen to be selected by hand, so the refusal is not worth a message.
pub(super) fn copy_to_clipboard(text: &str) {
    let _ = clipboard_write(text);
}

/// `text` as code, with a "Copy" button beside it; the button says "Copied" once clicked.
pub fn copy_text(text: String) -> impl IntoView {
    let copied = RwSignal::new(false);
    let full = text.clone();
    view! {
        <span class="copy-text">
            <code>{text}</code>
            <button
                class="small copy"
                title="Copy to the clipboard"
                on:click=move |ev| {
                    ev.stop_propagation();
                    ev.prevent_default();
                    copy_to_clipboard(&full);
                    copied.set(true);
                }
            >
                {move || if copied.get() { "Copied" } else { "Copy" }}
            </button>
        </span>
    }
}
