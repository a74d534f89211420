//! `elnor hook`, `elnor setup` and `elnor dreaming` through the built binary, fed the harnesses'
//! own documented hook inputs, with a temporary home so nothing touches the real settings.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

// ---- Hook inputs, field for field as the harnesses document them ----
//
// Claude Code: https://code.claude.com/docs/en/hooks ("SessionStart input", "PreCompact input",
// "PostCompact input", "SessionEnd input", "Stop input", "UserPromptSubmit input").
// Codex: https://developers.openai.com/codex/hooks ("Common input fields" and each event's
// fields), whose shapes are generated from openai/codex
// codex-rs/hooks/schema/generated/<event>.command.input.schema.json; Codex documents them as
// field tables, so the values here are ours, the field names and kinds theirs.

/// https://code.claude.com/docs/en/hooks, "SessionStart input".
const CLAUDE_SESSION_START: &str = r#"{
  "session_id": "abc123",
  "transcript_path": "/Users/.../.claude/projects/.../00893aaf-19fa-41d2-8238-13269b9b3ca0.jsonl",
  "cwd": "/Users/...",
  "hook_event_name": "SessionStart",
  "source": "startup",
  "model": "claude-sonnet-4-6"
}"#;

/// https://code.claude.com/docs/en/hooks, "PreCompact input".
const CLAUDE_PRE_COMPACT: &str = r#"{
  "session_id": "abc123",
  "transcript_path": "/Users/.../.claude/projects/.../00893aaf-19fa-41d2-8238-13269b9b3ca0.jsonl",
  "cwd": "/Users/...",
  "hook_event_name": "PreCompact",
  "trigger": "manual",
  "custom_instructions": ""
}"#;

/// https://code.claude.com/docs/en/hooks, "PostCompact input".
const CLAUDE_POST_COMPACT: &str = r#"{
  "session_id": "abc123",
  "transcript_path": "/Users/.../.claude/projects/.../00893aaf-19fa-41d2-8238-13269b9b3ca0.jsonl",
  "cwd": "/Users/...",
  "hook_event_name": "PostCompact",
  "trigger": "manual",
  "compact_summary": "Summary of the compacted conversation..."
}"#;

/// https://code.claude.com/docs/en/hooks, "SessionEnd input".
const CLAUDE_SESSION_END: &str = r#"{
  "session_id": "abc123",
  "transcript_path": "/Users/.../.claude/projects/.../00893aaf-19fa-41d2-8238-13269b9b3ca0.jsonl",
  "cwd": "/Users/...",
  "hook_event_name": "SessionEnd",
  "reason": "other"
}"#;

/// https://code.claude.com/docs/en/hooks, "Stop input".
const CLAUDE_STOP: &str = r#"{
  "session_id": "abc123",
  "transcript_path": "~/.claude/projects/.../00893aaf-19fa-41d2-8238-13269b9b3ca0.jsonl",
  "cwd": "/Users/...",
  "permission_mode": "default",
  "hook_event_name": "Stop",
  "stop_hook_active": true,
  "last_assistant_message": "I've completed the refactoring. Here's a summary..."
}"#;

/// https://code.claude.com/docs/en/hooks, "UserPromptSubmit input".
const CLAUDE_USER_PROMPT_SUBMIT: &str = r#"{
  "session_id": "abc123",
  "transcript_path": "/Users/.../.claude/projects/.../00893aaf-19fa-41d2-8238-13269b9b3ca0.jsonl",
  "cwd": "/Users/...",
  "permission_mode": "default",
  "hook_event_name": "UserPromptSubmit",
  "prompt": "Write a function to calculate the factorial of a number"
}"#;

/// https://developers.openai.com/codex/hooks, SessionStart: the common fields plus `source`
/// (schema: session-start.command.input.schema.json; `transcript_path` may be null).
const CODEX_SESSION_START: &str = r#"{
  "session_id": "019a6f2e-2b1c-7d40-9e51-3c8a0f4b7d21",
  "transcript_path": null,
  "cwd": "/home/dana/code/ledger-sync",
  "hook_event_name": "SessionStart",
  "model": "gpt-5-codex",
  "permission_mode": "default",
  "source": "startup"
}"#;

/// https://developers.openai.com/codex/hooks, PreCompact: the common fields plus `turn_id` and
/// `trigger` (schema: pre-compact.command.input.schema.json).
const CODEX_PRE_COMPACT: &str = r#"{
  "session_id": "019a6f2e-2b1c-7d40-9e51-3c8a0f4b7d21",
  "turn_id": "019a6f31-0c44-7e12-8b3a-5d9e2f1a6c07",
  "transcript_path": "/home/dana/.codex/sessions/2026/10/28/rollout-2026-10-28T14-00-00-019a6f2e-2b1c-7d40-9e51-3c8a0f4b7d21.jsonl",
  "cwd": "/home/dana/code/ledger-sync",
  "hook_event_name": "PreCompact",
  "model": "gpt-5-codex",
  "trigger": "auto"
}"#;

/// https://developers.openai.com/codex/hooks, Stop: the common fields plus `turn_id`,
/// `stop_hook_active` and `last_assistant_message` (schema: stop.command.input.schema.json).
const CODEX_STOP: &str = r#"{
  "session_id": "019a6f2e-2b1c-7d40-9e51-3c8a0f4b7d21",
  "turn_id": "019a6f31-0c44-7e12-8b3a-5d9e2f1a6c07",
  "transcript_path": null,
  "cwd": "/home/dana/code/ledger-sync",
  "hook_event_name": "Stop",
  "model": "gpt-5-codex",
  "permission_mode": "default",
  "stop_hook_active": false,
  "last_assistant_message": "Done: the retries are per batch now."
}"#;

/// A temporary person: a home (with the harness folders), a store, and the environment the
/// child runs in, with every variable that could point elsewhere removed.
struct Person {
    dir: tempfile::TempDir,
}

impl Person {
    fn new() -> Person {
        let dir = tempfile::tempdir().unwrap();
        for d in [".claude", ".codex", ".openclaw"] {
            std::fs::create_dir_all(dir.path().join("home").join(d)).unwrap();
        }
        Person { dir }
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    fn store(&self) -> PathBuf {
        self.dir.path().join("store")
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_elnor"));
        c.arg("--store").arg(self.store()).args(args);
        c.env("HOME", self.home());
        for var in [
            "ELNOR_MEMORY",
            "CODEX_HOME",
            "OPENCLAW_HOME",
            "OPENCLAW_STATE_DIR",
            "OPENCLAW_CONFIG_PATH",
        ] {
            c.env_remove(var);
        }
        c
    }

    fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().expect("run elnor")
    }

    /// Runs `elnor hook --harness H` with `input` on stdin; returns the output and how long the
    /// process took.
    fn hook(&self, harness: &str, input: &str) -> (Output, Duration) {
        use std::io::Write;
        let started = Instant::now();
        let mut child = self
            .command(&["hook", "--harness", harness])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run elnor");
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        let out = child.wait_with_output().expect("wait for elnor");
        (out, started.elapsed())
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The hook succeeded and printed nothing at all.
fn assert_silent(out: &Output, what: &str) {
    assert_eq!(out.status.code(), Some(0), "{what}: {}", text(&out.stderr));
    assert!(
        out.stdout.is_empty(),
        "{what} printed: {}",
        text(&out.stdout)
    );
}

/// The one shape a SessionStart hook may print: `{"hookSpecificOutput": {"hookEventName":
/// "SessionStart", "additionalContext": …}}` on one line, nothing else.
fn assert_session_start_shape(out: &Output) -> String {
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    let top: Vec<&String> = v.as_object().unwrap().keys().collect();
    assert_eq!(top, ["hookSpecificOutput"]);
    let inner = v["hookSpecificOutput"].as_object().unwrap();
    let mut keys: Vec<&String> = inner.keys().collect();
    keys.sort();
    assert_eq!(keys, ["additionalContext", "hookEventName"]);
    assert_eq!(inner["hookEventName"], "SessionStart");
    let context = inner["additionalContext"].as_str().unwrap().to_owned();
    assert!(context.starts_with("Today is "), "{context}");
    assert!(context.chars().count() <= 10_000);
    context
}

#[test]
fn session_start_prints_the_brief_in_each_harness_shape_for_every_source() {
    let p = Person::new();
    for source in ["startup", "resume", "clear", "compact"] {
        let input = CLAUDE_SESSION_START.replace("\"startup\"", &format!("\"{source}\""));
        assert_session_start_shape(&p.hook("claude-code", &input).0);
    }
    assert_session_start_shape(&p.hook("codex", CODEX_SESSION_START).0);
    // The same brief `elnor brief --hook-stdin` prints.
    let via_brief = {
        use std::io::Write;
        let mut child = p
            .command(&["brief", "--format", "codex", "--hook-stdin", "--dry-run"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(CODEX_SESSION_START.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    };
    assert_session_start_shape(&via_brief);

    // Every hook fire is on record (four Claude Code starts, one Codex start); `elnor brief` is
    // not a hook and records none.
    let doctor: Value = serde_json::from_slice(&p.run(&["doctor", "--json"]).stdout).unwrap();
    let fired = |harness: &str, event: &str| {
        doctor["health"]["hooks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|h| h["harness"] == harness && h["event"] == event)
            .map(|h| h["fire_count"].as_u64().unwrap())
    };
    assert_eq!(fired("claude_code", "SessionStart"), Some(4));
    assert_eq!(fired("codex", "SessionStart"), Some(1));
}

#[test]
fn stop_prompt_and_post_compact_print_nothing_and_are_recorded() {
    let p = Person::new();
    for (harness, input) in [
        ("claude-code", CLAUDE_STOP),
        ("claude-code", CLAUDE_USER_PROMPT_SUBMIT),
        ("claude-code", CLAUDE_POST_COMPACT),
        ("codex", CODEX_STOP),
    ] {
        let (out, _) = p.hook(harness, input);
        assert_silent(&out, input);
    }
    let doctor: Value = serde_json::from_slice(&p.run(&["doctor", "--json"]).stdout).unwrap();
    let hooks = doctor["health"]["hooks"].as_array().unwrap();
    for (harness, event) in [
        ("claude_code", "Stop"),
        ("claude_code", "UserPromptSubmit"),
        ("claude_code", "PostCompact"),
        ("codex", "Stop"),
    ] {
        let h = hooks
            .iter()
            .find(|h| h["harness"] == harness && h["event"] == event)
            .unwrap_or_else(|| panic!("{harness} {event}: {hooks:?}"));
        assert_eq!(h["fire_count"], 1);
        assert!(h["last_fired_at"].is_string());
    }
}

/// A home whose Claude Code history holds the samples' ledger-sync sessions, so an ingest from
/// the default sources finds them.
fn with_claude_history(p: &Person) -> String {
    let from = elnor_fixtures::samples().join("claude-code/-home-dana-code-ledger-sync");
    let to = p
        .home()
        .join(".claude/projects/-home-dana-code-ledger-sync");
    std::fs::create_dir_all(&to).unwrap();
    let session = "8e41a0c3-6d52-4b7f-b2e9-3c7d1a5f9b20";
    std::fs::copy(
        from.join(format!("{session}.jsonl")),
        to.join(format!("{session}.jsonl")),
    )
    .unwrap();
    session.to_owned()
}

/// Whether the store holds a capture run for `session`.
fn captured(p: &Person, session: &str) -> bool {
    let out = p.run(&["timeline", "--kind", "capture", "--days", "36500", "--json"]);
    text(&out.stdout).contains(session)
}

#[test]
fn pre_compact_ingests_then_captures_and_prints_nothing() {
    let p = Person::new();
    let session = with_claude_history(&p);
    assert!(!captured(&p, &session));
    for (harness, sample) in [
        ("claude-code", CLAUDE_PRE_COMPACT),
        ("codex", CODEX_PRE_COMPACT),
    ] {
        let mut input: Value = serde_json::from_str(sample).unwrap();
        input["session_id"] = Value::String(session.clone());
        let (out, _) = p.hook(harness, &input.to_string());
        assert_silent(&out, harness);
    }
    assert!(
        captured(&p, &session),
        "the session was ingested and captured"
    );
}

#[test]
fn session_end_returns_at_once_and_captures_in_the_background() {
    let p = Person::new();
    let session = with_claude_history(&p);
    let mut input: Value = serde_json::from_str(CLAUDE_SESSION_END).unwrap();
    input["session_id"] = Value::String(session.clone());
    let (out, took) = p.hook("claude-code", &input.to_string());
    assert_silent(&out, "SessionEnd");
    // Claude Code gives all SessionEnd hooks together 1.5 s; ours must leave room for others.
    assert!(took < Duration::from_millis(1_000), "took {took:?}");
    // The detached capture finishes on its own.
    let deadline = Instant::now() + Duration::from_secs(60);
    while !captured(&p, &session) {
        assert!(Instant::now() < deadline, "no capture within a minute");
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn bad_input_is_a_message_and_a_non_blocking_exit() {
    let p = Person::new();
    let cases: [(&str, &str, &str); 5] = [
        ("claude-code", "", "no hook input"),
        ("claude-code", "{\"session_id\": ", "not JSON"),
        ("codex", "[]", "not an object"),
        ("codex", "{\"session_id\": \"s\"}", "no hook_event_name"),
        ("nope", CLAUDE_STOP, "unknown harness"),
    ];
    for (harness, input, says) in cases {
        let (out, _) = p.hook(harness, input);
        // 2 would block the prompt or the stop; 1 is shown and the session goes on.
        assert_eq!(out.status.code(), Some(1), "{input:?}");
        assert!(out.stdout.is_empty());
        assert!(
            text(&out.stderr).contains(says),
            "{input:?}: {}",
            text(&out.stderr)
        );
    }
    // PreCompact without a session id cannot capture: said, not blocked.
    let (out, _) = p.hook("claude-code", r#"{"hook_event_name": "PreCompact"}"#);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("session_id"));
}

const SETTINGS: &str = "{\n  \"model\" :\"opus\",\n  \"env\": {\"FOO\": \"1\"},\n  \"hooks\": {\n    \"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"say done\"}]}]\n  }\n}\n";

const CODEX_CONFIG: &str = "# Codex, my way\nmodel = \"gpt-5-codex\"  # keep\napproval_policy =    \"on-request\"\n\n[mcp_servers.docs]\ncommand = \"npx\"\nargs = [\"-y\", \"docs-mcp\"]  # a comment after\n\n[tui]\nnotifications = true\n";

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn setup_dry_runs_keep_every_byte_and_real_runs_are_idempotent_with_a_backup() {
    let p = Person::new();
    let settings = p.home().join(".claude/settings.json");
    let config = p.home().join(".codex/config.toml");
    std::fs::write(&settings, SETTINGS).unwrap();
    std::fs::write(&config, CODEX_CONFIG).unwrap();

    for harness in ["claude-code", "codex"] {
        let out = p.run(&["setup", harness, "--dry-run"]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let shown = text(&out.stdout);
        assert!(
            shown.contains("@@") && shown.contains("Dry run: nothing was written."),
            "{shown}"
        );
    }
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), SETTINGS);
    assert_eq!(std::fs::read_to_string(&config).unwrap(), CODEX_CONFIG);
    assert_eq!(files_in(&p.home().join(".codex")), ["config.toml"]);

    let exe = std::fs::canonicalize(env!("CARGO_BIN_EXE_elnor")).unwrap();
    for harness in ["claude-code", "codex"] {
        let out = p.run(&["setup", harness, "--json"]);
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(
            report["files"]
                .as_array()
                .unwrap()
                .iter()
                .all(|f| f["outcome"] != "unchanged"),
            "{report}"
        );
        let again: Value =
            serde_json::from_slice(&p.run(&["setup", harness, "--json"]).stdout).unwrap();
        assert!(
            again["files"]
                .as_array()
                .unwrap()
                .iter()
                .all(|f| f["outcome"] == "unchanged" && f["backup"].is_null()),
            "{again}"
        );
        let human = text(&p.run(&["setup", harness]).stdout);
        assert!(human.contains("Nothing to change"), "{human}");
    }
    // The person's bytes are all still there, and the commands run this very binary with the
    // store it was given.
    let after = std::fs::read_to_string(&settings).unwrap();
    assert!(after.starts_with("{\n  \"model\" :\"opus\",\n  \"env\": {\"FOO\": \"1\"},\n  \"hooks\": {\n    \"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"say done\"}]}],"), "{after}");
    let command = format!(
        "{} --store {} hook --harness claude-code",
        exe.display(),
        p.store().display()
    );
    assert!(after.contains(&command), "{after}");
    let toml = std::fs::read_to_string(&config).unwrap();
    for line in CODEX_CONFIG.lines() {
        assert!(toml.contains(line), "{line:?} lost: {toml}");
    }
    assert!(toml.contains("[mcp_servers.elnor]"), "{toml}");
    // One backup of each file the first real run changed; hooks.json was new, so none for it.
    let claude_files = files_in(&p.home().join(".claude"));
    assert_eq!(claude_files.len(), 2, "{claude_files:?}");
    assert!(claude_files[1].starts_with("settings.json.elnor-backup-"));
    let codex_files = files_in(&p.home().join(".codex"));
    assert_eq!(codex_files.len(), 3, "{codex_files:?}");
    assert!(
        codex_files
            .iter()
            .any(|f| f.starts_with("config.toml.elnor-backup-"))
    );

    // The installed hooks now show in doctor, not yet fired.
    let doctor = text(&p.run(&["doctor"]).stdout);
    assert!(
        doctor.contains("Claude Code: SessionStart hook installed"),
        "{doctor}"
    );
    assert!(doctor.contains("never fired"), "{doctor}");
}

#[test]
fn setup_on_a_file_that_does_not_parse_writes_nothing() {
    let p = Person::new();
    let settings = p.home().join(".claude/settings.json");
    let broken = "{\n  \"hooks\": {\n    \"Stop\": [\n  }\n";
    std::fs::write(&settings, broken).unwrap();
    let out = p.run(&["setup", "claude-code"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("settings.json: line"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), broken);
    assert_eq!(files_in(&p.home().join(".claude")), ["settings.json"]);
}

#[test]
fn dreaming_status_and_disable_on_an_openclaw_config() {
    let p = Person::new();
    let config = p.home().join(".openclaw/openclaw.json");
    let text_before = "{\n  // mine\n  gateway: { port: 18789, },\n}\n";
    std::fs::write(&config, text_before).unwrap();
    let status: Value =
        serde_json::from_slice(&p.run(&["dreaming", "status", "--json"]).stdout).unwrap();
    assert_eq!(status["state"], "on");
    assert_eq!(status["explicit"], false);
    let dry = text(&p.run(&["dreaming", "disable", "--dry-run"]).stdout);
    assert!(dry.contains("+") && dry.contains("Dry run"), "{dry}");
    assert_eq!(std::fs::read_to_string(&config).unwrap(), text_before);
    let out = p.run(&["dreaming", "disable"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let status: Value =
        serde_json::from_slice(&p.run(&["dreaming", "status", "--json"]).stdout).unwrap();
    assert_eq!(status["state"], "off");
    let after = std::fs::read_to_string(&config).unwrap();
    assert!(
        after.starts_with("{\n  // mine\n  gateway: { port: 18789, },\n"),
        "{after}"
    );
}

/// A transcript in a format no ELNOR reads (a harness release from the future) is named by
/// `elnor doctor`, with its record type and line, and raised as Today's alert; a file of records
/// skipped on purpose beside it is not.
#[test]
fn doctor_names_a_file_whose_records_it_could_not_read() {
    let p = Person::new();
    let project = p.home().join(".claude/projects/-home-ana-app");
    std::fs::create_dir_all(&project).unwrap();
    let future = project.join("5d1c0b7a-1111-4222-8333-444455556666.jsonl");
    let lines: String = (0..4)
        .map(|i| {
            format!(
                "{{\"type\":\"utterance-v9\",\"sessionId\":\"5d1c0b7a-1111-4222-8333-444455556666\",\"uuid\":\"u{i}\",\"words\":\"add dark mode\"}}\n"
            )
        })
        .collect();
    std::fs::write(&future, lines).unwrap();
    std::fs::write(
        project.join("5d1c0b7a-1111-4222-8333-444455556667.jsonl"),
        "{\"type\":\"summary\",\"summary\":\"Dark mode\",\"leafUuid\":\"x\"}\n",
    )
    .unwrap();
    assert!(p.run(&["ingest"]).status.success());
    let doctor: Value = serde_json::from_slice(&p.run(&["doctor", "--json"]).stdout).unwrap();
    let lost = doctor["health"]["lost_files"].as_array().unwrap();
    assert_eq!(lost.len(), 1, "{doctor}");
    assert_eq!(lost[0]["path"], future.display().to_string());
    assert_eq!(lost[0]["turns"], 0);
    assert_eq!(lost[0]["not_understood"][0]["record_type"], "utterance-v9");
    assert_eq!(lost[0]["not_understood"][0]["sample_line"], 1);
    let alerts = doctor["alerts"].as_array().unwrap();
    assert!(
        alerts.iter().any(|a| a["kind"] == "lost_turns"
            && a["message"].as_str().unwrap().contains("utterance-v9")),
        "{alerts:?}"
    );
    let claude = doctor["health"]["sources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["harness"] == "claude_code")
        .unwrap();
    assert_eq!(claude["skipped"][0]["record_type"], "summary");
    let said = text(&p.run(&["doctor"]).stdout);
    assert!(said.contains("Files that lost turns"), "{said}");
    assert!(
        said.contains(&format!(
            "{}: 4 of 4 record(s) not understood",
            future.display()
        )),
        "{said}"
    );
}
