//! End-to-end: the built desktop app, in its real webview, on a temporary store.
//!
//! Each test builds a [`world::World`] through the engine, then [`harness::App::with`] starts
//! `tauri-driver` (which starts WebKitWebDriver, which starts the app), drives the UI over
//! WebDriver with fantoccini, and stops them; the test then checks the store on disk. The tests
//! need a display, the debug app built with the `custom-protocol` feature after `trunk build`,
//! and `tauri-driver` on PATH, so they are `#[ignore]`d; `scripts/test.sh` runs them under
//! `xvfb-run`.
//!
//! The app binary is `$ELNOR_APP_BINARY`, else `elnor-desktop` in the cargo target dir. With
//! `$ELNOR_E2E_SCREENSHOTS` set, the tests save pictures of the pages there; a failed test always
//! leaves its screenshot (there, or in the temporary directory) and prints the page source.
//!
//! There is one module per page, named after the page a test is mostly about; a test that
//! follows a link onto another page stays with the page it started from.

mod chat_standin;
mod harness;
mod model_mirror;
mod world;

mod contexts;
mod everywhere;
mod first_run;
mod heads;
mod health;
mod home;
mod inspector;
mod knowledge;
mod library;
mod lineage;
mod reconstruct;
mod review;
mod search;
mod security;
mod sessions;
mod settings;
mod startup;
mod timeline;
mod topics;
mod tour;
