//! The commands the UI may invoke, one file per area. Each is allowed by name in
//! `src-tauri/permissions/app.toml` and granted in `src-tauri/capabilities/main.json`.

pub mod brief;
pub mod contexts;
pub mod continuity;
pub mod heads;
pub mod health;
pub mod ingest;
pub mod jobs;
pub mod knowledge;
pub mod library;
pub mod observe;
pub mod reconstruct;
pub mod review;
pub mod search;
pub mod sessions;
pub mod settings;
pub mod status;
pub mod sync;
pub mod timeline;
pub mod topics;
