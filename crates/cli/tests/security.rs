//! Hostile input through every interface an outsider can reach (issue 20, part 6): a table of
//! inputs an attacker or a confused agent might send as an id, a path, a glob or a name, run
//! through the CLI's id- and path-taking commands and through every argument of every MCP tool
//! (read from the server's own tool list, so a new tool is covered the day it lands).
//!
//! Whatever an input does, the same things must hold: no panic, a clear error or a normal answer,
//! the content of a file outside the store never printed, nothing written outside the store, no
//! shell command run, and the store intact afterwards (integrity check, every turn still there,
//! the CLI and the server still answering). The desktop shell's half of the table runs in its
//! real webview (`tests/e2e/security.rs`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use serde_json::{Value, json};

/// What the file outside the store holds: no answer may ever contain it.
const SENTINEL: &str = "ELNOR-SENTINEL-9f27c1-outside-the-store";

/// The hostile strings, by what each tries. `{outside}` becomes the absolute path of the file
/// outside the store, so a path that would really reach it is tried too.
const HOSTILE: &[(&str, &str)] = &[
    ("parent traversal", "../../../../etc/passwd"),
    ("traversal to the outside file", "../outside/secret.txt"),
    ("absolute path to the outside file", "{outside}"),
    ("absolute system path", "/etc/passwd"),
    ("windows traversal", "..\\..\\windows\\win.ini"),
    ("url-encoded traversal", "%2e%2e%2f%2e%2e%2fetc%2fpasswd"),
    ("file url", "file:///etc/passwd"),
    ("glob", "**/*"),
    ("unclosed glob class", "[a-"),
    ("shell substitution", "$(touch pwned)"),
    ("shell backticks", "`touch pwned`"),
    ("shell separator", "x; touch pwned"),
    ("sql injection", "x'; DROP TABLE turns; --"),
    ("newline injection", "a\nerror: forged line\r\nb"),
    ("right-to-left override", "abc\u{202e}gpj.exe"),
    ("terminal escape", "\u{1b}[2J\u{1b}]0;owned\u{7}"),
    ("windows device name", "CON"),
    ("empty", ""),
    ("only spaces", "   "),
    ("a dot", "."),
    ("dot dot", ".."),
    ("very long", "{long}"),
];

/// Hostile strings only an MCP client can send: a process argument cannot hold a NUL.
const HOSTILE_MCP_ONLY: &[(&str, &str)] = &[("nul byte", "x\u{0}y")];

/// Hostile numbers, for integer arguments.
const HOSTILE_NUMBERS: &[i64] = &[-1, 0, i64::MAX, i64::MIN];

fn expand(value: &str, outside: &Path) -> String {
    value
        .replace("{outside}", &outside.display().to_string())
        .replace("{long}", &"A".repeat(100_000))
}

fn elnor(store: &Path, cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_elnor"))
        .arg("--store")
        .arg(store)
        .args(args)
        .current_dir(cwd)
        .env_remove("ELNOR_MEMORY")
        .stdin(Stdio::null())
        .output()
        .expect("run elnor")
}

fn ok(out: Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The world the table runs in: a store with the samples ingested and captured, a folder beside
/// it holding the sentinel file, and a working directory of its own (where `touch pwned` would
/// land).
struct World {
    _dir: tempfile::TempDir,
    root: PathBuf,
    store: PathBuf,
    outside: PathBuf,
    session: String,
    turns: i64,
}

impl World {
    fn new() -> World {
        let w = World::ingested();
        ok(elnor(&w.store, &w.root, &["capture", "--sweep"]));
        w
    }

    /// The samples ingested, nothing captured yet.
    fn ingested() -> World {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let store = root.join("store");
        let outside = root.join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("secret.txt"), SENTINEL).unwrap();
        let samples = elnor_fixtures::samples();
        let arg = |h: &str, d: &str| format!("{h}={}", samples.join(d).display());
        ok(elnor(
            &store,
            &root,
            &[
                "ingest",
                "--root",
                &arg("claude_code", "claude-code"),
                "--root",
                &arg("codex", "codex"),
                "--root",
                &arg("openclaw", "openclaw/agents"),
            ],
        ));
        // The agent's searches are not limited here; the limits have their own tests.
        for key in ["query_rate_per_minute", "query_rate_per_day"] {
            ok(elnor(&store, &root, &["config", "set", key, "0"]));
        }
        let list: Value = serde_json::from_str(&ok(elnor(
            &store,
            &root,
            &["--json", "sessions", "list", "--limit", "1"],
        )))
        .unwrap();
        let session = list["sessions"][0]["session_id"]
            .as_str()
            .expect("a sample session")
            .to_owned();
        let mut w = World {
            _dir: dir,
            root,
            store,
            outside,
            session,
            turns: 0,
        };
        w.turns = w.turn_count();
        w
    }

    fn sentinel_path(&self) -> PathBuf {
        self.outside.join("secret.txt")
    }

    fn turn_count(&self) -> i64 {
        let db = rusqlite::Connection::open(self.store.join("entity_graph.sqlite")).unwrap();
        db.query_row("SELECT count(*) FROM turns", [], |r| r.get(0))
            .unwrap()
    }

    /// Every file under the world's root that is not in the store, with its bytes.
    fn files_outside_the_store(&self) -> BTreeMap<PathBuf, Vec<u8>> {
        fn walk(dir: &Path, skip: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
            for e in std::fs::read_dir(dir).unwrap().flatten() {
                let p = e.path();
                if p == skip {
                    continue;
                }
                if p.is_dir() {
                    walk(&p, skip, out);
                } else {
                    out.insert(p.clone(), std::fs::read(&p).unwrap_or_default());
                }
            }
        }
        let mut out = BTreeMap::new();
        walk(&self.root, &self.store, &mut out);
        out
    }

    /// The checks that close every run of the table: nothing outside the store changed, no
    /// shell ran, and the store is whole and still answers.
    fn still_intact(&self, before: &BTreeMap<PathBuf, Vec<u8>>) {
        let after = self.files_outside_the_store();
        assert_eq!(
            after.keys().collect::<Vec<_>>(),
            before.keys().collect::<Vec<_>>(),
            "files appeared or vanished outside the store"
        );
        assert_eq!(&after, before, "a file outside the store changed");
        let db = rusqlite::Connection::open(self.store.join("entity_graph.sqlite")).unwrap();
        let check: String = db
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .unwrap();
        assert_eq!(check, "ok");
        assert_eq!(self.turn_count(), self.turns, "turns were lost");
        ok(elnor(&self.store, &self.root, &["status"]));
    }
}

/// One answer to a hostile input: it may succeed or refuse, but never panic, never refuse
/// without saying why, and never show what the outside file holds.
fn judge(what: &str, out: &Output) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.code().is_some_and(|c| c != 101) && !stderr.contains("panicked"),
        "{what}: crashed ({:?}): {stderr}",
        out.status
    );
    if !out.status.success() {
        assert!(
            stderr.starts_with("error:") || stderr.contains("\nerror:"),
            "{what}: exit {:?} without a clear error: {stderr}",
            out.status
        );
    }
    assert!(
        !stdout.contains(SENTINEL) && !stderr.contains(SENTINEL),
        "{what}: showed the file outside the store"
    );
    assert!(
        !stdout.contains("root:x:0:0") && !stderr.contains("root:x:0:0"),
        "{what}: showed /etc/passwd"
    );
}

/// The CLI's commands that take an id, a name or a path, with `{}` where the hostile input goes.
/// `library add`, `sources add` and `heads write --to` are absent on purpose: naming any folder
/// or file of theirs is what the person's own CLI is for.
const CLI_TEMPLATES: &[&[&str]] = &[
    &["sessions", "show", "{}"],
    &["sessions", "summarize", "{}"],
    &["contexts", "show", "{}"],
    &["contexts", "create", "{}"],
    &["entities", "show", "{}"],
    &["lineage", "show", "{}"],
    &["lineage", "show", "--turn", "{}"],
    &["nodes", "show", "{}"],
    &["topics", "show", "{}"],
    &["topics", "pin", "{}", "{}"],
    &["library", "show", "{}"],
    &["log", "tail", "{}"],
    &["heads", "show", "--thread", "{}"],
    &["brief", "--session", "{}", "--dry-run"],
    &["brief", "--cwd", "{}", "--dry-run"],
    &["query", "{}", "--hours", "0"],
    &["query", "ledger", "--context", "{}"],
    &["push", "a note", "--context", "{}"],
    &["sessions", "list", "--context", "{}"],
    &["timeline", "--context", "{}"],
];

/// The templates that may answer a hostile input rather than refuse it: a brief for any folder
/// or session (a folder never seen is a new project; a session id there is only recorded), a
/// search for any words, and a work context named with any words that make a plain name. Every
/// other template names something that must already exist, so every hostile input is refused.
const MAY_ANSWER: &[&[&str]] = &[
    &["brief", "--session", "{}", "--dry-run"],
    &["brief", "--cwd", "{}", "--dry-run"],
    &["query", "{}", "--hours", "0"],
    &["contexts", "create", "{}"],
];

/// Inputs no name may hold, whatever the template: control characters and direction overrides.
const NEVER_A_NAME: &[&str] = &["right-to-left override", "terminal escape"];

#[test]
fn the_cli_refuses_hostile_ids_and_paths_clearly_and_nothing_leaves_the_store() {
    let world = World::new();
    let before = world.files_outside_the_store();
    let mut refused = 0;
    let mut answered = 0;
    for template in CLI_TEMPLATES {
        for (name, value) in HOSTILE {
            let value = expand(value, &world.sentinel_path());
            let args: Vec<&str> = template
                .iter()
                .map(|a| if *a == "{}" { value.as_str() } else { a })
                .collect();
            let out = elnor(&world.store, &world.root, &args);
            judge(&format!("elnor {} with {name}", template.join(" ")), &out);
            if out.status.success() {
                let what = format!("elnor {} with {name}", template.join(" "));
                assert!(
                    MAY_ANSWER.contains(template),
                    "{what}: answered instead of refusing: {}",
                    String::from_utf8_lossy(&out.stdout)
                );
                assert!(
                    template[0] != "contexts" || !NEVER_A_NAME.contains(name),
                    "{what}: became a work context's name"
                );
                answered += 1;
            } else {
                refused += 1;
            }
        }
    }
    eprintln!(
        "{} CLI calls: {refused} refused with an error, {answered} answered",
        refused + answered
    );
    world.still_intact(&before);
}

async fn connect(world: &World) -> RunningService<RoleClient, ()> {
    let transport = TokioChildProcess::new(
        tokio::process::Command::new(env!("CARGO_BIN_EXE_elnor")).configure(|c| {
            c.arg("--store")
                .arg(&world.store)
                .arg("mcp")
                .current_dir(&world.root)
                .env_remove("ELNOR_MEMORY")
                .stderr(Stdio::null());
        }),
    )
    .expect("start elnor mcp");
    ().serve(transport).await.expect("MCP handshake")
}

/// A value a property may take when it is not the one under attack, so a tool's other required
/// arguments do not stop the call before the hostile one is read.
fn valid(world: &World, property: &str, schema: &Value) -> Value {
    match property {
        "session_id" => json!(world.session),
        "query" => json!("ledger"),
        "text" => json!("A note from the security suite"),
        _ if is_type(schema, "integer") => json!(1),
        _ if is_type(schema, "boolean") => json!(false),
        _ if is_type(schema, "array") => json!([]),
        _ => json!("x"),
    }
}

fn is_type(schema: &Value, ty: &str) -> bool {
    match &schema["type"] {
        Value::String(t) => t == ty,
        Value::Array(ts) => ts.iter().any(|t| t == ty),
        _ => false,
    }
}

#[tokio::test(flavor = "current_thread")]
async fn every_mcp_tool_argument_survives_the_hostile_table_and_nothing_leaves_the_store() {
    let world = World::new();
    let before = world.files_outside_the_store();
    let client = connect(&world).await;
    let tools = client.list_all_tools().await.expect("tools/list");
    assert!(tools.len() >= 9, "the server lists its tools");
    let (mut calls, mut refused) = (0, 0);
    for tool in &tools {
        let schema = Value::Object((*tool.input_schema).clone());
        let properties = schema["properties"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        let required: Vec<String> = schema["required"]
            .as_array()
            .map(|r| {
                r.iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        for (property, property_schema) in &properties {
            let mut values: Vec<(String, Value)> = Vec::new();
            if is_type(property_schema, "string") || is_type(property_schema, "array") {
                for (name, value) in HOSTILE.iter().chain(HOSTILE_MCP_ONLY) {
                    let value = expand(value, &world.sentinel_path());
                    let value = if is_type(property_schema, "string") {
                        json!(value)
                    } else {
                        json!([value])
                    };
                    values.push(((*name).to_owned(), value));
                }
            }
            if is_type(property_schema, "integer") || is_type(property_schema, "number") {
                for n in HOSTILE_NUMBERS {
                    values.push((format!("number {n}"), json!(n)));
                }
                values.push(("a string for a number".into(), json!("../../etc/passwd")));
            }
            if is_type(property_schema, "object") {
                values.push(("an object of traversals".into(), json!({"id": "../../x"})));
            }
            for (name, value) in values {
                let mut args = serde_json::Map::new();
                for r in &required {
                    args.insert(r.clone(), valid(&world, r, &properties[r]));
                }
                args.insert(property.clone(), value);
                let what = format!("{} {property} with {name}", tool.name);
                let result = client
                    .call_tool(
                        CallToolRequestParams::new(tool.name.to_string()).with_arguments(args),
                    )
                    .await;
                calls += 1;
                let text = match result {
                    Ok(r) => {
                        let text: String = r
                            .content
                            .iter()
                            .filter_map(|c| c.as_text().map(|t| t.text.clone()))
                            .collect();
                        if r.is_error == Some(true) {
                            refused += 1;
                            assert!(!text.trim().is_empty(), "{what}: refused without a reason");
                        }
                        text
                    }
                    // A protocol-level refusal is as good as a tool error, as long as the
                    // server is still there to give it.
                    Err(e) => {
                        refused += 1;
                        e.to_string()
                    }
                };
                assert!(
                    !text.contains(SENTINEL),
                    "{what}: showed the file outside the store"
                );
                assert!(!text.contains("root:x:0:0"), "{what}: showed /etc/passwd");
                assert!(!text.contains("panicked"), "{what}: {text}");
            }
        }
    }
    // The server is alive and answers a plain call after all of it.
    let alive = client
        .call_tool(
            CallToolRequestParams::new("session_list")
                .with_arguments(json!({"limit": 1}).as_object().unwrap().clone()),
        )
        .await
        .expect("the server still answers");
    assert_ne!(alive.is_error, Some(true));
    client.cancel().await.unwrap();
    eprintln!(
        "{calls} MCP calls over {} tools: {refused} refused",
        tools.len()
    );
    world.still_intact(&before);
}

/// A model endpoint off this machine, played by a local HTTP proxy: the store is configured
/// with a host name that is not local, and the `elnor` processes are started with this proxy in
/// `HTTP_PROXY`, so every request meant for that host arrives here. It answers as Ollama (a
/// summary for `/api/chat`, one vector per input for `/api/embed`) and records every request.
fn off_machine_model() -> (String, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
    use std::io::{BufRead, BufReader, Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let proxy = format!("http://{}", listener.local_addr().unwrap());
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let record = std::sync::Arc::clone(&seen);
    // One request's head and body, whether its body has a length or comes in chunks (a hex
    // size line, the bytes, a CRLF).
    fn read_request(reader: &mut BufReader<std::net::TcpStream>) -> Option<(String, String)> {
        let mut head = String::new();
        let mut length = 0;
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return None;
            }
            if line == "\r\n" {
                break;
            }
            if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                length = v.trim().parse().unwrap_or(0);
            }
            head.push_str(&line);
        }
        let mut buf = vec![0; length];
        reader.read_exact(&mut buf).ok()?;
        if head
            .to_ascii_lowercase()
            .contains("transfer-encoding: chunked")
        {
            loop {
                let mut size = String::new();
                reader.read_line(&mut size).ok()?;
                let n = usize::from_str_radix(size.trim(), 16).ok()?;
                let mut chunk = vec![0; n + 2];
                reader.read_exact(&mut chunk).ok()?;
                if n == 0 {
                    break;
                }
                buf.extend_from_slice(&chunk[..n]);
            }
        }
        Some((head, String::from_utf8_lossy(&buf).into_owned()))
    }
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(stream);
            let Some((mut head, mut body)) = read_request(&mut reader) else {
                continue;
            };
            // A client tunnels even plain HTTP through the proxy: the tunnel is granted, and the
            // request inside it is the one answered and recorded.
            if head.starts_with("CONNECT ") {
                let _ = reader
                    .get_mut()
                    .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n");
                let Some(inner) = read_request(&mut reader) else {
                    continue;
                };
                (head, body) = inner;
            }
            let reply = if head.contains("/api/embed") {
                let inputs = serde_json::from_str::<Value>(&body)
                    .ok()
                    .and_then(|v| v["input"].as_array().map(Vec::len))
                    .unwrap_or(1);
                let vectors: Vec<Vec<f32>> = (0..inputs)
                    .map(|i| (0..8).map(|d| ((i * 8 + d) % 7) as f32 + 1.0).collect())
                    .collect();
                json!({ "embeddings": vectors })
            } else {
                let summary = json!({
                    "session_summary": "Worked through the session's task.",
                    "open_questions": [], "key_decisions": [], "work_phase": "revision",
                    "answer": "No answer.", "citations": [],
                });
                json!({"model": "stand-in", "done": true,
                       "message": {"role": "assistant", "content": summary.to_string()}})
            }
            .to_string();
            record.lock().unwrap().push(format!("{head}\n{body}"));
            let reply = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{reply}",
                reply.len()
            );
            let _ = reader.into_inner().write_all(reply.as_bytes());
        }
    });
    (proxy, seen)
}

/// `elnor` with every request for a host off this machine sent through `proxy`.
fn elnor_via(proxy: &str, world: &World, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_elnor"))
        .arg("--store")
        .arg(&world.store)
        .args(args)
        .current_dir(&world.root)
        .env_remove("ELNOR_MEMORY")
        .env_remove("NO_PROXY")
        .env_remove("no_proxy")
        .env("HTTP_PROXY", proxy)
        .env("http_proxy", proxy)
        .env("ALL_PROXY", proxy)
        .stdin(Stdio::null())
        .output()
        .expect("run elnor")
}

/// Pieces of text that only `session`'s turns hold (not another session's), so finding one in a
/// request proves that session's content left: injected instructions many sessions share do
/// not count.
fn text_only_in(world: &World, session: &str) -> Vec<String> {
    let db = rusqlite::Connection::open(world.store.join("entity_graph.sqlite")).unwrap();
    let texts = |sql: &str| -> Vec<String> {
        db.prepare(sql)
            .unwrap()
            .query_map([session], |r| r.get(0))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap()
    };
    let mine = texts("SELECT text FROM turns WHERE session_id = ?1");
    let others = texts("SELECT text FROM turns WHERE session_id != ?1").join("\n");
    mine.iter()
        .filter_map(|t| {
            // A piece from the middle of the turn, where JSON escaping is least likely to
            // differ: plain words and spaces only.
            let words: Vec<&str> = t
                .split_whitespace()
                .filter(|w| w.chars().all(char::is_alphanumeric))
                .collect();
            (words.len() >= 6).then(|| words[..6].join(" "))
        })
        .filter(|piece| !others.contains(piece.as_str()))
        .collect()
}

#[test]
fn content_of_a_local_only_context_never_reaches_a_model_off_this_machine() {
    let world = World::ingested();
    let (proxy, seen) = off_machine_model();
    // The local-only context takes every session recorded under the first sample session's
    // folder.
    let list: Value = serde_json::from_str(&ok(elnor(
        &world.store,
        &world.root,
        &["--json", "sessions", "list", "--limit", "100"],
    )))
    .unwrap();
    let sessions = list["sessions"].as_array().unwrap();
    let cwd = sessions
        .iter()
        .find_map(|s| s["cwd"].as_str().filter(|c| !c.is_empty()))
        .expect("a sample session with a folder")
        .to_owned();
    let private: Vec<String> = sessions
        .iter()
        .filter(|s| s["cwd"].as_str() == Some(cwd.as_str()))
        .map(|s| s["session_id"].as_str().unwrap().to_owned())
        .collect();
    let public = sessions.len() - private.len();
    assert!(
        public > 0,
        "some sessions are not local-only, for the control"
    );
    ok(elnor(
        &world.store,
        &world.root,
        &[
            "contexts",
            "create",
            "Private work",
            "--local-only",
            "--cwd",
            &cwd,
        ],
    ));
    let secrets: Vec<String> = private
        .iter()
        .flat_map(|s| text_only_in(&world, s))
        .collect();
    assert!(
        secrets.len() >= 3,
        "the local-only sessions hold text of their own: {secrets:?}"
    );
    let host = "http://models.example.test:11434";
    for (k, v) in [
        ("mode", "full"),
        ("synthesis_provider", "ollama"),
        ("synthesis_base_url", host),
        ("synthesis_model", "stand-in"),
        ("embedding_provider", "ollama"),
        ("embedding_base_url", host),
        ("embedding_model", "stand-in"),
    ] {
        ok(elnor(&world.store, &world.root, &["config", "set", k, v]));
    }

    // Capture every session, embed every document, and ask for a synthesised answer over a
    // search that finds the local-only sessions' own words.
    let capture = elnor_via(&proxy, &world, &["capture", "--sweep", "--json"]);
    judge("capture", &capture);
    let captured = seen.lock().unwrap().len();
    assert!(
        captured > 0,
        "the control: sessions of other contexts reached the model through the proxy"
    );
    let embed = elnor_via(&proxy, &world, &["embed"]);
    judge("embed", &embed);
    let said = String::from_utf8_lossy(&embed.stdout).into_owned();
    assert!(
        said.contains("local-only work contexts were not sent"),
        "embed says what it kept: {said}\n{}\n{:?}",
        String::from_utf8_lossy(&embed.stderr),
        seen.lock()
            .unwrap()
            .iter()
            .map(|r| r.lines().take(8).collect::<Vec<_>>().join(" | "))
            .collect::<Vec<_>>()
    );
    assert!(
        seen.lock()
            .unwrap()
            .iter()
            .any(|r| r.contains("/api/embed")),
        "the control: other documents reached the embedder"
    );
    // The search is one word of theirs (the words a person types do go to the embedder; the
    // pieces checked below are six words long, so only the sessions' own text can hold them).
    let word = secrets[0]
        .split(' ')
        .max_by_key(|w| w.len())
        .unwrap()
        .to_owned();
    let query = elnor_via(
        &proxy,
        &world,
        &["query", &word, "--hours", "0", "--synthesis", "--json"],
    );
    judge("query --synthesis", &query);

    let requests = seen.lock().unwrap();
    for secret in &secrets {
        for r in requests.iter() {
            assert!(
                !r.contains(secret.as_str()),
                "a local-only session's words ({secret}) reached the model off this machine:\n{}",
                r.chars().take(400).collect::<String>()
            );
        }
    }
    eprintln!(
        "{} requests reached the model off this machine; none held any of {} pieces of the \
         local-only sessions' text",
        requests.len(),
        secrets.len()
    );
}
