//! Work-context resolution (CSA §3.1): rules first and the most specific one, then the previous
//! context, then `wc_auto_…` from the primary entities, else `wc_unlinked`; and merging.

use std::sync::Arc;

use chrono::TimeZone;

use super::*;
use crate::base::ids::SessionId;
use crate::continuity::{CaptureMode, ContinuityEntry, EntryContent, KeyDecisionContent};
use crate::graph::entities::NewEntity;

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

/// A store captured before projects existed: its sessions sit in auto contexts. The first ingest
/// that knows projects moves every auto context holding only one project's sessions into that
/// project's context, as a merge does, and loses no entry; a person's rule made later still wins.
#[test]
fn projects_take_over_auto_contexts_of_an_older_store_and_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    store.set_config("mode", "deterministic").unwrap();
    store.set_config("auto_project_contexts", "false").unwrap();
    let config = store.config().unwrap();
    // Two real Claude Code transcripts in two folders, written here so the test needs no corpus.
    let root = dir.path().join("claude");
    let spotter_session = "5a1e0000-0000-4000-8000-000000000001";
    for (session, cwd, said) in [
        (
            spotter_session,
            "/home/ann/work/spotter",
            "Why does scrollback break in tmux?",
        ),
        (
            "5a1e0000-0000-4000-8000-000000000002",
            "/home/ann/work/tracker",
            "Add the export button.",
        ),
    ] {
        let folder = root.join(cwd.replace('/', "-"));
        std::fs::create_dir_all(&folder).unwrap();
        let line = |n: u32, kind: &str, message: serde_json::Value| {
            serde_json::json!({
                "parentUuid": (n > 0).then(|| format!("{session}-{}", n - 1)),
                "isSidechain": false, "cwd": cwd, "sessionId": session, "type": kind,
                "message": message, "uuid": format!("{session}-{n}"),
                "timestamp": "2026-11-20T10:00:00.000Z",
            })
            .to_string()
        };
        let text = [
            line(
                0,
                "user",
                serde_json::json!({"role": "user", "content": said}),
            ),
            line(
                1,
                "assistant",
                serde_json::json!({"role": "assistant",
                "content": [{"type": "text", "text": "Looking into it."}]}),
            ),
        ]
        .join("\n");
        std::fs::write(folder.join(format!("{session}.jsonl")), text + "\n").unwrap();
    }
    crate::usecase::ingest(
        &store,
        &[crate::inputs::ingest::SourceRoot {
            harness: crate::inputs::transcripts::Harness::ClaudeCode,
            root,
        }],
        &mut |_| {},
        crate::base::clock::now(),
    )
    .unwrap();
    let g = store.graph();
    assert!(
        g.work_contexts()
            .unwrap()
            .iter()
            .all(|w| w.origin != Origin::Project),
        "no project contexts while turned off"
    );
    // What an older build did with one project's session: an auto context from its entities,
    // holding its entries.
    let session = spotter_session;
    let entity = g
        .create_entity(
            &NewEntity {
                kind: "topic".into(),
                canonical_name: "xterm.js scrollback".into(),
                ..NewEntity::default()
            },
            now(),
        )
        .unwrap()
        .entity_id;
    let auto = auto_id(std::slice::from_ref(&entity));
    g.with_conn_result(|c| {
        ensure_auto_in(c, &auto, std::slice::from_ref(&entity), now())?;
        c.execute(
            "INSERT INTO session_captures (session_id, work_context_id, last_seq, captured_at)
             VALUES (?1, ?2, 2, ?3)",
            params![session, auto.as_str(), ts(now())],
        )
    })
    .unwrap();
    let old = ContinuityEntry::new(
        auto.clone(),
        SessionId::new(session).unwrap(),
        now(),
        CaptureMode::Deterministic,
        EntryContent::KeyDecision(KeyDecisionContent {
            decision: "Keep tmux out of the web terminal".into(),
            rationale: None,
            superseded_by: None,
        }),
        &config,
    );
    store.log(&auto).append(&old).unwrap();
    let entries = |store: &Store| -> usize {
        store
            .log_ids()
            .unwrap()
            .iter()
            .map(|id| store.log(id).read().unwrap().entries.len())
            .sum()
    };
    let before = entries(&store);

    store.set_config("auto_project_contexts", "true").unwrap();
    let report = ensure_projects(&store, &BTreeSet::new(), now()).unwrap();
    assert!(!report.created.is_empty());
    let spotter = crate::graph::projects::of_cwd("/home/ann/work/spotter", None).unwrap();
    let project = WorkContextId::new(spotter.work_context_id()).unwrap();
    assert_eq!(report.merged, vec![(auto.clone(), project.clone())]);
    let moved = store.log(&project).read().unwrap().entries;
    assert!(moved.iter().any(|e| e.entry_id == old.entry_id));
    // Every entry is still there (merges copy, and keep the absorbed log aside).
    assert_eq!(entries(&store), before);
    for (auto, project) in &report.merged {
        assert!(g.work_context(auto.as_str()).is_err(), "{auto} merged away");
        let wc = g.work_context(project.as_str()).unwrap();
        assert_eq!(wc.origin, Origin::Project);
    }
    // Remembered: a second run makes nothing again, even after the person deletes nothing.
    let again = ensure_projects(&store, &BTreeSet::new(), now()).unwrap();
    assert!(again.created.is_empty() && again.merged.is_empty());

    // A rule the person writes afterwards for the same folder takes its sessions from the project.
    let mine = g
        .create_work_context(
            &NewWorkContext {
                name: "Spotter terminal".into(),
                rules: vec![(LinkRuleKind::Cwd, "/home/ann/work/spotter".into())],
                ..NewWorkContext::default()
            },
            now(),
        )
        .unwrap();
    let (wc, resolution) = g
        .resolve_work_context(&SessionFacts {
            session_id: "x",
            cwd: Some("/home/ann/work/spotter/web"),
            ..SessionFacts::default()
        })
        .unwrap();
    assert_eq!(wc, mine.work_context_id);
    assert!(matches!(resolution, Resolution::Rule { .. }));
}

/// Which contexts a session's mere mention of an entity is news to: the contexts that link it,
/// and those where it is among the most mentioned, but never for a file named relative to its
/// project, and only through links for an entity nearly every context mentions.
#[test]
fn a_mention_reaches_the_contexts_it_is_central_to() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let g = store.graph();
    let entity = |kind: &str, name: &str| {
        g.create_entity(
            &NewEntity {
                kind: kind.into(),
                canonical_name: name.into(),
                ..NewEntity::default()
            },
            now(),
        )
        .unwrap()
        .entity_id
    };
    let context = |name: &str, linked: Vec<EntityId>| {
        g.create_work_context(
            &NewWorkContext {
                name: name.into(),
                entity_ids: linked,
                ..NewWorkContext::default()
            },
            now(),
        )
        .unwrap()
        .work_context_id
    };
    // What capture records: how often each context's sessions mentioned each entity.
    let mention = |wc: &WorkContextId, e: &EntityId, n: i64| {
        g.with_conn(|c| {
            c.execute(
                "INSERT INTO context_entity_mentions
                     (work_context_id, entity_id, mentions, last_session_id, last_seen_at)
                 VALUES (?1, ?2, ?3, 's', '2026-11-22T09:00:00Z')",
                params![wc.as_str(), e.as_str(), n],
            )
        })
        .unwrap();
    };
    let ledger = entity("matter", "Ledger");
    let relative = entity("file", "src/config.rs");
    let absolute = entity("file", "/srv/shared/config.toml");
    let everyone = entity("person", "Marco");
    let filler: Vec<EntityId> = (0..6).map(|i| entity("tool", &format!("T{i}"))).collect();

    let source = context("Source", vec![]);
    let linked = context("Linked", vec![ledger.clone()]);
    let central = context("Central", vec![]);
    let peripheral = context("Peripheral", vec![]);
    for e in [&ledger, &relative, &absolute, &everyone] {
        mention(&source, e, 1);
    }
    mention(&central, &ledger, 10);
    mention(&central, &relative, 10);
    mention(&central, &absolute, 10);
    // Six entities mentioned more often push the ledger out of the peripheral context's top five.
    for (i, f) in filler.iter().enumerate() {
        mention(&peripheral, f, 20 + i as i64);
    }
    mention(&peripheral, &ledger, 1);
    // The person's own name comes up in more contexts than REFERENCE_MAX_CONTEXTS.
    let mut crowd = Vec::new();
    for i in 0..=REFERENCE_MAX_CONTEXTS {
        let wc = context(&format!("Crowd {i}"), vec![]);
        mention(&wc, &everyone, 50);
        crowd.push(wc);
    }
    let crowd_linked = context("Crowd linked", vec![everyone.clone()]);

    let targets = |e: &EntityId| -> String {
        let ids = g
            .with_conn(|c| session_reference_targets_in(c, e.as_str(), Some(source.as_str())))
            .unwrap();
        ids.iter().map(|w| w.as_str()).collect::<Vec<_>>().join(" ")
    };
    let table = format!(
        "ledger: {}\nsrc/config.rs: {}\n/srv/shared/config.toml: {}\nMarco: {}\n",
        targets(&ledger),
        targets(&relative),
        targets(&absolute),
        targets(&everyone),
    );
    expect_test::expect![[r#"
        ledger: wc_central wc_linked
        src/config.rs: 
        /srv/shared/config.toml: wc_central
        Marco: wc_crowd_linked
    "#]]
    .assert_eq(&table);
    let _ = (linked, central, peripheral, crowd_linked);
}

/// The indexed rules place every session, and find every file's and project's context, exactly
/// as comparing the path with each rule one by one does (`projects::within`), on rules written
/// in every shape a person or a harness writes a folder.
#[test]
fn link_rules_place_as_every_rule_compared_one_by_one() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let rules: &[(&str, &str, &str)] = &[
        ("wc_root", "cwd", "/"),
        ("wc_home", "cwd", "/home/ana"),
        ("wc_projects", "cwd", "/home/ana/projects/"),
        ("wc_projects_b", "cwd", "//home//ana/projects"),
        ("wc_app", "cwd", "/home/ana/projects/app"),
        ("wc_app_made", "cwd", "/home/ana/projects/app"),
        ("wc_apple", "cwd", "/home/ana/projects/apple"),
        ("wc_win", "cwd", "C:\\Work"),
        ("wc_win_app", "cwd", "c:/work/App/"),
        ("wc_drive", "cwd", "D:\\"),
        ("wc_blank", "cwd", "   "),
        ("wc_agent", "session_key", "agent:main:*"),
        ("wc_session", "session_key", "s-1?"),
        ("wc_entities", "entity_set", "ent_a,ent_b"),
        ("wc_entity", "entity_set", "ent_a"),
    ];
    store
        .graph()
        .with_conn(|c| {
            for (wc, kind, pattern) in rules {
                c.execute(
                    "INSERT OR IGNORE INTO work_contexts
                         (work_context_id, name, origin, created_at, updated_at)
                     VALUES (?1, ?1, 'named', '2026-11-22T09:00:00Z', '2026-11-22T09:00:00Z')",
                    [wc],
                )?;
                c.execute(
                    "INSERT INTO work_context_link_rules (work_context_id, rule_kind, pattern)
                     VALUES (?1, ?2, ?3)",
                    params![wc, kind, pattern],
                )?;
            }
            c.execute(
                "INSERT INTO projects (project_key, root, name, work_context_id, made, created_at)
                 VALUES ('app', '/home/ana/projects/app', 'app', 'wc_app_made', 1,
                         '2026-11-22T09:00:00Z')",
                [],
            )?;
            Ok(())
        })
        .unwrap();
    let indexed = store.graph().link_rules().unwrap();
    let (all, made): (Vec<(String, LinkRule)>, BTreeSet<String>) = store
        .graph()
        .with_conn(|c| {
            let made = c
                .prepare("SELECT work_context_id FROM projects WHERE made = 1")?
                .query_map([], |r| r.get(0))?
                .collect::<rusqlite::Result<_>>()?;
            Ok((rules_in(c, None)?, made))
        })
        .unwrap();
    let within = crate::graph::projects::within;
    // The reference: every rule in rule id order, a later one only when strictly better.
    let one_by_one = |facts: &SessionFacts<'_>| -> Option<String> {
        let set: BTreeSet<&str> = facts.entity_ids.iter().map(EntityId::as_str).collect();
        let mut best: Option<((bool, u8, usize), &str)> = None;
        for (wc, rule) in &all {
            let person = !made.contains(wc);
            let score = match rule.kind {
                LinkRuleKind::Cwd => facts
                    .cwd
                    .filter(|cwd| within(cwd, &rule.pattern))
                    .map(|_| (person, 3, rule.pattern.len())),
                LinkRuleKind::SessionKey => (glob_match(&rule.pattern, facts.session_id)
                    || facts.agent_id.is_some_and(|a| glob_match(&rule.pattern, a)))
                .then_some((person, 2, rule.pattern.len())),
                LinkRuleKind::EntitySet => {
                    let ids: Vec<&str> = rule.pattern.split(',').collect();
                    ids.iter()
                        .all(|id| set.contains(id))
                        .then_some((person, 1, ids.len()))
                }
            };
            if let Some(score) = score
                && best.is_none_or(|(b, _)| score > b)
            {
                best = Some((score, wc));
            }
        }
        best.map(|(_, wc)| wc.to_owned())
    };
    let longest = |path: &str, ties_to_lower: bool| -> Option<String> {
        let mut best: Option<(usize, &str)> = None;
        for (wc, rule) in &all {
            if rule.kind == LinkRuleKind::Cwd
                && within(path, &rule.pattern)
                && best.is_none_or(|(len, _)| {
                    rule.pattern.len() > len || (!ties_to_lower && rule.pattern.len() == len)
                })
            {
                best = Some((rule.pattern.len(), wc));
            }
        }
        best.map(|(_, wc)| wc.to_owned())
    };
    let paths = [
        "/",
        "/home",
        "/home/ana",
        "/home/ana/",
        "/home/anaconda",
        "/home/ana/projects",
        "/home/ana/projects/app",
        "/home/ana/projects/app/src/main.rs",
        "/home/ana/projects/apple/x",
        "/home/ana/projects/appl",
        "//home/ana//projects/app//",
        "C:\\Work",
        "c:\\work\\app\\src",
        "C:/WORK/APP",
        "C:\\Workshop",
        "D:\\data",
        "relative/path",
        "",
    ];
    let ents = [
        EntityId::new("ent_a").unwrap(),
        EntityId::new("ent_b").unwrap(),
    ];
    let mut checked = 0;
    for cwd in paths.iter().map(Some).chain([None]) {
        for (session, agent) in [("s-12", None), ("s-123", Some("agent:main:x")), ("x", None)] {
            for entity_ids in [&ents[..0], &ents[..1], &ents[..]] {
                let facts = SessionFacts {
                    session_id: session,
                    agent_id: agent,
                    cwd: cwd.copied(),
                    entity_ids,
                    previous: None,
                };
                assert_eq!(
                    indexed.best(&facts).map(|(wc, _)| wc),
                    one_by_one(&facts),
                    "{facts:?}"
                );
                checked += 1;
            }
        }
        if let Some(path) = cwd {
            assert_eq!(
                indexed.for_path(path).map(|wc| wc.as_str().to_owned()),
                longest(path, true),
                "{path}"
            );
            assert_eq!(indexed.covering(path), longest(path, false), "{path}");
        }
    }
    assert_eq!(checked, (paths.len() + 1) * 9);
    // The cases the table is there for, spelled out.
    let at = |cwd: &str| {
        indexed.best(&SessionFacts {
            session_id: "x",
            cwd: Some(cwd),
            ..SessionFacts::default()
        })
    };
    assert_eq!(at("/home/ana/projects/app/src").unwrap().0, "wc_app");
    assert_eq!(at("/home/ana/projects/apple/x").unwrap().0, "wc_apple");
    assert_eq!(at("c:\\work\\app\\src").unwrap().0, "wc_win_app");
    assert_eq!(at("/srv").unwrap().0, "wc_root");
}

/// The graph hands out the same rules while nothing that places a session changed, and sees a
/// rule or a project row another process adds, changes or removes at once.
#[test]
fn link_rules_follow_every_change_from_any_process() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    // A second store on the same directory plays another process (the app, `elnor watch`).
    let other = Store::open(dir.path()).unwrap();
    let placed = |cwd: &str| -> String {
        let (wc, _) = store
            .graph()
            .resolve_work_context(&SessionFacts {
                session_id: "s1",
                cwd: Some(cwd),
                ..SessionFacts::default()
            })
            .unwrap();
        wc.as_str().to_owned()
    };
    assert_eq!(placed("/work/app/src"), "wc_unlinked");
    let named = |name: &str, folder: &str| {
        other
            .graph()
            .create_work_context(
                &NewWorkContext {
                    name: name.into(),
                    rules: vec![(LinkRuleKind::Cwd, folder.into())],
                    ..NewWorkContext::default()
                },
                now(),
            )
            .unwrap()
    };
    let app = named("App", "/work/app");
    assert_eq!(placed("/work/app/src"), app.work_context_id.as_str());
    let first = store.graph().link_rules().unwrap();
    assert!(Arc::ptr_eq(&first, &store.graph().link_rules().unwrap()));
    // A narrower rule of another context takes the folder at once.
    let src = named("Src", "/work/app/src");
    assert_eq!(placed("/work/app/src"), src.work_context_id.as_str());
    // A project row saying ELNOR made that context: the person's broader rule now outranks it.
    other
        .graph()
        .with_conn(|c| {
            c.execute(
                "INSERT INTO projects (project_key, root, name, work_context_id, made, created_at)
                 VALUES ('src', '/work/app/src', 'src', ?1, 1, '2026-11-22T09:00:00Z')",
                [src.work_context_id.as_str()],
            )
        })
        .unwrap();
    assert_eq!(placed("/work/app/src"), app.work_context_id.as_str());
    // A rule's pattern edited in place, then the context deleted (its rules cascade away).
    other
        .graph()
        .with_conn(|c| {
            c.execute(
                "UPDATE work_context_link_rules SET pattern = '/elsewhere'
                 WHERE work_context_id = ?1",
                [app.work_context_id.as_str()],
            )
        })
        .unwrap();
    assert_eq!(placed("/work/app/src"), src.work_context_id.as_str());
    other
        .graph()
        .with_conn(|c| {
            c.execute(
                "DELETE FROM work_contexts WHERE work_context_id = ?1",
                [src.work_context_id.as_str()],
            )
        })
        .unwrap();
    assert_eq!(placed("/work/app/src"), "wc_unlinked");
    assert!(!Arc::ptr_eq(&first, &store.graph().link_rules().unwrap()));
}
