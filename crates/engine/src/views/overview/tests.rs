//! The first-run overview on the real-history corpus: every project found, newest work first,
//! with true times and where each stood.

use super::*;

#[test]
fn a_first_ingest_of_real_history_shows_its_projects_newest_first() {
    let Some((_dir, store, _real)) = crate::test_support::real_store() else {
        return;
    };
    let secrets = crate::base::secrets::MemorySecrets::default();
    store.set_config("mode", "deterministic").unwrap();
    let now = crate::base::clock::now();
    let config = store.config().unwrap();
    crate::inputs::agent::Agent::new(&config)
        .sweep(&store, &secrets, now)
        .unwrap();
    let rows = projects(&store, 50).unwrap();
    assert!(rows.len() >= 6, "{rows:#?}");
    let times: Vec<&str> = rows
        .iter()
        .map(|r| r.last_active_at.as_deref().unwrap())
        .collect();
    let mut sorted = times.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(times, sorted, "newest work first");
    // True times: the corpus is older than its ingest, and no row says otherwise.
    let ingested = now.to_rfc3339();
    assert!(times.iter().all(|t| *t < ingested.as_str()));
    for r in &rows {
        println!(
            "{} [{}] {} session(s), last {} — {:?}; {:?}",
            r.name,
            r.origin,
            r.session_count,
            r.last_active_at.as_deref().unwrap_or("-"),
            r.latest_summary,
            r.open_questions
        );
    }
    assert!(rows.iter().all(|r| r.origin == Origin::Project));
    assert!(rows.iter().any(|r| r.latest_summary.is_some()));
}
