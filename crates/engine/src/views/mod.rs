//! The views layer: derived data, rebuilt from the canonical graph and logs, deletable at any
//! time.
//!
//! - [`constellation`]: each work context's Tier 1 card, a file under `views/` with the
//!   fingerprint of what it was built from;
//! - [`rollup`]: the Tier 2 digest across work contexts;
//! - [`heads`]: the global head `heads/MEMORY.md` and one thread head per work context, written
//!   under leases, and into marked blocks of other tools' files;
//! - [`overview`], [`timeline`]: the read models of the app's home and timeline pages;
//! - [`search`]: the tantivy index over turns, entries and summaries, and its queries;
//! - [`lineage`]: the lineage DAG, every summary with its coverage edges down to raw turns.
//!
//! Architecture Invariant: a view rebuilt from the same canonical data has the same bytes. Views
//! are rebuilt by the use cases, never by the writers below.

pub mod constellation;
pub mod heads;
pub mod library;
pub mod lineage;
pub mod overview;
pub mod rollup;
pub mod search;
pub mod timeline;
pub mod topics;
