//! Claude Code project transcripts (`~/.claude/projects/<encoded cwd>/<session>.jsonl`, and
//! `<session>/subagents/agent-*.jsonl`). See `../shared/fixtures/transcripts/claude-code/SCHEMA.md`.
//!
//! One API response is split over several `assistant` lines; each line is one record here. Tool
//! results come back as `user` lines of `tool_result` blocks and become `tool` turns named after
//! the `tool_use` they answer. Compaction is a `system/compact_boundary` line followed by a user
//! line marked `isCompactSummary`.
//!
//! Newer releases add records of their own: `ai-title` (the harness's title for the session,
//! preferred over `summary` records and slugs), `last-prompt` (a copy of the person's last
//! message), `permission-mode`, `progress`, and `attachment`s, the context the CLI adds to the
//! next request (tool and skill listings, reminders, file changes). An attachment is context
//! whatever its kind, but a `queued_command` the person typed while the agent worked is their
//! message.

use serde_json::Value;

use super::clean;
use super::text::content_text;
use super::{Draft, LineParser, Role, TurnKind, assistant_blocks, str_field, timestamp};

pub(super) fn parse(parser: &mut LineParser, v: &Value) -> Draft {
    let record_type = str_field(v, "type").unwrap_or("").to_owned();
    learn_session(parser, v);
    let mut d = match record_type.as_str() {
        "user" => user(parser, v),
        "assistant" => assistant(parser, v),
        "system" => {
            let subtype = str_field(v, "subtype").unwrap_or("");
            if subtype == "compact_boundary" {
                Draft {
                    role: Role::System,
                    kind: TurnKind::Compaction,
                    text: str_field(v, "content").unwrap_or("").to_owned(),
                    tokens_before: v
                        .get("compactMetadata")
                        .and_then(|m| m.get("preTokens"))
                        .and_then(Value::as_u64),
                    record_type: format!("system/{subtype}"),
                    ..Draft::default()
                }
            } else {
                // Kept with their words: `away_summary` is the harness's own recap of the
                // session ("Implementing X. Next: run the tests"), `local_command` what a slash
                // command printed.
                Draft {
                    text: str_field(v, "content").unwrap_or("").to_owned(),
                    ..Draft::event(format!("system/{subtype}"))
                }
            }
        }
        "summary" => {
            if let Some(title) = str_field(v, "summary")
                && !parser.state.title_from_harness
            {
                parser.state.title = Some(title.to_owned());
            }
            Draft::event("summary")
        }
        "ai-title" => {
            if let Some(title) = str_field(v, "aiTitle").filter(|t| !t.trim().is_empty()) {
                parser.state.title = Some(title.trim().to_owned());
                parser.state.title_from_harness = true;
            }
            Draft::event("ai-title")
        }
        "attachment" => attachment(v),
        "progress"
        | "file-history-snapshot"
        | "queue-operation"
        | "last-prompt"
        | "permission-mode" => Draft::event(record_type.clone()),
        other => Draft::unknown(other),
    };
    if d.record_type.is_empty() {
        d.record_type = record_type;
    }
    d.native_id = str_field(v, "uuid").map(str::to_owned);
    // Across a compaction boundary `parentUuid` is null and `logicalParentUuid` keeps the link.
    d.parent_native_id = str_field(v, "parentUuid")
        .or(str_field(v, "logicalParentUuid"))
        .map(str::to_owned);
    d.timestamp = timestamp(v.get("timestamp"));
    d.is_sidechain = v
        .get("isSidechain")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    d
}

/// Session identity from the envelope. A subagent file keeps its path-derived id
/// (`<session>:agent-<id>`) and records the main session as its parent.
fn learn_session(parser: &mut LineParser, v: &Value) {
    if let Some(session) = str_field(v, "sessionId") {
        if parser.is_subagent_file {
            parser.state.parent_session_id = Some(session.to_owned());
        } else {
            parser.state.session_id = Some(session.to_owned());
        }
        parser.identity_from_content = true;
    }
    // Every record carries the branch checked out when it was written: the latest counts.
    parser.state.git.learn_branch(str_field(v, "gitBranch"));
    if parser.state.cwd.is_none()
        && let Some(cwd) = str_field(v, "cwd")
    {
        parser.state.cwd = Some(cwd.to_owned());
    }
    if parser.state.title.is_none()
        && let Some(slug) = str_field(v, "slug")
    {
        parser.state.title = Some(slug.to_owned());
    }
}

/// An `attachment` record: context the CLI adds to the next request, named by its kind
/// (`attachment/skill_listing`); a queued command with words of the person's is their message.
fn attachment(v: &Value) -> Draft {
    let a = v.get("attachment").unwrap_or(&Value::Null);
    let kind = str_field(a, "type").unwrap_or("unnamed");
    let text = ["prompt", "content", "snippet"]
        .iter()
        .find_map(|k| match a.get(*k) {
            Some(Value::String(s)) => Some(s.clone()),
            Some(c @ Value::Array(_)) => Some(content_text(Some(c))),
            _ => None,
        })
        .unwrap_or_default();
    let typed = kind == "queued_command" && !clean::person_text(&text).text.trim().is_empty();
    Draft {
        role: if typed { Role::User } else { Role::System },
        kind: if typed {
            TurnKind::Message
        } else {
            TurnKind::Context
        },
        text,
        record_type: format!("attachment/{kind}"),
        ..Draft::default()
    }
}

fn user(parser: &mut LineParser, v: &Value) -> Draft {
    let message = v.get("message").unwrap_or(&Value::Null);
    let content = message.get("content");
    if v.get("isCompactSummary").and_then(Value::as_bool) == Some(true) {
        return Draft {
            role: Role::System,
            kind: TurnKind::CompactionSummary,
            text: content_text(content),
            ..Draft::default()
        };
    }
    let results: Vec<&Value> = content
        .and_then(Value::as_array)
        .map(|blocks| {
            blocks
                .iter()
                .filter(|b| str_field(b, "type") == Some("tool_result"))
                .collect()
        })
        .unwrap_or_default();
    if !results.is_empty() {
        let calls = results
            .iter()
            .map(|r| {
                let name = str_field(r, "tool_use_id")
                    .and_then(|id| parser.tool_names.get(id).cloned())
                    .unwrap_or_else(|| "tool".to_owned());
                let failed = r.get("is_error").and_then(Value::as_bool) == Some(true);
                format!("{name} {}", if failed { "failed" } else { "result" })
            })
            .collect();
        return Draft {
            role: Role::Tool,
            kind: TurnKind::ToolResult,
            text: content_text(content),
            tool_calls: calls,
            ..Draft::default()
        };
    }
    // `isMeta` lines are injected by the CLI (command caveats, reminders), not typed.
    let injected = v.get("isMeta").and_then(Value::as_bool) == Some(true);
    Draft {
        role: if injected { Role::System } else { Role::User },
        kind: if injected {
            TurnKind::Context
        } else {
            TurnKind::Message
        },
        text: content_text(content),
        ..Draft::default()
    }
}

fn assistant(parser: &mut LineParser, v: &Value) -> Draft {
    let message = v.get("message").unwrap_or(&Value::Null);
    let (text, calls) = assistant_blocks(parser, message.get("content"), "tool_use", "input");
    Draft {
        role: Role::Assistant,
        kind: TurnKind::Message,
        text,
        tool_calls: calls,
        ..Draft::default()
    }
}
