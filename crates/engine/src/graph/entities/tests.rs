//! Entity create, edit and merge on a real SQLite file, and the outbox events they write.

use chrono::TimeZone;

use super::*;
use crate::Store;

fn events(g: &Graph) -> Vec<String> {
    g.with_conn(|c| {
        let mut s = c.prepare("SELECT payload FROM events ORDER BY event_id")?;
        s.query_map([], |r| r.get::<_, String>(0))?
            .collect::<rusqlite::Result<Vec<String>>>()
    })
    .unwrap()
    .into_iter()
    .map(|p| {
        let e: EntityUpserted = serde_json::from_str(&p).unwrap();
        format!("{} {} {}", e.entity_id, e.change, e.source_kind)
    })
    .collect()
}

#[test]
fn create_edit_merge_write_events_and_keep_names_unambiguous() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let g = store.graph();
    let now = Utc.with_ymd_and_hms(2026, 11, 22, 9, 0, 0).unwrap();
    let h = g
        .create_entity(
            &NewEntity {
                kind: "Matter".into(),
                canonical_name: "  Henderson   v. Marex ".into(),
                aliases: vec!["Henderson".into(), "henderson v. marex".into()],
                deadline: Some("2026-12-01".into()),
            },
            now,
        )
        .unwrap();
    assert_eq!(h.entity_id.as_str(), "ent_henderson_v_marex");
    assert_eq!(h.kind, "matter");
    assert_eq!(h.canonical_name, "Henderson v. Marex");
    assert_eq!(h.aliases, vec!["Henderson".to_owned()]);
    assert_eq!(h.deadline.as_deref(), Some("2026-12-01T23:59:59.000000Z"));
    // A name that already resolves to an entity is refused, whatever its case.
    let dup = g.create_entity(
        &NewEntity {
            kind: "person".into(),
            canonical_name: "HENDERSON".into(),
            ..NewEntity::default()
        },
        now,
    );
    assert!(
        dup.unwrap_err()
            .to_string()
            .contains("already belongs to entity ent_henderson_v_marex")
    );
    let m = g
        .create_entity(
            &NewEntity {
                kind: "matter".into(),
                canonical_name: "Marex litigation".into(),
                ..NewEntity::default()
            },
            now,
        )
        .unwrap();
    let edited = g
        .edit_entity(
            m.entity_id.as_str(),
            &EntityEdit {
                add_aliases: vec!["Marex".into()],
                deadline: Some(None),
                ..EntityEdit::default()
            },
            now,
        )
        .unwrap();
    assert_eq!(edited.aliases, vec!["Marex".to_owned()]);
    let merged = g
        .merge_entities(h.entity_id.as_str(), m.entity_id.as_str(), now)
        .unwrap();
    assert_eq!(
        merged.aliases,
        vec!["Henderson", "Marex", "Marex litigation"]
    );
    assert!(g.entity(m.entity_id.as_str()).is_err());
    assert_eq!(
        events(g),
        vec![
            "ent_henderson_v_marex created manual",
            "ent_marex_litigation created manual",
            "ent_marex_litigation edited manual",
            "ent_henderson_v_marex merged manual",
        ]
    );
    assert!(
        g.merge_entities("ent_henderson_v_marex", "ent_henderson_v_marex", now)
            .is_err()
    );
    assert!(
        g.edit_entity("ent_nope", &EntityEdit::default(), now)
            .is_err()
    );
}

#[test]
fn bad_names_kinds_and_deadlines_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let now = Utc.with_ymd_and_hms(2026, 11, 22, 9, 0, 0).unwrap();
    let bad = |kind: &str, name: &str, deadline: Option<&str>| {
        store
            .graph()
            .create_entity(
                &NewEntity {
                    kind: kind.into(),
                    canonical_name: name.into(),
                    aliases: vec![],
                    deadline: deadline.map(str::to_owned),
                },
                now,
            )
            .unwrap_err()
            .to_string()
    };
    assert!(bad("matter", "  ", None).contains("entity name"));
    assert!(bad("no spaces!", "X", None).contains("entity kind"));
    assert!(bad("matter", "X", Some("next tuesday")).contains("deadline"));
    assert_eq!(store.graph().entity_count().unwrap(), 0);
}

#[test]
fn slugs_are_ascii_or_hashed() {
    assert_eq!(
        slug("Sample Project Demo Prep", 40),
        "sample_project_demo_prep"
    );
    assert_eq!(slug("はくあ", 40).len(), 10);
}

/// The known-name automaton is kept while no name changes, and built again after any change to
/// a name, an alias or the set of entities, whichever process made it.
#[test]
fn known_names_follow_every_change_to_a_name_from_any_process() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    // A second store on the same directory plays another process (the app, `elnor watch`).
    let other = Store::open(dir.path()).unwrap();
    let now = Utc.with_ymd_and_hms(2026, 11, 22, 9, 0, 0).unwrap();
    let found = |text: &str| -> String {
        let known = store.graph().known_names().unwrap();
        let mut counts = std::collections::BTreeMap::new();
        known.matcher.count_in(text, &mut counts);
        counts
            .keys()
            .map(|id| id.as_str().to_owned())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let text = "Henderson met Marex about the Ledger import";
    assert_eq!(found(text), "");
    let h = other
        .graph()
        .create_entity(
            &NewEntity {
                kind: "matter".into(),
                canonical_name: "Henderson".into(),
                ..NewEntity::default()
            },
            now,
        )
        .unwrap();
    assert_eq!(found(text), h.entity_id.as_str());
    // Nothing changed: the same automaton is handed out again.
    let first = store.graph().known_names().unwrap();
    let again = store.graph().known_names().unwrap();
    assert!(std::sync::Arc::ptr_eq(&first, &again));
    // A reference, a kind or a deadline is no change to a name.
    other
        .graph()
        .edit_entity(
            h.entity_id.as_str(),
            &EntityEdit {
                kind: Some("person".into()),
                ..EntityEdit::default()
            },
            now,
        )
        .unwrap();
    assert!(std::sync::Arc::ptr_eq(
        &first,
        &store.graph().known_names().unwrap()
    ));
    // An alias added, a rename, an alias removed: each is seen at once.
    other
        .graph()
        .edit_entity(
            h.entity_id.as_str(),
            &EntityEdit {
                add_aliases: vec!["Marex".into()],
                ..EntityEdit::default()
            },
            now,
        )
        .unwrap();
    assert_eq!(found("Marex"), h.entity_id.as_str());
    other
        .graph()
        .edit_entity(
            h.entity_id.as_str(),
            &EntityEdit {
                canonical_name: Some("Ledger import".into()),
                remove_aliases: vec!["Marex".into()],
                ..EntityEdit::default()
            },
            now,
        )
        .unwrap();
    assert_eq!(found("Henderson and Marex"), "");
    assert_eq!(found(text), h.entity_id.as_str());
}
