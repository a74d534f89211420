//! The continuity log (CSA §3): one append-only JSONL file per work context,
//! `continuity/{work_context_id}.jsonl`, holding [`ContinuityEntry`] lines of `schema_version: 2`.
//!
//! The entry types live in `entry`, the file handling (locking, fsync, torn-line repair, counted
//! skips) in `log`.

mod entry;
mod log;
mod status;
mod store;

pub use entry::ENTRY_SCHEMA_VERSION;
pub use entry::{
    CaptureMode, ContinuityEntry, CrossConversationUpdateContent, EntryContent, EntryType,
    KeyDecisionContent, OpenQuestionContent, SessionSummaryRefContent, WorkPhase,
    WorkPhaseChangeContent,
};
pub(crate) use log::read_lines;
pub use log::{ContinuityLog, LogMark, LogRead, SkippedLine, TornRepair};
pub use status::Status;

#[cfg(test)]
mod tests;
