//! OpenClaw's Dreaming (CSA §10): detected, explained, and turned off on request.
//!
//! Dreaming is OpenClaw's own background memory consolidation (its `memory-core` plugin): it
//! reads the same session transcripts ELNOR reads and writes its conclusions into the agent's
//! `MEMORY.md` and `DREAMS.md`. Running both gives the agent two memories that disagree, so ELNOR
//! deployments turn it off. Its switch is `plugins.entries.memory-core.config.dreaming.enabled`
//! in `openclaw.json`; newer OpenClaw releases turn it on by default, so an absent key counts as
//! on. Dreaming is off for certain when the switch says `false`, when the `memory-core` plugin
//! entry is disabled, or when another plugin (or `"none"`) holds the memory slot.
//!
//! [`disable_dreaming`] writes `enabled: false` explicitly, creating the objects on the way when
//! they are absent, through the same careful edit as `elnor setup` (backup, atomic write,
//! everything else in the file byte for byte). A file it cannot edit safely is an error that says
//! why and gives the exact line to add by hand.

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use jsonc_parser::cst::CstInputValue;
use serde::Serialize;

use crate::base::confedit;
use crate::base::error::{Error, Result};

use super::HarnessPaths;

/// The key that switches Dreaming, as a path from the top of `openclaw.json`.
pub const DREAMING_KEY: &str = "plugins.entries.memory-core.config.dreaming.enabled";

/// The line that turns Dreaming off, written to be pasted at the top level of `openclaw.json`
/// (merged with a `plugins` object already there).
pub const DREAMING_OFF_LINE: &str =
    r#"plugins: { entries: { "memory-core": { config: { dreaming: { enabled: false } } } } },"#;

/// Whether OpenClaw's Dreaming runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum DreamingState {
    /// Dreaming runs: `explicit` when the config says `enabled: true`, not when the key is
    /// absent and OpenClaw's default applies.
    On { explicit: bool },
    /// Dreaming does not run.
    Off,
    /// There is no OpenClaw config file (OpenClaw is not set up for this user).
    NoConfig,
    /// The config could not be read; `message` says why, with the line.
    Malformed { message: String },
}

/// Dreaming's state, with what it means in plain words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DreamingStatus {
    /// The OpenClaw config file looked at.
    pub path: PathBuf,
    #[serde(flatten)]
    pub state: DreamingState,
    /// What Dreaming does and what this state means for ELNOR, in plain words.
    pub what_it_does: String,
    /// The exact line that turns it off, for a person who edits the file by hand.
    pub line_to_add: String,
}

const WHAT_IT_DOES: &str = "OpenClaw's Dreaming reads your sessions in the background and \
    writes its own conclusions into the agent's MEMORY.md and DREAMS.md. ELNOR already keeps \
    that memory from the same transcripts, with provenance and your review; running both gives \
    the agent two memories that can disagree.";

/// Dreaming's state in the OpenClaw config `paths` names. Never fails: an unreadable config is
/// the [`DreamingState::Malformed`] state.
pub fn dreaming_status(paths: &HarnessPaths) -> DreamingStatus {
    let path = paths.openclaw_config.clone();
    let state = match read_state(&path) {
        Ok(state) => state,
        Err(e) => DreamingState::Malformed {
            message: e.to_string(),
        },
    };
    let meaning = match &state {
        DreamingState::On { explicit: true } => "It is on: the config turns it on.",
        DreamingState::On { explicit: false } => {
            "It is on: the config does not mention it, and recent OpenClaw releases turn it on \
             by default."
        }
        DreamingState::Off => "It is off.",
        DreamingState::NoConfig => "No OpenClaw config was found, so there is nothing to check.",
        DreamingState::Malformed { .. } => {
            "The OpenClaw config could not be read, so whether Dreaming runs is unknown."
        }
    };
    DreamingStatus {
        path,
        state,
        what_it_does: format!("{WHAT_IT_DOES} {meaning}"),
        line_to_add: DREAMING_OFF_LINE.to_owned(),
    }
}

fn read_state(path: &std::path::Path) -> Result<DreamingState> {
    let original = confedit::read(path)?;
    let Some(text) = original.text else {
        return Ok(DreamingState::NoConfig);
    };
    let root = confedit::parse_json5(path, &text)?;
    let value = root
        .value()
        .and_then(|v| v.to_serde_value())
        .unwrap_or(serde_json::Value::Null);
    let plugins = value.get("plugins");
    // The memory slot held by another plugin, or by none: memory-core, and so Dreaming, is off.
    if let Some(slot) = plugins
        .and_then(|p| p.get("slots"))
        .and_then(|s| s.get("memory"))
        .and_then(|m| m.as_str())
        && slot != "memory-core"
    {
        return Ok(DreamingState::Off);
    }
    let entry = plugins
        .and_then(|p| p.get("entries"))
        .and_then(|e| e.get("memory-core"));
    if entry.and_then(|e| e.get("enabled")) == Some(&serde_json::Value::Bool(false)) {
        return Ok(DreamingState::Off);
    }
    match entry
        .and_then(|e| e.get("config"))
        .and_then(|c| c.get("dreaming"))
        .and_then(|d| d.get("enabled"))
    {
        None => Ok(DreamingState::On { explicit: false }),
        Some(serde_json::Value::Bool(true)) => Ok(DreamingState::On { explicit: true }),
        Some(serde_json::Value::Bool(false)) => Ok(DreamingState::Off),
        Some(other) => Err(Error::HarnessConfig {
            path: path.to_owned(),
            problem: format!("`{DREAMING_KEY}` is {other}, not true or false"),
        }),
    }
}

/// What [`disable_dreaming`] did (or, dry, would do).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DreamingChange {
    pub path: PathBuf,
    /// Where the old config was copied before the write.
    pub backup: Option<PathBuf>,
    /// Whether the config changed (or would): false when it already said `enabled: false`.
    pub changed: bool,
    /// The change as a unified diff.
    pub diff: String,
    /// Whether the file was written (false on a dry run or when nothing changed).
    pub written: bool,
}

/// Writes `enabled: false` for Dreaming into the OpenClaw config (or, dry, shows the diff).
pub fn disable_dreaming(
    paths: &HarnessPaths,
    dry_run: bool,
    now: DateTime<Utc>,
) -> Result<DreamingChange> {
    let path = paths.openclaw_config.clone();
    let by_hand = |problem: String| Error::HarnessConfig {
        path: path.clone(),
        problem: format!(
            "{problem}. ELNOR cannot edit it safely; nothing was written. To turn Dreaming off \
             by hand, add this line at the top level of the file: {DREAMING_OFF_LINE}"
        ),
    };
    let original = confedit::read(&path)?;
    let Some(text) = original.text.clone() else {
        return Err(Error::HarnessConfig {
            path: path.clone(),
            problem: "no OpenClaw config here, so there is no Dreaming to turn off (set \
                      OPENCLAW_CONFIG_PATH if OpenClaw keeps its config elsewhere)"
                .into(),
        });
    };
    let root = confedit::parse_json5(&path, &text).map_err(|e| by_hand(e.to_string()))?;
    let obj = root.object_value_or_set();
    let mut at = obj;
    for key in ["plugins", "entries", "memory-core", "config", "dreaming"] {
        at = at.object_value_or_create(key).ok_or_else(|| {
            by_hand(format!(
                "`{key}` on the way to `{DREAMING_KEY}` is not an object"
            ))
        })?;
    }
    match at.get("enabled") {
        Some(prop) => match prop.value().and_then(|v| v.as_boolean_lit()) {
            Some(b) if !b.value() => {}
            _ => prop.set_value(CstInputValue::Bool(false)),
        },
        None => {
            at.append("enabled", CstInputValue::Bool(false));
        }
    }
    let new = root.to_string();
    // The edit must read back as off; anything else means the tree did not do what was asked.
    let check = confedit::parse_json5(&path, &new)
        .ok()
        .and_then(|r| r.value().and_then(|v| v.to_serde_value()));
    let off = check.as_ref().and_then(|v| {
        v.pointer("/plugins/entries/memory-core/config/dreaming/enabled")
            .and_then(|b| b.as_bool())
    }) == Some(false);
    if !off {
        return Err(by_hand(
            "the edit did not read back as `enabled: false`".into(),
        ));
    }
    let changed = new != text;
    let diff = if changed {
        confedit::unified_diff(&path, Some(&text), &new)
    } else {
        String::new()
    };
    let backup = if changed && !dry_run {
        confedit::replace(&original, &new, now)?
    } else {
        None
    };
    Ok(DreamingChange {
        path,
        backup,
        changed,
        diff,
        written: changed && !dry_run,
    })
}

#[cfg(test)]
mod tests;
