//! OpenClaw / pi session records (JSONL v1 and v3, and the same objects in OpenClaw's per-agent
//! SQLite `transcript_events`). See `../shared/fixtures/transcripts/openclaw/SCHEMA.md`.
//!
//! v3 entries form a tree through `id`/`parentId`; v1 entries have no ids, so their turn ids are
//! content hashes. Entry timestamps are ISO strings; `message.timestamp` is epoch milliseconds and
//! is used only when the entry has none.

use serde_json::Value;

use super::text::{content_text, strip_untrusted_metadata, tool_summary};
use super::{Draft, LineParser, Role, TurnKind, assistant_blocks, str_field, timestamp};

pub(super) fn parse(parser: &mut LineParser, v: &Value) -> Draft {
    let record_type = str_field(v, "type").unwrap_or("").to_owned();
    let mut d = match record_type.as_str() {
        "session" => {
            if let Some(id) = str_field(v, "id") {
                parser.state.session_id = Some(id.to_owned());
                parser.identity_from_content = true;
            }
            if let Some(cwd) = str_field(v, "cwd") {
                parser.state.cwd = Some(cwd.to_owned());
            }
            if let Some(parent) = str_field(v, "parentSession").or(str_field(v, "branchedFrom")) {
                // Parents are named by their file (`…/<timestamp>_<uuid>.jsonl`); keep the id.
                let stem = std::path::Path::new(parent)
                    .file_stem()
                    .and_then(|s| s.to_str())
                    .unwrap_or(parent);
                let id = stem.rsplit('_').next().unwrap_or(stem);
                parser.state.parent_session_id = Some(id.to_owned());
            }
            Draft::event("session")
        }
        "message" => message(parser, v.get("message").unwrap_or(&Value::Null)),
        "compaction" => Draft {
            role: Role::System,
            kind: TurnKind::Compaction,
            record_type: record_type.clone(),
            text: str_field(v, "summary").unwrap_or("").to_owned(),
            tokens_before: v.get("tokensBefore").and_then(Value::as_u64),
            ..Draft::default()
        },
        "branch_summary" => Draft {
            role: Role::System,
            kind: TurnKind::BranchSummary,
            record_type: record_type.clone(),
            text: str_field(v, "summary").unwrap_or("").to_owned(),
            ..Draft::default()
        },
        "custom_message" => Draft {
            // Extension messages enter the model's context but nobody typed them.
            role: Role::System,
            kind: TurnKind::Context,
            record_type: record_type.clone(),
            text: content_text(v.get("content")),
            ..Draft::default()
        },
        "session_info" => {
            if let Some(name) = str_field(v, "name") {
                parser.state.title = Some(name.to_owned());
            }
            Draft::event(record_type.clone())
        }
        "custom" | "model_change" | "thinking_level_change" | "label" | "reset" => {
            Draft::event(record_type.clone())
        }
        other => Draft::unknown(other),
    };
    d.record_type = record_type;
    d.native_id = str_field(v, "id").map(str::to_owned);
    // The header's `id` is the session id, not an entry id.
    if d.record_type == "session" {
        d.native_id = None;
    }
    d.parent_native_id = str_field(v, "parentId").map(str::to_owned);
    d.timestamp = timestamp(v.get("timestamp"))
        .or_else(|| timestamp(v.get("message").and_then(|m| m.get("timestamp"))));
    d
}

fn message(parser: &mut LineParser, m: &Value) -> Draft {
    let role = str_field(m, "role").unwrap_or("");
    match role {
        "user" => {
            let text = content_text(m.get("content"));
            Draft {
                role: Role::User,
                kind: TurnKind::Message,
                text: strip_untrusted_metadata(&text).to_owned(),
                ..Draft::default()
            }
        }
        "assistant" => {
            let (mut text, calls) =
                assistant_blocks(parser, m.get("content"), "toolCall", "arguments");
            if text.is_empty()
                && calls.is_empty()
                && let Some(err) = str_field(m, "errorMessage")
            {
                text = format!("[error] {err}");
            }
            Draft {
                role: Role::Assistant,
                kind: TurnKind::Message,
                text,
                tool_calls: calls,
                ..Draft::default()
            }
        }
        "toolResult" => {
            let name = str_field(m, "toolName")
                .map(str::to_owned)
                .or_else(|| {
                    str_field(m, "toolCallId").and_then(|id| parser.tool_names.get(id).cloned())
                })
                .unwrap_or_else(|| "tool".to_owned());
            let error = m.get("isError").and_then(Value::as_bool).unwrap_or(false);
            Draft {
                role: Role::Tool,
                kind: TurnKind::ToolResult,
                text: content_text(m.get("content")),
                tool_calls: vec![format!(
                    "{name} {}",
                    if error { "failed" } else { "result" }
                )],
                ..Draft::default()
            }
        }
        "bashExecution" => Draft {
            role: Role::Tool,
            kind: TurnKind::ToolResult,
            text: str_field(m, "output").unwrap_or("").to_owned(),
            tool_calls: vec![tool_summary(
                "bash",
                m.get("command")
                    .map(|c| serde_json::json!({ "command": c }))
                    .as_ref(),
            )],
            ..Draft::default()
        },
        "compactionSummary" => Draft {
            role: Role::System,
            kind: TurnKind::CompactionSummary,
            text: str_field(m, "summary").unwrap_or("").to_owned(),
            ..Draft::default()
        },
        "branchSummary" => Draft {
            role: Role::System,
            kind: TurnKind::BranchSummary,
            text: str_field(m, "summary").unwrap_or("").to_owned(),
            ..Draft::default()
        },
        "custom" | "hookMessage" => Draft {
            role: Role::System,
            kind: TurnKind::Context,
            text: content_text(m.get("content")),
            ..Draft::default()
        },
        other => Draft::unknown(format!("message/{other}")),
    }
}
