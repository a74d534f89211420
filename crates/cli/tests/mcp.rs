//! `elnor mcp` spoken to by a real MCP client (the official Rust SDK's, over the child process's
//! stdio) on a store built from the project's own samples: the handshake, the tool list and its
//! schemas, a call of every tool, the resource, errors a model can correct from, hostile ids, the
//! rate limit, the same hits as `elnor query --json`, and the server answering while the CLI and
//! the engine (as the desktop app holds it) write to the same store.

use std::path::Path;
use std::process::{Command, Output};

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult, ReadResourceRequestParams};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use serde_json::{Value, json};

fn elnor(store: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_elnor"))
        .arg("--store")
        .arg(store)
        .args(args)
        .env_remove("ELNOR_MEMORY")
        .output()
        .expect("run elnor")
}

fn ok(out: Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A store with the samples ingested and captured, as after a first run.
fn sample_store() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let samples = elnor_fixtures::samples();
    let root = |h: &str, d: &str| format!("{h}={}", samples.join(d).display());
    ok(elnor(
        dir.path(),
        &[
            "ingest",
            "--root",
            &root("claude_code", "claude-code"),
            "--root",
            &root("codex", "codex"),
            "--root",
            &root("openclaw", "openclaw/agents"),
        ],
    ));
    ok(elnor(dir.path(), &["capture", "--sweep"]));
    dir
}

async fn connect(store: &Path, cwd: &Path) -> RunningService<RoleClient, ()> {
    let transport = TokioChildProcess::new(
        tokio::process::Command::new(env!("CARGO_BIN_EXE_elnor")).configure(|c| {
            c.arg("--store")
                .arg(store)
                .arg("mcp")
                .current_dir(cwd)
                .env_remove("ELNOR_MEMORY");
        }),
    )
    .expect("start elnor mcp");
    ().serve(transport).await.expect("MCP handshake")
}

async fn call(client: &RunningService<RoleClient, ()>, tool: &str, args: Value) -> CallToolResult {
    let Value::Object(args) = args else {
        panic!("arguments are an object")
    };
    client
        .call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(args))
        .await
        .unwrap_or_else(|e| panic!("{tool}: protocol error {e}"))
}

fn text(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

/// A successful call's JSON.
async fn value(client: &RunningService<RoleClient, ()>, tool: &str, args: Value) -> Value {
    let r = call(client, tool, args.clone()).await;
    assert_ne!(r.is_error, Some(true), "{tool} {args}: {}", text(&r));
    serde_json::from_str(&text(&r))
        .unwrap_or_else(|e| panic!("{tool}: not JSON ({e}): {}", text(&r)))
}

/// A failed call's message.
async fn refused(client: &RunningService<RoleClient, ()>, tool: &str, args: Value) -> String {
    let r = call(client, tool, args.clone()).await;
    assert_eq!(
        r.is_error,
        Some(true),
        "{tool} {args} should fail: {}",
        text(&r)
    );
    text(&r)
}

#[tokio::test(flavor = "current_thread")]
async fn every_tool_answers_over_the_protocol_and_errors_are_tool_errors() {
    let store = sample_store();
    let client = connect(store.path(), store.path()).await;

    let info = client.peer_info().expect("server info");
    assert_eq!(
        info.server_info.as_ref().map(|s| s.name.as_str()),
        Some("elnor")
    );

    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(
        names,
        [
            "session_list",
            "session_read_transcript",
            "session_summarize",
            "continuity_query",
            "brief",
            "trace_explain",
            "lineage_expand",
            "lineage_node",
            "observation_push"
        ]
    );
    for t in &tools {
        // Claude Desktop refuses dotted names, Claude Code and Codex rewrite them, and Codex caps
        // `mcp__elnor__<tool>` at 64 bytes.
        assert!(
            t.name.len() <= 52
                && t.name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
            "{}",
            t.name
        );
        assert!(("mcp__elnor__".len() + t.name.len()) <= 64);
        let schema = Value::Object((*t.input_schema).clone());
        assert_eq!(schema["type"], "object", "{}: {schema}", t.name);
        assert_eq!(schema["additionalProperties"], false, "{}", t.name);
        assert!(!schema.to_string().contains("$ref"), "{}: {schema}", t.name);
        assert!(t.description.as_ref().is_some_and(|d| d.len() > 40));
        let writes = t.annotations.as_ref().and_then(|a| a.read_only_hint) == Some(false);
        assert_eq!(writes, t.name == "observation_push", "{}", t.name);
    }
    let push = tools.iter().find(|t| t.name == "observation_push").unwrap();
    assert!(push.description.as_ref().unwrap().starts_with("WRITES"));

    // session_list, then read, summarize and continue a read of the session with most turns.
    let list = value(&client, "session_list", json!({"limit": 100})).await;
    let sessions = list["sessions"].as_array().unwrap();
    assert!(sessions.len() >= 5, "{list}");
    // Attribution on every row (CSA §8.4).
    assert!(
        sessions
            .iter()
            .all(|s| s["agent_id"].is_string() && s["started_at"].is_string())
    );
    let busiest = sessions
        .iter()
        .max_by_key(|s| s["turn_count"].as_u64())
        .unwrap();
    let sid = busiest["session_id"].as_str().unwrap();
    let read = value(
        &client,
        "session_read_transcript",
        json!({"session_id": sid, "max_tokens": 120}),
    )
    .await;
    assert!(read["total_tokens"].as_u64().unwrap() <= 120, "{read}");
    let continuation = read["continuation"].as_str().expect("a cut read continues");
    let older = value(
        &client,
        "session_read_transcript",
        json!({"session_id": sid, "max_tokens": 120, "continuation": continuation}),
    )
    .await;
    let first_seq = read["turns"][0]["seq"].as_i64().unwrap();
    assert!(
        older["turns"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["seq"].as_i64().unwrap() < first_seq)
    );
    let summary = value(&client, "session_summarize", json!({"session_id": sid})).await;
    assert!(
        !summary["summary"].as_str().unwrap().is_empty(),
        "{summary}"
    );

    // brief → trace_explain → lineage_expand, from a session's own folder.
    let cwd = sessions
        .iter()
        .find_map(|s| s["cwd"].as_str())
        .expect("a session with a folder");
    let brief = value(&client, "brief", json!({"cwd": cwd, "preview": true})).await;
    assert!(!brief["text"].as_str().unwrap().is_empty());
    let trace_id = brief["trace_id"].as_i64().unwrap();
    let trace = value(&client, "trace_explain", json!({"trace_id": trace_id})).await;
    let lines = trace["lines"].as_array().unwrap();
    assert!(!lines.is_empty(), "{trace}");
    assert!(
        lines
            .iter()
            .all(|l| l["decision"] == "included" && l["why"].is_string())
    );
    let with_turns = lines
        .iter()
        .find(|l| l["session_id"].is_string())
        .expect("a brief line from a session");
    let lineage = value(
        &client,
        "lineage_expand",
        json!({"trace_id": trace_id, "line": with_turns["line"]}),
    )
    .await;
    assert_eq!(lineage["session_id"], with_turns["session_id"]);
    assert!(
        !lineage["transcript"]["turns"]
            .as_array()
            .unwrap()
            .is_empty()
    );

    // lineage_node: the line's node, its turns in the same session, and walking to it by id
    // gives the same node; a node of another agent is not found.
    let node = value(
        &client,
        "lineage_node",
        json!({"trace_id": trace_id, "line": with_turns["line"]}),
    )
    .await;
    assert_eq!(
        node["node"]["session_id"], with_turns["session_id"],
        "{node}"
    );
    assert!(
        !node["turns"]["turns"].as_array().unwrap().is_empty(),
        "{node}"
    );
    let id = node["node"]["node_id"].as_str().unwrap();
    let by_id = value(&client, "lineage_node", json!({"node_id": id})).await;
    assert_eq!(by_id["node"], node["node"]);
    let other = call(
        &client,
        "lineage_node",
        json!({"node_id": id, "agent_scope": "codex:nobody"}),
    )
    .await;
    assert_eq!(other.is_error, Some(true), "{other:?}");

    // The brief as a resource.
    let resource = client
        .read_resource(ReadResourceRequestParams::new(elnor_mcp_uri()))
        .await
        .unwrap();
    assert_eq!(resource.contents.len(), 1);

    // The global head as a resource: the same text `elnor heads show --json` gives.
    let memory = client
        .read_resource(ReadResourceRequestParams::new("elnor://memory".to_owned()))
        .await
        .unwrap();
    let head = ok(elnor(store.path(), &["heads", "show", "--json"]));
    let head: serde_json::Value = serde_json::from_str(&head).unwrap();
    match &memory.contents[0] {
        rmcp::model::ResourceContents::TextResourceContents { text, .. } => {
            assert_eq!(Some(text.as_str()), head["head"]["text"].as_str());
            assert!(text.starts_with('#'), "{text}");
        }
        other => panic!("the head is text: {other:?}"),
    }

    // continuity_query: the banner, the requesting session, ranking reasons.
    let found = value(
        &client,
        "continuity_query",
        json!({"query": "token refresh", "session_id": sid, "permission": "lineage", "hours": 0}),
    )
    .await;
    assert!(found["banner"].as_str().unwrap().contains("low trust"));
    assert_eq!(found["requesting_session"], sid);
    for hit in found["hits"].as_array().unwrap() {
        assert!(hit["why"].is_object() || hit["why"].is_array(), "{hit}");
    }

    // The one write.
    let pushed = value(
        &client,
        "observation_push",
        json!({"text": "Ran the ledger migration on staging by hand."}),
    )
    .await;
    assert_eq!(pushed["recorded"], true);
    let observations = ok(elnor(store.path(), &["--json", "observations", "list"]));
    assert!(observations.contains("Ran the ledger migration on staging by hand."));

    // Errors a model can correct from, never protocol failures.
    let wrong_type = refused(&client, "session_list", json!({"limit": "ten"})).await;
    assert!(
        wrong_type.contains("invalid arguments for session_list"),
        "{wrong_type}"
    );
    let typo = refused(
        &client,
        "session_read_transcript",
        json!({"sesion_id": sid}),
    )
    .await;
    assert!(typo.contains("unknown field `sesion_id`"), "{typo}");
    let missing = refused(&client, "continuity_query", json!({})).await;
    assert!(missing.contains("missing field `query`"), "{missing}");
    let unknown = refused(&client, "session_delete", json!({})).await;
    assert!(unknown.contains("there is no tool"), "{unknown}");
    let two_sources = refused(
        &client,
        "lineage_expand",
        json!({"trace_id": trace_id, "line": 0, "summary_id": "x"}),
    )
    .await;
    assert!(two_sources.contains("exactly one source"), "{two_sources}");

    // Hostile ids and paths are refused before anything is looked up.
    for hostile in ["../../etc/passwd", "/etc/passwd", "a\\..\\b", "x\u{0}y"] {
        let why = refused(
            &client,
            "session_read_transcript",
            json!({"session_id": hostile}),
        )
        .await;
        assert!(
            why.contains("not a session id") || why.contains("control"),
            "{why}"
        );
    }
    let why = refused(&client, "brief", json!({"cwd": "../outside"})).await;
    assert!(why.contains("absolute path"), "{why}");
    let why = refused(&client, "brief", json!({"work_context_id": "../../x"})).await;
    assert!(!why.is_empty());
    let why = refused(&client, "trace_explain", json!({"trace_id": 999_999})).await;
    assert!(why.contains("999999"), "{why}");

    client.cancel().await.unwrap();
}

fn elnor_mcp_uri() -> String {
    "elnor://brief".to_owned()
}

#[tokio::test(flavor = "current_thread")]
async fn continuity_query_returns_the_same_hits_as_elnor_query_and_hits_the_rate_limit() {
    let store = sample_store();
    // Search as the session whose own turns talk about it, so its scope holds hits.
    let person = ok(elnor(
        store.path(),
        &[
            "--json",
            "query",
            "token refresh",
            "--hours",
            "0",
            "--kind",
            "turn",
        ],
    ));
    let person: Value = serde_json::from_str(&person).unwrap();
    let listed = ok(elnor(
        store.path(),
        &["--json", "sessions", "list", "--limit", "100"],
    ));
    let listed: Value = serde_json::from_str(&listed).unwrap();
    let placed = |id: &str| {
        listed["sessions"].as_array().unwrap().iter().any(|s| {
            s["session_id"] == id
                && s["work_context_id"].is_string()
                && s["session_kind"] == "primary"
        })
    };
    // A session that is in a work context: a harness's own run (no person, no context) may
    // search nothing.
    let sid = person["hits"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|h| h["session_id"].as_str())
        .find(|id| placed(id))
        .expect("a person's session talks about token refresh")
        .to_owned();
    let client = connect(store.path(), store.path()).await;
    let mut compared = 0;
    for query in ["token refresh", "ledger sync retry", "migration"] {
        let cli = ok(elnor(
            store.path(),
            &[
                "--json",
                "query",
                query,
                "--as-session",
                &sid,
                "--hours",
                "0",
                "--max-results",
                "10",
                "--strategy",
                "lexical_only",
            ],
        ));
        let cli: Value = serde_json::from_str(&cli).unwrap();
        let mcp = value(
            &client,
            "continuity_query",
            json!({"query": query, "session_id": sid, "hours": 0, "max_results": 10,
                   "strategy": "lexical_only"}),
        )
        .await;
        let ids = |v: &Value| -> Vec<(String, String)> {
            v["hits"]
                .as_array()
                .unwrap()
                .iter()
                .map(|h| (h["doc_id"].to_string(), h["excerpt"].to_string()))
                .collect()
        };
        assert_eq!(ids(&mcp), ids(&cli), "{query}");
        compared += ids(&cli).len();
    }
    assert!(
        compared > 0,
        "no query found anything, so nothing was compared"
    );

    // Two searches a minute for agents: the third in the same minute is refused, in words.
    ok(elnor(
        store.path(),
        &["config", "set", "query_rate_per_minute", "2"],
    ));
    let other = connect(store.path(), store.path()).await;
    let args = json!({"query": "token", "session_id": "rate-limited-session"});
    value(&other, "continuity_query", args.clone()).await;
    value(&other, "continuity_query", args.clone()).await;
    let why = refused(&other, "continuity_query", args).await;
    assert!(why.contains("limit"), "{why}");
    other.cancel().await.unwrap();
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "current_thread")]
async fn the_server_answers_while_the_cli_and_the_engine_write_to_the_same_store() {
    let store = sample_store();
    let path = store.path().to_owned();
    let client = connect(&path, &path).await;
    let rounds = 8;

    // The CLI pushes from its own processes.
    let cli_path = path.clone();
    let cli = std::thread::spawn(move || {
        for i in 0..rounds {
            ok(elnor(
                &cli_path,
                &["push", &format!("CLI note {i} about the ledger")],
            ));
        }
    });
    // The engine, as the desktop app holds it, pushes from this process.
    let app_path = path.clone();
    let app = std::thread::spawn(move || {
        let store = elnor_engine::Store::open(&app_path).unwrap();
        for i in 0..rounds {
            let push = elnor_engine::Push {
                text: format!("App note {i} about the ledger"),
                work_context: None,
                entities: Vec::new(),
            };
            elnor_engine::push(&store, &push, elnor_engine::now()).unwrap();
        }
    });
    // Meanwhile the server answers reads and takes its own writes.
    for i in 0..rounds {
        value(&client, "session_list", json!({"limit": 5})).await;
        value(&client, "brief", json!({"preview": true})).await;
        value(
            &client,
            "observation_push",
            json!({"text": format!("MCP note {i} about the ledger")}),
        )
        .await;
    }
    cli.join().unwrap();
    app.join().unwrap();
    client.cancel().await.unwrap();

    let listed = ok(elnor(
        &path,
        &["--json", "observations", "list", "--limit", "200"],
    ));
    for who in ["CLI", "App", "MCP"] {
        for i in 0..rounds {
            assert!(
                listed.contains(&format!("{who} note {i} about the ledger")),
                "{who} note {i} was lost"
            );
        }
    }
}
