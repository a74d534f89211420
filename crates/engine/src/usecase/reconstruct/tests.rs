//! Reconstruct over the project's samples, with real SQLite and real log files: an unchanged
//! store replays to no differences; a store captured by "another detector" (its log altered by
//! hand) reports exactly the altered items; apply then makes the two agree and keeps what the
//! person promoted.

use chrono::{DateTime, Duration, TimeZone, Utc};

use super::*;
use crate::base::ids::EntryId;
use crate::base::secrets::MemorySecrets;
use crate::continuity::{CaptureMode, ContinuityEntry, EntryContent, KeyDecisionContent};
use crate::test_support::sample_store;

fn t1() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 22, 9, 0, 0).unwrap()
}

fn request(apply: bool) -> ReconstructRequest {
    ReconstructRequest {
        mode: ReconstructMode::Deterministic,
        work_context: None,
        apply,
    }
}

/// Captures every sample session in two windows, as the agent would across a day: its first
/// half at `t1`, the rest an hour later. Returns how many windows were recorded.
fn capture_in_two_windows(store: &Store) -> usize {
    store.set_mode(ContinuityMode::Deterministic).unwrap();
    let sessions: Vec<(String, i64)> = store
        .graph()
        .with_conn(|c| {
            let mut s = c.prepare(
                "SELECT session_id, max(seq) FROM turns GROUP BY session_id ORDER BY session_id",
            )?;
            s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect()
        })
        .unwrap();
    for (through, at) in [(Some(2), t1()), (None, t1() + Duration::hours(1))] {
        for (id, max) in &sessions {
            let bound = through.map(|half: i64| (max / half).max(1));
            capture::capture_through(
                store,
                &MemorySecrets::default(),
                &CaptureRequest {
                    session_id: SessionId::new(id.clone()).unwrap(),
                    trigger: Trigger::IdleTimeout,
                    now: at,
                },
                bound,
            )
            .unwrap();
        }
    }
    store
        .graph()
        .with_conn(|c| c.query_row("SELECT count(*) FROM capture_windows", [], |r| r.get(0)))
        .unwrap()
}

#[test]
fn an_unchanged_store_replays_to_no_differences() {
    let (_dir, store) = sample_store();
    let windows = capture_in_two_windows(&store);
    let report = reconstruct(&store, &request(false), &MemorySecrets::default(), t1()).unwrap();
    let lines: Vec<String> = report
        .contexts
        .iter()
        .flat_map(|c| c.items.iter().map(DiffItem::line))
        .collect();
    assert_eq!(report.differences(), 0, "{lines:#?}");
    assert_eq!(report.windows, windows);
    assert!(
        report.windows > report.sessions,
        "some sessions were captured twice"
    );
    assert!(report.totals.same > 0);
    // The scratch is gone.
    assert!(!store.root().join("reconstruct").exists());
}

/// The live log as "another detector" would have left it: one captured entry it never made
/// (the replay adds it), one it made that today's detectors do not (the replay removes it), and
/// one whose details differ (the replay changes it). Returns (missing, extra, edited) ids.
fn alter_live_log(store: &Store) -> (WorkContextId, String, EntryId, EntryId) {
    let (wc, entries) = store
        .log_ids()
        .unwrap()
        .into_iter()
        .map(|wc| (wc.clone(), store.log(&wc).read().unwrap().entries))
        .find(|(_, es)| {
            es.iter()
                .filter(|e| {
                    matches!(
                        e.content,
                        EntryContent::OpenQuestion(_) | EntryContent::KeyDecision(_)
                    )
                })
                .count()
                >= 2
        })
        .expect("a sample context with two questions or decisions");
    let mut items = entries.iter().filter(|e| {
        matches!(
            e.content,
            EntryContent::OpenQuestion(_) | EntryContent::KeyDecision(_)
        )
    });
    let missing = items.next().unwrap().clone();
    let edited = items.next().unwrap().clone();
    let config = store.config().unwrap();
    let mut extra = ContinuityEntry::new(
        wc.clone(),
        edited.source_session_id.clone(),
        t1(),
        CaptureMode::Deterministic,
        EntryContent::KeyDecision(KeyDecisionContent {
            decision: "Rewrite the whole thing in COBOL.".into(),
            rationale: Some("Taken because an old detector liked it.".into()),
            superseded_by: None,
        }),
        &config,
    );
    extra.linked_doc73_session_summary_id = edited.linked_doc73_session_summary_id.clone();
    let mut lines = String::new();
    for e in &entries {
        if e.entry_id == missing.entry_id {
            continue;
        }
        let mut e = e.clone();
        if e.entry_id == edited.entry_id {
            match &mut e.content {
                EntryContent::OpenQuestion(q) => q.context = "Taken by the old detector.".into(),
                EntryContent::KeyDecision(d) => {
                    d.rationale = Some("Taken by the old detector.".into())
                }
                _ => unreachable!(),
            }
        }
        lines.push_str(&e.to_line().unwrap());
        lines.push('\n');
    }
    lines.push_str(&extra.to_line().unwrap());
    lines.push('\n');
    std::fs::write(store.log(&wc).path(), lines).unwrap();
    (
        wc,
        missing.content.headline(),
        extra.entry_id,
        edited.entry_id,
    )
}

#[test]
fn after_a_detector_change_exactly_the_changed_items_are_reported() {
    let (_dir, store) = sample_store();
    capture_in_two_windows(&store);
    let (wc, missing, extra, edited) = alter_live_log(&store);
    let report = reconstruct(&store, &request(false), &MemorySecrets::default(), t1()).unwrap();
    assert_eq!(report.totals.added, 1, "{:#?}", report.contexts);
    assert_eq!(report.totals.removed, 1);
    assert_eq!(report.totals.changed, 1);
    assert_eq!(report.totals.kept, 0);
    let items: Vec<&DiffItem> = report.contexts.iter().flat_map(|c| &c.items).collect();
    assert_eq!(items.len(), 3);
    assert!(
        report
            .contexts
            .iter()
            .all(|c| c.work_context_id == wc || c.items.is_empty())
    );
    let added = items
        .iter()
        .find(|i| i.change == ItemChange::Added)
        .unwrap();
    assert_eq!(added.text, missing);
    assert!(added.line().starts_with("+ "));
    let removed = items
        .iter()
        .find(|i| i.change == ItemChange::Removed)
        .unwrap();
    assert_eq!(removed.live_entry_id.as_deref(), Some(extra.as_str()));
    assert_eq!(
        removed.line(),
        "- key decision: Rewrite the whole thing in COBOL."
    );
    let changed = items
        .iter()
        .find(|i| i.change == ItemChange::Changed)
        .unwrap();
    assert_eq!(changed.live_entry_id.as_deref(), Some(edited.as_str()));
    assert_eq!(changed.details.len(), 1, "{:?}", changed.details);
    assert!(changed.details[0].contains("Taken by the old detector."));

    // Only the one context is asked about: the same three.
    let one = ReconstructRequest {
        work_context: Some(wc.clone()),
        ..request(false)
    };
    let report = reconstruct(&store, &one, &MemorySecrets::default(), t1()).unwrap();
    assert_eq!(report.contexts.len(), 1);
    assert_eq!(report.differences(), 3);
}

#[test]
fn apply_makes_the_live_store_match_and_keeps_a_promoted_entry() {
    let (_dir, store) = sample_store();
    capture_in_two_windows(&store);
    let (wc, missing, extra, edited) = alter_live_log(&store);
    // The person promoted the entry today's detectors would not make: it stays.
    store
        .graph()
        .with_conn(|c| {
            c.execute(
                "INSERT INTO entry_promotions (entry_id, node_id, proposal_id, promoted_at)
                 VALUES (?1, 'mem_cobol', 1, '2026-11-22T10:00:00Z')",
                [extra.as_str()],
            )
        })
        .unwrap();
    let before = std::fs::read_to_string(store.log(&wc).path()).unwrap();
    let report = reconstruct(&store, &request(true), &MemorySecrets::default(), t1()).unwrap();
    assert_eq!(report.totals.kept, 1);
    assert_eq!(report.differences(), 2);
    let applied = report.applied.unwrap();
    assert_eq!(
        (
            applied.entries_added,
            applied.entries_removed,
            applied.entries_changed,
            applied.kept
        ),
        (1, 0, 1, 1)
    );
    // The old log is kept as it was.
    let backup = applied
        .backups
        .iter()
        .find(|p| p.to_string_lossy().contains(wc.as_str()))
        .expect("a backup of the rewritten log");
    assert_eq!(std::fs::read_to_string(backup).unwrap(), before);

    let entries = store.log(&wc).read().unwrap().entries;
    assert!(
        entries.iter().any(|e| e.entry_id == extra),
        "the promoted entry survives"
    );
    assert!(entries.iter().any(|e| e.content.headline() == missing));
    let e = entries.iter().find(|e| e.entry_id == edited).unwrap();
    assert!(!e.content.headline().is_empty());

    let again = reconstruct(&store, &request(false), &MemorySecrets::default(), t1()).unwrap();
    assert_eq!(again.differences(), 0, "{:#?}", again.contexts);
    assert_eq!(again.totals.kept, 1);
}

#[test]
fn an_unknown_context_is_a_clear_error() {
    let (_dir, store) = sample_store();
    let req = ReconstructRequest {
        work_context: Some(WorkContextId::new("wc_nowhere").unwrap()),
        ..request(false)
    };
    let err = reconstruct(&store, &req, &MemorySecrets::default(), t1()).unwrap_err();
    assert!(err.to_string().contains("wc_nowhere"), "{err}");
    assert!(ReconstructMode::parse("fancy").is_err());
}

/// Model mode captures through the configured synthesis model (the local stand-in here): its
/// items replace the detectors' in the report, nothing falls back, and the live store is left as
/// it was.
#[test]
fn model_mode_replays_through_the_synthesis_model_and_changes_nothing_live() {
    use crate::test_support::standin::{StandIn, ok};
    let reply = serde_json::json!({
        "session_summary": "Reconciled the ledger sync against the bank export.",
        "open_questions": [{"question": "Does the bank export include pending items?", "context": "sync"}],
        "key_decisions": [{"decision": "Match transactions by amount and date", "rationale": "ids differ"}],
        "work_phase": "revision"
    })
    .to_string();
    let server = StandIn::start(&[(
        "/api/chat",
        ok(serde_json::json!({"message": {"role": "assistant", "content": reply}, "done": true})),
    )]);
    let (_dir, store) = sample_store();
    capture_in_two_windows(&store);
    store.set_config("synthesis_provider", "ollama").unwrap();
    store
        .set_config("synthesis_base_url", &server.base)
        .unwrap();
    store
        .set_config("synthesis_model", "test-model:7b")
        .unwrap();
    store
        .set_config("max_model_calls_per_hour", "1000")
        .unwrap();
    store.set_config("max_model_calls_per_day", "1000").unwrap();
    let logs_before: Vec<String> = store
        .log_ids()
        .unwrap()
        .iter()
        .map(|wc| std::fs::read_to_string(store.log(wc).path()).unwrap())
        .collect();
    let req = ReconstructRequest {
        mode: ReconstructMode::Model,
        ..request(false)
    };
    let report = reconstruct(&store, &req, &MemorySecrets::default(), t1()).unwrap();
    assert_eq!(report.fallbacks, 0, "{:?}", report.fallback_reason);
    assert!(!server.seen().is_empty(), "the model was asked");
    let lines: Vec<String> = report
        .contexts
        .iter()
        .flat_map(|c| c.items.iter().map(DiffItem::line))
        .collect();
    assert!(
        lines
            .iter()
            .any(|l| l == "+ open question: Does the bank export include pending items?"),
        "{lines:#?}"
    );
    assert!(report.totals.changed > 0, "the summaries' text changed");
    let logs_after: Vec<String> = store
        .log_ids()
        .unwrap()
        .iter()
        .map(|wc| std::fs::read_to_string(store.log(wc).path()).unwrap())
        .collect();
    assert_eq!(logs_before, logs_after);
    let live_calls = store
        .graph()
        .count("SELECT count(*) FROM model_calls")
        .unwrap();
    assert_eq!(live_calls, 0, "the calls are the scratch's");
}
