//! The `elnor` binary on real temporary stores: output shapes, exit codes, and that failures
//! leave files untouched.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

fn elnor(store: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_elnor"))
        .arg("--store")
        .arg(store)
        .args(args)
        .env_remove("ELNOR_MEMORY")
        .output()
        .expect("run elnor")
}

/// Runs `elnor` with `input` on its stdin (hook input, `log append --stdin`).
fn elnor_stdin(store: &Path, args: &[&str], input: &[u8]) -> Output {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_elnor"))
        .arg("--store")
        .arg(store)
        .args(args)
        .env_remove("ELNOR_MEMORY")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run elnor");
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().expect("wait for elnor")
}

fn stdout_json(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("stdout is JSON")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn init_then_status_json_has_the_counts() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("new-store");
    let init = stdout_json(&elnor(&store, &["init", "--json"]));
    let latest = elnor_engine::latest_schema_version();
    assert_eq!(init["schema_version"], latest);

    let status = stdout_json(&elnor(&store, &["status", "--json"]));
    assert_eq!(
        status["store_path"],
        store.canonicalize().unwrap().display().to_string()
    );
    assert_eq!(status["schema_version"], latest);
    assert_eq!(status["log_schema_version"], 2);
    assert_eq!(status["entities"], 0);
    assert_eq!(status["work_contexts"], 0);
    assert_eq!(status["entries_total"], 0);
    let by_type = status["entries_by_type"].as_object().unwrap();
    assert_eq!(by_type.len(), 5);
    assert!(by_type.values().all(|n| n == 0));
    assert_eq!(status["config"]["mode"], "full");
    assert_eq!(status["config_error"], Value::Null);
}

#[test]
fn human_status_names_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let out = elnor(dir.path(), &["status"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let latest = elnor_engine::latest_schema_version();
    assert!(
        text.contains(&format!("schema version   {latest} ")),
        "{text}"
    );
    assert!(text.contains("mode             full"), "{text}");
}

#[test]
fn log_append_and_tail_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let s = dir.path();
    for (kind, text) in [
        ("open_question", "Which exhibit goes first?"),
        ("key_decision", "Lead with price impact"),
        ("work_phase_change", "drafting"),
    ] {
        let out = elnor(
            s,
            &["log", "append", "henderson", kind, text, "--entity", "e1"],
        );
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let tail = stdout_json(&elnor(
        s,
        &["log", "tail", "henderson", "-n", "2", "--json"],
    ));
    let entries = tail["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[0]["entry_type"], "key_decision");
    assert_eq!(entries[0]["content"]["decision"], "Lead with price impact");
    assert_eq!(entries[0]["linked_entity_ids"][0], "e1");
    assert_eq!(entries[1]["content"]["new_phase"], "drafting");
    assert_eq!(entries[1]["schema_version"], 2);

    let status = stdout_json(&elnor(s, &["status", "--json"]));
    assert_eq!(status["entries_total"], 3);
    assert_eq!(status["entries_by_type"]["open_question"], 1);
    assert_eq!(status["work_contexts"], 1);

    // A whole entry from stdin is validated like any other.
    let mut line = entries[0].clone();
    line["entry_id"] = "ce_from_stdin".into();
    let mut child = Command::new(env!("CARGO_BIN_EXE_elnor"))
        .args([
            "--store",
            s.to_str().unwrap(),
            "log",
            "append",
            "henderson",
            "--stdin",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(line.to_string().as_bytes())
        .unwrap();
    assert!(child.wait().unwrap().success());
    let tail = stdout_json(&elnor(
        s,
        &["log", "tail", "henderson", "-n", "1", "--json"],
    ));
    assert_eq!(tail["entries"][0]["entry_id"], "ce_from_stdin");
}

#[test]
fn bad_config_value_exits_3_naming_field_and_range_and_leaves_file() {
    let dir = tempfile::tempdir().unwrap();
    let s = dir.path();
    assert!(elnor(s, &["init"]).status.success());
    let path = s.join("config/continuity_config.json");
    let before = std::fs::read(&path).unwrap();
    let out = elnor(s, &["config", "set", "max_session_history_window", "40"]);
    assert_eq!(out.status.code(), Some(3));
    let err = stderr(&out);
    assert!(err.contains("max_session_history_window"), "{err}");
    assert!(err.contains("from 3 to 25"), "{err}");
    assert!(err.contains("continuity_config.json"), "{err}");
    assert_eq!(std::fs::read(&path).unwrap(), before);

    let out = elnor(s, &["config", "set", "mode", "deterministic", "--json"]);
    assert_eq!(stdout_json(&out)["value"], "deterministic");
    let out = elnor(s, &["config", "get", "mode"]);
    assert_eq!(
        String::from_utf8(out.stdout).unwrap().trim(),
        "deterministic"
    );
}

#[test]
fn corrupt_config_is_reported_by_field_and_never_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let s = dir.path();
    assert!(elnor(s, &["init"]).status.success());
    let path = s.join("config/continuity_config.json");
    let broken = "{\"schema_version\": 2, \"idle_trigger_minutes\": 0}";
    std::fs::write(&path, broken).unwrap();

    let out = elnor(s, &["status", "--json"]);
    assert_eq!(out.status.code(), Some(3));
    let status: Value = serde_json::from_slice(&out.stdout).unwrap();
    let err = status["config_error"].as_str().unwrap();
    assert!(err.contains("field `idle_trigger_minutes`"), "{err}");
    assert!(err.contains("from 1 to 10080"), "{err}");

    for args in [
        &["config", "get"][..],
        &["config", "set", "mode", "off"],
        &["init"],
    ] {
        let out = elnor(s, args);
        assert!(!out.status.success(), "{args:?} should fail");
        assert!(
            stderr(&out).contains("idle_trigger_minutes"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    assert_eq!(std::fs::read_to_string(&path).unwrap(), broken);

    std::fs::write(&path, "{ truncated").unwrap();
    let out = elnor(s, &["config", "get", "--json"]);
    assert_eq!(out.status.code(), Some(3));
    let err: Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(err["error"]["kind"], "config");
    assert!(
        err["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not valid JSON")
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "{ truncated");
}

#[test]
fn torn_log_line_is_repaired_and_kept_aside() {
    let dir = tempfile::tempdir().unwrap();
    let s = dir.path();
    assert!(
        elnor(s, &["log", "append", "wc1", "open_question", "first?"])
            .status
            .success()
    );
    let log = s.join("continuity/wc1.jsonl");
    let mut bytes = std::fs::read(&log).unwrap();
    let partial = b"{\"entry_id\":\"ce_half\",\"entry_ty";
    bytes.extend_from_slice(partial);
    std::fs::write(&log, &bytes).unwrap();

    let read = stdout_json(&elnor(s, &["log", "tail", "wc1", "--json"]));
    assert_eq!(read["entries"].as_array().unwrap().len(), 1);
    let aside = read["repair"]["preserved_at"].as_str().unwrap();
    assert_eq!(std::fs::read(aside).unwrap(), partial);
}

#[test]
fn invalid_input_exits_4() {
    let dir = tempfile::tempdir().unwrap();
    let s = dir.path();
    let out = elnor(s, &["log", "append", "../escape", "open_question", "x"]);
    assert_eq!(out.status.code(), Some(4));
    assert!(stderr(&out).contains("work context id"));
    assert!(!s.join("escape.jsonl").exists());
    let out = elnor(s, &["config", "get", "colour"]);
    assert_eq!(out.status.code(), Some(4));
    let out = elnor(s, &["log", "append", "wc", "work_phase_change", "dancing"]);
    assert_eq!(out.status.code(), Some(4));
    assert!(stderr(&out).contains("unknown work phase"));
}

#[test]
fn store_defaults_to_elnor_memory() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_elnor"))
        .args(["status", "--json"])
        .env("ELNOR_MEMORY", dir.path())
        .output()
        .unwrap();
    let status = stdout_json(&out);
    assert_eq!(
        status["store_path"],
        dir.path().canonicalize().unwrap().display().to_string()
    );
}

#[test]
fn ingest_then_sessions_list_show_summarize() {
    let dir = tempfile::tempdir().unwrap();
    let s = dir.path();
    let Some(f) = elnor_fixtures::transcripts() else {
        return;
    };
    let roots = [
        format!("openclaw={}", f.join("openclaw").display()),
        format!("claude_code={}", f.join("claude-code").display()),
        format!("codex={}", f.join("codex").display()),
    ];
    let mut args = vec!["ingest", "--json"];
    for r in &roots {
        args.extend(["--root", r.as_str()]);
    }
    let report = stdout_json(&elnor(s, &args));
    assert_eq!(report["records_added"], 454);
    assert_eq!(report["turns_added"], 258);
    assert_eq!(report["problems"].as_array().unwrap().len(), 0);
    let again = stdout_json(&elnor(s, &args));
    assert_eq!(again["records_added"], 0);
    assert_eq!(again["files_unchanged"], 11);

    let list = stdout_json(&elnor(
        s,
        &["sessions", "list", "--json", "--harness", "codex"],
    ));
    let sessions = list["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 4);
    assert!(sessions.iter().all(|x| x["agent_id"] == "codex"));

    let id = "ae4a77f8-aedd-4bc1-888f-c94edc91af04";
    let t = stdout_json(&elnor(
        s,
        &["sessions", "show", id, "--json", "--max-tokens", "100000"],
    ));
    assert_eq!(t["session_id"], id);
    assert_eq!(t["agent_id"], "claude-code");
    assert!(
        t["turns"]
            .as_array()
            .unwrap()
            .iter()
            .any(|x| x["kind"] == "compaction")
    );
    let small = stdout_json(&elnor(
        s,
        &["sessions", "show", id, "--json", "--max-tokens", "300"],
    ));
    assert_eq!(small["truncated"], true);
    assert!(
        small["continuation_hint"]
            .as_str()
            .unwrap()
            .contains("before_seq=")
    );

    let sum = stdout_json(&elnor(s, &["sessions", "summarize", id, "--json"]));
    assert_eq!(sum["source"], "on_demand_generated");
    assert!(
        sum["summary"]
            .as_str()
            .unwrap()
            .contains("Compacted 1 time(s)")
    );

    for hostile in ["../../etc/passwd", "/etc/passwd"] {
        let out = elnor(s, &["sessions", "show", hostile]);
        assert_eq!(out.status.code(), Some(4), "{hostile}");
        assert!(
            stderr(&out).contains("invalid session id"),
            "{}",
            stderr(&out)
        );
    }
    let out = elnor(s, &["sessions", "summarize", "nope"]);
    assert_eq!(out.status.code(), Some(4));
}

#[test]
fn sources_can_be_added_and_disabled() {
    let dir = tempfile::tempdir().unwrap();
    let s = dir.path();
    let root = s.join("codex-sessions");
    std::fs::create_dir_all(&root).unwrap();
    let root = root.to_str().unwrap();
    assert!(
        elnor(s, &["sources", "add", "codex", root])
            .status
            .success()
    );
    let list = stdout_json(&elnor(s, &["sources", "disable", "codex", root, "--json"]));
    let row = list
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["root"] == root)
        .unwrap()
        .clone();
    assert_eq!(
        (row["enabled"].clone(), row["exists"].clone()),
        (false.into(), true.into())
    );
    let out = elnor(s, &["sources", "add", "vim", root]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("unknown harness"));
}

/// `--root` arguments for the shared corpus's transcripts, or `None` without the corpus.
fn fixture_roots() -> Option<Vec<String>> {
    let base = elnor_fixtures::transcripts()?;
    Some(
        [
            ("openclaw", "openclaw"),
            ("claude_code", "claude-code"),
            ("codex", "codex"),
        ]
        .iter()
        .flat_map(|(h, d)| {
            [
                "--root".to_owned(),
                format!("{h}={}", base.join(d).display()),
            ]
        })
        .collect(),
    )
}

/// Issue 4: a work context made from the CLI with a cwd rule receives the session that `watch`
/// ingests and captures, with heuristic questions and decisions marked as such.
#[test]
fn contexts_create_then_watch_once_captures_into_the_linked_context() {
    let Some(roots) = fixture_roots() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path();
    assert!(
        elnor(store, &["config", "set", "mode", "deterministic"])
            .status
            .success()
    );
    let wc = stdout_json(&elnor(
        store,
        &[
            "contexts",
            "create",
            "Spotter OTEL",
            "--cwd",
            "/home/USER/projects/spotter-worktrees",
            "--json",
        ],
    ));
    assert_eq!(wc["work_context_id"], "wc_spotter_otel");
    // The person's rule for the other spotter folder, where a session ends on an open question.
    stdout_json(&elnor(
        store,
        &[
            "contexts",
            "create",
            "Spotter",
            "--cwd",
            "/home/marco/projects/spotter",
            "--json",
        ],
    ));
    let mut args: Vec<String> = vec!["watch".into(), "--once".into(), "--json".into()];
    args.extend(roots.iter().cloned());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = stdout_json(&elnor(store, &args));
    let captured: Vec<&str> = run["captures"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["work_context_id"] == "wc_spotter_otel")
        .map(|c| c["session_id"].as_str().unwrap())
        .collect();
    assert!(
        captured.contains(&"ae4a77f8-aedd-4bc1-888f-c94edc91af04"),
        "{captured:?}"
    );
    let show = elnor(store, &["contexts", "show", "wc_spotter_otel"]);
    let text = String::from_utf8_lossy(&show.stdout);
    assert!(text.contains("session_summary_ref"), "{text}");
    // Since issue 14 the detectors keep only strong cues; the fixture's one open question is in
    // the other spotter session, marked as heuristic.
    let show = elnor(store, &["contexts", "show", "wc_spotter"]);
    let text = String::from_utf8_lossy(&show.stdout);
    assert!(text.contains("open_question"), "{text}");
    assert!(text.contains("(heuristic, reduced confidence)"), "{text}");
    // Nothing new: a manual capture of the same session writes nothing.
    let again = stdout_json(&elnor(
        store,
        &[
            "capture",
            "--session",
            "ae4a77f8-aedd-4bc1-888f-c94edc91af04",
            "--json",
        ],
    ));
    assert_eq!(again["status"], "nothing_new");
}

#[test]
fn entities_add_edit_merge_and_bad_input_exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path();
    let e = stdout_json(&elnor(
        store,
        &["entities", "add", "Henderson", "--kind", "matter", "--json"],
    ));
    assert_eq!(e["entity_id"], "ent_henderson");
    stdout_json(&elnor(
        store,
        &["entities", "add", "Marex", "--kind", "matter", "--json"],
    ));
    let merged = stdout_json(&elnor(
        store,
        &["entities", "merge", "ent_henderson", "ent_marex", "--json"],
    ));
    assert_eq!(merged["aliases"], serde_json::json!(["Marex"]));
    let dup = elnor(store, &["entities", "add", "marex"]);
    assert_eq!(dup.status.code(), Some(4));
    assert!(stderr(&dup).contains("already belongs to entity ent_henderson"));
    let bad = elnor(store, &["entities", "add", "X", "--deadline", "soon"]);
    assert_eq!(bad.status.code(), Some(4));
    let missing = elnor(store, &["contexts", "show", "wc_nope"]);
    assert_eq!(missing.status.code(), Some(4));
}

#[test]
fn capture_in_off_mode_writes_nothing() {
    let Some(roots) = fixture_roots() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path();
    let mut args: Vec<String> = vec!["ingest".into()];
    args.extend(roots.iter().cloned());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    assert!(elnor(store, &args).status.success());
    assert!(
        elnor(store, &["config", "set", "mode", "off"])
            .status
            .success()
    );
    let out = stdout_json(&elnor(store, &["capture", "--json"]));
    assert!(
        out["captures"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["status"] == "off")
    );
    assert_eq!(
        std::fs::read_dir(store.join("continuity")).unwrap().count(),
        0
    );
}

/// A one-route HTTP server playing an OpenAI-compatible endpoint: answers every request with
/// `body` and records what it was sent.
fn stand_in(body: String) -> (String, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
    use std::io::{BufRead, BufReader, Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let record = seen.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(stream);
            let mut head = String::new();
            let mut length = 0;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
                head.push_str(&line);
            }
            let mut buf = vec![0; length];
            let _ = reader.read_exact(&mut buf);
            record
                .lock()
                .unwrap()
                .push(head + &String::from_utf8_lossy(&buf));
            let reply = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = reader.into_inner().write_all(reply.as_bytes());
        }
    });
    (base, seen)
}

/// Issue 4: the API key lives only in the OS keyring. It is read from stdin into the real Secret
/// Service, sent to the endpoint as a bearer token, and appears in no file of the store, no
/// output line and no log line, whether the call succeeds or the model misbehaves. Needs a
/// running Secret Service: `scripts/test.sh` runs it inside `dbus-run-session` with gnome-keyring
/// and a temporary HOME.
#[test]
#[ignore = "needs a Secret Service (run by scripts/test.sh under dbus-run-session)"]
fn an_api_key_never_leaves_the_keyring() {
    let Some(roots) = fixture_roots() else {
        return;
    };
    use std::io::Write;
    const KEY: &str = "sk-elnor-test-7f3a9c1e-never-on-disk";
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path();
    let run = |args: &[&str], stdin: Option<&str>| -> Output {
        let mut child = Command::new(env!("CARGO_BIN_EXE_elnor"))
            .arg("--store")
            .arg(store)
            .args(args)
            .env("ELNOR_LOG", "trace")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        if let Some(input) = stdin {
            child
                .stdin
                .take()
                .unwrap()
                .write_all(input.as_bytes())
                .unwrap();
        }
        drop(child.stdin.take());
        child.wait_with_output().unwrap()
    };
    let mut outputs = Vec::new();
    let set = run(&["model", "key", "set"], Some(KEY));
    assert!(set.status.success(), "{}", stderr(&set));
    outputs.push(set);
    let good = serde_json::json!({
        "choices": [{"message": {"role": "assistant", "content": serde_json::json!({
            "session_summary": "Wired OTEL tracing; commit blocked by Dialyzer.",
            "open_questions": [], "key_decisions": [], "work_phase": "revision"
        }).to_string()}, "finish_reason": "stop"}]
    });
    let bad = serde_json::json!({"choices": [{"message": {"content": format!("not json {KEY}")}}]});
    let mut ingest: Vec<String> = vec!["ingest".into()];
    ingest.extend(roots.iter().cloned());
    let ingest: Vec<&str> = ingest.iter().map(String::as_str).collect();
    outputs.push(run(&ingest, None));
    for (body, session) in [
        (good.to_string(), "ae4a77f8-aedd-4bc1-888f-c94edc91af04"),
        (bad.to_string(), "019e1695-0522-7c83-8b39-0dd379793f80"),
    ] {
        let (base, seen) = stand_in(body);
        for (k, v) in [
            ("mode", "full"),
            ("synthesis_provider", "openai_compatible"),
            ("synthesis_base_url", base.as_str()),
            ("synthesis_model", "test-model"),
        ] {
            outputs.push(run(&["config", "set", k, v], None));
        }
        let out = run(&["capture", "--session", session, "--json"], None);
        assert!(out.status.success(), "{}", stderr(&out));
        let headers = seen.lock().unwrap().join("\n");
        assert!(
            headers.contains(&format!("Bearer {KEY}")),
            "the key reached the endpoint"
        );
        outputs.push(out);
    }
    let show = run(&["model", "show"], None);
    assert!(String::from_utf8_lossy(&show.stdout).contains("stored in the OS keyring"));
    outputs.push(show);
    // What a sync pushes: every object the remote holds, uncompressed, is read for the key.
    let remote = tempfile::tempdir().unwrap();
    assert!(
        elnor_fixtures::bare_git_remote(remote.path()),
        "no git on PATH"
    );
    let url = remote.path().display().to_string();
    let synced = run(
        &["sync", "--remote", &url, "--owner", "dana", "--json"],
        None,
    );
    assert!(synced.status.success(), "{}", stderr(&synced));
    let objects = Command::new("git")
        .arg("-C")
        .arg(remote.path())
        .args(["cat-file", "--batch-all-objects", "--batch"])
        .output()
        .unwrap();
    assert!(objects.status.success() && objects.stdout.len() > 1000);
    assert!(
        !objects
            .stdout
            .windows(KEY.len())
            .any(|w| w == KEY.as_bytes()),
        "the key was pushed"
    );
    outputs.push(synced);
    for out in &outputs {
        for stream in [&out.stdout, &out.stderr] {
            assert!(
                !String::from_utf8_lossy(stream).contains(KEY),
                "the key appeared in output: {}",
                String::from_utf8_lossy(stream)
            );
        }
    }
    for entry in walk(store) {
        let bytes = std::fs::read(&entry).unwrap();
        assert!(
            !bytes.windows(KEY.len()).any(|w| w == KEY.as_bytes()),
            "the key is in {}",
            entry.display()
        );
    }
    assert!(run(&["model", "key", "clear"], None).status.success());
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// Without a reachable Secret Service the key is refused with a message saying what to do, and
/// nothing is written anywhere else.
#[test]
fn a_missing_keyring_is_a_clear_error_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path();
    let mut child = Command::new(env!("CARGO_BIN_EXE_elnor"))
        .arg("--store")
        .arg(store)
        .args(["model", "key", "set"])
        .env(
            "DBUS_SESSION_BUS_ADDRESS",
            "unix:path=/nonexistent/elnor-test-bus",
        )
        .env_remove("DISPLAY")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"sk-should-not-be-stored")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains("keyring"), "{err}");
    assert!(err.contains("unlock"), "{err}");
    assert!(!err.contains("sk-should-not-be-stored"));
    for f in walk(store) {
        let bytes = std::fs::read(&f).unwrap();
        assert!(
            !bytes.windows(10).any(|w| w == b"sk-should-"),
            "{}",
            f.display()
        );
    }
}

/// Issue 5: `elnor brief` as a SessionStart hook. The hook form is the documented JSON with
/// nothing else on stdout; a `--dry-run` preview delivers nothing, a real run marks the update it
/// showed delivered, and the next brief says why the update is gone.
#[test]
fn brief_hook_output_delivery_and_traces() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path();
    for args in [
        &[
            "log",
            "append",
            "henderson",
            "open_question",
            "Check the data timeline with Christensen",
            "--session",
            "demo-1",
        ][..],
        &[
            "log",
            "append",
            "henderson",
            "cross_conversation_update",
            "DOC72 changed in another conversation",
            "--session",
            "other-1",
        ][..],
        &["facts", "add", "Prefers direct answers."][..],
    ] {
        let out = elnor(store, args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    }
    let preview = stdout_json(&elnor(
        store,
        &["brief", "--context", "henderson", "--dry-run", "--json"],
    ));
    assert_eq!(preview["delivery"], "preview");
    assert_eq!(preview["delivered_updates"], serde_json::json!([]));
    let tier1 = &preview["tiers"][0];
    assert_eq!(tier1["tag"], "resume");
    assert!(
        tier1["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["kind"] == "update" && i["source_id"].as_str().is_some()),
        "{tier1}"
    );
    assert!(preview["total_tokens"].as_u64().unwrap() <= 420);
    assert_eq!(
        preview["output_tokens"].as_u64().unwrap(),
        preview["total_tokens"].as_u64().unwrap() + preview["envelope_tokens"].as_u64().unwrap()
    );

    // The hook reads its input from stdin, as Claude Code and Codex pass it.
    let out = elnor_stdin(
        store,
        &["brief", "--context", "henderson", "--format", "claude-code", "--hook-stdin"],
        br#"{"session_id":"new-1","cwd":"/tmp","hook_event_name":"SessionStart","source":"startup","transcript_path":"/tmp/t.jsonl"}"#,
    );
    let hook = stdout_json(&out);
    let keys: Vec<&String> = hook.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["hookSpecificOutput"]);
    let specific = hook["hookSpecificOutput"].as_object().unwrap();
    let mut inner: Vec<&String> = specific.keys().collect();
    inner.sort();
    assert_eq!(inner, ["additionalContext", "hookEventName"]);
    assert_eq!(specific["hookEventName"], "SessionStart");
    let context = specific["additionalContext"].as_str().unwrap();
    assert!(context.starts_with("Today is "), "{context}");
    assert!(
        context.contains("<card type=\"continuity\" tag=\"resume\">"),
        "{context}"
    );
    assert!(
        context.contains("DOC72 changed in another conversation"),
        "{context}"
    );
    assert!(
        context.contains("<card type=\"living_memory\" tag=\"living_memory\">"),
        "{context}"
    );

    // Delivered: the next brief leaves the update out and the trace says why.
    let after = stdout_json(&elnor(
        store,
        &[
            "brief",
            "--context",
            "henderson",
            "--dry-run",
            "--explain",
            "--json",
        ],
    ));
    assert_eq!(
        after["stale"], false,
        "the hook rebuilt the view after its output"
    );
    assert!(!after["text"].as_str().unwrap().contains("DOC72 changed"));
    let why = after["trace"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["kind"] == "update")
        .expect("the delivered update is in the trace");
    assert_eq!(
        (&why["decision"], &why["reason"]),
        (&"excluded".into(), &"delivered".into())
    );

    let list = stdout_json(&elnor(store, &["traces", "list", "--json"]));
    assert_eq!(list.as_array().unwrap().len(), 3);
    assert_eq!(list[1]["delivery"], "delivered");
    let id = list[0]["assembly_id"].as_i64().unwrap().to_string();
    let shown = stdout_json(&elnor(store, &["traces", "show", &id, "--json"]));
    assert!(shown["items"].as_array().unwrap().len() >= 4);

    // A budget outside 1..=420 is invalid input.
    let bad = elnor(store, &["brief", "--budget", "500"]);
    assert_eq!(bad.status.code(), Some(4), "{}", stderr(&bad));
    assert!(stderr(&bad).contains("from 1 to 420"), "{}", stderr(&bad));
}

/// Issue 6 (engine slice): the nightly job proposes an obligation for a question unresolved for
/// 14 days and linked to an entity with a deadline; approving it in the person's words writes the
/// node, and the queue is empty after.
#[test]
fn nightly_proposes_and_review_approves_with_an_edit() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path();
    assert!(
        elnor(store, &["config", "set", "mode", "deterministic"])
            .status
            .success()
    );
    let entity = stdout_json(&elnor(
        store,
        &[
            "entities",
            "add",
            "Christensen report",
            "--kind",
            "document",
            "--deadline",
            "2030-12-15",
            "--json",
        ],
    ));
    let captured = (chrono::Utc::now() - chrono::Duration::days(20)).to_rfc3339();
    let entry = serde_json::json!({
        "entry_id": "ce_question_1",
        "entry_type": "open_question",
        "source_session_id": "s1",
        "captured_at": captured,
        "capture_mode": "llm_enriched",
        "content": {"question": "When does Christensen deliver the data?"},
        "decay_at": "2099-01-01T00:00:00Z",
        "linked_entity_ids": [entity["entity_id"]],
        "work_context_id": "henderson",
        "schema_version": 2
    });
    let out = elnor_stdin(
        store,
        &["log", "append", "henderson", "--stdin"],
        entry.to_string().as_bytes(),
    );
    assert!(out.status.success(), "{}", stderr(&out));

    let report = stdout_json(&elnor(store, &["nightly", "--json"]));
    assert_eq!(
        report["promotions"]["proposed"].as_array().unwrap().len(),
        1,
        "{report}"
    );
    let again = stdout_json(&elnor(store, &["nightly", "--json"]));
    assert_eq!(
        again["promotions"]["proposed"],
        serde_json::json!([]),
        "idempotent"
    );

    let queue = stdout_json(&elnor(store, &["review", "list", "--json"]));
    let id = queue[0]["proposal_id"].as_i64().unwrap().to_string();
    assert_eq!(queue[0]["node_kind"], "obligation");
    assert!(
        queue[0]["evidence"]["because"]
            .as_str()
            .unwrap()
            .contains("due 2030-12-15")
    );
    let approved = stdout_json(&elnor(
        store,
        &[
            "review",
            "approve",
            &id,
            "--text",
            "Chase Christensen for the data",
            "--json",
        ],
    ));
    assert_eq!(approved[0]["status"], "approved");
    assert!(approved[0]["node_id"].as_str().unwrap().starts_with("ob_"));
    assert_eq!(
        stdout_json(&elnor(store, &["review", "list", "--json"])),
        serde_json::json!([])
    );
    let twice = elnor(store, &["review", "approve", &id]);
    assert_eq!(twice.status.code(), Some(4), "{}", stderr(&twice));

    // The node, at warrant `assert`, is a Due line of the context's next brief.
    let node = approved[0]["node_id"].as_str().unwrap().to_owned();
    let live = stdout_json(&elnor(store, &["nodes", "list", "--json"]));
    assert_eq!(
        (
            &live[0]["node_id"],
            &live[0]["warrant"],
            &live[0]["lifecycle"]
        ),
        (
            &serde_json::json!(node),
            &serde_json::json!("assert"),
            &serde_json::json!("active")
        )
    );
    let brief = |store| {
        let b = stdout_json(&elnor(
            store,
            &[
                "brief",
                "--context",
                "henderson",
                "--dry-run",
                "--format",
                "json",
                "--explain",
            ],
        ));
        b["trace"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["source_id"] == serde_json::json!(node))
            .cloned()
            .unwrap()
    };
    let shown = brief(store);
    assert_eq!(shown["decision"], "included", "{shown}");
    assert!(
        shown["text"]
            .as_str()
            .unwrap()
            .ends_with("Chase Christensen for the data")
    );
    // Hedged by the person: the brief says so.
    let out = elnor(
        store,
        &[
            "nodes",
            "warrant",
            &node,
            "hedge",
            "--reason",
            "date may move",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let hedged = brief(store);
    assert!(
        hedged["text"]
            .as_str()
            .unwrap()
            .starts_with("(possibly outdated) Due 2030-12-15")
    );
    assert!(
        hedged["detail"]
            .as_str()
            .unwrap()
            .ends_with("shown at warrant hedge: date may move")
    );
    // Retired: it leaves the next brief, and the trace says why.
    let out = elnor(
        store,
        &[
            "nodes",
            "retire",
            &node,
            "--reason",
            "Christensen delivered",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let gone = brief(store);
    assert_eq!(
        (&gone["decision"], &gone["reason"]),
        (
            &serde_json::json!("excluded"),
            &serde_json::json!("retired")
        )
    );
    assert!(
        gone["detail"]
            .as_str()
            .unwrap()
            .ends_with(": Christensen delivered"),
        "{gone}"
    );
    // Nothing was deleted, and a retired node cannot be edited.
    assert_eq!(
        stdout_json(&elnor(store, &["nodes", "list", "--json"])),
        serde_json::json!([])
    );
    let detail = stdout_json(&elnor(store, &["nodes", "show", &node, "--json"]));
    let actions: Vec<&str> = detail["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["approved", "warrant", "retired"]);
    let refused = elnor(store, &["nodes", "edit", &node, "new text"]);
    assert!(!refused.status.success());
    assert!(
        stderr(&refused).contains("is retired; it cannot be edited"),
        "{}",
        stderr(&refused)
    );
    let bad = elnor(store, &["nodes", "warrant", &node, "maybe"]);
    assert!(
        stderr(&bad).contains("unknown use warrant `maybe`"),
        "{}",
        stderr(&bad)
    );
}

#[test]
fn push_folders_watch_observations_and_timeline() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let docs = dir.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::write(docs.join("brief.md"), "# Henderson brief\n").unwrap();
    assert!(
        elnor(&store, &["config", "set", "mode", "deterministic"])
            .status
            .success()
    );
    assert!(
        elnor(
            &store,
            &["entities", "add", "Henderson", "--kind", "matter"]
        )
        .status
        .success()
    );
    let wc = stdout_json(&elnor(
        &store,
        &[
            "contexts",
            "create",
            "Henderson damages",
            "--entity",
            "ent_henderson",
            "--json",
        ],
    ));
    assert_eq!(wc["work_context_id"], "wc_henderson_damages");
    // A push naming Henderson reaches the context that references Henderson.
    let pushed = stdout_json(&elnor(
        &store,
        &[
            "push",
            "Called Henderson about the settlement",
            "--entity",
            "Legal team",
            "--json",
        ],
    ));
    assert_eq!(pushed["observation"]["updates_written"], 1);
    assert_eq!(pushed["entities_created"][0], "Legal team");
    let brief = elnor(&store, &["brief", "--context", "wc_henderson_damages"]);
    let text = String::from_utf8_lossy(&brief.stdout);
    assert!(
        text.contains("You noted: Called Henderson about the settlement"),
        "{text}"
    );
    // Bad pushes are invalid input.
    assert_eq!(elnor(&store, &["push", "  "]).status.code(), Some(4));
    assert_eq!(
        elnor(&store, &["push", "x", "--context", "wc_nope"])
            .status
            .code(),
        Some(4)
    );
    // A tracked folder, watched by `elnor watch`: an edit becomes an observation.
    let docs_arg = docs.to_str().unwrap();
    assert!(
        elnor(&store, &["folders", "add", docs_arg])
            .status
            .success()
    );
    let mut watch = Command::new(env!("CARGO_BIN_EXE_elnor"))
        .arg("--store")
        .arg(&store)
        .args(["watch", "--root", "codex=/nonexistent", "--interval", "1"])
        .env_remove("ELNOR_MEMORY")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let files_remembered = || {
        stdout_json(&elnor(&store, &["folders", "list", "--json"]))["files_remembered"]
            .as_u64()
            .unwrap()
    };
    let start = std::time::Instant::now();
    while files_remembered() == 0 && start.elapsed().as_secs() < 20 {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    std::fs::write(
        docs.join("brief.md"),
        "# Henderson brief\n\nSent to legal.\n",
    )
    .unwrap();
    let observed = || {
        stdout_json(&elnor(
            &store,
            &["observations", "list", "--source", "file", "--json"],
        ))
        .as_array()
        .unwrap()
        .len()
    };
    while observed() == 0 && start.elapsed().as_secs() < 20 {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    watch.kill().unwrap();
    watch.wait().unwrap();
    let list = stdout_json(&elnor(&store, &["observations", "list", "--json"]));
    let kinds: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["modified", "pushed"]);
    let timeline = stdout_json(&elnor(
        &store,
        &[
            "timeline",
            "--kind",
            "push",
            "--kind",
            "observation",
            "--json",
        ],
    ));
    let titles: Vec<&str> = timeline["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["title"].as_str().unwrap())
        .collect();
    assert_eq!(
        titles,
        [
            "Henderson brief edited",
            "Called Henderson about the settlement"
        ]
    );
    assert_eq!(
        elnor(&store, &["timeline", "--kind", "nope"]).status.code(),
        Some(4)
    );
}

/// The clock override for replays: `--now` and `ELNOR_NOW` set "now" for every verb (the brief's
/// date line says it), `--now` wins, and a value that is not RFC 3339 exits 4 with nothing done.
#[test]
fn now_override_sets_the_clock_and_bad_values_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path();
    let brief = |env: Option<&str>, flag: Option<&str>| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_elnor"));
        cmd.arg("--store").arg(store).env_remove("ELNOR_MEMORY");
        match env {
            Some(v) => cmd.env("ELNOR_NOW", v),
            None => cmd.env_remove("ELNOR_NOW"),
        };
        cmd.args(["brief", "--dry-run", "--json"]);
        if let Some(f) = flag {
            cmd.args(["--now", f]);
        }
        cmd.output().expect("run elnor")
    };
    let from_env = stdout_json(&brief(Some("2025-03-04T12:00:00Z"), None));
    assert_eq!(from_env["today"], "2025-03-04");
    let from_flag = stdout_json(&brief(
        Some("2025-03-04T12:00:00Z"),
        Some("2024-12-31T12:00:00Z"),
    ));
    assert_eq!(from_flag["today"], "2024-12-31");
    let bad = brief(Some("yesterday"), None);
    assert_eq!(bad.status.code(), Some(4), "{}", stderr(&bad));
    assert!(stderr(&bad).contains("RFC 3339"), "{}", stderr(&bad));
}

/// A new user's first run over the project's own samples (every checkout has them), through the
/// binary: no context made by hand, one project found across Claude Code and Codex, and a new
/// session there the next morning gets a resume card with the work's open items.
#[test]
fn a_first_run_over_the_samples_gives_a_new_session_its_resume_card() {
    let dir = tempfile::tempdir().unwrap();
    let s = dir.path();
    let f = elnor_fixtures::samples();
    let ok = |out: Output| {
        assert!(out.status.success(), "{}", stderr(&out));
        String::from_utf8(out.stdout).unwrap()
    };
    ok(elnor(s, &["config", "set", "mode", "deterministic"]));
    let roots = [
        format!("openclaw={}", f.join("openclaw/agents").display()),
        format!("claude_code={}", f.join("claude-code").display()),
        format!("codex={}", f.join("codex").display()),
    ];
    let at = ["--now", "2026-11-03T09:00:00Z"];
    let mut watch = vec![at[0], at[1], "watch", "--once"];
    for r in &roots {
        watch.extend(["--root", r.as_str()]);
    }
    ok(elnor(s, &watch));
    let overview = ok(elnor(s, &[at[0], at[1], "contexts", "overview"]));
    let names: Vec<&str> = overview
        .lines()
        .filter(|l| !l.starts_with(' '))
        .filter_map(|l| l.split("  [").next())
        .collect();
    assert_eq!(names, ["workspace-henderson", "ledger-sync"], "{overview}");
    let brief = ok(elnor(
        s,
        &[
            at[0],
            at[1],
            "brief",
            "--cwd",
            "/home/dana/code/ledger-sync",
            "--dry-run",
        ],
    ));
    let card = brief
        .split("<card type=\"continuity\" tag=\"resume\">")
        .nth(1)
        .and_then(|c| c.split("</card>").next())
        .unwrap_or_else(|| panic!("no resume card in:\n{brief}"));
    assert!(card.contains("ledger-sync — drafting phase."), "{card}");
    // What was done last, named by its request and the file it changed (Last), and what is
    // next from the agent's own report (Next).
    assert!(
        card.contains("Last (Thu Oct 29): \"Write the regression test")
            && card.contains("refresh_mid_batch.rs")
            && card.contains("\nNext: Run the test against the staging server"),
        "{card}"
    );
    assert!(
        !card.contains("AGENTS.md") && !card.contains("HEARTBEAT"),
        "injected text in {card}"
    );
}

/// Arguments clap accepts but that do not make a command are usage errors too: exit 2 (never 1,
/// which means a bug), with kind `usage` under `--json`, and nothing written.
#[test]
fn usage_errors_exit_2_whether_clap_or_the_command_refuses_them() {
    let dir = tempfile::tempdir().unwrap();
    let s = dir.path();
    for args in [
        &["frobnicate"][..],
        &["ingest", "--root", "not-a-harness-spec"],
        &["log", "append", "wc_x"],
    ] {
        let out = elnor(s, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
    }
    // One wording for two proposals is the engine's refusal (invalid input), in every adapter.
    let out = elnor(s, &["review", "approve", "1", "2", "--text", "one wording"]);
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert!(stderr(&out).contains("rewords one proposal"));
    let out = elnor(s, &["--json", "ingest", "--root", "not-a-harness-spec"]);
    assert_eq!(out.status.code(), Some(2));
    let err: Value = serde_json::from_str(stderr(&out).trim()).expect("a JSON error");
    assert_eq!(err["error"]["kind"], "usage");
    assert!(!s.join("logs").exists(), "a refused command wrote nothing");
}

/// `elnor query` over the samples after one `watch --once`: the person's question is the top
/// hit, with the harness's own record id, the reasons for its rank, the low-trust banner, and
/// the fallback to lexical search said out loud; captured decisions are searchable too. Bad
/// strategy or kind names are usage errors, and `reindex` answers the same afterwards.
#[test]
fn query_finds_a_turn_and_an_entry_and_explains_the_rank() {
    let dir = tempfile::tempdir().unwrap();
    let s = dir.path();
    let f = elnor_fixtures::samples();
    let ok = |out: Output| {
        assert!(out.status.success(), "{}", stderr(&out));
        out
    };
    ok(elnor(s, &["config", "set", "mode", "deterministic"]));
    let roots = [
        format!("openclaw={}", f.join("openclaw/agents").display()),
        format!("claude_code={}", f.join("claude-code").display()),
        format!("codex={}", f.join("codex").display()),
    ];
    let at = ["--now", "2026-11-03T09:00:00Z"];
    let mut watch = vec![at[0], at[1], "watch", "--once"];
    for r in &roots {
        watch.extend(["--root", r.as_str()]);
    }
    ok(elnor(s, &watch));
    let query = |extra: &[&str]| {
        let mut args = vec![at[0], at[1], "--json", "query"];
        args.extend(extra);
        stdout_json(&ok(elnor(s, &args)))
    };
    let turn = query(&["OAuth token refreshes in the middle of a batch"]);
    assert_eq!(turn["trust_banner"], "low_trust");
    assert_eq!(turn["strategy"], "hybrid");
    assert_eq!(turn["fallback_mode"], "lexical_only");
    let top = &turn["hits"][0];
    assert_eq!(top["kind"], "turn", "{turn:#}");
    assert_eq!(top["session_id"], "5b0c2d7e-1f3a-4c8e-9a61-0d2f7c9e4a11");
    assert_eq!(top["record"], "5b0c2d7e-3");
    assert_eq!(top["why"]["lexical_rank"], 1);
    assert!(
        top["why"]["fields"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f == "text"),
        "{top:#}"
    );
    let entry = query(&["--kind", "entry", "retry the whole batch"]);
    assert_eq!(entry["hits"][0]["entry_type"], "key_decision", "{entry:#}");
    // Human output names the record and the reasons.
    let human = String::from_utf8(
        ok(elnor(
            s,
            &[
                at[0],
                at[1],
                "query",
                "--strategy",
                "lexical_only",
                "OAuth token refresh",
            ],
        ))
        .stdout,
    )
    .unwrap();
    assert!(human.contains("record 5b0c2d7e-3"), "{human}");
    assert!(human.contains("why: lexical rank 1"), "{human}");
    assert!(
        !human.contains("note:"),
        "no fallback note for lexical_only: {human}"
    );
    for bad in [
        vec!["query", "--strategy", "psychic", "x"],
        vec!["query", "--kind", "email", "x"],
    ] {
        assert_eq!(elnor(s, &bad).status.code(), Some(2), "{bad:?}");
    }
    let rebuilt = stdout_json(&ok(elnor(s, &["--json", "reindex"])));
    assert!(rebuilt["documents"].as_u64().unwrap() > 10, "{rebuilt:#}");
    assert_eq!(
        query(&["OAuth token refreshes in the middle of a batch"])["hits"][0]["record"],
        "5b0c2d7e-3"
    );
}

/// `elnor library` and `elnor topics` over the samples: a folder added as a collection is listed
/// and its document is found by `elnor query`; a Topic with its directive on proposes members,
/// `topics approve` decides one and `topics show` lists it as approved with its reason; deciding
/// it again fails with exit 4 while the others still apply; a Topic without words is a usage
/// error.
#[test]
fn library_and_topics_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let s = dir.path().join("store");
    let s = s.as_path();
    let f = elnor_fixtures::samples();
    let ok = |out: Output| {
        assert!(out.status.success(), "{}", stderr(&out));
        out
    };
    let notes = dir.path().join("notes");
    std::fs::create_dir_all(&notes).unwrap();
    std::fs::write(
        notes.join("sync.md"),
        "# Nightly sync\n\nThe batch retry drops rows when the token refreshes.\n",
    )
    .unwrap();
    let added = stdout_json(&ok(elnor(
        s,
        &["--json", "library", "add", notes.to_str().unwrap()],
    )));
    assert_eq!(added["documents"], 1, "{added:#}");
    let listed = stdout_json(&ok(elnor(s, &["--json", "library", "list"])));
    assert_eq!(listed[0]["relative"], "sync.md");
    assert_eq!(listed[0]["title"], "Nightly sync");
    let found = stdout_json(&ok(elnor(
        s,
        &[
            "--json",
            "query",
            "--kind",
            "document",
            "--hours",
            "0",
            "batch retry",
        ],
    )));
    assert_eq!(found["hits"][0]["kind"], "document", "{found:#}");
    let page = stdout_json(&ok(elnor(
        s,
        &[
            "--json",
            "library",
            "show",
            notes.join("sync.md").to_str().unwrap(),
        ],
    )));
    assert!(
        page["html"]
            .as_str()
            .unwrap()
            .contains("<h1>Nightly sync</h1>")
    );

    let roots = [
        format!("openclaw={}", f.join("openclaw/agents").display()),
        format!("claude_code={}", f.join("claude-code").display()),
        format!("codex={}", f.join("codex").display()),
    ];
    let mut ingest = vec!["ingest"];
    for r in &roots {
        ingest.extend(["--root", r.as_str()]);
    }
    ok(elnor(s, &ingest));
    assert_eq!(
        elnor(s, &["topics", "create", "Nothing", "--collect"])
            .status
            .code(),
        Some(2)
    );
    let created = stdout_json(&ok(elnor(
        s,
        &[
            "--json",
            "topics",
            "create",
            "Ledger sync",
            "--query",
            "sync rows",
            "--collect",
        ],
    )));
    let topic = created["topic"]["topic_id"].as_str().unwrap().to_owned();
    let proposed = created["collected"]["proposed"].as_array().unwrap();
    assert!(proposed.len() >= 2, "{created:#}");
    let proposals = stdout_json(&ok(elnor(s, &["--json", "topics", "proposals"])));
    assert_eq!(proposals.as_array().unwrap().len(), proposed.len());
    assert_eq!(proposals[0]["topic_name"], "Ledger sync");
    let first = proposals[0]["membership_id"].as_i64().unwrap().to_string();
    let second = proposals[1]["membership_id"].as_i64().unwrap().to_string();
    ok(elnor(s, &["topics", "approve", &first]));
    // The first is decided already: it fails, the second still applies.
    let again = elnor(s, &["topics", "reject", &first, &second]);
    assert_eq!(again.status.code(), Some(4), "{}", stderr(&again));
    assert!(stderr(&again).contains(&format!("membership #{first}")));
    let view = stdout_json(&ok(elnor(s, &["--json", "topics", "show", &topic])));
    let approved: Vec<&Value> = view["members"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["source"] == "approved")
        .collect();
    assert_eq!(approved.len(), 1, "{view:#}");
    assert!(
        approved[0]["why"].as_str().unwrap().contains("sync rows"),
        "{view:#}"
    );
    assert_eq!(view["pending"], proposed.len() as u64 - 2);
    let human = String::from_utf8(ok(elnor(s, &["review", "list"])).stdout).unwrap();
    // The review queue points at the memberships still waiting, and only then.
    assert_eq!(
        human.contains("Topic membership proposal"),
        proposed.len() > 2,
        "{human}"
    );
}

/// `elnor query --as-session` is an agent's search: limited by `query_rate_per_minute` (exit 4,
/// the reason on stderr), `all` only after `elnor query-grant`; the person's own queries are not.
#[test]
fn an_agent_query_is_rate_limited_and_needs_a_grant_for_all() {
    let dir = tempfile::tempdir().unwrap();
    let s = dir.path();
    let ok = |out: Output| {
        assert!(out.status.success(), "{}", stderr(&out));
        out
    };
    ok(elnor(s, &["config", "set", "query_rate_per_minute", "1"]));
    let agent = ["query", "--as-session", "s-1", "anything at all"];
    ok(elnor(s, &agent));
    let limited = elnor(s, &agent);
    assert_eq!(limited.status.code(), Some(4));
    assert!(
        stderr(&limited).contains("query_rate_per_minute = 1"),
        "{}",
        stderr(&limited)
    );
    for _ in 0..3 {
        ok(elnor(s, &["query", "anything at all"]));
    }
    ok(elnor(s, &["config", "set", "query_rate_per_minute", "0"]));
    let all = [
        "query",
        "--as-session",
        "s-1",
        "--permission",
        "all",
        "anything",
    ];
    let refused = elnor(s, &all);
    assert_eq!(refused.status.code(), Some(4));
    assert!(
        stderr(&refused).contains("query-grant s-1"),
        "{}",
        stderr(&refused)
    );
    ok(elnor(s, &["query-grant", "s-1"]));
    ok(elnor(s, &all));
    ok(elnor(s, &["query-grant", "s-1", "--revoke"]));
    assert_eq!(elnor(s, &all).status.code(), Some(4));
    assert_eq!(
        elnor(
            s,
            &["query", "--as-session", "s-1", "--permission", "most", "x"]
        )
        .status
        .code(),
        Some(2)
    );
}

/// `elnor watch` outlives a pass that fails: while another process holds the graph's write lock
/// past the busy timeout, the watcher says what failed and keeps going, and once the lock is
/// released the next pass stores what the harness wrote meanwhile.
#[test]
fn the_watcher_outlives_a_pass_that_fails() {
    use std::io::Write as _;
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    assert!(elnor(&store, &["init"]).status.success());
    let session = "0d0d0d0d-1111-4222-8333-444444444444";
    let file = dir
        .path()
        .join("claude/-home-dana-locks")
        .join(format!("{session}.jsonl"));
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let line = |n: usize| {
        serde_json::json!({
            "type": "user", "uuid": format!("u-{n}"), "sessionId": session,
            "cwd": "/home/dana/locks", "timestamp": format!("2026-11-20T10:00:{n:02}.000Z"),
            "message": {"role": "user", "content": format!("Line {n} of the lock test")},
        })
        .to_string()
    };
    std::fs::write(&file, format!("{}\n", line(0))).unwrap();
    let log = dir.path().join("watch.log");
    let mut watch = Command::new(env!("CARGO_BIN_EXE_elnor"))
        .arg("--store")
        .arg(&store)
        .args(["watch", "--no-files", "--interval", "1", "--root"])
        .arg(format!(
            "claude_code={}",
            dir.path().join("claude").display()
        ))
        .env_remove("ELNOR_MEMORY")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let graph = rusqlite::Connection::open(store.join("entity_graph.sqlite")).unwrap();
    let stored = || -> i64 {
        graph
            .query_row(
                "SELECT record_count FROM transcript_sessions WHERE session_id = ?1",
                [session],
                |r| r.get(0),
            )
            .unwrap_or(0)
    };
    let wait_for = |what: &str, done: &dyn Fn() -> bool| {
        let start = std::time::Instant::now();
        while !done() {
            assert!(
                start.elapsed().as_secs() < 60,
                "waited a minute for {what}; the watcher's log:\n{}",
                std::fs::read_to_string(&log).unwrap_or_default()
            );
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    };
    wait_for("the first line", &|| stored() == 1);

    // Another process takes the write lock and keeps it past the watcher's busy timeout.
    graph.execute_batch("BEGIN EXCLUSIVE").unwrap();
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .unwrap();
    writeln!(f, "{}", line(1)).unwrap();
    wait_for("the failed pass to be reported", &|| {
        std::fs::read_to_string(&log).is_ok_and(|l| l.contains("a pass failed"))
    });
    assert!(watch.try_wait().unwrap().is_none(), "the watcher stopped");
    graph.execute_batch("ROLLBACK").unwrap();
    writeln!(f, "{}", line(2)).unwrap();
    wait_for("the lines written while the store was locked", &|| {
        stored() == 3
    });
    assert!(watch.try_wait().unwrap().is_none(), "the watcher stopped");
    watch.kill().unwrap();
    watch.wait().unwrap();
    let said = std::fs::read_to_string(&log).unwrap();
    assert_eq!(
        said.matches("a pass failed").count(),
        1,
        "a failure is said once: {said}"
    );
}

#[test]
fn an_entry_appended_on_one_store_shows_on_the_other_after_both_synced() {
    if Command::new("git").arg("--version").output().is_err() {
        eprintln!("skipped: no git on PATH");
        return;
    }
    let remote = tempfile::tempdir().unwrap();
    assert!(
        elnor_fixtures::bare_git_remote(remote.path()),
        "no git on PATH"
    );
    let url = remote.path().display().to_string();
    let laptop = tempfile::tempdir().unwrap();
    let desktop = tempfile::tempdir().unwrap();
    let (l, d) = (laptop.path(), desktop.path());
    for s in [l, d] {
        let out = elnor(s, &["sync", "--remote", &url, "--owner", "dana"]);
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(String::from_utf8_lossy(&out.stdout).contains("synced with"));
    }
    let out = elnor(
        l,
        &[
            "log",
            "append",
            "garden",
            "open_question",
            "Which tomato variety?",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let status = stdout_json(&elnor(l, &["sync", "--status", "--json"]));
    assert_eq!(status["unsent_entries"], 1);
    assert_eq!(status["remote"], url.as_str());
    // Later syncs need no flag: the remote and the owner are remembered.
    let sent = stdout_json(&elnor(l, &["sync", "--json"]));
    assert_eq!(sent["sent_entries"], 1);
    assert_eq!(sent["pushed"], true);
    let got = stdout_json(&elnor(d, &["sync", "--json"]));
    assert_eq!(got["arrived_entries"], 1);
    let tail = stdout_json(&elnor(d, &["log", "tail", "garden", "--json"]));
    let text = tail.to_string();
    assert!(text.contains("Which tomato variety?"), "{text}");
    // Without a remote set, sync says how to set one.
    let fresh = tempfile::tempdir().unwrap();
    let out = elnor(fresh.path(), &["sync"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("--remote"), "{}", stderr(&out));
}
