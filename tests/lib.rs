//! Nothing but a home for the end-to-end test binary, `webview` (`e2e/main.rs`); see its docs.
