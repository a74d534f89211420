//! The review layer: how knowledge becomes durable and how it ages.
//!
//! - [`promotion`]: proposals from repeated continuity entries, and the person's decisions on
//!   them in the review queue;
//! - [`sweep`]: durable nodes walked down the degradation ladder when their sources decay or are
//!   contradicted;
//! - [`utility`]: how often the brief's lines were used, which the review queue shows.
//!
//! Architecture Invariant: the review layer reads the brief's traces but the brief never reads
//! review state other than the nodes it writes into the graph.

pub mod promotion;
pub mod sweep;
pub mod topics;
pub mod utility;
