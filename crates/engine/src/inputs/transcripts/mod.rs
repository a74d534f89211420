//! Harness transcripts normalised into one turn model.
//!
//! Each harness keeps its own format: OpenClaw/pi session JSONL (v1 and v3) and OpenClaw's
//! per-agent SQLite event store (`openclaw`), Claude Code project JSONL (`claude_code`), and Codex
//! rollouts (`codex`). A [`LineParser`] turns one raw record into a [`Record`]: a conversation
//! [`Turn`], a known non-conversation event, or an unknown record. Every record keeps its raw text,
//! so nothing a harness wrote is lost even when we do not understand it yet.

mod claude_code;
pub mod clean;
mod codex;
mod gist;
mod openclaw;
mod text;

use std::path::Path;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

pub use gist::{Gist, gist};
pub use text::{excerpt, strip_untrusted_metadata};

impl std::fmt::Display for Harness {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which harness wrote a transcript.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Harness {
    OpenClaw,
    ClaudeCode,
    Codex,
}

impl Harness {
    pub const ALL: [Harness; 3] = [Harness::OpenClaw, Harness::ClaudeCode, Harness::Codex];

    pub fn as_str(self) -> &'static str {
        match self {
            Harness::OpenClaw => "openclaw",
            Harness::ClaudeCode => "claude_code",
            Harness::Codex => "codex",
        }
    }

    pub fn parse(s: &str) -> Option<Harness> {
        Harness::ALL.into_iter().find(|h| h.as_str() == s)
    }

    /// The harness's name as people write it.
    pub fn label(self) -> &'static str {
        match self {
            Harness::OpenClaw => "OpenClaw",
            Harness::ClaudeCode => "Claude Code",
            Harness::Codex => "Codex",
        }
    }

    /// Serialises the harness by its stored name (`openclaw`, `claude_code`, `codex`), as the
    /// session read model always showed it; the enum's own serde names stay those of the
    /// sources file.
    pub(crate) fn serialize_name<S: serde::Serializer>(
        h: &Harness,
        s: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(h.as_str())
    }

    /// The prefix of this harness's turn ids.
    fn id_prefix(self) -> &'static str {
        match self {
            Harness::OpenClaw => "oc",
            Harness::ClaudeCode => "cc",
            Harness::Codex => "cx",
        }
    }
}

/// Who produced a turn.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    User,
    Assistant,
    Tool,
    #[default]
    System,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
            Role::System => "system",
        }
    }

    /// The role a stored name stands for, if it is one.
    pub fn parse(name: &str) -> Option<Role> {
        [Role::User, Role::Assistant, Role::Tool, Role::System]
            .into_iter()
            .find(|r| r.as_str() == name)
    }
}

/// What a record is.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum TurnKind {
    /// A message a person or a model wrote.
    Message,
    /// An assistant's tool call (Codex writes these as records of their own).
    ToolCall,
    /// A tool's output.
    ToolResult,
    /// A compaction point: history before it was summarised away.
    Compaction,
    /// The summary that replaced compacted history.
    CompactionSummary,
    /// A summary of an abandoned branch (OpenClaw `branch_summary`).
    BranchSummary,
    /// Context the harness injected (system prompts, AGENTS.md, environment blocks).
    Context,
    /// A known record that is not conversation: token counts, snapshots, progress, settings.
    Event,
    /// A record type we do not know. Kept raw and counted.
    #[default]
    Unknown,
}

impl TurnKind {
    pub fn as_str(self) -> &'static str {
        match self {
            TurnKind::Message => "message",
            TurnKind::ToolCall => "tool_call",
            TurnKind::ToolResult => "tool_result",
            TurnKind::Compaction => "compaction",
            TurnKind::CompactionSummary => "compaction_summary",
            TurnKind::BranchSummary => "branch_summary",
            TurnKind::Context => "context",
            TurnKind::Event => "event",
            TurnKind::Unknown => "unknown",
        }
    }

    /// The kind a stored name stands for; a name this build does not know reads as `Unknown`,
    /// as an unknown record does.
    pub fn parse(name: &str) -> TurnKind {
        use TurnKind::*;
        [
            Message,
            ToolCall,
            ToolResult,
            Compaction,
            CompactionSummary,
            BranchSummary,
            Context,
            Event,
        ]
        .into_iter()
        .find(|k| k.as_str() == name)
        .unwrap_or(Unknown)
    }

    /// Whether the record is part of the conversation (counted in `turn_count`).
    pub fn is_conversation(self) -> bool {
        matches!(
            self,
            TurnKind::Message | TurnKind::ToolCall | TurnKind::ToolResult
        )
    }
}

/// What reading made of a record, as the census of every source counts it (issue 41: no silent
/// loss). `Skipped` records are understood and kept on purpose out of the conversation (token
/// counts, snapshots, progress, injected context, compaction markers); `NotUnderstood` ones are
/// of a type this build does not know, kept raw and named in Health.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Disposition {
    Turn,
    Skipped,
    NotUnderstood,
}

impl Disposition {
    pub fn as_str(self) -> &'static str {
        match self {
            Disposition::Turn => "turn",
            Disposition::Skipped => "skipped",
            Disposition::NotUnderstood => "not_understood",
        }
    }

    pub fn parse(name: &str) -> Option<Disposition> {
        [
            Disposition::Turn,
            Disposition::Skipped,
            Disposition::NotUnderstood,
        ]
        .into_iter()
        .find(|d| d.as_str() == name)
    }
}

impl TurnKind {
    /// What the census counts a record of this kind as.
    pub fn disposition(self) -> Disposition {
        if self.is_conversation() {
            Disposition::Turn
        } else if self == TurnKind::Unknown {
            Disposition::NotUnderstood
        } else {
            Disposition::Skipped
        }
    }
}

/// One normalised record of a transcript.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Turn {
    /// Stable across re-ingests: `{harness}:{session}:{native id}`, or a hash of the raw record
    /// where the harness gives none.
    pub turn_id: String,
    pub session_id: String,
    pub agent_id: Option<String>,
    pub harness: Harness,
    pub role: Role,
    pub kind: TurnKind,
    /// The harness's record type, e.g. `message`, `response_item/function_call`.
    pub record_type: String,
    /// Display text: wrappers stripped, bounded to [`MAX_TEXT_CHARS`]. The raw record has all.
    pub text: String,
    /// One line per tool call.
    pub tool_calls: Vec<String>,
    pub timestamp: Option<DateTime<Utc>>,
    pub parent_turn_id: Option<String>,
    /// Produced by a sub-agent (Claude Code sidechain, subagent file).
    pub is_sidechain: bool,
    /// Tokens before a compaction, when the harness says.
    pub tokens_before: Option<u64>,
    /// The record exactly as the harness wrote it.
    pub raw: String,
}

/// Display text is cut here; the raw record keeps everything.
pub const MAX_TEXT_CHARS: usize = 16_000;

/// The result of parsing one raw record.
#[derive(Debug, Clone, PartialEq)]
pub enum Record {
    Turn(Box<Turn>),
    /// The line is not valid JSON or not an object; kept out of the store and counted.
    Malformed(String),
}

/// What a parser knows about the file it is reading, carried across incremental reads.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParserState {
    pub session_id: Option<String>,
    pub agent_id: Option<String>,
    /// The session this one was forked from or spawned by (Claude Code subagents).
    pub parent_session_id: Option<String>,
    pub cwd: Option<String>,
    pub title: Option<String>,
    /// Whether `title` is the harness's own title for this session (Claude Code's `ai-title`),
    /// which later `summary` records (often about another session) do not replace.
    #[serde(default)]
    pub title_from_harness: bool,
    /// Where the session's work is kept in git, as the harness recorded it (Codex's session
    /// header, Claude Code's `gitBranch` on each record): a resuming agent needs the branch.
    #[serde(default)]
    pub git: GitPlace,
}

/// A session's place in git: its branch (the latest the harness recorded; a detached `HEAD`
/// names none, so the branch before it stays) and its repository as the remote's last two path
/// segments (`owner/name`), cut from the address so that no host, scheme or credential in it
/// reaches the session's row, the parser's state or a brief. (The record itself is kept raw,
/// as every record is.)
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GitPlace {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_branch: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_repo: Option<String>,
}

impl GitPlace {
    /// Learns the branch `name` names, when it names one.
    pub(crate) fn learn_branch(&mut self, name: Option<&str>) {
        if let Some(name) = name
            .map(str::trim)
            .filter(|n| !n.is_empty() && *n != "HEAD")
        {
            self.git_branch = Some(name.to_owned());
        }
    }

    /// Learns the repository a remote's address names (see [`repository_name`]).
    pub(crate) fn learn_remote(&mut self, address: Option<&str>) {
        if let Some(name) = address.and_then(repository_name) {
            self.git_repo = Some(name);
        }
    }
}

/// `owner/name` of a git remote's address, whatever its form: `git@host:owner/name.git`,
/// `https://user:token@host/owner/name`, `ssh://git@host/owner/name.git`. Only the address's
/// last two path segments are kept, so a credential in it never reaches the session's row; an
/// address with fewer segments, or with characters no repository name has, gives `None`.
pub(crate) fn repository_name(address: &str) -> Option<String> {
    let address = address.trim();
    let path = match address.split_once("://") {
        Some((_, rest)) => rest.split_once('/').map(|(_, path)| path)?,
        None => address.rsplit_once(':').map_or(address, |(_, path)| path),
    };
    let path = path.split(['?', '#']).next().unwrap_or("");
    let mut segments = path.trim_matches('/').rsplit('/');
    let name = segments.next()?.trim_end_matches(".git");
    let owner = segments.next()?;
    let fine = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.'))
    };
    (fine(owner) && fine(name)).then(|| format!("{owner}/{name}"))
}

/// Parses a harness's records one at a time.
pub struct LineParser {
    harness: Harness,
    state: ParserState,
    is_subagent_file: bool,
    /// Tool names by call id, so a result can say which tool produced it.
    tool_names: std::collections::HashMap<String, String>,
    /// Whether a record has named the session (rather than the file name).
    identity_from_content: bool,
}

impl LineParser {
    /// A parser for the file at `path`, resuming with `state` from an earlier read.
    pub fn new(harness: Harness, path: &Path, mut state: ParserState) -> LineParser {
        let is_subagent_file = harness == Harness::ClaudeCode
            && path
                .parent()
                .and_then(|p| p.file_name())
                .is_some_and(|n| n == "subagents");
        if state.session_id.is_none() {
            state.session_id = session_id_from_path(harness, path);
        }
        if state.agent_id.is_none() {
            state.agent_id = agent_id_from_path(harness, path);
        }
        LineParser {
            harness,
            state,
            is_subagent_file,
            tool_names: Default::default(),
            identity_from_content: false,
        }
    }

    /// Learns the session's identity (id, cwd, title, parent) from the first records of a file
    /// before any record is parsed for real, so records that precede the identity (Claude Code's
    /// leading `file-history-snapshot`, say) are attributed to the right session. Looks at no more
    /// than 200 records.
    pub fn prime<'a>(&mut self, records: impl IntoIterator<Item = &'a str>) {
        let mut scratch = LineParser {
            harness: self.harness,
            state: self.state.clone(),
            is_subagent_file: self.is_subagent_file,
            tool_names: Default::default(),
            identity_from_content: self.identity_from_content,
        };
        for raw in records.into_iter().take(200) {
            scratch.parse(raw);
            if scratch.identity_from_content {
                break;
            }
        }
        self.state = scratch.state;
        self.identity_from_content = scratch.identity_from_content;
    }

    /// What the parser has learned so far.
    pub fn state(&self) -> &ParserState {
        &self.state
    }

    /// Parses one record (a JSONL line without its newline, or an SQLite `event_json`).
    pub fn parse(&mut self, raw: &str) -> Record {
        let value: serde_json::Value = match serde_json::from_str(raw) {
            Ok(v @ serde_json::Value::Object(_)) => v,
            Ok(_) => return Record::Malformed("not a JSON object".into()),
            Err(e) => return Record::Malformed(format!("invalid JSON: {e}")),
        };
        let draft = match self.harness {
            Harness::OpenClaw => openclaw::parse(self, &value),
            Harness::ClaudeCode => claude_code::parse(self, &value),
            Harness::Codex => codex::parse(self, &value),
        };
        Record::Turn(Box::new(self.finish(draft, raw)))
    }

    fn finish(&self, d: Draft, raw: &str) -> Turn {
        let session = self
            .state
            .session_id
            .clone()
            .unwrap_or_else(|| "unknown".to_owned());
        let prefix = self.harness.id_prefix();
        let turn_id = match &d.native_id {
            Some(id) => format!("{prefix}:{session}:{id}"),
            None => {
                let digest = Sha256::digest(raw.as_bytes());
                let hex: String = digest.iter().take(10).map(|b| format!("{b:02x}")).collect();
                format!("{prefix}:{session}:h{hex}")
            }
        };
        Turn {
            turn_id,
            parent_turn_id: d
                .parent_native_id
                .map(|p| format!("{prefix}:{session}:{p}")),
            session_id: session,
            agent_id: self.state.agent_id.clone(),
            harness: self.harness,
            role: d.role,
            kind: d.kind,
            record_type: d.record_type,
            text: text::bound(d.text),
            tool_calls: d.tool_calls,
            timestamp: d.timestamp,
            is_sidechain: d.is_sidechain || self.is_subagent_file,
            tokens_before: d.tokens_before,
            raw: raw.to_owned(),
        }
    }
}

/// What an adapter extracts from one record; `LineParser::finish` completes it into a [`Turn`].
#[derive(Debug, Default)]
struct Draft {
    native_id: Option<String>,
    parent_native_id: Option<String>,
    role: Role,
    kind: TurnKind,
    record_type: String,
    text: String,
    tool_calls: Vec<String>,
    timestamp: Option<DateTime<Utc>>,
    is_sidechain: bool,
    tokens_before: Option<u64>,
}

impl Draft {
    fn event(record_type: impl Into<String>) -> Draft {
        Draft {
            kind: TurnKind::Event,
            record_type: record_type.into(),
            ..Draft::default()
        }
    }

    fn unknown(record_type: impl Into<String>) -> Draft {
        Draft {
            kind: TurnKind::Unknown,
            record_type: record_type.into(),
            ..Draft::default()
        }
    }
}

/// The text and one-line tool calls of an assistant message's content blocks. Harnesses name the
/// call block and its arguments differently (`toolCall`/`arguments`, `tool_use`/`input`); call
/// ids are remembered so the results can name their tool.
fn assistant_blocks(
    parser: &mut LineParser,
    content: Option<&serde_json::Value>,
    call_type: &str,
    args_key: &str,
) -> (String, Vec<String>) {
    let mut text = Vec::new();
    let mut calls = Vec::new();
    for block in content
        .and_then(serde_json::Value::as_array)
        .into_iter()
        .flatten()
    {
        match str_field(block, "type") {
            Some("text") => text.push(str_field(block, "text").unwrap_or("").to_owned()),
            Some(t) if t == call_type => {
                let name = str_field(block, "name").unwrap_or("tool");
                if let Some(id) = str_field(block, "id") {
                    parser.tool_names.insert(id.to_owned(), name.to_owned());
                }
                calls.push(text::tool_summary(name, block.get(args_key)));
            }
            _ => {}
        }
    }
    (text.join("\n"), calls)
}

/// Parses an RFC 3339 timestamp, or epoch milliseconds.
fn timestamp(value: Option<&serde_json::Value>) -> Option<DateTime<Utc>> {
    match value? {
        serde_json::Value::String(s) => DateTime::parse_from_rfc3339(s)
            .ok()
            .map(|t| t.with_timezone(&Utc)),
        serde_json::Value::Number(n) => n.as_i64().and_then(DateTime::from_timestamp_millis),
        _ => None,
    }
}

fn str_field<'a>(value: &'a serde_json::Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(serde_json::Value::as_str)
}

/// The session id a file name implies, used until the content says otherwise.
fn session_id_from_path(harness: Harness, path: &Path) -> Option<String> {
    let stem = path.file_stem()?.to_str()?;
    match harness {
        // `<uuid>.jsonl`, `<ts>_<uuid>.jsonl` (pi), `<uuid>-topic-<n>.jsonl`.
        Harness::OpenClaw => Some(stem.rsplit('_').next().unwrap_or(stem).to_owned()),
        Harness::ClaudeCode => {
            if let Some(agent) = stem.strip_prefix("agent-") {
                // `<session>/subagents/agent-<id>.jsonl`
                let session = path.parent()?.parent()?.file_name()?.to_str()?;
                Some(format!("{session}:agent-{agent}"))
            } else {
                Some(stem.to_owned())
            }
        }
        // `rollout-<YYYY-MM-DDTHH-MM-SS>-<uuid>.jsonl`: the uuid is the last 36 characters.
        Harness::Codex => {
            let tail = stem.strip_prefix("rollout-")?;
            (tail.len() >= 36).then(|| tail[tail.len() - 36..].to_owned())
        }
    }
}

/// The agent a path implies: OpenClaw's `agents/<agentId>/…`, a Claude Code subagent's id, or
/// the harness's own name.
fn agent_id_from_path(harness: Harness, path: &Path) -> Option<String> {
    match harness {
        Harness::OpenClaw => {
            let parts: Vec<&str> = path.iter().filter_map(|p| p.to_str()).collect();
            let found = parts
                .windows(2)
                .rev()
                .find(|w| w[0] == "agents")
                .map(|w| w[1].to_owned());
            Some(found.unwrap_or_else(|| "pi".to_owned()))
        }
        Harness::ClaudeCode => Some(
            path.file_stem()
                .and_then(|s| s.to_str())
                .and_then(|s| s.strip_prefix("agent-"))
                .map(|a| format!("claude-code/{a}"))
                .unwrap_or_else(|| "claude-code".to_owned()),
        ),
        Harness::Codex => Some("codex".to_owned()),
    }
}

#[cfg(test)]
mod tests;
