//! Setup on sample configs: what the person wrote stays byte for byte, a second run changes
//! nothing, an old ELNOR entry is updated rather than duplicated, a broken file stops everything.

use super::*;

fn now() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-05-01T12:00:00Z")
        .unwrap()
        .to_utc()
}

fn home() -> (tempfile::TempDir, HarnessPaths) {
    let dir = tempfile::tempdir().unwrap();
    let paths = HarnessPaths::for_home(dir.path());
    std::fs::create_dir_all(dir.path().join(".claude")).unwrap();
    std::fs::create_dir_all(&paths.codex_home).unwrap();
    std::fs::create_dir_all(paths.openclaw_config.parent().unwrap()).unwrap();
    (dir, paths)
}

fn request(harness: Harness, dry_run: bool) -> SetupRequest {
    SetupRequest {
        harness,
        elnor: PathBuf::from("/opt/el nor/bin/elnor"),
        store: Some(PathBuf::from("/data/elnor")),
        dry_run,
        now: now(),
    }
}

fn value_of(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap();
    confedit::parse_json5(path, &text)
        .unwrap()
        .value()
        .and_then(|v| v.to_serde_value())
        .unwrap()
}

const CLAUDE_SETTINGS: &str = r#"{
    "permissions": {"allow": ["Bash(npm test)"]},
    "hooks": {
        "Stop": [ { "hooks": [ { "type": "command", "command": "say done" } ] } ],
        "SessionStart": [
            { "matcher": "startup", "hooks": [ { "type": "command", "command": "/usr/local/bin/elnor brief --format claude-code --hook-stdin" } ] }
        ]
    },
    "model":   "opus"
}
"#;

#[test]
fn claude_code_keeps_the_persons_settings_updates_an_old_entry_and_is_idempotent() {
    let (_dir, paths) = home();
    let settings = paths.claude_settings();
    std::fs::write(&settings, CLAUDE_SETTINGS).unwrap();

    let dry = setup(&paths, &request(Harness::ClaudeCode, true)).unwrap();
    assert!(dry.changes_anything());
    assert_eq!(dry.files[0].outcome, FileOutcome::Updated);
    assert!(!dry.files[0].written && dry.files[0].backup.is_none());
    // The old recipe's line is edited where it stands; the new events follow the person's own.
    assert!(dry.files[0].diff.contains(r#"+            { "matcher": "startup|resume|clear|compact", "hooks": [ { "type": "command", "command": "'/opt/el nor/bin/elnor' --store /data/elnor hook --harness claude-code" } ] }"#), "{}", dry.files[0].diff);
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), CLAUDE_SETTINGS);

    let first = setup(&paths, &request(Harness::ClaudeCode, false)).unwrap();
    let backup = first.files[0].backup.clone().unwrap();
    assert_eq!(std::fs::read_to_string(&backup).unwrap(), CLAUDE_SETTINGS);
    let v = value_of(&settings);
    let command = "'/opt/el nor/bin/elnor' --store /data/elnor hook --harness claude-code";
    // The old recipe's entry was brought up to date in place: one SessionStart group, ours.
    assert_eq!(v["hooks"]["SessionStart"].as_array().unwrap().len(), 1);
    assert_eq!(
        v["hooks"]["SessionStart"][0]["matcher"],
        "startup|resume|clear|compact"
    );
    assert_eq!(
        v["hooks"]["SessionStart"][0]["hooks"][0]["command"],
        command
    );
    assert_eq!(v["hooks"]["PreCompact"][0]["hooks"][0]["command"], command);
    assert_eq!(v["hooks"]["SessionEnd"][0]["hooks"][0]["command"], command);
    // The person's own keys and hooks are untouched.
    assert_eq!(v["hooks"]["Stop"][0]["hooks"][0]["command"], "say done");
    assert_eq!(v["permissions"]["allow"][0], "Bash(npm test)");
    let after = std::fs::read_to_string(&settings).unwrap();
    assert!(
        after.contains("\"model\":   \"opus\""),
        "odd spacing kept: {after}"
    );
    assert!(
        after.starts_with("{\n    \"permissions\": {\"allow\": [\"Bash(npm test)\"]},\n"),
        "{after}"
    );
    // The MCP server is left to `claude mcp add`, with the exact command.
    assert!(
        first.next_steps[0].contains(
            "claude mcp add --scope user elnor -- '/opt/el nor/bin/elnor' --store /data/elnor mcp"
        ),
        "{:?}",
        first.next_steps
    );

    // Twice: nothing changes, nothing is written, no new backup.
    let second = setup(&paths, &request(Harness::ClaudeCode, false)).unwrap();
    assert!(!second.changes_anything());
    assert_eq!(second.files[0].outcome, FileOutcome::Unchanged);
    assert!(second.files[0].backup.is_none() && second.files[0].diff.is_empty());
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), after);

    // Another store later: the same entries change their command; none is added.
    let mut moved = request(Harness::ClaudeCode, false);
    moved.store = None;
    setup(&paths, &moved).unwrap();
    let v = value_of(&settings);
    assert_eq!(v["hooks"]["PreCompact"].as_array().unwrap().len(), 1);
    assert_eq!(
        v["hooks"]["PreCompact"][0]["hooks"][0]["command"],
        "'/opt/el nor/bin/elnor' hook --harness claude-code"
    );
}

#[test]
fn claude_code_without_a_settings_file_gets_one_and_a_duplicate_entry_is_removed() {
    let (_dir, paths) = home();
    let report = setup(&paths, &request(Harness::ClaudeCode, false)).unwrap();
    assert_eq!(report.files[0].outcome, FileOutcome::Created);
    assert!(report.files[0].backup.is_none());
    assert_eq!(
        value_of(&paths.claude_settings())["hooks"]["SessionStart"][0]["hooks"][0]["timeout"],
        30
    );

    // Two ELNOR entries under one event (a person ran an old recipe twice): one is left.
    std::fs::write(
        paths.claude_settings(),
        r#"{"hooks": {"PreCompact": [
            {"hooks": [{"type": "command", "command": "elnor capture --session x"}, {"type": "command", "command": "notify-send compacting"}]},
            {"hooks": [{"type": "command", "command": "elnor hook --harness claude-code"}]}
        ]}}"#,
    )
    .unwrap();
    setup(&paths, &request(Harness::ClaudeCode, false)).unwrap();
    let v = value_of(&paths.claude_settings());
    let groups = v["hooks"]["PreCompact"].as_array().unwrap();
    assert_eq!(groups.len(), 1, "{v}");
    let commands: Vec<&str> = groups[0]["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["command"].as_str().unwrap())
        .collect();
    assert_eq!(
        commands,
        [
            "'/opt/el nor/bin/elnor' --store /data/elnor hook --harness claude-code",
            "notify-send compacting"
        ]
    );
}

#[test]
fn a_settings_file_that_does_not_parse_stops_setup_and_nothing_is_written() {
    let (_dir, paths) = home();
    let broken = "{\n  \"hooks\": {\n    \"Stop\": [,]\n  }\n}\n";
    std::fs::write(paths.claude_settings(), broken).unwrap();
    let err = setup(&paths, &request(Harness::ClaudeCode, false))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("settings.json") && err.contains("line 3"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(paths.claude_settings()).unwrap(),
        broken
    );
    assert_eq!(
        std::fs::read_dir(paths.claude_settings().parent().unwrap())
            .unwrap()
            .count(),
        1
    );

    // `hooks` that is not an object is the person's: refused, not replaced.
    std::fs::write(paths.claude_settings(), "{\"hooks\": \"none\"}").unwrap();
    assert!(setup(&paths, &request(Harness::ClaudeCode, false)).is_err());

    // Codex: a broken config.toml stops the hooks file from being written too.
    std::fs::write(paths.codex_config(), "model = \"o3\"\n[mcp_servers\n").unwrap();
    let err = setup(&paths, &request(Harness::Codex, false))
        .unwrap_err()
        .to_string();
    assert!(err.contains("config.toml: line 2"), "{err}");
    assert!(!paths.codex_hooks().exists());
}

const CODEX_CONFIG: &str = "# my Codex settings\nmodel = \"gpt-5\"   # the default model\n\n[mcp_servers.docs]\ncommand = \"npx\"\nargs = [\"-y\", \"docs-mcp\"]\n\n[profiles.fast]\nmodel = \"gpt-5-mini\"\n";

#[test]
fn codex_keeps_comments_and_tables_in_config_toml_and_asks_for_trust() {
    let (_dir, paths) = home();
    std::fs::write(paths.codex_config(), CODEX_CONFIG).unwrap();
    let dry = setup(&paths, &request(Harness::Codex, true)).unwrap();
    assert_eq!(dry.files.len(), 2);
    assert!(!paths.codex_hooks().exists());
    assert_eq!(
        std::fs::read_to_string(paths.codex_config()).unwrap(),
        CODEX_CONFIG
    );

    let report = setup(&paths, &request(Harness::Codex, false)).unwrap();
    let config = std::fs::read_to_string(paths.codex_config()).unwrap();
    // Every byte the person wrote is still there, in order; ELNOR's table sits with the other
    // MCP servers, and taking it out gives back the person's file exactly.
    let ours = "[mcp_servers.elnor]\ncommand = \"/opt/el nor/bin/elnor\"\nargs = [\"--store\", \"/data/elnor\", \"mcp\"]\n";
    assert!(config.contains(ours), "{config}");
    assert_eq!(
        config.replacen(&format!("\n{ours}"), "", 1),
        CODEX_CONFIG,
        "{config}"
    );
    let hooks = value_of(&paths.codex_hooks());
    assert_eq!(
        hooks["hooks"]["SessionStart"][0]["matcher"],
        "startup|resume|clear|compact"
    );
    assert_eq!(
        hooks["hooks"]["PreCompact"][0]["hooks"][0]["command"],
        "'/opt/el nor/bin/elnor' --store /data/elnor hook --harness codex"
    );
    assert!(hooks["hooks"].get("SessionEnd").is_none());
    assert!(
        report.next_steps.iter().any(|s| s.contains("/hooks")),
        "{:?}",
        report.next_steps
    );

    let again = setup(&paths, &request(Harness::Codex, false)).unwrap();
    assert!(!again.changes_anything(), "{again:?}");
    assert_eq!(
        std::fs::read_to_string(paths.codex_config()).unwrap(),
        config
    );
}

#[test]
fn codex_hooks_turned_off_are_reported_and_inline_hooks_not_doubled() {
    let (_dir, paths) = home();
    let config = "[features]\nhooks = false\n\n[[hooks.SessionStart]]\nmatcher = \"startup\"\n[[hooks.SessionStart.hooks]]\ntype = \"command\"\ncommand = \"elnor hook --harness codex\"\n";
    std::fs::write(paths.codex_config(), config).unwrap();
    let report = setup(&paths, &request(Harness::Codex, false)).unwrap();
    assert!(
        report.notes.iter().any(|n| n.contains("hooks = false")),
        "{:?}",
        report.notes
    );
    let after = std::fs::read_to_string(paths.codex_config()).unwrap();
    assert!(
        after.contains("hooks = false"),
        "the person's choice stays: {after}"
    );
    let hooks = value_of(&paths.codex_hooks());
    assert!(hooks["hooks"].get("SessionStart").is_none(), "{hooks}");
    assert!(hooks["hooks"].get("PreCompact").is_some());
}

#[test]
fn openclaw_gets_only_the_documented_mcp_keys_and_says_it_is_degraded() {
    let (_dir, paths) = home();
    let text = "// gateway config\n{\n  gateway: { port: 18789, },\n  mcp: {\n    servers: {\n      docs: { command: 'npx', args: ['-y', 'docs-mcp'], },\n    },\n  },\n}\n";
    std::fs::write(&paths.openclaw_config, text).unwrap();
    let report = setup(&paths, &request(Harness::OpenClaw, false)).unwrap();
    let after = std::fs::read_to_string(&paths.openclaw_config).unwrap();
    assert!(after.starts_with("// gateway config\n{\n  gateway: { port: 18789, },\n  mcp: {\n    servers: {\n      docs: { command: 'npx', args: ['-y', 'docs-mcp'], },\n"), "{after}");
    let v = value_of(&paths.openclaw_config);
    assert_eq!(
        v["mcp"]["servers"]["elnor"],
        serde_json::json!({"command": "/opt/el nor/bin/elnor", "args": ["--store", "/data/elnor", "mcp"]})
    );
    assert!(
        report.notes.iter().any(|n| n.contains("degraded")),
        "{:?}",
        report.notes
    );
    assert!(
        !setup(&paths, &request(Harness::OpenClaw, false))
            .unwrap()
            .changes_anything()
    );
}

#[test]
fn a_harness_that_is_not_installed_is_an_error_not_a_new_folder() {
    let dir = tempfile::tempdir().unwrap();
    let paths = HarnessPaths::for_home(dir.path());
    for h in [Harness::ClaudeCode, Harness::Codex, Harness::OpenClaw] {
        let err = setup(&paths, &request(h, true)).unwrap_err().to_string();
        assert!(err.contains("installed"), "{err}");
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    let mut relative = request(Harness::ClaudeCode, true);
    relative.elnor = PathBuf::from("elnor");
    assert!(setup(&paths, &relative).is_err());
}
