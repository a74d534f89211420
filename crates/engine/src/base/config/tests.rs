//! Config validation as one table of documents and their outcomes, plus the file-level rules:
//! failed loads never write, sets are atomic.

use std::path::Path;

use expect_test::{Expect, expect};
use serde_json::json;

use super::*;

/// Validates `doc` as a config file and renders either the config's non-default fields or the
/// error, so one table shows every rule.
fn check(doc: Value, expect: Expect) {
    let path = Path::new("continuity_config.json");
    let actual = match ContinuityConfig::from_json(path, &doc) {
        Ok(config) => {
            let default = ContinuityConfig::default().to_json();
            let diff: Vec<String> = config
                .to_json()
                .into_iter()
                .filter(|(k, v)| default.get(k) != Some(v))
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            format!("ok {}", diff.join(" "))
        }
        Err(e) => format!("error ({:?}): {e}", e.kind()),
    };
    expect.assert_eq(&actual);
}

#[test]
fn defaults_are_valid() {
    check(json!({"schema_version": 2}), expect!["ok "]);
    let text = serde_json::to_value(ContinuityConfig::default()).unwrap();
    check(text, expect!["ok "]);
}

#[test]
fn every_field_accepts_its_bounds() {
    check(
        json!({"schema_version": 2, "mode": "off", "min_dirty_turns": 1, "max_session_history_window": 25,
               "synthesis_model": "qwen3:8b", "deterministic_heuristic_capture": false}),
        expect![[
            r#"ok deterministic_heuristic_capture=false max_session_history_window=25 min_dirty_turns=1 mode="off" synthesis_model="qwen3:8b""#
        ]],
    );
    check(
        json!({"schema_version": 2, "max_session_history_window": 3, "synthesis_model": null}),
        expect!["ok max_session_history_window=3"],
    );
}

#[test]
fn out_of_range_values_name_field_and_range() {
    check(
        json!({"schema_version": 2, "max_session_history_window": 26}),
        expect![[
            r#"error (Config): config file continuity_config.json: field `max_session_history_window`: 26 is out of range; allowed: an integer from 3 to 25"#
        ]],
    );
    check(
        json!({"schema_version": 2, "max_session_history_window": 2}),
        expect![[
            r#"error (Config): config file continuity_config.json: field `max_session_history_window`: 2 is out of range; allowed: an integer from 3 to 25"#
        ]],
    );
    check(
        json!({"schema_version": 2, "min_dirty_turns": 0}),
        expect![[
            r#"error (Config): config file continuity_config.json: field `min_dirty_turns`: 0 is out of range; allowed: an integer from 1 to 1000"#
        ]],
    );
    check(
        json!({"schema_version": 2, "idle_trigger_minutes": -5}),
        expect![[
            r#"error (Config): config file continuity_config.json: field `idle_trigger_minutes`: -5 is out of range; allowed: an integer from 1 to 10080"#
        ]],
    );
    check(
        json!({"schema_version": 2, "open_question_ttl_days": 1.5}),
        expect![[
            r#"error (Config): config file continuity_config.json: field `open_question_ttl_days`: 1.5 is out of range; allowed: an integer from 1 to 3650"#
        ]],
    );
}

#[test]
fn wrong_types_and_values_are_named() {
    check(
        json!({"schema_version": 2, "mode": "fast"}),
        expect![[
            r#"error (Config): config file continuity_config.json: field `mode`: "fast" is not a known value; allowed: one of full, deterministic, off"#
        ]],
    );
    check(
        json!({"schema_version": 2, "deterministic_heuristic_capture": "yes"}),
        expect![[
            r#"error (Config): config file continuity_config.json: field `deterministic_heuristic_capture`: a string has the wrong type; allowed: true or false"#
        ]],
    );
    check(
        json!({"schema_version": 2, "synthesis_model": "m".repeat(121)}),
        expect![[
            r#"error (Config): config file continuity_config.json: field `synthesis_model`: 121 characters is too long; allowed: text of at most 120 characters, or null to unset"#
        ]],
    );
    check(
        json!({"schema_version": 1}),
        expect![[
            r#"error (Config): config file continuity_config.json: field `schema_version`: 1 is not supported; allowed: exactly 2"#
        ]],
    );
    check(
        json!({"mode": "full"}),
        expect![[
            r#"error (Config): config file continuity_config.json: field `schema_version`: missing; allowed: exactly 2"#
        ]],
    );
    check(
        json!({"schema_version": 2, "mdoe": "off"}),
        expect![
            "error (Config): config file continuity_config.json: field `mdoe`: unknown field; allowed: the fields mode, synthesis_model, min_dirty_turns, idle_trigger_minutes, debounce_minutes, max_session_history_window, session_summary_ttl_days, open_question_ttl_days, key_decision_ttl_days, cross_update_ttl_days_after_delivery, work_phase_ttl_days, deterministic_heuristic_capture, auto_project_contexts, transcript_read_max_tokens, synthesis_provider, synthesis_base_url, synthesis_timeout_seconds, max_model_calls_per_hour, max_model_calls_per_day, model_knowledge_cutoff, model_date_awareness, model_profile_verified, significance_threshold_pct, research_gate_multiplier_pct, rollup_window_days, trace_retention_assemblies, promotion_question_days, promotion_decision_sessions, nightly_hour, node_decay_step_days, watch_debounce_ms, watch_reconcile_minutes, cross_surface_query_enabled, query_rate_per_minute, query_rate_per_day, embedding_provider, embedding_base_url, embedding_model, schema_version"
        ],
    );
    check(
        json!([1, 2]),
        expect![
            "error (Config): config file continuity_config.json: expected a JSON object, found an array"
        ],
    );
}

#[test]
fn set_parses_text_by_field_rule() {
    let path = Path::new("continuity_config.json");
    let base = ContinuityConfig::default();
    let set = |k: &str, v: &str| match base.with_value(path, k, v) {
        Ok(c) => format!("ok {}", c.get(k).unwrap()),
        Err(e) => format!("error: {e}"),
    };
    let actual = [
        set("mode", "deterministic"),
        set("max_session_history_window", "7"),
        set("max_session_history_window", "seven"),
        set("deterministic_heuristic_capture", "false"),
        set("synthesis_model", "llama3"),
        set("synthesis_model", "null"),
        set("colour", "blue"),
    ]
    .join("\n");
    expect![[r#"
        ok "deterministic"
        ok 7
        error: config file continuity_config.json: field `max_session_history_window`: a string has the wrong type; allowed: an integer from 3 to 25
        ok false
        ok "llama3"
        ok null
        error: unknown config key `colour`; known keys: mode, synthesis_model, min_dirty_turns, idle_trigger_minutes, debounce_minutes, max_session_history_window, session_summary_ttl_days, open_question_ttl_days, key_decision_ttl_days, cross_update_ttl_days_after_delivery, work_phase_ttl_days, deterministic_heuristic_capture, auto_project_contexts, transcript_read_max_tokens, synthesis_provider, synthesis_base_url, synthesis_timeout_seconds, max_model_calls_per_hour, max_model_calls_per_day, model_knowledge_cutoff, model_date_awareness, model_profile_verified, significance_threshold_pct, research_gate_multiplier_pct, rollup_window_days, trace_retention_assemblies, promotion_question_days, promotion_decision_sessions, nightly_hour, node_decay_step_days, watch_debounce_ms, watch_reconcile_minutes, cross_surface_query_enabled, query_rate_per_minute, query_rate_per_day, embedding_provider, embedding_base_url, embedding_model, schema_version"#]]
    .assert_eq(&actual);
}

#[test]
fn fields_table_matches_struct() {
    // Every struct field has a rule and every rule a struct field; a drift would let a value
    // through unvalidated or reject a valid file.
    let keys: Vec<&str> = FIELDS.iter().map(|f| f.key).collect();
    let struct_keys: Vec<String> = ContinuityConfig::default()
        .to_json()
        .keys()
        .cloned()
        .collect();
    let mut a: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
    let mut b = struct_keys;
    a.sort();
    b.sort();
    assert_eq!(a, b);
}

#[test]
fn failed_load_leaves_file_untouched_and_set_refuses_broken_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = ConfigFile::new(dir.path());
    let broken = b"{\"schema_version\": 2, \"max_session_history_window\": 99}\n";
    std::fs::write(file.path(), broken).unwrap();
    let err = file.load().unwrap_err();
    assert!(
        err.to_string().contains("max_session_history_window"),
        "{err}"
    );
    let err = file.set("mode", "off").unwrap_err();
    assert!(
        err.to_string().contains("max_session_history_window"),
        "{err}"
    );
    assert_eq!(std::fs::read(file.path()).unwrap(), broken);

    std::fs::write(file.path(), b"{ not json").unwrap();
    let err = file.load().unwrap_err();
    assert!(err.to_string().contains("not valid JSON"), "{err}");
    file.ensure_exists().unwrap();
    assert_eq!(std::fs::read(file.path()).unwrap(), b"{ not json");
}

#[test]
fn set_persists_atomically_and_rejects_bad_values() {
    let dir = tempfile::tempdir().unwrap();
    let file = ConfigFile::new(dir.path());
    file.ensure_exists().unwrap();
    let before = std::fs::read(file.path()).unwrap();
    assert!(file.set("max_session_history_window", "30").is_err());
    assert_eq!(std::fs::read(file.path()).unwrap(), before);

    file.set_mode(ContinuityMode::Deterministic).unwrap();
    assert_eq!(file.load().unwrap().mode, ContinuityMode::Deterministic);
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn every_setting_has_plain_words_and_says_what_to_enter() {
    for f in FIELDS {
        // A label or help never shows the config file's key, in any case, nor a seed section.
        let title: String = f
            .key
            .split('_')
            .map(|w| {
                let mut c = w.chars();
                c.next()
                    .map(|h| h.to_uppercase().collect::<String>() + c.as_str())
                    .unwrap_or_default()
            })
            .collect::<Vec<_>>()
            .join(" ");
        for text in [f.label, f.help] {
            if f.key.contains('_') {
                assert!(
                    !text.contains(f.key) && !text.contains(&title),
                    "{}: {text}",
                    f.key
                );
            }
            assert!(
                !text.contains('§') && !text.contains('_'),
                "{}: {text}",
                f.key
            );
        }
        if let FieldRule::OneOf(values) = f.rule {
            assert_eq!(f.choice_labels.len(), values.len(), "{}", f.key);
        }
    }
    let field = |k| super::field(k).unwrap();
    expect![[r#"
        Err("Enter a whole number from 1 to 1000.")
        Err("Enter a whole number from 1 to 1000.")
        Ok(())
        Err("Choose on or off.")
        Err("Choose one of: Ollama, OpenAI-compatible, Claude Code (your login), Codex (your login).")
        Err("Enter at most 10 characters, or leave it empty. (11 characters is too long.)")
        Ok(())
    "#]]
    .assert_eq(
        &[
            field("min_dirty_turns").check_input("many"),
            field("min_dirty_turns").check_input("0"),
            field("min_dirty_turns").check_input(" 7 "),
            field("auto_project_contexts").check_input("yes"),
            field("synthesis_provider").check_input("anthropic"),
            field("model_knowledge_cutoff").check_input("2025-06-011"),
            field("model_knowledge_cutoff").check_input(""),
        ]
        .iter()
        .map(|r| format!("{r:?}\n"))
        .collect::<String>(),
    );
}
