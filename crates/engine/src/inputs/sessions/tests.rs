//! Session capabilities over the ingested fixture corpus: list filters, hostile ids, budgeted and
//! paged transcript reads, redaction, and stored versus generated summaries.

use chrono::TimeZone;
use expect_test::expect;

use super::*;
use crate::Store;
use crate::base::ids::AgentId;
use crate::inputs::ingest::SourceRoot;
use crate::inputs::transcripts::Harness;
use crate::test_support::fixture_store;

const COMPACTED: &str = "ae4a77f8-aedd-4bc1-888f-c94edc91af04";

#[test]
fn list_filters_and_orders_by_last_activity() {
    let Some((_dir, store)) = fixture_store() else {
        return;
    };
    let g = store.graph();
    let now = Utc.with_ymd_and_hms(2026, 5, 12, 0, 0, 0).unwrap();
    let all = list(g, &ListQuery::default(), now).unwrap();
    let rows: Vec<String> = all
        .iter()
        .map(|s| {
            format!(
                "{} {} {} turns={} compactions={}",
                s.last_activity_at.as_deref().unwrap_or("-"),
                s.harness,
                s.agent_id.as_deref().unwrap_or("-"),
                s.turn_count,
                s.compaction_count
            )
        })
        .collect();
    expect![[r#"
        [
            "2026-05-11T11:29:03.783Z codex codex turns=29 compactions=0",
            "2026-03-08T13:04:04.928Z openclaw pi turns=14 compactions=0",
            "2026-02-24T09:52:09.289Z codex codex turns=21 compactions=1",
            "2026-02-23T19:36:02.635Z codex codex turns=17 compactions=0",
            "2026-02-23T12:19:52.689Z codex codex turns=3 compactions=0",
            "2026-02-12T14:52:01.794Z claude_code claude-code turns=27 compactions=1",
            "2026-02-12T14:48:36.518Z claude_code claude-code/acompact-946d2b turns=2 compactions=0",
            "2026-02-12T14:13:05.048Z claude_code claude-code/aac57f5 turns=28 compactions=0",
            "2026-02-10T22:59:46.748Z claude_code claude-code turns=21 compactions=0",
            "2026-02-10T21:16:12.381Z claude_code claude-code turns=9 compactions=0",
            "2025-12-09T00:53:29.825Z openclaw pi turns=87 compactions=1",
        ]
    "#]]
    .assert_debug_eq(&rows);

    let codex = ListQuery {
        agent_id: Some(AgentId::new("codex").unwrap()),
        ..ListQuery::default()
    };
    assert_eq!(list(g, &codex, now).unwrap().len(), 4);
    let recent = ListQuery {
        time_window_hours: Some(24),
        ..ListQuery::default()
    };
    assert_eq!(list(g, &recent, now).unwrap().len(), 1);
    let text = ListQuery {
        text: Some("LEXICAL".into()),
        ..ListQuery::default()
    };
    assert_eq!(
        list(g, &text, now).unwrap().len(),
        3,
        "title match, case-insensitive"
    );
    let capped = ListQuery {
        limit: Some(5000),
        ..ListQuery::default()
    };
    assert_eq!(list(g, &capped, now).unwrap().len(), 11);
    let two = ListQuery {
        limit: Some(2),
        ..ListQuery::default()
    };
    assert_eq!(list(g, &two, now).unwrap().len(), 2);
    let sub = get(g, &format!("{COMPACTED}:agent-aac57f5")).unwrap();
    assert_eq!(sub.parent_session_id.as_deref(), Some(COMPACTED));
}

#[test]
fn hostile_or_unknown_session_ids_are_refused() {
    let Some((_dir, store)) = fixture_store() else {
        return;
    };
    for bad in [
        "../../etc/passwd",
        "/etc/passwd",
        "a\\b",
        "",
        "x\u{0}y",
        "..",
        &"x".repeat(201),
    ] {
        let err = read_transcript(store.graph(), &ReadQuery::new(bad)).unwrap_err();
        assert!(
            err.to_string().starts_with("invalid session id"),
            "{bad:?}: {err}"
        );
        assert!(summarize(store.graph(), bad, Utc::now()).is_err());
    }
    let err = read_transcript(store.graph(), &ReadQuery::new("no-such-session")).unwrap_err();
    assert_eq!(
        err.to_string(),
        "no session \"no-such-session\" in this store"
    );
}

#[test]
fn transcript_read_marks_compaction_and_respects_the_budget() {
    let Some((_dir, store)) = fixture_store() else {
        return;
    };
    let g = store.graph();
    let mut q = ReadQuery::new(COMPACTED);
    q.max_tokens = 100_000;
    let full = read_transcript(g, &q).unwrap();
    assert!(!full.truncated || full.turns.iter().any(|t| t.content.ends_with("[…]")));
    let marker = full
        .turns
        .iter()
        .find(|t| t.kind == TurnKind::Compaction)
        .unwrap();
    assert_eq!(marker.tokens_before, Some(142_431));
    let summary_pos = full
        .turns
        .iter()
        .position(|t| t.kind == TurnKind::CompactionSummary)
        .unwrap();
    assert!(
        full.turns[summary_pos - 1].kind == TurnKind::Compaction,
        "summary follows its marker"
    );
    assert!(full.turns.windows(2).all(|w| w[0].seq < w[1].seq));

    // The default 4,000-token budget cuts older turns, and the hint continues exactly there.
    let first = read_transcript(g, &ReadQuery::new(COMPACTED)).unwrap();
    assert!(first.truncated && first.total_tokens <= READ_TOKEN_CAP);
    assert_eq!(
        first.turns.last().unwrap().seq,
        full.turns.last().unwrap().seq
    );
    let before = first.next_before_seq.unwrap();
    assert!(
        first
            .continuation_hint
            .as_deref()
            .unwrap()
            .contains(&format!("before_seq={before}"))
    );
    let mut next = ReadQuery::new(COMPACTED);
    next.before_seq = Some(before);
    let second = read_transcript(g, &next).unwrap();
    assert!(second.turns.iter().all(|t| t.seq < before));
    assert_eq!(
        second.turns.last().unwrap().seq,
        full.turns[full.turns.len() - first.turns.len() - 1].seq,
        "no gap and no overlap between pages"
    );

    let mut last3 = ReadQuery::new(COMPACTED);
    last3.last_n_turns = Some(3);
    let three = read_transcript(g, &last3).unwrap();
    assert_eq!(three.turns.len(), 3);
    assert_eq!(three.agent_id.as_deref(), Some("claude-code"));
    assert_eq!(
        three.started_at.as_deref(),
        Some("2026-02-12T14:32:57.202Z")
    );
}

#[test]
fn reads_are_redacted_but_raw_turns_are_not() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("cc");
    let file = root.join("-w/sess-secret.jsonl");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(
        &file,
        concat!(
            r#"{"type":"user","uuid":"u1","sessionId":"sess-secret","timestamp":"2026-02-10T10:00:00Z","message":{"role":"user","content":"use key sk-proj-abcdefghijklmnopqrstuvwx and <private>my salary</private> ok"}}"#,
            "\n"
        ),
    )
    .unwrap();
    let store = Store::open(dir.path().join("store")).unwrap();
    crate::usecase::ingest(
        &store,
        &[SourceRoot {
            harness: Harness::ClaudeCode,
            root,
        }],
        &mut |_| {},
        crate::base::clock::now(),
    )
    .unwrap();
    let t = read_transcript(store.graph(), &ReadQuery::new("sess-secret")).unwrap();
    assert_eq!(t.turns[0].content, "use key [redacted] and [private] ok");
    let s = summarize(store.graph(), "sess-secret", Utc::now()).unwrap();
    assert!(
        !s.summary.contains("sk-proj") && !s.summary.contains("salary"),
        "{}",
        s.summary
    );
    let raw: String = store
        .graph()
        .with_conn(|c| c.query_row("SELECT raw FROM turns", [], |r| r.get(0)))
        .unwrap();
    assert!(raw.contains("sk-proj-abcdefghijklmnopqrstuvwx"));
}

#[test]
fn summarize_prefers_a_stored_summary_else_generates_one() {
    let Some((_dir, store)) = fixture_store() else {
        return;
    };
    let g = store.graph();
    let now = Utc.with_ymd_and_hms(2026, 11, 22, 0, 0, 0).unwrap();
    let s = summarize(g, "ffae836b-9420-4060-ac13-7745215f90ff", now).unwrap();
    assert_eq!(
        (s.source.as_str(), s.generator.as_str()),
        ("on_demand_generated", "deterministic")
    );
    expect![[r##"openclaw session by pi from 2025-12-08T23:16:32.194Z to 2025-12-09T00:53:29.825Z: 4 user messages, 44 assistant messages, 39 tool results (tools: bash ×17, read ×13, edit ×9, write ×1). Compacted 1 time(s). First request: "i reviwed what we have, it's good. continue". Last reply: "The constructor is large. Let me see how many lines TuiRenderer is total and understand its structure:". Latest compaction summary: "# Context Checkpoint: Coding Agent Refactoring ## Branch `refactor` in `/Users/badlogic/workspaces/pi-mono` ## Goal Refactor `coding-agent` to eliminate code duplication between three run modes (interactive, print/json, rpc) by creating a shared `AgentSession` abstraction. ## Key Decisions Made 1. **Keep old code for reference** - Create new files (`main-new.ts`, `cli-new.ts`) instead of modifyin…"."##]]
    .assert_eq(&s.summary);

    g.with_conn(|c| {
        c.execute(
            "INSERT INTO session_summaries VALUES ('sum_1', 'ffae836b-9420-4060-ac13-7745215f90ff',
             'Refactored coding-agent around AgentSession.', '2026-01-01T00:00:00.000Z', 'llm')",
            [],
        )
    })
    .unwrap();
    let s = summarize(g, "ffae836b-9420-4060-ac13-7745215f90ff", now).unwrap();
    assert_eq!(s.source, "doc73_existing");
    assert_eq!(s.doc73_session_summary_id.as_deref(), Some("sum_1"));
    assert_eq!(s.summary, "Refactored coding-agent around AgentSession.");
    let listed = get(g, "ffae836b-9420-4060-ac13-7745215f90ff").unwrap();
    assert!(listed.has_doc73_summary);
}

#[test]
fn pages_cover_the_session_in_order_without_gaps() {
    let Some((_dir, store)) = fixture_store() else {
        return;
    };
    let g = store.graph();
    let first = turn_page(g, COMPACTED, 0, 10, false, 500).unwrap();
    assert_eq!(first.total, 29);
    assert_eq!(first.compactions.len(), 1);
    let at = first.compactions[0].position;
    let page = turn_page(g, COMPACTED, at, 2, false, 500).unwrap();
    assert_eq!(page.turns[0].kind, TurnKind::Compaction);
    assert_eq!(page.turns[1].kind, TurnKind::CompactionSummary);
    assert!(
        page.compactions.is_empty(),
        "marks come with the first page only"
    );
    let mut seqs = Vec::new();
    let mut offset = 0;
    while offset < first.total {
        let page = turn_page(g, COMPACTED, offset, 10, false, 500).unwrap();
        seqs.extend(page.turns.iter().map(|t| t.seq));
        offset += 10;
    }
    assert_eq!(seqs.len() as u64, first.total);
    assert!(seqs.windows(2).all(|w| w[0] < w[1]));
    let with_events = turn_page(g, COMPACTED, 0, 1, true, 500).unwrap();
    assert_eq!(with_events.total, 81);
    assert!(turn_page(g, "../x", 0, 10, false, 500).is_err());
}

#[test]
fn a_budget_smaller_than_one_turn_still_makes_progress() {
    let Some((_dir, store)) = fixture_store() else {
        return;
    };
    let g = store.graph();
    let mut q = ReadQuery::new(COMPACTED);
    q.max_tokens = 5;
    let mut seen = Vec::new();
    for _ in 0..100 {
        let t = read_transcript(g, &q).unwrap();
        // Empty turns cost nothing and may come along; at least one turn always does.
        assert!(!t.turns.is_empty(), "every read makes progress");
        assert!(t.total_tokens <= 5, "{}", t.total_tokens);
        seen.extend(t.turns.iter().rev().map(|x| x.seq));
        match t.next_before_seq {
            Some(before) => q.before_seq = Some(before),
            None => break,
        }
    }
    assert_eq!(seen.len(), 29, "every turn reached, newest first");
    assert!(seen.windows(2).all(|w| w[0] > w[1]));
}

/// A time window longer than a date can reach back (an agent may send any `hours`) lists every
/// session, as no window does, rather than overflowing. Found by the `mcp_call` fuzzer.
#[test]
fn a_window_past_the_earliest_date_lists_every_session() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("store")).unwrap();
    crate::test_support::ingest_dir(&store, &elnor_fixtures::samples());
    let now = Utc.with_ymd_and_hms(2026, 11, 1, 12, 0, 0).unwrap();
    let ids = |q: &ListQuery| -> Vec<SessionId> {
        list(store.graph(), q, now)
            .unwrap()
            .into_iter()
            .map(|s| s.session_id)
            .collect()
    };
    let every = ids(&ListQuery::default());
    assert!(!every.is_empty());
    let widest = ListQuery {
        time_window_hours: Some(u32::MAX),
        ..Default::default()
    };
    assert_eq!(ids(&widest), every);
}

/// A session written as Claude Code writes one, from `(role, text)` messages a second apart.
fn one_session_store(id: &str, messages: &[(&str, &str)]) -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("cc");
    let file = root.join(format!("-w/{id}.jsonl"));
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let lines: Vec<String> = messages
        .iter()
        .enumerate()
        .map(|(i, (role, text))| {
            serde_json::json!({
                "type": role, "uuid": format!("m{i}"), "sessionId": id,
                "timestamp": format!("2026-02-10T10:00:{i:02}Z"),
                "message": {"role": role, "content": [{"type": "text", "text": text}]},
            })
            .to_string()
        })
        .collect();
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let store = Store::open(dir.path().join("store")).unwrap();
    let roots = [SourceRoot {
        harness: Harness::ClaudeCode,
        root,
    }];
    crate::usecase::ingest(&store, &roots, &mut |_| {}, crate::base::clock::now()).unwrap();
    (dir, store)
}

#[test]
fn a_generated_summary_quotes_own_words_and_shows_a_jobs_findings_as_its_report() {
    // A schedule's prompt, and a reply that opens on a gateway directive: no request, a report.
    let (_dir, store) = one_session_store(
        "sess-cron",
        &[
            (
                "user",
                "[cron:6fc16a01 domain-check] Check when both domains expire.",
            ),
            (
                "assistant",
                "[[reply_to_current]] Both domains need renewal now.",
            ),
        ],
    );
    let s = summarize(store.graph(), "sess-cron", Utc::now())
        .unwrap()
        .summary;
    assert!(
        s.contains("Report of the scheduled job: \"Both domains need renewal now.\"")
            && !s.contains("First request")
            && !s.contains("[cron")
            && !s.contains("[[reply"),
        "{s}"
    );
    // A bare command is passed over for the request that says what the work is.
    let (_dir, store) = one_session_store(
        "sess-cmd",
        &[
            ("user", "/start"),
            ("assistant", "Hi."),
            ("user", "rename the queue to codex"),
            ("assistant", "Renamed the queue."),
        ],
    );
    let s = summarize(store.graph(), "sess-cmd", Utc::now())
        .unwrap()
        .summary;
    assert!(
        s.contains("First request: \"rename the queue to codex\"")
            && s.contains("Last reply: \"Renamed the queue.\""),
        "{s}"
    );
}
