//! The ELNOR desktop UI: Leptos CSR compiled to wasm32, embedded by the Tauri shell. It reaches the
//! engine only through the shell's typed commands (`api`), never directly.

mod api;
mod app;
mod components;
mod keys;
mod nav;
mod pages;
mod push;
mod search_box;
mod theme;

fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(app::App);
}
