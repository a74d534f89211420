//! The store: one directory, `ELNOR_MEMORY`, holding the canonical graph, the continuity logs and
//! the config (SPEC §3). [`Store::open`] creates whatever is missing and never rewrites what is
//! there; [`Store::status`] summarises it.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::config::{ConfigFile, ContinuityConfig, ContinuityMode};
use crate::continuity::{ContinuityLog, EntryType};
use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::ids::WorkContextId;

/// Where a store lives.
pub struct StoreLocation;

impl StoreLocation {
    /// The environment variable naming the store directory.
    pub const ENV: &'static str = "ELNOR_MEMORY";

    /// The store directory: an explicit flag wins, then `ELNOR_MEMORY`, then the platform data
    /// dir (`~/.local/share/elnor` on Linux).
    pub fn resolve(flag: Option<PathBuf>) -> Result<PathBuf> {
        if let Some(path) = flag {
            return Ok(path);
        }
        if let Some(path) = std::env::var_os(Self::ENV).filter(|v| !v.is_empty()) {
            return Ok(PathBuf::from(path));
        }
        directories::ProjectDirs::from("", "", "elnor")
            .map(|dirs| dirs.data_dir().to_owned())
            .ok_or_else(|| {
                Error::io(
                    "~",
                    std::io::Error::new(
                        std::io::ErrorKind::NotFound,
                        "no home directory; set ELNOR_MEMORY or pass --store",
                    ),
                )
            })
    }
}

/// An open store.
#[derive(Debug)]
pub struct Store {
    root: PathBuf,
    graph: Graph,
    config: ConfigFile,
    sources: crate::sources::SourcesFile,
    tracked: crate::observe::TrackedFoldersFile,
}

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
    /// Opens the store at `root`, creating the directory layout, a default config and the graph
    /// when they are missing.
    pub fn open(root: impl Into<PathBuf>) -> Result<Store> {
        let root = root.into();
        for dir in [root.clone(), root.join("continuity"), root.join("config")] {
            fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        }
        // Relative paths would change meaning if the process changes directory; resolve once.
        let root = fs::canonicalize(&root).map_err(|e| Error::io(&root, e))?;
        let config = ConfigFile::new(&root.join("config"));
        config.ensure_exists()?;
        let graph = Graph::open(&root.join("entity_graph.sqlite"))?;
        let sources = crate::sources::SourcesFile::new(&root.join("config"));
        let tracked = crate::observe::TrackedFoldersFile::new(&root.join("config"));
        Ok(Store {
            root,
            graph,
            config,
            sources,
            tracked,
        })
    }

    /// The store directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The graph.
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// The config file.
    pub fn config_file(&self) -> &ConfigFile {
        &self.config
    }

    /// The transcript sources file.
    pub fn sources(&self) -> &crate::sources::SourcesFile {
        &self.sources
    }

    /// The tracked folders file (what the file watcher observes).
    pub fn tracked_folders(&self) -> &crate::observe::TrackedFoldersFile {
        &self.tracked
    }

    /// Loads and validates the config.
    pub fn config(&self) -> Result<ContinuityConfig> {
        self.config.load()
    }

    /// Sets one config field from its textual form.
    pub fn set_config(&self, key: &str, raw: &str) -> Result<ContinuityConfig> {
        self.config.set(key, raw)
    }

    /// Sets the continuity mode.
    pub fn set_mode(&self, mode: ContinuityMode) -> Result<ContinuityConfig> {
        self.config.set_mode(mode)
    }

    /// The continuity log of a work context (the file may not exist yet).
    pub fn log(&self, work_context_id: &WorkContextId) -> ContinuityLog {
        ContinuityLog::new(&self.root.join("continuity"), work_context_id.clone())
    }

    /// Every work context that has a continuity log, sorted. Files whose names are not valid work
    /// context ids are ignored: the engine never writes them, so they are not logs.
    pub fn log_ids(&self) -> Result<Vec<WorkContextId>> {
        let dir = self.root.join("continuity");
        let mut ids = Vec::new();
        for item in fs::read_dir(&dir).map_err(|e| Error::io(&dir, e))? {
            let item = item.map_err(|e| Error::io(&dir, e))?;
            let name = item.file_name();
            let Some(stem) = name.to_str().and_then(|n| n.strip_suffix(".jsonl")) else {
                continue;
            };
            if let Ok(id) = WorkContextId::new(stem) {
                ids.push(id);
            }
        }
        ids.sort();
        Ok(ids)
    }

    /// Ingests every transcript under `roots` (see [`crate::ingest`]). Runs on its own database
    /// connection, so the store stays responsive to other calls meanwhile.
    pub fn ingest(
        &self,
        roots: &[crate::ingest::SourceRoot],
        progress: &mut dyn FnMut(&crate::ingest::IngestProgress),
    ) -> Result<crate::ingest::IngestReport> {
        let mut conn = self.graph.open_connection()?;
        // Ingest copies what is still in the harness files: if power fails before the WAL reaches
        // the disk, the next run reads those records again. So the per-commit fsync that the
        // graph's own writes need is not needed here, and it would dominate small files.
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(|e| self.graph.sql(e))?;
        let mut report = crate::ingest::ingest(&mut conn, self.graph.path(), roots, progress)?;
        drop(conn);
        // New sessions may name projects not seen before: each gets its work context now, so the
        // first capture already lands there.
        let projects =
            crate::contexts::ensure_projects(self, &report.touched, crate::clock::now())?;
        report.projects_created = projects.created.len() as u64;
        Ok(report)
    }

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
        let mut contexts: BTreeSet<String> = self.graph.work_context_ids()?.into_iter().collect();
        contexts.extend(log_ids.iter().map(|id| id.as_str().to_owned()));
        let (config, config_error) = match self.config() {
            Ok(c) => (Some(c), None),
            Err(e) => (None, Some(e.to_string())),
        };
        Ok(Status {
            store_path: self.root.clone(),
            schema_version: self.graph.schema_version()?,
            log_schema_version: crate::continuity::ENTRY_SCHEMA_VERSION,
            entities: self.graph.entity_count()?,
            work_contexts: contexts.len() as u64,
            continuity_logs: log_ids.len() as u64,
            entries_total,
            entries_by_type: by_type,
            skipped_lines,
            sessions: self
                .graph
                .count("SELECT count(*) FROM transcript_sessions")?,
            transcript_records: self.graph.count("SELECT count(*) FROM turns")?,
            config,
            config_error,
        })
    }
}

#[cfg(test)]
mod tests;
