//! Timeline tests: every kind of item from a real store, the filters, and the per-day chart.

use chrono::TimeZone;
use expect_test::expect;

use super::*;
use crate::graph::contexts::NewWorkContext;
use crate::inputs::observe::{Push, push};

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 22, 12, 0, 0).unwrap()
}

fn show(t: &Timeline) -> String {
    let mut out: Vec<String> = t
        .items
        .iter()
        .map(|i| {
            format!(
                "{} {} {:?} detail={:?} wc={:?} harness={:?} -> {:?}",
                i.at.format("%m-%d %H:%M"),
                i.kind.as_str(),
                i.title,
                i.detail,
                i.work_context_name,
                i.harness,
                i.target
            )
        })
        .collect();
    for d in &t.days {
        if !d.counts.is_empty() {
            let counts: Vec<String> = d
                .counts
                .iter()
                .map(|c| format!("{}={}", c.name, c.count))
                .collect();
            out.push(format!("day {} {}", d.day, counts.join(" ")));
        }
    }
    out.push(format!("days={} truncated={}", t.days.len(), t.truncated));
    out.join("\n")
}

fn store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let wc = store
        .graph()
        .create_work_context(
            &NewWorkContext {
                name: "Henderson".into(),
                ..NewWorkContext::default()
            },
            now(),
        )
        .unwrap()
        .work_context_id;
    let at = |d: i64, h: u32| {
        ts(now() - Duration::days(d) + Duration::hours(i64::from(h)) - Duration::hours(12))
    };
    store
        .graph()
        .with_conn(|c| {
            c.execute(
                "INSERT INTO transcript_sessions (session_id, harness, source_path, cwd, title,
                     started_at, last_turn_at, turn_count, work_context_id)
                 VALUES ('s1', 'claude_code', '/t/s1.jsonl', '/work/h', 'Damages draft', ?1, ?1, 12, ?2),
                        ('s2', 'codex', '/t/s2.jsonl', NULL, NULL, ?3, ?3, 3, NULL),
                        ('old', 'codex', '/t/old.jsonl', NULL, NULL, ?4, ?4, 3, NULL)",
                rusqlite::params![at(2, 9), wc.as_str(), at(1, 10), at(40, 10)],
            )?;
            c.execute(
                "INSERT INTO capture_runs (session_id, work_context_id, trigger, config_mode,
                     capture_mode, entries_written, captured_at)
                 VALUES ('s1', ?1, 'idle_timeout', 'full', 'deterministic', 3, ?2),
                        ('s1', ?1, 'idle_timeout', 'full', 'deterministic', 0, ?2)",
                rusqlite::params![wc.as_str(), at(2, 11)],
            )?;
            c.execute(
                "INSERT INTO promotion_proposals (rule, node_kind, work_context_id, entry_id, text,
                     evidence, evidence_key, status, node_id, created_at, decided_at)
                 VALUES ('referenced_decision', 'memory_directive', ?1, 'e1', 'Use price impact',
                         '{}', 'k', 'approved', 'dir_1', ?2, ?3)",
                rusqlite::params![wc.as_str(), at(2, 12), at(1, 8)],
            )?;
            // Approved in the person's own words: the timeline says what the node says.
            c.execute(
                "INSERT INTO memory_directives (directive_id, text, created_at, updated_at)
                 VALUES ('dir_1', 'Lead with price impact', ?1, ?1)",
                [at(1, 8)],
            )
        })
        .unwrap();
    push(
        &store,
        &Push {
            text: "Called the expert".into(),
            work_context: Some(wc),
            entities: vec![],
        },
        now() - Duration::hours(1),
    )
    .unwrap();
    (dir, store)
}

#[test]
fn every_kind_newest_first_with_a_day_chart() {
    let (_d, store) = store();
    let mut f = Filter {
        days: 7,
        ..Filter::default()
    };
    expect![[r#"
        11-22 11:00 push "Called the expert" detail=None wc=Some("Henderson") harness=None -> Some(Observation(1))
        11-21 10:00 session "session s2" detail=Some("3 turns") wc=None harness=Some("codex") -> Some(Session(SessionId("s2")))
        11-21 08:00 promotion "Approved memory directive: Lead with price impact" detail=None wc=Some("Henderson") harness=None -> Some(Node(NodeId("dir_1")))
        11-20 12:00 promotion "Proposed memory directive: Use price impact" detail=None wc=Some("Henderson") harness=None -> Some(Proposal(1))
        11-20 11:00 capture "Captured 3 entries from Damages draft" detail=Some("after it went quiet, offline") wc=Some("Henderson") harness=Some("claude_code") -> Some(Session(SessionId("s1")))
        11-20 09:00 session "Damages draft" detail=Some("12 turns in /work/h") wc=Some("Henderson") harness=Some("claude_code") -> Some(Session(SessionId("s1")))
        day 2026-11-20 Henderson=3
        day 2026-11-21 other work=1 Henderson=1
        day 2026-11-22 Henderson=1
        days=7 truncated=false"#]]
    .assert_eq(&show(&query(&store, &f, now()).unwrap()));
    // Filters: a harness keeps its sessions and captures only; kinds; a limit truncates the list
    // but not the chart.
    f.harness = Some("claude_code".into());
    assert_eq!(query(&store, &f, now()).unwrap().items.len(), 2);
    f.harness = None;
    f.kinds = vec![ItemKind::Push, ItemKind::Promotion];
    assert_eq!(query(&store, &f, now()).unwrap().items.len(), 3);
    f.kinds = vec![];
    f.limit = 2;
    let t = query(&store, &f, now()).unwrap();
    assert!(t.truncated);
    assert_eq!(t.items.len(), 2);
    assert_eq!(
        t.days
            .iter()
            .flat_map(|d| &d.counts)
            .map(|c| c.count)
            .sum::<u32>(),
        6
    );
    f.limit = 0;
    f.work_context = Some(WorkContextId::new("wc_nobody").unwrap());
    // A context that does not exist is said, not shown as an empty timeline.
    let err = query(&store, &f, now()).unwrap_err().to_string();
    assert!(err.contains("wc_nobody"), "{err}");
    // The 40-day-old session shows in a 60-day window.
    let all = query(
        &store,
        &Filter {
            days: 60,
            ..Filter::default()
        },
        now(),
    )
    .unwrap();
    assert_eq!(all.items.len(), 7);
    assert_eq!(all.days.len(), 60);
    assert!(ItemKind::parse("nope").is_err());
}

#[test]
fn all_of_history_is_charted_by_month_with_the_busiest_contexts_and_the_rest_as_other() {
    let (_d, store) = store();
    // Nine more contexts, each with sessions three years ago: more than the chart keeps apart.
    store
        .graph()
        .with_conn(|c| {
            for i in 0..9 {
                c.execute(
                    "INSERT INTO work_contexts (work_context_id, name, origin, created_at,
                         updated_at)
                     VALUES (?1, ?2, 'named', ?3, ?3)",
                    rusqlite::params![format!("wc_x{i}"), format!("Context {i}"), ts(now())],
                )?;
                for n in 0..=i {
                    c.execute(
                        "INSERT INTO transcript_sessions (session_id, harness, source_path,
                             started_at, last_turn_at, turn_count, work_context_id)
                         VALUES (?1, 'codex', ?2, ?3, ?3, 1, ?4)",
                        rusqlite::params![
                            format!("x{i}-{n}"),
                            format!("/t/x{i}-{n}.jsonl"),
                            ts(now() - Duration::days(3 * 365)),
                            format!("wc_x{i}")
                        ],
                    )?;
                }
            }
            Ok(())
        })
        .unwrap();
    let t = query(
        &store,
        &Filter {
            days: MAX_DAYS,
            ..Filter::default()
        },
        now(),
    )
    .unwrap();
    assert_eq!(t.bucket, Bucket::Month);
    assert_eq!(t.since, "2023-11-01");
    assert_eq!(
        t.days.len(),
        37,
        "{:?}",
        t.days.iter().map(|d| &d.day).collect::<Vec<_>>()
    );
    let legend: Vec<String> = t
        .legend
        .iter()
        .map(|l| format!("{}={}", l.name, l.count))
        .collect();
    expect![[r#"["Context 8=9", "Context 7=8", "Context 6=7", "Context 5=6", "Context 4=5", "Henderson=5", "Context 3=4", "other work=8"]"#]]
        .assert_eq(&format!("{legend:?}"));
    // Every bar's contexts are among the legend's.
    for d in &t.days {
        for c in &d.counts {
            assert!(t.legend.iter().any(|l| l.name == c.name), "{}", c.name);
        }
    }
}
