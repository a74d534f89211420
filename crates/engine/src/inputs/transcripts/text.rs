//! Text helpers shared by the adapters: bounded excerpts, one-line tool-call summaries, and the
//! OpenClaw gateway's "untrusted metadata" wrapper.

use serde_json::Value;

use super::MAX_TEXT_CHARS;

/// Cuts `text` to [`MAX_TEXT_CHARS`] characters, marking the cut.
pub(super) fn bound(text: String) -> String {
    if text.chars().count() <= MAX_TEXT_CHARS {
        return text;
    }
    let mut cut: String = text.chars().take(MAX_TEXT_CHARS).collect();
    cut.push_str(" […]");
    cut
}

/// The first `max_chars` characters of `text` on one line, with an ellipsis when cut.
pub fn excerpt(text: &str, max_chars: usize) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max_chars {
        flat
    } else {
        let mut cut: String = flat.chars().take(max_chars.saturating_sub(1)).collect();
        cut.push('…');
        cut
    }
}

/// Joins the text of content blocks (`{"type":"text","text":…}` and friends), or returns a
/// plain string content as it is. Images become `[image]`.
pub(super) fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => {
            let mut parts = Vec::new();
            for block in blocks {
                match block.get("type").and_then(Value::as_str) {
                    Some("text" | "input_text" | "output_text") => {
                        if let Some(t) = block.get("text").and_then(Value::as_str) {
                            parts.push(t.to_owned());
                        }
                    }
                    Some("image" | "input_image") => parts.push("[image]".to_owned()),
                    Some("tool_result") => parts.push(content_text(block.get("content"))),
                    _ => {}
                }
            }
            parts.join("\n")
        }
        _ => String::new(),
    }
}

/// One line describing a tool call: its name and its most telling argument.
pub(super) fn tool_summary(name: &str, args: Option<&Value>) -> String {
    const KEYS: [&str; 9] = [
        "command",
        "cmd",
        "file_path",
        "path",
        "pattern",
        "query",
        "url",
        "description",
        "prompt",
    ];
    let detail = match args {
        Some(Value::Object(map)) => KEYS
            .iter()
            .find_map(|k| map.get(*k))
            .map(|v| match v {
                Value::String(s) => s.clone(),
                Value::Array(items) => items
                    .iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(" "),
                other => other.to_string(),
            })
            .unwrap_or_else(|| Value::Object(map.clone()).to_string()),
        Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
            // Codex passes arguments as a JSON string.
            Ok(inner @ Value::Object(_)) => return tool_summary(name, Some(&inner)),
            _ => s.clone(),
        },
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    };
    if detail.is_empty() {
        name.to_owned()
    } else {
        format!("{name}: {}", excerpt(&detail, 120))
    }
}

/// Strips the OpenClaw gateway's wrappers from user text: one or more
/// `Sender (untrusted metadata):` / `Conversation info (untrusted metadata):` headers, each with its
/// fenced JSON block, then an optional `[weekday date time zone]` stamp:
/// `Sender (untrusted metadata):\n```json …```\n\n[Sun 2026-03-08 22:03 GMT+9] text` → `text`.
/// Text without a wrapper is returned unchanged.
pub fn strip_untrusted_metadata(text: &str) -> &str {
    let mut body = text;
    let mut stripped = false;
    loop {
        let t = body.trim_start();
        // "Conversation info (untrusted metadata):", "Chat history since last reply (untrusted,
        // for context):": the gateway marks what it relays as untrusted, in a parenthesis.
        let Some(colon) = t.find("(untrusted") else {
            break;
        };
        let Some(close) = t[colon..].find("):").filter(|c| *c <= 40) else {
            break;
        };
        // The header is the first line: a short label before the marker.
        if colon > 60 || t[..colon + close].contains('\n') {
            break;
        }
        let rest = &t[colon + close + 2..];
        let Some(open) = rest.find("```") else {
            break;
        };
        let after_open = &rest[open + 3..];
        let Some(close) = after_open.find("```") else {
            break;
        };
        body = &after_open[close + 3..];
        stripped = true;
    }
    if !stripped {
        return text;
    }
    let mut body = body.trim_start();
    // An optional `[weekday date time zone]` stamp precedes the typed text.
    if body.starts_with('[')
        && let Some(end) = body.find(']')
        && end < 64
    {
        body = body[end + 1..].trim_start();
    }
    body
}
