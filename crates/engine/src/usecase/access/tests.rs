//! Who may search what, over the samples in a real store: the person sees everything and a
//! context filter keeps that context's turns; an agent session is kept to its permission's
//! contexts, needs a grant for `all`, and is refused past its rate limits.

use chrono::{DateTime, Duration, TimeZone, Utc};

use crate::base::error::Error;
use crate::base::ids::SessionId;
use crate::test_support::ingest_dir;
use crate::views::search::{Caller, Permission, SearchRequest, Strategy};

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 1, 12, 0, 0).unwrap()
}

fn request(caller: Caller, permission: Option<Permission>, at: DateTime<Utc>) -> SearchRequest {
    let mut req = SearchRequest::new("the", at);
    req.query = "sync batch token agent session".into();
    req.strategy = Strategy::LexicalOnly;
    req.hours = 0;
    req.max_results = 20;
    req.caller = caller;
    req.permission = permission;
    req
}

/// The work context each session of the hits is placed in.
fn context_of(store: &crate::Store, session: &str) -> Option<String> {
    store
        .graph()
        .with_conn(|c| {
            c.query_row(
                "SELECT work_context_id FROM transcript_sessions WHERE session_id = ?1",
                [session],
                |r| r.get(0),
            )
        })
        .unwrap()
}

#[test]
fn an_agent_reads_its_permission_s_contexts_within_its_rate_and_the_person_reads_all() {
    let dir = tempfile::tempdir().unwrap();
    let store = crate::Store::open(dir.path().join("store")).unwrap();
    ingest_dir(&store, &elnor_fixtures::samples());
    let secrets = crate::base::secrets::MemorySecrets::default();
    let search = |req: &SearchRequest| crate::usecase::search(&store, req, &secrets);

    // The person: every context.
    let everything = search(&request(Caller::Person, None, now())).unwrap();
    let contexts: std::collections::BTreeSet<Option<String>> = everything
        .hits
        .iter()
        .filter_map(|h| h.session_id.as_deref())
        .map(|s| context_of(&store, s))
        .collect();
    assert!(
        contexts.len() >= 2,
        "the samples span contexts: {contexts:?}"
    );
    // A turn hit says its row in the transcript view: the page at that row is that turn.
    let turns: Vec<_> = everything
        .hits
        .iter()
        .filter(|h| h.kind == crate::DocKind::Turn)
        .collect();
    assert!(!turns.is_empty());
    for h in turns {
        let page = crate::inputs::sessions::turn_page(
            store.graph(),
            h.session_id.as_deref().unwrap(),
            h.position.expect("a turn hit has its position"),
            1,
            false,
            100,
        )
        .unwrap();
        assert_eq!(page.turns[0].turn_id, h.turn_id.clone().unwrap(), "{h:?}");
    }
    // The person cannot ask for an agent's relative permission.
    let relative = request(Caller::Person, Some(Permission::Lineage), now());
    assert!(matches!(search(&relative), Err(Error::InvalidInput(_))));

    // A context filter keeps that context's turns (through their sessions), not only entries.
    let (session, wc) = everything
        .hits
        .iter()
        .find_map(|h| {
            let s = h.session_id.clone()?;
            Some((s.clone(), context_of(&store, &s)?))
        })
        .expect("a hit in a placed session");
    let mut filtered = request(Caller::Person, None, now());
    filtered.work_context = Some(crate::base::ids::WorkContextId::new(wc.as_str()).unwrap());
    let in_wc = search(&filtered).unwrap();
    assert!(
        in_wc.hits.iter().any(|h| h.kind == crate::DocKind::Turn),
        "{in_wc:?}"
    );
    for h in &in_wc.hits {
        let place = h
            .work_context_id
            .clone()
            .or_else(|| context_of(&store, h.session_id.as_deref().unwrap()));
        assert_eq!(place.as_deref(), Some(wc.as_str()), "{h:?}");
    }

    // An agent session, `current_only`: the same set as the person's filter.
    let agent = Caller::Agent {
        session: SessionId::new(session.as_str()).unwrap(),
    };
    let current = search(&request(
        agent.clone(),
        Some(Permission::CurrentOnly),
        now(),
    ))
    .unwrap();
    let ids = |r: &crate::SearchResult| r.hits.iter().map(|h| h.doc_id.clone()).collect::<Vec<_>>();
    let mut person_view = filtered.clone();
    person_view.max_results = 20;
    assert_eq!(ids(&current), ids(&search(&person_view).unwrap()));
    // `lineage` (the default) reaches at least as far, never past what the person sees.
    let lineage = search(&request(agent.clone(), None, now() + Duration::seconds(1))).unwrap();
    assert!(lineage.hits.len() >= current.hits.len());
    assert!(lineage.hits.len() <= everything.hits.len());

    // `all` needs the person's grant, per session.
    let later = now() + Duration::minutes(5);
    let all = request(agent.clone(), Some(Permission::All), later);
    let refused = search(&all).unwrap_err();
    assert!(matches!(refused, Error::Refused { .. }), "{refused}");
    assert!(refused.to_string().contains("query-grant"), "{refused}");
    let Caller::Agent { session: sid } = &agent else {
        unreachable!()
    };
    crate::usecase::access::grant_search_all(&store, sid, false, later).unwrap();
    assert_eq!(ids(&search(&all).unwrap()), ids(&everything));
    crate::usecase::access::grant_search_all(&store, sid, true, later).unwrap();
    assert!(search(&all).is_err());

    // Rate limits: 2 a minute for one session; another session has its own minute; 5 a day
    // for all agents together (the searches above were two days ago); the person is never
    // counted.
    store.set_config("query_rate_per_minute", "2").unwrap();
    store.set_config("query_rate_per_day", "5").unwrap();
    let t = now() + Duration::days(2);
    let other = Caller::Agent {
        session: SessionId::new("someone-else").unwrap(),
    };
    let at = |secs: i64| t + Duration::seconds(secs);
    search(&request(agent.clone(), None, at(0))).unwrap();
    // A search with no words is refused before it is counted.
    let mut empty = request(agent.clone(), None, at(0));
    empty.query = "  ".into();
    assert!(matches!(search(&empty), Err(Error::InvalidInput(_))));
    search(&request(agent.clone(), None, at(1))).unwrap();
    let limited = search(&request(agent.clone(), None, at(2))).unwrap_err();
    assert!(
        limited.to_string().contains("query_rate_per_minute = 2"),
        "{limited}"
    );
    // An unknown session has no context: it may search, and finds nothing.
    let nothing = search(&request(other.clone(), None, at(3))).unwrap();
    assert!(nothing.hits.is_empty());
    for _ in 0..3 {
        search(&request(Caller::Person, None, at(4))).unwrap();
    }
    search(&request(agent.clone(), None, at(70))).unwrap();
    search(&request(other.clone(), None, at(71))).unwrap();
    let daily = search(&request(other.clone(), None, at(72))).unwrap_err();
    assert!(
        daily.to_string().contains("query_rate_per_day = 5"),
        "{daily}"
    );
    // A day later the count starts again; 0 means unlimited.
    search(&request(agent.clone(), None, at(86_500))).unwrap();
    store.set_config("query_rate_per_minute", "0").unwrap();
    store.set_config("query_rate_per_day", "0").unwrap();
    for n in 0..8 {
        search(&request(agent.clone(), None, at(86_600 + n))).unwrap();
    }

    // Turned off, agents cannot search; the person still can.
    store
        .set_config("cross_surface_query_enabled", "false")
        .unwrap();
    let off = search(&request(agent, None, at(90_000))).unwrap_err();
    assert!(off.to_string().contains("turned off"), "{off}");
    search(&request(Caller::Person, None, at(90_000))).unwrap();
}

#[test]
fn a_session_not_yet_captured_searches_the_context_its_brief_was_delivered_for() {
    let dir = tempfile::tempdir().unwrap();
    let store = crate::Store::open(dir.path().join("store")).unwrap();
    ingest_dir(&store, &elnor_fixtures::samples());
    crate::test_support::capture_all(&store, now());
    let secrets = crate::base::secrets::MemorySecrets::default();
    let live = Caller::Agent {
        session: SessionId::new("live-session-not-ingested-yet").unwrap(),
    };
    let current = |at| request(live.clone(), Some(Permission::CurrentOnly), at);
    // Before any brief: a session nobody knows reads nothing.
    let nothing = crate::usecase::search(&store, &current(now()), &secrets).unwrap();
    assert!(nothing.hits.is_empty(), "{:?}", nothing.hits);

    // Its SessionStart hook delivers a brief for a project whose sessions hold matching text.
    let everything =
        crate::usecase::search(&store, &request(Caller::Person, None, now()), &secrets).unwrap();
    let wc = everything
        .hits
        .iter()
        .find_map(|h| context_of(&store, h.session_id.as_deref()?))
        .map(|w| crate::base::ids::WorkContextId::new(w).unwrap())
        .expect("a hit in a placed session");
    let mut brief = crate::brief::BriefRequest::new(
        now(),
        now().date_naive(),
        crate::brief::Delivery::Delivered,
    );
    brief.session_id = Some(SessionId::new("live-session-not-ingested-yet").unwrap());
    brief.work_context_id = Some(wc.clone());
    crate::brief::assemble(&store, &brief).unwrap();
    // A preview for another context does not count: only a delivery says where the session is.
    let other = store.log_ids().unwrap().into_iter().find(|w| *w != wc);
    if let Some(other) = &other {
        let mut preview = brief.clone();
        preview.delivery = crate::brief::Delivery::Preview;
        preview.work_context_id = Some(other.clone());
        crate::brief::assemble(&store, &preview).unwrap();
    }

    let found =
        crate::usecase::search(&store, &current(now() + Duration::minutes(2)), &secrets).unwrap();
    assert!(
        !found.hits.is_empty(),
        "the briefed context has matching text"
    );
    for h in &found.hits {
        let place = h
            .work_context_id
            .clone()
            .or_else(|| h.session_id.as_deref().and_then(|s| context_of(&store, s)));
        assert_eq!(place.as_deref(), Some(wc.as_str()), "{h:?}");
    }
}

#[test]
fn the_session_in_a_folder_is_the_newest_recorded_there_or_briefed_there_since() {
    let dir = tempfile::tempdir().unwrap();
    let store = crate::Store::open(dir.path().join("store")).unwrap();
    ingest_dir(&store, &elnor_fixtures::samples());
    let (folder, newest): (String, String) = store
        .graph()
        .with_conn(|c| {
            c.query_row(
                "SELECT cwd, session_id FROM transcript_sessions
                  WHERE cwd IS NOT NULL AND session_kind = 'primary'
                  ORDER BY last_turn_at DESC LIMIT 1",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
        })
        .unwrap();
    let found = |cwd: &str| {
        super::session_in_folder(&store, cwd)
            .unwrap()
            .map(|s| s.to_string())
    };
    assert_eq!(found(&folder).as_deref(), Some(newest.as_str()));
    assert_eq!(
        found(&format!("{folder}/")).as_deref(),
        Some(newest.as_str())
    );
    assert_eq!(found("/nowhere/at/all"), None);

    // A live session's hook delivers its brief there later: that session is the one asking.
    let later = now() + Duration::days(400);
    let mut brief =
        crate::brief::BriefRequest::new(later, later.date_naive(), crate::brief::Delivery::Preview);
    brief.cwd = Some(folder.clone());
    brief.session_id = Some(SessionId::new("previewed-only").unwrap());
    crate::brief::assemble(&store, &brief).unwrap();
    assert_eq!(
        found(&folder).as_deref(),
        Some(newest.as_str()),
        "a preview is nobody"
    );
    brief.delivery = crate::brief::Delivery::Delivered;
    brief.session_id = Some(SessionId::new("live-one").unwrap());
    crate::brief::assemble(&store, &brief).unwrap();
    assert_eq!(found(&folder).as_deref(), Some("live-one"));
}
