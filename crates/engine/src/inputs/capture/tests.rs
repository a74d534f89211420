//! Capture over the real fixture transcripts: deterministic snapshots a reviewer can read, `off`
//! writing nothing, link rules, cross-conversation updates, TTLs from config, and full mode
//! against a local HTTP stand-in playing Ollama and an OpenAI-compatible endpoint.

use std::time::Duration;

use chrono::TimeZone;
use expect_test::expect;
use serde_json::json;

use super::*;
use crate::base::secrets::MemorySecrets;
use crate::graph::contexts::{LinkRuleKind, NewWorkContext};
use crate::test_support::fixture_store;
use crate::test_support::standin::{Canned, StandIn, ok};

const SPOTTER_4TE: &str = "ae4a77f8-aedd-4bc1-888f-c94edc91af04";
const CODEMIE: &str = "019e1695-0522-7c83-8b39-0dd379793f80";

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 22, 9, 0, 0).unwrap()
}

fn run(store: &Store, session: &str) -> CaptureOutcome {
    capture(
        store,
        &MemorySecrets::default(),
        &CaptureRequest {
            session_id: SessionId::new(session).unwrap(),
            trigger: Trigger::ManualRequest,
            now: now(),
        },
    )
    .unwrap()
}

fn render(o: &CaptureOutcome) -> String {
    let mut out = format!(
        "{} -> {} by {} | activity {} | mode {}{}\n  new entities: {:?}\n  summary: {}\n",
        o.session_id,
        o.work_context_id
            .as_ref()
            .map(|w| w.as_str())
            .unwrap_or("-"),
        o.resolution
            .as_ref()
            .map(|r| serde_json::to_value(r).unwrap()["by"]
                .as_str()
                .unwrap()
                .to_owned())
            .unwrap_or_default(),
        o.activity.map(ActivityType::as_str).unwrap_or("-"),
        o.capture_mode.map(capture_mode_name).unwrap_or("-"),
        o.fallback_reason
            .as_deref()
            .map(|r| format!(" (fallback: {r})"))
            .unwrap_or_default(),
        o.new_entities
            .iter()
            .map(|e| e.as_str())
            .collect::<Vec<_>>(),
        o.summary.as_deref().unwrap_or("-"),
    );
    for e in &o.entries {
        out.push_str(&format!(
            "  {} [{}] {}\n",
            e.entry_type().as_str(),
            capture_mode_name(e.capture_mode),
            e.content.headline()
        ));
    }
    out
}

#[test]
fn deterministic_capture_of_every_fixture_session() {
    let Some((_d, store)) = fixture_store() else {
        return;
    };
    store.set_mode(ContinuityMode::Deterministic).unwrap();
    let ids: Vec<String> = store
        .graph()
        .with_conn_result(|c| {
            let mut s =
                c.prepare("SELECT session_id FROM transcript_sessions ORDER BY session_id")?;
            s.query_map([], |r| r.get(0))?.collect()
        })
        .unwrap();
    let out: String = ids.iter().map(|id| render(&run(&store, id))).collect();
    expect![[r#"
        019c8a59-e9dd-71f0-9ae3-4079fe9726a9 -> wc_proj_fdec581f4cf5 by rule | activity - | mode deterministic
          new entities: []
          summary: [REDACTED_TEXT len=161 sha=40a14c06].
        Now: still working when the session ended: 1 tool call(s) after its last message, exec_command last.
        0 request(s), 4 repl(ies) over 3 min. Tools: apply_patch ×4, exec_command ×4. Harness: codex, in /redacted/path/59b923df4d.
          session_summary_ref [deterministic] session summary ss_38b7c067496a_336 (0 turns)
        019c8a70-dda7-7f33-98ea-f30553347322 -> wc_proj_93e9aea4f514 by rule | activity - | mode deterministic
          new entities: []
          summary: [REDACTED_TEXT len=124 sha=7a220b7e].
        Now: still working when the session ended: 1 tool call(s) after its last message, exec_command last.
        0 request(s), 1 repl(ies) over 0 min. Tools: exec_command ×1. Harness: codex, in /redacted/path/da0ba47443.
          session_summary_ref [deterministic] session summary ss_19557c4cb219_354 (0 turns)
        019c8bfe-ec25-79e0-97d7-bda6a9c575ff -> wc_proj_6bfb7f60bd32 by rule | activity - | mode deterministic
          new entities: []
          summary: [REDACTED_TEXT len=647 sha=10502814].
        0 request(s), 6 repl(ies) over 1 min. Tools: mcp__cloud-associates__execute_workflow ×3, [REDACTED_NAME len=43 sha=c186413b] ×1, mcp__cloud-associates__search_workflows ×1. Harness: codex, in /redacted/path/ea96e59ed9.
          session_summary_ref [deterministic] session summary ss_68d5ad8e53d1_416 (0 turns)
        019e1695-0522-7c83-8b39-0dd379793f80 -> wc_proj_1d24322e0c46 by rule | activity drafting | mode deterministic
          new entities: []
          summary: "analyze trascript and summarzie action items related to codemie and demo preapration, specifically focus on demo, User and Vadym" → Yes. User to draft a 10-minute client-facing governance demo scenario for Codemie covering MCP governance, analytics, budgets/chargeback, and current vs future integration claims.
        Now: no reply yet to "use app tools to go to Analytics and Project management tabs in codemie plaform onepned in google chrome to understand…".
        3 request(s), 2 repl(ies) over 59 min. Tools: exec_command ×13. Harness: codex, in /Users/Sample_User/naya.
          session_summary_ref [deterministic] session summary ss_a151f035034e_454 (3 turns)
          work_phase_change [deterministic] phase → drafting
        55604662-cf2a-4331-851a-ec234028f8ca -> wc_proj_657b575464d8 by rule | activity operational | mode deterministic
          new entities: []
          summary: "mix phx.server doesnt seem to start" → Let me check the project structure and try running the server to see the error.
        Now: still working when the session ended: after its last message it last ran `mix phx.server 2>&1 | head -80`.
        1 request(s), 1 repl(ies) over 0 min. Tools: Bash ×1, Glob ×1. Harness: claude_code, in /home/marco/projects/spotter.
          session_summary_ref [deterministic] session summary ss_18660842565f_243 (1 turns)
          work_phase_change [deterministic] phase → drafting
        8555a0a4-0b79-459d-939c-e17cdbbf4fe2 -> wc_proj_91d233b0f7c4 by rule | activity - | mode deterministic
          new entities: []
          summary: "はくあ" → はくあ、いい名前だね。 こっちはまだ生まれたてで、名前もキャラも未設定。 よかったら一緒に決めたい。 とりあえず聞きたいのは4つだけ: 俺の名前; どういう存在か（AI、使い魔、幽霊、秘書、変な生き物でも可）; 雰囲気（ゆるい、辛口、静か、親しい感じ など）; 署名っぽい絵文字. 迷うなら、たとえばこんな案ある: 名前：夜詠 / クロ / ルカ / 燈.
        Ended on "はくあ". 2 request(s), 2 repl(ies) over 48 min. Tools: read ×5. Harness: openclaw, in C:\Users\downl\Desktop\clawdbot-main3\clawdbot-main.
          session_summary_ref [deterministic] session summary ss_c37bf745712f_18 (2 turns)
          open_question [deterministic] なんて呼べばいい？
          open_question [deterministic] 普段は敬語がいい？
          open_question [deterministic] ため口がいい？
        ae4a77f8-aedd-4bc1-888f-c94edc91af04 -> wc_proj_2925a201a696 by rule | activity drafting | mode deterministic
          new entities: []
          summary: "and continue with the reamining tasks" → I have uncommitted changes from spotter-4te.3 (controller instrumentation). The blocker was a Dialyzer false positive on get_current_trace_id().
        Now: still working when the session ended: after its last message it last ran `grep -n "ignore_warnings\|dialyzer" mix.exs`.
        Ended on "continue implementation". 2 request(s), 6 repl(ies) over 19 min. Tools: Bash ×8. Harness: claude_code, session "lexical-painting-whisper", in /home/USER/projects/spotter-worktrees/spotter-4te.
          session_summary_ref [deterministic] session summary ss_0609c4114e0a_230 (2 turns)
          work_phase_change [deterministic] phase → drafting
          open_question [deterministic] spotter-4te.4: Enable opentelemetry_ash and trace async enrichment
          open_question [deterministic] spotter-4te.5: Trace LiveView and TerminalChannel
          open_question [deterministic] spotter-4te.6: Add regression tests and documentation
        ae4a77f8-aedd-4bc1-888f-c94edc91af04:agent-aac57f5 -> wc_proj_2925a201a696 by  | activity - | mode -
          new entities: []
          summary: -
        ae4a77f8-aedd-4bc1-888f-c94edc91af04:agent-acompact-946d2b -> - by  | activity - | mode -
          new entities: []
          summary: -
        d6e0bada-1959-4eec-a9d2-0bfade768d8f -> wc_proj_657b575464d8 by rule | activity research | mode deterministic
          new entities: []
          summary: "start phoenix in background" → Phoenix server is starting in the background. Let me check the MCP servers status.
        Now: no reply yet to "scrolling back in xterm.js still does not work (maybe because outer web catches it)? websearch xterm.js tmux…".
        2 request(s), 1 repl(ies) over 1 min. Tools: Bash ×2, Glob ×1, Read ×1, WebFetch ×1, WebSearch ×1. Harness: claude_code, session "dazzling-imagining-barto", in /home/marco/projects/spotter.
          session_summary_ref [deterministic] session summary ss_a313cd0e0d44_284 (2 turns)
          work_phase_change [deterministic] phase → research
          open_question [deterministic] scrolling back in xterm.js still does not work (maybe because outer web catches it)?
        ffae836b-9420-4060-ac13-7745215f90ff -> wc_proj_a23ae8e5432c by rule | activity research | mode deterministic
          new entities: ["ent_wp1", "ent_wp10", "ent_wp11", "ent_wp12", "ent_wp13", "ent_wp14", "ent_wp15", "ent_wp16", "ent_wp17", "ent_wp18", "ent_wp20", "ent_users_badlogic_pi_agent_sessions_users_b", "ent_packages_coding_agent_docs_refactor_md"]
          summary: "i reviwed what we have, it's good. continue" → The constructor is large. Let me see how many lines TuiRenderer is total and understand its structure:. Changed: refactor.md, main-new.ts, cli-new.ts.
        Now: no reply yet to "also remember the @packages/coding-agent/docs/refactor.md file btw. could read it now to refresh you rmind".
        4 request(s), 26 repl(ies) over 7 min. Entities: WP14, WP1, WP15, WP13, packages/coding-agent/docs/refactor.md. Tools: bash ×17, read ×13, edit ×9, write ×1. Harness: openclaw, in /Users/badlogic/workspaces/pi-mono.
          session_summary_ref [deterministic] session summary ss_6faaad2ea44e_107 (4 turns)
          work_phase_change [deterministic] phase → research
          open_question [deterministic] WP15: Create InteractiveMode (refactor TuiRenderer to use AgentSession)
          open_question [deterministic] WP16: Update main-new.ts runInteractiveMode
          open_question [deterministic] WP17: (Optional) Move TUI components
          open_question [deterministic] WP18-WP20: Setup extraction and cleanup
    "#]].assert_eq(&out);
    // Every entity event a capture wrote names the session and the work context it resolved to,
    // including the creation of candidate entities.
    let unplaced = store
        .graph()
        .count(
            "SELECT count(*) FROM events WHERE json_extract(payload, '$.source_kind') = 'capture'
             AND (json_extract(payload, '$.work_context_id') IS NULL
                  OR json_extract(payload, '$.source_session_id') IS NULL)",
        )
        .unwrap();
    let created = store
        .graph()
        .count("SELECT count(*) FROM events WHERE json_extract(payload, '$.change') = 'created'")
        .unwrap();
    assert_eq!((unplaced, created > 0), (0, true));
    // Nothing new since: a second run writes nothing.
    let again = run(&store, CODEMIE);
    assert_eq!(again.status, CaptureStatus::NothingNew);
    assert!(again.entries.is_empty());
}

#[test]
fn off_writes_nothing_at_all() {
    let Some((dir, store)) = fixture_store() else {
        return;
    };
    store.set_mode(ContinuityMode::Off).unwrap();
    let snapshot = |store: &Store| {
        let files: Vec<String> = walkdir::WalkDir::new(dir.path())
            .into_iter()
            .flatten()
            .filter(|e| e.file_type().is_file() && !e.path().to_string_lossy().contains("sqlite"))
            .map(|e| format!("{} {}", e.path().display(), e.metadata().unwrap().len()))
            .collect();
        let rows = store
            .graph()
            .count(
                "SELECT (SELECT count(*) FROM entities) + (SELECT count(*) FROM events)
                 + (SELECT count(*) FROM session_summaries) + (SELECT count(*) FROM capture_runs)
                 + (SELECT count(*) FROM session_captures) + (SELECT count(*) FROM work_contexts)",
            )
            .unwrap();
        (files, rows)
    };
    let before = snapshot(&store);
    let o = run(&store, SPOTTER_4TE);
    assert_eq!(o.status, CaptureStatus::Off);
    assert_eq!(snapshot(&store), before);
}

#[test]
fn a_link_rule_places_the_session_and_entries_follow_config_ttls() {
    let Some((_d, store)) = fixture_store() else {
        return;
    };
    store.set_mode(ContinuityMode::Deterministic).unwrap();
    store.set_config("open_question_ttl_days", "5").unwrap();
    store.set_config("session_summary_ttl_days", "9").unwrap();
    let wc = store
        .graph()
        .create_work_context(
            &NewWorkContext {
                name: "Spotter OTEL".into(),
                rules: vec![(
                    LinkRuleKind::Cwd,
                    "/home/USER/projects/spotter-worktrees".into(),
                )],
                ..NewWorkContext::default()
            },
            now(),
        )
        .unwrap();
    let o = run(&store, SPOTTER_4TE);
    assert_eq!(o.work_context_id.as_ref(), Some(&wc.work_context_id));
    assert!(matches!(o.resolution, Some(Resolution::Rule { .. })));
    let log = store.log(&wc.work_context_id).read().unwrap().entries;
    assert!(!log.is_empty());
    for e in &log {
        let days = (e.decay_at - e.happened_at()).num_days();
        match e.entry_type() {
            crate::EntryType::OpenQuestion => assert_eq!(days, 5),
            crate::EntryType::SessionSummaryRef => assert_eq!(days, 9),
            _ => {}
        }
    }
    // The TTL runs from when the work happened (issue 14), so the summary's is checked for sure;
    // an open question's, when the stricter detectors still find one.
    assert!(
        log.iter()
            .any(|e| e.entry_type() == crate::EntryType::SessionSummaryRef && e.source_at.is_some())
    );
    // The session row and the summary record point where capture put them.
    let info = crate::inputs::sessions::get(store.graph(), SPOTTER_4TE).unwrap();
    assert_eq!(
        info.work_context_id.as_deref(),
        Some(wc.work_context_id.as_str())
    );
    assert!(info.has_doc73_summary);
}

#[test]
fn heuristics_off_keeps_only_summary_and_phase() {
    let Some((_d, store)) = fixture_store() else {
        return;
    };
    store.set_mode(ContinuityMode::Deterministic).unwrap();
    store
        .set_config("deterministic_heuristic_capture", "false")
        .unwrap();
    let o = run(&store, CODEMIE);
    let types: Vec<&str> = o.entries.iter().map(|e| e.entry_type().as_str()).collect();
    assert_eq!(types, vec!["session_summary_ref", "work_phase_change"]);
}

#[test]
fn an_entity_touched_elsewhere_updates_every_other_context_that_references_it() {
    let Some((_d, store)) = fixture_store() else {
        return;
    };
    store.set_mode(ContinuityMode::Deterministic).unwrap();
    let g = store.graph();
    let dialyzer = g
        .create_entity(
            &crate::graph::entities::NewEntity {
                kind: "tool".into(),
                canonical_name: "Dialyzer".into(),
                ..Default::default()
            },
            now(),
        )
        .unwrap();
    // The CLI and the app deliver right after a manual change; nothing references it yet.
    assert_eq!(
        crossconv::deliver_pending(&store, &store.config().unwrap(), now())
            .unwrap()
            .written,
        0
    );
    let other = g
        .create_work_context(
            &NewWorkContext {
                name: "Elixir tooling".into(),
                entity_ids: vec![dialyzer.entity_id.clone()],
                ..NewWorkContext::default()
            },
            now(),
        )
        .unwrap();
    // Manual creation happened before the link existed, so it is delivered nowhere.
    let o = run(&store, SPOTTER_4TE);
    assert!(o.entities.contains(&dialyzer.entity_id));
    let updates = store.log(&other.work_context_id).read().unwrap().entries;
    let texts: Vec<String> = updates.iter().map(|e| e.content.headline()).collect();
    println!("{texts:?}");
    assert_eq!(o.cross_updates, 1);
    expect![[r#"Dialyzer came up in another conversation in work context "spotter-4te" (session ae4a77f8-aedd-4bc1-888f-c94edc91af04)."#]].assert_eq(&texts.join("\n"));
    assert!(!updates[0].delivered);
    assert_eq!(
        updates[0].linked_entity_ids,
        vec![dialyzer.entity_id.clone()]
    );
    // The same entity touched again by the same session, twice, while the update waits
    // undelivered: nothing more is written.
    let source = crate::graph::entities::ChangeSource::capture(
        &crate::base::ids::SessionId::new(SPOTTER_4TE).unwrap(),
        o.work_context_id.as_ref().unwrap(),
    );
    g.with_conn(|c| {
        crate::graph::entities::changed_in(c, &dialyzer.entity_id, "referenced", &source, now())?;
        crate::graph::entities::changed_in(c, &dialyzer.entity_id, "referenced", &source, now())
    })
    .unwrap();
    assert_eq!(
        crossconv::deliver_pending(&store, &store.config().unwrap(), now())
            .unwrap()
            .written,
        0
    );
    assert_eq!(
        store
            .log(&other.work_context_id)
            .read()
            .unwrap()
            .entries
            .len(),
        1
    );
    // The capturing context itself gets no update about its own session.
    let own = store
        .log(o.work_context_id.as_ref().unwrap())
        .read()
        .unwrap()
        .entries;
    assert!(
        own.iter()
            .all(|e| e.entry_type() != crate::EntryType::CrossConversationUpdate)
    );
}

/// A sweep captures every due session first and delivers afterwards: one update per session and
/// other context, naming every shared entity the session touched, however many there are.
#[test]
fn a_sweep_tells_each_other_context_once_per_session() {
    let Some((_d, store)) = fixture_store() else {
        return;
    };
    store.set_mode(ContinuityMode::Deterministic).unwrap();
    let g = store.graph();
    let ids: Vec<EntityId> = ["Dialyzer", "OpenTelemetry", "Phoenix"]
        .into_iter()
        .map(|name| {
            g.create_entity(
                &crate::graph::entities::NewEntity {
                    kind: "tool".into(),
                    canonical_name: name.into(),
                    ..Default::default()
                },
                now(),
            )
            .unwrap()
            .entity_id
        })
        .collect();
    // The CLI and the app deliver right after a manual change, before any context links them.
    crossconv::deliver_pending(&store, &store.config().unwrap(), now()).unwrap();
    let other = g
        .create_work_context(
            &NewWorkContext {
                name: "Elixir tooling".into(),
                entity_ids: ids.clone(),
                ..NewWorkContext::default()
            },
            now(),
        )
        .unwrap();
    let run = crate::inputs::agent::Agent::new(&store.config().unwrap())
        .sweep(&store, &MemorySecrets::default(), now())
        .unwrap();
    assert!(run.failures.is_empty(), "{:?}", run.failures);
    // Delivery waited for the end of the run: no capture delivered on its own.
    assert!(run.captures.iter().all(|o| o.cross_updates == 0));
    let updates = store.log(&other.work_context_id).read().unwrap().entries;
    assert!(run.cross_touched.contains(&other.work_context_id));
    let written: usize = run
        .cross_touched
        .iter()
        .map(|wc| {
            let entries = store.log(wc).read().unwrap().entries;
            entries
                .iter()
                .filter(|e| e.entry_type() == crate::EntryType::CrossConversationUpdate)
                .count()
        })
        .sum();
    assert_eq!(run.cross_updates, written);
    let mut lines: Vec<String> = updates
        .iter()
        .map(|e| format!("{} {:?}", e.content.headline(), e.linked_entity_ids.len()))
        .collect();
    lines.sort();
    expect![[r#"
        Dialyzer and OpenTelemetry came up in another conversation in work context "spotter-4te" (session ae4a77f8-aedd-4bc1-888f-c94edc91af04). 2
        Phoenix came up in another conversation in work context "spotter" (session d6e0bada-1959-4eec-a9d2-0bfade768d8f). 1"#]].assert_eq(&lines.join("\n"));
}

fn full_mode(store: &Store, base: &str, provider: &str) {
    store.set_mode(ContinuityMode::Full).unwrap();
    store.set_config("synthesis_provider", provider).unwrap();
    store.set_config("synthesis_base_url", base).unwrap();
    store
        .set_config("synthesis_model", "test-model:7b")
        .unwrap();
    store.set_config("synthesis_timeout_seconds", "1").unwrap();
}

fn good_reply() -> String {
    json!({
        "session_summary": "Wired OTEL tracing into the hook controllers; commit blocked by a Dialyzer false positive.",
        "open_questions": [{"question": "How to silence the Dialyzer false positive on get_current_trace_id?", "context": "pre-commit hook"}],
        "key_decisions": [{"decision": "Convert with_span to a macro", "rationale": "do-blocks need a macro"}],
        "work_phase": "revision"
    })
    .to_string()
}

#[test]
fn full_mode_with_a_good_reply_writes_llm_enriched_entries() {
    let ollama = StandIn::start(&[(
        "/api/chat",
        ok(json!({"message": {"role": "assistant", "content": good_reply()}, "done": true})),
    )]);
    let openai = StandIn::start(&[(
        "/v1/chat/completions",
        ok(
            json!({"choices": [{"message": {"role": "assistant", "content": good_reply()}, "finish_reason": "stop"}]}),
        ),
    )]);
    let mut rendered = Vec::new();
    for (server, provider) in [(&ollama, "ollama"), (&openai, "openai_compatible")] {
        let Some((_d, store)) = fixture_store() else {
            return;
        };
        full_mode(&store, &server.base, provider);
        let o = run(&store, SPOTTER_4TE);
        rendered.push(render(&o));
        let sent = &server.seen()[0].body;
        let conversation = sent["messages"][1]["content"].as_str().unwrap();
        assert!(conversation.starts_with("User: "), "{conversation}");
        assert!(crate::base::tokens::count(conversation) <= full::MAX_INPUT_TOKENS);
        assert!(
            !conversation.contains("tool_use_id"),
            "tool results are excluded"
        );
        let calls = store
            .graph()
            .count("SELECT count(*) FROM model_calls WHERE outcome = 'ok'")
            .unwrap();
        assert_eq!(calls, 1);
        // The capture run keeps what was sent and what came back, for the person to audit.
        let kept: (String, String, String) = store
            .graph()
            .with_conn_result(|c| {
                c.query_row(
                    "SELECT model_provider, model_input, model_answer FROM capture_runs",
                    [],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
                )
            })
            .unwrap();
        assert_eq!(
            kept,
            (provider.to_owned(), conversation.to_owned(), good_reply())
        );
        let exchange = o.model_exchange.as_ref().expect("the outcome says it too");
        assert_eq!(exchange.answer.as_deref(), Some(good_reply().as_str()));
    }
    assert_eq!(
        rendered[0], rendered[1],
        "both providers give the same capture"
    );
    {
        expect![[r#"
            ae4a77f8-aedd-4bc1-888f-c94edc91af04 -> wc_proj_2925a201a696 by rule | activity drafting | mode llm_enriched
              new entities: []
              summary: Wired OTEL tracing into the hook controllers; commit blocked by a Dialyzer false positive.
              session_summary_ref [llm_enriched] session summary ss_0609c4114e0a_230 (2 turns)
              work_phase_change [llm_enriched] phase → revision
              open_question [llm_enriched] How to silence the Dialyzer false positive on get_current_trace_id?
              key_decision [llm_enriched] Convert with_span to a macro
        "#]]
        .assert_eq(&rendered[0]);
    }
}

#[test]
fn full_mode_failures_fall_back_to_deterministic_with_the_reason() {
    let slow = Canned {
        status: 200,
        body: json!({"message": {"content": good_reply()}}).to_string(),
        delay: Duration::from_secs(3),
    };
    let cases = [
        (
            "malformed",
            ok(json!({"message": {"content": "{\"session_summary\": \"x\", "}})),
        ),
        (
            "server error",
            Canned {
                status: 500,
                body: "{}".into(),
                delay: Duration::ZERO,
            },
        ),
        ("timeout", slow),
    ];
    let mut out = String::new();
    for (name, canned) in cases {
        let server = StandIn::start(&[("/api/chat", canned)]);
        let Some((_d, store)) = fixture_store() else {
            return;
        };
        full_mode(&store, &server.base, "ollama");
        let o = run(&store, CODEMIE);
        assert_eq!(o.capture_mode, Some(CaptureMode::Deterministic));
        assert!(
            o.entries
                .iter()
                .all(|e| e.capture_mode == CaptureMode::Deterministic)
        );
        let recorded: String = store
            .graph()
            .with_conn_result(|c| {
                c.query_row("SELECT fallback_reason FROM capture_runs", [], |r| r.get(0))
            })
            .unwrap();
        assert_eq!(Some(&recorded), o.fallback_reason.as_ref());
        out.push_str(&format!("{name}: {recorded}\n"));
    }
    expect![[r#"
        malformed: reply is not the expected JSON: not valid JSON (EOF while parsing a value at line 1 column 24)
        server error: HTTP 500
        timeout: timeout: no reply within synthesis_timeout_seconds
    "#]].assert_eq(&out);
}

#[test]
fn the_spend_guard_stops_calls_at_its_limit() {
    let server = StandIn::start(&[(
        "/api/chat",
        ok(json!({"message": {"content": good_reply()}})),
    )]);
    let Some((_d, store)) = fixture_store() else {
        return;
    };
    full_mode(&store, &server.base, "ollama");
    store.set_config("max_model_calls_per_hour", "2").unwrap();
    let ids = [SPOTTER_4TE, CODEMIE, "d6e0bada-1959-4eec-a9d2-0bfade768d8f"];
    let modes: Vec<String> = ids
        .iter()
        .map(|id| {
            let o = run(&store, id);
            format!(
                "{} {}",
                capture_mode_name(o.capture_mode.unwrap()),
                o.fallback_reason.unwrap_or_default()
            )
        })
        .collect();
    expect![[r#"
        llm_enriched 
        llm_enriched 
        deterministic spend limit reached: 2 model calls per hour"#]]
    .assert_eq(&modes.join("\n"));
    assert_eq!(
        server.seen().len(),
        2,
        "the third call never reached the endpoint"
    );
}

#[test]
fn local_only_contexts_never_reach_a_non_local_endpoint() {
    let Some((_d, store)) = fixture_store() else {
        return;
    };
    // A public address that is never contacted: the rule refuses before any connection.
    full_mode(&store, "http://203.0.113.7:11434", "ollama");
    store
        .graph()
        .create_work_context(
            &NewWorkContext {
                name: "Privileged".into(),
                local_only: true,
                rules: vec![(LinkRuleKind::Cwd, "/Users/Sample_User".into())],
                ..NewWorkContext::default()
            },
            now(),
        )
        .unwrap();
    let o = run(&store, CODEMIE);
    assert_eq!(o.capture_mode, Some(CaptureMode::Deterministic));
    assert_eq!(
        o.fallback_reason.as_deref(),
        Some("work context is local-only and the synthesis endpoint is not local")
    );
    assert_eq!(
        store
            .graph()
            .count("SELECT count(*) FROM model_calls")
            .unwrap(),
        0
    );
}

#[test]
fn bounded_conversation_keeps_the_last_ten_user_turns_within_the_token_bound() {
    let turn = |seq: i64, user: bool, text: String| WindowTurn {
        seq,
        speaker: Some(if user {
            Speaker::User
        } else {
            Speaker::Assistant
        }),
        text,
        tools: vec![],
        changed: vec![],
        ran: Vec::new(),
        failed: None,
        timestamp: None,
    };
    let mut window: Vec<WindowTurn> = (0..30)
        .map(|i| turn(i, i % 2 == 0, format!("turn {i}")))
        .collect();
    window.push(WindowTurn {
        seq: 99,
        speaker: None,
        text: "tool output that must not be sent".into(),
        tools: vec![],
        changed: vec![],
        ran: Vec::new(),
        failed: None,
        timestamp: None,
    });
    let text = full::bounded_conversation(&window);
    assert!(text.starts_with("User: turn 10\n"), "{text}");
    assert!(!text.contains("tool output"));
    let big = vec![turn(1, true, "word ".repeat(5000))];
    assert!(
        crate::base::tokens::count(&full::bounded_conversation(&big)) <= full::MAX_INPUT_TOKENS
    );
}

/// Issue 6 (CSA §11.3 step 7): the questions and decisions of research sessions, where the gate
/// was lowered, are tracked for the nightly utility measurement; a drafting session's are not.
#[test]
fn research_captures_are_tracked_for_utility() {
    let Some((_d, store)) = fixture_store() else {
        return;
    };
    store.set_mode(ContinuityMode::Deterministic).unwrap();
    let research = [
        "d6e0bada-1959-4eec-a9d2-0bfade768d8f",
        "ffae836b-9420-4060-ac13-7745215f90ff",
    ];
    let mut expected: Vec<String> = Vec::new();
    for id in research {
        let o = run(&store, id);
        assert_eq!(o.activity, Some(ActivityType::Research));
        expected.extend(
            o.entries
                .iter()
                .filter(|e| {
                    matches!(
                        e.entry_type(),
                        EntryType::OpenQuestion | EntryType::KeyDecision
                    )
                })
                .map(|e| e.entry_id.to_string()),
        );
    }
    let drafting = run(&store, "019e1695-0522-7c83-8b39-0dd379793f80");
    assert_eq!(drafting.activity, Some(ActivityType::Drafting));
    let mut tracked: Vec<String> = store
        .graph()
        .with_conn_result(|c| {
            let mut s = c.prepare("SELECT entry_id FROM research_captures")?;
            s.query_map([], |r| r.get(0))?.collect()
        })
        .unwrap();
    tracked.sort();
    expected.sort();
    // The detectors keep fewer items since issue 14 (precision first); what they keep from the
    // research sessions is tracked, and nothing else is.
    assert!(!tracked.is_empty());
    assert_eq!(tracked, expected);
    let n = tracked.len() as u64;
    let u = crate::review::utility::measure(&store, now()).unwrap();
    assert_eq!((u.captures, u.untouched, u.useful_pct()), (n, n, Some(0)));
}

/// Capture over the project's own samples (every checkout has them): one project's sessions from
/// two harnesses land in one work context, the sub-agent and the `codex exec` run make no items,
/// and each item is the work — the person's choice, an accepted proposal, the last to-do list, the
/// question the session ended on — never the injected context around it.
#[test]
fn deterministic_capture_of_every_sample_session() {
    let (_d, store) = crate::test_support::sample_store();
    store.set_mode(ContinuityMode::Deterministic).unwrap();
    let ids: Vec<String> = store
        .graph()
        .with_conn_result(|c| {
            let mut s = c.prepare(
                "SELECT session_id FROM transcript_sessions ORDER BY started_at, session_id",
            )?;
            s.query_map([], |r| r.get(0))?.collect()
        })
        .unwrap();
    let out: String = ids.iter().map(|id| render(&run(&store, id))).collect();
    expect![[r#"
        5b0c2d7e-1f3a-4c8e-9a61-0d2f7c9e4a11 -> wc_proj_8aa51ac5d3f5 by rule | activity communication | mode deterministic
          new entities: []
          summary: "The nightly sync drops rows when the OAuth token refreshes in the middle of a batch. Look at src/sync/batch.rs and tell me why." → The batch writer now retries the whole batch after a token refresh, and no other code path resumes per row. Shall I open a pull request with the change now? Changed: batch.rs.
        Ended on "Let's go with retrying the whole batch instead of resuming per row. Batches are small, and the server dedupes by row id…". 2 request(s), 4 repl(ies) over 7 min. Tools: Edit ×1, Read ×1, Task ×1. Harness: claude_code, session "Nightly sync drops rows on token refresh", in /home/dana/code/ledger-sync.
          session_summary_ref [deterministic] session summary ss_bc0831583483_29 (2 turns)
          work_phase_change [deterministic] phase → drafting
          open_question [deterministic] Shall I open a pull request with the change now?
          open_question [deterministic] Add a regression test that refreshes the token in the middle of a batch
          open_question [deterministic] Confirm with Priya whether the nightly export uses the same client
          key_decision [deterministic] Let's go with retrying the whole batch instead of resuming per row.
        5b0c2d7e-1f3a-4c8e-9a61-0d2f7c9e4a11:agent-a3f9c21 -> wc_proj_8aa51ac5d3f5 by  | activity - | mode -
          new entities: []
          summary: -
        8e41a0c3-6d52-4b7f-b2e9-3c7d1a5f9b20 -> wc_proj_8aa51ac5d3f5 by rule | activity - | mode deterministic
          new entities: []
          summary: "Back on the sync. The upstream client still loses the cursor on refresh in v3. What do you suggest?" → The client is pinned to 2.4.1. The regression test for a refresh in the middle of a batch is still to write; I have not started it. Changed: Cargo.toml.
        Now: no reply yet to "TODO: confirm the release date of the upstream fix with the client maintainers before we unpin.".
        3 request(s), 3 repl(ies) over 5 min. Tools: Edit ×1. Harness: claude_code, session "steady-ledger-otter", in /home/dana/code/ledger-sync.
          session_summary_ref [deterministic] session summary ss_5f7d6c241f36_38 (3 turns)
          open_question [deterministic] TODO: confirm the release date of the upstream fix with the client maintainers before we unpin.
          key_decision [deterministic] We should pin the client to v2 until the upstream fix ships.
        019a3c10-7e21-7b40-8d2e-5f6a7b8c9d01 -> wc_proj_8aa51ac5d3f5 by rule | activity drafting | mode deterministic
          new entities: []
          summary: "Write the regression test for a token refresh in the middle of a batch." → Added tests/refresh_mid_batch.rs: a fake client refreshes its token after the second row, and the test checks that all five rows arrive exactly once. Changed: refresh_mid_batch.rs.
        1 request(s), 1 repl(ies) over 2 min. Tools: apply_patch ×1, exec_command ×1. Harness: codex, in /home/dana/code/ledger-sync.
          session_summary_ref [deterministic] session summary ss_76a2c4a0ea0d_53 (1 turns)
          open_question [deterministic] Run the test against the staging server once the fixture data is loaded.
          open_question [deterministic] Remove the per-row resume helper, which nothing calls now.
        019a3c11-0a00-7c00-9e00-aa00bb00cc02 -> - by  | activity - | mode -
          new entities: []
          summary: -
        c7d8e9f0-1a2b-4c3d-8e4f-5a6b7c8d9e01 -> wc_proj_260a16621f1e by rule | activity - | mode deterministic
          new entities: []
          summary: "Christensen's event study data is late again. We decided to focus on price impact for loss causation; the corrective-disclosure route stays…" → Here is a draft: Should I also copy the damages team on it?
        Ended on "Draft the email to Christensen asking for the trading data by Friday.". 2 request(s), 2 repl(ies) over 150 min. Tools: read ×1. Harness: openclaw, in /home/dana/.openclaw/workspace-henderson.
          session_summary_ref [deterministic] session summary ss_61bb7df18603_11 (2 turns)
          open_question [deterministic] We are waiting on Christensen for the 2019 trading data; the event study cannot run without it.
          open_question [deterministic] Should I also copy the damages team on it?
          key_decision [deterministic] We decided to focus on price impact for loss causation; the corrective-disclosure route stays as the fallback.
    "#]].assert_eq(&out);
}

#[test]
fn the_templated_summary_says_last_now_and_the_record_on_three_lines_and_masks_secrets() {
    let session = sessions::SessionInfo {
        session_id: SessionId::new("s-summary").unwrap(),
        harness: crate::inputs::transcripts::Harness::ClaudeCode,
        agent_id: None,
        started_at: None,
        last_activity_at: None,
        work_context_id: None,
        turn_count: 4,
        record_count: 4,
        compaction_count: 0,
        has_doc73_summary: false,
        primary_entity_ids: vec![],
        title: None,
        cwd: Some("/home/ana/app".into()),
        parent_session_id: None,
        source_path: String::new(),
        session_kind: crate::inputs::ingest::kinds::SessionKind::Primary,
        kind_reason: None,
        did: None,
        request: None,
        git_branch: None,
        git_repo: None,
    };
    let turn = |seq: i64, who: Speaker, text: &str, calls: &[&str]| WindowTurn {
        seq,
        speaker: Some(who),
        text: text.into(),
        tools: calls
            .iter()
            .map(|c| c.split(':').next().unwrap().to_owned())
            .collect(),
        changed: calls.iter().filter_map(|c| changed_file(c)).collect(),
        ran: Vec::new(),
        failed: None,
        timestamp: None,
    };
    let window = [
        turn(1, Speaker::User, "Add dark mode to the settings page", &[]),
        turn(
            2,
            Speaker::Assistant,
            "Editing now.",
            &[
                "Edit: /home/ana/app/src/settings.tsx",
                "TodoWrite: {\"todos\":[]}",
                "apply_patch: *** Begin Patch *** Update File: src/theme.css",
            ],
        ),
        turn(
            3,
            Speaker::User,
            "use the key sk-proj-abcdefghijklmnopqrstuvwx for the test",
            &[],
        ),
        turn(
            4,
            Speaker::Assistant,
            "Done: dark mode works; token=abcdefgh12345678 is in .env. Next: run the e2e suite.",
            &[],
        ),
    ];
    let summary = templated_summary(
        &session,
        &window,
        Some("Dark mode added. Next: e2e."),
        &[],
        &BTreeMap::new(),
    );
    let lines: Vec<&str> = summary.lines().collect();
    assert_eq!(
        lines[..2],
        [
            "\"Add dark mode to the settings page\" → Done: dark mode works; token=[redacted] is \
             in .env. Next: run the e2e suite. Changed: settings.tsx, theme.css.",
            "Now: Dark mode added. Next: e2e."
        ],
        "{summary}"
    );
    assert!(
        lines[2].starts_with("Ended on \"use the key [redacted] for the test\". 2 request(s)"),
        "{summary}"
    );
    assert!(
        !summary.contains("sk-proj-") && !summary.contains("abcdefgh12345678"),
        "{summary}"
    );
    // A session whose only message to the agent is a bare command opens on what the agent said:
    // the command names no work.
    let resumed = [
        turn(
            1,
            Speaker::User,
            "/resume 019c10ea-fc1b-7122-a296-130e6013ad43",
            &[],
        ),
        turn(2, Speaker::Assistant, "Resumed the release checklist.", &[]),
    ];
    let summary = templated_summary(&session, &resumed, None, &[], &BTreeMap::new());
    assert_eq!(
        summary.lines().next(),
        Some("Resumed the release checklist."),
        "{summary}"
    );
    // With no answer, the command is what happened.
    let summary = templated_summary(&session, &resumed[..1], None, &[], &BTreeMap::new());
    assert!(
        summary.starts_with("\"/resume 019c10ea-fc1b-7122-a296-130e6013ad43\""),
        "{summary}"
    );
}

#[test]
fn now_says_an_unanswered_request_or_work_cut_off_and_nothing_otherwise() {
    let turn = |seq: i64, who: Option<Speaker>, text: &str, tools: &[&str]| WindowTurn {
        seq,
        speaker: who,
        text: text.into(),
        tools: tools.iter().map(|t| (*t).to_owned()).collect(),
        changed: Vec::new(),
        ran: Vec::new(),
        failed: None,
        timestamp: None,
    };
    let asked = turn(1, Some(Speaker::User), "Fix the flaky login test", &[]);
    let replied = turn(
        2,
        Some(Speaker::Assistant),
        "Fixed: the wait was too short.",
        &[],
    );
    let again = turn(3, Some(Speaker::User), "Now run it on CI", &[]);
    let call = |seq| turn(seq, None, "", &["Bash"]);

    // A recap the harness wrote is where it stands, whatever followed.
    assert_eq!(
        where_it_stands(&[asked.clone(), again.clone()], Some("Running CI.")).as_deref(),
        Some("Running CI.")
    );
    // The last request went unanswered.
    assert_eq!(
        where_it_stands(
            &[asked.clone(), replied.clone(), again.clone(), call(4)],
            None
        )
        .as_deref(),
        Some("no reply yet to \"Now run it on CI\".")
    );
    // A session of one request and no reply: the first line quotes the request already.
    assert_eq!(
        where_it_stands(&[asked.clone(), call(2)], None).as_deref(),
        Some("the agent had not replied when the session ended.")
    );
    // The agent was still calling tools after its last words.
    assert_eq!(
        where_it_stands(&[asked.clone(), replied.clone(), call(3), call(4)], None).as_deref(),
        Some(
            "still working when the session ended: 2 tool call(s) after its last message, Bash last."
        )
    );
    // ... and named by what it changed and ran when the calls say.
    let mut edit = call(3);
    edit.changed = vec!["SESSION_STATUS.md".into()];
    let mut commit = call(4);
    commit.ran = vec![Some("git add -A && git status --short".into())];
    assert_eq!(
        where_it_stands(&[asked.clone(), replied.clone(), edit, commit], None).as_deref(),
        Some(
            "still working when the session ended: after its last message it changed \
             SESSION_STATUS.md; last ran `git add -A && git status --short`."
        )
    );
    // A long run of edits names its latest few.
    let mut edits = call(3);
    edits.changed = ["a.rs", "b.rs", "c.rs", "d.rs", "e.rs"]
        .map(String::from)
        .to_vec();
    assert_eq!(
        where_it_stands(&[asked.clone(), replied.clone(), edits], None).as_deref(),
        Some(
            "still working when the session ended: after its last message it changed c.rs, \
             d.rs, e.rs (+2)."
        )
    );
    // A reply that ends the session leaves nothing to say.
    assert_eq!(where_it_stands(&[asked, replied], None), None);
}

#[test]
fn commands_run_again_that_passed_after_failing_or_still_fail_are_named() {
    let call = |seq: i64, calls: &[&str]| WindowTurn {
        seq,
        speaker: None,
        text: String::new(),
        tools: calls
            .iter()
            .map(|c| c.split(':').next().unwrap().to_owned())
            .collect(),
        changed: Vec::new(),
        ran: calls.iter().map(|c| shell_command(c)).collect(),
        failed: None,
        timestamp: None,
    };
    let result = |seq: i64, text: &str, flagged: bool| WindowTurn {
        seq,
        speaker: None,
        text: text.into(),
        tools: Vec::new(),
        changed: Vec::new(),
        ran: Vec::new(),
        failed: Some(flagged || exited_non_zero(text)),
        timestamp: None,
    };
    let window = [
        // Two calls at once, answered in order: a read and a test run that fails.
        call(1, &["Read: src/lib.rs", "Bash: cargo test -p ledger"]),
        result(2, "fn main() {}", false),
        result(3, "test result: FAILED. 1 failed", true),
        // A Codex run reports its exit code in the result's metadata.
        call(4, &["shell: npm run lint"]),
        result(5, r#"{"output":"","metadata":{"exit_code":1}}"#, false),
        call(6, &["Edit: src/lib.rs"]),
        result(7, "ok", false),
        call(8, &["Bash: cargo test -p ledger"]),
        result(9, "test result: ok. 12 passed", false),
        call(10, &["exec_command: npm run build"]),
        result(11, "Process exited with code 2\nerror TS2304", false),
    ];
    let (fixed, failing) = command_outcomes(&window);
    assert_eq!(fixed, ["cargo test -p ledger"]);
    // Run once, a failure may only be a probe (`ls`, a `grep` that found nothing).
    assert!(failing.is_empty(), "{failing:?}");
    let mut again = window.to_vec();
    again.extend([
        call(12, &["exec_command: npm run build"]),
        result(13, "Process exited with code 2\nerror TS2304", false),
    ]);
    assert_eq!(
        commands_now(&again).as_deref(),
        Some("`cargo test -p ledger` passed after failing; `npm run build` still failed.")
    );
    // Exit codes are read where the harnesses write them, and zero is success.
    assert!(!exited_non_zero(
        r#"{"output":"x","metadata":{"exit_code":0}}"#
    ));
    assert!(exited_non_zero(
        "failed in sandbox: exit code: 101, stdout: …"
    ));
    assert!(!exited_non_zero("Exit code: 0\nall good"));
    // A long Codex output: its exit code is at the end, read from the tail.
    let long = format!(
        r#"{{"output":"{}","metadata":{{"exit_code":2,"duration_seconds":1.5}}}}"#,
        "é line of output ".repeat(400)
    );
    assert!(exited_non_zero(&long));
    // The shell a command was handed to is not what was run.
    for (call, run) in [
        ("shell: bash -lc \"cargo test -p x\"", "cargo test -p x"),
        (
            "shell: powershell.exe -NoProfile -Command Get-ChildItem",
            "Get-ChildItem",
        ),
        ("Bash: /bin/zsh -lc 'ls -la'", "ls -la"),
        ("Bash: npm test", "npm test"),
        ("Bash: cd /home/ana/app && npm test", "npm test"),
        ("shell: bash -lc 'cd repo && cargo fmt'", "cargo fmt"),
    ] {
        assert_eq!(shell_command(call).as_deref(), Some(run), "{call}");
    }
}
