//! Entities, Topics and durable nodes between two and three devices through a bare repository:
//! concurrent edits of one entity, Topic and node; a merge and a delete against later edits; a
//! retire against an edit made before it. Every device ends with the same graph, and a device
//! that joins afterwards folds the same graph from the events alone.

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, TimeZone, Utc};

use super::sync;
use crate::base::ids::{EntityId, TopicId};
use crate::graph::contexts::NewWorkContext;
use crate::graph::entities::{EntityEdit, NewEntity};
use crate::graph::nodes::{Change, Warrant};
use crate::graph::store::Store;
use crate::graph::topics::TopicRules;
use crate::review::promotion::{Evidence, ReviewDecision, Rule, decide};
use crate::usecase::{self, NewTopic, TopicEdit};

fn t(minutes: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 20, 9, 0, 0).unwrap() + Duration::minutes(minutes)
}

/// What the person made of entities, Topics and nodes, as text to compare (times left out:
/// each device stamps its own `updated_at`).
fn graph_state(store: &Store) -> BTreeMap<String, String> {
    let g = store.graph();
    let mut out = BTreeMap::new();
    for e in g.entities(None).unwrap() {
        let mut aliases = e.aliases.clone();
        aliases.sort();
        out.insert(
            format!("entity {}", e.entity_id),
            format!(
                "{} | {} | {:?} | {aliases:?}",
                e.canonical_name, e.kind, e.deadline
            ),
        );
    }
    for tp in g.topics().unwrap() {
        let members: Vec<String> = g
            .topic_members(&tp.topic_id, &[])
            .unwrap()
            .into_iter()
            .map(|m| format!("{}={}", m.doc_ref, m.status.as_str()))
            .collect();
        out.insert(
            format!("topic {}", tp.topic_id),
            format!(
                "{} | {} | {} | {members:?}",
                tp.name, tp.description, tp.collecting
            ),
        );
    }
    let nodes: Vec<(String, String, String, String)> = g
        .with_conn_result(|c| {
            let mut stmt = c.prepare(
                "SELECT obligation_id, text, lifecycle_state, use_warrant FROM obligations
                 UNION ALL
                 SELECT directive_id, text, lifecycle_state, use_warrant FROM memory_directives
                 ORDER BY 1",
            )?;
            stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
                .collect()
        })
        .unwrap();
    for (id, text, lifecycle, warrant) in nodes {
        out.insert(
            format!("node {id}"),
            format!("{text} | {lifecycle} | {warrant}"),
        );
    }
    let facts: Vec<String> = g
        .living_facts()
        .unwrap()
        .into_iter()
        .map(|f| format!("{}={}", f.fact_key, f.text))
        .collect();
    out.insert("living memory, in order".into(), facts.join(" | "));
    let config = store.config().unwrap();
    for f in crate::base::config::FIELDS.iter().filter(|f| f.travels()) {
        out.insert(
            format!("setting {}", f.key),
            config.get(f.key).unwrap().to_string(),
        );
    }
    out
}

fn entity(store: &Store, name: &str, kind: &str, now: DateTime<Utc>) -> EntityId {
    let new = NewEntity {
        kind: kind.into(),
        canonical_name: name.into(),
        aliases: Vec::new(),
        deadline: None,
    };
    usecase::create_entity(store, &new, now)
        .unwrap()
        .value
        .entity_id
}

fn topic(store: &Store, name: &str, now: DateTime<Utc>) -> TopicId {
    let new = NewTopic {
        name: name.into(),
        description: String::new(),
        rules: TopicRules::default(),
        collecting: false,
    };
    usecase::create_topic(store, &new, now)
        .unwrap()
        .topic
        .topic_id
}

/// An approved decision: the node every device will hold once the approval arrived.
fn node(store: &Store, wc: &str, now: DateTime<Utc>) -> String {
    let evidence = Evidence {
        captured_at: now,
        sessions: Vec::new(),
        age_days: 3,
        entity_id: None,
        entity_name: None,
        deadline: None,
        because: "referenced in two sessions".into(),
    };
    let p = store
        .graph()
        .insert_synced_proposal(
            Rule::ReferencedDecision,
            wc,
            "ce_decision",
            "Parse with a hand-written lexer",
            &evidence,
            now,
        )
        .unwrap();
    let approve = ReviewDecision::Approve { text: None };
    decide(store, &[p.proposal_id], &approve, now).unwrap();
    super::apply::node_id_for("ce_decision", Rule::ReferencedDecision)
}

/// The work context every device's node lives in, made at the start.
fn compiler(store: &Store) -> crate::base::ids::WorkContextId {
    let new = NewWorkContext {
        name: "Compiler".into(),
        ..NewWorkContext::default()
    };
    usecase::create_work_context(store, &new, t(0))
        .unwrap()
        .value
        .work_context_id
}

fn converge(n: usize) {
    let Some((_remote, req)) = super::tests::bare_remote() else {
        return;
    };
    let dirs: Vec<tempfile::TempDir> = (0..n).map(|_| tempfile::tempdir().unwrap()).collect();
    let stores: Vec<Store> = dirs
        .iter()
        .map(|d| Store::open(d.path()).unwrap())
        .collect();
    let first = &stores[0];

    // Device 0 makes the things everyone will edit, and sends them.
    let wc = compiler(first);
    let parser = entity(first, "Parser", "component", t(1));
    let lexer = entity(first, "Lexer", "component", t(1));
    let papers = topic(first, "Papers", t(2));
    let scratch = topic(first, "Scratch", t(2));
    let decision = node(first, wc.as_str(), t(3));
    let fact = |text: &str| {
        usecase::living::add_living_fact(first, text, t(4))
            .unwrap()
            .fact_id
    };
    let (vim, tabs, mornings) = (
        fact("Prefers vim keybindings"),
        fact("Indents with tabs"),
        fact("Works mornings"),
    );
    for s in &stores {
        sync(s, &req, t(5)).unwrap();
    }
    for (i, s) in stores.iter().enumerate() {
        assert_eq!(
            graph_state(s),
            graph_state(first),
            "device {i} after the first round"
        );
    }

    // Offline, every device edits the same entity, Topic and node.
    for (i, s) in stores.iter().enumerate() {
        let at = t(40 + i as i64);
        let edit = EntityEdit {
            deadline: Some(Some(format!("2026-12-0{}", i + 1))),
            add_aliases: vec![format!("parser {i}")],
            ..EntityEdit::default()
        };
        usecase::edit_entity(s, &parser, &edit, at).unwrap();
        let rename = TopicEdit {
            name: Some(format!("Papers (device {i})")),
            ..TopicEdit::default()
        };
        usecase::edit_topic(s, &papers, &rename, at).unwrap();
    }
    // Every device sets how long session summaries are kept (the last one is kept everywhere);
    // device 0 also points its embedder at a local server, which stays on device 0.
    for (i, s) in stores.iter().enumerate() {
        let days = format!("{}", 40 + i);
        usecase::configure(s, "session_summary_ttl_days", &days, t(40 + i as i64)).unwrap();
    }
    usecase::configure(first, "embedding_base_url", "http://127.0.0.1:9", t(40)).unwrap();
    // Living memory: device 1 rewords a fact and adds one; device 0 puts the last fact first
    // and removes one that device 1 rewords afterwards (a removal stays).
    let on = |s: &Store, id: i64| -> i64 {
        // Row ids are each store's own: the fact is found on the other store by its key.
        let key = first
            .graph()
            .living_facts()
            .unwrap()
            .into_iter()
            .find(|f| f.fact_id == id)
            .unwrap()
            .fact_key;
        s.graph().living_fact_by_key(&key).unwrap().unwrap().fact_id
    };
    let second = &stores[1];
    let (tabs_1, vim_1) = (on(second, tabs), on(second, vim));
    usecase::living::edit_living_fact(second, tabs_1, Some("Indents with two spaces"), None, t(41))
        .unwrap();
    usecase::living::add_living_fact(second, "Writes in British English", t(42)).unwrap();
    usecase::living::edit_living_fact(first, mornings, None, Some(1), t(43)).unwrap();
    usecase::living::remove_living_fact(first, vim, t(43)).unwrap();
    usecase::living::edit_living_fact(second, vim_1, Some("Prefers helix"), None, t(44)).unwrap();
    // Device 1 edits the node before device 0 retires it: the retire is in force everywhere,
    // over the edited text. A third device hedges it in between: the retire's warrant wins.
    usecase::change_node(
        &stores[1],
        &decision,
        Change::Edit("Parse with a hand-written lexer and a Pratt parser".into()),
        t(41),
    )
    .unwrap();
    if n > 2 {
        usecase::change_node(
            &stores[2],
            &decision,
            Change::Warrant(Warrant::Hedge, Some("not sure any more".into())),
            t(42),
        )
        .unwrap();
    }
    usecase::change_node(
        first,
        &decision,
        Change::Retire(Some("moved to a parser generator".into())),
        t(45),
    )
    .unwrap();
    // Device 1 merges the lexer into the parser while device 0 changes the lexer's kind: the
    // merge applies everywhere. Device 1 deletes a Topic that device 0 renames afterwards: it
    // stays deleted.
    usecase::merge_entities(&stores[1], &parser, &lexer, t(46)).unwrap();
    let kind = EntityEdit {
        kind: Some("tool".into()),
        ..EntityEdit::default()
    };
    usecase::edit_entity(first, &lexer, &kind, t(47)).unwrap();
    usecase::delete_topic(&stores[1], &scratch).unwrap();
    let rename = TopicEdit {
        name: Some("Scratch notes".into()),
        ..TopicEdit::default()
    };
    usecase::edit_topic(first, &scratch, &rename, t(48)).unwrap();

    // Syncs in both orders, twice around.
    for round in 0..2 {
        let order: Vec<usize> = if round == 0 {
            (0..n).collect()
        } else {
            (0..n).rev().collect()
        };
        for i in order {
            sync(&stores[i], &req, t(60 + round)).unwrap();
        }
    }
    for s in &stores {
        sync(s, &req, t(70)).unwrap();
    }

    let want = graph_state(first);
    for (i, s) in stores.iter().enumerate().skip(1) {
        assert_eq!(graph_state(s), want, "device {i} differs from device 0");
    }
    let last = n - 1;
    let e = first.graph().entity(parser.as_str()).unwrap();
    let deadline = format!("2026-12-0{}", last + 1);
    assert!(
        e.deadline
            .as_deref()
            .is_some_and(|d| d.starts_with(&deadline)),
        "the last deadline set is kept: {:?}",
        e.deadline
    );
    for i in 0..n {
        assert!(
            e.aliases.contains(&format!("parser {i}")),
            "{:?}",
            e.aliases
        );
    }
    assert!(
        e.aliases.iter().any(|a| a == "Lexer"),
        "the merge: {:?}",
        e.aliases
    );
    assert!(first.graph().entity(lexer.as_str()).is_err());
    assert_eq!(
        first.graph().topic(&papers).unwrap().name,
        format!("Papers (device {last})")
    );
    assert!(first.graph().topic(&scratch).is_err(), "a delete stays");
    let d = first.graph().node(&decision).unwrap().node;
    assert_eq!(d.lifecycle.as_str(), "retired");
    assert_eq!(d.warrant, Warrant::DoNotInject);
    assert_eq!(d.text, "Parse with a hand-written lexer and a Pratt parser");
    let texts = super::tests::fact_texts(first);
    assert_eq!(
        texts,
        [
            "Works mornings",
            "Indents with two spaces",
            "Writes in British English"
        ],
        "the order set, the edit kept, the removal kept, the new fact after"
    );
    let ttl = first
        .config()
        .unwrap()
        .get("session_summary_ttl_days")
        .unwrap();
    assert_eq!(ttl, serde_json::json!(40 + last));
    for s in &stores[1..] {
        let url = s.config().unwrap().get("embedding_base_url").unwrap();
        assert_ne!(
            url,
            serde_json::json!("http://127.0.0.1:9"),
            "a machine's setting stays"
        );
    }
    // The concurrent edits of one field are listed as conflicts on the devices that met them.
    let fields: Vec<String> = stores
        .iter()
        .flat_map(|s| s.graph().sync_conflicts().unwrap())
        .map(|c| c.field)
        .collect();
    for field in ["deadline", "name", "session_summary_ttl_days"] {
        assert!(fields.iter().any(|f| f == field), "{field}: {fields:?}");
    }

    // A device that joins now folds the same graph from the events alone.
    let late_dir = tempfile::tempdir().unwrap();
    let late = Store::open(late_dir.path()).unwrap();
    sync(&late, &req, t(80)).unwrap();
    assert_eq!(graph_state(&late), want, "a device that joins late");
}

#[test]
fn entities_topics_and_nodes_converge_on_two_devices() {
    converge(2);
}

#[test]
fn entities_topics_and_nodes_converge_on_three_devices() {
    converge(3);
}

#[test]
fn merges_of_merged_entities_end_in_one_entity_on_every_device() {
    let Some((_remote, req, _dirs, a, b)) = super::tests::two_devices() else {
        return;
    };
    let [lexer, scanner, tokenizer, parser, reader, grammar] = [
        "Lexer",
        "Scanner",
        "Tokenizer",
        "Parser",
        "Reader",
        "Grammar",
    ]
    .map(|name| entity(&a, name, "component", t(1)));
    sync(&a, &req, t(2)).unwrap();
    sync(&b, &req, t(3)).unwrap();
    // Offline: a merges into what b merges away, and both merge one entity into two others
    // (those two become one, kept by the smaller id: Grammar's).
    usecase::merge_entities(&a, &scanner, &lexer, t(4)).unwrap();
    usecase::merge_entities(&b, &tokenizer, &scanner, t(5)).unwrap();
    usecase::merge_entities(&a, &reader, &parser, t(6)).unwrap();
    usecase::merge_entities(&b, &grammar, &parser, t(7)).unwrap();
    for (store, at) in [(&a, 8), (&b, 9), (&a, 10)] {
        sync(store, &req, t(at)).unwrap();
    }
    assert_eq!(graph_state(&a), graph_state(&b));
    let names = |store: &Store| -> Vec<String> {
        let mut names: Vec<String> = store
            .graph()
            .entities(None)
            .unwrap()
            .into_iter()
            .map(|e| e.canonical_name)
            .collect();
        names.sort();
        names
    };
    assert_eq!(names(&a), ["Grammar", "Tokenizer"], "{:?}", graph_state(&a));
    let kept = a.graph().entity(tokenizer.as_str()).unwrap();
    assert!(
        kept.aliases.iter().any(|n| n == "Lexer"),
        "{:?}",
        kept.aliases
    );

    // Offline, each device merges one pair the other way round: a keeps the larger id, b the
    // smaller; both end with the smaller, whichever device syncs first.
    for first_a in [true, false] {
        let suffix = if first_a { "one" } else { "two" };
        let [small, large] = [format!("Alpha {suffix}"), format!("Beta {suffix}")]
            .map(|name| entity(&a, &name, "component", t(20)));
        sync(&a, &req, t(21)).unwrap();
        sync(&b, &req, t(22)).unwrap();
        usecase::merge_entities(&a, &large, &small, t(23)).unwrap();
        usecase::merge_entities(&b, &small, &large, t(24)).unwrap();
        let order = if first_a {
            [(&a, 25), (&b, 26), (&a, 27)]
        } else {
            [(&b, 25), (&a, 26), (&b, 27)]
        };
        for (store, at) in order {
            sync(store, &req, t(at)).unwrap();
        }
        assert_eq!(graph_state(&a), graph_state(&b), "{suffix}");
        for store in [&a, &b] {
            assert!(store.graph().entity(large.as_str()).is_err(), "{suffix}");
            let pair = store.graph().entity(small.as_str()).unwrap();
            assert!(
                pair.aliases.iter().any(|n| n.starts_with("Beta")),
                "{suffix}: {:?}",
                pair.aliases
            );
        }
    }
}

#[test]
fn two_topics_given_one_name_on_two_devices_read_alike_everywhere() {
    let Some((_remote, req, _dirs, a, b)) = super::tests::two_devices() else {
        return;
    };
    let papers = topic(&a, "Papers", t(1));
    let notes = topic(&a, "Notes", t(1));
    // Made on both devices under one name, offline.
    let reading_a = topic(&a, "Reading", t(2));
    let reading_b = topic(&b, "Reading", t(2));
    sync(&a, &req, t(3)).unwrap();
    sync(&b, &req, t(4)).unwrap();
    let rename = |store: &Store, id: &TopicId, name: &str, at| {
        let edit = crate::usecase::TopicEdit {
            name: Some(name.into()),
            ..Default::default()
        };
        usecase::edit_topic(store, id, &edit, at)
    };
    // Here, the name is another Topic's: refused, said plainly.
    let err = rename(&a, &notes, "papers", t(5)).unwrap_err();
    assert!(
        matches!(err, crate::base::error::Error::InvalidInput(_)),
        "{err}"
    );
    // Offline, each device gives a different Topic the same new name.
    rename(&a, &papers, "Sources", t(6)).unwrap();
    rename(&b, &notes, "Sources", t(7)).unwrap();
    for (store, at) in [(&a, 8), (&b, 9), (&a, 10)] {
        sync(store, &req, t(at)).unwrap();
    }
    let names = |store: &Store| -> Vec<String> {
        let g = store.graph();
        let mut names: Vec<String> = g.topics().unwrap().into_iter().map(|t| t.name).collect();
        for id in [&papers, &notes, &reading_a, &reading_b] {
            assert!(names.contains(&g.topic(id).unwrap().name), "one reading");
        }
        names.sort();
        names
    };
    assert_eq!(names(&a), names(&b));
    let (first, second) = if papers < notes {
        (&papers, &notes)
    } else {
        (&notes, &papers)
    };
    assert_eq!(a.graph().topic(first).unwrap().name, "Sources");
    assert_eq!(
        a.graph().topic(second).unwrap().name,
        format!("Sources ({second})")
    );
    assert_eq!(graph_state(&a), graph_state(&b));
    // The name as shown, given back with another change, renames nothing.
    let edit = crate::usecase::TopicEdit {
        name: Some(format!("Sources ({second})")),
        description: Some("kept apart".into()),
        ..Default::default()
    };
    usecase::edit_topic(&a, second, &edit, t(11)).unwrap();
    let stored: String = a
        .graph()
        .with_conn_result(|c| {
            c.query_row(
                "SELECT name FROM topics WHERE topic_id = ?1",
                [second],
                |r| r.get(0),
            )
        })
        .unwrap();
    assert_eq!(stored, "Sources");
}

#[test]
fn a_supersession_racing_a_retire_or_another_supersession_leaves_the_same_nodes_everywhere() {
    let Some((_remote, req, _dirs, a, b)) = super::tests::two_devices() else {
        return;
    };
    let wc = compiler(&a);
    let decision = node(&a, wc.as_str(), t(1));
    sync(&a, &req, t(2)).unwrap();
    sync(&b, &req, t(3)).unwrap();
    let change = |store: &Store, change: Change, at| {
        usecase::change_node(store, &decision, change, at).unwrap();
    };
    // Offline: a replaces the decision, then b, not knowing, retires it.
    change(
        &a,
        Change::Supersede("Parse with a Pratt parser".into()),
        t(4),
    );
    change(&b, Change::Retire(Some("dropped".into())), t(5));
    for (store, at) in [(&a, 6), (&b, 7), (&a, 8)] {
        sync(store, &req, t(at)).unwrap();
    }
    assert_eq!(graph_state(&a), graph_state(&b));
    let live = |store: &Store| -> Vec<String> {
        graph_state(store)
            .into_iter()
            .filter(|(k, v)| k.starts_with("node") && v.contains("| active |"))
            .map(|(k, _)| k.trim_start_matches("node ").to_owned())
            .collect()
    };
    let successor = live(&b);
    assert_eq!(
        successor.len(),
        1,
        "the successor is on b too: {:?}",
        graph_state(&b)
    );
    let old = b.graph().node(&decision).unwrap().node;
    assert_eq!(old.lifecycle.as_str(), "retired", "the later retire stands");

    // Offline, both replace the successor, each with its own text: both replacements stand.
    for (store, text, at) in [
        (&a, "Use a Pratt parser", 9),
        (&b, "Use recursive descent", 10),
    ] {
        let replace = Change::Supersede(text.into());
        usecase::change_node(store, &successor[0], replace, t(at)).unwrap();
    }
    for (store, at) in [(&a, 11), (&b, 12), (&a, 13)] {
        sync(store, &req, t(at)).unwrap();
    }
    assert_eq!(graph_state(&a), graph_state(&b));
    assert_eq!(live(&a).len(), 2, "{:?}", graph_state(&a));
}

#[test]
fn entities_a_capture_made_travel_with_their_links_to_work_contexts() {
    let Some((_remote, req, _dirs, a, b)) = super::tests::two_devices() else {
        return;
    };
    let wc = compiler(&a);
    // As a capture makes one: no person's hand in it, tied to the context it was found in.
    let new = NewEntity {
        kind: "file".into(),
        canonical_name: "src/lexer.rs".into(),
        aliases: Vec::new(),
        deadline: None,
    };
    let id = {
        let g = a.graph();
        let mut conn = g.conn();
        let tx = conn.transaction().unwrap();
        let id = crate::graph::entities::create_in(&tx, &new, None, t(1))
            .unwrap()
            .unwrap();
        tx.commit().unwrap();
        id
    };
    a.graph().link_entity(wc.as_str(), id.as_str()).unwrap();
    sync(&a, &req, t(2)).unwrap();
    sync(&b, &req, t(3)).unwrap();
    let linked = |store: &Store| -> Vec<(String, String)> {
        store
            .graph()
            .with_conn_result(|c| {
                let mut stmt = c.prepare(
                    "SELECT work_context_id, entity_id FROM work_context_entities ORDER BY 1, 2",
                )?;
                stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect()
            })
            .unwrap()
    };
    assert_eq!(
        b.graph().entity(id.as_str()).unwrap().canonical_name,
        "src/lexer.rs"
    );
    assert_eq!(linked(&b), linked(&a));
    assert_eq!(linked(&b), [(wc.to_string(), id.to_string())]);
    // Sent once: a second sync sends no change again.
    assert_eq!(sync(&a, &req, t(4)).unwrap().sent_changes, 0);
}

/// A store whose captures made many entities sends them all on its first sync, in one
/// transaction per kind of record rather than a commit (an fsync) each; prints the time.
#[test]
fn a_first_sync_sends_every_captured_entity_at_once() {
    let Some((_remote, req, _dirs, a, b)) = super::tests::two_devices() else {
        return;
    };
    let wc = compiler(&a);
    const N: usize = 1_000;
    {
        let g = a.graph();
        let mut conn = g.conn();
        let tx = conn.transaction().unwrap();
        for i in 0..N {
            let new = NewEntity {
                kind: "file".into(),
                canonical_name: format!("src/module_{i}.rs"),
                aliases: Vec::new(),
                deadline: None,
            };
            let id = crate::graph::entities::create_in(&tx, &new, None, t(1))
                .unwrap()
                .unwrap();
            tx.execute(
                "INSERT INTO work_context_entities (work_context_id, entity_id) VALUES (?1, ?2)",
                rusqlite::params![wc.as_str(), id.as_str()],
            )
            .unwrap();
        }
        tx.commit().unwrap();
    }
    let began = std::time::Instant::now();
    let sent = sync(&a, &req, t(2)).unwrap();
    eprintln!(
        "first sync of {N} captured entities and their links: {:.2?}",
        began.elapsed()
    );
    assert!(sent.sent_changes >= 2 * N, "{}", sent.sent_changes);
    sync(&b, &req, t(3)).unwrap();
    assert_eq!(b.graph().entities(None).unwrap().len(), N);
}
