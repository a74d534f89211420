//! Review decisions between two devices through a bare repository: an approval on one device
//! reaches the other even before its own nightly job proposed the entry, and an approve on one
//! device with a later reject on the other leaves the rejection in force on both, with both
//! decisions in the node's history and the conflict listed once.

use chrono::{DateTime, Duration, TimeZone, Utc};

use super::{SyncRequest, sync};
use crate::graph::contexts::NewWorkContext;
use crate::graph::store::Store;
use crate::review::promotion::{Evidence, ProposalStatus, ReviewDecision, Rule, decide};

/// A store's living-memory facts, their texts in order.
pub(super) fn fact_texts(store: &Store) -> Vec<String> {
    let facts = store.graph().living_facts().unwrap();
    facts.into_iter().map(|f| f.text).collect()
}

fn t(minutes: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 20, 9, 0, 0).unwrap() + Duration::minutes(minutes)
}

fn evidence() -> Evidence {
    Evidence {
        captured_at: t(0),
        sessions: Vec::new(),
        age_days: 20,
        entity_id: None,
        entity_name: None,
        deadline: None,
        because: "open for 20 days".into(),
    }
}

/// A bare remote and the request that syncs with it; `None`, said, without git.
pub(super) fn bare_remote() -> Option<(tempfile::TempDir, SyncRequest)> {
    let remote = tempfile::tempdir().unwrap();
    if !elnor_fixtures::bare_git_remote(remote.path()) {
        eprintln!("skipped: no git on PATH");
        return None;
    }
    let req = SyncRequest {
        remote: Some(remote.path().display().to_string()),
        owner: Some("dana".into()),
    };
    Some((remote, req))
}

/// A bare remote and two empty stores (devices) that sync with it; `None`, said, without git.
pub(super) fn two_devices() -> Option<(
    tempfile::TempDir,
    SyncRequest,
    Vec<tempfile::TempDir>,
    Store,
    Store,
)> {
    let (remote, req) = bare_remote()?;
    let dirs = vec![tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let a = Store::open(dirs[0].path()).unwrap();
    let b = Store::open(dirs[1].path()).unwrap();
    Some((remote, req, dirs, a, b))
}

#[test]
fn review_decisions_travel_and_the_later_one_is_in_force() {
    let Some((_remote, req, _dirs, a, b)) = two_devices() else {
        return;
    };
    let wc = crate::usecase::create_work_context(
        &a,
        &NewWorkContext {
            name: "Thesis".into(),
            ..NewWorkContext::default()
        },
        t(0),
    )
    .unwrap()
    .value
    .work_context_id;
    sync(&a, &req, t(1)).unwrap();
    sync(&b, &req, t(1)).unwrap();

    // A question both devices' nightly jobs proposed; a decision only device A has proposed.
    let q = Rule::UnresolvedQuestion;
    let pa = a
        .graph()
        .insert_synced_proposal(
            q,
            wc.as_str(),
            "ce_q1",
            "Confirm the ratification date",
            &evidence(),
            t(2),
        )
        .unwrap();
    let pb = b
        .graph()
        .insert_synced_proposal(
            q,
            wc.as_str(),
            "ce_q1",
            "Confirm the ratification date",
            &evidence(),
            t(2),
        )
        .unwrap();
    let d = a
        .graph()
        .insert_synced_proposal(
            Rule::ReferencedDecision,
            wc.as_str(),
            "ce_d1",
            "Use SQLite, not Postgres",
            &evidence(),
            t(2),
        )
        .unwrap();
    let approve = ReviewDecision::Approve { text: None };
    decide(&a, &[pa.proposal_id, d.proposal_id], &approve, t(10)).unwrap();
    let reject = ReviewDecision::Reject {
        reason: Some("already settled".into()),
    };
    decide(&b, &[pb.proposal_id], &reject, t(20)).unwrap();

    sync(&a, &req, t(30)).unwrap();
    sync(&b, &req, t(31)).unwrap();
    sync(&a, &req, t(32)).unwrap();

    let device_a = a.graph().device(t(0)).unwrap();
    let device_b = b.graph().device(t(0)).unwrap();
    for (store, name) in [(&a, "A"), (&b, "B")] {
        let g = store.graph();
        // The approval A alone made is in force on B too, with its text.
        let p = g
            .proposal_for_entry("ce_d1", "referenced_decision")
            .unwrap()
            .unwrap();
        assert_eq!(p.status, ProposalStatus::Approved, "{name}");
        let node = g.node(p.node_id.as_ref().unwrap().as_str()).unwrap();
        assert!(node.node.lifecycle.is_live(), "{name}");
        assert_eq!(node.node.text, "Use SQLite, not Postgres");
        // A's approve and B's later reject: the reject is in force on both.
        let p = g
            .proposal_for_entry("ce_q1", "unresolved_question")
            .unwrap()
            .unwrap();
        assert_eq!(p.status, ProposalStatus::Rejected, "{name}");
    }
    // On A the node its approval wrote is retired by B's rejection, and says so.
    let qa = a
        .graph()
        .proposal_for_entry("ce_q1", "unresolved_question")
        .unwrap()
        .unwrap();
    let node_id = super::apply::node_id_for("ce_q1", q);
    let on_a = a.graph().node(&node_id).unwrap();
    assert!(!on_a.node.lifecycle.is_live());
    assert!(
        on_a.history
            .iter()
            .any(|h| h.note.as_deref() == Some(&format!("rejected on {device_b}"))),
        "{:?}",
        on_a.history
    );
    assert_eq!(qa.status, ProposalStatus::Rejected);
    // On B, A's approval is in the node's history under the rejection.
    let history: Vec<(String, Option<String>)> = b
        .graph()
        .with_conn_result(|c| {
            let mut stmt = c.prepare("SELECT action, note FROM node_history WHERE node_id = ?1")?;
            stmt.query_map([&node_id], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect()
        })
        .unwrap();
    assert!(
        history
            .iter()
            .any(|(action, _)| *action == format!("approved on {device_a}")),
        "{history:?}"
    );
    // The conflict is listed once, on the device that met it.
    let conflicts: Vec<_> = [&a, &b]
        .iter()
        .flat_map(|s| s.graph().sync_conflicts().unwrap())
        .filter(|c| c.field == "decision")
        .collect();
    assert_eq!(conflicts.len(), 1, "{conflicts:?}");
    assert_eq!(conflicts[0].kept_value, "rejected");
    assert_eq!(conflicts[0].lost_value, "approved");
    // Today shows it once, in words, on the device that met it, then no more.
    let kind = crate::usecase::today::AlertKind::SyncConflict;
    let shown = |store: &Store| -> Vec<String> {
        crate::usecase::today::today(store, t(40))
            .unwrap()
            .alerts
            .into_iter()
            .filter(|a| a.kind == kind)
            .map(|a| a.message)
            .collect()
    };
    let first: Vec<String> = [&a, &b].iter().flat_map(|s| shown(s)).collect();
    assert_eq!(first.len(), 1, "{first:?}");
    assert!(
        first[0].contains("kept \"rejected\"") && first[0].contains("over \"approved\""),
        "{}",
        first[0]
    );
    assert!(shown(&a).is_empty() && shown(&b).is_empty());
}

#[test]
fn what_arrived_is_said_once_and_the_background_sync_runs_when_due() {
    let Some((_remote, req, _dirs, a, b)) = two_devices() else {
        return;
    };
    // Real time: the background rule compares log files' modification times with the last
    // sync, and the file system stamps those with the clock.
    let base = Utc::now();
    let at = |m: i64| base + Duration::minutes(m);
    let wc = crate::usecase::create_work_context(
        &a,
        &NewWorkContext {
            name: "Thesis".into(),
            ..NewWorkContext::default()
        },
        at(0),
    )
    .unwrap()
    .value
    .work_context_id;
    let push = crate::inputs::observe::Push {
        text: "Drafted chapter two".into(),
        work_context: Some(wc.clone()),
        entities: Vec::new(),
    };
    crate::usecase::push(&a, &push, at(0)).unwrap();

    // No remote: never due. A remote never synced with: due.
    assert!(!super::sync_due(&b, at(0)).unwrap());
    let sent = sync(&a, &req, at(1)).unwrap();
    assert!(
        sent.arrival.is_none(),
        "nothing arrived on the first device"
    );
    assert!(!super::sync_due(&a, at(2)).unwrap(), "just synced");
    assert!(
        !super::sync_due(&a, at(10)).unwrap(),
        "nothing changed here"
    );
    assert!(super::sync_due(&a, at(16)).unwrap(), "the timer");
    let rename = crate::graph::contexts::WorkContextEdit {
        name: Some("Thesis, chapter two".into()),
        ..Default::default()
    };
    crate::usecase::edit_work_context(&a, &wc, &rename, at(3)).unwrap();
    assert!(
        super::sync_due(&a, at(4)).unwrap(),
        "an edit waits to be sent"
    );

    // The second device: what arrived is said in words, kept for Settings, and shown on Today
    // once.
    let got = sync(&b, &req, at(5)).unwrap();
    let arrival = got.arrival.expect("entries and changes arrived");
    assert!(arrival.entries >= 1, "{arrival:?}");
    assert_eq!(arrival.contexts, vec!["Thesis".to_owned()]);
    assert!(
        arrival.changes.contains_key("work context changes"),
        "{arrival:?}"
    );
    let sentence = arrival.sentence();
    assert!(sentence.starts_with("From "), "{sentence}");
    assert!(sentence.contains("in Thesis"), "{sentence}");
    assert_eq!(
        super::sync_status(&b, at(5)).unwrap().last_arrival,
        Some(arrival.clone())
    );
    let kind = crate::usecase::today::AlertKind::SyncArrived;
    let shown = |store: &Store| -> Vec<String> {
        crate::usecase::today::today(store, at(6))
            .unwrap()
            .alerts
            .into_iter()
            .filter(|a| a.kind == kind)
            .map(|a| a.message)
            .collect()
    };
    let first = shown(&b);
    assert_eq!(first.len(), 1, "{first:?}");
    assert!(first[0].contains(&sentence), "{}", first[0]);
    assert!(shown(&b).is_empty(), "shown once");
    assert!(shown(&a).is_empty(), "nothing arrived on the first device");
}

#[test]
fn a_change_this_device_refuses_is_left_out_and_the_rest_still_arrives() {
    let Some((_remote, req, _dirs, a, b)) = two_devices() else {
        return;
    };
    // A change with an id no version accepts (as a newer ELNOR's, or a damaged line might be),
    // then an ordinary one after it.
    a.graph()
        .record_change(
            crate::graph::sync::GraphChange::TopicKnown {
                topic: "not a topic id!".into(),
                name: "Broken".into(),
                description: String::new(),
                rules: serde_json::json!({"query": "x"}),
                collecting: false,
            },
            t(1),
        )
        .unwrap();
    let wc = crate::usecase::create_work_context(
        &a,
        &NewWorkContext {
            name: "Thesis".into(),
            ..NewWorkContext::default()
        },
        t(2),
    )
    .unwrap()
    .value
    .work_context_id;
    sync(&a, &req, t(3)).unwrap();
    let got = sync(&b, &req, t(4)).expect("one refused change does not stop the sync");
    assert_eq!(got.arrived_changes, 2, "both were read: {got:?}");
    assert_eq!(b.graph().work_context(wc.as_str()).unwrap().name, "Thesis");
    // Kept as seen: the next sync does not trip over it again.
    let again = sync(&b, &req, t(5)).unwrap();
    assert_eq!(again.arrived_changes, 0);
}

#[test]
fn what_a_store_held_before_sync_recorded_it_travels_on_its_first_sync() {
    let Some((_remote, req, _dirs, a, b)) = two_devices() else {
        return;
    };
    // Written straight into the graph, as a store made before this version holds them.
    let g = a.graph();
    let topic = g
        .create_topic(
            "Reading list",
            "",
            &crate::graph::topics::TopicRules::default(),
            false,
            t(0),
        )
        .unwrap();
    g.add_living_fact("Prefers short answers", t(0)).unwrap();
    let entity = g
        .create_entity(
            &crate::graph::entities::NewEntity {
                kind: "project".into(),
                canonical_name: "Atlas".into(),
                aliases: Vec::new(),
                deadline: None,
            },
            t(0),
        )
        .unwrap();
    sync(&a, &req, t(1)).unwrap();
    sync(&b, &req, t(2)).unwrap();
    assert_eq!(
        b.graph().topic(&topic.topic_id).unwrap().name,
        "Reading list"
    );
    assert_eq!(fact_texts(&b), ["Prefers short answers"]);
    assert_eq!(
        b.graph()
            .entity(entity.entity_id.as_str())
            .unwrap()
            .canonical_name,
        "Atlas"
    );
    // Sent once: a second sync records nothing more.
    assert_eq!(sync(&a, &req, t(3)).unwrap().sent_changes, 0);
}

#[test]
fn the_light_says_off_running_failed_waiting_or_synced() {
    use super::{SyncLight, SyncProblem, SyncStatus, Synced};
    use crate::base::error::Error;

    let off = SyncStatus::default();
    assert_eq!(off.light(false, None), SyncLight::Off);
    let set = SyncStatus {
        remote: Some("/srv/memory.git".into()),
        ..SyncStatus::default()
    };
    assert_eq!(set.light(false, None), SyncLight::Synced);
    let failed = SyncProblem::of(&Err(Error::InvalidInput("git said no".into())));
    assert!(matches!(failed, Some(SyncProblem::Failed(_))));
    assert_eq!(set.light(true, failed.as_ref()), SyncLight::Running);
    assert_eq!(set.light(false, failed.as_ref()), SyncLight::Failed);
    // An unreachable remote waits: the work is committed here and goes with the next sync.
    let offline = SyncProblem::of(&Ok(Synced {
        offline: Some("no route to host\nsecond line".into()),
        ..Synced::default()
    }));
    assert_eq!(
        offline.as_ref().map(SyncProblem::message).as_deref(),
        Some("offline: no route to host")
    );
    assert_eq!(set.light(false, offline.as_ref()), SyncLight::Waiting);
    assert_eq!(SyncProblem::of(&Ok(Synced::default())), None);
    let unsent = SyncStatus {
        unsent_changes: 2,
        ..set.clone()
    };
    assert_eq!(unsent.light(false, None), SyncLight::Waiting);
    assert_eq!(SyncLight::Waiting.as_str(), "waiting");
}

/// A list in the sync state that one thread appends to while another takes it (as a sync records
/// arrivals while Today shows them): every item is taken or left exactly once.
#[test]
fn an_arrival_recorded_while_today_takes_the_list_is_shown_once() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("store")).unwrap();
    let graph = store.graph();
    const ITEMS: u32 = 200;
    let taken: Vec<u32> = std::thread::scope(|s| {
        s.spawn(|| {
            for i in 0..ITEMS {
                graph
                    .update_sync_state("test list", |held| {
                        let mut list: Vec<u32> = held
                            .map(|h| serde_json::from_str(&h).unwrap())
                            .unwrap_or_default();
                        list.push(i);
                        Ok(Some(serde_json::to_string(&list).unwrap()))
                    })
                    .unwrap();
            }
        });
        let reader = s.spawn(|| {
            let mut taken = Vec::new();
            for _ in 0..ITEMS {
                if let Some(h) = graph.take_sync_state("test list").unwrap() {
                    taken.extend(serde_json::from_str::<Vec<u32>>(&h).unwrap());
                }
                std::thread::yield_now();
            }
            taken
        });
        reader.join().unwrap()
    });
    let left: Vec<u32> = graph
        .sync_state("test list")
        .unwrap()
        .map(|h| serde_json::from_str(&h).unwrap())
        .unwrap_or_default();
    let mut all: Vec<u32> = taken.into_iter().chain(left).collect();
    all.sort_unstable();
    assert_eq!(all, (0..ITEMS).collect::<Vec<_>>());
}

/// A merge killed after it wrote another device's files and before it committed leaves them in
/// the work tree with no merge in progress. The next sync puts them back as the last commit had
/// them (committing them as this device's would make the following merge meet the same lines
/// added on both sides) and merges again: every fact arrives once.
#[test]
fn what_a_killed_merge_left_of_another_device_is_put_back_and_merged_again() {
    let Some((_remote, req, _dirs, a, b)) = two_devices() else {
        return;
    };
    crate::add_living_fact(&a, "first fact", t(1)).unwrap();
    sync(&a, &req, t(2)).unwrap();
    sync(&b, &req, t(3)).unwrap();
    crate::add_living_fact(&a, "second fact", t(4)).unwrap();
    sync(&a, &req, t(5)).unwrap();
    // What a merge into b writes before its commit: a's files as they are now, and a file of a
    // device b has not heard of yet.
    let (a_tree, b_tree) = (a.root().join("sync"), b.root().join("sync"));
    for entry in walkdir::WalkDir::new(a_tree.join("events")) {
        let entry = entry.unwrap();
        if entry.file_type().is_file() {
            let rel = entry.path().strip_prefix(&a_tree).unwrap();
            std::fs::create_dir_all(b_tree.join(rel).parent().unwrap()).unwrap();
            std::fs::copy(entry.path(), b_tree.join(rel)).unwrap();
        }
    }
    std::fs::write(b_tree.join("devices/dunknown.json"), "{}\n").unwrap();
    // … and what b itself wrote before the kill, into a context folder nothing tracks yet.
    let own = b_tree.join(format!(
        "continuity/wc_new/{}/2026-01-01.jsonl",
        b.graph().device(t(5)).unwrap()
    ));
    std::fs::create_dir_all(own.parent().unwrap()).unwrap();
    std::fs::write(&own, "").unwrap();
    // Meanwhile a goes on, so its file on the remote grows past what b's work tree holds.
    crate::add_living_fact(&a, "third fact", t(6)).unwrap();
    sync(&a, &req, t(7)).unwrap();
    sync(&b, &req, t(8)).expect("the next sync merges again");
    assert_eq!(fact_texts(&b), ["first fact", "second fact", "third fact"]);
    assert!(!b_tree.join("devices/dunknown.json").exists());
    assert!(own.exists(), "this device's own new file is kept");
    sync(&a, &req, t(9)).unwrap();
    assert_eq!(fact_texts(&a), ["first fact", "second fact", "third fact"]);
}

#[test]
fn an_edit_made_after_a_faster_clocks_edit_arrived_wins_on_every_device() {
    let Some((_remote, req, _dirs, a, b)) = two_devices() else {
        return;
    };
    let wc = crate::usecase::create_work_context(
        &a,
        &NewWorkContext {
            name: "Thesis".into(),
            ..NewWorkContext::default()
        },
        t(0),
    )
    .unwrap()
    .value
    .work_context_id;
    sync(&a, &req, t(1)).unwrap();
    sync(&b, &req, t(2)).unwrap();
    let rename = |store: &Store, name: &str, at| {
        let edit = crate::graph::contexts::WorkContextEdit {
            name: Some(name.into()),
            ..Default::default()
        };
        crate::usecase::edit_work_context(store, &wc, &edit, at).unwrap();
    };
    // b's clock runs two hours ahead of a's.
    rename(&b, "Thesis draft", t(120));
    sync(&b, &req, t(121)).unwrap();
    sync(&a, &req, t(5)).unwrap();
    let name = |store: &Store| store.graph().work_context(wc.as_str()).unwrap().name;
    assert_eq!(name(&a), "Thesis draft");
    // The person, on a, renames it again, having seen b's name: theirs is the later edit.
    rename(&a, "Thesis final", t(6));
    sync(&a, &req, t(7)).unwrap();
    sync(&b, &req, t(122)).unwrap();
    assert_eq!(name(&a), "Thesis final");
    assert_eq!(name(&b), "Thesis final", "the devices agree");
}
