//! `elnor setup`: ELNOR's hooks and MCP server merged into a harness's own settings.
//!
//! - **Claude Code**: `SessionStart` (matcher `startup|resume|clear|compact`), `PreCompact` and
//!   `SessionEnd` hooks in `~/.claude/settings.json`, each running `elnor hook --harness
//!   claude-code`. Its MCP servers live in `~/.claude.json`, a file Claude Code itself rewrites
//!   all the time (history, caches, per-project state): writing it from outside risks losing a
//!   write to a race, so setup only reads it, and prints the `claude mcp add --scope user`
//!   command that registers ELNOR through Claude Code's own writer.
//! - **Codex**: `SessionStart` and `PreCompact` hooks in `$CODEX_HOME/hooks.json` and
//!   `[mcp_servers.elnor]` in `$CODEX_HOME/config.toml`. Codex runs a hook only after the person
//!   trusted it in `/hooks`, so the report ends with that step; hooks turned off under
//!   `[features]` are reported, not overridden (that is the person's choice).
//! - **OpenClaw**: `mcp.servers.elnor` in `openclaw.json` (documented keys only: the gateway
//!   refuses to start on an unknown one). OpenClaw runs no command hooks, and its session-start
//!   injection belongs to a context-engine plugin, which would also take over compaction; so
//!   OpenClaw gets the brief through the MCP `brief` tool only, and the report says so.
//!
//! Every command is the absolute path of the running `elnor` (hooks must not depend on `PATH`),
//! with `--store DIR` when the person named one. An ELNOR entry already there (also one from the
//! older recipes in the docs) is updated in place, never added twice, so a second run changes
//! nothing and says so. All files of one harness are parsed before any is written: one that does
//! not parse stops the whole setup with its line named, and nothing is written.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use jsonc_parser::cst::{CstArray, CstInputValue, CstObject, CstRootNode};
use serde::Serialize;

use crate::base::confedit::{self, Original};
use crate::base::error::{Error, Result};
use crate::inputs::transcripts::Harness;

use super::HarnessPaths;
use super::hooks::{is_elnor_command, shell_quote};

/// What `elnor setup` is asked to do.
#[derive(Debug, Clone)]
pub struct SetupRequest {
    pub harness: Harness,
    /// The `elnor` executable the harness should run: absolute.
    pub elnor: PathBuf,
    /// The store the person named with `--store`, passed on to every command.
    pub store: Option<PathBuf>,
    /// Show the diff, write nothing.
    pub dry_run: bool,
    pub now: DateTime<Utc>,
}

/// What happened to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FileOutcome {
    Created,
    Updated,
    /// Already held exactly what setup would write.
    Unchanged,
}

/// One settings file setup looked at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileChange {
    pub path: PathBuf,
    /// What ELNOR keeps in it, in words.
    pub purpose: String,
    pub outcome: FileOutcome,
    /// The change as a unified diff (empty when unchanged).
    pub diff: String,
    /// Where the old file was copied before the write (a real run that changed a file).
    pub backup: Option<PathBuf>,
    /// Whether the file was written (false on a dry run).
    pub written: bool,
}

/// What `elnor setup` did, and what is left for the person.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SetupReport {
    #[serde(serialize_with = "Harness::serialize_name")]
    pub harness: Harness,
    pub dry_run: bool,
    pub files: Vec<FileChange>,
    /// Steps only the person can take (a command to run, a trust prompt), in order.
    pub next_steps: Vec<String>,
    /// What to know: degraded modes, settings left as the person had them.
    pub notes: Vec<String>,
}

impl SetupReport {
    /// Whether this run changed (or, dry, would change) any file.
    pub fn changes_anything(&self) -> bool {
        self.files
            .iter()
            .any(|f| f.outcome != FileOutcome::Unchanged)
    }
}

/// The name the CLI gives a harness (`elnor hook --harness NAME`, `elnor setup NAME`).
pub fn cli_name(harness: Harness) -> &'static str {
    match harness {
        Harness::ClaudeCode => "claude-code",
        Harness::Codex => "codex",
        Harness::OpenClaw => "openclaw",
    }
}

/// The shell command a harness runs for its hooks.
pub fn hook_command(req: &SetupRequest) -> String {
    let mut words = vec![shell_quote(&req.elnor.to_string_lossy())];
    if let Some(store) = &req.store {
        words.push("--store".into());
        words.push(shell_quote(&store.to_string_lossy()));
    }
    words.extend([
        "hook".into(),
        "--harness".into(),
        cli_name(req.harness).into(),
    ]);
    words.join(" ")
}

/// The arguments of the MCP server's command (`elnor [--store DIR] mcp`).
pub fn mcp_args(req: &SetupRequest) -> Vec<String> {
    let mut args = Vec::new();
    if let Some(store) = &req.store {
        args.push("--store".to_owned());
        args.push(store.to_string_lossy().into_owned());
    }
    args.push("mcp".to_owned());
    args
}

/// One hook ELNOR installs: the event, its matcher, its timeout in seconds.
#[derive(Debug, Clone, Copy)]
struct HookSpec {
    event: &'static str,
    matcher: Option<&'static str>,
    timeout: Option<u32>,
}

/// Every source a session can start from: a new session, a resume, after `/clear`, after a
/// compaction (when a fresh brief helps most).
const START_SOURCES: &str = "startup|resume|clear|compact";

const CLAUDE_HOOKS: [HookSpec; 3] = [
    HookSpec {
        event: "SessionStart",
        matcher: Some(START_SOURCES),
        timeout: Some(30),
    },
    HookSpec {
        event: "PreCompact",
        matcher: None,
        timeout: None,
    },
    HookSpec {
        event: "SessionEnd",
        matcher: None,
        timeout: None,
    },
];

const CODEX_HOOKS: [HookSpec; 2] = [
    HookSpec {
        event: "SessionStart",
        matcher: Some(START_SOURCES),
        timeout: Some(30),
    },
    HookSpec {
        event: "PreCompact",
        matcher: None,
        timeout: None,
    },
];

/// A file's new text, worked out before anything is written.
struct Planned {
    original: Original,
    new: String,
    purpose: String,
}

/// Merges ELNOR's settings into `req.harness`'s files (or, dry, shows how it would).
pub fn setup(paths: &HarnessPaths, req: &SetupRequest) -> Result<SetupReport> {
    if !req.elnor.is_absolute() {
        return Err(Error::InvalidInput(format!(
            "the elnor executable must be named by an absolute path, not {}",
            req.elnor.display()
        )));
    }
    let mut next_steps = Vec::new();
    let mut notes = Vec::new();
    let planned = match req.harness {
        Harness::ClaudeCode => plan_claude(paths, req, &mut next_steps, &mut notes)?,
        Harness::Codex => plan_codex(paths, req, &mut next_steps, &mut notes)?,
        Harness::OpenClaw => plan_openclaw(paths, req, &mut notes)?,
    };
    let mut files = Vec::new();
    for p in planned {
        let old = p.original.text.as_deref();
        let outcome = match old {
            None => FileOutcome::Created,
            Some(old) if old == p.new => FileOutcome::Unchanged,
            Some(_) => FileOutcome::Updated,
        };
        let changed = outcome != FileOutcome::Unchanged;
        let diff = if changed {
            confedit::unified_diff(&p.original.path, old, &p.new)
        } else {
            String::new()
        };
        let backup = if changed && !req.dry_run {
            confedit::replace(&p.original, &p.new, req.now)?
        } else {
            None
        };
        files.push(FileChange {
            path: p.original.path.clone(),
            purpose: p.purpose,
            outcome,
            diff,
            backup,
            written: changed && !req.dry_run,
        });
    }
    Ok(SetupReport {
        harness: req.harness,
        dry_run: req.dry_run,
        files,
        next_steps,
        notes,
    })
}

/// Reads a settings file that setup may create: its folder must exist (the harness is
/// installed), the file itself need not.
fn read_for_edit(path: &Path, harness: Harness) -> Result<Original> {
    let original = confedit::read(path)?;
    if original.text.is_none() && !path.parent().is_some_and(Path::is_dir) {
        return Err(Error::HarnessConfig {
            path: path.to_owned(),
            problem: format!(
                "not found, and neither is its folder: is {} installed for this user? (its \
                 settings are looked for there; see `elnor setup --help` for the variables that \
                 move them)",
                harness.label()
            ),
        });
    }
    Ok(original)
}

fn plan_claude(
    paths: &HarnessPaths,
    req: &SetupRequest,
    next_steps: &mut Vec<String>,
    notes: &mut Vec<String>,
) -> Result<Vec<Planned>> {
    let path = paths.claude_settings();
    let original = read_for_edit(&path, Harness::ClaudeCode)?;
    let new = merge_json_hooks(
        &path,
        original.text.as_deref(),
        &CLAUDE_HOOKS,
        &hook_command(req),
    )?;
    // The MCP registration: read-only look at Claude Code's own state file.
    let args = mcp_args(req);
    let registered = claude_mcp_server(paths);
    let elnor = req.elnor.to_string_lossy().into_owned();
    let add = format!(
        "claude mcp add --scope user elnor -- {} {}",
        shell_quote(&elnor),
        args.iter()
            .map(|a| shell_quote(a))
            .collect::<Vec<_>>()
            .join(" ")
    );
    match registered {
        Some((command, a)) if command == elnor && a == args => {
            notes.push("The elnor MCP server is already registered with Claude Code.".into())
        }
        Some(_) => next_steps.push(format!(
            "Update ELNOR's MCP server in Claude Code (its registration runs another command): \
             claude mcp remove --scope user elnor && {add}"
        )),
        None => next_steps.push(format!(
            "Register ELNOR's MCP server with Claude Code: {add}   (ELNOR does not write \
             ~/.claude.json itself: Claude Code rewrites that file constantly, and a write from \
             outside could be lost or lose one of its own)"
        )),
    }
    notes.push(
        "The SessionEnd hook starts the capture in the background and returns at once, well \
         inside the 1.5 s Claude Code allows; nothing needs raising."
            .into(),
    );
    Ok(vec![Planned {
        original,
        new,
        purpose: "hooks: SessionStart, PreCompact, SessionEnd".into(),
    }])
}

/// The command and arguments Claude Code has registered for a user-scope `elnor` MCP server,
/// read from `~/.claude.json` (never written).
fn claude_mcp_server(paths: &HarnessPaths) -> Option<(String, Vec<String>)> {
    let text = std::fs::read_to_string(paths.claude_state()).ok()?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    let server = value.get("mcpServers")?.get("elnor")?;
    let command = server.get("command")?.as_str()?.to_owned();
    let args = server
        .get("args")
        .and_then(|a| a.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    Some((command, args))
}

fn plan_codex(
    paths: &HarnessPaths,
    req: &SetupRequest,
    next_steps: &mut Vec<String>,
    notes: &mut Vec<String>,
) -> Result<Vec<Planned>> {
    let config_path = paths.codex_config();
    let config = read_for_edit(&config_path, Harness::Codex)?;
    let hooks_path = paths.codex_hooks();
    let hooks = read_for_edit(&hooks_path, Harness::Codex)?;
    let doc = confedit::parse_toml(&config_path, config.text.as_deref().unwrap_or(""))?;
    // Hooks already configured inline in config.toml stay there; adding them to hooks.json too
    // would run ELNOR twice per event.
    let inline = super::hooks::configured_inline_codex(&doc);
    let specs: Vec<HookSpec> = CODEX_HOOKS
        .iter()
        .copied()
        .filter(|s| {
            let there = inline.contains(s.event);
            if there {
                notes.push(format!(
                    "Codex's {} hook already runs ELNOR from config.toml's [hooks]; left there.",
                    s.event
                ));
            }
            !there
        })
        .collect();
    let new_hooks = merge_json_hooks(
        &hooks_path,
        hooks.text.as_deref(),
        &specs,
        &hook_command(req),
    )?;
    let new_config = merge_codex_mcp(&config_path, doc, req)?;
    for flag in ["hooks", "codex_hooks"] {
        if doc_flag_is_false(config.text.as_deref().unwrap_or(""), flag) {
            notes.push(format!(
                "config.toml turns hooks off ([features] {flag} = false), so Codex will not run \
                 ELNOR's hooks; set it to true (or remove it) if you want them. Left as it is."
            ));
        }
    }
    next_steps.push(
        "Start Codex, type /hooks, review ELNOR's SessionStart and PreCompact hooks and trust \
         them: Codex runs no hook until you do (and again after the command changes)."
            .into(),
    );
    notes.push(
        "Codex has no SessionEnd hook: its sessions are captured when they go idle (`elnor \
         watch` or the app), and before each compaction by the PreCompact hook."
            .into(),
    );
    Ok(vec![
        Planned {
            original: hooks,
            new: new_hooks,
            purpose: "hooks: SessionStart, PreCompact".into(),
        },
        Planned {
            original: config,
            new: new_config,
            purpose: "MCP server [mcp_servers.elnor]".into(),
        },
    ])
}

/// Whether `[features] NAME = false` in a Codex config.
fn doc_flag_is_false(text: &str, name: &str) -> bool {
    text.parse::<toml_edit::DocumentMut>()
        .ok()
        .and_then(|d| d.get("features")?.get(name)?.as_bool())
        == Some(false)
}

fn plan_openclaw(
    paths: &HarnessPaths,
    req: &SetupRequest,
    notes: &mut Vec<String>,
) -> Result<Vec<Planned>> {
    let path = paths.openclaw_config.clone();
    let original = read_for_edit(&path, Harness::OpenClaw)?;
    let root = confedit::parse_json5(&path, original.text.as_deref().unwrap_or(""))?;
    let obj = root.object_value_or_set();
    let mcp = object_at(&obj, "mcp", &path)?;
    let servers = object_at(&mcp, "servers", &path)?;
    let elnor = req.elnor.to_string_lossy().into_owned();
    let args = mcp_args(req);
    match servers.object_value("elnor") {
        Some(server) => {
            set_string(&server, "command", &elnor);
            set_string_array(&server, "args", &args);
        }
        None => {
            if servers.get("elnor").is_some() {
                return Err(not_an_object(&path, "mcp.servers.elnor"));
            }
            servers.append(
                "elnor",
                CstInputValue::Object(vec![
                    ("command".into(), CstInputValue::String(elnor)),
                    (
                        "args".into(),
                        CstInputValue::Array(args.into_iter().map(CstInputValue::String).collect()),
                    ),
                ]),
            );
        }
    }
    notes.push(
        "OpenClaw runs no command hooks, and injecting the brief at session start would take a \
         context-engine plugin, which also takes over compaction; so OpenClaw works in the \
         degraded mode: the agent gets the brief by calling ELNOR's MCP `brief` tool, and its \
         sessions are captured from the transcripts (`elnor watch` or the app)."
            .into(),
    );
    notes.push("Restart the OpenClaw gateway so it loads the new MCP server.".into());
    Ok(vec![Planned {
        original,
        new: root.to_string(),
        purpose: "MCP server mcp.servers.elnor".into(),
    }])
}

/// The object under `key` in `obj`, created when absent; an error when `key` holds something
/// else (setup will not replace what the person wrote).
fn object_at(obj: &CstObject, key: &str, path: &Path) -> Result<CstObject> {
    obj.object_value_or_create(key)
        .ok_or_else(|| not_an_object(path, key))
}

fn not_an_object(path: &Path, key: &str) -> Error {
    Error::HarnessConfig {
        path: path.to_owned(),
        problem: format!(
            "`{key}` holds something other than an object ({{ … }}); ELNOR will not replace it. \
             Nothing was written."
        ),
    }
}

/// The decoded string of `obj[key]`, if it is a string.
fn string_of(obj: &CstObject, key: &str) -> Option<String> {
    obj.get(key)?.value()?.as_string_lit()?.decoded_value().ok()
}

/// Sets `obj[key]` to `value` unless it already holds it (so an unchanged file stays unchanged
/// to the byte, whatever quotes the person used).
fn set_string(obj: &CstObject, key: &str, value: &str) {
    if string_of(obj, key).as_deref() == Some(value) {
        return;
    }
    match obj.get(key) {
        Some(prop) => prop.set_value(CstInputValue::String(value.to_owned())),
        None => {
            obj.append(key, CstInputValue::String(value.to_owned()));
        }
    }
}

/// Sets `obj[key]` to the array of `values` unless it already holds it.
fn set_string_array(obj: &CstObject, key: &str, values: &[String]) {
    let current: Option<Vec<String>> = obj.array_value(key).map(|a| {
        a.elements()
            .iter()
            .filter_map(|e| e.as_string_lit()?.decoded_value().ok())
            .collect()
    });
    if current.as_deref() == Some(values)
        && obj
            .array_value(key)
            .is_some_and(|a| a.elements().len() == values.len())
    {
        return;
    }
    let value = CstInputValue::Array(values.iter().cloned().map(CstInputValue::String).collect());
    match obj.get(key) {
        Some(prop) => prop.set_value(value),
        None => {
            obj.append(key, value);
        }
    }
}

/// `text` (a Claude Code or Codex hooks file, possibly absent) with ELNOR's hooks merged in.
fn merge_json_hooks(
    path: &Path,
    text: Option<&str>,
    specs: &[HookSpec],
    command: &str,
) -> Result<String> {
    let root: CstRootNode = confedit::parse_json5(path, text.unwrap_or(""))?;
    let obj = root.object_value_or_set();
    let hooks = object_at(&obj, "hooks", path)?;
    for spec in specs {
        let groups =
            hooks
                .array_value_or_create(spec.event)
                .ok_or_else(|| Error::HarnessConfig {
                    path: path.to_owned(),
                    problem: format!(
                        "`hooks.{}` holds something other than a list ([ … ]); ELNOR will not \
                     replace it. Nothing was written.",
                        spec.event
                    ),
                })?;
        merge_event(&groups, spec, command);
    }
    Ok(root.to_string())
}

/// ELNOR's hook under one event: the first ELNOR entry found is brought up to date and any
/// further ones removed (with their group when nothing else is left in it); with none, a new
/// group is appended after the person's own.
fn merge_event(groups: &CstArray, spec: &HookSpec, command: &str) {
    let mut ours: Vec<(CstObject, CstObject)> = Vec::new();
    for g in groups.elements() {
        let Some(group) = g.as_object() else { continue };
        let Some(list) = group.array_value("hooks") else {
            continue;
        };
        for h in list.elements() {
            if let Some(hook) = h.as_object()
                && string_of(&hook, "command").is_some_and(|c| is_elnor_command(&c))
            {
                ours.push((group.clone(), hook));
            }
        }
    }
    let mut found = ours.into_iter();
    let Some((group, hook)) = found.next() else {
        let mut handler = vec![
            ("type".to_owned(), CstInputValue::String("command".into())),
            (
                "command".to_owned(),
                CstInputValue::String(command.to_owned()),
            ),
        ];
        if let Some(t) = spec.timeout {
            handler.push(("timeout".to_owned(), CstInputValue::Number(t.to_string())));
        }
        let mut entry = Vec::new();
        if let Some(m) = spec.matcher {
            entry.push(("matcher".to_owned(), CstInputValue::String(m.to_owned())));
        }
        entry.push((
            "hooks".to_owned(),
            CstInputValue::Array(vec![CstInputValue::Object(handler)]),
        ));
        groups.append(CstInputValue::Object(entry));
        return;
    };
    set_string(&hook, "type", "command");
    set_string(&hook, "command", command);
    // The matcher is the group's: change it only when the group holds ELNOR's hook alone.
    let alone = group
        .array_value("hooks")
        .is_some_and(|l| l.elements().len() == 1);
    if let (Some(m), true) = (spec.matcher, alone) {
        set_string(&group, "matcher", m);
    }
    for (group, hook) in found {
        hook.remove();
        if group
            .array_value("hooks")
            .is_some_and(|l| l.elements().is_empty())
        {
            group.remove();
        }
    }
}

/// `doc` (Codex's config) with `[mcp_servers.elnor]` set to run this `elnor`.
fn merge_codex_mcp(
    path: &Path,
    mut doc: toml_edit::DocumentMut,
    req: &SetupRequest,
) -> Result<String> {
    let bad = |key: &str| Error::HarnessConfig {
        path: path.to_owned(),
        problem: format!(
            "`{key}` holds something other than a table; ELNOR will not replace it. Nothing was \
             written."
        ),
    };
    let elnor = req.elnor.to_string_lossy().into_owned();
    let args = mcp_args(req);
    let servers_item = doc.entry("mcp_servers").or_insert_with(|| {
        // Implicit: only `[mcp_servers.elnor]` is written, no empty `[mcp_servers]` header.
        let mut t = toml_edit::Table::new();
        t.set_implicit(true);
        toml_edit::Item::Table(t)
    });
    let servers = servers_item
        .as_table_like_mut()
        .ok_or_else(|| bad("mcp_servers"))?;
    if servers.get("elnor").is_none() {
        servers.insert("elnor", toml_edit::Item::Table(toml_edit::Table::new()));
    }
    let server = servers
        .get_mut("elnor")
        .and_then(|s| s.as_table_like_mut())
        .ok_or_else(|| bad("mcp_servers.elnor"))?;
    if server.get("command").and_then(|c| c.as_str()) != Some(elnor.as_str()) {
        server.insert("command", toml_edit::value(elnor));
    }
    let current: Option<Vec<String>> = server.get("args").and_then(|a| a.as_array()).map(|a| {
        a.iter()
            .map(|v| v.as_str().map(str::to_owned).unwrap_or_default())
            .collect()
    });
    if current.as_deref() != Some(args.as_slice()) {
        let mut array = toml_edit::Array::new();
        for a in &args {
            array.push(a.as_str());
        }
        server.insert("args", toml_edit::value(array));
    }
    Ok(doc.to_string())
}

#[cfg(test)]
mod tests;
