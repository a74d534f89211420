//! Work-context resolution (CSA §3.1): rules first and the most specific one, then the previous
//! context, then `wc_auto_…` from the primary entities, else `wc_unlinked`; and merging.

use chrono::TimeZone;

use super::*;
use crate::continuity::{CaptureMode, ContinuityEntry, EntryContent, KeyDecisionContent};
use crate::entities::NewEntity;
use crate::ids::SessionId;

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 22, 9, 0, 0).unwrap()
}

#[test]
fn resolution_order_rules_previous_auto_unlinked() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let g = store.graph();
    let e = |name: &str| {
        g.create_entity(
            &NewEntity {
                kind: "matter".into(),
                canonical_name: name.into(),
                ..NewEntity::default()
            },
            now(),
        )
        .unwrap()
        .entity_id
    };
    let (a, b, c, d) = (e("Alpha"), e("Beta"), e("Gamma"), e("Delta"));
    let spotter = g
        .create_work_context(
            &NewWorkContext {
                name: "Spotter".into(),
                rules: vec![(LinkRuleKind::Cwd, "/home/marco/projects/".into())],
                ..NewWorkContext::default()
            },
            now(),
        )
        .unwrap();
    assert_eq!(spotter.work_context_id.as_str(), "wc_spotter");
    assert_eq!(spotter.rules[0].pattern, "/home/marco/projects");
    let deeper = g
        .create_work_context(
            &NewWorkContext {
                name: "Spotter".into(),
                rules: vec![(LinkRuleKind::Cwd, "/home/marco/projects/spotter".into())],
                ..NewWorkContext::default()
            },
            now(),
        )
        .unwrap();
    assert_eq!(deeper.work_context_id.as_str(), "wc_spotter_2");
    let keyed = g
        .create_work_context(
            &NewWorkContext {
                name: "Telegram".into(),
                rules: vec![(LinkRuleKind::SessionKey, "agent:main:*".into())],
                ..NewWorkContext::default()
            },
            now(),
        )
        .unwrap();
    let set = g
        .create_work_context(
            &NewWorkContext {
                name: "Alpha Beta".into(),
                rules: vec![(LinkRuleKind::EntitySet, format!("{b}, {a}"))],
                ..NewWorkContext::default()
            },
            now(),
        )
        .unwrap();
    let resolve =
        |cwd: Option<&str>, sid: &str, ents: &[EntityId], prev: Option<&WorkContextId>| {
            let (wc, why) = g
                .resolve_work_context(&SessionFacts {
                    session_id: sid,
                    agent_id: None,
                    cwd,
                    entity_ids: ents,
                    previous: prev,
                })
                .unwrap();
            format!("{wc} {}", serde_json::to_string(&why).unwrap())
        };
    let ab = [a.clone(), b.clone()];
    // The longest matching directory wins; a sibling directory does not match.
    assert!(
        resolve(Some("/home/marco/projects/spotter/lib"), "s", &ab, None)
            .starts_with("wc_spotter_2 ")
    );
    assert!(resolve(Some("/home/marco/projects/other"), "s", &[], None).starts_with("wc_spotter "));
    assert!(resolve(Some("/home/marco/projectsX"), "s", &[], None).starts_with("wc_unlinked"));
    assert!(
        resolve(None, "agent:main:main", &ab, None).starts_with(keyed.work_context_id.as_str())
    );
    assert!(resolve(None, "s", &ab, None).starts_with(set.work_context_id.as_str()));
    // Previous placement holds when no rule matches; entities otherwise give an auto context.
    let prev = WorkContextId::new("wc_auto_0123456789ab").unwrap();
    assert!(
        resolve(None, "s", std::slice::from_ref(&c), Some(&prev))
            .starts_with("wc_auto_0123456789ab {\"by\":\"previous\"}")
    );
    let four = [d.clone(), c.clone(), b.clone(), a.clone()];
    let auto = resolve(None, "s2", &four[..3], None);
    let again = resolve(None, "s3", &[b.clone(), c.clone(), d.clone()], None);
    assert_eq!(
        auto.split(' ').next(),
        again.split(' ').next(),
        "sorted ids give one auto id"
    );
    assert_eq!(
        auto.split(' ').next().unwrap(),
        auto_id(&[b, c, d]).as_str()
    );
    assert!(resolve(None, "s4", &[], None).starts_with("wc_unlinked {\"by\":\"unlinked\"}"));
    // Bad rules are clear errors.
    assert!(
        g.add_link_rule("wc_spotter", LinkRuleKind::EntitySet, "ent_missing")
            .is_err()
    );
    assert!(g.add_link_rule("wc_nope", LinkRuleKind::Cwd, "/x").is_err());
}

#[test]
fn merge_moves_rules_and_log_entries_and_keeps_the_old_log() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let g = store.graph();
    let keep = g
        .create_work_context(
            &NewWorkContext {
                name: "Henderson".into(),
                ..Default::default()
            },
            now(),
        )
        .unwrap();
    let gone = g
        .create_work_context(
            &NewWorkContext {
                name: "Henderson damages".into(),
                rules: vec![(LinkRuleKind::Cwd, "/cases/henderson".into())],
                ..Default::default()
            },
            now(),
        )
        .unwrap();
    let config = store.config().unwrap();
    let entry = ContinuityEntry::new(
        gone.work_context_id.clone(),
        SessionId::new("s1").unwrap(),
        now(),
        CaptureMode::Deterministic,
        EntryContent::KeyDecision(KeyDecisionContent {
            decision: "Price impact approach".into(),
            rationale: None,
            superseded_by: None,
        }),
        &config,
    );
    store.log(&gone.work_context_id).append(&entry).unwrap();
    let merged = store
        .merge_work_contexts(
            keep.work_context_id.as_str(),
            gone.work_context_id.as_str(),
            now(),
        )
        .unwrap();
    assert_eq!(merged.rules.len(), 1);
    let entries = store.log(&keep.work_context_id).read().unwrap().entries;
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].work_context_id, keep.work_context_id);
    assert!(!store.log(&gone.work_context_id).path().exists());
    assert_eq!(
        std::fs::read_dir(dir.path().join("continuity/merged"))
            .unwrap()
            .count(),
        1
    );
    assert!(g.work_context(gone.work_context_id.as_str()).is_err());
}

#[test]
fn globs() {
    assert!(glob_match("agent:*:main", "agent:x:main"));
    assert!(glob_match("a?c", "abc"));
    assert!(!glob_match("a?c", "ac"));
    assert!(glob_match("*", ""));
}
