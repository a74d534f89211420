//! The peer of the app's start figures (BENCHMARKS.md, "App start"): the app's Tauri runtime and
//! configuration, one window of the app's size, and an empty page, with no engine, no store and
//! no UI. `scripts/bench-app.sh` builds it and `tests/e2e/startup.rs` times it in the same run as
//! the app, so the figures say how much of the start and of the memory is ELNOR's own.

// As in the app: without this a console window would open beside it on Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

/// The whole page: one element for the timing test to wait for.
const PAGE: &str = "<!doctype html><html><head><title>bare</title></head>\
                    <body><p id=\"bare-ready\">An empty Tauri window.</p></body></html>";

fn main() {
    let mut context = tauri::generate_context!();
    // The app's configured window would load the app's UI, so it is taken out of the
    // configuration and opened here on the empty page instead, at the size the app asks for.
    let configured = std::mem::take(&mut context.config_mut().app.windows);
    let (width, height) = configured
        .first()
        .map_or((1100.0, 760.0), |w| (w.width, w.height));
    let result = tauri::Builder::default()
        // Served the way the app's own assets are (a custom protocol, no network), so the peer
        // pays the same path to its first frame, only for a page of a few bytes.
        .register_uri_scheme_protocol("bare", |_ctx, _request| {
            tauri::http::Response::builder()
                .header("Content-Type", "text/html")
                .body(PAGE.as_bytes().to_vec())
                .unwrap_or_default()
        })
        .setup(move |app| {
            let url = tauri::WebviewUrl::CustomProtocol("bare://localhost/".parse()?);
            tauri::WebviewWindowBuilder::new(app, "main", url)
                .title("An empty Tauri window")
                .inner_size(width, height)
                .build()?;
            Ok(())
        })
        .run(context);
    if let Err(error) = result {
        eprintln!("bare-window: {error}");
        std::process::exit(1);
    }
}
