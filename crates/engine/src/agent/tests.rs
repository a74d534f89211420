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
