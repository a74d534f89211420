//! MCP tool-call latency on the heavy-user store (SPEC §14): the server process already running,
//! each tool called over its stdio the way a harness calls it (one JSON-RPC request, one response
//! line), p50 and p99 per tool; beside it, in the same run, the engine's own `brief` assembled in
//! process for the same request, so the protocol's cost shows as a ratio (goal: the `brief` tool
//! within 2× of the engine).
//!
//! The store is the one the search benchmark generates once (2,000,000 turns, 500,000 entries,
//! 10,000 documents; `cargo bench -p elnor-engine --bench search` builds it into
//! `target/bench-stores/search-spec/store`), or `ELNOR_BENCH_STORE=DIR`. The server is this
//! benchmark's own binary started again with `ELNOR_BENCH_SERVE=1`, which serves exactly as
//! `elnor mcp` does (the CLI adds only its argument parsing), optimised as benchmarks are.
//! `observation_push` writes: its calls add a few observations to the store, marked as the
//! benchmark's.
//!
//! `cargo bench -p elnor-mcp --bench latency` (`ELNOR_BENCH_CALLS=N` calls per tool, default 200).
//! For a brief with all three tiers full, point it at the brief benchmark's store:
//! `ELNOR_BENCH_KEEP=1 cargo bench -p elnor-engine --bench brief` prints where it kept it; then
//! `ELNOR_BENCH_STORE=<that> ELNOR_BENCH_CWD=/home/person/projects/p0007/src cargo bench -p
//! elnor-mcp --bench latency`.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use chrono::Local;
use serde_json::{Value, json};

fn target() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"))
}

fn store_dir() -> PathBuf {
    std::env::var_os("ELNOR_BENCH_STORE")
        .map(PathBuf::from)
        .unwrap_or_else(|| target().join("bench-stores/search-spec/store"))
}

/// The server side: what `elnor mcp` runs, on the benchmark's store.
fn serve() {
    let store = elnor_engine::Store::open(store_dir()).expect("open the bench store");
    let cwd = std::env::current_dir()
        .ok()
        .map(|d| d.to_string_lossy().into_owned());
    elnor_mcp::serve_stdio(store, elnor_mcp::Context { cwd }).expect("serve");
}

struct Client {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Client {
    fn start() -> Client {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .env("ELNOR_BENCH_SERVE", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the server");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut c = Client {
            child,
            stdin,
            stdout,
            next_id: 0,
        };
        c.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "elnor-bench", "version": "1"}}),
        );
        writeln!(
            c.stdin,
            "{}",
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
        )
        .unwrap();
        c
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let req = json!({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params});
        writeln!(self.stdin, "{req}").unwrap();
        self.stdin.flush().unwrap();
        let mut line = String::new();
        loop {
            line.clear();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "server closed"
            );
            let v: Value = serde_json::from_str(&line).unwrap();
            // Skip notifications the server may send between answers.
            if v.get("id") == Some(&json!(self.next_id)) {
                return v;
            }
        }
    }

    /// Calls a tool; returns its parsed JSON result and how long the round trip took.
    fn call(&mut self, tool: &str, args: &Value) -> (Value, Duration) {
        let started = Instant::now();
        let v = self.request("tools/call", json!({"name": tool, "arguments": args}));
        let took = started.elapsed();
        let result = &v["result"];
        let text = result["content"][0]["text"].as_str().unwrap_or_default();
        assert_ne!(result["isError"], true, "{tool} {args}: {text}");
        (serde_json::from_str(text).unwrap_or(Value::Null), took)
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn percentiles(samples: &mut [Duration]) -> (f64, f64) {
    samples.sort();
    let at = |q: f64| {
        let i = ((samples.len() as f64 - 1.0) * q).round() as usize;
        samples[i].as_secs_f64() * 1000.0
    };
    (at(0.5), at(0.99))
}

fn main() {
    if std::env::var_os("ELNOR_BENCH_SERVE").is_some() {
        serve();
        return;
    }
    // `cargo bench` passes `--bench`; `cargo test --benches` runs this without it, as a build
    // check only.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let dir = store_dir();
    if !dir.join("entity_graph.sqlite").is_file() {
        eprintln!(
            "no heavy-user store at {}: run `cargo bench -p elnor-engine --bench search` once to \
             generate it, or set ELNOR_BENCH_STORE",
            dir.display()
        );
        return;
    }
    let calls: usize = std::env::var("ELNOR_BENCH_CALLS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(200);
    let mut client = Client::start();

    // Real ids from the store for the tools that need them.
    let (list, _) = client.call("session_list", &json!({"limit": 20}));
    let sessions = list["sessions"].as_array().cloned().unwrap_or_default();
    let session = sessions[0]["session_id"].as_str().unwrap().to_owned();
    let wc = sessions
        .iter()
        .find_map(|s| s["work_context_id"].as_str())
        .map(str::to_owned);
    // The brief as a hook asks for it: by the session's folder, resolved through the link rules.
    // `ELNOR_BENCH_CWD` names the folder to brief for (on the brief benchmark's store, one of
    // its projects); else the newest session's folder.
    let cwd = std::env::var("ELNOR_BENCH_CWD").ok().or_else(|| {
        sessions
            .iter()
            .find_map(|s| s["cwd"].as_str())
            .map(str::to_owned)
    });
    let mut brief_args = json!({"preview": true});
    match (&cwd, &wc) {
        (Some(cwd), _) => brief_args["cwd"] = json!(cwd),
        (None, Some(wc)) => brief_args["work_context_id"] = json!(wc),
        (None, None) => {}
    }
    let (brief, _) = client.call("brief", &brief_args);
    println!(
        "brief for {}: {} tokens",
        brief_args,
        brief["total_tokens"].as_u64().unwrap_or(0)
    );
    let (read, _) = client.call(
        "session_read_transcript",
        &json!({"session_id": session, "last_n_turns": 1}),
    );
    // The brief benchmark's store holds sessions without turns: lineage has nothing to expand.
    let seq = read["turns"][0]["seq"].as_i64();

    let mut tools: Vec<(&str, Value, usize)> = vec![
        ("session_list", json!({"limit": 20}), calls),
        (
            "session_read_transcript",
            json!({"session_id": session}),
            calls,
        ),
        ("session_summarize", json!({"session_id": session}), calls),
        (
            "continuity_query",
            json!({"query": "index schema decision", "session_id": session,
                   "strategy": "lexical_only", "hours": 0}),
            calls,
        ),
        ("brief", brief_args.clone(), calls),
        // Previews beyond the newest few are pruned, so the trace to explain is the newest.
        ("trace_explain", json!({"trace_id": "newest"}), calls),
        (
            "observation_push",
            json!({"text": "Benchmark note: measured the MCP server's latency."}),
            calls.min(50),
        ),
    ];
    match seq {
        Some(seq) => tools.insert(
            6,
            (
                "lineage_expand",
                json!({"session_id": session, "seq": seq}),
                calls,
            ),
        ),
        None => println!("lineage_expand skipped: the store's sessions hold no turns"),
    }
    // The rate limit would refuse a benchmark's searches; lift it for the run, then restore it.
    let store = elnor_engine::Store::open(&dir).unwrap();
    let per_minute = store.config().unwrap().query_rate_per_minute;
    let per_day = store.config().unwrap().query_rate_per_day;
    store.set_config("query_rate_per_minute", "0").unwrap();
    store.set_config("query_rate_per_day", "0").unwrap();

    println!(
        "MCP tool calls over stdio, server already running, store {} ({} calls per tool)",
        dir.display(),
        calls
    );
    println!("{:<26} {:>10} {:>10}", "tool", "p50 ms", "p99 ms");
    let mut brief_mcp = (0.0, 0.0);
    for (tool, args, n) in &tools {
        let mut args = args.clone();
        if args["trace_id"] == "newest" {
            args["trace_id"] = client.call("brief", &brief_args).0["trace_id"].clone();
        }
        let args = &args;
        // A few calls first, so caches are as warm as in a session that has been running.
        for _ in 0..3 {
            client.call(tool, args);
        }
        let mut samples: Vec<Duration> = (0..*n).map(|_| client.call(tool, args).1).collect();
        let (p50, p99) = percentiles(&mut samples);
        if *tool == "brief" {
            brief_mcp = (p50, p99);
        }
        println!("{tool:<26} {p50:>10.2} {p99:>10.2}");
    }
    drop(client);

    // The peer: the same brief assembled in this process by the engine.
    let now = elnor_engine::now();
    let mut req = elnor_engine::BriefRequest::new(
        now,
        now.with_timezone(&Local).date_naive(),
        elnor_engine::Delivery::Preview,
    );
    match (cwd, wc) {
        (Some(cwd), _) => req.cwd = Some(cwd),
        (None, Some(wc)) => {
            req.work_context_id = Some(elnor_engine::WorkContextId::new(wc).unwrap())
        }
        (None, None) => {}
    }
    req.format = elnor_engine::Format::Json;
    for _ in 0..3 {
        elnor_engine::assemble_brief(&store, &req).unwrap();
    }
    let mut samples: Vec<Duration> = (0..calls)
        .map(|_| {
            let started = Instant::now();
            elnor_engine::assemble_brief(&store, &req).unwrap();
            started.elapsed()
        })
        .collect();
    let (p50, p99) = percentiles(&mut samples);
    println!(
        "{:<26} {p50:>10.2} {p99:>10.2}",
        "brief (engine, in process)"
    );
    println!(
        "brief over MCP / in process: {:.2}× at p50, {:.2}× at p99 (goal ≤ 2×)",
        brief_mcp.0 / p50,
        brief_mcp.1 / p99
    );
    store
        .set_config("query_rate_per_minute", &per_minute.to_string())
        .unwrap();
    store
        .set_config("query_rate_per_day", &per_day.to_string())
        .unwrap();
}
