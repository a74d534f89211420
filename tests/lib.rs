//! Nothing but a home for the end-to-end test binary, `webview.rs`; see its docs.
