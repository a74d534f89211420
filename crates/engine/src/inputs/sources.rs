//! Where transcripts come from: `config/transcript_sources.json`, a list of harness roots that can
//! each be disabled. Until the person changes anything, the list is the auto-detected defaults:
//!
//! | harness | roots |
//! |---|---|
//! | OpenClaw | `~/.openclaw/agents` (per-agent `sessions/*.jsonl` and `agent/openclaw-agent.sqlite`), `~/.pi/agent/sessions` |
//! | Claude Code | `~/.claude/projects` |
//! | Codex | `$CODEX_HOME/sessions`, else `~/.codex/sessions` |

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::base::error::{Error, Result};
use crate::base::fsutil::{LockGuard, atomic_write};
use crate::graph::store::Store;
use crate::inputs::ingest::SourceRoot;
use crate::inputs::transcripts::Harness;

/// One configured transcript root.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TranscriptSource {
    pub harness: Harness,
    pub root: PathBuf,
    pub enabled: bool,
}

/// The sources file on disk.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct SourcesDoc {
    schema_version: u32,
    sources: Vec<TranscriptSource>,
}

/// The default roots for a home directory and an optional `$CODEX_HOME`.
pub fn default_sources(home: &Path, codex_home: Option<&Path>) -> Vec<TranscriptSource> {
    let codex = codex_home
        .map(|c| c.join("sessions"))
        .unwrap_or_else(|| home.join(".codex/sessions"));
    [
        (Harness::OpenClaw, home.join(".openclaw/agents")),
        (Harness::OpenClaw, home.join(".pi/agent/sessions")),
        (Harness::ClaudeCode, home.join(".claude/projects")),
        (Harness::Codex, codex),
    ]
    .into_iter()
    .map(|(harness, root)| TranscriptSource {
        harness,
        root,
        enabled: true,
    })
    .collect()
}

/// The defaults for this machine's user.
pub fn detected_defaults() -> Vec<TranscriptSource> {
    let home = directories::BaseDirs::new()
        .map(|d| d.home_dir().to_owned())
        .unwrap_or_else(|| PathBuf::from("/"));
    let codex_home = std::env::var_os("CODEX_HOME").map(PathBuf::from);
    default_sources(&home, codex_home.as_deref())
}

impl Store {
    /// The transcript sources file (`config/transcript_sources.json`).
    pub fn sources(&self) -> SourcesFile {
        SourcesFile::new(&self.root().join("config"))
    }
}

/// The sources file of a store.
#[derive(Debug, Clone)]
pub struct SourcesFile {
    path: PathBuf,
    lock_path: PathBuf,
}

impl SourcesFile {
    pub(crate) fn new(config_dir: &Path) -> SourcesFile {
        SourcesFile {
            path: config_dir.join("transcript_sources.json"),
            lock_path: config_dir.join(".transcript_sources.lock"),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The configured sources, or the detected defaults when none were ever saved.
    pub fn load(&self) -> Result<Vec<TranscriptSource>> {
        let bytes = match std::fs::read(&self.path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(detected_defaults()),
            Err(e) => return Err(Error::io(&self.path, e)),
        };
        let doc: SourcesDoc = serde_json::from_slice(&bytes).map_err(|e| Error::ConfigSyntax {
            path: self.path.clone(),
            problem: format!("not a valid sources file ({e})"),
        })?;
        for s in &doc.sources {
            check_root(&self.path, &s.root)?;
        }
        Ok(doc.sources)
    }

    /// Applies `change` to the current list and saves it atomically.
    pub fn update(
        &self,
        change: impl FnOnce(&mut Vec<TranscriptSource>) -> Result<()>,
    ) -> Result<Vec<TranscriptSource>> {
        let _lock = LockGuard::acquire(&self.lock_path)?;
        let mut sources = self.load()?;
        change(&mut sources)?;
        for s in &sources {
            check_root(&self.path, &s.root)?;
        }
        let doc = SourcesDoc {
            schema_version: 1,
            sources: sources.clone(),
        };
        let mut text = serde_json::to_string_pretty(&doc).map_err(|e| Error::ConfigSyntax {
            path: self.path.clone(),
            problem: e.to_string(),
        })?;
        text.push('\n');
        atomic_write(&self.path, text.as_bytes())?;
        Ok(sources)
    }

    /// Adds a root (enabled), or re-enables it if already listed.
    pub fn add(&self, harness: Harness, root: PathBuf) -> Result<Vec<TranscriptSource>> {
        self.update(|list| {
            match list
                .iter_mut()
                .find(|s| s.harness == harness && s.root == root)
            {
                Some(s) => s.enabled = true,
                None => list.push(TranscriptSource {
                    harness,
                    root,
                    enabled: true,
                }),
            }
            Ok(())
        })
    }

    /// Enables or disables a listed root.
    pub fn set_enabled(
        &self,
        harness: Harness,
        root: &Path,
        enabled: bool,
    ) -> Result<Vec<TranscriptSource>> {
        self.update(|list| {
            let s = list
                .iter_mut()
                .find(|s| s.harness == harness && s.root == root)
                .ok_or_else(|| Error::NotFound {
                    what: "transcript source",
                    id: format!("{} {}", harness.as_str(), root.display()),
                })?;
            s.enabled = enabled;
            Ok(())
        })
    }

    /// The enabled roots, ready for ingest.
    pub fn enabled_roots(&self) -> Result<Vec<SourceRoot>> {
        Ok(self
            .load()?
            .into_iter()
            .filter(|s| s.enabled)
            .map(|s| SourceRoot {
                harness: s.harness,
                root: s.root,
            })
            .collect())
    }
}

fn check_root(file: &Path, root: &Path) -> Result<()> {
    if !root.is_absolute() {
        return Err(Error::ConfigField {
            path: file.to_owned(),
            field: "sources[].root".into(),
            problem: format!("{} is not an absolute path", root.display()),
            allowed: "an absolute directory path".into(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_until_changed_then_persisted() {
        let dir = tempfile::tempdir().unwrap();
        let file = SourcesFile::new(dir.path());
        let defaults = default_sources(Path::new("/home/u"), None);
        assert_eq!(defaults.len(), 4);
        assert_eq!(defaults[3].root, PathBuf::from("/home/u/.codex/sessions"));
        let with_codex_home = default_sources(Path::new("/home/u"), Some(Path::new("/c")));
        assert_eq!(with_codex_home[3].root, PathBuf::from("/c/sessions"));
        assert!(!file.path().exists());

        let list = file.add(Harness::Codex, "/data/codex".into()).unwrap();
        assert!(
            list.iter()
                .any(|s| s.root == Path::new("/data/codex") && s.enabled)
        );
        let list = file
            .set_enabled(Harness::Codex, Path::new("/data/codex"), false)
            .unwrap();
        assert!(
            list.iter()
                .any(|s| s.root == Path::new("/data/codex") && !s.enabled)
        );
        assert!(
            !file
                .enabled_roots()
                .unwrap()
                .iter()
                .any(|r| r.root == Path::new("/data/codex"))
        );
        let err = file.add(Harness::Codex, "relative/dir".into()).unwrap_err();
        assert!(err.to_string().contains("not an absolute path"), "{err}");
        let err = file
            .set_enabled(Harness::ClaudeCode, Path::new("/nowhere"), true)
            .unwrap_err();
        assert!(err.to_string().contains("no transcript source"), "{err}");
    }
}
