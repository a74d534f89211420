//! Dreaming's state on sample OpenClaw configs, and turning it off without disturbing the rest.

use super::*;

fn paths_with(config: Option<&str>) -> (tempfile::TempDir, HarnessPaths) {
    let dir = tempfile::tempdir().unwrap();
    let paths = HarnessPaths::for_home(dir.path());
    std::fs::create_dir_all(paths.openclaw_config.parent().unwrap()).unwrap();
    if let Some(text) = config {
        std::fs::write(&paths.openclaw_config, text).unwrap();
    }
    (dir, paths)
}

fn now() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-05-01T12:00:00Z")
        .unwrap()
        .to_utc()
}

#[test]
fn each_state_is_read_from_the_config() {
    let cases: [(Option<&str>, DreamingState); 7] = [
        (
            Some(
                r#"{ plugins: { entries: { "memory-core": { config: { dreaming: { enabled: true } } } } } }"#,
            ),
            DreamingState::On { explicit: true },
        ),
        (
            Some(
                r#"{ plugins: { entries: { "memory-core": { config: { dreaming: { enabled: false } } } } } }"#,
            ),
            DreamingState::Off,
        ),
        // No key at all: the default, which is on.
        (
            Some("{ gateway: { port: 18789 } }"),
            DreamingState::On { explicit: false },
        ),
        (Some(""), DreamingState::On { explicit: false }),
        // The memory plugin itself disabled, or the slot given to none.
        (
            Some(r#"{ plugins: { entries: { "memory-core": { enabled: false } } } }"#),
            DreamingState::Off,
        ),
        (
            Some(r#"{ plugins: { slots: { memory: "none" } } }"#),
            DreamingState::Off,
        ),
        (None, DreamingState::NoConfig),
    ];
    for (config, want) in cases {
        let (_dir, paths) = paths_with(config);
        let status = dreaming_status(&paths);
        assert_eq!(status.state, want, "{config:?}");
        assert!(!status.what_it_does.is_empty());
        assert_eq!(status.line_to_add, DREAMING_OFF_LINE);
    }
}

#[test]
fn a_malformed_config_is_reported_and_never_written() {
    let text = "{\n  plugins: {\n    entries: { \"memory-core\": \n}\n";
    let (_dir, paths) = paths_with(Some(text));
    let status = dreaming_status(&paths);
    let DreamingState::Malformed { message } = &status.state else {
        panic!("{status:?}");
    };
    assert!(message.contains("line "), "{message}");
    let err = disable_dreaming(&paths, false, now())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("nothing was written") && err.contains(DREAMING_OFF_LINE),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(&paths.openclaw_config).unwrap(),
        text
    );
    let siblings = std::fs::read_dir(paths.openclaw_config.parent().unwrap())
        .unwrap()
        .count();
    assert_eq!(siblings, 1, "no backup or temp file left");

    // A switch that is not a boolean, and a key on the way that is not an object.
    let (_dir, paths) = paths_with(Some(
        r#"{ plugins: { entries: { "memory-core": { config: { dreaming: { enabled: "yes" } } } } } }"#,
    ));
    assert!(matches!(
        dreaming_status(&paths).state,
        DreamingState::Malformed { .. }
    ));
    let (_dir, paths) = paths_with(Some(r#"{ plugins: ["memory-core"] }"#));
    let before = std::fs::read_to_string(&paths.openclaw_config).unwrap();
    let err = disable_dreaming(&paths, false, now())
        .unwrap_err()
        .to_string();
    assert!(err.contains("`plugins`"), "{err}");
    assert_eq!(
        std::fs::read_to_string(&paths.openclaw_config).unwrap(),
        before
    );
}

#[test]
fn disabling_keeps_comments_unquoted_keys_and_trailing_commas_byte_for_byte() {
    let text = "// My OpenClaw setup. Do not lose this comment.\n{\n  gateway: {\n    port: 18789, // the usual port\n  },\n  agents: { defaults: { model: 'anthropic/claude' } },\n  plugins: {\n    entries: {\n      'memory-core': {\n        config: {\n          dreaming: { enabled: true, model: 'small' },\n        },\n      },\n    },\n  },\n}\n";
    let (_dir, paths) = paths_with(Some(text));
    assert_eq!(
        dreaming_status(&paths).state,
        DreamingState::On { explicit: true }
    );

    let dry = disable_dreaming(&paths, true, now()).unwrap();
    assert!(dry.changed && !dry.written && dry.backup.is_none());
    assert!(
        dry.diff
            .contains("-          dreaming: { enabled: true, model: 'small' },"),
        "{}",
        dry.diff
    );
    assert_eq!(
        std::fs::read_to_string(&paths.openclaw_config).unwrap(),
        text
    );

    let done = disable_dreaming(&paths, false, now()).unwrap();
    assert!(done.written);
    let after = std::fs::read_to_string(&paths.openclaw_config).unwrap();
    // Only the one value changed: every other byte is where it was.
    assert_eq!(after, text.replace("enabled: true", "enabled: false"));
    assert_eq!(std::fs::read_to_string(done.backup.unwrap()).unwrap(), text);
    assert_eq!(dreaming_status(&paths).state, DreamingState::Off);

    // Again: nothing to change, nothing written, no second backup.
    let again = disable_dreaming(&paths, false, now()).unwrap();
    assert!(!again.changed && !again.written && again.backup.is_none());
}

#[test]
fn disabling_where_the_key_is_absent_creates_the_objects_and_keeps_the_rest() {
    let text = "{\n  // keep me\n  gateway: { port: 18789, },\n  plugins: { allow: ['memory-core'], },\n}\n";
    let (_dir, paths) = paths_with(Some(text));
    assert_eq!(
        dreaming_status(&paths).state,
        DreamingState::On { explicit: false }
    );
    disable_dreaming(&paths, false, now()).unwrap();
    let after = std::fs::read_to_string(&paths.openclaw_config).unwrap();
    assert_eq!(dreaming_status(&paths).state, DreamingState::Off);
    assert!(
        after.starts_with("{\n  // keep me\n  gateway: { port: 18789, },\n  plugins: {"),
        "{after}"
    );
    assert!(after.contains("allow: ['memory-core']"), "{after}");
    let value = confedit::parse_json5(&paths.openclaw_config, &after)
        .unwrap()
        .value()
        .and_then(|v| v.to_serde_value())
        .unwrap();
    assert_eq!(value["gateway"]["port"], 18789);
    assert_eq!(value["plugins"]["allow"][0], "memory-core");
}

#[test]
fn no_config_is_an_error_that_says_where_it_looked() {
    let (_dir, paths) = paths_with(None);
    let err = disable_dreaming(&paths, false, now())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("openclaw.json") && err.contains("OPENCLAW_CONFIG_PATH"),
        "{err}"
    );
}
