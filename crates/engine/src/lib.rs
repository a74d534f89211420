//! The ELNOR continuity engine: a headless library that owns the store and everything in it.
//!
//! The engine knows nothing of Tauri, wasm, MCP or any wire format. The `elnor` CLI, the desktop
//! shell and (later) the MCP server are thin adapters over the API re-exported here: open a
//! [`Store`], read its [`Status`], read and change its [`ContinuityConfig`], and append to or read
//! a work context's [`ContinuityLog`].

pub mod base;
pub mod brief;
pub mod continuity;
pub mod graph;
pub mod inputs;
pub mod review;
#[cfg(test)]
mod test_support;
pub mod usecase;
pub mod views;

pub use base::{clock, config, ids, redact, secrets, tokens};
pub use brief::traces;
pub use graph::{contexts, entities, living, nodes, projects, store};
pub use inputs::{
    activity, agent, capture, ingest, model, observe, resolve, sessions, sources, transcripts,
};
pub use review::{promotion, sweep, utility};
pub use usecase::nightly;
pub use views::{constellation, overview, rollup, timeline};

pub use base::error::{Error, ErrorKind, Result};
pub use config::{ConfigField, ContinuityConfig, ContinuityMode, DateAwareness, SynthesisProvider};
pub use continuity::Status;
pub use continuity::{
    CaptureMode, ContinuityEntry, ContinuityLog, EntryContent, EntryType, LogRead, SkippedLine,
    TornRepair, WorkPhase,
};
pub use ids::{AgentId, EntityId, EntryId, NodeId, SessionId, WorkContextId};
pub use store::{Store, StoreLocation};
