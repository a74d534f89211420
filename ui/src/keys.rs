//! The app-wide keyboard: `g` then a letter changes page, `/` focuses the page's filter or search
//! box, `j`/`k` move through the page's list and `Enter` opens the item, `Esc` leaves a field or
//! clears the filter, and `?` shows [`KeysHelp`], the list of them all.
//!
//! The keys work on the DOM rather than on each page's state, so a page joins in with two
//! attributes: `data-key-item` on each row of its list (a button, or any element with a click
//! handler) and, when its filter is not a search field, `data-key-filter` on the filter. Rows
//! hidden by a filter (`display: none`) are skipped.
//!
//! Plain letters never fire while a text field, a select or a dialog has the keyboard, so typing
//! "gs" into a filter types it. The Review page keeps its own one-letter keys (`j`, `k`, `a`, `e`,
//! `r`, `d`, `x`), so the list keys here stand aside there; the second key of a `g` sequence is
//! swallowed (this listener is registered before any page's), so `g r` opens Review without also
//! starting a rejection.

use leptos::ev;
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

use crate::nav::{Nav, Page, Route};
use crate::push::dialog_open;

/// How long after `g` the second key still counts as part of the sequence.
const SEQUENCE_MS: f64 = 1500.0;

/// Every `g` shortcut: the letter, the page, and its name in the help.
pub const GO_KEYS: &[(&str, Page, &str)] = &[
    ("h", Page::Home, "Today"),
    ("s", Page::Sessions, "Sessions"),
    ("w", Page::Contexts, "Work contexts"),
    ("r", Page::Review, "Review"),
    ("k", Page::Knowledge, "Knowledge"),
    ("m", Page::Heads, "Heads (MEMORY)"),
    ("t", Page::Timeline, "Timeline"),
    ("f", Page::Search, "Search (find)"),
    ("l", Page::Library, "Library"),
    ("o", Page::Topics, "Topics"),
    ("i", Page::Inspector, "Inspector"),
    ("c", Page::Health, "Health (capture)"),
    ("x", Page::Reconstruct, "Reconstruct"),
    (",", Page::Settings, "Settings"),
];

/// The `g` letter that opens `page`, for the sidebar's hints.
pub fn go_key(page: Page) -> &'static str {
    GO_KEYS
        .iter()
        .find(|(_, p, _)| *p == page)
        .map_or("", |(k, _, _)| k)
}

#[wasm_bindgen]
extern "C" {
    /// `document.querySelectorAll`, bound here because the crate's `web-sys` features do not
    /// include `NodeList`.
    #[wasm_bindgen(js_namespace = document, js_name = querySelectorAll)]
    fn query_all(selector: &str) -> JsValue;
}

/// The elements `selector` matches, in document order.
fn all(selector: &str) -> Vec<web_sys::HtmlElement> {
    js_sys::Array::from(&query_all(selector))
        .iter()
        .filter_map(|n| n.dyn_into::<web_sys::HtmlElement>().ok())
        .collect()
}

/// Whether a key press belongs to a text field (or select) rather than to the shortcuts.
/// Checkboxes and buttons do not count: after ticking a box, the keys should still work.
pub fn typing(ev: &web_sys::KeyboardEvent) -> bool {
    ev.target()
        .and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok())
        .is_some_and(|el| is_field(&el))
}

fn is_field(el: &web_sys::HtmlElement) -> bool {
    match el.tag_name().to_ascii_lowercase().as_str() {
        "textarea" | "select" => true,
        "input" => !matches!(
            el.get_attribute("type").unwrap_or_default().as_str(),
            "checkbox" | "radio" | "button" | "submit"
        ),
        _ => el.is_content_editable(),
    }
}

/// The current page's filter or search box: the one marked `data-key-filter`, else the first
/// search field of the page.
fn page_filter() -> Option<web_sys::HtmlInputElement> {
    all("main [data-key-filter]")
        .into_iter()
        .chain(all("main input[type=search]"))
        .find_map(|e| e.dyn_into::<web_sys::HtmlInputElement>().ok())
}

/// Empties a filter as typing would, so the page's `on:input` handler hears of it: Leptos
/// delegates input events to the document, so the event must bubble.
fn clear(input: &web_sys::HtmlInputElement) {
    input.set_value("");
    let init = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&init, &"bubbles".into(), &true.into());
    let event = js_sys::Reflect::get(&js_sys::global(), &"Event".into())
        .ok()
        .and_then(|c| c.dyn_into::<js_sys::Function>().ok())
        .and_then(|c| {
            js_sys::Reflect::construct(&c, &js_sys::Array::of2(&"input".into(), &init)).ok()
        })
        .and_then(|e| e.dyn_into::<web_sys::Event>().ok());
    if let Some(event) = event {
        let _ = input.dispatch_event(&event);
    }
}

/// Moves the keyboard's place in the page's list by `step` and focuses that row, which scrolls
/// it into view; `Enter` then opens it.
fn move_in_list(step: i32) {
    let items: Vec<_> = all("main [data-key-item]")
        .into_iter()
        .filter(|e| e.offset_parent().is_some())
        .collect();
    if items.is_empty() {
        return;
    }
    let focused = document().active_element();
    let at = items
        .iter()
        .position(|e| {
            focused
                .as_ref()
                .is_some_and(|f| f == e.unchecked_ref::<web_sys::Element>())
        })
        .or_else(|| items.iter().position(|e| e.class_list().contains("active")));
    let next = match at {
        None => 0,
        Some(i) => (i as i32 + step).clamp(0, items.len() as i32 - 1) as usize,
    };
    let _ = items[next].focus();
}

/// The row the keyboard is on, if the focus is on one.
fn focused_item() -> Option<web_sys::HtmlElement> {
    document()
        .active_element()
        .filter(|e| e.has_attribute("data-key-item"))
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
}

/// Listens for the app-wide keys for as long as the app runs. `help` is whether [`KeysHelp`] is
/// shown.
pub fn install(nav: Nav, help: RwSignal<bool>) {
    // When `g` was pressed, while its sequence is still open.
    let pending_g = RwSignal::new(None::<f64>);
    let handle = window_event_listener(ev::keydown, move |ev| {
        if ev.ctrl_key() || ev.meta_key() || ev.alt_key() {
            return;
        }
        let key = ev.key();
        if help.get_untracked() {
            if key == "Escape" || key == "?" {
                ev.prevent_default();
                help.set(false);
            }
            return;
        }
        if dialog_open() {
            return;
        }
        let page = nav.page_untracked();
        if key == "Escape" {
            escape(&ev, page);
            return;
        }
        if typing(&ev) {
            return;
        }
        let now = js_sys::Date::now();
        if let Some(at) = pending_g.get_untracked() {
            pending_g.set(None);
            if now - at < SEQUENCE_MS
                && let Some((_, target, _)) = GO_KEYS.iter().find(|(k, _, _)| *k == key)
            {
                ev.prevent_default();
                // The page's own listeners (Review's letters) must not see this key too.
                ev.stop_immediate_propagation();
                nav.go(Route::of(*target));
                return;
            }
        }
        // The Review page owns j, k and Enter-less decisions; it only shares g, / and ?.
        let list_keys = page != Page::Review;
        match key.as_str() {
            "g" => pending_g.set(Some(now)),
            "/" => match page_filter() {
                Some(input) => {
                    let _ = input.focus();
                    input.select();
                }
                None => return,
            },
            "?" => help.set(true),
            "j" if list_keys => move_in_list(1),
            "k" if list_keys => move_in_list(-1),
            "Enter" if list_keys => match focused_item() {
                Some(item) => item.click(),
                None => return,
            },
            _ => return,
        }
        ev.prevent_default();
    });
    // The app frame lives as long as the window; the handle is dropped with it.
    on_cleanup(move || handle.remove());
}

/// Esc: in a field it clears the page's filter (or just leaves any other field); outside one it
/// clears the page's filter when it holds something. Dialogs close themselves on Esc.
fn escape(ev: &web_sys::KeyboardEvent, page: Page) {
    let target = ev
        .target()
        .and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok());
    let filter = page_filter();
    if let Some(el) = target.filter(is_field) {
        if let Some(f) = filter.as_ref().filter(|f| {
            f.unchecked_ref::<web_sys::Element>() == el.unchecked_ref::<web_sys::Element>()
        }) {
            ev.prevent_default();
            clear(f);
        }
        let _ = el.blur();
        return;
    }
    if page == Page::Review {
        return;
    }
    if let Some(f) = filter.filter(|f| !f.value().is_empty()) {
        ev.prevent_default();
        clear(&f);
    }
}

/// The keyboard help: every shortcut, over the page. `?` or the sidebar's link opens it; Esc,
/// `?` or a click outside closes it.
#[component]
pub fn KeysHelp(open: RwSignal<bool>) -> impl IntoView {
    let row = |keys: &'static str, what: &'static str| {
        view! {
            <dt>{keys.split(' ').map(|k| view! { <kbd>{k}</kbd> " " }).collect_view()}</dt>
            <dd>{what}</dd>
        }
    };
    view! {
        <div
            class="dialog-backdrop"
            on:click=move |ev| {
                if ev.target() == ev.current_target() {
                    open.set(false);
                }
            }
        >
            <div
                class="dialog card keys-dialog"
                id="keys-help"
                role="dialog"
                aria-modal="true"
                aria-label="Keyboard shortcuts"
            >
                <h3>"Keyboard shortcuts"</h3>
                <dl>
                    {GO_KEYS
                        .iter()
                        .map(|(k, _, name)| {
                            view! {
                                <dt><kbd>"g"</kbd>" "<kbd>{*k}</kbd></dt>
                                <dd>{*name}</dd>
                            }
                        })
                        .collect_view()}
                    {row("/", "Focus the page's filter or search box")}
                    {row("j k", "Move down and up the page's list")}
                    {row("Enter", "Open the row you are on")}
                    {row("Esc", "Close a dialog, leave a field, clear the filter")}
                    {row("Ctrl+K", "Search from anywhere")}
                    {row("Ctrl+Shift+P", "Tell ELNOR what you just did")}
                    {row("?", "Show this list")}
                </dl>
                <p class="hint">
                    "The Review page has its own letters for deciding proposals; its header lists them."
                </p>
                <div class="dialog-buttons">
                    <button class="small" id="keys-help-close" on:click=move |_| open.set(false)>
                        "Close"
                    </button>
                </div>
            </div>
        </div>
    }
}
