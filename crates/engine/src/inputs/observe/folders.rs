//! The tracked folders: `config/tracked_folders.json`, the folders the file watcher observes and
//! the person's own ignore patterns. Canonical config, written atomically under a lock like every
//! other config file. A folder stays listed while it is missing from disk, so that it is watched
//! again when it comes back.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::base::error::{Error, Result};
use crate::base::fsutil::{LockGuard, atomic_write};
use crate::graph::store::Store;

/// The folders and patterns, as saved.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrackedConfig {
    pub folders: Vec<PathBuf>,
    /// Globs matched against a path relative to its tracked folder and against the file name.
    pub ignore_patterns: Vec<String>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Doc {
    schema_version: u32,
    #[serde(flatten)]
    config: TrackedConfig,
}

impl Store {
    /// The tracked folders file (`config/tracked_folders.json`): what the file watcher observes.
    pub fn tracked_folders(&self) -> TrackedFoldersFile {
        TrackedFoldersFile::new(&self.root().join("config"))
    }
}

/// The tracked folders file of a store.
#[derive(Debug, Clone)]
pub struct TrackedFoldersFile {
    path: PathBuf,
    lock_path: PathBuf,
}

impl TrackedFoldersFile {
    pub(crate) fn new(config_dir: &Path) -> TrackedFoldersFile {
        TrackedFoldersFile {
            path: config_dir.join("tracked_folders.json"),
            lock_path: config_dir.join(".tracked_folders.lock"),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The saved folders and patterns; none until the person adds one.
    pub fn load(&self) -> Result<TrackedConfig> {
        let bytes = match std::fs::read(&self.path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(TrackedConfig::default());
            }
            Err(e) => return Err(Error::io(&self.path, e)),
        };
        let doc: Doc = serde_json::from_slice(&bytes).map_err(|e| Error::ConfigSyntax {
            path: self.path.clone(),
            problem: format!("not a valid tracked folders file ({e})"),
        })?;
        self.check(&doc.config)?;
        Ok(doc.config)
    }

    /// Applies `change` and saves the result atomically.
    pub fn update(
        &self,
        change: impl FnOnce(&mut TrackedConfig) -> Result<()>,
    ) -> Result<TrackedConfig> {
        let _lock = LockGuard::acquire(&self.lock_path)?;
        let mut config = self.load()?;
        change(&mut config)?;
        self.check(&config)?;
        let doc = Doc {
            schema_version: 1,
            config: config.clone(),
        };
        let mut text = serde_json::to_string_pretty(&doc).map_err(|e| Error::ConfigSyntax {
            path: self.path.clone(),
            problem: e.to_string(),
        })?;
        text.push('\n');
        atomic_write(&self.path, text.as_bytes())?;
        Ok(config)
    }

    /// Tracks a folder (an absolute path; it need not exist yet). Tracking one twice, or a
    /// folder inside or around one already tracked, is refused: its files would be observed twice.
    pub fn add(&self, folder: &Path) -> Result<TrackedConfig> {
        let folder = normalize(folder);
        self.update(|c| {
            if let Some(other) = c
                .folders
                .iter()
                .find(|f| folder.starts_with(f) || f.starts_with(&folder))
            {
                return Err(Error::InvalidInput(if *other == folder {
                    format!("{} is already tracked", folder.display())
                } else {
                    format!(
                        "{} overlaps the tracked folder {}; track one or the other",
                        folder.display(),
                        other.display()
                    )
                }));
            }
            c.folders.push(folder.clone());
            Ok(())
        })
    }

    /// Stops tracking a folder. What was observed in it stays.
    pub fn remove(&self, folder: &Path) -> Result<TrackedConfig> {
        let folder = normalize(folder);
        self.update(|c| {
            let before = c.folders.len();
            c.folders.retain(|f| *f != folder);
            if c.folders.len() == before {
                return Err(Error::NotFound {
                    what: "tracked folder",
                    id: folder.display().to_string(),
                });
            }
            Ok(())
        })
    }

    /// Replaces the person's ignore patterns; blank lines are dropped.
    pub fn set_ignore_patterns(&self, patterns: Vec<String>) -> Result<TrackedConfig> {
        self.update(|c| {
            c.ignore_patterns = patterns
                .into_iter()
                .map(|p| p.trim().to_owned())
                .filter(|p| !p.is_empty())
                .collect();
            Ok(())
        })
    }

    fn check(&self, config: &TrackedConfig) -> Result<()> {
        for f in &config.folders {
            if !f.is_absolute() {
                return Err(Error::ConfigField {
                    path: self.path.clone(),
                    field: "folders[]".into(),
                    problem: format!("{} is not an absolute path", f.display()),
                    allowed: "an absolute directory path".into(),
                });
            }
        }
        for p in &config.ignore_patterns {
            super::ignore::compile(p).map_err(|problem| Error::ConfigField {
                path: self.path.clone(),
                field: "ignore_patterns[]".into(),
                problem,
                allowed: "glob patterns such as *.bak, drafts/** or ~$*".into(),
            })?;
        }
        Ok(())
    }
}

/// Drops a trailing separator and `.` components so one folder has one spelling.
fn normalize(path: &Path) -> PathBuf {
    path.components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect()
}
