//! The store directory: layout on open, status counts, a broken config reported but never
//! rewritten, and where the store is found.

use chrono::{TimeZone, Utc};
use expect_test::expect;

use super::*;
use crate::base::ids::{SessionId, WorkContextId};
use crate::continuity::{CaptureMode, ContinuityEntry, EntryContent, OpenQuestionContent};

#[test]
fn open_creates_layout_and_status_counts_by_type() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("store")).unwrap();
    for sub in [
        "continuity",
        "config",
        "entity_graph.sqlite",
        "config/continuity_config.json",
    ] {
        assert!(store.root().join(sub).exists(), "{sub} missing");
    }
    let config = store.config().unwrap();
    let wc = WorkContextId::new("henderson").unwrap();
    let at = Utc.with_ymd_and_hms(2026, 11, 20, 9, 0, 0).unwrap();
    let entry = ContinuityEntry::new(
        wc.clone(),
        SessionId::new("s1").unwrap(),
        at,
        CaptureMode::Deterministic,
        EntryContent::OpenQuestion(OpenQuestionContent {
            question: "Check the data timeline with Christensen?".into(),
            context: String::new(),
            resolved: false,
            resolved_at: None,
            resolution_summary: None,
        }),
        &config,
    );
    store.log(&wc).append(&entry).unwrap();
    let status = store.status().unwrap();
    let summary = format!(
        "schema={} contexts={} logs={} total={} by_type={:?} skipped={} mode={:?}",
        status.schema_version,
        status.work_contexts,
        status.continuity_logs,
        status.entries_total,
        status.entries_by_type,
        status.skipped_lines,
        status.config.map(|c| c.mode),
    );
    expect![[r#"schema=24 contexts=1 logs=1 total=1 by_type={"cross_conversation_update": 0, "key_decision": 0, "open_question": 1, "session_summary_ref": 0, "work_phase_change": 0} skipped=0 mode=Some(Full)"#]]
        .assert_eq(&summary);
}

#[test]
fn status_reports_a_broken_config_without_failing() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let path = store.config_file().path().to_owned();
    std::fs::write(&path, "{\"schema_version\": 2, \"mode\": \"loud\"}").unwrap();
    let status = store.status().unwrap();
    assert!(status.config.is_none());
    let err = status.config_error.unwrap();
    assert!(
        err.contains("field `mode`") && err.contains("continuity_config.json"),
        "{err}"
    );
    // Reopening must not "repair" the file by overwriting it with defaults.
    drop(store);
    Store::open(dir.path()).unwrap();
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "{\"schema_version\": 2, \"mode\": \"loud\"}"
    );
}

#[test]
fn log_ids_ignore_foreign_files() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let cont = dir.path().join("continuity");
    std::fs::write(cont.join("notes.txt"), "x").unwrap();
    std::fs::write(cont.join("bad name.jsonl"), "x").unwrap();
    std::fs::write(cont.join("wc_ok.jsonl"), "").unwrap();
    let ids: Vec<String> = store
        .log_ids()
        .unwrap()
        .iter()
        .map(|i| i.to_string())
        .collect();
    assert_eq!(ids, ["wc_ok"]);
}

#[test]
fn location_prefers_flag_then_env() {
    let flag = StoreLocation::resolve(Some("/tmp/flagged".into())).unwrap();
    assert_eq!(flag, PathBuf::from("/tmp/flagged"));
    // Without a flag the result is either ELNOR_MEMORY or a platform dir; both are absolute.
    assert!(
        StoreLocation::resolve(None).unwrap().is_absolute()
            || std::env::var_os(StoreLocation::ENV).is_some()
    );
}
