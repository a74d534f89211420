//! `elnor hook`: what a harness hook hands ELNOR, what each event does, and the record of every
//! time a hook fired.
//!
//! Claude Code and Codex run a command hook with a JSON object on standard input
//! (`hook_event_name`, `session_id`, `transcript_path`, `cwd`, and per event `source`, `trigger`
//! or `reason`); [`HookInput`] reads the fields ELNOR uses and ignores the rest, so a harness
//! that adds fields never breaks a hook. [`hook_action`] decides what an event does: the brief at
//! session start (every source, including after `/clear` and after a compaction), an ingest and a
//! capture before a compaction, a capture started in the background when a session ends, and
//! nothing else (above all nothing printed at `Stop`, where output would keep the agent going).
//!
//! Every invocation is recorded per (harness, event) in `hook_fires` (migration 12): when it last
//! fired and how often. [`hook_status`] sets that beside what the harness's settings say is
//! installed, which is how `elnor doctor` and Today tell a hook that never runs (a Codex hook not
//! yet trusted, a settings file the harness does not read) from one that works.

use std::collections::BTreeSet;
use std::path::PathBuf;

use chrono::{DateTime, Utc};
use rusqlite::params;
use serde::{Deserialize, Serialize};

use crate::base::confedit;
use crate::base::error::{Error, Result};
use crate::brief::Format;
use crate::graph::entities::{parse_ts, ts};
use crate::graph::store::Store;
use crate::inputs::transcripts::Harness;

use super::HarnessPaths;

/// A hook event, by the name the harnesses give it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum HookEvent {
    SessionStart,
    UserPromptSubmit,
    PreCompact,
    PostCompact,
    Stop,
    SessionEnd,
    /// Any other event a person wired to `elnor hook`: recorded, nothing else.
    Other(String),
}

impl HookEvent {
    pub fn parse(name: &str) -> HookEvent {
        match name {
            "SessionStart" => HookEvent::SessionStart,
            "UserPromptSubmit" => HookEvent::UserPromptSubmit,
            "PreCompact" => HookEvent::PreCompact,
            "PostCompact" => HookEvent::PostCompact,
            "Stop" => HookEvent::Stop,
            "SessionEnd" => HookEvent::SessionEnd,
            other => HookEvent::Other(other.to_owned()),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            HookEvent::SessionStart => "SessionStart",
            HookEvent::UserPromptSubmit => "UserPromptSubmit",
            HookEvent::PreCompact => "PreCompact",
            HookEvent::PostCompact => "PostCompact",
            HookEvent::Stop => "Stop",
            HookEvent::SessionEnd => "SessionEnd",
            HookEvent::Other(name) => name,
        }
    }
}

/// The fields of a hook's input that ELNOR reads. Every field is optional here; the events that
/// need one say so ([`HookInput::event`], the CLI for `session_id`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
pub struct HookInput {
    pub hook_event_name: Option<String>,
    pub session_id: Option<String>,
    pub transcript_path: Option<String>,
    pub cwd: Option<String>,
    /// SessionStart: `startup`, `resume`, `clear` or `compact`.
    pub source: Option<String>,
    /// PreCompact / PostCompact: `manual` or `auto`.
    pub trigger: Option<String>,
    /// SessionEnd: why the session ended.
    pub reason: Option<String>,
}

impl HookInput {
    /// Reads a hook's input. It must be one JSON object; fields ELNOR does not read are ignored,
    /// and so is `null` where a string is expected (Codex sends `"transcript_path": null`).
    pub fn parse(raw: &str) -> Result<HookInput> {
        if raw.trim().is_empty() {
            return Err(Error::InvalidInput(
                "no hook input: `elnor hook` expects the JSON object the harness writes on \
                 standard input"
                    .into(),
            ));
        }
        let value: serde_json::Value = serde_json::from_str(raw).map_err(|e| {
            Error::InvalidInput(format!(
                "the hook input is not JSON (line {}, column {}: {e})",
                e.line(),
                e.column()
            ))
        })?;
        if !value.is_object() {
            return Err(Error::InvalidInput(
                "the hook input is JSON but not an object ({ … })".into(),
            ));
        }
        serde_json::from_value(value).map_err(|e| {
            Error::InvalidInput(format!("the hook input has a field of the wrong kind: {e}"))
        })
    }

    /// The event this input is for.
    pub fn event(&self) -> Result<HookEvent> {
        match self.hook_event_name.as_deref().map(str::trim) {
            Some(name) if valid_event_name(name) => Ok(HookEvent::parse(name)),
            Some(name) => Err(Error::InvalidInput(format!(
                "the hook input's hook_event_name {name:?} is not an event name"
            ))),
            None => Err(Error::InvalidInput(
                "the hook input has no hook_event_name".into(),
            )),
        }
    }
}

/// Event names are short words: letters and digits.
fn valid_event_name(name: &str) -> bool {
    !name.is_empty() && name.len() <= 64 && name.chars().all(|c| c.is_ascii_alphanumeric())
}

/// What `elnor hook` does for one event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum HookAction {
    /// Print the brief in this format (a session started, resumed, was cleared or compacted).
    Brief(Format),
    /// Ingest, then capture the session with the pre-compaction trigger; print nothing.
    IngestAndCapture,
    /// Start the ingest and capture in a process of its own and return at once (Claude Code
    /// gives all SessionEnd hooks together 1.5 s); print nothing.
    CaptureInBackground,
    /// Only the record of the fire; print nothing. `Stop` above all: output there would make
    /// the agent keep going.
    RecordOnly,
}

/// What `event` does for `harness`.
pub fn hook_action(harness: Harness, event: &HookEvent) -> HookAction {
    match event {
        HookEvent::SessionStart => HookAction::Brief(match harness {
            Harness::ClaudeCode => Format::ClaudeCode,
            Harness::Codex => Format::Codex,
            // OpenClaw has no command hooks; a plugin that calls `elnor hook` injects text.
            Harness::OpenClaw => Format::Cards,
        }),
        HookEvent::PreCompact => HookAction::IngestAndCapture,
        HookEvent::SessionEnd => HookAction::CaptureInBackground,
        HookEvent::UserPromptSubmit
        | HookEvent::PostCompact
        | HookEvent::Stop
        | HookEvent::Other(_) => HookAction::RecordOnly,
    }
}

/// The events ELNOR installs for each harness, in the order `elnor setup` writes them. Codex has
/// no SessionEnd (its sessions are captured when they go idle); OpenClaw has no command hooks.
pub fn installed_events(harness: Harness) -> &'static [&'static str] {
    match harness {
        Harness::ClaudeCode => &["SessionStart", "PreCompact", "SessionEnd"],
        Harness::Codex => &["SessionStart", "PreCompact"],
        Harness::OpenClaw => &[],
    }
}

/// Records that `harness` fired `event` at `now`.
pub fn record_hook_fire(
    store: &Store,
    harness: Harness,
    event: &str,
    now: DateTime<Utc>,
) -> Result<()> {
    if !valid_event_name(event) {
        return Err(Error::InvalidInput(format!(
            "{event:?} is not a hook event name"
        )));
    }
    let at = ts(now);
    store.graph().with_conn_result(|c| {
        c.execute(
            "INSERT INTO hook_fires (harness, event, first_fired_at, last_fired_at, fire_count)
             VALUES (?1, ?2, ?3, ?3, 1)
             ON CONFLICT (harness, event) DO UPDATE SET
               last_fired_at = max(last_fired_at, excluded.last_fired_at),
               fire_count = fire_count + 1",
            params![harness.as_str(), event, at],
        )
    })?;
    Ok(())
}

/// One (harness, event) that has fired.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HookFire {
    #[serde(serialize_with = "Harness::serialize_name")]
    pub harness: Harness,
    pub event: String,
    pub first_fired_at: DateTime<Utc>,
    pub last_fired_at: DateTime<Utc>,
    pub count: u64,
}

/// Every (harness, event) that has fired, by harness then event.
pub fn hook_fires(store: &Store) -> Result<Vec<HookFire>> {
    let rows: Vec<(String, String, String, String, i64)> = store.graph().with_conn_result(|c| {
        let mut stmt = c.prepare_cached(
            "SELECT harness, event, first_fired_at, last_fired_at, fire_count FROM hook_fires
             ORDER BY harness, event",
        )?;
        stmt.query_map([], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })?
        .collect()
    })?;
    Ok(rows
        .into_iter()
        .filter_map(|(h, event, first, last, count)| {
            Some(HookFire {
                harness: Harness::parse(&h)?,
                event,
                first_fired_at: parse_ts(Some(first))?,
                last_fired_at: parse_ts(Some(last))?,
                count: count.max(0) as u64,
            })
        })
        .collect())
}

/// One hook of one harness: whether its settings install it, and whether it has fired.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HookStatus {
    #[serde(serialize_with = "Harness::serialize_name")]
    pub harness: Harness,
    pub event: String,
    /// An ELNOR command is configured for this event in the harness's settings.
    pub installed: bool,
    /// The settings file that holds it (or would: the one `elnor setup` writes).
    pub config_path: PathBuf,
    /// When that settings file last changed, if it exists.
    pub config_changed_at: Option<DateTime<Utc>>,
    pub last_fired_at: Option<DateTime<Utc>>,
    pub fire_count: u64,
    /// Why the settings could not be read, in words; `installed` is then false.
    pub problem: Option<String>,
}

/// Every hook ELNOR installs for Claude Code and Codex, and every other (harness, event) that has
/// fired, with what the settings say and what the record says. Reads the two small settings files
/// of each harness; nothing else.
pub fn hook_status(store: &Store, paths: &HarnessPaths) -> Result<Vec<HookStatus>> {
    let fires = hook_fires(store)?;
    let mut out = Vec::new();
    for harness in [Harness::ClaudeCode, Harness::Codex, Harness::OpenClaw] {
        let mut events: Vec<String> = installed_events(harness)
            .iter()
            .map(|e| (*e).to_owned())
            .collect();
        for f in fires.iter().filter(|f| f.harness == harness) {
            if !events.contains(&f.event) {
                events.push(f.event.clone());
            }
        }
        if events.is_empty() {
            continue;
        }
        let found = configured(harness, paths);
        for event in events {
            let fire = fires
                .iter()
                .find(|f| f.harness == harness && f.event == event);
            let (installed, problem) = match &found.events {
                Ok(set) => (set.contains(&event), None),
                Err(e) => (false, Some(e.clone())),
            };
            out.push(HookStatus {
                harness,
                event,
                installed,
                config_path: found.path.clone(),
                config_changed_at: found.changed_at,
                last_fired_at: fire.map(|f| f.last_fired_at),
                fire_count: fire.map_or(0, |f| f.count),
                problem,
            });
        }
    }
    Ok(out)
}

/// What a harness's settings configure: the events with an ELNOR command, or why they could not
/// be read; the file they are in, and when it last changed.
pub(crate) struct Configured {
    pub(crate) path: PathBuf,
    pub(crate) changed_at: Option<DateTime<Utc>>,
    pub(crate) events: std::result::Result<BTreeSet<String>, String>,
}

/// Reads which events `harness`'s settings run ELNOR for: Claude Code's `settings.json`; Codex's
/// `hooks.json` and the inline `[hooks]` of its `config.toml`.
pub(crate) fn configured(harness: Harness, paths: &HarnessPaths) -> Configured {
    let changed = |p: &std::path::Path| {
        std::fs::metadata(p)
            .and_then(|m| m.modified())
            .ok()
            .map(DateTime::<Utc>::from)
    };
    match harness {
        Harness::ClaudeCode => {
            let path = paths.claude_settings();
            Configured {
                changed_at: changed(&path),
                events: json_hook_events(&path),
                path,
            }
        }
        // OpenClaw runs no command hooks from its settings: nothing there is installed.
        Harness::OpenClaw => Configured {
            changed_at: changed(&paths.openclaw_config),
            events: Ok(BTreeSet::new()),
            path: paths.openclaw_config.clone(),
        },
        Harness::Codex => {
            let path = paths.codex_hooks();
            let mut events = json_hook_events(&path);
            if let (Ok(set), Ok(inline)) = (&mut events, toml_hook_events(&paths.codex_config())) {
                set.extend(inline);
            }
            Configured {
                changed_at: changed(&path),
                events,
                path,
            }
        }
    }
}

/// The events of a `{"hooks": {Event: [{hooks: [{command}]}]}}` JSON file that run ELNOR.
fn json_hook_events(path: &std::path::Path) -> std::result::Result<BTreeSet<String>, String> {
    let original = confedit::read(path).map_err(|e| e.to_string())?;
    let Some(text) = original.text else {
        return Ok(BTreeSet::new());
    };
    let root = confedit::parse_json5(path, &text).map_err(|e| e.to_string())?;
    let value = root
        .value()
        .and_then(|v| v.to_serde_value())
        .unwrap_or(serde_json::Value::Null);
    let mut out = BTreeSet::new();
    if let Some(hooks) = value.get("hooks").and_then(|h| h.as_object()) {
        for (event, groups) in hooks {
            let ours = groups.as_array().into_iter().flatten().any(|g| {
                g.get("hooks")
                    .and_then(|h| h.as_array())
                    .into_iter()
                    .flatten()
                    .filter_map(|h| h.get("command").and_then(|c| c.as_str()))
                    .any(is_elnor_command)
            });
            if ours {
                out.insert(event.clone());
            }
        }
    }
    Ok(out)
}

/// The events of Codex's inline `[[hooks.Event]]` tables that run ELNOR.
fn toml_hook_events(path: &std::path::Path) -> std::result::Result<BTreeSet<String>, String> {
    let original = confedit::read(path).map_err(|e| e.to_string())?;
    let Some(text) = original.text else {
        return Ok(BTreeSet::new());
    };
    let doc = confedit::parse_toml(path, &text).map_err(|e| e.to_string())?;
    Ok(configured_inline_codex(&doc))
}

/// The events whose inline hooks in a Codex `config.toml` run ELNOR.
pub(crate) fn configured_inline_codex(doc: &toml_edit::DocumentMut) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let Some(hooks) = doc.get("hooks").and_then(|h| h.as_table_like()) else {
        return out;
    };
    // Each event holds groups, each group a list of handlers with a `command`; TOML can write
    // either level as an array of tables or as an inline array.
    fn tables(item: Option<&toml_edit::Item>) -> Vec<&dyn toml_edit::TableLike> {
        match item {
            Some(toml_edit::Item::ArrayOfTables(a)) => {
                a.iter().map(|t| t as &dyn toml_edit::TableLike).collect()
            }
            Some(toml_edit::Item::Value(toml_edit::Value::Array(a))) => a
                .iter()
                .filter_map(|v| v.as_inline_table().map(|t| t as &dyn toml_edit::TableLike))
                .collect(),
            _ => Vec::new(),
        }
    }
    for (event, groups) in hooks.iter() {
        let ours = tables(Some(groups)).iter().any(|g| {
            tables(g.get("hooks"))
                .iter()
                .filter_map(|h| h.get("command").and_then(|c| c.as_str()))
                .any(is_elnor_command)
        });
        if ours {
            out.insert(event.to_owned());
        }
    }
    out
}

/// Whether a hook's shell command runs ELNOR: the current `elnor … hook` form, or the recipes
/// the docs gave before it (`elnor brief … --hook-stdin`, `elnor ingest && elnor capture …`), so
/// that `elnor setup` replaces an old entry instead of adding a second one beside it.
pub(crate) fn is_elnor_command(command: &str) -> bool {
    let words = shell_words(command);
    let is_elnor = |w: &str| {
        let name = w.rsplit(['/', '\\']).next().unwrap_or(w);
        name == "elnor" || name == "elnor.exe"
    };
    words.iter().enumerate().any(|(i, w)| {
        is_elnor(w)
            && words[i + 1..]
                .iter()
                .any(|next| next == "hook" || next == "--hook-stdin" || next == "capture")
    })
}

/// `command` split into words the way a POSIX shell would for simple commands: whitespace and
/// `;`, `&`, `|` separate, single and double quotes group, a backslash escapes one character.
pub(crate) fn shell_words(command: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    word.push(q);
                }
            }
            '"' => {
                in_word = true;
                while let Some(q) = chars.next() {
                    match q {
                        '"' => break,
                        '\\' => {
                            if let Some(n) = chars.next() {
                                word.push(n);
                            }
                        }
                        _ => word.push(q),
                    }
                }
            }
            // Outside quotes a backslash escapes what the shell would otherwise read (a space,
            // a quote); before anything else it is kept, so `C:\tools\elnor.exe` stays a path.
            '\\' => {
                in_word = true;
                match chars.clone().next() {
                    Some(n) if n.is_whitespace() || "'\"\\$`;&|()<>".contains(n) => {
                        word.push(n);
                        chars.next();
                    }
                    _ => word.push('\\'),
                }
            }
            c if c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | ')') => {
                if in_word {
                    out.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        out.push(word);
    }
    out
}

/// `word` quoted for a POSIX shell when it needs quoting.
pub(crate) fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word.chars().all(|c| {
            c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '_' | '-' | ':' | '=' | '+' | ',')
        });
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests;
