//! The graph layer: canonical truth in `entity_graph.sqlite` and the handle on a store.
//!
//! - [`db`]: the SQLite file, its migrations and connections ([`Graph`]);
//! - [`store`]: the store directory that holds the graph, the logs and the config ([`Store`]);
//! - [`entities`], [`contexts`], [`projects`]: what the person's work is about and where it
//!   happens (work contexts, their link rules, the projects found in transcripts);
//! - [`nodes`], [`living`]: durable knowledge, the nodes that approved promotions wrote and the
//!   living facts kept current about entities;
//! - [`sync`]: the person's graph changes as events for their other devices, and the per-field
//!   clocks that make every device converge.
//!
//! Architecture Invariant: this layer looks only down, to `base`. Writers here mark the views
//! they make stale (`touch_in`) but never rebuild a view: the use case that called them does.

pub mod contexts;
mod db;
pub mod entities;
pub mod living;
pub mod nodes;
pub mod projects;
pub mod store;
pub mod sync;
pub mod topics;

pub use db::*;
