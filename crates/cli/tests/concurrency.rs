//! Everyone on one store at once (issue 20, part 5): `elnor watch` ingesting a session that keeps
//! growing, an MCP server answering an agent and taking its pushes, the CLI pushing and briefing
//! from its own processes, and the engine as the desktop app holds it, pushing, briefing and
//! drilling down, all for a bounded time. Nothing may fail, no acknowledged write may be lost,
//! no call may wait as long as SQLite's busy timeout (5 s), and the watcher must have stored every
//! line the session wrote.
//!
//! `ELNOR_CONCURRENCY_SECS=120 cargo test -p elnor-cli --test concurrency -- --nocapture` runs it
//! longer; CI runs the default 15 s.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use serde_json::{Value, json};

/// SQLite's busy timeout in the engine: no call may come near it.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

fn elnor(store: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_elnor"))
        .arg("--store")
        .arg(store)
        .args(args)
        .env_remove("ELNOR_MEMORY")
        .stdin(Stdio::null())
        .output()
        .expect("run elnor")
}

/// The watcher's process, killed however the test ends: a failed assertion must not leave it
/// running (and writing) after the test.
struct Watcher(std::process::Child);

impl Drop for Watcher {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn ok(out: Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "{what}: exit {:?}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// What one actor did: calls made, the slowest, and the writes it was told succeeded.
#[derive(Debug, Default)]
struct Tally {
    calls: usize,
    slowest: Duration,
    acked: Vec<String>,
}

impl Tally {
    fn time<T>(&mut self, f: impl FnOnce() -> T) -> T {
        let started = Instant::now();
        let out = f();
        self.calls += 1;
        self.slowest = self.slowest.max(started.elapsed());
        out
    }
}

/// A Claude Code session line, as the harness writes it.
fn line(session: &str, cwd: &str, n: usize) -> String {
    let (role, content) = if n.is_multiple_of(2) {
        (
            "user",
            json!(format!(
                "Step {n}: check the ledger reconciliation for the invoice batch?"
            )),
        )
    } else {
        (
            "assistant",
            json!([{"type": "text", "text": format!("Step {n}: the batch reconciles.")}]),
        )
    };
    json!({
        "type": role, "uuid": format!("u-{n}"), "sessionId": session, "cwd": cwd,
        "timestamp": format!("2026-11-20T10:{:02}:{:02}.000Z", (n / 60) % 60, n % 60),
        "message": {"role": role, "content": content},
    })
    .to_string()
}

async fn connect(store: &Path) -> RunningService<RoleClient, ()> {
    let transport = TokioChildProcess::new(
        tokio::process::Command::new(env!("CARGO_BIN_EXE_elnor")).configure(|c| {
            c.arg("--store")
                .arg(store)
                .arg("mcp")
                .current_dir(store)
                .env_remove("ELNOR_MEMORY")
                .stderr(Stdio::null());
        }),
    )
    .expect("start elnor mcp");
    ().serve(transport).await.expect("MCP handshake")
}

async fn mcp_call(client: &RunningService<RoleClient, ()>, tool: &str, args: Value) -> Value {
    let Value::Object(args) = args else {
        panic!("arguments are an object")
    };
    let r = client
        .call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(args))
        .await
        .unwrap_or_else(|e| panic!("{tool}: protocol error {e}"));
    let text: String = r
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect();
    assert_ne!(r.is_error, Some(true), "{tool}: {text}");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{tool}: not JSON ({e}): {text}"))
}

#[tokio::test(flavor = "current_thread")]
async fn the_watcher_the_mcp_server_the_cli_and_the_app_share_one_store_without_loss() {
    let secs: u64 = std::env::var("ELNOR_CONCURRENCY_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(15);
    let dir = tempfile::tempdir().unwrap();
    let store: PathBuf = dir.path().join("store");
    let samples = elnor_fixtures::samples();
    let root = |h: &str, d: &str| format!("{h}={}", samples.join(d).display());
    ok(
        elnor(
            &store,
            &[
                "ingest",
                "--root",
                &root("claude_code", "claude-code"),
                "--root",
                &root("codex", "codex"),
                "--root",
                &root("openclaw", "openclaw/agents"),
            ],
        ),
        "ingest",
    );
    // No model here: deterministic capture, so the watcher's log holds only what went wrong.
    ok(
        elnor(&store, &["config", "set", "mode", "deterministic"]),
        "config set",
    );
    // The agent searches every round; the daily cap for all agents (200) has its own test.
    ok(
        elnor(&store, &["config", "set", "query_rate_per_day", "0"]),
        "config set",
    );
    ok(elnor(&store, &["capture", "--sweep"]), "capture");

    // A live session the watcher follows while it grows.
    let harness = dir.path().join("claude");
    let cwd = "/home/dana/code/concurrency";
    let session = "0c0c0c0c-1111-4222-8333-444444444444";
    let file = harness
        .join("-home-dana-code-concurrency")
        .join(format!("{session}.jsonl"));
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, format!("{}\n", line(session, cwd, 0))).unwrap();
    let watch_log = dir.path().join("watch.log");
    let mut watch = Watcher(
        Command::new(env!("CARGO_BIN_EXE_elnor"))
            .arg("--store")
            .arg(&store)
            .args(["watch", "--no-files", "--interval", "1", "--root"])
            .arg(format!("claude_code={}", harness.display()))
            .env_remove("ELNOR_MEMORY")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&watch_log).unwrap())
            .spawn()
            .expect("start elnor watch"),
    );

    let deadline = Instant::now() + Duration::from_secs(secs);
    let stop = Arc::new(AtomicBool::new(false));

    // The harness writes a line every 50 ms.
    let writer = {
        let (file, stop) = (file.clone(), Arc::clone(&stop));
        std::thread::spawn(move || {
            let mut n = 1;
            while !stop.load(Ordering::Relaxed) {
                let mut f = std::fs::OpenOptions::new()
                    .append(true)
                    .open(&file)
                    .unwrap();
                writeln!(f, "{}", line(session, cwd, n)).unwrap();
                n += 1;
                std::thread::sleep(Duration::from_millis(50));
            }
            n
        })
    };
    // The CLI, from its own processes.
    let cli = {
        let (store, stop) = (store.clone(), Arc::clone(&stop));
        std::thread::spawn(move || {
            let mut t = Tally::default();
            let mut i = 0;
            while !stop.load(Ordering::Relaxed) {
                let note = format!("CLI note {i} on the ledger");
                t.time(|| ok(elnor(&store, &["push", &note]), "push"));
                t.acked.push(note);
                t.time(|| {
                    ok(
                        elnor(
                            &store,
                            &["brief", "--cwd", "/home/dana/code/ledger-sync", "--dry-run"],
                        ),
                        "brief",
                    )
                });
                i += 1;
            }
            t
        })
    };
    // The engine, as the desktop app holds it: pushes, briefs, heads and drill-downs.
    let app = {
        let (store, stop) = (store.clone(), Arc::clone(&stop));
        std::thread::spawn(move || {
            let store = elnor_engine::Store::open(&store).unwrap();
            let mut t = Tally::default();
            let mut i = 0;
            while !stop.load(Ordering::Relaxed) {
                let note = format!("App note {i} on the ledger");
                let push = elnor_engine::Push {
                    text: note.clone(),
                    work_context: None,
                    entities: Vec::new(),
                };
                t.time(|| elnor_engine::push(&store, &push, elnor_engine::now()).unwrap());
                t.acked.push(note);
                t.time(|| {
                    let mut req = elnor_engine::BriefRequest::new(
                        elnor_engine::now(),
                        elnor_engine::now().date_naive(),
                        elnor_engine::Delivery::Preview,
                    );
                    req.cwd = Some("/home/dana/code/ledger-sync".into());
                    elnor_engine::assemble_brief(&store, &req).unwrap()
                });
                t.time(|| {
                    elnor_engine::show_head(
                        &store,
                        &elnor_engine::HeadScope::Global,
                        elnor_engine::now(),
                    )
                    .unwrap()
                });
                i += 1;
            }
            t
        })
    };
    // The agent, over MCP.
    let client = connect(&store).await;
    let mut agent = Tally::default();
    let mut i = 0;
    while Instant::now() < deadline {
        let started = Instant::now();
        mcp_call(&client, "session_list", json!({"limit": 5})).await;
        mcp_call(&client, "brief", json!({"preview": true})).await;
        mcp_call(
            &client,
            "continuity_query",
            // A session of its own per round: the rate limits, which have their own tests,
            // would otherwise stop the loop.
            json!({"query": "ledger", "session_id": format!("concurrency-agent-{i}"), "hours": 0}),
        )
        .await;
        let note = format!("MCP note {i} on the ledger");
        mcp_call(&client, "observation_push", json!({"text": note})).await;
        agent.acked.push(note);
        agent.calls += 4;
        agent.slowest = agent.slowest.max(started.elapsed() / 4);
        i += 1;
    }
    stop.store(true, Ordering::Relaxed);
    let written = writer.join().unwrap();
    let cli = cli.join().unwrap();
    let app = app.join().unwrap();
    client.cancel().await.unwrap();

    // Let the watcher take the last lines, then stop it.
    let reader = elnor_engine::Store::open(&store).unwrap();
    let lines_stored = |_: &Path| -> usize {
        elnor_engine::session(reader.graph(), session).map_or(0, |s| s.record_count as usize)
    };
    let settle = Instant::now() + Duration::from_secs(20);
    while lines_stored(&store) < written && Instant::now() < settle {
        std::thread::sleep(Duration::from_millis(250));
    }
    let _ = watch.0.kill();
    let _ = watch.0.wait();
    let watch_errors = std::fs::read_to_string(&watch_log).unwrap_or_default();

    eprintln!(
        "{secs} s: watcher {written} lines written; CLI {} calls (slowest {:.2?}); app {} calls \
         (slowest {:.2?}); MCP {} calls (slowest {:.2?} on average per call of a round)",
        cli.calls, cli.slowest, app.calls, app.slowest, agent.calls, agent.slowest
    );
    assert_eq!(
        lines_stored(&store),
        written,
        "the watcher stored every line; its log:\n{watch_errors}"
    );
    assert!(
        !watch_errors.contains("ERROR")
            && !watch_errors.contains("WARN")
            && !watch_errors.contains("locked")
            && !watch_errors.contains("busy"),
        "the watcher reported: {watch_errors}"
    );
    for t in [&cli, &app, &agent] {
        assert!(t.calls > 0);
        assert!(t.slowest < BUSY_TIMEOUT, "a call waited {:.2?}", t.slowest);
    }
    let listed = ok(
        elnor(
            &store,
            &["--json", "observations", "list", "--limit", "100000"],
        ),
        "observations list",
    );
    for note in cli.acked.iter().chain(&app.acked).chain(&agent.acked) {
        assert!(listed.contains(note.as_str()), "{note} was lost");
    }
}
