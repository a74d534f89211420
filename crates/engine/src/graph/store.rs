//! The store: one directory, `ELNOR_MEMORY`, holding the canonical graph, the continuity logs and
//! the config (SPEC §3). [`Store::open`] creates whatever is missing and never rewrites what is
//! there; [`Store::status`] summarises it.

use std::fs;
use std::path::{Path, PathBuf};

use crate::base::config::{ConfigFile, ContinuityConfig, ContinuityMode};
use crate::base::error::{Error, Result};
use crate::graph::Graph;

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
        Ok(Store {
            root,
            graph,
            config,
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
}

#[cfg(test)]
mod tests;
