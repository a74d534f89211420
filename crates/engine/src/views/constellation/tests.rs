use chrono::{Duration, TimeZone};

use super::*;
use crate::continuity::SessionSummaryRefContent;

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 22, 12, 0, 0).unwrap()
}

fn summary_at(store: &Store, wc: &WorkContextId, session: &str, at: DateTime<Utc>) {
    let config = store.config().unwrap();
    let e = ContinuityEntry::new(
        wc.clone(),
        SessionId::new(session).unwrap(),
        at,
        CaptureMode::Deterministic,
        EntryContent::SessionSummaryRef(SessionSummaryRefContent {
            doc73_session_summary_id: format!("ss_{session}_{}", at.timestamp()),
            entities_referenced: Vec::new(),
            procedures_executed: Vec::new(),
            tools_used: Vec::new(),
            turn_count: 3,
            duration_minutes: None,
        }),
        &config,
    );
    store.log(wc).append(&e).unwrap();
}

/// CSA §3.4: a context touched twice in 30 days gets 4 entries; the window never exceeds
/// `max_session_history_window`; older summaries are excluded with the numbers that decided it.
#[test]
fn dynamic_window_follows_activity_density() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let wc = WorkContextId::new("wc_dense").unwrap();
    // Two sessions this month and five older ones, kept alive by a long summary TTL.
    store.set_config("session_summary_ttl_days", "365").unwrap();
    summary_at(&store, &wc, "a", now() - Duration::days(1));
    summary_at(&store, &wc, "b", now() - Duration::days(3));
    for (i, d) in [40, 50, 60, 70, 80].iter().enumerate() {
        summary_at(&store, &wc, &format!("old{i}"), now() - Duration::days(*d));
    }
    let c = rebuild(&store, &wc, now()).unwrap();
    assert_eq!((c.sessions_in_last_30_days, c.effective_window), (2, 4));
    assert_eq!(c.session_history.len(), 4);
    let outside: Vec<_> = c
        .excluded
        .iter()
        .filter(|x| x.reason == Exclusion::OutsideWindow)
        .collect();
    assert_eq!(outside.len(), 3);
    assert!(
        outside[0]
            .detail
            .contains("min(15, 2 sessions in 30 days + 2)")
    );

    // A busy month is capped by the setting.
    store.set_config("max_session_history_window", "3").unwrap();
    for i in 0..10 {
        summary_at(
            &store,
            &wc,
            &format!("busy{i}"),
            now() - Duration::hours(i + 2),
        );
    }
    let c = rebuild(&store, &wc, now()).unwrap();
    assert_eq!((c.sessions_in_last_30_days, c.effective_window), (12, 3));
}

/// A view is rebuilt when missing, served stale after a change, and current after a rebuild; a
/// graph change it depends on (a linked entity's rename) makes it stale too.
#[test]
fn fingerprint_tracks_log_graph_and_day() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let wc = store
        .graph()
        .create_work_context(
            &crate::graph::contexts::NewWorkContext {
                name: "Spec".into(),
                ..Default::default()
            },
            now(),
        )
        .unwrap()
        .work_context_id;
    summary_at(&store, &wc, "a", now() - Duration::days(1));
    assert!(!view(&store, &wc, now()).unwrap().stale);
    assert!(view_path(&store, &wc).exists());
    summary_at(&store, &wc, "b", now() - Duration::hours(1));
    assert!(view(&store, &wc, now()).unwrap().stale);
    rebuild(&store, &wc, now()).unwrap();
    assert!(!view(&store, &wc, now()).unwrap().stale);

    let entity = store
        .graph()
        .create_entity(
            &crate::graph::entities::NewEntity {
                kind: "document".into(),
                canonical_name: "DOC72".into(),
                aliases: Vec::new(),
                deadline: None,
            },
            now(),
        )
        .unwrap();
    store
        .graph()
        .link_entity(wc.as_str(), entity.entity_id.as_str())
        .unwrap();
    assert!(
        view(&store, &wc, now()).unwrap().stale,
        "linking changes the view"
    );
    rebuild(&store, &wc, now()).unwrap();
    store
        .graph()
        .edit_entity(
            entity.entity_id.as_str(),
            &crate::graph::entities::EntityEdit {
                canonical_name: Some("DOC72 entity graph".into()),
                ..Default::default()
            },
            now(),
        )
        .unwrap();
    assert!(
        view(&store, &wc, now()).unwrap().stale,
        "renaming a linked entity too"
    );
    let c = rebuild(&store, &wc, now()).unwrap();
    assert_eq!(c.entities[0].text, "DOC72 entity graph");
    // The next day the view is stale: windows and decay are evaluated per day.
    assert!(view(&store, &wc, now() + Duration::days(1)).unwrap().stale);
    // A replay of an earlier day never sees a later day's view: it is rebuilt for that day.
    let earlier = view(&store, &wc, now() - Duration::days(3)).unwrap();
    assert!(!earlier.stale);
    assert_eq!(
        earlier.constellation.as_of,
        (now() - Duration::days(3)).date_naive()
    );

    // A corrupt view is derived data: it is rebuilt, not an error.
    std::fs::write(view_path(&store, &wc), b"{not json").unwrap();
    let read = view(&store, &wc, now()).unwrap();
    assert!(!read.stale);
    assert_eq!(read.constellation.work_context_name, "Spec");
}
