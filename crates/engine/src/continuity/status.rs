//! [`Status`]: the summary of a store that `elnor status` and the app's header show. It counts
//! both canonical stores, the graph and the continuity logs, so it sits in the first layer that
//! sees both.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use serde::Serialize;

use crate::base::config::ContinuityConfig;
use crate::base::error::Result;
use crate::continuity::EntryType;
use crate::graph::store::Store;

/// What `status` reports.
#[derive(Debug, Clone, Serialize)]
pub struct Status {
    pub store_path: PathBuf,
    /// The graph's schema version.
    pub schema_version: u32,
    /// The continuity log's entry schema version.
    pub log_schema_version: u32,
    pub entities: u64,
    /// Work contexts known to the graph or having a continuity log.
    pub work_contexts: u64,
    pub continuity_logs: u64,
    pub entries_total: u64,
    /// Every entry type, including those with zero entries.
    pub entries_by_type: BTreeMap<&'static str, u64>,
    /// Lines skipped as unreadable across all logs.
    pub skipped_lines: u64,
    /// Transcript sessions and raw records ingested.
    pub sessions: u64,
    pub transcript_records: u64,
    /// The config, when it is valid.
    pub config: Option<ContinuityConfig>,
    /// Why the config could not be loaded, when it could not.
    pub config_error: Option<String>,
}

impl Store {
    /// Summarises the store. This reads every continuity log once, so it costs time linear in the
    /// log size; an invalid config is reported in the status rather than failing it.
    pub fn status(&self) -> Result<Status> {
        let mut by_type: BTreeMap<&'static str, u64> =
            EntryType::ALL.iter().map(|t| (t.as_str(), 0)).collect();
        let mut entries_total = 0;
        let mut skipped_lines = 0;
        let log_ids = self.log_ids()?;
        for id in &log_ids {
            let read = self.log(id).read()?;
            skipped_lines += read.skipped.len() as u64;
            for entry in &read.entries {
                *by_type.entry(entry.entry_type().as_str()).or_default() += 1;
                entries_total += 1;
            }
        }
        let mut contexts: BTreeSet<String> = self.graph().work_context_ids()?.into_iter().collect();
        contexts.extend(log_ids.iter().map(|id| id.as_str().to_owned()));
        let (config, config_error) = match self.config() {
            Ok(c) => (Some(c), None),
            Err(e) => (None, Some(e.to_string())),
        };
        Ok(Status {
            store_path: self.root().to_path_buf(),
            schema_version: self.graph().schema_version()?,
            log_schema_version: crate::continuity::ENTRY_SCHEMA_VERSION,
            entities: self.graph().entity_count()?,
            work_contexts: contexts.len() as u64,
            continuity_logs: log_ids.len() as u64,
            entries_total,
            entries_by_type: by_type,
            skipped_lines,
            sessions: self
                .graph()
                .count("SELECT count(*) FROM transcript_sessions")?,
            // Turns are immutable (a trigger refuses a delete) and `seq` is SQLite's rowid, which
            // an insert sets to the largest plus one, so the largest is the count. Counting the
            // rows walks a whole index instead: 3.3 s from a cold disk at two million turns,
            // which Home waited for on the first start of the day.
            transcript_records: self
                .graph()
                .count("SELECT coalesce(max(seq), 0) FROM turns")?,
            config,
            config_error,
        })
    }
}
