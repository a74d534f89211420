//! Today over the project's samples: the first look, the same visit again, a later visit that
//! sees what moved, and the health alerts of a store whose harnesses fell quiet.

use chrono::{DateTime, Duration, Utc};

use super::*;
use crate::graph::entities::parse_ts;
use crate::inputs::transcripts::Harness;

/// When the samples' newest session ended.
fn newest(store: &Store) -> DateTime<Utc> {
    let at: String = store
        .graph()
        .with_conn(|c| {
            c.query_row(
                "SELECT max(last_turn_at) FROM transcript_sessions",
                [],
                |r| r.get(0),
            )
        })
        .unwrap();
    parse_ts(Some(at)).unwrap()
}

#[test]
fn today_says_what_waits_and_what_moved_since_the_last_look() {
    let (_dir, store) = crate::test_support::sample_store();
    store.set_mode(ContinuityMode::Deterministic).unwrap();
    let end = newest(&store);
    crate::test_support::capture_all(&store, end + Duration::hours(1));

    // The first look: nothing to compare with, so nothing "moved"; the projects and their
    // questions are there.
    let first = end + Duration::days(1);
    let t = today(&store, first).unwrap();
    assert_eq!(t.last_looked_at, None);
    assert!(t.moved.is_empty());
    assert!(!t.projects.is_empty());
    let projects = store
        .graph()
        .work_contexts()
        .unwrap()
        .into_iter()
        .filter(|w| w.origin == crate::graph::contexts::Origin::Project)
        .count();
    assert_eq!(t.project_count, projects);
    assert_eq!(t.pending_reviews, pending_review_count(&store).unwrap());
    // The samples leave more open questions than Today lists.
    assert!(
        t.waiting_question_count > QUESTIONS_SHOWN,
        "{:?}",
        t.waiting_questions
    );
    assert_eq!(
        t.waiting_questions.len(),
        t.waiting_question_count.min(QUESTIONS_SHOWN)
    );
    // The person's questions come before the detectors' guesses, each group oldest first.
    for pair in t.waiting_questions.windows(2) {
        assert!(
            (pair[0].heuristic, pair[0].asked_at) <= (pair[1].heuristic, pair[1].asked_at),
            "{pair:?}"
        );
    }

    // Back on Today ten minutes later: the same visit, still nothing to compare with.
    assert_eq!(
        today(&store, first + Duration::minutes(10))
            .unwrap()
            .last_looked_at,
        None
    );

    // A session moves on after that visit; the next visit says so, and only that context.
    let moved_at = first + Duration::hours(2);
    let (session, wc): (String, String) = store
        .graph()
        .with_conn(|c| {
            c.query_row(
                "SELECT session_id, work_context_id FROM transcript_sessions
                 WHERE work_context_id IS NOT NULL ORDER BY session_id LIMIT 1",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
        })
        .unwrap();
    store
        .graph()
        .with_conn(|c| {
            c.execute(
                "UPDATE transcript_sessions SET last_turn_at = ?2 WHERE session_id = ?1",
                rusqlite::params![session, ts(moved_at)],
            )
        })
        .unwrap();
    let later = today(&store, first + Duration::hours(3)).unwrap();
    assert_eq!(later.last_looked_at, Some(first + Duration::minutes(10)));
    let moved: Vec<(&str, u64)> = later
        .moved
        .iter()
        .map(|m| (m.work_context_id.as_str(), m.sessions_since))
        .collect();
    assert_eq!(moved, [(wc.as_str(), 1)]);
    // And the visit after that compares with this one: nothing moved since.
    let next = today(&store, first + Duration::hours(5)).unwrap();
    assert!(next.moved.is_empty());

    // Months later the questions of contexts left alone are history, not waiting on anyone,
    // and the nightly job that ran once and stopped is overdue.
    crate::usecase::nightly::run(
        &store,
        &crate::base::secrets::MemorySecrets::default(),
        first,
    )
    .unwrap();
    let much_later = today(&store, first + Duration::days(90)).unwrap();
    assert!(much_later.waiting_questions.is_empty());
    assert!(
        much_later
            .alerts
            .iter()
            .any(|a| a.kind == AlertKind::NightlyOverdue),
        "{:?}",
        much_later.alerts
    );
}

#[test]
fn a_harness_that_fell_quiet_while_others_go_on_is_an_alert() {
    let (_dir, store) = crate::test_support::sample_store();
    let end = newest(&store);
    // Every session of one harness ended a month before the others.
    let harness: String = store
        .graph()
        .with_conn(|c| {
            c.query_row(
                "SELECT harness FROM transcript_sessions GROUP BY harness ORDER BY harness LIMIT 1",
                [],
                |r| r.get(0),
            )
        })
        .unwrap();
    store
        .graph()
        .with_conn(|c| {
            c.execute(
                "UPDATE transcript_sessions SET last_turn_at = ?2 WHERE harness = ?1",
                rusqlite::params![harness, ts(end - Duration::days(60))],
            )
        })
        .unwrap();
    let t = today(&store, end + Duration::days(1)).unwrap();
    let label = Harness::parse(&harness).unwrap().label();
    let quiet: Vec<&str> = t
        .alerts
        .iter()
        .filter(|a| a.kind == AlertKind::HarnessQuiet)
        .map(|a| a.message.as_str())
        .collect();
    assert_eq!(quiet.len(), 1, "{quiet:?}");
    assert!(
        quiet[0].starts_with(&format!("No new {label} sessions since")),
        "{quiet:?}"
    );
}

#[test]
fn a_hook_that_never_fired_though_sessions_ran_and_a_running_dreaming_are_alerts() {
    let (_dir, store) = crate::test_support::sample_store();
    let end = newest(&store);
    let home = tempfile::tempdir().unwrap();
    let paths = HarnessPaths::for_home(home.path());
    std::fs::create_dir_all(paths.claude_settings().parent().unwrap()).unwrap();
    std::fs::create_dir_all(paths.openclaw_config.parent().unwrap()).unwrap();
    std::fs::write(
        paths.claude_settings(),
        r#"{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "/bin/elnor hook --harness claude-code"}]}]}}"#,
    )
    .unwrap();
    let kinds = |t: &Today| -> Vec<AlertKind> {
        t.alerts
            .iter()
            .map(|a| a.kind)
            .filter(|k| matches!(k, AlertKind::HookNeverFired | AlertKind::DreamingOn))
            .collect()
    };
    // Installed after the samples' last session: it has had no chance to fire yet.
    let settings = std::fs::File::options()
        .append(true)
        .open(paths.claude_settings())
        .unwrap();
    settings
        .set_modified((end + Duration::hours(1)).into())
        .unwrap();
    assert_eq!(
        kinds(&today_with(&store, end + Duration::days(1), &paths).unwrap()),
        []
    );
    // Installed before sessions that then ran without it firing: the hook is not working.
    settings
        .set_modified((end - Duration::days(400)).into())
        .unwrap();
    let t = today_with(&store, end + Duration::days(1), &paths).unwrap();
    assert_eq!(kinds(&t), [AlertKind::HookNeverFired]);
    let message = &t
        .alerts
        .iter()
        .find(|a| a.kind == AlertKind::HookNeverFired)
        .unwrap()
        .message;
    assert!(
        message.starts_with("Claude Code's SessionStart hook is installed in"),
        "{message}"
    );
    // Once it fires, the alert goes.
    crate::usecase::harness::hooks::record_hook_fire(
        &store,
        Harness::ClaudeCode,
        "SessionStart",
        end,
    )
    .unwrap();
    assert_eq!(
        kinds(&today_with(&store, end + Duration::days(1), &paths).unwrap()),
        []
    );

    // OpenClaw with Dreaming on by default.
    std::fs::write(&paths.openclaw_config, "{ gateway: { port: 18789 } }").unwrap();
    let t = today_with(&store, end + Duration::days(1), &paths).unwrap();
    assert_eq!(kinds(&t), [AlertKind::DreamingOn]);
    let message = &t
        .alerts
        .iter()
        .find(|a| a.kind == AlertKind::DreamingOn)
        .unwrap()
        .message;
    assert!(message.contains("elnor dreaming disable"), "{message}");
}
