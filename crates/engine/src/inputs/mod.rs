//! The inputs layer: everything that turns what the agents and the person did into canonical
//! records.
//!
//! - [`transcripts`], [`ingest`], [`sources`], [`sessions`]: the three harnesses' transcript
//!   formats, read into the graph incrementally, from the folders the store's sources name;
//! - [`activity`], [`resolve`]: what a session was doing and which work context it belongs to;
//! - [`capture`], [`agent`], [`model`]: the continuity agent that writes each session's entries
//!   into its work context's continuity log, by heuristics or through a synthesis model;
//! - [`observe`]: observations from outside chat, the person's pushes and the tracked folders'
//!   file changes, and the cross-conversation updates they cause.
//!
//! Architecture Invariant: inputs write canonical data (graph rows, log lines) and return the
//! work contexts they touched; they never rebuild a view. They look down to the continuity,
//! graph and base layers only.

pub mod activity;
pub mod agent;
pub mod capture;
pub mod ingest;
pub mod model;
pub mod observe;
pub mod resolve;
pub mod sessions;
pub mod sources;
pub mod transcripts;
