//! Data-driven tests over the shared corpus's public transcripts (read in place, never copied;
//! skipped and counted without it) and the project's own samples (`tests/fixtures/`): one `check`
//! per file, rendering counts per role and kind, compaction markers, session identity and a few
//! excerpts.

use std::collections::BTreeMap;

use expect_test::{Expect, expect};

use super::*;

use crate::test_support::{fixtures, samples};

pub(crate) fn parse_file(
    harness: Harness,
    rel: &str,
) -> Option<(Vec<Turn>, Vec<String>, ParserState)> {
    Some(parse_at(harness, &fixtures()?.join(rel)))
}

/// Parses one transcript file line by line, as ingest does.
fn parse_at(harness: Harness, path: &std::path::Path) -> (Vec<Turn>, Vec<String>, ParserState) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut parser = LineParser::new(harness, path, ParserState::default());
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
    let Some(parsed) = parse_file(harness, rel) else {
        return;
    };
    render_check(parsed, expect);
}

/// `check` over one of the project's own samples, which every checkout has.
fn check_sample(harness: Harness, rel: &str, expect: Expect) {
    render_check(parse_at(harness, &samples().join(rel)), expect);
}

fn render_check((turns, malformed, state): (Vec<Turn>, Vec<String>, ParserState), expect: Expect) {
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

/// A forked Codex rollout names itself first, then copies the history it was forked from,
/// that session's `session_meta` included: every record stays the fork's, and the other session
/// is its parent.
#[test]
fn a_forked_codex_rollout_keeps_its_own_session_and_names_its_parent() {
    let dir = tempfile::tempdir().unwrap();
    let own = "019a0000-0000-7000-8000-000000000002";
    let parent = "019a0000-0000-7000-8000-000000000001";
    let path = dir
        .path()
        .join(format!("rollout-2026-10-29T10-00-00-{own}.jsonl"));
    let meta = |id: &str, at: &str| {
        format!(
            r#"{{"timestamp":"{at}","type":"session_meta","payload":{{"id":"{id}","timestamp":"{at}","cwd":"/work/app"}}}}"#
        )
    };
    let said = |text: &str| {
        format!(
            r#"{{"timestamp":"2026-10-29T10:00:01Z","type":"event_msg","payload":{{"type":"user_message","message":"{text}"}}}}"#
        )
    };
    let lines = [
        meta(own, "2026-10-29T10:00:00Z"),
        meta(parent, "2026-10-29T08:00:00Z"),
        said("the copied request"),
        said("the fork's own request"),
    ];
    std::fs::write(&path, lines.join("\n")).unwrap();
    let (turns, malformed, state) = parse_at(Harness::Codex, &path);
    assert!(malformed.is_empty(), "{malformed:?}");
    assert_eq!(state.session_id.as_deref(), Some(own));
    assert_eq!(state.parent_session_id.as_deref(), Some(parent));
    assert!(turns.iter().all(|t| t.session_id == own), "{turns:?}");
}

/// A session says the branch it worked on and its repository, as each harness records them:
/// Codex in its header (both formats; a fork's copy of its parent's header does not count),
/// Claude Code on every record (the latest branch wins; a detached `HEAD` names none). The
/// repository is kept as `owner/name`, never the remote's address with a credential in it.
#[test]
fn a_session_says_its_branch_and_repository_and_never_a_remotes_credential() {
    let dir = tempfile::tempdir().unwrap();
    let own = "019a0000-0000-7000-8000-000000000003";
    let path = dir
        .path()
        .join(format!("rollout-2026-10-29T10-00-00-{own}.jsonl"));
    let meta = |id: &str, git: &str| {
        format!(
            r#"{{"timestamp":"2026-10-29T10:00:00Z","type":"session_meta","payload":{{"id":"{id}","timestamp":"2026-10-29T10:00:00Z","cwd":"/work/app","git":{git}}}}}"#
        )
    };
    let lines = [
        meta(
            own,
            r#"{"commit_hash":"e421928e","branch":"fix/login","repository_url":"https://ana:ghp_secret123@github.com/ana/app.git"}"#,
        ),
        meta(
            "019a0000-0000-7000-8000-000000000001",
            r#"{"branch":"old-parent-branch","repository_url":"git@github.com:ana/other.git"}"#,
        ),
    ];
    std::fs::write(&path, lines.join("\n")).unwrap();
    let (_, _, state) = parse_at(Harness::Codex, &path);
    assert_eq!(state.git.git_branch.as_deref(), Some("fix/login"));
    assert_eq!(state.git.git_repo.as_deref(), Some("ana/app"));
    assert!(!serde_json::to_string(&state).unwrap().contains("secret"));

    let bare = dir
        .path()
        .join(format!("rollout-2025-08-23T17-19-13-{own}.jsonl"));
    std::fs::write(
        &bare,
        format!(
            r#"{{"id":"{own}","timestamp":"2025-08-23T17:19:13.971Z","instructions":null,"git":{{"branch":"main","repository_url":"ssh://git@example.org:2222/team/tool"}}}}"#
        ),
    )
    .unwrap();
    let (_, _, state) = parse_at(Harness::Codex, &bare);
    assert_eq!(
        (
            state.git.git_branch.as_deref(),
            state.git.git_repo.as_deref()
        ),
        (Some("main"), Some("team/tool"))
    );

    let cc = dir.path().join("s-git.jsonl");
    let record = |branch: &str, uuid: &str| {
        format!(
            r#"{{"type":"user","sessionId":"s-git","uuid":"{uuid}","cwd":"/work/app","gitBranch":"{branch}","timestamp":"2026-10-29T10:00:00Z","message":{{"role":"user","content":"go on"}}}}"#
        )
    };
    let lines = [
        record("main", "u1"),
        record("feature/cards", "u2"),
        record("HEAD", "u3"),
    ];
    std::fs::write(&cc, lines.join("\n")).unwrap();
    let (_, _, state) = parse_at(Harness::ClaudeCode, &cc);
    assert_eq!(state.git.git_branch.as_deref(), Some("feature/cards"));
    assert_eq!(state.git.git_repo, None);

    for (address, name) in [
        (
            "git@github.com:JaydenXsoe/JaydenXsoe.github.io",
            Some("JaydenXsoe/JaydenXsoe.github.io"),
        ),
        (
            "https://github.com/SproutSeeds/coda-cli.git",
            Some("SproutSeeds/coda-cli"),
        ),
        (
            "https://user:tok@gitlab.example.com/group/sub/repo.git?x=1",
            Some("sub/repo"),
        ),
        ("https://github.com/", None),
        ("not a remote", None),
        ("", None),
    ] {
        assert_eq!(repository_name(address).as_deref(), name, "{address}");
    }
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
    let (turns, _, _) = parse_at(
        Harness::OpenClaw,
        &samples()
            .join("openclaw/agents/henderson/sessions/c7d8e9f0-1a2b-4c3d-8e4f-5a6b7c8d9e01.jsonl"),
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
    let path = samples().join(
        "codex/sessions/2026/10/29/rollout-2026-10-29T09-12-03-019a3c10-7e21-7b40-8d2e-5f6a7b8c9d01.jsonl",
    );
    let a: Vec<String> = parse_at(Harness::Codex, &path)
        .0
        .into_iter()
        .map(|t| t.turn_id)
        .collect();
    let b: Vec<String> = parse_at(Harness::Codex, &path)
        .0
        .into_iter()
        .map(|t| t.turn_id)
        .collect();
    assert!(!a.is_empty(), "the sample has turns");
    assert_eq!(a, b);
}

#[test]
fn sample_claude_code_session_with_meta_commands_tools_and_a_cut_line() {
    check_sample(
        Harness::ClaudeCode,
        "claude-code/-home-dana-code-ledger-sync/5b0c2d7e-1f3a-4c8e-9a61-0d2f7c9e4a11.jsonl",
        expect![[r#"
            records 15 (unique ids 15), malformed 1
            sessions {"5b0c2d7e-1f3a-4c8e-9a61-0d2f7c9e4a11"} agent Some("claude-code") parent None
            cwd Some("/home/dana/code/ledger-sync") title Some("Nightly sync drops rows on token refresh")
            conversation turns by role {"assistant": 5, "tool": 3, "user": 4}
            records by kind {"context": 1, "event": 2, "message": 9, "tool_result": 3}
            unknown {}, sidechain 0
            compactions []
            first user: <command-name>/clear</command-name> <command-message>clear</command-m…
            first assistant: I'll read the batch writer first.
            first tool call: Read: /home/dana/code/ledger-sync/src/sync/batch.rs
            first compaction summary: -
        "#]],
    );
}

#[test]
fn sample_claude_code_subagent_and_compacted_session() {
    check_sample(
        Harness::ClaudeCode,
        "claude-code/-home-dana-code-ledger-sync/5b0c2d7e-1f3a-4c8e-9a61-0d2f7c9e4a11/subagents/agent-a3f9c21.jsonl",
        expect![[r#"
            records 4 (unique ids 4), malformed 0
            sessions {"5b0c2d7e-1f3a-4c8e-9a61-0d2f7c9e4a11:agent-a3f9c21"} agent Some("claude-code/a3f9c21") parent Some("5b0c2d7e-1f3a-4c8e-9a61-0d2f7c9e4a11")
            cwd Some("/home/dana/code/ledger-sync") title Some("steady-ledger-otter")
            conversation turns by role {"assistant": 2, "tool": 1, "user": 1}
            records by kind {"message": 3, "tool_result": 1}
            unknown {}, sidechain 4
            compactions []
            first user: Search the crate for other places that resume per row after a token r…
            first assistant: Only src/sync/batch.rs resumes per row.
            first tool call: Grep: /home/dana/code/ledger-sync/src
            first compaction summary: -
        "#]],
    );
    check_sample(
        Harness::ClaudeCode,
        "claude-code/-home-dana-code-ledger-sync/8e41a0c3-6d52-4b7f-b2e9-3c7d1a5f9b20.jsonl",
        expect![[r#"
            records 8 (unique ids 8), malformed 0
            sessions {"8e41a0c3-6d52-4b7f-b2e9-3c7d1a5f9b20"} agent Some("claude-code") parent None
            cwd Some("/home/dana/code/ledger-sync") title Some("steady-ledger-otter")
            conversation turns by role {"assistant": 3, "tool": 1, "user": 3}
            records by kind {"compaction_summary": 1, "message": 6, "tool_result": 1}
            unknown {}, sidechain 0
            compactions []
            first user: Back on the sync. The upstream client still loses the cursor on refre…
            first assistant: v3 of the client resets the cursor on every refresh; v2 keeps it. The…
            first tool call: Edit: /home/dana/code/ledger-sync/Cargo.toml
            first compaction summary: This session is being continued from a previous conversation that ran…
        "#]],
    );
}

#[test]
fn sample_codex_sessions_interactive_and_exec() {
    check_sample(
        Harness::Codex,
        "codex/sessions/2026/10/29/rollout-2026-10-29T09-12-03-019a3c10-7e21-7b40-8d2e-5f6a7b8c9d01.jsonl",
        expect![[r#"
            records 16 (unique ids 16), malformed 0
            sessions {"019a3c10-7e21-7b40-8d2e-5f6a7b8c9d01"} agent Some("codex") parent None
            cwd Some("/home/dana/code/ledger-sync") title None
            conversation turns by role {"assistant": 3, "tool": 2, "user": 1}
            records by kind {"context": 4, "event": 6, "message": 2, "tool_call": 2, "tool_result": 2}
            unknown {}, sidechain 0
            compactions []
            first user: Write the regression test for a token refresh in the middle of a batc…
            first assistant: Added `tests/refresh_mid_batch.rs`: a fake client refreshes its token…
            first tool call: exec_command: rg -n write_batch src
            first compaction summary: -
        "#]],
    );
    check_sample(
        Harness::Codex,
        "codex/sessions/2026/10/29/rollout-2026-10-29T09-12-05-019a3c11-0a00-7c00-9e00-aa00bb00cc02.jsonl",
        expect![[r#"
            records 3 (unique ids 3), malformed 0
            sessions {"019a3c11-0a00-7c00-9e00-aa00bb00cc02"} agent Some("codex") parent None
            cwd Some("/home/dana/code/ledger-sync") title None
            conversation turns by role {"assistant": 1}
            records by kind {"context": 1, "event": 1, "message": 1}
            unknown {}, sidechain 0
            compactions []
            first user: -
            first assistant: Regression test for mid-batch token refresh
            first tool call: -
            first compaction summary: -
        "#]],
    );
}

#[test]
fn sample_openclaw_session_with_heartbeat_and_a_joined_line() {
    check_sample(
        Harness::OpenClaw,
        "openclaw/agents/henderson/sessions/c7d8e9f0-1a2b-4c3d-8e4f-5a6b7c8d9e01.jsonl",
        expect![[r#"
            records 9 (unique ids 9), malformed 1
            sessions {"c7d8e9f0-1a2b-4c3d-8e4f-5a6b7c8d9e01"} agent Some("henderson") parent None
            cwd Some("/home/dana/.openclaw/workspace-henderson") title None
            conversation turns by role {"assistant": 4, "tool": 1, "user": 2}
            records by kind {"event": 2, "message": 6, "tool_result": 1}
            unknown {}, sidechain 0
            compactions []
            first user: Christensen's event study data is late again. We decided to focus on …
            first assistant: Noted: price impact leads, corrective disclosure is the fallback. The…
            first tool call: read: /home/dana/.openclaw/workspace-henderson/damages-outline.md
            first compaction summary: -
        "#]],
    );
}
