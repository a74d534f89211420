use chrono::TimeZone;

use super::*;
use crate::base::ids::SessionId;
use crate::continuity::{CaptureMode, ContinuityEntry, OpenQuestionContent};

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 22, 12, 0, 0).unwrap()
}

fn question(store: &Store, wc: &str, at: DateTime<Utc>, q: &str) {
    let e = ContinuityEntry::new(
        WorkContextId::new(wc).unwrap(),
        SessionId::new("s").unwrap(),
        at,
        CaptureMode::Deterministic,
        EntryContent::OpenQuestion(OpenQuestionContent {
            question: q.into(),
            context: String::new(),
            resolved: false,
            resolved_at: None,
            resolution_summary: None,
        }),
        &store.config().unwrap(),
    );
    store.log(&e.work_context_id).append(&e).unwrap();
}

#[test]
fn segments_cover_the_window_newest_first_and_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    question(&store, "alpha", now() - Duration::days(2), "Which venue?");
    question(&store, "beta", now() - Duration::days(1), "Which key?");
    question(
        &store,
        "gamma",
        now() - Duration::days(20),
        "Too old for the window?",
    );
    question(
        &store,
        "wc_unlinked",
        now() - Duration::days(1),
        "Unrelated?",
    );
    let r = generate(&store, now()).unwrap();
    let text = std::fs::read_to_string(path(&store)).unwrap();
    expect_test::expect![[r#"
        <!-- elnor:rollup as_of=2026-11-22 window_days=14 -->
        # Recent activity, past 14 days (as of 2026-11-22)

        <!-- elnor:segment work_context=beta last_activity=2026-11-21T12:00:00Z local_only=false tokens=14 -->
        - beta: 1 open question(s), last Nov 21

        <!-- elnor:segment work_context=alpha last_activity=2026-11-20T12:00:00Z local_only=false tokens=14 -->
        - alpha: 1 open question(s), last Nov 20
    "#]]
    .assert_eq(&text);
    assert_eq!(Rollup::parse(&text), Some(r.clone()));
    assert_eq!(read(&store).unwrap(), Some(r.clone()));
    assert!(!r.is_stale(now().date_naive() + Duration::days(7)));
    assert!(r.is_stale(now().date_naive() + Duration::days(8)));
    // A hand-mangled file degrades to fewer segments, never to an error.
    let mangled = text.replace("tokens=14 -->\n- beta", "tokens=x -->\n- beta");
    assert_eq!(Rollup::parse(&mangled).unwrap().segments.len(), 1);
    assert_eq!(Rollup::parse("garbage"), None);
}
