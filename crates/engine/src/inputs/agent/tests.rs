//! The trigger model against CSA §5.2's rapid-switching table, minute by minute, plus the
//! dirty-flag rules and the other triggers.

use chrono::TimeZone;
use expect_test::expect;

use super::*;

fn at(h: u32, m: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 4, 29, h, m, 0).unwrap()
}

fn user() -> TurnSignal {
    TurnSignal {
        user_message: true,
        ..TurnSignal::default()
    }
}

fn defaults() -> Triggers {
    Triggers::new(Thresholds::from(&ContinuityConfig::default()))
}

#[test]
fn csa_5_2_rapid_switching_table_gives_two_captures() {
    // 9:00 Henderson (5 turns); 9:03 → Johnson; 9:08 → Henderson; 9:11 → DOC24;
    // 9:16 → Johnson (3 turns); still Johnson at 9:30–9:31; then nothing.
    let mut events: Vec<(DateTime<Utc>, &str, u32)> = vec![
        (at(9, 0), "henderson", 5),
        (at(9, 3), "johnson", 1),
        (at(9, 8), "henderson", 1),
        (at(9, 11), "doc24", 1),
        (at(9, 16), "johnson", 3),
        (at(9, 31), "johnson", 1),
    ];
    events.reverse();
    let mut t = defaults();
    let mut log = Vec::new();
    for minute in 0..=60 {
        let now = at(9, 0) + Duration::minutes(minute);
        while events.last().is_some_and(|(when, _, _)| *when == now) {
            let (when, session, turns) = events.pop().unwrap();
            for _ in 0..turns {
                t.on_turn(session, when, user());
            }
        }
        for (session, trigger) in t.tick(now) {
            log.push(format!("{} {session} {trigger:?}", now.format("%H:%M")));
        }
    }
    expect![[r#"
        [
            "09:30 henderson DebouncedDefocus",
            "09:46 johnson IdleTimeout",
        ]
    "#]]
    .assert_debug_eq(&log);
}

/// The same table when the agent answered the one message DOC24 got: the table's two captures
/// stand, and DOC24, an exchange never captured, is captured once too, when it has been quiet for
/// the debounce (our rule beside CSA §5.2's).
#[test]
fn the_rapid_switching_table_with_an_answered_touch_captures_it_once_after() {
    let mut t = defaults();
    let answered = TurnSignal {
        answered: true,
        ..TurnSignal::default()
    };
    let mut log = Vec::new();
    for minute in 0..=90 {
        let now = at(9, 0) + Duration::minutes(minute);
        match minute {
            0 => (0..5).for_each(|_| t.on_turn("henderson", now, user())),
            3 => t.on_turn("johnson", now, user()),
            8 => t.on_turn("henderson", now, user()),
            11 => {
                t.on_turn("doc24", now, user());
                t.on_turn("doc24", now, answered);
            }
            16 => (0..3).for_each(|_| t.on_turn("johnson", now, user())),
            31 => t.on_turn("johnson", now, user()),
            _ => {}
        }
        for (session, trigger) in t.tick(now) {
            log.push(format!("{} {session} {trigger:?}", now.format("%H:%M")));
        }
    }
    expect![[r#"
        [
            "09:30 henderson DebouncedDefocus",
            "09:41 doc24 DebouncedDefocus",
            "09:46 johnson IdleTimeout",
        ]
    "#]]
    .assert_debug_eq(&log);
}

#[test]
fn dirty_flag_rules() {
    let mut t = defaults();
    t.on_turn("a", at(9, 0), user());
    t.on_turn("a", at(9, 1), user());
    assert!(!t.is_dirty("a"), "two user messages are a glance");
    t.on_turn("a", at(9, 2), user());
    assert!(t.is_dirty("a"));
    t.on_turn(
        "b",
        at(9, 3),
        TurnSignal {
            tool_execution: true,
            ..TurnSignal::default()
        },
    );
    assert!(t.is_dirty("b"), "one tool execution");
    t.on_turn(
        "c",
        at(9, 4),
        TurnSignal {
            entity_candidate: true,
            ..TurnSignal::default()
        },
    );
    assert!(t.is_dirty("c"), "one entity candidate");
    t.on_turn("d", at(9, 5), TurnSignal::default());
    assert!(!t.is_dirty("d"), "assistant turns alone do not");
}

/// Two questions and their answers are a glance while the session goes on, and what the session
/// was once it has ended: captured then, once, and in the nightly sweep.
#[test]
fn an_ended_exchange_is_captured_once_a_glance_never_while_it_goes_on() {
    let asked = user();
    let answered = TurnSignal {
        answered: true,
        ..TurnSignal::default()
    };
    let mut t = defaults();
    t.on_turn("short", at(9, 0), asked);
    t.on_turn("short", at(9, 1), answered);
    t.on_turn("short", at(9, 2), asked);
    t.on_turn("short", at(9, 3), answered);
    // A message nobody answered is no exchange, even once it has ended.
    t.on_turn("unanswered", at(9, 4), asked);
    // The person moves on at once: "short" has lost focus, "other" is live.
    t.on_turn("other", at(9, 5), asked);
    assert!(!t.is_dirty("short"), "the dirty flag stays the spec's");
    assert!(t.tick(at(9, 20)).is_empty(), "still within the debounce");
    assert_eq!(
        t.tick(at(9, 33)),
        vec![("short".to_owned(), Trigger::DebouncedDefocus)],
        "ended: quiet for the debounce since its last turn"
    );
    assert!(t.tick(at(10, 30)).is_empty(), "read once");
    // The focused session's exchange waits for the person to be idle.
    t.on_turn("other", at(10, 40), answered);
    assert!(t.tick(at(10, 50)).is_empty());
    assert_eq!(
        t.tick(at(10, 55)),
        vec![("other".to_owned(), Trigger::IdleTimeout)]
    );
    // The sweep reads an unread exchange whatever its timers say.
    t.on_turn("late", at(22, 58), asked);
    t.on_turn("late", at(22, 59), answered);
    assert_eq!(
        t.nightly_sweep(at(23, 0)),
        vec![("late".to_owned(), Trigger::NightlySweep)]
    );
    // A session captured before, in this run or an earlier one, is left to the dirty rules: a
    // "thanks" and its answer after the capture are no new work.
    t.on_turn("short", at(23, 10), asked);
    t.on_turn("short", at(23, 11), answered);
    let before = TurnSignal {
        captured_before: true,
        ..TurnSignal::default()
    };
    t.on_turn(
        "earlier",
        at(23, 12),
        TurnSignal {
            user_message: true,
            ..before
        },
    );
    t.on_turn(
        "earlier",
        at(23, 13),
        TurnSignal {
            answered: true,
            ..before
        },
    );
    assert!(t.tick(at(23, 59)).is_empty());
    assert!(t.nightly_sweep(at(23, 59)).is_empty());
}

#[test]
fn manual_pre_compaction_and_nightly() {
    let mut t = defaults();
    for m in 0..3 {
        t.on_turn("a", at(9, m), user());
    }
    t.on_turn("b", at(9, 5), user());
    assert_eq!(
        t.pre_compaction("b", at(9, 6)),
        Trigger::PreCompaction,
        "even when clean"
    );
    let swept = t.nightly_sweep(at(23, 0));
    assert_eq!(swept, vec![("a".to_owned(), Trigger::NightlySweep)]);
    assert!(!t.is_dirty("a"));
    assert!(t.nightly_sweep(at(23, 30)).is_empty(), "nothing twice");
    assert_eq!(t.manual("a", at(23, 31)), Trigger::ManualRequest);
}

#[test]
fn thresholds_follow_config() {
    let config = ContinuityConfig {
        min_dirty_turns: 1,
        idle_trigger_minutes: 5,
        debounce_minutes: 10,
        ..ContinuityConfig::default()
    };
    let mut t = Triggers::new(Thresholds::from(&config));
    t.on_turn("a", at(9, 0), user());
    assert!(t.is_dirty("a"));
    assert!(t.tick(at(9, 4)).is_empty());
    assert_eq!(
        t.tick(at(9, 5)),
        vec![("a".to_owned(), Trigger::IdleTimeout)]
    );
    t.on_turn("a", at(9, 6), user());
    t.on_turn("b", at(9, 7), user());
    // "a" lost focus; its debounce counts from its capture at 9:05.
    assert!(t.tick(at(9, 11)).is_empty());
    let due = t.tick(at(9, 15));
    assert!(
        due.contains(&("a".to_owned(), Trigger::DebouncedDefocus)),
        "{due:?}"
    );
}

/// The agent over the ingested fixture corpus: every due session is idle long ago, so one run
/// captures each of them once (the compacted ones by `pre_compaction`), and a second run finds
/// nothing new.
#[test]
fn agent_over_the_fixture_store_captures_each_due_session_once() {
    let Some((_d, store)) = crate::test_support::fixture_store() else {
        return;
    };
    store
        .set_mode(crate::ContinuityMode::Deterministic)
        .unwrap();
    let mut agent = Agent::new(&store.config().unwrap());
    let secrets = crate::base::secrets::MemorySecrets::default();
    let now = Utc.with_ymd_and_hms(2026, 11, 22, 9, 0, 0).unwrap();
    let run = agent.run_once(&store, &secrets, now).unwrap();
    let mut lines: Vec<String> = run
        .captures
        .iter()
        .map(|o| format!("{:?} {} {:?}", o.trigger, o.session_id, o.status))
        .collect();
    lines.sort();
    expect_test::expect![[r#"
        DebouncedDefocus 019c8a70-dda7-7f33-98ea-f30553347322 Captured
        DebouncedDefocus 019c8bfe-ec25-79e0-97d7-bda6a9c575ff Captured
        DebouncedDefocus 55604662-cf2a-4331-851a-ec234028f8ca Captured
        DebouncedDefocus 8555a0a4-0b79-459d-939c-e17cdbbf4fe2 Captured
        DebouncedDefocus ae4a77f8-aedd-4bc1-888f-c94edc91af04:agent-aac57f5 Subagent
        DebouncedDefocus d6e0bada-1959-4eec-a9d2-0bfade768d8f Captured
        IdleTimeout 019e1695-0522-7c83-8b39-0dd379793f80 Captured
        PreCompaction 019c8a59-e9dd-71f0-9ae3-4079fe9726a9 Captured
        PreCompaction ae4a77f8-aedd-4bc1-888f-c94edc91af04 Captured
        PreCompaction ffae836b-9420-4060-ac13-7745215f90ff Captured"#]]
    .assert_eq(&lines.join("\n"));
    assert!(run.failures.is_empty());
    let again = agent
        .run_once(&store, &secrets, now + Duration::hours(1))
        .unwrap();
    assert!(again.captures.is_empty(), "{:?}", again.captures.len());
    // A fresh agent (a restarted `watch`) starts from each session's last capture: nothing new.
    let mut restarted = Agent::new(&store.config().unwrap());
    let third = restarted
        .run_once(&store, &secrets, now + Duration::hours(2))
        .unwrap();
    assert!(third.captures.is_empty());
}

/// The nightly sweep over the same store captures the same sessions: those whose transcript shows
/// a compaction too, which observing them had marked as captured (they were once dropped, so a
/// long session that compacted was never captured by a sweep).
#[test]
fn the_sweep_captures_compacted_sessions_too() {
    let Some((_d, store)) = crate::test_support::fixture_store() else {
        return;
    };
    store
        .set_mode(crate::ContinuityMode::Deterministic)
        .unwrap();
    let secrets = crate::base::secrets::MemorySecrets::default();
    let now = Utc.with_ymd_and_hms(2026, 11, 22, 9, 0, 0).unwrap();
    let run = Agent::new(&store.config().unwrap())
        .sweep(&store, &secrets, now)
        .unwrap();
    let mut lines: Vec<String> = run
        .captures
        .iter()
        .map(|o| format!("{:?} {}", o.trigger, o.session_id))
        .collect();
    lines.sort();
    expect_test::expect![[r#"
        NightlySweep 019c8a70-dda7-7f33-98ea-f30553347322
        NightlySweep 019c8bfe-ec25-79e0-97d7-bda6a9c575ff
        NightlySweep 019e1695-0522-7c83-8b39-0dd379793f80
        NightlySweep 55604662-cf2a-4331-851a-ec234028f8ca
        NightlySweep 8555a0a4-0b79-459d-939c-e17cdbbf4fe2
        NightlySweep ae4a77f8-aedd-4bc1-888f-c94edc91af04:agent-aac57f5
        NightlySweep d6e0bada-1959-4eec-a9d2-0bfade768d8f
        PreCompaction 019c8a59-e9dd-71f0-9ae3-4079fe9726a9
        PreCompaction ae4a77f8-aedd-4bc1-888f-c94edc91af04
        PreCompaction ffae836b-9420-4060-ac13-7745215f90ff"#]]
    .assert_eq(&lines.join("\n"));
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("PreCompaction ae4a77f8")),
        "{lines:?}"
    );
}
