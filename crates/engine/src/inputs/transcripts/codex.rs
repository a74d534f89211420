//! Codex rollouts (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`). See
//! `../shared/fixtures/transcripts/codex/SCHEMA.md`.
//!
//! What the user typed is `event_msg/user_message`; the `response_item` user and developer
//! messages are context the CLI injected (AGENTS.md, environment, permissions), kept as `context`.
//! The assistant's words are `response_item/message` (the `event_msg/agent_message` copy is an
//! event). Tool calls and their outputs are records of their own, paired by `call_id`.

use serde_json::Value;

use super::text::{content_text, tool_summary};
use super::{Draft, LineParser, Role, TurnKind, str_field, timestamp};

pub(super) fn parse(parser: &mut LineParser, v: &Value) -> Draft {
    let record_type = str_field(v, "type").unwrap_or("").to_owned();
    let payload = v.get("payload").unwrap_or(&Value::Null);
    let subtype = str_field(payload, "type").unwrap_or("");
    let mut d = match record_type.as_str() {
        "session_meta" => {
            if let Some(id) = str_field(payload, "id") {
                parser.state.session_id = Some(id.to_owned());
                parser.identity_from_content = true;
            }
            if let Some(cwd) = str_field(payload, "cwd") {
                parser.state.cwd = Some(cwd.to_owned());
            }
            Draft::event("session_meta")
        }
        "turn_context" => Draft::event("turn_context"),
        "response_item" => response_item(parser, payload, subtype),
        "event_msg" => match subtype {
            "user_message" => Draft {
                role: Role::User,
                kind: TurnKind::Message,
                text: str_field(payload, "message").unwrap_or("").to_owned(),
                ..Draft::default()
            },
            _ => Draft::event(format!("event_msg/{subtype}")),
        },
        "compacted" => {
            let summary = str_field(payload, "message")
                .filter(|m| !m.is_empty())
                .map(str::to_owned)
                .or_else(|| replacement_summary(payload))
                .unwrap_or_default();
            Draft {
                role: Role::System,
                kind: TurnKind::Compaction,
                text: summary,
                ..Draft::default()
            }
        }
        other => Draft::unknown(other),
    };
    if d.record_type.is_empty() {
        d.record_type = if subtype.is_empty() || record_type == "compacted" {
            record_type
        } else {
            format!("{record_type}/{subtype}")
        };
    }
    d.timestamp = timestamp(v.get("timestamp"));
    d
}

fn response_item(parser: &mut LineParser, p: &Value, subtype: &str) -> Draft {
    match subtype {
        "message" => match str_field(p, "role") {
            Some("assistant") => Draft {
                role: Role::Assistant,
                kind: TurnKind::Message,
                text: content_text(p.get("content")),
                ..Draft::default()
            },
            _ => Draft {
                role: Role::System,
                kind: TurnKind::Context,
                text: content_text(p.get("content")),
                ..Draft::default()
            },
        },
        "function_call" | "custom_tool_call" | "local_shell_call" | "web_search_call" => {
            let name = str_field(p, "name").unwrap_or(subtype);
            if let Some(id) = str_field(p, "call_id") {
                parser.tool_names.insert(id.to_owned(), name.to_owned());
            }
            let args = p.get("arguments").or(p.get("input")).or(p.get("action"));
            Draft {
                role: Role::Assistant,
                kind: TurnKind::ToolCall,
                tool_calls: vec![tool_summary(name, args)],
                ..Draft::default()
            }
        }
        "function_call_output" | "custom_tool_call_output" => {
            let name = str_field(p, "call_id")
                .and_then(|id| parser.tool_names.get(id).cloned())
                .unwrap_or_else(|| "tool".to_owned());
            let output = match p.get("output") {
                Some(Value::String(s)) => s.clone(),
                Some(other) => other.to_string(),
                None => String::new(),
            };
            Draft {
                role: Role::Tool,
                kind: TurnKind::ToolResult,
                text: output,
                tool_calls: vec![format!("{name} result")],
                ..Draft::default()
            }
        }
        "reasoning" => Draft::event("response_item/reasoning"),
        other => Draft::unknown(format!("response_item/{other}")),
    }
}

/// The model-written summary inside `replacement_history`: its last assistant message.
fn replacement_summary(payload: &Value) -> Option<String> {
    payload
        .get("replacement_history")?
        .as_array()?
        .iter()
        .rev()
        .find(|item| str_field(item, "role") == Some("assistant"))
        .map(|item| content_text(item.get("content")))
}
