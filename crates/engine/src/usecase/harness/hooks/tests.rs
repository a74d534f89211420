//! The hook input, the action per event, the record of fires and what the settings install.

use super::*;

#[test]
fn input_reads_the_fields_it_uses_and_ignores_the_rest() {
    // Claude Code's SessionStart sample, with a field ELNOR does not know.
    let input = HookInput::parse(
        r#"{"session_id": "abc123", "transcript_path": null, "cwd": "/w",
            "hook_event_name": "SessionStart", "source": "compact", "model": "m",
            "something_new": {"nested": [1, 2]}}"#,
    )
    .unwrap();
    assert_eq!(input.session_id.as_deref(), Some("abc123"));
    assert_eq!(input.source.as_deref(), Some("compact"));
    assert_eq!(input.transcript_path, None);
    assert_eq!(input.event().unwrap(), HookEvent::SessionStart);
}

#[test]
fn bad_input_is_a_clear_error() {
    let cases = [
        ("", "no hook input"),
        ("   \n", "no hook input"),
        ("{not json", "not JSON (line 1"),
        ("[1, 2]", "not an object"),
        (r#"{"session_id": 7}"#, "wrong kind"),
    ];
    for (raw, says) in cases {
        let err = HookInput::parse(raw).unwrap_err().to_string();
        assert!(err.contains(says), "{raw:?}: {err}");
    }
    let no_event = HookInput::parse(r#"{"session_id": "s"}"#).unwrap();
    assert!(
        no_event
            .event()
            .unwrap_err()
            .to_string()
            .contains("no hook_event_name")
    );
    let odd = HookInput::parse(r#"{"hook_event_name": "rm -rf /"}"#).unwrap();
    assert!(odd.event().is_err());
}

#[test]
fn each_event_does_what_its_harness_needs() {
    use HookAction::*;
    let act = |h, e: &str| hook_action(h, &HookEvent::parse(e));
    assert_eq!(
        act(Harness::ClaudeCode, "SessionStart"),
        Brief(Format::ClaudeCode)
    );
    assert_eq!(act(Harness::Codex, "SessionStart"), Brief(Format::Codex));
    assert_eq!(act(Harness::ClaudeCode, "PreCompact"), IngestAndCapture);
    assert_eq!(act(Harness::Codex, "PreCompact"), IngestAndCapture);
    assert_eq!(act(Harness::ClaudeCode, "SessionEnd"), CaptureInBackground);
    for quiet in ["Stop", "UserPromptSubmit", "PostCompact", "PreToolUse"] {
        assert_eq!(act(Harness::ClaudeCode, quiet), RecordOnly, "{quiet}");
    }
}

#[test]
fn fires_are_counted_per_harness_and_event() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let t0 = DateTime::parse_from_rfc3339("2026-03-01T10:00:00Z")
        .unwrap()
        .to_utc();
    record_hook_fire(&store, Harness::ClaudeCode, "SessionStart", t0).unwrap();
    record_hook_fire(
        &store,
        Harness::ClaudeCode,
        "SessionStart",
        t0 + chrono::Duration::hours(1),
    )
    .unwrap();
    // An older fire arriving late does not move "last" back.
    record_hook_fire(
        &store,
        Harness::ClaudeCode,
        "SessionStart",
        t0 - chrono::Duration::hours(1),
    )
    .unwrap();
    record_hook_fire(&store, Harness::Codex, "Stop", t0).unwrap();
    assert!(record_hook_fire(&store, Harness::Codex, "a b", t0).is_err());
    let fires = hook_fires(&store).unwrap();
    let got: Vec<(Harness, &str, u64, DateTime<Utc>)> = fires
        .iter()
        .map(|f| (f.harness, f.event.as_str(), f.count, f.last_fired_at))
        .collect();
    assert_eq!(
        got,
        [
            (
                Harness::ClaudeCode,
                "SessionStart",
                3,
                t0 + chrono::Duration::hours(1)
            ),
            (Harness::Codex, "Stop", 1, t0),
        ]
    );
}

#[test]
fn status_sets_what_is_installed_beside_what_fired() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("store")).unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    std::fs::create_dir_all(home.join(".codex")).unwrap();
    let paths = HarnessPaths::for_home(&home);
    std::fs::write(
        paths.claude_settings(),
        r#"{"hooks": {"SessionStart": [{"matcher": "startup", "hooks": [
            {"type": "command", "command": "'/opt/my tools/elnor' hook --harness claude-code"}]}],
          "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}}"#,
    )
    .unwrap();
    // Codex: one event in hooks.json, one inline in config.toml.
    std::fs::write(
        paths.codex_hooks(),
        r#"{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "/bin/elnor hook --harness codex"}]}]}}"#,
    )
    .unwrap();
    std::fs::write(
        paths.codex_config(),
        "model = \"x\"\n[[hooks.PreCompact]]\n[[hooks.PreCompact.hooks]]\ntype = \"command\"\ncommand = \"elnor hook --harness codex\"\n",
    )
    .unwrap();
    let now = DateTime::parse_from_rfc3339("2026-03-01T10:00:00Z")
        .unwrap()
        .to_utc();
    record_hook_fire(&store, Harness::ClaudeCode, "SessionStart", now).unwrap();
    record_hook_fire(&store, Harness::ClaudeCode, "UserPromptSubmit", now).unwrap();
    let status = hook_status(&store, &paths).unwrap();
    let row = |h: Harness, e: &str| {
        status
            .iter()
            .find(|s| s.harness == h && s.event == e)
            .unwrap_or_else(|| panic!("{h:?} {e}: {status:?}"))
    };
    let start = row(Harness::ClaudeCode, "SessionStart");
    assert!(
        start.installed && start.fire_count == 1 && start.last_fired_at == Some(now),
        "{start:?}"
    );
    let pre = row(Harness::ClaudeCode, "PreCompact");
    assert!(!pre.installed && pre.fire_count == 0);
    // Fired without being installed by setup (a person wired it by hand): still reported.
    assert_eq!(row(Harness::ClaudeCode, "UserPromptSubmit").fire_count, 1);
    assert!(row(Harness::Codex, "SessionStart").installed);
    assert!(row(Harness::Codex, "PreCompact").installed);
    assert!(!status.iter().any(|s| s.harness == Harness::OpenClaw));

    // A settings file that does not parse: not installed, and the reason names the line.
    std::fs::write(paths.claude_settings(), "{\n  \"hooks\": {\n    oops\n}\n").unwrap();
    let status = hook_status(&store, &paths).unwrap();
    let start = status
        .iter()
        .find(|s| s.harness == Harness::ClaudeCode && s.event == "SessionStart")
        .unwrap();
    assert!(!start.installed);
    assert!(
        start
            .problem
            .as_deref()
            .unwrap()
            .contains("settings.json: line 4"),
        "{:?}",
        start.problem
    );
}

#[test]
fn elnor_commands_are_recognised_in_every_form_the_docs_gave() {
    for ours in [
        "elnor hook --harness claude-code",
        "'/Users/me/my bin/elnor' --store '/data/el nor' hook --harness codex",
        "/usr/local/bin/elnor brief --format claude-code --hook-stdin",
        "sid=$(jq -r .session_id); elnor ingest >/dev/null && elnor capture --session \"$sid\" --trigger pre-compaction",
        "C:\\tools\\elnor.exe hook --harness codex",
    ] {
        assert!(is_elnor_command(ours), "{ours}");
    }
    for theirs in [
        "say done",
        "elnor-notes sync",
        "echo elnor",
        "/bin/elnorx hook",
    ] {
        assert!(!is_elnor_command(theirs), "{theirs}");
    }
}

#[test]
fn quoting_round_trips_through_the_word_splitter() {
    for word in [
        "/usr/bin/elnor",
        "/Users/me/my bin/elnor",
        "it's",
        "",
        "a\"b",
    ] {
        let quoted = shell_quote(word);
        assert_eq!(shell_words(&quoted), vec![word.to_owned()], "{quoted}");
    }
    assert_eq!(shell_quote("/usr/bin/elnor"), "/usr/bin/elnor");
}
