//! Data-driven tests over the real transcripts in `../shared/fixtures/transcripts/` (read in place,
//! never copied): one `check` per sample, rendering counts per role and kind, compaction markers,
//! session identity and a few excerpts.

use std::collections::BTreeMap;

use expect_test::{Expect, expect};

use super::*;

use crate::test_support::fixtures;

pub(crate) fn parse_file(harness: Harness, rel: &str) -> (Vec<Turn>, Vec<String>, ParserState) {
    let path = fixtures().join(rel);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut parser = LineParser::new(harness, &path, ParserState::default());
    parser.prime(
        bytes
            .split(|b| *b == b'\n')
            .filter_map(|l| std::str::from_utf8(l).ok()),
    );
    let mut turns = Vec::new();
    let mut malformed = Vec::new();
    for line in bytes.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
        match std::str::from_utf8(line) {
            Err(e) => malformed.push(format!("invalid UTF-8: {e}")),
            Ok(text) => match parser.parse(text) {
                Record::Turn(t) => turns.push(*t),
                Record::Malformed(why) => malformed.push(why),
            },
        }
    }
    (turns, malformed, parser.state().clone())
}

fn check(harness: Harness, rel: &str, expect: Expect) {
    let (turns, malformed, state) = parse_file(harness, rel);
    let mut roles: BTreeMap<&str, usize> = BTreeMap::new();
    let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
    let mut unknown: BTreeMap<&str, usize> = BTreeMap::new();
    for t in &turns {
        if t.kind.is_conversation() {
            *roles.entry(t.role.as_str()).or_default() += 1;
        }
        *kinds.entry(t.kind.as_str()).or_default() += 1;
        if t.kind == TurnKind::Unknown {
            *unknown.entry(t.record_type.as_str()).or_default() += 1;
        }
    }
    let sessions: std::collections::BTreeSet<&str> =
        turns.iter().map(|t| t.session_id.as_str()).collect();
    let sidechain = turns.iter().filter(|t| t.is_sidechain).count();
    let first = |pred: &dyn Fn(&Turn) -> bool| {
        turns
            .iter()
            .find(|t| pred(t))
            .map(|t| excerpt(&t.text, 70))
            .unwrap_or_else(|| "-".into())
    };
    let first_call = turns
        .iter()
        .find_map(|t| t.tool_calls.first())
        .map(|c| excerpt(c, 70))
        .unwrap_or_else(|| "-".into());
    let compactions: Vec<String> = turns
        .iter()
        .filter(|t| t.kind == TurnKind::Compaction)
        .map(|t| format!("{:?} {}", t.tokens_before, excerpt(&t.text, 50)))
        .collect();
    let ids: std::collections::HashSet<&str> = turns.iter().map(|t| t.turn_id.as_str()).collect();
    let actual = format!(
        "records {} (unique ids {}), malformed {}\n\
         sessions {sessions:?} agent {:?} parent {:?}\n\
         cwd {:?} title {:?}\n\
         conversation turns by role {roles:?}\n\
         records by kind {kinds:?}\n\
         unknown {unknown:?}, sidechain {sidechain}\n\
         compactions {compactions:?}\n\
         first user: {}\n\
         first assistant: {}\n\
         first tool call: {first_call}\n\
         first compaction summary: {}\n",
        turns.len(),
        ids.len(),
        malformed.len(),
        state.agent_id,
        state.parent_session_id,
        state.cwd,
        state.title,
        first(&|t| t.role == Role::User && t.kind == TurnKind::Message),
        first(&|t| t.role == Role::Assistant && !t.text.trim().is_empty()),
        first(&|t| t.kind == TurnKind::CompactionSummary),
    );
    expect.assert_eq(&actual);
}

#[test]
fn openclaw_v3() {
    check(
        Harness::OpenClaw,
        "openclaw/openclaw_v3_8555a0a4_first18lines.jsonl",
        expect![[r#"
            records 18 (unique ids 18), malformed 0
            sessions {"8555a0a4-0b79-459d-939c-e17cdbbf4fe2"} agent Some("pi") parent None
            cwd Some("C:\\Users\\downl\\Desktop\\clawdbot-main3\\clawdbot-main") title None
            conversation turns by role {"assistant": 7, "tool": 5, "user": 2}
            records by kind {"event": 4, "message": 9, "tool_result": 5}
            unknown {}, sidechain 0
            compactions []
            first user: はくあ
            first assistant: ⚠️ Agent failed before reply: No API key found for provider "anthropi…
            first tool call: read: C:\Users\downl\.openclaw\workspace-desktop-stack\SOUL.md
            first compaction summary: -
        "#]],
    );
}

#[test]
fn openclaw_pi_v1_with_compaction() {
    check(
        Harness::OpenClaw,
        "openclaw/pi-mono_before-compaction_lines285-372_with_header.jsonl",
        expect![[r#"
            records 89 (unique ids 89), malformed 0
            sessions {"ffae836b-9420-4060-ac13-7745215f90ff"} agent Some("pi") parent Some("d97339c6-6c10-4827-846b-9ff1d9c3dc37")
            cwd Some("/Users/badlogic/workspaces/pi-mono") title None
            conversation turns by role {"assistant": 44, "tool": 39, "user": 4}
            records by kind {"compaction": 1, "event": 1, "message": 48, "tool_result": 39}
            unknown {}, sidechain 0
            compactions ["Some(175004) # Context Checkpoint: Coding Agent Refactoring ##…"]
            first user: i reviwed what we have, it's good. continue
            first assistant: Excellent progress! We've completed WP1-WP13. Let me show a summary:
            first tool call: bash: cd /Users/badlogic/workspaces/pi-mono && npm run check
            first compaction summary: -
        "#]],
    );
}

#[test]
fn claude_code_short() {
    check(
        Harness::ClaudeCode,
        "claude-code/spotter_short.jsonl",
        expect![[r#"
            records 15 (unique ids 15), malformed 0
            sessions {"55604662-cf2a-4331-851a-ec234028f8ca"} agent Some("claude-code") parent None
            cwd Some("/home/marco/projects/spotter") title None
            conversation turns by role {"assistant": 5, "tool": 2, "user": 2}
            records by kind {"event": 6, "message": 7, "tool_result": 2}
            unknown {}, sidechain 0
            compactions []
            first user: mix phx.server doesnt seem to start
            first assistant: Let me check the project structure and try running the server to see …
            first tool call: Bash: mix phx.server 2>&1 | head -80
            first compaction summary: -
        "#]],
    );
}

#[test]
fn claude_code_tool_heavy() {
    check(
        Harness::ClaudeCode,
        "claude-code/spotter_tool_heavy.jsonl",
        expect![[r#"
            records 39 (unique ids 39), malformed 0
            sessions {"d6e0bada-1959-4eec-a9d2-0bfade768d8f"} agent Some("claude-code") parent None
            cwd Some("/home/marco/projects/spotter") title Some("dazzling-imagining-barto")
            conversation turns by role {"assistant": 9, "tool": 6, "user": 6}
            records by kind {"context": 1, "event": 17, "message": 15, "tool_result": 6}
            unknown {}, sidechain 0
            compactions []
            first user: start phoenix in background
            first assistant: Phoenix server is starting in the background. Let me check the MCP se…
            first tool call: Bash: mix phx.server
            first compaction summary: -
        "#]],
    );
}

#[test]
fn claude_code_compaction_window() {
    check(
        Harness::ClaudeCode,
        "claude-code/ae4a77f8-aedd-4bc1-888f-c94edc91af04_lines1440-1520_compaction_window.jsonl",
        expect![[r#"
            records 81 (unique ids 81), malformed 0
            sessions {"ae4a77f8-aedd-4bc1-888f-c94edc91af04"} agent Some("claude-code") parent None
            cwd Some("/home/USER/projects/spotter-worktrees/spotter-4te") title Some("lexical-painting-whisper")
            conversation turns by role {"assistant": 16, "tool": 8, "user": 3}
            records by kind {"compaction": 1, "compaction_summary": 1, "context": 1, "event": 51, "message": 19, "tool_result": 8}
            unknown {}, sidechain 0
            compactions ["Some(142431) Conversation compacted"]
            first user: <command-name>/compact</command-name> <command-message>compact</comma…
            first assistant: The .dialyzerignore file isn't being recognized. Let me check the pre…
            first tool call: tool result
            first compaction summary: This session is being continued from a previous conversation that ran…
        "#]],
    );
}

#[test]
fn claude_code_research_subagent() {
    check(
        Harness::ClaudeCode,
        "claude-code/ae4a77f8-aedd-4bc1-888f-c94edc91af04/subagents/agent-aac57f5.jsonl",
        expect![[r#"
            records 40 (unique ids 40), malformed 0
            sessions {"ae4a77f8-aedd-4bc1-888f-c94edc91af04:agent-aac57f5"} agent Some("claude-code/aac57f5") parent Some("ae4a77f8-aedd-4bc1-888f-c94edc91af04")
            cwd Some("/home/USER/projects/spotter-worktrees/spotter-4te") title Some("lexical-painting-whisper")
            conversation turns by role {"assistant": 15, "tool": 12, "user": 1}
            records by kind {"event": 12, "message": 16, "tool_result": 12}
            unknown {}, sidechain 40
            compactions []
            first user: Search hex.pm for the latest versions of these Elixir packages and re…
            first assistant: I'll search hex.pm for the latest versions of these OpenTelemetry pac…
            first tool call: WebSearch: hex.pm opentelemetry_api elixir latest version 2026
            first compaction summary: -
        "#]],
    );
}

#[test]
fn claude_code_compaction_subagent() {
    check(
        Harness::ClaudeCode,
        "claude-code/ae4a77f8-aedd-4bc1-888f-c94edc91af04/subagents/agent-acompact-946d2b.jsonl",
        expect![[r#"
            records 2 (unique ids 2), malformed 0
            sessions {"ae4a77f8-aedd-4bc1-888f-c94edc91af04:agent-acompact-946d2b"} agent Some("claude-code/acompact-946d2b") parent Some("ae4a77f8-aedd-4bc1-888f-c94edc91af04")
            cwd Some("/home/USER/projects/spotter-worktrees/spotter-4te") title Some("lexical-painting-whisper")
            conversation turns by role {"assistant": 1, "user": 1}
            records by kind {"message": 2}
            unknown {}, sidechain 2
            compactions []
            first user: Your task is to create a detailed summary of the conversation so far,…
            first assistant: <analysis> Let me chronologically analyze the conversation: 1. **Init…
            first tool call: -
            first compaction summary: -
        "#]],
    );
}

#[test]
fn codex_short_session() {
    check(
        Harness::Codex,
        "codex/sessions/2026/02/23/rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl",
        expect![[r#"
            records 19 (unique ids 19), malformed 0
            sessions {"019c8a70-dda7-7f33-98ea-f30553347322"} agent Some("codex") parent None
            cwd Some("/redacted/path/da0ba47443") title None
            conversation turns by role {"assistant": 2, "user": 1}
            records by kind {"context": 8, "event": 8, "message": 2, "tool_call": 1}
            unknown {}, sidechain 0
            compactions []
            first user: [REDACTED_MESSAGE len=86 sha=2239bcba]
            first assistant: [REDACTED_TEXT len=124 sha=7a220b7e]
            first tool call: exec_command: [REDACTED_ARGUMENTS len=456 sha=df6be51a]
            first compaction summary: -
        "#]],
    );
}

#[test]
fn codex_tool_session() {
    check(
        Harness::Codex,
        "codex/sessions/2026/02/23/rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl",
        expect![[r#"
            records 63 (unique ids 63), malformed 0
            sessions {"019c8bfe-ec25-79e0-97d7-bda6a9c575ff"} agent Some("codex") parent None
            cwd Some("/redacted/path/ea96e59ed9") title None
            conversation turns by role {"assistant": 11, "tool": 5, "user": 1}
            records by kind {"context": 7, "event": 39, "message": 7, "tool_call": 5, "tool_result": 5}
            unknown {}, sidechain 0
            compactions []
            first user: [REDACTED_MESSAGE len=98 sha=c002ff99]
            first assistant: [REDACTED_TEXT len=156 sha=2a40230f]
            first tool call: mcp__cloud-associates__search_workflows: [REDACTED_ARGUMENTS len=46 s…
            first compaction summary: -
        "#]],
    );
}

#[test]
fn codex_compacted_excerpt() {
    check(
        Harness::Codex,
        "codex/sessions/2026/02/23/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9_EXCERPT_line1+lines1760-1810.jsonl",
        expect![[r#"
            records 52 (unique ids 52), malformed 0
            sessions {"019c8a59-e9dd-71f0-9ae3-4079fe9726a9"} agent Some("codex") parent None
            cwd Some("/redacted/path/59b923df4d") title None
            conversation turns by role {"assistant": 12, "tool": 9}
            records by kind {"compaction": 1, "event": 30, "message": 4, "tool_call": 8, "tool_result": 9}
            unknown {}, sidechain 0
            compactions ["None [REDACTED_MESSAGE len=0 sha=e3b0c442]"]
            first user: -
            first assistant: [REDACTED_TEXT len=241 sha=a02ee258]
            first tool call: tool result
            first compaction summary: -
        "#]],
    );
}

#[test]
fn codex_real_text_excerpt() {
    check(
        Harness::Codex,
        "codex/sessions/2026/05/11/rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80_EXCERPT_first36of99lines.jsonl",
        expect![[r#"
            records 36 (unique ids 36), malformed 0
            sessions {"019e1695-0522-7c83-8b39-0dd379793f80"} agent Some("codex") parent None
            cwd Some("/Users/Sample_User/naya") title None
            conversation turns by role {"assistant": 15, "tool": 11, "user": 3}
            records by kind {"event": 7, "message": 5, "tool_call": 13, "tool_result": 11}
            unknown {}, sidechain 0
            compactions []
            first user: # Files mentioned by the user: ## Sample Project Demo Prep.vtt: /User…
            first assistant: I analyzed `/Users/Sample_User/Downloads/Sample Project Demo Prep.vtt…
            first tool call: exec_command: sed -n '1,220p' /Users/Sample_User/.codex/plugins/cache…
            first compaction summary: -
        "#]],
    );
}

#[test]
fn bad_records_are_malformed_or_unknown_never_fatal() {
    let path = std::path::Path::new("/x/agents/main/sessions/s1.jsonl");
    let mut p = LineParser::new(Harness::OpenClaw, path, ParserState::default());
    assert!(matches!(p.parse("{not json"), Record::Malformed(_)));
    assert!(matches!(p.parse("[1,2]"), Record::Malformed(_)));
    let Record::Turn(t) = p.parse(r#"{"type":"hologram","id":"a1"}"#) else {
        panic!("unknown types are records")
    };
    assert_eq!(
        (t.kind, t.record_type.as_str()),
        (TurnKind::Unknown, "hologram")
    );
    assert_eq!(t.session_id, "s1");
    assert_eq!(t.agent_id.as_deref(), Some("main"));
    // Wrong shapes inside a known type degrade to empty text, not a panic.
    let Record::Turn(t) = p.parse(r#"{"type":"message","message":{"role":"user","content":42}}"#)
    else {
        panic!()
    };
    assert_eq!((t.role, t.text.as_str()), (Role::User, ""));
}

#[test]
fn untrusted_metadata_wrapper_is_stripped_for_display_only() {
    let wrapped = "Sender (untrusted metadata):\n```json\n{\"id\": \"x\"}\n```\n\n[Sun 2026-03-08 22:03 GMT+9] hello there";
    assert_eq!(strip_untrusted_metadata(wrapped), "hello there");
    assert_eq!(strip_untrusted_metadata("plain"), "plain");
    assert_eq!(
        strip_untrusted_metadata("Sender (untrusted metadata): no fence"),
        "Sender (untrusted metadata): no fence"
    );
    let (turns, _, _) = parse_file(
        Harness::OpenClaw,
        "openclaw/openclaw_v3_8555a0a4_first18lines.jsonl",
    );
    let user = turns.iter().find(|t| t.role == Role::User).unwrap();
    assert!(!user.text.contains("untrusted metadata"));
    assert!(
        user.raw.contains("untrusted metadata"),
        "raw keeps the wrapper"
    );
}

#[test]
fn turn_ids_are_stable_across_parses() {
    let rel = "codex/sessions/2026/02/23/rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl";
    let a: Vec<String> = parse_file(Harness::Codex, rel)
        .0
        .into_iter()
        .map(|t| t.turn_id)
        .collect();
    let b: Vec<String> = parse_file(Harness::Codex, rel)
        .0
        .into_iter()
        .map(|t| t.turn_id)
        .collect();
    assert_eq!(a, b);
}
