//! Codex rollouts (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`). See
//! `../shared/fixtures/transcripts/codex/SCHEMA.md`.
//!
//! What the user typed is `event_msg/user_message`; the `response_item` user and developer
//! messages are context the CLI injected (AGENTS.md, environment, permissions), kept as `context`.
//! The assistant's words are `response_item/message` (the `event_msg/agent_message` copy is an
//! event). Tool calls and their outputs are records of their own, paired by `call_id`.
//!
//! A forked rollout is named by its first `session_meta`; a later one names the session whose
//! history was copied in after it, kept as the parent.
//!
//! Rollouts written before mid-2025 (no `payload` wrappers) are read too, recognised by shape: a
//! first line holding `id`/`timestamp`/`git` and no `type` names the session; items are bare
//! (`{"type":"message"…}`, `function_call`, `function_call_output`, `reasoning`); and
//! `{"record_type":"state"}` lines mark where the CLI saved its state. That format has no
//! `event_msg/user_message` copy, so a bare user message is what the person typed unless all of
//! it is injected context (environment, `<user_instructions>`), which stays `context`.

use serde_json::Value;

use super::clean;
use super::text::{content_text, tool_summary};
use super::{Draft, LineParser, Role, TurnKind, str_field, timestamp};

pub(super) fn parse(parser: &mut LineParser, v: &Value) -> Draft {
    let record_type = str_field(v, "type").unwrap_or("").to_owned();
    let payload = v.get("payload").unwrap_or(&Value::Null);
    let subtype = str_field(payload, "type").unwrap_or("");
    let mut d = match record_type.as_str() {
        "session_meta" => {
            match (str_field(payload, "id"), &parser.state.session_id) {
                // A fork (`codex fork`, or an edit of an earlier message) starts a rollout of
                // its own, named by its first `session_meta`, and copies the history it was
                // forked from after it, that session's `session_meta` included: the rollout
                // stays its own session, forked from that one.
                (Some(id), Some(own)) if parser.identity_from_content && id != own => {
                    if parser.state.parent_session_id.is_none() {
                        parser.state.parent_session_id = Some(id.to_owned());
                    }
                }
                (Some(id), _) => {
                    parser.state.session_id = Some(id.to_owned());
                    parser.identity_from_content = true;
                    learn_git(parser, payload.get("git"));
                }
                (None, _) => learn_git(parser, payload.get("git")),
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
        // The pre-wrapper format: bare items, a state marker, an untyped first line.
        "" => bare_untyped(parser, v),
        "message"
        | "function_call"
        | "function_call_output"
        | "custom_tool_call"
        | "custom_tool_call_output"
        | "local_shell_call"
        | "web_search_call"
        | "reasoning"
            if v.get("payload").is_none() =>
        {
            bare_item(parser, v, &record_type)
        }
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
        // The CLI's undo point (a git commit of the working tree), no conversation in it.
        "ghost_snapshot" => Draft::event("response_item/ghost_snapshot"),
        other => Draft::unknown(format!("response_item/{other}")),
    }
}

/// The branch and repository a session header's `git` object names: the rollout's own header
/// only, not the copy of its parent's that a fork carries.
fn learn_git(parser: &mut LineParser, git: Option<&Value>) {
    let Some(git) = git else { return };
    parser.state.git.learn_branch(str_field(git, "branch"));
    parser
        .state
        .git
        .learn_remote(str_field(git, "repository_url"));
}

/// A line without `type`: the old format's first line (the session's id, start and git state)
/// or its `record_type` state markers; anything else is not understood.
fn bare_untyped(parser: &mut LineParser, v: &Value) -> Draft {
    if let Some(kind) = str_field(v, "record_type") {
        return Draft::event(format!("record_type/{kind}"));
    }
    match (str_field(v, "id"), v.get("timestamp")) {
        (Some(id), Some(_)) if v.get("git").is_some() || v.get("instructions").is_some() => {
            parser.state.session_id = Some(id.to_owned());
            parser.identity_from_content = true;
            learn_git(parser, v.get("git"));
            Draft::event("session_meta")
        }
        _ => Draft::unknown("untyped"),
    }
}

/// One item of the old format, read as the same item inside a `response_item` is, except that
/// a user message is the person's own unless the harness injected all of it.
fn bare_item(parser: &mut LineParser, v: &Value, record_type: &str) -> Draft {
    if record_type == "message" && str_field(v, "role") == Some("user") {
        let text = content_text(v.get("content"));
        learn_cwd(parser, &text);
        let injected = clean::person_text(&text).text.trim().is_empty();
        return Draft {
            role: if injected { Role::System } else { Role::User },
            kind: if injected {
                TurnKind::Context
            } else {
                TurnKind::Message
            },
            text,
            record_type: record_type.to_owned(),
            ..Draft::default()
        };
    }
    let mut d = response_item(parser, v, record_type);
    d.record_type = record_type.to_owned();
    d
}

/// The working folder an old rollout's environment block names (`<cwd>…</cwd>`, or "Current
/// working directory: …"), the only place that format says where the session ran.
fn learn_cwd(parser: &mut LineParser, text: &str) {
    if parser.state.cwd.is_some() {
        return;
    }
    let tagged = text
        .split_once("<cwd>")
        .and_then(|(_, rest)| rest.split_once("</cwd>"))
        .map(|(cwd, _)| cwd);
    let spelled = || {
        text.split_once("Current working directory:")
            .and_then(|(_, rest)| rest.lines().next())
    };
    if let Some(cwd) = tagged
        .or_else(spelled)
        .map(str::trim)
        .filter(|c| !c.is_empty())
    {
        parser.state.cwd = Some(cwd.to_owned());
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
