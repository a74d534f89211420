//! The ELNOR continuity engine: a headless library that owns the store and everything in it.
//!
//! The engine knows nothing of Tauri, wasm, MCP or any wire format. The `elnor` CLI, the desktop
//! shell and (later) the MCP server are thin adapters over the API re-exported here: open a
//! [`Store`], read its [`Status`], read and change its [`ContinuityConfig`], and append to or read
//! a work context's [`ContinuityLog`].

pub mod activity;
pub mod agent;
pub mod brief;
pub mod capture;
pub mod clock;
pub mod config;
pub mod constellation;
pub mod contexts;
pub mod continuity;
pub mod entities;
mod error;
mod fsutil;
pub mod graph;
pub mod ids;
pub mod ingest;
pub mod living;
pub mod model;
pub mod nightly;
pub mod nodes;
pub mod observe;
pub mod overview;
pub mod projects;
pub mod promotion;
pub mod redact;
pub mod resolve;
pub mod rollup;
pub mod secrets;
pub mod sessions;
pub mod sources;
pub mod store;
pub mod sweep;
#[cfg(test)]
mod test_support;
pub mod timeline;
pub mod tokens;
pub mod traces;
pub mod transcripts;
pub mod usecase;
pub mod utility;

pub use config::{ConfigField, ContinuityConfig, ContinuityMode, DateAwareness, SynthesisProvider};
pub use continuity::Status;
pub use continuity::{
    CaptureMode, ContinuityEntry, ContinuityLog, EntryContent, EntryType, LogRead, SkippedLine,
    TornRepair, WorkPhase,
};
pub use error::{Error, ErrorKind, Result};
pub use ids::{AgentId, EntityId, EntryId, NodeId, SessionId, WorkContextId};
pub use store::{Store, StoreLocation};
