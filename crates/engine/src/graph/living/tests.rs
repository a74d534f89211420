use chrono::TimeZone;

use super::*;
use crate::graph::store::Store;

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 22, 12, 0, 0).unwrap()
}

#[test]
fn facts_are_added_counted_reordered_edited_and_removed() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let g = store.graph();
    let a = g
        .add_living_fact("  Will Brody,\n securities litigator.  ", now())
        .unwrap();
    assert_eq!(a.text, "Will Brody, securities litigator.");
    assert_eq!(
        a.tokens as usize,
        crate::base::tokens::count("Will Brody, securities litigator.\n")
    );
    let b = g
        .add_living_fact("Prefers direct assessment.", now())
        .unwrap();
    let c = g.add_living_fact("Cite section numbers.", now()).unwrap();
    let order = |g: &Graph| -> Vec<i64> {
        g.living_facts()
            .unwrap()
            .iter()
            .map(|f| f.fact_id)
            .collect()
    };
    assert_eq!(order(g), vec![a.fact_id, b.fact_id, c.fact_id]);
    g.edit_living_fact(c.fact_id, None, Some(1), now()).unwrap();
    assert_eq!(order(g), vec![c.fact_id, a.fact_id, b.fact_id]);
    let edited = g
        .edit_living_fact(
            b.fact_id,
            Some("Prefers direct assessment, no hedging."),
            None,
            now(),
        )
        .unwrap();
    assert_eq!(
        edited.tokens,
        crate::base::tokens::Line::new(&edited.text).tokens
    );
    g.remove_living_fact(a.fact_id).unwrap();
    assert_eq!(order(g), vec![c.fact_id, b.fact_id]);
    // Tier 3 takes facts first, then approved directives only.
    g.with_conn(|c| {
        c.execute_batch(
            "INSERT INTO memory_directives (directive_id, text, lifecycle_state, created_at, updated_at)
             VALUES ('md_1', 'Use paste-ready code.', 'active', '2026-11-01T00:00:00Z', '2026-11-01T00:00:00Z'),
                    ('md_2', 'Proposed, not approved.', 'proposed', '2026-11-01T00:00:00Z', '2026-11-01T00:00:00Z');",
        )
    })
    .unwrap();
    let items: Vec<(&str, String)> = g
        .living_memory(now())
        .unwrap()
        .into_iter()
        .filter(|i| i.excluded.is_none())
        .map(|i| (i.kind, i.line.text))
        .collect();
    assert_eq!(
        items,
        vec![
            ("fact", "Cite section numbers.".to_owned()),
            ("fact", "Prefers direct assessment, no hedging.".to_owned()),
            ("directive", "Use paste-ready code.".to_owned()),
        ]
    );
}

#[test]
fn bad_facts_are_refused_with_a_reason() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let g = store.graph();
    let err = |r: Result<LivingFact>| r.unwrap_err().to_string();
    assert_eq!(
        err(g.add_living_fact(" \n ", now())),
        "a fact cannot be empty"
    );
    assert!(err(g.add_living_fact(&"x".repeat(301), now())).contains("at most 300 characters"));
    assert_eq!(
        err(g.edit_living_fact(99, Some("x"), None, now())),
        "no living-memory fact \"99\" in this store"
    );
    assert!(g.remove_living_fact(99).is_err());
}
