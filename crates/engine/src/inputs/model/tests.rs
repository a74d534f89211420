//! The model client against a real local HTTP stand-in (no mock of the client), the strict reply
//! parser over a table of replies, `is_local` over a table of URLs, and the spend guard over an
//! in-memory SQLite ledger with the real migrations and an injected clock.

use chrono::TimeZone;
use expect_test::expect;

use super::*;

const KEY: &str = "sk-test-SECRET-123";

use crate::test_support::standin::{Canned, Seen, StandIn, ok};

fn endpoint_of(server: &StandIn, provider: SynthesisProvider) -> Endpoint {
    Endpoint {
        provider,
        base_url: server.base.clone(),
        model: "test-model:7b".to_owned(),
        timeout: Duration::from_secs(5),
    }
}

/// A good reply as the model would write it.
fn good_reply() -> String {
    json!({
        "session_summary": "Drafted sections 1-3 of the damages analysis. Event study pending.",
        "open_questions": [{"question": "Which index for the event study?", "context": "Expert data"}],
        "key_decisions": [{"decision": "Use the market model", "rationale": "Standard in court"}],
        "work_phase": "drafting"
    })
    .to_string()
}

fn expected_good() -> SynthesisReply {
    SynthesisReply {
        session_summary: Some(
            "Drafted sections 1-3 of the damages analysis. Event study pending.".to_owned(),
        ),
        open_questions: vec![ReplyQuestion {
            question: "Which index for the event study?".to_owned(),
            context: "Expert data".to_owned(),
        }],
        key_decisions: vec![ReplyDecision {
            decision: "Use the market model".to_owned(),
            rationale: Some("Standard in court".to_owned()),
        }],
        work_phase: WorkPhase::Drafting,
    }
}

fn ollama_says(content: &str) -> Canned {
    ok(
        json!({"model": "test-model:7b", "message": {"role": "assistant", "content": content}, "done": true}),
    )
}

fn openai_says(content: &str) -> Canned {
    ok(json!({
        "id": "chatcmpl-1",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}]
    }))
}

const CONVERSATION: &str = "user: let's draft the damages section\nassistant: done with 1-3";

/// Checks what a synthesis request carried: the model name, the unified prompt as the system
/// message and the conversation as the user message.
fn assert_synthesis_request(seen: &Seen) {
    assert_eq!(seen.body["model"], "test-model:7b");
    assert_eq!(seen.body["messages"][0]["role"], "system");
    assert_eq!(seen.body["messages"][0]["content"], unified_prompt());
    assert_eq!(seen.body["messages"][1]["role"], "user");
    assert_eq!(seen.body["messages"][1]["content"], CONVERSATION);
}

#[test]
fn ollama_good_reply_parses_and_request_carries_model_prompt_and_conversation() {
    let server = StandIn::start(&[("/api/chat", ollama_says(&good_reply()))]);
    // A key given to an Ollama endpoint is never sent: Ollama has no use for it.
    let reply = synthesize(
        &endpoint_of(&server, SynthesisProvider::Ollama),
        Some(KEY),
        CONVERSATION,
    )
    .unwrap();
    assert_eq!(reply, expected_good());
    let seen = server.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].path, "/api/chat");
    assert_synthesis_request(&seen[0]);
    assert_eq!(seen[0].body["stream"], false);
    assert_eq!(seen[0].body["format"], "json");
    assert_eq!(seen[0].body["options"]["temperature"], 0);
    assert!(!seen[0].headers.contains_key("authorization"));
}

/// Whatever the endpoint, a secret the person pasted into the conversation is masked before the
/// request leaves.
#[test]
fn a_secret_in_the_conversation_never_reaches_the_endpoint() {
    let server = StandIn::start(&[("/api/chat", ollama_says(&good_reply()))]);
    synthesize(
        &endpoint_of(&server, SynthesisProvider::Ollama),
        None,
        "User: deploy with password=hunter2hunter2 and token ghp_0123456789abcdefghij0123456789abcdef",
    )
    .unwrap();
    let body = server.seen()[0].body.to_string();
    assert!(
        !body.contains("hunter2hunter2") && !body.contains("ghp_0123456789abcdefghij"),
        "{body}"
    );
    assert!(
        body.contains("User: deploy with password="),
        "the rest is sent: {body}"
    );
}

#[test]
fn openai_good_reply_parses_and_sends_the_key_as_bearer() {
    let server = StandIn::start(&[("/v1/chat/completions", openai_says(&good_reply()))]);
    let reply = synthesize(
        &endpoint_of(&server, SynthesisProvider::OpenaiCompatible),
        Some(KEY),
        CONVERSATION,
    )
    .unwrap();
    assert_eq!(reply, expected_good());
    let seen = server.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].path, "/v1/chat/completions");
    assert_synthesis_request(&seen[0]);
    assert_eq!(seen[0].body["temperature"], 0);
    assert_eq!(seen[0].body["response_format"]["type"], "json_object");
    assert_eq!(
        seen[0].headers.get("authorization").map(String::as_str),
        Some("Bearer sk-test-SECRET-123")
    );
}

#[test]
fn openai_without_a_key_sends_no_authorization_and_v1_is_not_doubled() {
    let server = StandIn::start(&[("/v1/chat/completions", openai_says(&good_reply()))]);
    let mut endpoint = endpoint_of(&server, SynthesisProvider::OpenaiCompatible);
    endpoint.base_url = format!("{}/v1/", server.base);
    synthesize(&endpoint, None, CONVERSATION).unwrap();
    let seen = server.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].path, "/v1/chat/completions");
    assert!(!seen[0].headers.contains_key("authorization"));
}

#[test]
fn failures_over_http_map_to_their_kind() {
    let slow = Canned {
        delay: Duration::from_secs(3),
        ..openai_says(&good_reply())
    };
    let server = StandIn::start(&[
        (
            "/malformed/v1/chat/completions",
            openai_says("{\"session_summary\": "),
        ),
        (
            "/unknown-key/v1/chat/completions",
            openai_says(
                &json!({"session_summary": "Did X.", "open_questions": [], "key_decisions": [],
                        "work_phase": "review", "mood": "happy"})
                .to_string(),
            ),
        ),
        (
            "/empty/v1/chat/completions",
            openai_says(
                &json!({"session_summary": "  ", "open_questions": [], "key_decisions": [],
                        "work_phase": "review"})
                .to_string(),
            ),
        ),
        (
            "/http500/v1/chat/completions",
            Canned {
                status: 500,
                body: r#"{"error":"boom"}"#.to_owned(),
                delay: Duration::ZERO,
            },
        ),
        (
            "/refusal/v1/chat/completions",
            ok(
                json!({"choices": [{"message": {"role": "assistant", "content": null,
                       "refusal": "I can't help with that."}, "finish_reason": "stop"}]}),
            ),
        ),
        (
            "/filtered/v1/chat/completions",
            ok(
                json!({"choices": [{"message": {"role": "assistant", "content": ""},
                       "finish_reason": "content_filter"}]}),
            ),
        ),
        (
            "/not-json-envelope/v1/chat/completions",
            Canned {
                status: 200,
                body: "<html>proxy login</html>".to_owned(),
                delay: Duration::ZERO,
            },
        ),
        ("/slow/v1/chat/completions", slow),
    ]);
    let run = |prefix: &str, timeout: Duration| {
        let endpoint = Endpoint {
            base_url: format!("{}/{prefix}", server.base),
            timeout,
            ..endpoint_of(&server, SynthesisProvider::OpenaiCompatible)
        };
        synthesize(&endpoint, Some(KEY), CONVERSATION).unwrap_err()
    };
    let normal = Duration::from_secs(5);
    assert!(matches!(run("malformed", normal), ModelFailure::BadJson(_)));
    assert_eq!(
        run("unknown-key", normal),
        ModelFailure::BadJson("the reply has an unknown key \"mood\"".to_owned())
    );
    assert_eq!(run("empty", normal), ModelFailure::EmptySummary);
    assert_eq!(run("http500", normal), ModelFailure::Http { status: 500 });
    assert_eq!(
        run("refusal", normal),
        ModelFailure::Refusal("I can't help with that.".to_owned())
    );
    assert!(matches!(run("filtered", normal), ModelFailure::Refusal(_)));
    assert!(matches!(
        run("not-json-envelope", normal),
        ModelFailure::BadJson(_)
    ));
    // A short timeout keeps the test fast; the server would answer only after 3 s.
    let started = std::time::Instant::now();
    assert_eq!(
        run("slow", Duration::from_millis(200)),
        ModelFailure::Timeout
    );
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[test]
fn ollama_http_error_and_missing_content() {
    let server = StandIn::start(&[
        (
            "/down/api/chat",
            Canned {
                status: 503,
                body: r#"{"error":"model is loading"}"#.to_owned(),
                delay: Duration::ZERO,
            },
        ),
        ("/odd/api/chat", ok(json!({"done": true}))),
    ]);
    let run = |prefix: &str| {
        let endpoint = Endpoint {
            base_url: format!("{}/{prefix}", server.base),
            ..endpoint_of(&server, SynthesisProvider::Ollama)
        };
        synthesize(&endpoint, None, CONVERSATION).unwrap_err()
    };
    assert_eq!(run("down"), ModelFailure::Http { status: 503 });
    assert_eq!(
        run("odd"),
        ModelFailure::BadJson("the provider's response has no message.content".to_owned())
    );
}

#[test]
fn connection_refused_is_unreachable() {
    // Bind, note the port, and close it again: nothing listens there now.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let endpoint = Endpoint {
        provider: SynthesisProvider::OpenaiCompatible,
        base_url: format!("http://127.0.0.1:{port}"),
        model: "m".to_owned(),
        timeout: Duration::from_secs(2),
    };
    let failure = chat(&endpoint, Some(KEY), &[ChatMessage::user("hi")]).unwrap_err();
    assert!(
        matches!(failure, ModelFailure::Unreachable(_)),
        "{failure:?}"
    );
}

#[test]
fn a_key_echoed_by_the_endpoint_is_scrubbed_from_failures() {
    // A hostile endpoint refuses with the Authorization header it was sent.
    let server = StandIn::start(&[(
        "/v1/chat/completions",
        ok(json!({"choices": [{"message": {"content": null,
                   "refusal": format!("bad key Bearer {KEY}")}}]})),
    )]);
    let failure = chat(
        &endpoint_of(&server, SynthesisProvider::OpenaiCompatible),
        Some(KEY),
        &[ChatMessage::user("hi")],
    )
    .unwrap_err();
    assert_eq!(
        failure,
        ModelFailure::Refusal("bad key Bearer [redacted]".to_owned())
    );
}

#[test]
fn reasons_name_the_failure_and_never_the_key() {
    let failures = [
        ModelFailure::NotConfigured("synthesis_model is not set".to_owned()),
        ModelFailure::Timeout,
        ModelFailure::Http { status: 500 },
        ModelFailure::Unreachable("io: Connection refused (os error 111)".to_owned()),
        ModelFailure::Refusal(format!("echo {KEY}")).scrubbed(Some(KEY)),
        ModelFailure::BadJson(format!("key {KEY:?}")).scrubbed(Some(KEY)),
        ModelFailure::EmptySummary,
        ModelFailure::SpendLimit {
            window: "hour",
            limit: 30,
        },
        ModelFailure::NotLocal,
    ];
    let text = failures
        .iter()
        .map(|f| format!("{:<20} {}", f.code(), f.reason()))
        .collect::<Vec<_>>()
        .join("\n");
    assert!(!text.contains(KEY));
    assert!(!text.contains("SECRET"));
    expect![[r#"
        not_configured       synthesis model not configured: synthesis_model is not set
        timeout              timeout: no reply within synthesis_timeout_seconds
        http_error           HTTP 500
        unreachable          model endpoint unreachable: io: Connection refused (os error 111)
        refusal              model refused: echo [redacted]
        bad_json             reply is not the expected JSON: key "[redacted]"
        empty_summary        reply has an empty session_summary
        refused_spend_limit  spend limit reached: 30 model calls per hour
        not_local            work context is local-only and the synthesis endpoint is not local"#]]
    .assert_eq(&text);
}

#[test]
fn reasons_of_real_failures_never_contain_the_key() {
    // Every failure the stand-in can produce, with the key sent along each time.
    let server = StandIn::start(&[
        ("/a/v1/chat/completions", openai_says("not json at all")),
        (
            "/b/v1/chat/completions",
            Canned {
                status: 401,
                body: format!(r#"{{"error":"invalid key {KEY}"}}"#),
                delay: Duration::ZERO,
            },
        ),
        (
            "/c/v1/chat/completions",
            openai_says(&format!(r#"{{"{KEY}": 1}}"#)),
        ),
    ]);
    for prefix in ["a", "b", "c", "missing"] {
        let endpoint = Endpoint {
            base_url: format!("{}/{prefix}", server.base),
            ..endpoint_of(&server, SynthesisProvider::OpenaiCompatible)
        };
        let failure = synthesize(&endpoint, Some(KEY), CONVERSATION).unwrap_err();
        assert!(!failure.reason().contains(KEY), "{prefix}: {failure:?}");
        assert!(
            !format!("{failure:?}").contains(KEY),
            "{prefix}: {failure:?}"
        );
    }
}

#[test]
fn test_connection_returns_the_trimmed_answer() {
    let long = format!("  {}  ", "x".repeat(500));
    let server = StandIn::start(&[
        ("/api/chat", ollama_says(" {\"ok\":true}\n")),
        ("/long/api/chat", ollama_says(&long)),
    ]);
    let endpoint = endpoint_of(&server, SynthesisProvider::Ollama);
    assert_eq!(test_connection(&endpoint, None).unwrap(), "{\"ok\":true}");
    let long_endpoint = Endpoint {
        base_url: format!("{}/long", server.base),
        ..endpoint
    };
    assert_eq!(
        test_connection(&long_endpoint, None).unwrap(),
        "x".repeat(200)
    );
}

/// Runs `parse_reply` over a table and renders each outcome on one line.
fn parse_table(cases: &[(&str, &str)]) -> String {
    cases
        .iter()
        .map(|(name, text)| {
            let outcome = match parse_reply(text) {
                Ok(reply) => format!(
                    "ok summary={:?} questions={} decisions={} phase={:?}",
                    reply.session_summary,
                    reply.open_questions.len(),
                    reply.key_decisions.len(),
                    reply.work_phase
                ),
                Err(ModelFailure::BadJson(why)) => format!("BadJson: {why}"),
                Err(other) => format!("{other:?}"),
            };
            format!("{name:<22} {outcome}")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn parse_reply_is_strict() {
    let long = "y".repeat(2001);
    let eleven: Vec<Value> = (0..11)
        .map(|i| json!({"question": format!("q{i}"), "context": ""}))
        .collect();
    let with = |key: &str, value: Value| {
        let mut doc = json!({"session_summary": "Did X.", "open_questions": [],
                             "key_decisions": [], "work_phase": "review"});
        doc[key] = value;
        doc.to_string()
    };
    let fenced = format!("```json\n{}\n```", good_reply());
    let bare_fence = format!("\n```\n{}\n```  ", good_reply());
    let nothing = r#"{"session_summary": null, "open_questions": [], "key_decisions": [], "work_phase": "unknown"}"#;
    let null_with_extras = with("session_summary", Value::Null).replace(
        "\"open_questions\":[]",
        "\"open_questions\":[{\"question\":\"q\",\"context\":\"\"}]",
    );
    let cases: Vec<(&str, String)> = vec![
        ("good", good_reply()),
        ("fenced json", fenced),
        ("bare fence", bare_fence),
        ("nothing happened", nothing.to_owned()),
        ("prose around", format!("Here you go: {}", good_reply())),
        ("unclosed fence", format!("```json\n{}", good_reply())),
        ("not an object", "[1, 2]".to_owned()),
        ("truncated", "{\"session_summary\": \"a".to_owned()),
        ("unknown key", with("mood", json!("happy"))),
        (
            "missing key",
            r#"{"session_summary": "x", "open_questions": [], "key_decisions": []}"#.to_owned(),
        ),
        ("empty summary", with("session_summary", json!(""))),
        ("summary is a number", with("session_summary", json!(3))),
        ("summary too long", with("session_summary", json!(long))),
        ("null with extras", null_with_extras),
        ("eleven questions", with("open_questions", json!(eleven))),
        (
            "empty question",
            with(
                "open_questions",
                json!([{"question": "  ", "context": "c"}]),
            ),
        ),
        (
            "question lacks context",
            with("open_questions", json!([{"question": "q"}])),
        ),
        (
            "question extra key",
            with(
                "open_questions",
                json!([{"question": "q", "context": "", "why": 1}]),
            ),
        ),
        (
            "rationale null/absent",
            with(
                "key_decisions",
                json!([{"decision": "a", "rationale": null}, {"decision": "b"}, {"decision": "c", "rationale": " "}]),
            ),
        ),
        (
            "rationale a number",
            with("key_decisions", json!([{"decision": "a", "rationale": 1}])),
        ),
        ("decisions not array", with("key_decisions", json!({}))),
        ("unknown phase", with("work_phase", json!("coding"))),
        ("phase not a string", with("work_phase", json!(null))),
        (
            "phase padded",
            with("work_phase", json!(" waiting_for_external ")),
        ),
    ];
    let cases: Vec<(&str, &str)> = cases.iter().map(|(n, t)| (*n, t.as_str())).collect();
    expect![[r#"
        good                   ok summary=Some("Drafted sections 1-3 of the damages analysis. Event study pending.") questions=1 decisions=1 phase=Drafting
        fenced json            ok summary=Some("Drafted sections 1-3 of the damages analysis. Event study pending.") questions=1 decisions=1 phase=Drafting
        bare fence             ok summary=Some("Drafted sections 1-3 of the damages analysis. Event study pending.") questions=1 decisions=1 phase=Drafting
        nothing happened       ok summary=None questions=0 decisions=0 phase=Unknown
        prose around           BadJson: not valid JSON (expected value at line 1 column 1)
        unclosed fence         BadJson: the reply opens a code fence but does not close it
        not an object          BadJson: the reply is not a JSON object
        truncated              BadJson: not valid JSON (EOF while parsing a string at line 1 column 22)
        unknown key            BadJson: the reply has an unknown key "mood"
        missing key            BadJson: the reply lacks the key "work_phase"
        empty summary          EmptySummary
        summary is a number    BadJson: session_summary must be a string or null, found a number
        summary too long       BadJson: session_summary has 2001 characters; at most 2000 are allowed
        null with extras       BadJson: session_summary is null but the reply lists open questions or key decisions
        eleven questions       BadJson: open_questions has 11 items; at most 10 are allowed
        empty question         BadJson: open_questions[0].question is empty
        question lacks context BadJson: open_questions[0] lacks the key "context"
        question extra key     BadJson: open_questions[0] has an unknown key "why"
        rationale null/absent  ok summary=Some("Did X.") questions=0 decisions=3 phase=Review
        rationale a number     BadJson: key_decisions[0].rationale must be a string or null, found a number
        decisions not array    BadJson: key_decisions must be an array, found an object
        unknown phase          BadJson: work_phase "coding" is not a known phase
        phase not a string     BadJson: work_phase must be a string, found null
        phase padded           ok summary=Some("Did X.") questions=0 decisions=0 phase=WaitingForExternal"#]]
    .assert_eq(&parse_table(&cases));
}

#[test]
fn parsed_strings_are_trimmed_and_empty_rationale_is_none() {
    let reply = parse_reply(
        &json!({"session_summary": "  Did X.\n", "open_questions": [{"question": " q ", "context": " c "}],
                "key_decisions": [{"decision": " d ", "rationale": ""}], "work_phase": "paused"})
        .to_string(),
    )
    .unwrap();
    assert_eq!(
        reply,
        SynthesisReply {
            session_summary: Some("Did X.".to_owned()),
            open_questions: vec![ReplyQuestion {
                question: "q".to_owned(),
                context: "c".to_owned()
            }],
            key_decisions: vec![ReplyDecision {
                decision: "d".to_owned(),
                rationale: None
            }],
            work_phase: WorkPhase::Paused,
        }
    );
}

#[test]
fn prompt_keeps_both_parts_every_phase_and_the_json_shapes() {
    let prompt = unified_prompt();
    for needle in [
        "PART A",
        "PART B",
        "\"session_summary\"",
        "\"open_questions\"",
        "\"key_decisions\"",
        "\"work_phase\"",
        "{\"session_summary\": null, \"open_questions\": [], \"key_decisions\": [], \"work_phase\": \"unknown\"}",
    ] {
        assert!(prompt.contains(needle), "prompt lacks {needle}");
    }
    for phase in [
        WorkPhase::Research,
        WorkPhase::Drafting,
        WorkPhase::Review,
        WorkPhase::Revision,
        WorkPhase::WaitingForExternal,
        WorkPhase::Completed,
        WorkPhase::Paused,
        WorkPhase::Unknown,
    ] {
        let name = serde_json::to_value(phase).unwrap();
        assert!(
            prompt.contains(name.as_str().unwrap()),
            "prompt lacks {name}"
        );
    }
}

#[test]
fn endpoint_from_config() {
    let mut c = ContinuityConfig::default();
    assert_eq!(
        Endpoint::from_config(&c),
        Err(ModelFailure::NotConfigured(
            "synthesis_base_url is not set".to_owned()
        ))
    );
    c.synthesis_base_url = Some("http://localhost:11434".to_owned());
    assert_eq!(
        Endpoint::from_config(&c),
        Err(ModelFailure::NotConfigured(
            "synthesis_model is not set".to_owned()
        ))
    );
    c.synthesis_model = Some("qwen3:8b".to_owned());
    c.synthesis_timeout_seconds = 45;
    assert_eq!(
        Endpoint::from_config(&c),
        Ok(Endpoint {
            provider: SynthesisProvider::Ollama,
            base_url: "http://localhost:11434".to_owned(),
            model: "qwen3:8b".to_owned(),
            timeout: Duration::from_secs(45),
        })
    );
    c.synthesis_base_url = Some("localhost:11434".to_owned());
    assert!(matches!(
        Endpoint::from_config(&c),
        Err(ModelFailure::NotConfigured(_))
    ));
}

#[test]
fn is_local_table() {
    let urls = [
        "http://localhost:11434",
        "http://LOCALHOST./",
        "http://127.0.0.1:8080/v1",
        "http://127.9.9.9",
        "http://[::1]:11434",
        "http://[::ffff:127.0.0.1]",
        "http://[fd12::1]",
        "http://10.1.2.3",
        "http://172.16.0.1",
        "http://172.31.255.255",
        "http://172.32.0.1",
        "http://192.168.1.20:11434",
        "http://gpu-box.local:11434",
        "http://user:pw@localhost",
        "https://api.openai.com/v1",
        "https://localhost.evil.example",
        "http://evil.example/localhost",
        "http://evil.example?h=127.0.0.1",
        "http://user@127.0.0.1@evil.example",
        "http://8.8.8.8",
        "http://[2001:db8::1]",
        "ftp://localhost",
        "localhost:11434",
    ];
    let table = urls
        .iter()
        .map(|url| {
            let endpoint = Endpoint {
                provider: SynthesisProvider::Ollama,
                base_url: (*url).to_owned(),
                model: "m".to_owned(),
                timeout: Duration::from_secs(1),
            };
            format!("{:<5} {url}", endpoint.is_local())
        })
        .collect::<Vec<_>>()
        .join("\n");
    expect![[r#"
        true  http://localhost:11434
        true  http://LOCALHOST./
        true  http://127.0.0.1:8080/v1
        true  http://127.9.9.9
        true  http://[::1]:11434
        true  http://[::ffff:127.0.0.1]
        true  http://[fd12::1]
        true  http://10.1.2.3
        true  http://172.16.0.1
        true  http://172.31.255.255
        false http://172.32.0.1
        true  http://192.168.1.20:11434
        true  http://gpu-box.local:11434
        true  http://user:pw@localhost
        false https://api.openai.com/v1
        false https://localhost.evil.example
        false http://evil.example/localhost
        false http://evil.example?h=127.0.0.1
        false http://user@127.0.0.1@evil.example
        false http://8.8.8.8
        false http://[2001:db8::1]
        false ftp://localhost
        false localhost:11434"#]]
    .assert_eq(&table);
}

/// An in-memory graph database with every migration applied.
fn ledger() -> rusqlite::Connection {
    let mut conn = rusqlite::Connection::open_in_memory().unwrap();
    crate::graph::migrations()
        .unwrap()
        .to_latest(&mut conn)
        .unwrap();
    conn
}

fn at(h: u32, m: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 4, 29, h, m, 0).unwrap()
}

#[test]
fn spend_guard_refuses_exactly_at_the_hourly_limit() {
    let conn = ledger();
    let guard = SpendGuard {
        per_hour: 3,
        per_day: 100,
    };
    let provider = SynthesisProvider::Ollama;
    for minute in 0..3 {
        assert_eq!(guard.check(&conn, at(10, minute)), Ok(()), "call {minute}");
        SpendGuard::record(&conn, at(10, minute), provider, "synthesis", OUTCOME_OK).unwrap();
    }
    let refused = ModelFailure::SpendLimit {
        window: "hour",
        limit: 3,
    };
    assert_eq!(guard.check(&conn, at(10, 3)), Err(refused.clone()));
    // Refusals are recorded for the audit but do not count, so they cannot extend the block.
    for _ in 0..5 {
        SpendGuard::record(&conn, at(10, 4), provider, "synthesis", refused.code()).unwrap();
    }
    assert_eq!(SpendGuard::usage(&conn, at(10, 4)).unwrap(), (3, 3));
    // The window is (now - 1 h, now]: at 11:00 the 10:00 call has just left it.
    assert_eq!(guard.check(&conn, at(10, 59)), Err(refused));
    assert_eq!(SpendGuard::usage(&conn, at(11, 0)).unwrap(), (2, 3));
    assert_eq!(guard.check(&conn, at(11, 0)), Ok(()));
    // A failed call still counts: it may have cost money.
    SpendGuard::record(&conn, at(11, 0), provider, "synthesis", "timeout").unwrap();
    assert_eq!(SpendGuard::usage(&conn, at(11, 0)).unwrap(), (3, 4));
}

#[test]
fn spend_guard_daily_window_and_zero_limits() {
    let conn = ledger();
    let guard = SpendGuard {
        per_hour: 100,
        per_day: 2,
    };
    let provider = SynthesisProvider::OpenaiCompatible;
    SpendGuard::record(&conn, at(1, 0), provider, "synthesis", OUTCOME_OK).unwrap();
    SpendGuard::record(&conn, at(9, 0), provider, "test_connection", OUTCOME_OK).unwrap();
    assert_eq!(
        guard.check(&conn, at(12, 0)),
        Err(ModelFailure::SpendLimit {
            window: "day",
            limit: 2
        })
    );
    // 24 hours after 01:00 the first call no longer counts.
    let next_day = at(1, 0) + chrono::Duration::hours(24);
    assert_eq!(SpendGuard::usage(&conn, next_day).unwrap(), (0, 1));
    assert_eq!(guard.check(&conn, next_day), Ok(()));
    // Calls recorded after `now` (a clock that went back) do not count against `now`.
    assert_eq!(SpendGuard::usage(&conn, at(0, 30)).unwrap(), (0, 0));

    let stopped = SpendGuard {
        per_hour: 0,
        per_day: 0,
    };
    assert_eq!(
        stopped.check(&ledger(), at(12, 0)),
        Err(ModelFailure::SpendLimit {
            window: "hour",
            limit: 0
        })
    );
    let c = ContinuityConfig::default();
    assert_eq!(
        SpendGuard::from_config(&c),
        SpendGuard {
            per_hour: c.max_model_calls_per_hour,
            per_day: c.max_model_calls_per_day
        }
    );
}

#[test]
fn spend_guard_refuses_when_the_ledger_cannot_be_read() {
    // No migrations: the table is missing, so nothing can be counted and nothing is spent.
    let conn = rusqlite::Connection::open_in_memory().unwrap();
    let guard = SpendGuard {
        per_hour: 10,
        per_day: 10,
    };
    assert!(matches!(
        guard.check(&conn, at(12, 0)),
        Err(ModelFailure::SpendLimit { .. })
    ));
}

#[test]
fn ledger_timestamps_sort_as_text() {
    let conn = ledger();
    let t = Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).unwrap() + chrono::Duration::microseconds(7);
    SpendGuard::record(&conn, t, SynthesisProvider::Ollama, "synthesis", OUTCOME_OK).unwrap();
    let stored: (String, String, String, String) = conn
        .query_row(
            "SELECT called_at, provider, purpose, outcome FROM model_calls",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .unwrap();
    assert_eq!(
        stored,
        (
            "2026-01-02T03:04:05.000007Z".to_owned(),
            "ollama".to_owned(),
            "synthesis".to_owned(),
            "ok".to_owned()
        )
    );
}

/// A stand-in for an agent CLI: a shell script in `dir` that records its arguments and what it
/// read on standard input, then runs `body`.
#[cfg(unix)]
fn stand_in_cli(dir: &std::path::Path, name: &str, body: &str) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    let script = format!(
        "#!/bin/sh\nprintf '%s\\n' \"$@\" > '{args}'\ncat > '{input}'\n{body}\n",
        args = dir.join("args").display(),
        input = dir.join("stdin").display(),
    );
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

#[cfg(unix)]
fn cli_endpoint(provider: SynthesisProvider, program: &std::path::Path) -> Endpoint {
    let mut config = ContinuityConfig {
        synthesis_provider: provider,
        ..ContinuityConfig::default()
    };
    config.synthesis_base_url = Some(program.display().to_string());
    let mut e = Endpoint::from_config(&config).unwrap();
    e.timeout = Duration::from_secs(5);
    e
}

/// Claude Code in print mode: the prompt goes on standard input (never in the arguments), the
/// JSON result's `result` is the reply, and no key is ever passed; an error result is a refusal.
#[cfg(unix)]
#[test]
fn claude_cli_reads_the_prompt_on_stdin_and_answers_in_its_json_result() {
    let dir = tempfile::tempdir().unwrap();
    let result = json!({"type": "result", "is_error": false, "result": good_reply()});
    let program = stand_in_cli(dir.path(), "claude", &format!("cat <<'EOF'\n{result}\nEOF"));
    let e = cli_endpoint(SynthesisProvider::ClaudeCli, &program);
    assert!(!e.is_local(), "an agent CLI sends the prompt to its vendor");
    let reply = synthesize(
        &e,
        Some(KEY),
        "User: fix the flaky test, api_key=sk-live-0123456789abcdef",
    )
    .unwrap();
    assert_eq!(reply, expected_good());
    let args = std::fs::read_to_string(dir.path().join("args")).unwrap();
    assert_eq!(
        args.lines().collect::<Vec<_>>(),
        ["-p", "--output-format", "json"]
    );
    let input = std::fs::read_to_string(dir.path().join("stdin")).unwrap();
    assert!(input.contains("User: fix the flaky test"), "{input}");
    assert!(input.contains(unified_prompt()), "the prompt leads");
    assert!(
        !args.contains(KEY) && !input.contains(KEY),
        "no key goes to a CLI"
    );
    assert!(
        !input.contains("sk-live-0123456789abcdef"),
        "a secret in the conversation is masked before it leaves: {input}"
    );

    let refused =
        json!({"type": "result", "is_error": true, "result": "Credit balance is too low"});
    stand_in_cli(
        dir.path(),
        "claude",
        &format!("cat <<'EOF'\n{refused}\nEOF"),
    );
    match synthesize(&e, None, "User: hi") {
        Err(ModelFailure::Refusal(why)) => assert!(why.contains("Credit balance"), "{why}"),
        other => panic!("{other:?}"),
    }
}

/// Codex: `exec` in its read-only sandbox, the prompt on standard input (`-`), the model when
/// one is set, and the reply read from the file `--output-last-message` names.
#[cfg(unix)]
#[test]
fn codex_cli_answers_in_the_file_it_is_given() {
    let dir = tempfile::tempdir().unwrap();
    let reply = good_reply().replace('\'', "'\\''");
    let program = stand_in_cli(
        dir.path(),
        "codex",
        &format!(
            "out=''\nprev=''\nfor a in \"$@\"; do [ \"$prev\" = --output-last-message ] && out=\"$a\"; \
             prev=\"$a\"; done\necho 'codex log line'\nprintf '%s' '{reply}' > \"$out\""
        ),
    );
    let mut e = cli_endpoint(SynthesisProvider::CodexCli, &program);
    e.model = "gpt-5-mini".into();
    assert_eq!(synthesize(&e, None, "User: hi").unwrap(), expected_good());
    let args = std::fs::read_to_string(dir.path().join("args")).unwrap();
    let args: Vec<&str> = args.lines().collect();
    assert_eq!(
        args[..6],
        [
            "exec",
            "--skip-git-repo-check",
            "--sandbox",
            "read-only",
            "--model",
            "gpt-5-mini"
        ]
    );
    assert_eq!(args.last(), Some(&"-"));
    let answer_file = args[args.len() - 2];
    assert!(
        !std::path::Path::new(answer_file).exists(),
        "the answer file is removed"
    );
}

/// A CLI that is missing, fails, or outlives the timeout: each a failure in words, never a
/// hang; the timed-out one is killed.
#[cfg(unix)]
#[test]
fn agent_cli_failures_are_said() {
    let dir = tempfile::tempdir().unwrap();
    let missing = cli_endpoint(
        SynthesisProvider::ClaudeCli,
        &dir.path().join("no-such-claude"),
    );
    match synthesize(&missing, None, "x") {
        Err(ModelFailure::Unreachable(why)) => assert!(why.contains("was not found"), "{why}"),
        other => panic!("{other:?}"),
    }
    let failing = stand_in_cli(dir.path(), "claude", "echo 'Please run /login' >&2; exit 1");
    match synthesize(
        &cli_endpoint(SynthesisProvider::ClaudeCli, &failing),
        None,
        "x",
    ) {
        Err(ModelFailure::Unreachable(why)) => assert!(why.contains("Please run /login"), "{why}"),
        other => panic!("{other:?}"),
    }
    let slow = stand_in_cli(dir.path(), "slow", "sleep 30");
    let mut e = cli_endpoint(SynthesisProvider::ClaudeCli, &slow);
    e.timeout = Duration::from_millis(300);
    let started = std::time::Instant::now();
    assert_eq!(synthesize(&e, None, "x"), Err(ModelFailure::Timeout));
    assert!(started.elapsed() < Duration::from_secs(10));
}

/// Unset, a CLI provider's program is its name on PATH and its model the CLI's own default.
#[test]
fn an_agent_cli_needs_no_address_and_no_model() {
    for (provider, program) in [
        (SynthesisProvider::ClaudeCli, "claude"),
        (SynthesisProvider::CodexCli, "codex"),
    ] {
        let config = ContinuityConfig {
            synthesis_provider: provider,
            ..ContinuityConfig::default()
        };
        let e = Endpoint::from_config(&config).unwrap();
        assert_eq!((e.base_url.as_str(), e.model.as_str()), (program, ""));
        assert!(!provider.takes_key());
    }
    assert!(SynthesisProvider::OpenaiCompatible.takes_key());
    assert!(!SynthesisProvider::Ollama.takes_key());
}

/// Detection lists an Ollama that answers, with its pulled models, and the agent CLIs on PATH;
/// a silent address and a PATH without them list nothing.
#[cfg(unix)]
#[test]
fn detect_lists_ollama_models_and_the_agent_clis_on_path() {
    let server = StandIn::start(&[(
        "/api/tags",
        ok(json!({"models": [{"name": "llama3.1:8b"}, {"name": "qwen2.5:7b"}]})),
    )]);
    let dir = tempfile::tempdir().unwrap();
    let claude = stand_in_cli(dir.path(), "claude", "true");
    std::fs::write(dir.path().join("codex"), "not executable").unwrap();
    let path = std::env::join_paths([dir.path()]).unwrap();
    let found = agent_cli::detect_in(&server.base, Some(&path), &[]);
    assert_eq!(
        found,
        [
            FoundBackend {
                provider: SynthesisProvider::Ollama,
                at: server.base.clone(),
                models: vec!["llama3.1:8b".into(), "qwen2.5:7b".into()],
            },
            FoundBackend {
                provider: SynthesisProvider::ClaudeCli,
                at: claude.display().to_string(),
                models: Vec::new(),
            },
        ]
    );
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let nowhere = format!("http://{}", silent.local_addr().unwrap());
    drop(silent);
    let empty = tempfile::tempdir().unwrap();
    let path = std::env::join_paths([empty.path()]).unwrap();
    assert_eq!(agent_cli::detect_in(&nowhere, Some(&path), &[]), []);
    // A CLI its installer put under the home folder is found though PATH lacks it, as a desktop
    // app's PATH does.
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join(".local/bin")).unwrap();
    let codex = stand_in_cli(&home.path().join(".local/bin"), "codex", "true");
    let found = agent_cli::detect_in(&nowhere, Some(&path), &[home.path().join(".local/bin")]);
    assert_eq!(
        found,
        [FoundBackend {
            provider: SynthesisProvider::CodexCli,
            at: codex.display().to_string(),
            models: Vec::new(),
        }]
    );
}
